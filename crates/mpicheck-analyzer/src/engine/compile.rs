//! Compilation of a run's events into a [`Program`] of [`ReplayOp`]s, one event at a time
//! as the normalizer makes them ([`ProgramCompiler`]): the ranks' events may come
//! interleaved, and no event is kept.
//!
//! Three things about an operation are known only later than its event, and are settled
//! when the events end ([`ProgramCompiler::into_program`]), on the few operations they
//! concern:
//! - a standard send or collective the trace shows not completed locally (a wait on it
//!   never returned) is marked [`flags::UNBUFFERED`];
//! - a call the trace shows blocked toward a target that other origins hold a conflicting
//!   lock on to the end of their traces becomes an [`OpKind::WinLockWait`]
//!   (`engine/rma.rs`);
//! - the call a rank was inside when it exited (or MPI aborted in) does nothing;
//! - a polling loop the launcher saw a hung thread spin in until the end stands for the
//!   blocking call it polls for ([`crate::polling::block_trailing_polls`]).
//!
//! A receive's match that becomes known at a later call ([`EventPass::matched`]) is written
//! into its operation then. Ids are those the normalizer first gave; the program is read
//! in the run's final ids ([`FinalIds`]).

mod event;
mod followers;

use std::collections::hash_map::Entry;

use super::polling::PollScanner;
use super::rma::{HeldLocks, RankLocks};
use super::*;
use crate::checks::pass::{EventPass, RunTables};
use crate::diagnostic::Diagnostic;
use event::{compile_event, info_of, RequestIds};
use followers::WildcardFollowers;

impl Program {
    /// Compiles a run held whole. Each event becomes exactly one operation, so event
    /// indices carry over.
    pub fn from_run(run: &Run) -> Program {
        let mut compiler = ProgramCompiler::new(&[], None);
        crate::checks::pass::feed(run, &mut [&mut compiler]);
        compiler.into_program(&RunTables::of(run))
    }
}

/// Compiles the events of every rank into their operations as they come (an
/// [`EventPass`], fed while the traces are normalized), into the [`Program`] the replays
/// run ([`ProgramCompiler::into_program`]).
#[derive(Default)]
pub struct ProgramCompiler {
    ranks: Vec<RankCompiler>,
    /// Where the ranks' operations go once they have many.
    spill: Spill,
    names: Names,
    /// The threads the launcher saw polling until it ended the hung job, by rank: their
    /// trailing polls stand for the blocking call they poll for.
    polling: FxHashMap<Rank, Vec<u16>>,
    /// Every thread's trailing polls are kept (the polling threads are named only once the
    /// events are over: [`ProgramCompiler::set_polling`]).
    polls_of_every_thread: bool,
    /// The requests an event completed ([`RankCompiler::forget_completed`]), kept to be
    /// filled again by the next event.
    completed: Vec<ReqId>,
}

/// The names of the called functions, by the id operations carry.
struct Names {
    names: Vec<&'static str>,
    ids: FxHashMap<&'static str, u32>,
    /// The ids by the address and length of the name (the same for the same bytes, as
    /// names are `'static`): an event's name is found without hashing or comparing it
    /// when one at that address came before.
    by_address: FxHashMap<(usize, usize), u32>,
    /// The last name found at each of a few slots chosen by its address, with its id: a
    /// program calls few functions, so nearly every event's name is found here with one
    /// comparison, before `by_address` is hashed (which cost ~50 instructions an event).
    recent: [((usize, usize), u32); RECENT_NAMES],
}

/// The slots of [`Names::recent`] (a power of two): many more than a program calls
/// functions, so that two names of one loop rarely share a slot and push each other out
/// (with 32, one event in eight of `varied.c` missed).
const RECENT_NAMES: usize = 256;

impl Default for Names {
    fn default() -> Names {
        Names {
            names: vec![""],
            ids: FxHashMap::from_iter([("", 0)]),
            by_address: FxHashMap::default(),
            // (No name is at address 0.)
            recent: [((0, 0), 0); RECENT_NAMES],
        }
    }
}

impl Names {
    #[inline]
    fn id(&mut self, name: &'static str) -> u32 {
        let address = (name.as_ptr() as usize, name.len());
        // The address's high bits after a multiply by a large odd number pick the slot.
        let slot = (address.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (u64::BITS - RECENT_NAMES.ilog2());
        let recent = self.recent[slot as usize];
        if recent.0 == address {
            return recent.1;
        }
        self.id_not_recent(name, slot as usize)
    }

    /// [`Names::id`] of a name not in its recent slot (out of line: rare).
    #[inline(never)]
    fn id_not_recent(&mut self, name: &'static str, slot: usize) -> u32 {
        let address = (name.as_ptr() as usize, name.len());
        let id = match self.by_address.get(&address) {
            Some(&id) => id,
            None => {
                let names = &mut self.names;
                let id = *self.ids.entry(name).or_insert_with(|| {
                    names.push(name);
                    names.len() as u32 - 1
                });
                self.by_address.insert(address, id);
                id
            }
        };
        self.recent[slot] = (address, id);
        id
    }
}

/// Where a compiled program's operations go once a rank has many: an unnamed temporary
/// file in `dir` (else in the system's temporary directory), in chunks of `chunk`
/// operations (`engine/spill.rs`).
#[derive(Clone, Copy, Debug)]
pub struct SpillTo<'a> {
    pub dir: &'a std::path::Path,
    pub chunk: usize,
    /// The chunks are compressed once the file holds this many bytes.
    pub compress_from: u64,
}

impl SpillTo<'_> {
    /// Into `dir`, in chunks of the usual size, compressed past the usual size.
    pub fn dir(dir: &std::path::Path) -> SpillTo<'_> {
        SpillTo {
            dir,
            chunk: spill::CHUNK,
            compress_from: spill::COMPRESS_FROM,
        }
    }
}

/// The file a rank's operations go to in chunks, if any.
#[derive(Clone, Default)]
struct Spill {
    file: Option<Arc<SpillFile>>,
    chunk: usize,
}

impl Spill {
    fn vec<T: bytemuck::NoUninit + bytemuck::CheckedBitPattern>(&self) -> SpilledVec<T> {
        SpilledVec::new(self.file.clone(), self.chunk.max(1))
    }
}

/// One rank's operations so far, and what compiling its next events needs.
#[derive(Default)]
struct RankCompiler {
    ops: SpilledVec<ReplayOp>,
    info: SpilledVec<OpInfo>,
    aux: SpilledVec<u32>,
    /// The communicator of a collective call whose operation does not carry it, by the
    /// rank's operation index.
    collective_comms: FxHashMap<u32, u32>,
    ids: RequestIds,
    polls: PollScanner,
    locks: RankLocks,
    /// The window of an unsuccessful `MPI_Win_test` that was the rank's last call.
    prev_test: Option<WinId>,
    /// Request id → the operation that created it (a send, receive or collective), to mark
    /// those whose wait never returned; and whether that operation is nonblocking (known
    /// here, so that forgetting a completed request reads no written chunk back). For a
    /// persistent request, the `MPI_Start*` that started it last: a wait that never
    /// returned waited for that instance, which is the one to mark, not every start of the
    /// request (the earlier instances completed in the run).
    origin: Origins,
    /// The waits that never returned.
    unreturned_waits: Vec<u32>,
    /// The thread of the operations, as runs `[first operation, thread]`
    /// ([`RankProgram::threads`]).
    threads: SpilledVec<[u32; 2]>,
    /// The thread of the last run.
    last_thread: Option<u32>,
    /// Per polling thread the launcher named: its last call and the unsuccessful polls
    /// right before it.
    trailing: FxHashMap<u16, Vec<TrailingCall>>,
    followers: WildcardFollowers,
}

/// A call of a polling thread that may turn out to be part of its last polling loop.
struct TrailingCall {
    index: u32,
    event: Event,
    /// The rank's last call was an unsuccessful `MPI_Win_test` on this window.
    prev_test: Option<WinId>,
    /// The lock epochs of the rank open when it was made.
    open_epochs: Vec<u64>,
}

impl ProgramCompiler {
    /// A compiler for a run whose `polling` threads ((rank, thread)) the launcher saw
    /// polling until it ended the hung job; a rank's operations beyond its first chunk go
    /// to a temporary file where `spill` says, if it says (else they stay in memory).
    pub fn new(polling: &[(Rank, u16)], spill: Option<SpillTo>) -> ProgramCompiler {
        let spill = match spill {
            Some(to) => Spill {
                file: SpillFile::create(Some(to.dir), to.compress_from),
                chunk: to.chunk,
            },
            None => Spill::default(),
        };
        let mut by_rank: FxHashMap<Rank, Vec<u16>> = FxHashMap::default();
        for &(rank, thread) in polling {
            by_rank.entry(rank).or_default().push(thread);
        }
        ProgramCompiler {
            polling: by_rank,
            spill,
            ..ProgramCompiler::default()
        }
    }

    /// Keeps every thread's trailing unsuccessful polls: the compiler of the analysis
    /// following a job while it runs, which learns which threads poll in a stall only then
    /// ([`ProgramCompiler::set_polling`]).
    pub fn keep_polls_of_every_thread(&mut self) {
        self.polls_of_every_thread = true;
    }

    /// Names the threads the launcher saw polling, once the events are over (a compiler
    /// that kept every thread's polls, [`ProgramCompiler::keep_polls_of_every_thread`]).
    pub fn set_polling(&mut self, polling: &[(Rank, u16)]) {
        debug_assert!(self.polls_of_every_thread || polling.is_empty());
        self.polling.clear();
        for &(rank, thread) in polling {
            self.polling.entry(rank).or_default().push(thread);
        }
    }

    /// The compiler of `rank` among `ranks`, made if it is new (ranks come as their events
    /// do). A function of the vector, not of the compiler, so that the names can be
    /// borrowed beside it.
    fn rank<'a>(
        ranks: &'a mut Vec<RankCompiler>,
        rank: Rank,
        spill: &Spill,
    ) -> &'a mut RankCompiler {
        let r = rank as usize;
        if ranks.len() <= r {
            ranks.resize_with(r + 1, || RankCompiler::new(spill));
        }
        &mut ranks[r]
    }

    /// The program, once every event was given; `tables` are the run's at the end (with
    /// how each rank ended), numbered into its final ids if the events came with others.
    pub fn into_program(mut self, tables: &RunTables) -> Program {
        let world_size = tables.rank_count();
        // Ranks without a trace had no events: they get an empty program.
        if self.ranks.len() < world_size as usize {
            self.ranks
                .resize_with(world_size as usize, RankCompiler::default);
        }
        for (rank, threads) in std::mem::take(&mut self.polling) {
            if let Some(r) = self.ranks.get_mut(rank as usize) {
                for thread in threads {
                    r.model_polling(rank, thread, tables, &mut self.names);
                }
            }
        }
        let held = HeldLocks::of(
            self.ranks
                .iter()
                .enumerate()
                .map(|(rank, r)| (rank as Rank, &r.locks)),
        );
        let mut b = ProgramBuilder::new(world_size);
        // The communicators in the order of their program ids.
        let mut comms: Vec<(u32, u32)> = (1..tables.comms().len() as u32)
            .map(|id| (tables.comm_order(CommId(id)), id))
            .collect();
        comms.sort_unstable();
        for (_, id) in comms {
            let info = &tables.comms()[id as usize];
            let mut members = info.members.to_vec();
            if let Some(remote) = &info.remote {
                // Collectives on an intercommunicator involve both groups.
                members.extend(remote.iter().copied());
            }
            b.add_comm(members);
        }
        b.set_names(std::mem::take(&mut self.names.names));
        for (rank, mut r) in std::mem::take(&mut self.ranks).into_iter().enumerate() {
            let rank = rank as Rank;
            let end = tables.rank_end(rank);
            r.settle(rank, end, &held);
            // The operations and their calls keep the normalizer's ids: the program is read
            // through the final ones ([`FinalIds`]).
            for comm in r.collective_comms.values_mut() {
                *comm = tables.comm_order(CommId(*comm));
            }
            let mut program = RankProgram {
                follower_sites: r.followers.source_sites(),
                tag_follower_sites: r.followers.tag_sites(),
                ops: r.ops,
                info: r.info,
                aux: r.aux,
                collective_comms: r.collective_comms,
                threads: r.threads,
            };
            // The vectors grew by doubling: the replays read them for the rest of the
            // analysis.
            program.ops.shrink_to_fit();
            program.info.shrink_to_fit();
            program.aux.shrink_to_fit();
            b.push_rank(
                program,
                match end {
                    Some(RankEnd::Finalized) => EndKind::Finalized,
                    Some(RankEnd::ExitedWithoutFinalize) => EndKind::Exited,
                    // Nothing is known after the call MPI aborted in.
                    Some(RankEnd::Interrupted { .. } | RankEnd::AbortedInCall { .. }) | None => {
                        EndKind::Interrupted
                    }
                },
            );
        }
        b.finish_in(tables.final_ids())
    }
}

impl EventPass for ProgramCompiler {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        let polling = !self.polling.is_empty()
            && self
                .polling
                .get(&rank)
                .is_some_and(|threads| threads.contains(&event.thread));
        let names = &mut self.names;
        let r = Self::rank(&mut self.ranks, rank, &self.spill);
        debug_assert_eq!(index, r.ops.len(), "each rank's events come in order");
        if polling {
            r.note_trailing(index as u32, event);
        } else if self.polls_of_every_thread {
            r.note_trailing_poll(index as u32, event);
        }
        let completed = &mut self.completed;
        r.forget_completed(event, completed);
        let at = r.ops.len() as u32;
        let poll = r.polls.role(event);
        let info = info_of(event, names);
        if let Op::Cancel { request } = &event.op {
            r.note_cancel(*request);
        }
        let mut op = compile_event(event, poll, &mut r.ids, tables, &mut r.aux, names);
        let rma = tables.rma_call(rank, index);
        if let Some(call) = rma {
            op = rma::compile(call, op, at, r.prev_test, &mut r.locks, &mut r.aux);
            r.locks.note(call, event.returned);
        }
        r.prev_test = rma
            .filter(|c| c.kind == RmaKind::Test { done: false })
            .map(|c| c.win);
        r.followers.note_op(at, &mut op, &info, event);
        r.push(op, info, event);
        for &request in completed.iter() {
            // A single successful test gave it a fresh id ([`RequestIds::rename`]) that no
            // later call names.
            r.ids.forget(request);
        }
    }

    fn matched(&mut self, rank: Rank, index: usize, matched: (Rank, i32)) {
        let r = Self::rank(&mut self.ranks, rank, &self.spill);
        let (Some(mut op), Some(info)) = (r.ops.get_checked(index), r.info.get_checked(index))
        else {
            return;
        };
        match (info.shape, op.kind) {
            (CallShape::Recv, OpKind::Recv) => {
                op.b = matched.0;
                event::note_recorded_tag(&mut op, matched.1);
                r.ops.set(index, op);
                if op.peer == ANY_SOURCE || op.recv_tag() == ANY_TAG {
                    r.followers.matched(index as u32, matched);
                }
            }
            (CallShape::Sendrecv, OpKind::Sendrecv) => {
                r.aux.set(op.b as usize + 2, matched.0);
                if r.aux.get_checked(op.b as usize) == Some(ANY_SOURCE) {
                    r.followers.matched(index as u32, matched);
                }
            }
            _ => {}
        }
    }

    /// A compiler has no findings: its program is taken with
    /// [`ProgramCompiler::into_program`].
    fn finish(self: Box<Self>, _: &RunTables) -> Vec<Diagnostic> {
        Vec::new()
    }
}

impl RankCompiler {
    fn new(spill: &Spill) -> RankCompiler {
        RankCompiler {
            ops: spill.vec(),
            info: spill.vec(),
            aux: spill.vec(),
            threads: spill.vec(),
            ..RankCompiler::default()
        }
    }

    /// Appends the operation compiled from `event`.
    fn push(&mut self, op: ReplayOp, info: OpInfo, event: &Event) {
        let at = self.ops.len() as u32;
        if let Op::Collective { comm, .. } = &event.op {
            if op.kind != OpKind::Collective || op.comm != comm.0 {
                self.collective_comms.insert(at, comm.0);
            }
        }
        if matches!(
            op.kind,
            OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective
        ) && op.a != NO_REQ
        {
            let origin = Origin {
                op: at,
                nonblocking: op.class == class::NONBLOCKING,
            };
            self.origin.insert(op.a, origin);
        }
        if op.kind == OpKind::Start {
            for k in op.a..op.a + op.b {
                let req = self.aux.get(k as usize);
                if let Some(made) = self.origin.get(req) {
                    self.origin.insert(req, Origin { op: at, ..made });
                }
            }
        }
        if op.kind == OpKind::Wait && op.flags & flags::RETURNED == 0 {
            self.unreturned_waits.push(at);
        }
        let thread = event.thread as u32;
        if self.last_thread != Some(thread) {
            self.threads.push([at, thread]);
            self.last_thread = Some(thread);
        }
        self.ops.push(op);
        self.info.push(info);
    }

    /// Marks the nonblocking send that made `request`, if it is live, as cancelled. (Its
    /// operation is found in the requests' origins: keeping each send apart by request cost
    /// a hash insert and remove per request, for the few programs that cancel.)
    fn note_cancel(&mut self, request: ReqId) {
        let Some(origin) = self.origin.get(self.ids.id(request)) else {
            return;
        };
        if !origin.nonblocking {
            return;
        }
        let mut info = self.info.get(origin.op as usize);
        if matches!(info.shape, CallShape::Send | CallShape::SyncSend) {
            info.bits |= info_bits::CANCELLED;
            self.info.set(origin.op as usize, info);
        }
    }

    /// Forgets the nonblocking requests that `event`, about to be compiled, completes or
    /// frees: no later call can name them (the normalizer gives a reused handle a new
    /// request), so neither a wait that never returns nor a cancel will mark their
    /// operations. Without this, the rank's tables would grow with every request of the
    /// run.
    /// Puts the nonblocking ones among them in `nonblocking` (emptied first).
    fn forget_completed(&mut self, event: &Event, nonblocking: &mut Vec<ReqId>) {
        nonblocking.clear();
        if !event.returned {
            return;
        }
        let completes = matches!(event.op, Op::Wait { .. });
        let mut forget = |request: ReqId| {
            let id = self.ids.id(request);
            if let Some(origin) = self.origin.remove_nonblocking(id) {
                nonblocking.push(request);
                self.followers.request_done(origin.op, completes);
            }
        };
        match &event.op {
            Op::Wait {
                requests,
                kind: WaitKind::One | WaitKind::All,
                test: false,
                ..
            } => requests.iter().flatten().copied().for_each(forget),
            Op::Wait {
                requests,
                completed,
                ..
            } => crate::checks::request::completed_requests(requests, completed).for_each(forget),
            Op::RequestFree { request } => {
                forget(*request);
                // A persistent request is done with too: no call names it again.
                self.origin
                    .remove(self.ids.id(*request), |o| !o.nonblocking);
            }
            _ => {}
        }
    }

    /// Keeps `event` of a polling thread while it may belong to the thread's last loop: its
    /// unsuccessful polls in a row, and the call after them.
    fn note_trailing(&mut self, index: u32, event: &Event) {
        let calls = self.trailing.entry(event.thread).or_default();
        let polled_on = calls
            .last()
            .is_some_and(|c| c.event.returned && crate::polling::is_unsuccessful_poll(&c.event.op));
        if !polled_on {
            calls.clear();
        }
        calls.push(TrailingCall {
            index,
            event: event.clone(),
            prev_test: self.prev_test,
            open_epochs: self.locks.open_serials(),
        });
    }

    /// [`RankCompiler::note_trailing`] for a thread that may turn out to poll: its calls are
    /// kept only from its first unsuccessful poll in a row (or poll in flight) on. What
    /// `note_trailing` keeps besides (a call after them) makes no loop to model either.
    fn note_trailing_poll(&mut self, index: u32, event: &Event) {
        let polls = (event.returned && crate::polling::is_unsuccessful_poll(&event.op))
            || (!event.returned && crate::polling::is_poll(&event.op));
        if polls {
            self.note_trailing(index, event);
        } else if !self.trailing.is_empty() {
            self.trailing.remove(&event.thread);
        }
    }

    /// Models the last polling loop of `thread` as the blocking call it stands for
    /// ([`crate::polling::block_trailing_polls`]), compiling that call in place of the
    /// loop's last poll.
    fn model_polling(&mut self, rank: Rank, thread: u16, tables: &RunTables, names: &mut Names) {
        let Some(calls) = self.trailing.remove(&thread) else {
            return;
        };
        let Some(last) = calls.last() else { return };
        let (index, prev_test, open_epochs) =
            (last.index, last.prev_test, last.open_epochs.clone());
        let mut trace = RankTrace {
            rank,
            events: calls.into_iter().map(|c| c.event).collect(),
            end: RankEnd::Interrupted {
                reason: String::new(),
            },
            threads: ThreadInfo::default(),
        };
        if !crate::polling::block_trailing_polls(&mut trace, thread) {
            return;
        }
        let event = trace.events.last().expect("a modelled loop has a call");
        let info = info_of(event, names);
        let mut op = compile_event(
            event,
            Poll::None,
            &mut self.ids,
            tables,
            &mut self.aux,
            names,
        );
        if let Some(call) = tables.rma_call(rank, index as usize) {
            // Not returned: it stands for the wait, and blocks the epochs open around it.
            let mut none = RankLocks::default();
            op = rma::compile(call, op, index, prev_test, &mut none, &mut self.aux);
            self.locks.block_epochs(&open_epochs);
        }
        if op.kind == OpKind::Wait && op.flags & flags::RETURNED == 0 {
            self.unreturned_waits.push(index);
        }
        self.ops.set(index as usize, op);
        self.info.set(index as usize, info);
    }

    /// Settles what the rank's later calls, and the other ranks', decided about its
    /// operations (see the module docs).
    fn settle(&mut self, rank: Rank, end: Option<&RankEnd>, held: &HeldLocks) {
        for wait in &self.locks.waits {
            let holders = held.holders(rank, wait);
            if !holders.is_empty() {
                let at = wait.op as usize;
                let op = rma::lock_wait_op(self.ops.get(at), wait, &holders, &mut self.aux);
                self.ops.set(at, op);
            }
        }
        // A process that ran its exit handlers inside its last call did not block there:
        // MPI ended it in the call (an error handler, MPI_Abort), or another thread did;
        // nor did a call in which MPI aborted the job. The call does nothing in the
        // replay, or it would look blocked forever.
        let exited_in = match end {
            Some(RankEnd::ExitedWithoutFinalize) => self
                .ops
                .len()
                .checked_sub(1)
                .filter(|&last| self.info.get(last).bits & info_bits::RETURNED == 0),
            Some(RankEnd::AbortedInCall { event, .. }) => Some(*event),
            _ => None,
        };
        if let Some(at) = exited_in.filter(|&at| at < self.ops.len()) {
            let op = self.ops.get(at);
            if self.info.get(at).shape == CallShape::Collective && op.kind == OpKind::Collective {
                self.collective_comms.insert(at as u32, op.comm);
            }
            self.ops.set(at, ReplayOp::new(OpKind::Nop));
        }
        for &w in &self.unreturned_waits {
            let op = self.ops.get(w as usize);
            if op.kind != OpKind::Wait || op.flags & flags::RETURNED != 0 {
                continue;
            }
            for k in 0..op.b {
                let req = self.aux.get((op.a + k) as usize);
                // (A persistent request's last start, which the replay starts unbuffered.)
                if let Some(Origin { op: o, .. }) = self.origin.get(req) {
                    let mut origin = self.ops.get(o as usize);
                    origin.flags |= flags::UNBUFFERED;
                    self.ops.set(o as usize, origin);
                }
            }
        }
    }
}

/// The operation that made a request ([`RankCompiler::origin`]).
#[derive(Clone, Copy)]
struct Origin {
    op: u32,
    nonblocking: bool,
}

/// The ids a window of [`Origins`] spans at most: a request live this far behind the
/// newest goes to the hashed ones.
const ORIGINS_WINDOW: u32 = 64;

/// The compiler's fresh request ids count down from just below [`NO_REQ`]: from here on,
/// ids are never in the window of [`Origins`].
const ORIGINS_FRESH_FROM: u32 = 1 << 31;

/// The operation that made each of a rank's live requests, by request id. A rank's ids
/// count up and its nonblocking requests nearly always complete soon, so the live ones are
/// a short run of ids: kept in a window indexed by their offset from its first id, which
/// moves on as the first ones go, as the replay's request map does (`engine/requests.rs`);
/// the ids behind it, far ahead of it or fresh are hashed. (A hash insert and remove per
/// request cost ~120 instructions.) An id in the window's span is never hashed.
#[derive(Default)]
struct Origins {
    base: u32,
    window: VecDeque<Option<Origin>>,
    other: FxHashMap<u32, Origin>,
}

impl Origins {
    #[inline]
    fn insert(&mut self, id: u32, origin: Origin) {
        let i = id.wrapping_sub(self.base) as usize;
        if i < self.window.len() {
            self.window[i] = Some(origin);
        } else if i < ORIGINS_WINDOW as usize && id < ORIGINS_FRESH_FROM {
            // Nearly always an id a little past the window's end.
            if self.window.is_empty() {
                self.base = id;
            } else {
                while self.window.len() < i {
                    self.window.push_back(None);
                }
            }
            self.window.push_back(Some(origin));
        } else {
            self.insert_other(id, origin);
        }
    }

    /// [`Origins::insert`] of an id behind the window, far ahead of it, or fresh.
    #[inline(never)]
    fn insert_other(&mut self, id: u32, origin: Origin) {
        if id < self.base || id >= ORIGINS_FRESH_FROM {
            self.other.insert(id, origin);
            return;
        }
        // Far ahead: the window starts again at the id, the requests it held hashed (all
        // behind it).
        for (k, o) in self.window.drain(..).enumerate() {
            if let Some(o) = o {
                self.other.insert(self.base + k as u32, o);
            }
        }
        self.base = id;
        self.window.push_back(Some(origin));
    }

    fn get(&self, id: u32) -> Option<Origin> {
        let i = id.wrapping_sub(self.base) as usize;
        if i < self.window.len() {
            return self.window[i];
        }
        self.other.get(&id).copied()
    }

    /// Forgets the request `id` if a nonblocking operation made it; that operation.
    #[inline]
    fn remove_nonblocking(&mut self, id: u32) -> Option<Origin> {
        self.remove(id, |o| o.nonblocking)
    }

    /// Forgets the request `id` if `which` says so of the operation that made it; that
    /// operation.
    #[inline]
    fn remove(&mut self, id: u32, which: impl Fn(&Origin) -> bool) -> Option<Origin> {
        let i = id.wrapping_sub(self.base) as usize;
        if i < self.window.len() {
            let origin = self.window[i].filter(&which)?;
            self.window[i] = None;
            // The window moves on past the ids with no request at its front.
            while let Some(None) = self.window.front() {
                self.window.pop_front();
                self.base += 1;
            }
            return Some(origin);
        }
        if self.other.is_empty() {
            return None;
        }
        match self.other.entry(id) {
            Entry::Occupied(origin) if which(origin.get()) => Some(origin.remove()),
            _ => None,
        }
    }

    /// How many requests it holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.window.iter().flatten().count() + self.other.len()
    }
}

#[cfg(test)]
mod tests;
