//! Threads in the normalized model: the synchronizations between a process's threads
//! ([`SyncEvent`]), what each thread is ([`ThreadInfo`]), OpenMP worksharing and parallel
//! regions, and the thread level a rank asked for and got.

use serde::Serialize;

use super::{ObjectKind, ReqId, SiteId};

/// A synchronization between threads of one process, recorded by the interposition library
/// (POSIX threads and OpenMP entry points), for happens-before between threads. Each is a
/// release or an acquire of a synchronization object: everything a thread did before it
/// released an object happens before everything another thread does after acquiring that
/// object later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SyncEvent {
    pub thread: u16,
    /// Same order as [`CallTime::order`]: sync events and calls of a process interleave by it.
    pub order: u64,
    pub kind: SyncKind,
    /// The object released or acquired (a mutex or lock address, a thread, a team).
    pub object: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncKind {
    Release,
    Acquire,
}

/// What a rank's threads did besides calling MPI, for the thread-safety checks.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ThreadInfo {
    /// Thread level provided as `MPI_Query_thread` reported it after `MPI_Init*`.
    pub provided: Option<ThreadLevel>,
    /// True when the trace recorded synchronization between threads: only then can two
    /// calls of different threads that no recorded synchronization orders be reported as
    /// possibly concurrent.
    pub sync_recorded: bool,
    /// In record order.
    pub sync: Vec<SyncEvent>,
    /// OpenMP parallel regions, for MPI_THREAD_SINGLE.
    pub parallel_regions: Vec<ParallelRegion>,
    /// Threads the program's own code started with `pthread_create`, in record order.
    pub thread_starts: Vec<ThreadStart>,
    /// Requests whose handle MPI also gave to another live request (a shared, already
    /// complete request object): waits on that handle cannot be attributed to one of them.
    pub shared_requests: Vec<ReqId>,
    /// Objects freed by one thread after another thread used them (recorded before the
    /// free): each other thread's last such use, for TH007.
    pub freed_after_use: Vec<FreedAfterUse>,
    /// Blocks of OpenMP `single` and `sections` constructs that a thread executed, in
    /// record order of their start.
    pub workshares: Vec<WorkshareBlock>,
}

/// The block of a worksharing construct one thread of a team executed; any thread of the
/// team could have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorkshareBlock {
    pub thread: u16,
    pub construct: Workshare,
    /// Record order of the block's start and of the thread's next record after it
    /// (`u64::MAX` if none): the thread's calls in between ran in the block.
    pub begin_order: u64,
    pub end_order: u64,
    /// Threads of the team (0 when the team's region was not recorded).
    pub team: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workshare {
    Single,
    Section,
}

impl Workshare {
    /// The construct as the program writes it.
    pub fn pragma(self) -> &'static str {
        match self {
            Workshare::Single => "#pragma omp single",
            Workshare::Section => "#pragma omp section",
        }
    }
}

/// An object freed by a call (`freed`, an event index) that another thread's call (`used`)
/// passed earlier in record order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FreedAfterUse {
    pub kind: ObjectKind,
    pub used: usize,
    pub freed: usize,
}

/// An OpenMP parallel region (or another team of threads) as the encountering thread saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParallelRegion {
    pub thread: u16,
    /// Where the region was entered (the call of the runtime's region entry).
    pub site: SiteId,
    /// Record order of its start and end (`u64::MAX` if it never ended).
    pub begin_order: u64,
    pub end_order: u64,
    pub threads: u32,
}

/// A `pthread_create` call of the program's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadStart {
    /// The thread that called it, and when (record order, as [`CallTime::order`]).
    pub by: u16,
    pub order: u64,
    pub site: SiteId,
    /// The thread started, once it ran (its first recorded step).
    pub started: Option<u16>,
}

/// The MPI thread support levels, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ThreadLevel {
    Single,
    Funneled,
    Serialized,
    Multiple,
}

impl ThreadLevel {
    pub fn name(self) -> &'static str {
        match self {
            ThreadLevel::Single => "MPI_THREAD_SINGLE",
            ThreadLevel::Funneled => "MPI_THREAD_FUNNELED",
            ThreadLevel::Serialized => "MPI_THREAD_SERIALIZED",
            ThreadLevel::Multiple => "MPI_THREAD_MULTIPLE",
        }
    }
}
