//! The checks and their registry: [`REGISTRY`] lists every check once, in the order they
//! run. The catalogue (`mpicheck checks`, `mpicheck explain`, SARIF rules, the codes a
//! suppression file or a tier-2 program may name) and [`run_all`] come from it.
//!
//! A check is a type implementing [`Check`] (in [`check`]) in its own file under its
//! family's folder, with its `CheckInfo` (code, name, category, severity, docs); adding one
//! is that file, its `pub mod` line, its tests and one line here. Checks share a
//! [`Context`] (the run, its replays on demand, and data passed between checks in declared
//! [`Slot`]s); helpers for messages and locations are in [`describe`].
//!
//! The CLI calls [`run_all`], [`catalogue`] and (live, on a hung job) [`actual_deadlock`]
//! and [`mismatch_stall`]; tests run chosen checks with [`run_checks`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::diagnostic::{Category, CheckInfo, Diagnostic};
use crate::model::Run;

pub mod argument;
mod check;
pub mod collective;
pub mod collective_call;
mod context;
pub mod datatype;
pub mod deadlock;
mod describe;
pub(crate) mod few_map;
pub mod message_race;
pub(crate) mod pass;
pub mod pending_buffer;
pub mod request;
pub mod resource;
pub mod rma;
pub mod threads;

pub(crate) use check::{Check, Needs, Slot};
pub(crate) use context::Context;
pub(crate) use describe::{call_location, site_location, stuck_locations, Involved};

/// Every check, in the order they run: first the checks of single calls and object
/// lifecycles, which need no replay (their findings are there even when the run was cut
/// short by the bad call itself), then collectives and datatypes, then deadlocks and races
/// (the fillers of a [`Slot`] before its readers), then threads. Findings come out in this
/// order.
static REGISTRY: &[&dyn Check] = &[
    &argument::rank_out_of_range::RankOutOfRange, // AR001
    &argument::invalid_tag::InvalidTag,           // AR002
    &argument::negative_count::NegativeCount,     // AR003
    &argument::null_handle::NullHandle,           // AR004
    &argument::freed_handle::FreedHandle,         // AR005
    &argument::uncommitted_datatype::UncommittedDatatype, // AR006
    &argument::null_buffer::NullBuffer,           // AR007
    &argument::in_place::InPlaceNotAllowed,       // AR008
    &argument::before_init::CallBeforeInit,       // AR009
    &argument::after_finalize::CallAfterFinalize, // AR010
    &argument::invalid_color::InvalidColor,       // AR011
    &argument::invalid_topology::InvalidTopology, // AR012
    &argument::missing_topology::MissingTopology, // AR013
    &argument::invalid_rank_list::InvalidRankList, // AR014
    &argument::invalid_assert::InvalidAssert,     // AR015
    &argument::invalid_partition::InvalidPartition, // AR016
    &argument::overlapping_buffers::OverlappingBuffers, // BF002
    &request::RequestLifecycle,                   // RQ001-RQ004, BF001
    &resource::leak::ObjectNeverFreed,            // RS001
    &resource::buffer_not_detached::BufferNeverDetached, // RS002
    &resource::bsend_buffer::BsendBuffer,         // RS003, RS004
    &rma::RmaChecks,                              // RM001-RM009, DR001, DR003, DR004
    &pending_buffer::PendingBufferAccess,         // DR002
    &collective::CollectiveChecks,                // CO001-CO006, TY001
    &datatype::point_to_point::MessageTypeMismatch, // TY002, TY003
    &deadlock::ActualDeadlock,                    // DL001
    &deadlock::PotentialDeadlock,                 // DL002
    &deadlock::WildcardDeadlock,                  // DL003
    &request::never_received::MessageNeverReceived, // RQ005
    &message_race::MessageRace,                   // MR001
    &threads::ThreadChecks,                       // TH001-TH007
];

/// Every check's code, name, category, severity and docs, in registry order.
pub fn catalogue() -> &'static [CheckInfo] {
    static CATALOGUE: OnceLock<Vec<CheckInfo>> = OnceLock::new();
    CATALOGUE.get_or_init(|| REGISTRY.iter().flat_map(|c| c.infos()).copied().collect())
}

/// Runs every check.
pub fn run_all(run: &Run) -> Vec<Diagnostic> {
    run_selected(run, |_| true)
}

/// Runs the checks of the given codes alone (and, unseen, the checks whose data they
/// read): their findings only. An unknown code is an error.
pub fn run_checks(run: &Run, codes: &[&str]) -> Result<Vec<Diagnostic>, String> {
    if let Some(unknown) = codes
        .iter()
        .find(|code| !catalogue().iter().any(|c| c.code == **code))
    {
        return Err(format!("unknown check code `{unknown}`"));
    }
    Ok(run_selected(run, |info| codes.contains(&info.code)))
}

/// Runs the checks that report a code `wanted` accepts, after the checks that fill what
/// they read, and returns the findings of the wanted codes.
fn run_selected(run: &Run, wanted: impl Fn(&CheckInfo) -> bool) -> Vec<Diagnostic> {
    let (found, undeclared) = run_selected_noting(run, wanted);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    found
}

/// [`run_all`] with the events given to the passes in `order` (each entry names the rank
/// whose next event comes; [`pass::interleavings`] gives some), for tests: the findings
/// must not depend on it. The replays' program goes to a temporary file two operations
/// at a time, compressed from the start, so that what the replays read from it is tested
/// too.
#[doc(hidden)]
pub fn run_all_fed_in(run: &Run, order: &[crate::model::Rank]) -> Vec<Diagnostic> {
    if run.ranks.is_empty() {
        return Vec::new();
    }
    let temp = std::env::temp_dir();
    let spill = crate::engine::SpillTo {
        dir: &temp,
        chunk: 2,
        compress_from: 0,
    };
    let mut plan = Plan::new(|_| true, &[], Some(spill));
    pass::feed_in(run, &mut plan.passes(), order);
    let (found, undeclared) = plan.finish(run);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    found
}

/// [`run_all_fed_in`], with the matches of nonblocking receives coming late, just before
/// the call that completes each receive, as [`analyze_streaming`] gives them to the
/// passes (for tests: the findings must not depend on when a match is known).
#[doc(hidden)]
pub fn run_all_fed_late_in(run: &Run, order: &[crate::model::Rank]) -> Vec<Diagnostic> {
    if run.ranks.is_empty() {
        return Vec::new();
    }
    let mut plan = Plan::new(|_| true, &[], None);
    pass::feed_late_in(run, &mut plan.passes(), order);
    let (found, undeclared) = plan.finish(run);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    found
}

pub use pass::interleavings;

/// [`run_all_fed_late_in`] with every pass given every event, not only the kinds it wants
/// ([`pass::EventPass::wants`]), for tests: the findings must be the same.
#[doc(hidden)]
pub fn run_all_fed_every_event_late_in(run: &Run, order: &[crate::model::Rank]) -> Vec<Diagnostic> {
    if run.ranks.is_empty() {
        return Vec::new();
    }
    let mut plan = Plan::new(|_| true, &[], None);
    pass::feed_ordered_to(run, &mut pass::Fed::every_event(plan.passes()), order, true);
    let (found, undeclared) = plan.finish(run);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    found
}

/// [`run_all`], checking that the passes find the same fed in every order of
/// [`interleavings`] (a panic names the order that differs), with the matches of
/// nonblocking receives known at their events or coming late (and late, with every pass
/// given every event, not only the kinds it wants), and that the checks find the
/// same when the run keeps only each rank's last event once the passes saw them all (as
/// [`analyze_streaming`] keeps its last ones), for tests.
#[doc(hidden)]
pub fn run_all_in_every_order(run: &Run) -> Vec<Diagnostic> {
    let all = run_all(run);
    for order in interleavings(run) {
        assert_eq!(
            run_all_fed_in(run, &order),
            all,
            "fed in the order {order:?}"
        );
        assert_eq!(
            run_all_fed_late_in(run, &order),
            all,
            "fed in the order {order:?}, the matches late"
        );
        assert_eq!(
            run_all_fed_every_event_late_in(run, &order),
            all,
            "fed in the order {order:?}, the matches late, every pass every event"
        );
    }
    assert_eq!(
        run_all_keeping_last_events(run, 1),
        all,
        "keeping last events"
    );
    all
}

/// [`run_all`], the checks after the passes given `run` with only each rank's last `n`
/// events, for tests: what [`analyze_streaming`] gives them.
#[doc(hidden)]
pub fn run_all_keeping_last_events(run: &Run, n: usize) -> Vec<Diagnostic> {
    if run.ranks.is_empty() {
        return Vec::new();
    }
    let mut plan = Plan::new(|_| true, &[], None);
    pass::feed(run, &mut plan.passes());
    let mut last = run.clone();
    for trace in &mut last.ranks {
        trace.events.drain(..trace.events.len().saturating_sub(n));
    }
    let tables = pass::RunTables::of(&last);
    plan.finish_passes(&tables, &crate::normalize::numbering::Numbering::default());
    let (found, undeclared) = plan.finish(&last);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    found
}

/// Every check's uses of the context that its [`Needs`] do not declare, and codes it
/// reports that its infos do not list, on this run (for tests).
#[doc(hidden)]
pub fn undeclared_uses(run: &Run) -> Vec<String> {
    run_selected_noting(run, |_| true).1
}

fn run_selected_noting(
    run: &Run,
    wanted: impl Fn(&CheckInfo) -> bool,
) -> (Vec<Diagnostic>, Vec<String>) {
    if run.ranks.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut plan = Plan::new(wanted, &[], None);
    pass::feed(run, &mut plan.passes());
    plan.finish(run)
}

/// How many of each rank's last events the run [`analyze_streaming`] returns keeps (for
/// reports: where each rank was when its trace ended), when it does not keep them all.
pub const LAST_EVENTS_KEPT: usize = 32;

/// What the analysis keeps of the events: each rank's last ones. (Every check is a pass,
/// or reads what passes gathered: the RMA codes judged once every event came read the calls
/// on windows and the happens-before skeleton their pass builds.)
pub(crate) const KEEP: crate::normalize::Keep =
    crate::normalize::Keep::LastEvents(LAST_EVENTS_KEPT);

/// Whether the analysis of `traces` holds something of every message and collective until
/// the checks end (a program that makes RMA windows: the happens-before skeleton the RMA
/// checks query once every event came, a few words per operation, with every call on a
/// window and the calls with buffers in exposed window memory), rather than about what is
/// live.
pub fn holds_call_skeleton(traces: &[mpicheck_trace::Trace]) -> bool {
    rma::makes_windows(traces.iter().flat_map(|t| t.called_functions()))
}

/// Whether `function` (its name in the traces) makes an RMA window: one call of it, in any
/// trace, makes [`holds_call_skeleton`] of the traces true (so a caller of
/// [`analyze_following`] can stop as soon as it reads one).
pub fn makes_window(function: &str) -> bool {
    rma::makes_windows(std::iter::once(function))
}

/// Normalizes the traces and runs every check: the passes over the events while the events
/// are made, and the replays' program compiled then, the other checks on the run
/// afterwards, once `prepare` (the launcher's model of threads it saw polling) has changed
/// it. `polling` names those threads ((rank, thread)) for the compiled program. Returns
/// the run with the findings: its tables, how each rank ended, and each rank's last
/// [`LAST_EVENTS_KEPT`] events, so that the analysis holds about what its passes and
/// compiled program hold, not every event. The replays' program goes to an unnamed
/// temporary file in `spill_dir` (the traces' directory) once large, so that it does not
/// hold memory either.
pub fn analyze_streaming<I, R>(
    traces: &[mpicheck_trace::Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, mpicheck_trace::TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> crate::model::SourceLocation,
    polling: &[(crate::model::Rank, u16)],
    spill_dir: Option<&std::path::Path>,
    prepare: impl FnOnce(&mut Run),
) -> Result<(Run, Vec<Diagnostic>), crate::normalize::NormalizeError>
where
    I: Iterator<Item = Result<R, mpicheck_trace::TraceError>>,
    R: std::borrow::Borrow<mpicheck_trace::CallRecord>,
{
    analyze_streaming_in(
        traces,
        calls,
        resolve,
        polling,
        prepare,
        crate::normalize::Order::EntryTime,
        Holding {
            keep: KEEP,
            spill: spill_dir.map(crate::engine::SpillTo::dir),
            calls: Calls::Scanned,
        },
        &mut |_| None,
    )
}

/// [`analyze_streaming`] of traces read while their processes run (`mpicheck run` analyzes
/// as the job goes): `traces` as they were once every rank initialized MPI, `calls(i)`
/// waiting for each trace's final records, `ended(i)` the trace as its process left it
/// (how the rank ended), asked once its calls are over. Which functions the program calls
/// is not known beforehand: every pass runs as if any could be, but a window constructor:
/// the caller must not use the result for a program that makes RMA windows
/// ([`holds_call_skeleton`] of the traces as they ended), whose checks need a skeleton of
/// every operation gathered from the start; it may end `calls` with an error at the first
/// call of one ([`makes_window`]), which ends the analysis there. The threads the launcher
/// saw polling, if it ends the analysis at a stall, are known only then: `polling` names
/// them once the calls are over, and `prepare` models them in the run as in
/// [`analyze_streaming`].
#[allow(clippy::too_many_arguments)]
pub fn analyze_following<I, R>(
    traces: &[mpicheck_trace::Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, mpicheck_trace::TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> crate::model::SourceLocation,
    spill_dir: Option<&std::path::Path>,
    ended: &mut dyn FnMut(usize) -> Option<mpicheck_trace::Trace>,
    polling: PollingAtTheEnd,
    prepare: impl FnOnce(&mut Run),
) -> Result<(Run, Vec<Diagnostic>), crate::normalize::NormalizeError>
where
    I: Iterator<Item = Result<R, mpicheck_trace::TraceError>>,
    R: std::borrow::Borrow<mpicheck_trace::CallRecord>,
{
    let spill = spill_dir.map(crate::engine::SpillTo::dir);
    let plan = Plan::new(|_| true, &[], spill).polling_named_at_the_end(polling);
    stream_checks(
        traces,
        calls,
        resolve,
        plan,
        prepare,
        crate::normalize::Order::EntryTime,
        (KEEP, Calls::Unknown),
        ended,
    )
}

/// Names the threads the launcher saw polling ((rank, thread)) once the events are over,
/// for an analysis that did not know them when it started ([`analyze_following`]).
pub type PollingAtTheEnd = Box<dyn Fn() -> Vec<(crate::model::Rank, u16)>>;

/// What the analysis holds in memory: which events it keeps, and where the replays'
/// program goes once large (`None`: it stays in memory); and whether the traces say
/// which functions the program calls.
pub(crate) struct Holding<'a> {
    pub keep: crate::normalize::Keep,
    pub spill: Option<crate::engine::SpillTo<'a>>,
    pub calls: Calls,
}

/// What the passes are told of the functions the program calls ([`pass::EventPass::scanned`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Calls {
    /// The traces were scanned whole: the functions they hold calls of.
    #[default]
    Scanned,
    /// Read while the processes run: any function of their tables may be called, but no
    /// window constructor (the caller must not use the result for a program that made
    /// windows, [`holds_call_skeleton`]).
    Unknown,
}

/// [`analyze_streaming`], the ranks' calls normalized in `order`, holding what `holding`
/// says; `ended` as in [`analyze_following`] (`|_| None`: the traces are whole).
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze_streaming_in<I, R>(
    traces: &[mpicheck_trace::Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, mpicheck_trace::TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> crate::model::SourceLocation,
    polling: &[(crate::model::Rank, u16)],
    prepare: impl FnOnce(&mut Run),
    order: crate::normalize::Order,
    holding: Holding,
    ended: &mut dyn FnMut(usize) -> Option<mpicheck_trace::Trace>,
) -> Result<(Run, Vec<Diagnostic>), crate::normalize::NormalizeError>
where
    I: Iterator<Item = Result<R, mpicheck_trace::TraceError>>,
    R: std::borrow::Borrow<mpicheck_trace::CallRecord>,
{
    let Holding {
        keep,
        spill,
        calls: known,
    } = holding;
    let plan = Plan::new(|_| true, polling, spill);
    stream_checks(
        traces,
        calls,
        resolve,
        plan,
        prepare,
        order,
        (keep, known),
        ended,
    )
}

/// [`analyze_streaming_in`] with the checks `plan` selected, keeping the events `keep` says.
#[allow(clippy::too_many_arguments)]
fn stream_checks<I, R, W: Fn(&CheckInfo) -> bool>(
    traces: &[mpicheck_trace::Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, mpicheck_trace::TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> crate::model::SourceLocation,
    mut plan: Plan<W>,
    prepare: impl FnOnce(&mut Run),
    order: crate::normalize::Order,
    (keep, known): (crate::normalize::Keep, Calls),
    ended: &mut dyn FnMut(usize) -> Option<mpicheck_trace::Trace>,
) -> Result<(Run, Vec<Diagnostic>), crate::normalize::NormalizeError>
where
    I: Iterator<Item = Result<R, mpicheck_trace::TraceError>>,
    R: std::borrow::Borrow<mpicheck_trace::CallRecord>,
{
    // Read while the processes run, the traces do not yet say which functions they call.
    let mut called: Vec<&str> = match known {
        Calls::Scanned => traces.iter().flat_map(|t| t.called_functions()).collect(),
        // But windows: their checks' skeleton of every operation is not gathered; a
        // program that made windows is analyzed again from its finished traces.
        Calls::Unknown => traces
            .iter()
            .flat_map(|t| (0..t.schema.len()).map(|id| t.function_name(id as u16)))
            .filter(|&f| !rma::makes_windows(std::iter::once(f)))
            .collect(),
    };
    called.sort_unstable();
    called.dedup();
    for (_, pass) in &mut plan.passes {
        pass.scanned(&called);
        if let Calls::Scanned = known {
            pass.scanned_whole();
        }
    }
    let (mut run, numbering) = crate::normalize::normalize_streaming_into(
        traces,
        calls,
        resolve,
        &mut plan.passes(),
        order,
        keep,
        ended,
    )?;
    // The passes saw the ids as the calls came: they hand out their findings before the
    // run is renumbered, in the order of the final ids.
    plan.finish_passes(
        &pass::RunTables::of(&run).numbered_by(&numbering),
        &numbering,
    );
    numbering.apply(&mut run);
    prepare(&mut run);
    if run.ranks.is_empty() {
        return Ok((run, Vec::new()));
    }
    let (found, undeclared) = plan.finish(&run);
    debug_assert!(undeclared.is_empty(), "{undeclared:?}");
    Ok((run, found))
}

/// The checks a selection of codes runs, and the passes among them, made before the events
/// are fed to them; with the compiler of the replays' program, if a needed check replays.
struct Plan<W> {
    wanted: W,
    /// By registry index: reports a wanted code.
    selected: Vec<bool>,
    /// By registry index: selected, or fills a slot that a needed check reads.
    needed: Vec<bool>,
    /// The needed checks that are passes over the events, with their registry index.
    passes: Vec<(usize, Box<dyn pass::EventPass>)>,
    /// The needed argument checks' passes, fed as one.
    issue_passes: argument::IssuePasses,
    /// By registry index: the findings of a pass already finished, and what it filled.
    finished: Vec<Option<(Vec<Diagnostic>, pass::Filled)>>,
    /// Fed with the passes, while a needed check replays.
    compiler: Option<crate::engine::ProgramCompiler>,
    /// What the compiler made, once the events ended.
    program: Option<crate::engine::Program>,
    /// Names the polling threads once the events ended, when they were not known before
    /// ([`Plan::polling_named_at_the_end`]).
    polling_at_the_end: Option<PollingAtTheEnd>,
}

impl<W: Fn(&CheckInfo) -> bool> Plan<W> {
    /// `polling`: the threads ((rank, thread)) the launcher saw polling when it ended a
    /// hung job.
    /// `spill`: where the replays' program goes once large (else it stays in memory).
    fn new(
        wanted: W,
        polling: &[(crate::model::Rank, u16)],
        spill: Option<crate::engine::SpillTo>,
    ) -> Plan<W> {
        let selected = selected_by(&wanted);
        let needed = needed_by(&selected);
        let mut passes = Vec::new();
        let mut issue_passes = argument::IssuePasses::default();
        for (i, check) in REGISTRY.iter().enumerate().filter(|&(i, _)| needed[i]) {
            if let Some(pass) = check.pass() {
                match pass.issue_spec() {
                    Some(spec) => issue_passes.add(i, spec),
                    None => passes.push((i, pass)),
                }
            }
        }
        let replays =
            (0..REGISTRY.len()).any(|i| needed[i] && !REGISTRY[i].needs().replays.is_empty());
        Plan {
            wanted,
            selected,
            needed,
            passes,
            issue_passes,
            finished: (0..REGISTRY.len()).map(|_| None).collect(),
            compiler: replays.then(|| crate::engine::ProgramCompiler::new(polling, spill)),
            program: None,
            polling_at_the_end: None,
        }
    }

    /// The polling threads are named by `polling` once the events ended: the compiler
    /// keeps every thread's trailing polls until then.
    fn polling_named_at_the_end(mut self, polling: PollingAtTheEnd) -> Plan<W> {
        if let Some(compiler) = &mut self.compiler {
            compiler.keep_polls_of_every_thread();
        }
        self.polling_at_the_end = Some(polling);
        self
    }

    /// Finishes every pass on `tables`, what they fill renumbered by
    /// `numbering`; their findings wait for their check's turn.
    fn finish_passes(
        &mut self,
        tables: &pass::RunTables,
        numbering: &crate::normalize::numbering::Numbering,
    ) {
        for (i, pass) in std::mem::take(&mut self.passes) {
            let mut filled = pass::Filled::default();
            let found = pass.finish_filling(tables, &mut filled);
            self.finished[i] = Some((found, filled.renumbered(numbering)));
        }
        for (i, found) in std::mem::take(&mut self.issue_passes).finish_each(tables) {
            self.finished[i] = Some((found, pass::Filled::default()));
        }
        if let (Some(compiler), Some(polling)) = (&mut self.compiler, &self.polling_at_the_end) {
            compiler.set_polling(&polling());
        }
        self.program = self.compiler.take().map(|c| c.into_program(tables));
    }

    /// The passes, to be fed together (not the idle ones: [`pass::EventPass::idle`]).
    fn passes(&mut self) -> Vec<&mut dyn pass::EventPass> {
        let mut out: Vec<&mut dyn pass::EventPass> = Vec::new();
        for (_, pass) in &mut self.passes {
            if !pass.idle() {
                out.push(pass.as_mut());
            }
        }
        if !self.issue_passes.is_empty() {
            out.push(&mut self.issue_passes);
        }
        if let Some(compiler) = &mut self.compiler {
            out.push(compiler);
        }
        out
    }

    /// The passes' findings, and the other needed checks' on `run`, once every event was
    /// fed to the passes; with the uses of the context the checks did not declare.
    fn finish(self, run: &Run) -> (Vec<Diagnostic>, Vec<String>) {
        let Plan {
            wanted,
            selected,
            needed,
            passes,
            issue_passes,
            finished: mut pass_findings,
            compiler,
            program,
            polling_at_the_end: _,
        } = self;
        let tables = pass::RunTables::of(run);
        for (i, pass) in passes {
            let mut filled = pass::Filled::default();
            let found = pass.finish_filling(&tables, &mut filled);
            pass_findings[i] = Some((found, filled));
        }
        for (i, found) in issue_passes.finish_each(&tables) {
            pass_findings[i] = Some((found, pass::Filled::default()));
        }
        // A copy made to judge a stall runs only what its verdict reads.
        let needed: Vec<bool> = match STALL_VERDICT_ONLY.load(Ordering::Acquire) {
            true => (needed.iter())
                .zip(needed_by(&selected_by(&reports_on_a_stall)))
                .map(|(&needed, for_the_verdict)| needed && for_the_verdict)
                .collect(),
            false => needed,
        };
        let ctx = Context::new(run);
        if let Some(program) = program.or_else(|| compiler.map(|c| c.into_program(&tables))) {
            ctx.set_program(program);
        }
        let mut out = Vec::new();
        for (i, check) in REGISTRY.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            ctx.set_running(check.infos().first().map_or("?", |c| c.code), check.needs());
            let found = match pass_findings[i].take() {
                Some((found, filled)) => {
                    filled.into_context(&ctx);
                    check.with_pass_findings(&ctx, found)
                }
                None => check.run(&ctx),
            };
            for d in &found {
                if !check.infos().iter().any(|c| c.code == d.code) {
                    ctx.note_undeclared(format!(
                        "reports {}, which its infos() do not list",
                        d.code
                    ));
                }
            }
            if selected[i] {
                out.extend(found.into_iter().filter(|d| {
                    catalogue()
                        .iter()
                        .find(|c| c.code == d.code)
                        .is_some_and(&wanted)
                }));
            }
        }
        (out, ctx.take_undeclared())
    }
}

/// DL001 alone, for the launcher watching a job whose ranks are all blocked.
pub fn actual_deadlock(run: &Run) -> Option<Diagnostic> {
    run_selected(run, |c| c.code == deadlock::DL001.code)
        .into_iter()
        .next()
}

/// For the launcher watching a job whose ranks are all blocked although the recorded calls
/// do not deadlock: the mismatches that explain the stall ([`explains_stall`]), or `None`.
pub fn mismatch_stall(run: &Run) -> Option<Vec<Diagnostic>> {
    if !some_rank_blocked(run) {
        return None;
    }
    let found = run_selected(run, explains_stall);
    (!found.is_empty()).then_some(found)
}

/// The mismatches that explain why a job whose recorded calls do not deadlock is stuck: the
/// collective or datatype mismatches (an MPI often hangs inside mismatched collectives), the
/// active-target epochs whose `MPI_MODE_NOCHECK` nothing backs or whose post and start
/// groups do not name each other (an MPI may then hang in `MPI_Win_wait`), and accumulates
/// with an operation MPI does not define for their datatype (MPICH 4.0 then spins in the
/// next `MPI_Win_fence` forever).
fn explains_stall(check: &CheckInfo) -> bool {
    matches!(
        check.category,
        Category::CollectiveMismatch | Category::TypeMismatch
    ) || [rma::RM007.code, rma::RM008.code, rma::RM009.code].contains(&check.code)
}

fn some_rank_blocked(run: &Run) -> bool {
    run.ranks
        .iter()
        .any(|t| t.events.last().is_some_and(|e| !e.returned))
}

/// For the launcher watching a job whose ranks are all blocked: what explains the stall,
/// from the traces streamed as [`analyze_streaming`] streams them (holding what is live,
/// not every event, so that a job that hangs after billions of calls is judged in bounded
/// memory): the deadlock (DL001) if the recorded calls deadlock, else the mismatches of
/// [`mismatch_stall`] if a rank is blocked, else `None`. `prepare` models the polling
/// threads as in [`analyze_streaming`]. Returns the run (its tables and last events, for
/// the report) with the findings.
pub fn stall_streaming<I, R>(
    traces: &[mpicheck_trace::Trace],
    calls: &mut dyn FnMut(usize) -> Result<I, mpicheck_trace::TraceError>,
    resolve: &mut dyn FnMut(usize, u64) -> crate::model::SourceLocation,
    polling: &[(crate::model::Rank, u16)],
    spill_dir: Option<&std::path::Path>,
    prepare: impl FnOnce(&mut Run),
) -> Result<(Run, Option<Vec<Diagnostic>>), crate::normalize::NormalizeError>
where
    I: Iterator<Item = Result<R, mpicheck_trace::TraceError>>,
    R: std::borrow::Borrow<mpicheck_trace::CallRecord>,
{
    let wanted = reports_on_a_stall;
    let spill = spill_dir.map(crate::engine::SpillTo::dir);
    let plan = Plan::new(wanted, polling, spill);
    let order = crate::normalize::Order::EntryTime;
    let holding = (KEEP, Calls::Scanned);
    let (run, found) = stream_checks(
        traces,
        calls,
        resolve,
        plan,
        prepare,
        order,
        holding,
        &mut |_| None,
    )?;
    let explained = stall_explanation(&run, &found);
    Ok((run, explained))
}

/// By registry index: whether the check reports a code `wanted` selects.
fn selected_by(wanted: &impl Fn(&CheckInfo) -> bool) -> Vec<bool> {
    REGISTRY
        .iter()
        .map(|c| c.infos().iter().any(wanted))
        .collect()
}

/// By registry index: whether the check runs for the `selected` ones (they or a check that
/// fills what they read).
fn needed_by(selected: &[bool]) -> Vec<bool> {
    // Fillers come before their readers (tested), so one backward pass finds them all.
    let mut needed = selected.to_vec();
    for i in (0..REGISTRY.len()).rev() {
        if !needed[i] {
            continue;
        }
        for slot in REGISTRY[i].needs().reads {
            for j in 0..i {
                if REGISTRY[j].needs().fills(*slot) {
                    needed[j] = true;
                }
            }
        }
    }
    needed
}

/// Set in a copy of the analysis made to judge a stall ([`judge_only_the_stall`]).
static STALL_VERDICT_ONLY: AtomicBool = AtomicBool::new(false);

/// For a copy of a running analysis made only to judge a stall (`mpicheck run` forks one):
/// from now on, the checks that run once the events are over are only those whose findings
/// [`stall_explanation`] reads, and what they need: not the strict replay's potential
/// deadlocks or the wildcard explorations, which cost most of the end of a long run.
pub fn judge_only_the_stall() {
    STALL_VERDICT_ONLY.store(true, Ordering::Release);
}

/// The checks the launcher asks when every rank is blocked: the deadlock, and the
/// mismatches that explain a stall ([`explains_stall`]).
fn reports_on_a_stall(check: &CheckInfo) -> bool {
    check.code == deadlock::DL001.code || explains_stall(check)
}

/// Among the `findings` of every check on `run` (the traces of a job whose ranks are all
/// blocked), what explains the stall: the deadlock (DL001) if the recorded calls deadlock,
/// else the mismatches of [`mismatch_stall`] if a rank is blocked, else `None`. What
/// [`stall_streaming`] concludes, for an analysis that ran every check (the one following
/// the job, ended at the stall).
pub fn stall_explanation(run: &Run, findings: &[Diagnostic]) -> Option<Vec<Diagnostic>> {
    let (deadlock, mismatches): (Vec<Diagnostic>, Vec<Diagnostic>) = findings
        .iter()
        .filter(|d| {
            catalogue()
                .iter()
                .any(|c| c.code == d.code && reports_on_a_stall(c))
        })
        .cloned()
        .partition(|d| d.code == deadlock::DL001.code);
    if !deadlock.is_empty() {
        Some(deadlock)
    } else if some_rank_blocked(run) && !mismatches.is_empty() {
        Some(mismatches)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is wrong with an order of checks: a check that reads a [`Slot`] before (or
    /// without) a check that fills it.
    fn order_problems(registry: &[&dyn Check]) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, check) in registry.iter().enumerate() {
            let code = check.infos().first().map_or("?", |c| c.code);
            for slot in check.needs().reads {
                let fillers: Vec<usize> = (0..registry.len())
                    .filter(|&j| registry[j].needs().fills(*slot))
                    .collect();
                if fillers.is_empty() {
                    problems.push(format!("{code} reads {slot:?}, which no check fills"));
                }
                if let Some(&late) = fillers.iter().find(|&&j| j >= i) {
                    let by = registry[late].infos().first().map_or("?", |c| c.code);
                    problems.push(format!("{code} reads {slot:?} before {by} fills it"));
                }
            }
        }
        problems
    }

    #[test]
    fn every_slot_is_filled_before_it_is_read() {
        assert_eq!(order_problems(REGISTRY), Vec::<String>::new());
        // The test can fail: DL002 before CO001 and DL001.
        let mut reversed: Vec<&dyn Check> = REGISTRY.to_vec();
        reversed.reverse();
        let problems = order_problems(&reversed).join("\n");
        assert!(
            problems.contains("DL002 reads MismatchedComms before CO001 fills it"),
            "{problems}"
        );
        assert!(problems.contains("MR001 reads WildcardInconclusive before DL003"));
        assert!(order_problems(&[&message_race::MessageRace])[0].contains("no check fills"));
    }

    #[test]
    fn every_check_lists_its_codes_once() {
        let mut codes: Vec<&str> = catalogue().iter().map(|c| c.code).collect();
        assert!(REGISTRY.iter().all(|c| !c.infos().is_empty()));
        assert_eq!(
            codes.len(),
            REGISTRY.iter().map(|c| c.infos().len()).sum::<usize>()
        );
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), catalogue().len(), "codes are unique");
    }

    #[test]
    fn a_check_runs_alone_with_what_it_reads() {
        assert_eq!(
            run_checks(&Run::default(), &["XX001"]).unwrap_err(),
            "unknown check code `XX001`"
        );
    }
}
