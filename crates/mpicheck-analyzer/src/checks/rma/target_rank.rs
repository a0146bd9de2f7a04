//! Target ranks outside the window's group (RM005).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text::Text;

pub const RM005: CheckInfo = CheckInfo {
    code: "RM005",
    name: "rma-target-out-of-range",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary:
        "the target rank of an RMA call, lock, unlock or flush is not a rank of the window's group",
    docs: r#"## What it does

Checks the `target_rank` of `MPI_Put`, `MPI_Get`, the accumulate calls and their
request-based forms, and the `rank` of `MPI_Win_lock`, `MPI_Win_unlock` and
`MPI_Win_flush`, against the group of the communicator the window was created on
(allowing `MPI_PROC_NULL`).

## Why is this bad

Target ranks are ranks of the window's group, 0..size-1. Any other value is erroneous:
MPI raises an error and, with the default error handler, aborts. The finding is reported
even when the program aborted in the call.

## Example

```c
MPI_Comm_size(MPI_COMM_WORLD, &size);
MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win);   /* ranks are 0..size-1 */
```

## How to fix

Compute targets modulo the window's group size, and use the rank in the communicator the
window was created on, not a world rank, when that communicator is not `MPI_COMM_WORLD`.

## MPI standard reference

MPI 4.1 §12.3.1 (`target_rank`: rank of the target in the group of the window),
§12.5.3 (`MPI_Win_lock`).
"#,
};

/// What is wrong with the target of `call` on `window` (named `window_name`), as
/// (message, label).
pub(super) fn finding(
    call: &RmaCall,
    window: &WindowInfo,
    window_name: &str,
) -> Option<(Text, Text)> {
    let (target, param) = match &call.kind {
        RmaKind::Access(a) => (a.target, "target_rank"),
        RmaKind::Lock { target, .. }
        | RmaKind::Unlock { target }
        | RmaKind::Flush {
            target: Some(target),
        } => (*target, "rank"),
        _ => return None,
    };
    let RmaTarget::Invalid(value) = target else {
        return None;
    };
    if window.members.is_empty() {
        return None; // the window's group is not known
    }
    let size = window.members.len();
    Some((
        format!(
            "{} is given {param} = {value}, outside the {size} ranks of {window_name}",
            call.event.call
        )
        .into(),
        format!(
            "{param} = {value} is not a rank of the window (0..{})",
            size - 1
        )
        .into(),
    ))
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM005,
        &["the target of an RMA call is a rank in the group of the window, 0..size-1, or MPI_PROC_NULL (MPI 4.1 §12.3.1)"],
        "use a rank of the window's communicator: compute it modulo its size, or pass MPI_PROC_NULL where there is no target",
    )
}
