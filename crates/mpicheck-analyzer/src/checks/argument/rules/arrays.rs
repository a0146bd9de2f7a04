//! Arrays of ranks and of graph offsets: the `ranks` and `ranges` of `MPI_Group_incl`,
//! `MPI_Group_excl`, `MPI_Group_range_incl`, `MPI_Group_range_excl` (MPI 4.1 §7.3.2), the
//! `index` and `edges` of `MPI_Graph_create` and `MPI_Graph_map` (§8.5.3, §8.5.8), the
//! `sources` and `destinations` of `MPI_Dist_graph_create` and
//! `MPI_Dist_graph_create_adjacent` (§8.5.4); and places in a cartesian grid: the
//! `direction` of `MPI_Cart_shift`, the `coords` of `MPI_Cart_rank` (§8.5.5, §8.5.6).

use std::collections::HashSet;

use super::{ArgState, CallArgs, TopologyKind};
use crate::model::ArgProblem;

/// Parameters holding arrays of ranks, for AR001's coverage.
pub(super) const RANK_ARRAYS: &[&str] = &["ranks", "ranges", "edges", "sources", "destinations"];

/// The ranks a range triplet names (MPI 4.1 §7.3.2): `first`, `first + stride`, ... up to
/// `last`, none when `last` lies the other way; `None` for stride 0, which names nothing
/// the standard defines.
pub fn range_ranks(first: i64, last: i64, stride: i64) -> Option<impl Iterator<Item = i64>> {
    if stride == 0 {
        return None;
    }
    let steps = (i128::from(last) - i128::from(first)).div_euclid(i128::from(stride));
    // At most the steps of an `int` range: a count past i64 is not a C `int` triplet.
    let count = i64::try_from(steps + 1).unwrap_or(0).max(0);
    Some((0..count).map(move |k| first.saturating_add(k.saturating_mul(stride))))
}

/// How many ranks a list of range triplets names (repeats counted), `None` with a stride 0.
pub fn ranges_len(ranges: &[i64]) -> Option<i128> {
    ranges.chunks_exact(3).try_fold(0i128, |total, t| {
        if t[2] == 0 {
            return None;
        }
        let steps = (i128::from(t[1]) - i128::from(t[0])).div_euclid(i128::from(t[2]));
        Some(total + (steps + 1).max(0))
    })
}

/// Whether [`rank_array_issues`] looks at calls of `short` (the arms of its match).
pub(super) fn rank_arrays_judged(short: &str) -> bool {
    matches!(
        short,
        "Group_incl"
            | "Group_excl"
            | "Group_range_incl"
            | "Group_range_excl"
            | "Graph_create"
            | "Graph_map"
            | "Dist_graph_create"
            | "Dist_graph_create_adjacent"
    )
}

/// Whether [`grid_issues`] looks at calls of `short`.
pub(super) fn grid_judged(short: &str) -> bool {
    matches!(short, "Cart_shift" | "Cart_rank")
}

/// The problems of a call's arrays of ranks and graph offsets.
pub(super) fn rank_array_issues(
    call: &CallArgs,
    state: &dyn ArgState,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    let comm_size = || {
        call.comm()
            .and_then(|raw| state.comm(raw))
            .filter(|c| c.remote_size.is_none())
            .map(|c| c.size)
    };
    match call.short {
        "Group_incl" | "Group_excl" => {
            let size = call.int("group").and_then(|g| state.group_size(g));
            if let Some(ranks) = call.array("ranks") {
                distinct_ranks(ranks.iter().copied(), size, "ranks", issue);
            }
        }
        "Group_range_incl" | "Group_range_excl" => {
            let Some(ranges) = call.array("ranges") else {
                return;
            };
            if let Some(range) = ranges.chunks_exact(3).position(|t| t[2] == 0) {
                issue("ranges", ArgProblem::ZeroStride { range });
                return;
            }
            // Without the group's size a huge range could not be walked within bounds.
            let Some(size) = call.int("group").and_then(|g| state.group_size(g)) else {
                return;
            };
            let ranks = ranges
                .chunks_exact(3)
                .filter_map(|t| range_ranks(t[0], t[1], t[2]))
                .flatten();
            distinct_ranks(ranks, Some(size), "ranges", issue);
        }
        "Graph_create" | "Graph_map" => {
            if let Some(index) = call.array("index") {
                let mut previous = 0;
                for (position, &value) in index.iter().enumerate() {
                    if value < previous {
                        issue("index", ArgProblem::DecreasingIndex { position, value });
                        break;
                    }
                    previous = value;
                }
            }
            let nodes = call.int("nnodes").and_then(|n| u32::try_from(n).ok());
            // A graph of more nodes than the communicator has processes (MPI 4.1 §8.5.3).
            if let (Some(nodes), Some(size)) = (nodes, comm_size()) {
                if nodes > size && call.short == "Graph_create" {
                    let processes = i64::from(nodes);
                    issue("nnodes", ArgProblem::GridTooLarge { processes, size });
                }
            }
            if let (Some(edges), Some(size)) = (call.array("edges"), nodes) {
                in_range(edges, size, "graph", "edges", issue);
            }
        }
        "Dist_graph_create" | "Dist_graph_create_adjacent" => {
            let Some(size) = comm_size() else { return };
            for param in ["sources", "destinations"] {
                if let Some(ranks) = call.array(param) {
                    in_range(ranks, size, "communicator", param, issue);
                }
            }
        }
        _ => {}
    }
}

/// The first entry outside 0..size.
fn in_range(
    ranks: &[i64],
    size: u32,
    of: &'static str,
    param: &str,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    if let Some(&value) = ranks.iter().find(|&&r| r < 0 || r >= i64::from(size)) {
        issue(param, ArgProblem::RankListOutOfRange { value, size, of });
    }
}

/// The first rank of a group's list outside the group (when its size is known) or named
/// twice. A list longer than the group has one or the other within its first size + 1
/// entries, so a huge range costs no more than the group.
fn distinct_ranks(
    ranks: impl Iterator<Item = i64>,
    size: Option<u32>,
    param: &str,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    let mut seen = HashSet::new();
    for value in ranks {
        if let Some(size) = size {
            if value < 0 || value >= i64::from(size) {
                let of = "group";
                issue(param, ArgProblem::RankListOutOfRange { value, size, of });
                return;
            }
        }
        if !seen.insert(value) {
            issue(param, ArgProblem::RepeatedRank { value });
            return;
        }
    }
}

/// A direction or coordinate outside the grid of the call's cartesian communicator.
pub(super) fn grid_issues(
    call: &CallArgs,
    state: &dyn ArgState,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    // The function first: finding the communicator reads the parameters.
    if !grid_judged(call.short) {
        return;
    }
    let Some(comm) = call.comm() else { return };
    match call.short {
        "Cart_shift" => {
            let ndims = match (state.cart_shape(comm), state.comm_topology(comm)) {
                (Some(shape), _) => shape.dims.len() as i64,
                (None, Some(Some(TopologyKind::Cart { ndims }))) => ndims as i64,
                _ => return, // no grid known, or none at all (AR013's)
            };
            if let Some(value) = call.int("direction").filter(|&d| d < 0 || d >= ndims) {
                let problem = ArgProblem::OutsideGrid {
                    value,
                    dim: None,
                    limit: ndims,
                };
                issue("direction", problem);
            }
        }
        "Cart_rank" => {
            let (Some(shape), Some(coords)) = (state.cart_shape(comm), call.array("coords")) else {
                return;
            };
            let outside = coords
                .iter()
                .zip(shape.dims.iter().zip(&shape.periods))
                .enumerate()
                .find(|(_, (&c, (&d, &periodic)))| !periodic && d > 0 && (c < 0 || c >= d));
            if let Some((dim, (&value, (&limit, _)))) = outside {
                let problem = ArgProblem::OutsideGrid {
                    value,
                    dim: Some(dim),
                    limit,
                };
                issue("coords", problem);
            }
        }
        _ => {}
    }
}
