//! What the normalizer found about a call's arguments on their own ([`ArgProblem`]) and the
//! memory its buffers cover ([`BufferSpan`]): a call's [`CallFacts`], kept in its event.

use super::{ObjectKind, ObjectRef, ReqId};

/// What is wrong with one argument taken on its own (with the calling rank's live handles
/// and its MPI's constants), known before the MPI library acts on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgProblem {
    /// A peer rank (`dest`, `source`, `root`) outside the communicator's group.
    RankOutOfRange { value: i64, size: u32 },
    /// A negative tag (other than `MPI_ANY_TAG` where allowed) or one above `MPI_TAG_UB`.
    InvalidTag { value: i64, tag_ub: Option<i64> },
    /// A negative value for a count or length that must be non-negative.
    NegativeCount { value: i64 },
    /// `MPI_COMM_NULL`, `MPI_DATATYPE_NULL`, ... where a valid object is needed.
    NullHandle { kind: ObjectKind },
    /// A handle of an object this rank had already freed.
    FreedHandle { kind: ObjectKind },
    /// A derived datatype used for communication before `MPI_Type_commit`.
    UncommittedDatatype,
    /// A `NULL` buffer with a positive count of a predefined datatype.
    NullBuffer { count: i64 },
    /// `MPI_IN_PLACE` passed where the call does not accept it.
    InPlaceNotAllowed,
    /// The call itself (not one argument) came before `MPI_Init`/`MPI_Init_thread`.
    BeforeInit,
    /// A negative split color other than `MPI_UNDEFINED`.
    InvalidColor { value: i64 },
    /// A non-negative split type that the library does not define.
    UndefinedSplitType { value: i64 },
    /// A negative topology size (dimension count, dimension, node count).
    InvalidTopology { value: i64 },
    /// A cartesian grid of more processes than its communicator has.
    GridTooLarge { processes: i64, size: u32 },
    /// A topology query or neighborhood collective on a communicator without that topology.
    MissingTopology,
    /// An entry of an array of ranks (a group's `ranks`, a graph's `edges`, a distributed
    /// graph's `sources`) outside the `size` ranks of `of` (`group`, `graph`,
    /// `communicator`).
    RankListOutOfRange {
        value: i64,
        size: u32,
        of: &'static str,
    },
    /// A rank named twice in a list of ranks that must be distinct.
    RepeatedRank { value: i64 },
    /// A rank range (`first`, `last`, `stride`) with stride 0; `range` counts from 0.
    ZeroStride { range: usize },
    /// `MPI_Graph_create`'s `index` decreases (or starts negative) at `position`.
    DecreasingIndex { position: usize, value: i64 },
    /// A cartesian direction or coordinate outside the grid: `value` for dimension `dim`
    /// (`None`: the direction itself), which has `limit` dimensions or processes.
    OutsideGrid {
        value: i64,
        dim: Option<usize>,
        limit: i64,
    },
    /// An RMA assertion with modes its call does not accept.
    InvalidAssert {
        value: i64,
        not_allowed: Vec<&'static str>,
    },
    /// A partitioned request of fewer than one partition.
    InvalidPartitions { value: i64 },
    /// A partition outside 0..`partitions`-1 of its request.
    PartitionOutOfRange { value: i64, partitions: i64 },
    /// `MPI_Pready*` on a partitioned send request that is not active (not started, or
    /// already completed).
    PartitionedInactive,
    /// A partition marked ready a second time in one epoch.
    PartitionReadyTwice { value: i64 },
    /// `MPI_ANY_SOURCE` or `MPI_ANY_TAG` in a partitioned receive.
    PartitionedWildcard { wildcard: &'static str },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgIssue {
    /// The parameter's name in the MPI standard (`dest`, `tag`, `comm`).
    pub param: &'static str,
    pub problem: ArgProblem,
}

/// Effects and argument problems of one call.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CallFacts {
    /// Objects this call made (`MPI_Comm_dup`'s new communicator, `MPI_Type_vector`'s type).
    pub created: Vec<ObjectRef>,
    /// Objects this call freed (`MPI_Comm_free`, `MPI_Type_free`, `MPI_Request_free` of a
    /// persistent request).
    pub freed: Vec<ObjectRef>,
    pub arg_issues: Vec<ArgIssue>,
    /// Requests started by calls the model has no operation for (`MPI_Rput`,
    /// `MPI_File_iwrite`, ...), so completing them is not a wait on an unknown request.
    pub other_requests: Vec<ReqId>,
    /// The memory the call's buffers cover, where the layout is known to be contiguous
    /// (predefined datatypes, derived ones without holes).
    pub buffers: Vec<BufferSpan>,
    /// For a buffered send: the bytes it needs in the attached buffer (message size plus
    /// `MPI_BSEND_OVERHEAD`), when the datatype's size is known.
    pub bsend_bytes: Option<i64>,
}

/// The facts of one call as an event keeps them. Every event is held until the checks have
/// run, and most calls with facts are point-to-point calls whose only fact is their one
/// buffer: that span is kept in the event (24 bytes) instead of a boxed [`CallFacts`]
/// (136 bytes, plus 24 for the span's own allocation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EventFacts {
    /// Nothing to say: the most common case.
    #[default]
    None,
    /// One buffer and nothing else.
    Buffer(BufferSpan),
    /// Several buffers and nothing else (a send-receive's, a reduction's): one allocation
    /// instead of boxed facts and their vector of spans, shared by the calls of a function
    /// that repeat the same buffers (a loop's send-receive).
    Buffers(std::sync::Arc<[BufferSpan]>),
    Full(Box<CallFacts>),
}

impl CallFacts {
    /// Nothing to say: equal to `CallFacts::default()`, without building one to compare.
    pub fn is_empty(&self) -> bool {
        // (Every field named: a new one must be added here.)
        let CallFacts {
            created,
            freed,
            arg_issues,
            other_requests,
            buffers,
            bsend_bytes,
        } = self;
        created.is_empty()
            && freed.is_empty()
            && arg_issues.is_empty()
            && other_requests.is_empty()
            && buffers.is_empty()
            && bsend_bytes.is_none()
    }
}

impl EventFacts {
    /// The compact form of `facts`.
    pub fn from_facts(mut facts: CallFacts) -> EventFacts {
        if facts.buffers.len() == 1 {
            let span = facts.buffers.pop().expect("one span");
            if facts.is_empty() {
                return EventFacts::Buffer(span);
            }
            facts.buffers.push(span);
        }
        if facts.is_empty() {
            return EventFacts::None;
        }
        if facts.buffers.len() > 1 {
            let buffers = std::mem::take(&mut facts.buffers);
            if facts.is_empty() {
                return EventFacts::Buffers(buffers.into());
            }
            facts.buffers = buffers;
        }
        // Kept for the whole analysis, one per call: spare capacity (a pushed vector holds
        // four spans) would be most of the facts' memory.
        facts.created.shrink_to_fit();
        facts.freed.shrink_to_fit();
        facts.arg_issues.shrink_to_fit();
        facts.other_requests.shrink_to_fit();
        facts.buffers.shrink_to_fit();
        EventFacts::Full(Box::new(facts))
    }
}

/// The bytes one buffer argument of a call covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSpan {
    pub param: BufferParam,
    pub start: u64,
    pub len: u64,
    /// MPI writes it (a receive buffer), rather than only reading it.
    pub write: bool,
}

/// Which buffer argument a [`BufferSpan`] is (a byte instead of a name: every event with a
/// buffer holds one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferParam {
    Buf,
    Sendbuf,
    Recvbuf,
}

impl BufferParam {
    pub fn from_name(name: &str) -> Option<BufferParam> {
        match name {
            "buf" => Some(BufferParam::Buf),
            "sendbuf" => Some(BufferParam::Sendbuf),
            "recvbuf" => Some(BufferParam::Recvbuf),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            BufferParam::Buf => "buf",
            BufferParam::Sendbuf => "sendbuf",
            BufferParam::Recvbuf => "recvbuf",
        }
    }
}

impl std::fmt::Display for BufferParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl BufferSpan {
    pub fn overlaps(&self, other: &BufferSpan) -> bool {
        self.start < other.start.saturating_add(other.len)
            && other.start < self.start.saturating_add(self.len)
    }
}
