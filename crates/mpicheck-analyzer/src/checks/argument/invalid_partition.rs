//! Partitioned communication: partition counts and indices, and partitions marked ready
//! outside an epoch or twice in one (AR016).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR016: CheckInfo = CheckInfo {
    code: "AR016",
    name: "invalid-partition",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a partitioned request has no partitions or a wildcard peer or tag, or a partition is outside its request or marked ready outside an epoch or twice in one",
    docs: r#"## What it does

Checks partitioned communication (`PARTITION` parameters): `MPI_Psend_init` and
`MPI_Precv_init` ask for at least one partition; `MPI_Pready`, `MPI_Pready_range`,
`MPI_Pready_list` and `MPI_Parrived` name partitions in 0..`partitions`-1 of the request
the rank made; a send partition is marked ready only while its request is active (after
`MPI_Start`/`MPI_Startall`, before the wait or test that completes it), and at most once
in each such epoch; `MPI_Precv_init` takes neither `MPI_ANY_SOURCE` nor `MPI_ANY_TAG`.
Requests the trace did not see made are not judged. (The other arguments of
`MPI_Psend_init`/`MPI_Precv_init` are judged by the rules of their kinds: count AR003,
datatype AR004-AR006, rank AR001, tag AR002; the request lifecycle by RQ001-RQ004; the
type signatures of the message, `partitions` × `count` elements, by TY002/TY003.)

## Why is this bad

Each is erroneous. Partitioned operations match in the order they are initialized, by
exact source and tag. A partition index outside the request makes MPI read or report
memory outside the buffer; `MPI_Pready` on an inactive request or on a partition already
marked ready breaks the count of ready partitions that ends the transfer, so MPI may send
stale data, complete early, or abort.

## Example

```c
MPI_Psend_init(buf, 4, n, MPI_DOUBLE, 1, 0, comm, MPI_INFO_NULL, &req);
MPI_Start(&req);
for (int p = 1; p <= 4; p++)          /* partitions are 0..3 */
    MPI_Pready(p, req);
```

## How to fix

Number partitions from 0 to `partitions`-1, start the request before marking its
partitions ready, and mark each one once per `MPI_Start`; give a partitioned receive the
sender's rank and tag.

## MPI standard reference

MPI 4.1 §4.2.2 (`MPI_PSEND_INIT`, `MPI_PRECV_INIT`: a partitions value below 1 is
erroneous, no wildcards), §4.2.3 (`MPI_PREADY`, `MPI_PREADY_RANGE`, `MPI_PREADY_LIST`:
partitions of an active request, each marked ready once), §4.2.4 (`MPI_PARRIVED`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR016,
        &["a partitioned request has partitions 0..partitions-1, marked ready once per epoch of an active request (MPI 4.1 §4.2)"],
        "number partitions from 0, start the request with MPI_Start before MPI_Pready, and mark each partition ready once per start",
        |issue, call| match &issue.problem {
            ArgProblem::InvalidPartitions { value } => Some((
                format!("{call} is given {} = {value}, fewer than one partition", issue.param),
                format!("{} = {value}", issue.param),
            )),
            ArgProblem::PartitionOutOfRange { value, partitions } => Some((
                format!("{call} names partition {value} of a request of {partitions} partitions"),
                format!("{} = {value} is outside 0..{}", issue.param, partitions - 1),
            )),
            ArgProblem::PartitionedInactive => Some((
                format!("{call} marks a partition ready on a request that is not active"),
                "the request was not started, or its epoch was completed".to_string(),
            )),
            ArgProblem::PartitionedWildcard { wildcard } => Some((
                format!("{call} is given {} = {wildcard}: a partitioned receive takes no wildcard", issue.param),
                format!("{} = {wildcard}", issue.param),
            )),
            ArgProblem::PartitionReadyTwice { value } => Some((
                format!("{call} marks partition {value} ready a second time in one epoch"),
                format!("partition {value} is already ready"),
            )),
            _ => None,
        },
    )
}

/// AR016.
pub(crate) struct InvalidPartition;

impl Check for InvalidPartition {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR016]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
