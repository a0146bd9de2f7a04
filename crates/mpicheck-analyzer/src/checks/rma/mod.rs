//! One-sided communication (RMA) checks: synchronization epochs (RM001-RM004, RM007, RM008),
//! arguments of RMA calls (RM005, RM006, RM009) and conflicting accesses (DR001, DR003).
//!
//! [`walk`] follows each rank's calls on each window in program order with the rank's
//! epoch state (fence epoch, locks, lock_all, PSCW access and exposure epochs) and records
//! what each check reports. It needs no replay: the epochs a rank opens and closes are its
//! own calls, judged from the arguments recorded before MPI acted.

use std::collections::{BTreeMap, HashMap};

use super::{Check, Context};
use crate::diagnostic::{CheckInfo, Diagnostic};
use crate::model::*;
use crate::ranks::RankSet;
use crate::text;
use crate::text::{ranks, Text};

pub mod accumulate_op;
pub mod beyond_window;
pub mod conflict;
pub mod no_epoch;
pub mod nocheck;
mod nocheck_lock;
pub mod open_at_free;
mod pscw;
pub mod pscw_partner;
pub mod request_outside_passive;
pub mod shared_lock;
pub mod target_rank;
pub mod unmatched_sync;

pub use accumulate_op::RM009;
pub use beyond_window::RM006;
pub use conflict::DR001;
pub use no_epoch::RM001;
pub use nocheck::RM007;
pub use open_at_free::RM003;
pub use pscw_partner::RM008;
pub use request_outside_passive::RM004;
pub use shared_lock::DR003;
pub use target_rank::RM005;
pub use unmatched_sync::RM002;

/// The RMA checks, one pass over each rank's window calls ([`walk`]) for every code.
pub(crate) struct RmaChecks;

impl Check for RmaChecks {
    fn infos(&self) -> &'static [CheckInfo] {
        &[
            RM001, RM002, RM003, RM004, RM005, RM006, RM007, RM008, RM009, DR001, DR003,
        ]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx.run)
    }
}

/// Every RMA diagnostic, in code order.
fn check(run: &Run) -> Vec<Diagnostic> {
    if run.rma.is_empty() {
        return Vec::new();
    }
    let walk = walk(run);
    let mut out = no_epoch::diagnostics(run, &walk);
    out.extend(unmatched_sync::diagnostics(run, &walk));
    out.extend(open_at_free::diagnostics(run, &walk));
    out.extend(request_outside_passive::diagnostics(run, &walk));
    out.extend(target_rank::check(run));
    out.extend(beyond_window::check(run));
    out.extend(accumulate_op::check(run));
    let pscw = pscw::pair(run);
    out.extend(nocheck::check(run, &pscw));
    out.extend(nocheck_lock::check(run));
    out.extend(pscw_partner::check(run, &pscw));
    out.extend(conflict::diagnostics(run, &walk));
    out.extend(shared_lock::check(run));
    out
}

/// A finding of one call: (rank, event index, message, label), as `fold_by_site` takes.
pub(crate) type Item = (Rank, usize, Text, Text);

/// One access made in a fence epoch, for DR001.
#[derive(Clone, Debug)]
pub(crate) struct FenceAccess {
    pub origin: Rank,
    pub event: usize,
    /// The origin's count of fences on the window before the access: the same number names
    /// the same epoch on every member, fences being collective over the window.
    pub epoch: u32,
    pub target: Rank,
    pub start: u64,
    pub end: u64,
}

/// What the epoch walk found.
#[derive(Default)]
pub(crate) struct Walk {
    pub no_epoch: Vec<Item>,
    pub unmatched: Vec<Item>,
    pub open_at_free: Vec<Item>,
    pub request_outside_passive: Vec<Item>,
    /// By window.
    pub fence_accesses: BTreeMap<WinId, Vec<FenceAccess>>,
}

/// One rank's synchronization state on one window.
#[derive(Default)]
struct Epochs {
    fences: u32,
    /// A fence without `MPI_MODE_NOSUCCEED` was the last one.
    fence_open: bool,
    /// The first access since the last fence (completed by the next fence).
    pending_since_fence: Option<usize>,
    /// Targets this rank holds a lock on.
    locks: BTreeMap<Rank, usize>,
    lock_all: bool,
    start: bool,
    post: bool,
    /// Memory attached to a dynamic window: base address → bytes.
    attached: BTreeMap<u64, u64>,
}

/// `MPI_Put to rank 1 of window 0`.
pub(crate) fn describe_access(call: &str, access: &RmaAccess, window: &WindowInfo) -> Text {
    let window = window.name.as_str();
    match access.target {
        RmaTarget::Rank(r) => text!("{call} to {} in {window}", ranks(r)),
        RmaTarget::ProcNull => text!("{call} to MPI_PROC_NULL in {window}"),
        RmaTarget::Invalid(v) => text!("{call} to target {v} in {window}"),
    }
}

pub(crate) fn walk(run: &Run) -> Walk {
    let mut out = Walk::default();
    for trace in &run.ranks {
        let mut epochs: HashMap<WinId, Epochs> = HashMap::new();
        for (index, event) in trace.events.iter().enumerate() {
            let Some(call) = run.rma.get(&(trace.rank, index as u32)) else {
                continue;
            };
            let Some(window) = run.windows.get(call.win.0 as usize) else {
                continue;
            };
            let state = epochs.entry(call.win).or_default();
            let rank = trace.rank;
            let name = event.call;
            let mut unmatched = |message: Text, label: &str| {
                out.unmatched.push((rank, index, message, label.into()));
            };
            match &call.kind {
                RmaKind::Create => *state = Epochs::default(),
                RmaKind::Fence { nosucceed } => {
                    state.fences += 1;
                    state.fence_open = !nosucceed;
                    state.pending_since_fence = None;
                }
                RmaKind::Lock { target, .. } => {
                    let RmaTarget::Rank(t) = *target else {
                        continue;
                    };
                    if state.lock_all {
                        unmatched(
                            text!(
                                "{name} of {} in {} while this rank holds MPI_Win_lock_all on it",
                                ranks(t),
                                window.name.as_str()
                            ),
                            "locks a target already locked by MPI_Win_lock_all",
                        );
                    } else if state.locks.contains_key(&t) {
                        unmatched(
                            text!(
                                "{name} of {} in {} while this rank already holds a lock on {}",
                                ranks(t),
                                window.name.as_str(),
                                ranks(t)
                            ),
                            "locks a target this rank has already locked",
                        );
                    }
                    state.locks.insert(t, index);
                }
                RmaKind::Unlock { target } => {
                    let RmaTarget::Rank(t) = *target else {
                        continue;
                    };
                    if state.locks.remove(&t).is_none() {
                        let also = if state.lock_all {
                            " (it holds MPI_Win_lock_all, which MPI_Win_unlock_all ends)"
                        } else {
                            ""
                        };
                        unmatched(
                            text!(
                                "{name} of {} in {} without a matching MPI_Win_lock{also}",
                                ranks(t),
                                window.name.as_str()
                            ),
                            "unlocks a target this rank has not locked",
                        );
                    }
                }
                RmaKind::LockAll => {
                    if state.lock_all || !state.locks.is_empty() {
                        unmatched(
                            text!(
                                "{name} in {} while this rank already holds locks on it",
                                &window.name
                            ),
                            "locks targets this rank has already locked",
                        );
                    }
                    state.lock_all = true;
                }
                RmaKind::UnlockAll => {
                    if !state.lock_all {
                        unmatched(
                            text!(
                                "{name} in {} without a matching MPI_Win_lock_all",
                                &window.name
                            ),
                            "ends a lock_all epoch that was never started",
                        );
                    }
                    state.lock_all = false;
                }
                RmaKind::Start { .. } => {
                    if state.start {
                        unmatched(
                            text!("{name} in {} while an access epoch started by MPI_Win_start is still open", &window.name),
                            "starts a second access epoch before MPI_Win_complete",
                        );
                    }
                    state.start = true;
                }
                RmaKind::Complete => {
                    if !state.start {
                        unmatched(
                            text!(
                                "{name} in {} without a matching MPI_Win_start",
                                &window.name
                            ),
                            "completes an access epoch that was never started",
                        );
                    }
                    state.start = false;
                }
                RmaKind::Post { .. } => {
                    if state.post {
                        unmatched(
                            text!("{name} in {} while an exposure epoch started by MPI_Win_post is still open", &window.name),
                            "posts a second exposure epoch before MPI_Win_wait",
                        );
                    }
                    state.post = true;
                }
                RmaKind::Wait | RmaKind::Test { done: true } => {
                    if !state.post {
                        unmatched(
                            text!("{name} in {} without a matching MPI_Win_post", &window.name),
                            "ends an exposure epoch that was never posted",
                        );
                    }
                    state.post = false;
                }
                RmaKind::Test { done: false } => {
                    if !state.post {
                        unmatched(
                            text!("{name} in {} without a matching MPI_Win_post", &window.name),
                            "tests an exposure epoch that was never posted",
                        );
                    }
                }
                RmaKind::Flush { .. } | RmaKind::Sync => {}
                RmaKind::Attach { base, size } => {
                    state.attached.insert(*base, *size);
                }
                RmaKind::Detach { base } => {
                    if state.attached.remove(base).is_none() {
                        unmatched(
                            text!(
                                "{name} of address {base:#x} in {}, where this rank has no memory attached",
                                window.name.as_str()
                            ),
                            "detaches memory that is not attached to the window",
                        );
                    }
                }
                RmaKind::Free => {
                    let mut open = Vec::new();
                    if !state.locks.is_empty() {
                        let targets: RankSet = state.locks.keys().copied().collect();
                        open.push(text!("an open lock on {} (MPI_Win_lock)", targets));
                    }
                    if state.lock_all {
                        open.push(Text::from("an open lock_all epoch (MPI_Win_lock_all)"));
                    }
                    if state.start {
                        open.push(Text::from("an open access epoch (MPI_Win_start)"));
                    }
                    if state.post {
                        open.push(Text::from("an open exposure epoch (MPI_Win_post)"));
                    }
                    if state.fence_open && state.pending_since_fence.is_some() {
                        open.push(Text::from(
                            "RMA calls since the last MPI_Win_fence that no fence completed",
                        ));
                    }
                    if !open.is_empty() {
                        out.open_at_free.push((
                            rank,
                            index,
                            text!(
                                "{name} of {} while this rank still has {}",
                                window.name.as_str(),
                                Text::join(open, " and ")
                            ),
                            "frees the window with an epoch still open".into(),
                        ));
                    }
                    epochs.remove(&call.win);
                }
                RmaKind::Access(access) => {
                    let RmaTarget::Rank(target) = access.target else {
                        continue;
                    };
                    let passive = state.lock_all || state.locks.contains_key(&target);
                    let active = state.fence_open || state.start;
                    if !passive && !active {
                        let last = if state.fences > 0 && !state.fence_open {
                            " (the last MPI_Win_fence gave MPI_MODE_NOSUCCEED)"
                        } else {
                            ""
                        };
                        out.no_epoch.push((
                            rank,
                            index,
                            text!(
                                "{} is outside any access epoch{last}",
                                describe_access(name, access, window)
                            ),
                            "no fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all opens an epoch to this target".into(),
                        ));
                        continue;
                    }
                    if access.request && !passive {
                        out.request_outside_passive.push((
                            rank,
                            index,
                            text!(
                                "{} is request-based but is made in an active target epoch ({})",
                                describe_access(name, access, window),
                                if state.start {
                                    "MPI_Win_start"
                                } else {
                                    "MPI_Win_fence"
                                }
                            ),
                            "request-based RMA is allowed only in passive target epochs".into(),
                        ));
                    }
                    if state.fence_open && !passive && !state.start {
                        state.pending_since_fence.get_or_insert(index);
                        if let Some((start, end)) = access.target_range(window) {
                            out.fence_accesses
                                .entry(call.win)
                                .or_default()
                                .push(FenceAccess {
                                    origin: rank,
                                    event: index,
                                    epoch: state.fences,
                                    target,
                                    start,
                                    end,
                                });
                        }
                    }
                }
            }
        }
    }
    out
}

/// `t.c:12`, or the call name when the site is unknown.
pub(crate) fn site_text(run: &Run, event: &Event) -> String {
    let loc = run.site(event.site);
    match (&loc.file, loc.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        // Without debug info (a library from a package), the function still says where.
        _ => match (&loc.function, &loc.object, loc.offset) {
            (Some(function), ..) => format!("in {function}"),
            (None, Some(object), Some(offset)) => format!("{object}+{offset:#x}"),
            _ => "an unknown location".to_string(),
        },
    }
}
