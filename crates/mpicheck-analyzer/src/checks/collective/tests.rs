//! The collective pass in any interleaving of the ranks, and the aligner's bound.

use super::aligner::{Aligner, Call};
use super::CollectivePass;
use crate::checks::pass::{EventPass, Filled, RunTables};
use crate::model::{CollectiveKind, CommId, CommInfo, Run, SiteId};
use crate::text_trace::parse;

/// xorshift: enough randomness for traces and interleavings, reproducible.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A run of collectives on three communicators, each rank's calls the same sequence with
/// random faults: a call dropped or replaced, another root, type, op or `MPI_IN_PLACE`, the
/// rank ending early, blocked or finalized; split collectives for CO006.
fn random_trace(seed: u64) -> String {
    const KINDS: &[&str] = &[
        "barrier",
        "bcast",
        "reduce",
        "allreduce",
        "gather",
        "scatter",
        "allgather",
        "alltoall",
        "reduce_scatter",
        "ibarrier",
        "comm_dup",
        "file_read_all_begin",
        "file_read_all_end",
    ];
    const TYPES: &[&str] = &["int", "double", "char"];
    const OPS: &[&str] = &["sum", "max", "min"];
    let mut r = Rng(seed.wrapping_mul(2_654_435_761).wrapping_add(12345));
    let n = 2 + r.below(4) as u32;
    let list = |v: &[u32], sep: &str| v.iter().map(u32::to_string).collect::<Vec<_>>().join(sep);
    let groups: [Vec<u32>; 3] = [
        (0..n).collect(),
        (0..n).filter(|&x| x + 1 < n || n == 2).collect(),
        (1..n).collect(),
    ];
    let mut text = format!(
        "ranks {n}\ncomm 1 members {}\ncomm 2 members {} name second\n",
        list(&groups[1], " "),
        list(&groups[2], " ")
    );
    let m = 1 + r.below(10) as usize;
    let base: Vec<(usize, usize, u64, u64)> = (0..m)
        .map(|_| {
            let c = r.below(3) as usize;
            let size = groups[c].len() as u64;
            (
                c,
                r.below(KINDS.len() as u64) as usize,
                r.below(size),
                r.below(3),
            )
        })
        .collect();
    let mut lines: Vec<Vec<String>> = Vec::new();
    let mut req = 100;
    for rank in 0..n {
        let mut mine = Vec::new();
        let stop = if r.chance(20) {
            r.below(m as u64 + 1) as usize
        } else {
            m
        };
        for (i, &(c, kind, root, v)) in base.iter().enumerate().take(stop) {
            if !groups[c].contains(&rank) || r.chance(4) {
                continue;
            }
            let kind = if r.chance(5) {
                r.below(KINDS.len() as u64) as usize
            } else {
                kind
            };
            let root = (root + u64::from(r.chance(7))) % groups[c].len() as u64;
            let t = TYPES[((v + u64::from(r.chance(7))) % 3) as usize];
            let op = OPS[((v + u64::from(r.chance(7))) % 3) as usize];
            let in_place = (v + u64::from(r.chance(7))) % 2;
            let args = match KINDS[kind] {
                "ibarrier" => {
                    req += 1;
                    format!("req={req}")
                }
                "comm_dup" => format!("agree=high:{in_place}"),
                "bcast" => format!("root={root} count=1 type={t}"),
                "reduce" => format!("root={root} count=1 type={t} op={op} inplace={in_place}"),
                "allreduce" => format!("count=2 type={t} op={op} inplace={in_place}"),
                "reduce_scatter" => format!(
                    "recvcounts={} type={t} op={op}",
                    list(&vec![1 + in_place as u32; groups[c].len()], ",")
                ),
                "gather" | "scatter" => format!(
                    "root={root} sendcount=1 sendtype={t} recvcount=1 recvtype=int inplace={in_place}"
                ),
                "allgather" | "alltoall" => {
                    format!("sendcount=1 sendtype={t} recvcount=1 recvtype=int inplace={in_place}")
                }
                _ => String::new(),
            };
            mine.push(format!(
                "{rank}: {} comm={c} {args} @ p.c:{}",
                KINDS[kind],
                10 + i
            ));
            if KINDS[kind] == "ibarrier" {
                mine.push(format!("{rank}: wait req={req} @ p.c:{}", 10 + i));
            }
        }
        match r.below(3) {
            0 => mine.push(format!("{rank}: finalize @ p.c:99")),
            1 => mine.push(format!("{rank}: blocked barrier comm=0 @ p.c:98")),
            _ => {}
        }
        lines.push(mine);
    }
    for mine in lines {
        for line in mine {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

/// The pass's findings and filled communicators when fed the events in `order` (a rank
/// per event, each rank's events in order).
fn run_pass(run: &Run, order: &[usize]) -> (String, Vec<CommId>) {
    let tables = RunTables::of(run);
    let mut pass: Box<dyn EventPass> = Box::<CollectivePass>::default();
    let mut next = vec![0; run.ranks.len()];
    for &r in order {
        let trace = &run.ranks[r];
        pass.event(trace.rank, next[r], &trace.events[next[r]], &tables);
        next[r] += 1;
    }
    let mut filled = Filled::default();
    let found = pass.finish_filling(&tables, &mut filled);
    (
        format!("{found:#?}"),
        filled.mismatched_comms.into_iter().collect(),
    )
}

#[test]
fn any_interleaving_of_the_ranks_gives_the_same_findings() {
    let mut compared = 0;
    let mut with_findings = 0;
    for seed in 0..400 {
        let text = random_trace(seed);
        let run = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let counts: Vec<usize> = run.ranks.iter().map(|t| t.events.len()).collect();
        // Rank after rank, as the registry feeds today.
        let in_order: Vec<usize> = (0..counts.len())
            .flat_map(|r| std::iter::repeat_n(r, counts[r]))
            .collect();
        let expected = run_pass(&run, &in_order);
        if expected.0 != "[]" {
            with_findings += 1;
        }
        // Last rank first, and random interleavings.
        let reversed: Vec<usize> = (0..counts.len())
            .rev()
            .flat_map(|r| std::iter::repeat_n(r, counts[r]))
            .collect();
        assert_eq!(run_pass(&run, &reversed), expected, "reversed:\n{text}");
        let mut rng = Rng(seed + 1);
        for _ in 0..4 {
            let mut left = counts.clone();
            let mut order = Vec::new();
            while left.iter().any(|&l| l > 0) {
                let live: Vec<usize> = (0..left.len()).filter(|&r| left[r] > 0).collect();
                let r = live[rng.below(live.len() as u64) as usize];
                left[r] -= 1;
                order.push(r);
            }
            assert_eq!(run_pass(&run, &order), expected, "{order:?}:\n{text}");
        }
        compared += 1;
    }
    assert_eq!(compared, 400);
    // The traces have faults: the comparison is not between empty findings.
    assert!(with_findings > 300, "{with_findings}");
}

fn call(rank: u32, kind: CollectiveKind) -> Call {
    Call {
        rank,
        site: SiteId(0),
        call: "MPI_Barrier",
        kind,
        class: 0,
        root: None,
        args: None,
    }
}

/// A run with the communicators of the bound test: world (4 ranks), {0, 1} and {1, 2, 3}.
fn three_comms() -> (Run, [Vec<u32>; 3]) {
    let groups = [vec![0, 1, 2, 3], vec![0, 1], vec![1, 2, 3]];
    let run = Run {
        comms: groups
            .iter()
            .enumerate()
            .map(|(i, members)| CommInfo {
                name: format!("comm {i}").into(),
                members: members.clone().into(),
                remote: None,
            })
            .collect(),
        ..Run::default()
    };
    (run, groups)
}

#[test]
fn the_aligner_holds_only_calls_some_member_has_not_made_yet() {
    let (run, groups) = three_comms();
    let tables = RunTables::of(&run);
    let mut aligner = Aligner::default();
    // 100 000 collectives, cycling over the communicators. The ranks interleaved as they
    // run: each makes its call of collective i at time i - lead, its lead over the others
    // (0 to 7 collectives) changing every thousand collectives or so.
    const COLLECTIVES: usize = 100_000;
    let mut calls: Vec<(usize, u32, usize)> = Vec::new();
    for i in 0..COLLECTIVES {
        for &rank in &groups[i % 3] {
            let lead = (i / 997 + rank as usize * 3) % 8;
            calls.push((i.saturating_sub(lead), rank, i));
        }
    }
    calls.sort_unstable();
    let mut completed = 0;
    for (_, rank, i) in calls {
        for position in aligner.add(
            CommId((i % 3) as u32),
            call(rank, CollectiveKind::Barrier),
            &tables,
        ) {
            assert_eq!(position.k, i / 3, "positions complete in order");
            assert_eq!(position.calls.len(), groups[i % 3].len());
            completed += 1;
        }
    }
    assert_eq!(completed, COLLECTIVES);
    assert_eq!(aligner.held(), 0);
    // A small count, whatever the length of the run: the calls of the ranks ahead.
    assert!(aligner.peak() <= 32, "held up to {} calls", aligner.peak());
    assert!(aligner
        .finish(&tables)
        .iter()
        .all(|rest| rest.calls.values().all(|c| c.1.is_empty())));
}

#[test]
fn fed_rank_after_rank_the_aligner_holds_the_first_ranks() {
    // The bound needs interleaved ranks: rank after rank, all of rank 0's calls wait for
    // rank 1's.
    let (run, _) = three_comms();
    let tables = RunTables::of(&run);
    let mut aligner = Aligner::default();
    for rank in 0..2 {
        for _ in 0..1000 {
            aligner.add(CommId(1), call(rank, CollectiveKind::Barrier), &tables);
        }
    }
    // Rank 0's 1000 calls, and rank 1's first, which completes the first position.
    assert_eq!(aligner.peak(), 1001);
    assert_eq!(aligner.held(), 0);
}

#[test]
fn positions_some_member_never_reached_are_left_at_the_end() {
    let (run, _) = three_comms();
    let tables = RunTables::of(&run);
    let mut aligner = Aligner::default();
    // Ranks 1 and 2 make two calls on {1, 2, 3}, rank 3 one.
    for rank in [1, 2, 1, 2, 3] {
        aligner.add(CommId(2), call(rank, CollectiveKind::Barrier), &tables);
    }
    assert_eq!(aligner.held(), 2);
    let rests = aligner.finish(&tables);
    assert_eq!(rests.len(), 1);
    let positions: Vec<_> = rests[0].positions().collect();
    assert_eq!(positions.len(), 1);
    assert_eq!(positions[0].k, 1);
    let ranks: Vec<u32> = positions[0].calls.iter().map(|c| c.rank).collect();
    assert_eq!(ranks, [1, 2]);
    assert_eq!(
        (rests[0].made(1), rests[0].made(3), rests[0].made(0)),
        (2, 1, 0)
    );
}

#[test]
fn a_freed_communicator_s_line_goes_once_no_call_is_held_on_it() {
    let (run, _) = three_comms();
    let tables = RunTables::of(&run);
    let mut aligner = Aligner::default();
    for rank in [0, 1, 0, 1] {
        aligner.add(CommId(1), call(rank, CollectiveKind::Barrier), &tables);
    }
    // Ranks 1 and 2 of {1, 2, 3} made a call rank 3 never makes.
    for rank in [1, 2, 1, 2, 3] {
        aligner.add(CommId(2), call(rank, CollectiveKind::Barrier), &tables);
    }
    assert_eq!(aligner.lines(), 2);
    assert!(aligner.freed(CommId(1)));
    assert!(
        !aligner.freed(CommId(2)),
        "its call left is reported at the end"
    );
    assert_eq!(aligner.lines(), 1);
    let rests = aligner.finish(&tables);
    assert_eq!(rests.len(), 1);
    assert_eq!(rests[0].positions().count(), 1);
}
