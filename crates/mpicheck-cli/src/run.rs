//! `mpicheck run`: prepare the output directory, start the program under its launcher with
//! the interposition library, watch it for an actual deadlock, then analyze and report.

use std::borrow::Cow;
use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mpicheck_analyzer::diagnostic::Diagnostic;

use crate::analyze::{self, PollingThread, ReportOptions, RunMeta, RUN_META_FILE};
use crate::hold_back::HoldBack;
use crate::launch::{
    app_contexts, interposition_library, job_mpi, launcher_command, rank_command, JobMpi, MpiFamily,
};
use crate::online::{Followed, Online};
use crate::out_dir::{self, RunDir};
use crate::progress::Progress;
use crate::relay::{self, LauncherNotes, Relay, Target};
use crate::stall_copy::CopyVerdict;
use crate::status::{EndReason, ProgramEnd};
use crate::watch::Watcher;
use crate::{OnDeadlock, RunArgs};

const POLL_INTERVAL: Duration = Duration::from_millis(200);
/// How long the launcher gets to end the job itself before its ranks are killed.
const TERMINATE_GRACE: Duration = Duration::from_secs(3);
/// How long the launcher's output may still arrive after it exited (from a process it
/// started that still holds its stdout), before mpicheck goes on to the analysis.
const OUTPUT_DRAIN: Duration = Duration::from_secs(2);

/// Set by SIGINT/SIGTERM: the user wants the job ended; mpicheck still reports what ran.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // A terminal's Ctrl-C reaches the launcher too, which starts its teardown now.
    relay::hide_teardown();
}

/// What a SIGINT/SIGTERM during the analysis prints before mpicheck exits (set before the
/// analysis starts, read by the handler: a pointer and a length, async-signal-safe).
static ANALYSIS_INTERRUPTED_MESSAGE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// The job is over and its traces are on disk: a signal now ends mpicheck (a batch system's
/// SIGTERM must not wait for a long analysis), saying how to analyze the kept traces.
extern "C" fn on_interrupt_while_analyzing(signal: libc::c_int) {
    if let Some(message) = ANALYSIS_INTERRUPTED_MESSAGE.get() {
        // SAFETY: write(2) of a buffer that lives until exit.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
    }
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(128 + signal) };
}

pub fn run(args: &RunArgs) -> Result<u8> {
    // Read before the job starts: a broken suppression file must not cost a whole run.
    let options = ReportOptions::from_args(&args.report)?;
    let contexts = app_contexts(args.ranks, &args.command)?;
    let ranks = contexts.iter().map(|c| c.ranks).sum();
    let JobMpi {
        program,
        linked,
        family,
    } = job_mpi(&contexts, args.mpi)?;
    let library = interposition_library(family)?;
    let launcher = launcher_command(family, args.launcher.as_deref(), ranks)?;
    let mut out = out_dir::prepare_for_run(&args.out)?;
    let working_dir = std::env::current_dir().context("cannot read the current directory")?;

    let mut meta = RunMeta {
        program: args.command[0].clone(),
        args: args.command[1..].to_vec(),
        mpi_family: Some(family.name().to_string()),
        ranks,
        exit_status: None,
        working_dir,
        polling: Vec::new(),
        end: None,
    };

    let mut command = Command::new(&launcher[0]);
    command.args(&launcher[1..]);
    for (i, context) in contexts.iter().enumerate() {
        if i > 0 {
            command.arg(":");
        }
        let program_name = &context.command[0];
        command
            .args(["-n".to_string(), context.ranks.to_string()])
            .args(rank_command(
                &library,
                out.path(),
                program_name,
                args.check_buffers,
            )?)
            .args(&context.command[1..]);
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    // When mpicheck dies (even by SIGKILL), the kernel kills the launcher, whose ranks then
    // die with it (each rank asked for the same about its own parent, see launch.rs).
    let supervisor = std::process::id();
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::getppid() as u32 != supervisor {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start the launcher {}", launcher[0]))?;
    let relay = Relay::start(vec![
        (
            Box::new(child.stdout.take().expect("piped")),
            Target::Stdout,
        ),
        (
            Box::new(child.stderr.take().expect("piped")),
            Target::Stderr,
        ),
    ]);
    // Installed after the spawn: the job must keep the default disposition (a terminal's
    // Ctrl-C reaches it directly), while mpicheck stays to report what was recorded.
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
        libc::signal(
            libc::SIGTERM,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }

    // Follows the job from its traces, so that the report is ready about when it ends: only
    // where its readers can have their files open besides the watcher's (which tails every
    // rank's trace too), so that hangs are still noticed.
    let mut online = (!args.analyze_after && crate::open_files::allow(2 * ranks as usize).is_ok())
        .then(|| {
            let release_after = (!args.keep_traces).then_some(args.release_traces_after);
            Online::start(out.path(), release_after)
        });
    let outcome = supervise(&mut child, args, &mut out, &meta, &options, &mut online)?;
    meta.polling = outcome.polling.clone();
    let notes = relay.finish(OUTPUT_DRAIN);
    if let Some(held_back) = &outcome.held_back {
        eprintln!("mpicheck: note: {held_back}");
    }
    if let Err(e) = out.adopt_new_traces() {
        eprintln!("mpicheck: warning: {}", crate::one_line(&e));
    }
    // Records released: the traces cannot be read again, the analysis that followed the job
    // is the only one.
    let released = online.as_ref().is_some_and(Online::released);
    let followed = online.and_then(Online::finish);
    let end = program_end(&outcome, &notes, out.path());
    if let Some(failure) = end.failure() {
        if outcome.ended.is_none() {
            eprintln!("mpicheck: {failure}");
        }
    }
    // The launcher's status after mpicheck ended the job says nothing about the program
    // (MPICH's mpiexec even reports 0).
    meta.exit_status = if outcome.ended.is_some() {
        None
    } else {
        outcome.status.code()
    };
    meta.end = Some(end.clone());
    out_dir::write_owned(out.path(), RUN_META_FILE, |w| {
        serde_json::to_writer_pretty(&mut *w, &meta).map_err(std::io::Error::from)
    })?;

    if !recorded_mpi_calls(out.path()) {
        bail!("{}", nothing_recorded(&program, family, linked, &end));
    }
    let _ = ANALYSIS_INTERRUPTED_MESSAGE.set(
        format!(
            "\nmpicheck: interrupted during the analysis; the traces are kept: run `mpicheck analyze {}`\n",
            out.path().display()
        )
        .into_bytes(),
    );
    // SAFETY: the handler only writes a prepared buffer and calls _exit.
    unsafe {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            libc::signal(
                signal,
                on_interrupt_while_analyzing as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
    // What mpicheck ended was analyzed with a model of its polling threads only it knows; but
    // a deadlock judged by the analysis that followed the job, given that model at the stall.
    // (A job interrupted or ended after a rank died models no polling thread: the analysis
    // that followed it to its end stands, where the traces cannot be read again.)
    let followed = match outcome.ended {
        None => followed,
        Some(EndReason::Deadlock) => outcome.followed_to_deadlock,
        Some(_) if released => followed,
        Some(_) => None,
    };
    // Ended at a stall that proved nothing, its traces released: what it read is all the
    // run can say.
    let followed = followed.or_else(|| {
        let mut followed = outcome.followed_to_stall?;
        followed.incomplete = Some(
            "the analysis ended when the job stalled, and the calls after that were not analyzed: the traces' analyzed records had been released (--keep-traces keeps them)".into(),
        );
        Some(followed)
    });
    let analysis = analyze::analyze_and_report(out.path(), &meta, &options, followed)?;
    Ok(crate::status::conclude(&analysis, Some(&end)))
}

/// Why no trace was written, as far as mpicheck can tell.
fn nothing_recorded(
    program: &Path,
    family: MpiFamily,
    linked: Option<MpiFamily>,
    end: &ProgramEnd,
) -> String {
    let why = match (linked, end.failure()) {
        (None, _) => format!(
            "{} is not linked against a shared MPI library (statically linked MPI, a script, or not an MPI program)",
            program.display()
        ),
        (Some(_), Some(failure)) => format!("{failure} before its first MPI call"),
        (Some(_), None) => {
            "the program made no MPI call, or loads another MPI than the one it is linked against"
                .to_string()
        }
    };
    format!(
        "nothing was recorded: no process made an MPI call through mpicheck's {} library: {why}",
        family.display_name()
    )
}

/// How the job ended, from the launcher's status and what it said.
fn program_end(outcome: &Outcome, notes: &LauncherNotes, dir: &Path) -> ProgramEnd {
    if let Some(reason) = outcome.ended {
        return ProgramEnd::EndedByMpicheck { reason };
    }
    match (outcome.status.code(), outcome.status.signal()) {
        (Some(0), _) => ProgramEnd::Succeeded,
        // A rank killed by a signal: MPICH's launcher exits with the bare signal number,
        // Open MPI's with 128 + it; both say which rank (or pid) it was.
        (Some(status), _) => match notes.signal {
            Some(signal) => match mpich_rank_exited_early(dir, notes, signal) {
                Some(rank) => ProgramEnd::RankExitedEarly { rank },
                None => ProgramEnd::RankKilled {
                    rank: notes
                        .killed_rank
                        .or_else(|| mpich_killed_rank(dir, notes, signal)),
                    signal,
                },
            },
            None => ProgramEnd::Exited { status },
        },
        (None, Some(signal)) => ProgramEnd::LauncherKilled { signal },
        (None, None) => ProgramEnd::Exited { status: -1 },
    }
}

/// Whether a process of the run recorded an MPI call: a trace that initialized MPI, or one
/// holding a call of MPI's own (not an `MPICHECK_*` pseudo-call: a process that loaded the
/// library but never called MPI may still record those).
fn recorded_mpi_calls(dir: &Path) -> bool {
    let traces = out_dir::run_traces(dir).unwrap_or_default();
    traces.iter().any(|path| {
        if out_dir::trace_header(path).is_some_and(|h| h.initialized()) {
            return true;
        }
        // Counted by the scan, without decoding the calls.
        mpicheck_trace::scan_trace_file(path).is_ok_and(|trace| trace.mpi_calls > 0)
    })
}

/// The rank whose trace was written by process `pid`.
/// The rank MPICH's report of a killed process points to. MPICH names the first process it
/// found failed, with its wait status, and the signal of the whole job: the OR of every
/// process's status. When a rank dies, MPICH's cleanup may kill another one (status 9) that
/// it finds first; the rank that died of `signal` is then another one, known only if one
/// other rank's process neither exited nor was that one.
fn mpich_killed_rank(dir: &Path, notes: &LauncherNotes, signal: i32) -> Option<i32> {
    let pid = notes.killed_pid?;
    let headers = trace_headers(dir)?;
    let named_signal = notes.killed_pid_status.map(|status| status & 0x7f);
    if named_signal.is_none_or(|named| named == signal) {
        return headers.iter().find(|h| h.pid == pid)?.best_rank();
    }
    let mut others = headers
        .iter()
        .filter(|h| h.pid != pid && h.initialized() && !h.exited())
        .filter_map(|h| h.best_rank());
    match (others.next(), others.next()) {
        (Some(rank), None) => Some(rank),
        _ => None,
    }
}

/// The rank whose early exit ended an MPICH job that MPICH reports as killed by a signal:
/// when a rank exits without MPI_Finalize, MPICH's cleanup ends the others and may find one
/// of them first, naming it with the signal that ended it and the job's exit string
/// "Killed (signal 9)" (once, under load, "Hangup (signal 1)"). The traces tell: the named
/// process did not exit, and exactly one other rank exited without finalizing. Only for the
/// signals a cleanup sends: a rank that faulted (SIGSEGV, SIGBUS, ...) is named as killed.
fn mpich_rank_exited_early(dir: &Path, notes: &LauncherNotes, signal: i32) -> Option<i32> {
    let cleanup = [libc::SIGKILL, libc::SIGTERM, libc::SIGHUP, libc::SIGINT];
    if !cleanup.contains(&signal) || notes.killed_rank.is_some() {
        return None;
    }
    let pid = notes.killed_pid?;
    let headers = trace_headers(dir)?;
    if headers.iter().find(|h| h.pid == pid)?.exited() {
        return None;
    }
    let mut early = headers
        .iter()
        .filter(|h| h.pid != pid && h.initialized() && h.exited() && !h.finalized())
        .filter_map(|h| h.best_rank());
    match (early.next(), early.next()) {
        (Some(rank), None) => Some(rank),
        _ => None,
    }
}

/// The headers of the run's traces that can be read.
fn trace_headers(dir: &Path) -> Option<Vec<mpicheck_trace::TraceHeader>> {
    let paths = out_dir::run_traces(dir).ok()?;
    Some(
        paths
            .iter()
            .filter_map(|p| out_dir::trace_header(p))
            .collect(),
    )
}

struct Outcome {
    status: ExitStatus,
    /// Why mpicheck ended the job, when it did.
    ended: Option<EndReason>,
    /// The threads modelled as blocked in their polling loops in that deadlock.
    polling: Vec<PollingThread>,
    /// The analysis that followed the job, ended at the deadlock mpicheck ended it for: it
    /// stands for the analysis of the ended job, which then reads nothing again.
    followed_to_deadlock: Option<Followed>,
    /// The analysis that followed the job, ended at a stall that proved no deadlock, after
    /// it had released records of the traces: the only analysis the run can have (of the
    /// calls before the stall).
    followed_to_stall: Option<Followed>,
    /// How long the job waited for the analysis to catch up, if it did ([`HoldBack`]).
    held_back: Option<String>,
}

/// A stall that proved nothing. Its calls stay the same until a rank moves, so it is judged
/// again only once it has lasted twice as long: a job that waits long in a way mpicheck
/// cannot judge costs a few verdicts, not one per timeout.
struct UnprovenStall {
    /// When the job last made progress before it.
    progress_at: Instant,
    /// How long it had lasted when judged.
    lasted: Duration,
}

impl UnprovenStall {
    fn of(watcher: &Watcher) -> UnprovenStall {
        UnprovenStall {
            progress_at: watcher.last_progress(),
            lasted: watcher.stuck_for(),
        }
    }

    /// Whether the job stuck now is to be judged: another stall, or this one twice as long.
    fn judge_again(&self, watcher: &Watcher) -> bool {
        watcher.last_progress() != self.progress_at || watcher.stuck_for() >= 2 * self.lasted
    }
}

/// What the live hang check made of a stall ([`live_deadlock`]), with the analysis that
/// followed the job if it was ended at the stall to judge it.
enum StallVerdict {
    /// A deadlock, or collective/datatype mismatches the MPI hangs in: reported.
    Deadlock(Option<Followed>),
    /// Nothing proven.
    Unproven(Option<Followed>),
}

/// Waits for the job while watching its traces; ends it on a deadlock (abort mode) or when
/// the user interrupts mpicheck. `online`: the analysis following the job, stopped when
/// mpicheck ends it (what mpicheck ended is analyzed after the job), or taken to judge a
/// stall.
fn supervise(
    child: &mut Child,
    args: &RunArgs,
    out: &mut RunDir,
    meta: &RunMeta,
    options: &ReportOptions,
    online: &mut Option<Online>,
) -> Result<Outcome> {
    // parse_timeout bounds it, so this cannot overflow.
    let timeout = Duration::from_secs_f64(args.deadlock_timeout);
    let out_dir = out.path().to_path_buf();
    // The watcher tails every rank's trace. The job, started before, keeps its own limit.
    if let Err(e) = crate::open_files::allow(meta.ranks as usize) {
        eprintln!(
            "mpicheck: warning: hangs may go unnoticed: {}",
            crate::one_line(&e)
        );
    }
    let mut watcher = Watcher::new(&out_dir, meta.ranks, timeout);
    let mut ended = None;
    let mut polling = Vec::new();
    let mut followed_to_deadlock = None;
    let mut followed_to_stall = None;
    // The job waits for the analysis when it releases traces it cannot keep up with.
    let mut hold_back =
        (online.is_some() && !args.keep_traces).then(|| HoldBack::new(args.release_traces_after));
    let mut held = false;
    let mut reported_deadlock = false;
    let mut noted_unexplained_stall = false;
    let mut unproven: Option<UnprovenStall> = None;
    let mut terminate_started: Option<Instant> = None;
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for the launcher")? {
            let held_back = hold_back.as_mut().and_then(|h| {
                h.go_on();
                h.summary()
            });
            if ended.is_none() && INTERRUPTED.load(Ordering::SeqCst) {
                // Ctrl-C reached the launcher too, which ended the job first.
                eprintln!("mpicheck: interrupted; analyzing what the job recorded");
                ended = Some(EndReason::Interrupted);
                if let Some(online) = online.as_ref().filter(|o| !o.released()) {
                    online.stop("mpicheck was interrupted");
                }
            }
            return Ok(Outcome {
                status,
                ended,
                polling,
                followed_to_deadlock,
                followed_to_stall,
                held_back,
            });
        }
        // The ranks' new traces are listed in the marker before anything analyzes them.
        if let Err(e) = out.adopt_new_traces() {
            eprintln!("mpicheck: warning: {}", crate::one_line(&e));
        }
        if let Some(started) = terminate_started {
            if started.elapsed() >= TERMINATE_GRACE {
                // The launcher did not end its ranks: end them, then the launcher.
                kill_ranks(&watcher.pids(), &out_dir);
                let _ = child.kill();
            }
        } else if INTERRUPTED.load(Ordering::SeqCst) {
            // (Stopped ranks would not end.)
            if let Some(hold_back) = hold_back.as_mut() {
                hold_back.go_on();
            }
            eprintln!("mpicheck: interrupted; ending the job and analyzing what it recorded");
            ended = Some(EndReason::Interrupted);
            terminate_started = Some(terminate(child, online.as_ref()));
        } else if held {
            // The watcher reads on (what the analysis may release is what it read), but the
            // stopped ranks' lack of progress is no stall: it starts over once they go on.
            let _ = watcher.poll();
        } else if let Some(stuck) = (!reported_deadlock).then(|| watcher.poll()).flatten() {
            if let Some(death) = stuck.death_summary() {
                // The others wait on a process that is gone: nothing can come of it, whatever
                // the analysis of the calls would say.
                let stuck_for = watcher.stuck_for().as_secs_f64();
                if args.on_deadlock == OnDeadlock::Abort {
                    eprintln!("mpicheck: {death}; nothing has moved for {stuck_for:.0} s and the launcher did not end the job: mpicheck ended it");
                    ended = Some(EndReason::RankDied);
                    terminate_started = Some(terminate(child, online.as_ref()));
                } else {
                    eprintln!("mpicheck: {death}; nothing has moved for {stuck_for:.0} s; the job keeps waiting (--on-deadlock report); press Ctrl-C to end it");
                    reported_deadlock = true;
                }
                std::thread::sleep(POLL_INTERVAL);
                continue;
            }
            if unproven.as_ref().is_some_and(|u| !u.judge_again(&watcher)) {
                std::thread::sleep(POLL_INTERVAL);
                continue;
            }
            // In abort mode the final analysis of the ended job prints the deadlock; so does
            // the final analysis in report mode for the machine formats (one document on
            // stdout, not two).
            let print =
                args.on_deadlock == OnDeadlock::Report && options.format == crate::Format::Terminal;
            let stuck_polling: Vec<PollingThread> = stuck
                .polling
                .iter()
                .map(|&(rank, thread)| PollingThread { rank, thread })
                .collect();
            // Where the job is ended after the verdict, its ranks are stopped meanwhile; so
            // are they where the traces cannot be read again (records released).
            let pids = watcher.pids();
            let released = online.as_ref().is_some_and(Online::released);
            let pause = (args.on_deadlock == OnDeadlock::Abort || released).then_some(&pids[..]);
            match live_deadlock(
                &out_dir,
                meta,
                options,
                &stuck_polling,
                online,
                pause,
                print,
            ) {
                StallVerdict::Deadlock(followed) if args.on_deadlock == OnDeadlock::Abort => {
                    polling = stuck_polling;
                    followed_to_deadlock = followed;
                    eprintln!(
                        "mpicheck: deadlock: no rank has made progress for {:.0} s; mpicheck ended the job (--on-deadlock report lets it wait)",
                        watcher.stuck_for().as_secs_f64()
                    );
                    ended = Some(EndReason::Deadlock);
                    terminate_started = Some(terminate(child, online.as_ref()));
                }
                StallVerdict::Deadlock(_) => {
                    polling = stuck_polling;
                    eprintln!("mpicheck: deadlock reported; the job keeps waiting (--on-deadlock report); press Ctrl-C to end it");
                    reported_deadlock = true;
                }
                StallVerdict::Unproven(followed) => {
                    // (Else the traces are read again after the job.)
                    if let Some(followed) = followed.filter(|f| f.released) {
                        followed_to_stall.get_or_insert(followed);
                    }
                    if !noted_unexplained_stall {
                        eprintln!(
                            "mpicheck: note: no rank has made progress for {:.0} s, but the recorded calls do not prove a deadlock (a long transfer, or calls mpicheck does not model); the job keeps running",
                            watcher.stuck_for().as_secs_f64()
                        );
                        noted_unexplained_stall = true;
                    }
                    unproven = Some(UnprovenStall::of(&watcher));
                }
            }
        }
        // What the watcher has read may be released by the analysis, not what it has not.
        if let Some(online) = online.as_ref() {
            for (path, read_to, written) in watcher.read_to() {
                online.watched(path, read_to, written);
            }
            if let Some(hold_back) = hold_back
                .as_mut()
                .filter(|_| terminate_started.is_none() && !reported_deadlock)
            {
                let was_held = held;
                held = hold_back.look(online, || watcher.pids(), &out_dir);
                // The time the ranks were stopped is no stall.
                if was_held && !held {
                    watcher.reset();
                }
            }
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Analyzes the traces of a stuck job; reports and returns `Some` when they show a deadlock
/// (or collective/datatype mismatches that explain the hang), with the analysis that followed
/// the job if it judged the stall. The loop of each polling thread is modelled as the
/// blocking call it stands for; when one cannot be, nothing is concluded. `online`: the
/// analysis following the job, taken to judge the stall if it can; `pause`: the pids of the
/// ranks to stop meanwhile ([`PausedRanks`]).
fn live_deadlock(
    out_dir: &Path,
    meta: &RunMeta,
    options: &ReportOptions,
    polling: &[PollingThread],
    online: &mut Option<Online>,
    pause: Option<&[u32]>,
    print: bool,
) -> StallVerdict {
    // A copy of the analysis following the job judges first: where the stall proves
    // nothing, the analysis goes on (to release the traces, and judge a later stall).
    if let Some(following) = online.as_ref() {
        let pause_ranks = || pause.map(|pids| PausedRanks::pause(pids, out_dir));
        if following.judge_in_a_copy(polling, pause_ranks, &INTERRUPTED) == CopyVerdict::Unproven {
            return StallVerdict::Unproven(None);
        }
    }
    let (analysis, explained) = match judge_stall(out_dir, options, polling, online, pause) {
        Ok(judged) => judged,
        Err(e) => {
            // Once: the watcher asks again after every timeout.
            static SAID: AtomicBool = AtomicBool::new(false);
            if !SAID.swap(true, Ordering::SeqCst) {
                eprintln!(
                    "mpicheck: warning: cannot analyze the stuck job: {}",
                    crate::one_line(&e)
                );
            }
            return StallVerdict::Unproven(None);
        }
    };
    // A deadlock, or else collective/datatype mismatches the MPI hangs in.
    let Some(findings) = explained else {
        return StallVerdict::Unproven(match analysis {
            StallAnalysis::Followed(followed) => Some(followed),
            StallAnalysis::ReadAgain { .. } => None,
        });
    };
    // Written now as well, so the report exists even if the job cannot be ended.
    let progress = Progress::disabled();
    let print = print.then_some(&progress);
    let (traces, run): (Cow<[mpicheck_trace::Trace]>, _) = match &analysis {
        StallAnalysis::Followed(followed) => (Cow::Owned(followed.traces()), &followed.run),
        StallAnalysis::ReadAgain { traces, run } => (Cow::Borrowed(traces), run),
    };
    if let Err(e) = analyze::report(out_dir, meta, &traces, run, findings, options, print) {
        eprintln!("mpicheck: warning: {}", crate::one_line(&e));
    }
    StallVerdict::Deadlock(match analysis {
        StallAnalysis::Followed(followed) => Some(followed),
        StallAnalysis::ReadAgain { .. } => None,
    })
}

/// The analysis a stall is judged from.
enum StallAnalysis {
    /// The analysis that followed the job, ended at the stall.
    Followed(Followed),
    /// The traces read again from their start: their run, with the calls that explain a
    /// stall checked.
    ReadAgain {
        traces: Vec<mpicheck_trace::Trace>,
        run: mpicheck_analyzer::model::Run,
    },
}

/// What explains the stall of a stuck job, and the analysis that says so. The analysis
/// following the job ends at the stall and answers (it has read the traces so far
/// already, and models the polling threads then) when it can be given a CPU: made an
/// ordinary thread, or given the CPUs of the ranks `pause` names, stopped meanwhile. Else
/// the traces are read again from their start ([`analyze::explain_stall`]).
fn judge_stall(
    out_dir: &Path,
    options: &ReportOptions,
    polling: &[PollingThread],
    online: &mut Option<Online>,
    pause: Option<&[u32]>,
) -> Result<(StallAnalysis, Option<Vec<Diagnostic>>)> {
    if let Some(following) = online.take() {
        let pause_ranks = || pause.map(|pids| PausedRanks::pause(pids, out_dir));
        match following.finish_at_stall(polling, pause_ranks) {
            Ok(Some(followed)) if followed.judges_stall() => {
                let explained = followed.stall_explanation();
                return Ok((StallAnalysis::Followed(followed), explained));
            }
            // It could not start, failed, was stopped or may say otherwise: read the traces.
            Ok(_) => {}
            Err(following) => *online = Some(following),
        }
    }
    let (loaded, run, explained) = analyze::explain_stall(out_dir, options, polling)?;
    let traces = loaded.traces;
    Ok((StallAnalysis::ReadAgain { traces, run }, explained))
}

/// Asks the launcher to end the job (it forwards the signal to the ranks); its teardown
/// messages are kept from the user from now on (mpicheck has said in one line why). The
/// analysis following the job stops: its result would not be used.
fn terminate(child: &Child, online: Option<&Online>) -> Instant {
    // (Unless it released records of the traces: then it is the only analysis there can be.)
    if let Some(online) = online.filter(|o| !o.released()) {
        online.stop("mpicheck ends the job");
    }
    relay::hide_teardown();
    // SAFETY: plain kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    Instant::now()
}

/// The ranks of the job on this machine, stopped (`SIGSTOP`) while the analysis that
/// followed the job catches up, and continued when this is dropped: at a stall, while it
/// ends there (stuck ranks only spin; stopped, they leave their CPUs to the analysis's idle
/// thread, when a user without `CAP_SYS_NICE` cannot make it an ordinary one), only where
/// mpicheck ends the job after the verdict or the traces cannot be read again; and while it
/// releases the traces of a job that writes them faster ([`crate::hold_back`]).
pub(crate) struct PausedRanks {
    pids: Vec<u32>,
    out_dir: PathBuf,
}

impl PausedRanks {
    pub(crate) fn pause(pids: &[u32], out_dir: &Path) -> PausedRanks {
        signal_ranks(pids, out_dir, libc::SIGSTOP);
        PausedRanks {
            pids: pids.to_vec(),
            out_dir: out_dir.to_path_buf(),
        }
    }
}

impl Drop for PausedRanks {
    fn drop(&mut self) {
        signal_ranks(&self.pids, &self.out_dir, libc::SIGCONT);
    }
}

/// Kills rank processes on this machine that belong to this run.
fn kill_ranks(pids: &[u32], out_dir: &Path) {
    signal_ranks(pids, out_dir, libc::SIGKILL);
}

/// Sends `signal` to the rank processes on this machine that belong to this run (their
/// environment names our output directory), so a pid reused by another process is never
/// hit.
fn signal_ranks(pids: &[u32], out_dir: &Path, signal: libc::c_int) {
    let marker = format!("MPICHECK_OUT_DIR={}", out_dir.display());
    for &pid in pids {
        let Ok(environ) = fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == marker.as_bytes())
        {
            // SAFETY: plain kill(2).
            unsafe { libc::kill(pid as libc::pid_t, signal) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_trace::builder::TraceBuilder;
    use mpicheck_trace::offset;

    /// A run directory with one trace per `(pid, rank, exited)`.
    fn run_dir(processes: &[(u32, i32, bool)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for &(pid, rank, exited) in processes {
            let mut trace = TraceBuilder::new();
            trace
                .set_u32(offset::PID, pid)
                .rank(rank, processes.len() as i32);
            let bytes = if exited {
                trace.exited()
            } else {
                trace.bytes()
            };
            fs::write(dir.path().join(format!("trace-{pid}.mpitrace")), bytes).unwrap();
        }
        dir
    }

    fn notes(pid: u32, status: i32) -> LauncherNotes {
        LauncherNotes {
            killed_pid: Some(pid),
            killed_pid_status: Some(status),
            signal: Some(11),
            ..LauncherNotes::default()
        }
    }

    #[test]
    fn mpich_names_the_rank_that_died_of_the_signal() {
        let dir = run_dir(&[(10, 0, true), (11, 1, false)]);
        assert_eq!(mpich_killed_rank(dir.path(), &notes(11, 11), 11), Some(1));
        // Core dumped: the status has 0x80 set.
        assert_eq!(mpich_killed_rank(dir.path(), &notes(11, 139), 11), Some(1));
    }

    #[test]
    fn a_rank_that_exited_early_is_named_instead_of_mpichs_cleanup_kill() {
        // Rank 1 exited without MPI_Finalize; MPICH killed rank 0 and reported it.
        let dir = run_dir(&[(10, 0, false), (11, 1, true)]);
        let killed = LauncherNotes {
            signal: Some(9),
            ..notes(10, 9)
        };
        assert_eq!(mpich_rank_exited_early(dir.path(), &killed, 9), Some(1));
        let hung_up = LauncherNotes {
            signal: Some(1),
            ..notes(10, 1)
        };
        assert_eq!(mpich_rank_exited_early(dir.path(), &hung_up, 1), Some(1));
        // A fault, or the named process exited itself: not this case.
        assert_eq!(
            mpich_rank_exited_early(dir.path(), &notes(10, 11), 11),
            None
        );
        let dir = run_dir(&[(10, 0, true), (11, 1, true)]);
        assert_eq!(mpich_rank_exited_early(dir.path(), &killed, 9), None);
        // Two ranks that exited: which one ended the job is unknown.
        let dir = run_dir(&[(10, 0, false), (11, 1, true), (12, 2, true)]);
        assert_eq!(mpich_rank_exited_early(dir.path(), &killed, 9), None);
    }

    #[test]
    fn nothing_recorded_says_how_the_job_ended_in_one_clause() {
        let interrupted = ProgramEnd::EndedByMpicheck {
            reason: EndReason::Interrupted,
        };
        let why = nothing_recorded(
            Path::new("./app"),
            MpiFamily::Openmpi,
            Some(MpiFamily::Openmpi),
            &interrupted,
        );
        assert!(
            why.ends_with(": the job was interrupted before its first MPI call"),
            "{why}"
        );
    }

    #[test]
    fn a_rank_killed_by_mpichs_cleanup_is_not_blamed_for_the_signal() {
        // Rank 1 died of SIGSEGV; MPICH found rank 0, which its cleanup killed, first.
        let dir = run_dir(&[(10, 0, false), (11, 1, false)]);
        assert_eq!(mpich_killed_rank(dir.path(), &notes(10, 9), 11), Some(1));
        // Two ranks could be the one: none is named.
        let dir = run_dir(&[(10, 0, false), (11, 1, false), (12, 2, false)]);
        assert_eq!(mpich_killed_rank(dir.path(), &notes(10, 9), 11), None);
        // A rank that exited is not one.
        let dir = run_dir(&[(10, 0, false), (11, 1, false), (12, 2, true)]);
        assert_eq!(mpich_killed_rank(dir.path(), &notes(10, 9), 11), Some(1));
    }
}
