//! `--check-buffers` without memory protection keys: the page-protection mechanism that runs
//! where `pkey_alloc` fails (forced here with `MPICHECK_BUFFERS_MECHANISM=mprotect`) still
//! finds what it found before keys existed, under MPICH and Open MPI. The tier-2 `dr_*`
//! programs run with keys wherever the CPU has them. The budget of neighbour faults and the
//! recorder's ring of findings are checked under both mechanisms.

mod support;

use std::path::Path;

use support::*;

fn check_mprotect_fallback(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    for (program, expected) in [
        ("dr_isend_store.c", 1),
        ("dr_irecv_access.c", 2),
        // One store into three buffers of one MPI_Irecv call: one finding.
        ("dr_irecv_store_per_size.c", 1),
        ("dr_irecv_above_arena.c", 1),
        ("dr_thread_store.c", 1),
        ("dr_buffers_ok.c", 0),
    ] {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/programs")
            .join(program);
        let exe = dir.path().join(program.trim_end_matches(".c"));
        compile_to(family, &source, &exe);
        let out = dir.path().join(format!("{program}.out"));
        let (code, stderr) = run_check_buffers(family, &exe, &out, "mprotect");
        let status = if expected == 0 { 0 } else { 1 };
        assert_eq!(code, Some(status), "{program}: {stderr}");
        assert_eq!(
            report_codes(&out),
            vec!["DR002"; expected],
            "{program}: {stderr}"
        );
    }
}

#[test]
fn mprotect_fallback_mpich() {
    check_mprotect_fallback(MPICH);
}
#[test]
fn mprotect_fallback_openmpi() {
    check_mprotect_fallback(OPENMPI);
}

/// A program that stores to other data on the pages of pending receive buffers 100,000
/// times per step (`dr_neighbour_budget.c`): under either mechanism the site of those
/// receives is given up after its budget of such faults, the note names it with the reason,
/// and a later access to a buffer posted at another site is still reported.
fn check_neighbour_budget(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/dr_neighbour_budget.c");
    let program = std::fs::read_to_string(&source).unwrap();
    let irecv_line = 1 + program
        .lines()
        .position(|l| l.contains("MPI_Irecv(b->halo"))
        .unwrap();
    let exe = dir.path().join("dr_neighbour_budget");
    compile_to(family, &source, &exe);
    for mechanism in ["default", "mprotect"] {
        let out = dir.path().join(mechanism);
        let stderr = run_one_dr002(family, &exe, &out, mechanism);
        // Per rank: the 2 receives pending when the site was given up, 18 posted later.
        let note = "mpicheck: note: --check-buffers left 40 buffers unwatched because of too many accesses to their neighbours";
        let site = format!("dr_neighbour_budget.c:{irecv_line} after ");
        assert!(stderr.contains(note), "{mechanism}: {stderr}");
        assert!(
            stderr.contains(&site) && stderr.contains("40 posted by ranks 0, 1 at "),
            "{mechanism}: {site}\n{stderr}"
        );
    }
}

#[test]
fn neighbour_budget_mpich() {
    check_neighbour_budget(MPICH);
}
#[test]
fn neighbour_budget_openmpi() {
    check_neighbour_budget(OPENMPI);
}

/// 100 stores, each into another pending receive buffer (`dr_many_buffers_stored.c`): more
/// than the recorder's 64 slots of unflushed findings, but each is flushed at the next MPI
/// call, so all 100 are recorded (the one DR002 counts 99 more buffers) and none is dropped.
fn check_findings_ring(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/dr_many_buffers_stored.c");
    let exe = dir.path().join("dr_many_buffers_stored");
    compile_to(family, &source, &exe);
    for mechanism in ["default", "mprotect"] {
        let out = dir.path().join(mechanism);
        let stderr = run_one_dr002(family, &exe, &out, mechanism);
        let report = std::fs::read_to_string(out.join("report.json")).unwrap();
        assert!(
            report.contains("the same instruction did so to 99 more buffers"),
            "{mechanism}: {report}"
        );
        assert!(
            !stderr.contains("were not recorded"),
            "{mechanism}: {stderr}"
        );
    }
}

#[test]
fn findings_ring_mpich() {
    check_findings_ring(MPICH);
}
#[test]
fn findings_ring_openmpi() {
    check_findings_ring(OPENMPI);
}

/// Runs `exe` on 2 ranks with `--check-buffers` (under `MPICHECK_BUFFERS_MECHANISM=mprotect`
/// for `mechanism` "mprotect"), reports into `out`: its exit code and stderr.
fn run_check_buffers(
    family: Family,
    exe: &Path,
    out: &Path,
    mechanism: &str,
) -> (Option<i32>, String) {
    let mut cmd = mpicheck_run_command(
        family,
        2,
        out,
        &[exe.to_str().unwrap()],
        &["--check-buffers"],
    );
    if mechanism == "mprotect" {
        cmd.env("MPICHECK_BUFFERS_MECHANISM", "mprotect");
    }
    let output = run_bounded(cmd, b"").0;
    (output.status.code(), text(&output.stderr))
}

/// [`run_check_buffers`], checking that the report is one DR002 and the exit code says so;
/// the run's stderr.
fn run_one_dr002(family: Family, exe: &Path, out: &Path, mechanism: &str) -> String {
    let (code, stderr) = run_check_buffers(family, exe, out, mechanism);
    assert_eq!(code, Some(1), "{mechanism}: {stderr}");
    assert_eq!(report_codes(out), vec!["DR002"], "{mechanism}: {stderr}");
    stderr
}
