//! Lines up the collective calls of a communicator's members while the events stream
//! (issue 14): the k-th collective call of every member on a communicator belongs to the
//! same collective operation, its k-th *position*.
//!
//! The aligner holds, per communicator, each member's calls that not every member has made
//! yet, as owned [`Call`]s (never events). When every member of the communicator's group
//! (both groups of an intercommunicator) has made its k-th call, position k is complete:
//! [`Aligner::add`] returns it and forgets it. At the end, the positions some member never
//! reached (it died, hung or skipped the call) are left: [`Aligner::finish`] returns them
//! with every rank's count of calls per communicator.
//!
//! While the ranks' events come interleaved, what is held is bounded by how far the ranks
//! run ahead of each other; fed rank after rank, the whole first rank is held until the
//! others catch up. A communicator whose group is unknown (its creation was not recorded)
//! never completes a position and is held to the end; so are the positions of a
//! communicator after a rank outside its group called a collective on it, since that call
//! belongs to a position too.
//!
//! A communicator every member freed ([`Aligner::freed`]) gets no more calls: its line goes
//! when no call is held on it (every position complete), since what [`Aligner::finish`]
//! would return for it then has no position left. A line with calls held stays, for the
//! end to report.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::checks::pass::RunTables;
use crate::model::{Blocking, CollectiveArgs, CollectiveKind, CommId, Event, Op, Rank, SiteId};

/// One collective call of one rank: what the collective checks compare.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub rank: Rank,
    pub site: SiteId,
    /// The MPI function as called (`MPI_Bcast_c`).
    pub call: &'static str,
    pub kind: CollectiveKind,
    /// 0 blocking, 1 nonblocking, 2 persistent.
    pub class: u8,
    /// The root as a communicator rank, for rooted collectives.
    pub root: Option<i32>,
    pub args: Option<Arc<CollectiveArgs>>,
}

impl Call {
    /// The call `index` of `rank`, if it is a collective; and its communicator.
    pub fn of(
        rank: Rank,
        index: usize,
        event: &Event,
        tables: &RunTables,
    ) -> Option<(CommId, Call)> {
        let Op::Collective {
            kind,
            comm,
            root,
            blocking,
        } = &event.op
        else {
            return None;
        };
        Some((
            *comm,
            Call {
                rank,
                site: event.site,
                call: event.call,
                kind: *kind,
                class: match blocking {
                    Blocking::Blocking => 0,
                    Blocking::Nonblocking(_) => 1,
                    Blocking::Persistent(_) => 2,
                },
                root: *root,
                args: tables.collective_args(rank, index).cloned(),
            },
        ))
    }

    pub fn root(&self) -> Option<i32> {
        self.root
    }

    pub fn args(&self) -> Option<&CollectiveArgs> {
        self.args.as_deref()
    }

    /// The call's name without the large-count suffix: `MPI_Bcast_c` is `MPI_Bcast`.
    pub fn base_name(&self) -> &'static str {
        self.call.strip_suffix("_c").unwrap_or(self.call)
    }
}

/// The calls of a communicator's members at the same position of its collective sequence,
/// in rank order.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub comm: CommId,
    /// 0-based position on the communicator.
    pub k: usize,
    pub calls: Vec<Call>,
}

impl Position {
    /// The call's name, without the large-count suffix.
    pub fn call(&self) -> &'static str {
        self.calls[0].base_name()
    }

    /// Whether every caller made the same call (`MPI_Bcast_c` is `MPI_Bcast`).
    pub fn same_call(&self) -> bool {
        let first = self.call();
        // (The same name, interned, is the same address: compared as text only otherwise.)
        self.calls
            .iter()
            .all(|c| std::ptr::eq(c.call, self.calls[0].call) || c.base_name() == first)
    }
}

/// A member's calls on one communicator.
#[derive(Default)]
struct Member {
    /// Its collective calls on the communicator so far.
    made: usize,
    /// The ones at positions not yet complete, from the communicator's first open position.
    open: VecDeque<Call>,
}

/// One communicator's positions not yet complete.
struct Line {
    /// World ranks of the group (both groups of an intercommunicator), sorted; empty when
    /// unknown.
    group: Vec<Rank>,
    /// A rank outside the group called on it: positions complete only at the end.
    outsider: bool,
    /// The first position not yet complete.
    base: usize,
    /// The calls of the group's members, by their index in `group` (a member that made
    /// none has none).
    members: Vec<Member>,
    /// The calls of ranks outside the group (every caller's, when the group is unknown).
    others: BTreeMap<Rank, Member>,
    /// Callers with a call at `base`.
    ready: usize,
}

/// What is left of a communicator at the end: its positions from `base` on, some member's
/// call missing at each.
pub(crate) struct Rest {
    pub comm: CommId,
    pub base: usize,
    /// Each caller's calls at positions `base..`, and its count of calls in all.
    pub calls: BTreeMap<Rank, (usize, Vec<Call>)>,
}

impl Rest {
    /// The positions left, in order: at each, the calls of the ranks that made one.
    pub fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        let longest = self.calls.values().map(|c| c.1.len()).max().unwrap_or(0);
        (0..longest).map(move |offset| Position {
            comm: self.comm,
            k: self.base + offset,
            calls: self
                .calls
                .values()
                .filter_map(|(_, calls)| calls.get(offset).cloned())
                .collect(),
        })
    }

    /// How many collective calls `rank` made on the communicator.
    pub fn made(&self, rank: Rank) -> usize {
        self.calls.get(&rank).map_or(0, |c| c.0)
    }
}

/// The streaming aligner: see the module docs.
#[derive(Default)]
pub(crate) struct Aligner {
    lines: FxHashMap<u32, Line>,
    /// The lists of calls of positions already handed over, for the next ones
    /// ([`Aligner::recycle`]).
    spare: Vec<Vec<Call>>,
    /// Calls held now, and at most so far.
    held: usize,
    peak: usize,
}

impl Aligner {
    /// Adds the next collective call of `call.rank` on `comm`; returns the positions it
    /// completed, in order (usually none or one).
    #[cfg(test)]
    pub fn add(&mut self, comm: CommId, call: Call, tables: &RunTables) -> Vec<Position> {
        let mut done = Vec::new();
        self.add_into(comm, call, tables, &mut done);
        done
    }

    /// A position handed over is done with: its list of calls serves the next one.
    pub fn recycle(&mut self, mut calls: Vec<Call>) {
        if self.spare.len() < 4 {
            calls.clear();
            self.spare.push(calls);
        }
    }

    /// [`Aligner::add`], the positions completed put into `done`.
    pub fn add_into(
        &mut self,
        comm: CommId,
        call: Call,
        tables: &RunTables,
        done: &mut Vec<Position>,
    ) {
        let before = done.len();
        let line = self.lines.entry(comm.0).or_insert_with(|| {
            let mut group: Vec<Rank> = tables
                .comm(comm)
                .map(|info| {
                    let mut g = info.members.to_vec();
                    g.extend(info.remote.iter().flat_map(|r| r.iter()));
                    g
                })
                .unwrap_or_default();
            group.sort_unstable();
            group.dedup();
            Line {
                members: group.iter().map(|_| Member::default()).collect(),
                group,
                outsider: false,
                base: 0,
                others: BTreeMap::new(),
                ready: 0,
            }
        });
        let rank = call.rank;
        let member = match line.group.binary_search(&rank) {
            Ok(i) => &mut line.members[i],
            Err(_) => {
                line.outsider = true;
                line.others.entry(rank).or_default()
            }
        };
        member.made += 1;
        member.open.push_back(call);
        if member.open.len() == 1 {
            line.ready += 1;
        }
        self.held += 1;
        if line.outsider || line.group.is_empty() {
            self.peak = self.peak.max(self.held);
            return;
        }
        while line.ready == line.group.len() {
            let mut calls = self.spare.pop().unwrap_or_default();
            calls.reserve(line.group.len());
            // (No outsider: every caller is in `members`, in rank order.)
            for member in &mut line.members {
                if let Some(c) = member.open.pop_front() {
                    calls.push(c);
                    if member.open.is_empty() {
                        line.ready -= 1;
                    }
                }
            }
            self.held -= calls.len();
            done.push(Position {
                comm,
                k: line.base,
                calls,
            });
            line.base += 1;
        }
        self.peak = self
            .peak
            .max(self.held + done[before..].iter().map(|p| p.calls.len()).sum::<usize>());
    }

    /// Every member freed `comm`, so no call on it comes any more: its line is forgotten
    /// when no call is held on it (its rest at the end would have no position); true then.
    pub fn freed(&mut self, comm: CommId) -> bool {
        match self.lines.get(&comm.0) {
            Some(line) if line.ready > 0 => false,
            Some(_) => {
                self.lines.remove(&comm.0);
                true
            }
            None => true,
        }
    }

    /// The communicators with a line now.
    #[cfg(test)]
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// The calls held now.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// The most calls held at once so far.
    #[cfg(test)]
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// What is left of each communicator a collective was called on, in communicator order
    /// ([`RunTables::comm_order`]).
    pub fn finish(self, tables: &RunTables) -> Vec<Rest> {
        let mut rests: Vec<Rest> = self
            .lines
            .into_iter()
            .map(|(comm, line)| {
                let members = line.group.into_iter().zip(line.members);
                Rest {
                    comm: CommId(comm),
                    base: line.base,
                    // The ranks that made a call on it.
                    calls: (members.filter(|(_, m)| m.made > 0))
                        .chain(line.others)
                        .map(|(rank, m)| (rank, (m.made, m.open.into())))
                        .collect(),
                }
            })
            .collect();
        rests.sort_by_key(|r| tables.comm_order(r.comm));
        rests
    }
}
