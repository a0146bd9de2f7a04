//! The normalized view of a run that every check reads.
//!
//! Traces record raw MPI handles and communicator-relative ranks; [`crate::normalize`] turns
//! them into this model, where ranks can be compared: peers are world ranks, communicators
//! are [`CommId`]s equal on every member, requests are [`ReqId`]s unique within a rank, and
//! each call points at a resolved [`SourceLocation`]. Hand-written text traces (tests) parse
//! straight into this model, so checks never see raw trace words.

use serde::Serialize;

mod comms;
mod completed;
mod facts;
mod rma;
mod threads;
pub use comms::CommTable;
pub use completed::Completed;
pub use facts::*;
pub use rma::*;
pub use threads::*;

/// A rank in `MPI_COMM_WORLD`.
pub type Rank = u32;

/// A member of a communicator that is no process of the recorded job: one started by
/// `MPI_Comm_spawn`, or reached with `MPI_Comm_connect`/`accept`/`join` (MPI gives no
/// `MPI_COMM_WORLD` rank for it). Nobody recorded its calls, so the normalizer makes the
/// calls that exchange with it no operation ([`Op::Other`]).
pub const OUTSIDE_JOB: Rank = Rank::MAX - 2;

/// Index into [`Run::comms`]; the same value on every member of the communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommId(pub u32);

/// Index into [`Run::sites`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SiteId(pub u32);

/// A request of one rank, unique within that rank for the whole run (a raw handle that MPI
/// reuses after completion gets a fresh `ReqId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReqId(pub u32);

/// Index into [`Run::datatypes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);

/// Where a call was made.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct SourceLocation {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub function: Option<String>,
    /// The mapped file (executable or shared object) holding the call, as the process named
    /// it; known even without debug info.
    pub object: Option<String>,
    /// The link-time address of the call instruction in `object` (what `addr2line -e
    /// object` and GDB take), when the file's headers could be read.
    pub offset: Option<u64>,
}

impl SourceLocation {
    /// Where the call is, as a phrase: "at t.c:12", "in t.c", else what the binary tells
    /// ([`binary_place`]); `None` when nothing is known.
    pub fn place(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => Some(format!("at {f}:{l}")),
            (Some(f), None) => Some(format!("in {f}")),
            _ => binary_place(
                self.function.as_deref(),
                self.object.as_deref(),
                self.offset,
            ),
        }
    }
}

/// Where a call without a source file is, from what the binary tells: "in `foo`
/// (libfoo.so+0x1234)", "in `foo`", "at libfoo.so+0x1234" (the object by its file name;
/// reports carry the full path apart); `None` when nothing is known. Every report and note
/// says it this way.
pub fn binary_place(
    function: Option<&str>,
    object: Option<&str>,
    offset: Option<u64>,
) -> Option<String> {
    let object = object.map(|o| {
        let name = o.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(o);
        match offset {
            Some(offset) => format!("{name}+{offset:#x}"),
            None => name.to_string(),
        }
    });
    match (function, object) {
        (Some(f), Some(o)) => Some(format!("in `{f}` ({o})")),
        (Some(f), None) => Some(format!("in `{f}`")),
        (None, Some(o)) => Some(format!("at {o}")),
        (None, None) => None,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommInfo {
    /// Human name: `MPI_COMM_WORLD`, or how it was made (`MPI_Comm_split of MPI_COMM_WORLD`).
    /// Shared by the descriptions that have it ([`CommTable`]).
    pub name: std::sync::Arc<str>,
    /// World ranks of the (local) group, in communicator rank order. Shared like the name.
    pub members: std::sync::Arc<[Rank]>,
    /// World ranks of the remote group of an intercommunicator.
    pub remote: Option<std::sync::Arc<[Rank]>>,
}

impl CommInfo {
    /// The communicator rank of a world rank, if it is a member.
    pub fn rank_of(&self, world: Rank) -> Option<u32> {
        self.members
            .iter()
            .position(|&m| m == world)
            .map(|p| p as u32)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatatypeInfo {
    /// `MPI_INT`, or a description of a derived type.
    pub name: String,
    /// Size in bytes of one element (`MPI_Type_size`), if known.
    pub size: Option<u64>,
    /// The type's signature structure (hashed once, when the type is built), if known.
    pub layout: Option<std::sync::Arc<crate::typesig::Layout>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SendMode {
    Standard,
    Synchronous,
    Buffered,
    Ready,
}

/// Who a receive or probe accepts a message from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    Rank(Rank),
    Any,
}

/// Which tags a receive or probe accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagMatch {
    Tag(i32),
    Any,
}

/// How an operation blocks the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blocking {
    /// Returns when the operation is complete (locally).
    Blocking,
    /// Starts the operation and returns its request (`MPI_Isend`, `MPI_Ibarrier`).
    Nonblocking(ReqId),
    /// Creates an inactive persistent request (`MPI_Send_init`, `MPI_Barrier_init`);
    /// [`Op::Start`] activates it.
    Persistent(ReqId),
}

/// A message as the sender describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendSpec {
    /// `None` for `MPI_PROC_NULL`.
    pub dest: Option<Rank>,
    pub tag: i32,
    pub comm: CommId,
    pub count: i64,
    pub datatype: Option<TypeId>,
    pub mode: SendMode,
}

/// What a receive accepts, and what it matched if it completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecvSpec {
    /// `None` for `MPI_PROC_NULL`.
    pub source: Option<Source>,
    pub tag: TagMatch,
    pub comm: CommId,
    pub count: i64,
    pub datatype: Option<TypeId>,
    /// Source (world rank) and tag of the message received, once known from the status.
    pub matched: Option<(Rank, i32)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// `MPI_Wait` / `MPI_Test`: the single request.
    One,
    All,
    Any,
    Some,
}

/// The collective operations, including those that create communicators (they synchronize
/// like any other collective).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CollectiveKind {
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
    /// Communicator, window and file creation/destruction and other collective calls that
    /// are not data movement (`MPI_Comm_dup`, `MPI_Comm_split`, `MPI_Win_fence`, ...).
    /// The exact function is in [`Event::call`].
    Management,
}

/// The requests of a wait or test ([`Op::Wait`]): most calls name one or two, kept in the
/// event without an allocation of their own.
pub type WaitRequests = smallvec::SmallVec<[Option<ReqId>; 2]>;

/// One MPI call, normalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Init {
        /// Thread level provided, `None` for plain `MPI_Init` without threads info.
        thread_level: Option<i32>,
    },
    Finalize,
    Send {
        send: SendSpec,
        blocking: Blocking,
    },
    Recv {
        recv: RecvSpec,
        blocking: Blocking,
    },
    /// `MPI_Sendrecv` and `MPI_Sendrecv_replace` (and their nonblocking forms). The send is
    /// boxed: inline, this rare operation would make every event a third larger.
    Sendrecv {
        send: Box<SendSpec>,
        recv: RecvSpec,
        blocking: Blocking,
    },
    /// `MPI_Probe`/`MPI_Iprobe`/`MPI_Mprobe`/`MPI_Improbe`. `blocking` is false for the
    /// `I` forms; `found` is the flag they returned (always true for blocking ones once
    /// complete); `matched` the status's source and tag.
    Probe {
        source: Option<Source>,
        tag: TagMatch,
        comm: CommId,
        blocking: bool,
        /// Matched probe: the message is removed from the queue (received by `Mrecv`).
        matched_probe: bool,
        found: Option<bool>,
        matched: Option<(Rank, i32)>,
    },
    /// `MPI_Wait*` (`test == false`) and `MPI_Test*` (`test == true`). `requests` holds
    /// `None` for `MPI_REQUEST_NULL` entries so indices match the call's array. `completed`
    /// lists the indices reported complete once the call returned (for `Wait`/`Waitall`/
    /// `Testall` with flag: all non-null ones).
    Wait {
        requests: WaitRequests,
        kind: WaitKind,
        test: bool,
        completed: Option<Completed>,
    },
    /// `MPI_Request_get_status` and its `_all`, `_any` and `_some` forms: tests that leave
    /// the requests allocated (and persistent ones active), MPI 4.1 §3.7.6. `completed` as
    /// for a test.
    RequestStatus {
        requests: WaitRequests,
        kind: WaitKind,
        completed: Option<Completed>,
    },
    /// `MPI_Start`/`MPI_Startall`.
    Start {
        requests: Vec<ReqId>,
    },
    Cancel {
        request: ReqId,
    },
    RequestFree {
        request: ReqId,
    },
    Collective {
        kind: CollectiveKind,
        comm: CommId,
        /// The root as a communicator rank, for rooted collectives.
        root: Option<i32>,
        blocking: Blocking,
    },
    BufferAttach {
        bytes: i64,
    },
    BufferDetach,
    /// Anything else; checks that need it look at [`Event::call`].
    Other,
}

/// `count` elements of `datatype`, one side of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufSpec {
    pub count: i64,
    pub datatype: Option<TypeId>,
}

/// The arguments of one collective call that the consistency checks compare across ranks.
/// Fields a function does not have stay empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CollectiveArgs {
    /// `sendcount`/`sendtype` (or `count`/`datatype` of `MPI_Bcast` and the reductions).
    /// `None` where the send buffer is `MPI_IN_PLACE` or not significant.
    pub send: Option<BufSpec>,
    /// `recvcount`/`recvtype`, where significant on this rank.
    pub recv: Option<BufSpec>,
    /// Per-peer counts of the `v`/`w` variants (`sendcounts`, `recvcounts`), where recorded.
    pub send_counts: Option<Vec<i64>>,
    pub recv_counts: Option<Vec<i64>>,
    /// Per-peer datatypes of the `w` variants.
    pub send_types: Option<Vec<Option<TypeId>>>,
    pub recv_types: Option<Vec<Option<TypeId>>>,
    /// `MPI_IN_PLACE` was passed (as `sendbuf`, or as `recvbuf` at the root of a scatter).
    pub in_place: bool,
    /// The reduction operation: `MPI_SUM`, or a description of a user-defined op (shared
    /// with the rank's table of ops: not copied per call).
    pub op: Option<std::sync::Arc<str>>,
    /// Other arguments that must be equal on every member (name, value as text): the
    /// `local_leader` and `tag` of `MPI_Intercomm_create`, `high` of `MPI_Intercomm_merge`,
    /// `dims`/`periods` of `MPI_Cart_create`, ...
    pub agree: Vec<(&'static str, String)>,
    /// Neighborhood collectives on a process topology the trace shows being created: this
    /// rank's source and destination neighbors in the standard's order (world ranks, `None`
    /// for `MPI_PROC_NULL` at a non-periodic cartesian border).
    pub in_neighbors: Option<Vec<Option<Rank>>>,
    pub out_neighbors: Option<Vec<Option<Rank>>>,
}

impl CollectiveArgs {
    /// Nothing to compare: equal to `CollectiveArgs::default()`, without building one to
    /// compare.
    pub fn is_empty(&self) -> bool {
        // (Every field named: a new one must be added here.)
        let CollectiveArgs {
            send,
            recv,
            send_counts,
            recv_counts,
            send_types,
            recv_types,
            in_place,
            op,
            agree,
            in_neighbors,
            out_neighbors,
        } = self;
        send.is_none()
            && recv.is_none()
            && send_counts.is_none()
            && recv_counts.is_none()
            && send_types.is_none()
            && recv_types.is_none()
            && !in_place
            && op.is_none()
            && agree.is_empty()
            && in_neighbors.is_none()
            && out_neighbors.is_none()
    }
}

/// One recorded call of one rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The MPI function name as called (`MPI_Send`), for messages.
    pub call: &'static str,
    pub op: Op,
    pub site: SiteId,
    pub thread: u16,
    /// False when the rank was still inside this call when its trace ended (blocked, crashed,
    /// killed).
    pub returned: bool,
    /// What the call did to MPI objects, what was wrong with its arguments and the memory
    /// its buffers cover (see [`EventFacts`]).
    pub facts: EventFacts,
    /// When the call was made, from the trace; `None` in hand-written traces without times.
    pub time: Option<CallTime>,
}

/// The kinds of MPI objects whose lifecycle is tracked: made by one call, freed by another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectKind {
    Communicator,
    Group,
    Datatype,
    Op,
    Window,
    Errhandler,
    Keyval,
    Info,
    File,
    Session,
    /// A persistent request (`MPI_Send_init`, ...), freed by `MPI_Request_free`.
    Request,
}

impl ObjectKind {
    /// "communicator", for messages.
    pub fn noun(self) -> &'static str {
        match self {
            ObjectKind::Communicator => "communicator",
            ObjectKind::Group => "group",
            ObjectKind::Datatype => "datatype",
            ObjectKind::Op => "reduction operation",
            ObjectKind::Window => "window",
            ObjectKind::Errhandler => "error handler",
            ObjectKind::Keyval => "attribute key",
            ObjectKind::Info => "info object",
            ObjectKind::File => "file",
            ObjectKind::Session => "session",
            ObjectKind::Request => "persistent request",
        }
    }
    /// "communicators".
    pub fn plural(self) -> String {
        match self {
            ObjectKind::File => "files".into(),
            k => format!("{}s", k.noun()),
        }
    }
}

/// An MPI object of one rank, unique within that rank for the whole run (a raw handle that
/// MPI reuses after a free names a new `ObjectId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    pub kind: ObjectKind,
    pub id: ObjectId,
}

impl Event {
    /// Whether this call was made while `outer` was still running on the same thread: a
    /// callback of the program that MPI ran inside `outer` (an attribute delete function
    /// run by `MPI_Finalize` or `MPI_Comm_free`, a copy function run by `MPI_Comm_dup`).
    /// Without times (hand-written traces) nothing is known to be inside.
    pub fn ran_inside(&self, outer: &Event) -> bool {
        self.ran_inside_call(outer.thread, outer.time)
    }

    /// [`Event::ran_inside`] an outer call known by its thread and time.
    pub fn ran_inside_call(&self, outer_thread: u16, outer_time: Option<CallTime>) -> bool {
        let (Some(inner_time), Some(outer_time)) = (self.time, outer_time) else {
            return false;
        };
        self.thread == outer_thread
            && inner_time.order > outer_time.order
            && outer_time
                .exit_ns
                .is_some_and(|exit| inner_time.enter_ns < exit)
    }

    /// The call's facts beyond a single buffer (which [`Event::buffers`] gives).
    pub fn facts(&self) -> Option<&CallFacts> {
        match &self.facts {
            EventFacts::Full(facts) => Some(facts),
            EventFacts::None | EventFacts::Buffer(_) | EventFacts::Buffers(_) => None,
        }
    }

    /// The memory the call's buffers cover, where known.
    pub fn buffers(&self) -> &[BufferSpan] {
        match &self.facts {
            EventFacts::None => &[],
            EventFacts::Buffer(span) => std::slice::from_ref(span),
            EventFacts::Buffers(spans) => spans,
            EventFacts::Full(facts) => &facts.buffers,
        }
    }
}

/// When a call ran, on the process's monotonic clock (comparable across its threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallTime {
    /// Position in the process's record order: increases with every record of the process,
    /// whatever thread wrote it (a record is reserved before the call enters MPI).
    pub order: u64,
    /// Nanoseconds since the trace start when the call entered the MPI library.
    pub enter_ns: u64,
    /// When it returned, `None` if it never did.
    pub exit_ns: Option<u64>,
}

/// How a rank's trace ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankEnd {
    /// Returned from `MPI_Finalize` and exited.
    Finalized,
    /// Exited without calling `MPI_Finalize`.
    ExitedWithoutFinalize,
    /// The trace stops while the rank was running or blocked (still running, killed, or
    /// crashed); `reason` says what the reader found.
    Interrupted { reason: String },
    /// MPI aborted the job inside the call at `event` (its error handler rejected the call):
    /// that call did not block, and nothing is known after it.
    AbortedInCall { event: usize, call: &'static str },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankTrace {
    pub rank: Rank,
    pub events: Vec<Event>,
    pub end: RankEnd,
    /// Thread level and synchronization between the rank's threads.
    pub threads: ThreadInfo,
}

/// A whole run: every rank's events plus the tables they point into.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Run {
    /// Index = world rank.
    pub ranks: Vec<RankTrace>,
    /// Index = [`CommId`]. `CommId(0)` is `MPI_COMM_WORLD`.
    pub comms: CommTable,
    /// Index = [`SiteId`]. `SiteId(0)` is the unknown location.
    pub sites: Vec<SourceLocation>,
    /// Index = [`TypeId`].
    pub datatypes: Vec<DatatypeInfo>,
    /// The arguments of collective calls that must agree across ranks (counts, datatypes,
    /// op, `MPI_IN_PLACE`, ...), keyed by (world rank, index into that rank's events).
    /// Calls with equal arguments share them: a program repeats a few collectives many times.
    pub collective_args: rustc_hash::FxHashMap<(Rank, u32), std::sync::Arc<CollectiveArgs>>,
    /// Index = [`WinId`].
    pub windows: Vec<WindowInfo>,
    pub rma: std::collections::HashMap<(Rank, u32), RmaCall>,
    /// Loads and stores of the program into buffers of pending operations, caught by
    /// `mpicheck run --check-buffers` (`MPICHECK_Access` records), in trace order per rank.
    pub buffer_accesses: Vec<BufferAccess>,
    /// How many buffers `--check-buffers` watched and did not, summed over the ranks
    /// (`MPICHECK_Buffers` records); `None` without the mode.
    pub buffer_watch: Option<BufferWatchCounts>,
    /// The call sites whose buffers `--check-buffers` stopped watching because the program
    /// accessed other data on their pages too often (`MPICHECK_Given_up` records), by site.
    pub buffers_given_up: Vec<GivenUpSite>,
    /// The calls that connected the job to processes outside it ([`OUTSIDE_JOB`]), by
    /// function and call site.
    pub outside_job: Vec<OutsideJobCall>,
}

/// Calls of one function at one call site that started processes outside the recorded job
/// or connected to some (`MPI_Comm_spawn`, `MPI_Comm_accept`, ...): what those processes
/// did, and what the job exchanged with them, is not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideJobCall {
    pub function: &'static str,
    pub site: SiteId,
    /// The ranks that made such a call there, ascending.
    pub ranks: Vec<Rank>,
}

/// Buffer checking's counts: pending buffers watched, buffers not watched (non-contiguous
/// datatype, stack, shared or read-only memory, over 1 GiB, table full), accesses found but
/// not recorded (table full), buffers not watched because their call site was given up
/// ([`GivenUpSite`]), faults on watched pages that were not accesses to a watched buffer's
/// own bytes (each let through at the cost of two signals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferWatchCounts {
    pub watched: u64,
    pub unwatched: u64,
    pub dropped: u64,
    pub given_up: u64,
    pub neighbour_faults: u64,
}

/// A call site (the nonblocking call that made buffers pending) whose buffers
/// `--check-buffers` stopped watching: the program accessed other data on their pages more
/// often than the budget allows. Summed over the ranks that gave it up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenUpSite {
    pub site: SiteId,
    /// The ranks that gave it up, ascending.
    pub ranks: Vec<Rank>,
    /// Neighbour faults charged to the site.
    pub faults: u64,
    /// Its buffers not watched: pending when it was given up, and posted since.
    pub buffers: u64,
}

/// A load or store of the program into the buffer of a pending nonblocking operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAccess {
    pub rank: Rank,
    /// The instruction that accessed the buffer.
    pub site: SiteId,
    /// A store (else a load).
    pub write: bool,
    pub address: u64,
    /// The accessing thread's index in the trace (as [`Event::thread`]); `None` for a
    /// thread that never made an MPI call.
    pub thread: Option<u16>,
    /// Its kernel thread id.
    pub tid: u32,
    /// The pending operation's buffer: `start`, `len` bytes.
    pub start: u64,
    pub len: u64,
    /// The pending operation receives into the buffer (else it sends from it).
    pub recv: bool,
    /// Where the pending operation was started (`SiteId(0)` if unknown).
    pub post_site: SiteId,
    /// How many of the rank's events came before the access was recorded: the posting call
    /// is among them.
    pub events_before: u32,
}

impl Run {
    pub fn world_size(&self) -> u32 {
        self.ranks.len() as u32
    }
    pub fn comm(&self, id: CommId) -> &CommInfo {
        &self.comms[id.0 as usize]
    }
    pub fn site(&self, id: SiteId) -> &SourceLocation {
        &self.sites[id.0 as usize]
    }
    /// The agreed-on arguments of the collective call `index` of `rank`, if it has any.
    pub fn collective_args_of(&self, rank: Rank, index: u32) -> Option<&CollectiveArgs> {
        self.collective_args.get(&(rank, index)).map(|args| &**args)
    }
}
