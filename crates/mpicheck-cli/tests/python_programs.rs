//! `mpicheck run` on Python programs that use MPI through mpi4py: the interpreter is linked
//! against no MPI, so mpicheck finds the MPI from mpi4py's extension, with or without `--mpi`,
//! for `python3 script.py` and for a script run through its `#!` line.

use std::path::Path;
use std::process::Command;

mod support;
use support::*;

/// Debian's interpreter, where Debian's python3-mpi4py (scripts/install-deps) installs.
const PYTHON: &str = "/usr/bin/python3";

/// Whether `PYTHON` has mpi4py; skips (fails in CI) when it has not.
fn have_mpi4py() -> bool {
    let found = Command::new(PYTHON)
        .args(["-c", "import mpi4py"])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        mpicheck_test_support::skip("python3-mpi4py is not installed");
    }
    found
}

/// `mpicheck run -n 2 --out OUT -- PROGRAM...` without `--mpi`, with `/usr/bin` first on
/// `PATH` so that a script's `#!/usr/bin/env python3` finds Debian's interpreter.
fn run_python(out: &Path, program: &[&str]) -> std::process::Output {
    let path = format!("/usr/bin:{}", std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(mpicheck_bin());
    cmd.args(["run", "-n", "2", "--out"])
        .arg(out)
        .args(["--deadlock-timeout", "3", "--"])
        .args(program)
        .env("PATH", path);
    run_bounded(cmd, b"").0
}

#[test]
fn a_correct_mpi4py_program_has_no_findings() {
    if !have_mpi4py() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let script = program_source("mpi4py_ring.py");
    let output = run_python(&out, &[PYTHON, script.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("no findings"), "{stderr}");
    let stdout = sorted_lines(&output.stdout);
    assert_eq!(
        stdout,
        ["rank 0 got 1, sum 1", "rank 1 got 0, sum 1"],
        "{stderr}"
    );
}

#[test]
fn a_deadlocked_mpi4py_script_is_ended_and_reported() {
    if !have_mpi4py() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let script = program_source("mpi4py_deadlock.py");
    let output = run_python(&out, &[script.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[DL001]"), "{stderr}");
}
