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
//! The replay pulls 24-byte operations (one per trace event) from an [`OpSource`], one rank
//! at a time and only when that rank gets to them: a compiled [`Program`] is one source,
//! a generator or a streaming normalizer another. It holds only live state: the operation
//! each rank stands at, the requests in flight (a slab keyed by (rank, request id), whose
//! entries are reused once complete), the unmatched sends and posted receives, the open
//! calls of each collective, the open epochs of each window. Each operation is handled in
//! amortized constant time apart from tag scans of pending queues, so the cost is linear in
//! the number of events (EMPDD's O(m·n)) and the memory does not grow with them. Runs that
//! are too large to hold as [`Run`] can be built directly with [`ProgramBuilder`], or
//! generated lazily by an [`OpSource`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use crate::model::*;

mod collectives;
mod compile;
mod driver;
mod lanes;
mod matching;
mod outcome;
mod polling;
mod program;
mod queues;
mod rma;
mod spill;

pub(crate) use compile::ProgramCompiler;
pub use compile::SpillTo;
use polling::Poll;
pub use program::ProgramBuilder;
use queues::*;
pub(crate) use spill::SpillFile;
use spill::{ChunkReader, SpilledVec};

// ---------------------------------------------------------------------------------------
// Hashing: keys are small integers; SipHash would dominate the replay's cost, so maps use
// the Fx hash (rustc's, one multiply per word) of the `rustc-hash` crate.

use rustc_hash::{FxHashMap, FxHashSet};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern)]
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
    /// Active-target synchronization (`engine/rma.rs`): `comm` = window, `a` = offset in
    /// the aux table of the group's world ranks, `b` = their number.
    WinPost,
    /// As [`OpKind::WinPost`].
    WinStart,
    /// `comm` = window.
    WinComplete,
    /// `comm` = window: `MPI_Win_wait`, or an `MPI_Win_test` that ended a polling loop.
    WinWait,
    /// A lock, unlock, flush or RMA call the trace shows blocked while other origins hold
    /// conflicting locks on its target in epochs that never end (`engine/rma.rs`): `comm` =
    /// window, `a` = offset in the aux table of the holders' world ranks, `b` = their number.
    WinLockWait,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern)]
#[repr(C)]
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

/// What the checks say about the call an operation was compiled from, kept next to the
/// operations (8 bytes each) so that reports of stuck or racing calls need no events:
/// where it was made, which function, whether it returned.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern,
)]
#[repr(C)]
pub struct OpInfo {
    /// The call site ([`SiteId`]).
    pub site: u32,
    /// The called function, an index into the program's names (0: not known, for
    /// operations that were not compiled from a call).
    pub call: u16,
    pub shape: CallShape,
    /// [`info_bits`].
    pub bits: u8,
}

/// Bits of [`OpInfo::bits`].
pub mod info_bits {
    /// The call returned in the trace.
    pub const RETURNED: u8 = 1;
    /// A nonblocking send whose request a later `MPI_Cancel` of the rank names.
    pub const CANCELLED: u8 = 2;
    /// A send or collective of a persistent request (`*_init`).
    pub const PERSISTENT: u8 = 4;
}

/// What kind of call an operation was compiled from, as recorded (a polling loop modelled
/// as the blocking call it stands for keeps the shape of that call, and its own name).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern,
)]
#[repr(u8)]
pub enum CallShape {
    #[default]
    Other,
    /// A send in standard, buffered or ready mode.
    Send,
    /// A synchronous send.
    SyncSend,
    Sendrecv,
    Recv,
    /// A probe (blocking or not, matched or not).
    Probe,
    /// A wait, test or request-status query.
    Wait,
    Collective,
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
pub struct CommMembers {
    /// `None`: the identity over `size` ranks (`MPI_COMM_WORLD`).
    list: Option<Vec<Rank>>,
    index: FxHashMap<Rank, u32>,
    size: u32,
}

impl CommMembers {
    /// `MPI_COMM_WORLD`'s members: world ranks `0..size`.
    pub fn identity(size: u32) -> CommMembers {
        CommMembers {
            list: None,
            index: FxHashMap::default(),
            size,
        }
    }
    /// World ranks in communicator rank order.
    pub fn of(members: Vec<Rank>) -> CommMembers {
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
    pub fn size(&self) -> u32 {
        self.size
    }
    pub fn comm_rank(&self, world: Rank) -> Option<u32> {
        match &self.list {
            None => (world < self.size).then_some(world),
            Some(_) => self.index.get(&world).copied(),
        }
    }
    pub fn member(&self, comm_rank: u32) -> Rank {
        match &self.list {
            None => comm_rank,
            Some(list) => list[comm_rank as usize],
        }
    }
    pub fn members(&self) -> impl Iterator<Item = Rank> + '_ {
        (0..self.size).map(move |i| self.member(i))
    }
}

/// A run compiled for replay: one [`ReplayOp`] per trace event (the event index of an
/// operation is its index within its rank), plus the tables they point into.
#[derive(Clone, Debug)]
pub struct Program {
    /// By world rank.
    pub(crate) ranks: Vec<RankProgram>,
    pub(crate) ends: Vec<EndKind>,
    /// By communicator id: its members, an index into `member_sets`.
    pub(crate) comms: Vec<u32>,
    /// The distinct member lists: communicators with the same members (a program that
    /// duplicates or splits communicators again and again) share one.
    pub(crate) member_sets: Vec<CommMembers>,
    pub(crate) names: Vec<&'static str>,
}

/// One rank's operations, each with the call it was compiled from; a large rank's are
/// mostly in the analysis's temporary file (`engine/spill.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct RankProgram {
    pub(crate) ops: SpilledVec<ReplayOp>,
    /// Per operation: the call it was compiled from ([`OpInfo`]).
    pub(crate) info: SpilledVec<OpInfo>,
    /// The words the operations' aux offsets point into.
    pub(crate) aux: SpilledVec<u32>,
    /// The communicator of a collective call whose operation does not carry it (an RMA
    /// call or a call the rank exited in), by operation index.
    pub(crate) collective_comms: FxHashMap<u32, u32>,
    /// The thread that made the operations, as runs `[first operation, thread]` (empty:
    /// every operation is thread 0's), so that the replay can run each thread of a rank
    /// that called MPI from several threads as its own sequence (`engine/lanes.rs`).
    pub(crate) threads: SpilledVec<[u32; 2]>,
}

impl Program {
    pub fn world_size(&self) -> u32 {
        self.ends.len() as u32
    }
    pub fn op_count(&self) -> usize {
        self.ranks.iter().map(|r| r.ops.len()).sum()
    }
    /// The operations of one rank.
    pub fn rank_ops(&self, rank: Rank) -> Vec<ReplayOp> {
        self.ranks[rank as usize].ops.to_vec()
    }
    pub(crate) fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.member_sets
            .get(*self.comms.get(comm as usize)? as usize)
    }
    /// The operation of event `event` of `rank`.
    pub fn op(&self, rank: Rank, event: usize) -> Option<ReplayOp> {
        self.ranks.get(rank as usize)?.ops.get_checked(event)
    }
    /// The call event `event` of `rank` was, if the operation was compiled from one.
    pub fn call(&self, rank: Rank, event: usize) -> Option<Call> {
        let r = self.ranks.get(rank as usize)?;
        let info = r.info.get_checked(event)?;
        if info.call == 0 {
            return None;
        }
        Some(Call {
            site: SiteId(info.site),
            name: self.names.get(info.call as usize).copied().unwrap_or("?"),
            shape: info.shape,
            bits: info.bits,
            op: r.ops.get(event),
            collective_comm: r.collective_comms.get(&(event as u32)).copied(),
        })
    }
    /// A source of this program's operations from the start (one per replay).
    pub fn ops(&self) -> ProgramOps<'_> {
        ProgramOps {
            program: self,
            next: vec![0; self.ranks.len()],
            readers: (0..self.ranks.len()).map(|_| Readers::default()).collect(),
            threads: vec![ThreadCursor::default(); self.ranks.len()],
        }
    }
}

/// A call a [`Program`]'s operation was compiled from ([`Program::call`]).
#[derive(Clone, Copy, Debug)]
pub struct Call {
    pub site: SiteId,
    pub name: &'static str,
    pub shape: CallShape,
    bits: u8,
    op: ReplayOp,
    collective_comm: Option<u32>,
}

impl Call {
    /// The call returned in the trace.
    pub fn returned(&self) -> bool {
        self.bits & info_bits::RETURNED != 0
    }
    /// A nonblocking send the rank cancelled later.
    pub fn cancelled(&self) -> bool {
        self.bits & info_bits::CANCELLED != 0
    }
    /// A persistent send or collective (`*_init`).
    pub fn persistent(&self) -> bool {
        self.bits & info_bits::PERSISTENT != 0
    }
    /// The communicator of a collective call.
    pub fn collective_comm(&self) -> Option<CommId> {
        if self.shape != CallShape::Collective {
            return None;
        }
        match self.collective_comm {
            Some(c) => Some(CommId(c)),
            None => (self.op.kind == OpKind::Collective).then_some(CommId(self.op.comm)),
        }
    }
    /// The communicator and tag of a receive (`None`: any tag).
    pub fn receive(&self) -> Option<(CommId, Option<i32>)> {
        (self.shape == CallShape::Recv && self.op.kind == OpKind::Recv).then(|| {
            (
                CommId(self.op.comm),
                (self.op.tag != ANY_TAG).then_some(self.op.tag),
            )
        })
    }
}

/// The operations of a run as the replay pulls them: each rank's next operation, asked for
/// only when that rank's replay reaches it, so a source may generate or decode them lazily
/// and the replay holds only what is live. A replay consumes its source; one that is run
/// again (wildcard exploration, the strict replay after the recorded one) gets a new source
/// from the start ([`Program::ops`] for a compiled program).
///
/// An operation's aux words (a wait's or start's request ids, a release's pairs, the
/// receive half of a sendrecv, an epoch's group) come with it: `next_op` appends them to
/// the buffer it is given and points the operation's offset (`a`, or `b` of a sendrecv)
/// into that buffer.
pub trait OpSource {
    fn world_size(&self) -> u32;
    /// The members of communicator `comm` (0 is `MPI_COMM_WORLD`); asked when an operation
    /// on it is replayed, and when a stuck rank's condition is made.
    fn comm(&self, comm: u32) -> Option<&CommMembers>;
    /// The next operation of `rank` (operations come in event order: the n-th is event n),
    /// or `None` past its last one.
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp>;
    /// How `rank`'s trace ends; asked once `next_op` returned `None` for it.
    fn end(&self, rank: Rank) -> EndKind;
    /// The thread that made the operation `next_op` last returned for `rank`. Each thread
    /// of a rank replays as its own sequence (`engine/lanes.rs`); a source that does not
    /// know threads has every operation made by thread 0.
    fn thread(&self, rank: Rank) -> u16 {
        let _ = rank;
        0
    }
    /// Whether `rank`'s operations come from more than one thread: the replay then reads
    /// on past a thread's blocked call for the other threads' operations.
    fn threaded(&self, rank: Rank) -> bool {
        let _ = rank;
        false
    }
}

/// Where an operation's aux words are: `(in field b rather than a, how many)`.
pub fn aux_span(op: &ReplayOp) -> Option<(bool, u32)> {
    match op.kind {
        OpKind::Wait | OpKind::Start | OpKind::WinPost | OpKind::WinStart | OpKind::WinLockWait => {
            Some((false, op.b))
        }
        OpKind::Release => Some((false, 2 * op.b)),
        OpKind::Sendrecv => Some((true, 4)),
        _ => None,
    }
}

/// Copies an operation's aux words from `table` to the end of `aux` and points the
/// operation there (for sources that keep a table of aux words).
pub fn move_aux(op: ReplayOp, table: &[u32], aux: &mut Vec<u32>) -> ReplayOp {
    move_aux_with(op, |word| table[word], aux)
}

/// [`move_aux`] from a table read a word at a time (`word(i)`: the table's word `i`).
fn move_aux_with(
    mut op: ReplayOp,
    mut word: impl FnMut(usize) -> u32,
    aux: &mut Vec<u32>,
) -> ReplayOp {
    if let Some((in_b, len)) = aux_span(&op) {
        let at = if in_b { &mut op.b } else { &mut op.a };
        let from = *at as usize;
        *at = aux.len() as u32;
        aux.extend((from..from + len as usize).map(&mut word));
    }
    op
}

/// A [`Program`]'s operations as an [`OpSource`].
pub struct ProgramOps<'p> {
    program: &'p Program,
    /// Per rank: the index of its next operation.
    next: Vec<usize>,
    /// Per rank: the chunks of its operations and aux words being read.
    readers: Vec<Readers>,
    /// Per rank: the thread of its last operation read.
    threads: Vec<ThreadCursor>,
}

#[derive(Default)]
struct Readers {
    ops: ChunkReader<ReplayOp>,
    aux: ChunkReader<u32>,
    threads: ChunkReader<[u32; 2]>,
}

/// Where a rank's reading stands in its thread runs ([`RankProgram::threads`]).
#[derive(Clone, Copy, Default)]
struct ThreadCursor {
    /// The next run.
    next_run: usize,
    thread: u16,
}

impl OpSource for ProgramOps<'_> {
    fn world_size(&self) -> u32 {
        self.program.world_size()
    }
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.program.comm(comm)
    }
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        let r = rank as usize;
        let i = self.next[r];
        let program = &self.program.ranks[r];
        if i >= program.ops.len() {
            return None;
        }
        let readers = &mut self.readers[r];
        let op = program.ops.read(i, &mut readers.ops);
        self.next[r] = i + 1;
        let cursor = &mut self.threads[r];
        while cursor.next_run < program.threads.len() {
            let [first, thread] = program.threads.read(cursor.next_run, &mut readers.threads);
            if first as usize > i {
                break;
            }
            cursor.thread = thread as u16;
            cursor.next_run += 1;
        }
        Some(move_aux_with(
            op,
            |word| program.aux.read(word, &mut readers.aux),
            aux,
        ))
    }
    fn end(&self, rank: Rank) -> EndKind {
        self.program.ends[rank as usize]
    }
    fn thread(&self, rank: Rank) -> u16 {
        self.threads[rank as usize].thread
    }
    fn threaded(&self, rank: Rank) -> bool {
        self.program.ranks[rank as usize].threads.len() > 1
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
    /// Sends (rank, event index) whose message no receive ever took in the recorded
    /// replay ([`Replay::unreceived`]). In [`Mode::Strict`] they complete as if buffered:
    /// such a message is lost (RQ005), and waiting for a receive that never comes is no
    /// potential deadlock of the program's order.
    pub never_received: Arc<FxHashSet<(Rank, u32)>>,
}

impl ReplayOptions {
    pub fn new(mode: Mode) -> ReplayOptions {
        ReplayOptions {
            mode,
            forced: None,
            never_received: Arc::default(),
        }
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
    /// A partner's call of an active-target epoch on a window (`MPI_Win_post` a start or
    /// complete waits for, `MPI_Win_complete` a wait waits for).
    Epoch { win: WinId, call: &'static str },
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
    /// The most request slots live at once (requests in flight, persistent requests, and
    /// one slot per rank for its blocking calls): the replay's request table.
    pub peak_live_requests: u64,
    /// The most collective series (communicator, operation, root) held at once.
    pub peak_series: u64,
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
    /// Sends that completed at the sender (buffered, or an immediate send completed) whose
    /// message no receive took by the end, by rank and event.
    pub unreceived: Vec<UnreceivedSend>,
    pub stats: ReplayStats,
}

/// A message its sender got past that no receive took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnreceivedSend {
    pub rank: Rank,
    /// Event index of the send in its rank.
    pub event: usize,
    /// The destination's world rank, and the tag.
    pub dest: Rank,
    pub tag: i32,
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
    replay_source(&mut program.ops(), options)
}

/// Replays the operations of a source, from where it stands (the start, for a new one).
pub fn replay_source(source: &mut dyn OpSource, options: &ReplayOptions) -> Replay {
    let mut engine = Engine::new(source, options);
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
#[derive(Clone, Copy)]
struct Slot {
    /// Bumped when the slot is freed, so that a stale [`SlotId`] finds nothing.
    gen: u32,
    state: u8,
    /// An actor of the owner is blocked in a call that waits for this request.
    waited: bool,
    /// `P_*` bits still outstanding.
    pend: u8,
    /// `K_*` bits.
    keep: u8,
    /// The rank whose request it is.
    owner: u32,
    /// The actor blocked in a call that waits for it, while `waited`: the owner or one of
    /// its threads (`engine/lanes.rs`).
    waiter: Actor,
    /// The request id (in the owner's ids) that names the slot, or [`NO_REQ`].
    req: u32,
    /// Event index of the operation (for persistent requests, the `*_init`) in the owner.
    event: u32,
    /// The operation, as the template a persistent request starts again.
    op: ReplayOp,
    /// The receive half of a sendrecv (its aux words).
    rx: [u32; 4],
    /// Collective series and call ordinal.
    series: u32,
    ordinal: u32,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            gen: 0,
            state: 0,
            waited: false,
            pend: 0,
            keep: 0,
            owner: 0,
            waiter: 0,
            req: NO_REQ,
            event: 0,
            op: ReplayOp::new(OpKind::Nop),
            rx: [0; 4],
            series: 0,
            ordinal: 0,
        }
    }
}

/// [`Slot::keep`]: the slot stays when its operation completes. A rank's hidden slot (its
/// blocking calls) stays for the replay; a persistent request's until it is freed.
const K_HIDDEN: u8 = 1;
const K_PERSISTENT: u8 = 2;

/// A slot and its generation: `gen << 32 | index`.
type SlotId = u64;

/// The live requests: a slab whose entries are reused once their operation completed and
/// no handle names them (a completed request is the same to every call as one never
/// started), so the replay holds the requests in flight, not every request of the run.
#[derive(Default)]
struct Slots {
    entries: Vec<Slot>,
    free: Vec<u32>,
}

impl Slots {
    fn alloc(&mut self, owner: u32, req: u32) -> SlotId {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.entries.push(Slot::default());
                self.entries.len() as u32 - 1
            }
        };
        let s = &mut self.entries[index as usize];
        let gen = s.gen;
        *s = Slot {
            gen,
            owner,
            req,
            ..Slot::default()
        };
        (gen as u64) << 32 | index as u64
    }
    #[inline]
    fn get(&self, id: SlotId) -> Option<&Slot> {
        self.entries
            .get(id as u32 as usize)
            .filter(|s| s.gen == (id >> 32) as u32)
    }
    #[inline]
    fn get_mut(&mut self, id: SlotId) -> Option<&mut Slot> {
        self.entries
            .get_mut(id as u32 as usize)
            .filter(|s| s.gen == (id >> 32) as u32)
    }
    fn release(&mut self, id: SlotId) {
        if let Some(s) = self.get_mut(id) {
            s.gen = s.gen.wrapping_add(1);
            s.state = 0;
            s.pend = 0;
            self.free.push(id as u32);
        }
    }
    fn live(&self) -> usize {
        self.entries.len() - self.free.len()
    }
}

const R_READY: u8 = 0;
const R_BLOCKED: u8 = 1;
const R_FINALIZED: u8 = 2;
const R_EXITED: u8 = 3;
const R_UNFINISHED: u8 = 4;
/// Held before an operation that names a request another thread of its rank makes in an
/// operation not replayed yet (`engine/lanes.rs`).
const R_HELD: u8 = 5;

/// A sequence of operations the replay runs in order: a rank, or one thread of a rank that
/// called MPI from several threads (`engine/lanes.rs`). Actor `r < world` is rank `r`'s
/// first thread.
type Actor = u32;

/// The operation an actor's replay stands at (pulled from the source when the actor gets
/// there, kept while it is blocked in it).
#[derive(Default)]
struct Current {
    op: Option<ReplayOp>,
    /// Its event index in its rank.
    event: u32,
    aux: Vec<u32>,
}

#[derive(Clone, Copy, Default)]
struct ActorState {
    status: u8,
    queued: bool,
    in_probe: bool,
    /// Completions still needed before the blocked call returns.
    pending: u32,
}

/// A rank's buffer for buffered sends (`MPI_Buffer_attach`).
#[derive(Clone, Copy, Default)]
struct BsendBuffer {
    capacity: u32,
    used: u32,
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
    wait_all: Vec<SlotId>,
    wait_root: Vec<SlotId>,
    wait_prefix: BinaryHeap<Reverse<(u32, SlotId)>>,
}

/// The calls of one collective operation (same communicator, kind, root, class) in order.
struct Series {
    key: SeriesKey,
    size: u32,
    /// Per communicator rank: how many calls of this series it has made.
    next: Vec<u32>,
    /// The calls not every member has made yet, from ordinal `base` on (the ones all
    /// members made are done: dropped from the front).
    instances: VecDeque<Instance>,
    base: u32,
}

struct Engine<'s> {
    src: &'s mut dyn OpSource,
    world: u32,
    mode: Mode,
    never_received: Arc<FxHashSet<(Rank, u32)>>,
    forced: Option<ForcedMatch>,
    forced_matched: Option<bool>,
    /// By actor.
    actors: Vec<ActorState>,
    /// By actor.
    cur: Vec<Current>,
    lanes: lanes::Lanes,
    /// By rank.
    buffers: Vec<BsendBuffer>,
    slots: Slots,
    /// (rank, request id) → the live slot of that request.
    reqs: FxHashMap<(u32, u32), SlotId>,
    /// By actor: the slot of its blocking calls.
    hidden: Vec<SlotId>,
    runq: VecDeque<Actor>,
    dests: Vec<DestState>,
    dest_ids: FxHashMap<(u32, Rank), u32>,
    wild_heads: Vec<u32>,
    series: Vec<Series>,
    series_ids: FxHashMap<SeriesKey, u32>,
    /// Series entries given back by [`Engine::sweep_series`], for new series.
    free_series: Vec<u32>,
    /// The number of series at which the next new one sweeps the finished ones out.
    sweep_series_at: usize,
    races: Vec<WildcardRace>,
    stats: ReplayStats,
    epochs: rma::Epochs,
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

#[cfg(test)]
mod tests;
