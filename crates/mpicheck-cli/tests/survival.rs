//! The recorder never harms the program it runs, under MPICH and Open MPI: children a rank
//! forks or starts neither corrupt nor claim its trace, MPI calls made after the recorder's
//! exit handler never fault, a full disk stops recording, not the program, and a limit on
//! the address space does not stop it; many ranks are analyzed whatever the soft limit on
//! open files.

use std::path::Path;
use std::process::Command;

use mpicheck_trace::reader::{read_trace, Trace};

mod support;
use support::*;

/// Every trace file of `out`, whatever it claims.
fn all_traces(out: &Path) -> Vec<Trace> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .map(|p| read_trace(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

fn assert_ranks_exited_normally(traces: &[Trace], ranks: usize, stderr: &str) {
    assert_eq!(
        traces.len(),
        ranks,
        "one trace per rank, none for children\n{stderr}"
    );
    for trace in traces {
        assert!(
            trace.header.initialized() && trace.header.exited(),
            "rank {:?} (pid {}) did not exit normally\n{stderr}",
            trace.header.best_rank(),
            trace.header.pid
        );
    }
}

fn check_children(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "fork_children.c", dir.path());
    let out = dir.path().join("out");
    let (run, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    let stderr = text(&run.stderr);
    assert_eq!(text(&run.stdout), "sum 1 from-popen\n", "{stderr}");
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("no findings"), "{stderr}");
    assert_ranks_exited_normally(&all_traces(&out), 2, &stderr);
}

#[test]
fn children_of_a_rank_leave_its_trace_alone_mpich() {
    check_children(MPICH);
}
#[test]
fn children_of_a_rank_leave_its_trace_alone_openmpi() {
    check_children(OPENMPI);
}

/// A destructor and a thread calling MPI after the exit handler ran: the job used to die of
/// SIGBUS at exit now and then, so several runs. Every run must end well, and under MPICH
/// every run must show the late calls on every rank.
fn check_late_calls(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "late_calls.c", dir.path());
    for attempt in 0..3 {
        let out = dir.path().join(format!("out{attempt}"));
        let (run, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
        let stderr = text(&run.stderr);
        assert_eq!(text(&run.stdout), "done\n", "{stderr}");
        assert_eq!(run.status.code(), Some(0), "{stderr}");
        let traces = all_traces(&out);
        assert_ranks_exited_normally(&traces, 2, &stderr);
        for trace in &traces {
            assert!(trace.header.exit_records_end > 0, "{stderr}");
            // Late calls land in the margin kept at exit. Under Open MPI the destructor does
            // not always get to run (its own exit handlers may end the process first), and
            // the other thread's calls fold into a record made before exit: only MPICH's runs
            // always show one. (About 1 run in 45 used to lose them: the polling thread,
            // ended by `exit` between reserving a record and writing it, left a hole the
            // reader stopped at.)
            let late = trace
                .calls
                .iter()
                .filter(|c| c.seq >= trace.header.exit_records_end);
            if family.name == "mpich" {
                assert!(
                    late.count() > 0,
                    "attempt {attempt}: no late call recorded by rank {:?} ({} partial records)\n{stderr}",
                    trace.header.best_rank(),
                    trace.partial_records
                );
            }
        }
    }
}

#[test]
fn calls_after_the_exit_handler_never_fault_mpich() {
    check_late_calls(MPICH);
}
#[test]
fn calls_after_the_exit_handler_never_fault_openmpi() {
    check_late_calls(OPENMPI);
}

/// A small file system mounted for one test, unmounted however the test ends.
struct SmallFileSystem {
    dir: tempfile::TempDir,
}

impl SmallFileSystem {
    /// None when this process may not mount (not root): a skip on a developer's machine, a
    /// failure in CI, which runs as root.
    fn mount(size: &str) -> Option<SmallFileSystem> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            mpicheck_test_support::skip("cannot mount a tmpfs (needs root)");
            return None;
        }
        Some(SmallFileSystem { dir })
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// 20 MiB hold the first 8 MiB of each rank's trace, not the 400,000 calls: recording stops,
/// the header says so, and the program runs to its normal end.
fn check_full_disk(family: Family) {
    let Some(fs) = SmallFileSystem::mount("20m") else {
        return;
    };
    let build = tempfile::tempdir().unwrap();
    let exe = compile(family, "many_calls.c", build.path());
    let out = fs.dir.path().join("out");
    let (run, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    let stderr = text(&run.stderr);
    assert_eq!(text(&run.stdout), "sum 1\n", "{stderr}");
    let traces = all_traces(&out);
    assert_ranks_exited_normally(&traces, 2, &stderr);
    for trace in &traces {
        assert!(trace.header.no_space(), "{stderr}");
        assert!(trace.header.dropped > 0, "{stderr}");
        let recorded = trace.calls.len() as u64;
        assert!(
            recorded + trace.header.dropped >= 400_000,
            "{recorded} recorded + {} dropped",
            trace.header.dropped
        );
    }
}

#[test]
fn full_disk_stops_recording_not_the_program_mpich() {
    check_full_disk(MPICH);
}
#[test]
fn full_disk_stops_recording_not_the_program_openmpi() {
    check_full_disk(OPENMPI);
}

/// A job under a limit on its address space (`ulimit -v`, as batch systems set it) is
/// recorded and checked: the recorder used to map 64 GiB for each trace, which the limit
/// refused, and no rank was recorded.
fn check_address_space_limit(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "collectives_loop.c", dir.path());
    let out = dir.path().join("out");
    let mut limited = Command::new("sh");
    // 4 GiB: neither 64 GiB nor 16 GiB of trace mapping fits.
    limited
        .args(["-c", "ulimit -v 4194304 && exec \"$@\"", "sh"])
        .arg(mpicheck_bin())
        .args(
            mpicheck_run_command(family, 2, &out, &[exe.to_str().unwrap(), "bad"], &[]).get_args(),
        );
    let (run, _) = run_bounded(limited, b"");
    let stderr = text(&run.stderr);
    assert!(!stderr.contains("not recorded"), "{stderr}");
    // Rank 0's null communicator and rank 1's leaked one.
    assert!(
        stderr.contains("AR004") && stderr.contains("RS001"),
        "{stderr}"
    );
    assert_ranks_exited_normally(&all_traces(&out), 2, &stderr);
}

#[test]
fn a_limit_on_address_space_still_records_mpich() {
    check_address_space_limit(MPICH);
}
#[test]
fn a_limit_on_address_space_still_records_openmpi() {
    check_address_space_limit(OPENMPI);
}

/// The analysis of a run of more ranks than the soft limit on open files allows (`ulimit
/// -Sn`, 1024 by default) raises that limit to read every trace at once; under a hard limit
/// that is too low it says in one line what to do. It used to fail half-way through with
/// "too many open files", said three times.
fn check_open_files_limit(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "many_ranks.c", dir.path());
    let out = dir.path().join("out");
    let (run, _) = mpicheck_run(family, 40, &out, &[exe.to_str().unwrap()], &[], b"");
    let stderr = text(&run.stderr);
    assert_eq!(text(&run.stdout), "sum 40 from 39\n", "{stderr}");
    let analyze_under = |limit: &str| {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("ulimit {limit} && exec \"$@\""), "sh"])
            .arg(mpicheck_bin())
            .arg("analyze")
            .arg(&out);
        run_bounded(cmd, b"").0
    };
    let soft = analyze_under("-Sn 30");
    let stderr = text(&soft.stderr);
    assert_eq!(soft.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("no findings"), "{stderr}");
    let hard = analyze_under("-n 30");
    let stderr = text(&hard.stderr);
    assert_eq!(hard.status.code(), Some(2), "{stderr}");
    let error: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(error.len(), 1, "{stderr}");
    assert!(error[0].contains("`ulimit -n 104`"), "{stderr}");
}

#[test]
fn more_ranks_than_open_files_allowed_are_analyzed_mpich() {
    check_open_files_limit(MPICH);
}
#[test]
fn more_ranks_than_open_files_allowed_are_analyzed_openmpi() {
    check_open_files_limit(OPENMPI);
}

/// Runs `program` on 2 ranks under `mpicheck run`, which must fail (the program ends a rank
/// with SIGALRM inside a counted call), and gives each rank's trace file, its trace, and the
/// run's stderr to `check` (both ranks must have one).
fn check_killed(family: Family, program: &str, mut check: impl FnMut(i32, &Path, &Trace, &str)) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, program, dir.path());
    let out = dir.path().join("out");
    let (run, _) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "20"],
        b"",
    );
    let stderr = text(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    let paths: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .collect();
    let mut seen = 0;
    for path in &paths {
        let trace = read_trace(path).unwrap();
        if let Some(rank @ (0 | 1)) = trace.header.best_rank() {
            seen += 1;
            check(rank, path, &trace, &stderr);
        }
    }
    assert_eq!(seen, 2, "both ranks' traces\n{stderr}");
}

/// The calls of `trace` to the function `name`.
fn calls_named<'t>(trace: &'t Trace, name: &str) -> Vec<&'t mpicheck_trace::reader::CallRecord> {
    trace
        .calls
        .iter()
        .filter(|c| trace.function_name(c.func) == name)
        .collect()
}

/// Bytes of the records of the trace file `path` whose frame (kind, flags) `which` accepts.
fn record_bytes(path: &Path, which: impl Fn(u16, u8) -> bool) -> u64 {
    let b = std::fs::read(path).unwrap();
    mpicheck_trace::reader::frames(&b)
        .filter(|f| which(f.kind, f.flags))
        .map(|f| f.len as u64)
        .sum()
}

/// Bytes of counted repeat records (trace format 6, "Counted runs") in the trace file `path`.
fn counted_bytes(path: &Path) -> u64 {
    record_bytes(path, |_, flags| flags & mpicheck_trace::flags::COUNTED != 0)
}

/// A rank ended (SIGALRM) inside a call folded into a counted run leaves a trace that reads
/// with every call of the run, the one it died in last and not complete; the sender's run of
/// identical sends reads whole too.
fn check_killed_run(family: Family) {
    check_killed(family, "killed_run.c", |rank, path, trace, stderr| {
        let calls = |name: &str| calls_named(trace, name);
        match rank {
            1 => {
                assert!(!trace.header.exited(), "rank 1 was killed\n{stderr}");
                assert!(counted_bytes(path) > 0, "rank 1's receives were counted");
                let recvs = calls("MPI_Recv");
                assert_eq!(recvs.len(), 1001, "rank 1's receives\n{stderr}");
                assert!(recvs[..1000].iter().all(|c| c.complete && c.ret == 0));
                let last = trace.calls.last().unwrap();
                assert_eq!(trace.function_name(last.func), "MPI_Recv");
                assert!(!last.complete, "rank 1 died inside its last receive");
                assert!(recvs
                    .windows(2)
                    .all(|w| w[0].t_enter_ns <= w[1].t_enter_ns && w[0].seq <= w[1].seq));
            }
            0 => {
                assert!(counted_bytes(path) > 0, "rank 0's sends were counted");
                let sends = calls("MPI_Send");
                assert_eq!(sends.len(), 1000, "rank 0's sends\n{stderr}");
                assert!(sends.iter().all(|c| c.complete && c.ret == 0));
            }
            _ => {}
        }
    });
}

#[test]
fn a_rank_killed_in_a_counted_run_leaves_the_count_mpich() {
    check_killed_run(MPICH);
}
#[test]
fn a_rank_killed_in_a_counted_run_leaves_the_count_openmpi() {
    check_killed_run(OPENMPI);
}

/// Bytes of cycle records (trace format 7, "Counted cycles") in the trace file `path`.
fn cycle_bytes(path: &Path) -> u64 {
    record_bytes(path, |kind, _| kind == mpicheck_trace::kind::CYCLE)
}

/// A rank ended (SIGALRM) inside a call counted in a cycle record leaves a trace that reads
/// with every call of the cycle, the one it died in last and not complete.
fn check_killed_cycle(family: Family) {
    check_killed(family, "killed_cycle.c", |rank, path, trace, stderr| {
        let calls = |name: &str| calls_named(trace, name);
        match rank {
            1 => {
                assert!(!trace.header.exited(), "rank 1 was killed\n{stderr}");
                assert!(
                    cycle_bytes(path) > 0,
                    "rank 1's calls were counted in a cycle"
                );
                let (recvs, sends) = (calls("MPI_Recv"), calls("MPI_Send"));
                assert_eq!(recvs.len(), 1001, "rank 1's receives\n{stderr}");
                assert_eq!(sends.len(), 1000, "rank 1's answers\n{stderr}");
                assert!(recvs[..1000].iter().all(|c| c.complete && c.ret == 0));
                assert!(sends.iter().all(|c| c.complete && c.ret == 0));
                let last = trace.calls.last().unwrap();
                assert_eq!(trace.function_name(last.func), "MPI_Recv");
                assert!(!last.complete, "rank 1 died inside its last receive");
                assert!(trace
                    .calls
                    .windows(2)
                    .all(|w| w[0].t_enter_ns <= w[1].t_enter_ns && w[0].seq <= w[1].seq));
            }
            0 => {
                assert!(
                    cycle_bytes(path) > 0,
                    "rank 0's calls were counted in a cycle"
                );
                let sends = calls("MPI_Send");
                assert_eq!(sends.len(), 1000, "rank 0's sends\n{stderr}");
                assert!(sends.iter().all(|c| c.complete && c.ret == 0));
            }
            _ => {}
        }
    });
}

#[test]
fn a_rank_killed_in_a_counted_cycle_leaves_the_count_mpich() {
    check_killed_cycle(MPICH);
}
#[test]
fn a_rank_killed_in_a_counted_cycle_leaves_the_count_openmpi() {
    check_killed_cycle(OPENMPI);
}
