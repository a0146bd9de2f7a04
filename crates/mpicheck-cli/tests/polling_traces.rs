//! Polling loops fold in the trace, from C and from Fortran, under MPICH and Open MPI: a
//! rank that spins on `MPI_Test` (or `MPI_Wtime`) leaves a few records that count the calls,
//! not one record per call (a tight loop made ~113 MB of trace per second).

mod support;

use support::{compile, mpicheck_run, text, traces, Family, MPICH, OPENMPI};

/// `(records, calls they stand for)` of the function `name` in a trace.
fn records_and_calls(trace: &mpicheck_trace::reader::Trace, name: &str) -> (u64, u64) {
    trace
        .calls
        .iter()
        .filter(|c| trace.function_name(c.func) == name)
        .fold((0, 0), |(records, calls), c| {
            (records + 1, calls + 1 + c.repeats)
        })
}

fn check_polls_fold(family: Family, program: &str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, program, dir.path());
    let out = dir.path().join("out");
    let (output, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{program}: {output:?}");
    let polls: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("polls "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{program}: no poll count in {stdout}"));
    let traces = traces(&out);
    assert_eq!(traces.len(), 2, "{program}");
    let (records, calls) = records_and_calls(&traces[0], "MPI_Test");
    assert_eq!(calls, polls, "{program}: every MPI_Test is counted");
    // The first and last unsuccessful polls, and the successful one.
    assert!(
        records <= 3 && polls > 100,
        "{program}: {polls} polls in {records} records"
    );
    let (records, calls) = records_and_calls(&traces[1], "MPI_Wtime");
    assert!(
        records <= 3 && calls > 100,
        "{program}: {calls} MPI_Wtime calls in {records} records"
    );
}

#[test]
fn c_polls_fold_mpich() {
    check_polls_fold(MPICH, "poll_loop.c");
}

#[test]
fn c_polls_fold_openmpi() {
    check_polls_fold(OPENMPI, "poll_loop.c");
}

#[test]
fn fortran_polls_fold_mpich() {
    check_polls_fold(MPICH, "poll_loop.f90");
}

#[test]
fn fortran_polls_fold_openmpi() {
    check_polls_fold(OPENMPI, "poll_loop.f90");
}
