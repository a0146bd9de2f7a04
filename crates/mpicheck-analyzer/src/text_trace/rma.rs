//! RMA lines of text traces: windows and the calls on them (see the table in the parent
//! module's docs).

use std::collections::BTreeMap;

use super::{Keys, Parser, TextTraceError};
use crate::model::*;

/// Operations that are calls on a window but no collective (those are in `MANAGEMENT`).
pub(super) const RMA_CALLS: &[&str] = &[
    "put",
    "get",
    "accumulate",
    "get_accumulate",
    "fetch_and_op",
    "compare_and_swap",
    "rput",
    "rget",
    "raccumulate",
    "rget_accumulate",
    "win_lock",
    "win_unlock",
    "win_lock_all",
    "win_unlock_all",
    "win_post",
    "win_start",
    "win_complete",
    "win_wait",
    "win_test",
    "win_flush",
    "win_flush_local",
    "win_flush_all",
    "win_flush_local_all",
    "win_sync",
    "win_attach",
    "win_detach",
];

impl Parser {
    /// The [`RmaCall`] of one line for one rank, for lines with `win=`.
    pub(super) fn rma_call(
        &mut self,
        rank: Rank,
        name: &str,
        keys: &Keys,
    ) -> Result<Option<RmaCall>, TextTraceError> {
        let Some(win) = keys.get("win") else {
            return Ok(None);
        };
        let win: u32 = self.int("win", win)?;
        let flavor = match name {
            "win_create" => Some(WinFlavor::Create),
            "win_allocate" => Some(WinFlavor::Allocate),
            "win_allocate_shared" => Some(WinFlavor::Shared),
            "win_create_dynamic" => Some(WinFlavor::Dynamic),
            _ => None,
        };
        if let Some(flavor) = flavor {
            self.create_window(rank, name, win, flavor, keys)?;
            return Ok(Some(RmaCall {
                event: Default::default(),
                win: WinId(win),
                kind: RmaKind::Create,
            }));
        }
        if win as usize >= self.run.windows.len() {
            return self.err(format!("`win={win}`: window {win} was not created"));
        }
        let win = WinId(win);
        let target = |p: &Self| p.rma_target(win, keys);
        let kind = match name {
            "win_free" => RmaKind::Free,
            "win_fence" => RmaKind::Fence {
                nosucceed: keys
                    .get("assert")
                    .is_some_and(|a| a.split('|').any(|x| x == "nosucceed")),
            },
            "win_lock" => RmaKind::Lock {
                target: target(self)?,
                exclusive: match keys.get("type") {
                    None => None,
                    Some(&"exclusive") => Some(true),
                    Some(&"shared") => Some(false),
                    Some(other) => {
                        return self.err(format!(
                            "`type={other}`: a lock type is `exclusive` or `shared`"
                        ))
                    }
                },
                nocheck: nocheck(keys),
            },
            "win_unlock" => RmaKind::Unlock {
                target: target(self)?,
            },
            "win_lock_all" => RmaKind::LockAll,
            "win_unlock_all" => RmaKind::UnlockAll,
            "win_post" => RmaKind::Post {
                group: self.group(keys)?,
                nocheck: nocheck(keys),
            },
            "win_start" => RmaKind::Start {
                group: self.group(keys)?,
                nocheck: nocheck(keys),
            },
            "win_complete" => RmaKind::Complete,
            "win_wait" => RmaKind::Wait,
            "win_test" => RmaKind::Test {
                done: keys.get("flag").is_some_and(|f| *f == "1"),
            },
            "win_flush" | "win_flush_local" => RmaKind::Flush {
                target: Some(target(self)?),
            },
            "win_flush_all" | "win_flush_local_all" => RmaKind::Flush { target: None },
            "win_sync" => RmaKind::Sync,
            "win_attach" => RmaKind::Attach {
                base: self.int("base", keys.get("base").copied().unwrap_or(""))?,
                size: self.int("size", keys.get("size").copied().unwrap_or(""))?,
            },
            "win_detach" => RmaKind::Detach {
                base: self.int("base", keys.get("base").copied().unwrap_or(""))?,
            },
            _ => {
                let (request, base) = match name.strip_prefix('r') {
                    Some(b) if RMA_CALLS[..6].contains(&b) => (true, b),
                    _ => (false, name),
                };
                let kind = match base {
                    "put" => AccessKind::Put,
                    "get" => AccessKind::Get,
                    "accumulate" => AccessKind::Accumulate,
                    "get_accumulate" => AccessKind::GetAccumulate,
                    "fetch_and_op" => AccessKind::FetchAndOp,
                    "compare_and_swap" => AccessKind::CompareAndSwap,
                    _ => return self.err(format!("`{name}` is not a call on a window")),
                };
                let count = self.count(keys)?;
                let datatype = self.datatype(keys)?;
                let mut bytes = datatype
                    .and_then(|t| self.run.datatypes[t.0 as usize].size)
                    .and_then(|s| u64::try_from(count).ok()?.checked_mul(s));
                // `span=A..B`: a target datatype with holes whose elements reach bytes A..B
                // from the displacement (its true extent); its bytes are not one block.
                let span = match keys.get("span") {
                    Some(v) => {
                        let Some((a, b)) = v.split_once("..") else {
                            return self.err(format!("`span={v}`: expected FIRST..END"));
                        };
                        bytes = None;
                        Some((self.int("span", a)?, self.int("span", b)?))
                    }
                    None => bytes.and_then(|b| Some((0, i64::try_from(b).ok()?))),
                };
                RmaKind::Access(RmaAccess {
                    kind,
                    request,
                    target: target(self)?,
                    disp: keys.get("disp").map_or(Ok(0), |v| self.int("disp", v))?,
                    count,
                    datatype,
                    bytes,
                    span,
                    op: keys
                        .get("op")
                        .map(|o| format!("MPI_{}", o.to_ascii_uppercase())),
                })
            }
        };
        Ok(Some(RmaCall {
            win,
            kind,
            event: Default::default(),
        }))
    }

    /// `win_create win=N [comm=C] size=BYTES unit=U [base=ADDRESS]`: the first line naming
    /// window N creates it (windows in order 0, 1, ...); each rank's line gives its own
    /// memory.
    fn create_window(
        &mut self,
        rank: Rank,
        name: &str,
        win: u32,
        flavor: WinFlavor,
        keys: &Keys,
    ) -> Result<(), TextTraceError> {
        let comm = self.comm(keys)?;
        let count = self.run.windows.len() as u32;
        if win > count {
            return self.err(format!(
                "windows must be created in order: expected `win={count}`"
            ));
        }
        if win == count {
            let info = self.run.comm(comm);
            self.run.windows.push(WindowInfo {
                name: format!(
                    "window {win} ({} on {})",
                    super::names::mpi_name(name),
                    info.name
                ),
                comm,
                members: info.members.to_vec(),
                flavor,
                memory: BTreeMap::new(),
            });
        }
        let size = keys
            .get("size")
            .map(|v| self.int::<u64>("size", v))
            .transpose()?;
        let unit = keys
            .get("unit")
            .map_or(Ok(1), |v| self.int::<u64>("unit", v))?;
        let size = match flavor {
            WinFlavor::Dynamic => Some(0),
            _ => size,
        };
        let base = keys
            .get("base")
            .map(|v| self.int::<u64>("base", v))
            .transpose()?;
        if let Some(size) = size {
            self.run.windows[win as usize].memory.insert(
                rank,
                WinMemory {
                    size,
                    disp_unit: unit,
                    base,
                },
            );
        }
        Ok(())
    }

    /// `group=1,2` (world ranks; `group=none` is the empty group); absent: not known.
    fn group(&self, keys: &Keys) -> Result<Option<Vec<Rank>>, TextTraceError> {
        keys.get("group")
            .map(|v| self.index_list("group", v))
            .transpose()
    }

    /// `target=N` (a window rank), `target=null` for `MPI_PROC_NULL`.
    fn rma_target(&self, win: WinId, keys: &Keys) -> Result<RmaTarget, TextTraceError> {
        match keys.get("target") {
            None => self.err("missing `target=`"),
            Some(&"null") => Ok(RmaTarget::ProcNull),
            Some(v) => {
                let t: i64 = self.int("target", v)?;
                let members = &self.run.windows[win.0 as usize].members;
                Ok(match usize::try_from(t).ok().and_then(|i| members.get(i)) {
                    Some(&r) => RmaTarget::Rank(r),
                    None => RmaTarget::Invalid(t),
                })
            }
        }
    }
}

/// `assert=nocheck` (assertions joined with `|`).
fn nocheck(keys: &Keys) -> bool {
    keys.get("assert")
        .is_some_and(|a| a.split('|').any(|x| x == "nocheck"))
}
