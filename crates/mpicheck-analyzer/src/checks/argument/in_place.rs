//! MPI_IN_PLACE where it is not allowed (AR008).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR008: CheckInfo = CheckInfo {
    code: "AR008",
    name: "in-place-not-allowed",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "MPI_IN_PLACE is passed to a call or argument that does not accept it",
    docs: r#"## What it does

Reports `MPI_IN_PLACE` passed as a buffer of a point-to-point call or as the buffer of
`MPI_Bcast`; only the collectives that document an in-place form accept it (for their
send buffer, or the receive buffer at the root of a scatter).

## Why is this bad

`MPI_IN_PLACE` is a special address, not memory: a call that does not expect it reads or
writes through it, which crashes or corrupts memory, or MPI rejects it.

## Example

```c
MPI_Send(MPI_IN_PLACE, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
```

## How to fix

Pass the real buffer; use `MPI_IN_PLACE` only where the call documents an in-place form
(`MPI_Allreduce(MPI_IN_PLACE, buf, ...)`).

## MPI standard reference

MPI 4.1 §6.2.1 (the in-place option of collectives), §2.5.4 (named constants such as
`MPI_IN_PLACE` may be used only where allowed).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR008,
        &["MPI_IN_PLACE is accepted only where a collective documents an in-place form (MPI 4.1 §6.2.1)"],
        "pass the real buffer",
        |issue, call| match &issue.problem {
            ArgProblem::InPlaceNotAllowed => Some((
                format!("{call} does not accept MPI_IN_PLACE as {}", issue.param),
                format!("{} is MPI_IN_PLACE", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR008.
pub(crate) struct InPlaceNotAllowed;

impl Check for InPlaceNotAllowed {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR008]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
