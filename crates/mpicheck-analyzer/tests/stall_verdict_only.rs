//! A copy of the analysis made only to judge a stall (`checks::judge_only_the_stall`, set
//! in the copy `mpicheck run` forks) runs the checks the verdict reads, not every check,
//! and comes to the verdict of the analysis of every check. A test binary of its own: the
//! switch is process-wide.

use mpicheck_analyzer::checks::{
    analyze_streaming, judge_only_the_stall, run_all, stall_explanation,
};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::model::{Run, SourceLocation};
use mpicheck_analyzer::text_trace::parse;

mod support;

/// The real traces of a deadlock, streamed as the analysis following a job reads them.
fn deadlock(set: &str) -> (Run, Vec<Diagnostic>) {
    let traces = support::committed_traces(set);
    let mut calls = |i: usize| Ok(traces[i].calls.iter().cloned().map(Ok));
    let mut resolve = |_: usize, _: u64| SourceLocation::default();
    let temp = std::env::temp_dir();
    analyze_streaming(&traces, &mut calls, &mut resolve, &[], Some(&temp), |_| {}).unwrap()
}

/// Both ranks poll their sends until the other receives, which it does only after its own
/// loop: a potential deadlock (DL002), which no stall's verdict reads.
const POTENTIAL: &str = "ranks 2
    0: isend dest=1 tag=0 req=0
    1: isend dest=0 tag=0 req=0
    *: testall reqs=0 flag=0
    *: testall reqs=0 flag=1
    0: recv src=1 tag=0
    1: recv src=0 tag=0
    *: finalize";

/// Both ranks receive from each other, stuck: a deadlock (DL001).
const STUCK: &str = "ranks 2
    0: blocked recv src=1 tag=2
    1: blocked recv src=0 tag=2";

fn codes(found: &[Diagnostic]) -> Vec<&'static str> {
    found.iter().map(|d| d.code).collect()
}

#[test]
fn a_copy_that_judges_only_the_stall_comes_to_the_verdict_of_every_check() {
    let (potential, stuck) = (parse(POTENTIAL).unwrap(), parse(STUCK).unwrap());
    let every = [run_all(&potential), run_all(&stuck)];
    let sets = ["deadlock-mpich", "deadlock-openmpi"];
    let verdicts: Vec<_> = sets
        .iter()
        .map(|set| {
            let (run, found) = deadlock(set);
            stall_explanation(&run, &found)
        })
        .collect();
    judge_only_the_stall();
    assert_eq!(codes(&every[0]), ["DL002"]);
    assert_eq!(
        codes(&run_all(&potential)),
        Vec::<&str>::new(),
        "DL002 is not run"
    );
    let judged = run_all(&stuck);
    assert_eq!(codes(&every[1]), ["DL001"]);
    assert_eq!(stall_explanation(&stuck, &judged), Some(every[1].clone()));
    for (set, verdict) in sets.iter().zip(verdicts) {
        assert!(verdict.is_some(), "{set}");
        let (run, found) = deadlock(set);
        assert_eq!(stall_explanation(&run, &found), verdict, "{set}");
    }
}
