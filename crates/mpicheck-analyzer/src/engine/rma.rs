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
    /// Which of the rank's epochs this is (counted from 0), to tell a reopened epoch apart.
    serial: u64,
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

/// A call the trace shows blocked that may wait for a lock (a lock, unlock, flush or RMA
/// call toward `target`): whether other origins hold a conflicting lock on the target to
/// the end of their traces is known only once every rank's calls were read.
pub(super) struct LockWait {
    /// The rank's operation it was compiled to.
    pub op: u32,
    win: WinId,
    target: Rank,
    /// The mode of the rank's own lock on the target (`None`: unknown or none).
    exclusive: Option<bool>,
}

/// One rank's passive-target state as its calls are compiled, one call at a time: its
/// open lock epochs (those still open at its end become [`HeldLocks`]), the mode of its
/// lock on each target, and its blocked calls that may wait for a lock.
#[derive(Default)]
pub(super) struct RankLocks {
    /// (window, target or `None` for lock_all) → the epoch.
    open: FxHashMap<(WinId, Option<Rank>), OpenEpoch>,
    epochs: u64,
    /// Per window: the mode of the rank's locks on its targets.
    modes: FxHashMap<WinId, LockModes>,
    pub waits: Vec<LockWait>,
}

/// The mode of a rank's locks on one window's targets: `all`, under `MPI_Win_lock_all`
/// (`Some(false)`) or after `MPI_Win_unlock_all` (`None`), overridden per target by a later
/// lock (its mode) or unlock (`None`).
#[derive(Default)]
struct LockModes {
    all: Option<bool>,
    targets: FxHashMap<Rank, Option<bool>>,
}

impl RankLocks {
    /// The mode of the lock the rank holds on (`win`, `target`): from its last
    /// `MPI_Win_lock` of the target (shared under `MPI_Win_lock_all`), or `None`.
    fn mode(&self, win: WinId, target: Rank) -> Option<bool> {
        let modes = self.modes.get(&win)?;
        modes.targets.get(&target).copied().unwrap_or(modes.all)
    }

    /// The serial numbers of the epochs open now.
    pub(super) fn open_serials(&self) -> Vec<u64> {
        self.open.values().map(|e| e.serial).collect()
    }

    /// Marks the epochs of `serials` still open as blocked: a call made while they were
    /// open turned out not to return (the launcher's model of a polling loop).
    pub(super) fn block_epochs(&mut self, serials: &[u64]) {
        for state in self.open.values_mut() {
            if serials.contains(&state.serial) {
                state.blocked = true;
            }
        }
    }

    /// Follows the rank's call `call`, after it was compiled.
    pub(super) fn note(&mut self, call: &RmaCall, returned: bool) {
        let win = call.win;
        match &call.kind {
            RmaKind::Lock {
                target: RmaTarget::Rank(t),
                exclusive,
                ..
            } => {
                self.modes
                    .entry(win)
                    .or_default()
                    .targets
                    .insert(*t, *exclusive);
            }
            RmaKind::Unlock {
                target: RmaTarget::Rank(t),
            } => {
                self.modes.entry(win).or_default().targets.insert(*t, None);
            }
            RmaKind::LockAll => {
                self.modes.insert(
                    win,
                    LockModes {
                        all: Some(false),
                        ..LockModes::default()
                    },
                );
            }
            RmaKind::UnlockAll => {
                self.modes.insert(win, LockModes::default());
            }
            _ => {}
        }
        let key = |t: &RmaTarget| match t {
            RmaTarget::Rank(t) => Some((win, Some(*t))),
            _ => None,
        };
        let serial = self.epochs;
        let epoch = |exclusive| OpenEpoch {
            serial,
            exclusive,
            blocked: !returned,
            accessed: Vec::new(),
            granted: false,
        };
        // Stuck in a lock or unlock of another target: inside every open epoch.
        if !returned {
            for state in self.open.values_mut() {
                state.blocked = true;
            }
        }
        match &call.kind {
            RmaKind::Lock {
                target, exclusive, ..
            } => {
                if let Some(k) = key(target) {
                    self.open.insert(k, epoch(*exclusive));
                    self.epochs += 1;
                }
            }
            RmaKind::LockAll => {
                self.open.insert((win, None), epoch(Some(false)));
                self.epochs += 1;
            }
            RmaKind::Unlock { target } => {
                if let Some(k) = key(target) {
                    self.open.remove(&k);
                }
            }
            RmaKind::UnlockAll => {
                self.open.remove(&(win, None));
            }
            _ if !returned => {}
            RmaKind::Access(a) => {
                if let RmaTarget::Rank(t) = a.target {
                    for ((w, target), state) in self.open.iter_mut() {
                        if *w == win
                            && target.is_none_or(|x| x == t)
                            && !state.accessed.contains(&t)
                        {
                            state.accessed.push(t);
                        }
                    }
                }
            }
            // A flush that returned completed the epoch's operations at their targets: the
            // lock of a target it accessed was granted then.
            RmaKind::Flush { target } => {
                for ((w, _), state) in self.open.iter_mut() {
                    if *w != win {
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
}

/// The locks held to the end of the run, by window.
#[derive(Default)]
pub(super) struct HeldLocks(FxHashMap<WinId, Vec<Held>>);

impl HeldLocks {
    /// The locks the ranks (`(rank, its state at its end)`) hold to their ends.
    pub(super) fn of<'a>(ranks: impl Iterator<Item = (Rank, &'a RankLocks)>) -> HeldLocks {
        let mut out = HeldLocks::default();
        for (rank, locks) in ranks {
            let mut open: Vec<(&(WinId, Option<Rank>), &OpenEpoch)> = locks.open.iter().collect();
            // Hash order is no order: the holders of a window in the order of their epochs.
            open.sort_by_key(|(_, e)| e.serial);
            for ((win, target), state) in open {
                if !state.blocked || state.granted {
                    out.0.entry(*win).or_default().push(Held {
                        holder: rank,
                        target: *target,
                        exclusive: state.exclusive,
                    });
                }
            }
        }
        out
    }

    /// The other origins holding a lock that `wait` (a blocked call of `rank`) waits for.
    pub(super) fn holders(&self, rank: Rank, wait: &LockWait) -> Vec<Rank> {
        self.conflicting(wait.win, wait.target, rank, wait.exclusive)
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

/// A blocked call that may wait for a lock: its target and the mode of the rank's lock on
/// it, read before the call itself is noted.
fn lock_wait(call: &RmaCall, op: u32, locks: &RankLocks) -> Option<LockWait> {
    let (target, exclusive) = match &call.kind {
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
        } => (*t, locks.mode(call.win, *t)),
        RmaKind::Access(a) => match a.target {
            RmaTarget::Rank(t) => (t, locks.mode(call.win, t)),
            _ => return None,
        },
        _ => return None,
    };
    Some(LockWait {
        op,
        win: call.win,
        target,
        exclusive,
    })
}

/// Per (window, rank, partner) counts, and each rank's open epochs.
#[derive(Clone, Default, PartialEq)]
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
    /// Actors blocked in one of these calls.
    blocked: Vec<Actor>,
}

/// The replay operation of a call on a window, given what [`compile_event`] made of it
/// (`op`, for its flags). `at` is the operation's index in its rank, `prev_test` the window
/// of an unsuccessful `MPI_Win_test` that was the rank's call just before, and `aux` the
/// rank's aux words. A call the trace shows blocked may wait for a lock: it is noted in
/// `locks` ([`RankLocks::waits`]) and becomes a [`OpKind::WinLockWait`] at the end if other
/// origins turn out to hold one.
pub(super) fn compile(
    call: &RmaCall,
    op: ReplayOp,
    at: u32,
    prev_test: Option<WinId>,
    locks: &mut RankLocks,
    aux: &mut SpilledVec<u32>,
) -> ReplayOp {
    if op.flags & flags::RETURNED == 0 {
        if let Some(wait) = lock_wait(call, at, locks) {
            locks.waits.push(wait);
        }
    }
    let mut out = ReplayOp::new(OpKind::Nop);
    out.flags = op.flags;
    match &call.kind {
        RmaKind::Post { group: Some(g), .. } | RmaKind::Start { group: Some(g), .. } => {
            out.kind = if matches!(call.kind, RmaKind::Post { .. }) {
                OpKind::WinPost
            } else {
                OpKind::WinStart
            };
            out.a = aux.len() as u32;
            aux.extend_from_slice(g);
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
            if prev_test == Some(call.win) {
                out.kind = OpKind::WinWait;
            }
        }
        _ => return op,
    }
    if out.kind != OpKind::Nop {
        out.comm = call.win.0;
    }
    out
}

/// The operation of a blocked call that waits for the `holders` of a lock (their unlock is
/// not in their traces: the wait never ends), in place of what it was compiled to.
pub(super) fn lock_wait_op(
    compiled: ReplayOp,
    wait: &LockWait,
    holders: &[Rank],
    aux: &mut SpilledVec<u32>,
) -> ReplayOp {
    let mut out = ReplayOp::new(OpKind::WinLockWait);
    out.flags = compiled.flags;
    out.comm = wait.win.0;
    out.a = aux.len() as u32;
    aux.extend_from_slice(holders);
    out.b = holders.len() as u32;
    out
}

impl Engine<'_> {
    /// The group of actor `a`'s current operation (its aux words).
    fn group(&self, a: Actor, op: &ReplayOp) -> &[Rank] {
        &self.cur[a as usize].aux[op.a as usize..(op.a + op.b) as usize]
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

    pub(super) fn exec_epoch(&mut self, a: Actor, op: ReplayOp) -> Step {
        let win = op.comm;
        let r = self.rank_of(a);
        match op.kind {
            OpKind::WinPost => {
                let group: Box<[Rank]> = self.group(a, &op).into();
                for &o in group.iter() {
                    *self.epochs.posts.entry((win, r, o)).or_default() += 1;
                }
                self.epochs.exposure.insert((win, r), group);
                self.wake_epochs();
                Step::Next
            }
            OpKind::WinStart => {
                let group: Box<[Rank]> = self.group(a, &op).into();
                for &t in group.iter() {
                    *self.epochs.starts.entry((win, r, t)).or_default() += 1;
                }
                self.epochs.access.insert((win, r), group);
                if self.must_wait(&op) && !self.unposted(win, r).is_empty() {
                    return self.block_epoch(a);
                }
                Step::Next
            }
            // The holders' unlock is not in their traces: the wait never ends.
            OpKind::WinLockWait => {
                self.actors[a as usize].pending = 1;
                Step::Block
            }
            OpKind::WinComplete | OpKind::WinWait => {
                if self.must_wait(&op) && !self.epoch_ready(r, &op) {
                    return self.block_epoch(a);
                }
                self.finish_epoch(r, &op);
                Step::Next
            }
            _ => Step::Next,
        }
    }

    fn block_epoch(&mut self, a: Actor) -> Step {
        self.actors[a as usize].pending = 1;
        self.epochs.blocked.push(a);
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

    /// Releases the blocked actors whose call can now complete (a complete that ends may
    /// release waits in turn).
    fn wake_epochs(&mut self) {
        let mut i = 0;
        while i < self.epochs.blocked.len() {
            let a = self.epochs.blocked[i];
            let r = self.rank_of(a);
            let op = self.current_op(a);
            if !self.epoch_ready(r, &op) {
                i += 1;
                continue;
            }
            self.epochs.blocked.swap_remove(i);
            self.actors[a as usize].pending = 0;
            self.enqueue(a);
            // May push to and wake from `blocked`: scan again from the start.
            self.finish_epoch(r, &op);
            i = 0;
        }
    }

    /// What actor `a` blocked in one of these calls waits for.
    pub(super) fn epoch_cond(&self, a: Actor, op: ReplayOp) -> WaitCond {
        let r = self.rank_of(a);
        let (ranks, call) = match op.kind {
            OpKind::WinWait => (self.uncompleted(op.comm, r), "MPI_Win_complete"),
            OpKind::WinLockWait => (self.group(a, &op).to_vec(), "MPI_Win_unlock"),
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
