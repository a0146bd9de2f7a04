//! Handles of freed objects (AR005).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR005: CheckInfo = CheckInfo {
    code: "AR005",
    name: "freed-handle",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a handle of an object that was already freed is used (or freed again)",
    docs: r#"## What it does

Remembers the handles each rank has freed (`MPI_Comm_free`, `MPI_Type_free`,
`MPI_Group_free`, ...) and reports a later call that passes one of them, through a copy
of the handle, before MPI hands the same value out again for a new object.

## Why is this bad

A freed object no longer exists. Using it is erroneous: MPI may abort with an invalid
handle error, or, once the handle value is reused, silently act on a different object.
Freeing twice is the same mistake.

## Example

```c
MPI_Datatype t, copy;
MPI_Type_contiguous(4, MPI_INT, &t);
MPI_Type_commit(&t);
copy = t;
MPI_Type_free(&t);
MPI_Send(buf, 1, copy, 1, 0, MPI_COMM_WORLD);   /* copy names the freed type */
```

## How to fix

Keep one owner per handle, free it after the last use, and set copies to the null handle.

## MPI standard reference

MPI 4.1 §2.5.1 (a freed object cannot be accessed through any handle), §5.1.10
(`MPI_Type_free`), §6.4.3 (`MPI_Comm_free`).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR005,
        &["after MPI_*_free an object cannot be used through any handle (MPI 4.1 §2.5.1)"],
        "use the object only before it is freed; free it once, after its last use",
        |issue, call| match &issue.problem {
            ArgProblem::FreedHandle { kind } => Some((
                format!(
                    "{call} is given {} {} that was already freed ({})",
                    if kind.noun().starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    },
                    kind.noun(),
                    issue.param
                ),
                format!("{} names a freed {}", issue.param, kind.noun()),
            )),
            _ => None,
        },
    )
}

/// AR005.
pub(crate) struct FreedHandle;

impl Check for FreedHandle {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR005]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
