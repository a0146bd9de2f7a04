//! Process topologies: the sizes and grids of the calls that create or query them (AR012),
//! and the topology a call needs its communicator to have (AR013).

use mpicheck_trace::schema::Direction;

use super::inputs::{ArgState, CallArgs, TopologyKind};
use super::significance::collective_base;
use crate::model::ArgProblem;
use crate::normalize::args::Value;

/// The topology a call needs its communicator to have.
#[derive(Clone, Copy)]
pub(super) enum RequiredTopology {
    /// Neighborhood collectives: any.
    Any,
    Cart,
    Graph,
    DistGraph,
}

impl RequiredTopology {
    pub(super) fn of(short: &str) -> Option<RequiredTopology> {
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
pub(super) fn topology_function(short: &str) -> bool {
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

/// Topology arguments (AR012) and topology queries on a communicator without that topology
/// (AR013): of the calls whose plan has a `required_topology` or is a `topology_function`.
pub(super) fn topology_issues(
    call: &CallArgs,
    state: &dyn ArgState,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    let required = call.plan.required_topology;
    let topology_function = call.plan.topology_function;
    let comm = call.comm().and_then(|raw| state.comm(raw));
    let topology = call.comm().and_then(|raw| state.comm_topology(raw));
    if let (Some(required), Some(topology)) = (required, topology) {
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
