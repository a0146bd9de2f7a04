//! Property tests of the replay engine: generated deadlock-free programs replay to
//! completion under the strict rules; a planted cycle is found, with its ranks in the
//! wait-for graph.

use mpicheck_analyzer::checks::run_all;
use mpicheck_analyzer::engine::{replay, Mode, ReplayOptions};
use mpicheck_analyzer::text_trace::parse;
use mpicheck_analyzer::waitfor;
use proptest::prelude::*;

/// One step of a generated program, executed by its participants in the global order.
#[derive(Clone, Debug)]
enum Step {
    /// `a` sends first then receives, `b` receives first then sends.
    Exchange { a: u32, b: u32, sync: bool },
    /// Both post Irecv + Isend and complete them with one Waitall.
    NonblockingExchange { a: u32, b: u32 },
    /// `MPI_Sendrecv` both ways.
    Sendrecv { a: u32, b: u32 },
    /// Every rank, same order.
    Collective { kind: &'static str, root: u32 },
}

fn step(n: u32) -> impl Strategy<Value = Step> {
    let pair = (0..n, 1..n).prop_map(move |(a, d)| (a, (a + d) % n));
    prop_oneof![
        (pair.clone(), any::<bool>()).prop_map(|((a, b), sync)| Step::Exchange { a, b, sync }),
        pair.clone()
            .prop_map(|(a, b)| Step::NonblockingExchange { a, b }),
        pair.prop_map(|(a, b)| Step::Sendrecv { a, b }),
        (
            prop::sample::select(vec![
                "barrier",
                "bcast",
                "allreduce",
                "gather",
                "reduce",
                "scan"
            ]),
            0..n
        )
            .prop_map(|(kind, root)| Step::Collective { kind, root }),
    ]
}

fn program() -> impl Strategy<Value = (u32, Vec<Step>)> {
    (2u32..7).prop_flat_map(|n| (Just(n), prop::collection::vec(step(n), 1..24)))
}

/// Text trace of the program; `reverse` makes step `reverse`'s `b` send first too (a
/// planted send/send cycle, when that step is a blocking exchange).
fn render(n: u32, steps: &[Step], reverse: Option<usize>) -> String {
    let mut out = format!("ranks {n}\n");
    let mut req = vec![0u32; n as usize];
    for (i, s) in steps.iter().enumerate() {
        let tag = i as i32;
        match *s {
            Step::Exchange { a, b, sync } => {
                let send = if sync { "ssend" } else { "send" };
                out += &format!("{a}: {send} dest={b} tag={tag} @ p.c:{}\n", 100 + i);
                out += &format!("{a}: recv src={b} tag={tag} @ p.c:{}\n", 200 + i);
                if reverse == Some(i) {
                    out += &format!("{b}: {send} dest={a} tag={tag} @ p.c:{}\n", 300 + i);
                    out += &format!("{b}: recv src={a} tag={tag} @ p.c:{}\n", 400 + i);
                } else {
                    out += &format!("{b}: recv src={a} tag={tag} @ p.c:{}\n", 400 + i);
                    out += &format!("{b}: {send} dest={a} tag={tag} @ p.c:{}\n", 300 + i);
                }
            }
            Step::NonblockingExchange { a, b } => {
                for (me, peer) in [(a, b), (b, a)] {
                    let r = req[me as usize];
                    req[me as usize] += 2;
                    out += &format!("{me}: irecv src={peer} tag={tag} req={r}\n");
                    out += &format!("{me}: issend dest={peer} tag={tag} req={}\n", r + 1);
                    out += &format!("{me}: waitall reqs={},{}\n", r, r + 1);
                }
            }
            Step::Sendrecv { a, b } => {
                out += &format!("{a}: sendrecv dest={b} sendtag={tag} src={b} recvtag={tag}\n");
                out += &format!("{b}: sendrecv dest={a} sendtag={tag} src={a} recvtag={tag}\n");
            }
            Step::Collective { kind, root } => {
                let root = if matches!(kind, "bcast" | "gather" | "reduce") {
                    format!(" root={root}")
                } else {
                    String::new()
                };
                out += &format!("*: {kind}{root}\n");
            }
        }
    }
    out += "*: finalize\n";
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn deadlock_free_programs_complete((n, steps) in program()) {
        let run = parse(&render(n, &steps, None)).unwrap();
        for mode in [Mode::Recorded, Mode::Strict] {
            let r = replay(&run, &ReplayOptions::new(mode));
            prop_assert!(r.completed(), "{mode:?}: stuck {:?}", r.stuck);
        }
        let findings = run_all(&run);
        prop_assert!(findings.is_empty(), "{findings:#?}");
    }

    #[test]
    fn a_planted_cycle_is_found((n, mut steps) in program(), at in any::<prop::sample::Index>(), sync in any::<bool>()) {
        // Plant a blocking exchange whose second rank sends first too.
        let i = at.index(steps.len());
        let (a, b) = (i as u32 % n, (i as u32 + 1) % n);
        steps[i] = Step::Exchange { a, b, sync };
        let run = parse(&render(n, &steps, Some(i))).unwrap();
        let program = mpicheck_analyzer::engine::Program::from_run(&run);
        let strict = mpicheck_analyzer::engine::replay_program(&program, &ReplayOptions::new(Mode::Strict));
        prop_assert!(!strict.completed());
        let set = waitfor::deadlocked(&program, &strict);
        let core: Vec<u32> = set.core.iter().map(|&k| strict.stuck[k].rank).collect();
        prop_assert!(core.contains(&a) && core.contains(&b), "core {core:?}, a={a} b={b}");
        if !sync {
            // Standard sends: the recorded run completes (buffered), the finding is DL002
            // with the cycle's ranks in its wait-for graph.
            let findings = run_all(&run);
            let dl = findings.iter().find(|d| d.code == "DL002");
            prop_assert!(dl.is_some(), "{findings:#?}");
            let g = dl.unwrap().wait_for.as_ref().unwrap();
            let in_cycle: Vec<u32> = g.nodes.iter().filter(|n| n.in_cycle).flat_map(|n| n.ranks.iter().copied()).collect();
            prop_assert!(in_cycle.contains(&a) && in_cycle.contains(&b), "{g:?}");
        }
    }
}
