//! Topology queries on communicators without that topology (AR013).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR013: CheckInfo = CheckInfo {
    code: "AR013",
    name: "missing-topology",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a topology function is called on a communicator without that topology",
    docs: r#"## What it does

Reports the cartesian functions (`MPI_Cart_get`, `MPI_Cart_rank`, `MPI_Cart_coords`,
`MPI_Cart_shift`, `MPI_Cart_sub`, `MPI_Cartdim_get`) called on a communicator without a
cartesian topology, the graph functions (`MPI_Graph_get`, `MPI_Graphdims_get`,
`MPI_Graph_neighbors*`) without a graph topology, `MPI_Dist_graph_neighbors*` without a
distributed graph topology, and neighborhood collectives on a communicator with no
topology. Only communicators whose creation the trace shows are judged (`MPI_COMM_WORLD`,
`MPI_COMM_SELF`, their splits and duplicates; a duplicate keeps its parent's topology).

## Why is this bad

The call is erroneous: MPI returns an error (`MPI_ERR_TOPOLOGY`), which with the default
error handler aborts the program. It usually means the program passed the communicator
it started from instead of the one `MPI_Cart_create` returned.

## Example

```c
MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
MPI_Cart_coords(MPI_COMM_WORLD, rank, 2, coords);    /* meant: cart */
```

## How to fix

Pass the communicator the topology constructor returned.

## MPI standard reference

MPI 4.1 §8.5.5 (topology inquiry functions), §8.6 (neighborhood collectives need a
process topology), §8.5.6 (`MPI_Cart_shift`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR013,
        &["topology functions need a communicator made with that topology (MPI 4.1 §8.5)"],
        "pass the communicator that MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create returned",
        |issue, call| match &issue.problem {
            ArgProblem::MissingTopology => Some((
                format!("{call} is given a communicator without {}", needed(call)),
                format!("{} is a communicator without {}", issue.param, needed(call)),
            )),
            _ => None,
        },
    )
}

/// The topology a call needs, for the message.
fn needed(call: &str) -> &'static str {
    if call.starts_with("MPI_Cart") {
        "a cartesian topology"
    } else if call.starts_with("MPI_Graph") {
        "a graph topology"
    } else if call.starts_with("MPI_Dist_graph") {
        "a distributed graph topology"
    } else {
        "a process topology"
    }
}

/// AR013.
pub(crate) struct MissingTopology;

impl Check for MissingTopology {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR013]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
