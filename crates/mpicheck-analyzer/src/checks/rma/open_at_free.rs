//! `MPI_Win_free` with an epoch still open (RM003).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RM003: CheckInfo = CheckInfo {
    code: "RM003",
    name: "window-freed-in-epoch",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary: "MPI_Win_free is called while this rank holds a lock or a lock_all, is inside a PSCW epoch, or has RMA calls no fence completed",
    docs: r#"## What it does

Reports `MPI_Win_free` when the freeing rank still has an epoch open on the window: a
`MPI_Win_lock` or `MPI_Win_lock_all` without its unlock, an `MPI_Win_start` without
`MPI_Win_complete`, an `MPI_Win_post` without `MPI_Win_wait`, or RMA calls made after the
last `MPI_Win_fence` with no fence after them to complete them.

## Why is this bad

`MPI_Win_free` requires that the rank has completed its involvement in RMA on the window.
Freeing inside an epoch is erroneous: MPI may raise an error, hang in the free, or release
memory that pending operations still read or write.

## Example

```c
MPI_Win_fence(0, win);
MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
MPI_Win_free(&win);            /* the put was never completed by a fence */
```

## How to fix

Close every epoch before freeing: call `MPI_Win_fence` after the last RMA calls of a fence
epoch, `MPI_Win_unlock`/`MPI_Win_unlock_all` after lock epochs, `MPI_Win_complete` and
`MPI_Win_wait` after PSCW epochs.

## MPI standard reference

MPI 4.1 §12.2.5 (`MPI_Win_free`: it is erroneous to free a window while the calling process
has not completed its RMA involvement, e.g. a lock it holds or a pending access epoch).
"#,
};

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM003,
        &["MPI_Win_free requires the calling process to have completed its RMA involvement: every epoch closed, every RMA call completed (MPI 4.1 §12.2.5)"],
        "close the epoch before MPI_Win_free: MPI_Win_fence after the last RMA calls, MPI_Win_unlock/_unlock_all, MPI_Win_complete, MPI_Win_wait",
    )
}
