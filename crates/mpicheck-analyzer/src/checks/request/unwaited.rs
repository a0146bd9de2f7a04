//! Nonblocking operations never completed before `MPI_Finalize` (RQ001).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RQ001: CheckInfo = CheckInfo {
    code: "RQ001",
    name: "request-never-completed",
    category: Category::RequestLifecycle,
    severity: Severity::Error,
    summary: "a nonblocking operation was never completed by a wait or a successful test before MPI_Finalize",
    docs: r#"## What it does

Follows every request from the call that started it (`MPI_Isend`, `MPI_Irecv`,
`MPI_Ibcast`, `MPI_Start`, ...) to the `MPI_Wait*`/`MPI_Test*` that reported it complete
or the `MPI_Request_free` that released it. A request still active when the rank calls
`MPI_Finalize` is reported at the call that started it, once per call site, with the
ranks. Tests that return `flag = 0` do not complete a request, and a test loop that ends
with `flag = 1` does: polling is not a false alarm. A cancelled request must still be
completed; the message says when it was cancelled.

## Why is this bad

Until a request completes, MPI may still read the send buffer or write the receive
buffer, and the request object itself is never released. At `MPI_Finalize` pending
communication is erroneous: depending on the MPI the program hangs in `MPI_Finalize`,
loses the message, or aborts. A request that is overwritten by a second nonblocking call
on the same variable is lost the same way (MPI-CHECK 2.0 warns about exactly this).

## Example

```c
MPI_Request req;
MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);   /* never waited for */
MPI_Finalize();
```

## How to fix

Complete every request: `MPI_Wait(&req, MPI_STATUS_IGNORE)`, `MPI_Waitall` over an array
of requests, or a test loop that runs until `flag` is true. Keep one request variable per
outstanding operation.

## MPI standard reference

MPI 4.1 §3.7.3 (communication completion), §3.7.5 (multiple completions), §11.2.2
(`MPI_Finalize`: all pending communication must be completed before it is called).
"#,
};

/// The message and label of a request still active at `MPI_Finalize`, at the call that
/// started it.
pub(super) fn finding(persistent: bool, cancelled: bool) -> (String, String) {
    let what = if persistent {
        "the persistent request started here was still active at MPI_Finalize"
    } else {
        "the request of this nonblocking call was never completed before MPI_Finalize"
    };
    let message = if cancelled {
        format!("{what}; it was cancelled, but a cancelled request must still be completed")
    } else {
        what.to_string()
    };
    (
        message,
        "started here, never completed by a wait or test".to_string(),
    )
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RQ001,
        &["every nonblocking operation must be completed (MPI_Wait*, or MPI_Test* returning true) before MPI_Finalize (MPI 4.1 §3.7.3, §11.2.2)"],
        "complete the request with MPI_Wait or MPI_Waitall (or test until the flag is true) before MPI_Finalize",
    )
}
