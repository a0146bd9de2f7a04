//! One-sided communication: windows with ids shared by their members, and every call on a
//! window as an [`RmaCall`] (see [`crate::model::rma`]).
//!
//! A window's id comes from its communicator and the position of its constructor among the
//! window constructors on that communicator: every member makes each constructor call, so
//! the key agrees across ranks. Target ranks are window (communicator) ranks translated to
//! world ranks; target bytes come from the displacement, the count and the target
//! datatype's size when its layout is contiguous.

use std::collections::{BTreeMap, HashMap};

use super::{Args, RankNormalizer};
use crate::model::*;

/// The windows of the run and every call on them, shared by the ranks' normalizers.
#[derive(Default)]
pub(super) struct RmaTables {
    pub windows: Vec<WindowInfo>,
    /// (communicator, ordinal of the window constructor on it) → window.
    ids: HashMap<(CommId, u32), WinId>,
    pub windows_seen: super::FirstSeen,
    /// The constructor of each window, for its name (made once the windows are numbered).
    made_by: Vec<String>,
    pub calls: HashMap<(Rank, u32), RmaCall>,
}

/// One rank's window handles.
#[derive(Default)]
pub(super) struct RankWindows {
    by_handle: HashMap<i64, WinId>,
    /// Window constructors on each communicator so far on this rank.
    created: HashMap<CommId, u32>,
    /// Group handles → world ranks, for the groups of `MPI_Win_post` and `MPI_Win_start`.
    groups: HashMap<i64, Vec<Rank>>,
    /// Committed derived datatypes → (extent, true_lb, true_extent), from
    /// `MPICHECK_Type_info`: where `count` elements really touch target memory.
    spans: HashMap<i64, (i64, i64, i64)>,
}

impl RmaTables {
    /// Names each window by its final id (`numbering`): `window 0 (MPI_Win_create on
    /// MPI_COMM_WORLD)`.
    pub fn name_windows(&mut self, numbering: &super::Numbering, comms: &CommTable) {
        for (win, made_by) in self.made_by.iter().enumerate() {
            let new = numbering.window(WinId(win as u32));
            let window = &mut self.windows[win];
            let comm = &comms[window.comm.0 as usize].name;
            window.name = format!("window {} ({made_by} on {comm})", new.0);
        }
    }
}

impl RankNormalizer<'_> {
    /// Records the [`RmaCall`] of a call on a window, if `name` (without the large-count
    /// suffix) is one.
    pub(super) fn rma_call(&mut self, name: &str, args: &Args, index: usize) {
        let Some(short) = name.strip_prefix("MPI_") else {
            return;
        };
        if args.plan.group_call && self.group_call(short, args) {
            return;
        }
        // Most calls are not on windows: decided by name before any argument is looked up.
        if !args.plan.window_call {
            return;
        }
        let flavor = match short {
            "Win_create" => Some(WinFlavor::Create),
            "Win_allocate" => Some(WinFlavor::Allocate),
            "Win_allocate_shared" => Some(WinFlavor::Shared),
            "Win_create_dynamic" => Some(WinFlavor::Dynamic),
            _ => None,
        };
        if let Some(flavor) = flavor {
            let win = self.create_window(name, flavor, args);
            self.record_rma(index, win, RmaKind::Create);
            return;
        }
        let Some(win) = args
            .int("win")
            .and_then(|raw| self.rma.by_handle.get(&raw).copied())
        else {
            // A window the trace did not see being created, or a freed one (AR005).
            return;
        };
        // A target argument the trace lacks (a damaged record): the call is not judged.
        let target = |me: &Self, param: &str| me.rma_target(win, args.int(param));
        let Some(rank_arg) = (match short {
            "Win_lock" | "Win_unlock" | "Win_flush" | "Win_flush_local" => target(self, "rank"),
            _ if access_kind(short).is_some() => target(self, "target_rank"),
            _ => Some(RmaTarget::ProcNull),
        }) else {
            return;
        };
        let kind = match short {
            "Win_free" => {
                if let Some(raw) = args.int("win") {
                    self.rma.by_handle.remove(&raw);
                }
                RmaKind::Free
            }
            "Win_fence" => RmaKind::Fence {
                nosucceed: matches!(
                    (args.int("assert"), self.constants.mode_nosucceed),
                    (Some(a), Some(bit)) if a & bit != 0
                ),
            },
            "Win_lock" => RmaKind::Lock {
                target: rank_arg,
                exclusive: match args.int("lock_type") {
                    Some(t) if Some(t) == self.constants.lock_exclusive => Some(true),
                    Some(t) if Some(t) == self.constants.lock_shared => Some(false),
                    _ => None,
                },
                nocheck: self.nocheck(args),
            },
            "Win_unlock" => RmaKind::Unlock { target: rank_arg },
            "Win_lock_all" => RmaKind::LockAll,
            "Win_unlock_all" => RmaKind::UnlockAll,
            "Win_post" => RmaKind::Post {
                group: self.group(args.int("group")),
                nocheck: self.nocheck(args),
            },
            "Win_start" => RmaKind::Start {
                group: self.group(args.int("group")),
                nocheck: self.nocheck(args),
            },
            "Win_complete" => RmaKind::Complete,
            "Win_wait" => RmaKind::Wait,
            "Win_test" => RmaKind::Test {
                done: args.out_int("flag").is_some_and(|f| f != 0),
            },
            "Win_flush" | "Win_flush_local" => RmaKind::Flush {
                target: Some(rank_arg),
            },
            "Win_flush_all" | "Win_flush_local_all" => RmaKind::Flush { target: None },
            "Win_sync" => RmaKind::Sync,
            "Win_attach" | "Win_detach" => {
                let address = |key: &str| args.int(key).and_then(|v| u64::try_from(v).ok());
                let Some(base) = address("base") else {
                    return;
                };
                if short == "Win_detach" {
                    RmaKind::Detach { base }
                } else {
                    let Some(size) = address("size") else {
                        return;
                    };
                    RmaKind::Attach { base, size }
                }
            }
            _ => match self.rma_access(short, rank_arg, args) {
                Some(access) => RmaKind::Access(access),
                None => return,
            },
        };
        self.record_rma(index, win, kind);
    }

    /// Whether the call's `assert` has `MPI_MODE_NOCHECK`.
    fn nocheck(&self, args: &Args) -> bool {
        matches!(
            (args.int("assert"), self.constants.mode_nocheck),
            (Some(a), Some(bit)) if a & bit != 0
        )
    }

    fn record_rma(&mut self, index: usize, win: WinId, kind: RmaKind) {
        self.tables.rma.calls.insert(
            (self.rank, index as u32),
            RmaCall {
                win,
                kind,
                // Filled once the call's event is made.
                event: EventSummary::default(),
            },
        );
    }

    fn create_window(&mut self, name: &str, flavor: WinFlavor, args: &Args) -> WinId {
        let comm = self.comm(args.int("comm"));
        let ordinal = self.rma.created.entry(comm.id).or_insert(0);
        *ordinal += 1;
        let key = (comm.id, *ordinal);
        let seen = self.state.seen();
        let tables = &mut *self.tables;
        let info = || WindowInfo {
            name: String::new(),
            comm: comm.id,
            members: comm.local.to_vec(),
            flavor,
            memory: BTreeMap::new(),
        };
        let win = match tables.rma.ids.get(&key) {
            Some(&win) => {
                if tables.rma.windows_seen.again(win.0, seen) {
                    let memory = std::mem::take(&mut tables.rma.windows[win.0 as usize].memory);
                    tables.rma.windows[win.0 as usize] = WindowInfo { memory, ..info() };
                    tables.rma.made_by[win.0 as usize] = name.to_string();
                }
                win
            }
            None => {
                let win = WinId(tables.rma.windows.len() as u32);
                tables.rma.windows.push(info());
                tables.rma.windows_seen.push(seen);
                tables.rma.made_by.push(name.to_string());
                tables.rma.ids.insert(key, win);
                win
            }
        };
        if flavor == WinFlavor::Dynamic {
            // Displacements are addresses: the unit is 1 and the memory is attached later.
            self.tables.rma.windows[win.0 as usize].memory.insert(
                self.state.rank,
                WinMemory {
                    size: 0,
                    disp_unit: 1,
                    base: None,
                },
            );
        } else {
            let size = args.int("size").and_then(|s| u64::try_from(s).ok());
            let unit = args.int("disp_unit").and_then(|u| u64::try_from(u).ok());
            let base = match flavor {
                WinFlavor::Create => args.int("base").and_then(|b| u64::try_from(b).ok()),
                _ => None,
            };
            if let (Some(size), Some(disp_unit)) = (size, unit) {
                self.tables.rma.windows[win.0 as usize].memory.insert(
                    self.state.rank,
                    WinMemory {
                        size,
                        disp_unit,
                        base,
                    },
                );
            }
        }
        if let Some(raw) = args.out_int("win") {
            self.rma.by_handle.insert(raw, win);
        }
        win
    }

    /// A target rank argument: a window rank, `MPI_PROC_NULL`, or neither.
    fn rma_target(&self, win: WinId, raw: Option<i64>) -> Option<RmaTarget> {
        let raw = raw?;
        if Some(raw) == self.constants.proc_null {
            return Some(RmaTarget::ProcNull);
        }
        let members = &self.tables.rma.windows[win.0 as usize].members;
        Some(
            match usize::try_from(raw).ok().and_then(|r| members.get(r)) {
                Some(&rank) => RmaTarget::Rank(rank),
                None => RmaTarget::Invalid(raw),
            },
        )
    }

    /// Notes the true bounds of a committed datatype (absent in traces of older recorders).
    pub(super) fn note_type_span(&mut self, raw: i64, args: &Args) {
        match (
            args.int("extent"),
            args.int("true_lb"),
            args.int("true_extent"),
        ) {
            (Some(extent), Some(true_lb), Some(true_extent)) if extent >= 0 && true_extent >= 0 => {
                self.rma.spans.insert(raw, (extent, true_lb, true_extent));
            }
            _ => {
                self.rma.spans.remove(&raw);
            }
        }
    }

    /// Bytes `count` elements of a datatype touch, from the target displacement: from the
    /// first element's true lower bound to the last element's true upper bound.
    fn touched_span(&self, count: i64, raw: i64) -> Option<(i64, i64)> {
        if count <= 0 {
            return Some((0, 0));
        }
        let Some(&(extent, true_lb, true_extent)) = self.rma.spans.get(&raw) else {
            // Predefined types, and derived ones of older traces without holes.
            let bytes = self.contiguous_bytes(count, raw)?;
            return Some((0, i64::try_from(bytes).ok()?));
        };
        let last = (count - 1).checked_mul(extent)?;
        Some((
            true_lb,
            last.checked_add(true_lb)?.checked_add(true_extent)?,
        ))
    }

    fn rma_access(&mut self, short: &str, target: RmaTarget, args: &Args) -> Option<RmaAccess> {
        let (kind, request) = access_kind(short)?;
        // The single-element calls name their one datatype `datatype`.
        let (count, type_raw) = match kind {
            AccessKind::FetchAndOp | AccessKind::CompareAndSwap => (Some(1), args.int("datatype")),
            _ => (args.int("target_count"), args.int("target_datatype")),
        };
        let count = count.unwrap_or(0);
        let bytes = type_raw.and_then(|t| self.contiguous_bytes(count, t));
        let span = type_raw.and_then(|t| self.touched_span(count, t));
        let op = args
            .int("op")
            .and_then(|raw| self.constants.ops.get(&raw).map(|op| op.to_string()));
        Some(RmaAccess {
            kind,
            request,
            target,
            disp: args.int("target_disp").unwrap_or(0),
            count,
            datatype: self.datatype(type_raw),
            bytes,
            span,
            op,
        })
    }
}

/// The communication call a function is, and whether it is the request-based form.
pub(super) fn access_kind(short: &str) -> Option<(AccessKind, bool)> {
    Some(match short {
        "Put" => (AccessKind::Put, false),
        "Get" => (AccessKind::Get, false),
        "Accumulate" => (AccessKind::Accumulate, false),
        "Get_accumulate" => (AccessKind::GetAccumulate, false),
        "Fetch_and_op" => (AccessKind::FetchAndOp, false),
        "Compare_and_swap" => (AccessKind::CompareAndSwap, false),
        "Rput" => (AccessKind::Put, true),
        "Rget" => (AccessKind::Get, true),
        "Raccumulate" => (AccessKind::Accumulate, true),
        "Rget_accumulate" => (AccessKind::GetAccumulate, true),
        _ => return None,
    })
}

mod groups;
#[cfg(test)]
mod tests;
