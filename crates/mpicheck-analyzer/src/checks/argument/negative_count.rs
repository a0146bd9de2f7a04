//! Negative counts and lengths (AR003).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR003: CheckInfo = CheckInfo {
    code: "AR003",
    name: "negative-count",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a count or array length is negative",
    docs: r#"## What it does

Checks every count and array length argument that the MPI standard declares
non-negative (element counts of messages and collectives, counts of datatype
constructors, lengths of request arrays) for negative values. Counts of rooted
collectives that matter only at the root are not checked on other ranks.

## Why is this bad

A negative count is erroneous: the call fails (the default error handler aborts) or, with
some MPIs, is read as a huge unsigned size. It usually comes from an overflowed
computation (`int` products) or an uninitialized variable.

## Example

```c
int n = nlocal - 1;                      /* -1 when nlocal is 0 */
MPI_Send(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
```

## How to fix

Guard the computation (send nothing when there is nothing to send), compute sizes in a
wide enough type, or use the large-count (`_c`) variants.

## MPI standard reference

MPI 4.1 §3.2.2 (the count of a message is non-negative), §2.5.8 and the
`POLYXFER_NUM_ELEM_NNI` parameters of the language-independent bindings.
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR003,
        &["counts and array lengths are non-negative integers (MPI 4.1 §3.2.2)"],
        "pass a count of 0 or more; check the computation that produced it for overflow or a missing case",
        |issue, call| match &issue.problem {
            ArgProblem::NegativeCount { value } => Some((
                format!("{call} is given the negative {} {value}", issue.param),
                format!("{} = {value} must not be negative", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR003.
pub(crate) struct NegativeCount;

impl Check for NegativeCount {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR003]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
