//! `MPI_Start` of a persistent request that is still active (RQ004).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RQ004: CheckInfo = CheckInfo {
    code: "RQ004",
    name: "persistent-request-started-twice",
    category: Category::RequestLifecycle,
    severity: Severity::Error,
    summary: "a persistent request was started again before its previous start was completed",
    docs: r#"## What it does

Follows each persistent request (`MPI_Send_init`, `MPI_Recv_init`, `MPI_Bcast_init`, ...):
`MPI_Start`/`MPI_Startall` make it active, a wait or successful test makes it inactive
again. A start of a request that is still active is reported, with the earlier start.

## Why is this bad

Only an inactive persistent request may be started. Starting it twice is erroneous: MPI
may reject the call, abort, or run two operations on the same buffer while the program
can only complete one of them.

## Example

```c
MPI_Send_init(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
MPI_Start(&req);
MPI_Start(&req);          /* the first start was never completed */
MPI_Wait(&req, MPI_STATUS_IGNORE);
```

## How to fix

Complete each start (`MPI_Wait`, or `MPI_Test` until true) before starting the request
again.

## MPI standard reference

MPI 4.1 §3.9 (persistent communication requests: `MPI_START` "the request must be
inactive").
"#,
};

/// The message and label of `MPI_Start` of a persistent request that is still active.
pub(super) fn finding() -> (&'static str, &'static str) {
    (
        "a persistent request is started while its previous start is still active",
        "starts a request that was already started and not completed",
    )
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RQ004,
        &["MPI_Start requires an inactive persistent request (MPI 4.1 §3.9)"],
        "complete the previous start with MPI_Wait (or a test that returns true) before starting the request again",
    )
}
