//! The one pass of [`super::ThreadChecks`] (issue 14): TH001-TH007 from each rank's calls,
//! synchronization records and marks ([`ThreadMark`]: regions, worksharing blocks, objects
//! used and freed) as they come, in record order ([`RankState`]).
//!
//! Per rank it keeps the threads' vector clocks ([`ThreadClocks`], in the state of
//! [`super::concurrent`], which finds TH003 and TH005), the call that initialized MPI, the
//! thread level as far as known (what only another level needs is not kept), the open
//! regions and blocks with the sites called in them, and what each check still needs of
//! the calls seen ([`super::level`], [`super::finalize`], [`super::probe`],
//! [`super::single`], [`super::freed`]): calls folded by call site, the calls some thread
//! may still be concurrent with, each thread's latest use of live objects and requests.
//! It grows with call sites, threads and live objects, not with the calls (the exceptions,
//! each a finding to come, are in [`super::level`], [`super::single`] and
//! [`super::probe`]). What needs how the rank ended (its thread level, whether it recorded
//! synchronization and timed every call, its blocks' teams, its thread starts) is decided
//! in [`EventPass::finish`], from [`RunTables::rank_threads`]. A rank whose records all came
//! from one thread, as its trace's scan says ([`ThreadMark::OnlyThread`]), keeps none of
//! this but what one thread alone can be reported for.
//!
//! Two facts of record order spare keeping clocks per call: a call never happens before a
//! call of another thread recorded before it (a thread's epoch grows past every value it
//! released), and a thread's calls do not overlap one another, so of its calls recorded
//! before a given call only its last one can still be inside MPI (as in
//! [`super::concurrent`], a thread preempted between reserving its record and reading its
//! entry time can break the second).

use std::collections::BTreeSet;

use super::{always_allowed, concurrent, finalize, freed, level, probe, single, Findings};
use crate::checks::pass::{EventPass, RunTables, ThreadMark};
use crate::diagnostic::Diagnostic;
use crate::model::{
    CallTime, Event, Op, Rank, SiteId, SyncEvent, ThreadInfo, ThreadLevel, WorkshareBlock,
};
use crate::threads::ThreadClocks;

/// TH001-TH007 over the events.
#[derive(Default)]
pub(crate) struct ThreadPass {
    /// By rank: its state, once something came of it.
    ranks: Vec<Option<RankState>>,
    /// The traces were scanned whole: [`ThreadMark::OnlyThread`] holds.
    scanned_whole: bool,
}

impl ThreadPass {
    /// [`EventPass::event`] for a call that may change something.
    #[inline(never)]
    fn call(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        self.rank(rank).call(index, event, tables);
    }

    fn rank(&mut self, rank: Rank) -> &mut RankState {
        let r = rank as usize;
        if self.ranks.len() <= r {
            self.ranks.resize_with(r + 1, || None);
        }
        self.ranks[r].get_or_insert_with(RankState::default)
    }
}

impl EventPass for ThreadPass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        // (Most calls of a single-threaded rank change nothing: answered without the rest's
        // register saves.)
        if let Some(Some(state)) = self.ranks.get(rank as usize) {
            if state.changes_nothing(event) {
                return;
            }
        }
        self.call(rank, index, event, tables);
    }

    fn scanned_whole(&mut self) {
        self.scanned_whole = true;
    }

    fn sync(&mut self, rank: Rank, sync: &SyncEvent) {
        let state = self.rank(rank);
        // (One thread's synchronization orders nothing the checks pair.)
        if !state.one_thread {
            state.concurrent.clocks.sync(sync);
        }
    }

    fn mark(&mut self, rank: Rank, mark: &ThreadMark) {
        if let ThreadMark::OnlyThread(_) = mark {
            if !self.scanned_whole {
                return;
            }
        }
        self.rank(rank).mark(mark);
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let mut findings = Findings::default();
        for (rank, state) in self.ranks.into_iter().enumerate() {
            if let Some(state) = state {
                state.finish(rank as Rank, tables, &mut findings);
            }
        }
        findings.into_diagnostics_on(tables)
    }
}

/// What a [`ThreadPass`] holds, summed over the ranks (for the tests of its memory).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadHeld {
    /// TH003 and TH005's, with the clocks.
    pub concurrent: concurrent::Held,
    /// Calls (or calls folded by site) the other checks keep, with their findings so far.
    pub calls: usize,
    /// Open parallel regions and worksharing blocks.
    pub open: usize,
}

#[cfg(test)]
impl ThreadPass {
    /// What the pass holds now.
    pub fn held(&mut self) -> ThreadHeld {
        let mut held = ThreadHeld::default();
        for state in self.ranks.iter_mut().flatten() {
            state.concurrent.add_held(&mut held.concurrent);
            held.open += state.regions.len() + state.blocks.len();
            held.calls += state.regions.iter().map(|r| r.calls.len()).sum::<usize>()
                + state.blocks.iter().map(|b| b.calls.len()).sum::<usize>()
                + state.level.held()
                + state.finalize.held()
                + state.probes.held()
                + state.single.held()
                + state.freed.held();
        }
        held
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

    /// Whether both were inside MPI at the same moment (`crate::threads::overlap` of two events).
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
    /// The level `MPI_Init_thread` returned, if recorded.
    pub level: Option<ThreadLevel>,
    /// Its record order (`u64::MAX` if unknown).
    pub order: u64,
}

/// An open parallel region, while a rank's checks may need it (TH001 and TH006 under
/// `MPI_THREAD_SINGLE`).
pub(super) struct OpenRegion {
    pub region: u32,
    /// The thread that opened it.
    pub thread: u16,
    pub begin: u64,
    /// The sites and functions of that thread's calls in it.
    pub calls: BTreeSet<(u32, &'static str)>,
    /// Some thread made an MPI call in it.
    pub any_call: bool,
}

/// An open worksharing block, while TH001 may need it (under `MPI_THREAD_FUNNELED`).
pub(super) struct OpenBlock {
    pub block: u32,
    pub thread: u16,
    pub begin: u64,
    /// The sites and functions of the thread's calls in it.
    pub calls: BTreeSet<(u32, &'static str)>,
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
    /// The record order of the first `MPI_Finalize` with a time.
    finalize_order: Option<u64>,
    /// Every record of the rank came from one thread ([`ThreadMark::OnlyThread`]): nothing
    /// that pairs calls of two threads is followed ([`RankState::call_of_the_only_thread`]).
    one_thread: bool,
    /// The thread level the trace says MPI provided ([`ThreadMark::Provided`]).
    provided: Option<ThreadLevel>,
    /// The last call, which marks about objects are about.
    last: Option<Call>,
    regions: Vec<OpenRegion>,
    blocks: Vec<OpenBlock>,
    level: level::Watch,
    finalize: finalize::Watch,
    probes: probe::Watch,
    single: single::Watch,
    freed: freed::Watch,
}

impl RankState {
    /// Whether the rank's thread level may be `level`, as far as is known yet: what is kept
    /// only for one level is not kept under another.
    fn may_be(&self, level: ThreadLevel) -> bool {
        self.provided
            .or(self.init.and_then(|i| i.level))
            .is_none_or(|l| l == level)
    }

    fn call(&mut self, index: usize, event: &Event, tables: &RunTables) {
        if self.one_thread {
            self.call_of_the_only_thread(event);
        } else {
            self.call_of_any_thread(index, event, tables);
        }
    }

    // (Not inlined into the short path of one thread's calls.)
    #[inline(never)]
    fn call_of_any_thread(&mut self, index: usize, event: &Event, tables: &RunTables) {
        let slot = self.concurrent.call(index, event, tables);
        match self.first_thread {
            None => self.first_thread = Some(event.thread),
            Some(first) if first != event.thread => self.several_threads = true,
            Some(_) => {}
        }
        self.note_init_and_finalize(event);
        match event.time {
            Some(time) => self.latest_enter = self.latest_enter.max(time.enter_ns),
            None => self.untimed = true,
        }
        let clocks = &self.concurrent.clocks;
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
        let allowed = always_allowed(call.call);
        if !allowed {
            // (The main thread's calls are not TH001's under these levels: once MPI_Init*
            // came, its thread is the main one.)
            let callers = (self.may_be(ThreadLevel::Single) || self.may_be(ThreadLevel::Funneled))
                && self.init.is_none_or(|init| init.thread != call.thread);
            let serialized = self.may_be(ThreadLevel::Serialized);
            // (With no caller to note and no call to pair, the watch has nothing to do.)
            if callers || serialized {
                self.level
                    .call(index, &call, clocks, self.latest_enter, callers, serialized);
            }
            self.single.call(&call);
            note_in_ranges(&mut self.regions, &mut self.blocks, &call);
            self.finalize.call(&call, event, clock);
        }
        if self.probes.wants(&event.op) {
            self.probes.call(&call, event, clocks, self.latest_enter);
        }
        if freed::Watch::wants(&event.op) {
            self.freed.call(&call, event, clock);
        }
        self.last = Some(call);
    }

    /// Whether [`RankState::call`] of `event` would change nothing: a call of a rank whose
    /// records all came from one thread, outside regions and blocks, neither its init nor
    /// its finalize, of the thread already noted ([`RankState::call_of_the_only_thread`]).
    #[inline]
    fn changes_nothing(&self, event: &Event) -> bool {
        self.one_thread
            && self.regions.is_empty()
            && self.blocks.is_empty()
            && self.first_thread.is_some()
            && self.single.noted(event.thread)
            && !matches!(event.op, Op::Init { .. } | Op::Finalize)
    }

    /// [`RankState::call`] for a rank whose records all came from one thread
    /// ([`ThreadMark::OnlyThread`]). What pairs calls of two threads finds nothing (TH003,
    /// TH004, TH005, TH007, TH001 under `MPI_THREAD_SERIALIZED` and of other threads than the
    /// main one, TH002 but for `MPI_Finalize` in a block), and is not followed: no clock, no
    /// group, no call kept, no time. What one thread does alone still is: the thread itself
    /// (TH006), its calls in parallel regions and worksharing blocks (TH001), its
    /// `MPI_Finalize` (in a block, TH002).
    fn call_of_the_only_thread(&mut self, event: &Event) {
        self.first_thread.get_or_insert(event.thread);
        self.note_init_and_finalize(event);
        // (Most calls: outside regions and blocks, of the thread already noted.)
        let finalize = matches!(event.op, Op::Finalize);
        if self.regions.is_empty()
            && self.blocks.is_empty()
            && self.single.noted(event.thread)
            && !finalize
        {
            return;
        }
        if always_allowed(event.call) {
            return;
        }
        let call = Call {
            thread: event.thread,
            slot: 0,
            site: event.site,
            call: event.call,
            time: event.time,
            // (No clock: nothing compares it.)
            epoch: 0,
        };
        self.single.call(&call);
        note_in_ranges(&mut self.regions, &mut self.blocks, &call);
        if finalize {
            self.finalize.call(&call, event, &[]);
        }
    }

    /// The first `MPI_Init*` and the first `MPI_Finalize`, when `event` is one.
    fn note_init_and_finalize(&mut self, event: &Event) {
        match event.op {
            Op::Init { thread_level } if self.init.is_none() => {
                self.init = Some(InitCall {
                    thread: event.thread,
                    site: event.site,
                    call: event.call,
                    level: thread_level.map(init_level),
                    order: event.time.map_or(u64::MAX, |t| t.order),
                });
            }
            Op::Finalize if self.finalize_order.is_none() => {
                self.finalize_order = event.time.map(|t| t.order);
            }
            _ => {}
        }
    }

    fn mark(&mut self, mark: &ThreadMark) {
        match *mark {
            ThreadMark::Provided(level) => self.provided = Some(level),
            ThreadMark::OnlyThread(_) => self.one_thread = true,
            ThreadMark::RegionBegin {
                region,
                thread,
                order,
            } => {
                if self.may_be(ThreadLevel::Single) {
                    self.regions.push(OpenRegion {
                        region,
                        thread,
                        begin: order,
                        calls: BTreeSet::new(),
                        any_call: false,
                    });
                }
            }
            ThreadMark::RegionEnd { region, threads } => {
                if let Some(i) = self.regions.iter().position(|r| r.region == region) {
                    let open = self.regions.remove(i);
                    self.close_region(open, threads);
                }
            }
            ThreadMark::BlockBegin {
                block,
                thread,
                order,
            } => {
                if self.may_be(ThreadLevel::Funneled) {
                    self.blocks.push(OpenBlock {
                        block,
                        thread,
                        begin: order,
                        calls: BTreeSet::new(),
                    });
                }
            }
            ThreadMark::BlockEnd { block } => {
                if let Some(i) = self.blocks.iter().position(|b| b.block == block) {
                    let open = self.blocks.remove(i);
                    // Only the main thread's blocks can be TH001's.
                    if self.init.is_none_or(|init| init.thread == open.thread) {
                        self.level.close_block(open);
                    }
                }
            }
            ThreadMark::Used { kind, object } => {
                if let Some(last) = self.last {
                    self.freed.used(kind, object, last);
                }
            }
            ThreadMark::Freed { kind, object } => {
                if let Some(last) = self.last {
                    let clock = self.concurrent.clocks.clock(last.slot);
                    self.freed.freed(kind, object, &last, clock);
                }
            }
        }
    }

    /// A parallel region of `threads` threads ended.
    fn close_region(&mut self, region: OpenRegion, threads: u32) {
        // A region of one thread breaks no promise of MPI_THREAD_SINGLE.
        if threads < 2 {
            return;
        }
        if !region.any_call {
            self.single.region_without_calls(region.region);
        }
        self.level.close_region(region, threads);
    }

    fn finish(mut self, rank: Rank, tables: &RunTables, out: &mut Findings) {
        let threads = tables.rank_threads(rank);
        // What is still open ends with the rank.
        for open in std::mem::take(&mut self.regions) {
            let region = threads.and_then(|t| t.parallel_regions.get(open.region as usize));
            self.close_region(open, region.map_or(0, |r| r.threads));
        }
        for open in std::mem::take(&mut self.blocks) {
            self.level.close_block(open);
        }
        // One thread that started none: nothing to check.
        if !self.several_threads
            && threads.is_none_or(|t| {
                t.parallel_regions.iter().all(|r| r.threads < 2) && t.thread_starts.is_empty()
            })
        {
            return;
        }
        let clocks = &self.concurrent.clocks;
        let possible = !self.untimed && threads.is_some_and(|t| t.sync_recorded);
        let main = self
            .init
            .map_or(self.first_thread.unwrap_or(0), |init| init.thread);
        let ended = Ended {
            rank,
            main,
            init: self.init,
            level: threads
                .and_then(|t| t.provided)
                .or(self.init.and_then(|i| i.level)),
            finalize_order: self.finalize_order.unwrap_or(u64::MAX),
            possible,
            threads,
        };
        self.level.finish(&ended, out);
        self.finalize.finish(&ended, clocks, out);
        self.probes.finish(&ended, clocks, out);
        self.single.finish(&ended, out);
        self.freed.finish(&ended, clocks, out);
        self.concurrent.finish(rank, tables, out);
    }
}

/// Notes `call` in the open regions its thread opened and in its open blocks (TH001).
fn note_in_ranges(regions: &mut [OpenRegion], blocks: &mut [OpenBlock], call: &Call) {
    let Some(time) = call.time else {
        return;
    };
    for r in regions {
        if r.thread == call.thread && time.order >= r.begin {
            r.calls.insert((call.site.0, call.call));
        }
        r.any_call |= time.order > r.begin;
    }
    for b in blocks {
        if b.thread == call.thread && time.order > b.begin {
            b.calls.insert((call.site.0, call.call));
        }
    }
}

/// The level `MPI_Init_thread` returned.
fn init_level(level: i32) -> ThreadLevel {
    match level {
        0 => ThreadLevel::Single,
        1 => ThreadLevel::Funneled,
        2 => ThreadLevel::Serialized,
        _ => ThreadLevel::Multiple,
    }
}

/// What the checks learn of a rank at its end.
pub(super) struct Ended<'t> {
    pub rank: Rank,
    /// The thread that initialized MPI (else the rank's first thread).
    pub main: u16,
    pub init: Option<InitCall>,
    /// The thread level MPI provided: as the trace says, else as `MPI_Init_thread` returned.
    pub level: Option<ThreadLevel>,
    /// The record order of the first `MPI_Finalize` with a time (`u64::MAX` if none).
    pub finalize_order: u64,
    /// Calls unordered by the recorded synchronization may be reported (it was recorded
    /// and every call has a time).
    pub possible: bool,
    /// What the trace recorded of the rank's threads.
    pub threads: Option<&'t ThreadInfo>,
}

impl Ended<'_> {
    /// Appended to messages about the level when the program called plain `MPI_Init`.
    pub fn init_hint(&self) -> &'static str {
        if self.init.is_some_and(|i| i.call == "MPI_Init") {
            " (MPI_Init requests no thread support: call MPI_Init_thread)"
        } else {
            ""
        }
    }

    /// Whether both threads' starts are known (only then can their calls be reported as
    /// possibly concurrent).
    pub fn known(clocks: &ThreadClocks, a: u16, b: u16) -> bool {
        let known = |thread| {
            clocks
                .slot_of_thread(thread)
                .is_some_and(|s| clocks.known(s))
        };
        known(a) && known(b)
    }

    /// The `single` block or section of a team of several threads that the main thread was
    /// executing when it made `call` (`RankThreads::main_thread_workshare` on a whole rank).
    pub fn main_thread_workshare(&self, call: &Call) -> Option<&WorkshareBlock> {
        let order = call.time?.order;
        if call.thread != self.main {
            return None;
        }
        let mut blocks = self
            .threads?
            .workshares
            .iter()
            .filter(|b| b.thread == self.main && b.team >= 2);
        // A thread's blocks do not overlap: the last one it began before the call.
        let block = blocks.rfind(|b| b.begin_order < order)?;
        (order < block.end_order).then_some(block)
    }
}
