//! `--check-buffers` without memory protection keys: the page-protection mechanism that runs
//! where `pkey_alloc` fails (forced here with `MPICHECK_BUFFERS_MECHANISM=mprotect`) still
//! finds what it found before keys existed, under MPICH and Open MPI. The tier-2 `dr_*`
//! programs run with keys wherever the CPU has them.

mod support;

use std::path::Path;

use support::*;

fn check_mprotect_fallback(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    for (program, expected) in [
        ("dr_isend_store.c", 1),
        ("dr_irecv_access.c", 2),
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
        let mut cmd = mpicheck_run_command(
            family,
            2,
            &out,
            &[exe.to_str().unwrap()],
            &["--check-buffers"],
        );
        cmd.env("MPICHECK_BUFFERS_MECHANISM", "mprotect");
        let output = run_bounded(cmd, b"").0;
        let stderr = text(&output.stderr);
        let status = if expected == 0 { 0 } else { 1 };
        assert_eq!(output.status.code(), Some(status), "{program}: {stderr}");
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
