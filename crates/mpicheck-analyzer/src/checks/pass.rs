//! Checks that read the run in one pass over its events (issue 14: an analysis whose memory
//! is bounded by what is live, not by the calls recorded).
//!
//! A check whose findings follow from each rank's events in order implements [`EventPass`]
//! and returns it from [`super::Check::pass`]: it sees every event once and keeps only what
//! it needs (for most, the findings so far, folded by call site), reading the run's tables
//! ([`RunTables`]), never other events. [`super::analyze_streaming`] feeds the passes while
//! the traces are normalized; [`feed`] feeds them from a [`Run`] held whole (tests, text
//! traces).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diagnostic::{CheckInfo, Diagnostic, Location};
use crate::model::{
    BufferAccess, CollectiveArgs, CommId, CommInfo, CommTable, DatatypeInfo, Event, ObjectKind, Op,
    Rank, RankEnd, RankTrace, ReqId, RmaCall, Run, SiteId, SourceLocation, SyncEvent, ThreadInfo,
    ThreadLevel, TypeId, WinId, WindowInfo,
};
use crate::normalize::numbering::Numbering;
use crate::text::Text;
use crate::typesig::Typed;

/// One check's pass over the events.
pub(crate) trait EventPass {
    /// The next event of `rank`, whose index in the rank is `index`. Each rank's events come
    /// in order; the events of different ranks may come interleaved. `tables` hold what the
    /// events seen so far point into (communicators, datatypes, collective arguments).
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables);
    /// The source and tag that receive `index` of `rank` matched, when they became known
    /// after its event was given: while the traces are normalized, a nonblocking receive's
    /// match is known when the call that completed it is (the event came with
    /// `recv.matched` unset), and comes just before that call's event. A pass that needs it
    /// keeps the receive until then, or until the receive is known never to get one (a
    /// wait completed it without, it was freed, or at [`EventPass::finish`]). Fed from a
    /// whole [`Run`], events come with it set and this is not called.
    fn matched(&mut self, _rank: Rank, _index: usize, _matched: (Rank, i32)) {}
    /// A synchronization record of the threads of `rank` (a release or acquire,
    /// [`crate::threads`]), in record order with the rank's events: a record comes before
    /// every event whose [`crate::model::CallTime::order`] is above its own. While the traces
    /// are normalized, each comes as it is read; fed from a whole [`Run`], from
    /// [`crate::model::ThreadInfo::sync`].
    fn sync(&mut self, _rank: Rank, _sync: &SyncEvent) {}
    /// What the trace of `rank` says of its threads besides synchronization
    /// ([`ThreadMark`]), as its records come.
    fn mark(&mut self, _rank: Rank, _mark: &ThreadMark) {}
    /// The functions the traces called (by their names in the traces), known from their
    /// scan before any event comes; not told when the events come from a whole [`Run`].
    fn scanned(&mut self, _called: &[&str]) {}
    /// The traces were scanned whole, not while their processes ran: what a trace's scan
    /// says of all its records ([`ThreadMark::OnlyThread`]) holds for the events to come.
    /// Told with [`EventPass::scanned`]; not told when the events come from a whole [`Run`].
    fn scanned_whole(&mut self) {}
    /// Once [`EventPass::scanned`] told it what the traces call: whether nothing the
    /// passes are fed can change this pass's findings (it has nothing to find in such a
    /// program). Such a pass is not fed at all, which spares a call per pass and event.
    fn idle(&self) -> bool {
        false
    }
    /// Once [`EventPass::scanned`] told it what the traces call: the kinds of event whose
    /// [`EventPass::event`] can change anything of this pass. The others are not given to
    /// it (nor cost a call per pass and event). A pass that declines a kind must do
    /// nothing at such an event: `run_all_in_every_order` (checks/mod.rs, used by the
    /// tier-1 text-trace tests) also feeds every pass every event and compares.
    fn wants(&self) -> Wants {
        Wants::ALL
    }
    /// Every member of communicator `comm` freed it: no later event names it, so what a
    /// pass keeps per communicator may go once nothing is open on it. While the traces are
    /// normalized, this comes after the event of the last member's `MPI_Comm_free`; fed from
    /// a whole [`Run`], never (the pass keeps its state to the end, with the same findings).
    fn comm_freed(&mut self, _comm: CommId, _tables: &RunTables) {}
    /// What an argument check's pass reports ([`super::argument::IssuePass`]): the plan
    /// feeds the passes of all argument checks as one ([`super::argument::IssuePasses`]).
    fn issue_spec(&self) -> Option<super::argument::IssueSpec> {
        None
    }
    /// The findings, once every event was seen.
    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic>;
    /// [`EventPass::finish`] for a pass whose check fills [`super::Slot`]s: what it hands to
    /// the checks after it goes into `filled`.
    fn finish_filling(self: Box<Self>, tables: &RunTables, filled: &mut Filled) -> Vec<Diagnostic> {
        let _ = filled;
        self.finish(tables)
    }
}

/// The kind of an [`Op`], for [`Wants`]: one per variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    Init,
    Finalize,
    Send,
    Recv,
    Sendrecv,
    Probe,
    Wait,
    RequestStatus,
    Start,
    Cancel,
    RequestFree,
    Collective,
    BufferAttach,
    BufferDetach,
    Other,
}

impl EventKind {
    /// The kind of `op`.
    #[inline]
    pub fn of(op: &Op) -> EventKind {
        match op {
            Op::Init { .. } => EventKind::Init,
            Op::Finalize => EventKind::Finalize,
            Op::Send { .. } => EventKind::Send,
            Op::Recv { .. } => EventKind::Recv,
            Op::Sendrecv { .. } => EventKind::Sendrecv,
            Op::Probe { .. } => EventKind::Probe,
            Op::Wait { .. } => EventKind::Wait,
            Op::RequestStatus { .. } => EventKind::RequestStatus,
            Op::Start { .. } => EventKind::Start,
            Op::Cancel { .. } => EventKind::Cancel,
            Op::RequestFree { .. } => EventKind::RequestFree,
            Op::Collective { .. } => EventKind::Collective,
            Op::BufferAttach { .. } => EventKind::BufferAttach,
            Op::BufferDetach => EventKind::BufferDetach,
            Op::Other => EventKind::Other,
        }
    }
}

/// The kinds of event a pass is given ([`EventPass::wants`]), a set of [`EventKind`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wants(u16);

impl Wants {
    /// Every event.
    pub const ALL: Wants = Wants(u16::MAX);

    /// The events of `kinds`.
    pub const fn only(kinds: &[EventKind]) -> Wants {
        let mut bits = 0;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1 << kinds[i] as u16;
            i += 1;
        }
        Wants(bits)
    }

    /// Whether an event of `kind` is wanted.
    #[inline]
    pub fn has(self, kind: EventKind) -> bool {
        self.0 & (1 << kind as u16) != 0
    }
}

/// The passes to be fed, each with the kinds of event it wants ([`EventPass::wants`],
/// asked once): the driver gives an event only to the passes that want its kind.
pub(crate) struct Fed<'p> {
    passes: Vec<(&'p mut dyn EventPass, Wants)>,
}

impl<'p> Fed<'p> {
    /// `passes`, each fed the events it wants.
    pub fn new(passes: Vec<&'p mut dyn EventPass>) -> Fed<'p> {
        Fed::with(passes, |pass| pass.wants())
    }

    /// `passes`, each fed every event (for the test that a pass declining a kind ignores
    /// it).
    pub fn every_event(passes: Vec<&'p mut dyn EventPass>) -> Fed<'p> {
        Fed::with(passes, |_| Wants::ALL)
    }

    fn with(
        passes: Vec<&'p mut dyn EventPass>,
        wants: impl Fn(&dyn EventPass) -> Wants,
    ) -> Fed<'p> {
        Fed {
            passes: passes
                .into_iter()
                .map(|pass| {
                    let w = wants(pass);
                    (pass, w)
                })
                .collect(),
        }
    }

    /// Gives `event` (`index` of `rank`) to the passes that want its kind.
    #[inline]
    pub fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        let kind = EventKind::of(&event.op);
        for (pass, wants) in self.passes.iter_mut() {
            if wants.has(kind) {
                pass.event(rank, index, event, tables);
            }
        }
    }

    /// Every pass, for what is given to all ([`EventPass::sync`], [`EventPass::mark`],
    /// [`EventPass::matched`], [`EventPass::comm_freed`]).
    pub fn all(&mut self) -> impl Iterator<Item = &mut (dyn EventPass + 'p)> + '_ {
        self.passes.iter_mut().map(|(pass, _)| &mut **pass)
    }
}

/// What a rank's trace says of its threads besides synchronization, given to the passes
/// with its events ([`EventPass::mark`]) so that a pass needs no look at the rank's whole
/// [`ThreadInfo`] with its events (the thread checks TH001, TH006 and TH007). Indices are
/// into the rank's [`ThreadInfo`] lists, which [`RunTables::rank_threads`] gives at the end.
///
/// A range (a parallel region, a worksharing block) begins before the first event whose
/// record order is at least its start and ends before the first event whose order is at
/// least its end. (Record orders are unique in a trace: no call is at a range's end.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ThreadMark {
    /// The thread level MPI provided, as the trace's header says ([`ThreadInfo::provided`]):
    /// before the rank's first event.
    Provided(ThreadLevel),
    /// Every record of the rank's trace came from `thread`
    /// ([`mpicheck_trace::Trace::only_thread`]), if the traces were scanned whole
    /// ([`EventPass::scanned_whole`]): no call of another thread comes. Before the rank's
    /// first event.
    OnlyThread(u16),
    /// Parallel region `region`, opened by `thread`, began (at record order `order`).
    RegionBegin {
        region: u32,
        thread: u16,
        order: u64,
    },
    /// Parallel region `region` ended, with how many threads ran in it.
    RegionEnd { region: u32, threads: u32 },
    /// Worksharing block `block` (a `single` or a section) of `thread` began (at record
    /// order `order`).
    BlockBegin { block: u32, thread: u16, order: u64 },
    /// Worksharing block `block` ended.
    BlockEnd { block: u32 },
    /// The event just given is its thread's latest use of the live object `object` (once
    /// the process started threads): another thread freeing it is TH007's if nothing orders
    /// the two.
    Used { kind: ObjectKind, object: i64 },
    /// The event just given freed the live object `object` (its last reference): it pairs
    /// with the other threads' latest uses ([`ThreadInfo::freed_after_use`]).
    Freed { kind: ObjectKind, object: i64 },
}

/// The marks of `trace` (from its [`ThreadInfo`]) with the index of the event they come
/// before (the number of events: after the last), in that order.
pub(crate) fn thread_marks(trace: &RankTrace) -> Vec<(usize, ThreadMark)> {
    let events = &trace.events;
    // The timed events' orders (ascending: events are in record order) and indices.
    let timed: Vec<(u64, usize)> = (events.iter().enumerate())
        .filter_map(|(i, e)| Some((e.time?.order, i)))
        .collect();
    // Before the first event whose order is at least `order` (untimed events do not count).
    let before = |order: u64| {
        let first = timed.partition_point(|&(o, _)| o < order);
        timed.get(first).map_or(events.len(), |&(_, i)| i)
    };
    let info = &trace.threads;
    let mut marks = Vec::new();
    if let Some(level) = info.provided {
        marks.push((0, ThreadMark::Provided(level)));
    }
    for (i, region) in info.parallel_regions.iter().enumerate() {
        let region_index = i as u32;
        marks.push((
            before(region.begin_order),
            ThreadMark::RegionBegin {
                region: region_index,
                thread: region.thread,
                order: region.begin_order,
            },
        ));
        if region.end_order != u64::MAX {
            marks.push((
                before(region.end_order),
                ThreadMark::RegionEnd {
                    region: region_index,
                    threads: region.threads,
                },
            ));
        }
    }
    for (i, block) in info.workshares.iter().enumerate() {
        let block_index = i as u32;
        marks.push((
            before(block.begin_order),
            ThreadMark::BlockBegin {
                block: block_index,
                thread: block.thread,
                order: block.begin_order,
            },
        ));
        if block.end_order != u64::MAX {
            marks.push((
                before(block.end_order),
                ThreadMark::BlockEnd { block: block_index },
            ));
        }
    }
    // Each pair its own object: the use, then the free.
    for (i, pair) in info.freed_after_use.iter().enumerate() {
        let (kind, object) = (pair.kind, i as i64);
        marks.push((pair.used + 1, ThreadMark::Used { kind, object }));
        marks.push((pair.freed + 1, ThreadMark::Freed { kind, object }));
    }
    // Stable: a region begins before it ends when both come before the same event.
    marks.sort_by_key(|(at, _)| *at);
    marks
}

/// Gives `passes` the marks of `trace` from `*next` on that come before its event `index`
/// (before the synchronization records that do: a mark about an event comes right after
/// it, while its thread's clock is still the one it entered with).
pub(crate) fn feed_marks_before(
    rank: Rank,
    marks: &[(usize, ThreadMark)],
    index: usize,
    next: &mut usize,
    passes: &mut Fed,
) {
    while let Some((_, mark)) = marks.get(*next).filter(|(at, _)| *at <= index) {
        for pass in passes.all() {
            pass.mark(rank, mark);
        }
        *next += 1;
    }
}

/// Whether the traces call a function whose name contains `part` in any case (`MPI_Bsend`,
/// `MPI_Ibsend_c`, Fortran's `mpi_bsend_`), from the names [`EventPass::scanned`] gives.
pub(crate) fn calls_named_with(called: &[&str], part: &str) -> bool {
    called.iter().any(|f| f.to_ascii_lowercase().contains(part))
}

/// For the tests of [`EventPass::idle`]: a pass `P` is idle only once a scan shows none of
/// `wakers` called. Not before a scan (fed from a whole run, it is not told), idle after a
/// scan of `unrelated`, and not after one of `unrelated` and any one of `wakers`.
#[cfg(test)]
pub(crate) fn assert_idle_only_without<P: EventPass + Default>(
    unrelated: &[&str],
    wakers: &[&str],
) {
    let idle_after = |called: &[&str]| {
        let mut pass = P::default();
        pass.scanned(called);
        pass.idle()
    };
    assert!(!P::default().idle(), "fed from a whole run: not told");
    assert!(idle_after(unrelated));
    for &waker in wakers {
        let called: Vec<&str> = unrelated.iter().copied().chain([waker]).collect();
        assert!(!idle_after(&called), "{waker}");
    }
}

/// What passes hand to the checks after them ([`super::Slot`]s), put into the
/// [`super::Context`] when their check's turn comes.
#[derive(Default)]
pub(crate) struct Filled {
    /// [`super::Slot::MismatchedComms`].
    pub mismatched_comms: BTreeSet<CommId>,
    /// What the RMA pass gathered for its own codes judged once every event came (not a
    /// slot: no other check reads it).
    pub rma_cross_rank: Option<super::rma::CrossRank>,
}

impl Filled {
    /// What was filled, in the ids of `numbering` (a pass fed while the traces were
    /// normalized fills in the ids it saw).
    pub fn renumbered(self, numbering: &Numbering) -> Filled {
        Filled {
            mismatched_comms: self
                .mismatched_comms
                .into_iter()
                .map(|c| numbering.comm(c))
                .collect(),
            rma_cross_rank: self.rma_cross_rank.map(|c| c.renumbered(numbering)),
        }
    }

    /// Puts what was filled into `ctx` (as the running check).
    pub fn into_context(self, ctx: &super::Context) {
        if !self.mismatched_comms.is_empty() {
            ctx.add_mismatched_comms(self.mismatched_comms);
        }
        if let Some(cross) = self.rma_cross_rank {
            ctx.set_rma_cross_rank(cross);
        }
    }
}

/// What a pass may read of the run besides its events: the tables the events point into
/// (call sites, communicators, datatypes, collective arguments, windows and the calls on
/// them), and the loads and stores into pending buffers recorded so far.
/// While the events stream, they hold what the events so far made; at the end, all of it.
///
/// Fed while the traces are normalized, a pass sees ids as the normalizer first gave them,
/// which depends on the order the ranks' calls came in; findings it lists by call site or
/// communicator go in the order of [`RunTables::site_order`] and [`RunTables::comm_order`]:
/// the ids of the run once numbered as if read rank after rank ([`Numbering`]), the same in
/// every run of a program.
pub(crate) struct RunTables<'r> {
    sites: &'r [SourceLocation],
    comms: &'r CommTable,
    datatypes: &'r [DatatypeInfo],
    collective_args: &'r CollectiveArgsTable,
    windows: &'r [WindowInfo],
    rma: &'r RmaCallTable,
    buffer_accesses: &'r [BufferAccess],
    traces: &'r [RankTrace],
    numbering: Option<&'r Numbering>,
}

/// [`Run::collective_args`]: the arguments of collective calls, by (rank, event index).
pub(crate) type CollectiveArgsTable = FxHashMap<(Rank, u32), Arc<CollectiveArgs>>;

/// [`Run::rma`]: the calls on windows, by (rank, event index).
pub(crate) type RmaCallTable = std::collections::HashMap<(Rank, u32), RmaCall>;

impl<'r> RunTables<'r> {
    /// All of the run's tables, with how each rank ended.
    pub fn of(run: &'r Run) -> RunTables<'r> {
        RunTables {
            traces: &run.ranks,
            ..RunTables::new(
                &run.sites,
                &run.comms,
                &run.datatypes,
                &run.collective_args,
                &run.windows,
                &run.rma,
                &run.buffer_accesses,
            )
        }
    }

    /// The tables while the events stream: how the ranks end is not known yet.
    pub fn new(
        sites: &'r [SourceLocation],
        comms: &'r CommTable,
        datatypes: &'r [DatatypeInfo],
        collective_args: &'r CollectiveArgsTable,
        windows: &'r [WindowInfo],
        rma: &'r RmaCallTable,
        buffer_accesses: &'r [BufferAccess],
    ) -> RunTables<'r> {
        RunTables {
            sites,
            comms,
            datatypes,
            collective_args,
            windows,
            rma,
            buffer_accesses,
            traces: &[],
            numbering: None,
        }
    }

    /// These tables, whose ids `numbering` renumbers into the run's final ones.
    pub fn numbered_by(self, numbering: &'r Numbering) -> RunTables<'r> {
        RunTables {
            numbering: Some(numbering),
            ..self
        }
    }

    /// Where `site` comes among the run's call sites once they are numbered for good (its
    /// final id): the order of findings listed by call site.
    pub fn site_order(&self, site: SiteId) -> u32 {
        self.numbering.map_or(site, |n| n.site(site)).0
    }

    /// Where `comm` comes among the run's communicators once they are numbered for good:
    /// the order of findings listed by communicator.
    pub fn comm_order(&self, comm: CommId) -> u32 {
        self.numbering.map_or(comm, |n| n.comm(comm)).0
    }

    /// The final ids of these tables' sites, communicators and windows, for a program
    /// compiled in these tables' ids.
    pub fn final_ids(&self) -> crate::engine::FinalIds {
        self.numbering.map(|n| n.final_ids()).unwrap_or_default()
    }

    /// Where `win` comes among the run's windows once they are numbered for good: the
    /// order of findings listed by window.
    pub fn window_order(&self, win: WinId) -> u32 {
        self.numbering.map_or(win, |n| n.window(win)).0
    }

    /// The communicators the events named so far, by id.
    pub fn comms(&self) -> &'r CommTable {
        self.comms
    }

    /// How many ranks the run has (known at the end: 0 while the events stream).
    pub fn rank_count(&self) -> u32 {
        self.traces.len() as u32
    }

    /// A window, if the events made it. While the events stream, its members' memory is
    /// there once each member's constructor call was given, and its name is empty: windows
    /// are named once numbered, at the end.
    pub fn window(&self, win: WinId) -> Option<&'r WindowInfo> {
        self.windows.get(win.0 as usize)
    }

    /// A datatype, if the events named it.
    pub fn datatype(&self, datatype: TypeId) -> Option<&'r DatatypeInfo> {
        self.datatypes.get(datatype.0 as usize)
    }

    /// A communicator, if the events named it.
    pub fn comm(&self, comm: CommId) -> Option<&'r CommInfo> {
        self.comms.get(comm)
    }

    /// `count` elements of `datatype` with the type's signature structure, if known.
    pub fn typed(&self, count: i64, datatype: Option<TypeId>) -> Option<Typed<'r>> {
        let layout = self
            .datatypes
            .get(datatype?.0 as usize)?
            .layout
            .as_deref()?;
        Some(Typed {
            count: u64::try_from(count).ok()?,
            layout,
        })
    }

    /// The arguments of the collective call that is event `index` of `rank` (shared: a
    /// pass may keep them).
    pub fn collective_args(&self, rank: Rank, index: usize) -> Option<&'r Arc<CollectiveArgs>> {
        let index = u32::try_from(index).ok()?;
        self.collective_args.get(&(rank, index))
    }

    /// The call on a window that is event `index` of `rank`, if it is one (known when its
    /// event is given).
    pub fn rma_call(&self, rank: Rank, index: usize) -> Option<&'r RmaCall> {
        self.rma.get(&(rank, u32::try_from(index).ok()?))
    }

    /// The loads and stores into pending buffers recorded so far (`mpicheck run
    /// --check-buffers`): an access of a rank is here once the rank's events before it
    /// ([`BufferAccess::events_before`]) were given, in the order the ranks' traces came
    /// while the events stream, and each rank's in its order (rank after rank at the end,
    /// [`Run::buffer_accesses`]).
    pub fn buffer_accesses(&self) -> &'r [BufferAccess] {
        self.buffer_accesses
    }

    /// How the trace of `rank` ended, if there is one (known at the end: `None` while the
    /// events stream).
    pub fn rank_end(&self, rank: Rank) -> Option<&'r RankEnd> {
        self.traces.get(rank as usize).map(|t| &t.end)
    }

    /// The last event of `rank`, once the events ended (`None` while they stream, and for
    /// a rank without events).
    pub fn last_event(&self, rank: Rank) -> Option<&'r Event> {
        self.traces.get(rank as usize)?.events.last()
    }

    /// What the trace of `rank` recorded of its threads, if there is one (known at the end:
    /// `None` while the events stream).
    pub fn rank_threads(&self, rank: Rank) -> Option<&'r ThreadInfo> {
        self.traces.get(rank as usize).map(|t| &t.threads)
    }

    /// The source location of a call site.
    pub fn site(&self, site: SiteId) -> &SourceLocation {
        static UNKNOWN: SourceLocation = SourceLocation {
            file: None,
            line: None,
            function: None,
            object: None,
            offset: None,
        };
        self.sites.get(site.0 as usize).unwrap_or(&UNKNOWN)
    }

    /// Where `call` was made at `site`, by `ranks`.
    pub fn location(
        &self,
        site: SiteId,
        ranks: impl Into<crate::ranks::RankSet>,
        call: &str,
        label: impl Into<Text>,
    ) -> Location {
        let loc = self.site(site);
        Location {
            ranks: ranks.into(),
            call: call.to_string(),
            file: loc.file.clone(),
            line: loc.line,
            function: loc.function.clone(),
            object: loc.object.clone(),
            offset: loc.offset,
            label: label.into(),
        }
    }
}

/// Feeds every event of `run` to `passes` (each the kinds it wants), rank after rank.
pub(crate) fn feed(run: &Run, passes: &mut [&mut dyn EventPass]) {
    feed_all(run, &mut Fed::new(reborrowed(passes)));
}

/// `passes` reborrowed, for a [`Fed`].
fn reborrowed<'p>(passes: &'p mut [&mut dyn EventPass]) -> Vec<&'p mut dyn EventPass> {
    passes.iter_mut().map(|pass| &mut **pass as _).collect()
}

/// [`feed`] to the passes of `passes`.
pub(crate) fn feed_all(run: &Run, passes: &mut Fed) {
    let tables = RunTables::of(run);
    for trace in &run.ranks {
        let (mut syncs, marks, mut next_mark) = (0, thread_marks(trace), 0);
        for (index, event) in trace.events.iter().enumerate() {
            feed_marks_before(trace.rank, &marks, index, &mut next_mark, passes);
            feed_syncs_before(trace, index, &mut syncs, passes);
            passes.event(trace.rank, index, event, &tables);
        }
        let end = trace.events.len();
        feed_marks_before(trace.rank, &marks, end, &mut next_mark, passes);
        feed_syncs_before(trace, end, &mut syncs, passes);
    }
}

/// Gives `passes` the synchronization records of `trace` from `*next` on that come before
/// its event `index` (all that are left, past its last event).
pub(crate) fn feed_syncs_before(
    trace: &RankTrace,
    index: usize,
    next: &mut usize,
    passes: &mut Fed,
) {
    let until = match trace.events.get(index) {
        Some(event) => match event.time {
            Some(time) => time.order,
            None => return,
        },
        None => u64::MAX,
    };
    while let Some(sync) = trace.threads.sync.get(*next).filter(|s| s.order < until) {
        for pass in passes.all() {
            pass.sync(trace.rank, sync);
        }
        *next += 1;
    }
}

/// Feeds the events of `run` to `passes` in `order`: each entry names the rank whose next
/// event comes. Every event must be named once.
pub(crate) fn feed_in(run: &Run, passes: &mut [&mut dyn EventPass], order: &[Rank]) {
    feed_ordered(run, passes, order, false);
}

/// Feeds the events of `run` to `passes` in `order` as [`feed_in`] does, with the matches
/// of nonblocking receives coming late, as while the traces are normalized: the receive's
/// event comes without its `recv.matched`, which comes through [`EventPass::matched`] just
/// before the rank's wait or test that completed the receive's request (or after the
/// rank's last event, if no call did).
pub(crate) fn feed_late_in(run: &Run, passes: &mut [&mut dyn EventPass], order: &[Rank]) {
    feed_ordered(run, passes, order, true);
}

fn feed_ordered(run: &Run, passes: &mut [&mut dyn EventPass], order: &[Rank], late_matches: bool) {
    feed_ordered_to(run, &mut Fed::new(reborrowed(passes)), order, late_matches);
}

/// [`feed_ordered`] to the passes of `passes`.
pub(crate) fn feed_ordered_to(run: &Run, passes: &mut Fed, order: &[Rank], late_matches: bool) {
    let tables = RunTables::of(run);
    let mut next = vec![0; run.ranks.len()];
    let mut syncs = vec![0; run.ranks.len()];
    let marks: Vec<_> = run.ranks.iter().map(thread_marks).collect();
    let mut next_mark = vec![0; run.ranks.len()];
    let mut late = LateMatches::new(run.ranks.len());
    for &rank in order {
        let r = rank as usize;
        let trace = &run.ranks[r];
        let index = next[r];
        next[r] += 1;
        feed_marks_before(rank, &marks[r], index, &mut next_mark[r], passes);
        feed_syncs_before(trace, index, &mut syncs[r], passes);
        let held;
        let event = if late_matches {
            held = late.event(rank, index, &trace.events[index], |at, matched| {
                for pass in passes.all() {
                    pass.matched(rank, at, matched);
                }
            });
            &held
        } else {
            &trace.events[index]
        };
        passes.event(rank, index, event, &tables);
        if index + 1 == trace.events.len() {
            feed_marks_before(rank, &marks[r], index + 1, &mut next_mark[r], passes);
            feed_syncs_before(trace, index + 1, &mut syncs[r], passes);
            late.rest(rank, |at, matched| {
                for pass in passes.all() {
                    pass.matched(rank, at, matched);
                }
            });
        }
    }
    assert!(
        next.iter()
            .zip(&run.ranks)
            .all(|(&n, t)| n == t.events.len()),
        "every event fed"
    );
}

/// The matches of nonblocking receives held back, for tests that feed events as the
/// normalizer does: a receive's event comes without its `recv.matched`, which comes just
/// before the rank's wait or test that completed the receive's request (or after the rank's
/// last event, if no call did).
pub(crate) struct LateMatches {
    /// By rank: the receives whose match is still to come.
    held: Vec<Vec<HeldMatch>>,
}

/// A nonblocking receive's request, its event and its match (source, tag).
type HeldMatch = (ReqId, usize, (Rank, i32));

impl LateMatches {
    pub(crate) fn new(ranks: usize) -> LateMatches {
        LateMatches {
            held: vec![Vec::new(); ranks],
        }
    }

    /// `rank`'s event `index` as it comes with matches late: its receive's match taken out
    /// and held; the held matches its wait or test completes given to `matched` (event,
    /// match) first.
    pub(crate) fn event(
        &mut self,
        rank: Rank,
        index: usize,
        event: &Event,
        mut matched: impl FnMut(usize, (Rank, i32)),
    ) -> Event {
        use crate::model::{Blocking, Op};
        let held = &mut self.held[rank as usize];
        let mut event = event.clone();
        if let Op::Wait {
            requests,
            completed,
            ..
        }
        | Op::RequestStatus {
            requests,
            completed,
            ..
        } = &event.op
        {
            let done: Vec<ReqId> =
                crate::checks::request::completed_requests(requests, completed).collect();
            held.retain(|&(request, at, m)| {
                let now = done.contains(&request);
                if now {
                    matched(at, m);
                }
                !now
            });
        }
        if let Op::Recv {
            recv,
            blocking: Blocking::Nonblocking(request),
        }
        | Op::Sendrecv {
            recv,
            blocking: Blocking::Nonblocking(request),
            ..
        } = &mut event.op
        {
            if let Some(m) = recv.matched.take() {
                held.push((*request, index, m));
            }
        }
        event
    }

    /// The matches still held for `rank`, given to `matched` (after its last event).
    pub(crate) fn rest(&mut self, rank: Rank, mut matched: impl FnMut(usize, (Rank, i32))) {
        for (_, at, m) in self.held[rank as usize].drain(..) {
            matched(at, m);
        }
    }
}

/// Orders of the ranks' events other than rank after rank, for tests: the ranks' events
/// alternating, the last rank first, and rank after rank.
#[doc(hidden)]
pub fn interleavings(run: &Run) -> [Vec<Rank>; 3] {
    let lens: Vec<usize> = run.ranks.iter().map(|t| t.events.len()).collect();
    let rank_after_rank = |ranks: &mut dyn Iterator<Item = usize>| -> Vec<Rank> {
        ranks
            .flat_map(|r| std::iter::repeat_n(r as Rank, lens[r]))
            .collect()
    };
    let mut alternating = Vec::new();
    for i in 0..lens.iter().copied().max().unwrap_or(0) {
        alternating.extend((0..lens.len()).filter(|&r| i < lens[r]).map(|r| r as Rank));
    }
    [
        rank_after_rank(&mut (0..lens.len())),
        alternating,
        rank_after_rank(&mut (0..lens.len()).rev()),
    ]
}

/// A function's name ([`Event::call`], interned) as a key of the maps a pass updates at
/// every event: hashed and compared by its address and length, not by its text. The same
/// text at two addresses (a name not interned, in tests) makes two keys, so a map keyed by
/// it must fold by text where it reports (its findings are sets of texts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ByAddress(pub &'static str);

impl PartialEq for ByAddress {
    fn eq(&self, other: &ByAddress) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for ByAddress {}

impl std::hash::Hash for ByAddress {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.as_ptr() as usize);
    }
}

/// Findings folded by call site: one per call site, call, message and label, with the ranks
/// that made it. Its memory grows with the distinct findings, not with the events.
#[derive(Default)]
pub(crate) struct SiteFindings {
    groups: BTreeMap<(u32, &'static str, Text, Text), BTreeSet<Rank>>,
}

impl SiteFindings {
    /// A finding at `event` of `rank`.
    pub fn add(
        &mut self,
        rank: Rank,
        event: &Event,
        message: impl Into<Text>,
        label: impl Into<Text>,
    ) {
        self.add_at(rank, event.site, event.call, message, label);
    }

    /// A finding at an earlier call of `rank`, known by its site and name.
    pub fn add_at(
        &mut self,
        rank: Rank,
        site: SiteId,
        call: &'static str,
        message: impl Into<Text>,
        label: impl Into<Text>,
    ) {
        self.groups
            .entry((site.0, call, message.into(), label.into()))
            .or_default()
            .insert(rank);
    }

    /// These findings with their messages and labels rewritten by `f` (`f` must keep
    /// distinct texts distinct).
    pub fn map_texts(self, f: impl Fn(Text) -> Text) -> SiteFindings {
        SiteFindings {
            groups: self
                .groups
                .into_iter()
                .map(|((site, call, message, label), ranks)| {
                    ((site, call, f(message), f(label)), ranks)
                })
                .collect(),
        }
    }

    /// One diagnostic of `info` per group, with its notes and help, in the order of their
    /// call site ([`RunTables::site_order`]), call, message and label.
    pub fn diagnostics(
        self,
        tables: &RunTables,
        info: &CheckInfo,
        notes: &[&str],
        help: &str,
    ) -> Vec<Diagnostic> {
        let mut groups: Vec<_> = self.groups.into_iter().collect();
        // Stable: a site's groups stay in the order of call, message and label.
        groups.sort_by_key(|((site, ..), _)| tables.site_order(SiteId(*site)));
        groups
            .into_iter()
            .map(|((site, call, message, label), ranks)| Diagnostic {
                code: info.code,
                category: info.category,
                severity: info.severity,
                message,
                locations: vec![tables.location(
                    SiteId(site),
                    ranks.into_iter().collect::<Vec<_>>(),
                    call,
                    label,
                )],
                notes: notes.iter().map(|&n| n.into()).collect(),
                help: Some(help.into()),
                wait_for: None,
                communicator: None,
                tag: None,
            })
            .collect()
    }
}

/// Feeding passes in other orders than [`feed`]'s, for tests: a pass must find the same
/// whatever the interleaving of the ranks' events.
#[cfg(test)]
pub(crate) mod interleave {
    use super::*;

    /// The findings of `pass` with the ranks' events fed in `order`: the next event of the
    /// rank named, each rank's in order. Every event must be named once.
    pub fn fed(run: &Run, mut pass: Box<dyn EventPass>, order: &[Rank]) -> Vec<Diagnostic> {
        feed_in(run, &mut [pass.as_mut()], order);
        pass.finish(&RunTables::of(run))
    }

    /// [`fed`], with the matches of nonblocking receives coming late, as while the traces
    /// are normalized: the receive's event comes without its `recv.matched`, which comes
    /// through [`EventPass::matched`] just before the rank's wait or test that completed the
    /// receive's request (or after the rank's last event, if no call did).
    pub fn fed_late(run: &Run, mut pass: Box<dyn EventPass>, order: &[Rank]) -> Vec<Diagnostic> {
        feed_late(run, pass.as_mut(), order);
        pass.finish(&RunTables::of(run))
    }

    /// Feeds `pass` as [`fed_late`] does, without finishing it.
    pub fn feed_late(run: &Run, pass: &mut dyn EventPass, order: &[Rank]) {
        feed_late_in(run, &mut [pass], order);
    }

    /// Rank after rank, the ranks' events alternating, and the last rank first.
    pub fn orders(run: &Run) -> [Vec<Rank>; 3] {
        interleavings(run)
    }

    /// The findings of `pass()` in every order of [`orders`], with the matches of
    /// nonblocking receives known at their events and coming late ([`fed_late`]), which
    /// must agree.
    pub fn same_in_every_order(
        run: &Run,
        pass: impl Fn() -> Box<dyn EventPass>,
    ) -> Vec<Diagnostic> {
        let orders = orders(run);
        let found = fed(run, pass(), &orders[0]);
        for order in &orders {
            assert_eq!(fed(run, pass(), order), found, "fed in the order {order:?}");
            assert_eq!(
                fed_late(run, pass(), order),
                found,
                "fed in the order {order:?}, the matches late"
            );
        }
        found
    }
}
