//! Process topologies and their neighbor lists.

use crate::checks::argument::rules::CartShape;

/// A graph topology as its creating call described it (ranks of the new communicator).
/// Cartesian grids are the normalizer's `cart_shapes` (`facts/grids.rs`), kept for AR012.
#[derive(Clone)]
pub(super) enum Topology {
    Graph {
        index: Vec<i64>,
        edges: Vec<i64>,
    },
    Adjacent {
        sources: Vec<i64>,
        destinations: Vec<i64>,
    },
}

/// Neighbors (communicator ranks) of communicator rank `me` of a cartesian grid, in the
/// order neighborhood collectives use (MPI 4.1 §8.6): per dimension the -1 then the +1
/// neighbor, `None` off a non-periodic edge. Sources and destinations are the same list.
pub(super) fn cart_neighbors(grid: &CartShape, me: i64) -> Vec<Option<i64>> {
    let dims = &grid.dims;
    // Row-major coordinates.
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
            let periodic = grid.periods.get(d).copied().unwrap_or(false);
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
    out
}

impl Topology {
    /// Source and destination neighbors (communicator ranks) of communicator rank `me`, in
    /// the order neighborhood collectives use (MPI 4.1 §8.6).
    pub(super) fn neighbors(&self, me: i64) -> (Vec<Option<i64>>, Vec<Option<i64>>) {
        match self {
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
