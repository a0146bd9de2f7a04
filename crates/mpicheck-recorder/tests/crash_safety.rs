//! What a process recorded survives its death: the test re-runs itself as a child that
//! records calls and then dies (SIGKILL, segfault, normal exit), and reads the child's trace.
//! A custom harness because the recorder is process-global and each case needs a fresh process.

use std::ffi::CString;
use std::process::Command;

use mpicheck_recorder::{
    mpicheck_begin, mpicheck_end, mpicheck_entered, mpicheck_initialized, mpicheck_prepare,
};
use mpicheck_trace::{read_trace, EndOfTrace};

const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s\n\
                      1 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st\n";
const CALLS: i64 = 10_000;
const PAUSE_MS: u64 = 50;

fn child(how: &str) {
    let family = CString::new("mpich").unwrap();
    let schema = CString::new(SCHEMA).unwrap();
    let constants = CString::new("MPI_COMM_WORLD=1140850688\n").unwrap();
    unsafe {
        mpicheck_prepare(family.as_ptr(), schema.as_ptr(), constants.as_ptr(), None);
        for i in 0..CALLS {
            let w = mpicheck_begin(0, 6, 0x1234 as *const _, 0);
            assert!(!w.is_null(), "recording is on");
            for (k, v) in [0x1000, 4, 7, 1, i, 1140850688].into_iter().enumerate() {
                *w.add(k) = v;
            }
            mpicheck_entered(w);
            mpicheck_end(w, 0);
            if i == 0 {
                // As after MPI_Init: the first call opened the trace.
                mpicheck_initialized(3, 4, -1);
            }
        }
        // A pause the call times must show (checks the clock conversion's scale).
        std::thread::sleep(std::time::Duration::from_millis(PAUSE_MS));
        // The call the process dies in: entered, never returned.
        let w = mpicheck_begin(1, 7, 0x5678 as *const _, 0);
        for (k, v) in [0x2000, 4, 7, -2, 5, 1140850688].into_iter().enumerate() {
            *w.add(k) = v;
        }
        mpicheck_entered(w);
        match how {
            "sigkill" => {
                libc::raise(libc::SIGKILL);
            }
            "segfault" => {
                std::ptr::write_volatile(std::ptr::null_mut::<i32>(), 1);
            }
            _ => {
                mpicheck_end(w, 0);
                std::process::exit(0)
            }
        }
    }
}

fn run_case(how: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let status = Command::new(std::env::current_exe().unwrap())
        .env("MPICHECK_CRASH_CHILD", how)
        .env("MPICHECK_OUT_DIR", dir.path())
        .env("MPICHECK_RANK", "3")
        .status()
        .map_err(|e| e.to_string())?;
    if how == "exit" && !status.success() {
        return Err(format!("child failed: {status}"));
    }
    let path = std::fs::read_dir(dir.path())
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "mpitrace"))
        .ok_or("no trace written")?;
    let trace = read_trace(&path).map_err(|e| e.to_string())?;
    let check = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(format!("{how}: {what}"))
        }
    };
    check(
        trace.header.rank == Some(3) && trace.header.env_rank == Some(3),
        "rank in header",
    )?;
    check(trace.schema.id_of("MPI_Recv") == Some(1), "schema recorded")?;
    check(
        trace.constant("MPI_COMM_WORLD") == Some("1140850688"),
        "constants recorded",
    )?;
    check(
        trace.calls.len() as i64 == CALLS + 1,
        &format!("{} calls read", trace.calls.len()),
    )?;
    let recv = schema_args(&trace, CALLS as usize);
    check(
        recv.0 == 1 && recv.1 == Some(-2),
        "last call is the receive from any source",
    )?;
    let tags: Vec<i64> = trace.calls[..CALLS as usize]
        .iter()
        .map(|c| c.words[4])
        .collect();
    check(
        tags == (0..CALLS).collect::<Vec<_>>(),
        "every send recorded once, in order",
    )?;
    let calls = &trace.calls;
    check(
        calls.windows(2).all(|w| w[0].seq < w[1].seq),
        "order keys increase",
    )?;
    check(
        calls.windows(2).all(|w| w[0].t_enter_ns <= w[1].t_enter_ns)
            && calls[..CALLS as usize]
                .iter()
                .all(|c| c.t_enter_ns <= c.t_exit_ns),
        "times increase, exit after entry",
    )?;
    let before_pause = calls[CALLS as usize - 1].t_exit_ns;
    let after_pause = calls[CALLS as usize].t_enter_ns;
    let pause_ns = after_pause.saturating_sub(before_pause);
    check(
        (PAUSE_MS * 1_000_000..PAUSE_MS * 1_000_000 * 20).contains(&pause_ns),
        &format!("the {PAUSE_MS} ms pause reads as {pause_ns} ns"),
    )?;
    let last = trace.calls.last().unwrap();
    match how {
        "exit" => {
            check(last.complete, "last call complete")?;
            check(trace.end == EndOfTrace::Clean, "clean end after exit")?;
        }
        _ => {
            check(!last.complete, "last call still entered")?;
            check(
                matches!(trace.end, EndOfTrace::Truncated { .. }),
                "end reported as truncated",
            )?;
        }
    }
    Ok(())
}

fn schema_args(trace: &mpicheck_trace::Trace, index: usize) -> (u16, Option<i64>) {
    let call = &trace.calls[index];
    let args = call.args(trace.schema.function(call.func).unwrap());
    (call.func, args[3].0.as_int())
}

/// Speaks enough of libtest's command line for `cargo test` and `cargo nextest`:
/// `--list` (nextest asks with `--format terse`, and separately for `--ignored`, of which
/// there are none), name filters, and `--exact`.
fn main() {
    if let Ok(how) = std::env::var("MPICHECK_CRASH_CHILD") {
        child(&how);
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    // Positional arguments are name filters; `--format terse` carries a value.
    let filters: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--format"))
        .map(|(_, a)| a)
        .collect();
    let cases: Vec<(&str, String)> = ["exit", "sigkill", "segfault"]
        .into_iter()
        .map(|how| (how, format!("crash_safety::{how}")))
        .filter(|(_, name)| {
            filters.is_empty()
                || filters.iter().any(|f| {
                    if flag("--exact") {
                        *f == name
                    } else {
                        name.contains(f.as_str())
                    }
                })
        })
        .collect();
    if flag("--list") {
        if !flag("--ignored") {
            for (_, name) in &cases {
                println!("{name}: test");
            }
        }
        return;
    }
    if flag("--ignored") {
        return;
    }
    let mut failed = 0;
    for (how, name) in &cases {
        match run_case(how) {
            Ok(()) => println!("test {name} ... ok"),
            Err(e) => {
                println!("test {name} ... FAILED: {e}");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
