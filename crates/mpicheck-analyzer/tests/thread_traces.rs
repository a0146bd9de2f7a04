//! Recorded runs of multi-threaded programs (`tests/traces`), through the reader,
//! normalization and every check.

mod support;

use mpicheck_analyzer::checks::run_all_in_every_order;
use mpicheck_analyzer::model::SourceLocation;
use mpicheck_analyzer::normalize::normalize;
use support::committed_traces;

fn resolve(_: usize, _: u64) -> SourceLocation {
    SourceLocation::default()
}

/// `th_request_handle_reused_ok.c` under Open MPI: each rank's two threads exchange with
/// the other rank's same thread, then reduce on their own communicator. On this run the
/// two ranks' records put the threads' reductions and waits in different orders; replayed
/// as one sequence per rank, the strict replay found a cycle (rank 0's wait on its send
/// against rank 1's `MPI_Allreduce`) and reported a potential deadlock the program cannot
/// have. The program is correct.
#[test]
fn threads_recorded_in_different_orders_on_two_ranks_give_no_finding() {
    let traces = committed_traces("threads-openmpi");
    assert_eq!(traces.len(), 2);
    let run = normalize(&traces, &mut resolve).unwrap_or_else(|e| panic!("{e}"));
    let findings = run_all_in_every_order(&run);
    assert!(
        findings.is_empty(),
        "{:?}",
        findings
            .iter()
            .map(|d| (d.code, d.message.to_string()))
            .collect::<Vec<_>>()
    );
}
