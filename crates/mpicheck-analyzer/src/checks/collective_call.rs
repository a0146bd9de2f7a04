//! Collective call mismatches (CO001): ranks of a communicator calling different
//! collectives at the same position, or a collective some rank never calls.

use crate::checks::{Check, Needs, Slot};
use std::collections::{BTreeMap, BTreeSet};

use super::{event_location, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::{Blocking, CollectiveKind, CommId, Op, Rank, RankEnd, RankTrace};
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;
use rustc_hash::FxHashMap;

pub const CO001: CheckInfo = CheckInfo {
    code: "CO001",
    name: "collective-call-mismatch",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "ranks of a communicator call different collectives at the same point, or one rank never calls a collective the others call",
    docs: r#"## What it does

Lines up, per communicator, the collective calls of every member in call order and
compares them position by position: the same operation (`MPI_Reduce` is not
`MPI_Allreduce`, `MPI_Barrier` is not `MPI_Bcast`) in the same form (a blocking, a
nonblocking and a persistent collective never match each other). Also reports a
collective that some members call while another member finishes (`MPI_Finalize` or exit)
without calling it. The first mismatched position of each communicator is reported; the
positions after it are shifted and would only repeat the finding.

## Why is this bad

MPI matches collective calls on a communicator by their order. Mismatched calls are
erroneous: depending on the implementation and the message sizes the program hangs,
crashes, or silently exchanges wrong data.

## Example

```c
if (rank != 2)
    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
else
    MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
```

## How to fix

Make every member of the communicator call the same collectives in the same order. If
different orders are really needed, run the operations on different communicators
(`MPI_Comm_dup`).

## MPI standard reference

MPI 4.1 §6.1 and §6.14 ("collective operations must be executed in the same order at all
members of the communication group"), §6.12 ("blocking and nonblocking collective
operations do not match"), §6.13 (persistent collectives).
"#,
};

/// What must be equal at one position of a communicator's collective sequence.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Signature {
    /// 0 blocking, 1 nonblocking, 2 persistent.
    class: u8,
    kind: u8,
    /// The call name, for management collectives (`MPI_Comm_dup` vs `MPI_Comm_split`).
    name: &'static str,
}

fn signature(call: &'static str, kind: CollectiveKind, blocking: &Blocking) -> Signature {
    Signature {
        class: match blocking {
            Blocking::Blocking => 0,
            Blocking::Nonblocking(_) => 1,
            Blocking::Persistent(_) => 2,
        },
        kind: crate::engine::kind_index(kind),
        name: if kind == CollectiveKind::Management {
            call
        } else {
            ""
        },
    }
}

#[derive(Default)]
struct Position {
    /// Distinct signatures seen here (usually one).
    signatures: Vec<Signature>,
    callers: u32,
}

#[derive(Default)]
struct CommSequence {
    positions: Vec<Position>,
}

/// A rank that will never call anything again.
fn finished(trace: &RankTrace) -> bool {
    matches!(
        trace.end,
        RankEnd::Finalized | RankEnd::ExitedWithoutFinalize
    ) || trace
        .events
        .last()
        .is_some_and(|e| matches!(e.op, Op::Finalize))
}

enum Problem {
    Mismatch(usize),
    Missing(usize),
}

/// CO001 findings, and the communicators they are on.
fn check(ctx: &Context) -> (Vec<Diagnostic>, BTreeSet<CommId>) {
    let run = ctx.run;
    // Pass 1: the signatures at each position of each communicator, and how many
    // collectives each member called on it.
    let mut sequences: FxHashMap<u32, CommSequence> = FxHashMap::default();
    let mut counts: FxHashMap<(u32, Rank), u32> = FxHashMap::default();
    for trace in &run.ranks {
        for event in &trace.events {
            let Op::Collective {
                kind,
                comm,
                blocking,
                ..
            } = &event.op
            else {
                continue;
            };
            let count = counts.entry((comm.0, trace.rank)).or_insert(0);
            let k = *count as usize;
            *count += 1;
            let seq = sequences.entry(comm.0).or_default();
            if seq.positions.len() <= k {
                seq.positions.resize_with(k + 1, Position::default);
            }
            let pos = &mut seq.positions[k];
            pos.callers += 1;
            let sig = signature(event.call, *kind, blocking);
            if !pos.signatures.contains(&sig) {
                pos.signatures.push(sig);
            }
        }
    }
    // The first problem of each communicator.
    let mut problems: BTreeMap<u32, Problem> = BTreeMap::new();
    for (&comm, seq) in &sequences {
        let Some(info) = run.comms.get(comm as usize) else {
            continue;
        };
        if info.members.is_empty() || info.remote.is_some() {
            continue;
        }
        let n = info.members.len() as u32;
        let mut judge_missing = true;
        for (k, pos) in seq.positions.iter().enumerate() {
            if pos.signatures.len() > 1 {
                problems.insert(comm, Problem::Mismatch(k));
                break;
            }
            if judge_missing && pos.callers < n {
                let non_callers_finished = info.members.iter().all(|&m| {
                    counts.get(&(comm, m)).copied().unwrap_or(0) as usize > k
                        || run.ranks.get(m as usize).is_some_and(finished)
                });
                if non_callers_finished {
                    problems.insert(comm, Problem::Missing(k));
                    break;
                }
                // A member that has not got this far yet (still blocked elsewhere) may call
                // it later: only mismatches among the callers can be judged from here on.
                judge_missing = false;
            }
        }
    }
    if problems.is_empty() {
        return (Vec::new(), BTreeSet::new());
    }
    // Pass 2: the calls at the problem positions.
    let wanted = |comm: u32| -> Option<usize> {
        problems.get(&comm).map(|p| match p {
            Problem::Mismatch(k) | Problem::Missing(k) => *k,
        })
    };
    // comm → signature → (site, call) → (ranks, event index of the first)
    type Groups = BTreeMap<Signature, BTreeMap<(u32, &'static str), (Vec<Rank>, Rank, usize)>>;
    let mut calls: BTreeMap<u32, Groups> = BTreeMap::new();
    let mut seen: FxHashMap<(u32, Rank), u32> = FxHashMap::default();
    for trace in &run.ranks {
        for (index, event) in trace.events.iter().enumerate() {
            let Op::Collective {
                kind,
                comm,
                blocking,
                ..
            } = &event.op
            else {
                continue;
            };
            let count = seen.entry((comm.0, trace.rank)).or_insert(0);
            let k = *count as usize;
            *count += 1;
            if wanted(comm.0) != Some(k) {
                continue;
            }
            let sig = signature(event.call, *kind, blocking);
            let g = calls
                .entry(comm.0)
                .or_default()
                .entry(sig)
                .or_default()
                .entry((event.site.0, event.call))
                .or_insert((Vec::new(), trace.rank, index));
            g.0.push(trace.rank);
        }
    }
    let mut out = Vec::new();
    let mut comms = BTreeSet::new();
    for (comm, problem) in problems {
        let Some(groups) = calls.get(&comm) else {
            continue;
        };
        let comm_name = run.comms[comm as usize].name.clone();
        comms.insert(CommId(comm));
        // Groups in order of their lowest rank.
        let mut ordered: Vec<(Vec<Rank>, &'static str, Rank, usize)> = Vec::new();
        let mut by_signature: Vec<(Vec<Rank>, &'static str)> = Vec::new();
        for sites in groups.values() {
            let mut all = Vec::new();
            let mut name = "";
            for ((_, call), (ranks, first, index)) in sites {
                let mut ranks = ranks.clone();
                ranks.sort_unstable();
                all.extend(ranks.iter().copied());
                name = call;
                ordered.push((ranks, call, *first, *index));
            }
            all.sort_unstable();
            by_signature.push((all, name));
        }
        ordered.sort_by_key(|g| g.0[0]);
        by_signature.sort_by_key(|g| g.0[0]);
        let mut locations: Vec<Location> = Vec::new();
        let mut notes = vec![Text::from(
            "all members of a communicator must call the same collective operations in the same order (MPI 4.1 §6.14)",
        )];
        let message;
        match problem {
            Problem::Mismatch(k) => {
                for (ranks, call, first, index) in &ordered {
                    let others: Vec<Text> = by_signature
                        .iter()
                        .filter(|(_, n)| n != call)
                        .map(|(r, n)| text!("{n} on {}", RankSet::from(r)))
                        .collect();
                    let event = &run.ranks[*first as usize].events[*index];
                    locations.push(event_location(
                        ctx,
                        ranks.clone(),
                        event,
                        text!(
                            "collective #{} on {comm_name} is {call} here but {}",
                            k + 1,
                            Text::join(others, " and ")
                        ),
                    ));
                }
                let parts: Vec<Text> = by_signature
                    .iter()
                    .map(|(r, n)| {
                        text!(
                            "{} {} {n}",
                            RankSet::from(r),
                            if r.len() == 1 { "calls" } else { "call" }
                        )
                    })
                    .collect();
                message = text!(
                    "collective mismatch on {comm_name}: {} at the same point",
                    Text::join(parts, " while ")
                );
                let classes: BTreeSet<u8> = groups.keys().map(|s| s.class).collect();
                if classes.len() > 1 {
                    notes.push(Text::from(
                        "a blocking, a nonblocking and a persistent collective never match each other (MPI 4.1 §6.12, §6.13)",
                    ));
                }
            }
            Problem::Missing(k) => {
                let info = &run.comms[comm as usize];
                let callers: BTreeSet<Rank> =
                    ordered.iter().flat_map(|g| g.0.iter().copied()).collect();
                let missing: Vec<Rank> = info
                    .members
                    .iter()
                    .copied()
                    .filter(|m| !callers.contains(m))
                    .collect();
                let call = by_signature.first().map_or("a collective", |g| g.1);
                for (ranks, _, first, index) in &ordered {
                    let event = &run.ranks[*first as usize].events[*index];
                    locations.push(event_location(
                        ctx,
                        ranks.clone(),
                        event,
                        text!(
                            "collective #{} on {comm_name}, which {} never {}",
                            k + 1,
                            RankSet::from(&missing),
                            if missing.len() == 1 { "calls" } else { "call" }
                        ),
                    ));
                }
                // Where the missing ranks finished instead, folded by site.
                let mut ends: BTreeMap<(u32, &'static str), (Vec<Rank>, Rank, usize)> =
                    BTreeMap::new();
                for &m in &missing {
                    let Some(trace) = run.ranks.get(m as usize) else {
                        continue;
                    };
                    if let Some((index, event)) = trace.events.iter().enumerate().next_back() {
                        ends.entry((event.site.0, event.call))
                            .or_insert((Vec::new(), m, index))
                            .0
                            .push(m);
                    }
                }
                for ((_, _), (ranks, first, index)) in ends {
                    let event = &run.ranks[first as usize].events[index];
                    locations.push(event_location(
                        ctx,
                        ranks,
                        event,
                        format!("finishes without calling {call}"),
                    ));
                }
                message = text!(
                    "collective mismatch on {comm_name}: {} never {} the {call} that {} {}",
                    RankSet::from(&missing),
                    if missing.len() == 1 { "calls" } else { "call" },
                    callers.iter().copied().collect::<RankSet>(),
                    if callers.len() == 1 { "calls" } else { "call" },
                );
            }
        }
        out.push(Diagnostic {
            code: CO001.code,
            category: CO001.category,
            severity: CO001.severity,
            message,
            locations,
            notes,
            help: Some(
                "make every rank of the communicator call the same collectives in the same order; use a duplicated communicator (MPI_Comm_dup) for operations that need a different order"
                    .into(),
            ),
            wait_for: None,
            communicator: Some(comm_name.clone()),
            tag: None,
        });
    }
    (out, comms)
}

/// CO001; the communicators it finds mismatched go to DL002.
pub(crate) struct CollectiveCallMismatch;

impl Check for CollectiveCallMismatch {
    fn infos(&self) -> &'static [CheckInfo] {
        &[CO001]
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
