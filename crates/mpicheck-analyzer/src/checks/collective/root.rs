//! CO002: the ranks of a rooted collective pass different roots.

use super::{aligned, by_value, disagreement, Context};
use crate::checks::{Check, Needs, Slot};
use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{CommId, Op, Rank, Run};

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

/// Communicators on which every member makes the same rooted calls, only in different
/// orders (the standard's "broadcasts in reverse order" example): the fault is the order, a
/// (potential) deadlock the deadlock checks report, not a wrong root argument.
fn reordered_comms(run: &Run) -> HashSet<CommId> {
    type RootedCalls = BTreeMap<Rank, Vec<(&'static str, i32)>>;
    let mut calls: BTreeMap<CommId, RootedCalls> = BTreeMap::new();
    for trace in &run.ranks {
        for event in &trace.events {
            if let Op::Collective {
                comm,
                root: Some(r),
                ..
            } = &event.op
            {
                calls
                    .entry(*comm)
                    .or_default()
                    .entry(trace.rank)
                    .or_default()
                    .push((event.call, *r));
            }
        }
    }
    calls
        .into_iter()
        .filter_map(|(comm, mut per_rank)| {
            per_rank.values_mut().for_each(|v| v.sort_unstable());
            let mut sequences = per_rank.values();
            let first = sequences.next()?;
            sequences.all(|s| s == first).then_some(comm)
        })
        .collect()
}

/// CO002 findings, and the communicators they are on (a replay that matches collectives
/// with different roots reports a deadlock that is only a consequence).
fn check(ctx: &Context) -> (Vec<Diagnostic>, BTreeSet<CommId>) {
    let mut out = Vec::new();
    let mut comms = BTreeSet::new();
    let reordered = reordered_comms(ctx.run);
    for position in aligned(ctx.run) {
        if ctx.run.comm(position.comm).remote.is_some() {
            continue; // intercommunicators use MPI_ROOT / MPI_PROC_NULL per group
        }
        if reordered.contains(&position.comm) {
            continue;
        }
        if position.calls.iter().any(|c| c.root().is_none()) {
            continue;
        }
        let groups = by_value(position.calls.iter().map(|c| (c.root().unwrap_or(-1), *c)));
        if groups.len() < 2 {
            continue;
        }
        let described: Vec<(String, Vec<_>)> = groups
            .into_iter()
            .map(|(root, calls)| (format!("root {root}"), calls))
            .collect();
        comms.insert(position.comm);
        out.push(disagreement(
            ctx,
            &CO002,
            &position,
            "root",
            &described,
            "the root argument must have the same value on all members of the communicator (MPI 4.1 §6.4)",
            "pass the same root on every rank",
        ));
    }
    (out, comms)
}

/// CO002; the communicators it finds mismatched go to DL002.
pub(crate) struct CollectiveRootMismatch;

impl Check for CollectiveRootMismatch {
    fn infos(&self) -> &'static [CheckInfo] {
        &[CO002]
    }
    fn needs(&self) -> Needs {
        Needs {
            fills: &[Slot::MismatchedComms],
            ..Needs::NOTHING
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        let (found, comms) = check(ctx);
        ctx.add_mismatched_comms(comms);
        found
    }
}
