//! RMA communication outside any access epoch (RM001).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RM001: CheckInfo = CheckInfo {
    code: "RM001",
    name: "rma-outside-epoch",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary:
        "an RMA call (put, get, accumulate, ...) is made with no access epoch open to its target",
    docs: r#"## What it does

Follows each rank's synchronization calls on each window and reports an `MPI_Put`,
`MPI_Get`, `MPI_Accumulate`, `MPI_Get_accumulate`, `MPI_Fetch_and_op`,
`MPI_Compare_and_swap` or request-based `MPI_R*` call when no access epoch covers its
target: no `MPI_Win_fence` (without `MPI_MODE_NOSUCCEED`) since the last one, no
`MPI_Win_start` without its `MPI_Win_complete`, no `MPI_Win_lock` of that target and no
`MPI_Win_lock_all` without their unlock. An epoch of `MPI_Win_start` counts for every
target: the group passed to it is not followed yet.

## Why is this bad

RMA calls are only allowed inside an access epoch. Outside one, MPI may raise an error
(and abort), or start the transfer with nothing that completes it or orders it against
the target's own accesses: the data arrives at an unknown time or not at all.

## Example

```c
MPI_Win_create(buf, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);   /* no fence or lock before it */
MPI_Win_fence(0, win);
```

## How to fix

Open an epoch first: `MPI_Win_fence` before the calls and after them, or
`MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win)` ... `MPI_Win_unlock(target, win)`, or
`MPI_Win_start` ... `MPI_Win_complete` matched by the target's `MPI_Win_post` ...
`MPI_Win_wait`.

## MPI standard reference

MPI 4.1 §12.5 (synchronization calls: RMA communication calls must occur within an access
epoch), §12.5.1 (fence), §12.5.2 (general active target), §12.5.3 (lock).
"#,
};

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM001,
        &["RMA communication calls must be made within an access epoch: after MPI_Win_fence, between MPI_Win_start and MPI_Win_complete, or between MPI_Win_lock/lock_all and their unlock (MPI 4.1 §12.5)"],
        "open an epoch before the call (MPI_Win_fence, MPI_Win_lock or MPI_Win_lock_all, or MPI_Win_start) and close it after",
    )
}
