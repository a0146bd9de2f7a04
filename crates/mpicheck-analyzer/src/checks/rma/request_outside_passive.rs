//! Request-based RMA in an active target epoch (RM004).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RM004: CheckInfo = CheckInfo {
    code: "RM004",
    name: "request-rma-outside-passive-target",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary: "a request-based RMA call (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate) is made in a fence or PSCW epoch instead of a passive target epoch",
    docs: r#"## What it does

Reports `MPI_Rput`, `MPI_Rget`, `MPI_Raccumulate` and `MPI_Rget_accumulate` calls whose
target is covered only by an active target epoch (`MPI_Win_fence` or `MPI_Win_start`),
not by an `MPI_Win_lock` of the target or an `MPI_Win_lock_all`.

## Why is this bad

The request-based RMA calls may only be used in passive target epochs. In a fence or PSCW
epoch they are erroneous: MPI raises an error, and the request has no defined completion
relative to the epoch.

## Example

```c
MPI_Win_fence(0, win);
MPI_Rput(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &req);   /* fence epoch */
MPI_Wait(&req, MPI_STATUS_IGNORE);
MPI_Win_fence(0, win);
```

## How to fix

Use `MPI_Put` (and friends) in fence and PSCW epochs, or make the request-based calls
inside `MPI_Win_lock`/`MPI_Win_lock_all` ... unlock.

## MPI standard reference

MPI 4.1 §12.3.5 (request-based RMA communication operations: only valid within a passive
target epoch).
"#,
};

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM004,
        &["request-based RMA calls are valid only in passive target epochs, opened by MPI_Win_lock or MPI_Win_lock_all (MPI 4.1 §12.3.5)"],
        "use MPI_Put/MPI_Get/MPI_Accumulate in fence and PSCW epochs, or lock the target (MPI_Win_lock or MPI_Win_lock_all) around the request-based call",
    )
}
