//! Trace directories as real life leaves them: a copy of a finished rank's trace cut short,
//! a rank that ran out of disk space while recording, a child process of a rank that left a
//! trace claiming the rank, and named pipes, links to devices, directories and damaged
//! headers among the traces. Real runs under MPICH and Open MPI where it is about runs, and
//! the real traces of `tests/traces` otherwise.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use mpicheck_analyzer::normalize::is_rank_trace;
use mpicheck_trace::reader::{read_trace, Trace};
use mpicheck_trace::{offset, state};
use serde_json::Value;
use support::{run_bounded, text, trace_fixture as fixture, Family};

/// Compiles a test program of `tests/programs` with the family's `mpicc`, into `dir`.
fn compile(family: &'static str, name: &str, dir: &Path) -> PathBuf {
    support::compile(Family { name: family }, name, dir)
}

/// mpicheck with `args`, bounded in time (nothing left behind); its output and how long it
/// took.
fn mpicheck(args: &[&str]) -> (Output, Duration) {
    let mut cmd = Command::new(support::mpicheck_bin());
    cmd.args(args);
    run_bounded(cmd, b"")
}

fn run(family: &'static str, out: &Path, program: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--mpi",
        family,
        "-n",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.push("--");
    args.extend_from_slice(program);
    mpicheck(&args).0
}

fn analyze(dir: &Path) -> (Output, Duration) {
    mpicheck(&["analyze", "--color", "never", dir.to_str().unwrap()])
}

fn trace_paths(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .collect();
    paths.sort();
    paths
}

/// The trace file of each rank that initialized MPI, by rank.
fn rank_traces(dir: &Path) -> Vec<(PathBuf, Trace)> {
    let mut out: Vec<(PathBuf, Trace)> = trace_paths(dir)
        .into_iter()
        .map(|p| {
            let t = read_trace(&p).unwrap();
            (p, t)
        })
        .filter(|(_, t)| t.header.initialized())
        .collect();
    out.sort_by_key(|(_, t)| t.header.rank);
    out
}

/// `(code, ranks of the first location)` of every finding of a report.json.
fn findings(dir: &Path) -> Vec<(String, Vec<u64>)> {
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap();
    let mut out: Vec<(String, Vec<u64>)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let ranks = f["locations"][0]["ranks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_u64().unwrap())
                .collect();
            (f["code"].as_str().unwrap().to_string(), ranks)
        })
        .collect();
    out.sort();
    out
}

fn copy_traces(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for path in trace_paths(from) {
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

fn patch_u64(path: &Path, at: usize, value: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

fn patch_u32(path: &Path, at: usize, value: u32) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

/// Copies the traces of `run_dir` and cuts rank 0's copy at the start of its 100th
/// `MPI_Allreduce` record (a record boundary: only the file length shows the cut).
fn cut_copy(run_dir: &Path, copy: &Path) -> u64 {
    copy_traces(run_dir, copy);
    let traces = rank_traces(copy);
    let (path, trace) = &traces[0];
    assert!(trace.header.exited());
    // A recorder that predates the end-at-exit field left it 0; it shrank the file to the
    // records at exit, so that end is what it would have written.
    if trace.header.exit_records_end == 0 {
        patch_u64(path, offset::EXIT_RECORDS_END, trace.header.records_end);
    }
    let cut = trace
        .calls
        .iter()
        .filter(|c| trace.function_name(c.func) == "MPI_Allreduce")
        .nth(100)
        .expect("100 allreduce calls")
        .seq;
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(cut).unwrap();
    cut
}

fn check_cut_copy(family: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "collectives_loop.c", dir.path());

    // A correct program: the cut copy must not look like a collective mismatch, and the
    // analysis says it is incomplete (exit 3).
    let out = dir.path().join("correct");
    let ran = run(family, &out, &[exe.to_str().unwrap()]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let copy = dir.path().join("correct-copy");
    let cut = cut_copy(&out, &copy);
    let (analyzed, _) = analyze(&copy);
    let stderr = text(&analyzed.stderr);
    assert_eq!(findings(&copy), vec![], "{family}: {stderr}");
    assert!(
        stderr.contains(&format!(
            "mpicheck: warning: trace of rank 0 was cut after the process wrote it: the file is {cut} bytes, but the process wrote "
        )),
        "{family}: {stderr}"
    );
    assert!(
        stderr.contains("rank 0 is checked only up to its last recorded call (MPI_Bcast at ")
            || stderr
                .contains("rank 0 is checked only up to its last recorded call (MPI_Allreduce at "),
        "{family}: {stderr}"
    );
    // The verdict line; the exit status's own line may follow it.
    assert!(
        stderr.lines().any(|l| l
            == "mpicheck: the analysis is incomplete (the trace of rank 0 was cut): problems in what was not recorded cannot be found"),
        "{family}: {stderr}"
    );
    assert_eq!(analyzed.status.code(), Some(3), "{family}: {stderr}");

    // With real problems before the cut (rank 0) and at the end of the whole rank (rank 1):
    // both stay, and nothing comes from the missing part (rank 0's own leak included).
    let out = dir.path().join("planted");
    let ran = run(family, &out, &[exe.to_str().unwrap(), "plant"]);
    assert_eq!(ran.status.code(), Some(1), "{}", text(&ran.stderr));
    let whole = findings(&out);
    assert!(
        whole.contains(&("AR004".into(), vec![0])),
        "{family}: {whole:?}"
    );
    assert!(
        whole.contains(&("RS001".into(), vec![1])),
        "{family}: {whole:?}"
    );
    let copy = dir.path().join("planted-copy");
    cut_copy(&out, &copy);
    let (analyzed, _) = analyze(&copy);
    assert_eq!(
        findings(&copy),
        vec![("AR004".into(), vec![0]), ("RS001".into(), vec![1])],
        "{family}: {}",
        text(&analyzed.stderr)
    );
    assert_eq!(
        analyzed.status.code(),
        Some(1),
        "{}",
        text(&analyzed.stderr)
    );
}

#[test]
fn cut_copy_of_a_finished_rank_is_incomplete_not_a_mismatch_mpich() {
    check_cut_copy("mpich");
}

#[test]
fn cut_copy_of_a_finished_rank_is_incomplete_not_a_mismatch_openmpi() {
    check_cut_copy("openmpi");
}

fn check_child_process(family: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "runs_child.c", dir.path());
    let child = compile(family, "mpi_query_child.c", dir.path());
    let out = dir.path().join("out");
    let ran = run(
        family,
        &out,
        &[exe.to_str().unwrap(), child.to_str().unwrap()],
    );
    let stderr = text(&ran.stderr);
    assert!(
        text(&ran.stdout).contains("child: initialized=0"),
        "{family}: the child did not run: {stderr}"
    );
    // The child's trace is there and claims rank 0 (so may the shell's that ran it, which
    // made no MPI call and is no rank's).
    let claims_rank_0 = trace_paths(&out)
        .iter()
        .map(|p| read_trace(p).unwrap())
        .filter(|t| t.header.best_rank() == Some(0) && is_rank_trace(t))
        .count();
    assert_eq!(claims_rank_0, 2, "{family}: {stderr}");
    let parent = rank_traces(&out)[0].1.header.pid;
    assert!(
        stderr.contains("mpicheck: note: ignored the trace of 1 child process started by ranks, which inherited their rank's environment (pid ")
            && stderr.contains(&format!(" claims rank 0, which is pid {parent})")),
        "{family}: {stderr}"
    );
    assert!(
        stderr.contains("mpicheck: no findings"),
        "{family}: {stderr}"
    );
    assert_eq!(ran.status.code(), Some(0), "{family}: {stderr}");
}

#[test]
fn child_process_claiming_a_rank_is_ignored_with_a_note_mpich() {
    check_child_process("mpich");
}

#[test]
fn child_process_claiming_a_rank_is_ignored_with_a_note_openmpi() {
    check_child_process("openmpi");
}

/// Rank 1 ran out of space after its `MPI_Win_free`: its later records were never written
/// (zeros), the header says why and how many calls are missing. (The fixtures hold no memory
/// maps, so call sites are not resolved here.)
#[test]
fn a_trace_that_ran_out_of_space_is_reported_incomplete() {
    for family in ["mpich", "openmpi"] {
        let dir = tempfile::tempdir().unwrap();
        copy_traces(&fixture(&format!("features-{family}")), dir.path());
        let traces = rank_traces(dir.path());
        let (path, trace) = &traces[1];
        let stop = trace
            .calls
            .iter()
            .position(|c| trace.function_name(c.func) == "MPI_Win_free")
            .unwrap()
            + 3;
        let dropped = (trace.calls.len() - stop) as u64;
        let mut bytes = std::fs::read(path).unwrap();
        let from = trace.calls[stop].seq as usize;
        let end = trace.header.exit_records_end as usize;
        bytes[from..end].fill(0);
        std::fs::write(path, bytes).unwrap();
        patch_u32(path, offset::STATE, trace.header.state | state::NO_SPACE);
        patch_u64(path, offset::DROPPED, dropped);
        let last = trace.function_name(trace.calls[stop - 1].func).to_string();

        let (analyzed, _) = analyze(dir.path());
        let stderr = text(&analyzed.stderr);
        assert_eq!(findings(dir.path()), vec![], "{family}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "mpicheck: warning: trace of rank 1 is incomplete: {dropped} calls were not recorded because the trace could not grow (file system full, over quota, or over the file size limit of `ulimit -f`); rank 1 is checked only up to its last recorded call ({last}"
            )),
            "{family}: {stderr}"
        );
        assert!(
            stderr.contains(
                "nothing after it, nor its leaks, unwaited requests or deadlocks at the end of the run"
            ),
            "{family}: {stderr}"
        );
        assert!(
            stderr.contains("mpicheck: the analysis is incomplete (rank 1 ran out of space while recording): problems in what was not recorded cannot be found\n"),
            "{family}: {stderr}"
        );
        assert_eq!(analyzed.status.code(), Some(3), "{family}: {stderr}");
    }
}

/// Named pipes, links (to `/dev/zero`, to a real trace), a directory and damaged headers
/// named like traces: each is skipped with a one-line warning, at once and without reading
/// or allocating for what the files claim; the real traces are analyzed (incomplete: the
/// skipped files may have been ranks').
#[test]
fn hostile_entries_in_a_trace_directory_are_skipped_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_traces(&fixture("features-mpich"), d);
    let real = trace_paths(d)[0].clone();
    let fifo = std::ffi::CString::new(d.join("trace-1.mpitrace").to_str().unwrap()).unwrap();
    // SAFETY: plain mkfifo(3) on a path in our temporary directory.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", d.join("trace-2.mpitrace")).unwrap();
    std::os::unix::fs::symlink(&real, d.join("trace-3.mpitrace")).unwrap();
    std::fs::create_dir(d.join("trace-4.mpitrace")).unwrap();
    let mut huge = std::fs::read(&real).unwrap();
    huge[offset::RANK..offset::RANK + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    huge[offset::WORLD_SIZE..offset::WORLD_SIZE + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    std::fs::File::create(d.join("trace-5.mpitrace"))
        .unwrap()
        .write_all(&huge)
        .unwrap();

    let (analyzed, took) = analyze(d);
    let stderr = text(&analyzed.stderr);
    for (name, why) in [
        ("trace-1.mpitrace", "it is a named pipe, not a trace file"),
        ("trace-2.mpitrace", "it is a symbolic link, not a trace file"),
        ("trace-3.mpitrace", "it is a symbolic link, not a trace file"),
        ("trace-4.mpitrace", "it is a directory, not a trace file"),
        (
            "trace-5.mpitrace",
            "trace header is damaged: it claims rank 2147483647, beyond the 1048576 ranks mpicheck supports",
        ),
    ] {
        let line = format!("mpicheck: warning: skipping {}: {why}\n", d.join(name).display());
        assert!(stderr.contains(&line), "{line}in\n{stderr}");
    }
    assert!(stderr.contains("mpicheck: no findings"), "{stderr}");
    assert!(
        stderr.contains("mpicheck: the analysis is incomplete (5 trace files could not be read): problems in what was not recorded cannot be found\n"),
        "{stderr}"
    );
    assert_eq!(analyzed.status.code(), Some(3), "{stderr}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A header whose world size was damaged (a bit flip in a real trace): the ranks disagree,
/// or a lone trace claims a world far beyond the traces there are. A one-line error, at
/// once, instead of an analysis of a million ranks that left no trace.
#[test]
fn a_damaged_world_size_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    copy_traces(&fixture("features-openmpi"), dir.path());
    let traces = rank_traces(dir.path());
    patch_u32(&traces[1].0, offset::WORLD_SIZE, 2 | 1 << 19);
    let (analyzed, took) = analyze(dir.path());
    let stderr = text(&analyzed.stderr);
    assert_eq!(
        stderr,
        format!(
            "mpicheck: error: cannot analyze the traces: the traces disagree on the world size (pid {} says 2 ranks, pid {} says 524290): a trace is damaged, or the directory holds traces of two runs\n",
            traces[0].1.header.pid, traces[1].1.header.pid
        )
    );
    assert_eq!(analyzed.status.code(), Some(2));
    std::fs::remove_file(&traces[0].0).unwrap();
    let (analyzed, _) = analyze(dir.path());
    assert_eq!(
        text(&analyzed.stderr),
        "mpicheck: error: cannot analyze the traces: the traces claim a world of 524290 ranks, but only 1 rank left a trace: a trace header is damaged, or the directory lacks most traces of the run\n"
    );
    assert_eq!(analyzed.status.code(), Some(2));
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A run whose calls cannot fit in the memory the analysis may use is refused with a
/// one-line error before the analysis starts (not ended by the OOM killer with no report),
/// and its traces are kept for an analysis elsewhere.
#[test]
fn a_run_too_large_for_the_memory_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    copy_traces(&fixture("features-mpich"), dir.path());
    let before = rank_traces(dir.path()).len();
    let d = dir.path().to_str().unwrap();
    let (refused, _) = mpicheck(&["analyze", "--max-memory", "1K", "--format", "none", d]);
    support::assert_error(&refused, "recorded MPI calls needs at least");
    assert!(
        text(&refused.stderr).contains(&format!("mpicheck analyze {d}")),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(rank_traces(dir.path()).len(), before);
    assert!(!dir.path().join("report.json").exists());
    let (analyzed, _) = mpicheck(&["analyze", "--max-memory", "1G", "--format", "none", d]);
    assert_ne!(
        analyzed.status.code(),
        Some(2),
        "{}",
        text(&analyzed.stderr)
    );
    assert!(dir.path().join("report.json").exists());
}
