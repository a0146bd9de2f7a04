//! The argument rules: one per semantic kind of parameter in the MPI Forum's API description,
//! applied to every function the trace's schema gives a parameter of that kind, with the
//! function-specific exceptions written once below ([`significant`], [`in_place_allowed_in`]).
//!
//! The normalizer calls [`judge`] for every call with the call's input words and the state
//! only it knows ([`ArgState`]: live, freed and uncommitted handles, communicator sizes and
//! topologies); the checks of this folder report the [`ArgIssue`]s it returns. Nothing here
//! lists functions by hand except the exceptions: a new function in the API description
//! with a parameter of a checked kind is checked without a change here.

use mpicheck_trace::schema::{Direction, FunctionSchema, ParamShape};

use crate::model::{ArgIssue, ArgProblem, ObjectKind};
use crate::normalize::args::{ArgWords, Value};
use crate::normalize::intern;

/// One rule of the table: the parameter kinds it applies to, the code that reports it and
/// what it requires.
pub struct KindRule {
    pub kinds: &'static [&'static str],
    pub code: &'static str,
    pub rule: &'static str,
}

/// Kinds of element counts and lengths that the standard declares non-negative.
pub const COUNT_KINDS: &[&str] = &[
    "POLYXFER_NUM_ELEM_NNI",
    "XFER_NUM_ELEM_NNI",
    "POLYDTYPE_NUM_ELEM_NNI",
    "ARRAY_LENGTH_NNI",
    "POLYNUM_BYTES_NNI",
    "DEGREE",
];

/// Handle kinds whose null handle is never a valid input (datatypes: where significant;
/// the rest: see [`null_forbidden`]).
const NULL_CHECKED_KINDS: &[&str] = &[
    "COMMUNICATOR",
    "GROUP",
    "OPERATION",
    "WINDOW",
    "DATATYPE",
    "ERRHANDLER",
    "FILE",
    "INFO",
    "SESSION",
];

/// Whether the null handle of a handle kind is an error as this call's input: never for
/// `MPI_INFO_NULL` except in the `MPI_Info_*` calls that work on the info object itself
/// (everywhere else it means "no hints"); never for `MPI_FILE_NULL` in
/// `MPI_File_set_errhandler`/`_get_errhandler`, where it names the default error handler
/// of files (MPI 4.1 §9.3.4), or `MPI_File_call_errhandler`.
fn null_forbidden(short: &str, kind: &str) -> bool {
    match kind {
        "INFO" => short.starts_with("Info_") && !short.starts_with("Info_create"),
        "FILE" => !matches!(
            short,
            "File_set_errhandler" | "File_get_errhandler" | "File_call_errhandler"
        ),
        _ => NULL_CHECKED_KINDS.contains(&kind),
    }
}

/// Calls that need a request, not `MPI_REQUEST_NULL` (waits and tests accept it).
fn null_request_forbidden(short: &str) -> bool {
    matches!(
        short,
        "Start"
            | "Request_free"
            | "Cancel"
            | "Pready"
            | "Pready_range"
            | "Pready_list"
            | "Parrived"
    )
}

/// Every handle kind, for the freed-handle rule.
const HANDLE_KINDS: &[&str] = &[
    "COMMUNICATOR",
    "GROUP",
    "DATATYPE",
    "OPERATION",
    "WINDOW",
    "ERRHANDLER",
    "KEYVAL",
    "INFO",
    "FILE",
    "SESSION",
];

/// The table the docs' parameter-kind table is generated from (`kind_table`).
pub const KIND_RULES: &[KindRule] = &[
    KindRule {
        kinds: &["RANK", "RANK_NNI"],
        code: "AR001",
        rule: "a peer rank (`dest`, `source`, `root`, the `rank` of a topology query) is a rank of the communicator (the remote group of an intercommunicator), or `MPI_PROC_NULL`; `MPI_ANY_SOURCE` for receives; `MPI_ROOT` or `MPI_PROC_NULL` as an intercommunicator root (an RMA `target_rank` is RM005's); every rank of a group's `ranks` or `ranges` is in the group, of a graph's `edges` in 0..`nnodes`-1, of a distributed graph's `sources` and `destinations` in the communicator",
    },
    KindRule {
        kinds: &["TAG"],
        code: "AR002",
        rule: "a tag is in 0..=`MPI_TAG_UB`; `MPI_ANY_TAG` for receives and probes",
    },
    KindRule {
        kinds: COUNT_KINDS,
        code: "AR003",
        rule: "a count, array length or graph degree, and every entry of an array of them, is not negative",
    },
    KindRule {
        kinds: &[
            "COMMUNICATOR",
            "GROUP",
            "OPERATION",
            "WINDOW",
            "DATATYPE",
            "ERRHANDLER",
            "FILE",
            "INFO",
            "SESSION",
            "REQUEST",
        ],
        code: "AR004",
        rule: "not the kind's null handle (a request: not `MPI_REQUEST_NULL` for `MPI_Start`, `MPI_Cancel`, `MPI_Request_free`, `MPI_Pready*`, `MPI_Parrived`; `MPI_INFO_NULL` only in the `MPI_Info_*` calls on the info object; `MPI_FILE_NULL` except where it names the default file error handler)",
    },
    KindRule {
        kinds: HANDLE_KINDS,
        code: "AR005",
        rule: "not a handle this rank has freed",
    },
    KindRule {
        kinds: &["DATATYPE"],
        code: "AR006",
        rule: "a derived datatype that describes a buffer MPI reads or writes is committed",
    },
    KindRule {
        kinds: &["BUFFER"],
        code: "AR007",
        rule: "not `NULL` with a positive count of a predefined datatype",
    },
    KindRule {
        kinds: &["BUFFER"],
        code: "AR008",
        rule: "`MPI_IN_PLACE` only where the function accepts it: the send buffer of the collectives that allow it, the receive buffer of a scatter (at a non-root of a rooted collective CO004 reports it)",
    },
    KindRule {
        kinds: &["COLOR", "SPLIT_TYPE"],
        code: "AR011",
        rule: "a split color is not negative, or is `MPI_UNDEFINED`; a split type is `MPI_UNDEFINED` or one the library defines (`MPI_COMM_TYPE_SHARED`, ...)",
    },
    KindRule {
        kinds: &["NUM_DIMS", "DIMENSION", "COMM_SIZE", "INDEX", "COORDINATE"],
        code: "AR012",
        rule: "topology sizes are not negative, a cartesian grid has no more processes than its communicator, a graph's `index` is non-decreasing from 0, a cartesian `direction` is a dimension of the grid and a coordinate of `MPI_Cart_rank` inside it on a non-periodic dimension",
    },
    KindRule {
        kinds: &["COMMUNICATOR"],
        code: "AR013",
        rule: "the communicator of a cartesian (`MPI_Cart_*`), graph (`MPI_Graph_*`), distributed graph (`MPI_Dist_graph_neighbors*`) query or neighborhood collective has that topology",
    },
    KindRule {
        kinds: &["RANK"],
        code: "AR014",
        rule: "the ranks a group is made of or without (`MPI_Group_incl`, `MPI_Group_excl`, the ranks the triplets of `MPI_Group_range_incl`/`_excl` name) are distinct, and no triplet has stride 0",
    },
    KindRule {
        kinds: &["ASSERT"],
        code: "AR015",
        rule: "an RMA assertion holds only the `MPI_MODE_*` bits its call accepts: `MPI_MODE_NOCHECK` for `MPI_Win_start`, `MPI_Win_lock`, `MPI_Win_lock_all`; `NOCHECK`, `NOSTORE`, `NOPUT` for `MPI_Win_post`; `NOSTORE`, `NOPUT`, `NOPRECEDE`, `NOSUCCEED` for `MPI_Win_fence`",
    },
    KindRule {
        kinds: &["PARTITION"],
        code: "AR016",
        rule: "a partitioned request has at least one partition, and a partitioned receive no `MPI_ANY_SOURCE` or `MPI_ANY_TAG`; `MPI_Pready`, `MPI_Pready_range`, `MPI_Pready_list` and `MPI_Parrived` name partitions in 0..`partitions`-1 of their request; a send partition is marked ready only while its request is active (started, not completed), and once per epoch",
    },
];

/// The constants the rules need, from the trace's constants record.
#[derive(Default, Clone)]
pub struct ArgConstants {
    pub proc_null: Option<i64>,
    pub any_source: Option<i64>,
    pub any_tag: Option<i64>,
    pub tag_ub: Option<i64>,
    pub in_place: Option<i64>,
    pub mpi_root: Option<i64>,
    pub undefined: Option<i64>,
    pub request_null: Option<i64>,
    pub no_op: Option<i64>,
    /// The RMA assertion bits (`MPI_MODE_NOCHECK`, ...) and their values in this MPI.
    pub rma_modes: Vec<(&'static str, i64)>,
    /// The split types of `MPI_Comm_split_type` this MPI defines (`MPI_COMM_TYPE_*`);
    /// `None` in traces that do not list them (older recorders).
    pub split_types: Option<Vec<i64>>,
}

/// What the rank knows of a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleState {
    Null,
    /// Freed by this rank and not since handed out again.
    Freed,
    /// A derived datatype not committed.
    Uncommitted,
    /// Live, predefined, or unknown to the trace (nothing to judge it by).
    Usable,
}

/// A process topology's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyKind {
    Cart { ndims: usize },
    Graph,
    DistGraph,
}

/// A communicator (or a window's communicator) as the rank knows it.
#[derive(Clone, Copy, Debug)]
pub struct CommView {
    pub size: u32,
    /// The remote group's size of an intercommunicator.
    pub remote_size: Option<u32>,
    /// The calling process's rank in it.
    pub my_rank: Option<u32>,
    /// `Some(None)`: known to have no topology; `None`: not known.
    pub topology: Option<Option<TopologyKind>>,
}

/// The state the rules read, kept by the normalizer.
pub trait ArgState {
    fn constants(&self) -> &ArgConstants;
    fn handle(&self, kind: ObjectKind, raw: i64) -> HandleState;
    fn comm(&self, raw: i64) -> Option<CommView>;
    fn predefined_datatype(&self, raw: i64) -> bool;
    /// The number of processes of a group, where the rank knows it.
    fn group_size(&self, raw: i64) -> Option<u32>;
    /// The grid of a cartesian communicator, where the rank saw it made.
    fn cart_shape(&self, raw: i64) -> Option<&CartShape>;
    /// A partitioned request the rank made, by raw handle.
    fn partitioned(&self, raw: i64) -> Option<&PartitionedRequest>;
}

/// A cartesian grid: the extent of each dimension and whether it is periodic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CartShape {
    pub dims: Vec<i64>,
    pub periods: Vec<bool>,
}

/// One call: its function, its short name (`Send`) and its argument words (an output
/// buffer's address is its output word, written on entry).
pub struct CallArgs<'a> {
    pub function: &'a FunctionSchema,
    pub short: &'a str,
    /// What the rules need of the function, worked out once ([`RulePlan::of`]).
    pub plan: &'a RulePlan,
    pub values: ArgWords<'a>,
}

impl<'a> CallArgs<'a> {
    fn position(&self, name: &str) -> Option<usize> {
        self.function.params.iter().position(|p| p.name == name)
    }
    /// A parameter's value on entry: its input, or the address of an output buffer.
    #[inline]
    fn on_entry(&self, i: usize) -> Value<'a> {
        match self.values.input(i) {
            Value::Missing
                if self
                    .function
                    .params
                    .get(i)
                    .is_some_and(|p| p.kind == "BUFFER") =>
            {
                self.values.output_on_entry(i)
            }
            input => input,
        }
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.on_entry(self.position(name)?).as_int()
    }
    /// As [`CallArgs::int`], of the parameter at `at` (a position from the plan).
    fn int_at(&self, at: Option<usize>) -> Option<i64> {
        self.on_entry(at?).as_int()
    }
    /// The communicator the call works on: its first communicator input (`comm`,
    /// `comm_old`).
    fn comm(&self) -> Option<i64> {
        self.on_entry(self.plan.comm_input?).as_int()
    }
    fn array(&self, name: &str) -> Option<&'a [i64]> {
        self.on_entry(self.position(name)?).as_array()
    }
}

/// The object kind of a Forum parameter kind.
pub fn object_kind(forum_kind: &str) -> Option<ObjectKind> {
    Some(match forum_kind {
        "COMMUNICATOR" => ObjectKind::Communicator,
        "GROUP" => ObjectKind::Group,
        "DATATYPE" => ObjectKind::Datatype,
        "OPERATION" => ObjectKind::Op,
        "WINDOW" => ObjectKind::Window,
        "ERRHANDLER" => ObjectKind::Errhandler,
        "KEYVAL" => ObjectKind::Keyval,
        "INFO" => ObjectKind::Info,
        "FILE" => ObjectKind::File,
        "SESSION" => ObjectKind::Session,
        _ => return None,
    })
}

/// Collectives, by the name of their blocking form.
const COLLECTIVES: &[&str] = &[
    "Barrier",
    "Bcast",
    "Gather",
    "Gatherv",
    "Scatter",
    "Scatterv",
    "Allgather",
    "Allgatherv",
    "Alltoall",
    "Alltoallv",
    "Alltoallw",
    "Reduce",
    "Allreduce",
    "Reduce_scatter",
    "Reduce_scatter_block",
    "Scan",
    "Exscan",
    "Neighbor_allgather",
    "Neighbor_allgatherv",
    "Neighbor_alltoall",
    "Neighbor_alltoallv",
    "Neighbor_alltoallw",
];

/// The blocking collective a call is a form of (`Igatherv_c`, `Gather_init` → `Gatherv`,
/// `Gather`), if it is one.
pub fn collective_base(short: &str) -> Option<&'static str> {
    let s = short.strip_suffix("_c").unwrap_or(short);
    let s = s.strip_suffix("_init").unwrap_or(s);
    let find = |s: &str| COLLECTIVES.iter().copied().find(|c| *c == s);
    // Nonblocking forms: `Igather` → `Gather`, `Ineighbor_alltoallv` → `Neighbor_alltoallv`.
    let nonblocking = |s: &str| {
        COLLECTIVES
            .iter()
            .copied()
            .find(|c| c.eq_ignore_ascii_case(s))
    };
    find(s).or_else(|| s.strip_prefix('I').and_then(nonblocking))
}

/// The topology a call needs its communicator to have.
#[derive(Clone, Copy)]
enum RequiredTopology {
    /// Neighborhood collectives: any.
    Any,
    Cart,
    Graph,
    DistGraph,
}

impl RequiredTopology {
    fn of(short: &str) -> Option<RequiredTopology> {
        RequiredTopology::of_call(short, collective_base(short))
    }

    /// [`RequiredTopology::of`] a call whose [`collective_base`] is known.
    fn of_call(short: &str, base: Option<&str>) -> Option<RequiredTopology> {
        Some(match short {
            "Cart_get" | "Cart_rank" | "Cart_coords" | "Cart_shift" | "Cart_sub"
            | "Cartdim_get" => RequiredTopology::Cart,
            "Graph_get" | "Graphdims_get" | "Graph_neighbors" | "Graph_neighbors_count" => {
                RequiredTopology::Graph
            }
            "Dist_graph_neighbors" | "Dist_graph_neighbors_count" => RequiredTopology::DistGraph,
            _ if base.is_some_and(|c| c.starts_with("Neighbor_")) => RequiredTopology::Any,
            _ => return None,
        })
    }

    fn satisfied_by(self, topology: Option<TopologyKind>) -> bool {
        match (self, topology) {
            (_, None) => false,
            (RequiredTopology::Any, Some(_)) => true,
            (RequiredTopology::Cart, Some(t)) => matches!(t, TopologyKind::Cart { .. }),
            (RequiredTopology::Graph, Some(t)) => t == TopologyKind::Graph,
            (RequiredTopology::DistGraph, Some(t)) => t == TopologyKind::DistGraph,
        }
    }
}

/// Calls that create or query process topologies, whose size arguments AR012 checks.
fn topology_function(short: &str) -> bool {
    [
        "Cart_",
        "Cartdim_",
        "Graph_",
        "Graphdims_",
        "Dims_",
        "Dist_graph_",
    ]
    .iter()
    .any(|p| short.starts_with(p))
}

/// Which side of a rooted collective a parameter belongs to: `Some(true)` significant only
/// at the root, `Some(false)` only at the other processes (and at an intracommunicator's
/// root too), `None` everywhere or not rooted.
fn root_side(base: &str, param: &str) -> Option<bool> {
    let recv = matches!(
        param,
        "recvbuf" | "recvcount" | "recvcounts" | "recvtype" | "displs"
    );
    let send = matches!(param, "sendbuf" | "sendcount" | "sendcounts" | "sendtype");
    match base {
        "Gather" | "Gatherv" => (recv || send).then_some(recv),
        "Scatter" | "Scatterv" => {
            (recv || send || param == "displs").then_some(send || param == "displs")
        }
        "Reduce" => match param {
            "recvbuf" => Some(true),
            "sendbuf" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a parameter's value matters on this rank in this call (MPI 4.1 §6: arguments of
/// rooted collectives significant only at the root or only at the others, intercommunicator
/// roots; `MPI_IN_PLACE` making the send or receive count and type ignored; `MPI_NO_OP`
/// making the origin buffer of `MPI_Get_accumulate` ignored; the `peer_comm`,
/// `remote_leader` and `tag` of `MPI_Intercomm_create` significant only at the local
/// leader).
fn significant(call: &CallArgs, state: &dyn ArgState, param: &str) -> bool {
    let base = call.plan.base;
    Significance::of(call, state, base).of_role(&ParamRole::of(param, base))
}

const GET_ACCUMULATE: &str = "Get_accumulate";

/// What decides which parameters of one call are significant (see [`significant`]), looked
/// up once per call: [`judge`] asks it for every parameter.
struct Significance {
    sendbuf_in_place: bool,
    recvbuf_in_place: bool,
    /// `MPI_Get_accumulate` with `MPI_NO_OP`: the origin buffer is ignored.
    no_op_get_accumulate: bool,
    /// `MPI_Intercomm_create*`: whether this rank is the local leader.
    intercomm_leader: Option<bool>,
    /// A rooted collective: its root, and the rank's view of its communicator (`None`: not
    /// known).
    rooted: Option<(i64, Option<CommView>)>,
    proc_null: Option<i64>,
    mpi_root: Option<i64>,
}

impl Significance {
    /// `base`: the call's [`collective_base`].
    fn of(call: &CallArgs, state: &dyn ArgState, base: Option<&'static str>) -> Significance {
        let c = state.constants();
        let plan = call.plan;
        let in_place = |at: Option<usize>| {
            c.in_place.is_some() && at.is_some_and(|i| call.on_entry(i).as_int() == c.in_place)
        };
        let intercomm_leader = plan.intercomm_create.then(|| {
            // Significant only at the local leader.
            let me = call.comm().and_then(|raw| state.comm(raw)?.my_rank);
            me.is_some_and(|me| call.int_at(plan.local_leader) == Some(i64::from(me)))
        });
        let rooted = base.and_then(|_| {
            let root = call.int_at(plan.root)?;
            Some((root, call.int_at(plan.comm).and_then(|raw| state.comm(raw))))
        });
        Significance {
            sendbuf_in_place: in_place(plan.sendbuf),
            recvbuf_in_place: in_place(plan.recvbuf),
            no_op_get_accumulate: plan.get_accumulate
                && c.no_op.is_some()
                && call.int_at(plan.op) == c.no_op,
            intercomm_leader,
            rooted,
            proc_null: c.proc_null,
            mpi_root: c.mpi_root,
        }
    }

    /// Whether a parameter in `role` is significant.
    fn of_role(&self, role: &ParamRole) -> bool {
        if self.sendbuf_in_place && role.send_count_or_type {
            return false;
        }
        if self.recvbuf_in_place && role.recv_count_or_type {
            return false;
        }
        if role.origin && self.no_op_get_accumulate {
            return false;
        }
        if let Some(leader) = self.intercomm_leader {
            if role.leader_only {
                return leader;
            }
        }
        if role.peer_comm {
            return false;
        }
        let Some((root, comm)) = &self.rooted else {
            return true;
        };
        if role.comm {
            return true;
        }
        let Some(comm) = comm else {
            return false; // the rank's role is not known
        };
        if comm.remote_size.is_some() {
            // Intercommunicator: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL
            // (nothing is significant there), the other group the root's rank.
            if Some(*root) == self.proc_null {
                return role.root || role.comm;
            }
            let at_root = Some(*root) == self.mpi_root;
            return match role.root_side {
                Some(root_only) => root_only == at_root,
                None => true,
            };
        }
        match role.root_side {
            Some(true) => comm.my_rank.is_some_and(|me| i64::from(me) == *root),
            _ => true,
        }
    }
}

/// What [`Significance::of_role`] asks of a parameter, from its name and its call's
/// [`collective_base`]: worked out once per parameter of a function (`RulePlan`).
#[derive(Clone, Copy)]
pub(super) struct ParamRole {
    /// `sendcount`, `sendtype`, `sendcounts`, `sendtypes`, `sdispls`: ignored with an
    /// in-place send buffer.
    send_count_or_type: bool,
    /// `recvcount`, `recvtype`: ignored with an in-place receive buffer.
    recv_count_or_type: bool,
    /// `origin_*`: ignored by `MPI_Get_accumulate` with `MPI_NO_OP`.
    origin: bool,
    /// `peer_comm`, `remote_leader`, `tag`: significant only at the local leader of
    /// `MPI_Intercomm_create`.
    leader_only: bool,
    peer_comm: bool,
    comm: bool,
    root: bool,
    /// Its side of a rooted collective ([`root_side`]).
    root_side: Option<bool>,
}

impl ParamRole {
    pub(super) fn of(param: &str, base: Option<&str>) -> ParamRole {
        ParamRole {
            send_count_or_type: matches!(
                param,
                "sendcount" | "sendtype" | "sendcounts" | "sendtypes" | "sdispls"
            ),
            recv_count_or_type: matches!(param, "recvcount" | "recvtype"),
            origin: param.starts_with("origin_"),
            leader_only: matches!(param, "peer_comm" | "remote_leader" | "tag"),
            peer_comm: param == "peer_comm",
            comm: param == "comm",
            root: param == "root",
            root_side: base.and_then(|base| root_side(base, param)),
        }
    }
}

/// Whether `MPI_IN_PLACE` is a valid value of buffer parameter `param` in a call whose
/// [`collective_base`] is `base` (worked out per parameter in the plan).
fn in_place_allowed_in(base: Option<&str>, param: &str) -> bool {
    let Some(base) = base else {
        return false;
    };
    if base.starts_with("Neighbor_") || base == "Bcast" || base == "Barrier" {
        return false;
    }
    // The send buffer of the collectives that have one, at the root of rooted ones (elsewhere
    // CO004 reports it, as a mismatch with the root); the
    // receive buffer of a scatter at the root.
    match root_side(base, param) {
        Some(false) => true,
        Some(true) => base.starts_with("Scatter"),
        None => param == "sendbuf",
    }
}

/// Conversions between handle representations take any handle value.
fn conversion(short: &str) -> bool {
    short.ends_with("_c2f")
        || short.ends_with("_f2c")
        || short.ends_with("_toint")
        || short.ends_with("_fromint")
}

/// Calls that read or write a buffer described by their datatype (so the datatype must be
/// committed): every call with a buffer and a datatype except packing, which the standard
/// lets describe any datatype.
fn moves_data(function: &FunctionSchema, short: &str) -> bool {
    let has = |kind: &str| function.params.iter().any(|p| p.kind == kind);
    has("BUFFER") && has("DATATYPE") && !short.starts_with("Pack") && !short.starts_with("Unpack")
}

/// A parameter kind as the loop of [`judge`] tells them apart: the kind's name is compared
/// once per parameter, not once per rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judged {
    Handle(ObjectKind),
    Request,
    /// One of [`COUNT_KINDS`].
    Count,
    Buffer,
    Tag,
    Rank,
    Assert,
    Color,
    SplitType,
    /// A kind the loop does not judge.
    Not,
}

impl Judged {
    fn of(forum_kind: &str) -> Judged {
        if let Some(kind) = object_kind(forum_kind) {
            return Judged::Handle(kind);
        }
        match forum_kind {
            "REQUEST" => Judged::Request,
            "BUFFER" => Judged::Buffer,
            "TAG" => Judged::Tag,
            "RANK" => Judged::Rank,
            "ASSERT" => Judged::Assert,
            "COLOR" => Judged::Color,
            "SPLIT_TYPE" => Judged::SplitType,
            k if COUNT_KINDS.contains(&k) => Judged::Count,
            _ => Judged::Not,
        }
    }
}

/// The problems of one call's arguments.
pub fn judge(call: &CallArgs, state: &dyn ArgState) -> Vec<ArgIssue> {
    let mut issues = Vec::new();
    let plan = call.plan;
    if plan.conversion {
        return issues;
    }
    let mut issue = |param: &str, problem: ArgProblem| {
        issues.push(ArgIssue {
            param: intern(param),
            problem,
        })
    };
    let c = state.constants();
    let base = plan.base;
    let significance = Significance::of(call, state, base);
    for judged_param in &plan.params {
        let (i, judged) = (judged_param.at, judged_param.judged);
        if !significance.of_role(&judged_param.role) {
            continue;
        }
        let name = call.function.params[i].name.as_str();
        let value = match call.values.input(i) {
            Value::Missing if judged_param.buffer => call.values.output_on_entry(i),
            input => input,
        };
        match (judged, &value) {
            (Judged::Request, Value::Int(raw))
                if plan.null_request_forbidden && Some(*raw) == c.request_null =>
            {
                issue(
                    name,
                    ArgProblem::NullHandle {
                        kind: ObjectKind::Request,
                    },
                );
            }
            (Judged::Handle(kind), Value::Int(raw)) => match state.handle(kind, *raw) {
                HandleState::Null if judged_param.null_forbidden => {
                    issue(name, ArgProblem::NullHandle { kind })
                }
                HandleState::Freed => issue(name, ArgProblem::FreedHandle { kind }),
                HandleState::Uncommitted if plan.moves_data => {
                    issue(name, ArgProblem::UncommittedDatatype)
                }
                _ => {}
            },
            (Judged::Count, Value::Int(v)) if *v < 0 => {
                issue(name, ArgProblem::NegativeCount { value: *v })
            }
            (Judged::Count, Value::Array(values)) => {
                if let Some(&v) = values.iter().find(|&&v| v < 0) {
                    issue(name, ArgProblem::NegativeCount { value: v });
                }
            }
            (Judged::Buffer, Value::Int(address)) => {
                if c.in_place.is_some() && Some(*address) == c.in_place {
                    if !judged_param.in_place_allowed {
                        issue(name, ArgProblem::InPlaceNotAllowed);
                    }
                } else if *address == 0 {
                    if let Some(count) = null_buffer_count(call, state, name) {
                        issue(name, ArgProblem::NullBuffer { count });
                    }
                }
            }
            (Judged::Tag, Value::Int(tag))
                if !(judged_param.wildcard_tag && Some(*tag) == c.any_tag)
                    && (*tag < 0 || c.tag_ub.is_some_and(|ub| *tag > ub)) =>
            {
                issue(
                    name,
                    ArgProblem::InvalidTag {
                        value: *tag,
                        tag_ub: c.tag_ub,
                    },
                );
            }
            (Judged::Rank, Value::Int(rank)) => {
                if let Some(problem) = peer_problem(call, state, judged_param.peer, *rank) {
                    issue(name, problem);
                }
            }
            (Judged::Assert, Value::Int(value)) => {
                let not_allowed = asserts::not_allowed(call.short, *value, c);
                if !not_allowed.is_empty() {
                    let value = *value;
                    issue(name, ArgProblem::InvalidAssert { value, not_allowed });
                }
            }
            (Judged::Color | Judged::SplitType, Value::Int(color))
                if *color < 0 && Some(*color) != c.undefined =>
            {
                issue(name, ArgProblem::InvalidColor { value: *color });
            }
            (Judged::SplitType, Value::Int(split_type))
                if *split_type >= 0
                    && c.split_types
                        .as_ref()
                        .is_some_and(|known| !known.contains(split_type)) =>
            {
                issue(name, ArgProblem::UndefinedSplitType { value: *split_type });
            }
            _ => {}
        }
    }
    topology_issues(call, state, &mut issue);
    if plan.rank_arrays {
        arrays::rank_array_issues(call, state, &mut issue);
    }
    if plan.grid {
        arrays::grid_issues(call, state, &mut issue);
    }
    if plan.partitions {
        partitions::partition_issues(call, state, &mut issue);
    }
    issues
}

/// The count of a `NULL` buffer that must hold data: positive, of a predefined datatype
/// (with a derived one, address 0 is `MPI_BOTTOM` and the datatype holds absolute
/// addresses).
fn null_buffer_count(call: &CallArgs, state: &dyn ArgState, buffer: &str) -> Option<i64> {
    let (count, datatype) = match buffer {
        "buf" | "buffer" => ("count", "datatype"),
        "sendbuf" if call.int("sendcount").is_some() => ("sendcount", "sendtype"),
        "recvbuf" if call.int("recvcount").is_some() => ("recvcount", "recvtype"),
        "sendbuf" | "recvbuf" => ("count", "datatype"),
        "origin_addr" => ("origin_count", "origin_datatype"),
        "result_addr" => ("result_count", "result_datatype"),
        _ => return None,
    };
    let count = call.int(count)?;
    let predefined = call
        .int(datatype)
        .is_some_and(|t| state.predefined_datatype(t));
    (count > 0 && predefined && significant(call, state, buffer)).then_some(count)
}

/// A rank argument outside its group.
fn peer_problem(
    call: &CallArgs,
    state: &dyn ArgState,
    peer: Peer,
    rank: i64,
) -> Option<ArgProblem> {
    let c = state.constants();
    let group = match peer {
        // (With a topology rank, the rank of a topology query: MPI_Cart_coords,
        // MPI_Graph_neighbors...)
        Peer::Dest | Peer::Source | Peer::Root | Peer::TopologyRank => {
            call.int_at(call.plan.comm).and_then(|raw| state.comm(raw))
        }
        Peer::Other => None,
    }?;
    let topology_rank = peer == Peer::TopologyRank;
    if Some(rank) == c.proc_null && !topology_rank {
        return None;
    }
    // (A partitioned receive takes no wildcard: AR016 reports it.)
    if peer == Peer::Source && Some(rank) == c.any_source {
        return None;
    }
    let size = match (peer, group.remote_size) {
        (Peer::Root, Some(remote)) => {
            if Some(rank) == c.mpi_root {
                return None;
            }
            remote
        }
        (_, Some(remote)) if !topology_rank => remote,
        _ => group.size,
    };
    (rank < 0 || rank >= i64::from(size))
        .then_some(ArgProblem::RankOutOfRange { value: rank, size })
}

/// Topology arguments (AR012) and topology queries on a communicator without that topology
/// (AR013).
fn topology_issues(
    call: &CallArgs,
    state: &dyn ArgState,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    let required = call.plan.required_topology;
    let topology_function = call.plan.topology_function;
    if required.is_none() && !topology_function {
        return; // (before the communicator is looked up)
    }
    let comm = call.comm().and_then(|raw| state.comm(raw));
    if let (Some(required), Some(Some(topology))) = (required, comm.map(|c| c.topology)) {
        if !required.satisfied_by(topology) {
            issue("comm", ArgProblem::MissingTopology);
        }
    }
    if !topology_function {
        return;
    }
    let params = &call.function.params;
    for (i, param) in params.iter().enumerate() {
        let value = call.on_entry(i);
        if param.direction == Direction::Out {
            continue;
        }
        let name = param.name.as_str();
        match (param.kind.as_str(), &value) {
            ("NUM_DIMS" | "COMM_SIZE", Value::Int(v)) if *v < 0 => {
                issue(name, ArgProblem::InvalidTopology { value: *v });
            }
            ("DIMENSION", Value::Array(dims)) => {
                if let Some(&d) = dims.iter().find(|&&d| d < 0) {
                    issue(name, ArgProblem::InvalidTopology { value: d });
                }
            }
            _ => {}
        }
    }
    // A cartesian grid of more processes than the communicator has (MPI 4.1 §8.5.1).
    if call.short == "Cart_create" {
        if let (Some(dims), Some(comm)) = (call.array("dims"), comm) {
            let product = dims
                .iter()
                .try_fold(1i64, |p, &d| if d < 0 { None } else { p.checked_mul(d) });
            if let Some(product) = product.filter(|&p| p > i64::from(comm.size)) {
                if comm.remote_size.is_none() {
                    issue(
                        "dims",
                        ArgProblem::GridTooLarge {
                            processes: product,
                            size: comm.size,
                        },
                    );
                }
            }
        }
    }
}

/// Whether a rule judges a function: it has a parameter the rule looks at (the same
/// conditions as in [`judge`], without the values).
fn rule_applies(rule: &KindRule, f: &FunctionSchema) -> bool {
    let short = f.name.strip_prefix("MPI_").unwrap_or(&f.name);
    if conversion(short) {
        return false;
    }
    let topology = RequiredTopology::of(short).is_some();
    f.params.iter().any(|p| {
        let (kind, name) = (p.kind.as_str(), p.name.as_str());
        let input = p.direction != Direction::Out;
        if !rule.kinds.contains(&kind) || !(input || kind == "BUFFER") {
            return false;
        }
        match (rule.code, kind) {
            ("AR001", _) => {
                matches!(name, "dest" | "source" | "root")
                    || (name == "rank" && topology)
                    || (arrays::RANK_ARRAYS.contains(&name) && p.shape == ParamShape::Array)
            }
            ("AR012", "INDEX") => matches!(short, "Graph_create" | "Graph_map" | "Cart_shift"),
            ("AR012", "COORDINATE") => short == "Cart_rank",
            ("AR015", _) => asserts::judged(short),
            ("AR014", _) => matches!(name, "ranks" | "ranges") && short.starts_with("Group_"),
            ("AR004", "REQUEST") => null_request_forbidden(short),
            ("AR016", _) => partitions::judged(short),
            ("AR004", _) => null_forbidden(short, kind),
            ("AR006", _) => moves_data(f, short),
            ("AR007", _) => matches!(
                name,
                "buf" | "buffer" | "sendbuf" | "recvbuf" | "origin_addr" | "result_addr"
            ),
            ("AR012", _) => topology_function(short),
            _ => true,
        }
    })
}

/// The number of functions of a schema that a rule judges.
pub fn functions_covered<'a>(
    functions: impl IntoIterator<Item = &'a FunctionSchema>,
    rule: &KindRule,
) -> usize {
    functions
        .into_iter()
        .filter(|f| {
            let short = f.name.strip_prefix("MPI_").unwrap_or(&f.name);
            if rule.code == "AR013" {
                return RequiredTopology::of(short).is_some();
            }
            rule_applies(rule, f)
        })
        .count()
}

/// The C functions the recorder records, from the function table the generator wrote
/// (`build.rs` extracts it from `wrappers.c`).
pub fn recorded_functions() -> Vec<FunctionSchema> {
    let text = include_str!(concat!(env!("OUT_DIR"), "/recorded_functions.txt"));
    let Ok(schema) = mpicheck_trace::Schema::parse(text) else {
        return Vec::new(); // a test keeps it parsing
    };
    (0..schema.len() as u16)
        .filter_map(|id| schema.function(id).cloned())
        .filter(|f| f.name.starts_with("MPI_"))
        .collect()
}

/// The recorded functions the rules of check `code` apply to, by name; `None` for a check
/// that is not a parameter-kind rule.
pub fn functions_of(code: &str) -> Option<Vec<String>> {
    let rules: Vec<&KindRule> = KIND_RULES.iter().filter(|r| r.code == code).collect();
    if rules.is_empty() {
        return None;
    }
    let functions = recorded_functions();
    Some(
        functions
            .iter()
            .filter(|f| rules.iter().any(|r| functions_covered([*f], r) == 1))
            .map(|f| f.name.clone())
            .collect(),
    )
}

/// The docs' table of parameter kinds: each rule, its kinds, its code and how many
/// functions of the API description it covers.
pub fn kind_table(functions: &[FunctionSchema]) -> String {
    let mut table =
        String::from("| parameter kinds | check | rule | functions |\n|---|---|---|---|\n");
    for rule in KIND_RULES {
        let kinds = rule
            .kinds
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        table += &format!(
            "| {kinds} | {} | {} | {} |\n",
            rule.code,
            rule.rule,
            functions_covered(functions, rule)
        );
    }
    table
}

mod arrays;
mod asserts;
mod partitions;
mod plan;
#[cfg(test)]
mod tests;

pub use arrays::{range_ranks, ranges_len};
pub use partitions::{marked_ready, PartitionedRequest};
use plan::Peer;
pub use plan::RulePlan;
