//! Traces that lack calls their process made although it ran to its end (a copy cut after
//! the run, a full disk), and traces of child processes claiming a rank: read from real
//! MPICH and Open MPI traces (`tests/traces`), through the reader, normalization and every
//! check. A rank whose trace is incomplete is judged like an interrupted one: findings
//! before its last recorded call remain, nothing is concluded from the missing part.

use mpicheck_analyzer::checks::run_all;
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::model::{RankEnd, Run, SourceLocation};
use mpicheck_analyzer::normalize::normalize;
use mpicheck_trace::builder::TraceBuilder;
use mpicheck_trace::{offset, read_trace_bytes, state, Trace};

mod support;

use support::committed_traces as fixture;

const FAMILIES: [&str; 2] = ["mpich", "openmpi"];

fn resolve(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("features.c".into()),
        line: Some(addr as u32 & 0xffff),
        ..Default::default()
    }
}

fn analyze(traces: &[Trace]) -> (Run, Vec<Diagnostic>) {
    let run = normalize(traces, &mut resolve).unwrap_or_else(|e| panic!("{e}"));
    let findings = run_all(&run);
    (run, findings)
}

fn summary(findings: &[Diagnostic]) -> Vec<(&'static str, Vec<u32>)> {
    let mut out: Vec<(&'static str, Vec<u32>)> = findings
        .iter()
        .map(|d| (d.code, d.locations[0].ranks.clone().into_vec()))
        .collect();
    out.sort();
    out
}

fn position(trace: &Trace, name: &str) -> usize {
    trace
        .calls
        .iter()
        .position(|c| trace.function_name(c.func) == name)
        .unwrap_or_else(|| panic!("no {name} in rank {:?}", trace.header.rank))
}

/// The features program with two planted problems: rank 0 calls `MPI_Comm_rank` on
/// `MPI_COMM_NULL` early (AR, before any cut), and neither rank frees its vector type
/// (RS001 at `MPI_Finalize`).
fn planted(family: &str) -> Vec<Trace> {
    let mut traces = fixture(&format!("features-{family}"));
    for trace in &mut traces {
        let free = position(trace, "MPI_Type_free");
        trace.calls.remove(free);
    }
    let rank0 = &mut traces[0];
    let null: i64 = {
        let v = rank0.constant("MPI_COMM_NULL").unwrap();
        match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).unwrap() as i64,
            None => v.parse().unwrap(),
        }
    };
    let comm_rank = position(rank0, "MPI_Comm_rank");
    rank0.calls[comm_rank].words[0] = null;
    traces
}

fn rewritten(trace: &Trace) -> Vec<u8> {
    let mut builder = TraceBuilder::from_trace(trace);
    if trace.header.exited() {
        builder.exited()
    } else {
        builder.bytes()
    }
}

#[test]
fn planted_problems_are_found_in_whole_traces() {
    for family in FAMILIES {
        let (_, findings) = analyze(&planted(family));
        let found = summary(&findings);
        assert!(
            found.iter().any(|(c, r)| c.starts_with("AR") && r == &[0]),
            "{family}: {found:?}"
        );
        assert!(found.contains(&("RS001", vec![0])), "{family}: {found:?}");
        assert!(found.contains(&("RS001", vec![1])), "{family}: {found:?}");
    }
}

/// Rank 0's trace copy cut in the middle of its collectives loop: before the fix it was read
/// as complete (the process exited) and its missing collectives became a CO001.
#[test]
fn a_cut_copy_gives_no_false_findings_and_keeps_the_real_ones() {
    for family in FAMILIES {
        let traces = planted(family);
        let whole = rewritten(&traces[0]);
        let dup_allreduces: Vec<u64> = traces[0]
            .calls
            .iter()
            .filter(|c| traces[0].function_name(c.func) == "MPI_Allreduce")
            .map(|c| c.seq)
            .collect();
        // seq is the offset in the original file; in the rewritten one, find the 10th
        // allreduce of the loop by reading it back.
        assert!(dup_allreduces.len() > 15, "{family}");
        let reread = read_trace_bytes(&whole).unwrap();
        let cut_at = reread
            .calls
            .iter()
            .filter(|c| reread.function_name(c.func) == "MPI_Allreduce")
            .nth(10)
            .unwrap()
            .seq as usize
            + 20;
        let cut = read_trace_bytes(&whole[..cut_at]).unwrap();
        assert!(cut.incomplete().is_some(), "{family}: {:?}", cut.end);
        let (run, findings) = analyze(&[cut, traces[1].clone()]);
        let found = summary(&findings);
        assert!(
            found.iter().any(|(c, r)| c.starts_with("AR") && r == &[0]),
            "{family}: the finding before the cut is lost: {found:?}"
        );
        // Rank 1's leak stays; rank 0's end of run is unknown.
        assert!(found.contains(&("RS001", vec![1])), "{family}: {found:?}");
        for (code, ranks) in &found {
            assert!(
                code.starts_with("AR") || (*code == "RS001" && ranks == &[1]),
                "{family}: false finding from the missing part: {found:?}"
            );
        }
        let RankEnd::Interrupted { reason } = &run.ranks[0].end else {
            panic!("{family}: rank 0 ends {:?}", run.ranks[0].end)
        };
        assert!(
            reason.starts_with("the trace was cut after the process wrote it: the file is"),
            "{reason}"
        );
    }
}

/// Rank 0 ran out of space in the middle of its loop: the calls after it are missing from an
/// otherwise whole file, and the header says so.
#[test]
fn a_trace_that_ran_out_of_space_gives_no_false_findings() {
    for family in FAMILIES {
        let mut traces = planted(family);
        let rank0 = &mut traces[0];
        let keep = position(rank0, "MPI_Win_free") + 5;
        let dropped = (rank0.calls.len() - keep) as u64;
        rank0.calls.truncate(keep);
        let mut builder = TraceBuilder::from_trace(rank0);
        builder
            .add_state(state::NO_SPACE)
            .set_u64(offset::DROPPED, dropped);
        let bytes = builder.exited();
        traces[0] = read_trace_bytes(&bytes).unwrap();
        let (run, findings) = analyze(&traces);
        let found = summary(&findings);
        assert!(found.contains(&("RS001", vec![1])), "{family}: {found:?}");
        for (code, ranks) in &found {
            assert!(
                code.starts_with("AR") || (*code == "RS001" && ranks == &[1]),
                "{family}: false finding from the missing part: {found:?}"
            );
        }
        let RankEnd::Interrupted { reason } = &run.ranks[0].end else {
            panic!("{family}: rank 0 ends {:?}", run.ranks[0].end)
        };
        assert_eq!(
            reason,
            &format!("the trace is incomplete: {dropped} calls were not recorded because the trace could not grow (file system full, over quota, or over the file size limit of `ulimit -f`)")
        );
    }
}

/// A child process of rank 0 (started with `system()`) that called an MPI function without
/// initializing MPI: its trace claims rank 0 from the inherited environment. Before the
/// fix the analysis stopped with "two traces claim world rank 0".
#[test]
fn child_processes_claiming_a_rank_are_ignored() {
    for family in FAMILIES {
        let traces = fixture(&format!("features-{family}"));
        let mut child = traces[0].clone();
        child.header.pid += 1000;
        child.header.parent_pid = traces[0].header.pid;
        child.header.rank = None;
        child.header.world_size = None;
        child.header.state = state::EXITED;
        child.calls.truncate(1);
        child.calls[0].func = child.schema.id_of("MPI_Comm_rank").unwrap();
        // Only mpicheck's pseudo-calls: no rank's at all.
        let mut helper = child.clone();
        helper.header.pid += 1;
        helper.calls[0].func = child.schema.id_of("MPICHECK_Comm_info").unwrap();
        for order in [
            vec![
                child.clone(),
                traces[0].clone(),
                traces[1].clone(),
                helper.clone(),
            ],
            vec![
                traces[1].clone(),
                helper.clone(),
                traces[0].clone(),
                child.clone(),
            ],
        ] {
            let assignment = mpicheck_analyzer::normalize::assign_ranks(&order).unwrap();
            assert_eq!(assignment.world_size, 2);
            assert_eq!(
                order[assignment.by_rank[&0]].header.pid,
                traces[0].header.pid
            );
            assert_eq!(assignment.ignored.len(), 1, "{family}");
            assert_eq!(
                order[assignment.ignored[0].trace].header.pid,
                child.header.pid
            );
            let (run, findings) = analyze(&order);
            assert_eq!(run.ranks.len(), 2);
            assert_eq!(summary(&findings), vec![], "{family}");
        }
    }
}

#[test]
fn without_an_initialized_trace_the_first_started_process_is_the_rank() {
    let traces = fixture("features-mpich");
    let mut a = traces[0].clone();
    a.header.rank = None;
    a.header.world_size = None;
    a.header.state = state::EXITED;
    a.header.pid = 500;
    a.header.process_start = 2000;
    let mut b = a.clone();
    b.header.pid = 400;
    b.header.process_start = 3000;
    let mut c = a.clone();
    c.header.pid = 300;
    c.header.process_start = 0;
    let order = vec![b, c, a, traces[1].clone()];
    let assignment = mpicheck_analyzer::normalize::assign_ranks(&order).unwrap();
    assert_eq!(order[assignment.by_rank[&0]].header.pid, 500);
    let mut ignored: Vec<u32> = assignment
        .ignored
        .iter()
        .map(|t| order[t.trace].header.pid)
        .collect();
    ignored.sort();
    assert_eq!(ignored, vec![300, 400]);
}

#[test]
fn two_initialized_traces_of_one_rank_are_two_runs_mixed() {
    let traces = fixture("features-openmpi");
    let mut again = traces[0].clone();
    again.header.pid += 1;
    let err = normalize(&[traces[0].clone(), again], &mut resolve).unwrap_err();
    assert!(err.to_string().starts_with("two traces claim world rank 0"));
}

/// A world size damaged in one header (a bit flip): normalizing it would model half a
/// million ranks that left no trace. The ranks disagree, or a lone trace claims a world
/// far beyond the traces present: an error either way, at once.
#[test]
fn damaged_world_sizes_are_refused() {
    let traces = fixture("features-mpich");
    let mut flipped = traces.clone();
    flipped[1].header.world_size = Some(2 | 1 << 19);
    let err = normalize(&flipped, &mut resolve).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the traces disagree on the world size (pid "),
        "{err}"
    );
    let err = normalize(&flipped[1..], &mut resolve).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the traces claim a world of 524290 ranks, but only 1 rank left a trace: a trace header is damaged, or the directory lacks most traces of the run"
    );
    // Ranks may be missing (died before their first MPI call), within reason.
    let mut wider = traces.clone();
    for t in &mut wider {
        t.header.world_size = Some(1026);
    }
    let (run, _) = analyze(&wider);
    assert_eq!(run.ranks.len(), 1026);
}
