//! Object lifecycle benchmark: a generated one-rank trace that creates and frees a
//! communicator and a datatype N times (`MPI_Comm_dup`/`MPI_Comm_free`,
//! `MPI_Type_contiguous`/`MPI_Type_commit`/`MPI_Type_free`), normalized and checked by
//! every check, as `mpicheck analyze` does.
//!
//! `cargo bench -p mpicheck-analyzer --bench lifecycle [-- ITERATIONS...]`
//!
//! Prints, per size, the time, the peak RSS of a child process running just that size
//! (VmHWM), the largest number of objects alive at once as the leak check tracks them,
//! and the leak findings: none for the correct loop, one (with the count) when every
//! 1000th communicator is not freed. The lifecycle state is the live objects only; what
//! grows with N is the trace and the events themselves, which every check reads.

use std::collections::HashSet;
use std::process::Command;
use std::time::Instant;

use mpicheck_analyzer::model::{ObjectRef, SourceLocation};
use mpicheck_analyzer::{checks, normalize};
use mpicheck_trace::builder::decoded_trace;
use mpicheck_trace::{CallRecord, Trace};

const SCHEMA: &str = "\
0 MPI_Init argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s
1 MPI_Comm_dup comm:COMMUNICATOR:in:s newcomm:COMMUNICATOR:out:s
2 MPI_Comm_free comm:COMMUNICATOR:inout:s
3 MPI_Type_contiguous count:POLYXFER_NUM_ELEM_NNI:in:s oldtype:DATATYPE:in:s newtype:DATATYPE:out:s
4 MPI_Type_commit datatype:DATATYPE:inout:s
5 MPI_Type_free datatype:DATATYPE:inout:s
6 MPI_Finalize
";
const WORLD: i64 = 0x44000000;
const COMM_NULL: i64 = 0x04000000;
const INT: i64 = 0x4c000405;
const DATATYPE_NULL: i64 = 0x0c000000;

fn trace(iterations: u64, leak_every: Option<u64>) -> Trace {
    let mut calls = Vec::with_capacity(iterations as usize * 5 + 2);
    let mut seq = 0;
    let mut call = |func: u16, words: Vec<i64>, site: u64| {
        seq += 1;
        CallRecord {
            func,
            thread: 0,
            seq,
            t_enter_ns: seq,
            t_exit_ns: seq,
            callsite: site,
            ret: 0,
            fortran: false,
            complete: true,
            words,
            repeats: 0,
        }
    };
    calls.push(call(0, vec![0, 0], 1));
    let mut leaked_handle = 0x84100000;
    for i in 0..iterations {
        // MPI hands out the freed handle values again, as MPICH does.
        let leak = leak_every.is_some_and(|k| i % k == 0);
        let comm = if leak {
            leaked_handle += 1;
            leaked_handle
        } else {
            0x84000001
        };
        calls.push(call(1, vec![WORLD, comm], 10));
        calls.push(call(3, vec![2, INT, 0x8c000001], 11));
        calls.push(call(4, vec![0x8c000001, 0x8c000001], 12));
        calls.push(call(5, vec![0x8c000001, DATATYPE_NULL], 13));
        if !leak {
            calls.push(call(2, vec![comm, COMM_NULL], 14));
        }
    }
    calls.push(call(6, vec![], 20));
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_COMM_NULL", COMM_NULL),
        ("MPI_DATATYPE_NULL", DATATYPE_NULL),
        ("MPI_REQUEST_NULL", 0x2c000000),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    decoded_trace(
        0,
        1,
        mpicheck_trace::state::INITIALIZED
            | mpicheck_trace::state::FINALIZED
            | mpicheck_trace::state::EXITED,
        SCHEMA,
        &constants,
        calls,
    )
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn child(iterations: u64, planted: bool) {
    let traces = [trace(iterations, planted.then_some(1000))];
    let start = Instant::now();
    let run = normalize::normalize(&traces, &mut |_, addr| SourceLocation {
        file: Some("loop.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    })
    .expect("normalize");
    drop(traces);
    let normalize_s = start.elapsed().as_secs_f64();
    // The most objects alive at once, as the leak check follows them.
    let mut live: HashSet<ObjectRef> = HashSet::new();
    let mut peak_live = 0;
    for event in &run.ranks[0].events {
        if let Some(facts) = event.facts() {
            for o in &facts.freed {
                live.remove(o);
            }
            live.extend(facts.created.iter().copied());
            peak_live = peak_live.max(live.len());
        }
    }
    let start = Instant::now();
    let findings = checks::run_all(&run);
    let check_s = start.elapsed().as_secs_f64();
    let leaks: Vec<String> = findings
        .iter()
        .filter(|d| d.code == "RS001")
        .map(|d| d.message.to_string())
        .collect();
    assert_eq!(leaks.is_empty(), !planted, "{leaks:?}");
    assert!(
        findings.iter().all(|d| d.code == "RS001"),
        "{:?}",
        findings.iter().map(|d| d.code).collect::<Vec<_>>()
    );
    println!(
        "RESULT {iterations} {planted} {} {normalize_s:.3} {check_s:.3} {peak_live} {} {}",
        run.ranks[0].events.len(),
        vm_hwm_kib(),
        leaks.first().map_or("-", String::as_str)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() >= 4 && args[1] == "--child" {
        child(args[2].parse().expect("iterations"), args[3] == "true");
        return;
    }
    let sizes: Vec<u64> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    let exe = std::env::current_exe().expect("current exe");
    println!(
        "{:>10} {:>7} {:>9} {:>11} {:>8} {:>10} {:>9} {:>10}  leak finding",
        "iterations",
        "planted",
        "calls",
        "normalize s",
        "check s",
        "peak live",
        "peak MiB",
        "B/call"
    );
    for &n in &sizes {
        for planted in [false, true] {
            let out = Command::new(&exe)
                .args(["--child", &n.to_string(), &planted.to_string()])
                .output()
                .expect("run child");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT")) else {
                println!(
                    "{n:>10} {planted:>7} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                );
                continue;
            };
            let f: Vec<&str> = line.splitn(9, ' ').collect();
            let calls: f64 = f[3].parse().unwrap_or(0.0);
            let kib: f64 = f[7].parse().unwrap_or(0.0);
            println!(
                "{:>10} {:>7} {:>9} {:>11} {:>8} {:>10} {:>9.0} {:>10.0}  {}",
                n,
                planted,
                f[3],
                f[4],
                f[5],
                f[6],
                kib / 1024.0,
                kib * 1024.0 / calls.max(1.0),
                f[8]
            );
        }
    }
}
