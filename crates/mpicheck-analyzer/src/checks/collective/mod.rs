//! Consistency of collective calls across the members of a communicator (CO001–CO006,
//! TY001), after the MPE collective and datatype checking library: the same calls in the
//! same order (CO001), the same root, the same reduction operation, `MPI_IN_PLACE` on all
//! ranks or none, the same creation/topology/file arguments (CO002–CO005), split
//! collectives in order (CO006) and matching type signatures (TY001).
//!
//! They are one pass over the events ([`CollectivePass`]): the [`aligner`] lines up the
//! calls of a communicator's members and hands each position over once every member made
//! its call (or at the end, for positions some member never reached). CO002–CO005 and TY001
//! compare the calls at a position, and positions from the first call mismatch on are left
//! out, since their calls do not belong together; CO001 judges the calls themselves. Each
//! code keeps its own state and findings in its own file.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::pass::{EventKind, EventPass, Filled, RunTables, Wants};
use crate::checks::{collective_call, datatype, Check, Needs, Slot};
use crate::diagnostic::{CheckInfo, Diagnostic, Location};
use crate::model::{CommId, Event, Op, Rank};
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

pub mod aligner;
pub mod arguments;
pub mod file_order;
pub mod in_place;
pub mod op;
pub mod root;
#[cfg(test)]
mod tests;

use aligner::Aligner;
pub(crate) use aligner::{Call, Position};

/// The collective checks, one pass for every code.
pub(crate) struct CollectiveChecks;

impl Check for CollectiveChecks {
    fn infos(&self) -> &'static [CheckInfo] {
        &[
            collective_call::CO001,
            root::CO002,
            op::CO003,
            in_place::CO004,
            arguments::CO005,
            file_order::CO006,
            datatype::collective::TY001,
        ]
    }
    fn needs(&self) -> Needs {
        // CO001 and CO002: a deadlock on a mismatched communicator is their consequence.
        Needs {
            fills: &[Slot::MismatchedComms],
            ..Needs::NOTHING
        }
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<CollectivePass>::default())
    }
}

/// The aligner and each code's state.
#[derive(Default)]
pub(crate) struct CollectivePass {
    aligner: Aligner,
    /// The positions the last call completed (a buffer kept for the next call).
    done: Vec<Position>,
    /// Communicators whose positions ended at one whose callers made different calls.
    ended: FxHashSet<u32>,
    co001: collective_call::CallOrder,
    co002: root::Roots,
    co003: op::Ops,
    co004: in_place::InPlace,
    co005: arguments::Agreement,
    co006: file_order::SplitOrder,
    ty001: datatype::collective::Signatures,
}

impl CollectivePass {
    /// The communicators the aligner has a line for.
    #[cfg(test)]
    pub fn aligner_lines(&self) -> usize {
        self.aligner.lines()
    }

    /// The most calls the aligner held at once (measurements).
    #[cfg(test)]
    pub fn aligner_peak(&self) -> usize {
        self.aligner.peak()
    }

    /// A position of the aligned sequence, for the checks that compare its calls; false
    /// when the sequence ended before it.
    fn aligned(&mut self, position: &Position, tables: &RunTables) -> bool {
        if self.ended.contains(&position.comm.0) {
            return false;
        }
        if !position.same_call() {
            self.ended.insert(position.comm.0);
            return false;
        }
        self.co002.position(position, tables);
        self.co003.position(position, tables);
        self.co004.position(position, tables);
        self.co005.position(position, tables);
        self.ty001.position(position, tables);
        true
    }
}

impl EventPass for CollectivePass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        if !self.co006.idle() {
            self.co006.event(rank, event);
        }
        if let Op::Collective { .. } = event.op {
            self.collective(rank, index, event, tables);
        }
    }

    // (CO001's "finishes without calling" reads each rank's last event from the tables at
    // the end, and CO006 follows collective calls only.)
    fn wants(&self) -> Wants {
        Wants::only(&[EventKind::Collective])
    }

    fn scanned(&mut self, called: &[&str]) {
        self.co006.scanned(called);
    }

    fn comm_freed(&mut self, comm: CommId, _tables: &RunTables) {
        // Every position on it is complete and judged: the codes' per-communicator state
        // that only a later position or the end could use goes with the line.
        if self.aligner.freed(comm) {
            self.co002.freed(comm);
        }
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        self.finish_filling(tables, &mut Filled::default())
    }

    fn finish_filling(
        mut self: Box<Self>,
        tables: &RunTables,
        filled: &mut Filled,
    ) -> Vec<Diagnostic> {
        let rests = std::mem::take(&mut self.aligner).finish(tables);
        for rest in &rests {
            self.co001.rest(rest, tables);
            for position in rest.positions() {
                if !self.aligned(&position, tables) {
                    break;
                }
            }
        }
        let this = *self;
        let mut out = this.co001.finish(tables, &mut filled.mismatched_comms);
        out.extend(this.co002.finish(tables, &mut filled.mismatched_comms));
        out.extend(this.co003.finish(tables));
        out.extend(this.co004.finish(tables));
        out.extend(this.co005.finish(tables));
        out.extend(this.co006.finish(tables));
        out.extend(this.ty001.finish(tables));
        out
    }
}

impl CollectivePass {
    /// [`EventPass::event`] of a collective call: aligned with the other members' calls, and
    /// the positions it completes judged.
    #[inline(never)]
    fn collective(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        let Some((comm, call)) = Call::of(rank, index, event, tables) else {
            return;
        };
        self.co002.call(comm, &call);
        let mut done = std::mem::take(&mut self.done);
        self.aligner.add_into(comm, call, tables, &mut done);
        for position in done.drain(..) {
            self.co001.complete(&position, tables);
            self.aligned(&position, tables);
            self.aligner.recycle(position.calls);
        }
        self.done = done;
    }
}

/// Findings at positions, which complete in any order: handed out in the order of their
/// communicator ([`RunTables::comm_order`]) and position (and, at one position, as they were
/// found).
#[derive(Default)]
pub(crate) struct Findings(Vec<(CommId, usize, Diagnostic)>);

impl Findings {
    pub fn push(&mut self, position: &Position, finding: Diagnostic) {
        self.0.push((position.comm, position.k, finding));
    }

    /// Whether a finding is on `comm`.
    pub fn is_on(&self, comm: CommId) -> bool {
        self.0.iter().any(|(c, _, _)| *c == comm)
    }

    pub fn sorted(mut self, tables: &RunTables) -> impl Iterator<Item = (CommId, Diagnostic)> {
        self.0
            .sort_by_key(|(comm, k, _)| (tables.comm_order(*comm), *k));
        self.0.into_iter().map(|(comm, _, d)| (comm, d))
    }

    pub fn into_diagnostics(self, tables: &RunTables) -> Vec<Diagnostic> {
        self.sorted(tables).map(|(_, d)| d).collect()
    }
}

/// Whether the calls all passed the same value (or there are none): [`by_value`] would make
/// fewer than two groups.
pub(crate) fn all_same<V: PartialEq>(values: impl IntoIterator<Item = V>) -> bool {
    let mut values = values.into_iter();
    let Some(first) = values.next() else {
        return true;
    };
    values.all(|v| v == first)
}

/// The groups of calls that passed the same value, the most common first (ties: the group
/// with the lowest rank first).
pub(crate) fn by_value<'c, V: Ord + Clone>(
    calls: impl IntoIterator<Item = (V, &'c Call)>,
) -> Vec<(V, Vec<&'c Call>)> {
    let mut calls = calls.into_iter();
    let Some((first, call)) = calls.next() else {
        return Vec::new();
    };
    // The usual case first: every call passed the same value, one group (no map).
    let mut same = vec![call];
    let mut groups: BTreeMap<V, Vec<&Call>> = loop {
        match calls.next() {
            None => return vec![(first, same)],
            Some((v, c)) if v == first => same.push(c),
            Some((v, c)) => break BTreeMap::from([(first, same), (v, vec![c])]),
        }
    };
    for (v, c) in calls {
        groups.entry(v).or_default().push(c);
    }
    let mut out: Vec<(V, Vec<&Call>)> = groups.into_iter().collect();
    out.sort_by_key(|(_, calls)| {
        (
            std::cmp::Reverse(calls.len()),
            calls.iter().map(|c| c.rank).min(),
        )
    });
    out
}

/// Locations of a group of calls, one per call site, in the order of the lowest rank calling
/// there. (Not in the order of the sites' ids: a position is complete, and its findings made,
/// before the sites have their final ids, see [`RunTables::site_order`].)
pub(crate) fn group_locations(tables: &RunTables, calls: &[&Call], label: &Text) -> Vec<Location> {
    let mut sites: FxHashMap<(u32, &'static str), Vec<Rank>> = FxHashMap::default();
    for c in calls {
        sites.entry((c.site.0, c.call)).or_default().push(c.rank);
    }
    let mut sites: Vec<_> = sites
        .into_iter()
        .map(|(site, mut ranks)| {
            ranks.sort_unstable();
            (site, ranks)
        })
        .collect();
    sites.sort_unstable_by_key(|(_, ranks)| ranks[0]);
    sites
        .into_iter()
        .map(|((site, call), ranks)| {
            tables.location(crate::model::SiteId(site), ranks, call, label.clone())
        })
        .collect()
}

fn ranks_of(calls: &[&Call]) -> RankSet {
    calls.iter().map(|c| c.rank).collect()
}

fn verb(calls: &[&Call], one: &str, many: &str) -> String {
    if calls.len() == 1 {
        one.to_string()
    } else {
        many.to_string()
    }
}

/// A finding for a position whose callers passed different values of one argument:
/// `groups` as from [`by_value`] (the first is taken as what the others agree on), each
/// value already described (`root 0`, `MPI_SUM`).
pub(crate) fn disagreement(
    tables: &RunTables,
    info: &CheckInfo,
    position: &Position,
    what: &str,
    groups: &[(String, Vec<&Call>)],
    note: &str,
    help: &str,
) -> Diagnostic {
    let comm_name = tables
        .comm(position.comm)
        .map_or_else(String::new, |c| c.name.to_string());
    let call = position.call();
    let (reference, reference_calls) = &groups[0];
    let mut parts = Vec::new();
    let mut locations = Vec::new();
    for (value, calls) in &groups[1..] {
        parts.push(text!(
            "{} {} {value}",
            ranks_of(calls),
            verb(calls, "passes", "pass")
        ));
        locations.extend(group_locations(
            tables,
            calls,
            &text!(
                "{} {value} here; {} {} {reference}",
                verb(calls, "passes", "pass"),
                ranks_of(reference_calls),
                verb(reference_calls, "passes", "pass")
            ),
        ));
    }
    locations.extend(group_locations(
        tables,
        reference_calls,
        &text!("{} {reference}", verb(reference_calls, "passes", "pass")),
    ));
    Diagnostic {
        code: info.code,
        category: info.category,
        severity: info.severity,
        message: text!(
            "{what} mismatch in {call} (collective #{} on {comm_name}): {} while {} {} {reference}",
            position.k + 1,
            Text::join(parts, " and "),
            ranks_of(reference_calls),
            verb(reference_calls, "passes", "pass"),
        ),
        locations,
        notes: vec![note.into()],
        help: Some(help.into()),
        wait_for: None,
        communicator: Some(comm_name.clone()),
        tag: None,
    }
}
