//! Processes outside the recorded job: ranks that start workers with `MPI_Comm_spawn` (or
//! connect to other jobs) and exchange with them over the intercommunicator. Nobody recorded
//! the workers, so what the ranks exchange with them is no operation to match or wait for:
//! a rank waiting for a worker that computes is not deadlocked (mpicheck once ended such a
//! job with a DL001 "waiting for rank 4294934530"), and the calls that reached outside are
//! listed for the report to say what was not checked.

use mpicheck_analyzer::checks::run_all;
use mpicheck_analyzer::model::{Op, SourceLocation, OUTSIDE_JOB};
use mpicheck_analyzer::normalize::normalize;
use mpicheck_trace::builder::{decoded_call, decoded_trace};
use mpicheck_trace::{state, CallRecord, Trace};

const SCHEMA: &str = "\
0 MPI_Comm_spawn maxprocs:NUM_PROCS:in:s root:RANK:in:s comm:COMMUNICATOR:in:s intercomm:COMMUNICATOR:out:s
1 MPICHECK_Comm_info comm:COMMUNICATOR:in:s members:WORLD_RANKS:in:a remote:WORLD_RANKS:in:a
2 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s
3 MPI_Irecv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
4 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s array_of_requests:REQUEST:inout:a array_of_statuses:STATUS:out:sa
5 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st
6 MPI_Barrier comm:COMMUNICATOR:in:s
";
const WORLD: i64 = 0x44000000;
const INT: i64 = 0x4c000405;
const REQUEST_NULL: i64 = 0x2c000000;
/// The intercommunicator to the spawned workers, as both ranks name it.
const WORKERS: i64 = 0x84000001;
/// What `MPI_Group_translate_ranks` gives a worker in `MPI_COMM_WORLD`'s group.
const UNDEFINED: i64 = -32766;

fn call(func: u16, words: Vec<i64>, complete: bool, line: u64) -> CallRecord {
    decoded_call(func, words, line, complete)
}

fn trace(rank: i32, calls: Vec<CallRecord>) -> Trace {
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_ANY_SOURCE", -2),
        ("MPI_ANY_TAG", -1),
        ("MPI_PROC_NULL", -1),
        ("MPI_REQUEST_NULL", REQUEST_NULL),
        ("MPI_UNDEFINED", UNDEFINED),
        ("MPI_COMM_NULL", 0x04000000),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    // Initialized, not exited: the job was ended while the ranks waited.
    decoded_trace(rank, 2, state::INITIALIZED, SCHEMA, &constants, calls)
}

fn resolve(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("manager.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    }
}

/// Both ranks spawn two workers (line 10); rank 0 sends work to worker 0, receives worker
/// 1's answer with `MPI_Irecv` + `MPI_Waitall`, then waits in `MPI_Recv` for worker 0,
/// which is still computing; rank 1 waits in a barrier for rank 0. `blocking_peer`: rank
/// 0's last receive names a recorded rank instead (rank 1, on `MPI_COMM_WORLD`).
fn managers(last_receive_from_rank_1: bool) -> Vec<Trace> {
    let spawn = || call(0, vec![2, 0, WORLD, WORKERS], true, 10);
    let info = || call(1, vec![WORKERS, 2, 0, 1, 2, UNDEFINED, UNDEFINED], true, 10);
    let last_receive = match last_receive_from_rank_1 {
        false => vec![0x3000, 1, INT, 0, 2, WORKERS, 0, 0, 0, 0],
        true => vec![0x3000, 1, INT, 1, 2, WORLD, 0, 0, 0, 0],
    };
    vec![
        trace(
            0,
            vec![
                spawn(),
                info(),
                call(2, vec![0x1000, 1, INT, 0, 1, WORKERS], true, 11),
                call(3, vec![0x2000, 1, INT, 1, 2, WORKERS, 0x2c000011], true, 12),
                call(
                    4,
                    vec![1, 1, 0x2c000011, 1, REQUEST_NULL, 1, 1, 2, 0, 4],
                    true,
                    13,
                ),
                call(5, last_receive, false, 14),
            ],
        ),
        trace(1, vec![spawn(), info(), call(6, vec![WORLD], false, 20)]),
    ]
}

#[test]
fn exchanges_with_spawned_workers_are_no_operations() {
    let run = normalize(&managers(false), &mut resolve).unwrap();
    let rank0 = &run.ranks[0].events;
    let calls: Vec<(&str, bool)> = rank0
        .iter()
        .map(|e| (e.call, matches!(e.op, Op::Other)))
        .collect();
    assert_eq!(
        calls,
        [
            ("MPI_Comm_spawn", true),
            ("MPI_Send", true),
            ("MPI_Irecv", true),
            ("MPI_Waitall", false),
            ("MPI_Recv", true),
        ]
    );
    // The workers are members outside the job, whatever MPI gave them.
    let workers = run.comms.iter().find(|c| c.remote.is_some()).unwrap();
    assert_eq!(
        workers.remote.as_deref(),
        Some(&[OUTSIDE_JOB, OUTSIDE_JOB][..])
    );
    // The spawn of both ranks, at its one call site, for the report's note.
    assert_eq!(run.outside_job.len(), 1);
    let spawn = &run.outside_job[0];
    assert_eq!(
        (spawn.function, spawn.ranks.as_slice()),
        ("MPI_Comm_spawn", &[0, 1][..])
    );
    assert_eq!(run.site(spawn.site).line, Some(10));
}

#[test]
fn a_rank_waiting_for_a_spawned_worker_is_not_deadlocked() {
    let run = normalize(&managers(false), &mut resolve).unwrap();
    let findings = run_all(&run);
    let codes: Vec<&str> = findings.iter().map(|d| d.code).collect();
    assert!(
        !codes
            .iter()
            .any(|c| c.starts_with("DL") || c.starts_with("RQ")),
        "{findings:#?}"
    );
}

#[test]
fn ranks_of_the_job_waiting_for_each_other_still_are() {
    let run = normalize(&managers(true), &mut resolve).unwrap();
    let findings = run_all(&run);
    let deadlock = findings.iter().find(|d| d.code == "DL001");
    let deadlock = deadlock.unwrap_or_else(|| panic!("no DL001: {findings:#?}"));
    let mut ranks: Vec<u32> = (deadlock.locations.iter())
        .flat_map(|l| l.ranks.clone().into_vec())
        .collect();
    ranks.sort();
    assert_eq!(ranks, [0, 1], "{deadlock:#?}");
}
