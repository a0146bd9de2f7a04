//! The replay engine: re-executes a run's MPI calls against a model of MPI matching and
//! completion, and says whether every rank gets through its calls or which ranks are stuck
//! and on what.
//!
//! # What is modelled
//!
//! - Point-to-point matching as MPI defines it: a receive matches the earliest message
//!   from a source with a matching tag (non-overtaking per source, destination and
//!   communicator); a message matches the earliest posted matching receive. `ANY_SOURCE`
//!   and `ANY_TAG` wildcards; `MPI_PROC_NULL` completes at once.
//! - Send modes: synchronous sends complete when matched; buffered sends complete at once
//!   while the buffer attached with `MPI_Buffer_attach` has room (MPI-CHECK 2.0 fig. 5);
//!   standard and ready sends depend on the [`Mode`].
//! - Probes, matched probes (`MPI_Mprobe`/`MPI_Improbe` consume the message like a receive;
//!   the `MPI_Mrecv` that follows is then local).
//! - Nonblocking and persistent requests, completed by `MPI_Wait*`. Tests,
//!   `MPI_Request_get_status*` and nonblocking probes poll: one that found nothing never
//!   blocks, and one that succeeded blocks only where it ended a polling loop (`polling`
//!   module: a single successful poll waited for nothing).
//! - The progress rule (MPI 4.1 §3.7.4): a posted operation is matched and completes
//!   whatever its rank is doing, because matching here is driven by the other side, never
//!   by the waiting rank.
//! - Collectives matched in call order per communicator, operation, root and blocking class
//!   (blocking, nonblocking and persistent collectives never match each other). Matching by
//!   operation rather than by bare position is what implementations do (each operation has
//!   its own internal tags), so a run that mixes up the order of two different collectives
//!   replays as it behaved; the mix-up itself is reported by the collective-call check.
//!
//! # Modes
//!
//! - [`Mode::Recorded`] replays what happened: a wildcard receive takes the source recorded
//!   in its status; standard sends complete locally (the library buffered them) unless the
//!   trace shows them blocked; collectives only wait for the data they need (a broadcast
//!   for its root, a gather's root for everybody, a scan for the lower ranks, barrier-like
//!   ones for all), unless the trace shows the call blocked.
//! - [`Mode::Strict`] replays what MPI guarantees to a portable program: standard and ready
//!   sends complete only when matched, and every collective synchronizes.
//!
//! # Wildcards
//!
//! A wildcard receive is held back until nothing else can progress (the whole replay is
//! quiescent), so every message that could have arrived has arrived; the sources with a
//! matching message at that moment are its candidates ([`WildcardRace`] when there are
//! several). Receives posted later by the same rank on the same communicator queue behind
//! it, as MPI's matching order requires. [`ReplayOptions::forced`] makes one wildcard
//! receive take a chosen source (exploration of other matchings).
//!
//! # Cost
//!
//! The replay runs on a compiled [`Program`] of 24-byte operations (one per trace event),
//! with queues per (communicator, destination, source) and per collective call; each
//! operation is handled in amortized constant time apart from tag scans of pending queues,
//! so the cost is linear in the number of events (EMPDD's O(m·n)). Runs that are too large
//! to hold as [`Run`] can be built directly with [`ProgramBuilder`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::model::*;

mod polling;
use polling::Poll;

// ---------------------------------------------------------------------------------------
// Hashing: keys are small integers; SipHash would dominate the replay's cost.

/// The Fx hash (rustc's): one multiply per word.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64)
    }
    fn write_u16(&mut self, i: u16) {
        self.add(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i)
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64)
    }
    fn write_i32(&mut self, i: i32) {
        self.add(i as u32 as u64)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

// ---------------------------------------------------------------------------------------
// The compiled program.

/// `MPI_PROC_NULL` as a peer, or "no rank".
pub const NO_RANK: u32 = u32::MAX;
/// `MPI_ANY_SOURCE` as a source.
pub const ANY_SOURCE: u32 = u32::MAX - 1;
/// `MPI_ANY_TAG` as a receive tag.
pub const ANY_TAG: i32 = i32::MIN;
/// No request (blocking operation).
pub const NO_REQ: u32 = u32::MAX;

/// What a [`ReplayOp`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OpKind {
    /// Nothing the replay needs (`MPI_Comm_rank`, an unsuccessful test, `MPI_Mrecv`).
    Nop,
    Finalize,
    /// `peer` = destination, `tag`, `sub` = [`SendMode`] as `u8`, `a` = request, `b` = bytes.
    Send,
    /// `peer` = source ([`ANY_SOURCE`]), `tag` ([`ANY_TAG`]), `a` = request, `b` = recorded
    /// source of a wildcard receive ([`NO_RANK`] if unknown).
    Recv,
    /// Send half as in [`OpKind::Send`]; `a` = request, `b` = offset in the aux table of
    /// `[source, tag, recorded source, bytes]` for the receive half.
    Sendrecv,
    /// A blocking probe: `peer` = source, `tag`.
    Probe,
    /// `a` = offset in the aux table of the request ids, `b` = their number; flag
    /// [`flags::WAIT_ANY`] for `MPI_Waitany`/`MPI_Waitsome`.
    Wait,
    /// `a` = offset in the aux table of the request ids, `b` = their number.
    Start,
    /// A single test that found requests complete (see the `polling` module): the program
    /// has them back, and their operations go on without anybody waiting. `a` = offset in
    /// the aux table of `b` pairs `[request, fresh request]`: the handle is the fresh
    /// request from here on, so a persistent request can start again while the replay has
    /// not yet matched its last instance.
    Release,
    /// `sub` = collective kind index, `peer` = root (communicator rank) or [`NO_RANK`],
    /// `a` = request, `b` = name id for [`CollectiveKind::Management`] calls.
    Collective,
    /// `b` = bytes.
    BufferAttach,
    BufferDetach,
    /// `a` = request.
    RequestFree,
    /// `a` = request.
    Cancel,
}

/// Bits of [`ReplayOp::flags`].
pub mod flags {
    /// The call returned in the trace.
    pub const RETURNED: u8 = 1;
    /// The trace shows the operation did not complete locally (a wait on it never
    /// returned): a standard send the library did not buffer, a collective that waited.
    pub const UNBUFFERED: u8 = 2;
    /// `MPI_Waitany`/`MPI_Waitsome`: any one completion suffices.
    pub const WAIT_ANY: u8 = 4;
}

/// Blocking classes in [`ReplayOp::class`].
pub mod class {
    pub const BLOCKING: u8 = 0;
    pub const NONBLOCKING: u8 = 1;
    /// `*_init`: creates an inactive persistent request.
    pub const PERSISTENT: u8 = 2;
}

/// One operation of one rank, compiled from one [`Event`] (24 bytes, so a million ranks
/// with 64 calls each fit in 1.5 GB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOp {
    pub kind: OpKind,
    pub flags: u8,
    pub class: u8,
    pub sub: u8,
    pub comm: u32,
    pub peer: u32,
    pub tag: i32,
    pub a: u32,
    pub b: u32,
}

impl ReplayOp {
    pub fn new(kind: OpKind) -> ReplayOp {
        ReplayOp {
            kind,
            flags: flags::RETURNED,
            class: class::BLOCKING,
            sub: 0,
            comm: 0,
            peer: NO_RANK,
            tag: 0,
            a: NO_REQ,
            b: 0,
        }
    }
}

/// How a rank's trace ends, as the replay needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    Finalized,
    Exited,
    /// Still running, killed or crashed: what it would have done next is unknown.
    Interrupted,
}

pub(crate) const SEND_MODES: [SendMode; 4] = [
    SendMode::Standard,
    SendMode::Synchronous,
    SendMode::Buffered,
    SendMode::Ready,
];

pub(crate) const COLLECTIVE_KINDS: [CollectiveKind; 23] = {
    use CollectiveKind::*;
    [
        Barrier,
        Bcast,
        Gather,
        Gatherv,
        Scatter,
        Scatterv,
        Allgather,
        Allgatherv,
        Alltoall,
        Alltoallv,
        Alltoallw,
        Reduce,
        Allreduce,
        ReduceScatter,
        ReduceScatterBlock,
        Scan,
        Exscan,
        NeighborAllgather,
        NeighborAllgatherv,
        NeighborAlltoall,
        NeighborAlltoallv,
        NeighborAlltoallw,
        Management,
    ]
};

pub(crate) fn kind_index(kind: CollectiveKind) -> u8 {
    COLLECTIVE_KINDS
        .iter()
        .position(|&k| k == kind)
        .unwrap_or(0) as u8
}

pub(crate) fn mode_index(mode: SendMode) -> u8 {
    SEND_MODES.iter().position(|&m| m == mode).unwrap_or(0) as u8
}

/// The members of a communicator with a fast world-rank → communicator-rank lookup.
#[derive(Clone, Debug)]
pub(crate) struct CommMembers {
    /// `None`: the identity over `size` ranks (`MPI_COMM_WORLD`).
    list: Option<Vec<Rank>>,
    index: FxMap<Rank, u32>,
    size: u32,
}

impl CommMembers {
    fn identity(size: u32) -> CommMembers {
        CommMembers {
            list: None,
            index: FxMap::default(),
            size,
        }
    }
    fn of(members: Vec<Rank>) -> CommMembers {
        let identity = members.iter().enumerate().all(|(i, &m)| i as u32 == m);
        if identity {
            return CommMembers::identity(members.len() as u32);
        }
        let index = members
            .iter()
            .enumerate()
            .map(|(i, &m)| (m, i as u32))
            .collect();
        CommMembers {
            size: members.len() as u32,
            list: Some(members),
            index,
        }
    }
    pub(crate) fn size(&self) -> u32 {
        self.size
    }
    pub(crate) fn comm_rank(&self, world: Rank) -> Option<u32> {
        match &self.list {
            None => (world < self.size).then_some(world),
            Some(_) => self.index.get(&world).copied(),
        }
    }
    pub(crate) fn member(&self, comm_rank: u32) -> Rank {
        match &self.list {
            None => comm_rank,
            Some(list) => list[comm_rank as usize],
        }
    }
    pub(crate) fn members(&self) -> impl Iterator<Item = Rank> + '_ {
        (0..self.size).map(move |i| self.member(i))
    }
}

/// A run compiled for replay: one [`ReplayOp`] per trace event (the event index of an
/// operation is its index within its rank), plus the tables they point into.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) ops: Vec<ReplayOp>,
    /// Index of each rank's first operation; `rank_start[n]` is the total.
    pub(crate) rank_start: Vec<usize>,
    pub(crate) aux: Vec<u32>,
    /// Per rank: one more than the largest request id used.
    pub(crate) req_count: Vec<u32>,
    pub(crate) ends: Vec<EndKind>,
    pub(crate) comms: Vec<CommMembers>,
    pub(crate) names: Vec<&'static str>,
}

impl Program {
    pub fn world_size(&self) -> u32 {
        self.ends.len() as u32
    }
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }
    /// The operations of one rank.
    pub fn rank_ops(&self, rank: Rank) -> &[ReplayOp] {
        let r = rank as usize;
        &self.ops[self.rank_start[r]..self.rank_start[r + 1]]
    }
    pub(crate) fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.comms.get(comm as usize)
    }

    /// Compiles a run. Each event becomes exactly one operation, so event indices carry over.
    pub fn from_run(run: &Run) -> Program {
        let mut b = ProgramBuilder::new(run.world_size());
        for info in run.comms.iter().skip(1) {
            let mut members = info.members.clone();
            if let Some(remote) = &info.remote {
                // Collectives on an intercommunicator involve both groups.
                members.extend(remote.iter().copied());
            }
            b.add_comm(members);
        }
        for trace in &run.ranks {
            b.begin_rank();
            let first = b.program.ops.len();
            // Request id → index of the operation that created it, to mark the sends and
            // collectives whose wait never returned.
            let mut origin: FxMap<u32, usize> = FxMap::default();
            let polls = polling::polls(&trace.events);
            let mut ids = RequestIds::new(&trace.events);
            for (event, poll) in trace.events.iter().zip(polls) {
                let op = compile_event(event, poll, &mut ids, run, &mut b);
                if matches!(
                    op.kind,
                    OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective
                ) && op.a != NO_REQ
                {
                    origin.insert(op.a, b.program.ops.len());
                }
                b.push(op);
            }
            for i in first..b.program.ops.len() {
                let op = b.program.ops[i];
                if op.kind != OpKind::Wait || op.flags & flags::RETURNED != 0 {
                    continue;
                }
                for k in 0..op.b {
                    let req = b.program.aux[(op.a + k) as usize];
                    if let Some(&o) = origin.get(&req) {
                        b.program.ops[o].flags |= flags::UNBUFFERED;
                    }
                }
            }
            b.end_rank(match trace.end {
                RankEnd::Finalized => EndKind::Finalized,
                RankEnd::ExitedWithoutFinalize => EndKind::Exited,
                RankEnd::Interrupted { .. } => EndKind::Interrupted,
            });
        }
        b.finish()
    }
}

fn blocking_parts(blocking: &Blocking, ids: &RequestIds) -> (u8, u32) {
    match blocking {
        Blocking::Blocking => (class::BLOCKING, NO_REQ),
        Blocking::Nonblocking(r) => (class::NONBLOCKING, ids.id(*r)),
        Blocking::Persistent(r) => (class::PERSISTENT, ids.id(*r)),
    }
}

/// The replay's request ids of one rank: the trace's, except for handles a single
/// successful test gave back ([`OpKind::Release`]), which name a fresh request from then on.
/// Fresh ids come after every id the rank's events use.
struct RequestIds {
    renamed: FxMap<u32, u32>,
    next_fresh: u32,
}

impl RequestIds {
    fn new(events: &[Event]) -> RequestIds {
        let next_fresh = events
            .iter()
            .flat_map(|e| event_requests(&e.op))
            .map(|r| r.0 + 1)
            .max()
            .unwrap_or(0);
        RequestIds {
            renamed: FxMap::default(),
            next_fresh,
        }
    }
    fn id(&self, r: ReqId) -> u32 {
        self.renamed.get(&r.0).copied().unwrap_or(r.0)
    }
    /// A request no event names (for a message a single probe let the program take).
    fn fresh(&mut self) -> u32 {
        self.next_fresh += 1;
        self.next_fresh - 1
    }
    /// Gives the handle a fresh request; returns `[old, new]`.
    fn rename(&mut self, r: ReqId) -> [u32; 2] {
        let old = self.id(r);
        let new = self.fresh();
        self.renamed.insert(r.0, new);
        [old, new]
    }
}

fn message_bytes(run: &Run, count: i64, datatype: Option<TypeId>) -> u32 {
    let size = datatype
        .and_then(|t| run.datatypes.get(t.0 as usize))
        .and_then(|d| d.size)
        .unwrap_or(1);
    (count.max(0) as u64)
        .saturating_mul(size)
        .min(u32::MAX as u64) as u32
}

fn source_word(source: Option<Source>) -> u32 {
    match source {
        None => NO_RANK,
        Some(Source::Any) => ANY_SOURCE,
        Some(Source::Rank(r)) => r,
    }
}

fn tag_word(tag: TagMatch) -> i32 {
    match tag {
        TagMatch::Any => ANY_TAG,
        TagMatch::Tag(t) => t,
    }
}

/// Every request an operation names.
fn event_requests(op: &Op) -> Vec<ReqId> {
    match op {
        Op::Send { blocking, .. }
        | Op::Recv { blocking, .. }
        | Op::Sendrecv { blocking, .. }
        | Op::Collective { blocking, .. } => match blocking {
            Blocking::Nonblocking(r) | Blocking::Persistent(r) => vec![*r],
            Blocking::Blocking => Vec::new(),
        },
        Op::Wait { requests, .. } | Op::RequestStatus { requests, .. } => {
            requests.iter().flatten().copied().collect()
        }
        Op::Start { requests } => requests.clone(),
        Op::Cancel { request } | Op::RequestFree { request } => vec![*request],
        _ => Vec::new(),
    }
}

/// Compiles one event; `poll` says whether a test or nonblocking probe that succeeded ended
/// a polling loop, and `ids` maps the rank's requests to the replay's.
fn compile_event(
    event: &Event,
    poll: Poll,
    ids: &mut RequestIds,
    run: &Run,
    b: &mut ProgramBuilder,
) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Nop);
    op.flags = if event.returned { flags::RETURNED } else { 0 };
    match &event.op {
        Op::Init { .. } | Op::Other => {}
        Op::Finalize => op.kind = OpKind::Finalize,
        Op::Send { send, blocking } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Send;
            op.peer = send.dest.unwrap_or(NO_RANK);
            op.tag = send.tag;
            op.comm = send.comm.0;
            op.sub = mode_index(send.mode);
            op.b = message_bytes(run, send.count, send.datatype);
        }
        Op::Recv { recv, blocking } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            if poll == Poll::ReceivesProbed {
                // Received only because a single probe found the message: nobody waits.
                op.class = class::NONBLOCKING;
                op.a = ids.fresh();
            }
            op.kind = OpKind::Recv;
            op.peer = source_word(recv.source);
            op.tag = tag_word(recv.tag);
            op.comm = recv.comm.0;
            op.b = recv.matched.map_or(NO_RANK, |m| m.0);
        }
        Op::Sendrecv {
            send,
            recv,
            blocking,
        } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Sendrecv;
            op.peer = send.dest.unwrap_or(NO_RANK);
            op.tag = send.tag;
            op.comm = send.comm.0;
            op.sub = mode_index(send.mode);
            op.b = b.push_aux(&[
                source_word(recv.source),
                tag_word(recv.tag) as u32,
                recv.matched.map_or(NO_RANK, |m| m.0),
                message_bytes(run, send.count, send.datatype),
            ]);
        }
        Op::Probe {
            source,
            tag,
            comm,
            blocking,
            matched_probe,
            found,
            matched,
        } => {
            // A nonblocking probe that found nothing is polling; one that found a message
            // at the end of a polling loop behaves like the blocking probe; a single one
            // that found a message waited for nothing, but a matched one still took the
            // message, as a receive nobody waits for.
            let took = *found == Some(true) && *matched_probe && poll == Poll::Once;
            if *blocking || poll == Poll::LoopEnd || took {
                op.kind = if *matched_probe {
                    OpKind::Recv
                } else {
                    OpKind::Probe
                };
                op.peer = source_word(*source);
                op.tag = tag_word(*tag);
                op.comm = comm.0;
                op.b = matched.map_or(NO_RANK, |m| m.0);
                if took {
                    op.class = class::NONBLOCKING;
                    op.a = ids.fresh();
                }
            }
        }
        Op::Wait {
            requests,
            kind,
            test: false,
            ..
        } => {
            let chosen: Vec<u32> = requests.iter().flatten().map(|&r| ids.id(r)).collect();
            if !chosen.is_empty() {
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen.len() as u32;
                op.a = b.push_aux(&chosen);
            }
        }
        Op::Wait {
            requests,
            kind,
            test: true,
            completed,
        }
        | Op::RequestStatus {
            requests,
            kind,
            completed,
        } => {
            // Only a test that ended a polling loop waited: for all its requests
            // (`Test`, `Testall`), or for any of them (`Testany`, `Testsome`). A single
            // one that succeeded gave the program back the requests it found complete.
            if poll == Poll::Once {
                let pairs: Vec<u32> = completed
                    .iter()
                    .flatten()
                    .filter_map(|&i| requests.get(i as usize).copied().flatten())
                    .flat_map(|r| ids.rename(r))
                    .collect();
                op.kind = OpKind::Release;
                op.b = pairs.len() as u32 / 2;
                op.a = b.push_aux(&pairs);
            } else if poll == Poll::LoopEnd {
                let chosen: Vec<u32> = requests.iter().flatten().map(|&r| ids.id(r)).collect();
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen.len() as u32;
                op.a = b.push_aux(&chosen);
            }
        }
        Op::Start { requests } => {
            let started: Vec<u32> = requests.iter().map(|&r| ids.id(r)).collect();
            op.kind = OpKind::Start;
            op.b = started.len() as u32;
            op.a = b.push_aux(&started);
        }
        Op::Cancel { request } => {
            op.kind = OpKind::Cancel;
            op.a = ids.id(*request);
        }
        Op::RequestFree { request } => {
            op.kind = OpKind::RequestFree;
            op.a = ids.id(*request);
        }
        Op::Collective {
            kind,
            comm,
            root,
            blocking,
        } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Collective;
            op.comm = comm.0;
            op.sub = kind_index(*kind);
            op.peer = root.and_then(|r| u32::try_from(r).ok()).unwrap_or(NO_RANK);
            if *kind == CollectiveKind::Management {
                op.b = b.name_id(event.call);
            }
        }
        Op::BufferAttach { bytes } => {
            op.kind = OpKind::BufferAttach;
            op.b = (*bytes).clamp(0, u32::MAX as i64) as u32;
        }
        Op::BufferDetach => op.kind = OpKind::BufferDetach,
    }
    op
}

/// Builds a [`Program`] rank by rank, for runs too large to hold as a [`Run`] (benchmarks)
/// and for [`Program::from_run`].
pub struct ProgramBuilder {
    program: Program,
    open: bool,
}

impl ProgramBuilder {
    /// Communicator 0 is `MPI_COMM_WORLD` over `world_size` ranks.
    pub fn new(world_size: u32) -> ProgramBuilder {
        ProgramBuilder {
            program: Program {
                ops: Vec::new(),
                rank_start: vec![0],
                aux: Vec::new(),
                req_count: Vec::with_capacity(world_size as usize),
                ends: Vec::with_capacity(world_size as usize),
                comms: vec![CommMembers::identity(world_size)],
                names: vec![""],
            },
            open: false,
        }
    }
    pub fn reserve_ops(&mut self, n: usize) {
        self.program.ops.reserve(n);
    }
    /// Adds a communicator (world ranks in communicator rank order) and returns its id.
    pub fn add_comm(&mut self, members: Vec<Rank>) -> CommId {
        self.program.comms.push(CommMembers::of(members));
        CommId(self.program.comms.len() as u32 - 1)
    }
    /// Starts the next rank (ranks are added in order 0, 1, ...).
    pub fn begin_rank(&mut self) {
        assert!(!self.open, "end_rank was not called");
        self.open = true;
    }
    pub fn push(&mut self, op: ReplayOp) {
        debug_assert!(self.open);
        self.program.ops.push(op);
    }
    /// Stores words in the aux table (request lists) and returns their offset.
    pub fn push_aux(&mut self, words: &[u32]) -> u32 {
        let at = self.program.aux.len() as u32;
        self.program.aux.extend_from_slice(words);
        at
    }
    fn name_id(&mut self, name: &'static str) -> u32 {
        if let Some(i) = self.program.names.iter().position(|&n| n == name) {
            return i as u32;
        }
        self.program.names.push(name);
        self.program.names.len() as u32 - 1
    }
    pub fn end_rank(&mut self, end: EndKind) {
        assert!(self.open, "begin_rank was not called");
        self.open = false;
        let start = *self.program.rank_start.last().unwrap_or(&0);
        let mut max_req: Option<u32> = None;
        let mut note = |r: u32| {
            if r != NO_REQ {
                max_req = Some(max_req.map_or(r, |m| m.max(r)));
            }
        };
        for op in &self.program.ops[start..] {
            match op.kind {
                OpKind::Send
                | OpKind::Recv
                | OpKind::Sendrecv
                | OpKind::Collective
                | OpKind::RequestFree
                | OpKind::Cancel => note(op.a),
                OpKind::Wait | OpKind::Start => {
                    for k in 0..op.b {
                        note(self.program.aux[(op.a + k) as usize]);
                    }
                }
                OpKind::Release => {
                    for k in 0..2 * op.b {
                        note(self.program.aux[(op.a + k) as usize]);
                    }
                }
                _ => {}
            }
        }
        self.program.req_count.push(max_req.map_or(0, |m| m + 1));
        self.program.ends.push(end);
        self.program.rank_start.push(self.program.ops.len());
    }
    pub fn finish(self) -> Program {
        assert!(!self.open, "end_rank was not called");
        assert!(
            self.program.ops.len() < u32::MAX as usize,
            "too many operations"
        );
        self.program
    }

    // Conveniences for generated programs.

    pub fn send(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn isend(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    pub fn recv(&mut self, source: Rank, tag: i32, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        self.push(op);
    }
    pub fn irecv(&mut self, source: Rank, tag: i32, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv(
        &mut self,
        dest: Rank,
        send_tag: i32,
        source: Rank,
        recv_tag: i32,
        bytes: u32,
        comm: CommId,
    ) {
        let mut op = ReplayOp::new(OpKind::Sendrecv);
        op.peer = dest;
        op.tag = send_tag;
        op.comm = comm.0;
        op.b = self.push_aux(&[source, recv_tag as u32, NO_RANK, bytes]);
        self.push(op);
    }
    pub fn waitall(&mut self, reqs: &[u32]) {
        let mut op = ReplayOp::new(OpKind::Wait);
        op.b = reqs.len() as u32;
        op.a = self.push_aux(reqs);
        self.push(op);
    }
    pub fn collective(&mut self, kind: CollectiveKind, root: Option<u32>, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Collective);
        op.sub = kind_index(kind);
        op.peer = root.unwrap_or(NO_RANK);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn finalize(&mut self) {
        self.push(ReplayOp::new(OpKind::Finalize));
    }
}

// ---------------------------------------------------------------------------------------
// Results.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Recorded,
    Strict,
}

/// Make one wildcard receive match a chosen source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForcedMatch {
    pub rank: Rank,
    /// Event index of the receive in its rank.
    pub event: usize,
    pub source: Rank,
}

#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub mode: Mode,
    pub forced: Option<ForcedMatch>,
}

impl ReplayOptions {
    pub fn new(mode: Mode) -> ReplayOptions {
        ReplayOptions { mode, forced: None }
    }
}

/// Where a rank ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankOutcome {
    /// Reached `MPI_Finalize` (or the end of a trace that says it finalized).
    Finalized,
    /// Reached the end of a trace that exited without `MPI_Finalize`.
    Exited,
    /// Cannot complete the call at this event index.
    Stuck { event: usize },
    /// Replayed all its events, but its trace was interrupted: what it would have done next
    /// is unknown, so it may still release others.
    Unfinished,
}

impl RankOutcome {
    pub fn terminated(self) -> bool {
        matches!(self, RankOutcome::Finalized | RankOutcome::Exited)
    }
}

/// What a blocked call waits for from its peers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitOn {
    /// A message (a receive or probe), with its tag (`None`: any tag).
    Message { comm: CommId, tag: Option<i32> },
    /// The receive matching a synchronous (or unbuffered) send.
    Receive { comm: CommId, tag: i32 },
    /// The peers' calls of a collective.
    Collective { comm: CommId, kind: CollectiveKind },
}

/// The condition under which a blocked call could complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitCond {
    /// One peer.
    Rank {
        rank: Rank,
        on: WaitOn,
    },
    /// Every one of these peers (a collective).
    Ranks {
        ranks: Arc<[Rank]>,
        on: WaitOn,
    },
    /// Any member of the communicator other than the waiting rank (`MPI_ANY_SOURCE`).
    AnySource {
        comm: CommId,
        on: WaitOn,
    },
    AllOf(Vec<WaitCond>),
    AnyOf(Vec<WaitCond>),
}

impl WaitCond {
    /// `true` when the condition needs all its parts (AND), `false` when any suffices (OR).
    pub fn is_and(&self) -> bool {
        match self {
            WaitCond::Rank { .. } | WaitCond::Ranks { .. } | WaitCond::AllOf(_) => true,
            WaitCond::AnySource { .. } | WaitCond::AnyOf(_) => false,
        }
    }

    /// Every peer the condition mentions (`self_rank` is left out of wildcards).
    pub(crate) fn for_each_rank(
        &self,
        program: &Program,
        self_rank: Rank,
        f: &mut dyn FnMut(Rank, &WaitOn),
    ) {
        match self {
            WaitCond::Rank { rank, on } => f(*rank, on),
            WaitCond::Ranks { ranks, on } => ranks.iter().for_each(|&r| f(r, on)),
            WaitCond::AnySource { comm, on } => {
                if let Some(members) = program.comm(comm.0) {
                    for m in members.members() {
                        if m != self_rank {
                            f(m, on)
                        }
                    }
                }
            }
            WaitCond::AllOf(parts) | WaitCond::AnyOf(parts) => {
                for p in parts {
                    p.for_each_rank(program, self_rank, f)
                }
            }
        }
    }

    /// Whether the condition holds when exactly the ranks with `able(rank)` can still act.
    pub(crate) fn holds(
        &self,
        program: &Program,
        self_rank: Rank,
        able: &dyn Fn(Rank) -> bool,
    ) -> bool {
        match self {
            WaitCond::Rank { rank, .. } => able(*rank),
            WaitCond::Ranks { ranks, .. } => ranks.iter().all(|&r| able(r)),
            WaitCond::AnySource { comm, .. } => program
                .comm(comm.0)
                .is_some_and(|m| m.members().any(|r| r != self_rank && able(r))),
            WaitCond::AllOf(parts) => parts.iter().all(|p| p.holds(program, self_rank, able)),
            WaitCond::AnyOf(parts) => parts.iter().any(|p| p.holds(program, self_rank, able)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckRank {
    pub rank: Rank,
    /// Event index of the call it cannot complete.
    pub event: usize,
    pub cond: WaitCond,
}

/// A wildcard receive that had matching messages from more than one source when it matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WildcardRace {
    pub rank: Rank,
    /// Event index of the receive.
    pub event: usize,
    /// The source it matched in this replay.
    pub matched: Rank,
    /// Every source with a matching message at that moment, with the event index of that
    /// message's send, sorted by source (includes the matched one).
    pub candidates: Vec<(Rank, usize)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// Operations executed.
    pub ops: u64,
    /// Point-to-point matches.
    pub matches: u64,
    /// Collective calls posted.
    pub collectives: u64,
}

#[derive(Clone, Debug)]
pub struct Replay {
    pub mode: Mode,
    /// Index = world rank.
    pub ranks: Vec<RankOutcome>,
    /// The stuck ranks, by rank.
    pub stuck: Vec<StuckRank>,
    pub races: Vec<WildcardRace>,
    /// With [`ReplayOptions::forced`]: whether the forced receive matched its source.
    pub forced_matched: Option<bool>,
    pub stats: ReplayStats,
}

impl Replay {
    /// Every rank got through all its calls.
    pub fn completed(&self) -> bool {
        self.stuck.is_empty()
    }
}

/// Replays a run.
pub fn replay(run: &Run, options: &ReplayOptions) -> Replay {
    replay_program(&Program::from_run(run), options)
}

/// Replays a compiled program.
pub fn replay_program(program: &Program, options: &ReplayOptions) -> Replay {
    let mut engine = Engine::new(program, options);
    engine.run();
    engine.finish()
}

// ---------------------------------------------------------------------------------------
// The engine.

// State 0 (the default): a request id the trace never started; waits treat it as complete.
const S_INACTIVE: u8 = 1;
const S_ACTIVE: u8 = 2;
const S_DONE: u8 = 3;

/// Parts of an operation a request still waits for.
const P_SEND: u8 = 1;
const P_RECV: u8 = 2;
const P_COLL: u8 = 4;

/// A request (or the hidden request of a blocking call).
#[derive(Clone, Copy, Default)]
struct Slot {
    state: u8,
    /// The owner is blocked in a call that waits for this request.
    waited: bool,
    /// `P_*` bits still outstanding.
    pend: u8,
    owner: u32,
    /// Global index of the operation (for persistent requests, the `*_init`).
    op: u32,
    /// Collective series and call ordinal.
    series: u32,
    ordinal: u32,
}

const R_READY: u8 = 0;
const R_BLOCKED: u8 = 1;
const R_FINALIZED: u8 = 2;
const R_EXITED: u8 = 3;
const R_UNFINISHED: u8 = 4;

#[derive(Clone, Copy, Default)]
struct RankState {
    pc: u32,
    status: u8,
    queued: bool,
    in_probe: bool,
    /// Completions still needed before the blocked call returns.
    pending: u32,
    buffer_capacity: u32,
    buffer_used: u32,
}

/// A message sent and not yet received.
#[derive(Clone, Copy)]
struct PendingSend {
    tag: i32,
    /// The sender's request, completed on matching when `sync`.
    slot: u32,
    op: u32,
    /// Buffer bytes to give back to the sender on matching.
    buffered: u32,
    sync: bool,
}

/// A receive posted and not yet matched.
#[derive(Clone, Copy)]
struct PostedRecv {
    tag: i32,
    slot: u32,
}

/// A receive held back behind an unresolved wildcard receive of the same rank.
#[derive(Clone, Copy)]
struct DeferredRecv {
    source: u32,
    tag: i32,
    /// Recorded (or forced) source of a wildcard receive.
    preferred: u32,
    forced: bool,
    slot: u32,
    op: u32,
}

/// The queues between one source and one destination on one communicator.
#[derive(Default)]
struct MatchQueue {
    sends: VecDeque<PendingSend>,
    recvs: VecDeque<PostedRecv>,
}

/// Above this many pending entries, a destination keeps one queue per source.
const FLAT_LIMIT: usize = 32;

/// The unmatched sends and posted receives addressed to one rank on one communicator.
/// Usually only a few are pending at a time, so one pair of queues tagged with the source
/// (scanned in order, which keeps the per-source order) is smaller and faster than a
/// queue per source; a destination with a large fan-in switches to per-source queues.
enum Queues {
    Flat {
        sends: VecDeque<(Rank, PendingSend)>,
        recvs: VecDeque<(Rank, PostedRecv)>,
    },
    BySource {
        queues: Vec<(Rank, MatchQueue)>,
        index: FxMap<Rank, u32>,
    },
}

/// Everything addressed to one rank on one communicator.
struct DestState {
    rank: Rank,
    queues: Queues,
    deferred: VecDeque<DeferredRecv>,
    listed: bool,
}

impl DestState {
    fn new(rank: Rank) -> DestState {
        DestState {
            rank,
            queues: Queues::Flat {
                sends: VecDeque::new(),
                recvs: VecDeque::new(),
            },
            deferred: VecDeque::new(),
            listed: false,
        }
    }

    fn source_queue(&mut self, source: Rank) -> &mut MatchQueue {
        let Queues::BySource { queues, index } = &mut self.queues else {
            unreachable!("only called in per-source mode")
        };
        let i = *index.entry(source).or_insert_with(|| {
            queues.push((source, MatchQueue::default()));
            queues.len() as u32 - 1
        });
        &mut queues[i as usize].1
    }

    fn maybe_split(&mut self) {
        let Queues::Flat { sends, recvs } = &mut self.queues else {
            return;
        };
        if sends.len() + recvs.len() <= FLAT_LIMIT {
            return;
        }
        let sends = std::mem::take(sends);
        let recvs = std::mem::take(recvs);
        self.queues = Queues::BySource {
            queues: Vec::new(),
            index: FxMap::default(),
        };
        for (s, m) in sends {
            self.source_queue(s).sends.push_back(m);
        }
        for (s, r) in recvs {
            self.source_queue(s).recvs.push_back(r);
        }
    }

    /// Removes the first posted receive from `source` that accepts `tag` (skipping
    /// cancelled ones).
    fn take_recv(
        &mut self,
        source: Rank,
        tag: i32,
        live: impl Fn(u32) -> bool,
    ) -> Option<PostedRecv> {
        match &mut self.queues {
            Queues::Flat { recvs, .. } => {
                let i = recvs
                    .iter()
                    .position(|(s, r)| *s == source && tag_matches(r.tag, tag) && live(r.slot))?;
                recvs.remove(i).map(|(_, r)| r)
            }
            Queues::BySource { .. } => {
                let q = self.source_queue(source);
                let i = q
                    .recvs
                    .iter()
                    .position(|r| tag_matches(r.tag, tag) && live(r.slot))?;
                q.recvs.remove(i)
            }
        }
    }

    /// Removes the first unmatched send from `source` that `tag` accepts.
    fn take_send(&mut self, source: Rank, tag: i32) -> Option<PendingSend> {
        match &mut self.queues {
            Queues::Flat { sends, .. } => {
                let i = sends
                    .iter()
                    .position(|(s, m)| *s == source && tag_matches(tag, m.tag))?;
                sends.remove(i).map(|(_, m)| m)
            }
            Queues::BySource { .. } => {
                let q = self.source_queue(source);
                let i = q.sends.iter().position(|m| tag_matches(tag, m.tag))?;
                q.sends.remove(i)
            }
        }
    }

    fn push_send(&mut self, source: Rank, send: PendingSend) {
        match &mut self.queues {
            Queues::Flat { sends, .. } => sends.push_back((source, send)),
            Queues::BySource { .. } => self.source_queue(source).sends.push_back(send),
        }
        self.maybe_split();
    }

    fn push_recv(&mut self, source: Rank, recv: PostedRecv) {
        match &mut self.queues {
            Queues::Flat { recvs, .. } => recvs.push_back((source, recv)),
            Queues::BySource { .. } => self.source_queue(source).recvs.push_back(recv),
        }
        self.maybe_split();
    }

    /// The first unmatched send `tag` accepts from each source (`source` may be
    /// [`ANY_SOURCE`]), sorted by source: `(source, op of the send)`.
    fn candidates(&self, source: u32, tag: i32) -> Vec<(Rank, u32)> {
        let mut out: Vec<(Rank, u32)> = Vec::new();
        match &self.queues {
            Queues::Flat { sends, .. } => {
                for (s, m) in sends {
                    if (source == ANY_SOURCE || source == *s)
                        && tag_matches(tag, m.tag)
                        && !out.iter().any(|c| c.0 == *s)
                    {
                        out.push((*s, m.op));
                    }
                }
            }
            Queues::BySource { queues, .. } => {
                for (s, q) in queues {
                    if source != ANY_SOURCE && source != *s {
                        continue;
                    }
                    if let Some(m) = q.sends.iter().find(|m| tag_matches(tag, m.tag)) {
                        out.push((*s, m.op));
                    }
                }
            }
        }
        out.sort_unstable_by_key(|c| c.0);
        out
    }

    fn has_send(&self, source: u32, tag: i32) -> bool {
        match &self.queues {
            Queues::Flat { sends, .. } => sends
                .iter()
                .any(|(s, m)| (source == ANY_SOURCE || source == *s) && tag_matches(tag, m.tag)),
            Queues::BySource { queues, index } => {
                let has = |q: &MatchQueue| q.sends.iter().any(|m| tag_matches(tag, m.tag));
                if source == ANY_SOURCE {
                    queues.iter().any(|(_, q)| has(q))
                } else {
                    index
                        .get(&source)
                        .is_some_and(|&i| has(&queues[i as usize].1))
                }
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SeriesKey {
    comm: u32,
    class: u8,
    kind: u8,
    root: u32,
    name: u32,
}

/// What one rank needs before its part of a collective completes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Need {
    Nothing,
    All,
    Root(u32),
    /// All communicator ranks below this one.
    Prefix(u32),
}

#[derive(Default)]
struct Instance {
    arrived: u32,
    /// Communicator ranks `0..prefix` have all arrived (scans only).
    prefix: u32,
    wait_all: Vec<u32>,
    wait_root: Vec<u32>,
    wait_prefix: BinaryHeap<Reverse<(u32, u32)>>,
}

/// The calls of one collective operation (same communicator, kind, root, class) in order.
struct Series {
    key: SeriesKey,
    size: u32,
    /// Per communicator rank: how many calls of this series it has made.
    next: Vec<u32>,
    instances: Vec<Instance>,
}

struct Engine<'p> {
    p: &'p Program,
    mode: Mode,
    forced: Option<ForcedMatch>,
    forced_matched: Option<bool>,
    ranks: Vec<RankState>,
    slot_base: Vec<u32>,
    slots: Vec<Slot>,
    runq: VecDeque<u32>,
    dests: Vec<DestState>,
    dest_ids: FxMap<(u32, Rank), u32>,
    wild_heads: Vec<u32>,
    series: Vec<Series>,
    series_ids: FxMap<SeriesKey, u32>,
    races: Vec<WildcardRace>,
    stats: ReplayStats,
}

#[derive(PartialEq, Eq)]
enum Step {
    Next,
    Block,
    Stop,
}

#[inline]
fn tag_matches(recv_tag: i32, send_tag: i32) -> bool {
    recv_tag == ANY_TAG || recv_tag == send_tag
}

impl<'p> Engine<'p> {
    fn new(p: &'p Program, options: &ReplayOptions) -> Engine<'p> {
        let n = p.world_size() as usize;
        let mut slot_base = Vec::with_capacity(n + 1);
        let mut total: u64 = 0;
        for r in 0..n {
            slot_base.push(total as u32);
            // Two hidden slots: the request of a blocking call, and a spare.
            total += p.req_count[r] as u64 + 2;
        }
        assert!(total < u32::MAX as u64, "too many requests");
        slot_base.push(total as u32);
        let mut slots = vec![Slot::default(); total as usize];
        for r in 0..n {
            for s in slot_base[r]..slot_base[r + 1] {
                slots[s as usize].owner = r as u32;
            }
        }
        // World destinations are indexed by rank directly; other communicators get ids.
        let dests = (0..n as u32).map(DestState::new).collect();
        Engine {
            p,
            mode: options.mode,
            forced: options.forced,
            forced_matched: options.forced.map(|_| false),
            ranks: vec![RankState::default(); n],
            slot_base,
            slots,
            runq: VecDeque::new(),
            dests,
            dest_ids: FxMap::default(),
            wild_heads: Vec::new(),
            series: Vec::new(),
            series_ids: FxMap::default(),
            races: Vec::new(),
            stats: ReplayStats::default(),
        }
    }

    fn dest_id(&mut self, comm: u32, rank: Rank) -> usize {
        if comm == 0 {
            return rank as usize;
        }
        let next = self.dests.len() as u32;
        let id = *self.dest_ids.entry((comm, rank)).or_insert(next);
        if id == next {
            self.dests.push(DestState::new(rank));
        }
        id as usize
    }

    fn enqueue(&mut self, rank: u32) {
        let st = &mut self.ranks[rank as usize];
        if !st.queued {
            st.queued = true;
            self.runq.push_back(rank);
        }
    }

    fn run(&mut self) {
        for r in 0..self.p.world_size() {
            self.enqueue(r);
        }
        loop {
            while let Some(r) = self.runq.pop_front() {
                self.ranks[r as usize].queued = false;
                self.run_rank(r);
            }
            if !self.resolve_wildcards() {
                break;
            }
        }
    }

    fn hidden_slot(&self, rank: u32) -> u32 {
        self.slot_base[rank as usize] + self.p.req_count[rank as usize]
    }

    fn req_slot(&self, rank: u32, req: u32) -> Option<u32> {
        (req < self.p.req_count[rank as usize]).then(|| self.slot_base[rank as usize] + req)
    }

    fn activate(&mut self, slot: u32, op: u32, pend: u8) {
        let s = &mut self.slots[slot as usize];
        s.state = S_ACTIVE;
        s.waited = false;
        s.pend = pend;
        s.op = op;
    }

    /// One part of a request completed.
    fn part_done(&mut self, slot: u32, part: u8) {
        let s = &mut self.slots[slot as usize];
        if s.pend & part == 0 {
            return;
        }
        s.pend &= !part;
        if s.pend != 0 {
            return;
        }
        s.state = S_DONE;
        if s.waited {
            s.waited = false;
            let owner = s.owner;
            let st = &mut self.ranks[owner as usize];
            if st.pending > 0 {
                st.pending -= 1;
                if st.pending == 0 {
                    self.enqueue(owner);
                }
            }
        }
    }

    fn run_rank(&mut self, r: u32) {
        let base = self.p.rank_start[r as usize];
        let len = self.p.rank_start[r as usize + 1] - base;
        match self.ranks[r as usize].status {
            R_READY => {}
            R_BLOCKED => {
                if self.ranks[r as usize].pending > 0 {
                    return;
                }
                self.resume(r, base);
            }
            _ => return,
        }
        loop {
            let pc = self.ranks[r as usize].pc as usize;
            if pc >= len {
                self.ranks[r as usize].status = match self.p.ends[r as usize] {
                    EndKind::Finalized => R_FINALIZED,
                    EndKind::Exited => R_EXITED,
                    EndKind::Interrupted => R_UNFINISHED,
                };
                return;
            }
            let gop = base + pc;
            let op = self.p.ops[gop];
            self.stats.ops += 1;
            match self.exec(r, gop as u32, op) {
                Step::Next => self.ranks[r as usize].pc += 1,
                Step::Block => {
                    self.ranks[r as usize].status = R_BLOCKED;
                    return;
                }
                Step::Stop => return,
            }
        }
    }

    /// The blocked call's condition holds: finish it and move on.
    fn resume(&mut self, r: u32, base: usize) {
        let pc = self.ranks[r as usize].pc as usize;
        let op = self.p.ops[base + pc];
        if op.kind == OpKind::Wait {
            for k in 0..op.b {
                let req = self.p.aux[(op.a + k) as usize];
                if let Some(s) = self.req_slot(r, req) {
                    self.slots[s as usize].waited = false;
                }
            }
        }
        let st = &mut self.ranks[r as usize];
        st.in_probe = false;
        st.status = R_READY;
        st.pc += 1;
    }

    /// Blocks on one request unless it is complete.
    fn block_on(&mut self, r: u32, slot: u32) -> Step {
        let s = &mut self.slots[slot as usize];
        if s.state != S_ACTIVE {
            return Step::Next;
        }
        s.waited = true;
        self.ranks[r as usize].pending = 1;
        Step::Block
    }

    fn exec(&mut self, r: u32, gop: u32, op: ReplayOp) -> Step {
        match op.kind {
            OpKind::Nop | OpKind::BufferDetach | OpKind::RequestFree => Step::Next,
            OpKind::Finalize => {
                self.ranks[r as usize].status = R_FINALIZED;
                Step::Stop
            }
            OpKind::BufferAttach => {
                self.ranks[r as usize].buffer_capacity = op.b;
                Step::Next
            }
            OpKind::Cancel => {
                if let Some(s) = self.req_slot(r, op.a) {
                    // Lazily removed from the queues: matching skips slots not expecting it.
                    let slot = &mut self.slots[s as usize];
                    if slot.state == S_ACTIVE {
                        slot.pend = 0;
                        slot.state = S_DONE;
                    }
                }
                Step::Next
            }
            OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective => match op.class {
                class::BLOCKING => {
                    let slot = self.hidden_slot(r);
                    self.start(r, gop, op, slot);
                    self.block_on(r, slot)
                }
                class::NONBLOCKING => {
                    if let Some(slot) = self.req_slot(r, op.a) {
                        self.start(r, gop, op, slot);
                    }
                    Step::Next
                }
                _ => {
                    if let Some(slot) = self.req_slot(r, op.a) {
                        let s = &mut self.slots[slot as usize];
                        s.state = S_INACTIVE;
                        s.op = gop;
                        s.pend = 0;
                    }
                    Step::Next
                }
            },
            OpKind::Release => {
                for k in 0..op.b {
                    let at = (op.a + 2 * k) as usize;
                    let [old, new] = [self.p.aux[at], self.p.aux[at + 1]];
                    let (Some(old), Some(new)) = (self.req_slot(r, old), self.req_slot(r, new))
                    else {
                        continue;
                    };
                    // The old slot's operation goes on matching; the handle's new slot
                    // is complete, or inactive for a persistent request not started.
                    let handle = self.slots[old as usize];
                    let slot = &mut self.slots[new as usize];
                    slot.op = handle.op;
                    slot.state = if handle.state == S_INACTIVE {
                        S_INACTIVE
                    } else {
                        S_DONE
                    };
                    slot.pend = 0;
                    slot.waited = false;
                }
                Step::Next
            }
            OpKind::Start => {
                for k in 0..op.b {
                    let req = self.p.aux[(op.a + k) as usize];
                    let Some(slot) = self.req_slot(r, req) else {
                        continue;
                    };
                    let s = self.slots[slot as usize];
                    if s.state == S_INACTIVE || s.state == S_DONE {
                        let template = self.p.ops[s.op as usize];
                        self.start(r, s.op, template, slot);
                    }
                }
                Step::Next
            }
            OpKind::Probe => {
                if op.peer == NO_RANK || self.probe_ready(r, &op) {
                    return Step::Next;
                }
                let st = &mut self.ranks[r as usize];
                st.in_probe = true;
                st.pending = 1;
                Step::Block
            }
            OpKind::Wait => {
                let any = op.flags & flags::WAIT_ANY != 0;
                // Counts distinct requests: an array may name one request twice (erroneous,
                // but it must not leave the wait pending forever).
                let mut incomplete = 0;
                let mut some_done = false;
                for k in 0..op.b {
                    let req = self.p.aux[(op.a + k) as usize];
                    match self.req_slot(r, req) {
                        Some(s) if self.slots[s as usize].state == S_ACTIVE => {
                            let slot = &mut self.slots[s as usize];
                            if !slot.waited {
                                slot.waited = true;
                                incomplete += 1;
                            }
                        }
                        _ => some_done = true,
                    }
                }
                if incomplete == 0 || (any && some_done) {
                    for k in 0..op.b {
                        let req = self.p.aux[(op.a + k) as usize];
                        if let Some(s) = self.req_slot(r, req) {
                            self.slots[s as usize].waited = false;
                        }
                    }
                    return Step::Next;
                }
                self.ranks[r as usize].pending = if any { 1 } else { incomplete };
                Step::Block
            }
        }
    }

    /// Starts a communication operation on a request slot.
    fn start(&mut self, r: u32, gop: u32, op: ReplayOp, slot: u32) {
        match op.kind {
            OpKind::Send => {
                self.activate(slot, gop, P_SEND);
                self.post_send(r, gop, &op, op.sub, op.b, slot);
            }
            OpKind::Recv => {
                self.activate(slot, gop, P_RECV);
                self.post_recv(r, gop, op.comm, op.peer, op.tag, op.b, slot);
            }
            OpKind::Sendrecv => {
                self.activate(slot, gop, P_SEND | P_RECV);
                let aux = &self.p.aux[op.b as usize..op.b as usize + 4];
                let (source, tag, preferred, bytes) = (aux[0], aux[1] as i32, aux[2], aux[3]);
                self.post_send(r, gop, &op, op.sub, bytes, slot);
                self.post_recv(r, gop, op.comm, source, tag, preferred, slot);
            }
            OpKind::Collective => {
                self.activate(slot, gop, P_COLL);
                self.post_collective(r, &op, slot);
            }
            _ => {}
        }
    }

    fn post_send(&mut self, r: u32, gop: u32, op: &ReplayOp, mode: u8, bytes: u32, slot: u32) {
        let dest = op.peer;
        if dest == NO_RANK || dest >= self.p.world_size() {
            self.part_done(slot, P_SEND);
            return;
        }
        let mode = SEND_MODES[mode as usize & 3];
        let returned = op.flags & flags::RETURNED != 0;
        let unbuffered = op.flags & flags::UNBUFFERED != 0
            || (op.class == class::BLOCKING && !returned && op.kind == OpKind::Send);
        let mut buffered = 0;
        let sync = match self.mode {
            Mode::Recorded => match mode {
                SendMode::Synchronous => true,
                SendMode::Buffered => false,
                SendMode::Standard | SendMode::Ready => unbuffered,
            },
            Mode::Strict => match mode {
                SendMode::Buffered => {
                    let st = &mut self.ranks[r as usize];
                    if st.buffer_capacity.saturating_sub(st.buffer_used) >= bytes {
                        st.buffer_used += bytes;
                        buffered = bytes;
                        false
                    } else {
                        true
                    }
                }
                _ => true,
            },
        };
        if !sync {
            self.part_done(slot, P_SEND);
        }
        let did = self.dest_id(op.comm, dest);
        let slots = &self.slots;
        let send = PendingSend {
            tag: op.tag,
            slot,
            op: gop,
            buffered,
            sync,
        };
        let ds = &mut self.dests[did];
        if let Some(recv) = ds.take_recv(r, op.tag, |s| slots[s as usize].pend & P_RECV != 0) {
            self.matched(r, send, recv.slot);
            return;
        }
        ds.push_send(r, send);
        // A rank blocked in a probe may be waiting for exactly this message.
        let d = &self.ranks[dest as usize];
        if d.status == R_BLOCKED && d.in_probe {
            let dbase = self.p.rank_start[dest as usize];
            let probe = self.p.ops[dbase + d.pc as usize];
            if probe.comm == op.comm
                && (probe.peer == ANY_SOURCE || probe.peer == r)
                && tag_matches(probe.tag, op.tag)
            {
                self.ranks[dest as usize].pending = 0;
                self.enqueue(dest);
            }
        }
    }

    fn matched(&mut self, source: Rank, send: PendingSend, recv_slot: u32) {
        self.stats.matches += 1;
        self.part_done(recv_slot, P_RECV);
        if send.sync {
            self.part_done(send.slot, P_SEND);
        }
        if send.buffered > 0 {
            let st = &mut self.ranks[source as usize];
            st.buffer_used = st.buffer_used.saturating_sub(send.buffered);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn post_recv(
        &mut self,
        r: u32,
        gop: u32,
        comm: u32,
        source: u32,
        tag: i32,
        recorded: u32,
        slot: u32,
    ) {
        if source == NO_RANK {
            self.part_done(slot, P_RECV);
            return;
        }
        let did = self.dest_id(comm, r);
        let mut preferred = recorded;
        let mut forced = false;
        if let Some(f) = self.forced {
            if f.rank == r && gop as usize == self.p.rank_start[r as usize] + f.event {
                preferred = f.source;
                forced = true;
            }
        }
        let ds = &mut self.dests[did];
        if source == ANY_SOURCE || !ds.deferred.is_empty() {
            ds.deferred.push_back(DeferredRecv {
                source,
                tag,
                preferred,
                forced,
                slot,
                op: gop,
            });
            if !ds.listed {
                ds.listed = true;
                self.wild_heads.push(did as u32);
            }
            return;
        }
        self.post_specific(did, source, tag, slot);
    }

    fn post_specific(&mut self, did: usize, source: Rank, tag: i32, slot: u32) {
        let ds = &mut self.dests[did];
        if let Some(send) = ds.take_send(source, tag) {
            self.matched(source, send, slot);
        } else {
            ds.push_recv(source, PostedRecv { tag, slot });
        }
    }

    fn probe_ready(&mut self, r: u32, op: &ReplayOp) -> bool {
        let did = self.dest_id(op.comm, r);
        self.dests[did].has_send(op.peer, op.tag)
    }

    /// At quiescence: match the first held-back wildcard receive of every destination.
    fn resolve_wildcards(&mut self) -> bool {
        let heads = std::mem::take(&mut self.wild_heads);
        let mut progressed = false;
        for &did in &heads {
            if self.resolve_head(did as usize) {
                progressed = true;
            }
        }
        for did in heads {
            let ds = &mut self.dests[did as usize];
            if ds.deferred.is_empty() {
                ds.listed = false;
            } else {
                self.wild_heads.push(did);
            }
        }
        progressed
    }

    fn resolve_head(&mut self, did: usize) -> bool {
        let Some(head) = self.dests[did].deferred.front().copied() else {
            return false;
        };
        if self.slots[head.slot as usize].pend & P_RECV == 0 {
            // Cancelled.
            self.dests[did].deferred.pop_front();
            self.drain_deferred(did);
            return true;
        }
        let dest = self.dests[did].rank;
        let candidates = self.dests[did].candidates(head.source, head.tag);
        let preferred = candidates.iter().find(|c| c.0 == head.preferred).copied();
        let choice = if head.forced || (self.mode == Mode::Recorded && head.preferred != NO_RANK) {
            // Forced, or replaying what happened: only the chosen source will do.
            preferred
        } else {
            preferred.or(candidates.first().copied())
        };
        let Some((source, _)) = choice else {
            return false;
        };
        if candidates.len() > 1 {
            let start_of = |rank: Rank| self.p.rank_start[rank as usize];
            self.races.push(WildcardRace {
                rank: dest,
                event: head.op as usize - start_of(dest),
                matched: source,
                candidates: candidates
                    .iter()
                    .map(|&(s, op)| (s, op as usize - start_of(s)))
                    .collect(),
            });
        }
        if head.forced {
            self.forced_matched = Some(true);
        }
        let send = self.dests[did]
            .take_send(source, head.tag)
            .expect("the candidate is pending");
        self.dests[did].deferred.pop_front();
        self.matched(source, send, head.slot);
        self.drain_deferred(did);
        true
    }

    /// Posts the receives queued behind a resolved wildcard, up to the next wildcard.
    fn drain_deferred(&mut self, did: usize) {
        while let Some(front) = self.dests[did].deferred.front().copied() {
            if front.source == ANY_SOURCE {
                break;
            }
            self.dests[did].deferred.pop_front();
            if self.slots[front.slot as usize].pend & P_RECV != 0 {
                self.post_specific(did, front.source, front.tag, front.slot);
            }
        }
    }

    fn need(&self, op: &ReplayOp, comm_rank: u32, size: u32) -> Need {
        let returned = op.flags & flags::RETURNED != 0 && op.flags & flags::UNBUFFERED == 0;
        if self.mode == Mode::Strict || !returned {
            return Need::All;
        }
        use CollectiveKind::*;
        let kind = COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()];
        let root = (op.peer < size).then_some(op.peer);
        match (kind, root) {
            (Bcast | Scatter | Scatterv, Some(root)) => {
                if root == comm_rank {
                    Need::Nothing
                } else {
                    Need::Root(root)
                }
            }
            (Gather | Gatherv | Reduce, Some(root)) => {
                if root == comm_rank {
                    Need::All
                } else {
                    Need::Nothing
                }
            }
            (Scan, _) => Need::Prefix(comm_rank + 1),
            (Exscan, _) => Need::Prefix(comm_rank),
            _ => Need::All,
        }
    }

    fn post_collective(&mut self, r: u32, op: &ReplayOp, slot: u32) {
        self.stats.collectives += 1;
        let Some(members) = self.p.comm(op.comm) else {
            self.part_done(slot, P_COLL);
            return;
        };
        let Some(cr) = members.comm_rank(r) else {
            self.part_done(slot, P_COLL);
            return;
        };
        let size = members.size();
        let key = SeriesKey {
            comm: op.comm,
            class: op.class.min(class::PERSISTENT),
            kind: op.sub,
            root: op.peer,
            name: op.b,
        };
        let next_id = self.series.len() as u32;
        let sid = *self.series_ids.entry(key).or_insert(next_id);
        if sid == next_id {
            self.series.push(Series {
                key,
                size,
                next: vec![0; size as usize],
                instances: Vec::new(),
            });
        }
        let need = self.need(op, cr, size);
        let is_scan = matches!(
            COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()],
            CollectiveKind::Scan | CollectiveKind::Exscan
        );
        let series = &mut self.series[sid as usize];
        let ordinal = series.next[cr as usize];
        series.next[cr as usize] += 1;
        while series.instances.len() <= ordinal as usize {
            series.instances.push(Instance::default());
        }
        {
            let s = &mut self.slots[slot as usize];
            s.series = sid;
            s.ordinal = ordinal;
        }
        let inst = &mut series.instances[ordinal as usize];
        inst.arrived += 1;
        let mut wake: Vec<u32> = Vec::new();
        if inst.arrived == size {
            wake.append(&mut inst.wait_all);
            wake.append(&mut inst.wait_root);
            wake.extend(inst.wait_prefix.drain().map(|Reverse((_, s))| s));
            inst.prefix = size;
        } else {
            if key.root == cr {
                wake.append(&mut inst.wait_root);
            }
            if is_scan {
                while inst.prefix < size && series.next[inst.prefix as usize] > ordinal {
                    inst.prefix += 1;
                }
                while let Some(Reverse((t, s))) = inst.wait_prefix.peek().copied() {
                    if t > inst.prefix {
                        break;
                    }
                    inst.wait_prefix.pop();
                    wake.push(s);
                }
            }
        }
        let satisfied = match need {
            Need::Nothing => true,
            Need::All => inst.arrived == size,
            Need::Root(root) => series.next[root as usize] > ordinal,
            Need::Prefix(t) => inst.prefix >= t,
        };
        if satisfied {
            wake.push(slot);
        } else {
            match need {
                Need::Root(_) => inst.wait_root.push(slot),
                Need::Prefix(t) => inst.wait_prefix.push(Reverse((t, slot))),
                _ => inst.wait_all.push(slot),
            }
        }
        for s in wake {
            self.part_done(s, P_COLL);
        }
    }

    // ----- results

    fn finish(mut self) -> Replay {
        let n = self.p.world_size();
        let mut ranks = Vec::with_capacity(n as usize);
        let mut stuck = Vec::new();
        let mut missing_cache: FxMap<(u32, u32), Arc<[Rank]>> = FxMap::default();
        for r in 0..n {
            let st = self.ranks[r as usize];
            ranks.push(match st.status {
                R_FINALIZED => RankOutcome::Finalized,
                R_EXITED => RankOutcome::Exited,
                R_UNFINISHED => RankOutcome::Unfinished,
                _ => {
                    let cond = self.rank_cond(r, &mut missing_cache);
                    stuck.push(StuckRank {
                        rank: r,
                        event: st.pc as usize,
                        cond,
                    });
                    RankOutcome::Stuck {
                        event: st.pc as usize,
                    }
                }
            });
        }
        Replay {
            mode: self.mode,
            ranks,
            stuck,
            races: std::mem::take(&mut self.races),
            forced_matched: self.forced_matched,
            stats: self.stats,
        }
    }

    fn rank_cond(&self, r: u32, cache: &mut FxMap<(u32, u32), Arc<[Rank]>>) -> WaitCond {
        let base = self.p.rank_start[r as usize];
        let pc = self.ranks[r as usize].pc as usize;
        let op = self.p.ops[base + pc];
        match op.kind {
            OpKind::Probe => self.recv_cond(r, op.comm, op.peer, op.tag, NO_RANK, false),
            OpKind::Wait => {
                let mut parts = Vec::new();
                for k in 0..op.b {
                    let req = self.p.aux[(op.a + k) as usize];
                    if let Some(s) = self.req_slot(r, req) {
                        if self.slots[s as usize].state == S_ACTIVE {
                            parts.push(self.slot_cond(r, s, cache));
                        }
                    }
                }
                if parts.len() == 1 {
                    parts.pop().expect("one part")
                } else if op.flags & flags::WAIT_ANY != 0 {
                    WaitCond::AnyOf(parts)
                } else {
                    WaitCond::AllOf(parts)
                }
            }
            _ => self.slot_cond(r, self.hidden_slot(r), cache),
        }
    }

    fn recv_cond(
        &self,
        r: u32,
        comm: u32,
        source: u32,
        tag: i32,
        preferred: u32,
        forced: bool,
    ) -> WaitCond {
        let on = WaitOn::Message {
            comm: CommId(comm),
            tag: (tag != ANY_TAG).then_some(tag),
        };
        let _ = r;
        if source == ANY_SOURCE {
            if preferred != NO_RANK && (forced || self.mode == Mode::Recorded) {
                WaitCond::Rank {
                    rank: preferred,
                    on,
                }
            } else {
                WaitCond::AnySource {
                    comm: CommId(comm),
                    on,
                }
            }
        } else {
            WaitCond::Rank { rank: source, on }
        }
    }

    fn slot_cond(&self, r: u32, slot: u32, cache: &mut FxMap<(u32, u32), Arc<[Rank]>>) -> WaitCond {
        let s = self.slots[slot as usize];
        let op = self.p.ops[s.op as usize];
        let mut parts = Vec::new();
        if s.pend & P_SEND != 0 {
            parts.push(WaitCond::Rank {
                rank: op.peer,
                on: WaitOn::Receive {
                    comm: CommId(op.comm),
                    tag: op.tag,
                },
            });
        }
        if s.pend & P_RECV != 0 {
            let (source, tag, recorded) = if op.kind == OpKind::Sendrecv {
                let aux = &self.p.aux[op.b as usize..op.b as usize + 3];
                (aux[0], aux[1] as i32, aux[2])
            } else {
                (op.peer, op.tag, op.b)
            };
            let forced = self.forced.is_some_and(|f| {
                f.rank == r && s.op as usize == self.p.rank_start[r as usize] + f.event
            });
            let preferred = if forced {
                self.forced.map_or(NO_RANK, |f| f.source)
            } else {
                recorded
            };
            parts.push(self.recv_cond(r, op.comm, source, tag, preferred, forced));
        }
        if s.pend & P_COLL != 0 {
            parts.push(self.collective_cond(r, &op, s.series, s.ordinal, cache));
        }
        if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            WaitCond::AllOf(parts)
        }
    }

    fn collective_cond(
        &self,
        r: u32,
        op: &ReplayOp,
        sid: u32,
        ordinal: u32,
        cache: &mut FxMap<(u32, u32), Arc<[Rank]>>,
    ) -> WaitCond {
        let series = &self.series[sid as usize];
        let members = self
            .p
            .comm(series.key.comm)
            .expect("posted on a known comm");
        let kind = COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()];
        let on = WaitOn::Collective {
            comm: CommId(series.key.comm),
            kind,
        };
        let cr = members.comm_rank(r).unwrap_or(0);
        let arrived = |m: u32| series.next[m as usize] > ordinal;
        let ranks: Arc<[Rank]> = match self.need(op, cr, series.size) {
            Need::Root(root) => (!arrived(root))
                .then(|| members.member(root))
                .into_iter()
                .collect(),
            Need::Prefix(t) => (0..t)
                .filter(|&m| !arrived(m))
                .map(|m| members.member(m))
                .collect(),
            _ => cache
                .entry((sid, ordinal))
                .or_insert_with(|| {
                    (0..series.size)
                        .filter(|&m| !arrived(m))
                        .map(|m| members.member(m))
                        .collect()
                })
                .clone(),
        };
        WaitCond::Ranks { ranks, on }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_op_is_compact() {
        assert_eq!(std::mem::size_of::<ReplayOp>(), 24);
    }
}
