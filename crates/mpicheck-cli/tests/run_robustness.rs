//! `mpicheck run` on bad input and failing programs, under MPICH and Open MPI: one-line
//! errors instead of panics, programs whose path holds `=`, an MPI that does not match the
//! program, programs that record nothing, the exit status scheme (0 clean, 1 errors, 2
//! mpicheck could not do its job, 3 the program failed or the analysis is incomplete), the
//! job dying with a SIGKILLed mpicheck, and the launcher's teardown messages kept out of
//! the program's output.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use support::*;

/// Timeouts that are not a sane number of seconds are refused (1e300 made mpicheck panic
/// once the job had started).
#[test]
fn bad_deadlock_timeouts_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(MPICH, "fail.c", dir.path());
    let out = dir.path().join("out");
    for value in ["1e300", "-1", "NaN", "inf", "0", "86401"] {
        let output = mpicheck_run(
            MPICH,
            2,
            &out,
            &[exe.to_str().unwrap()],
            &["--deadlock-timeout", value],
            b"",
        )
        .0;
        assert_error(&output, "at most 86400");
    }
}

/// An MPI launcher given as the program (`mpicheck run -- mpirun -n 2 ./app`, the way one
/// runs a program under most tools) used to start the launcher as rank 0, which refused to
/// run inside a job: a one-line error naming the command to use, nothing run.
#[test]
fn a_launcher_given_as_the_program_gets_the_command_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (family, launcher) in [(MPICH, "mpiexec.hydra"), (OPENMPI, "mpirun")] {
        let output = mpicheck_run(
            family,
            2,
            &out,
            &[launcher, "-np", "2", "./app", "x"],
            &[],
            b"",
        )
        .0;
        assert_error(&output, "run `mpicheck run -n 2 -- ./app x`");
        assert!(!out.exists(), "{launcher} ran something");
    }
}

/// Trace releasing asked for in a way that cannot be: one-line errors, nothing run.
#[test]
fn contradictory_or_bad_trace_release_flags_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (flags, expected) in [
        (
            &["--release-traces-after", "1M", "--keep-traces"][..],
            "cannot be used with",
        ),
        (
            &["--release-traces-after", "1M", "--analyze-after"][..],
            "cannot be used with",
        ),
        (&["--release-traces-after", "0"][..], "expected a size"),
        (&["--release-traces-after", "lots"][..], "expected a size"),
    ] {
        let output = mpicheck_run(MPICH, 2, &out, &["true"], flags, b"").0;
        assert_error(&output, expected);
        assert!(!out.exists(), "{flags:?} ran something");
    }
}

/// A program whose path holds `=` runs like any other (`env` took it for an assignment).
fn check_path_with_equals_sign(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a=b");
    fs::create_dir(&odd).unwrap();
    let exe = odd.join("x=1");
    compile_to(family, &program_source("fail.c"), &exe);
    let out = dir.path().join("out");
    let output = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap(), "ok"], &[], b"").0;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["run"]["ranks"], 2, "{report}");
}

#[test]
fn program_path_with_equals_sign_mpich() {
    check_path_with_equals_sign(MPICH);
}
#[test]
fn program_path_with_equals_sign_openmpi() {
    check_path_with_equals_sign(OPENMPI);
}

/// `--mpi` naming the other MPI than the program's is refused before anything runs.
fn check_other_mpi_refused(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "fail.c", dir.path());
    let out = dir.path().join("out");
    let output = mpicheck_run(family.other(), 2, &out, &[exe.to_str().unwrap()], &[], b"").0;
    assert_error(&output, "is linked against");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("--mpi {}", family.name)),
        "{stderr}"
    );
}

#[test]
fn other_mpi_refused_mpich_program() {
    check_other_mpi_refused(MPICH);
}
#[test]
fn other_mpi_refused_openmpi_program() {
    check_other_mpi_refused(OPENMPI);
}

/// A program that is not linked against MPI: without `--mpi` refused; with it, a warning,
/// and after the run "nothing was recorded" (exit 2), never "no findings".
fn check_nothing_recorded(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = mpicheck_run(family, 2, &out, &["/bin/true"], &[], b"").0;
    assert_error(&output, "nothing was recorded");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("mpicheck: warning: /bin/true is not linked against an MPI library"),
        "{stderr}"
    );
    assert!(!stderr.contains("no findings"), "{stderr}");
    let output = mpicheck(&[
        "run",
        "-n",
        "2",
        "--out",
        out.to_str().unwrap(),
        "/bin/true",
    ]);
    assert_error(&output, "not linked against MPICH or Open MPI");
}

#[test]
fn nothing_recorded_is_an_error_mpich() {
    check_nothing_recorded(MPICH);
}
#[test]
fn nothing_recorded_is_an_error_openmpi() {
    check_nothing_recorded(OPENMPI);
}

fn run_json_end(out: &Path) -> serde_json::Value {
    let meta: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("run.json")).unwrap()).unwrap();
    meta["end"].clone()
}

/// The exit status is mpicheck's, never the program's: 3 when the program failed without
/// error findings, with its status or signal on stderr and in run.json; `mpicheck
/// analyze` of the saved run says the same.
fn check_exit_statuses(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "fail.c", dir.path());
    let exe = exe.to_str().unwrap();
    let out = dir.path().join("out");
    let out_arg = out.to_str().unwrap();

    let output = mpicheck_run(family, 2, &out, &[exe, "exit", "2"], &[], b"").0;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    // MPICH's cleanup kills rank 0 after rank 1 exits; in about one run of ten it reports
    // rank 0 as killed by SIGKILL and loses the status. mpicheck then names rank 1 from
    // the traces, never the killed rank.
    let said = if run_json_end(&out) == serde_json::json!({"how": "rank_exited_early", "rank": 1}) {
        "rank 1 exited without calling MPI_Finalize, and the launcher killed the other ranks"
    } else {
        assert_eq!(
            run_json_end(&out),
            serde_json::json!({"how": "exited", "status": 2})
        );
        "the program exited with status 2"
    };
    assert!(stderr.contains(&format!("mpicheck: {said}\n")), "{stderr}");
    assert!(stderr.trim_end().ends_with(said), "{stderr}");
    let again = mpicheck(&["analyze", out_arg]);
    assert_eq!(again.status.code(), Some(3), "{}", text(&again.stderr));

    let output = mpicheck_run(family, 2, &out, &[exe, "segv"], &[], b"").0;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("mpicheck: rank 1 was killed by signal 11 (SIGSEGV)\n"),
        "{stderr}"
    );
    assert_eq!(
        run_json_end(&out),
        serde_json::json!({"how": "rank_killed", "rank": 1, "signal": 11})
    );

    let output = mpicheck_run(family, 2, &out, &[exe, "ok"], &[], b"").0;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(run_json_end(&out), serde_json::json!({"how": "succeeded"}));
    let again = mpicheck(&["analyze", out_arg]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
}

#[test]
fn exit_status_is_mpichecks_mpich() {
    check_exit_statuses(MPICH);
}
#[test]
fn exit_status_is_mpichecks_openmpi() {
    check_exit_statuses(OPENMPI);
}

/// The processes below `root` (children, grandchildren...), by walking /proc.
fn descendants(root: u32) -> BTreeSet<u32> {
    let mut parent_of = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        if let Some(ppid) = rest.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = BTreeSet::from([root]);
    loop {
        let before = found.len();
        for &(pid, ppid) in &parent_of {
            if found.contains(&ppid) {
                found.insert(pid);
            }
        }
        if found.len() == before {
            break;
        }
    }
    found.remove(&root);
    found
}

/// The pids of the ranks that initialized MPI, from their traces.
fn initialized_ranks(out: &Path) -> Vec<u32> {
    let Ok(entries) = fs::read_dir(out) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".mpitrace"))
        .filter_map(|e| {
            let bytes = fs::read(e.path()).ok()?;
            let header =
                mpicheck_trace::reader::read_header(bytes.get(..mpicheck_trace::HEADER_SIZE)?)
                    .ok()?;
            header.initialized().then_some(header.pid)
        })
        .collect()
}

/// SIGKILL mpicheck while its job hangs: the launcher and every rank die with it.
fn check_job_dies_with_mpicheck(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "hang.c", dir.path());
    let out = dir.path().join("out");
    let cmd = mpicheck_run_command(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "600"],
    );
    let job = spawn_collected(cmd);
    let mpicheck_pid = job.child.id();
    let started = Instant::now();
    while initialized_ranks(&out).len() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the ranks did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut processes = descendants(mpicheck_pid);
    processes.extend(initialized_ranks(&out));
    // SAFETY: kill(2) of the child we started.
    unsafe { libc::kill(mpicheck_pid as i32, libc::SIGKILL) };
    let killed = Instant::now();
    let mut alive: Vec<u32> = processes.iter().copied().collect();
    while !alive.is_empty() && killed.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
        alive.retain(|&pid| process_alive(pid));
    }
    // Leave nothing behind, whatever the verdict (these pids were checked to be ours).
    for &pid in &alive {
        // SAFETY: kill(2) of processes the test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    let _ = job.wait();
    assert!(
        alive.is_empty(),
        "still running 5 s after mpicheck was killed: {alive:?} (of {processes:?})"
    );
}

#[test]
fn job_dies_with_a_killed_mpicheck_mpich() {
    check_job_dies_with_mpicheck(MPICH);
}
#[test]
fn job_dies_with_a_killed_mpicheck_openmpi() {
    check_job_dies_with_mpicheck(OPENMPI);
}

/// When mpicheck ends a deadlocked job, the user sees the program's output byte for byte,
/// one line saying that mpicheck ended the job, the diagnosis, and nothing of the
/// launcher's teardown (MPICH prints a "BAD TERMINATION" block on stdout).
fn check_teardown_is_quiet(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "teardown.c", dir.path());
    let out = dir.path().join("out");
    // Three ranks: MPICH's launcher then prints its block every time (two: most times).
    let output = mpicheck_run(
        family,
        3,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    )
    .0;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "line one\nline two\npartial",
        "stderr:\n{stderr}"
    );
    assert_eq!(
        stderr.matches("mpicheck ended the job").count(),
        1,
        "{stderr}"
    );
    for noise in [
        "BAD TERMINATION",
        "YOUR APPLICATION TERMINATED",
        "[mpiexec@",
        "[proxy:",
        "noticed that process",
        "-----",
        "=====",
    ] {
        assert!(!stderr.contains(noise), "`{noise}` on stderr:\n{stderr}");
    }
    assert!(
        report_codes(&out).contains(&"DL001".to_string()),
        "{stderr}"
    );
}

#[test]
fn launcher_teardown_is_kept_from_the_user_mpich() {
    check_teardown_is_quiet(MPICH);
}
#[test]
fn launcher_teardown_is_kept_from_the_user_openmpi() {
    check_teardown_is_quiet(OPENMPI);
}

/// Ctrl-C (SIGINT to the foreground process group: mpicheck and the launcher): the job
/// ends, and since the program did not finish "no findings" cannot be claimed: exit
/// status 3. The launcher's teardown block is kept from the user (its first words, printed
/// the instant it gets the signal, may race mpicheck's own handler and pass).
fn check_interrupt(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "computes.c", dir.path());
    let out = dir.path().join("out");
    let cmd = mpicheck_run_command(family, 2, &out, &[exe.to_str().unwrap()], &[]);
    let job = spawn_collected(cmd);
    let started = Instant::now();
    while initialized_ranks(&out).len() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the ranks did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: kill(2) of the process group the test started.
    unsafe { libc::kill(-(job.child.id() as i32), libc::SIGINT) };
    let output = job.wait();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the job was interrupted"), "{stderr}");
    let stdout = text(&output.stdout);
    for noise in ["BAD TERMINATION", "YOUR APPLICATION", "-----"] {
        assert!(!stdout.contains(noise), "`{noise}` on stdout:\n{stdout}");
        assert!(!stderr.contains(noise), "`{noise}` on stderr:\n{stderr}");
    }
}

#[test]
fn interrupted_job_is_not_clean_mpich() {
    check_interrupt(MPICH);
}
#[test]
fn interrupted_job_is_not_clean_openmpi() {
    check_interrupt(OPENMPI);
}

/// Buffer checking runs only under `--check-buffers`: not by default, and not because the
/// environment of `mpicheck run` happens to hold the library's switch.
fn check_buffer_checking_only_when_asked(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("dr_isend_store");
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/dr_isend_store.c");
    compile_to(family, &source, &exe);
    let codes = |out: &Path| -> Vec<String> {
        let report: serde_json::Value =
            serde_json::from_slice(&fs::read(out.join("report.json")).unwrap()).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let off = dir.path().join("off");
    let mut cmd = mpicheck_run_command(family, 2, &off, &[exe.to_str().unwrap()], &[]);
    cmd.env("MPICHECK_CHECK_BUFFERS", "1");
    let output = run_bounded(cmd, b"").0;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(codes(&off).is_empty(), "{:?}", codes(&off));
    let on = dir.path().join("on");
    let output = mpicheck_run(
        family,
        2,
        &on,
        &[exe.to_str().unwrap()],
        &["--check-buffers"],
        b"",
    )
    .0;
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(codes(&on), vec!["DR002"]);

    // Buffers it cannot watch are counted and said: here one stack buffer per rank.
    let exe = dir.path().join("dr_buffers_ok");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/dr_buffers_ok.c");
    compile_to(family, &source, &exe);
    let ok = dir.path().join("ok");
    let args = [exe.to_str().unwrap()];
    let output = mpicheck_run(family, 2, &ok, &args, &["--check-buffers"], b"").0;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(
            "mpicheck: note: --check-buffers watched 6 buffers of nonblocking calls and left 2 unwatched"
        ),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn buffer_checking_only_when_asked_mpich() {
    check_buffer_checking_only_when_asked(MPICH);
}
#[test]
fn buffer_checking_only_when_asked_openmpi() {
    check_buffer_checking_only_when_asked(OPENMPI);
}

/// A launcher that never sees a rank die: `LAUNCHER MPIEXEC -n N COMMAND...` runs each rank
/// under a shell that stays after it (as launchers that keep a job alive after a failure
/// do), so the others wait for the dead rank forever.
const KEEP_ALIVE_LAUNCHER: &str = r#"#!/bin/sh
mpiexec=$1
n=$3
shift 3
exec "$mpiexec" -n "$n" sh -c '"$@"; exec sleep 300' sh "$@"
"#;

/// Runs `rank_dies.c` on 3 ranks under `launcher_script` (called with the family's mpiexec
/// first) with a 2 s deadlock timeout; checks that mpicheck ended with status 3, and returns
/// its stderr, its line about the dead rank 0 and how long the run took.
fn run_rank_dies(family: Family, launcher_script: &str) -> (String, String, Duration) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "rank_dies.c", dir.path());
    let launcher = dir.path().join("launcher");
    fs::write(&launcher, launcher_script).unwrap();
    fs::set_permissions(&launcher, fs::Permissions::from_mode(0o755)).unwrap();
    let launcher = format!("{} mpiexec.{}", launcher.display(), family.name);
    let out = dir.path().join("out");
    let (run, elapsed) = mpicheck_run(
        family,
        3,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2", "--launcher", &launcher],
        b"",
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    let said = stderr
        .lines()
        .find(|l| l.starts_with("mpicheck: rank 0 (pid "))
        .unwrap_or_else(|| panic!("no line about the dead rank\n{stderr}"))
        .to_string();
    (stderr, said, elapsed)
}

/// A rank dies in the middle of an exchange and the launcher does not end the job: mpicheck
/// says which rank died, after which call, and what the others wait in, and ends the job
/// within the deadlock timeout (it used to say nothing and wait forever).
fn check_dead_rank_ends_the_job(family: Family) {
    let (stderr, said, elapsed) = run_rank_dies(family, KEEP_ALIVE_LAUNCHER);
    assert!(
        said.contains(" died after MPI_Send; rank 1 waits in MPI_Recv, rank 2 in MPI_Barrier;")
            && said.ends_with("the launcher did not end the job: mpicheck ended it"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a rank died, and mpicheck ended the job its launcher left waiting"),
        "{stderr}"
    );
    // Timeout, the launcher's grace, start-up and analysis on a loaded machine; the job
    // used to run until killed.
    assert!(
        elapsed < Duration::from_secs(60),
        "took {elapsed:?}\n{stderr}"
    );
}

#[test]
fn a_dead_rank_ends_a_job_its_launcher_keeps_mpich() {
    check_dead_rank_ends_the_job(MPICH);
}
#[test]
fn a_dead_rank_ends_a_job_its_launcher_keeps_openmpi() {
    check_dead_rank_ends_the_job(OPENMPI);
}

/// A launcher that stays after its job ended: `LAUNCHER MPIEXEC -n N COMMAND...` runs the job
/// and then lingers, as Open MPI's mpiexec sometimes does after `MPI_Abort` (hung in its
/// teardown with every rank a zombie).
const LINGERING_LAUNCHER: &str = r#"#!/bin/sh
"$@"
exec sleep 300
"#;

/// Rank 0 dies, the MPI ends the other ranks, and the launcher does not exit: mpicheck says
/// how the ranks ended and ends the launcher (it used to wait for it forever, silently).
fn check_lingering_launcher_is_ended(family: Family) {
    let (stderr, said, elapsed) = run_rank_dies(family, LINGERING_LAUNCHER);
    assert!(
        said.contains(" died after MPI_Send")
            && said.ends_with("the launcher did not end the job: mpicheck ended it"),
        "{stderr}"
    );
    assert!(
        elapsed < Duration::from_secs(60),
        "took {elapsed:?}\n{stderr}"
    );
}

#[test]
fn a_launcher_left_after_its_ranks_died_is_ended_mpich() {
    check_lingering_launcher_is_ended(MPICH);
}
#[test]
fn a_launcher_left_after_its_ranks_died_is_ended_openmpi() {
    check_lingering_launcher_is_ended(OPENMPI);
}

/// A program that closes mpicheck's trace descriptor and opens its own file under that
/// number: mpicheck leaves the file alone (it once grew it, and the rank died of SIGBUS
/// writing past the trace), stops recording, and says why (exit status 3).
fn check_closed_trace_descriptor(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "closes_trace_fd.c", dir.path());
    let out = dir.path().join("out");
    let data = dir.path().join("data");
    let (output, _) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap(), data.to_str().unwrap()],
        &[],
        b"",
    );
    let stderr = text(&output.stderr);
    for rank in 0..2 {
        let bytes = fs::read(format!("{}-{rank}.txt", data.display())).unwrap();
        assert_eq!(bytes.len(), 65536, "rank {rank}'s file: {stderr}");
        assert!(
            bytes.iter().all(|&b| b == b'x'),
            "rank {rank}'s file: {stderr}"
        );
    }
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(!stderr.contains("killed by signal"), "{stderr}");
    assert!(
        stderr.contains("because the program closed the trace's file descriptor"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(ranks 0, 1 closed mpicheck's trace file while recording)"),
        "{stderr}"
    );
}

#[test]
fn a_closed_trace_descriptor_leaves_the_programs_file_alone_mpich() {
    check_closed_trace_descriptor(MPICH);
}
#[test]
fn a_closed_trace_descriptor_leaves_the_programs_file_alone_openmpi() {
    check_closed_trace_descriptor(OPENMPI);
}
