//! RMA assertions with modes their call does not accept (AR015).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR015: CheckInfo = CheckInfo {
    code: "AR015",
    name: "invalid-rma-assert",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an RMA synchronization call is given an MPI_MODE_* assertion it does not accept",
    docs: r#"## What it does

Checks the `assert` argument of the RMA synchronization calls against the modes each
accepts: `MPI_MODE_NOCHECK` for `MPI_Win_start`, `MPI_Win_lock` and `MPI_Win_lock_all`;
`MPI_MODE_NOCHECK`, `MPI_MODE_NOSTORE` and `MPI_MODE_NOPUT` for `MPI_Win_post`;
`MPI_MODE_NOSTORE`, `MPI_MODE_NOPUT`, `MPI_MODE_NOPRECEDE` and `MPI_MODE_NOSUCCEED` for
`MPI_Win_fence`; and no bits outside the `MPI_MODE_*` values. The values differ between
MPI libraries, so the recorder writes them into the trace; traces without them are not
judged.

## Why is this bad

An assertion is a promise that lets MPI skip synchronization. One the call does not
define is erroneous: MPI may reject it, ignore it, or act on the bit as something else.
It usually is a mode meant for another call (`MPI_MODE_NOPRECEDE` on `MPI_Win_start`) or a
Boolean or count passed where the bit-vector goes.

## Example

```c
MPI_Win_start(group, MPI_MODE_NOPRECEDE, win);   /* a fence assertion */
```

## How to fix

Pass 0, or only the modes the call defines, combined with `|`.

## MPI standard reference

MPI 4.1 §12.5.5 (assertions: the modes of `MPI_WIN_POST`, `MPI_WIN_START`, `MPI_WIN_FENCE`,
`MPI_WIN_LOCK`/`MPI_WIN_LOCK_ALL`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR015,
        &["each RMA synchronization call accepts only its own MPI_MODE_* assertions (MPI 4.1 §12.5.5)"],
        "pass 0, or only the MPI_MODE_* values this call defines",
        |issue, call| match &issue.problem {
            ArgProblem::InvalidAssert { value, not_allowed } => Some((
                format!(
                    "{call} is given {} = {value} with {}, which it does not accept",
                    issue.param,
                    not_allowed.join(" and ")
                ),
                format!("{} holds {}", issue.param, not_allowed.join(", ")),
            )),
            _ => None,
        },
    )
}

/// AR015.
pub(crate) struct InvalidAssert;

impl Check for InvalidAssert {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR015]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
