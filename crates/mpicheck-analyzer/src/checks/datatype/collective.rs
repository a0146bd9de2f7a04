//! TY001: the type signatures of a collective call do not match between senders and
//! receivers.

use std::collections::{BTreeMap, HashSet};

use super::{compare, fold, BadPair};
use crate::checks::collective::{all_same, by_value, group_locations, Call, Findings, Position};
use crate::checks::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::{BufSpec, CollectiveKind, CommInfo, Rank, TypeId};
use crate::text;
use crate::text::{ranks, Text};
use crate::typesig::{same_typed, Typed};

pub const TY001: CheckInfo = CheckInfo {
    code: "TY001",
    name: "collective-type-mismatch",
    category: Category::TypeMismatch,
    severity: Severity::Error,
    summary: "the type signature a rank sends in a collective does not match what the receiving rank expects",
    docs: r#"## What it does

For every data-moving collective, pairs each sender with each receiver as the collective's
pattern prescribes and compares the type signature of what is sent (`count × datatype`,
derived types reduced to their sequence of basic types) with what the receiver expects:

- `MPI_Bcast`: the root's signature with every rank's; the reductions (`MPI_Reduce`,
  `MPI_Allreduce`, `MPI_Scan`, `MPI_Exscan`, `MPI_Reduce_scatter(_block)`): every rank's
  with the others' (and the `recvcounts` of `MPI_Reduce_scatter`);
- `MPI_Gather(v)` / `MPI_Scatter(v)`: each rank's send (receive) with the root's receive
  (send) for that rank, per rank for the `v` variants;
- `MPI_Allgather(v)`, `MPI_Alltoall(v/w)`: every sender with every receiver, per pair for the
  `v`/`w` variants;
- the neighborhood collectives (`MPI_Neighbor_allgather(v)`, `MPI_Neighbor_alltoall(v/w)`)
  on cartesian, graph and adjacent distributed-graph topologies: each rank's send to each
  destination neighbor with that neighbor's receive from it.

Signatures are compared by hash ([`typesig`](crate::typesig)): equal signatures built
differently (4 × `MPI_INT`, a contiguous type of 4 `MPI_INT`, a vector of 2 × 2 `MPI_INT`)
match; `MPI_PACKED` matches anything. The finding says what each side passed, e.g.
"rank 3 sends 4 × MPI_INT, rank 0 expects 16 × MPI_BYTE".

## Why is this bad

Collectives require "the amount of data sent must be equal to the amount of data received,
pairwise between each process and the root" and matching type signatures. A mismatch
truncates, reads garbage or hangs, and many implementations do not detect it at all (an
`MPI_INT` received as 4 `MPI_BYTE` passes silently on MPICH).

## Example

```c
/* ranks 0-2 broadcast an int; rank 3 receives it as a byte */
MPI_Bcast(&x, 1, rank == 3 ? MPI_BYTE : MPI_INT, 0, MPI_COMM_WORLD);
```

## How to fix

Use matching counts and datatypes on all ranks; for the `v`/`w` variants, make the root's
counts for each rank equal to that rank's own count.

## MPI standard reference

MPI 4.1 §6.1 ("the type signature associated with sendcount, sendtype at a process must be
equal to the type signature associated with recvcount, recvtype at the root"), §6.4–§6.11,
§3.3.1 (type matching), §5.1.4 (type signatures).
"#,
};

/// `count` elements of `spec`'s datatype, if its layout is known.
fn typed<'t>(tables: &RunTables<'t>, spec: &BufSpec) -> Option<Typed<'t>> {
    tables.typed(spec.count, spec.datatype)
}

/// `count` elements of `datatype`, if its layout is known.
fn typed_of<'t>(tables: &RunTables<'t>, count: i64, datatype: TypeId) -> Option<Typed<'t>> {
    tables.typed(count, Some(datatype))
}

/// Whether every one of `typed` is the same count of the same datatype, so that each fits
/// each ([`same_typed`]).
fn all_same_typed<'t>(typed: impl IntoIterator<Item = Typed<'t>>) -> bool {
    let mut typed = typed.into_iter();
    let Some(first) = typed.next() else {
        return true;
    };
    typed.all(|t| same_typed(&first, &t))
}

/// The sender→receiver pairs of one collective call that do not fit.
fn bad_pairs(
    kind: CollectiveKind,
    info: &CommInfo,
    calls: &[Call],
    tables: &RunTables,
) -> Vec<BadPair> {
    use CollectiveKind::*;
    let run = tables;
    // (Made by the kinds that pair by communicator rank, not for every position.)
    let comm_ranks = || -> BTreeMap<u32, &Call> {
        calls
            .iter()
            .filter_map(|c| Some((info.rank_of(c.rank)?, c)))
            .collect()
    };
    let send = |c: &Call| c.args().and_then(|a| a.send).and_then(|s| typed(run, &s));
    let recv = |c: &Call| c.args().and_then(|a| a.recv).and_then(|s| typed(run, &s));
    // The send of a rank that passed MPI_IN_PLACE is its own receive spec.
    let send_or_own = |c: &Call| {
        if c.args().is_some_and(|a| a.in_place) {
            recv(c)
        } else {
            send(c)
        }
    };
    let root = || -> Option<&Call> {
        let r = calls.first()?.root();
        if !all_same(calls.iter().map(Call::root)) {
            return None; // CO002 reports it
        }
        let r = u32::try_from(r?).ok()?;
        // (The last with that communicator rank, as a map by it keeps.)
        calls.iter().rfind(|c| info.rank_of(c.rank) == Some(r))
    };
    let in_place = |c: &Call| c.args().is_some_and(|a| a.in_place);
    let mut out = Vec::new();
    match kind {
        Bcast => {
            let Some(root) = root() else { return out };
            let Some(s) = send(root) else { return out };
            for c in calls.iter().filter(|c| c.rank != root.rank) {
                if let Some(r) = send(c) {
                    out.extend(compare(root.rank, &s, c.rank, &r, true));
                }
            }
        }
        Reduce | Allreduce | Scan | Exscan | ReduceScatterBlock | ReduceScatter => {
            // Every rank's signature must equal the others': compare with the most common.
            // The usual case first: every rank sends the same count of the same datatype.
            if all_same_typed(calls.iter().filter_map(send)) {
                return out;
            }
            // (Grouped by the signature's hashes and length, which determine it, rather than
            // by its text: this runs for every reduction of the run.)
            let specs: Vec<((u64, u64, u64), &Call, Typed)> = calls
                .iter()
                .filter_map(|c| {
                    let t = send(c)?;
                    let s = t.signature();
                    Some(((s.rotxor, s.poly, s.elements), c, t))
                })
                .collect();
            let groups = by_value(specs.iter().map(|(k, c, _)| (*k, *c)));
            if groups.len() > 1 {
                let reference = &groups[0].1[0];
                let rt = specs
                    .iter()
                    .find(|(_, c, _)| c.rank == reference.rank)
                    .map(|(_, _, t)| t.clone());
                if let Some(rt) = rt {
                    for (_, c, t) in &specs {
                        out.extend(compare(c.rank, t, reference.rank, &rt, true));
                    }
                }
            }
        }
        Gather | Gatherv => {
            let Some(root) = root() else { return out };
            let root_recv = root.args().and_then(|a| a.recv);
            let root_counts = root.args().and_then(|a| a.recv_counts.as_ref());
            for (&cr, c) in &comm_ranks() {
                if c.rank == root.rank && in_place(c) {
                    continue;
                }
                let Some(s) = send(c) else { continue };
                let expected = match (kind, root_recv, root_counts) {
                    (Gather, Some(r), _) => typed(run, &r),
                    (Gatherv, Some(r), Some(counts)) => counts
                        .get(cr as usize)
                        .and_then(|&n| typed_of(run, n, r.datatype?)),
                    _ => None,
                };
                if let Some(r) = expected {
                    out.extend(compare(c.rank, &s, root.rank, &r, true));
                }
            }
        }
        Scatter | Scatterv => {
            let Some(root) = root() else { return out };
            let root_send = root.args().and_then(|a| a.send);
            let root_counts = root.args().and_then(|a| a.send_counts.as_ref());
            for (&cr, c) in &comm_ranks() {
                if c.rank == root.rank && in_place(c) {
                    continue;
                }
                let Some(r) = recv(c) else { continue };
                let sent = match (kind, root_send, root_counts) {
                    (Scatter, Some(s), _) => typed(run, &s),
                    (Scatterv, Some(s), Some(counts)) => counts
                        .get(cr as usize)
                        .and_then(|&n| typed_of(run, n, s.datatype?)),
                    _ => None,
                };
                if let Some(s) = sent {
                    out.extend(compare(root.rank, &s, c.rank, &r, true));
                }
            }
        }
        Allgather | Alltoall => {
            // The usual case first: every rank sends and receives the same count of the same
            // datatype.
            if all_same_typed(
                calls
                    .iter()
                    .flat_map(|c| [send_or_own(c), recv(c)])
                    .flatten(),
            ) {
                return out;
            }
            // Uniform: every sender's spec against every receiver's; compare distinct specs
            // once each.
            let mut senders: BTreeMap<String, (Typed, Vec<Rank>)> = BTreeMap::new();
            let mut receivers: BTreeMap<String, (Typed, Vec<Rank>)> = BTreeMap::new();
            for c in calls {
                if let Some(s) = send_or_own(c) {
                    senders
                        .entry(format!("{s}{:?}", s.signature()))
                        .or_insert((s, Vec::new()))
                        .1
                        .push(c.rank);
                }
                if let Some(r) = recv(c) {
                    receivers
                        .entry(format!("{r}{:?}", r.signature()))
                        .or_insert((r, Vec::new()))
                        .1
                        .push(c.rank);
                }
            }
            for (s, s_ranks) in senders.values() {
                for (r, r_ranks) in receivers.values() {
                    if let Some(first) = compare(s_ranks[0], s, r_ranks[0], r, true) {
                        for &a in s_ranks {
                            for &b in r_ranks {
                                out.push(BadPair {
                                    sender: a,
                                    receiver: b,
                                    sent: first.sent.clone(),
                                    expected: first.expected.clone(),
                                    why: first.why.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
        Allgatherv => {
            let by_comm_rank = comm_ranks();
            for (&i, ci) in &by_comm_rank {
                let Some(a) = ci.args() else { continue };
                let (Some(r), Some(counts)) = (a.recv, a.recv_counts.as_ref()) else {
                    continue;
                };
                for (&j, cj) in &by_comm_rank {
                    let own = cj.args().is_some_and(|a| a.in_place);
                    if own && i == j {
                        continue;
                    }
                    let sent = if own {
                        // In place: rank j contributes recvcounts[j] of its recvtype.
                        cj.args().and_then(|a| {
                            let n = *a.recv_counts.as_ref()?.get(j as usize)?;
                            typed_of(run, n, a.recv?.datatype?)
                        })
                    } else {
                        send(cj)
                    };
                    let expected = counts
                        .get(j as usize)
                        .and_then(|&n| typed_of(run, n, r.datatype?));
                    if let (Some(s), Some(e)) = (sent, expected) {
                        out.extend(compare(cj.rank, &s, ci.rank, &e, true));
                    }
                }
            }
        }
        Alltoallv | Alltoallw => {
            // What rank j sends to comm rank i, and what rank i expects from comm rank j.
            let side = |c: &Call, peer: u32, sending: bool| -> Option<Typed> {
                let a = c.args()?;
                let (spec, counts, types) = if sending && !a.in_place {
                    (a.send, a.send_counts.as_ref(), a.send_types.as_ref())
                } else {
                    (a.recv, a.recv_counts.as_ref(), a.recv_types.as_ref())
                };
                let n = *counts?.get(peer as usize)?;
                let datatype = match types {
                    Some(t) => (*t.get(peer as usize)?)?,
                    None => spec?.datatype?,
                };
                typed_of(run, n, datatype)
            };
            let by_comm_rank = comm_ranks();
            for (&i, ci) in &by_comm_rank {
                for (&j, cj) in &by_comm_rank {
                    if i == j && in_place(ci) {
                        continue;
                    }
                    if let (Some(s), Some(e)) = (side(cj, i, true), side(ci, j, false)) {
                        out.extend(compare(cj.rank, &s, ci.rank, &e, true));
                    }
                }
            }
        }
        NeighborAllgather | NeighborAllgatherv | NeighborAlltoall | NeighborAlltoallv
        | NeighborAlltoallw => {
            let by_rank: BTreeMap<Rank, &Call> = calls.iter().map(|c| (c.rank, c)).collect();
            // The k-th occurrence of `peer` in a neighbor list (multigraphs).
            let nth = |list: &[Option<Rank>], peer: Rank, k: usize| -> Option<usize> {
                list.iter()
                    .enumerate()
                    .filter(|(_, r)| **r == Some(peer))
                    .nth(k)
                    .map(|(i, _)| i)
            };
            for ci in calls {
                let Some(a) = ci.args() else { continue };
                let Some(outs) = a.out_neighbors.as_ref() else {
                    continue;
                };
                for (p, j) in outs.iter().enumerate() {
                    let Some(j) = *j else { continue };
                    let Some(cj) = by_rank.get(&j) else { continue };
                    let Some(b) = cj.args() else { continue };
                    let Some(ins) = b.in_neighbors.as_ref() else {
                        continue;
                    };
                    let k = outs[..p].iter().filter(|r| **r == Some(j)).count();
                    let Some(q) = nth(ins, ci.rank, k) else {
                        continue;
                    };
                    let sent = match kind {
                        NeighborAllgather | NeighborAllgatherv | NeighborAlltoall => send(ci),
                        NeighborAlltoallv => a
                            .send_counts
                            .as_ref()
                            .and_then(|c| typed_of(run, *c.get(p)?, a.send?.datatype?)),
                        _ => a.send_counts.as_ref().and_then(|c| {
                            typed_of(run, *c.get(p)?, (*a.send_types.as_ref()?.get(p)?)?)
                        }),
                    };
                    let expected = match kind {
                        NeighborAllgather | NeighborAlltoall => recv(cj),
                        NeighborAllgatherv | NeighborAlltoallv => b
                            .recv_counts
                            .as_ref()
                            .and_then(|c| typed_of(run, *c.get(q)?, b.recv?.datatype?)),
                        _ => b.recv_counts.as_ref().and_then(|c| {
                            typed_of(run, *c.get(q)?, (*b.recv_types.as_ref()?.get(q)?)?)
                        }),
                    };
                    if let (Some(s), Some(e)) = (sent, expected) {
                        out.extend(compare(ci.rank, &s, cj.rank, &e, true));
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// `recvcounts` of `MPI_Reduce_scatter` must be identical on all ranks.
fn reduce_scatter_counts(tables: &RunTables, position: &Position) -> Option<Diagnostic> {
    let groups = by_value(position.calls.iter().filter_map(|c| {
        let counts = c.args()?.recv_counts.clone()?;
        Some((format!("recvcounts {counts:?}"), c))
    }));
    if groups.len() < 2 {
        return None;
    }
    Some(crate::checks::collective::disagreement(
        tables,
        &TY001,
        position,
        "recvcounts",
        &groups,
        "the recvcounts array of MPI_Reduce_scatter must be identical on all processes (MPI 4.1 §6.10.1)",
        "pass the same recvcounts on every rank",
    ))
}

/// TY001's findings.
#[derive(Default)]
pub(crate) struct Signatures {
    found: Findings,
}

impl Signatures {
    /// The findings, the first of each message.
    pub fn finish(self, tables: &RunTables) -> Vec<Diagnostic> {
        let mut seen: HashSet<String> = HashSet::new();
        self.found
            .into_diagnostics(tables)
            .into_iter()
            .filter(|d| seen.insert(d.message.to_string()))
            .collect()
    }

    /// A position of the aligned sequence.
    pub fn position(&mut self, position: &Position, tables: &RunTables) {
        if let Some(d) = check(tables, position) {
            self.found.push(position, d);
        }
    }
}

fn check(tables: &RunTables, position: &Position) -> Option<Diagnostic> {
    let run = tables;
    let kind = &position.calls[0].kind;
    let info = tables.comm(position.comm)?;
    if info.remote.is_some() || info.members.is_empty() {
        return None;
    }
    if *kind == CollectiveKind::ReduceScatter {
        if let Some(d) = reduce_scatter_counts(tables, position) {
            return Some(d);
        }
    }
    let pairs = bad_pairs(*kind, info, &position.calls, tables);
    if pairs.is_empty() {
        return None;
    }
    let call = position.call();
    let folded = fold(pairs);
    let mut lines = Vec::new();
    let mut locations: Vec<Location> = Vec::new();
    let calls_of = |ranks: &[Rank]| -> Vec<&Call> {
        position
            .calls
            .iter()
            .filter(|c| ranks.contains(&c.rank))
            .collect()
    };
    // How many ranks pass each spec: the side whose spec is rarer disagrees with the
    // others and goes first.
    let mut spec_counts: std::collections::HashMap<String, usize> = Default::default();
    for c in &position.calls {
        if let Some(a) = c.args() {
            for spec in [a.send, a.recv].into_iter().flatten() {
                if let Some(t) = typed(run, &spec) {
                    *spec_counts.entry(t.to_string()).or_insert(0) += 1;
                }
            }
        }
    }
    let mut minority: Vec<Location> = Vec::new();
    let mut majority: Vec<Location> = Vec::new();
    for (sent, expected, why, senders, receivers) in &folded {
        let s_verb = if senders.len() == 1 { "sends" } else { "send" };
        let r_verb = if receivers.len() == 1 {
            "expects"
        } else {
            "expect"
        };
        lines.push(text!(
            "{} {s_verb} {sent}, {} {r_verb} {expected}",
            ranks(senders),
            ranks(receivers)
        ));
        let s_locs = group_locations(
            tables,
            &calls_of(senders),
            &text!("{s_verb} {sent} to {}; {why}", ranks(receivers)),
        );
        let r_locs = group_locations(
            tables,
            &calls_of(receivers),
            &text!("{r_verb} {expected} from {}", ranks(senders)),
        );
        // The side with fewer ranks is the one that disagrees with the others.
        let count = |spec: &String| spec_counts.get(spec).copied().unwrap_or(0);
        if (count(sent), senders.len()) <= (count(expected), receivers.len()) {
            minority.extend(s_locs);
            majority.extend(r_locs);
        } else {
            minority.extend(r_locs);
            majority.extend(s_locs);
        }
    }
    for l in minority.into_iter().chain(majority) {
        if !locations
            .iter()
            .any(|x| x.ranks == l.ranks && x.line == l.line && x.file == l.file)
        {
            locations.push(l);
        }
    }
    let detail = folded
        .first()
        .map(|(_, _, why, _, _)| why.to_string())
        .unwrap_or_default();
    let message = text!(
        "type signature mismatch in {call} (collective #{} on {}): {} ({detail})",
        position.k + 1,
        &*info.name,
        Text::join(lines, "; ")
    );
    Some(Diagnostic {
        code: TY001.code,
        category: TY001.category,
        severity: TY001.severity,
        message,
        locations,
        notes: vec![
            "the type signature each process sends in a collective must equal the one its receiver expects (MPI 4.1 §6.1, §3.3.1)".into(),
        ],
        help: Some(
            "use matching counts and datatypes on all ranks (the per-rank counts of the root for the v variants)"
                .into(),
        ),
        wait_for: None,
        communicator: Some(info.name.to_string()),
        tag: None,
    })
}
