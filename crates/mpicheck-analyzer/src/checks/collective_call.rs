//! Collective call mismatches (CO001): ranks of a communicator calling different
//! collectives at the same position, or a collective some rank never calls.

use std::collections::{BTreeMap, BTreeSet};

use super::collective::aligner::Rest;
use super::collective::{Call, Position};
use super::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::{CollectiveKind, CommId, CommInfo, Op, Rank, RankEnd, SiteId};
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

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

fn signature(call: &Call) -> Signature {
    Signature {
        class: call.class,
        kind: crate::engine::kind_index(call.kind),
        name: if call.kind == CollectiveKind::Management {
            call.call
        } else {
            ""
        },
    }
}

/// The first problem of a communicator: at which position, and the calls made there.
enum Problem {
    Mismatch(usize),
    Missing(usize),
}

/// CO001's state: the first problem of each communicator with the calls at it. (Where a
/// rank that never makes a collective finished instead is its last event, which the
/// tables hold at the end: [`RunTables::last_event`].)
#[derive(Default)]
pub(crate) struct CallOrder {
    problems: BTreeMap<u32, (Problem, Vec<Call>)>,
}

/// The communicators CO001 judges: intracommunicators whose members are known.
fn judged<'t>(tables: &RunTables<'t>, comm: CommId) -> Option<&'t CommInfo> {
    tables
        .comm(comm)
        .filter(|info| !info.members.is_empty() && info.remote.is_none())
}

fn signatures_differ(position: &Position) -> bool {
    let first = signature(&position.calls[0]);
    position.calls.iter().any(|c| signature(c) != first)
}

impl CallOrder {
    /// A position every member made its call at.
    pub fn complete(&mut self, position: &Position, tables: &RunTables) {
        if self.problems.contains_key(&position.comm.0) || judged(tables, position.comm).is_none() {
            return;
        }
        if signatures_differ(position) {
            self.problems.insert(
                position.comm.0,
                (Problem::Mismatch(position.k), position.calls.clone()),
            );
        }
    }

    /// A rank that will never call anything again.
    fn finished(&self, tables: &RunTables, rank: Rank) -> bool {
        tables.rank_end(rank).is_some_and(|end| {
            matches!(end, RankEnd::Finalized | RankEnd::ExitedWithoutFinalize)
                || tables
                    .last_event(rank)
                    .is_some_and(|e| matches!(e.op, Op::Finalize))
        })
    }

    /// The positions of a communicator that some member never reached, at the end.
    pub fn rest(&mut self, rest: &Rest, tables: &RunTables) {
        if self.problems.contains_key(&rest.comm.0) {
            return;
        }
        let Some(info) = judged(tables, rest.comm) else {
            return;
        };
        let n = info.members.len();
        let mut judge_missing = true;
        for position in rest.positions() {
            let k = position.k;
            if signatures_differ(&position) {
                self.problems
                    .insert(rest.comm.0, (Problem::Mismatch(k), position.calls));
                return;
            }
            if judge_missing && position.calls.len() < n {
                let non_callers_finished = info
                    .members
                    .iter()
                    .all(|&m| rest.made(m) > k || self.finished(tables, m));
                if non_callers_finished {
                    self.problems
                        .insert(rest.comm.0, (Problem::Missing(k), position.calls));
                    return;
                }
                // A member that has not got this far yet (still blocked elsewhere) may call
                // it later: only mismatches among the callers can be judged from here on.
                judge_missing = false;
            }
        }
    }

    /// CO001 findings; the communicators they are on go to `comms`.
    pub fn finish(mut self, tables: &RunTables, comms: &mut BTreeSet<CommId>) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut problems: Vec<_> = std::mem::take(&mut self.problems).into_iter().collect();
        problems.sort_by_key(|(comm, _)| tables.comm_order(CommId(*comm)));
        for (comm, (problem, calls)) in problems {
            let Some(info) = tables.comm(CommId(comm)) else {
                continue;
            };
            // signature → (site, call) → ranks
            type Groups = BTreeMap<Signature, BTreeMap<(u32, &'static str), Vec<Rank>>>;
            let mut groups: Groups = BTreeMap::new();
            for c in &calls {
                groups
                    .entry(signature(c))
                    .or_default()
                    .entry((c.site.0, c.call))
                    .or_default()
                    .push(c.rank);
            }
            out.push(self.diagnostic(tables, info, problem, &groups));
            comms.insert(CommId(comm));
        }
        out
    }

    fn diagnostic(
        &self,
        tables: &RunTables,
        info: &CommInfo,
        problem: Problem,
        groups: &BTreeMap<Signature, BTreeMap<(u32, &'static str), Vec<Rank>>>,
    ) -> Diagnostic {
        let comm_name = info.name.to_string();
        // Groups in order of their lowest rank.
        let mut ordered: Vec<(Vec<Rank>, &'static str, SiteId)> = Vec::new();
        let mut by_signature: Vec<(Vec<Rank>, &'static str)> = Vec::new();
        for sites in groups.values() {
            let mut all = Vec::new();
            let mut name = "";
            for ((site, call), ranks) in sites {
                let mut ranks = ranks.clone();
                ranks.sort_unstable();
                all.extend(ranks.iter().copied());
                name = call;
                ordered.push((ranks, call, SiteId(*site)));
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
                for (ranks, call, site) in &ordered {
                    let others: Vec<Text> = by_signature
                        .iter()
                        .filter(|(_, n)| n != call)
                        .map(|(r, n)| text!("{n} on {}", RankSet::from(r)))
                        .collect();
                    locations.push(tables.location(
                        *site,
                        ranks.clone(),
                        call,
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
                let callers: BTreeSet<Rank> =
                    ordered.iter().flat_map(|g| g.0.iter().copied()).collect();
                let missing: Vec<Rank> = info
                    .members
                    .iter()
                    .copied()
                    .filter(|m| !callers.contains(m))
                    .collect();
                let call = by_signature.first().map_or("a collective", |g| g.1);
                for (ranks, call, site) in &ordered {
                    locations.push(tables.location(
                        *site,
                        ranks.clone(),
                        call,
                        text!(
                            "collective #{} on {comm_name}, which {} never {}",
                            k + 1,
                            RankSet::from(&missing),
                            if missing.len() == 1 { "calls" } else { "call" }
                        ),
                    ));
                }
                // Where the missing ranks finished instead, folded by site.
                let mut ends: BTreeMap<(u32, &'static str), Vec<Rank>> = BTreeMap::new();
                for &m in &missing {
                    if tables.rank_end(m).is_none() {
                        continue;
                    }
                    if let Some(last) = tables.last_event(m) {
                        ends.entry((last.site.0, last.call)).or_default().push(m);
                    }
                }
                let mut ends: Vec<_> = ends.into_iter().collect();
                ends.sort_by_key(|((site, _), _)| tables.site_order(SiteId(*site)));
                for ((site, end_call), ranks) in ends {
                    locations.push(tables.location(
                        SiteId(site),
                        ranks,
                        end_call,
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
        Diagnostic {
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
        }
    }
}
