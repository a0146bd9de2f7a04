//! MPI calls made before `MPI_Init` (AR009).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR009: CheckInfo = CheckInfo {
    code: "AR009",
    name: "call-before-init",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an MPI function was called before MPI_Init or MPI_Init_thread",
    docs: r#"## What it does

Reports MPI calls a process makes before `MPI_Init`/`MPI_Init_thread` (or with no
initialization at all), except the ones the standard allows at any time
(`MPI_Initialized`, `MPI_Finalized`, `MPI_Get_version`, `MPI_Get_library_version`, the
info, session, error-class and tool-interface `MPI_T_` calls, `MPI_Wtime`). Processes
that use the sessions model are not judged. The order is taken from the process's own
trace, so a call that made MPI abort before `MPI_Init` is still reported.

## Why is this bad

Before initialization MPI has no state: the call fails, and since no error handler can
be set yet, the program aborts.

## Example

```c
int main(int argc, char **argv) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);   /* before MPI_Init */
    MPI_Init(&argc, &argv);
```

## How to fix

Call `MPI_Init` (or `MPI_Init_thread`) first, also in libraries' initialization code
that may run earlier (constructors, static initializers).

## MPI standard reference

MPI 4.1 §11.2.1 and §11.2.2 (the functions that may be called before `MPI_Init`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR009,
        &["only a few functions (MPI_Initialized, MPI_Get_version, ...) may be called before MPI_Init (MPI 4.1 §11.2.1)"],
        "call MPI_Init or MPI_Init_thread before any other MPI function",
        |issue, call| match issue.problem {
            ArgProblem::BeforeInit => Some((
                format!("{call} is called before MPI_Init"),
                "called before MPI is initialized".to_string(),
            )),
            _ => None,
        },
    )
}

/// AR009.
pub(crate) struct CallBeforeInit;

impl Check for CallBeforeInit {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR009]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
