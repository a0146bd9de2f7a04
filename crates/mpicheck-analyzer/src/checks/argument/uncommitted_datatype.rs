//! Uncommitted derived datatypes used for communication (AR006).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR006: CheckInfo = CheckInfo {
    code: "AR006",
    name: "uncommitted-datatype",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a derived datatype is used for communication before MPI_Type_commit",
    docs: r#"## What it does

Follows derived datatypes from their constructor (`MPI_Type_vector`,
`MPI_Type_create_struct`, ...) and reports one used as the datatype of a point-to-point
call or a collective before `MPI_Type_commit` was called on it. Using uncommitted types to
build other types is fine and not reported.

## Why is this bad

Only committed datatypes may be used in communication. MPI fails the call (aborting with
the default error handler) or, in some implementations, transfers wrong data.

## Example

```c
MPI_Datatype column;
MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
MPI_Send(a, 1, column, 1, 0, MPI_COMM_WORLD);   /* MPI_Type_commit(&column) missing */
```

## How to fix

Call `MPI_Type_commit(&type)` after constructing a datatype and before communicating
with it.

## MPI standard reference

MPI 4.1 §5.1.9 (commit and free: "a datatype object has to be committed before it can
be used in a communication").
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR006,
        &["a derived datatype must be committed before it is used in communication (MPI 4.1 §5.1.9)"],
        "call MPI_Type_commit on the datatype after constructing it",
        |issue, call| match &issue.problem {
            ArgProblem::UncommittedDatatype => Some((
                format!("{call} communicates with a derived datatype ({}) that was never committed", issue.param),
                format!("{} is not committed", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR006.
pub(crate) struct UncommittedDatatype;

impl Check for UncommittedDatatype {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR006]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
