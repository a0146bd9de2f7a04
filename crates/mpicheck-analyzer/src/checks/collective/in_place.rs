//! CO004: `MPI_IN_PLACE` on some ranks but not all where the standard requires all or none,
//! or on a non-root rank of a rooted collective.

use super::{all_same, by_value, disagreement, group_locations, Call, Findings, Position};
use crate::checks::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::CollectiveKind;
use crate::ranks::RankSet;
use crate::text;

pub const CO004: CheckInfo = CheckInfo {
    code: "CO004",
    name: "collective-in-place-mismatch",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "MPI_IN_PLACE is passed on some ranks but not on all where all or none must pass it, or on a non-root rank",
    docs: r#"## What it does

For the collectives whose "in place" option must be chosen on all members or none
(`MPI_Allgather(v)`, `MPI_Allreduce`, `MPI_Reduce_scatter(_block)`, `MPI_Alltoall(v/w)` and
their nonblocking and persistent forms), reports the ranks that pass `MPI_IN_PLACE` when
others pass a buffer, or the reverse. For rooted collectives (`MPI_Gather(v)`,
`MPI_Scatter(v)`, `MPI_Reduce`), where only the root may use `MPI_IN_PLACE`, reports a
non-root that passes it.

## Why is this bad

With `MPI_IN_PLACE` the data a rank contributes is taken from its receive buffer; the
implementation relies on every rank agreeing on that. Mixed use is erroneous: wrong
results or crashes.

## Example

```c
if (rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
else
    MPI_Allreduce(mine, x, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
```

## How to fix

Use `MPI_IN_PLACE` on every rank or on none (on the root only, for rooted collectives).

## MPI standard reference

MPI 4.1 §6.7 (MPI_ALLGATHER: "specified by passing the value MPI_IN_PLACE to the argument
sendbuf at all processes"), §6.9.6 (MPI_ALLREDUCE), §6.10 (MPI_REDUCE_SCATTER), §6.8
(MPI_ALLTOALL); §6.5, §6.6, §6.9.1 (rooted: "at the root").
"#,
};

fn all_or_none(kind: CollectiveKind) -> bool {
    use CollectiveKind::*;
    matches!(
        kind,
        Allgather
            | Allgatherv
            | Allreduce
            | ReduceScatter
            | ReduceScatterBlock
            | Alltoall
            | Alltoallv
            | Alltoallw
    )
}

fn rooted(kind: CollectiveKind) -> bool {
    use CollectiveKind::*;
    matches!(kind, Gather | Gatherv | Scatter | Scatterv | Reduce)
}

/// CO004's findings.
#[derive(Default)]
pub(crate) struct InPlace {
    found: Findings,
}

impl InPlace {
    pub fn finish(self, tables: &RunTables) -> Vec<Diagnostic> {
        self.found.into_diagnostics(tables)
    }

    /// A position of the aligned sequence.
    pub fn position(&mut self, position: &Position, tables: &RunTables) {
        let kind = &position.calls[0].kind;
        let Some(info) = tables.comm(position.comm) else {
            return;
        };
        if info.remote.is_some() {
            return;
        }
        let out = &mut self.found;
        let in_place = |c: &Call| c.args().is_some_and(|a| a.in_place);
        if all_or_none(*kind) {
            if all_same(position.calls.iter().map(in_place)) {
                return;
            }
            let groups = by_value(position.calls.iter().map(|c| (in_place(c), c)));
            if groups.len() < 2 {
                return;
            }
            let described: Vec<(String, Vec<_>)> = groups
                .into_iter()
                .map(|(p, calls)| {
                    (
                        if p {
                            "MPI_IN_PLACE".to_string()
                        } else {
                            "a separate send buffer".to_string()
                        },
                        calls,
                    )
                })
                .collect();
            out.push(position, disagreement(
                tables,
                &CO004,
                position,
                "MPI_IN_PLACE",
                &described,
                "the in-place option of this collective must be used by all members of the communicator or by none (MPI 4.1 §6.7, §6.9.6)",
                "pass MPI_IN_PLACE on every rank or on none",
            ));
        } else if rooted(*kind) {
            let offenders: Vec<&Call> = position
                .calls
                .iter()
                .filter(|c| {
                    in_place(c)
                        && c.root()
                            .is_some_and(|r| info.rank_of(c.rank) != Some(r as u32))
                })
                .collect();
            if offenders.is_empty() {
                return;
            }
            let ranks: RankSet = offenders.iter().map(|c| c.rank).collect();
            let root = offenders[0].root().unwrap_or(0);
            let call = position.call();
            out.push(position, Diagnostic {
                code: CO004.code,
                category: CO004.category,
                severity: CO004.severity,
                // The root is a rank of the communicator, not a world rank: literal text,
                // so that findings with different roots do not fold.
                message: text!(
                    "MPI_IN_PLACE on a non-root rank in {call} (collective #{} on {}): {} {} it, but only the root ({root} in the communicator) may",
                    position.k + 1,
                    &*info.name,
                    &ranks,
                    if ranks.len() == 1 { "passes" } else { "pass" },
                ),
                locations: group_locations(
                    tables,
                    &offenders,
                    &text!("passes MPI_IN_PLACE but is not the root (root {root})"),
                ),
                notes: vec![
                    "in rooted collectives only the root may pass MPI_IN_PLACE (MPI 4.1 §6.5, §6.6, §6.9.1)".into(),
                ],
                help: Some("pass a real buffer on the non-root ranks".into()),
                wait_for: None,
                communicator: None,
                tag: None,
            });
        }
    }
}
