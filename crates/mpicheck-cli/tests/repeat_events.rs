//! Repeat records (trace format 5) change what a trace costs, not what it says: a program of
//! varied calls (`benches/analysis/varied.c`: point-to-point under changing tags, wildcard
//! receives, collectives, communicators and datatypes made and freed) run under MPICH and
//! Open MPI with repeats on and off (`MPICHECK_REPEATS=0`) lists the same events, with fewer
//! bytes of records.

use std::path::Path;

mod support;
use support::*;

fn events_and_bytes(family: Family, exe: &Path, out: &Path, repeats: &str) -> (String, u64) {
    let mut cmd = mpicheck_run_command(family, 2, out, &[exe.to_str().unwrap(), "60"], &[]);
    cmd.env("MPICHECK_REPEATS", repeats);
    let (output, _) = run_bounded(cmd, b"");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}: mpicheck run, repeats {repeats}: {}",
        family.name,
        text(&output.stderr)
    );
    let events = mpicheck(&["events", out.to_str().unwrap()]);
    assert!(events.status.success(), "{}", text(&events.stderr));
    let bytes = traces(out)
        .iter()
        .map(|t| t.header.records_end - 4096)
        .sum();
    (text(&events.stdout), bytes)
}

#[test]
fn repeats_list_the_same_events_in_fewer_bytes() {
    for family in [MPICH, OPENMPI] {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("varied");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/analysis/varied.c");
        compile_to(family, &source, &exe);
        let (with, with_bytes) = events_and_bytes(family, &exe, &dir.path().join("on"), "1");
        let (without, without_bytes) = events_and_bytes(family, &exe, &dir.path().join("off"), "0");
        assert!(with.lines().count() > 1000, "{}: {with}", family.name);
        assert_eq!(with, without, "{}: the same events", family.name);
        assert!(
            with_bytes < without_bytes,
            "{}: {with_bytes} bytes of records with repeats, {without_bytes} without",
            family.name
        );
    }
}
