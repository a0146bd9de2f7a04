//! The one pass of [`super::ThreadChecks`] (issue 14): TH003 and TH005 from
//! [`ConcurrentPass`], the other codes from each rank's calls and synchronization records
//! as they come, in record order ([`RankState`]).
//!
//! Per rank it keeps the threads' vector clocks ([`ThreadClocks`]), the call that initialized
//! MPI, and what each check still needs of the calls seen: per thread its last call and its
//! older calls folded by call site (what a later `MPI_Finalize` may be unordered with,
//! [`super::finalize`]), the receives a later probe's message may be taken by and the probes
//! whose receive or window is still open ([`super::probe`]). None of it grows with the
//! number of calls, only with call sites and threads. What needs how the rank ended (its
//! thread level, whether it recorded synchronization, its worksharing blocks) is decided in
//! [`EventPass::finish`], from [`RunTables::rank_threads`].
//!
//! Two facts of record order spare keeping clocks per call: a call never happens before a
//! call of another thread recorded before it (a thread's epoch grows past every value it
//! released), and a thread's calls do not overlap one another, so of its calls recorded
//! before a given call only its last one can still be inside MPI (as in
//! [`super::concurrent`], a thread preempted between reserving its record and reading its
//! entry time can break the second).

use rustc_hash::FxHashMap;

use super::{concurrent, finalize, probe, Findings};
use crate::checks::pass::{EventPass, RunTables};
use crate::diagnostic::Diagnostic;
use crate::model::{CallTime, Event, Op, Rank, SiteId, SyncEvent};

/// TH001-TH007 over the events.
#[derive(Default)]
pub(crate) struct ThreadPass {
    ranks: FxHashMap<Rank, RankState>,
}

impl EventPass for ThreadPass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        self.ranks
            .entry(rank)
            .or_default()
            .call(index, event, tables);
    }

    fn sync(&mut self, rank: Rank, sync: &SyncEvent) {
        self.ranks
            .entry(rank)
            .or_default()
            .concurrent
            .clocks
            .sync(sync);
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let mut ranks: Vec<(Rank, RankState)> = self.ranks.into_iter().collect();
        ranks.sort_by_key(|(rank, _)| *rank);
        let mut findings = Findings::default();
        for (rank, state) in ranks {
            state.finish(rank, tables, &mut findings);
        }
        findings.into_diagnostics_on(tables)
    }
}

/// A call as the thread checks keep it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Call {
    pub thread: u16,
    /// The thread's slot in the rank's [`ThreadClocks`].
    pub slot: usize,
    pub site: SiteId,
    pub call: &'static str,
    pub time: Option<CallTime>,
    /// The thread's epoch while it ran (`u32::MAX` if it never returned).
    pub epoch: u32,
}

impl Call {
    /// Whether this call happens before a call of another thread whose entry clock is
    /// `clock` (it returned, and that thread had seen it).
    pub fn before(&self, clock: &[u32]) -> bool {
        clock.get(self.slot).is_some_and(|&c| c >= self.epoch)
    }

    /// Whether both were inside MPI at the same moment ([`crate::threads::overlap`]).
    pub fn overlaps(&self, other: &Call) -> bool {
        let (Some(a), Some(b)) = (self.time, other.time) else {
            return false;
        };
        a.enter_ns < b.exit_ns.unwrap_or(u64::MAX) && b.enter_ns < a.exit_ns.unwrap_or(u64::MAX)
    }
}

/// The first `MPI_Init*` of a rank.
#[derive(Clone, Copy)]
pub(super) struct InitCall {
    pub thread: u16,
    pub site: SiteId,
    pub call: &'static str,
}

/// One rank as the thread checks follow it.
#[derive(Default)]
pub(super) struct RankState {
    /// TH003 and TH005, with the threads' clocks.
    concurrent: concurrent::RankState,
    /// A call had no time: happens-before is unknown for the rank (no possible reports).
    untimed: bool,
    /// The latest entry time seen.
    latest_enter: u64,
    first_thread: Option<u16>,
    /// Calls of more than one thread were seen.
    several_threads: bool,
    init: Option<InitCall>,
    finalize: finalize::Watch,
    probes: probe::Watch,
}

impl RankState {
    fn call(&mut self, index: usize, event: &Event, tables: &RunTables) {
        self.concurrent.call(index, event, tables);
        let clocks = &self.concurrent.clocks;
        let slot = clocks
            .slot_of_thread(event.thread)
            .expect("the call registered its thread");
        match self.first_thread {
            None => self.first_thread = Some(event.thread),
            Some(first) if first != event.thread => self.several_threads = true,
            Some(_) => {}
        }
        if self.init.is_none() && matches!(event.op, Op::Init { .. }) {
            self.init = Some(InitCall {
                thread: event.thread,
                site: event.site,
                call: event.call,
            });
        }
        match event.time {
            Some(time) => self.latest_enter = self.latest_enter.max(time.enter_ns),
            None => self.untimed = true,
        }
        let call = Call {
            thread: event.thread,
            slot,
            site: event.site,
            call: event.call,
            time: event.time,
            epoch: if event.returned {
                clocks.epoch(slot)
            } else {
                u32::MAX
            },
        };
        // The clocks do not change at a call: the thread's clock is the call's entry clock.
        let clock = clocks.clock(slot);
        self.finalize.call(&call, event, clock);
        self.probes.call(&call, event, clocks, self.latest_enter);
    }

    fn finish(self, rank: Rank, tables: &RunTables, out: &mut Findings) {
        let clocks = &self.concurrent.clocks;
        let threads = tables.rank_threads(rank);
        // One thread that started none: nothing to check.
        if !self.several_threads
            && threads.is_none_or(|t| {
                t.parallel_regions.iter().all(|r| r.threads < 2) && t.thread_starts.is_empty()
            })
        {
            return;
        }
        let possible = !self.untimed && threads.is_some_and(|t| t.sync_recorded);
        let main = self
            .init
            .map_or(self.first_thread.unwrap_or(0), |init| init.thread);
        let ended = Ended {
            rank,
            main,
            init: self.init,
            possible,
            workshares: threads.map_or(&[][..], |t| t.workshares.as_slice()),
        };
        self.finalize.finish(&ended, clocks, out);
        self.probes.finish(&ended, clocks, out);
        self.concurrent.finish(rank, tables, out);
    }
}

/// What the checks learn of a rank at its end.
pub(super) struct Ended<'t> {
    pub rank: Rank,
    /// The thread that initialized MPI (else the rank's first thread).
    pub main: u16,
    pub init: Option<InitCall>,
    /// Calls unordered by the recorded synchronization may be reported (it was recorded
    /// and every call has a time).
    pub possible: bool,
    pub workshares: &'t [crate::model::WorkshareBlock],
}

impl Ended<'_> {
    /// The `single` block or section of a team of several threads that the main thread was
    /// executing when it made `call` ([`super::RankThreads::main_thread_workshare`]).
    pub fn main_thread_workshare(&self, call: &Call) -> Option<&crate::model::WorkshareBlock> {
        let order = call.time?.order;
        if call.thread != self.main {
            return None;
        }
        let mut blocks = self
            .workshares
            .iter()
            .filter(|b| b.thread == self.main && b.team >= 2);
        // A thread's blocks do not overlap: the last one it began before the call.
        let block = blocks.rfind(|b| b.begin_order < order)?;
        (order < block.end_order).then_some(block)
    }
}
