//! Turns raw per-process traces into the [`Run`] model.
//!
//! Traces hold what each process saw: raw handle bits, communicator-relative ranks, request
//! handles that MPI reuses. Here each rank's calls are replayed through handle tables:
//! communicators get a [`CommId`] that is equal on every member (derived from the parent
//! communicator, the position of the creating call on it, and the member set recorded by the
//! `MPICHECK_Comm_info` pseudo-call), ranks become world ranks, requests become [`ReqId`]s
//! that are never reused, and the matched source and tag of a completed receive are copied
//! onto the receive that started it.
//!
//! The ranks' calls are normalized interleaved by the time they entered MPI ([`Order`]), each
//! rank's in its order; the ids of the run's tables do not depend on that interleaving (see
//! [`numbering`]).
//!
//! This file is the driver: [`normalize`] and its streaming forms assign the traces to ranks
//! and feed each rank's calls, in that order, to the rank's `RankStream` (`rank_stream.rs`:
//! one rank's trace call by call, and what a call yields), which keeps the rank's
//! `RankState` (`rank_state.rs`: its handles and live objects between calls) apart from the
//! run's shared `Tables` (`tables.rs`). How each kind of call is normalized is in the other
//! files of this folder, as methods of `RankNormalizer` (`event.rs` dispatches them).

use std::borrow::Borrow;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use mpicheck_trace::{CallRecord, FunctionSchema, Status, Trace, TraceError};

use crate::checks::pass::{EventPass, RunTables};
use crate::model::*;
use crate::typesig::Layout;

pub mod args;
mod assign;
mod collective;
mod constants;
mod event;
mod facts;
mod handles;
mod kind;
mod names;
pub(crate) mod numbering;
mod p2p;
mod plan;
mod rank_state;
mod rank_stream;
mod requests;
mod rma;
mod tables;
#[cfg(test)]
mod tests;
mod topology;

use args::Args;
pub use assign::{assign_ranks, is_rank_trace, IgnoredTrace, RankAssignment};
pub(crate) use constants::intern;
use constants::{parse_int, Constants};
pub(crate) use facts::allowed_anytime;
use numbering::{FirstSeen, Numbering, Seen};
use rank_state::{RankNormalizer, RankState, RequestInfo};
use rank_stream::{Normalized, RankStream};
use tables::{CommKey, LocalComm, Tables};
use topology::{cart_neighbors, Topology};

#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("no traces to analyze")]
    Empty,
    #[error("two traces claim world rank {0} (pids {1} and {2}); was the output directory reused by two runs at once?")]
    DuplicateRank(i32, u32, u32),
    #[error("the traces claim a world of {0} ranks, more than the {max} mpicheck supports", max = mpicheck_trace::MAX_WORLD_SIZE)]
    WorldTooLarge(u64),
    #[error("the traces claim a world of {world} ranks, but only {traced} {} left a trace: a trace header is damaged, or the directory lacks most traces of the run", if *.traced == 1 { "rank" } else { "ranks" })]
    WorldBeyondTraces { world: u64, traced: usize },
    #[error("cannot read the calls of rank {rank}: {source}")]
    Read { rank: Rank, source: TraceError },
    #[error("the traces disagree on the world size (pid {0} says {1} ranks, pid {2} says {3}): a trace is damaged, or the directory holds traces of two runs")]
    WorldSizesDisagree(u32, i32, u32, i32),
}

/// Normalizes the traces of one run. `resolve(trace_index, address)` resolves a call site
/// of the process whose trace is `traces[trace_index]`.
pub fn normalize(
    traces: &[Trace],
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
) -> Result<Run, NormalizeError> {
    normalize_in(traces, resolve, Order::EntryTime)
}

/// [`normalize`], the ranks' calls taken in `order`.
pub(crate) fn normalize_in(
    traces: &[Trace],
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    order: Order,
) -> Result<Run, NormalizeError> {
    if traces.is_empty() {
        return Err(NormalizeError::Empty);
    }
    let assignment = assign_ranks(traces)?;
    let (mut run, numbering) = normalize_assigned(
        traces,
        assignment,
        &mut |i| Ok(traces[i].calls.iter().map(Ok)),
        resolve,
        &mut [],
        order,
        Keep::AllEvents,
        &mut |_| None,
    )?;
    numbering.apply(&mut run);
    Ok(run)
}

/// As [`normalize`], for traces whose calls are not held ([`mpicheck_trace::scan_trace`]):
/// `calls(i)` decodes the calls of `traces[i]` one at a time, so that the records of no rank
/// are held next to the run being built.
pub fn normalize_streaming<I, R>(
    traces: &[Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
) -> Result<Run, NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    let (mut run, numbering) = normalize_streaming_into(
        traces,
        calls,
        resolve,
        &mut [],
        Order::EntryTime,
        Keep::AllEvents,
        &mut |_| None,
    )?;
    numbering.apply(&mut run);
    Ok(run)
}

/// As [`normalize_streaming`], giving every event to `passes` as it is made, in `order`,
/// and keeping of the events what `keep` says. The run comes numbered as the passes saw it,
/// with the [`Numbering`] that makes its ids those of a normalization rank after rank
/// ([`Numbering::apply`]).
pub(crate) fn normalize_streaming_into<I, R>(
    traces: &[Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    passes: &mut [&mut dyn EventPass],
    order: Order,
    keep: Keep,
    ended: &mut dyn FnMut(usize) -> Option<Trace>,
) -> Result<(Run, Numbering), NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    if traces.is_empty() {
        return Err(NormalizeError::Empty);
    }
    let assignment = assign_ranks(traces)?;
    normalize_assigned(
        traces, assignment, calls, resolve, passes, order, keep, ended,
    )
}

/// What the run made while the events are given to passes keeps of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Every event, and the arguments of every collective call: a [`Run`] to read whole.
    AllEvents,
    /// Each rank's last `n` events (for reports: where each rank was when its trace
    /// ended), no collective call's arguments once the passes saw its event, and no
    /// synchronization record of threads once the passes saw it: when every
    /// check is a pass, the analysis then holds no more than the passes do.
    LastEvents(usize),
}

/// In which order the ranks' calls are normalized (and given to the passes). The run made is
/// the same in every order, once numbered ([`Numbering`]).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Order<'o> {
    /// Every call of rank 0, then every call of rank 1, ...: a pass that pairs one rank's
    /// calls with another's holds all of rank 0's until rank 1 comes.
    RankAfterRank,
    /// The call that entered MPI first (its trace's start on the wall clock plus the call's
    /// entry time), of any rank, next: a pass then holds about what the ranks ran ahead of
    /// each other.
    EntryTime,
    /// The rank that `choose` names among the ranks with calls left, in rank order (tests).
    Chosen(&'o mut dyn FnMut(&[Rank]) -> Rank),
}

/// One rank's calls being normalized: its stream, its calls to come (the next one read
/// ahead, to order the ranks by it) and its events so far.
struct Active<'a, I, R> {
    stream: RankStream<'a>,
    calls: I,
    next: Option<R>,
    events: Vec<Event>,
    /// How many of the rank's first events are no longer in `events` ([`Keep::LastEvents`]).
    dropped: usize,
}

/// Normalizes the traces as `assignment` assigned them to ranks, with the calls of
/// `traces[i]` from `calls(i)` taken in `order`, giving every event to `passes` as it is
/// made. The run comes numbered as the calls came, with the [`Numbering`] of a
/// normalization rank after rank. `ended(i)`: `traces[i]` as its process left it, when
/// `traces` were read while the processes ran (how each rank ended is read from it).
#[allow(clippy::too_many_arguments)]
fn normalize_assigned<I, R>(
    traces: &[Trace],
    assignment: RankAssignment,
    calls: &mut dyn FnMut(usize) -> Result<I, TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
    passes: &mut [&mut dyn EventPass],
    mut order: Order,
    keep: Keep,
    ended: &mut dyn FnMut(usize) -> Option<Trace>,
) -> Result<(Run, Numbering), NormalizeError>
where
    I: Iterator<Item = Result<R, TraceError>>,
    R: Borrow<CallRecord>,
{
    let RankAssignment {
        by_rank,
        world_size,
        ..
    } = assignment;
    // Each pass is given the kinds of event it wants.
    let mut passes =
        crate::checks::pass::Fed::new(passes.iter_mut().map(|p| &mut **p as _).collect());
    let mut tables = Tables::new(world_size);
    let mut active: Vec<Option<Active<I, R>>> = Vec::with_capacity(world_size as usize);
    for rank in 0..world_size {
        let Some(&index) = by_rank.get(&(rank as i32)) else {
            active.push(None);
            continue;
        };
        let read_error = |source| NormalizeError::Read { rank, source };
        let trace = &traces[index];
        let mut calls = calls(index).map_err(read_error)?;
        let next = calls.next().transpose().map_err(read_error)?;
        active.push(Some(Active {
            stream: RankStream::new(rank, world_size, index, trace, &mut tables),
            calls,
            next,
            events: match keep {
                // Sized once: a doubling vector would hold up to half again as spare room.
                Keep::AllEvents => {
                    Vec::with_capacity(usize::try_from(trace.mpi_calls).unwrap_or(0))
                }
                Keep::LastEvents(n) => Vec::with_capacity(2 * n),
            },
            dropped: 0,
        }));
    }
    let entry_time = |a: &Active<I, R>| {
        a.next.as_ref().map(|call| {
            a.stream
                .trace
                .header
                .start_unix_ns
                .wrapping_add(call.borrow().t_enter_ns)
        })
    };
    // The ranks with calls left by the entry time of their next call (earliest first; ties:
    // the lower rank).
    let mut by_time: std::collections::BinaryHeap<std::cmp::Reverse<(u64, Rank)>> = active
        .iter()
        .flatten()
        .filter_map(|a| Some(std::cmp::Reverse((entry_time(a)?, a.stream.rank))))
        .collect();
    // What a call made, in order: its events go into the rank's list as they are made, and
    // the passes read them there.
    let mut made: Vec<Normalized> = Vec::new();
    // The events just given to the passes, when their collective arguments go with them.
    let mut seen: Vec<(Rank, u32)> = Vec::new();
    let mut lowest = 0;
    loop {
        let rank = match &mut order {
            Order::RankAfterRank => {
                while active
                    .get(lowest)
                    .is_some_and(|a| a.as_ref().is_none_or(|a| a.next.is_none()))
                {
                    lowest += 1;
                }
                if lowest == active.len() {
                    break;
                }
                lowest as Rank
            }
            // (The rank stays in the heap: its next call's time replaces this one's below,
            // one sift instead of a pop and a push.)
            Order::EntryTime => match by_time.peek() {
                Some(std::cmp::Reverse((_, rank))) => *rank,
                None => break,
            },
            Order::Chosen(choose) => {
                let left: Vec<Rank> = active
                    .iter()
                    .flatten()
                    .filter(|a| a.next.is_some())
                    .map(|a| a.stream.rank)
                    .collect();
                if left.is_empty() {
                    break;
                }
                choose(&left)
            }
        };
        let a = active[rank as usize]
            .as_mut()
            .expect("only ranks with a trace have calls");
        let call = a
            .next
            .take()
            .expect("only ranks with calls left are chosen");
        // The call's events go into the rank's list as they are made: the passes read them
        // there, in the order of what the call made.
        let mut next_event = a.events.len();
        a.stream.call(
            call.borrow(),
            &mut tables,
            resolve,
            &mut a.events,
            &mut made,
        );
        // Only a collective call's arguments are kept in the table, and with
        // `Keep::LastEvents` only until the passes saw its event: when the table is empty,
        // no event of this call has any to drop (no removal per event).
        let args_kept = !tables.collective_args.is_empty();
        let run_tables = RunTables::new(
            &tables.sites,
            &tables.comms,
            &tables.datatypes,
            &tables.collective_args,
            &tables.rma.windows,
            &tables.rma.calls,
            &tables.buffer_accesses,
        );
        for out in made.drain(..) {
            match out {
                Normalized::Event => {
                    let index = a.dropped + next_event;
                    let event = &a.events[next_event];
                    next_event += 1;
                    passes.event(rank, index, event, &run_tables);
                    if matches!(keep, Keep::LastEvents(_)) && args_kept {
                        seen.push((rank, index as u32));
                    }
                }
                Normalized::Sync(sync) => {
                    for pass in passes.all() {
                        pass.sync(rank, &sync);
                    }
                    if let Keep::LastEvents(_) = keep {
                        // The passes have it (an OpenMP program makes one per barrier and
                        // thread).
                        a.stream.forget_syncs();
                    }
                }
                Normalized::Mark(mark) => {
                    for pass in passes.all() {
                        pass.mark(rank, &mark);
                    }
                }
                Normalized::CommFreed(comm) => {
                    for pass in passes.all() {
                        pass.comm_freed(comm, &run_tables);
                    }
                }
                Normalized::Matched { event, matched } => {
                    for pass in passes.all() {
                        pass.matched(rank, event, matched);
                    }
                    // (Only an event the passes were given: the call's later ones are not
                    // yet the rank's.)
                    if let Some(Event {
                        op: Op::Recv { recv, .. } | Op::Sendrecv { recv, .. },
                        ..
                    }) = event
                        .checked_sub(a.dropped)
                        .filter(|&i| i < next_event)
                        .and_then(|i| a.events.get_mut(i))
                    {
                        recv.matched = Some(matched);
                    }
                }
            }
        }
        // Each rank's last `n` events at least are kept (held up to twice as many).
        if let Keep::LastEvents(n) = keep {
            if a.events.len() >= 2 * n.max(1) {
                let cut = a.events.len() - n;
                a.events.drain(..cut);
                a.dropped += cut;
            }
        }
        // The passes took what they need of the collective arguments.
        for key in seen.drain(..) {
            tables.collective_args.remove(&key);
        }
        a.next = a
            .calls
            .next()
            .transpose()
            .map_err(|source| NormalizeError::Read { rank, source })?;
        if matches!(order, Order::EntryTime) {
            let mut top = by_time.peek_mut().expect("the rank chosen is on top");
            match entry_time(a) {
                Some(time) => *top = std::cmp::Reverse((time, rank)),
                None => {
                    std::collections::binary_heap::PeekMut::pop(top);
                }
            }
        }
    }
    let mut ranks = Vec::with_capacity(world_size as usize);
    for (rank, a) in active.into_iter().enumerate() {
        let rank = rank as Rank;
        ranks.push(match a {
            Some(Active {
                stream, mut events, ..
            }) => {
                if let Keep::LastEvents(n) = keep {
                    events.drain(..events.len().saturating_sub(n));
                }
                let as_ended = ended(stream.trace_index);
                let (end, threads) = stream.finish(&mut tables, resolve, as_ended.as_ref());
                RankTrace {
                    rank,
                    events,
                    end,
                    threads,
                }
            }
            None => RankTrace {
                rank,
                events: Vec::new(),
                end: RankEnd::Interrupted {
                    reason: "no trace was written by this rank".into(),
                },
                threads: ThreadInfo::default(),
            },
        });
    }
    let numbering = tables.numbering();
    tables.rma.name_windows(&numbering, &tables.comms);
    // Each rank's accesses in its trace's order, rank after rank.
    tables.buffer_accesses.sort_by_key(|access| access.rank);
    // (Ranks are read in any order; `Numbering::apply` sorts again after renumbering.)
    tables
        .buffers_given_up
        .sort_by_key(|given_up| given_up.site.0);
    let run = Run {
        ranks,
        comms: tables.comms,
        sites: tables.sites,
        datatypes: tables.datatypes,
        collective_args: tables.collective_args,
        windows: tables.rma.windows,
        rma: tables.rma.calls,
        buffer_accesses: tables.buffer_accesses,
        buffer_watch: tables.buffer_watch,
        buffers_given_up: tables.buffers_given_up,
        outside_job: tables.outside_job,
    };
    Ok((run, numbering))
}
