//! Each rank's epoch state on each window, followed call after call (RM001-RM004, and the
//! epochs of the accesses DR001 compares).
//!
//! The epochs a rank opens and closes are its own calls, judged from the arguments recorded
//! before MPI acted: one rank's calls on windows, in its order, are all a [`RankEpochs`]
//! reads. It keeps only the windows the rank has not freed.

use std::collections::{BTreeMap, HashMap};

use super::{describe_access, Item};
use crate::model::*;
use crate::ranks::RankSet;
use crate::text;
use crate::text::{ranks, Text};

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

/// What the epoch walk found.
#[derive(Default)]
pub(crate) struct Walk {
    pub no_epoch: Vec<Item>,
    pub unmatched: Vec<Item>,
    pub open_at_free: Vec<Item>,
    pub request_outside_passive: Vec<Item>,
    /// By window.
    pub epoch_accesses: BTreeMap<WinId, Vec<EpochAccess>>,
    /// Accesses made in an epoch whose target's memory is not known yet (their bytes are
    /// left 0..0): while the events stream, the target may not have made the window yet.
    pub waiting_range: Vec<(WinId, EpochAccess)>,
}

/// One rank's synchronization state on each of its windows.
#[derive(Default)]
pub(crate) struct RankEpochs {
    windows: HashMap<WinId, Epochs>,
}

impl RankEpochs {
    /// Whether the rank holds a lock or a lock_all on `win`.
    pub fn holds_lock(&self, win: WinId) -> bool {
        self.windows
            .get(&win)
            .is_some_and(|e| e.lock_all || !e.locks.is_empty())
    }

    /// How many windows the rank has epoch state on (for tests of what the pass holds).
    #[cfg(test)]
    pub fn windows(&self) -> usize {
        self.windows.len()
    }

    /// The next call on a window of `rank`, event `index`, on `window` (named `window_name`
    /// in messages): what it finds goes into `out`. `single_thread`: the rank makes its
    /// calls from one thread (else its lock epochs are not compared, another thread's flush
    /// could order them).
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &mut self,
        rank: Rank,
        index: usize,
        call: &RmaCall,
        window: &WindowInfo,
        window_name: &str,
        single_thread: bool,
        out: &mut Walk,
    ) {
        let state = self.windows.entry(call.win).or_default();
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
                    return;
                };
                if state.lock_all {
                    unmatched(
                        text!(
                            "{name} of {} in {} while this rank holds MPI_Win_lock_all on it",
                            ranks(t),
                            window_name
                        ),
                        "locks a target already locked by MPI_Win_lock_all",
                    );
                } else if state.locks.contains_key(&t) {
                    unmatched(
                        text!(
                            "{name} of {} in {} while this rank already holds a lock on {}",
                            ranks(t),
                            window_name,
                            ranks(t)
                        ),
                        "locks a target this rank has already locked",
                    );
                }
                state.locks.insert(t, index);
            }
            RmaKind::Unlock { target } => {
                let RmaTarget::Rank(t) = *target else {
                    return;
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
                            window_name
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
                            window_name
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
                            window_name
                        ),
                        "ends a lock_all epoch that was never started",
                    );
                }
                state.lock_all = false;
            }
            RmaKind::Start { .. } => {
                if state.start {
                    unmatched(
                            text!("{name} in {} while an access epoch started by MPI_Win_start is still open", window_name),
                            "starts a second access epoch before MPI_Win_complete",
                        );
                }
                state.start = true;
                state.start_at = index;
            }
            RmaKind::Complete => {
                if !state.start {
                    unmatched(
                        text!("{name} in {} without a matching MPI_Win_start", window_name),
                        "completes an access epoch that was never started",
                    );
                }
                state.start = false;
            }
            RmaKind::Post { .. } => {
                if state.post {
                    unmatched(
                            text!("{name} in {} while an exposure epoch started by MPI_Win_post is still open", window_name),
                            "posts a second exposure epoch before MPI_Win_wait",
                        );
                }
                state.post = true;
            }
            RmaKind::Wait | RmaKind::Test { done: true } => {
                if !state.post {
                    unmatched(
                        text!("{name} in {} without a matching MPI_Win_post", window_name),
                        "ends an exposure epoch that was never posted",
                    );
                }
                state.post = false;
            }
            RmaKind::Test { done: false } => {
                if !state.post {
                    unmatched(
                        text!("{name} in {} without a matching MPI_Win_post", window_name),
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
                                window_name
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
                            window_name,
                            Text::join(open, " and ")
                        ),
                        "frees the window with an epoch still open".into(),
                    ));
                }
                self.windows.remove(&call.win);
            }
            RmaKind::Access(access) => {
                let RmaTarget::Rank(target) = access.target else {
                    return;
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
                                describe_access(name, access, window_name)
                            ),
                            "no fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all opens an epoch to this target".into(),
                        ));
                    return;
                }
                if access.request && !passive {
                    out.request_outside_passive.push((
                        rank,
                        index,
                        text!(
                            "{} is request-based but is made in an active target epoch ({})",
                            describe_access(name, access, window_name),
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
                let Some(epoch) = epoch else {
                    return;
                };
                let mut in_epoch = EpochAccess {
                    origin: rank,
                    event: index,
                    epoch,
                    target,
                    start: 0,
                    end: 0,
                    local_flush: state
                        .flushed_local
                        .get(&target)
                        .copied()
                        .unwrap_or(0)
                        .max(state.flushed_local_all),
                };
                match access.target_range(window) {
                    Some((start, end)) => {
                        (in_epoch.start, in_epoch.end) = (start, end);
                        out.epoch_accesses
                            .entry(call.win)
                            .or_default()
                            .push(in_epoch);
                    }
                    // The target has not made the window yet (while the events stream).
                    None if !window.memory.contains_key(&target) => {
                        out.waiting_range.push((call.win, in_epoch));
                    }
                    None => {}
                }
            }
        }
    }
}
