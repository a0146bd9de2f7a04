//! Turns raw per-process traces into the [`Run`] model.
//!
//! Traces hold what each process saw: raw handle bits, communicator-relative ranks, request
//! handles that MPI reuses. Here each rank's calls are replayed through handle tables:
//! communicators get a [`CommId`] that is equal on every member (derived from the parent
//! communicator, the position of the creating call on it, and the member set recorded by the
//! `MPICHECK_Comm_info` pseudo-call), ranks become world ranks, requests become [`ReqId`]s
//! that are never reused, and the matched source and tag of a completed receive are copied
//! onto the receive that started it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mpicheck_trace::{ArgValue, CallRecord, EndOfTrace, FunctionSchema, Incomplete, Status, Trace};

use crate::model::*;
use crate::typesig::Layout;

mod facts;
mod rma;
pub(crate) use facts::allowed_anytime;

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
    #[error("the traces disagree on the world size (pid {0} says {1} ranks, pid {2} says {3}): a trace is damaged, or the directory holds traces of two runs")]
    WorldSizesDisagree(u32, i32, u32, i32),
}

/// How far the world size may exceed the ranks that left a trace: twice their number plus
/// this. Ranks may leave no trace (they died before their first MPI call, their trace is
/// unreadable), but a claim far beyond the traces present is a damaged header, and believing
/// it would cost memory and time for every claimed rank.
const UNTRACED_RANKS_SLACK: u64 = 1024;

/// Which trace is which world rank (see [`assign_ranks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankAssignment {
    /// Index of the rank's trace, by world rank.
    pub by_rank: HashMap<i32, usize>,
    /// Traces of processes that claim a rank another trace is (child processes of the
    /// rank that inherited its environment), in the order of the traces.
    pub ignored: Vec<IgnoredTrace>,
    pub world_size: u32,
}

/// A trace that claims a rank but is not that rank's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IgnoredTrace {
    /// Index into the traces.
    pub trace: usize,
    pub rank: i32,
    /// Index of the trace that is the rank's.
    pub rank_trace: usize,
}

/// Whether a trace can be a rank's: its process initialized MPI or made an MPI call. A
/// process that only left mpicheck's own pseudo-calls (`MPICHECK_*`) is a helper the rank
/// started (a shell, a tool) that inherited the preloaded library.
pub fn is_rank_trace(trace: &Trace) -> bool {
    trace.header.initialized()
        || trace
            .calls
            .iter()
            .any(|c| !trace.function_name(c.func).starts_with("MPICHECK_"))
}

/// Assigns world ranks to traces. A process that died before `MPI_Init` has only its
/// launcher's rank. Child processes of a rank may leave traces claiming that rank (they
/// inherit its environment): among the traces claiming one rank, the one whose process
/// initialized MPI is the rank's, else the process that started first (then the lowest
/// pid); the others are [`RankAssignment::ignored`]. Traces that are no rank's
/// ([`is_rank_trace`]) claim nothing. Two traces that both initialized MPI as one rank come
/// from two runs mixed in one directory: an error.
pub fn assign_ranks(traces: &[Trace]) -> Result<RankAssignment, NormalizeError> {
    let mut claims: HashMap<i32, Vec<usize>> = HashMap::new();
    for (index, trace) in traces.iter().enumerate() {
        if let Some(rank) = trace.header.best_rank().filter(|_| is_rank_trace(trace)) {
            claims.entry(rank).or_default().push(index);
        }
    }
    let mut assignment = RankAssignment::default();
    for (rank, mut claimants) in claims {
        let initialized: Vec<usize> = claimants
            .iter()
            .copied()
            .filter(|&i| traces[i].header.initialized())
            .collect();
        if let [first, second, ..] = initialized[..] {
            return Err(NormalizeError::DuplicateRank(
                rank,
                traces[first].header.pid,
                traces[second].header.pid,
            ));
        }
        // Unknown start times (0) sort last.
        claimants.sort_by_key(|&i| {
            let h = &traces[i].header;
            (!h.initialized(), h.process_start.wrapping_sub(1), h.pid, i)
        });
        let winner = claimants[0];
        assignment
            .ignored
            .extend(claimants[1..].iter().map(|&trace| IgnoredTrace {
                trace,
                rank,
                rank_trace: winner,
            }));
        assignment.by_rank.insert(rank, winner);
    }
    assignment.ignored.sort_by_key(|t| t.trace);
    // Every rank of a run saw the same world.
    let mut ranks: Vec<(i32, usize)> = assignment.by_rank.iter().map(|(&r, &i)| (r, i)).collect();
    ranks.sort_unstable();
    let mut sizes = ranks
        .iter()
        .filter_map(|&(_, i)| Some((traces[i].header.world_size?, traces[i].header.pid)));
    let claimed = sizes.next();
    if let Some((size, pid)) = claimed {
        if let Some((other, other_pid)) = sizes.find(|&(s, _)| s != size) {
            return Err(NormalizeError::WorldSizesDisagree(
                pid, size, other_pid, other,
            ));
        }
    }
    let world_size = claimed
        .map_or(0, |(size, _)| size)
        .max(assignment.by_rank.keys().max().map_or(0, |m| m + 1))
        .max(0) as u64;
    if world_size > mpicheck_trace::MAX_WORLD_SIZE as u64 {
        return Err(NormalizeError::WorldTooLarge(world_size));
    }
    let traced = assignment.by_rank.len();
    if world_size > 2 * traced as u64 + UNTRACED_RANKS_SLACK {
        return Err(NormalizeError::WorldBeyondTraces {
            world: world_size,
            traced,
        });
    }
    assignment.world_size = world_size as u32;
    Ok(assignment)
}

/// Interns a function name for [`Event::call`]. The set of names is bounded by the MPI
/// function table (a few hundred), so leaking them is bounded too.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = names.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(name.to_string(), s);
    s
}

/// The MPI constants of one process's MPI library, from the trace's constants record.
#[derive(Default)]
struct Constants {
    comm_world: Option<i64>,
    comm_self: Option<i64>,
    comm_null: Option<i64>,
    request_null: Option<i64>,
    any_source: Option<i64>,
    any_tag: Option<i64>,
    proc_null: Option<i64>,
    undefined: Option<i64>,
    /// Raw handle → predefined datatype name.
    datatypes: HashMap<i64, String>,
    datatype_sizes: HashMap<String, u64>,
    datatype_null: Option<i64>,
    /// Raw handle → predefined reduction operation name.
    ops: HashMap<i64, String>,
    in_place: Option<i64>,
    /// The `MPI_Win_fence` assertions every member must give if any gives them.
    mode_noprecede: Option<i64>,
    mode_nosucceed: Option<i64>,
}

impl Constants {
    fn of(trace: &Trace) -> Constants {
        let get = |name: &str| trace.constant(name).and_then(parse_int);
        let mut c = Constants {
            comm_world: get("MPI_COMM_WORLD"),
            comm_self: get("MPI_COMM_SELF"),
            comm_null: get("MPI_COMM_NULL"),
            request_null: get("MPI_REQUEST_NULL"),
            any_source: get("MPI_ANY_SOURCE"),
            any_tag: get("MPI_ANY_TAG"),
            proc_null: get("MPI_PROC_NULL"),
            undefined: get("MPI_UNDEFINED"),
            datatype_null: get("MPI_DATATYPE_NULL"),
            in_place: get("MPI_IN_PLACE"),
            mode_noprecede: get("MPI_MODE_NOPRECEDE_VALUE"),
            mode_nosucceed: get("MPI_MODE_NOSUCCEED_VALUE"),
            ..Default::default()
        };
        for (name, value) in &trace.constants {
            if let (Some(dt), Some(v)) = (name.strip_prefix("DATATYPE."), parse_int(value)) {
                c.datatypes.insert(v, dt.to_string());
            } else if let (Some(dt), Some(v)) =
                (name.strip_prefix("DATATYPE_SIZE."), parse_int(value))
            {
                c.datatype_sizes.insert(dt.to_string(), v as u64);
            } else if let (Some(op), Some(v)) = (name.strip_prefix("OP."), parse_int(value)) {
                c.ops.insert(v, op.to_string());
            }
        }
        c
    }
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok().map(|v| v as i64)
    } else {
        t.parse::<i64>()
            .ok()
            .or_else(|| t.parse::<u64>().ok().map(|v| v as i64))
    }
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

/// How one rank sees a communicator: the shared id plus which group is local.
#[derive(Clone)]
struct LocalComm {
    id: CommId,
    local: Vec<Rank>,
    remote: Option<Vec<Rank>>,
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

#[derive(Default)]
struct Tables {
    comms: Vec<CommInfo>,
    comm_ids: HashMap<CommKey, CommId>,
    sites: Vec<SourceLocation>,
    site_ids: HashMap<SourceLocation, SiteId>,
    datatypes: Vec<DatatypeInfo>,
    datatype_ids: HashMap<String, TypeId>,
    collective_args: HashMap<(Rank, u32), CollectiveArgs>,
    rma: rma::RmaTables,
}

impl Tables {
    fn comm(&mut self, key: CommKey, info: impl FnOnce() -> CommInfo) -> CommId {
        if let Some(&id) = self.comm_ids.get(&key) {
            return id;
        }
        let id = CommId(self.comms.len() as u32);
        self.comms.push(info());
        self.comm_ids.insert(key, id);
        id
    }

    fn site(&mut self, location: SourceLocation) -> SiteId {
        if let Some(&id) = self.site_ids.get(&location) {
            return id;
        }
        let id = SiteId(self.sites.len() as u32);
        self.sites.push(location.clone());
        self.site_ids.insert(location, id);
        id
    }

    fn datatype(&mut self, name: &str, size: Option<u64>, layout: Option<Arc<Layout>>) -> TypeId {
        if let Some(&id) = self.datatype_ids.get(name) {
            return id;
        }
        let id = TypeId(self.datatypes.len() as u32);
        self.datatypes.push(DatatypeInfo {
            name: name.to_string(),
            size,
            layout,
        });
        self.datatype_ids.insert(name.to_string(), id);
        id
    }
}

/// Normalizes the traces of one run. `resolve(trace_index, address)` resolves a call site
/// of the process whose trace is `traces[trace_index]`.
pub fn normalize(
    traces: &[Trace],
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
) -> Result<Run, NormalizeError> {
    if traces.is_empty() {
        return Err(NormalizeError::Empty);
    }
    let RankAssignment {
        by_rank,
        world_size,
        ..
    } = assign_ranks(traces)?;

    let mut tables = Tables::default();
    tables.sites.push(SourceLocation::default());
    let world: Vec<Rank> = (0..world_size).collect();
    tables.comm(CommKey::World, || CommInfo {
        name: "MPI_COMM_WORLD".into(),
        members: world.clone(),
        remote: None,
    });

    let mut ranks = Vec::with_capacity(world_size as usize);
    for rank in 0..world_size {
        let Some(&index) = by_rank.get(&(rank as i32)) else {
            ranks.push(RankTrace {
                rank,
                events: Vec::new(),
                end: RankEnd::Interrupted {
                    reason: "no trace was written by this rank".into(),
                },
                threads: ThreadInfo::default(),
            });
            continue;
        };
        let trace = &traces[index];
        let mut rank_state = RankNormalizer::new(rank, world_size, trace, &mut tables);
        let mut events = Vec::with_capacity(trace.calls.len());
        let mut finalized_at: Option<u64> = None;
        let mut threads = crate::threads::ThreadInfoBuilder::new(trace);
        for call in &trace.calls {
            let Some(function) = trace.schema.function(call.func) else {
                continue;
            };
            if threads.sync_record(function, call) {
                continue;
            }
            let site = {
                let location = resolve(index, call.callsite);
                rank_state.tables.site(location)
            };
            if function.name == "MPI_Op_create" {
                // The user function, by where it is defined (addresses differ per process);
                // +1: the resolver expects a return address and looks one byte before it.
                let user_fn = call
                    .args(function)
                    .first()
                    .and_then(|(v, _)| v.as_int())
                    .map(|a| resolve(index, a as u64 + 1));
                rank_state.pending_user_fn = user_fn;
            }
            if let Some(mut event) = rank_state.event(function, call, site, &mut events) {
                let time = crate::threads::call_time(call);
                event.time = Some(time);
                // A call made after MPI_Finalize returned is no MPI operation (MPI may have
                // aborted in it, or not recorded it on every rank): AR010/TH002 report it,
                // matching and replay leave it out.
                if finalized_at.is_some_and(|exit| time.enter_ns >= exit) {
                    event.op = Op::Other;
                }
                if matches!(event.op, Op::Finalize) && event.returned {
                    finalized_at = time.exit_ns;
                }
                events.push(event);
            }
        }
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
        } else if trace.header.exited() {
            RankEnd::ExitedWithoutFinalize
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
        ranks.push(RankTrace {
            rank,
            events,
            end,
            threads: ThreadInfo {
                shared_requests: {
                    let mut shared = std::mem::take(&mut rank_state.shared_requests);
                    shared.sort_unstable();
                    shared.dedup();
                    shared
                },
                ..threads.finish()
            },
        });
    }
    Ok(Run {
        ranks,
        comms: tables.comms,
        sites: tables.sites,
        datatypes: tables.datatypes,
        collective_args: tables.collective_args,
        windows: tables.rma.windows,
        rma: tables.rma.calls,
    })
}

/// A process topology as its creating call described it (ranks of the new communicator).
#[derive(Clone)]
enum Topology {
    Cart {
        dims: Vec<i64>,
        periods: Vec<i64>,
    },
    Graph {
        index: Vec<i64>,
        edges: Vec<i64>,
    },
    Adjacent {
        sources: Vec<i64>,
        destinations: Vec<i64>,
    },
}

impl Topology {
    /// Source and destination neighbors (communicator ranks) of communicator rank `me`, in
    /// the order neighborhood collectives use (MPI 4.1 §8.6).
    fn neighbors(&self, me: i64) -> (Vec<Option<i64>>, Vec<Option<i64>>) {
        match self {
            Topology::Cart { dims, periods } => {
                // Row-major coordinates; per dimension the -1 then the +1 neighbor.
                let mut coords = vec![0i64; dims.len()];
                let mut rest = me;
                for d in (0..dims.len()).rev() {
                    let n = dims[d].max(1);
                    coords[d] = rest % n;
                    rest /= n;
                }
                let mut out = Vec::new();
                for d in 0..dims.len() {
                    for step in [-1i64, 1] {
                        let n = dims[d].max(1);
                        let mut c = coords.clone();
                        c[d] += step;
                        let periodic = periods.get(d).is_some_and(|&p| p != 0);
                        if c[d] < 0 || c[d] >= n {
                            if !periodic {
                                out.push(None);
                                continue;
                            }
                            c[d] = c[d].rem_euclid(n);
                        }
                        out.push(Some(
                            c.iter().zip(dims).fold(0, |r, (&x, &n)| r * n.max(1) + x),
                        ));
                    }
                }
                (out.clone(), out)
            }
            Topology::Graph { index, edges } => {
                let Ok(i) = usize::try_from(me) else {
                    return (Vec::new(), Vec::new());
                };
                let start = if i == 0 {
                    0
                } else {
                    index.get(i - 1).copied().unwrap_or(0)
                };
                let end = index.get(i).copied().unwrap_or(start);
                let list: Vec<Option<i64>> = edges
                    .get(start.max(0) as usize..end.max(start).max(0) as usize)
                    .unwrap_or(&[])
                    .iter()
                    .map(|&e| Some(e))
                    .collect();
                (list.clone(), list)
            }
            Topology::Adjacent {
                sources,
                destinations,
            } => (
                sources.iter().map(|&r| Some(r)).collect(),
                destinations.iter().map(|&r| Some(r)).collect(),
            ),
        }
    }
}

/// A request as one rank knows it.
struct RequestInfo {
    id: ReqId,
    persistent: bool,
    /// Communicator of the operation, to translate the status source of a receive.
    comm: Option<LocalComm>,
    /// Index of the receive event whose `matched` a completion fills in.
    recv_event: Option<usize>,
}

/// Per-rank handle tables while replaying one trace.
struct RankNormalizer<'t> {
    rank: Rank,
    tables: &'t mut Tables,
    constants: Constants,
    comms: HashMap<i64, LocalComm>,
    /// Live requests by raw handle, oldest first. Usually one per handle, but MPI may hand
    /// out one handle for several live requests: Open MPI returns its static, already
    /// complete `ompi_request_empty` for every send it finished inline.
    requests: HashMap<i64, Vec<RequestInfo>>,
    /// Handles completed by a call and when that call returned: another thread's call that
    /// entered before then still used the same request (records are in entry order, so a
    /// completion is seen before calls of other threads that overlapped it).
    retired: HashMap<i64, (ReqId, u64)>,
    /// Requests whose handle MPI gave to another live request too.
    shared_requests: Vec<ReqId>,
    /// Entry and exit time of the call being normalized.
    call_enter_ns: u64,
    call_exit_ns: u64,
    next_request: u32,
    /// Derived datatype handles → their id.
    datatypes: HashMap<i64, TypeId>,
    /// Derived datatype handles → their signature structure, from the constructor calls
    /// (committed or not: constructors may use uncommitted types).
    layouts: HashMap<i64, Arc<Layout>>,
    /// User-defined reduction operations → description.
    /// User-defined ops by handle: how to name them across ranks, `None` when the function
    /// is unknown (stripped binary): such ops are not compared.
    user_ops: HashMap<i64, Option<String>>,
    /// Where the function of the `MPI_Op_create` being normalized is defined.
    pending_user_fn: Option<SourceLocation>,
    /// Process topologies by communicator handle, and the one whose creation awaits its
    /// `MPICHECK_Comm_info`.
    topologies: HashMap<i64, Topology>,
    pending_topology: Option<Topology>,
    /// Open files → the communicator they were opened on.
    files: HashMap<i64, LocalComm>,
    /// The communicator of each window, from its creation (window calls name no communicator).
    windows: HashMap<i64, LocalComm>,
    /// Communicator-creating calls per parent so far on this rank, counting the ones that
    /// gave this rank MPI_COMM_NULL: every member of the parent makes each call, so the
    /// count agrees across ranks even when the new communicators' member sets differ.
    creations: HashMap<CommId, u32>,
    intercomm_creations: HashMap<(Vec<Rank>, Vec<Rank>), u32>,
    /// The last communicator-creating call (parent, name, ordinal on the parent), awaiting
    /// its `MPICHECK_Comm_info`.
    pending_creation: Option<(CommId, &'static str, u32)>,
    /// Live MPI objects and the constants to judge arguments by.
    objects: facts::ObjectTables,
    rma: rma::RankWindows,
}

/// Values of one call's parameters by name.
struct Args<'a> {
    function: &'a FunctionSchema,
    values: Vec<(ArgValue, ArgValue)>,
}

impl Args<'_> {
    fn position(&self, name: &str) -> Option<usize> {
        self.function.params.iter().position(|p| p.name == name)
    }
    fn input(&self, name: &str) -> Option<&ArgValue> {
        self.position(name).map(|i| &self.values[i].0)
    }
    fn output(&self, name: &str) -> Option<&ArgValue> {
        self.position(name).map(|i| &self.values[i].1)
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.input(name).and_then(ArgValue::as_int)
    }
    fn out_int(&self, name: &str) -> Option<i64> {
        self.output(name).and_then(ArgValue::as_int)
    }
    /// First parameter of `kind` with an input value, e.g. the communicator of a call.
    fn first_of_kind(&self, kind: &str) -> Option<i64> {
        self.function
            .params
            .iter()
            .zip(&self.values)
            .find(|(p, _)| p.kind == kind)
            .and_then(|(_, v)| v.0.as_int())
    }
    fn status(&self) -> Option<Status> {
        match self.output("status") {
            Some(ArgValue::Status(s)) => Some(*s),
            _ => None,
        }
    }
    fn statuses(&self) -> Option<&[Status]> {
        match self.output("array_of_statuses") {
            Some(ArgValue::Statuses(s)) => Some(s),
            _ => None,
        }
    }
}

/// The function name without the large-count suffix: `MPI_Send_c` behaves as `MPI_Send`.
fn base_name(name: &str) -> &str {
    name.strip_suffix("_c").unwrap_or(name)
}

fn collective_kind(name: &str) -> Option<CollectiveKind> {
    use CollectiveKind::*;
    Some(match name {
        "Barrier" => Barrier,
        "Bcast" => Bcast,
        "Gather" => Gather,
        "Gatherv" => Gatherv,
        "Scatter" => Scatter,
        "Scatterv" => Scatterv,
        "Allgather" => Allgather,
        "Allgatherv" => Allgatherv,
        "Alltoall" => Alltoall,
        "Alltoallv" => Alltoallv,
        "Alltoallw" => Alltoallw,
        "Reduce" => Reduce,
        "Allreduce" => Allreduce,
        "Reduce_scatter" => ReduceScatter,
        "Reduce_scatter_block" => ReduceScatterBlock,
        "Scan" => Scan,
        "Exscan" => Exscan,
        "Neighbor_allgather" => NeighborAllgather,
        "Neighbor_allgatherv" => NeighborAllgatherv,
        "Neighbor_alltoall" => NeighborAlltoall,
        "Neighbor_alltoallv" => NeighborAlltoallv,
        "Neighbor_alltoallw" => NeighborAlltoallw,
        _ => return None,
    })
}

/// `Ialltoall` → `Alltoall`: the blocking collective's name for a nonblocking one's.
fn nonblocking_base(short: &str) -> Option<String> {
    let rest = short.strip_prefix('I')?;
    let mut chars = rest.chars();
    let first = chars.next()?;
    Some(first.to_ascii_uppercase().to_string() + chars.as_str())
}

/// Calls that synchronize the members of their communicator like a collective without moving
/// user data; the ones that create communicators are followed by `MPICHECK_Comm_info`.
const MANAGEMENT_COLLECTIVES: &[&str] = &[
    "MPI_Comm_dup",
    "MPI_Comm_dup_with_info",
    "MPI_Comm_idup",
    "MPI_Comm_idup_with_info",
    "MPI_Comm_split",
    "MPI_Comm_split_type",
    "MPI_Comm_create",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Win_create",
    "MPI_Win_allocate",
    "MPI_Win_allocate_shared",
    "MPI_Win_create_dynamic",
    "MPI_Win_fence",
    "MPI_Win_free",
    "MPI_File_open",
    "MPI_File_close",
];

/// Collective MPI-IO calls on an open file (the file's communicator is the one of its
/// `MPI_File_open`).
const FILE_COLLECTIVES: &[&str] = &[
    "File_close",
    "File_set_view",
    "File_set_size",
    "File_preallocate",
    "File_set_atomicity",
    "File_set_info",
    "File_sync",
    "File_seek_shared",
    "File_read_all",
    "File_read_all_begin",
    "File_read_all_end",
    "File_read_at_all",
    "File_read_at_all_begin",
    "File_read_at_all_end",
    "File_read_ordered",
    "File_read_ordered_begin",
    "File_read_ordered_end",
    "File_write_all",
    "File_write_all_begin",
    "File_write_all_end",
    "File_write_at_all",
    "File_write_at_all_begin",
    "File_write_at_all_end",
    "File_write_ordered",
    "File_write_ordered_begin",
    "File_write_ordered_end",
];

impl<'t> RankNormalizer<'t> {
    fn new(rank: Rank, world_size: u32, trace: &Trace, tables: &'t mut Tables) -> Self {
        let constants = Constants::of(trace);
        let mut comms = HashMap::new();
        if let Some(world) = constants.comm_world {
            comms.insert(
                world,
                LocalComm {
                    id: CommId(0),
                    local: (0..world_size).collect(),
                    remote: None,
                },
            );
        }
        if let Some(self_handle) = constants.comm_self {
            let id = tables.comm(CommKey::SelfOf(rank), || CommInfo {
                name: format!("MPI_COMM_SELF of rank {rank}"),
                members: vec![rank],
                remote: None,
            });
            comms.insert(
                self_handle,
                LocalComm {
                    id,
                    local: vec![rank],
                    remote: None,
                },
            );
        }
        RankNormalizer {
            rank,
            tables,
            constants,
            comms,
            requests: HashMap::new(),
            retired: HashMap::new(),
            shared_requests: Vec::new(),
            call_enter_ns: 0,
            call_exit_ns: u64::MAX,
            next_request: 0,
            datatypes: HashMap::new(),
            layouts: HashMap::new(),
            user_ops: HashMap::new(),
            pending_user_fn: None,
            topologies: HashMap::new(),
            pending_topology: None,
            files: HashMap::new(),
            windows: HashMap::new(),
            creations: HashMap::new(),
            intercomm_creations: HashMap::new(),
            pending_creation: None,
            objects: facts::ObjectTables::new(trace),
            rma: Default::default(),
        }
    }

    fn comm(&mut self, raw: Option<i64>) -> LocalComm {
        let raw = raw.unwrap_or(i64::MIN);
        if let Some(c) = self.comms.get(&raw) {
            return c.clone();
        }
        let rank = self.rank;
        let id = self
            .tables
            .comm(CommKey::Unknown { rank, raw }, || CommInfo {
                name: format!("communicator {raw:#x} of rank {rank} (creation not recorded)"),
                members: Vec::new(),
                remote: None,
            });
        LocalComm {
            id,
            local: Vec::new(),
            remote: None,
        }
    }

    fn datatype(&mut self, raw: Option<i64>) -> Option<TypeId> {
        let raw = raw?;
        if let Some(&id) = self.datatypes.get(&raw) {
            return Some(id);
        }
        if Some(raw) == self.constants.datatype_null {
            return None;
        }
        let name = self.constants.datatypes.get(&raw)?.clone();
        let size = self.constants.datatype_sizes.get(&name).copied();
        let layout = Layout::predefined(&name);
        Some(self.tables.datatype(&name, size, Some(layout)))
    }

    /// The signature structure of a datatype handle: derived (from its constructor) or
    /// predefined.
    fn layout(&self, raw: Option<i64>) -> Option<Arc<Layout>> {
        let raw = raw?;
        if let Some(l) = self.layouts.get(&raw) {
            return Some(l.clone());
        }
        if Some(raw) == self.constants.datatype_null {
            return None;
        }
        self.constants
            .datatypes
            .get(&raw)
            .map(|name| Layout::predefined(name))
    }

    /// Records the signature structure of the type a constructor call creates.
    fn type_constructor(&mut self, short: &str, args: &Args) {
        let Some(new) = args.out_int("newtype") else {
            return;
        };
        // A handle MPI reuses names a new type: its id comes with its MPICHECK_Type_info
        // once committed, except for a copy of a committed type, which is committed and
        // has the same signature and size from the start (MPI 4.1 §5.1.10).
        self.datatypes.remove(&new);
        if short == "Type_dup" {
            let old = args.int("oldtype");
            if old.is_some_and(|old| self.objects.is_committed(old)) {
                if let Some(id) = self.datatype(old) {
                    self.datatypes.insert(new, id);
                }
            }
        }
        let int = |n: &str| args.int(n).unwrap_or(0).max(0) as u64;
        let array = |n: &str| -> Vec<i64> {
            args.input(n)
                .and_then(ArgValue::as_array)
                .map(<[i64]>::to_vec)
                .unwrap_or_default()
        };
        let old = self.layout(args.int("oldtype"));
        let old_name = || {
            old.as_ref()
                .map_or("?".to_string(), |l| l.description.clone())
        };
        let layout = match short {
            "Type_contiguous" => old.as_ref().map(|o| {
                let n = int("count");
                Layout::repeated(n, o, format!("contiguous({n} × {})", old_name()))
            }),
            "Type_vector" | "Type_create_hvector" | "Type_hvector" => old.as_ref().map(|o| {
                let (n, b) = (int("count"), int("blocklength"));
                let what = if short == "Type_vector" {
                    "vector"
                } else {
                    "hvector"
                };
                Layout::repeated(
                    n.saturating_mul(b),
                    o,
                    format!("{what}({n} blocks of {b} × {})", old_name()),
                )
            }),
            "Type_indexed" | "Type_create_hindexed" | "Type_hindexed" => old.as_ref().map(|o| {
                let blocks = array("array_of_blocklengths");
                let total: u64 = blocks.iter().map(|&b| b.max(0) as u64).sum();
                Layout::repeated(
                    total,
                    o,
                    format!("indexed({} blocks, {total} × {})", blocks.len(), old_name()),
                )
            }),
            "Type_create_indexed_block" | "Type_create_hindexed_block" => old.as_ref().map(|o| {
                let (n, b) = (int("count"), int("blocklength"));
                Layout::repeated(
                    n.saturating_mul(b),
                    o,
                    format!("indexed_block({n} blocks of {b} × {})", old_name()),
                )
            }),
            "Type_create_subarray" => old.as_ref().map(|o| {
                let sub = array("array_of_subsizes");
                let total = sub
                    .iter()
                    .fold(1u64, |p, &s| p.saturating_mul(s.max(0) as u64));
                let dims: Vec<String> = sub.iter().map(|s| s.to_string()).collect();
                Layout::repeated(
                    total,
                    o,
                    format!("subarray({} of {})", dims.join("×"), old_name()),
                )
            }),
            "Type_create_struct" | "Type_struct" => {
                let blocks = array("array_of_blocklengths");
                let types = array("array_of_types");
                let pieces: Option<Vec<(u64, Arc<Layout>)>> = blocks
                    .iter()
                    .zip(&types)
                    .map(|(&b, &t)| self.layout(Some(t)).map(|l| (b.max(0) as u64, l)))
                    .collect();
                pieces.filter(|p| p.len() == blocks.len()).map(|pieces| {
                    let parts: Vec<String> = pieces
                        .iter()
                        .map(|(b, l)| format!("{b} × {}", l.description))
                        .collect();
                    Layout::derived(pieces, format!("struct({})", parts.join(", ")))
                })
            }
            "Type_dup" | "Type_create_resized" => old,
            // The local part of a distributed array: a number of oldtype elements known only
            // from the committed type's size; see MPICHECK_Type_info.
            "Type_create_darray" => old
                .as_ref()
                .map(|o| Layout::repeated(0, o, format!("darray of {}", old_name()))),
            _ => None,
        };
        match layout {
            Some(l) => {
                self.layouts.insert(new, l);
            }
            None => {
                // A handle MPI reused for a type this trace cannot describe.
                self.layouts.remove(&new);
            }
        }
    }

    /// The arguments of a collective call that must agree across ranks.
    fn collective_args(&mut self, short: &str, args: &Args) -> CollectiveArgs {
        let base = short.strip_suffix("_init").unwrap_or(short);
        let base = collective_kind(base)
            .map(|_| base.to_string())
            .or_else(|| nonblocking_base(base).filter(|b| collective_kind(b).is_some()))
            .unwrap_or_else(|| base.to_string());
        let in_place = |name: &str| {
            self.constants.in_place.is_some() && args.int(name) == self.constants.in_place
        };
        let mut out = CollectiveArgs {
            in_place: in_place("sendbuf")
                || (matches!(base.as_str(), "Scatter" | "Scatterv") && in_place("recvbuf")),
            ..Default::default()
        };
        // The v/w variants have no scalar count (per-peer counts are in the arrays).
        let spec = |me: &mut Self, count: &str, datatype: &str| -> Option<BufSpec> {
            let count = args.int(count).unwrap_or(1);
            let raw = args.int(datatype)?;
            Some(BufSpec {
                count,
                datatype: me.datatype(Some(raw)),
            })
        };
        let counts = |name: &str| -> Option<Vec<i64>> {
            args.input(name)
                .and_then(ArgValue::as_array)
                .map(<[i64]>::to_vec)
        };
        match base.as_str() {
            "Bcast" | "Reduce" | "Allreduce" | "Scan" | "Exscan" => {
                out.send = spec(self, "count", "datatype");
            }
            "Reduce_scatter_block" => out.send = spec(self, "recvcount", "datatype"),
            "Reduce_scatter" => {
                out.recv_counts = counts("recvcounts");
                out.send = args.int("datatype").map(|raw| BufSpec {
                    count: 1,
                    datatype: self.datatype(Some(raw)),
                });
            }
            "Cart_create" | "Cart_map" => {
                for name in ["ndims", "reorder"] {
                    if let Some(v) = args.int(name) {
                        out.agree.push((
                            if name == "ndims" { "ndims" } else { "reorder" },
                            v.to_string(),
                        ));
                    }
                }
                if let Some(d) = counts("dims") {
                    out.agree.push(("dims", format!("{d:?}")));
                }
                if let Some(p) = counts("periods") {
                    out.agree.push(("periods", format!("{p:?}")));
                }
            }
            "Graph_create" | "Graph_map" => {
                if let Some(v) = args.int("nnodes") {
                    out.agree.push(("nnodes", v.to_string()));
                }
                if let Some(d) = counts("index") {
                    out.agree.push(("index", format!("{d:?}")));
                }
                if let Some(d) = counts("edges") {
                    out.agree.push(("edges", format!("{d:?}")));
                }
                if let Some(v) = args.int("reorder") {
                    out.agree.push(("reorder", v.to_string()));
                }
            }
            "Intercomm_create" => {
                if let Some(v) = args.int("local_leader") {
                    out.agree.push(("local_leader", v.to_string()));
                }
                if let Some(v) = args.int("tag") {
                    out.agree.push(("tag", v.to_string()));
                }
            }
            "Intercomm_merge" => {
                if let Some(v) = args.int("high") {
                    out.agree.push(("high", (v != 0).to_string()));
                }
            }
            "File_open" => {
                if let Some(v) = args.int("amode") {
                    out.agree.push(("amode", format!("{v:#x}")));
                }
            }
            "File_set_size" | "File_preallocate" => {
                if let Some(v) = args.int("size") {
                    out.agree.push(("size", v.to_string()));
                }
            }
            "File_set_atomicity" => {
                if let Some(v) = args.int("flag") {
                    out.agree.push(("flag", (v != 0).to_string()));
                }
            }
            "File_seek_shared" => {
                if let Some(v) = args.int("offset") {
                    out.agree.push(("offset", v.to_string()));
                }
                if let Some(v) = args.int("whence") {
                    out.agree.push(("whence", v.to_string()));
                }
            }
            "File_set_view" => {
                // The etype must have the same signature everywhere; named by its
                // description (handles differ per process).
                if let Some(id) = self.datatype(args.int("etype")) {
                    let name = self.tables.datatypes[id.0 as usize].name.clone();
                    out.agree.push(("etype", name));
                }
            }
            "Win_fence" => {
                // MPI 4.1 §12.5.5: NOPRECEDE and NOSUCCEED, if given by any member, must be
                // given by all (the others are local hints).
                if let Some(assert) = args.int("assert") {
                    let mut given = Vec::new();
                    for (name, bit) in [
                        ("MPI_MODE_NOPRECEDE", self.constants.mode_noprecede),
                        ("MPI_MODE_NOSUCCEED", self.constants.mode_nosucceed),
                    ] {
                        match bit {
                            Some(bit) if assert & bit != 0 => given.push(name),
                            Some(_) => {}
                            // Not known for this MPI: nothing to compare.
                            None => return out,
                        }
                    }
                    let given = if given.is_empty() {
                        "neither MPI_MODE_NOPRECEDE nor MPI_MODE_NOSUCCEED".to_string()
                    } else {
                        given.join(" | ")
                    };
                    out.agree.push(("assert", given));
                }
            }
            s if s.starts_with("File_") => {}
            _ => {
                if !out.in_place || matches!(base.as_str(), "Scatter" | "Scatterv") {
                    out.send = spec(self, "sendcount", "sendtype");
                }
                out.recv = spec(self, "recvcount", "recvtype");
                out.send_counts = counts("sendcounts");
                out.recv_counts = counts("recvcounts");
                let types = |me: &mut Self, name: &str| -> Option<Vec<Option<TypeId>>> {
                    let raw = counts(name)?;
                    Some(raw.into_iter().map(|t| me.datatype(Some(t))).collect())
                };
                out.send_types = types(self, "sendtypes");
                out.recv_types = types(self, "recvtypes");
            }
        }
        if base.starts_with("Neighbor_") {
            let comm_raw = args.int("comm");
            let local = comm_raw.and_then(|c| self.comms.get(&c));
            let topology = comm_raw.and_then(|c| self.topologies.get(&c));
            if let (Some(local), Some(topology)) = (local, topology) {
                if let Some(me) = local.local.iter().position(|&r| r == self.rank) {
                    let (sources, destinations) = topology.neighbors(me as i64);
                    let world = |list: Vec<Option<i64>>| -> Vec<Option<Rank>> {
                        list.into_iter()
                            .map(|r| {
                                r.and_then(|r| local.local.get(usize::try_from(r).ok()?).copied())
                            })
                            .collect()
                    };
                    out.in_neighbors = Some(world(sources));
                    out.out_neighbors = Some(world(destinations));
                }
            }
        }
        if let Some(raw) = args.int("op") {
            // A handle of no known op is not compared: raw handles of user ops differ
            // between processes.
            out.op = self
                .constants
                .ops
                .get(&raw)
                .cloned()
                .or_else(|| self.user_ops.get(&raw).cloned().flatten());
        }
        out
    }

    fn new_request(
        &mut self,
        raw: Option<i64>,
        persistent: bool,
        comm: Option<LocalComm>,
        recv_event: Option<usize>,
    ) -> ReqId {
        let id = ReqId(self.next_request);
        self.next_request += 1;
        if let Some(raw) = raw.filter(|&r| Some(r) != self.constants.request_null) {
            let live = self.requests.entry(raw).or_default();
            // A handle still live handed out again: MPI returned one shared, already
            // complete request object (MPICH, Open MPI do for operations that complete at
            // once); which thread's call used which of them cannot be told apart.
            if let Some(earlier) = live.iter().rev().find(|e| !e.persistent) {
                self.shared_requests.extend([earlier.id, id]);
            }
            live.push(RequestInfo {
                id,
                persistent,
                comm,
                recv_event,
            });
        }
        id
    }

    /// Translates a peer rank argument; `None` for `MPI_PROC_NULL`.
    fn peer(&self, comm: &LocalComm, rank: Option<i64>) -> Option<Rank> {
        let rank = rank?;
        if Some(rank) == self.constants.proc_null {
            return None;
        }
        comm.peer(rank)
            .or(u32::try_from(rank).ok().filter(|_| comm.local.is_empty()))
    }

    fn source(&self, comm: &LocalComm, rank: Option<i64>) -> Option<Source> {
        if rank.is_some() && rank == self.constants.any_source {
            return Some(Source::Any);
        }
        self.peer(comm, rank).map(Source::Rank)
    }

    fn tag(&self, tag: Option<i64>) -> TagMatch {
        match tag {
            Some(t) if Some(t) == self.constants.any_tag => TagMatch::Any,
            Some(t) => TagMatch::Tag(t as i32),
            None => TagMatch::Any,
        }
    }

    fn matched(&self, comm: &LocalComm, status: Option<Status>) -> Option<(Rank, i32)> {
        let status = status?;
        if Some(status.source) == self.constants.proc_null
            || Some(status.source) == self.constants.any_source
        {
            return None;
        }
        Some((comm.peer(status.source)?, status.tag as i32))
    }

    fn send_spec(
        &mut self,
        args: &Args,
        comm: &LocalComm,
        mode: SendMode,
        prefix: &str,
    ) -> SendSpec {
        let count_name = if prefix.is_empty() {
            "count"
        } else {
            "sendcount"
        };
        let type_name = if prefix.is_empty() {
            "datatype"
        } else {
            "sendtype"
        };
        let tag_name = if prefix.is_empty() { "tag" } else { "sendtag" };
        SendSpec {
            dest: self.peer(comm, args.int("dest")),
            tag: args.int(tag_name).or(args.int("tag")).unwrap_or(0) as i32,
            comm: comm.id,
            count: args.int(count_name).or(args.int("count")).unwrap_or(0),
            datatype: self.datatype(args.int(type_name).or(args.int("datatype"))),
            mode,
        }
    }

    fn recv_spec(
        &mut self,
        args: &Args,
        comm: &LocalComm,
        sendrecv: bool,
        status: Option<Status>,
    ) -> RecvSpec {
        let (count, datatype, tag) = if sendrecv {
            (
                args.int("recvcount").or(args.int("count")),
                args.int("recvtype").or(args.int("datatype")),
                args.int("recvtag"),
            )
        } else {
            (args.int("count"), args.int("datatype"), args.int("tag"))
        };
        RecvSpec {
            source: self.source(comm, args.int("source")),
            tag: self.tag(tag),
            comm: comm.id,
            count: count.unwrap_or(0),
            datatype: self.datatype(datatype),
            matched: self.matched(comm, status),
        }
    }

    /// Records a completion: fills the matched source of the receive it completes and, when
    /// `retire` (a wait or test, not `MPI_Request_get_status`), retires the handle of a
    /// non-persistent request.
    fn complete_request(
        &mut self,
        raw: i64,
        id: Option<ReqId>,
        status: Option<Status>,
        retire: bool,
        events: &mut [Event],
    ) {
        let Some(live) = self.requests.get(&raw) else {
            return;
        };
        let Some(position) = live.iter().position(|info| Some(info.id) == id) else {
            return;
        };
        let info = &live[position];
        if let (Some(index), Some(comm)) = (info.recv_event, info.comm.clone()) {
            let matched = self.matched(&comm, status);
            if let Some(Event {
                op: Op::Recv { recv, .. } | Op::Sendrecv { recv, .. },
                ..
            }) = events.get_mut(index)
            {
                recv.matched = matched.or(recv.matched);
            }
        }
        if retire && !info.persistent {
            self.forget_request(raw, position);
        }
    }

    fn forget_request(&mut self, raw: i64, position: usize) {
        if let Some(live) = self.requests.get_mut(&raw) {
            let info = live.remove(position);
            self.retired.insert(raw, (info.id, self.call_exit_ns));
            if live.is_empty() {
                self.requests.remove(&raw);
            }
        }
    }

    fn request_id(&mut self, raw: i64) -> Option<ReqId> {
        self.request_ids(&[raw]).pop().flatten()
    }

    /// The requests an array of handles names. The k-th occurrence of a handle in the array
    /// is the k-th oldest live request with that handle (see [`Self::requests`]).
    fn request_ids(&mut self, raws: &[i64]) -> Vec<Option<ReqId>> {
        let mut seen: HashMap<i64, usize> = HashMap::new();
        raws.iter()
            .map(|&raw| {
                if Some(raw) == self.constants.request_null {
                    return None;
                }
                let occurrence = seen.entry(raw).or_insert(0);
                *occurrence += 1;
                let live = self.requests.get(&raw).map(Vec::as_slice).unwrap_or(&[]);
                Some(match live.get(*occurrence - 1).or(live.last()) {
                    Some(info) => info.id,
                    None if self
                        .retired
                        .get(&raw)
                        .is_some_and(|&(_, exit)| self.call_enter_ns < exit) =>
                    {
                        self.retired[&raw].0
                    }
                    // A request the trace did not see being created: give it an identity so
                    // waits on it still show up.
                    None => self.new_request(Some(raw), false, None, None),
                })
            })
            .collect()
    }

    fn event(
        &mut self,
        function: &FunctionSchema,
        call: &CallRecord,
        site: SiteId,
        events: &mut [Event],
    ) -> Option<Event> {
        let args = Args {
            function,
            values: call.args(function),
        };
        let full_name = function.name.as_str();
        let name = base_name(full_name);
        let returned = call.complete;
        self.call_enter_ns = call.t_enter_ns;
        self.call_exit_ns = if returned { call.t_exit_ns } else { u64::MAX };
        let this_index = events.len();
        let op = match name {
            "MPICHECK_Comm_info" => {
                self.comm_info(&args);
                return None;
            }
            "MPICHECK_Type_info" => {
                if let (Some(raw), Some(size)) = (args.int("datatype"), args.int("size")) {
                    let mut layout = self.layouts.get(&raw).cloned();
                    if let Some(l) = &layout {
                        if l.description.starts_with("darray of ") {
                            // The darray's local part: size / size of one oldtype element.
                            let old = l
                                .description
                                .strip_prefix("darray of ")
                                .filter(|n| self.constants.datatype_sizes.contains_key(*n))
                                .map(Layout::predefined);
                            let old_size = old
                                .as_ref()
                                .and_then(|o| self.constants.datatype_sizes.get(&o.description))
                                .copied()
                                .filter(|&s| s > 0);
                            layout = match (old, old_size) {
                                (Some(o), Some(s)) => Some(Layout::repeated(
                                    size as u64 / s,
                                    &o,
                                    format!("darray({} × {})", size as u64 / s, o.description),
                                )),
                                _ => None,
                            };
                            if let Some(l) = &layout {
                                self.layouts.insert(raw, l.clone());
                            }
                        }
                    }
                    let name = match &layout {
                        Some(l) => l.description.clone(),
                        None => format!(
                            "derived datatype of {size} bytes (rank {} handle {raw:#x})",
                            self.rank
                        ),
                    };
                    let id = self.tables.datatype(&name, Some(size as u64), layout);
                    self.datatypes.insert(raw, id);
                    self.objects
                        .note_layout(raw, size, args.int("extent").unwrap_or(-1));
                }
                return None;
            }
            "MPI_Op_create" => {
                let user_fn = self.pending_user_fn.take();
                if let Some(raw) = args.out_int("op") {
                    let commute = args.int("commute").unwrap_or(1) != 0;
                    let what = match user_fn {
                        Some(SourceLocation {
                            function: Some(f), ..
                        }) => Some(format!("user-defined op `{f}`")),
                        Some(SourceLocation {
                            file: Some(file),
                            line: Some(line),
                            ..
                        }) => Some(format!("user-defined op at {file}:{line}")),
                        // Creation order is no identity: ranks may create other ops.
                        _ => None,
                    };
                    let what = what.map(|what| {
                        if commute {
                            what
                        } else {
                            format!("{what} (non-commutative)")
                        }
                    });
                    self.user_ops.insert(raw, what);
                }
                Op::Other
            }
            "MPI_Init" => Op::Init { thread_level: None },
            "MPI_Init_thread" => Op::Init {
                thread_level: args.out_int("provided").map(|v| v as i32),
            },
            "MPI_Finalize" => Op::Finalize,
            "MPI_Buffer_attach" => Op::BufferAttach {
                bytes: args.int("size").unwrap_or(0),
            },
            "MPI_Buffer_detach" => Op::BufferDetach,
            _ => self
                .communication_op(name, &args, call, this_index, events)
                .unwrap_or(Op::Other),
        };
        if let Some(short) = name.strip_prefix("MPI_Type_") {
            self.type_constructor(&format!("Type_{short}"), &args);
        }
        if matches!(op, Op::Collective { .. }) {
            let short = name.strip_prefix("MPI_").unwrap_or(name);
            let collective = self.collective_args(short, &args);
            if collective != CollectiveArgs::default() {
                self.tables
                    .collective_args
                    .insert((self.rank, this_index as u32), collective);
            }
        }
        let array = |n: &str| -> Vec<i64> {
            args.input(n)
                .and_then(ArgValue::as_array)
                .map(<[i64]>::to_vec)
                .unwrap_or_default()
        };
        match name {
            "MPI_Cart_create" => {
                self.pending_topology = Some(Topology::Cart {
                    dims: array("dims"),
                    periods: array("periods"),
                })
            }
            "MPI_Graph_create" => {
                self.pending_topology = Some(Topology::Graph {
                    index: array("index"),
                    edges: array("edges"),
                })
            }
            "MPI_Dist_graph_create_adjacent" => {
                self.pending_topology = Some(Topology::Adjacent {
                    sources: array("sources"),
                    destinations: array("destinations"),
                })
            }
            _ if MANAGEMENT_COLLECTIVES.contains(&name) => self.pending_topology = None,
            _ => {}
        }
        self.rma_call(name, &args, this_index);
        let facts = self.call_facts(
            function,
            &args,
            call,
            &op,
            name.strip_prefix("MPI_").unwrap_or(name),
        );
        if MANAGEMENT_COLLECTIVES.contains(&name) {
            let parent_raw = args
                .int("comm")
                .or(args.int("local_comm"))
                .or(args.int("intercomm"))
                .or(args.int("comm_old"));
            let parent = self.comm(parent_raw);
            let ordinal = self.creations.entry(parent.id).or_insert(0);
            *ordinal += 1;
            self.pending_creation = Some((parent.id, intern(full_name), *ordinal));
        }
        Some(Event {
            call: intern(full_name),
            op,
            site,
            thread: call.thread,
            returned,
            facts,
            time: None,
        })
    }

    fn comm_info(&mut self, args: &Args) {
        let Some(raw) = args.int("comm") else { return };
        if Some(raw) == self.constants.comm_null {
            return;
        }
        let members: Vec<Rank> = args
            .input("members")
            .and_then(ArgValue::as_array)
            .unwrap_or(&[])
            .iter()
            .map(|&r| r as Rank)
            .collect();
        let remote: Option<Vec<Rank>> = args
            .input("remote")
            .and_then(ArgValue::as_array)
            .map(|a| a.iter().map(|&r| r as Rank).collect());
        let (parent, how, ordinal) =
            self.pending_creation
                .take()
                .unwrap_or((CommId(0), "an unrecorded call", 0));
        let key = match &remote {
            Some(remote_group) => {
                let groups = if members <= *remote_group {
                    (members.clone(), remote_group.clone())
                } else {
                    (remote_group.clone(), members.clone())
                };
                let ordinal = self.intercomm_creations.entry(groups.clone()).or_insert(0);
                *ordinal += 1;
                CommKey::Inter {
                    groups,
                    ordinal: *ordinal,
                }
            }
            None => CommKey::Child {
                parent,
                ordinal,
                members: members.clone(),
                remote: None,
            },
        };
        let parent_name = self.tables.comms[parent.0 as usize].name.clone();
        let info_members = match &key {
            CommKey::Inter { groups, .. } => groups.clone(),
            _ => (members.clone(), Vec::new()),
        };
        let id = self.tables.comm(key, || CommInfo {
            name: format!("communicator from {how} on {parent_name}"),
            members: info_members.0,
            remote: remote.as_ref().map(|_| info_members.1),
        });
        if let Some(topology) = self.pending_topology.take() {
            self.topologies.insert(raw, topology);
        } else {
            self.topologies.remove(&raw);
        }
        self.comms.insert(
            raw,
            LocalComm {
                id,
                local: members,
                remote,
            },
        );
    }

    fn communication_op(
        &mut self,
        name: &str,
        args: &Args,
        call: &CallRecord,
        this_index: usize,
        events: &mut [Event],
    ) -> Option<Op> {
        let mode_of = |n: &str| match n {
            "Send" | "Isend" | "Send_init" => Some(SendMode::Standard),
            "Ssend" | "Issend" | "Ssend_init" => Some(SendMode::Synchronous),
            "Bsend" | "Ibsend" | "Bsend_init" => Some(SendMode::Buffered),
            "Rsend" | "Irsend" | "Rsend_init" => Some(SendMode::Ready),
            _ => None,
        };
        let short = name.strip_prefix("MPI_")?;
        let request_out = args.out_int("request");
        if let Some(mode) = mode_of(short) {
            let comm = self.comm(args.int("comm"));
            let send = self.send_spec(args, &comm, mode, "");
            let blocking = if short.ends_with("_init") {
                Blocking::Persistent(self.new_request(request_out, true, Some(comm), None))
            } else if short.starts_with('I') {
                Blocking::Nonblocking(self.new_request(request_out, false, Some(comm), None))
            } else {
                Blocking::Blocking
            };
            return Some(Op::Send { send, blocking });
        }
        match short {
            "Recv" | "Irecv" | "Recv_init" => {
                let comm = self.comm(args.int("comm"));
                let recv = self.recv_spec(args, &comm, false, args.status());
                let blocking = match short {
                    "Recv" => Blocking::Blocking,
                    "Irecv" => Blocking::Nonblocking(self.new_request(
                        request_out,
                        false,
                        Some(comm),
                        Some(this_index),
                    )),
                    _ => {
                        Blocking::Persistent(self.new_request(request_out, true, Some(comm), None))
                    }
                };
                Some(Op::Recv { recv, blocking })
            }
            "Sendrecv" | "Sendrecv_replace" | "Isendrecv" | "Isendrecv_replace" => {
                let comm = self.comm(args.int("comm"));
                let send = self.send_spec(args, &comm, SendMode::Standard, "send");
                let recv = self.recv_spec(args, &comm, true, args.status());
                let blocking = if short.starts_with('I') {
                    Blocking::Nonblocking(self.new_request(
                        request_out,
                        false,
                        Some(comm),
                        Some(this_index),
                    ))
                } else {
                    Blocking::Blocking
                };
                Some(Op::Sendrecv {
                    send,
                    recv,
                    blocking,
                })
            }
            "Probe" | "Iprobe" | "Mprobe" | "Improbe" => {
                let comm = self.comm(args.int("comm"));
                let blocking = !short.starts_with('I');
                let found = if blocking {
                    call.complete.then_some(true)
                } else {
                    args.out_int("flag").map(|f| f != 0)
                };
                let matched = if found == Some(true) {
                    self.matched(&comm, args.status())
                } else {
                    None
                };
                Some(Op::Probe {
                    source: self.source(&comm, args.int("source")),
                    tag: self.tag(args.int("tag")),
                    comm: comm.id,
                    blocking,
                    matched_probe: short.contains("mprobe") || short.starts_with("Mprobe"),
                    found,
                    matched,
                })
            }
            "Wait"
            | "Test"
            | "Waitall"
            | "Testall"
            | "Waitany"
            | "Testany"
            | "Waitsome"
            | "Testsome"
            | "Request_get_status"
            | "Request_get_status_all"
            | "Request_get_status_any"
            | "Request_get_status_some" => Some(self.wait_op(short, args, call, events)),
            "Start" | "Startall" => {
                let raws: Vec<i64> = match args.input("request") {
                    Some(ArgValue::Int(r)) => vec![*r],
                    _ => args
                        .input("array_of_requests")
                        .and_then(ArgValue::as_array)
                        .map(<[i64]>::to_vec)
                        .unwrap_or_default(),
                };
                let requests = self.request_ids(&raws).into_iter().flatten().collect();
                // Open MPI hands out a new handle when a still-active persistent request is
                // started again; the request goes on under the new handle.
                let outs: Vec<i64> = match args.output("request") {
                    Some(ArgValue::Int(r)) => vec![*r],
                    _ => args
                        .output("array_of_requests")
                        .and_then(ArgValue::as_array)
                        .map(<[i64]>::to_vec)
                        .unwrap_or_default(),
                };
                for (&before, &after) in raws.iter().zip(&outs) {
                    if before != after && Some(after) != self.constants.request_null {
                        if let Some(info) = self.requests.get_mut(&before).and_then(|live| {
                            let position = live.iter().position(|info| info.persistent)?;
                            Some(live.remove(position))
                        }) {
                            self.requests.entry(after).or_default().push(info);
                        }
                        if self.requests.get(&before).is_some_and(Vec::is_empty) {
                            self.requests.remove(&before);
                        }
                    }
                }
                Some(Op::Start { requests })
            }
            "Cancel" => args
                .int("request")
                .and_then(|r| self.request_id(r))
                .map(|request| Op::Cancel { request }),
            "Request_free" => {
                let raw = args.int("request")?;
                let request = self.request_id(raw)?;
                if let Some(position) = self
                    .requests
                    .get(&raw)
                    .and_then(|live| live.iter().position(|info| info.id == request))
                {
                    self.forget_request(raw, position);
                }
                Some(Op::RequestFree { request })
            }
            "Comm_free" => {
                if let Some(raw) = args.int("comm") {
                    self.comms.remove(&raw);
                }
                None
            }
            _ => self.collective_op(short, args),
        }
    }

    fn collective_op(&mut self, short: &str, args: &Args) -> Option<Op> {
        let (kind, blocking_kind) = if let Some(base) = short.strip_suffix("_init") {
            (collective_kind(base)?, 2)
        } else if let Some(kind) = collective_kind(short) {
            (kind, 0)
        } else if let Some(kind) = nonblocking_base(short).as_deref().and_then(collective_kind) {
            (kind, 1)
        } else if MANAGEMENT_COLLECTIVES.contains(&format!("MPI_{short}").as_str())
            || FILE_COLLECTIVES.contains(&short)
        {
            (
                CollectiveKind::Management,
                if short.starts_with("Comm_i") { 1 } else { 0 },
            )
        } else {
            return None;
        };
        let comm_raw = args.first_of_kind("COMMUNICATOR");
        let comm = match args.int("fh").filter(|_| short.starts_with("File_")) {
            Some(fh) if short != "File_open" => match self.files.get(&fh) {
                Some(c) => c.clone(),
                None => self.comm(None),
            },
            _ => match args.int("win").filter(|_| comm_raw.is_none()) {
                Some(win) => match self.windows.get(&win) {
                    Some(c) => c.clone(),
                    None => self.comm(None),
                },
                None => self.comm(comm_raw),
            },
        };
        match short {
            "File_open" => {
                if let Some(fh) = args.out_int("fh") {
                    self.files.insert(fh, comm.clone());
                }
            }
            "File_close" => {
                if let Some(fh) = args.int("fh") {
                    self.files.remove(&fh);
                }
            }
            "Win_create" | "Win_allocate" | "Win_allocate_shared" | "Win_create_dynamic" => {
                if let Some(win) = args.out_int("win") {
                    self.windows.insert(win, comm.clone());
                }
            }
            "Win_free" => {
                if let Some(win) = args.int("win") {
                    self.windows.remove(&win);
                }
            }
            _ => {}
        }
        let request_out = args.out_int("request");
        let blocking = match blocking_kind {
            0 => Blocking::Blocking,
            1 => Blocking::Nonblocking(self.new_request(
                request_out,
                false,
                Some(comm.clone()),
                None,
            )),
            _ => {
                Blocking::Persistent(self.new_request(request_out, true, Some(comm.clone()), None))
            }
        };
        let root = args.int("root").map(|r| r as i32);
        Some(Op::Collective {
            kind,
            comm: comm.id,
            root,
            blocking,
        })
    }

    fn wait_op(&mut self, short: &str, args: &Args, call: &CallRecord, events: &mut [Event]) -> Op {
        // MPI_Request_get_status*: a test that leaves the request allocated.
        let status_only = short.starts_with("Request_get_status");
        let test = status_only || short.starts_with("Test");
        let suffix = match short.strip_prefix("Request_get_status") {
            Some(rest) => rest.trim_start_matches('_'),
            None => &short[4..],
        };
        let kind = match suffix {
            "all" => WaitKind::All,
            "any" => WaitKind::Any,
            "some" => WaitKind::Some,
            _ => WaitKind::One,
        };
        let raws: Vec<i64> = if kind == WaitKind::One {
            args.int("request").into_iter().collect()
        } else {
            args.input("array_of_requests")
                .and_then(ArgValue::as_array)
                .map(<[i64]>::to_vec)
                .unwrap_or_default()
        };
        let requests = self.request_ids(&raws);
        let completed: Option<Vec<u32>> = call.complete.then(|| {
            let non_null = || {
                (0..raws.len() as u32)
                    .filter(|&i| requests[i as usize].is_some())
                    .collect::<Vec<_>>()
            };
            let flag = args.out_int("flag").map(|f| f != 0);
            match kind {
                WaitKind::One | WaitKind::All => {
                    if !test || flag == Some(true) {
                        non_null()
                    } else {
                        Vec::new()
                    }
                }
                WaitKind::Any => match args.out_int("index") {
                    Some(i)
                        if i >= 0
                            && Some(i) != self.constants.undefined
                            && (!test || flag == Some(true)) =>
                    {
                        vec![i as u32]
                    }
                    _ => Vec::new(),
                },
                WaitKind::Some => {
                    let n = args
                        .out_int("outcount")
                        .filter(|&n| n >= 0 && Some(n) != self.constants.undefined)
                        .unwrap_or(0) as usize;
                    args.output("array_of_indices")
                        .and_then(ArgValue::as_array)
                        .map(|a| a.iter().take(n).map(|&i| i as u32).collect())
                        .unwrap_or_default()
                }
            }
        });
        if let Some(done) = &completed {
            let statuses = args.statuses().map(<[Status]>::to_vec);
            for (k, &i) in done.iter().enumerate() {
                let Some(&raw) = raws.get(i as usize) else {
                    continue;
                };
                let status = match kind {
                    WaitKind::One | WaitKind::Any => args.status(),
                    // Waitsome/Testsome report statuses in completion order.
                    WaitKind::Some => statuses.as_ref().and_then(|s| s.get(k).copied()),
                    WaitKind::All => statuses.as_ref().and_then(|s| s.get(i as usize).copied()),
                };
                self.complete_request(raw, requests[i as usize], status, !status_only, events);
            }
        }
        if status_only {
            return Op::RequestStatus {
                requests,
                kind,
                completed,
            };
        }
        Op::Wait {
            requests,
            kind,
            test,
            completed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_trace::{CallRecord, Schema, Trace, TraceHeader};

    const SCHEMA: &str = "\
0 MPI_Comm_split comm:COMMUNICATOR:in:s color:COLOR:in:s key:KEY:in:s newcomm:COMMUNICATOR:out:s
1 MPICHECK_Comm_info comm:COMMUNICATOR:in:s members:WORLD_RANKS:in:a remote:WORLD_RANKS:in:a
2 MPI_Isend buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
3 MPI_Irecv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
4 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s array_of_requests:REQUEST:inout:a array_of_statuses:STATUS:out:sa
5 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st
6 MPI_Ialltoall sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcount:POLYXFER_NUM_ELEM_NNI:in:s recvtype:DATATYPE:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
";
    const WORLD: i64 = 0x44000000;
    const INT: i64 = 0x4c000405;
    const ANY_SOURCE: i64 = -2;
    const ANY_TAG: i64 = -1;
    const REQUEST_NULL: i64 = 0x2c000000;
    const COMM_NULL: i64 = 0x04000000;

    fn call(func: u16, words: Vec<i64>, complete: bool, site: u64) -> CallRecord {
        CallRecord {
            func,
            thread: 0,
            seq: 0,
            t_enter_ns: 0,
            t_exit_ns: 0,
            callsite: site,
            ret: 0,
            fortran: false,
            complete,
            words,
            repeats: 0,
        }
    }

    fn trace(rank: i32, calls: Vec<CallRecord>) -> Trace {
        let constants = [
            ("MPI_COMM_WORLD", WORLD),
            ("MPI_ANY_SOURCE", ANY_SOURCE),
            ("MPI_ANY_TAG", ANY_TAG),
            ("MPI_PROC_NULL", -1),
            ("MPI_REQUEST_NULL", REQUEST_NULL),
            ("MPI_UNDEFINED", -32766),
            ("MPI_COMM_NULL", COMM_NULL),
            ("DATATYPE.MPI_INT", INT),
            ("DATATYPE_SIZE.MPI_INT", 4),
        ];
        Trace {
            header: TraceHeader {
                version: 1,
                pid: 100 + rank as u32,
                env_rank: Some(rank),
                rank: Some(rank),
                world_size: Some(3),
                state: mpicheck_trace::state::INITIALIZED | mpicheck_trace::state::EXITED,
                thread_level: None,
                records_end: 0,
                dropped: 0,
                start_unix_ns: 0,
                family: "mpich".into(),
                process_start: 0,
                exit_records_end: 0,
                parent_pid: 0,
            },
            schema: Schema::parse(SCHEMA).unwrap(),
            constants: constants
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            proc_maps: String::new(),
            process: Vec::new(),
            calls,
            partial_records: 0,
            end: EndOfTrace::Clean,
        }
    }

    fn resolve(_: usize, addr: u64) -> SourceLocation {
        SourceLocation {
            file: Some("split.c".into()),
            line: Some(addr as u32),
            ..Default::default()
        }
    }

    #[test]
    fn communicators_requests_and_wildcard_matches_are_normalized() {
        // World ranks 1 and 2 split off a communicator {1, 2}; each process sees a different
        // raw handle for it. Rank 1 (comm rank 0) sends to comm rank 1 = world rank 2, which
        // receives from any source.
        let rank0 = trace(
            0,
            vec![
                call(0, vec![WORLD, 1, 0, 0], true, 10),
                call(1, vec![0x0, 0, -1], true, 10), // MPI_COMM_NULL-like handle: color undefined
            ],
        );
        let rank1 = trace(
            1,
            vec![
                call(0, vec![WORLD, 0, 0, 0x84000001], true, 10),
                call(1, vec![0x84000001, 2, 1, 2, -1], true, 10),
                call(
                    2,
                    vec![0x1000, 4, INT, 1, 7, 0x84000001, 0x2c000011],
                    true,
                    11,
                ),
                call(
                    4,
                    vec![1, 1, 0x2c000011, 1, REQUEST_NULL, 1, 0, 0, 0, 0],
                    true,
                    12,
                ),
            ],
        );
        let rank2 = trace(
            2,
            vec![
                call(0, vec![WORLD, 0, 0, 0x84000009], true, 10),
                call(1, vec![0x84000009, 2, 1, 2, -1], true, 10),
                call(
                    3,
                    vec![0x2000, 4, INT, ANY_SOURCE, ANY_TAG, 0x84000009, 0x2c000001],
                    true,
                    20,
                ),
                call(
                    4,
                    vec![1, 1, 0x2c000001, 1, REQUEST_NULL, 1, 0, 7, 0, 16],
                    true,
                    21,
                ),
                call(
                    5,
                    vec![0x2000, 4, INT, 0, 3, 0x84000009, 0, 0, 0, 0],
                    false,
                    22,
                ),
            ],
        );
        let run = normalize(&[rank2, rank0, rank1], &mut resolve).unwrap();
        assert_eq!(run.world_size(), 3);
        let send = &run.ranks[1].events[1];
        let Op::Send {
            send: spec,
            blocking: Blocking::Nonblocking(req),
        } = &send.op
        else {
            panic!("{send:?}")
        };
        assert_eq!(
            spec.dest,
            Some(2),
            "comm rank 1 of {{1, 2}} is world rank 2"
        );
        assert_eq!(
            run.datatypes[spec.datatype.unwrap().0 as usize].name,
            "MPI_INT"
        );
        let Op::Wait {
            requests,
            completed,
            ..
        } = &run.ranks[1].events[2].op
        else {
            panic!()
        };
        assert_eq!(requests, &vec![Some(*req)]);
        assert_eq!(completed.as_deref(), Some(&[0][..]));

        let Op::Recv { recv, .. } = &run.ranks[2].events[1].op else {
            panic!()
        };
        assert_eq!(
            recv.comm, spec.comm,
            "both members name the split communicator alike"
        );
        assert_eq!(recv.source, Some(Source::Any));
        assert_eq!(
            recv.matched,
            Some((1, 7)),
            "the wait's status says who matched"
        );
        assert_eq!(run.comm(recv.comm).members, vec![1, 2]);
        assert_eq!(run.site(run.ranks[2].events[1].site).line, Some(20));

        let blocked = &run.ranks[2].events[3];
        assert!(!blocked.returned);
        let Op::Recv { recv, .. } = &blocked.op else {
            panic!()
        };
        assert_eq!(
            recv.source,
            Some(Source::Rank(1)),
            "comm rank 0 is world rank 1"
        );
        assert_eq!(recv.matched, None);
        assert!(matches!(
            run.ranks[0].events[0].op,
            Op::Collective {
                kind: CollectiveKind::Management,
                comm: CommId(0),
                ..
            }
        ));
    }

    #[test]
    fn splits_that_leave_a_rank_out_still_name_communicators_alike() {
        // Two splits of world (the standard's three-communicator broadcast example, cut to
        // two ranks): rank 1 is in both new communicators, rank 2 only in the second. The
        // second is the second split on world for both, although rank 2 got MPI_COMM_NULL
        // from the first.
        let split = |color, new| call(0, vec![WORLD, color, 0, new], true, 10);
        let info = |comm, members: &[i64]| {
            let mut words = vec![comm, members.len() as i64];
            words.extend_from_slice(members);
            words.push(-1);
            call(1, words, true, 10)
        };
        let send = |comm| call(2, vec![0x1000, 4, INT, 0, 0, comm, 0x2c000011], true, 11);
        let rank1 = trace(
            1,
            vec![
                split(0, 0x84000001),
                info(0x84000001, &[0, 1]),
                split(0, 0x84000002),
                info(0x84000002, &[1, 2]),
                send(0x84000002),
            ],
        );
        let rank2 = trace(
            2,
            vec![
                split(-32766, COMM_NULL),
                info(COMM_NULL, &[]),
                split(0, 0x84000005),
                info(0x84000005, &[1, 2]),
                send(0x84000005),
            ],
        );
        let rank0 = trace(
            0,
            vec![
                split(0, 0x84000007),
                info(0x84000007, &[0, 1]),
                split(-32766, COMM_NULL),
                info(COMM_NULL, &[]),
            ],
        );
        let run = normalize(&[rank0, rank1, rank2], &mut resolve).unwrap();
        let comm_of = |rank: usize| match &run.ranks[rank].events[2].op {
            Op::Send { send, .. } => send.comm,
            op => panic!("{op:?}"),
        };
        assert_eq!(comm_of(1), comm_of(2));
        assert_eq!(run.comm(comm_of(1)).members, vec![1, 2]);
    }

    #[test]
    fn nonblocking_collectives_are_collectives_with_a_request() {
        let rank0 = trace(
            0,
            vec![call(
                6,
                vec![0x1000, 2, INT, 0x2000, 2, INT, WORLD, 0x2c000005],
                true,
                30,
            )],
        );
        let run = normalize(&[rank0], &mut resolve).unwrap();
        assert!(
            matches!(
                run.ranks[0].events[0].op,
                Op::Collective {
                    kind: CollectiveKind::Alltoall,
                    comm: CommId(0),
                    blocking: Blocking::Nonblocking(_),
                    ..
                }
            ),
            "{:?}",
            run.ranks[0].events[0].op
        );
    }

    #[test]
    fn one_handle_for_several_live_requests_stays_several_requests() {
        // Open MPI returns one static, complete request for every send it finished inline.
        const INLINE_DONE: i64 = 0x7f00_0000_1000;
        let isend = |tag| {
            call(
                2,
                vec![0x1000, 0, INT, 1, tag, WORLD, INLINE_DONE],
                true,
                11,
            )
        };
        let waitall = call(
            4,
            vec![
                2,
                2,
                INLINE_DONE,
                INLINE_DONE,
                2,
                INLINE_DONE,
                INLINE_DONE,
                2,
                -2,
                -1,
                0,
                0,
                -2,
                -1,
                0,
                0,
            ],
            true,
            12,
        );
        let rank0 = trace(0, vec![isend(1), isend(2), waitall]);
        let run = normalize(&[rank0], &mut resolve).unwrap();
        let request_of = |event: usize| match &run.ranks[0].events[event].op {
            Op::Send {
                blocking: Blocking::Nonblocking(request),
                ..
            } => *request,
            op => panic!("{op:?}"),
        };
        let Op::Wait { requests, .. } = &run.ranks[0].events[2].op else {
            panic!()
        };
        assert_ne!(request_of(0), request_of(1));
        assert_eq!(requests, &vec![Some(request_of(0)), Some(request_of(1))]);
    }

    #[test]
    fn one_shared_handle_for_sends_completed_at_once_names_each_request() {
        // MPICH and Open MPI return the same handle for every send that completed
        // immediately; a waitall over four such handles completes four requests.
        let shared = 0x6c000001;
        let isend = |tag| {
            call(
                2,
                vec![0x1000, 4, INT, 1, tag, WORLD, shared],
                true,
                40 + tag as u64,
            )
        };
        let mut words = vec![4, 4, shared, shared, shared, shared, 4];
        words.extend([REQUEST_NULL; 4]);
        words.push(4);
        words.extend([0; 16]);
        let rank0 = trace(
            0,
            vec![
                isend(0),
                isend(1),
                isend(2),
                isend(3),
                call(4, words, true, 50),
            ],
        );
        let run = normalize(&[rank0], &mut resolve).unwrap();
        let started: Vec<ReqId> = run.ranks[0].events[..4]
            .iter()
            .map(|e| match e.op {
                Op::Send {
                    blocking: Blocking::Nonblocking(r),
                    ..
                } => r,
                ref op => panic!("{op:?}"),
            })
            .collect();
        let Op::Wait { requests, .. } = &run.ranks[0].events[4].op else {
            panic!()
        };
        let waited: Vec<ReqId> = requests.iter().flatten().copied().collect();
        assert_eq!(waited, started);
    }

    #[test]
    fn duplicate_ranks_are_an_error() {
        let err = normalize(&[trace(0, vec![]), trace(0, vec![])], &mut resolve).unwrap_err();
        assert!(err.to_string().contains("world rank 0"));
    }
}
