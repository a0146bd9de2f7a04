//! `mpicheck run` on real MPI programs under MPICH and Open MPI: calls recorded once at the
//! right file:line for C, C++ and the three Fortran bindings, the program's output, stdin
//! and exit status unchanged, a SIGKILLed rank's trace readable, a hung job ended, and
//! one-line errors for bad input, hpcc's output unchanged, and the report files of a real
//! deadlock: the HTML drawn in headless Chromium shows the cycle, the SARIF matches its schema.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use mpicheck_analyzer::model::{Run, SourceLocation};
use mpicheck_trace::reader::{EndOfTrace, Trace};

mod support;
use support::*;

/// The traces normalized, with call sites resolved, as `mpicheck analyze` sees them.
fn normalized(traces: &[Trace]) -> Run {
    let mut symbolizers: HashMap<usize, mpicheck_symbols::Symbolizer> = HashMap::new();
    let mut resolve = |trace: usize, addr: u64| -> SourceLocation {
        symbolizers
            .entry(trace)
            .or_insert_with(|| mpicheck_symbols::Symbolizer::new(&traces[trace].proc_maps))
            .resolve(addr)
    };
    mpicheck_analyzer::normalize::normalize(traces, &mut resolve).unwrap()
}

/// Lines of `source` carrying a `site` marker comment.
fn marked_lines(source: &Path) -> Vec<u32> {
    std::fs::read_to_string(source)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.trim_end().ends_with("/* site */")
                || l.trim_end().ends_with("// site")
                || l.trim_end().ends_with("! site")
        })
        .map(|(i, _)| i as u32 + 1)
        .collect()
}

/// The marked line calling `call` (case-insensitive), for the one call per name that a
/// program makes.
fn marked_call_line(source: &Path, call: &str) -> u32 {
    let text = std::fs::read_to_string(source).unwrap().to_lowercase();
    let needle = format!("call {}(", call.to_lowercase());
    text.lines().position(|l| l.contains(&needle)).unwrap() as u32 + 1
}

/// Every marked call is in rank 0's and rank 1's traces exactly once, in order, at its line;
/// no call is recorded at an unmarked line.
fn check_sites(family: Family, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, name, dir.path());
    let out = dir.path().join("out");
    let exe_arg = exe.to_str().unwrap();
    let (checked, _) = mpicheck_run(family, 2, &out, &[exe_arg], &[], b"");
    let plain = plain_run(family, 2, &[exe_arg], b"");
    assert_eq!(
        checked.status.code(),
        plain.status.code(),
        "{name}: {}",
        text(&checked.stderr)
    );
    assert_eq!(
        sorted_lines(&checked.stdout),
        sorted_lines(&plain.stdout),
        "{name}: stdout changed"
    );
    assert!(
        checked.status.success(),
        "{name} under {}: {}",
        family.name,
        text(&checked.stderr)
    );

    let run = normalized(&traces(&out));
    let source = program_source(name);
    let file_name = source.file_name().unwrap().to_str().unwrap();
    let mut expected = marked_lines(&source);
    expected.sort();
    for rank in &run.ranks {
        let recorded: Vec<(&str, Option<&str>, Option<u32>)> = rank
            .events
            .iter()
            .map(|e| {
                let site = run.site(e.site);
                let file = site.file.as_deref().and_then(|f| f.rsplit('/').next());
                (e.call, file, site.line)
            })
            .collect();
        let context = format!(
            "{name} under {} rank {}: recorded {recorded:?}",
            family.name, rank.rank
        );
        let mut lines = Vec::new();
        let mut expected = expected.clone();
        for &(call, file, line) in &recorded {
            match line {
                Some(line) if file == Some(file_name) && expected.contains(&line) => {
                    lines.push(line)
                }
                // gfortran's line table has no row for calls through Open MPI's `use mpi`
                // interfaces without choice buffers: the calls' addresses belong to the
                // `program` line (2). Nothing in the DWARF names the real line.
                Some(2)
                    if family.name == "openmpi"
                        && name == "sites_usempi.f90"
                        && matches!(call, "MPI_Init" | "MPI_Wait" | "MPI_Finalize") =>
                {
                    let real = marked_call_line(&source, call);
                    expected.retain(|&l| l != real);
                }
                _ => panic!("{call} not at a marked line; {context}"),
            }
        }
        // Sorted: call order differs from source order when a function is defined above main.
        lines.sort();
        assert_eq!(lines, expected, "{context}");
    }
}

#[test]
fn c_calls_recorded_once_at_their_lines_mpich() {
    check_sites(MPICH, "sites.c");
}
#[test]
fn c_calls_recorded_once_at_their_lines_openmpi() {
    check_sites(OPENMPI, "sites.c");
}
#[test]
fn cpp_calls_recorded_once_at_their_lines_mpich() {
    check_sites(MPICH, "sites.cpp");
}
#[test]
fn cpp_calls_recorded_once_at_their_lines_openmpi() {
    check_sites(OPENMPI, "sites.cpp");
}
#[test]
fn fortran_use_mpi_calls_recorded_once_at_their_lines_mpich() {
    check_sites(MPICH, "sites_usempi.f90");
}
#[test]
fn fortran_use_mpi_calls_recorded_once_at_their_lines_openmpi() {
    check_sites(OPENMPI, "sites_usempi.f90");
}
#[test]
fn fortran_mpi_f08_calls_recorded_once_at_their_lines_mpich() {
    check_sites(MPICH, "sites_f08.f90");
}
#[test]
fn fortran_mpi_f08_calls_recorded_once_at_their_lines_openmpi() {
    check_sites(OPENMPI, "sites_f08.f90");
}
#[test]
fn fortran_mpif_h_calls_recorded_once_at_their_lines_mpich() {
    check_sites(MPICH, "sites_mpif.f");
}
#[test]
fn fortran_mpif_h_calls_recorded_once_at_their_lines_openmpi() {
    check_sites(OPENMPI, "sites_mpif.f");
}

/// stdin reaches rank 0, stdout and stderr pass through, the exit status is the program's.
fn check_output_and_status(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "status.c", dir.path());
    let exe_arg = exe.to_str().unwrap();
    let program = [exe_arg, "a", "b"];
    let (checked, _) = mpicheck_run(
        family,
        2,
        &dir.path().join("out"),
        &program,
        &[],
        b"hello mpi\n",
    );
    let plain = plain_run(family, 2, &program, b"hello mpi\n");
    assert_eq!(
        plain.status.code(),
        Some(3),
        "plain run: {}",
        text(&plain.stderr)
    );
    assert_eq!(checked.status.code(), Some(3), "{}", text(&checked.stderr));
    assert_eq!(sorted_lines(&checked.stdout), sorted_lines(&plain.stdout));
    assert!(
        text(&checked.stdout).contains("rank 1 read 'hello mpi' args=2"),
        "{}",
        text(&checked.stdout)
    );
    let program_stderr: Vec<String> = sorted_lines(&checked.stderr)
        .into_iter()
        .filter(|l| l.starts_with("rank "))
        .collect();
    assert_eq!(program_stderr, ["rank 0 to stderr", "rank 1 to stderr"]);
}

#[test]
fn output_stdin_and_exit_status_unchanged_mpich() {
    check_output_and_status(MPICH);
}
#[test]
fn output_stdin_and_exit_status_unchanged_openmpi() {
    check_output_and_status(OPENMPI);
}

/// A rank killed with SIGKILL leaves a trace with every call it made.
fn check_killed_rank(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "killed.c", dir.path());
    let out = dir.path().join("out");
    let (checked, _) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    );
    assert!(!checked.status.success(), "{}", text(&checked.stderr));
    let traces = traces(&out);
    let killed = traces
        .iter()
        .find(|t| t.header.best_rank() == Some(1))
        .expect("rank 1's trace");
    assert!(
        !killed.header.exited(),
        "rank 1 was killed, its trace says it exited"
    );
    assert!(matches!(
        killed.end,
        EndOfTrace::Clean | EndOfTrace::Truncated { .. }
    ));
    let sends = killed
        .calls
        .iter()
        .filter(|c| killed.function_name(c.func) == "MPI_Send")
        .count();
    assert_eq!(sends, 1000, "rank 1's MPI_Send calls in its trace");
    let last = killed.calls.last().unwrap();
    assert_eq!(killed.function_name(last.func), "MPI_Send");
    assert!(last.complete);
}

#[test]
fn sigkilled_rank_leaves_readable_trace_mpich() {
    check_killed_rank(MPICH);
}
#[test]
fn sigkilled_rank_leaves_readable_trace_openmpi() {
    check_killed_rank(OPENMPI);
}

/// A rank blocked in a call folded into a counted run (trace format 6: the record is
/// complete, its pending bit says a further identical call is inside MPI) is blocked, not
/// done: the watcher ends the job and the analysis reports the deadlock at that call.
fn check_hang_in_counted_run(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "hang_in_run.c", dir.path());
    let out = dir.path().join("out");
    let (checked, _) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    );
    let stderr = text(&checked.stderr);
    assert_eq!(checked.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("DL001"), "{stderr}");
    assert!(
        stderr.contains("/* line 18 */")
            && stderr.contains("rank 1: waits for a message from rank 0 (tag 7)"),
        "rank 1's blocked receive in the run is shown:\n{stderr}"
    );
    let rank1 = traces(&out)
        .into_iter()
        .find(|t| t.header.best_rank() == Some(1))
        .expect("rank 1's trace");
    let recvs: Vec<_> = rank1
        .calls
        .iter()
        .filter(|c| rank1.function_name(c.func) == "MPI_Recv")
        .collect();
    assert_eq!(recvs.len(), 101, "{stderr}");
    assert!(recvs[..100].iter().all(|c| c.complete) && !recvs[100].complete);
}

#[test]
fn a_hang_inside_a_counted_run_is_reported_mpich() {
    check_hang_in_counted_run(MPICH);
}
#[test]
fn a_hang_inside_a_counted_run_is_reported_openmpi() {
    check_hang_in_counted_run(OPENMPI);
}

/// A rank blocked in a call counted in a cycle record (trace format 7: the record is complete,
/// its pending bit says the cycle's next call is inside MPI) is blocked, not done: the
/// watcher ends the job and the analysis reports the deadlock at that call.
fn check_hang_in_counted_cycle(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "hang_in_cycle.c", dir.path());
    let out = dir.path().join("out");
    let (checked, _) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    );
    let stderr = text(&checked.stderr);
    assert_eq!(checked.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("DL001"), "{stderr}");
    assert!(
        stderr.contains("/* line 20 */")
            && stderr.contains("rank 1: waits for a message from rank 0 (tag 7)"),
        "rank 1's blocked receive in the cycle is shown:\n{stderr}"
    );
    let rank1 = traces(&out)
        .into_iter()
        .find(|t| t.header.best_rank() == Some(1))
        .expect("rank 1's trace");
    let named = |name: &str| -> Vec<_> {
        rank1
            .calls
            .iter()
            .filter(|c| rank1.function_name(c.func) == name)
            .collect()
    };
    let (recvs, sends) = (named("MPI_Recv"), named("MPI_Send"));
    assert_eq!((recvs.len(), sends.len()), (101, 100), "{stderr}");
    assert!(recvs[..100].iter().all(|c| c.complete) && !recvs[100].complete);
    assert!(sends.iter().all(|c| c.complete));
}

#[test]
fn a_hang_inside_a_counted_cycle_is_reported_mpich() {
    check_hang_in_counted_cycle(MPICH);
}
#[test]
fn a_hang_inside_a_counted_cycle_is_reported_openmpi() {
    check_hang_in_counted_cycle(OPENMPI);
}

/// A job where every rank waits forever is reported and ended within the timeout + 5 s
/// (plus start-up time of the launcher on a loaded 2-core machine).
fn check_hang_is_ended(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "../../../../examples/halo_deadlock.c", dir.path());
    let out = dir.path().join("out");
    let (checked, elapsed) = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    );
    let stderr = text(&checked.stderr);
    assert_eq!(checked.status.code(), Some(1), "{stderr}");
    assert!(
        elapsed < Duration::from_secs(2 + 5 + 10),
        "took {elapsed:?}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"DL001"), "{codes:?}\n{stderr}");
    assert!(
        stderr.contains("halo_deadlock.c:29"),
        "the blocked MPI_Send is named:\n{stderr}"
    );
}

#[test]
fn hanging_job_is_reported_and_ended_mpich() {
    check_hang_is_ended(MPICH);
}
#[test]
fn hanging_job_is_reported_and_ended_openmpi() {
    check_hang_is_ended(OPENMPI);
}

/// Bad input: one line on stderr that says what to do, exit status 2.
fn check_error(args: &[&str], expected: &str) {
    let mut cmd = Command::new(MPICHECK);
    cmd.args(args);
    let (output, _) = run_bounded(cmd, b"");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_gets_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    check_error(
        &["run", "--frobnicate", "-n", "2", "true"],
        "unexpected argument",
    );
    check_error(&["run", "-n", "0", "true"], "-n");
    check_error(
        &["run", "--out", out, "-n", "2", "/no/such/program"],
        "not found",
    );
    check_error(
        &["run", "--out", out, "-n", "2", "true"],
        "not linked against MPICH or Open MPI",
    );
    check_error(
        &[
            "run",
            "--mpi",
            "mpich",
            "--out",
            "/proc/mpicheck",
            "-n",
            "2",
            "true",
        ],
        "--out",
    );
    check_error(&["analyze", "/no/such/dir"], "not a directory");
    check_error(&["analyze", dir.path().to_str().unwrap()], "no MPI traces");
    check_error(&["explain", "XX999"], "mpicheck checks");
    // A damaged trace is skipped with a warning naming it, not a panic.
    std::fs::write(dir.path().join("trace-1.mpitrace"), b"garbage").unwrap();
    check_error(
        &["analyze", dir.path().to_str().unwrap()],
        "trace-1.mpitrace",
    );
}

/// hpcc, Debian's HPC Challenge build (a real MPI application, linked against Open MPI),
/// prints the same results under `mpicheck run -n 4` as plainly; benches/hpcc/compare.sh
/// masks only timings, rates and the lines hpcc randomizes itself.
#[test]
fn hpcc_output_unchanged() {
    let hpcc = Path::new("/usr/bin/hpcc");
    assert!(
        hpcc.exists(),
        "hpcc is missing: install it with scripts/install-deps (Debian package hpcc)"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let input = root.join("benches/hpcc/hpccinf.txt");
    let dir = tempfile::tempdir().unwrap();
    let run_in = |name: &str, mut cmd: Command| -> (PathBuf, Output) {
        let work = dir.path().join(name);
        std::fs::create_dir(&work).unwrap();
        std::fs::copy(&input, work.join("hpccinf.txt")).unwrap();
        cmd.current_dir(&work);
        let (output, _) = run_bounded(cmd, b"");
        std::fs::write(work.join("stdout.txt"), &output.stdout).unwrap();
        std::fs::write(work.join("stderr.txt"), &output.stderr).unwrap();
        (work, output)
    };
    let mut plain = Command::new("mpiexec.openmpi");
    plain.args(["-n", "4", "hpcc"]);
    let (plain_dir, plain_out) = run_in("plain", plain);
    let mut checked = Command::new(MPICHECK);
    checked.args(["run", "-n", "4", "--", "hpcc"]);
    let (checked_dir, checked_out) = run_in("checked", checked);
    assert!(
        plain_out.status.success(),
        "plain hpcc failed: {}",
        text(&plain_out.stderr)
    );
    assert_eq!(
        checked_out.status.code(),
        Some(0),
        "hpcc under mpicheck: {}",
        text(&checked_out.stderr)
    );
    let compare = Command::new(root.join("benches/hpcc/compare.sh"))
        .args([&plain_dir, &checked_dir])
        .output()
        .unwrap();
    assert!(
        compare.status.success(),
        "hpcc's output differs under mpicheck:\n{}",
        text(&compare.stdout)
    );
    let report = std::fs::read_to_string(checked_dir.join("mpicheck-out/report.json")).unwrap();
    assert!(report.contains("\"findings\""), "{report}");
    // hpcc is stripped: no file or line, but every call site still names the binary and the
    // call's address in it (hpcc's own functions are in no symbol table).
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert!(
        !findings.is_empty(),
        "hpcc's known wildcard receives are no longer reported"
    );
    for l in findings
        .iter()
        .flat_map(|f| f["locations"].as_array().unwrap())
    {
        assert!(
            l["object"].as_str().is_some_and(|o| o.ends_with("/hpcc")) && l["offset"].is_u64(),
            "a location without its object and offset: {l}"
        );
    }
    let stderr = text(&checked_out.stderr);
    assert!(!stderr.contains("call site unknown"), "{stderr}");
    assert!(stderr.contains(" at hpcc+0x"), "{stderr}");
}

/// `report.html` as headless Chromium draws it (Debian's `chromium`), as RGB(A) pixels.
fn screenshot(html: &Path, dir: &Path) -> (png::OutputInfo, Vec<u8>) {
    let shot = dir.join("shot.png");
    let mut cmd = Command::new("chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1200,1400",
    ])
    .arg(format!("--user-data-dir={}", dir.join("profile").display()))
    .arg(format!("--screenshot={}", shot.display()))
    .arg(format!("file://{}", html.display()));
    if Command::new("chromium").arg("--version").output().is_err() {
        panic!(
            "chromium is missing: install it with scripts/install-deps (Debian package chromium)"
        );
    }
    let (output, _) = run_bounded(cmd, b"");
    assert!(
        shot.exists(),
        "no screenshot from chromium (scripts/install-deps installs it): {}",
        text(&output.stderr)
    );
    let file = std::io::BufReader::new(std::fs::File::open(&shot).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(info.buffer_size());
    (info, pixels)
}

/// Pixels of exactly the fill of the cycle's nodes in the wait-for graph.
fn cycle_pixels(info: &png::OutputInfo, pixels: &[u8]) -> usize {
    let hex = mpicheck_report::svg::CYCLE_NODE_FILL.trim_start_matches('#');
    let fill: Vec<u8> = (0..3)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    pixels
        .chunks_exact(channels)
        .filter(|px| px[..3] == fill[..])
        .count()
}

/// The SARIF file of a real run matches the SARIF 2.1.0 schema (vendored with the report
/// crate's tests, see its SARIF-SCHEMA.md).
fn assert_valid_sarif(out: &Path) -> serde_json::Value {
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../mpicheck-report/tests/sarif-schema-2.1.0.json"
    ))
    .unwrap();
    let log: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.sarif")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{log:#}");
    log
}

/// The HTML report of a real deadlock shows the cycle as a picture in a browser, and its
/// SARIF file is valid; a run without a deadlock draws no cycle.
#[test]
fn deadlock_report_draws_the_cycle_in_chromium_and_sarif_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(MPICH, "../../../../examples/halo_deadlock.c", dir.path());
    let out = dir.path().join("deadlock");
    let (checked, _) = mpicheck_run(
        MPICH,
        2,
        &out,
        &[exe.to_str().unwrap()],
        &["--deadlock-timeout", "2"],
        b"",
    );
    assert_eq!(checked.status.code(), Some(1), "{}", text(&checked.stderr));
    let (info, pixels) = screenshot(&out.join("report.html"), dir.path());
    // Two boxes of about 300 × 40 pixels, one per rank of the cycle.
    let drawn = cycle_pixels(&info, &pixels);
    assert!(
        drawn > 2 * 5000,
        "{drawn} pixels of the cycle's fill in a {}x{} screenshot",
        info.width,
        info.height
    );
    let log = assert_valid_sarif(&out);
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert!(
        location["artifactLocation"]["uri"]
            .as_str()
            .is_some_and(|u| u.ends_with("halo_deadlock.c")),
        "{location:#}"
    );
    assert_eq!(location["region"]["startLine"], 29, "{location:#}");

    // The twin: a correct program's report has nothing in the cycle's color.
    let exe = compile(MPICH, "sites.c", dir.path());
    let out = dir.path().join("clean");
    let (checked, _) = mpicheck_run(MPICH, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    let (info, pixels) = screenshot(&out.join("report.html"), dir.path());
    assert_eq!(cycle_pixels(&info, &pixels), 0);
    assert_valid_sarif(&out);
}

/// The bytes recorded in every status a program got are what `MPI_Get_count(status,
/// MPI_BYTE)` gave the program for it (the recorder reads them from the status's fields
/// where it knows the MPI's layout). Statuses MPI leaves undefined (a send's count, a test
/// that found nothing: the program says -1) are not compared.
fn check_status_bytes(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "status_bytes.c", dir.path());
    let out = dir.path().join("out");
    let (checked, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    assert!(checked.status.success(), "{}", text(&checked.stderr));
    let traces = traces(&out);
    for trace in &traces {
        let rank = trace.header.rank.unwrap();
        let said: Vec<i64> = text(&checked.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("rank {rank} bytes ")))
            .map(|n| n.parse().unwrap())
            .collect();
        let recorded: Vec<i64> = trace
            .calls
            .iter()
            .filter(|c| c.complete)
            .flat_map(|c| c.args(trace.schema.function(c.func).unwrap()))
            .flat_map(|(_, out)| match out {
                mpicheck_trace::ArgValue::Status(s) => vec![s.bytes],
                mpicheck_trace::ArgValue::Statuses(s) => s.iter().map(|s| s.bytes).collect(),
                _ => Vec::new(),
            })
            .collect();
        eprintln!("rank {rank}: said {said:?}, recorded {recorded:?}");
        assert_eq!(
            said.len(),
            recorded.len(),
            "rank {rank}: {said:?} {recorded:?}"
        );
        for (said, recorded) in said.iter().zip(&recorded) {
            if *said != -1 {
                assert_eq!(said, recorded, "rank {rank}: {said:?} {recorded:?}");
            }
        }
    }
}

#[test]
fn status_bytes_are_mpi_get_counts_mpich() {
    check_status_bytes(MPICH);
}

#[test]
fn status_bytes_are_mpi_get_counts_openmpi() {
    check_status_bytes(OPENMPI);
}
