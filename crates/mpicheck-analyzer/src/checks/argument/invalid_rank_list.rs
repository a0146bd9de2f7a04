//! Group rank lists with a rank named twice or a range of stride 0 (AR014).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR014: CheckInfo = CheckInfo {
    code: "AR014",
    name: "invalid-rank-list",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a group's list of ranks names a rank twice, or one of its ranges has stride 0",
    docs: r#"## What it does

Checks the rank lists of the group constructors: the `ranks` of `MPI_Group_incl` and
`MPI_Group_excl` must be distinct, and so must all the ranks the `(first, last, stride)`
triplets of `MPI_Group_range_incl` and `MPI_Group_range_excl` name, whose strides must
not be 0. (Ranks outside the group are AR001's.)

## Why is this bad

The standard makes such a call erroneous: MPI returns an error, which with the default
error handler aborts the program. A repeated rank usually comes from a list built for
another process count, or overlapping ranges; a stride of 0 from a computed stride that
rounded down.

## Example

```c
int ranges[2][3] = {{0, 3, 1}, {2, 5, 1}};   /* 2 and 3 are in both ranges */
MPI_Group_range_incl(world_group, 2, ranges, &group);
```

## How to fix

Build the list so that each rank appears once (sort and remove duplicates, or make the
ranges disjoint), and give every range a non-zero stride (1 for a contiguous range).

## MPI standard reference

MPI 4.1 §7.3.2 (`MPI_Group_incl`: "all elements must be distinct";
`MPI_Group_range_incl`: "all computed ranks must be distinct", "stride_i ... cannot be
zero"; likewise the `_excl` forms).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR014,
        &["the ranks a group constructor is given are distinct, and ranges have a non-zero stride (MPI 4.1 §7.3.2)"],
        "name each rank once: make the list or the ranges disjoint, with a stride of 1 for contiguous ranks",
        |issue, call| match &issue.problem {
            ArgProblem::RepeatedRank { value } => Some((
                format!(
                    "{call} is given member {value} of the group twice in {}",
                    issue.param
                ),
                format!(
                    "{} names member {value} of the group more than once",
                    issue.param
                ),
            )),
            ArgProblem::ZeroStride { range } => Some((
                format!("{call} is given a range of stride 0 in {}", issue.param),
                format!("range {range} of {} has stride 0", issue.param),
            )),
            _ => None,
        },
    )
}

/// AR014.
pub(crate) struct InvalidRankList;

impl Check for InvalidRankList {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR014]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
