//! The argument rules: one per semantic kind of parameter in the MPI Forum's API description,
//! applied to every function the trace's schema gives a parameter of that kind, with the
//! function-specific exceptions written once (in the files of `rules/`, below).
//!
//! The normalizer calls [`judge`] for every call with the call's input words and the state
//! only it knows ([`ArgState`]: live, freed and uncommitted handles, communicator sizes and
//! topologies); the checks of this folder report the [`ArgIssue`]s it returns. Nothing here
//! lists functions by hand except the exceptions: a new function in the API description
//! with a parameter of a checked kind is checked without a change here.
//!
//! This file holds [`judge`], the loop over a call's parameters, with the rules on peer ranks
//! (AR001) and `NULL` buffers (AR007). The rest, in `rules/`:
//! - `table.rs`: the rule table ([`KIND_RULES`]) and the functions each rule covers;
//! - `inputs.rs`: what the rules read ([`CallArgs`], [`ArgState`] and its types);
//! - `plan.rs`: what the rules need of a function, worked out once ([`RulePlan`]);
//! - the exceptions, by the kind of parameter they judge: `significance.rs` (arguments that
//!   matter only at a root or a leader, or not with `MPI_IN_PLACE` or `MPI_NO_OP`; where
//!   `MPI_IN_PLACE` is valid; [`collective_base`]), `handles.rs` (null handles, uncommitted
//!   datatypes, handle conversions), `topology.rs` (AR012, AR013), `arrays.rs` (rank lists,
//!   graph arrays, grid places), `asserts.rs` (RMA assertions), `partitions.rs` (partitioned
//!   communication).

use crate::model::{ArgIssue, ArgProblem, ObjectKind};
use crate::normalize::intern;

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

/// The problems of one call's arguments. (Generic over the state: the lookups of every
/// call, of handles and communicators, are direct calls.)
pub fn judge<S: ArgState>(call: &CallArgs, state: &S) -> Vec<ArgIssue> {
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
    let significance = plan
        .significance_needed
        .then(|| Significance::of(call, state, plan.base));
    // The view of the call's communicator, looked up at its first peer rank.
    let mut peer_group = None;
    let values = &call.values;
    for judged_param in &plan.params {
        let at = judged_param.at;
        if judged_param.conditional
            && !significance
                .as_ref()
                .is_some_and(|s| s.of_role(&judged_param.role))
        {
            continue;
        }
        let name = || call.function.params[at].name.as_str();
        if judged_param.array {
            // A count's array (the plan has no other).
            if let Some(&v) = values
                .input(at)
                .as_array()
                .and_then(|values| values.iter().find(|&&v| v < 0))
            {
                issue(name(), ArgProblem::NegativeCount { value: v });
            }
            continue;
        }
        // The word on entry: an output buffer's address is its output word.
        let word = match values.int(at) {
            None if judged_param.buffer => values.out_int_on_entry(at),
            input => input,
        };
        let Some(word) = word else { continue };
        match judged_param.judged {
            // (Only where the null request is an error: the plan has no other.)
            Judged::Request if Some(word) == c.request_null => {
                issue(
                    name(),
                    ArgProblem::NullHandle {
                        kind: ObjectKind::Request,
                    },
                );
            }
            Judged::Handle(kind) => match state.handle(kind, word) {
                HandleState::Null if judged_param.null_forbidden => {
                    issue(name(), ArgProblem::NullHandle { kind })
                }
                HandleState::Freed => issue(name(), ArgProblem::FreedHandle { kind }),
                HandleState::Uncommitted if plan.moves_data => {
                    issue(name(), ArgProblem::UncommittedDatatype)
                }
                _ => {}
            },
            Judged::Count if word < 0 => issue(name(), ArgProblem::NegativeCount { value: word }),
            Judged::Buffer => {
                if c.in_place.is_some() && Some(word) == c.in_place {
                    if !judged_param.in_place_allowed {
                        issue(name(), ArgProblem::InPlaceNotAllowed);
                    }
                } else if word == 0 {
                    if let Some(count) = null_buffer_count(call, state, name()) {
                        issue(name(), ArgProblem::NullBuffer { count });
                    }
                }
            }
            Judged::Tag
                if !(judged_param.wildcard_tag && Some(word) == c.any_tag)
                    && (word < 0 || c.tag_ub.is_some_and(|ub| word > ub)) =>
            {
                issue(
                    name(),
                    ArgProblem::InvalidTag {
                        value: word,
                        tag_ub: c.tag_ub,
                    },
                );
            }
            Judged::Rank => {
                let peer = judged_param.peer;
                if peer == Peer::Other {
                    continue;
                }
                let group = *peer_group
                    .get_or_insert_with(|| call.int_at(plan.comm).and_then(|raw| state.comm(raw)));
                if let Some(problem) = peer_problem(c, group, peer, word) {
                    issue(name(), problem);
                }
            }
            Judged::Assert => {
                let not_allowed = asserts::not_allowed(call.short, word, c);
                if !not_allowed.is_empty() {
                    issue(
                        name(),
                        ArgProblem::InvalidAssert {
                            value: word,
                            not_allowed,
                        },
                    );
                }
            }
            Judged::Color | Judged::SplitType if word < 0 && Some(word) != c.undefined => {
                issue(name(), ArgProblem::InvalidColor { value: word });
            }
            Judged::SplitType
                if word >= 0
                    && c.split_types
                        .as_ref()
                        .is_some_and(|known| !known.contains(&word)) =>
            {
                issue(name(), ArgProblem::UndefinedSplitType { value: word });
            }
            _ => {}
        }
    }
    if plan.required_topology.is_some() || plan.topology_function {
        topology_issues(call, state, &mut issue);
    }
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

/// A rank argument outside its group; `comm` is the rank's view of the call's
/// communicator (`None`: not known).
fn peer_problem(
    c: &ArgConstants,
    comm: Option<CommView>,
    peer: Peer,
    rank: i64,
) -> Option<ArgProblem> {
    // (With a topology rank, the rank of a topology query: MPI_Cart_coords,
    // MPI_Graph_neighbors...)
    let group = comm?;
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

mod arrays;
mod asserts;
mod handles;
mod inputs;
mod partitions;
mod plan;
mod significance;
mod table;
#[cfg(test)]
mod tests;
mod topology;

pub use arrays::{range_ranks, ranges_len};
pub use inputs::{
    ArgConstants, ArgState, CallArgs, CartShape, CommView, HandleState, TopologyKind,
};
pub use partitions::{marked_ready, PartitionedRequest};
use plan::Peer;
pub use plan::RulePlan;
pub use significance::collective_base;
use significance::{significant, Significance};
pub use table::{
    functions_covered, functions_of, kind_table, recorded_functions, KindRule, COUNT_KINDS,
    KIND_RULES,
};
use topology::topology_issues;
