//! A job of several programs (MPMD, mpiexec's colon syntax): `mpicheck run -n 1 --
//! coordinator : -n 2 worker` records every rank of every program in one
//! `MPI_COMM_WORLD`, and a finding names the lines of both programs. Before, the programs
//! after the `:` were handed to mpiexec as they were and ran unrecorded ("ranks 1, 2 left
//! no trace").

mod support;

use support::*;

fn two_programs(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let coordinator = compile(family, "mpmd_coordinator.c", dir.path());
    let worker = compile(family, "mpmd_worker.c", dir.path());
    let out = dir.path().join("out");
    let job = [
        coordinator.to_str().unwrap(),
        ":",
        "-n",
        "2",
        worker.to_str().unwrap(),
    ];
    let (output, _) = mpicheck_run(family, 1, &out, &job, &[], b"");
    let stderr = text(&output.stderr);
    // The program's output is its own.
    assert_eq!(
        sorted_lines(&output.stdout),
        [
            "coordinator: rank 0 of 3",
            "worker: rank 1 of 3",
            "worker: rank 2 of 3"
        ],
        "{stderr}"
    );
    assert_eq!(traces(&out).len(), 3, "{stderr}");
    assert!(!stderr.contains("left no trace"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(report_codes(&out), ["TY001"], "{stderr}");
    for program in ["mpmd_coordinator.c", "mpmd_worker.c"] {
        let source = program_source(program);
        let at = format!("{}:{}", source.display(), site_line(&source, "bcast"));
        assert!(stderr.contains(&at), "{at} not in:\n{stderr}");
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(meta["ranks"], 3);
}

#[test]
fn a_job_of_two_programs_is_recorded_whole_mpich() {
    two_programs(MPICH);
}

#[test]
fn a_job_of_two_programs_is_recorded_whole_openmpi() {
    two_programs(OPENMPI);
}

#[test]
fn programs_of_one_job_linked_against_different_mpis_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let coordinator = compile(MPICH, "mpmd_coordinator.c", dir.path());
    let worker = dir.path().join("worker-openmpi");
    compile_to(OPENMPI, &program_source("mpmd_worker.c"), &worker);
    let out = dir.path().join("out");
    let mut cmd = std::process::Command::new(mpicheck_bin());
    cmd.args(["run", "-n", "1", "--out"])
        .arg(&out)
        .arg("--")
        .arg(&coordinator)
        .args([":", "-n", "1"])
        .arg(&worker);
    let (output, _) = run_bounded(cmd, b"");
    assert_error(&output, "the programs of one job must use the same MPI");
    assert!(!out.exists(), "no job was started");
}
