//! `MPI_Request_free` of a request whose operation is still active (RQ002).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RQ002: CheckInfo = CheckInfo {
    code: "RQ002",
    name: "active-request-freed",
    category: Category::RequestLifecycle,
    severity: Severity::Warning,
    summary: "MPI_Request_free released a request whose operation was still active, so its completion can no longer be observed",
    docs: r#"## What it does

Reports `MPI_Request_free` on a request that no wait or test has reported complete yet
(a nonblocking operation in flight, or a persistent request after `MPI_Start`), unless
it is a send that the program later learns has completed: its matching receive completed
before a message or a synchronizing collective that reaches the sender (a reply, a
barrier both pass afterwards), as in the standard's own example.

## Why is this bad

MPI lets the operation finish in the background, but the program can no longer learn
when: it does not know when a send buffer may be reused or, for a receive, when the data
has arrived, and errors of the operation are lost. Freeing an active receive request is
almost always a bug; freeing an active send request needs some other synchronization
that proves the message was received before the buffer is touched.

## Example

```c
MPI_Irecv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
MPI_Request_free(&req);       /* when is buf filled? */
use(buf);
```

## How to fix

Wait for the request (`MPI_Wait`) instead of freeing it; free persistent requests only
after their last start has been completed.

## MPI standard reference

MPI 4.1 §3.7.3 (`MPI_Request_free`: "an active receive request should never be freed"
in practice, and the advice to users there; Example 3.13 frees active sends whose
completion the replies show), §3.9 (persistent requests), §6.12 (freeing the request of a
nonblocking collective is erroneous).
"#,
};

/// The message and label of `MPI_Request_free` of the active request that `start_call`
/// started.
pub(super) fn finding(start_call: &str) -> (String, String) {
    (
        format!("MPI_Request_free releases the request of an active {start_call}, whose completion can then never be observed"),
        format!("frees the request of the {start_call} still in flight"),
    )
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RQ002,
        &["a freed active request completes in the background; the program cannot tell when its buffer may be used (MPI 4.1 §3.7.3)"],
        "wait for the request (MPI_Wait) instead of freeing it while it is active",
    )
}
