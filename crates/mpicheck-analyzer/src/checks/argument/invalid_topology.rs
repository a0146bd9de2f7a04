//! Invalid process topology arguments (AR012).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR012: CheckInfo = CheckInfo {
    code: "AR012",
    name: "invalid-topology-argument",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary:
        "a topology size is negative, a grid is too large for its communicator, a graph index decreases, or a direction or coordinate is outside its grid",
    docs: r#"## What it does

Checks the size arguments of the functions that create or query process topologies
(`MPI_Cart_*`, `MPI_Dims_create`, `MPI_Graph_*`, `MPI_Dist_graph_*`): the number of
dimensions (`NUM_DIMS`), each dimension (`DIMENSION`) and node counts (`COMM_SIZE`) must
not be negative, and the grid of `MPI_Cart_create` must not have more processes than the
communicator it is made from, nor the graph of `MPI_Graph_create` more nodes. The
`index` of `MPI_Graph_create` holds running totals of the nodes' degrees, so it never
decreases (and starts at 0 or more). The `direction` of `MPI_Cart_shift` is a dimension
of the grid (0..ndims-1; the displacement may be negative), and the `coords` of
`MPI_Cart_rank` lie inside the grid on the dimensions that are not periodic (a periodic
one wraps any coordinate).

## Why is this bad

These arguments are erroneous: MPI returns an error, which with the default error handler
aborts the program. A negative dimension usually comes from an uninitialized `dims` array
or a decomposition computed for another process count.

## Example

```c
int dims[2] = {nprocs / 2, -1};           /* -1 is not "choose for me" here */
MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
```

```c
MPI_Cart_shift(cart, 2, 1, &left, &right); /* a 2-d grid: directions are 0 and 1 */
```

## How to fix

Let `MPI_Dims_create` fill in the dimensions (0 entries mean "choose"), and pass its
result to `MPI_Cart_create`; make the product of the dimensions at most the size of the
communicator. Give `MPI_Graph_create` running totals (`index[i]` counts the edges of
nodes 0..i), count directions from 0, and keep coordinates of non-periodic dimensions
inside the grid (or make the dimension periodic).

## MPI standard reference

MPI 4.1 §8.5.1 (`MPI_Cart_create`: the grid's size must not exceed the group's),
§8.5.2 (`MPI_Dims_create`), §8.5.3 (`MPI_Graph_create`), §8.5.5 (`MPI_Cart_rank`: "it
is erroneous to specify coords(i) out of range" on a non-periodic dimension), §8.5.6
(`MPI_Cart_shift`: "0 <= direction < ndims").
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR012,
        &["topology sizes are non-negative and a grid fits in its communicator (MPI 4.1 §8.5)"],
        "compute the dimensions with MPI_Dims_create for the communicator's size; count directions and coordinates from 0 within the grid",
        |issue, call| match &issue.problem {
            ArgProblem::InvalidTopology { value } => Some((
                format!("{call} is given the negative {} {value}", issue.param),
                format!("{} holds {value}, which must not be negative", issue.param),
            )),
            ArgProblem::GridTooLarge { processes, size } => Some((
                format!(
                    "{call} is given a {} of {processes} processes for a communicator of {size}",
                    if call.contains("Graph") { "graph" } else { "grid" }
                ),
                format!(
                    "{} makes {processes} processes, more than {size}",
                    issue.param
                ),
            )),
            ArgProblem::DecreasingIndex { position, value } => Some((
                format!("{call} is given an {} that decreases at entry {position}", issue.param),
                format!("{}[{position}] = {value} is less than the entry before it (or than 0)", issue.param),
            )),
            ArgProblem::OutsideGrid { value, dim: None, limit } => Some((
                format!("{call} is given {} {value}, outside the grid's {limit} dimensions", issue.param),
                format!("{} = {value} is not a dimension of the grid (0..{})", issue.param, limit - 1),
            )),
            ArgProblem::OutsideGrid { value, dim: Some(dim), limit } => Some((
                format!("{call} is given coordinate {value} in non-periodic dimension {dim} of extent {limit}"),
                format!("{}[{dim}] = {value} is outside 0..{}", issue.param, limit - 1),
            )),
            _ => None,
        },
    )
}

/// AR012.
pub(crate) struct InvalidTopology;

impl Check for InvalidTopology {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR012]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
