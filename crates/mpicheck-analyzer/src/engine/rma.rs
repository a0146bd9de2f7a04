//! Active-target synchronization (post, start, complete, wait) in the replay.
//!
//! MPI 4.1 §12.5.2: `MPI_Win_wait` on a target returns once every origin of its post group
//! has called `MPI_Win_complete` for the matching access epoch, and `MPI_Win_start` or
//! `MPI_Win_complete` may block until every target of the start group has called the
//! matching `MPI_Win_post`. Epochs match in order per (window, origin, target): the k-th
//! start of an origin naming a target pairs with the k-th post of that target naming the
//! origin. So the replay counts, per pair, the posts, starts and completes so far.
//!
//! [`Mode::Strict`] takes the strict reading (a start waits for its posts, a wait for its
//! completes); [`Mode::Recorded`] makes a call wait only when the trace shows it did not
//! return, for what it can only be waiting for. Epochs whose group the normalizer could
//! not follow are not replayed (no finding is made up from them).
//!
//! Passive target: MPIs grant locks lazily (`MPI_Win_lock` may return at once and the
//! wait happen in `MPI_Win_unlock`, a flush or an RMA call), so a lock waits in the replay
//! only where the trace shows the rank blocked in such a call, toward a target that other
//! origins hold a conflicting lock on in an epoch their traces never end ([`HeldLocks`]).
//! It then waits for those holders' `MPI_Win_unlock`, which never comes. A holder stuck
//! in a later call of its epoch counts only where the trace shows its lock granted (a
//! flush that returned after an access to the target).

use super::*;
use crate::model::{RmaCall, RmaKind, RmaTarget, WinId};

/// A lock epoch whose `MPI_Win_lock` (or `MPI_Win_lock_all`) returned and whose rank never
/// calls the matching unlock, and either never blocks inside the epoch or was shown the
/// lock granted first (a flush that returned after an access to the target): the lock is
/// held to the end of the trace.
struct Held {
    holder: Rank,
    /// `None`: `MPI_Win_lock_all` (every target).
    target: Option<Rank>,
    exclusive: Option<bool>,
}

/// One rank's lock epoch not ended yet, while reading its calls.
struct OpenEpoch {
    exclusive: Option<bool>,
    /// A later call on a window did not return: the rank is stuck inside the epoch, and
    /// the lock may never have been granted (MPIs grant lazily).
    blocked: bool,
    /// Targets of the epoch's RMA calls so far.
    accessed: Vec<Rank>,
    /// A flush that returned completed an access to the target: the lock was granted, and
    /// the rank holds it even while blocked later in the epoch.
    granted: bool,
}

/// The locks held to the end of the run, by window.
#[derive(Default)]
pub(super) struct HeldLocks(FxHashMap<WinId, Vec<Held>>);

impl HeldLocks {
    pub(super) fn of(run: &Run) -> HeldLocks {
        let mut out = HeldLocks::default();
        if run.rma.is_empty() {
            return out;
        }
        for trace in &run.ranks {
            // (window, target or None for lock_all) → its state.
            let mut open: FxHashMap<(WinId, Option<Rank>), OpenEpoch> = FxHashMap::default();
            for (index, event) in trace.events.iter().enumerate() {
                let Some(call) = run.rma.get(&(trace.rank, index as u32)) else {
                    continue;
                };
                let key = |t: &RmaTarget| match t {
                    RmaTarget::Rank(t) => Some((call.win, Some(*t))),
                    _ => None,
                };
                let epoch = |exclusive| OpenEpoch {
                    exclusive,
                    blocked: !event.returned,
                    accessed: Vec::new(),
                    granted: false,
                };
                // Stuck in a lock or unlock of another target: inside every open epoch.
                if !event.returned {
                    for state in open.values_mut() {
                        state.blocked = true;
                    }
                }
                match &call.kind {
                    RmaKind::Lock {
                        target, exclusive, ..
                    } => {
                        if let Some(k) = key(target) {
                            open.insert(k, epoch(*exclusive));
                        }
                    }
                    RmaKind::LockAll => {
                        open.insert((call.win, None), epoch(Some(false)));
                    }
                    RmaKind::Unlock { target } => {
                        if let Some(k) = key(target) {
                            open.remove(&k);
                        }
                    }
                    RmaKind::UnlockAll => {
                        open.remove(&(call.win, None));
                    }
                    _ if !event.returned => {}
                    RmaKind::Access(a) => {
                        if let RmaTarget::Rank(t) = a.target {
                            for ((w, target), state) in open.iter_mut() {
                                if *w == call.win
                                    && target.is_none_or(|x| x == t)
                                    && !state.accessed.contains(&t)
                                {
                                    state.accessed.push(t);
                                }
                            }
                        }
                    }
                    // A flush that returned completed the epoch's operations at their
                    // targets: the lock of a target it accessed was granted then.
                    RmaKind::Flush { target } => {
                        for ((w, _), state) in open.iter_mut() {
                            if *w != call.win {
                                continue;
                            }
                            let flushed = match target {
                                Some(RmaTarget::Rank(t)) => state.accessed.contains(t),
                                Some(_) => false,
                                None => !state.accessed.is_empty(),
                            };
                            state.granted |= flushed;
                        }
                    }
                    _ => {}
                }
            }
            for ((win, target), state) in open {
                if !state.blocked || state.granted {
                    out.0.entry(win).or_default().push(Held {
                        holder: trace.rank,
                        target,
                        exclusive: state.exclusive,
                    });
                }
            }
        }
        out
    }

    /// The other origins holding a lock on (`win`, `target`) that conflicts with a lock of
    /// `rank` in mode `exclusive` (an exclusive lock on either side; unknown modes do not
    /// conflict).
    fn conflicting(
        &self,
        win: WinId,
        target: Rank,
        rank: Rank,
        exclusive: Option<bool>,
    ) -> Vec<Rank> {
        let mut out: Vec<Rank> = self
            .0
            .get(&win)
            .into_iter()
            .flatten()
            .filter(|h| h.holder != rank && h.target.is_none_or(|t| t == target))
            .filter(|h| {
                matches!(
                    (exclusive, h.exclusive),
                    (Some(true), Some(_)) | (Some(_), Some(true))
                )
            })
            .map(|h| h.holder)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The mode of the lock `rank` holds on (`win`, `target`) at event `index`: from its last
/// `MPI_Win_lock` of the target (shared under `MPI_Win_lock_all`), or `None`.
fn lock_mode(run: &Run, rank: Rank, index: usize, win: WinId, target: Rank) -> Option<bool> {
    for i in (0..index).rev() {
        let Some(call) = run.rma.get(&(rank, i as u32)).filter(|c| c.win == win) else {
            continue;
        };
        match &call.kind {
            RmaKind::Lock {
                target: RmaTarget::Rank(t),
                exclusive,
                ..
            } if *t == target => return *exclusive,
            RmaKind::LockAll => return Some(false),
            RmaKind::Unlock {
                target: RmaTarget::Rank(t),
            } if *t == target => return None,
            RmaKind::UnlockAll => return None,
            _ => {}
        }
    }
    None
}

/// A blocked call that waits for a lock: the holders it waits for, if any.
fn lock_wait(call: &RmaCall, index: usize, run: &Run, rank: Rank, held: &HeldLocks) -> Vec<Rank> {
    let (target, mode) = match &call.kind {
        RmaKind::Lock {
            target: RmaTarget::Rank(t),
            exclusive,
            ..
        } => (*t, *exclusive),
        RmaKind::Unlock {
            target: RmaTarget::Rank(t),
        }
        | RmaKind::Flush {
            target: Some(RmaTarget::Rank(t)),
        } => (*t, lock_mode(run, rank, index, call.win, *t)),
        RmaKind::Access(a) => match a.target {
            RmaTarget::Rank(t) => (t, lock_mode(run, rank, index, call.win, t)),
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    held.conflicting(call.win, target, rank, mode)
}

/// Per (window, rank, partner) counts, and each rank's open epochs.
#[derive(Default)]
pub(super) struct Epochs {
    /// (window, target, origin) → posts of the target naming the origin.
    posts: FxHashMap<(u32, Rank, Rank), u32>,
    /// (window, origin, target) → starts of the origin naming the target.
    starts: FxHashMap<(u32, Rank, Rank), u32>,
    /// (window, origin, target) → completes of those starts.
    completes: FxHashMap<(u32, Rank, Rank), u32>,
    /// (window, rank) → the group of its open exposure epoch.
    exposure: FxHashMap<(u32, Rank), Box<[Rank]>>,
    /// (window, rank) → the group of its open access epoch.
    access: FxHashMap<(u32, Rank), Box<[Rank]>>,
    /// Ranks blocked in one of these calls.
    blocked: Vec<Rank>,
}

/// The replay operation of a call on a window, given what [`compile_event`] made of it
/// (`op`, for its flags); `index` is the call's event index in its rank.
pub(super) fn compile(
    call: &RmaCall,
    index: usize,
    op: ReplayOp,
    run: &Run,
    rank: Rank,
    held: &HeldLocks,
    b: &mut ProgramBuilder,
) -> ReplayOp {
    let mut out = ReplayOp::new(OpKind::Nop);
    out.flags = op.flags;
    out.comm = call.win.0;
    if op.flags & flags::RETURNED == 0 {
        let holders = lock_wait(call, index, run, rank, held);
        if !holders.is_empty() {
            out.kind = OpKind::WinLockWait;
            out.a = b.push_aux(&holders);
            out.b = holders.len() as u32;
            return out;
        }
    }
    match &call.kind {
        RmaKind::Post { group: Some(g), .. } | RmaKind::Start { group: Some(g), .. } => {
            out.kind = if matches!(call.kind, RmaKind::Post { .. }) {
                OpKind::WinPost
            } else {
                OpKind::WinStart
            };
            out.a = b.push_aux(g);
            out.b = g.len() as u32;
        }
        RmaKind::Complete => out.kind = OpKind::WinComplete,
        RmaKind::Wait => out.kind = OpKind::WinWait,
        // A test of a polling loop a hung run never left (`polling::block_trailing_polls`)
        // stands for the wait.
        RmaKind::Test { done: false } if op.flags & flags::RETURNED == 0 => {
            out.kind = OpKind::WinWait
        }
        // A test that succeeded after unsuccessful ones ended a polling loop: it waited.
        // A single successful one waited for nothing.
        RmaKind::Test { done: true } => {
            let polled = index
                .checked_sub(1)
                .and_then(|prev| run.rma.get(&(rank, prev as u32)))
                .is_some_and(|prev| {
                    prev.win == call.win && prev.kind == RmaKind::Test { done: false }
                });
            if polled {
                out.kind = OpKind::WinWait;
            }
        }
        _ => return op,
    }
    out
}

impl Engine<'_> {
    /// The group of rank `r`'s current operation (its aux words).
    fn group(&self, r: Rank, op: &ReplayOp) -> &[Rank] {
        &self.cur[r as usize].aux[op.a as usize..(op.a + op.b) as usize]
    }

    fn must_wait(&self, op: &ReplayOp) -> bool {
        self.mode == Mode::Strict || op.flags & flags::RETURNED == 0
    }

    /// Targets of `origin`'s open access epoch that have not posted the matching epoch.
    fn unposted(&self, win: u32, origin: Rank) -> Vec<Rank> {
        let Some(group) = self.epochs.access.get(&(win, origin)) else {
            return Vec::new();
        };
        let e = &self.epochs;
        group
            .iter()
            .copied()
            .filter(|&t| {
                e.posts.get(&(win, t, origin)).copied().unwrap_or(0)
                    < e.starts.get(&(win, origin, t)).copied().unwrap_or(0)
            })
            .collect()
    }

    /// Origins of `target`'s open exposure epoch that have not completed the matching epoch.
    fn uncompleted(&self, win: u32, target: Rank) -> Vec<Rank> {
        let Some(group) = self.epochs.exposure.get(&(win, target)) else {
            return Vec::new();
        };
        let e = &self.epochs;
        group
            .iter()
            .copied()
            .filter(|&o| {
                e.completes.get(&(win, o, target)).copied().unwrap_or(0)
                    < e.posts.get(&(win, target, o)).copied().unwrap_or(0)
            })
            .collect()
    }

    pub(super) fn exec_epoch(&mut self, r: Rank, op: ReplayOp) -> Step {
        let win = op.comm;
        match op.kind {
            OpKind::WinPost => {
                let group: Box<[Rank]> = self.group(r, &op).into();
                for &o in group.iter() {
                    *self.epochs.posts.entry((win, r, o)).or_default() += 1;
                }
                self.epochs.exposure.insert((win, r), group);
                self.wake_epochs();
                Step::Next
            }
            OpKind::WinStart => {
                let group: Box<[Rank]> = self.group(r, &op).into();
                for &t in group.iter() {
                    *self.epochs.starts.entry((win, r, t)).or_default() += 1;
                }
                self.epochs.access.insert((win, r), group);
                if self.must_wait(&op) && !self.unposted(win, r).is_empty() {
                    return self.block_epoch(r);
                }
                Step::Next
            }
            // The holders' unlock is not in their traces: the wait never ends.
            OpKind::WinLockWait => {
                self.ranks[r as usize].pending = 1;
                Step::Block
            }
            OpKind::WinComplete | OpKind::WinWait => {
                if self.must_wait(&op) && !self.epoch_ready(r, &op) {
                    return self.block_epoch(r);
                }
                self.finish_epoch(r, &op);
                Step::Next
            }
            _ => Step::Next,
        }
    }

    fn block_epoch(&mut self, r: Rank) -> Step {
        self.ranks[r as usize].pending = 1;
        self.epochs.blocked.push(r);
        Step::Block
    }

    fn epoch_ready(&self, r: Rank, op: &ReplayOp) -> bool {
        match op.kind {
            OpKind::WinStart | OpKind::WinComplete => self.unposted(op.comm, r).is_empty(),
            OpKind::WinWait => self.uncompleted(op.comm, r).is_empty(),
            _ => true,
        }
    }

    /// Ends the epoch a complete or wait closes.
    fn finish_epoch(&mut self, r: Rank, op: &ReplayOp) {
        let win = op.comm;
        if op.kind == OpKind::WinComplete {
            if let Some(group) = self.epochs.access.remove(&(win, r)) {
                for &t in group.iter() {
                    *self.epochs.completes.entry((win, r, t)).or_default() += 1;
                }
                self.wake_epochs();
            }
        } else if op.kind == OpKind::WinWait {
            self.epochs.exposure.remove(&(win, r));
        }
    }

    /// Releases the blocked ranks whose call can now complete (a complete that ends may
    /// release waits in turn).
    fn wake_epochs(&mut self) {
        let mut i = 0;
        while i < self.epochs.blocked.len() {
            let r = self.epochs.blocked[i];
            let op = self.current_op(r);
            if !self.epoch_ready(r, &op) {
                i += 1;
                continue;
            }
            self.epochs.blocked.swap_remove(i);
            self.ranks[r as usize].pending = 0;
            self.enqueue(r);
            // May push to and wake from `blocked`: scan again from the start.
            self.finish_epoch(r, &op);
            i = 0;
        }
    }

    /// What a rank blocked in one of these calls waits for.
    pub(super) fn epoch_cond(&self, r: Rank, op: ReplayOp) -> WaitCond {
        let (ranks, call) = match op.kind {
            OpKind::WinWait => (self.uncompleted(op.comm, r), "MPI_Win_complete"),
            OpKind::WinLockWait => (self.group(r, &op).to_vec(), "MPI_Win_unlock"),
            _ => (self.unposted(op.comm, r), "MPI_Win_post"),
        };
        WaitCond::Ranks {
            ranks: ranks.into(),
            on: WaitOn::Epoch {
                win: WinId(op.comm),
                call,
            },
        }
    }
}
