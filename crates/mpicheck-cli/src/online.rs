//! The analysis that follows the job while it runs (`mpicheck run`): once every rank has
//! initialized MPI, a thread of the supervisor reads each rank's trace as it is written
//! (`mpicheck_trace::follow`) and runs the streaming analysis on it, so that the report is
//! ready about when the job ends instead of an analysis starting then.
//!
//! The result is used only when it is the one the analysis of the finished traces would
//! give ([`Followed::stands_for`]); otherwise (the job ended by mpicheck, a program that
//! makes RMA windows, other traces chosen for the ranks, call sites in libraries loaded
//! after `MPI_Init`) the traces are analyzed after the job as before. Once it has read more
//! than `--release-traces-after` of a trace, it releases what it read ([`ReleaseBehind`]),
//! so that a long run uses bounded disk; its result is then the only one there can be (it
//! is not given up or stopped, and the supervisor makes it an ordinary thread to keep up,
//! [`Online::watched`]). When its result is sure to be thrown away (a followed trace shows a window
//! constructor, or mpicheck ends the job, [`Online::stop`]), the analysis stops there and
//! gives back its memory and files instead of following the job to its end. When every rank
//! is stuck, the supervisor has the stall judged by a copy of the analysis
//! ([`Online::judge_in_a_copy`], `stall_copy.rs`), so that the analysis goes on if the stall
//! proves nothing; to report a deadlock, it ends the analysis there
//! ([`Online::finish_at_stall`]) and judges the stall from its findings instead of reading
//! every trace again.
//!
//! With `MPICHECK_DEBUG_ONLINE` set, mpicheck says on stderr when the analysis finished,
//! whether it stopped early and why, whether its result was used and, if it gave up, why
//! (tests check which analysis ran).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::model::{Run, SourceLocation};
use mpicheck_trace::follow::{
    follow_trace_calls, scan_settled, FollowUntil, ReleaseBehind, WhileWaiting, RELEASE_STEP,
};
use mpicheck_trace::{Trace, TraceError};

use crate::analyze::PollingThread;
use crate::out_dir;
use crate::stall_copy::{CopyVerdict, StallQuestion};

mod cpu;
pub(crate) use cpu::process_cpu_time;
use cpu::{make_idle, make_ordinary, starves, thread_cpu_time, yield_to_the_job, CpuShare};

/// How often the thread looks for the ranks' traces before it can start.
const WAIT_FOR_RANKS: Duration = Duration::from_millis(100);
/// The analysis following a running job.
pub struct Online {
    job_over: Arc<AtomicBool>,
    /// Set when the result would be thrown away: the analysis stops reading and ends.
    stop: Arc<AtomicBool>,
    /// The thread's id (0 until it runs), to give it a CPU when the job is stuck.
    tid: Arc<AtomicI32>,
    /// The threads the launcher saw polling when it ends the analysis at a stall.
    polling: Arc<Mutex<Vec<PollingThread>>>,
    /// How far the hang watcher has read each trace (what may be released is before), how
    /// far its writer reserved it, and how far the analysis released it.
    progress: TraceProgress,
    /// Set once the analysis follows the traces releasing what it read (not for a program
    /// that may make RMA windows).
    releasing: Arc<AtomicBool>,
    /// Past this many bytes of a trace, its records read are released (`None`: never).
    release_after: Option<u64>,
    /// The thread was made an ordinary one to keep up with traces that are released.
    keeps_up: AtomicBool,
    /// A stall to judge in a copy of the analysis.
    stall: Arc<StallQuestion>,
    thread: JoinHandle<Result<Option<Followed>, String>>,
}

/// How the analysis thread got a CPU at a stall ([`Online::cpu_at_the_stall`]).
enum CpuAtTheStall<Paused> {
    /// It was made an ordinary thread.
    Ordinary,
    /// It stays idle, and the stuck ranks are stopped until the guard is dropped.
    RanksStopped(Paused),
}

/// By trace file: how far the hang watcher has read it and its writer reserved it (as the
/// watcher last saw), and how far the analysis released it.
type TraceProgress = Arc<Mutex<BTreeMap<PathBuf, Offsets>>>;

#[derive(Clone, Default)]
struct Offsets {
    watched: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
    released_to: Arc<AtomicU64>,
}

/// Whether records of a trace of `progress` were released: the traces cannot be read from
/// their start any more, so the analysis that released them is the only one there can be.
fn any_released(progress: &TraceProgress) -> bool {
    let progress = progress.lock().unwrap_or_else(|e| e.into_inner());
    progress
        .values()
        .any(|o| o.released_to.load(Ordering::Acquire) > 0)
}

/// What the analysis of the followed traces found, and which traces it read.
pub struct Followed {
    /// The trace file read for each world rank.
    rank_paths: BTreeMap<i32, PathBuf>,
    /// A call site lay outside the memory maps known when the analysis started (a library
    /// loaded later): resolved against the final maps, it might read otherwise.
    pub site_outside_maps: bool,
    /// Records of the traces were released: nothing else can analyze them, and this result
    /// stands with such call sites unresolved.
    pub released: bool,
    /// What this result lacks, when it stands for a run it did not read to its end.
    pub incomplete: Option<String>,
    pub run: Run,
    pub findings: Vec<Diagnostic>,
    /// Each polling thread named at a stall could be modelled as the blocking call its loop
    /// stands for (else the findings conclude nothing about the stall).
    pub polling_modelled: bool,
    /// Each rank's trace as its process left it, scanned when its calls were over (how the
    /// rank ended), by file: the analysis of the finished traces needs the same scan.
    pub ended: BTreeMap<PathBuf, EndedTrace>,
}

/// A trace scanned once its process left it, and what its file was then.
pub struct EndedTrace {
    pub trace: Trace,
    /// The file's length when it was scanned.
    len: u64,
}

impl EndedTrace {
    /// The scan of the file at `path`, if it is still the file that was scanned: the same
    /// length and header (where the records end, the process's state). Else the file must
    /// be scanned again (a process still wrote it).
    pub fn of_unchanged(self, path: &Path) -> Option<Trace> {
        let len = std::fs::metadata(path).ok()?.len();
        (len == self.len && out_dir::trace_header(path).as_ref() == Some(&self.trace.header))
            .then_some(self.trace)
    }
}

impl Online {
    /// Starts following the traces the job writes into `dir`. `release_after`: once the
    /// analysis has read this many bytes of a trace, it releases what it read
    /// ([`ReleaseBehind`]); `None` keeps the traces whole.
    pub fn start(dir: &Path, release_after: Option<u64>) -> Online {
        let job_over = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let dir = dir.to_path_buf();
        let (over, stopped) = (job_over.clone(), stop.clone());
        let tid = Arc::new(AtomicI32::new(0));
        let its_tid = tid.clone();
        let polling = Arc::new(Mutex::new(Vec::new()));
        let its_polling = polling.clone();
        let progress = TraceProgress::default();
        let releasing = Arc::new(AtomicBool::new(false));
        let release = release_after.map(|after_bytes| Release {
            after_bytes,
            progress: progress.clone(),
            releasing: releasing.clone(),
        });
        let stall = Arc::new(StallQuestion::default());
        let its_stall = stall.clone();
        let thread = std::thread::Builder::new()
            .name("mpicheck-online".into())
            .spawn(move || {
                // SAFETY: gettid(2) has no preconditions.
                its_tid.store(unsafe { libc::gettid() }, Ordering::Release);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    follow_and_analyze(&dir, over, stopped, its_polling, release, &its_stall)
                }));
                // (A copy made to judge a stall ends here, with its verdict.)
                if crate::stall_copy::in_a_copy() {
                    crate::stall_copy::end_the_copy(&result);
                }
                result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .expect("cannot start the analysis thread");
        Online {
            job_over,
            stop,
            tid,
            polling,
            progress,
            releasing,
            release_after,
            keeps_up: AtomicBool::new(false),
            stall,
            thread,
        }
    }

    /// The hang watcher has read the trace at `path` up to `offset`, and saw its writer
    /// reserve it up to `written`. Once a trace is large
    /// enough to be released, the analysis must keep up with the job for that (an idle
    /// thread gets no CPU beside ranks busy on every core, MPI's waiting included): it is
    /// made an ordinary thread where it can be (else it releases what it reads on the
    /// CPUs the job leaves idle).
    pub fn watched(&self, path: &Path, offset: u64, written: u64) {
        if self.release_after.is_some_and(|after| offset > after)
            && !self.keeps_up.swap(true, Ordering::AcqRel)
        {
            debug(&format!(
                "a trace passed {offset} bytes: the analysis during the run {} to release what it read",
                match self.leave_idle() {
                    true => "gets an ordinary share of the CPU",
                    false => "stays an idle thread (it cannot leave SCHED_IDLE), and may not keep up",
                }
            ));
        }
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let offsets = progress.entry(path.to_path_buf()).or_default();
        offsets.watched.store(offset, Ordering::Release);
        offsets.written.store(written, Ordering::Release);
    }

    /// While the analysis follows the traces releasing what it read: the bytes of records
    /// written to a trace that are not released yet, the most of any trace, and the bytes
    /// released of all traces (which grow as the analysis catches up).
    pub fn backlog(&self) -> Option<(u64, u64)> {
        if !self.releasing.load(Ordering::Acquire)
            || self.stop.load(Ordering::Acquire)
            || self.thread.is_finished()
        {
            return None;
        }
        let progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let (mut most, mut released) = (0, 0);
        for offsets in progress.values() {
            let released_to = offsets.released_to.load(Ordering::Acquire);
            // (What the writer reserved, whether the watcher read it yet or not.)
            let written = offsets.written.load(Ordering::Acquire);
            most = most.max(written.saturating_sub(released_to));
            released += released_to;
        }
        Some((most, released))
    }

    /// Whether records of a trace were released: nothing but this analysis can read the
    /// traces any more.
    pub fn released(&self) -> bool {
        any_released(&self.progress)
    }

    /// Every rank is stuck, `polling` the threads seen polling: the analysis reads the
    /// traces as they are now, as if the job were over, models each polling thread's loop as
    /// the blocking call it stands for, and ends (the caller judges the stall from its result
    /// instead of reading every trace again from its start). It needs a CPU the stuck ranks
    /// may be spinning on: when the thread cannot be given an ordinary share (`SCHED_IDLE`
    /// cannot be left without `CAP_SYS_NICE` or a `RLIMIT_NICE` allowing it), the analysis
    /// goes on following the job and is handed back.
    ///
    /// `pause_ranks`, called only when the thread cannot be made an ordinary one, may stop
    /// the stuck ranks instead (the guard it returns continues them when dropped, once the
    /// analysis ended): the idle thread then gets their CPUs, unless other work takes them
    /// (it is then given up, as in [`Online::finish`]).
    pub fn finish_at_stall<Paused>(
        self,
        polling: &[PollingThread],
        pause_ranks: impl FnOnce() -> Option<Paused>,
    ) -> Result<Option<Followed>, Online> {
        let Some(cpu) = self.cpu_at_the_stall(pause_ranks) else {
            debug("the analysis during the run cannot be given a CPU at the stall: the stall is analyzed from the traces' start");
            return Err(self);
        };
        debug(match cpu {
            CpuAtTheStall::Ordinary => "the analysis during the run ends at the stall",
            CpuAtTheStall::RanksStopped(_) => {
                "the analysis during the run ends at the stall, the stuck ranks stopped meanwhile"
            }
        });
        *self.polling.lock().unwrap_or_else(|e| e.into_inner()) = polling.to_vec();
        let followed = self.finish();
        drop(cpu);
        Ok(followed)
    }

    /// Every rank is stuck, `polling` the threads seen polling: a copy of the analysis judges
    /// the stall as [`Online::finish_at_stall`] would, and the analysis goes on
    /// (`stall_copy.rs`). The analysis thread is given a CPU for it, or the stuck ranks are
    /// stopped meanwhile (`pause_ranks`, as in [`Online::finish_at_stall`]). `interrupted`:
    /// the user's Ctrl-C, which ends the wait for the verdict.
    pub fn judge_in_a_copy<Paused>(
        &self,
        polling: &[PollingThread],
        pause_ranks: impl FnOnce() -> Option<Paused>,
        interrupted: &AtomicBool,
    ) -> CopyVerdict {
        if self.thread.is_finished() {
            return CopyVerdict::None;
        }
        let Some(cpu) = self.cpu_at_the_stall(pause_ranks) else {
            return CopyVerdict::None;
        };
        *self.polling.lock().unwrap_or_else(|e| e.into_inner()) = polling.to_vec();
        let t0 = std::time::Instant::now();
        // Left idle, the analysis (and its copy) may get next to no CPU beside other work
        // even with the ranks stopped: it is not waited for then, and the stall is judged
        // without it (as in `finish`), unless it released records (nothing else can judge).
        let mut share = (matches!(cpu, CpuAtTheStall::RanksStopped(_)) && !self.released())
            .then(|| self.analysis_cpu_time().map(CpuShare::watch))
            .flatten();
        let mut starved = false;
        let starving = || {
            starved = share.as_mut().is_some_and(|share| {
                self.analysis_cpu_time()
                    .is_some_and(|cpu| share.starves(cpu))
            });
            starved
        };
        let verdict = self
            .stall
            .ask(|| self.thread.is_finished(), starving, interrupted);
        // The threads polling at this stall are no model for the job's end.
        self.polling
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        // Idle again unless it keeps up with traces it releases (not once it ended: its
        // thread id may be another thread's).
        if matches!(cpu, CpuAtTheStall::Ordinary)
            && !self.keeps_up.load(Ordering::Acquire)
            && !self.thread.is_finished()
        {
            make_idle(self.tid.load(Ordering::Acquire));
        }
        drop(cpu);
        debug(&format!(
            "a copy of the analysis during the run judged the stall in {:.2} s: {}",
            t0.elapsed().as_secs_f64(),
            match verdict {
                CopyVerdict::Explained => "it explains it",
                CopyVerdict::Unproven => "it proves nothing, and the analysis goes on",
                CopyVerdict::None if starved => {
                    "no verdict: it gets no CPU beside other work (it cannot leave SCHED_IDLE)"
                }
                CopyVerdict::None => "no verdict",
            }
        ));
        verdict
    }

    /// A CPU for the analysis thread at a stall, where the stuck ranks may spin on every
    /// one: the thread made an ordinary one, or else the ranks stopped by `pause_ranks`;
    /// `None` if neither can be.
    fn cpu_at_the_stall<Paused>(
        &self,
        pause_ranks: impl FnOnce() -> Option<Paused>,
    ) -> Option<CpuAtTheStall<Paused>> {
        match self.leave_idle() {
            true => Some(CpuAtTheStall::Ordinary),
            false => pause_ranks().map(CpuAtTheStall::RanksStopped),
        }
    }

    /// The CPU time the analysis thread and the copy judging a stall have used, if the
    /// thread's can be read.
    fn analysis_cpu_time(&self) -> Option<Duration> {
        Some(thread_cpu_time(&self.thread)? + self.stall.copy_cpu_time())
    }

    /// Makes the analysis thread an ordinary one again ([`yield_to_the_job`] made it idle);
    /// true if it is (or has ended).
    fn leave_idle(&self) -> bool {
        if self.thread.is_finished() {
            return true;
        }
        let tid = self.tid.load(Ordering::Acquire);
        if tid == 0 {
            return false;
        }
        make_ordinary(tid)
    }

    /// The result of the analysis would be thrown away (`why`): it stops reading the traces
    /// and ends, giving back its memory and files, without waiting for the job.
    pub fn stop(&self, why: &str) {
        if !self.stop.swap(true, Ordering::AcqRel) {
            debug(&format!("the analysis during the run stops: {why}"));
        }
    }

    /// The job is over: the analysis reads what is left and ends. `None` when it could not
    /// start, failed or was stopped (the finished traces are then analyzed as usual).
    ///
    /// With the job over there is nothing to yield to: the thread is made an ordinary one
    /// again, else an idle thread on a machine busy with other work would get no CPU and the
    /// report would wait on that work. Where it must stay idle (no `CAP_SYS_NICE`), it is
    /// given up once it gets almost no CPU for [`cpu::STARVED_FOR`]: the traces are then analyzed
    /// by the caller's ordinary thread.
    pub fn finish(self) -> Option<Followed> {
        if self.thread.is_finished() {
            debug("the analysis during the run had ended before the job did");
        }
        self.job_over.store(true, Ordering::Release);
        let t0 = std::time::Instant::now();
        if !self.leave_idle() {
            if self.released() {
                // Nothing else can read the traces: it is waited for, however slow.
                debug("the analysis during the run stays an idle thread, and is waited for: the traces' records were released");
            } else if starves(&self.thread) {
                self.stop("it gets no CPU beside other work (it cannot leave SCHED_IDLE)");
                // Not joined: it ends when it next runs; the process may end before.
                return None;
            }
        }
        let joined = self.thread.join();
        debug(&format!(
            "online analysis finished {:.2} s after it was asked to end",
            t0.elapsed().as_secs_f64()
        ));
        match joined {
            Ok(Ok(None)) => {
                debug("no rank or not every rank of the world initialized MPI");
                None
            }
            Ok(Ok(followed)) => followed,
            Ok(Err(why)) => {
                debug(&format!("the analysis during the run gave up: {why}"));
                None
            }
            Err(_) => None,
        }
    }
}

/// Says `what` on stderr when `MPICHECK_DEBUG_ONLINE` is set (never in a copy of the
/// analysis, `stall_copy.rs`).
pub(crate) fn debug(what: &str) {
    if !crate::stall_copy::in_a_copy() && std::env::var_os("MPICHECK_DEBUG_ONLINE").is_some() {
        eprintln!("mpicheck: {what}");
    }
}

impl Followed {
    /// The traces read, as their processes left them (or as they were when the analysis
    /// ended at a stall).
    pub fn traces(&self) -> Vec<Trace> {
        self.ended.values().map(|e| e.trace.clone()).collect()
    }

    /// The findings that explain the stall this analysis was ended at: a deadlock, or
    /// mismatches the MPI hangs in (none if a polling thread's loop could not be modelled).
    pub fn stall_explanation(&self) -> Option<Vec<Diagnostic>> {
        mpicheck_analyzer::checks::stall_explanation(&self.run, &self.findings)
            .filter(|_| self.polling_modelled)
    }

    /// Whether this result, the analysis ended at a stall ([`Online::finish_at_stall`]), is
    /// what the traces read again would say: no call site it may have resolved otherwise,
    /// and no RMA window (which the thread stops at, but a rank may have made one since).
    pub fn judges_stall(&self) -> bool {
        let makes_window = |e: &EndedTrace| {
            e.trace
                .called_functions()
                .any(mpicheck_analyzer::checks::makes_window)
        };
        (!self.site_outside_maps || self.released) && !self.ended.values().any(makes_window)
    }

    /// Whether this result is what the analysis of the finished `traces` (read from `paths`)
    /// gives: the same trace for every rank, no call site it may have resolved otherwise,
    /// and no RMA window (the skeleton their checks query is not gathered online).
    pub fn stands_for(&self, traces: &[Trace], paths: &[PathBuf]) -> bool {
        if (self.site_outside_maps && !self.released)
            || mpicheck_analyzer::checks::holds_call_skeleton(traces)
        {
            return false;
        }
        let Ok(assignment) = mpicheck_analyzer::normalize::assign_ranks(traces) else {
            return false;
        };
        let chosen: BTreeMap<i32, PathBuf> = assignment
            .by_rank
            .iter()
            .map(|(&rank, &i)| (rank, paths[i].clone()))
            .collect();
        chosen == self.rank_paths && assignment.ignored.is_empty()
    }
}

/// The thread's work: waits for every rank's trace, then analyzes them as they grow, until
/// the job is over or `stop` is set (or the thread sets it: a rank made an RMA window).
fn follow_and_analyze(
    dir: &Path,
    job_over: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    polling: Arc<Mutex<Vec<PollingThread>>>,
    release: Option<Release>,
    stall: &Arc<StallQuestion>,
) -> Result<Option<Followed>, String> {
    yield_to_the_job();
    let progress = release.as_ref().map(|r| r.progress.clone());
    let Some((traces, paths, scanned_to)) = wait_for_ranks(dir, &job_over, &stop, stall)? else {
        return Ok(None);
    };
    // An RMA program's checks read the traces after the job (this analysis stops at its
    // first window): the traces of a program that may make one are kept whole.
    let release = release.filter(|_| {
        let maps = traces.iter().map(|t| t.proc_maps.as_str());
        match window_constructor_imported(maps) {
            Some((object, constructor)) => {
                debug(&format!("the traces are kept whole: {object} imports {constructor} (a program that makes RMA windows is analyzed after the job)"));
                false
            }
            None => true,
        }
    });
    if let Some(release) = &release {
        release.releasing.store(true, Ordering::Release);
    }
    debug(&format!(
        "the analysis during the run follows the traces of {} ranks{}",
        traces.len(),
        match job_over.load(Ordering::Acquire) {
            true => " (the job is over)",
            false => "",
        }
    ));
    let host = local_host();
    let (question, over) = (stall.clone(), job_over.clone());
    let waiting = WhileWaiting(Arc::new(move || question.at_the_frontier(&over)));
    let until = |trace: &Trace| FollowUntil {
        job_over: job_over.clone(),
        stop: stop.clone(),
        waiting: Some(waiting.clone()),
        // Only a process of this machine can be seen to be gone.
        local_pid: trace
            .process
            .iter()
            .any(|(key, value)| key == "host" && Some(value.as_str()) == host.as_deref())
            .then_some(trace.header.pid),
    };
    let maps: Vec<&str> = traces.iter().map(|t| t.proc_maps.as_str()).collect();
    let mut site_outside_maps = false;
    let mut resolve_known = crate::analyze::site_resolver(&maps);
    let mut resolve = |i: usize, address: u64| -> SourceLocation {
        if !maps_cover(maps[i], address) {
            site_outside_maps = true;
        }
        resolve_known(i, address)
    };
    // By trace, by function id: whether the function makes an RMA window (the result of a
    // program that makes one is thrown away: the analysis stops at its first call).
    let constructors: Vec<Vec<bool>> = traces
        .iter()
        .map(|t| {
            (0..t.schema.len())
                .map(|id| mpicheck_analyzer::checks::makes_window(t.function_name(id as u16)))
                .collect()
        })
        .collect();
    // The first window constructor read: (trace, function id).
    let made_window: std::cell::Cell<Option<(usize, u16)>> = Default::default();
    let mut ended = BTreeMap::new();
    let window = mpicheck_trace::window_for(traces.len());
    // By trace, by function id: the calls read (what the trace's scan counts, once records
    // of it were released and the scan cannot).
    let calls_read: Vec<std::cell::RefCell<Vec<u64>>> = traces
        .iter()
        .map(|t| std::cell::RefCell::new(vec![0; t.schema.len()]))
        .collect();
    let named = polling.clone();
    let polling_at_the_end =
        move || crate::analyze::polling_threads(&named.lock().unwrap_or_else(|e| e.into_inner()));
    let mut polling_modelled = true;
    let analyzed = mpicheck_analyzer::checks::analyze_following(
        &traces,
        &mut |i| {
            let (constructors, made_window, stop) = (&constructors[i], &made_window, &stop);
            let release = release
                .as_ref()
                .map(|r| (r.behind(&paths[i]), scanned_to[i]));
            let counting = release.is_some();
            let calls = follow_trace_calls(
                &paths[i],
                &traces[i].header,
                until(&traces[i]),
                window,
                release,
            )?;
            // (Counted only where the scan at the end may not: records may be released.)
            let calls_read = counting.then(|| &calls_read[i]);
            Ok(calls.map(move |call| match call {
                Ok(call) if constructors.get(call.func as usize) == Some(&true) => {
                    made_window.set(Some((i, call.func)));
                    stop.store(true, Ordering::Release);
                    Err(TraceError::Stopped)
                }
                Ok(call) => {
                    if let Some(calls_read) = calls_read {
                        let mut read = calls_read.borrow_mut();
                        let func = call.func as usize;
                        if read.len() <= func {
                            read.resize(func + 1, 0);
                        }
                        read[func] += 1;
                    }
                    Ok(call)
                }
                call => call,
            }))
        },
        &mut resolve,
        Some(dir),
        &mut |i| {
            let len = std::fs::metadata(&paths[i]).ok()?.len();
            let mut trace = mpicheck_trace::scan_trace_file_past_released(&paths[i]).ok()?;
            // (The scan counted only the calls after the records released.)
            if trace.header.released.is_some() {
                trace.set_calls_by_function(calls_read[i].take());
            }
            let kept = EndedTrace {
                trace: trace.clone(),
                len,
            };
            ended.insert(paths[i].clone(), kept);
            Some(trace)
        },
        Box::new(polling_at_the_end),
        |run| {
            let polling = polling.lock().unwrap_or_else(|e| e.into_inner());
            polling_modelled = crate::analyze::model_polling(run, &polling);
        },
    );
    if let Some((i, func)) = made_window.get() {
        let why = format!(
            "rank {} makes an RMA window ({})",
            traces[i].header.rank.unwrap_or(-1),
            traces[i].function_name(func)
        );
        debug(&format!("the analysis during the run stops: {why}"));
        return Err(why);
    }
    let (run, findings) = analyzed.map_err(|e| match e {
        mpicheck_analyzer::normalize::NormalizeError::Read {
            source: TraceError::Stopped,
            ..
        } => "it was stopped".to_string(),
        e => e.to_string(),
    })?;
    let rank_paths = traces
        .iter()
        .zip(&paths)
        .filter_map(|(t, p)| Some((t.header.rank?, p.clone())))
        .collect();
    Ok(Some(Followed {
        rank_paths,
        site_outside_maps,
        released: progress.as_ref().is_some_and(any_released),
        incomplete: None,
        run,
        findings: mpicheck_report::fold(findings),
        polling_modelled,
        ended,
    }))
}

/// What the analysis releases of the traces it read ([`Online::start`]).
struct Release {
    after_bytes: u64,
    progress: TraceProgress,
    releasing: Arc<AtomicBool>,
}

impl Release {
    /// How the trace at `path` is released; nothing past what the watcher read of it.
    fn behind(&self, path: &Path) -> ReleaseBehind {
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let offsets = progress.entry(path.to_path_buf()).or_default();
        ReleaseBehind {
            after_bytes: self.after_bytes,
            every_bytes: RELEASE_STEP.min(self.after_bytes.max(4096) as usize),
            watched: offsets.watched.clone(),
            released_to: offsets.released_to.clone(),
        }
    }
}

/// The traces of the ranks, as they were once every rank of the world initialized MPI and
/// wrote what it writes then (its memory map and MPI's constants), with their files and
/// where the records not scanned then begin; `None` if the job ended without that.
#[allow(clippy::type_complexity)]
fn wait_for_ranks(
    dir: &Path,
    job_over: &AtomicBool,
    stop: &AtomicBool,
    stall: &StallQuestion,
) -> Result<Option<(Vec<Trace>, Vec<PathBuf>, Vec<usize>)>, String> {
    // Scanned once each, when ready: the other ranks may run on meanwhile.
    let mut ready: BTreeMap<PathBuf, (Trace, usize)> = BTreeMap::new();
    loop {
        if stop.load(Ordering::Acquire) {
            return Err("it was stopped".into());
        }
        // Looked at once more after the job is over: a job shorter than a look still has its
        // traces analyzed here (read whole at once).
        let over = job_over.load(Ordering::Acquire);
        for path in out_dir::run_traces(dir).map_err(|e| e.to_string())? {
            if ready.contains_key(&path)
                || !out_dir::trace_header(&path).is_some_and(|h| h.initialized())
            {
                continue;
            }
            if let Ok((trace, scanned_to)) = scan_settled(&path) {
                if wrote_init_texts(&trace) && trace.header.rank.is_some() {
                    ready.insert(path, (trace, scanned_to));
                }
            }
        }
        let mut by_rank: BTreeMap<i32, (&(Trace, usize), &PathBuf)> = BTreeMap::new();
        let mut world_sizes = ready.values().filter_map(|(t, _)| t.header.world_size);
        let world_size = world_sizes.next();
        for (path, scanned) in &ready {
            let trace = &scanned.0;
            let rank = trace.header.rank.expect("ready traces have a rank");
            if trace.header.world_size != world_size
                || by_rank.insert(rank, (scanned, path)).is_some()
            {
                // Several worlds (spawned processes) or two processes of one rank.
                return Err("several initialized traces claim one rank".into());
            }
        }
        if world_size.is_some_and(|size| by_rank.len() == size as usize) {
            let mut ranks = (Vec::new(), Vec::new(), Vec::new());
            for ((trace, scanned_to), path) in by_rank.into_values() {
                ranks.0.push(trace.clone());
                ranks.1.push(path.clone());
                ranks.2.push(*scanned_to);
            }
            return Ok(Some(ranks));
        }
        if over {
            return Ok(None);
        }
        stall.cannot_answer_yet();
        std::thread::sleep(WAIT_FOR_RANKS);
    }
}

/// Whether the trace holds what its process writes once `MPI_Init` returned: MPI's
/// constants, which only an initialized MPI can say (the RMA assertions' values), written
/// after the memory map of the initialized MPI.
fn wrote_init_texts(trace: &Trace) -> bool {
    trace.constant("MPI_MODE_NOPRECEDE_VALUE").is_some()
}

/// An object mapped in the processes of `maps` (`/proc/<pid>/maps` each) that imports an
/// RMA window constructor, and that constructor, if any. MPI's own libraries (an MPI, its
/// Fortran bindings, mpicheck's library: those that define MPI functions) import what they
/// wrap and are not asked. A library loaded later (`dlopen`) is not seen.
fn window_constructor_imported<'a>(
    maps: impl Iterator<Item = &'a str>,
) -> Option<(String, String)> {
    let mut seen = std::collections::BTreeSet::new();
    for mapping in maps.flat_map(mpicheck_symbols::parse_maps) {
        let Some(path) = mapping.file_path() else {
            continue;
        };
        if path.starts_with("/dev/") || !seen.insert(path.to_string()) {
            continue;
        }
        let Some(symbols) = mpicheck_symbols::dynamic_symbols(Path::new(path), |name| {
            let name = name.to_ascii_lowercase();
            name.starts_with("mpi_") || name.starts_with("pmpi_")
        }) else {
            continue;
        };
        if !symbols.defined.is_empty() {
            continue;
        }
        let constructor = symbols.imported.iter().find_map(|symbol| {
            c_function_name(symbol).filter(|c| mpicheck_analyzer::checks::makes_window(c))
        });
        if let Some(constructor) = constructor {
            return Some((path.to_string(), constructor));
        }
    }
    None
}

/// The C name of the MPI function a C, profiling or Fortran symbol names
/// (`mpi_win_create_`, `MPI_WIN_CREATE`, `pmpi_win_create__`, `mpi_win_create_f08_` are
/// `MPI_Win_create`).
fn c_function_name(symbol: &str) -> Option<String> {
    let lower = symbol.to_ascii_lowercase();
    let lower = lower.strip_prefix('p').unwrap_or(&lower);
    let name = lower.strip_prefix("mpi_")?.trim_end_matches('_');
    let name = name.strip_suffix("_f08").unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?.to_ascii_uppercase();
    Some(format!("MPI_{first}{}", chars.as_str()))
}

/// Whether one of the mappings of `maps` (`/proc/<pid>/maps`) holds `address`.
fn maps_cover(maps: &str, address: u64) -> bool {
    maps.lines().any(|line| {
        let range = line.split_whitespace().next().unwrap_or("");
        let Some((start, end)) = range.split_once('-') else {
            return false;
        };
        match (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16)) {
            (Ok(start), Ok(end)) => (start..end).contains(&address),
            _ => false,
        }
    })
}

/// This machine's host name, as the recorder writes it into each trace.
fn local_host() -> Option<String> {
    let mut name = [0u8; 256];
    // SAFETY: gethostname(2) into a buffer of the size given.
    if unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } != 0 {
        return None;
    }
    let len = name.iter().position(|&b| b == 0)?;
    String::from_utf8(name[..len].to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_covered_by_the_mapping_that_holds_it() {
        let maps = "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 123 /app\n\
                    7f0000000000-7f0000002000 r-xp 00000000 08:01 456 /lib.so\n";
        assert!(maps_cover(maps, 0x55d0_c000_0fff));
        assert!(maps_cover(maps, 0x7f00_0000_1000));
        assert!(!maps_cover(maps, 0x55d0_c000_1000));
        assert!(!maps_cover(maps, 0x10));
        assert!(!maps_cover("garbage\n", 0x10));
    }

    #[test]
    fn symbols_name_their_c_functions() {
        for symbol in [
            "MPI_Win_create",
            "PMPI_Win_create",
            "mpi_win_create_",
            "mpi_win_create__",
            "MPI_WIN_CREATE",
            "mpi_win_create_f08_",
            "pmpi_win_create_",
        ] {
            assert_eq!(c_function_name(symbol).as_deref(), Some("MPI_Win_create"));
        }
        assert_eq!(
            c_function_name("mpi_win_allocate_shared_").as_deref(),
            Some("MPI_Win_allocate_shared")
        );
        assert_eq!(c_function_name("mpi_"), None);
        assert_eq!(c_function_name("malloc"), None);
    }

    #[test]
    fn programs_without_window_constructors_are_not_taken_for_rma_programs() {
        // This test binary imports no MPI function at all.
        let exe = std::env::current_exe().unwrap();
        let maps = format!(
            "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 123 {}
",
            exe.display()
        );
        assert_eq!(
            window_constructor_imported(std::iter::once(maps.as_str())),
            None
        );
    }
}
