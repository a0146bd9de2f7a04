//! CO003: the ranks of a reduction pass different operations.

use super::{by_value, disagreement, Call, Findings, Position};
use crate::checks::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const CO003: CheckInfo = CheckInfo {
    code: "CO003",
    name: "collective-op-mismatch",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "the ranks of a reduction (reduce, allreduce, reduce_scatter, scan, exscan) pass different operations",
    docs: r#"## What it does

For every reduction (`MPI_Reduce`, `MPI_Allreduce`, `MPI_Reduce_scatter(_block)`,
`MPI_Scan`, `MPI_Exscan`, their nonblocking and persistent forms), compares the `op`
argument of all members at the same collective call. Predefined operations are compared by
name (`MPI_SUM`, `MPI_MAX`); user-defined operations by the function they were created
from (`MPI_Op_create`), resolved to its name in the program, and their commutativity.

## Why is this bad

"The same op must be passed on all processes". Mixed operations make the result depend on
which process combines which partial results: silently wrong numbers, different on each
run or each MPI.

## Example

```c
MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, rank == 0 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
```

## How to fix

Pass the same operation on every rank. For user-defined operations, create them the same
way on every rank.

## MPI standard reference

MPI 4.1 §6.9.1 (MPI_REDUCE: "op ... must be the same on all processes"; the same for all
reductions, §6.9.6–§6.11).
"#,
};

/// CO003's findings.
#[derive(Default)]
pub(crate) struct Ops {
    found: Findings,
}

impl Ops {
    /// A position of the aligned sequence.
    pub fn position(&mut self, position: &Position, tables: &RunTables) {
        // The usual position, every member passing the same op, or one passing none: nothing
        // to report (and no op copied to find it out).
        fn op(c: &Call) -> Option<&str> {
            c.args().and_then(|a| a.op.as_deref())
        }
        let first = position.calls.first().and_then(op);
        if position.calls.iter().any(|c| op(c).is_none())
            || position.calls.iter().all(|c| op(c) == first)
        {
            return;
        }
        let Some(calls) = position
            .calls
            .iter()
            .map(|c| {
                c.args()
                    .and_then(|a| a.op.as_deref())
                    .map(|op| (op.to_string(), c))
            })
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let groups = by_value(calls);
        if groups.len() < 2 {
            return;
        }
        self.found.push(
            position,
            disagreement(
                tables,
                &CO003,
                position,
                "reduction operation",
                &groups,
                "the op argument of a reduction must be the same on all members of the communicator (MPI 4.1 §6.9.1)",
                "pass the same reduction operation on every rank",
            ),
        );
    }

    pub fn finish(self, tables: &RunTables) -> Vec<Diagnostic> {
        self.found.into_diagnostics(tables)
    }
}
