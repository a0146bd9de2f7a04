//! `mpicheck run`: prepare the output directory, start the program under its launcher with
//! the interposition library, watch it for an actual deadlock, then analyze and report.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::analyze::{self, is_trace_file, PollingThread, ReportOptions, RunMeta, RUN_META_FILE};
use crate::launch::{detect_family, find_program, interposition_library, launcher_command};
use crate::progress::Progress;
use crate::watch::Watcher;
use crate::{OnDeadlock, RunArgs};

const POLL_INTERVAL: Duration = Duration::from_millis(200);
/// How long the launcher gets to end the job itself before its ranks are killed.
const TERMINATE_GRACE: Duration = Duration::from_secs(3);

/// Set by SIGINT/SIGTERM: the user wants the job ended; mpicheck still reports what ran.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

pub fn run(args: &RunArgs) -> Result<u8> {
    // Read before the job starts: a broken suppression file must not cost a whole run.
    let options = ReportOptions::from_args(&args.report)?;
    let program_name = &args.command[0];
    let program = find_program(program_name).with_context(|| {
        format!("program `{program_name}` not found or not executable (give a path such as ./app, or a name on PATH)")
    })?;
    let family = match args.mpi {
        Some(family) => family,
        None => detect_family(&program)?,
    };
    let library = interposition_library(family)?;
    let launcher = launcher_command(family, args.launcher.as_deref(), args.ranks)?;
    let out_dir = prepare_out_dir(&args.out)?;
    let working_dir = std::env::current_dir().context("cannot read the current directory")?;

    let mut meta = RunMeta {
        program: program_name.clone(),
        args: args.command[1..].to_vec(),
        mpi_family: Some(family.name().to_string()),
        ranks: args.ranks,
        exit_status: None,
        working_dir,
        polling: Vec::new(),
    };

    // `env` puts the library into the ranks only: the launcher itself is not an MPI program.
    let mut preload = library.display().to_string();
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload = format!("{preload}:{}", existing.to_string_lossy());
    }
    let mut command = Command::new(&launcher[0]);
    command
        .args(&launcher[1..])
        .arg("env")
        .arg(format!("LD_PRELOAD={preload}"))
        .arg(format!("MPICHECK_OUT_DIR={}", out_dir.display()));
    // MPICHECK_THREADS=0 turns thread tracking off; not every launcher forwards the
    // environment, so it goes on the command line like the others.
    if let Some(threads) = std::env::var_os("MPICHECK_THREADS") {
        command.arg(format!("MPICHECK_THREADS={}", threads.to_string_lossy()));
    }
    command.args(&args.command);
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start the launcher {}", launcher[0]))?;
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

    let outcome = supervise(&mut child, args, &out_dir, &meta, &options)?;
    meta.polling = outcome.polling.clone();
    // The launcher's status after mpicheck ended a deadlocked job says nothing about the
    // program (MPICH's mpiexec even reports 0).
    meta.exit_status = if outcome.ended_deadlock {
        None
    } else {
        outcome.status.code()
    };
    save_meta(&out_dir, &meta)?;

    let findings = match analyze::analyze_and_report(&out_dir, &meta, &options) {
        Ok(findings) => findings,
        Err(e) if !outcome.status.success() && !outcome.ended_deadlock => {
            // The program failed before it recorded anything we can analyze: its own exit
            // status says more than our error.
            eprintln!("mpicheck: no analysis: {e:#}");
            return Ok(exit_code_of(outcome.status));
        }
        Err(e) => return Err(e),
    };
    if outcome.ended_deadlock {
        return Ok(1);
    }
    if !outcome.status.success() {
        return Ok(exit_code_of(outcome.status));
    }
    Ok(if analyze::has_errors(&findings) { 1 } else { 0 })
}

struct Outcome {
    status: ExitStatus,
    /// mpicheck ended the job because of an actual deadlock.
    ended_deadlock: bool,
    /// The threads modelled as blocked in their polling loops in that deadlock.
    polling: Vec<PollingThread>,
}

/// Waits for the job while watching its traces; ends it on a deadlock (abort mode) or when
/// the user interrupts mpicheck.
fn supervise(
    child: &mut Child,
    args: &RunArgs,
    out_dir: &Path,
    meta: &RunMeta,
    options: &ReportOptions,
) -> Result<Outcome> {
    let timeout = Duration::from_secs_f64(args.deadlock_timeout);
    let mut watcher = Watcher::new(out_dir, args.ranks, timeout);
    let mut ended_deadlock = false;
    let mut polling = Vec::new();
    let mut reported_deadlock = false;
    let mut noted_unexplained_stall = false;
    let mut terminate_started: Option<Instant> = None;
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for the launcher")? {
            return Ok(Outcome {
                status,
                ended_deadlock,
                polling,
            });
        }
        if let Some(started) = terminate_started {
            if started.elapsed() >= TERMINATE_GRACE {
                // The launcher did not end its ranks: end them, then the launcher.
                kill_ranks(&watcher.pids(), out_dir);
                let _ = child.kill();
            }
        } else if INTERRUPTED.load(Ordering::SeqCst) {
            eprintln!("mpicheck: interrupted; ending the job and analyzing what it recorded");
            terminate_started = Some(terminate(child));
        } else if let Some(stuck) = (!reported_deadlock).then(|| watcher.poll()).flatten() {
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
            match live_deadlock(out_dir, meta, options, &stuck_polling, print) {
                Some(()) if args.on_deadlock == OnDeadlock::Abort => {
                    polling = stuck_polling;
                    eprintln!(
                        "mpicheck: deadlock: no rank has made progress for {:.0} s; ending the job (use --on-deadlock report to let it wait)",
                        watcher.stuck_for().as_secs_f64()
                    );
                    ended_deadlock = true;
                    terminate_started = Some(terminate(child));
                }
                Some(()) => {
                    polling = stuck_polling;
                    eprintln!("mpicheck: deadlock reported; the job keeps waiting (--on-deadlock report); press Ctrl-C to end it");
                    reported_deadlock = true;
                }
                None => {
                    if !noted_unexplained_stall {
                        eprintln!(
                            "mpicheck: note: no rank has made progress for {:.0} s, but the recorded calls do not prove a deadlock (a long transfer, or calls mpicheck does not model); the job keeps running",
                            watcher.stuck_for().as_secs_f64()
                        );
                        noted_unexplained_stall = true;
                    }
                    watcher.reset()
                }
            }
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Analyzes the traces of a stuck job; reports and returns `Some` when they show a deadlock
/// (or collective/datatype mismatches that explain the hang). The loop of each polling thread
/// is modelled as the blocking call it stands for; when one cannot be, nothing is concluded.
fn live_deadlock(
    out_dir: &Path,
    meta: &RunMeta,
    options: &ReportOptions,
    polling: &[PollingThread],
    print: bool,
) -> Option<()> {
    let traces = analyze::load_traces(out_dir).ok()?;
    let mut run = analyze::build_run(&traces).ok()?;
    if !analyze::model_polling(&mut run, polling) {
        return None;
    }
    // A deadlock, or else collective/datatype mismatches the MPI hangs in.
    let findings = match mpicheck_analyzer::checks::actual_deadlock(&run) {
        Some(deadlock) => vec![deadlock],
        None => mpicheck_analyzer::checks::mismatch_stall(&run)?,
    };
    // Written now as well, so the report exists even if the job cannot be ended.
    let progress = Progress::disabled();
    let print = print.then_some(&progress);
    if let Err(e) = analyze::report(out_dir, meta, &traces, &run, findings, options, print) {
        eprintln!("mpicheck: warning: {e:#}");
    }
    Some(())
}

/// Asks the launcher to end the job (it forwards the signal to the ranks).
fn terminate(child: &Child) -> Instant {
    // SAFETY: plain kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    Instant::now()
}

/// Kills rank processes on this machine that belong to this run (their environment names
/// our output directory), so a pid reused by another process is never hit.
fn kill_ranks(pids: &[u32], out_dir: &Path) {
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
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    }
}

/// Creates the output directory, checks it is writable, and removes the traces and reports
/// of an earlier run (mixing two runs' traces would make nonsense).
fn prepare_out_dir(dir: &Path) -> Result<PathBuf> {
    let hint = "choose another with --out DIR";
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {} ({hint})", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot use output directory {} ({hint})", dir.display()))?;
    let probe = dir.join(".mpicheck-write-test");
    fs::write(&probe, b"").with_context(|| {
        format!(
            "output directory {} is not writable ({hint})",
            dir.display()
        )
    })?;
    let _ = fs::remove_file(&probe);
    for entry in fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stale = is_trace_file(&path) || name == RUN_META_FILE || name.starts_with("report.");
        if stale {
            fs::remove_file(&path).with_context(|| {
                format!(
                    "cannot remove {} from an earlier run ({hint})",
                    path.display()
                )
            })?;
        }
    }
    Ok(dir)
}

fn save_meta(dir: &Path, meta: &RunMeta) -> Result<()> {
    let path = dir.join(RUN_META_FILE);
    let text = serde_json::to_string_pretty(meta).expect("RunMeta serializes");
    fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The program's exit status as ours; a signal becomes 128 + its number, as in a shell.
fn exit_code_of(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.clamp(0, 255) as u8,
        (None, Some(signal)) => (128 + signal).clamp(0, 255) as u8,
        (None, None) => 1,
    }
}
