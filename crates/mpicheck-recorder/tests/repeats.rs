//! Repeat records written by the recorder itself: the test re-runs itself as a child that
//! records calls through the entry points the generated wrappers use
//! (`mpicheck_begin_repeatable`, `mpicheck_enter_repeatable`, `mpicheck_end_repeatable`),
//! with repeats on and off (`MPICHECK_REPEATS=0`), and reads the traces back. A custom harness
//! because the recorder is process-global and each case needs a fresh process.

use std::cell::{Cell, UnsafeCell};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

use mpicheck_recorder::{
    mpicheck_begin_repeatable, mpicheck_end_repeatable, mpicheck_enter_repeatable,
    mpicheck_prepare, REPEAT_SCRATCH_BYTES, REPEAT_TABLE_WORDS,
};
use mpicheck_trace::reader::{cycle_fields, frames};
use mpicheck_trace::{read_trace, CallRecord, EndOfTrace, Trace};

const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s\n\
                      1 MPI_Irecv buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s\n";
const CALLS: i64 = 3_000;

thread_local! {
    static SLOT: Cell<u16> = const { Cell::new(0) };
    static TABLE: UnsafeCell<[u64; REPEAT_TABLE_WORDS]> =
        const { UnsafeCell::new([0; REPEAT_TABLE_WORDS]) };
}

const SCRATCH_WORDS: usize = (40 + REPEAT_SCRATCH_BYTES as usize) / 8;

/// Records one call as a generated wrapper does: `inputs`, then `outputs` after the call.
/// `finish` false leaves it entered, as a call the process is blocked in. Returns whether
/// anything was recorded.
fn record(func: u16, site: usize, inputs: &[i64], outputs: &[i64], ret: i32, finish: bool) -> bool {
    let mut scratch = [0i64; SCRATCH_WORDS];
    let nbytes = 8 * (inputs.len() + outputs.len()) as u32;
    let in_bytes = 8 * inputs.len() as u32;
    unsafe {
        let w = mpicheck_begin_repeatable(
            func,
            nbytes,
            site as *const _,
            0,
            SLOT.with(Cell::as_ptr),
            scratch.as_mut_ptr(),
        );
        if w.is_null() {
            return false;
        }
        for (k, v) in inputs.iter().enumerate() {
            *w.add(k) = *v;
        }
        let table = TABLE.with(|t| t.get() as *mut u64);
        let rec = mpicheck_enter_repeatable(w, in_bytes, table);
        if !finish {
            return true;
        }
        for (k, v) in outputs.iter().enumerate() {
            *w.add(inputs.len() + k) = *v;
        }
        mpicheck_end_repeatable(rec, w, in_bytes, ret, table);
    }
    true
}

/// The calls of one loop turn of thread `t`: a send that always repeats, and a receive whose
/// tag changes every 7 turns (a full record, then repeats) and whose request (an output)
/// changes every turn.
fn turn(t: i64, i: i64) {
    let comm = 0x4400_0000;
    assert!(record(
        0,
        0x1000,
        &[0x10, 1, 7, -1, 3 + t, comm],
        &[],
        0,
        true
    ));
    let recv = [0x20 + t, 4, 7, t, i / 7, comm];
    assert!(record(
        1,
        0x2000,
        &recv,
        &[0x5000 + i],
        (i % 3) as i32,
        true
    ));
}

/// A receive a loop repeats (`run_turn`).
const RUN_RECV: [i64; 6] = [0x20, 4, 7, 0, 9, 0x4400_0000];

/// What `run_turn(i)` records: the same receive, whose request (an output) changes every
/// 100 calls and whose return code is 1 for calls 500 to 509, then a send every 1000 calls.
fn run_call(i: i64) -> (Vec<i64>, i32) {
    (
        vec![0x5000 + i / 100],
        if (500..510).contains(&i) { 1 } else { 0 },
    )
}

/// Runs of identical calls, broken by other outputs, another return code and another call.
fn run_turn(i: i64) {
    let (outputs, ret) = run_call(i);
    assert!(record(1, 0x2000, &RUN_RECV, &outputs, ret, true));
    if i % 1000 == 999 {
        assert!(record(
            0,
            0x1000,
            &[0x10, 1, 7, -1, 3, 0x4400_0000],
            &[],
            0,
            true
        ));
    }
}

/// The calls `run_turn` records for `i` in `calls`.
fn run_expected(calls: std::ops::Range<i64>) -> Vec<Seen> {
    calls
        .flat_map(|i| {
            let (outputs, ret) = run_call(i);
            let mut words = RUN_RECV.to_vec();
            words.extend(outputs);
            let mut seen = vec![(1, 0, 0x2000, ret, false, true, words)];
            if i % 1000 == 999 {
                seen.push((
                    0,
                    0,
                    0x1000,
                    0,
                    false,
                    true,
                    vec![0x10, 1, 7, -1, 3, 0x4400_0000],
                ));
            }
            seen
        })
        .collect()
}

/// Function, call site, inputs, outputs and return code of a call.
type CycleCall = (u16, u64, Vec<i64>, Vec<i64>, i32);

/// Call `i` of a loop of three calls (trace format 7, "Counted cycles"): a receive whose
/// request changes every 900 calls, a send whose return code is 1 for calls 1501 to 1510,
/// and a receive at another call site; plus, after every 1000th call, a send from yet another
/// call site. Function, call site, inputs, outputs, return code.
fn cycle_call(i: i64) -> Vec<CycleCall> {
    let comm = 0x4400_0000;
    let mut calls = vec![match i % 3 {
        0 => (
            1,
            0x2000,
            vec![0x20, 4, 7, 0, 9, comm],
            vec![0x5000 + i / 900],
            0,
        ),
        1 => (
            0,
            0x1000,
            vec![0x10, 1, 7, -1, 3, comm],
            vec![],
            i32::from((1501..=1510).contains(&i)),
        ),
        _ => (1, 0x3000, vec![0x30, 4, 7, 0, 9, comm], vec![0x6000], 0),
    }];
    if i % 1000 == 999 {
        calls.push((0, 0x4000, vec![0x10, 1, 7, -1, 4, comm], vec![], 0));
    }
    calls
}

fn cycle_turn(i: i64) {
    for (func, site, inputs, outputs, ret) in cycle_call(i) {
        assert!(record(func, site as usize, &inputs, &outputs, ret, true));
    }
}

fn cycle_expected(calls: std::ops::Range<i64>) -> Vec<Seen> {
    calls
        .flat_map(cycle_call)
        .map(|(func, site, mut words, outputs, ret)| {
            words.extend(outputs);
            (func, 0, site, ret, false, true, words)
        })
        .collect()
}

fn child(how: &str) {
    let family = CString::new("mpich").unwrap();
    let schema = CString::new(SCHEMA).unwrap();
    let constants = CString::new("MPI_COMM_WORLD=1140850688\n").unwrap();
    unsafe { mpicheck_prepare(family.as_ptr(), schema.as_ptr(), constants.as_ptr(), None) };
    match how {
        "loop" => (0..CALLS).for_each(|i| turn(0, i)),
        "threads" => {
            let threads: Vec<_> = (0..2)
                .map(|t| std::thread::spawn(move || (0..CALLS).for_each(|i| turn(t, i))))
                .collect();
            threads.into_iter().for_each(|t| t.join().unwrap());
        }
        "fork" => {
            (0..CALLS / 2).for_each(|i| turn(0, i));
            // SAFETY: the child only records (or not) and leaves with _exit.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                let recorded = record(0, 0x1000, &[0x10, 1, 7, -1, 3, 0x4400_0000], &[], 0, true);
                unsafe { libc::_exit(if recorded { 1 } else { 0 }) };
            }
            let mut status = 0;
            unsafe { libc::waitpid(pid, &mut status, 0) };
            assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
            (CALLS / 2..CALLS).for_each(|i| turn(0, i));
        }
        "run" => (0..CALLS).for_each(run_turn),
        "cycle" => (0..CALLS).for_each(cycle_turn),
        "cyclekill" => {
            (0..CALLS + 1).for_each(cycle_turn);
            // Blocked in the second call of a turn, counted in the cycle, then killed.
            let (func, site, inputs, _, _) = cycle_call(CALLS + 1).remove(0);
            assert!(record(func, site as usize, &inputs, &[], 0, false));
            unsafe { libc::raise(libc::SIGKILL) };
        }
        "runkill" => {
            (0..CALLS).for_each(run_turn);
            // Blocked in one more identical receive, folded into the run, then killed.
            assert!(record(1, 0x2000, &RUN_RECV, &[], 0, false));
            unsafe { libc::raise(libc::SIGKILL) };
        }
        "sigkill" => {
            (0..CALLS).for_each(|i| turn(0, i));
            // Blocked in a call that repeats the last receive's inputs, then killed.
            let recv = [0x20, 4, 7, 0, (CALLS - 1) / 7, 0x4400_0000];
            assert!(record(1, 0x2000, &recv, &[], 0, false));
            unsafe { libc::raise(libc::SIGKILL) };
        }
        _ => panic!("unknown case {how}"),
    }
    std::process::exit(0);
}

/// Runs the child case `how` with repeats on or off; returns its trace and the records'
/// bytes by kind: (repeats, all call records).
fn run_child(how: &str, repeats: bool) -> Result<(Trace, u64, u64), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let status = Command::new(std::env::current_exe().unwrap())
        .env("MPICHECK_REPEAT_CHILD", how)
        .env("MPICHECK_OUT_DIR", dir.path())
        .env("MPICHECK_REPEATS", if repeats { "1" } else { "0" })
        .status()
        .map_err(|e| e.to_string())?;
    if !how.ends_with("kill") && !status.success() {
        return Err(format!("{how}: child failed: {status}"));
    }
    let traces: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mpitrace"))
        .collect();
    if traces.len() != 1 {
        return Err(format!("{how}: {} traces written, not 1", traces.len()));
    }
    let trace = read_trace(&traces[0]).map_err(|e| e.to_string())?;
    let (repeat_bytes, call_bytes) = call_bytes(&traces[0]);
    Ok((trace, repeat_bytes, call_bytes))
}

/// Bytes of repeat records and of all call records, walking the frames.
fn call_bytes(path: &Path) -> (u64, u64) {
    let b = std::fs::read(path).unwrap();
    let (mut at, mut repeats, mut calls) = (4096, 0, 0);
    while at + 8 <= b.len() {
        let len = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        if len == 0 {
            break;
        }
        if u16::from_le_bytes([b[at + 4], b[at + 5]]) == mpicheck_trace::kind::CALL {
            calls += len as u64;
            if b[at + 7] & mpicheck_trace::flags::REPEAT != 0 {
                repeats += len as u64;
            }
        }
        at += len;
    }
    (repeats, calls)
}

/// What a call says: function, thread, call site, return code, Fortran, complete, words.
type Seen = (u16, u16, u64, i32, bool, bool, Vec<i64>);

/// What a call says, but when and where in the file it was recorded.
fn what(c: &CallRecord) -> Seen {
    (
        c.func,
        c.thread,
        c.callsite,
        c.ret,
        c.fortran,
        c.complete,
        c.words.clone(),
    )
}

/// The calls `turn(t, i)` records for `i` in `calls`, from thread index `thread`.
fn expected(thread: u16, t: i64, calls: std::ops::Range<i64>) -> Vec<Seen> {
    calls
        .flat_map(|i| {
            [
                (
                    0,
                    thread,
                    0x1000,
                    0,
                    false,
                    true,
                    vec![0x10, 1, 7, -1, 3 + t, 0x4400_0000],
                ),
                (
                    1,
                    thread,
                    0x2000,
                    (i % 3) as i32,
                    false,
                    true,
                    vec![0x20 + t, 4, 7, t, i / 7, 0x4400_0000, 0x5000 + i],
                ),
            ]
        })
        .collect()
}

/// A test case, run in the parent.
type Case = fn() -> Result<(), String>;

fn check(ok: bool, what: String) -> Result<(), String> {
    ok.then_some(()).ok_or(what)
}

fn sane_times(trace: &Trace) -> Result<(), String> {
    let calls = &trace.calls;
    check(
        calls.windows(2).all(|w| w[0].seq < w[1].seq),
        "order keys increase".into(),
    )?;
    check(
        calls
            .iter()
            .all(|c| !c.complete || c.t_enter_ns <= c.t_exit_ns),
        "every call leaves after it entered".into(),
    )
}

fn case_loop() -> Result<(), String> {
    let (on, repeat_bytes, bytes_on) = run_child("loop", true)?;
    let (off, no_repeats, bytes_off) = run_child("loop", false)?;
    check(
        no_repeats == 0,
        format!("{no_repeats} bytes of repeats with repeats off"),
    )?;
    check(
        repeat_bytes > 0 && bytes_on * 10 < bytes_off * 6,
        format!(
            "repeats on: {bytes_on} bytes of calls ({repeat_bytes} of repeats); off: {bytes_off}"
        ),
    )?;
    let on_calls: Vec<_> = on.calls.iter().map(what).collect();
    let off_calls: Vec<_> = off.calls.iter().map(what).collect();
    check(on_calls == off_calls, "the same calls both ways".into())?;
    check(
        on_calls == expected(0, 0, 0..CALLS),
        "the calls made".into(),
    )?;
    check(
        on.end == EndOfTrace::Clean && off.end == EndOfTrace::Clean,
        format!("{:?}", on.end),
    )?;
    sane_times(&on)
}

fn case_threads() -> Result<(), String> {
    let (trace, repeat_bytes, _) = run_child("threads", true)?;
    check(repeat_bytes > 0, "threads write repeats".into())?;
    let mut threads: Vec<u16> = trace.calls.iter().map(|c| c.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    check(threads.len() == 2, format!("threads {threads:?}"))?;
    for &thread in &threads {
        // A thread's index follows the order threads first recorded: its calls say which
        // loop (t) it ran.
        let mine: Vec<_> = trace.calls.iter().filter(|c| c.thread == thread).collect();
        let t = mine[0].words[4] - 3;
        let got: Vec<_> = mine.iter().map(|c| what(c)).collect();
        check(
            got == expected(thread, t, 0..CALLS),
            format!("thread {thread}'s calls (loop {t})"),
        )?;
    }
    sane_times(&trace)
}

fn case_fork() -> Result<(), String> {
    let (trace, repeat_bytes, _) = run_child("fork", true)?;
    check(repeat_bytes > 0, "repeats around the fork".into())?;
    let got: Vec<_> = trace.calls.iter().map(what).collect();
    check(
        got == expected(0, 0, 0..CALLS),
        "the parent's calls, none of the child's".into(),
    )?;
    sane_times(&trace)
}

fn case_sigkill() -> Result<(), String> {
    let (trace, repeat_bytes, _) = run_child("sigkill", true)?;
    check(repeat_bytes > 0, "repeats before the kill".into())?;
    let n = trace.calls.len();
    check(n as i64 == 2 * CALLS + 1, format!("{n} calls read"))?;
    let got: Vec<_> = trace.calls[..n - 1].iter().map(what).collect();
    check(
        got == expected(0, 0, 0..CALLS),
        "the calls before the kill".into(),
    )?;
    let last = &trace.calls[n - 1];
    check(
        last.func == 1
            && !last.complete
            && last.words[..6] == [0x20, 4, 7, 0, (CALLS - 1) / 7, 0x4400_0000],
        format!("the call killed in, entered, with its inputs: {last:?}"),
    )?;
    check(
        matches!(trace.end, EndOfTrace::Truncated { .. }),
        format!("end {:?}", trace.end),
    )
}

fn case_run() -> Result<(), String> {
    counted_calls_read("run", run_expected(0..CALLS))
}

fn case_cycle() -> Result<(), String> {
    counted_calls_read("cycle", cycle_expected(0..CALLS))
}

/// The child `case`, run with repeats and without, reads the `expected` calls both ways, in
/// a few KB of records with repeats instead of tens of bytes per call (a few records per
/// break of a run or cycle), with order keys and entry times that do not decrease.
fn counted_calls_read(case: &str, expected: Vec<Seen>) -> Result<(), String> {
    let (on, _, bytes_on) = run_child(case, true)?;
    let (off, _, bytes_off) = run_child(case, false)?;
    let seen: Vec<_> = on.calls.iter().map(what).collect();
    check(
        seen == expected,
        format!("the calls of the {case}s: {} read", seen.len()),
    )?;
    check(
        off.calls.iter().map(what).collect::<Vec<_>>() == seen,
        "the same calls without repeats".into(),
    )?;
    check(
        bytes_on * 20 < bytes_off && bytes_on < 8000,
        format!("{bytes_on} bytes of call records, {bytes_off} without repeats"),
    )?;
    check(on.end == EndOfTrace::Clean, format!("{:?}", on.end))?;
    check(
        on.calls.windows(2).all(|w| w[0].seq <= w[1].seq),
        "order keys do not decrease".into(),
    )?;
    check(
        on.calls
            .windows(2)
            .all(|w| w[0].t_enter_ns <= w[1].t_enter_ns),
        "entry times do not decrease".into(),
    )
}

/// Bytes of counted repeats (format 6, "Counted runs").
fn counted_bytes(path: &Path) -> u64 {
    let b = std::fs::read(path).unwrap();
    frames(&b)
        .filter(|f| f.flags & mpicheck_trace::flags::COUNTED != 0)
        .map(|f| f.len as u64)
        .sum()
}

/// Bytes of cycle records (format 7, "Counted cycles") and the calls they count.
fn cycle_records(path: &Path) -> (u64, u64) {
    let b = std::fs::read(path).unwrap();
    frames(&b)
        .filter_map(|f| {
            let (_, _, _, runs, pending, _) = cycle_fields(&b[f.offset..f.offset + f.len])?;
            Some((f.len as u64, runs + pending as u64))
        })
        .fold((0, 0), |(bytes, calls), (b, c)| (bytes + b, calls + c))
}

fn case_runkill() -> Result<(), String> {
    let (_dir, path) = killed_child("runkill")?;
    check(counted_bytes(&path) > 0, "counted repeats written".into())?;
    killed_calls_read(&path, run_expected(0..CALLS), |last| {
        last.func == 1 && last.words[..6] == RUN_RECV
    })
}

fn case_cyclekill() -> Result<(), String> {
    let (_dir, path) = killed_child("cyclekill")?;
    let (cycle_bytes, counted) = cycle_records(&path);
    check(
        cycle_bytes > 0 && counted as i64 > CALLS / 2,
        format!("cycle records written: {cycle_bytes} bytes, {counted} calls"),
    )?;
    killed_calls_read(&path, cycle_expected(0..CALLS + 1), |last| {
        last.func == 0
            && last.callsite == 0x1000
            && last.words[..6] == [0x10, 1, 7, -1, 3, 0x4400_0000]
    })
}

/// Runs the child `case`, which is killed inside a counted call, and returns the directory
/// of its trace (removed when dropped) and the trace file.
fn killed_child(case: &str) -> Result<(tempfile::TempDir, PathBuf), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let _ = Command::new(std::env::current_exe().unwrap())
        .env("MPICHECK_REPEAT_CHILD", case)
        .env("MPICHECK_OUT_DIR", dir.path())
        .status()
        .map_err(|e| e.to_string())?;
    let path = std::fs::read_dir(dir.path())
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "mpitrace"))
        .ok_or("no trace")?;
    Ok((dir, path))
}

/// The trace of a child killed inside a counted call reads the `expected` calls before the
/// kill, then the call it died in, entered and not complete (`is_last` checks which call),
/// and ends truncated.
fn killed_calls_read(
    path: &Path,
    expected: Vec<Seen>,
    is_last: impl Fn(&CallRecord) -> bool,
) -> Result<(), String> {
    let trace = read_trace(path).map_err(|e| e.to_string())?;
    let n = trace.calls.len();
    check(n == expected.len() + 1, format!("{n} calls read"))?;
    let seen: Vec<_> = trace.calls[..n - 1].iter().map(what).collect();
    check(seen == expected, "the calls before the kill".into())?;
    let last = &trace.calls[n - 1];
    check(
        !last.complete && is_last(last),
        format!("the call killed in, entered, with its inputs: {last:?}"),
    )?;
    check(
        matches!(trace.end, EndOfTrace::Truncated { .. }),
        format!("end {:?}", trace.end),
    )
}

/// Speaks enough of libtest's command line for `cargo test` and `cargo nextest`, as
/// `crash_safety` does: `--list` (with `--format terse`, and `--ignored`, of which there are
/// none), name filters, and `--exact`.
fn main() {
    if let Ok(how) = std::env::var("MPICHECK_REPEAT_CHILD") {
        child(&how);
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let filters: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--format"))
        .map(|(_, a)| a)
        .collect();
    let all: [(&str, Case); 8] = [
        ("repeats::cycles_of_calls_are_counted", case_cycle),
        (
            "repeats::a_kill_mid_cycle_leaves_the_count_up_to_it",
            case_cyclekill,
        ),
        ("repeats::read_as_the_calls_written_without_them", case_loop),
        ("repeats::runs_of_identical_calls_are_counted", case_run),
        (
            "repeats::a_kill_mid_run_leaves_the_count_up_to_it",
            case_runkill,
        ),
        ("repeats::each_thread_repeats_its_own_calls", case_threads),
        ("repeats::a_fork_mid_loop_leaves_them_whole", case_fork),
        (
            "repeats::a_kill_mid_loop_leaves_them_read_up_to_it",
            case_sigkill,
        ),
    ];
    let cases: Vec<_> = all
        .into_iter()
        .filter(|(name, _)| {
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
            for (name, _) in &cases {
                println!("{name}: test");
            }
        }
        return;
    }
    if flag("--ignored") {
        return;
    }
    let mut failed = 0;
    for (name, case) in &cases {
        match case() {
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
