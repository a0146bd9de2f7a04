//! Lanes: each thread of a rank that called MPI from several threads replays as its own
//! sequence of operations.
//!
//! A rank's operations come in record order, which interleaves its threads' calls as they
//! happened to enter MPI; only the program's own synchronization orders two threads'
//! calls. Replayed as one sequence, a call of one thread would wait for an unrelated call
//! another thread was blocked in: the recorded replay could not explain the run, and the
//! strict replay found cycles the program cannot have (two threads reducing on their own
//! communicators, entered in opposite orders on two ranks, became a potential deadlock).
//!
//! So every thread is an actor: actor `r` is rank `r`'s first thread, and each further
//! thread of a rank gets an actor from the world size on when its first operation is read.
//! The source still gives a rank's operations in record order; those read while one actor
//! looks for its next operation wait in their own actor's backlog.
//!
//! The actors of a rank share its identity in matching, its requests and its attached
//! buffer. One order between threads is kept: an operation that names a request another
//! thread makes (a wait, test, start, free or cancel of it) is held until the operation
//! making it is replayed, since the program handed the request over after making it.
//! Other synchronization between threads (barriers, locks, joins) is not modelled: the
//! threads run more freely than in the program, which can hide a deadlock that needs that
//! synchronization but adds no wait the program does not have.
//!
//! Cost: nothing for a rank whose operations come from one thread ([`OpSource::threaded`]).
//! A multi-threaded rank whose every thread stays blocked (a deadlock of the strict replay)
//! has the rest of its operations read into backlogs.

use super::*;

/// No thread yet: a rank's first actor before its first operation.
const NO_THREAD: u32 = u32::MAX;

/// An operation read for an actor while another actor of its rank looked for its own.
#[derive(Clone, PartialEq)]
struct Pulled {
    op: ReplayOp,
    event: u32,
    aux: Vec<u32>,
}

#[derive(Clone, PartialEq)]
pub(super) struct Lanes {
    world: u32,
    /// By actor from the world size on: its rank.
    extra_rank: Vec<Rank>,
    /// By actor: its thread ([`NO_THREAD`] before its first operation).
    thread: Vec<u32>,
    /// By rank that called MPI from several threads: the actors of its other threads.
    extra: FxHashMap<Rank, Vec<Actor>>,
    /// By actor: operations read for it that it has not reached yet.
    backlog: FxHashMap<Actor, VecDeque<Pulled>>,
    /// By rank: whether its operations come from several threads
    /// ([`OpSource::threaded`]); only then are their threads looked at.
    threaded: Vec<bool>,
    /// By rank: the event index of its next operation from the source.
    next_event: Vec<u32>,
    /// By rank: the source gave its last operation.
    exhausted: Vec<bool>,
    /// (rank, request) → the actor whose backlog holds the operation that makes it.
    unmade: FxHashMap<(Rank, u32), Actor>,
    /// (rank, request) → the actors held until it is made.
    held: FxHashMap<(Rank, u32), Vec<Actor>>,
}

impl Lanes {
    pub(super) fn new(src: &dyn OpSource) -> Lanes {
        let world = src.world_size();
        Lanes {
            world,
            threaded: (0..world).map(|r| src.threaded(r)).collect(),
            extra_rank: Vec::new(),
            thread: vec![NO_THREAD; world as usize],
            extra: FxHashMap::default(),
            backlog: FxHashMap::default(),
            next_event: vec![0; world as usize],
            exhausted: vec![false; world as usize],
            unmade: FxHashMap::default(),
            held: FxHashMap::default(),
        }
    }

    #[inline]
    pub(super) fn rank_of(&self, a: Actor) -> Rank {
        if a < self.world {
            a
        } else {
            self.extra_rank[(a - self.world) as usize]
        }
    }

    /// The actors of rank `r`'s threads other than its first.
    /// Whether every rank's operations come from one thread.
    pub(super) fn single_threaded(&self) -> bool {
        !self.threaded.contains(&true)
    }

    /// By rank: the event index of its next operation from the source.
    pub(super) fn positions(&self) -> &[u32] {
        &self.next_event
    }

    pub(super) fn others(&self, r: Rank) -> &[Actor] {
        // (Asked at every send: a run with one thread per rank hashes nothing.)
        if self.extra.is_empty() {
            return &[];
        }
        self.extra.get(&r).map_or(&[], |v| v.as_slice())
    }

    /// The event index of rank `r`'s next operation from the source.
    pub(super) fn next_event(&self, r: Rank) -> u32 {
        self.next_event[r as usize]
    }

    /// Whether an operation read for one thread makes a request that is not made yet: only
    /// then may another thread's operation have to wait for it.
    #[inline]
    pub(super) fn requests_unmade(&self) -> bool {
        !self.unmade.is_empty()
    }
}

/// The requests an operation makes: a nonblocking or persistent operation's, and the
/// fresh ids a release gives the handles.
fn made(op: &ReplayOp, aux: &[u32], mut f: impl FnMut(u32)) {
    match op.kind {
        OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective
            if op.class != class::BLOCKING && op.a != NO_REQ =>
        {
            f(op.a)
        }
        OpKind::Release => (0..op.b).for_each(|k| f(aux[(op.a + 2 * k + 1) as usize])),
        _ => {}
    }
}

/// The requests an operation names that it did not make.
fn named(op: &ReplayOp, aux: &[u32], mut f: impl FnMut(u32)) {
    match op.kind {
        OpKind::Wait | OpKind::Start => (0..op.b).for_each(|k| f(aux[(op.a + k) as usize])),
        OpKind::RequestFree | OpKind::Cancel => f(op.a),
        OpKind::Release => (0..op.b).for_each(|k| f(aux[(op.a + 2 * k) as usize])),
        _ => {}
    }
}

impl Engine<'_> {
    #[inline]
    pub(super) fn rank_of(&self, a: Actor) -> Rank {
        self.lanes.rank_of(a)
    }

    /// Makes actor `a`'s next operation its current one; `false` past its rank's last (`r`).
    /// (The operation is read into the actor's [`Current`], not returned: moving it through
    /// `Option`s cost ~60 instructions per operation.)
    #[inline]
    pub(super) fn pull(&mut self, a: Actor, r: Rank) -> bool {
        if !self.lanes.threaded[r as usize] {
            // One thread: the source's next operation is the actor's.
            let cur = &mut self.cur[a as usize];
            cur.aux.clear();
            if !self.src.next_op_into(r, &mut cur.op, &mut cur.aux) {
                return false;
            }
            let next = &mut self.lanes.next_event[r as usize];
            cur.event = *next;
            *next += 1;
            return true;
        }
        self.pull_threaded(a, r)
    }

    /// [`Engine::pull`] for an actor of multi-threaded rank `r`.
    #[inline(never)]
    fn pull_threaded(&mut self, a: Actor, r: Rank) -> bool {
        if let Some(p) = self.lanes.backlog.get_mut(&a).and_then(|q| q.pop_front()) {
            let cur = &mut self.cur[a as usize];
            cur.op = Some(p.op);
            cur.event = p.event;
            cur.aux = p.aux;
            return true;
        }
        loop {
            let mut aux = std::mem::take(&mut self.cur[a as usize].aux);
            aux.clear();
            let Some((lane, op, event)) = self.read_op(r, &mut aux) else {
                self.cur[a as usize].aux = aux;
                return false;
            };
            if lane == a {
                let cur = &mut self.cur[a as usize];
                cur.op = Some(op);
                cur.event = event;
                cur.aux = aux;
                return true;
            }
            self.hand_over(r, lane, Pulled { op, event, aux });
        }
    }

    /// Reads the next operation of multi-threaded rank `r` from the source, its aux words
    /// into `aux`: the actor of its thread (made if the thread is new), the operation and
    /// its event index. `None` past the rank's last.
    fn read_op(&mut self, r: Rank, aux: &mut Vec<u32>) -> Option<(Actor, ReplayOp, u32)> {
        if self.lanes.exhausted[r as usize] {
            return None;
        }
        let Some(op) = self.src.next_op(r, aux) else {
            self.lanes.exhausted[r as usize] = true;
            return None;
        };
        let event = self.lanes.next_event[r as usize];
        self.lanes.next_event[r as usize] += 1;
        let lane = self.lane(r, self.src.thread(r) as u32);
        Some((lane, op, event))
    }

    /// Puts an operation of rank `r` read for another actor in `lane`'s backlog.
    fn hand_over(&mut self, r: Rank, lane: Actor, pulled: Pulled) {
        made(&pulled.op, &pulled.aux, |req| {
            self.lanes.unmade.insert((r, req), lane);
        });
        self.lanes
            .backlog
            .entry(lane)
            .or_default()
            .push_back(pulled);
    }

    /// Actor `a` stopped in a call: if no other thread of its rank can go on, reads the
    /// rank's next operations into their threads' backlogs until a thread not seen yet
    /// can, or the rank has no more. Nobody would read them otherwise. (When every thread
    /// of the rank stays blocked, this reads the rest of the rank: see the module docs.)
    #[inline]
    pub(super) fn read_ahead(&mut self, a: Actor) {
        let r = self.rank_of(a);
        if self.lanes.threaded[r as usize] {
            self.read_ahead_threads(r);
        }
    }

    /// [`Engine::read_ahead`] for multi-threaded rank `r` (out of line: every blocked call
    /// asks, nearly always for a rank of one thread).
    #[inline(never)]
    fn read_ahead_threads(&mut self, r: Rank) {
        let ready = |e: &Engine, r: Rank| {
            std::iter::once(r)
                .chain(e.lanes.others(r).iter().copied())
                .any(|a| e.actors[a as usize].status == R_READY)
        };
        while !ready(self, r) {
            let mut aux = Vec::new();
            let Some((lane, op, event)) = self.read_op(r, &mut aux) else {
                return;
            };
            self.hand_over(r, lane, Pulled { op, event, aux });
        }
    }

    /// The actor of thread `thread` of rank `r`, made if the thread is new.
    fn lane(&mut self, r: Rank, thread: u32) -> Actor {
        let first = &mut self.lanes.thread[r as usize];
        if *first == thread {
            return r;
        }
        if *first == NO_THREAD {
            *first = thread;
            return r;
        }
        if let Some(&a) = self
            .lanes
            .others(r)
            .iter()
            .find(|&&a| self.lanes.thread[a as usize] == thread)
        {
            return a;
        }
        let a = self.actors.len() as Actor;
        self.actors.push(ActorState::default());
        self.cur.push(Current::default());
        let hidden = self.slots.alloc(r, NO_REQ);
        let slot = self.slots.get_mut(hidden).expect("just allocated");
        slot.keep = K_HIDDEN;
        slot.waiter = a;
        self.hidden.push(hidden);
        self.lanes.extra_rank.push(r);
        self.lanes.thread.push(thread);
        self.lanes.extra.entry(r).or_default().push(a);
        self.enqueue(a);
        a
    }

    /// Holds actor `a` before its current operation `op` if the operation names a request
    /// another thread of its rank makes in an operation not replayed yet.
    pub(super) fn hold_for_request(&mut self, a: Actor, op: &ReplayOp) -> bool {
        let r = self.rank_of(a);
        let mut waits_for = None;
        named(op, &self.cur[a as usize].aux, |req| {
            if waits_for.is_none() && self.lanes.unmade.get(&(r, req)).is_some_and(|&m| m != a) {
                waits_for = Some(req);
            }
        });
        let Some(req) = waits_for else {
            return false;
        };
        self.lanes.held.entry((r, req)).or_default().push(a);
        self.actors[a as usize].status = R_HELD;
        true
    }

    /// Actor `a` replayed `op`: the actors held for the requests it made go on.
    pub(super) fn made_requests(&mut self, a: Actor, op: &ReplayOp) {
        let r = self.rank_of(a);
        let mut reqs = Vec::new();
        made(op, &self.cur[a as usize].aux, |req| reqs.push(req));
        for req in reqs {
            if self.lanes.unmade.get(&(r, req)) != Some(&a) {
                continue;
            }
            self.lanes.unmade.remove(&(r, req));
            for held in self.lanes.held.remove(&(r, req)).unwrap_or_default() {
                self.actors[held as usize].status = R_READY;
                self.enqueue(held);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLD: CommId = CommId(0);

    fn replays(program: &Program) -> [Replay; 2] {
        [Mode::Recorded, Mode::Strict]
            .map(|mode| replay_program(program, &ReplayOptions::new(mode)))
    }

    /// Rank 0's thread 0 receives first and its thread 1 sends later; rank 1 receives,
    /// then sends. In record order rank 0's receive comes first, and as one sequence it
    /// would wait for rank 1, which waits for rank 0's send.
    #[test]
    fn a_thread_blocked_in_a_call_does_not_hold_back_another_thread() {
        let mut b = ProgramBuilder::new(2);
        b.begin_rank();
        b.thread(0);
        b.recv(1, 2, WORLD);
        b.thread(1);
        b.send(1, 1, SendMode::Standard, WORLD);
        b.thread(0);
        b.finalize();
        b.end_rank(EndKind::Finalized);
        b.begin_rank();
        b.recv(0, 1, WORLD);
        b.send(0, 2, SendMode::Standard, WORLD);
        b.finalize();
        b.end_rank(EndKind::Finalized);
        for replay in replays(&b.finish()) {
            assert!(replay.completed(), "{:?}: {:?}", replay.mode, replay.stuck);
            assert_eq!(replay.ranks, vec![RankOutcome::Finalized; 2]);
        }
    }

    /// Two threads of each rank reduce on their own communicators, recorded in opposite
    /// orders on the two ranks (the false DL002 of `th_request_handle_reused_ok.c`).
    #[test]
    fn threads_collectives_on_their_own_communicators_are_not_ordered_by_the_record() {
        let mut b = ProgramBuilder::new(2);
        let comms = [b.add_comm(vec![0, 1]), b.add_comm(vec![0, 1])];
        for order in [[0u16, 1], [1, 0]] {
            b.begin_rank();
            for t in order {
                b.thread(t);
                b.collective(CollectiveKind::Allreduce, None, comms[t as usize]);
            }
            b.thread(0);
            b.finalize();
            b.end_rank(EndKind::Finalized);
        }
        let program = b.finish();
        for replay in replays(&program) {
            assert!(replay.completed(), "{:?}: {:?}", replay.mode, replay.stuck);
        }
        // The same calls from one thread are a real cycle.
        let mut b = ProgramBuilder::new(2);
        let comms = [b.add_comm(vec![0, 1]), b.add_comm(vec![0, 1])];
        for order in [[0usize, 1], [1, 0]] {
            b.begin_rank();
            for c in order {
                b.collective(CollectiveKind::Allreduce, None, comms[c]);
            }
            b.finalize();
            b.end_rank(EndKind::Finalized);
        }
        let strict = replay_program(&b.finish(), &ReplayOptions::new(Mode::Strict));
        assert_eq!(strict.stuck.len(), 2);
    }

    /// Rank 0's thread 1 waits for a receive its thread 0 starts only after a receive of
    /// its own; rank 1 sends that one only after thread 1's message. A deadlock: the wait
    /// must not pass before the request it names is made.
    #[test]
    fn a_wait_on_another_thread_s_request_waits_until_the_request_is_made() {
        let mut b = ProgramBuilder::new(2);
        b.begin_rank();
        b.thread(0);
        b.recv(1, 5, WORLD);
        b.irecv(1, 6, WORLD, 0);
        b.thread(1);
        b.waitall(&[0]);
        b.send(1, 7, SendMode::Synchronous, WORLD);
        b.thread(0);
        b.finalize();
        b.end_rank(EndKind::Finalized);
        b.begin_rank();
        b.recv(0, 7, WORLD);
        b.send(0, 5, SendMode::Standard, WORLD);
        b.send(0, 6, SendMode::Standard, WORLD);
        b.finalize();
        b.end_rank(EndKind::Finalized);
        let strict = replay_program(&b.finish(), &ReplayOptions::new(Mode::Strict));
        assert_eq!(
            strict.ranks,
            vec![
                RankOutcome::Stuck { event: 0 },
                RankOutcome::Stuck { event: 0 }
            ]
        );
        // Rank 0 goes on once its thread 0 does: rank 1's message.
        let cond = &strict.stuck[0].cond;
        assert!(matches!(cond, WaitCond::Rank { rank: 1, .. }), "{cond:?}");
    }

    /// Two stuck threads: the rank is stuck at the earlier call and goes on if either
    /// thread does.
    #[test]
    fn a_rank_with_two_stuck_threads_waits_for_either() {
        let mut b = ProgramBuilder::new(3);
        b.begin_rank();
        b.thread(0);
        b.recv(1, 1, WORLD);
        b.thread(1);
        b.recv(2, 2, WORLD);
        b.end_rank(EndKind::Interrupted);
        for _ in 1..3 {
            b.begin_rank();
            b.finalize();
            b.end_rank(EndKind::Finalized);
        }
        let strict = replay_program(&b.finish(), &ReplayOptions::new(Mode::Strict));
        assert_eq!(strict.ranks[0], RankOutcome::Stuck { event: 0 });
        let WaitCond::AnyOf(parts) = &strict.stuck[0].cond else {
            panic!("{:?}", strict.stuck[0].cond);
        };
        let ranks: Vec<Rank> = parts
            .iter()
            .map(|p| match p {
                WaitCond::Rank { rank, .. } => *rank,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(ranks, vec![1, 2]);
    }
}
