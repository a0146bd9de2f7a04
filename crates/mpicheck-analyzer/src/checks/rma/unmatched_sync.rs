//! RMA synchronization calls that end an epoch never begun, or begin one already open
//! (RM002).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const RM002: CheckInfo = CheckInfo {
    code: "RM002",
    name: "unmatched-rma-synchronization",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary: "an RMA epoch is ended without being started (unlock without lock, complete without start, wait without post) or started twice (a target locked again by the same origin), or memory is detached from a dynamic window without being attached",
    docs: r#"## What it does

Pairs each rank's synchronization calls on each window: `MPI_Win_unlock` with its
`MPI_Win_lock` of the same target, `MPI_Win_unlock_all` with `MPI_Win_lock_all`,
`MPI_Win_complete` with `MPI_Win_start` and `MPI_Win_wait`/`MPI_Win_test` with
`MPI_Win_post`. It reports an end without its beginning, and a beginning while the same
epoch is still open: a second `MPI_Win_lock` of a target this rank already holds a lock
on (or holds through `MPI_Win_lock_all`), a second `MPI_Win_start` or `MPI_Win_post`.
On a window made by `MPI_Win_create_dynamic`, it also pairs `MPI_Win_detach` with the
`MPI_Win_attach` of the same base address, and reports a detach of memory that is not
attached (never attached, or detached already). Freeing the window with memory still
attached is allowed: the memory is detached then (MPI 4.1 §12.2.4).

## Why is this bad

These calls are erroneous. MPI raises an error (and, with the default error handler,
aborts), or, on implementations that do not check, the lock state or the PSCW counters go
wrong and a later epoch hangs or lets accesses race.

## Example

```c
MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
MPI_Win_unlock(1, win);
MPI_Win_unlock(1, win);        /* second unlock: the lock is no longer held */
```

## How to fix

Make every epoch a pair on every path: one lock and one unlock per target, one start and
one complete, one post and one wait. Use `MPI_Win_flush` to complete operations inside a
lock epoch instead of unlocking and locking again.

## MPI standard reference

MPI 4.1 §12.5.2 (`MPI_Win_start`, `MPI_Win_complete`, `MPI_Win_post`, `MPI_Win_wait`),
§12.5.3 (`MPI_Win_lock`: a target may not be locked twice by the same origin;
`MPI_Win_unlock` of a window locked by `MPI_Win_lock`), §12.2.4 (`MPI_Win_detach`: `base`
must be that of an earlier `MPI_Win_attach`).
"#,
};

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM002,
        &["each RMA epoch is one pair of calls: lock/unlock of one target, lock_all/unlock_all, start/complete, post/wait, and each MPI_Win_detach ends one MPI_Win_attach of the same address (MPI 4.1 §12.5.2, §12.5.3, §12.2.4)"],
        "pair the calls on every path: one lock and one unlock per target, one start and one complete, one post and one wait, one attach and one detach of each memory",
    )
}
