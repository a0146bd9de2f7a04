//! What the RMA checks that compare calls of different ranks once every event came (RM006
//! on dynamic windows, RM007, DR003, DR004: [`super::check_on_run`]) read besides the calls
//! on windows ([`Run::rma`]), gathered while the events stream ([`Gatherer`]), so that the
//! analysis of a program that makes windows need not hold every event.
//!
//! - The happens-before skeleton: every rank's sends, receives and collectives
//!   ([`Skeleton`], a few words per operation), which the checks' queries need whole: they
//!   are known only at the end, and may ask about any two calls on windows.
//! - By rank, whether it called MPI from several threads (DR003 and DR004 judge only the
//!   epochs of ranks that use one) and how many events it made (an epoch still open ends
//!   there).
//! - The calls with buffers each rank made once it exposed memory of a window it created
//!   with `MPI_Win_create` (a fence or a post on it), where a buffer starts at or past that
//!   memory: the calls DR004 compares with the origins' accesses, by call site and buffer.
//!
//! So what the analysis of such a program holds grows with its messages and collectives
//! (the skeleton) and with those calls, not with every event.

use std::collections::BTreeMap;

use crate::checks::pass::RunTables;
use crate::checks::request::{CallAt, Skeleton};
use crate::model::*;
use crate::normalize::numbering::Numbering;

/// The functions that make a window: without one, no check here has a call to compare.
const WINDOW_CONSTRUCTORS: [&str; 4] = [
    "MPI_Win_create",
    "MPI_Win_allocate",
    "MPI_Win_allocate_shared",
    "MPI_Win_create_dynamic",
];

/// Whether a trace that called `called` (by their names in the traces) makes windows.
pub(crate) fn makes_windows<'a>(mut called: impl Iterator<Item = &'a str>) -> bool {
    called.any(|f| WINDOW_CONSTRUCTORS.contains(&f))
}

/// A call with buffers that a rank made while exposing window memory (DR004 reads it).
#[derive(Clone, Debug)]
pub(crate) struct BufferedCall {
    pub call: &'static str,
    pub site: SiteId,
    pub buffers: Vec<BufferSpan>,
}

/// What [`Gatherer`] gathered, once every event came (see the module's documentation).
#[derive(Default)]
pub(crate) struct CrossRank {
    order: Skeleton,
    /// By rank: whether it called MPI from more than one thread.
    several_threads: Vec<bool>,
    /// By rank: how many events it made.
    events: Vec<usize>,
    /// By (rank, event index).
    exposing_calls: BTreeMap<(Rank, usize), BufferedCall>,
}

impl CrossRank {
    /// Gathered from a whole run.
    pub fn of_run(run: &Run) -> CrossRank {
        let tables = RunTables::of(run);
        let mut gatherer = Gatherer::default();
        for trace in &run.ranks {
            for (index, event) in trace.events.iter().enumerate() {
                gatherer.event(trace.rank, index, event, &tables);
            }
        }
        gatherer.finish()
    }

    /// With the run's final ids, for what was gathered in the ids the events came with.
    pub fn renumbered(mut self, numbering: &Numbering) -> CrossRank {
        self.order.renumber_comms(|c| numbering.comm(c));
        for call in self.exposing_calls.values_mut() {
            call.site = numbering.site(call.site);
        }
        self
    }

    /// Whether the first call of each pair happens before the second (by event index in
    /// their ranks): see [`Skeleton::happens_before`].
    pub fn happens_before(&self, run: &Run, pairs: &[(CallAt, CallAt)]) -> Vec<bool> {
        (self.order).happens_before(&|comm| run.comm(comm).members.to_vec(), pairs)
    }

    /// Whether `rank` called MPI from one thread only.
    pub fn single_thread(&self, rank: Rank) -> bool {
        !self
            .several_threads
            .get(rank as usize)
            .copied()
            .unwrap_or(false)
    }

    /// How many events `rank` made.
    pub fn events(&self, rank: Rank) -> usize {
        self.events.get(rank as usize).copied().unwrap_or(0)
    }

    /// The calls of `rank` with buffers in its memory exposed in a window, from event
    /// `first` up to event `end` (excluded), in order.
    pub fn exposing_calls(
        &self,
        rank: Rank,
        first: usize,
        end: usize,
    ) -> impl Iterator<Item = (usize, &BufferedCall)> {
        let range = (first < end).then_some((rank, first)..(rank, end));
        (range.into_iter())
            .flat_map(|range| self.exposing_calls.range(range))
            .map(|(&(_, index), call)| (index, call))
    }

    /// Call `index` of `rank`, if it is one of [`CrossRank::exposing_calls`].
    pub fn exposing_call(&self, rank: Rank, index: usize) -> Option<&BufferedCall> {
        self.exposing_calls.get(&(rank, index))
    }

    /// How many calls it holds besides the skeleton (for tests).
    #[cfg(test)]
    pub fn exposing_held(&self) -> usize {
        self.exposing_calls.len()
    }

    /// How many operations the skeleton holds (for tests).
    #[cfg(test)]
    pub fn operations(&self) -> usize {
        self.order.operations()
    }
}

/// Gathers a [`CrossRank`] from each rank's events in order (the ranks interleaved in any
/// way).
#[derive(Default)]
pub(crate) struct Gatherer {
    /// No trace makes a window (known from their scan): nothing is gathered.
    idle: bool,
    gathered: CrossRank,
    /// By rank: the thread of its first event.
    first_thread: Vec<Option<u16>>,
    /// By rank: the lowest base of the memory of the windows it created and then fenced or
    /// posted on; its later calls' buffers that start below it touch none of them.
    exposed_from: Vec<Option<u64>>,
}

impl Gatherer {
    /// The functions the traces called, before any event.
    pub fn scanned(&mut self, called: &[&str]) {
        self.idle = !makes_windows(called.iter().copied());
    }

    /// No trace makes a window: no event is gathered.
    pub fn idle(&self) -> bool {
        self.idle
    }

    pub fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        if self.idle {
            return;
        }
        let r = rank as usize;
        let g = &mut self.gathered;
        if g.events.len() <= r {
            g.events.resize(r + 1, 0);
            g.several_threads.resize(r + 1, false);
            self.first_thread.resize(r + 1, None);
            self.exposed_from.resize(r + 1, None);
        }
        g.events[r] = index + 1;
        let first = *self.first_thread[r].get_or_insert(event.thread);
        g.several_threads[r] |= event.thread != first;
        g.order.event(rank, index, event, |comm| {
            tables.comm(comm).is_some_and(|c| c.remote.is_none())
        });
        if let Some(call) = tables.rma_call(rank, index) {
            if matches!(call.kind, RmaKind::Fence { .. } | RmaKind::Post { .. }) {
                let base = tables
                    .window(call.win)
                    .and_then(|w| w.memory.get(&rank))
                    .and_then(|m| m.base);
                if let Some(base) = base {
                    let from = self.exposed_from[r].get_or_insert(base);
                    *from = (*from).min(base);
                }
            }
        }
        let buffers = event.buffers();
        if self.exposed_from[r].is_some_and(|from| buffers.iter().any(|b| b.start >= from)) {
            g.exposing_calls.insert(
                (rank, index),
                BufferedCall {
                    call: event.call,
                    site: event.site,
                    buffers: buffers.to_vec(),
                },
            );
        }
    }

    /// The source and tag that the receive of event `index` of `rank` matched, known after
    /// its event.
    pub fn matched(&mut self, rank: Rank, index: usize, matched: (Rank, i32)) {
        if !self.idle {
            self.gathered.order.matched(rank, index, matched);
        }
    }

    pub fn finish(mut self) -> CrossRank {
        self.gathered.order.finish();
        self.gathered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_trace::parse;

    #[test]
    fn only_calls_with_buffers_in_exposed_window_memory_are_held_besides_the_skeleton() {
        // Rank 0 exposes 40 bytes at 4096 from its first fence on.
        let run = parse(
            "ranks 2
             *: init
             0: send dest=1 tag=0 count=1 type=int mem=buf:4096+4:r @ w.c:2
             1: recv src=0 tag=0 count=1 type=int @ w.c:3
             *: win_create win=0 size=40 unit=4 base=4096 @ w.c:4
             0: send dest=1 tag=0 count=1 type=int mem=buf:4096+4:r @ w.c:5
             1: recv src=0 tag=0 count=1 type=int @ w.c:6
             *: win_fence win=0 @ w.c:7
             0: send dest=1 tag=0 count=1 type=int mem=buf:1024+4:r @ w.c:8
             0: send dest=1 tag=0 count=1 type=int mem=buf:4100+4:r @ w.c:9
             1: recv src=0 tag=0 count=1 type=int mem=buf:4100+4:w @ w.c:10
             1: recv src=0 tag=0 count=1 type=int @ w.c:11
             *: win_fence win=0 @ w.c:12
             *: barrier @ w.c:13
             *: win_free win=0 @ w.c:14
             *: finalize",
        )
        .unwrap();
        let cross = CrossRank::of_run(&run);
        // The calls after a fence with buffers at or past the memory's base (4096 on both
        // ranks); not the send before the fence, nor the one below the memory.
        let held: Vec<(Rank, usize)> = cross.exposing_calls.keys().copied().collect();
        assert_eq!(held, vec![(0, 6), (1, 5)]);
        assert_eq!(cross.exposing_held(), 2);
        assert_eq!(cross.exposing_calls(0, 0, 6).count(), 0);
        assert_eq!(cross.exposing_calls(0, 5, 7).count(), 1);
        assert_eq!(
            cross.exposing_call(0, 6).map(|c| c.site),
            Some(run.ranks[0].events[6].site)
        );
        assert_eq!(cross.events(0), 11);
        assert!(cross.single_thread(0) && cross.single_thread(1));
        // Rank 0's calls before a send return before the receive that took it does (the
        // send itself may still be in flight); nothing orders rank 1's first receive
        // before rank 0's second send.
        let ordered = cross.happens_before(
            &run,
            &[((0, 0), (1, 3)), ((0, 1), (1, 3)), ((1, 1), (0, 3))],
        );
        assert_eq!(ordered, vec![true, false, false]);
        // The skeleton holds the messages and synchronizing collectives, not the events.
        assert!(cross.operations() >= 10, "{}", cross.operations());
    }

    #[test]
    fn a_trace_without_window_constructors_gathers_nothing() {
        let run = parse(
            "ranks 2
             *: init
             0: send dest=1 tag=0 count=1 type=int @ w.c:2
             1: recv src=0 tag=0 count=1 type=int @ w.c:3
             *: finalize",
        )
        .unwrap();
        let mut gatherer = Gatherer::default();
        gatherer.scanned(&["MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize"]);
        let tables = RunTables::of(&run);
        for trace in &run.ranks {
            for (index, event) in trace.events.iter().enumerate() {
                gatherer.event(trace.rank, index, event, &tables);
            }
        }
        let cross = gatherer.finish();
        assert_eq!((cross.operations(), cross.events(0)), (0, 0));
        assert!(makes_windows(["MPI_Init", "MPI_Win_allocate"].into_iter()));
    }
}
