//! The AND/OR wait-for graph of the ranks a replay left stuck, reduced to what causes the
//! deadlock.
//!
//! A stuck rank waits for peers with AND semantics (a blocking call, `MPI_Waitall`, a
//! collective: it needs all of them) or OR semantics (`MPI_ANY_SOURCE`, `MPI_Waitany`:
//! any one will do). Ranks whose trace was interrupted while running may still act, so
//! they can release ranks waiting on them; finalized or exited ranks never act again.
//! [`deadlocked`] computes the ranks that can never be released (the AND/OR graph
//! reduction), then the core: the ranks on a cycle (AND) or in a knot (OR) of waits, plus
//! the ranks waiting on a rank that is gone. Deadlocked ranks outside the core only wait on
//! it; [`graph`] folds them into one summary node.

use std::collections::BTreeMap;

use crate::diagnostic::{WaitEdge, WaitForGraph, WaitNode, WaitSemantics};
use crate::engine::{Program, RankOutcome, Replay, WaitOn};
use crate::model::{CollectiveKind, Rank, Run};
use crate::ranks::RankSet;

/// The result of reducing a replay's wait-for graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeadlockSet {
    /// Indices into [`Replay::stuck`] of the ranks that can never complete, by rank.
    pub deadlocked: Vec<usize>,
    /// The subset on a cycle or knot, or waiting on a finalized/exited rank.
    pub core: Vec<usize>,
}

impl DeadlockSet {
    pub fn is_empty(&self) -> bool {
        self.deadlocked.is_empty()
    }
}

/// Which stuck ranks can never be released.
pub fn deadlocked(program: &Program, replay: &Replay) -> DeadlockSet {
    let n = replay.ranks.len();
    if replay.stuck.is_empty() {
        return DeadlockSet::default();
    }
    // able[r]: r can still act (running, or released).
    let mut able: Vec<bool> = replay
        .ranks
        .iter()
        .map(|o| matches!(o, RankOutcome::Unfinished))
        .collect();
    if able.iter().any(|&a| a) {
        // Propagate releases through reverse edges, re-checking a waiter whenever one of
        // its peers becomes able.
        let mut dependents: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, s) in replay.stuck.iter().enumerate() {
            s.cond.for_each_rank(program, s.rank, &mut |t, _| {
                if let Some(d) = dependents.get_mut(t as usize) {
                    if d.last() != Some(&(i as u32)) {
                        d.push(i as u32);
                    }
                }
            });
        }
        let mut work: Vec<u32> = (0..replay.stuck.len() as u32).collect();
        while let Some(i) = work.pop() {
            let s = &replay.stuck[i as usize];
            if able[s.rank as usize] {
                continue;
            }
            let holds = s.cond.holds(program, s.rank, &|r| {
                able.get(r as usize).copied().unwrap_or(false)
            });
            if holds {
                able[s.rank as usize] = true;
                work.extend(dependents[s.rank as usize].iter().copied());
            }
        }
    }
    let deadlocked: Vec<usize> = (0..replay.stuck.len())
        .filter(|&i| !able[replay.stuck[i].rank as usize])
        .collect();
    if deadlocked.is_empty() {
        return DeadlockSet::default();
    }
    // Edges between deadlocked ranks, for the strongly connected components.
    let mut in_set = vec![false; n];
    for &i in &deadlocked {
        in_set[replay.stuck[i].rank as usize] = true;
    }
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); deadlocked.len()];
    let mut position = vec![u32::MAX; n];
    for (k, &i) in deadlocked.iter().enumerate() {
        position[replay.stuck[i].rank as usize] = k as u32;
    }
    let mut waits_on_gone = vec![false; deadlocked.len()];
    for (k, &i) in deadlocked.iter().enumerate() {
        let s = &replay.stuck[i];
        s.cond.for_each_rank(program, s.rank, &mut |t, _| {
            let t = t as usize;
            if t >= n {
                return;
            }
            if in_set[t] {
                edges[k].push(position[t]);
            } else if replay.ranks[t].terminated() {
                waits_on_gone[k] = true;
            }
        });
    }
    let components = strongly_connected(&edges);
    let mut sizes = vec![0usize; deadlocked.len()];
    for &c in &components {
        sizes[c as usize] += 1;
    }
    let mut core: Vec<usize> = Vec::new();
    for (k, &i) in deadlocked.iter().enumerate() {
        let cyclic = edges[k].contains(&(k as u32)) || sizes[components[k] as usize] > 1;
        if cyclic || waits_on_gone[k] {
            core.push(i);
        }
    }
    if core.is_empty() {
        core = deadlocked.clone();
    }
    DeadlockSet { deadlocked, core }
}

/// Tarjan's algorithm without recursion (a million-rank chain must not overflow the
/// stack). Returns the component id of each node.
fn strongly_connected(edges: &[Vec<u32>]) -> Vec<u32> {
    let n = edges.len();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next_index = 0u32;
    let mut next_component = 0u32;
    // (node, next edge position)
    let mut call: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        call.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            let vi = v as usize;
            if *pos == 0 && index[vi] == UNSEEN {
                index[vi] = next_index;
                low[vi] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[vi] = true;
            }
            if let Some(&w) = edges[vi].get(*pos) {
                *pos += 1;
                let wi = w as usize;
                if index[wi] == UNSEEN {
                    call.push((w, 0));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent as usize] = low[parent as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// `MPI_Bcast` for a collective kind.
pub fn collective_call_name(kind: CollectiveKind) -> &'static str {
    use CollectiveKind::*;
    match kind {
        Barrier => "MPI_Barrier",
        Bcast => "MPI_Bcast",
        Gather => "MPI_Gather",
        Gatherv => "MPI_Gatherv",
        Scatter => "MPI_Scatter",
        Scatterv => "MPI_Scatterv",
        Allgather => "MPI_Allgather",
        Allgatherv => "MPI_Allgatherv",
        Alltoall => "MPI_Alltoall",
        Alltoallv => "MPI_Alltoallv",
        Alltoallw => "MPI_Alltoallw",
        Reduce => "MPI_Reduce",
        Allreduce => "MPI_Allreduce",
        ReduceScatter => "MPI_Reduce_scatter",
        ReduceScatterBlock => "MPI_Reduce_scatter_block",
        Scan => "MPI_Scan",
        Exscan => "MPI_Exscan",
        NeighborAllgather => "MPI_Neighbor_allgather",
        NeighborAllgatherv => "MPI_Neighbor_allgatherv",
        NeighborAlltoall => "MPI_Neighbor_alltoall",
        NeighborAlltoallv => "MPI_Neighbor_alltoallv",
        NeighborAlltoallw => "MPI_Neighbor_alltoallw",
        Management => "a communicator-management call",
    }
}

fn comm_name(run: &Run, comm: crate::model::CommId) -> String {
    run.comms
        .get(comm)
        .map_or_else(|| format!("comm {}", comm.0), |c| c.name.to_string())
}

/// Edge label: what a rank waits for from a peer.
pub fn wait_on_label(run: &Run, on: &WaitOn) -> String {
    match on {
        WaitOn::Message { tag: Some(t), .. } => format!("message tag {t}"),
        WaitOn::Message { tag: None, .. } => "message (any tag)".into(),
        WaitOn::Receive { tag, .. } => format!("matching receive of tag {tag}"),
        WaitOn::Epoch { win, call } => match run.windows.get(win.0 as usize) {
            Some(w) => format!("{call} on {}", w.name),
            None => format!("{call} on window {}", win.0),
        },
        WaitOn::Collective { comm, kind } => {
            format!(
                "{} on {}",
                collective_call_name(*kind),
                comm_name(run, *comm)
            )
        }
    }
}

/// "MPI_Recv at ring.c:14": the call event `event` of `rank` was, as the compiled program
/// keeps it, where the run's table of call sites says it is.
pub fn call_label(run: &Run, program: &Program, rank: Rank, event: usize) -> String {
    let Some(call) = program.call(rank, event) else {
        return "?".into();
    };
    site_label(call.name, run.site(call.site))
}

/// `call` and where it is ([`crate::model::SourceLocation::place`]): "MPI_Recv at t.c:12",
/// "MPI_Recv in `foo` (libfoo.so+0x1234)", "MPI_Recv at hpcc+0x1c711".
fn site_label(call: &str, site: &crate::model::SourceLocation) -> String {
    match site.place() {
        Some(place) => format!("{call} {place}"),
        None => call.to_string(),
    }
}

/// Above this many cycle ranks, cycle nodes are folded by call site.
const MAX_CYCLE_NODES: usize = 32;

/// The wait-for graph of a deadlock, reduced: cycle/knot nodes, the finalized or exited
/// ranks they wait on, and one summary node for all ranks that only wait on the cycle.
pub fn graph(run: &Run, program: &Program, replay: &Replay, set: &DeadlockSet) -> WaitForGraph {
    let mut g = WaitForGraph::default();
    let n = replay.ranks.len();
    // Node of each rank.
    let mut node_of: Vec<u32> = vec![u32::MAX; n];
    let fold_core = set.core.len() > MAX_CYCLE_NODES;
    let mut site_nodes: BTreeMap<(u32, &'static str), usize> = BTreeMap::new();
    for &i in &set.core {
        let s = &replay.stuck[i];
        let call = program.call(s.rank, s.event);
        let semantics = if s.cond.is_and() {
            WaitSemantics::And
        } else {
            WaitSemantics::Or
        };
        let node = if fold_core {
            let key = call.map_or((0, "?"), |c| (c.site.0, c.name));
            *site_nodes.entry(key).or_insert_with(|| {
                g.nodes.push(WaitNode {
                    ranks: RankSet::default(),
                    label: call_label(run, program, s.rank, s.event),
                    semantics,
                    in_cycle: true,
                });
                g.nodes.len() - 1
            })
        } else {
            g.nodes.push(WaitNode {
                ranks: RankSet::default(),
                label: call_label(run, program, s.rank, s.event),
                semantics,
                in_cycle: true,
            });
            g.nodes.len() - 1
        };
        g.nodes[node].ranks.insert(s.rank);
        node_of[s.rank as usize] = node as u32;
    }
    let core_len = g.nodes.len();
    let mut in_core = vec![false; replay.stuck.len()];
    for &i in &set.core {
        in_core[i] = true;
    }
    // Summary node for the ranks that only wait on the cycle.
    let others: Vec<usize> = set
        .deadlocked
        .iter()
        .copied()
        .filter(|&i| !in_core[i])
        .collect();
    let summary = (!others.is_empty()).then(|| {
        g.nodes.push(WaitNode {
            ranks: others.iter().map(|&i| replay.stuck[i].rank).collect(),
            label: if others.len() == 1 {
                format!(
                    "{} (waits on the cycle)",
                    call_label(
                        run,
                        program,
                        replay.stuck[others[0]].rank,
                        replay.stuck[others[0]].event
                    )
                )
            } else {
                format!("{} ranks waiting on the cycle", others.len())
            },
            semantics: WaitSemantics::And,
            in_cycle: false,
        });
        let node = g.nodes.len() - 1;
        for &i in &others {
            node_of[replay.stuck[i].rank as usize] = node as u32;
        }
        node
    });
    // Terminal nodes for finalized or exited peers of the core.
    let mut gone_nodes: BTreeMap<Rank, usize> = BTreeMap::new();
    let mut edge_set: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for &i in &set.core {
        let s = &replay.stuck[i];
        let from = node_of[s.rank as usize] as usize;
        s.cond.for_each_rank(program, s.rank, &mut |t, on| {
            let Some(outcome) = replay.ranks.get(t as usize) else {
                return;
            };
            let to = if node_of[t as usize] != u32::MAX && (node_of[t as usize] as usize) < core_len
            {
                node_of[t as usize] as usize
            } else if outcome.terminated() {
                *gone_nodes.entry(t).or_insert_with(|| {
                    g.nodes.push(WaitNode {
                        ranks: RankSet::one(t),
                        label: if *outcome == RankOutcome::Finalized {
                            "finalized (MPI_Finalize)".into()
                        } else {
                            "exited without MPI_Finalize".into()
                        },
                        semantics: WaitSemantics::And,
                        in_cycle: false,
                    });
                    g.nodes.len() - 1
                })
            } else {
                return;
            };
            edge_set
                .entry((from, to))
                .or_insert_with(|| wait_on_label(run, on));
        });
    }
    if let Some(summary) = summary {
        for &i in &others {
            let s = &replay.stuck[i];
            s.cond.for_each_rank(program, s.rank, &mut |t, _| {
                let to = node_of.get(t as usize).copied().unwrap_or(u32::MAX);
                if to != u32::MAX && (to as usize) < core_len {
                    edge_set
                        .entry((summary, to as usize))
                        .or_insert_with(|| "waits on the cycle".into());
                }
            });
        }
    }
    g.edges = edge_set
        .into_iter()
        .map(|((from, to), label)| WaitEdge { from, to, label })
        .collect();
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_labels_without_debug_info_name_function_and_object() {
        use crate::model::SourceLocation;
        let mut site = SourceLocation {
            function: Some("HPL_bcast".into()),
            object: Some("/usr/lib/libhpl.so.2".into()),
            offset: Some(0x1a2b),
            ..Default::default()
        };
        assert_eq!(
            site_label("MPI_Recv", &site),
            "MPI_Recv in `HPL_bcast` (libhpl.so.2+0x1a2b)"
        );
        site.function = None;
        assert_eq!(
            site_label("MPI_Recv", &site),
            "MPI_Recv at libhpl.so.2+0x1a2b"
        );
        site.file = Some("ring.c".into());
        site.line = Some(14);
        assert_eq!(site_label("MPI_Recv", &site), "MPI_Recv at ring.c:14");
        assert_eq!(
            site_label("MPI_Recv", &SourceLocation::default()),
            "MPI_Recv"
        );
    }

    #[test]
    fn tarjan_finds_cycles() {
        // 0 -> 1 -> 2 -> 0, 3 -> 0, 4 -> 4
        let edges = vec![vec![1], vec![2], vec![0], vec![0], vec![4]];
        let c = strongly_connected(&edges);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[3], c[0]);
        assert_ne!(c[4], c[0]);
    }

    #[test]
    fn tarjan_handles_long_chains() {
        let n = 200_000u32;
        let edges: Vec<Vec<u32>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        let c = strongly_connected(&edges);
        assert!(c.iter().all(|&x| x == c[0]));
    }
}
