//! Negative split colors (AR011).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR011: CheckInfo = CheckInfo {
    code: "AR011",
    name: "invalid-color",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a split color is negative, or a split type not one the library defines, and not MPI_UNDEFINED",
    docs: r#"## What it does

Checks the `color` argument of every function with a parameter of the `COLOR` kind
(`MPI_Comm_split`): a color is a non-negative integer, or `MPI_UNDEFINED` for a process
that joins no new communicator. The `split_type` of `MPI_Comm_split_type` (`SPLIT_TYPE`
kind) is `MPI_UNDEFINED` or one of the split types the library defines
(`MPI_COMM_TYPE_SHARED`, `MPI_COMM_TYPE_HW_GUIDED`, `MPI_COMM_TYPE_HW_UNGUIDED`, the
library's own such as Open MPI's `OMPI_COMM_TYPE_SOCKET` or MPICH's
`MPIX_COMM_TYPE_NEIGHBORHOOD`): the recorder writes the library's list into the trace
(traces of older recorders, and Open MPI versions other than 4.x, are judged for negative
types only).

## Why is this bad

A negative color is erroneous: MPI returns an error, which with the default error
handler aborts the program. It usually is a computed color that went wrong, or a private
"no group" value used instead of `MPI_UNDEFINED`. A split type the library does not
define (a number where the constant was meant, another MPI's type) is erroneous alike.

## Example

```c
int color = (rank < 4) ? 0 : -1;          /* -1 meant "none" */
MPI_Comm_split(MPI_COMM_WORLD, color, rank, &sub);
```

## How to fix

Pass `MPI_UNDEFINED` for the processes that must not be in any new communicator (they get
`MPI_COMM_NULL`), and non-negative colors otherwise.

## MPI standard reference

MPI 4.1 §7.4.2 (`MPI_Comm_split`: "color must be non-negative or MPI_UNDEFINED";
`MPI_Comm_split_type`: the split types the standard and the implementation define, or
`MPI_UNDEFINED`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR011,
        &["a color is non-negative or MPI_UNDEFINED, a split type MPI_UNDEFINED or one the library defines (MPI 4.1 §7.4.2)"],
        "pass MPI_UNDEFINED for processes that join no new communicator, a non-negative color or an MPI_COMM_TYPE_* constant otherwise",
        |issue, call| match &issue.problem {
            ArgProblem::InvalidColor { value } => Some((
                format!("{call} is given the negative {} {value}", issue.param),
                format!("{} = {value} is neither non-negative nor MPI_UNDEFINED", issue.param),
            )),
            ArgProblem::UndefinedSplitType { value } => Some((
                format!("{call} is given the split type {value}, which this MPI library does not define"),
                format!("{} = {value} is no MPI_COMM_TYPE_* constant of this library", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR011.
pub(crate) struct InvalidColor;

impl Check for InvalidColor {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR011]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
