//! Invalid message tags (AR002).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR002: CheckInfo = CheckInfo {
    code: "AR002",
    name: "invalid-tag",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a message tag is negative (other than MPI_ANY_TAG in a receive) or above MPI_TAG_UB",
    docs: r#"## What it does

Checks the tags of point-to-point calls: a tag must be between 0 and the value of the
`MPI_TAG_UB` attribute of the MPI that ran the program (recorded in the trace);
`MPI_ANY_TAG` is accepted by receives and probes only.

## Why is this bad

An invalid tag is erroneous: the call fails and with the default error handler the
program aborts. `MPI_TAG_UB` can be as low as 32767, so tags computed from ranks or
iteration numbers overflow on larger runs.

## Example

```c
MPI_Send(buf, 1, MPI_INT, 1, -1, MPI_COMM_WORLD);         /* negative tag */
MPI_Send(buf, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD); /* wildcard in a send */
```

## How to fix

Use non-negative tags no larger than `MPI_TAG_UB` (query it with `MPI_Comm_get_attr`);
wrap computed tags modulo a bound.

## MPI standard reference

MPI 4.1 §3.2.3 (tags: 0..`MPI_TAG_UB`, at least 32767), §3.2.4 (`MPI_ANY_TAG` only in
receives), §9.1.2 (the `MPI_TAG_UB` attribute).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR002,
        &["valid tags are 0..MPI_TAG_UB; MPI_ANY_TAG only in receives and probes (MPI 4.1 §3.2.3)"],
        "use a tag between 0 and MPI_TAG_UB",
        |issue, call| match &issue.problem {
            ArgProblem::InvalidTag { value, tag_ub } => Some((
                match tag_ub {
                    Some(ub) if *value > *ub => format!("{call} is given {} = {value}, above MPI_TAG_UB ({ub})", issue.param),
                    _ => format!("{call} is given the negative {} {value}", issue.param),
                },
                format!("{} = {value} is not a valid tag", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR002.
pub(crate) struct InvalidTag;

impl Check for InvalidTag {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR002]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
