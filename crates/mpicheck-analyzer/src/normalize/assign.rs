//! Which trace is which world rank.

use std::collections::HashMap;

use mpicheck_trace::Trace;

use super::NormalizeError;

/// How far the world size may exceed the ranks that left a trace: twice their number plus
/// this. Ranks may leave no trace (they died before their first MPI call, their trace is
/// unreadable), but a claim far beyond the traces present is a damaged header, and believing
/// it would cost memory and time for every claimed rank.
const UNTRACED_RANKS_SLACK: u64 = 1024;

/// Which trace is which world rank (see [`assign_ranks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankAssignment {
    /// Index of the rank's trace, by world rank.
    pub by_rank: HashMap<i32, usize>,
    /// Traces of processes that claim a rank another trace is (child processes of the
    /// rank that inherited its environment), in the order of the traces.
    pub ignored: Vec<IgnoredTrace>,
    pub world_size: u32,
}

/// A trace that claims a rank but is not that rank's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IgnoredTrace {
    /// Index into the traces.
    pub trace: usize,
    pub rank: i32,
    /// Index of the trace that is the rank's.
    pub rank_trace: usize,
}

/// Whether a trace can be a rank's: its process initialized MPI or made an MPI call. A
/// process that only left mpicheck's own pseudo-calls (`MPICHECK_*`) is a helper the rank
/// started (a shell, a tool) that inherited the preloaded library.
pub fn is_rank_trace(trace: &Trace) -> bool {
    if trace.header.initialized() {
        return true;
    }
    // A scanned trace holds no calls, only their count; held calls (which tests and tools
    // may have edited) are the truth when there are any.
    if trace.calls.is_empty() {
        return trace.mpi_calls > 0;
    }
    trace
        .calls
        .iter()
        .any(|c| !trace.function_name(c.func).starts_with("MPICHECK_"))
}

/// Assigns world ranks to traces. A process that died before `MPI_Init` has only its
/// launcher's rank. Child processes of a rank may leave traces claiming that rank (they
/// inherit its environment): among the traces claiming one rank, the one whose process
/// initialized MPI is the rank's, else the process that started first (then the lowest
/// pid); the others are [`RankAssignment::ignored`]. Traces that are no rank's
/// ([`is_rank_trace`]) claim nothing. Two traces that both initialized MPI as one rank come
/// from two runs mixed in one directory: an error.
pub fn assign_ranks(traces: &[Trace]) -> Result<RankAssignment, NormalizeError> {
    let mut claims: HashMap<i32, Vec<usize>> = HashMap::new();
    for (index, trace) in traces.iter().enumerate() {
        if let Some(rank) = trace.header.best_rank().filter(|_| is_rank_trace(trace)) {
            claims.entry(rank).or_default().push(index);
        }
    }
    let mut assignment = RankAssignment::default();
    for (rank, mut claimants) in claims {
        let initialized: Vec<usize> = claimants
            .iter()
            .copied()
            .filter(|&i| traces[i].header.initialized())
            .collect();
        if let [first, second, ..] = initialized[..] {
            return Err(NormalizeError::DuplicateRank(
                rank,
                traces[first].header.pid,
                traces[second].header.pid,
            ));
        }
        // Unknown start times (0) sort last.
        claimants.sort_by_key(|&i| {
            let h = &traces[i].header;
            (!h.initialized(), h.process_start.wrapping_sub(1), h.pid, i)
        });
        let winner = claimants[0];
        assignment
            .ignored
            .extend(claimants[1..].iter().map(|&trace| IgnoredTrace {
                trace,
                rank,
                rank_trace: winner,
            }));
        assignment.by_rank.insert(rank, winner);
    }
    assignment.ignored.sort_by_key(|t| t.trace);
    // Every rank of a run saw the same world.
    let mut ranks: Vec<(i32, usize)> = assignment.by_rank.iter().map(|(&r, &i)| (r, i)).collect();
    ranks.sort_unstable();
    let mut sizes = ranks
        .iter()
        .filter_map(|&(_, i)| Some((traces[i].header.world_size?, traces[i].header.pid)));
    let claimed = sizes.next();
    if let Some((size, pid)) = claimed {
        if let Some((other, other_pid)) = sizes.find(|&(s, _)| s != size) {
            return Err(NormalizeError::WorldSizesDisagree(
                pid, size, other_pid, other,
            ));
        }
    }
    let world_size = claimed
        .map_or(0, |(size, _)| size)
        .max(assignment.by_rank.keys().max().map_or(0, |m| m + 1))
        .max(0) as u64;
    if world_size > mpicheck_trace::MAX_WORLD_SIZE as u64 {
        return Err(NormalizeError::WorldTooLarge(world_size));
    }
    let traced = assignment.by_rank.len();
    if world_size > 2 * traced as u64 + UNTRACED_RANKS_SLACK {
        return Err(NormalizeError::WorldBeyondTraces {
            world: world_size,
            traced,
        });
    }
    assignment.world_size = world_size as u32;
    Ok(assignment)
}
