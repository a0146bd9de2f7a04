//! Running chosen checks alone (`checks::run_checks`): only their findings, and the same
//! findings as in a full run, because the checks whose data they read run first, unseen.

use mpicheck_analyzer::checks::{run_all, run_checks};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::model::Run;
use mpicheck_analyzer::text_trace::parse;

fn run(text: &str) -> Run {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn codes(findings: &[Diagnostic]) -> Vec<&'static str> {
    findings.iter().map(|d| d.code).collect()
}

fn alone(text: &str, selected: &[&str]) -> Vec<Diagnostic> {
    run_checks(&run(text), selected).unwrap_or_else(|e| panic!("{e}"))
}

/// A full run's findings of the given codes.
fn of_full_run(text: &str, selected: &[&str]) -> Vec<Diagnostic> {
    run_all(&run(text))
        .into_iter()
        .filter(|d| selected.contains(&d.code))
        .collect()
}

#[test]
fn a_check_alone_reports_only_its_code() {
    // A potential deadlock with an invalid tag: DL002 alone does not report AR002.
    let text = "ranks 2
        0: other MPI_Comm_rank bad=tag:tag
        0: send dest=1 tag=0
        1: send dest=0 tag=0
        0: recv src=1 tag=0
        1: recv src=0 tag=0
        *: finalize";
    assert_eq!(codes(&run_all(&run(text))), ["AR002", "DL002"]);
    assert_eq!(codes(&alone(text, &["DL002"])), ["DL002"]);
    assert_eq!(codes(&alone(text, &["AR002"])), ["AR002"]);
    assert_eq!(alone(text, &["DL002"]), of_full_run(text, &["DL002"]));
}

#[test]
fn dl002_alone_still_leaves_out_what_co001_explains() {
    // The strict replay hangs only because of the mismatched collectives: CO001's finding,
    // not a potential deadlock, even when CO001 is not asked for.
    let text = "ranks 3
        0-1: bcast root=0
        0-1: gather root=0
        2: gather root=0
        2: bcast root=0";
    assert_eq!(codes(&alone(text, &["DL002"])), Vec::<&str>::new());
    assert_eq!(codes(&alone(text, &["CO001", "DL002"])), ["CO001"]);
}

#[test]
fn dl002_and_dl003_alone_have_nothing_to_add_to_an_actual_deadlock() {
    let text = "ranks 2
        0: blocked ssend dest=1 tag=0
        1: blocked ssend dest=0 tag=0";
    assert_eq!(codes(&alone(text, &["DL001"])), ["DL001"]);
    assert_eq!(codes(&alone(text, &["DL002", "DL003"])), Vec::<&str>::new());
}

#[test]
fn mr001_alone_says_when_dl003_stopped_exploring() {
    let mut text = String::from("ranks 3\n");
    for i in 0..70 {
        text.push_str(&format!(
            "1: send dest=0 tag={i}\n2: send dest=0 tag={i}\n0: recv src=any tag={i} matched=1 @ w.c:{i}\n0: recv src=2 tag={i}\n"
        ));
    }
    let races = alone(&text, &["MR001"]);
    assert!(!races.is_empty());
    assert!(races
        .iter()
        .all(|d| d.code == "MR001" && d.notes.iter().any(|n| n.contains("inconclusive"))));
    assert_eq!(races, of_full_run(&text, &["MR001"]));
}

#[test]
fn one_code_of_a_multi_code_pass_is_reported_alone() {
    // The request walk reports RQ001-RQ004 and BF001; asking for RQ001 gives RQ001 only.
    let text = "ranks 1
        0: isend dest=0 tag=0 req=1
        0: wait req=7
        0: finalize";
    let all = codes(&run_all(&run(text)));
    assert!(all.contains(&"RQ001") && all.contains(&"RQ003"), "{all:?}");
    assert_eq!(codes(&alone(text, &["RQ001"])), ["RQ001"]);
}

#[test]
fn an_unknown_code_is_an_error() {
    let err = run_checks(&run("ranks 1\n0: finalize"), &["DL001", "XX001"]).unwrap_err();
    assert_eq!(err, "unknown check code `XX001`");
}

#[test]
fn checks_use_only_what_they_declare() {
    // Traces that reach every replay and every slot: an actual deadlock, a potential one,
    // mismatched collectives, a wildcard race whose other matching deadlocks, and an
    // exploration cut short.
    let mut many_races = String::from("ranks 3\n");
    for i in 0..70 {
        many_races.push_str(&format!(
            "1: send dest=0 tag={i}\n2: send dest=0 tag={i}\n0: recv src=any tag={i} matched=1\n0: recv src=2 tag={i}\n"
        ));
    }
    let traces = [
        "ranks 2
        0: blocked ssend dest=1 tag=0
        1: blocked ssend dest=0 tag=0",
        "ranks 2
        0: send dest=1 tag=0
        1: send dest=0 tag=0
        0: recv src=1 tag=0
        1: recv src=0 tag=0
        *: finalize",
        "ranks 3
        0-1: bcast root=0
        0-1: gather root=0
        2: gather root=0
        2: bcast root=0",
        "ranks 3
        1: send dest=0 tag=0
        2: send dest=0 tag=0
        0: recv src=any tag=0 matched=1
        0: recv src=2 tag=0
        *: finalize",
        &many_races,
    ];
    for text in traces {
        let run = run(text);
        assert!(!run_all(&run).is_empty(), "{text}");
        assert_eq!(
            mpicheck_analyzer::checks::undeclared_uses(&run),
            Vec::<String>::new(),
            "{text}"
        );
    }
}
