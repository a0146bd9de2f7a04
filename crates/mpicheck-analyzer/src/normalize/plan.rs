//! What the normalizer knows of a function before any of its calls: its names, where its
//! handle and buffer parameters are, which lifecycle and argument rules apply. Worked out
//! once per function of a trace ([`FunctionPlans`]) and read for each call, instead of
//! comparing the function's and its parameters' names call after call.

use mpicheck_trace::schema::Direction;
use mpicheck_trace::FunctionSchema;

use super::args::WordLayout;
use super::constants::intern;
use super::facts::{allowed_anytime, frees, returns_borrowed};
use super::kind::{CallKind, CollectivePlan};
use super::names::{base_name, MANAGEMENT_COLLECTIVES};
use super::rma::access_kind;
use crate::checks::argument::rules::{object_kind, RulePlan};
use crate::model::{BufferParam, ObjectKind};

/// A parameter of a handle kind (`COMMUNICATOR`, `DATATYPE`, ...).
pub(super) struct HandleParam {
    /// Its index in the function's parameters.
    pub(super) at: usize,
    pub(super) kind: ObjectKind,
    pub(super) direction: Direction,
}

/// A buffer whose span the facts record: its address, count and datatype parameters.
pub(super) struct BufferRow {
    pub(super) param: BufferParam,
    pub(super) address: usize,
    pub(super) count: usize,
    pub(super) datatype: usize,
    /// Whether MPI writes it; `None`: the `buf` of a point-to-point call, written unless the
    /// call sends (a send-receive with replacement writes it too).
    pub(super) write: Option<bool>,
}

/// Where the parameters of point-to-point and completion calls are (each the first of its
/// name, as `Args::int` finds it by name).
pub(super) struct P2pParams {
    pub(super) comm: Option<usize>,
    pub(super) dest: Option<usize>,
    pub(super) source: Option<usize>,
    pub(super) tag: Option<usize>,
    pub(super) count: Option<usize>,
    pub(super) datatype: Option<usize>,
    pub(super) sendtag: Option<usize>,
    pub(super) sendcount: Option<usize>,
    pub(super) sendtype: Option<usize>,
    pub(super) recvtag: Option<usize>,
    pub(super) recvcount: Option<usize>,
    pub(super) recvtype: Option<usize>,
    pub(super) request: Option<usize>,
    /// The address of the program's request variable, or of the first entry of
    /// `array_of_requests` (absent from older traces): see `requests::request_of`.
    pub(super) request_address: Option<usize>,
    pub(super) requests_address: Option<usize>,
    /// Bytes from one entry of `array_of_requests` to the next in a C call: the recorded
    /// width of a handle.
    pub(super) requests_stride: i64,
    pub(super) status: Option<usize>,
    pub(super) statuses: Option<usize>,
    pub(super) partitions: Option<usize>,
    /// `array_of_requests`, and the outputs of tests and waits.
    pub(super) requests: Option<usize>,
    pub(super) flag: Option<usize>,
    pub(super) index: Option<usize>,
    pub(super) outcount: Option<usize>,
    pub(super) indices: Option<usize>,
}

/// What a call does to the topology its communicator creation awaits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TopologyAction {
    None,
    /// `MPI_Graph_create`: the graph of `index` and `edges`.
    Graph,
    /// `MPI_Dist_graph_create_adjacent`: its `sources` and `destinations`.
    Adjacent,
    /// A duplicate keeps its parent's graph (MPI 4.1 §7.4.2).
    Duplicate,
}

/// One function of a trace, as the normalizer uses it for every call.
pub(super) struct FunctionPlan {
    /// The function's name (`MPI_Send_c`), interned.
    pub(super) name: &'static str,
    /// Without the large-count suffix (`MPI_Send`).
    pub(super) base_name: &'static str,
    /// Without `MPI_` either (`Send`); pseudo-calls keep their whole name.
    pub(super) short: &'static str,
    /// Valid whether or not MPI is initialized ([`allowed_anytime`]).
    pub(super) allowed_anytime: bool,
    /// `MPI_Session_init`: it initializes MPI.
    pub(super) session_init: bool,
    /// Its handle-kind inout parameter is the object it frees ([`frees`]).
    pub(super) frees: bool,
    /// Its output handles are not new objects ([`returns_borrowed`]).
    pub(super) returns_borrowed: bool,
    /// Its calls may make, free or commit objects (it writes a handle, or is
    /// `MPI_Type_commit` or `MPI_Type_get_envelope`): `facts::lifecycle` passes over the
    /// calls of every other function.
    pub(super) lifecycle: bool,
    /// A call `facts::note_partitioned` follows by name (`MPI_Psend_init`, `MPI_Pready`,
    /// `MPI_Request_free`, ...).
    pub(super) partitioned_call: bool,
    /// One of [`MANAGEMENT_COLLECTIVES`].
    pub(super) management_collective: bool,
    /// Its communicator may have members outside the job: `MPI_Comm_spawn` (`_multiple`),
    /// `MPI_Comm_connect`, `MPI_Comm_accept`, `MPI_Comm_join`, `MPI_Comm_get_parent`.
    pub(super) connects_outside: bool,
    /// The first output communicator and output group.
    pub(super) out_communicator: Option<usize>,
    pub(super) out_group: Option<usize>,
    /// The parameters of a handle kind, in order.
    pub(super) handles: Vec<HandleParam>,
    /// The buffers whose spans are recorded (of point-to-point calls and counted
    /// collectives; see `facts::buffer_spans`).
    pub(super) buffers: Vec<BufferRow>,
    /// A reduction whose buffers are `count` elements on every rank.
    pub(super) counted_collective: bool,
    /// An `MPI_` call on groups (`MPI_Group_*`, `MPI_Comm_group`, `MPI_Win_get_group`, ...),
    /// which `rma::group_call` may follow.
    pub(super) group_call: bool,
    /// An `MPI_` call on windows (`MPI_Win_*`) or an RMA access (`MPI_Put`, ...).
    pub(super) window_call: bool,
    /// Its point-to-point and completion parameters.
    pub(super) p2p: P2pParams,
    /// The argument rules' view of the function.
    pub(super) rules: RulePlan,
    /// Where its parameters are in a call's words.
    pub(super) layout: WordLayout,
    /// The operation its calls become.
    pub(super) kind: CallKind,
    /// The recorder's pseudo-call it is that yields no event (`RankStream::call`).
    pub(super) pseudo: Option<Pseudo>,
    /// `MPI_Abort`, whose event may say how the rank ended (`RankStream::call`).
    pub(super) abort: bool,
    /// Where the arguments of its calls that must agree across ranks are, for collectives.
    pub(super) collective: CollectivePlan,
    /// An `MPI_Type_*` call, which `type_constructor` follows.
    pub(super) type_call: bool,
    pub(super) topology: TopologyAction,
}

impl FunctionPlan {
    pub(super) fn of(function: &FunctionSchema) -> FunctionPlan {
        let name = intern(&function.name);
        let base_name = intern(base_name(name));
        let short = base_name.strip_prefix("MPI_").unwrap_or(base_name);
        let position = |name: &str| function.params.iter().position(|p| p.name == name);
        let out_handle = |kind: &str| {
            function
                .params
                .iter()
                .position(|p| p.kind == kind && p.direction == Direction::Out)
        };
        let handles: Vec<HandleParam> = function
            .params
            .iter()
            .enumerate()
            .filter_map(|(at, p)| {
                Some(HandleParam {
                    at,
                    kind: object_kind(&p.kind)?,
                    direction: p.direction,
                })
            })
            .collect();
        let lifecycle = handles.iter().any(|p| p.direction != Direction::In)
            || matches!(short, "Type_commit" | "Type_get_envelope");
        let buffers = [
            (BufferParam::Buf, "count", "datatype", None),
            (BufferParam::Sendbuf, "sendcount", "sendtype", Some(false)),
            (BufferParam::Recvbuf, "recvcount", "recvtype", Some(true)),
            (BufferParam::Sendbuf, "count", "datatype", Some(false)),
            (BufferParam::Recvbuf, "count", "datatype", Some(true)),
        ]
        .into_iter()
        .filter_map(|(param, count, datatype, write)| {
            Some(BufferRow {
                param,
                address: position(param.name())?,
                count: position(count)?,
                datatype: position(datatype)?,
                write,
            })
        })
        .collect();
        let reduction = short.strip_prefix('I').unwrap_or(short);
        let mpi_short = base_name.strip_prefix("MPI_");
        FunctionPlan {
            name,
            base_name,
            short,
            allowed_anytime: allowed_anytime(name),
            session_init: short.starts_with("Session_init"),
            frees: frees(short),
            returns_borrowed: returns_borrowed(short),
            lifecycle,
            partitioned_call: matches!(
                short,
                "Psend_init"
                    | "Precv_init"
                    | "Pready"
                    | "Pready_range"
                    | "Pready_list"
                    | "Request_free"
            ),
            management_collective: MANAGEMENT_COLLECTIVES.contains(&base_name),
            connects_outside: matches!(
                base_name,
                "MPI_Comm_spawn"
                    | "MPI_Comm_spawn_multiple"
                    | "MPI_Comm_connect"
                    | "MPI_Comm_accept"
                    | "MPI_Comm_join"
                    | "MPI_Comm_get_parent"
            ),
            out_communicator: out_handle("COMMUNICATOR"),
            out_group: out_handle("GROUP"),
            handles,
            buffers,
            counted_collective: matches!(
                reduction,
                "allreduce" | "Allreduce" | "scan" | "Scan" | "exscan" | "Exscan"
            ),
            group_call: mpi_short
                .is_some_and(|short| short.starts_with("Group_") || short.contains("_group")),
            window_call: mpi_short
                .is_some_and(|short| short.starts_with("Win_") || access_kind(short).is_some()),
            p2p: P2pParams {
                comm: position("comm"),
                dest: position("dest"),
                source: position("source"),
                tag: position("tag"),
                count: position("count"),
                datatype: position("datatype"),
                sendtag: position("sendtag"),
                sendcount: position("sendcount"),
                sendtype: position("sendtype"),
                recvtag: position("recvtag"),
                recvcount: position("recvcount"),
                recvtype: position("recvtype"),
                request: position("request"),
                request_address: position("request_address"),
                requests_address: position("array_of_requests_address"),
                requests_stride: position("array_of_requests")
                    .map_or(8, |at| i64::from(function.params[at].width)),
                status: position("status"),
                statuses: position("array_of_statuses"),
                partitions: position("partitions"),
                requests: position("array_of_requests"),
                flag: position("flag"),
                index: position("index"),
                outcount: position("outcount"),
                indices: position("array_of_indices"),
            },
            rules: RulePlan::of(function, short),
            layout: WordLayout::of(function),
            kind: CallKind::of(base_name),
            pseudo: match function.name.as_str() {
                "MPICHECK_Sync" => Some(Pseudo::Sync),
                "MPICHECK_Access" => Some(Pseudo::Access),
                "MPICHECK_Buffers" => Some(Pseudo::Buffers),
                "MPICHECK_Given_up" => Some(Pseudo::GivenUp),
                _ => None,
            },
            abort: name == "MPI_Abort",
            collective: CollectivePlan::of(
                short,
                position,
                function
                    .params
                    .iter()
                    .position(|p| p.kind == "COMMUNICATOR"),
            ),
            type_call: base_name.starts_with("MPI_Type_"),
            topology: match base_name {
                "MPI_Graph_create" => TopologyAction::Graph,
                "MPI_Dist_graph_create_adjacent" => TopologyAction::Adjacent,
                "MPI_Comm_dup"
                | "MPI_Comm_dup_with_info"
                | "MPI_Comm_idup"
                | "MPI_Comm_idup_with_info" => TopologyAction::Duplicate,
                _ => TopologyAction::None,
            },
        }
    }
}

/// The recorder's pseudo-calls that yield no event, by their function's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pseudo {
    /// `MPICHECK_Sync`: a synchronization record of the rank's threads.
    Sync,
    /// `MPICHECK_Access`: an access to a watched buffer.
    Access,
    /// `MPICHECK_Buffers`: the counts of the buffer watch.
    Buffers,
    /// `MPICHECK_Given_up`: buffers a site stopped watching.
    GivenUp,
}

/// The plans of one trace's functions, by function id, each made at its first call (boxed:
/// the ids of a schema run to hundreds, most never called).
#[derive(Default)]
pub(super) struct FunctionPlans {
    by_id: Vec<Option<Box<FunctionPlan>>>,
}

impl FunctionPlans {
    /// The plan of function `id` of the trace, whose schema is `function`. (Inlined: asked
    /// for every call, made once per function.)
    #[inline]
    pub(super) fn of(&mut self, id: u16, function: &FunctionSchema) -> &FunctionPlan {
        let i = usize::from(id);
        if self.by_id.get(i).is_none_or(Option::is_none) {
            self.make(i, function);
        }
        self.by_id[i].as_deref().expect("made above")
    }

    #[cold]
    fn make(&mut self, i: usize, function: &FunctionSchema) {
        if self.by_id.len() <= i {
            self.by_id.resize_with(i + 1, || None);
        }
        self.by_id[i] = Some(Box::new(FunctionPlan::of(function)));
    }
}
