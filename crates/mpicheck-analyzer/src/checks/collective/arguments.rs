//! CO005: other arguments that must be equal on all members differ: `local_leader` and `tag`
//! of `MPI_Intercomm_create`, `high` of `MPI_Intercomm_merge` (per group), `ndims`, `dims`,
//! `periods` and `reorder` of `MPI_Cart_create`, the graph of `MPI_Graph_create`, the `amode`
//! of `MPI_File_open`.

use super::{by_value, disagreement, Call, Findings, Position};
use crate::checks::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};

pub const CO005: CheckInfo = CheckInfo {
    code: "CO005",
    name: "collective-argument-mismatch",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "an argument that must be the same on all members (intercomm leader/tag, merge high, cartesian dims, graph, file amode/size/atomicity/etype, fence assertions) differs",
    docs: r#"## What it does

Compares, across the members making the same collective call, the arguments the standard
requires to be equal everywhere:

- `MPI_Intercomm_create`: `local_leader` and `tag` (within the local group);
- `MPI_Intercomm_merge`: `high` (within each group);
- `MPI_Cart_create`: `ndims`, `dims`, `periods`, `reorder`;
- `MPI_Graph_create`: `nnodes`, `index`, `edges`, `reorder`;
- `MPI_File_open`: `amode`; `MPI_File_set_size`, `MPI_File_preallocate`: `size`;
  `MPI_File_set_atomicity`: `flag`; `MPI_File_seek_shared`: `offset`, `whence`;
  `MPI_File_set_view`: the `etype` (by type signature);
- `MPI_Win_fence`: whether `MPI_MODE_NOPRECEDE` and `MPI_MODE_NOSUCCEED` are given (the
  other assertions are local hints and may differ).

## Why is this bad

These calls build one shared object from every member's arguments. Different values give
members different ideas of the topology, leader or file mode: hangs in the creation call,
or a communicator that behaves differently on different ranks.

## Example

```c
int dims[2] = {rank == 0 ? 4 : 2, 2}, periods[2] = {0, 0};
MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
```

## How to fix

Compute these arguments identically on every member (e.g. with `MPI_Dims_create` on the
same input everywhere).

## MPI standard reference

MPI 4.1 §7.6.2 (MPI_INTERCOMM_CREATE: local_leader and tag), §7.6.2 (MPI_INTERCOMM_MERGE:
"all processes in each group should provide the same high value"), §8.5.1 (MPI_CART_CREATE),
§8.5.3 (MPI_GRAPH_CREATE: "same values ... on all processes"), §14.2.1 (MPI_FILE_OPEN:
"amode must be identical on all processes"), §14.2.4–§14.2.6 and §14.3 (file size,
atomicity, view), §12.5.5 (MPI_WIN_FENCE: NOPRECEDE and NOSUCCEED given by all or none).
"#,
};

/// CO005's findings.
#[derive(Default)]
pub(crate) struct Agreement {
    found: Findings,
}

impl Agreement {
    pub fn finish(self, tables: &RunTables) -> Vec<Diagnostic> {
        self.found.into_diagnostics(tables)
    }

    /// A position of the aligned sequence.
    pub fn position(&mut self, position: &Position, tables: &RunTables) {
        let Some(first) = position.calls[0].args() else {
            return;
        };
        if first.agree.is_empty() {
            return;
        }
        let Some(info) = tables.comm(position.comm) else {
            return;
        };
        // Intercommunicator calls agree within each group.
        let groups_of_callers: Vec<Vec<&Call>> = match &info.remote {
            Some(remote) => vec![
                position
                    .calls
                    .iter()
                    .filter(|c| info.members.contains(&c.rank))
                    .collect(),
                position
                    .calls
                    .iter()
                    .filter(|c| remote.contains(&c.rank))
                    .collect(),
            ],
            None => vec![position.calls.iter().collect()],
        };
        for callers in groups_of_callers {
            for (name, _) in &first.agree {
                let values: Vec<(String, &Call)> = callers
                    .iter()
                    .filter_map(|&c| {
                        let v = c.args()?.agree.iter().find(|(n, _)| n == name)?;
                        Some((format!("{name} {}", v.1), c))
                    })
                    .collect();
                let groups = by_value(values);
                if groups.len() < 2 {
                    continue;
                }
                self.found.push(
                    position,
                    disagreement(
                        tables,
                        &CO005,
                        position,
                        name,
                        &groups,
                        &format!(
                            "the {name} argument of {} must be the same on all members (MPI 4.1 §7.6.2, §8.5, §12.5.5, §14.2)",
                            position.call()
                        ),
                        &format!("pass the same {name} on every rank"),
                    ),
                );
            }
        }
    }
}
