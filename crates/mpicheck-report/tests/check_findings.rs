//! What a user sees for each check: the analyzer's own findings on the tier-2 programs
//! (as text traces whose call sites are the programs' lines), folded and rendered for the
//! terminal with the programs' source lines, pinned by snapshots.
//!
//! Besides the snapshot, each test asserts what makes a finding understandable on its own:
//! a message, a label at every involved call (on its source line), the MPI rule as a note
//! and the fix as help.

use std::path::{Path, PathBuf};

use mpicheck_analyzer::checks::run_all;
use mpicheck_analyzer::text_trace::parse;
use mpicheck_analyzer::Diagnostic;
use mpicheck_report::{fold, render_terminal, ReportInput, RunInfo};
use termcolor::NoColor;

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// Findings and their terminal rendering for a text trace.
fn render(trace: &str) -> (Vec<Diagnostic>, String) {
    let run = parse(trace).unwrap();
    let findings = fold(run_all(&run));
    let info = RunInfo::default();
    let base = programs_dir();
    let input = ReportInput {
        run: &info,
        findings: &findings,
        timelines: &[],
        source_base: &base,
        hidden: Default::default(),
    };
    let mut out = NoColor::new(Vec::new());
    render_terminal(&mut out, &input).unwrap();
    (findings, String::from_utf8(out.into_inner()).unwrap())
}

/// The finding with `code` is complete and every one of its locations is shown on its
/// source line with its label.
fn assert_understandable(findings: &[Diagnostic], text: &str, code: &str) {
    let d = findings
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in:\n{text}"));
    let header = format!(
        "{}[{code}]: {}",
        match d.severity {
            mpicheck_analyzer::Severity::Error => "error",
            mpicheck_analyzer::Severity::Warning => "warning",
        },
        d.message
    );
    assert!(text.contains(&header), "no `{header}` in:\n{text}");
    assert!(!d.message.is_empty() && !d.message.ends_with('.'));
    assert!(!d.notes.is_empty(), "{code}: no note with the MPI rule");
    assert!(
        d.notes.iter().any(|n| n.contains("MPI")),
        "{code}: notes name no MPI rule"
    );
    let help = d.help.as_deref().expect("a help line with the fix");
    assert!(text.contains(&format!("= help: {help}")), "{text}");
    for l in &d.locations {
        let label = mpicheck_report::ranks::format_ranks(&l.ranks) + ": " + &l.label;
        assert!(
            text.contains(&label),
            "{code}: label `{label}` missing:\n{text}"
        );
        let line = l.line.expect("test traces give every call a line");
        // The source line is printed in the gutter as `NN │ <source>`.
        assert!(
            text.contains(&format!("{line} │ ")),
            "{code}: line {line} not shown:\n{text}"
        );
    }
}

#[test]
fn dl001_ssend_ring() {
    let (findings, text) = render(
        "ranks 4
         0: blocked ssend dest=1 tag=7 @ fig02_ssend_ring4.c:30
         1: blocked ssend dest=2 tag=7 @ fig02_ssend_ring4.c:30
         2: blocked ssend dest=3 tag=7 @ fig02_ssend_ring4.c:30
         3: blocked ssend dest=0 tag=7 @ fig02_ssend_ring4.c:30",
    );
    assert_understandable(&findings, &text, "DL001");
    insta::assert_snapshot!(text);
}

#[test]
fn dl001_collective_and_receive() {
    let (findings, text) = render(
        "ranks 3
         0: blocked bcast root=2 @ fig23_bcast_recv_root2.c:31
         1: blocked bcast root=2 @ fig23_bcast_recv_root2.c:34
         2: blocked recv src=0 tag=1 @ fig23_bcast_recv_root2.c:36",
    );
    assert_understandable(&findings, &text, "DL001");
    insta::assert_snapshot!(text);
}

#[test]
fn dl001_folds_64_ranks_into_strided_sets() {
    // Even ranks synchronously send to their right neighbour, odd ranks to their left: 32
    // two-rank cycles, one finding with rank sets.
    let mut trace = String::from("ranks 64\n");
    for r in 0..64 {
        let (peer, line) = if r % 2 == 0 { (r + 1, 31) } else { (r - 1, 34) };
        trace += &format!("{r}: blocked ssend dest={peer} tag=1 @ fig01_ssend_cycle.c:{line}\n");
    }
    let (findings, text) = render(&trace);
    assert_understandable(&findings, &text, "DL001");
    assert!(text.contains("ranks 0-62 stride 2"), "{text}");
    assert!(text.contains("ranks 1-63 stride 2"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn dl002_send_cycle() {
    let (findings, text) = render(
        "ranks 2
         0: send dest=1 tag=1 @ fig01_send_cycle.c:29
         0: recv src=1 tag=2 @ fig01_send_cycle.c:30
         1: send dest=0 tag=2 @ fig01_send_cycle.c:32
         1: recv src=0 tag=1 @ fig01_send_cycle.c:33
         *: finalize @ fig01_send_cycle.c:36",
    );
    assert_understandable(&findings, &text, "DL002");
    insta::assert_snapshot!(text);
}

#[test]
fn dl003_and_mr001_wildcard() {
    let (findings, text) = render(
        "ranks 3
         0: recv src=any tag=0 matched=1 @ std_wildcard_then_specific_recv.c:35
         0: recv src=2 tag=0 @ std_wildcard_then_specific_recv.c:36
         1: send dest=0 tag=0 @ std_wildcard_then_specific_recv.c:40
         2: send dest=0 tag=0 @ std_wildcard_then_specific_recv.c:45
         *: finalize @ std_wildcard_then_specific_recv.c:49",
    );
    assert_understandable(&findings, &text, "DL003");
    assert_understandable(&findings, &text, "MR001");
    insta::assert_snapshot!(text);
}

#[test]
fn co001_collective_order() {
    let (findings, text) = render(
        "ranks 3
         0-1: bcast root=0 @ fig21_bcast_gather_order.c:31
         0-1: gather root=0 @ fig21_bcast_gather_order.c:32
         2: gather root=0 @ fig21_bcast_gather_order.c:34
         2: bcast root=0 @ fig21_bcast_gather_order.c:35
         *: finalize @ fig21_bcast_gather_order.c:38",
    );
    assert_understandable(&findings, &text, "CO001");
    insta::assert_snapshot!(text);
}
