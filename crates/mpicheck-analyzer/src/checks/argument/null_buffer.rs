//! NULL buffers with a positive count (AR007).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR007: CheckInfo = CheckInfo {
    code: "AR007",
    name: "null-buffer",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a NULL buffer is passed with a positive count of a predefined datatype",
    docs: r#"## What it does

Reports point-to-point calls whose buffer address is `NULL` while the count of a
predefined datatype is positive. (`MPI_BOTTOM` with a derived datatype of absolute
addresses is legitimate and not reported.)

## Why is this bad

MPI reads from or writes to address 0: the program crashes with a segmentation fault
inside the MPI library, or MPI rejects the call. The usual cause is an allocation that
was skipped or failed.

## Example

```c
int *data = NULL;
if (rank == 0) data = malloc(n * sizeof *data);
MPI_Recv(data, n, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);   /* on rank 1: NULL */
```

## How to fix

Allocate the buffer before the call, or send and receive zero elements when there is no
buffer.

## MPI standard reference

MPI 4.1 §3.2.2 (the send buffer consists of count successive entries starting at buf),
§5.1.12 (`MPI_BOTTOM` and absolute addresses).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR007,
        &["the buffer must hold count elements of the datatype (MPI 4.1 §3.2.2)"],
        "allocate the buffer before the call, or transfer zero elements",
        |issue, call| match &issue.problem {
            ArgProblem::NullBuffer { count } => Some((
                format!(
                    "{call} is given a NULL {} with a count of {count}",
                    issue.param
                ),
                format!(
                    "{} is NULL but {count} {} transferred",
                    issue.param,
                    if *count == 1 {
                        "element is"
                    } else {
                        "elements are"
                    }
                ),
            )),
            _ => None,
        },
    )
}

/// AR007.
pub(crate) struct NullBuffer;

impl Check for NullBuffer {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR007]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
