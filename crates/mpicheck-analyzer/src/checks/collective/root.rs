//! CO002: the ranks of a rooted collective pass different roots.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use super::{all_same, by_value, disagreement, Call, Findings, Position};
use crate::checks::pass::{ByAddress, RunTables};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{CommId, Rank};

pub const CO002: CheckInfo = CheckInfo {
    code: "CO002",
    name: "collective-root-mismatch",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "the ranks of a rooted collective (bcast, gather, scatter, reduce, spawn) pass different roots",
    docs: r#"## What it does

For every rooted collective call (`MPI_Bcast`, `MPI_Gather(v)`, `MPI_Scatter(v)`,
`MPI_Reduce` and their nonblocking and persistent forms, `MPI_Comm_spawn`,
`MPI_Comm_connect`/`MPI_Comm_accept`), compares the `root` argument of all members of the
communicator at the same collective call and reports the ranks that pass a different root
than the others, with the call sites of both sides.

## Why is this bad

The root must be the same on every member. With different roots, ranks wait for data from
different processes: the program hangs, or broadcasts or reduces into the wrong buffers,
depending on the implementation and the message size.

## Example

```c
/* every rank but the last uses root 0; the last one uses its own rank */
MPI_Bcast(buf, 1, MPI_INT, rank == size - 1 ? rank : 0, MPI_COMM_WORLD);
```

## How to fix

Pass the same root on every rank, typically a constant or a value every rank computed
alike.

## MPI standard reference

MPI 4.1 §6.4 (MPI_BCAST: "the argument root must have identical values on all processes"),
§6.5, §6.6, §6.9.1 (the same rule for gather, scatter and reduce).
"#,
};

/// A rank's rooted calls on a communicator, (call, root) → how many.
type RootedCalls = BTreeMap<(&'static str, i32), u32>;

/// The rooted calls on a communicator as they come: (rank, call, root) → how many, the
/// call by its address (folded by text into [`RootedCalls`] at the end).
type RootedByRank = FxHashMap<(Rank, ByAddress, i32), u32>;

/// CO002's state: the rooted calls each rank made on each communicator, and the findings.
#[derive(Default)]
pub(crate) struct Roots {
    /// comm → rank → its rooted calls on it: whether every member makes the same rooted
    /// calls, only in different orders.
    rooted: FxHashMap<u32, RootedByRank>,
    found: Findings,
}

impl Roots {
    /// Every collective call, as it comes.
    pub fn call(&mut self, comm: CommId, call: &Call) {
        if let Some(root) = call.root() {
            *self
                .rooted
                .entry(comm.0)
                .or_default()
                .entry((call.rank, ByAddress(call.call), root))
                .or_insert(0) += 1;
        }
    }

    /// Every member freed `comm` and every position on it was handed over: its rooted calls
    /// matter only to a finding on it (see [`Roots::finish`]).
    pub fn freed(&mut self, comm: CommId) {
        if !self.found.is_on(comm) {
            self.rooted.remove(&comm.0);
        }
    }

    /// A position of the aligned sequence.
    pub fn position(&mut self, position: &Position, tables: &RunTables) {
        if tables
            .comm(position.comm)
            .is_none_or(|c| c.remote.is_some())
        {
            return; // intercommunicators use MPI_ROOT / MPI_PROC_NULL per group
        }
        if position.calls.iter().any(|c| c.root().is_none())
            || all_same(position.calls.iter().map(Call::root))
        {
            return;
        }
        let groups = by_value(position.calls.iter().map(|c| (c.root().unwrap_or(-1), c)));
        if groups.len() < 2 {
            return;
        }
        let described: Vec<(String, Vec<_>)> = groups
            .into_iter()
            .map(|(root, calls)| (format!("root {root}"), calls))
            .collect();
        self.found.push(
            position,
            disagreement(
                tables,
                &CO002,
                position,
                "root",
                &described,
                "the root argument must have the same value on all members of the communicator (MPI 4.1 §6.4)",
                "pass the same root on every rank",
            ),
        );
    }

    /// The findings; the communicators they are on go to `comms` (a replay that matches
    /// collectives with different roots reports a deadlock that is only a consequence).
    pub fn finish(self, tables: &RunTables, comms: &mut BTreeSet<CommId>) -> Vec<Diagnostic> {
        // Communicators on which every member makes the same rooted calls, only in
        // different orders (the standard's "broadcasts in reverse order" example): the fault
        // is the order, a (potential) deadlock the deadlock checks report, not a wrong root
        // argument.
        let reordered: BTreeSet<CommId> = self
            .rooted
            .into_iter()
            .filter_map(|(comm, counts)| {
                let mut per_rank: BTreeMap<Rank, RootedCalls> = BTreeMap::new();
                for ((rank, call, root), n) in counts {
                    *per_rank
                        .entry(rank)
                        .or_default()
                        .entry((call.0, root))
                        .or_insert(0) += n;
                }
                let comm = CommId(comm);
                let mut calls = per_rank.values();
                let first = calls.next()?;
                calls.all(|c| c == first).then_some(comm)
            })
            .collect();
        self.found
            .sorted(tables)
            .filter(|(comm, _)| !reordered.contains(comm))
            .map(|(comm, d)| {
                comms.insert(comm);
                d
            })
            .collect()
    }
}
