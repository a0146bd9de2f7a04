//! One-sided communication (RMA) checks: synchronization epochs (RM001-RM004, RM007, RM008),
//! arguments of RMA calls (RM005, RM006, RM009) and conflicting accesses (DR001, DR003, DR004).
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
pub mod exposed_memory;
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
pub use exposed_memory::DR004;
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
            RM001, RM002, RM003, RM004, RM005, RM006, RM007, RM008, RM009, DR001, DR003, DR004,
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
    let calls = calls_in_order(run);
    let walk = walk_calls(run, &calls);
    let mut out = no_epoch::diagnostics(run, &walk);
    out.extend(unmatched_sync::diagnostics(run, &walk));
    out.extend(open_at_free::diagnostics(run, &walk));
    out.extend(request_outside_passive::diagnostics(run, &walk));
    out.extend(target_rank::check(run, &calls));
    out.extend(beyond_window::check(run, &calls));
    out.extend(accumulate_op::check(run, &calls));
    let pscw = pscw::pair(run);
    out.extend(nocheck::check(run, &pscw));
    out.extend(nocheck_lock::check(run));
    out.extend(pscw_partner::check(run, &pscw));
    out.extend(conflict::diagnostics(run, &walk, &pscw));
    out.extend(shared_lock::check(run));
    out.extend(exposed_memory::check(run, &walk, &pscw));
    out
}

/// A finding of one call: (rank, event index, message, label), as `fold_by_site` takes.
pub(crate) type Item = (Rank, usize, Text, Text);

/// A call on a window: (rank, event index, call).
pub(crate) type Call<'r> = (Rank, usize, &'r RmaCall);

/// Every call on a window ([`Run::rma`]), rank after rank, each rank's in its order: what
/// the RMA checks walk instead of every event of the run.
pub(crate) fn calls_in_order(run: &Run) -> Vec<Call<'_>> {
    let mut calls: Vec<Call> = run
        .rma
        .iter()
        .filter(|(&(rank, _), _)| (rank as usize) < run.ranks.len())
        .map(|(&(rank, index), call)| (rank, index as usize, call))
        .collect();
    calls.sort_unstable_by_key(|&(rank, index, _)| (rank, index));
    calls
}

/// Findings at calls on windows, one per call site, call, message and label (as
/// [`crate::checks::request::fold_by_site`], the site and call from [`Run::rma`]).
pub(crate) fn fold_by_site(
    run: &Run,
    items: impl IntoIterator<Item = Item>,
    info: &CheckInfo,
    notes: &[&str],
    help: &str,
) -> Vec<Diagnostic> {
    let mut found = crate::checks::pass::SiteFindings::default();
    for (rank, index, message, label) in items {
        if let Some(call) = u32::try_from(index)
            .ok()
            .and_then(|i| run.rma.get(&(rank, i)))
        {
            found.add_at(rank, call.event.site, call.event.call, message, label);
        }
    }
    found.diagnostics(&crate::checks::pass::RunTables::of(run), info, notes, help)
}

/// The epoch an access is made in, as the origin's own calls delimit it, for DR001.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Epoch {
    /// The origin's count of fences on the window before the access: the same number names
    /// the same epoch on every member, fences being collective over the window.
    Fence(u32),
    /// The access epoch the origin's `MPI_Win_start` at this event opened (DR001 pairs it
    /// with the target's exposure epoch).
    Start(usize),
    /// A lock or lock_all epoch of the origin, since the event (the lock, or the last flush
    /// to the target) that ordered the origin's earlier accesses to the target.
    Lock(usize),
}

/// One access made in an epoch DR001 compares.
#[derive(Clone, Debug)]
pub(crate) struct EpochAccess {
    pub origin: Rank,
    pub event: usize,
    pub epoch: Epoch,
    pub target: Rank,
    pub start: u64,
    pub end: u64,
    /// The origin's last `MPI_Win_flush_local` (or `_all`) to the target before the
    /// access (0: none): in a lock epoch, it orders an earlier fetching call before this.
    pub local_flush: usize,
}

/// What the epoch walk found.
#[derive(Default)]
pub(crate) struct Walk {
    pub no_epoch: Vec<Item>,
    pub unmatched: Vec<Item>,
    pub open_at_free: Vec<Item>,
    pub request_outside_passive: Vec<Item>,
    /// By window.
    pub epoch_accesses: BTreeMap<WinId, Vec<EpochAccess>>,
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
    /// The `MPI_Win_lock_all` event while `lock_all`.
    lock_all_at: usize,
    /// The last `MPI_Win_flush` by target, and the last `MPI_Win_flush_all`.
    flushed: BTreeMap<Rank, usize>,
    flushed_all: usize,
    /// The same for `MPI_Win_flush_local` and `MPI_Win_flush_local_all`.
    flushed_local: BTreeMap<Rank, usize>,
    flushed_local_all: usize,
    start: bool,
    /// The `MPI_Win_start` event while `start`.
    start_at: usize,
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

#[cfg(test)]
pub(crate) fn walk(run: &Run) -> Walk {
    walk_calls(run, &calls_in_order(run))
}

/// [`walk`] over the run's calls on windows ([`calls_in_order`]).
pub(crate) fn walk_calls(run: &Run, calls: &[Call]) -> Walk {
    let mut out = Walk::default();
    for rank_calls in calls.chunk_by(|a, b| a.0 == b.0) {
        let trace = &run.ranks[rank_calls[0].0 as usize];
        let mut epochs: HashMap<WinId, Epochs> = HashMap::new();
        // (Still read from every event of the rank: whether another thread made calls.)
        let single_thread = trace
            .events
            .first()
            .is_none_or(|f| trace.events.iter().all(|e| e.thread == f.thread));
        for &(rank, index, call) in rank_calls {
            let Some(window) = run.windows.get(call.win.0 as usize) else {
                continue;
            };
            let state = epochs.entry(call.win).or_default();
            let name = call.event.call;
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
                    state.lock_all_at = index;
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
                    state.start_at = index;
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
                RmaKind::Flush { target } => {
                    // A local flush completes the calls at the origin only (MPI 4.1 §12.5.4).
                    let (by_target, all) = if name.starts_with("MPI_Win_flush_local") {
                        (&mut state.flushed_local, &mut state.flushed_local_all)
                    } else {
                        (&mut state.flushed, &mut state.flushed_all)
                    };
                    match target {
                        Some(RmaTarget::Rank(t)) => {
                            by_target.insert(*t, index);
                        }
                        Some(_) => {}
                        None => *all = index,
                    }
                }
                RmaKind::Sync => {}
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
                    let epoch = if passive {
                        // Another thread's flush could order them: one thread only, and
                        // request-based calls complete by their own waits (not judged).
                        let since = [
                            state.locks.get(&target).copied(),
                            state.lock_all.then_some(state.lock_all_at),
                            state.flushed.get(&target).copied(),
                            Some(state.flushed_all),
                        ];
                        (single_thread && !access.request)
                            .then(|| Epoch::Lock(since.into_iter().flatten().max().unwrap_or(0)))
                    } else if state.start {
                        Some(Epoch::Start(state.start_at))
                    } else {
                        state.pending_since_fence.get_or_insert(index);
                        Some(Epoch::Fence(state.fences))
                    };
                    if let (Some(epoch), Some((start, end))) = (epoch, access.target_range(window))
                    {
                        out.epoch_accesses
                            .entry(call.win)
                            .or_default()
                            .push(EpochAccess {
                                origin: rank,
                                event: index,
                                epoch,
                                target,
                                start,
                                end,
                                local_flush: state
                                    .flushed_local
                                    .get(&target)
                                    .copied()
                                    .unwrap_or(0)
                                    .max(state.flushed_local_all),
                            });
                    }
                }
            }
        }
    }
    out
}

/// `t.c:12`, or the call name when the site is unknown.
pub(crate) fn site_text(run: &Run, event: &Event) -> String {
    site_text_at(run, event.site)
}

/// [`site_text`] of a call site.
pub(crate) fn site_text_at(run: &Run, site: SiteId) -> String {
    let loc = run.site(site);
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
