//! Snapshot tests of the rustc-style terminal output, on findings built by hand.

mod common;

use std::path::Path;

use common::*;
use mpicheck_report::{render_terminal, ReportInput};
use termcolor::{Ansi, NoColor};

fn plain(input: &ReportInput<'_>) -> String {
    let mut out = NoColor::new(Vec::new());
    render_terminal(&mut out, input).unwrap();
    String::from_utf8(out.into_inner()).unwrap()
}

#[test]
fn findings_with_source_lines() {
    let (run, findings, base) = (run_info(), findings(), fixtures());
    let text = plain(&input(&run, &findings, &[], &base));
    insta::assert_snapshot!(text);
}

#[test]
fn unreadable_sources_still_print_file_and_line() {
    let (run, findings) = (run_info(), findings());
    let text = plain(&input(
        &run,
        &findings,
        &[],
        Path::new("/nonexistent/mpicheck"),
    ));
    // Every location with a known site keeps its file:line even without source.
    assert!(text.contains("rank 0: MPI_Recv at ring.c:12: waits for a message from rank 3"));
    assert!(text.contains("ranks 0, 2, 4: MPI_Isend at leak.f90:7:"));
    insta::assert_snapshot!(text);
}

#[test]
fn absolute_paths_ignore_the_base() {
    let run = run_info();
    let mut d = request_leak();
    d.locations[0].file = Some(fixtures().join("leak.f90").display().to_string());
    let findings = [d];
    let text = plain(&input(&run, &findings, &[], Path::new("/nonexistent")));
    assert!(
        text.contains("call MPI_Isend(buf, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, req, ierr)"),
        "{text}"
    );
    assert!(
        text.contains("^^^^^^^^^ ranks 0, 2, 4: starts a send"),
        "{text}"
    );
}

#[test]
fn a_line_past_the_end_of_the_file_falls_back_to_file_and_line() {
    let run = run_info();
    let mut d = request_leak();
    d.locations[0].line = Some(999);
    let findings = [d];
    let text = plain(&input(&run, &findings, &[], &fixtures()));
    assert!(
        text.contains("= ranks 0, 2, 4: MPI_Isend at leak.f90:999:"),
        "{text}"
    );
}

#[test]
fn summary_line() {
    let run = run_info();
    assert_eq!(
        plain(&input(&run, &[], &[], &fixtures())),
        "mpicheck: no findings\n"
    );
    let findings = findings();
    assert!(plain(&input(&run, &findings, &[], &fixtures()))
        .ends_with("\nmpicheck: 2 errors, 1 warning\n"));
    let warnings = [request_leak(), request_leak()];
    assert!(plain(&input(&run, &warnings, &[], &fixtures())).ends_with("\nmpicheck: 2 warnings\n"));
}

#[test]
fn colors_only_when_the_writer_wants_them() {
    let (run, findings, base) = (run_info(), findings(), fixtures());
    let input = input(&run, &findings, &[], &base);
    let mut colored = Ansi::new(Vec::new());
    render_terminal(&mut colored, &input).unwrap();
    let colored = String::from_utf8(colored.into_inner()).unwrap();
    assert!(
        colored.contains("\x1b["),
        "no escape codes in colored output"
    );
    assert!(!plain(&input).contains('\x1b'));
    // Same text once the escape codes are removed.
    let mut stripped = String::new();
    let mut chars = colored.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            stripped.push(c);
        }
    }
    assert_eq!(stripped, plain(&input));
}

#[test]
fn locations_without_source_name_function_and_object() {
    let (run, findings) = (run_info(), vec![stripped_binary_finding()]);
    let text = plain(&input(&run, &findings, &[], &fixtures()));
    for expected in [
        "= rank 0: MPI_Send in `HPL_bcast` (libhpl.so.2+0x1a2b): sends to rank 1",
        "= rank 1: MPI_Send at hpcc+0x4010: sends to rank 0",
        "= rank 2: MPI_Recv (call site unknown): never reached",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}
