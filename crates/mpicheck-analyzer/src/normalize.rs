//! Turns raw per-process traces into the [`Run`] model.
//!
//! Traces hold what each process saw: raw handle bits, communicator-relative ranks, request
//! handles that MPI reuses. Here each rank's calls are replayed through handle tables:
//! communicators get a [`CommId`] that is equal on every member (derived from the parent
//! communicator, the position of the creating call on it, and the member set recorded by the
//! `MPICHECK_Comm_info` pseudo-call), ranks become world ranks, requests become [`ReqId`]s
//! that are never reused, and the matched source and tag of a completed receive are copied
//! onto the receive that started it.
//!
//! The ranks' calls are normalized interleaved by the time they entered MPI ([`Order`]), each
//! rank's in its order; the ids of the run's tables do not depend on that interleaving (see
//! [`numbering`]).

use std::borrow::Borrow;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use mpicheck_trace::{
    CallRecord, EndOfTrace, FunctionSchema, Incomplete, Status, Trace, TraceError,
};

use crate::checks::pass::{EventPass, RunTables};
use crate::model::*;
use crate::typesig::Layout;

pub mod args;
mod assign;
mod collective;
mod constants;
mod event;
mod facts;
mod handles;
mod kind;
mod names;
pub(crate) mod numbering;
mod p2p;
mod plan;
mod requests;
mod rma;
#[cfg(test)]
mod tests;
mod topology;

use args::Args;
pub use assign::{assign_ranks, is_rank_trace, IgnoredTrace, RankAssignment};
pub(crate) use constants::intern;
use constants::{parse_int, Constants};
pub(crate) use facts::allowed_anytime;
use numbering::{FirstSeen, Numbering, Seen};
use topology::{cart_neighbors, Topology};

#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("no traces to analyze")]
    Empty,
    #[error("two traces claim world rank {0} (pids {1} and {2}); was the output directory reused by two runs at once?")]
    DuplicateRank(i32, u32, u32),
    #[error("the traces claim a world of {0} ranks, more than the {max} mpicheck supports", max = mpicheck_trace::MAX_WORLD_SIZE)]
    WorldTooLarge(u64),
    #[error("the traces claim a world of {world} ranks, but only {traced} {} left a trace: a trace header is damaged, or the directory lacks most traces of the run", if *.traced == 1 { "rank" } else { "ranks" })]
    WorldBeyondTraces { world: u64, traced: usize },
    #[error("cannot read the calls of rank {rank}: {source}")]
    Read { rank: Rank, source: TraceError },
    #[error("the traces disagree on the world size (pid {0} says {1} ranks, pid {2} says {3}): a trace is damaged, or the directory holds traces of two runs")]
    WorldSizesDisagree(u32, i32, u32, i32),
}

/// What identifies a communicator on every member: how it was made and who is in it.
#[derive(Clone, PartialEq, Eq, Hash)]
enum CommKey {
    World,
    SelfOf(Rank),
    /// Made by the `ordinal`-th communicator-creating call on `parent` (counted per rank).
    Child {
        parent: CommId,
        ordinal: u32,
        members: Vec<Rank>,
        remote: Option<Vec<Rank>>,
    },
    /// An intercommunicator between two groups, the `ordinal`-th between them; the groups are
    /// ordered so both sides compute the same key.
    Inter {
        groups: (Vec<Rank>, Vec<Rank>),
        ordinal: u32,
    },
    /// A handle the trace never saw being created (e.g. its creation was not recorded).
    Unknown {
        rank: Rank,
        raw: i64,
    },
}

/// How one rank sees a communicator: the shared id plus which group is local. Cloned for
/// every call that names the communicator: the groups are shared, not copied (a copy of
/// `MPI_COMM_WORLD`'s group per call grew with the world).
#[derive(Clone)]
struct LocalComm {
    id: CommId,
    local: Arc<[Rank]>,
    remote: Option<Arc<[Rank]>>,
    /// This rank's position in `local` (looked up once, not per call).
    me: Option<u32>,
}

impl LocalComm {
    /// World rank of a peer given as a rank in this communicator (the remote group for
    /// intercommunicators).
    fn peer(&self, rank: i64) -> Option<Rank> {
        let group = self.remote.as_ref().unwrap_or(&self.local);
        usize::try_from(rank)
            .ok()
            .and_then(|r| group.get(r).copied())
    }
}

/// The run's tables, shared by the ranks' normalizers. Communicators, call sites, datatypes
/// and windows are numbered as first named; each also keeps when a normalization rank after
/// rank first names it (`*_seen`), for the final [`Numbering`].
#[derive(Default)]
struct Tables {
    comms: CommTable,
    /// The key of each communicator some member may still name (see [`Tables::comm_freed`]).
    comm_ids: FxHashMap<CommKey, CommId>,
    comms_seen: FirstSeen,
    /// Communicators made by a call (not `MPI_COMM_WORLD`, `MPI_COMM_SELF` or unknown
    /// ones) that not every member has freed yet: their key and how many members have not.
    unfreed: FxHashMap<CommId, (CommKey, u32)>,
    sites: Vec<SourceLocation>,
    site_ids: FxHashMap<SourceLocation, SiteId>,
    sites_seen: FirstSeen,
    datatypes: Vec<DatatypeInfo>,
    datatype_ids: FxHashMap<String, TypeId>,
    datatypes_seen: FirstSeen,
    collective_args: FxHashMap<(Rank, u32), Arc<CollectiveArgs>>,
    /// Each distinct value of [`Run::collective_args`] once.
    distinct_collective_args: FxHashSet<Arc<CollectiveArgs>>,
    rma: rma::RmaTables,
    buffer_accesses: Vec<BufferAccess>,
    buffer_watch: Option<BufferWatchCounts>,
}

impl Tables {
    /// The tables of a run of `world_size` ranks before any call: the unknown call site
    /// and `MPI_COMM_WORLD`.
    fn new(world_size: u32) -> Tables {
        let mut tables = Tables::default();
        tables.sites.push(SourceLocation::default());
        tables.sites_seen.push(Seen::START);
        tables.comm(CommKey::World, Seen::START, || CommInfo {
            name: "MPI_COMM_WORLD".into(),
            members: (0..world_size).collect(),
            remote: None,
        });
        tables
    }

    /// The communicator `key`, named by a rank at `seen`, described by `info` if this is
    /// its earliest naming.
    fn comm(&mut self, key: CommKey, seen: Seen, info: impl FnOnce() -> CommInfo) -> CommId {
        if let Some(&id) = self.comm_ids.get(&key) {
            if self.comms_seen.again(id.0, seen) {
                self.comms.set(id, info());
            }
            return id;
        }
        let info = info();
        let members = info.members.len() + info.remote.as_ref().map_or(0, |r| r.len());
        let id = self.comms.push(info);
        if members > 0 && matches!(key, CommKey::Child { .. } | CommKey::Inter { .. }) {
            self.unfreed.insert(id, (key.clone(), members as u32));
        }
        self.comms_seen.push(seen);
        self.comm_ids.insert(key, id);
        id
    }

    /// `rank` freed its handle of communicator `id`; true when that was the last member to
    /// free it. Every member then named it already and will not again (a handle freed is
    /// gone, and MPI's next communicator under the same handle bits has a key of its own),
    /// so its key is forgotten; its id and [`CommInfo`] stay, since ids are never reused and
    /// findings and [`Numbering`] name communicators by id.
    fn comm_freed(&mut self, id: CommId, rank: Rank) -> bool {
        let info = &self.comms[id.0 as usize];
        let member =
            info.members.contains(&rank) || info.remote.as_ref().is_some_and(|r| r.contains(&rank));
        let Some((_, left)) = self.unfreed.get_mut(&id).filter(|_| member) else {
            return false;
        };
        *left -= 1;
        if *left > 0 {
            return false;
        }
        if let Some((key, _)) = self.unfreed.remove(&id) {
            self.comm_ids.remove(&key);
        }
        true
    }

    fn site(&mut self, location: SourceLocation, seen: Seen) -> SiteId {
        if let Some(&id) = self.site_ids.get(&location) {
            self.sites_seen.again(id.0, seen);
            return id;
        }
        let id = SiteId(self.sites.len() as u32);
        self.sites.push(location.clone());
        self.sites_seen.push(seen);
        self.site_ids.insert(location, id);
        id
    }

    /// The shared copy of `args`.
    fn intern_collective_args(&mut self, args: CollectiveArgs) -> Arc<CollectiveArgs> {
        if let Some(shared) = self.distinct_collective_args.get(&args) {
            return shared.clone();
        }
        let shared = Arc::new(args);
        self.distinct_collective_args.insert(shared.clone());
        shared
    }

    fn datatype(
        &mut self,
        name: &str,
        seen: Seen,
        size: Option<u64>,
        layout: Option<Arc<Layout>>,
    ) -> TypeId {
        if let Some(&id) = self.datatype_ids.get(name) {
            if self.datatypes_seen.again(id.0, seen) {
                let info = &mut self.datatypes[id.0 as usize];
                (info.size, info.layout) = (size, layout);
            }
            return id;
        }
        let id = TypeId(self.datatypes.len() as u32);
        self.datatypes.push(DatatypeInfo {
            name: name.to_string(),
            size,
            layout,
        });
        self.datatypes_seen.push(seen);
        self.datatype_ids.insert(name.to_string(), id);
        id
    }

    /// The numbering a normalization rank after rank gives, once every rank is normalized.
    /// (Takes the first-seen tables: they are of no use after.)
    fn numbering(&mut self) -> Numbering {
        Numbering::new(
            std::mem::take(&mut self.sites_seen),
            std::mem::take(&mut self.comms_seen),
            std::mem::take(&mut self.datatypes_seen),
            std::mem::take(&mut self.rma.windows_seen),
        )
    }
}

/// Normalizes the traces of one run. `resolve(trace_index, address)` resolves a call site
/// of the process whose trace is `traces[trace_index]`.
pub fn normalize(
    traces: &[Trace],
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
) -> Result<Run, NormalizeError> {
    normalize_in(traces, resolve, Order::EntryTime)
}

/// [`normalize`], the ranks' calls taken in `order`.
pub(crate) fn normalize_in(
    traces: &[Trace],
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    order: Order,
) -> Result<Run, NormalizeError> {
    if traces.is_empty() {
        return Err(NormalizeError::Empty);
    }
    let assignment = assign_ranks(traces)?;
    let (mut run, numbering) = normalize_assigned(
        traces,
        assignment,
        &mut |i| Ok(traces[i].calls.iter().map(Ok)),
        resolve,
        &mut [],
        order,
        Keep::AllEvents,
        &mut |_| None,
    )?;
    numbering.apply(&mut run);
    Ok(run)
}

/// As [`normalize`], for traces whose calls are not held ([`mpicheck_trace::scan_trace`]):
/// `calls(i)` decodes the calls of `traces[i]` one at a time, so that the records of no rank
/// are held next to the run being built.
pub fn normalize_streaming<I, R>(
    traces: &[Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
) -> Result<Run, NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    let (mut run, numbering) = normalize_streaming_into(
        traces,
        calls,
        resolve,
        &mut [],
        Order::EntryTime,
        Keep::AllEvents,
        &mut |_| None,
    )?;
    numbering.apply(&mut run);
    Ok(run)
}

/// As [`normalize_streaming`], giving every event to `passes` as it is made, in `order`,
/// and keeping of the events what `keep` says. The run comes numbered as the passes saw it,
/// with the [`Numbering`] that makes its ids those of a normalization rank after rank
/// ([`Numbering::apply`]).
pub(crate) fn normalize_streaming_into<I, R>(
    traces: &[Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    passes: &mut [&mut dyn EventPass],
    order: Order,
    keep: Keep,
    ended: &mut dyn FnMut(usize) -> Option<Trace>,
) -> Result<(Run, Numbering), NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    if traces.is_empty() {
        return Err(NormalizeError::Empty);
    }
    let assignment = assign_ranks(traces)?;
    normalize_assigned(
        traces, assignment, calls, resolve, passes, order, keep, ended,
    )
}

/// What the run made while the events are given to passes keeps of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Every event, and the arguments of every collective call: a [`Run`] to read whole.
    AllEvents,
    /// Each rank's last `n` events (for reports: where each rank was when its trace
    /// ended), no collective call's arguments once the passes saw its event, and no
    /// synchronization record of threads once the passes saw it: when every
    /// check is a pass, the analysis then holds no more than the passes do.
    LastEvents(usize),
}

/// In which order the ranks' calls are normalized (and given to the passes). The run made is
/// the same in every order, once numbered ([`Numbering`]).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Order<'o> {
    /// Every call of rank 0, then every call of rank 1, ...: a pass that pairs one rank's
    /// calls with another's holds all of rank 0's until rank 1 comes.
    RankAfterRank,
    /// The call that entered MPI first (its trace's start on the wall clock plus the call's
    /// entry time), of any rank, next: a pass then holds about what the ranks ran ahead of
    /// each other.
    EntryTime,
    /// The rank that `choose` names among the ranks with calls left, in rank order (tests).
    Chosen(&'o mut dyn FnMut(&[Rank]) -> Rank),
}

/// One rank's calls being normalized: its stream, its calls to come (the next one read
/// ahead, to order the ranks by it) and its events so far.
struct Active<'a, I, R> {
    stream: RankStream<'a>,
    calls: I,
    next: Option<R>,
    events: Vec<Event>,
    /// How many of the rank's first events are no longer in `events` ([`Keep::LastEvents`]).
    dropped: usize,
}

/// Normalizes the traces as `assignment` assigned them to ranks, with the calls of
/// `traces[i]` from `calls(i)` taken in `order`, giving every event to `passes` as it is
/// made. The run comes numbered as the calls came, with the [`Numbering`] of a
/// normalization rank after rank. `ended(i)`: `traces[i]` as its process left it, when
/// `traces` were read while the processes ran (how each rank ended is read from it).
#[allow(clippy::too_many_arguments)]
fn normalize_assigned<I, R>(
    traces: &[Trace],
    assignment: RankAssignment,
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    passes: &mut [&mut dyn EventPass],
    mut order: Order,
    keep: Keep,
    ended: &mut dyn FnMut(usize) -> Option<Trace>,
) -> Result<(Run, Numbering), NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    let RankAssignment {
        by_rank,
        world_size,
        ..
    } = assignment;
    let mut tables = Tables::new(world_size);
    let mut active: Vec<Option<Active<I, R>>> = Vec::with_capacity(world_size as usize);
    for rank in 0..world_size {
        let Some(&index) = by_rank.get(&(rank as i32)) else {
            active.push(None);
            continue;
        };
        let read_error = |source| NormalizeError::Read { rank, source };
        let trace = &traces[index];
        let mut calls = calls(index).map_err(read_error)?;
        let next = calls.next().transpose().map_err(read_error)?;
        active.push(Some(Active {
            stream: RankStream::new(rank, world_size, index, trace, &mut tables),
            calls,
            next,
            events: match keep {
                // Sized once: a doubling vector would hold up to half again as spare room.
                Keep::AllEvents => {
                    Vec::with_capacity(usize::try_from(trace.mpi_calls).unwrap_or(0))
                }
                Keep::LastEvents(n) => Vec::with_capacity(2 * n),
            },
            dropped: 0,
        }));
    }
    let entry_time = |a: &Active<I, R>| {
        a.next.as_ref().map(|call| {
            a.stream
                .trace
                .header
                .start_unix_ns
                .wrapping_add(call.borrow().t_enter_ns)
        })
    };
    // The ranks with calls left by the entry time of their next call (earliest first; ties:
    // the lower rank).
    let mut by_time: std::collections::BinaryHeap<std::cmp::Reverse<(u64, Rank)>> = active
        .iter()
        .flatten()
        .filter_map(|a| Some(std::cmp::Reverse((entry_time(a)?, a.stream.rank))))
        .collect();
    let mut made = Vec::new();
    // The events just given to the passes, when their collective arguments go with them.
    let mut seen: Vec<(Rank, u32)> = Vec::new();
    let mut lowest = 0;
    loop {
        let rank = match &mut order {
            Order::RankAfterRank => {
                while active
                    .get(lowest)
                    .is_some_and(|a| a.as_ref().is_none_or(|a| a.next.is_none()))
                {
                    lowest += 1;
                }
                if lowest == active.len() {
                    break;
                }
                lowest as Rank
            }
            Order::EntryTime => match by_time.pop() {
                Some(std::cmp::Reverse((_, rank))) => rank,
                None => break,
            },
            Order::Chosen(choose) => {
                let left: Vec<Rank> = active
                    .iter()
                    .flatten()
                    .filter(|a| a.next.is_some())
                    .map(|a| a.stream.rank)
                    .collect();
                if left.is_empty() {
                    break;
                }
                choose(&left)
            }
        };
        let a = active[rank as usize]
            .as_mut()
            .expect("only ranks with a trace have calls");
        let call = a
            .next
            .take()
            .expect("only ranks with calls left are chosen");
        a.stream
            .call(call.borrow(), &mut tables, resolve, &mut |out| {
                made.push(out)
            });
        let run_tables = RunTables::new(
            &tables.sites,
            &tables.comms,
            &tables.datatypes,
            &tables.collective_args,
            &tables.rma.windows,
            &tables.rma.calls,
            &tables.buffer_accesses,
        );
        for out in made.drain(..) {
            match out {
                Normalized::Event(event) => {
                    let index = a.dropped + a.events.len();
                    for pass in passes.iter_mut() {
                        pass.event(rank, index, &event, &run_tables);
                    }
                    a.events.push(event);
                    if let Keep::LastEvents(n) = keep {
                        seen.push((rank, index as u32));
                        if a.events.len() >= 2 * n.max(1) {
                            a.events.drain(..a.events.len() - n);
                            a.dropped = index + 1 - n;
                        }
                    }
                }
                Normalized::Sync(sync) => {
                    for pass in passes.iter_mut() {
                        pass.sync(rank, &sync);
                    }
                    if let Keep::LastEvents(_) = keep {
                        // The passes have it (an OpenMP program makes one per barrier and
                        // thread).
                        a.stream.forget_syncs();
                    }
                }
                Normalized::Mark(mark) => {
                    for pass in passes.iter_mut() {
                        pass.mark(rank, &mark);
                    }
                }
                Normalized::CommFreed(comm) => {
                    for pass in passes.iter_mut() {
                        pass.comm_freed(comm, &run_tables);
                    }
                }
                Normalized::Matched { event, matched } => {
                    for pass in passes.iter_mut() {
                        pass.matched(rank, event, matched);
                    }
                    if let Some(Event {
                        op: Op::Recv { recv, .. } | Op::Sendrecv { recv, .. },
                        ..
                    }) = event
                        .checked_sub(a.dropped)
                        .and_then(|i| a.events.get_mut(i))
                    {
                        recv.matched = Some(matched);
                    }
                }
            }
        }
        // The passes took what they need of the collective arguments.
        for key in seen.drain(..) {
            tables.collective_args.remove(&key);
        }
        a.next = a
            .calls
            .next()
            .transpose()
            .map_err(|source| NormalizeError::Read { rank, source })?;
        if matches!(order, Order::EntryTime) {
            if let Some(time) = entry_time(a) {
                by_time.push(std::cmp::Reverse((time, rank)));
            }
        }
    }
    let mut ranks = Vec::with_capacity(world_size as usize);
    for (rank, a) in active.into_iter().enumerate() {
        let rank = rank as Rank;
        ranks.push(match a {
            Some(Active {
                stream, mut events, ..
            }) => {
                if let Keep::LastEvents(n) = keep {
                    events.drain(..events.len().saturating_sub(n));
                }
                let as_ended = ended(stream.trace_index);
                let (end, threads) = stream.finish(&mut tables, resolve, as_ended.as_ref());
                RankTrace {
                    rank,
                    events,
                    end,
                    threads,
                }
            }
            None => RankTrace {
                rank,
                events: Vec::new(),
                end: RankEnd::Interrupted {
                    reason: "no trace was written by this rank".into(),
                },
                threads: ThreadInfo::default(),
            },
        });
    }
    let numbering = tables.numbering();
    tables.rma.name_windows(&numbering, &tables.comms);
    // Each rank's accesses in its trace's order, rank after rank.
    tables.buffer_accesses.sort_by_key(|access| access.rank);
    let run = Run {
        ranks,
        comms: tables.comms,
        sites: tables.sites,
        datatypes: tables.datatypes,
        collective_args: tables.collective_args,
        windows: tables.rma.windows,
        rma: tables.rma.calls,
        buffer_accesses: tables.buffer_accesses,
        buffer_watch: tables.buffer_watch,
    };
    Ok((run, numbering))
}

/// What normalizing a call yields, in the rank's order.
pub(crate) enum Normalized {
    /// The rank's next event; its index is the number of events before it.
    Event(Event),
    /// Every member freed this communicator (with the last member's `MPI_Comm_free`, after
    /// its event): no event names it any more.
    CommFreed(CommId),
    /// The source and tag an earlier receive event matched, known when the call that
    /// completed its request is normalized (before that call's own event).
    Matched { event: usize, matched: (Rank, i32) },
    /// A synchronization record of the rank's threads, in record order with its events.
    Sync(SyncEvent),
    /// What the rank's trace says of its threads besides synchronization, in record order
    /// with its events (an object's use or free right after the event).
    Mark(crate::checks::pass::ThreadMark),
}

/// One rank's trace normalized call by call: the rank's state between calls, and what
/// decides how the rank ended. Several ranks' streams can advance in any interleaving, each
/// call borrowing the run's shared [`Tables`].
struct RankStream<'a> {
    rank: Rank,
    /// Index of the rank's trace, for the site resolver.
    trace_index: usize,
    trace: &'a Trace,
    state: RankState,
    threads: crate::threads::ThreadInfoBuilder,
    /// A program has few call sites and calls them many times: each address is resolved
    /// (and the location's strings hashed) once.
    sites_by_address: FxHashMap<u64, SiteId>,
    /// When `MPI_Finalize` returned.
    finalized_at: Option<u64>,
    /// Events yielded so far.
    events: usize,
    /// The last `MPI_Abort` event (index, thread, call), and whether its thread made a call
    /// after it.
    last_abort: Option<(usize, u16, &'static str)>,
    abort_followed: bool,
    /// Each thread's last event that did not return.
    last_unreturned: FxHashMap<u16, (usize, &'static str)>,
    /// Receives matched by the call being normalized.
    matched: Vec<(usize, (Rank, i32))>,
    /// Where the arguments of the call being normalized are in its words, for functions
    /// with arrays (room reused from call to call).
    slots: Vec<args::Slot>,
    /// The plan of each function of the trace called so far.
    plans: plan::FunctionPlans,
}

impl<'a> RankStream<'a> {
    /// Drops the rank's synchronization records made so far ([`Keep::LastEvents`]).
    fn forget_syncs(&mut self) {
        self.threads.forget_syncs();
    }

    fn new(
        rank: Rank,
        world_size: u32,
        trace_index: usize,
        trace: &'a Trace,
        tables: &mut Tables,
    ) -> RankStream<'a> {
        RankStream {
            rank,
            trace_index,
            trace,
            state: RankState::new(rank, world_size, trace, tables),
            threads: crate::threads::ThreadInfoBuilder::new(trace),
            sites_by_address: FxHashMap::default(),
            finalized_at: None,
            events: 0,
            last_abort: None,
            abort_followed: false,
            last_unreturned: FxHashMap::default(),
            matched: Vec::new(),
            slots: Vec::new(),
            plans: plan::FunctionPlans::default(),
        }
    }

    fn site(
        &mut self,
        address: u64,
        tables: &mut Tables,
        resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    ) -> SiteId {
        site_at(
            &mut self.sites_by_address,
            address,
            tables,
            &mut self.state,
            &mut |a| resolve(self.trace_index, a),
        )
    }

    /// Normalizes the rank's next call record, giving `out` what it yields.
    fn call(
        &mut self,
        call: &CallRecord,
        tables: &mut Tables,
        resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
        out: &mut dyn FnMut(Normalized),
    ) {
        let trace = self.trace;
        let Some(function) = trace.schema.function(call.func) else {
            return;
        };
        let syncs_before = self.threads.sync_len();
        if self.threads.sync_record(function, call) {
            if self.threads.threads_started() {
                self.state.objects.track_uses();
            }
            // (A block a record ends, or a region it begins or ends, comes before it.)
            for mark in self.threads.take_marks() {
                out(Normalized::Mark(mark));
            }
            for sync in self.threads.syncs_from(syncs_before) {
                out(Normalized::Sync(*sync));
            }
            return;
        }
        // (The thread level, before the first event.)
        for mark in self.threads.take_marks() {
            out(Normalized::Mark(mark));
        }
        let site = self.site(call.callsite, tables, resolve);
        let (rank, index) = (self.rank, self.trace_index);
        match function.name.as_str() {
            "MPICHECK_Access" => {
                let values = call.args(function);
                let int = |name: &str| {
                    let p = function.params.iter().position(|p| p.name == name);
                    p.and_then(|p| values.get(p).and_then(|(v, _)| v.as_int()))
                        .unwrap_or(-1)
                };
                let post_site = match int("post_site") {
                    a if a > 0 => tables.site(resolve(index, a as u64), self.state.seen()),
                    _ => SiteId(0),
                };
                tables.buffer_accesses.push(BufferAccess {
                    rank,
                    site,
                    write: int("write") == 1,
                    address: int("address") as u64,
                    thread: u16::try_from(int("thread")).ok(),
                    tid: u32::try_from(int("tid")).unwrap_or(0),
                    start: int("start") as u64,
                    len: int("len") as u64,
                    recv: int("recv") == 1,
                    post_site,
                    events_before: self.events as u32,
                });
                return;
            }
            "MPICHECK_Buffers" => {
                let values = call.args(function);
                let count = |i: usize| {
                    values
                        .get(i)
                        .and_then(|(v, _)| v.as_int())
                        .map_or(0, |v| v.max(0) as u64)
                };
                let total = tables.buffer_watch.get_or_insert_default();
                total.watched += count(0);
                total.unwatched += count(1);
                total.dropped += count(2);
                return;
            }
            _ => {}
        }
        if function.name == "MPI_Op_create" {
            // The user function, by where it is defined (addresses differ per process);
            // +1: the resolver expects a return address and looks one byte before it.
            let user_fn = call
                .args(function)
                .first()
                .and_then(|(v, _)| v.as_int())
                .map(|a| resolve(index, a as u64 + 1));
            self.state.pending_user_fn = user_fn;
        }
        let this_index = self.events;
        let mut normalizer = RankNormalizer {
            tables,
            state: &mut self.state,
        };
        let plan = self.plans.of(call.func, function);
        let event = normalizer.event(
            function,
            plan,
            call,
            site,
            this_index,
            &mut self.matched,
            &mut self.slots,
        );
        for (event, matched) in self.matched.drain(..) {
            // (A call completing a receive it started itself has no earlier event to fill.)
            if event < this_index {
                out(Normalized::Matched { event, matched });
            }
        }
        let Some(mut event) = event else {
            // (No event for uses to be marked on.)
            self.state.objects.marks.clear();
            for comm in self.state.freed_comms.drain(..) {
                out(Normalized::CommFreed(comm));
            }
            return;
        };
        let time = crate::threads::call_time(call);
        event.time = Some(time);
        // A call made after MPI_Finalize returned is no MPI operation (MPI may have
        // aborted in it, or not recorded it on every rank): AR010/TH002 report it,
        // matching and replay leave it out.
        if self.finalized_at.is_some_and(|exit| time.enter_ns >= exit) {
            event.op = Op::Other;
        }
        if matches!(event.op, Op::Finalize) && event.returned {
            self.finalized_at = time.exit_ns;
        }
        if event.call == "MPI_Abort" {
            self.last_abort = Some((this_index, event.thread, event.call));
            self.abort_followed = false;
        } else if self
            .last_abort
            .is_some_and(|(_, thread, _)| thread == event.thread)
        {
            self.abort_followed = true;
        }
        if !event.returned {
            self.last_unreturned
                .insert(event.thread, (this_index, event.call));
        }
        if let Some(call) = tables.rma.calls.get_mut(&(rank, this_index as u32)) {
            call.event = EventSummary::of(&event);
        }
        self.events += 1;
        out(Normalized::Event(event));
        for mark in self.state.objects.marks.drain(..) {
            out(Normalized::Mark(mark));
        }
        for comm in self.state.freed_comms.drain(..) {
            out(Normalized::CommFreed(comm));
        }
    }

    /// How the rank ended, and its threads, once every call is normalized.
    /// `as_ended`: the trace as its process left it, when the calls were read while it ran.
    fn finish(
        mut self,
        tables: &mut Tables,
        resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
        as_ended: Option<&Trace>,
    ) -> (RankEnd, ThreadInfo) {
        let trace = as_ended.unwrap_or(self.trace);
        // A trace lacking calls its process made ends like an interrupted one: what the rank
        // did after its last recorded call is unknown, so nothing is concluded from it.
        let end = if let Some(incomplete) = trace.incomplete() {
            RankEnd::Interrupted {
                reason: match incomplete {
                    Incomplete::Cut { .. } => {
                        format!("the trace was cut after the process wrote it: {incomplete}")
                    }
                    Incomplete::NoSpace { .. } => format!("the trace is incomplete: {incomplete}"),
                },
            }
        } else if trace.header.finalized() && trace.header.exited() {
            RankEnd::Finalized
        } else if let Some((event, _, call)) = self.last_abort.filter(|_| !self.abort_followed) {
            // The program aborted the job: MPI ended every process there, whether or not its
            // exit handlers ran (MPICH runs them when the communicator is not MPI_COMM_WORLD).
            RankEnd::AbortedInCall { event, call }
        } else if trace.header.exited() {
            RankEnd::ExitedWithoutFinalize
        } else if let Some(&(event, call)) = trace
            .header
            .aborted_in_call()
            .and_then(|thread| self.last_unreturned.get(&thread))
        {
            RankEnd::AbortedInCall { event, call }
        } else {
            RankEnd::Interrupted {
                reason: match &trace.end {
                    EndOfTrace::Truncated { reason, .. } => reason.clone(),
                    // (A cut is only found in traces of processes that exited.)
                    EndOfTrace::Clean | EndOfTrace::Cut { .. } => {
                        "the process did not exit normally".into()
                    }
                },
            }
        };
        let index = self.trace_index;
        let sites = &mut self.sites_by_address;
        let state = &mut self.state;
        let thread_info = self
            .threads
            .finish(|address| site_at(sites, address, tables, state, &mut |a| resolve(index, a)));
        let mut shared = std::mem::take(&mut self.state.shared_requests);
        shared.sort_unstable();
        shared.dedup();
        let threads = ThreadInfo {
            shared_requests: shared,
            freed_after_use: std::mem::take(&mut self.state.objects.freed_after_use),
            ..thread_info
        };
        (end, threads)
    }
}

/// The id of the call site at `address`, resolved once per address.
fn site_at(
    sites: &mut FxHashMap<u64, SiteId>,
    address: u64,
    tables: &mut Tables,
    rank: &mut RankState,
    resolve: &mut dyn FnMut(u64) -> SourceLocation,
) -> SiteId {
    *sites
        .entry(address)
        .or_insert_with(|| tables.site(resolve(address), rank.seen()))
}

/// A request as one rank knows it.
struct RequestInfo {
    id: ReqId,
    persistent: bool,
    /// Communicator of the operation, to translate the status source of a receive.
    comm: Option<LocalComm>,
    /// Index of the receive event whose `matched` a completion fills in.
    recv_event: Option<usize>,
    /// When the call that made it returned (`u64::MAX` if it did not): a call that entered
    /// MPI before then cannot name it (see `request_of`).
    made_ns: u64,
}

/// What the normalization of one rank keeps from call to call: its handle tables and live
/// objects.
struct RankState {
    rank: Rank,
    /// Entries of the run's tables this rank named so far (see [`Seen`]).
    named: u32,
    constants: Constants,
    comms: FxHashMap<i64, LocalComm>,
    /// Live requests by raw handle, oldest first. Usually one per handle, but MPI may hand
    /// out one handle for several live requests: Open MPI returns its static, already
    /// complete `ompi_request_empty` for every send it finished inline.
    requests: FxHashMap<i64, smallvec::SmallVec<[RequestInfo; 1]>>,
    /// Handles completed by a call and when that call returned: another thread's call that
    /// entered before then still used the same request (records are in entry order, so a
    /// completion is seen before calls of other threads that overlapped it).
    retired: FxHashMap<i64, (ReqId, u64)>,
    /// Requests whose handle MPI gave to another live request too.
    shared_requests: Vec<ReqId>,
    /// Entry and exit time of the call being normalized.
    call_enter_ns: u64,
    call_exit_ns: u64,
    next_request: u32,
    /// Derived datatype handles → their id.
    datatypes: FxHashMap<i64, TypeId>,
    /// Predefined datatype handles → their id, once looked up.
    predefined_type_ids: FxHashMap<i64, TypeId>,
    /// Derived datatype handles → their signature structure, from the constructor calls
    /// (committed or not: constructors may use uncommitted types).
    layouts: FxHashMap<i64, Arc<Layout>>,
    /// User-defined reduction operations → description.
    /// User-defined ops by handle: how to name them across ranks, `None` when the function
    /// is unknown (stripped binary): such ops are not compared.
    user_ops: FxHashMap<i64, Option<String>>,
    /// Where the function of the `MPI_Op_create` being normalized is defined.
    pending_user_fn: Option<SourceLocation>,
    /// Graph topologies by communicator handle, and the one whose creation awaits its
    /// `MPICHECK_Comm_info`.
    topologies: FxHashMap<i64, Topology>,
    pending_topology: Option<Topology>,
    /// Open files → the communicator they were opened on.
    files: FxHashMap<i64, LocalComm>,
    /// The communicator of each window, from its creation (window calls name no communicator).
    windows: FxHashMap<i64, LocalComm>,
    /// Communicator-creating calls per parent so far on this rank, counting the ones that
    /// gave this rank MPI_COMM_NULL: every member of the parent makes each call, so the
    /// count agrees across ranks even when the new communicators' member sets differ.
    creations: FxHashMap<CommId, u32>,
    intercomm_creations: FxHashMap<(Vec<Rank>, Vec<Rank>), u32>,
    /// The last communicator-creating call (parent, name, ordinal on the parent), awaiting
    /// its `MPICHECK_Comm_info`.
    pending_creation: Option<(CommId, &'static str, u32)>,
    /// Communicators the call being normalized freed as their last member.
    freed_comms: Vec<CommId>,
    /// Live MPI objects and the constants to judge arguments by.
    objects: facts::ObjectTables,
    rma: rma::RankWindows,
}

impl RankState {
    /// This rank names an entry of the run's tables.
    fn seen(&mut self) -> Seen {
        self.named += 1;
        Seen::of(self.rank, self.named)
    }
}

/// One rank's state with the run's shared tables, while one call is normalized. (Each rank
/// keeps its own [`RankState`], so the ranks of a run can be normalized in any interleaving.)
struct RankNormalizer<'t> {
    tables: &'t mut Tables,
    state: &'t mut RankState,
}

impl std::ops::Deref for RankNormalizer<'_> {
    type Target = RankState;
    fn deref(&self) -> &RankState {
        self.state
    }
}

impl std::ops::DerefMut for RankNormalizer<'_> {
    fn deref_mut(&mut self) -> &mut RankState {
        self.state
    }
}
