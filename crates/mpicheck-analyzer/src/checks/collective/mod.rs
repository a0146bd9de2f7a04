//! Consistency of the arguments of collective calls across the members of a communicator
//! (CO002–CO005), after the MPE collective and datatype checking library: the same root, the
//! same reduction operation, `MPI_IN_PLACE` on all ranks or none, and the same
//! creation/topology/file arguments.
//!
//! All of them compare the calls at the same position of a communicator's collective
//! sequence ([`aligned`]); positions from the first call mismatch on (CO001) are left out,
//! since their calls do not belong together.

use std::collections::BTreeMap;

use super::{event_location, Context};
use crate::diagnostic::{CheckInfo, Diagnostic, Location};
use crate::model::{CollectiveArgs, CommId, Event, Op, Rank, Run};
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

pub mod arguments;
pub mod file_order;
pub mod in_place;
pub mod op;
pub mod root;

/// One collective call of one rank at a position.
#[derive(Clone, Copy)]
pub(crate) struct Call<'r> {
    pub rank: Rank,
    pub event: &'r Event,
    pub args: Option<&'r CollectiveArgs>,
}

impl Call<'_> {
    pub fn root(&self) -> Option<i32> {
        match &self.event.op {
            Op::Collective { root, .. } => *root,
            _ => None,
        }
    }
}

/// The calls of the members of a communicator at the same position of its collective
/// sequence.
pub(crate) struct Position<'r> {
    pub comm: CommId,
    /// 0-based position on the communicator.
    pub k: usize,
    pub calls: Vec<Call<'r>>,
}

impl Position<'_> {
    /// The call's name, without the large-count suffix.
    pub fn call(&self) -> &'static str {
        let c = self.calls[0].event.call;
        c.strip_suffix("_c").unwrap_or(c)
    }
}

/// `MPI_Bcast_c` is `MPI_Bcast`.
fn same_call(a: &Event, b: &Event) -> bool {
    let strip = |c: &'static str| c.strip_suffix("_c").unwrap_or(c);
    strip(a.call) == strip(b.call)
}

/// Every position of every communicator's collective sequence where all callers made the
/// same call, in order, up to the first position where they do not.
pub(crate) fn aligned(run: &Run) -> Vec<Position<'_>> {
    // comm → rank → its collective events on it, in order.
    let mut per_comm: BTreeMap<u32, BTreeMap<Rank, Vec<usize>>> = BTreeMap::new();
    for trace in &run.ranks {
        for (index, event) in trace.events.iter().enumerate() {
            if let Op::Collective { comm, .. } = &event.op {
                per_comm
                    .entry(comm.0)
                    .or_default()
                    .entry(trace.rank)
                    .or_default()
                    .push(index);
            }
        }
    }
    let mut out = Vec::new();
    for (comm, ranks) in per_comm {
        let longest = ranks.values().map(Vec::len).max().unwrap_or(0);
        for k in 0..longest {
            let calls: Vec<Call> = ranks
                .iter()
                .filter_map(|(&rank, events)| {
                    let index = *events.get(k)?;
                    Some(Call {
                        rank,
                        event: &run.ranks[rank as usize].events[index],
                        args: run.collective_args_of(rank, index as u32),
                    })
                })
                .collect();
            if calls.iter().any(|c| !same_call(c.event, calls[0].event)) {
                break;
            }
            out.push(Position {
                comm: CommId(comm),
                k,
                calls,
            });
        }
    }
    out
}

/// The groups of calls that passed the same value, the most common first (ties: the group
/// with the lowest rank first).
pub(crate) fn by_value<'r, V: Ord + Clone>(
    calls: impl IntoIterator<Item = (V, Call<'r>)>,
) -> Vec<(V, Vec<Call<'r>>)> {
    let mut groups: BTreeMap<V, Vec<Call>> = BTreeMap::new();
    for (v, c) in calls {
        groups.entry(v).or_default().push(c);
    }
    let mut out: Vec<(V, Vec<Call>)> = groups.into_iter().collect();
    out.sort_by_key(|(_, calls)| {
        (
            std::cmp::Reverse(calls.len()),
            calls.iter().map(|c| c.rank).min(),
        )
    });
    out
}

/// Locations of a group of calls, one per call site.
pub(crate) fn group_locations(ctx: &Context, calls: &[Call], label: &Text) -> Vec<Location> {
    let mut sites: BTreeMap<(u32, &'static str), (Vec<Rank>, Call)> = BTreeMap::new();
    for c in calls {
        sites
            .entry((c.event.site.0, c.event.call))
            .or_insert((Vec::new(), *c))
            .0
            .push(c.rank);
    }
    sites
        .into_values()
        .map(|(mut ranks, first)| {
            ranks.sort_unstable();
            event_location(ctx, ranks, first.event, label.clone())
        })
        .collect()
}

fn ranks_of(calls: &[Call]) -> RankSet {
    calls.iter().map(|c| c.rank).collect()
}

fn verb(calls: &[Call], one: &str, many: &str) -> String {
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
    ctx: &Context,
    info: &CheckInfo,
    position: &Position,
    what: &str,
    groups: &[(String, Vec<Call>)],
    note: &str,
    help: &str,
) -> Diagnostic {
    let comm_name = ctx.run.comm(position.comm).name.clone();
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
            ctx,
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
        ctx,
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
