//! Programs that start processes with `MPI_Comm_spawn`: mpicheck records only the job it
//! launched, so the workers and what the managers exchange with them are not checked. A
//! manager waiting for a worker that computes must not be taken for deadlocked (mpicheck
//! once ended such a job after the deadlock timeout, with a DL001 "waiting for rank
//! 4294934530"); the run says what was not checked and does not claim "no findings" (exit
//! status 3); a deadlock among the job's own ranks is still found.
//!
//! Open MPI only: the MPICH of Debian (4.0, ch4:ucx) fails every `MPI_Comm_spawn`, with or
//! without mpicheck. The analysis that follows is the same for both families
//! (`mpicheck-analyzer/tests/outside_job.rs`).

mod support;

use std::path::{Path, PathBuf};

use support::*;

/// `spawns_workers.c` with `args` on 2 ranks under Open MPI, with a deadlock timeout of 1 s
/// (its worker computes for 3): the run's output, and its directory (in `dir`).
fn run_managers(dir: &Path, args: &[&str]) -> (std::process::Output, PathBuf) {
    let exe = compile(OPENMPI, "spawns_workers.c", dir);
    let out = dir.join("out");
    let program: Vec<&str> = [exe.to_str().unwrap()]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let extra = ["--deadlock-timeout", "1"];
    (mpicheck_run(OPENMPI, 2, &out, &program, &extra, b"").0, out)
}

#[test]
fn a_manager_waiting_for_a_spawned_worker_is_not_ended() {
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = run_managers(dir.path(), &[]);
    let stderr = text(&output.stderr);
    assert_eq!(text(&output.stdout), "manager: got 5\n", "{stderr}");
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(report_codes(&out).is_empty(), "{stderr}");
    let line = site_line(&program_source("spawns_workers.c"), "spawn");
    let note = format!(
        "mpicheck: warning: ranks 0, 1 started processes with MPI_Comm_spawn at {}:{line}: what those processes do is not checked",
        program_source("spawns_workers.c").display()
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert!(
        stderr.contains("the analysis is incomplete (processes outside the job were not recorded)"),
        "{stderr}"
    );
    // `mpicheck analyze` of the saved run says the same.
    let again = mpicheck(&["analyze", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(3), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains(&note));
}

#[test]
fn a_deadlock_among_the_managers_is_still_found() {
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = run_managers(dir.path(), &["deadlock"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(report_codes(&out), ["DL001"], "{stderr}");
    let line = site_line(&program_source("spawns_workers.c"), "deadlock");
    assert!(
        stderr.contains(&format!("spawns_workers.c:{line}")),
        "{stderr}"
    );
}
