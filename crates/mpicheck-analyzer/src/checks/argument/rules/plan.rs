//! What [`judge`](super::judge) needs to know of a function before any of its calls: which
//! parameters the per-parameter rules look at and how, and which of the function-specific
//! exceptions apply. Worked out once per function of a trace (the normalizer keeps one per
//! function, `normalize::plan`) instead of comparing names call after call.

use mpicheck_trace::schema::{Direction, FunctionSchema, ParamShape};

use super::handles::{conversion, moves_data, null_forbidden, null_request_forbidden};
use super::significance::{in_place_allowed_in, ParamRole, RoleConditions, GET_ACCUMULATE};
use super::topology::{topology_function, RequiredTopology};
use super::{arrays, collective_base, partitions, Judged};

/// One parameter the loop of [`judge`](super::judge) judges.
pub(super) struct JudgedParam {
    /// Its index in the function's parameters.
    pub(super) at: usize,
    pub(super) judged: Judged,
    /// For a handle: whether its kind's null handle is an error here ([`null_forbidden`]).
    pub(super) null_forbidden: bool,
    /// What decides whether it is significant in a call.
    pub(super) role: ParamRole,
    /// Whether it may be insignificant in some call ([`ParamRole::conditional`]): only then
    /// is its role asked.
    pub(super) conditional: bool,
    /// A count given as an array (`recvcounts`): its words are judged, not one word.
    pub(super) array: bool,
    /// A `BUFFER` parameter: its value on entry is its output word when it has no input.
    pub(super) buffer: bool,
    /// A tag: `MPI_ANY_TAG` is valid here (a receive's or probe's `tag`, a `recvtag`).
    pub(super) wildcard_tag: bool,
    /// A buffer: `MPI_IN_PLACE` is valid here ([`in_place_allowed_in`]).
    pub(super) in_place_allowed: bool,
    /// A rank: which peer it names, for its group.
    pub(super) peer: Peer,
}

/// Which rank parameter a peer rank is, for the group it must be in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Peer {
    Dest,
    Source,
    Root,
    /// The `rank` of a topology query.
    TopologyRank,
    /// Any other rank (not judged against a group here).
    Other,
}

/// The rules' view of one function.
pub struct RulePlan {
    /// A conversion between handle representations: nothing is judged.
    pub(super) conversion: bool,
    /// The blocking collective the call is a form of ([`collective_base`]).
    pub(super) base: Option<&'static str>,
    pub(super) required_topology: Option<RequiredTopology>,
    /// It creates or queries a process topology ([`topology_function`]).
    pub(super) topology_function: bool,
    /// It reads or writes a buffer described by a datatype ([`moves_data`]).
    pub(super) moves_data: bool,
    /// `MPI_Intercomm_create*`: some parameters matter only at the local leader.
    pub(super) intercomm_create: bool,
    /// `MPI_Get_accumulate` (and its kin): with `MPI_NO_OP` the origin buffer is ignored.
    pub(super) get_accumulate: bool,
    /// The first communicator input (`comm`, `comm_old`).
    pub(super) comm_input: Option<usize>,
    /// The first parameters named `sendbuf` and `recvbuf`.
    pub(super) sendbuf: Option<usize>,
    pub(super) recvbuf: Option<usize>,
    /// The first parameters named `comm`, `root`, `local_leader` and `op`.
    pub(super) comm: Option<usize>,
    pub(super) root: Option<usize>,
    pub(super) local_leader: Option<usize>,
    pub(super) op: Option<usize>,
    /// Whether the rules of rank arrays, grid places and partitions look at the function
    /// (`arrays::rank_array_issues`, `arrays::grid_issues`, `partitions::partition_issues`).
    pub(super) rank_arrays: bool,
    pub(super) grid: bool,
    pub(super) partitions: bool,
    /// The parameters the loop judges, in order: only those a rule of the loop can find
    /// wrong (a scalar word, or an array of counts).
    pub(super) params: Vec<JudgedParam>,
    /// Some parameter of `params` is `conditional`: the call's [`Significance`] is needed.
    ///
    /// [`Significance`]: super::significance::Significance
    pub(super) significance_needed: bool,
}

impl RulePlan {
    /// The plan of `function`, whose short name (`Send`, without `MPI_` and `_c`) is `short`.
    pub fn of(function: &FunctionSchema, short: &str) -> RulePlan {
        let position = |name: &str| function.params.iter().position(|p| p.name == name);
        let base = collective_base(short);
        let required_topology = RequiredTopology::of(short);
        let unsuffixed = short.strip_suffix("_c").unwrap_or(short);
        let receive = matches!(
            unsuffixed,
            "Recv" | "Irecv" | "Recv_init" | "Probe" | "Iprobe" | "Mprobe" | "Improbe"
        );
        let comm = position("comm");
        let root = position("root");
        let local_leader = position("local_leader");
        let op = position("op");
        let sendbuf = position("sendbuf");
        let recvbuf = position("recvbuf");
        let intercomm_create = short.starts_with("Intercomm_create");
        let get_accumulate = short.contains(GET_ACCUMULATE);
        // Its request must not be `MPI_REQUEST_NULL`.
        let request_judged = null_request_forbidden(short);
        let conditions = RoleConditions {
            sendbuf_in_place: sendbuf.is_some(),
            recvbuf_in_place: recvbuf.is_some(),
            no_op: get_accumulate,
            intercomm_create,
            rooted: base.is_some() && root.is_some(),
        };
        let params: Vec<JudgedParam> = function
            .params
            .iter()
            .enumerate()
            .filter_map(|(at, param)| {
                let judged = Judged::of(&param.kind);
                if judged == Judged::Not
                    || (param.direction == Direction::Out && judged != Judged::Buffer)
                {
                    return None;
                }
                // The rules of the loop judge one word, or a count's array: a parameter of
                // another shape, or a request where its null handle is valid, never has an
                // issue of theirs.
                let array = match param.shape {
                    ParamShape::Scalar => false,
                    ParamShape::Array if judged == Judged::Count => true,
                    _ => return None,
                };
                if judged == Judged::Request && !request_judged {
                    return None;
                }
                let name = param.name.as_str();
                let role = ParamRole::of(name, base);
                Some(JudgedParam {
                    at,
                    judged,
                    null_forbidden: null_forbidden(short, &param.kind),
                    role,
                    conditional: role.conditional(&conditions),
                    array,
                    buffer: param.kind == "BUFFER",
                    // A partitioned receive's wildcard is AR016's (it takes none).
                    wildcard_tag: name == "recvtag"
                        || (name == "tag" && (receive || unsuffixed == "Precv_init")),
                    in_place_allowed: in_place_allowed_in(base, name),
                    peer: match name {
                        "dest" => Peer::Dest,
                        "source" => Peer::Source,
                        "root" => Peer::Root,
                        "rank" if required_topology.is_some() => Peer::TopologyRank,
                        _ => Peer::Other,
                    },
                })
            })
            .collect();
        RulePlan {
            conversion: conversion(short),
            base,
            required_topology,
            topology_function: topology_function(short),
            moves_data: moves_data(function, short),
            intercomm_create,
            get_accumulate,
            comm_input: function
                .params
                .iter()
                .position(|p| p.kind == "COMMUNICATOR" && p.direction == Direction::In),
            sendbuf,
            recvbuf,
            comm,
            root,
            local_leader,
            op,
            rank_arrays: arrays::rank_arrays_judged(short),
            grid: arrays::grid_judged(short),
            partitions: partitions::judged(short),
            significance_needed: params.iter().any(|p| p.conditional),
            params,
        }
    }
}
