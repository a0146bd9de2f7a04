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
mod explore;
mod lanes;
mod matching;
mod ops;
mod outcome;
mod polling;
mod program;
mod queues;
mod requests;
mod results;
mod rma;
mod spill;

pub(crate) use compile::ProgramCompiler;
pub use compile::SpillTo;
pub use explore::{explore_alternatives, Alternative};
pub use ops::*;
use outcome::ReleasedActive;
use polling::Poll;
pub use program::*;
use queues::*;
use requests::ReqMap;
pub use results::*;
pub use spill::keep_temporary_files_unchanged;
pub(crate) use spill::SpillFile;
use spill::{ChunkReader, SpilledVec};

// ---------------------------------------------------------------------------------------
// Hashing: keys are small integers; SipHash would dominate the replay's cost, so maps use
// the Fx hash (rustc's, one multiply per word) of the `rustc-hash` crate.

use rustc_hash::{FxHashMap, FxHashSet};

/// Replays a run.
pub fn replay(run: &Run, options: &ReplayOptions) -> Replay {
    replay_program(&Program::from_run(run), options)
}

/// Replays a compiled program.
pub fn replay_program(program: &Program, options: &ReplayOptions) -> Replay {
    replay_from(ReplaySource::Program(program.ops()), options)
}

/// Replays the operations of a source, from where it stands (the start, for a new one).
pub fn replay_source(source: &mut dyn OpSource, options: &ReplayOptions) -> Replay {
    replay_from(ReplaySource::Other(Box::new(source)), options)
}

fn replay_from(source: ReplaySource<'_>, options: &ReplayOptions) -> Replay {
    let mut engine = Engine::new(source, options);
    engine.run();
    engine.finish()
}

/// Where a replay reads its operations: a compiled program's, read by code the compiler
/// inlines into the replay (a dynamic call per operation cost ~60 instructions of the
/// ~800 an operation took), or any other source.
enum ReplaySource<'s> {
    Program(ProgramOps<'s>),
    Other(Box<dyn OpSource + 's>),
}

impl ReplaySource<'_> {
    /// [`OpSource::next_op`] into `out` (`false`, and `out` as it was, past the rank's last).
    #[inline(always)]
    fn next_op_into(&mut self, rank: Rank, out: &mut Option<ReplayOp>, aux: &mut Vec<u32>) -> bool {
        match self {
            ReplaySource::Program(p) => p.next_op_into(rank, out, aux),
            ReplaySource::Other(o) => match o.next_op(rank, aux) {
                Some(op) => {
                    *out = Some(op);
                    true
                }
                None => false,
            },
        }
    }
}

impl OpSource for ReplaySource<'_> {
    fn world_size(&self) -> u32 {
        match self {
            ReplaySource::Program(p) => p.world_size(),
            ReplaySource::Other(o) => o.world_size(),
        }
    }
    #[inline]
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        match self {
            ReplaySource::Program(p) => p.comm(comm),
            ReplaySource::Other(o) => o.comm(comm),
        }
    }
    #[inline]
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        match self {
            ReplaySource::Program(p) => p.next_op(rank, aux),
            ReplaySource::Other(o) => o.next_op(rank, aux),
        }
    }
    fn end(&self, rank: Rank) -> EndKind {
        match self {
            ReplaySource::Program(p) => p.end(rank),
            ReplaySource::Other(o) => o.end(rank),
        }
    }
    fn thread(&self, rank: Rank) -> u16 {
        match self {
            ReplaySource::Program(p) => p.thread(rank),
            ReplaySource::Other(o) => o.thread(rank),
        }
    }
    fn threaded(&self, rank: Rank) -> bool {
        match self {
            ReplaySource::Program(p) => p.threaded(rank),
            ReplaySource::Other(o) => o.threaded(rank),
        }
    }
    fn may_follow_wildcards(&self, rank: Rank) -> bool {
        match self {
            ReplaySource::Program(p) => p.may_follow_wildcards(rank),
            ReplaySource::Other(o) => o.may_follow_wildcards(rank),
        }
    }
    fn follows_wildcard(
        &mut self,
        rank: Rank,
        event: u32,
        receive_half: bool,
        least: Following,
    ) -> bool {
        match self {
            ReplaySource::Program(p) => p.follows_wildcard(rank, event, receive_half, least),
            ReplaySource::Other(o) => o.follows_wildcard(rank, event, receive_half, least),
        }
    }
    fn may_follow_wildcard_tags(&self, rank: Rank) -> bool {
        match self {
            ReplaySource::Program(p) => p.may_follow_wildcard_tags(rank),
            ReplaySource::Other(o) => o.may_follow_wildcard_tags(rank),
        }
    }
    fn follows_wildcard_tag(&mut self, rank: Rank, event: u32, least: Following) -> bool {
        match self {
            ReplaySource::Program(p) => p.follows_wildcard_tag(rank, event, least),
            ReplaySource::Other(o) => o.follows_wildcard_tag(rank, event, least),
        }
    }
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
#[derive(Clone, Default)]
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
    /// Frees slot `id` if it is live; the (owner, request id) that named it.
    fn release(&mut self, id: SlotId) -> Option<(u32, u32)> {
        let s = self.get_mut(id)?;
        s.gen = s.gen.wrapping_add(1);
        s.state = 0;
        s.pend = 0;
        let named = (s.owner, s.req);
        self.free.push(id as u32);
        Some(named)
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
#[derive(Clone, Default)]
struct Current {
    op: Option<ReplayOp>,
    /// Its event index in its rank.
    event: u32,
    aux: Vec<u32>,
}

#[derive(Clone, Copy, Default, PartialEq)]
struct ActorState {
    status: u8,
    queued: bool,
    in_probe: bool,
    /// Blocked before its current call, until its rank's wildcard receive of a probed
    /// message is matched ([`Engine::probed_wildcards`]): the call then runs.
    before_call: bool,
    /// Completions still needed before the blocked call returns.
    pending: u32,
}

/// A rank's buffer for buffered sends (`MPI_Buffer_attach`).
#[derive(Clone, Copy, Default, PartialEq)]
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

#[derive(Clone, Default)]
struct Instance {
    arrived: u32,
    /// Communicator ranks `0..prefix` have all arrived (scans only).
    prefix: u32,
    wait_all: Vec<SlotId>,
    wait_root: Vec<SlotId>,
    wait_prefix: BinaryHeap<Reverse<(u32, SlotId)>>,
}

impl Instance {
    /// The instance as new, keeping the room of its wait lists.
    fn clear(&mut self) {
        self.arrived = 0;
        self.prefix = 0;
        self.wait_all.clear();
        self.wait_root.clear();
        self.wait_prefix.clear();
    }
}

// A binary heap has no equality of its own: two are the same if their arrays are (the
// same elements in the same order: a conservative test, enough to tell replays apart).
impl PartialEq for Instance {
    fn eq(&self, other: &Instance) -> bool {
        self.arrived == other.arrived
            && self.prefix == other.prefix
            && self.wait_all == other.wait_all
            && self.wait_root == other.wait_root
            && self.wait_prefix.as_slice() == other.wait_prefix.as_slice()
    }
}

/// The calls of one collective operation (same communicator, kind, root, class) in order.
#[derive(Clone, PartialEq)]
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
    src: ReplaySource<'s>,
    world: u32,
    mode: Mode,
    never_received: Arc<FxHashSet<(Rank, u32)>>,
    forced: Option<ForcedMatch>,
    forced_matched: Option<bool>,
    /// [`ReplayOptions::follow_doubtful`].
    follow_doubtful: bool,
    /// By rank, in a replay of another matching: a receive of the rank took a message with
    /// another tag than in the run ([`flags::TAG_RECORDED`]). The rank is replayed no
    /// further and ends [`RankOutcome::Unfinished`]: it may still release the others.
    diverged: Vec<bool>,
    /// By rank, in a replay of another matching: it received a message that a call
    /// following a wildcard sent to it instead of to the rank it went to in the run
    /// ([`PendingSend::redirected`]). It received other data than its trace did, and
    /// programs branch on data (HyPhy's worker stops on a string of length 0): where a
    /// message it received in the run is then left for it, its trace no longer says what
    /// it does, and it ends [`RankOutcome::Unfinished`] (`fed_otherwise`). One left with
    /// nothing is taken at its word: a reply to the wrong worker is a deadlock
    /// (tests/programs/dl_reply_then_fixed_recv.c).
    took_redirected: Vec<bool>,
    /// By actor.
    actors: Vec<ActorState>,
    /// By actor.
    cur: Vec<Current>,
    lanes: lanes::Lanes,
    /// By rank.
    buffers: Vec<BsendBuffer>,
    slots: Slots,
    /// (rank, request id) → the live slot of that request.
    reqs: ReqMap,
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
    /// The receives (rank, event) whose posting an exploration waits for
    /// (`engine/explore.rs`), and those of them posted since the replay was last quiescent.
    watched: Option<FxHashSet<(Rank, u32)>>,
    posted_watched: Vec<(Rank, u32)>,
    /// Room kept for the next wildcard resolution: the candidates of a receive, and the
    /// list of destinations with held-back receives.
    candidates: Vec<(Rank, u32)>,
    spare_heads: Vec<u32>,
    /// Room kept for the slots a collective call completes (no allocation per call).
    woken: Vec<SlotId>,
    /// Room given back by finished collective calls, for the next ones (at most
    /// [`collectives::SPARE_ROOM`] of each): the instance queues of series with no call
    /// open, and instances with their wait lists.
    spare_queues: Vec<VecDeque<Instance>>,
    spare_instances: Vec<Instance>,
    /// By rank whose calls may follow its wildcard receives ([`flags::FOLLOWS_WILDCARD`]):
    /// the source its latest wildcard receive took in the run, and the one it took in this
    /// replay (`NO_RANK` before any): a call following the first names the second.
    wildcard_sources: Vec<Option<[u32; 2]>>,
    /// By rank whose sends may follow the tag of its latest receive for any tag
    /// ([`flags::FOLLOWS_WILDCARD_TAG`]): that receive's tags in the run and in this replay.
    wildcard_tags: Vec<Option<TakenTag>>,
    /// By rank, in replays that follow doubtful sites ([`Following::Occasional`]): every
    /// send it started since its latest wildcard-source receive was matched named that
    /// receive's source in the run (marked [`flags::FOLLOWS_WILDCARD`]), as replies to
    /// `status.MPI_SOURCE` do and a round of sends to every worker does not.
    sends_named_wildcard: Vec<bool>,
    /// By rank: the request of its latest receive for any source or tag of a message a
    /// single probe found ([`flags::TAKES_PROBED`]), while the replay has not matched it
    /// and the rank's calls may follow its wildcards (`NO_REQ` otherwise). Nobody waits
    /// for that receive, but the program did (`MPI_Recv(MPI_ANY_SOURCE)` after
    /// `MPI_Iprobe`): a call following it waits until it took a message, or would name
    /// the previous wildcard's source (HyPhy's MPIRecvString).
    probed_wildcards: Vec<u32>,
    /// Some rank's sends may follow the tag of its latest receive for any tag: the matches
    /// note the tags such receives take.
    follows_tags: bool,
    /// In [`Mode::Strict`]: the requests a single successful test gave back before this
    /// replay completed them.
    released_active: ReleasedActive,
}

/// The tag a rank's latest receive for any tag took in the run ([`flags::TAG_RECORDED`];
/// `None` before any, or where the trace does not show it), and the tag it took in this
/// replay: a send following the first carries the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TakenTag {
    recorded: Option<i32>,
    taken: i32,
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
