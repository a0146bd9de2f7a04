//! Peer ranks outside the communicator (AR001).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR001: CheckInfo = CheckInfo {
    code: "AR001",
    name: "rank-out-of-range",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a destination, source or root rank, or a rank of a list, is not a rank of its communicator or group",
    docs: r#"## What it does

Checks the `dest`, `source` and `root` arguments of point-to-point calls and collectives
against the size of the communicator (the remote group of an intercommunicator), allowing
`MPI_PROC_NULL`, `MPI_ANY_SOURCE` for receives and `MPI_ROOT` on intercommunicators.
Lists of ranks too: the `ranks` of `MPI_Group_incl`/`MPI_Group_excl` and the ranks the
`ranges` of `MPI_Group_range_incl`/`_excl` name must be ranks of the group (when the rank
knows its size: from the communicator it came from, the list it was made of, or
`MPI_Group_size`), the `edges` of `MPI_Graph_create` nodes of the graph (0..`nnodes`-1),
the `sources` and `destinations` of `MPI_Dist_graph_create` and
`MPI_Dist_graph_create_adjacent` ranks of the communicator.

## Why is this bad

A rank outside the group is erroneous: MPI returns an error, which with the default
error handler aborts the program, or on some paths the message goes nowhere and a peer
waits forever. The finding is reported even when the program aborted in the call.

## Example

```c
MPI_Comm_size(MPI_COMM_WORLD, &size);
MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);   /* ranks are 0..size-1 */
```

## How to fix

Compute peers modulo the communicator size (`(rank + 1) % size`) or use `MPI_PROC_NULL`
at the edges of a non-periodic decomposition.

## MPI standard reference

MPI 4.1 §3.2.3 (message envelope: the destination is a rank in the group of the
communicator, 0..n-1, or `MPI_PROC_NULL`), §3.2.4, §6.2 (root arguments of collectives),
§7.3.2 (group constructors: "each of the n elements of ranks must be a valid rank in
group"), §8.5.3 and §8.5.4 (graph and distributed graph constructors).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR001,
        &["ranks of a communicator are 0..size-1 (plus MPI_PROC_NULL and, where allowed, MPI_ANY_SOURCE or MPI_ROOT) (MPI 4.1 §3.2.3)"],
        "use a rank of the communicator: compute it modulo MPI_Comm_size, or pass MPI_PROC_NULL where there is no peer",
        |issue, call| match &issue.problem {
            ArgProblem::RankOutOfRange { value, size } => Some((
                format!("{call} is given {} = {value}, outside the communicator's {size} ranks", issue.param),
                format!("{} = {value} is not a rank of the communicator (0..{})", issue.param, size.saturating_sub(1)),
            )),
            ArgProblem::RankListOutOfRange { value, size, of } => {
                let members = if *of == "graph" { "nodes" } else { "ranks" };
                Some((
                    format!("{call} is given {} holding {value}, outside the {of}'s {size} {members}", issue.param),
                    format!("{} holds {value}, not one of the {of}'s {members} (0..{})", issue.param, size.saturating_sub(1)),
                ))
            }
            _ => None,
        },
    )
}

/// AR001.
pub(crate) struct RankOutOfRange;

impl Check for RankOutOfRange {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR001]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
