//! Waits, tests, starts, cancels and frees of requests that do not exist (RQ003).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RQ003: CheckInfo = CheckInfo {
    code: "RQ003",
    name: "unknown-request",
    category: Category::RequestLifecycle,
    severity: Severity::Error,
    summary: "a request handle passed to a wait, test, start, cancel or free is not a live request: already completed, freed, or never created",
    docs: r#"## What it does

Keeps the set of live requests of each rank (created by nonblocking and persistent calls,
retired when a wait or test completes a nonblocking one or `MPI_Request_free` releases
it) and reports a call that names a request handle outside that set. `MPI_REQUEST_NULL`
in a wait or test is fine and not reported.

## Why is this bad

After completion MPI deallocates the request and sets the program's variable to
`MPI_REQUEST_NULL`; a copy of the old handle now names nothing, or a different request
that reuses the handle. Waiting on it is erroneous: the call may fail, abort, wait for
someone else's operation, or hang.

## Example

```c
MPI_Request req, copy;
MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
copy = req;
MPI_Wait(&req, MPI_STATUS_IGNORE);   /* req is now MPI_REQUEST_NULL */
MPI_Wait(&copy, MPI_STATUS_IGNORE);  /* copy names a request that no longer exists */
```

## How to fix

Wait on the variable that the nonblocking call filled in and do not keep copies of it;
complete each request once.

## MPI standard reference

MPI 4.1 §3.7.3 (completion deallocates a nonblocking request and sets the handle to
`MPI_REQUEST_NULL`), §3.7.2 (request handles).
"#,
};

/// The message and label of `call` naming a request that is not live.
pub(super) fn finding(call: &str) -> (String, String) {
    (
        format!("{call} is given a request that is not live: already completed, freed, or never created"),
        "the request handle names no live request".to_string(),
    )
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RQ003,
        &["completing or freeing a request deallocates it; its handle must not be used again (MPI 4.1 §3.7.3)"],
        "use the request variable the nonblocking call filled in, once; do not keep copies of request handles",
    )
}
