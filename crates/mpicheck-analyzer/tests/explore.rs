//! Alternative matchings of wildcard receives played out from one strict replay
//! (`engine/explore.rs`) give what a replay forced from the start gives.

use std::fmt::Write;

use mpicheck_analyzer::engine::{
    explore_alternatives, replay_program, Alternative, ForcedMatch, Mode, Program, Replay,
    ReplayOptions,
};
use mpicheck_analyzer::text_trace::parse;

/// The strict replay's options as the checks make them (`Context::strict_options`).
fn strict_options(program: &Program) -> ReplayOptions {
    let recorded = replay_program(program, &ReplayOptions::new(Mode::Recorded));
    ReplayOptions {
        never_received: std::sync::Arc::new(
            recorded
                .unreceived
                .iter()
                .map(|u| (u.rank, u.event as u32))
                .collect(),
        ),
        ..ReplayOptions::new(Mode::Strict)
    }
}

/// Every other source of every race of the recorded replay.
fn alternatives(program: &Program) -> Vec<ForcedMatch> {
    let recorded = replay_program(program, &ReplayOptions::new(Mode::Recorded));
    recorded
        .races
        .iter()
        .flat_map(|race| {
            race.candidates
                .iter()
                .filter(|c| c.0 != race.matched)
                .map(|&(source, _)| ForcedMatch {
                    rank: race.rank,
                    event: race.event,
                    source,
                })
        })
        .collect()
}

/// How the alternatives of `text` played out: (completed early, played to the end, left
/// to a replay from the start), each checked against a replay forced from the start.
fn played_out(text: &str) -> (usize, usize, usize) {
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let program = Program::from_run(&run);
    let options = strict_options(&program);
    let alternatives = alternatives(&program);
    assert!(!alternatives.is_empty(), "the program has races");
    let outcomes = explore_alternatives(&program, &options, &alternatives);
    assert_eq!(outcomes.len(), alternatives.len());
    let mut counts = (0, 0, 0);
    for (forced, outcome) in alternatives.iter().zip(outcomes) {
        let from_start: Replay = replay_program(
            &program,
            &ReplayOptions {
                forced: Some(*forced),
                ..options.clone()
            },
        );
        match outcome {
            Some(Alternative::Completes) => {
                assert!(
                    from_start.completed() && from_start.forced_matched == Some(true),
                    "{forced:?} said to complete, but from the start: {from_start:#?}"
                );
                counts.0 += 1;
            }
            Some(Alternative::Replay(replay)) => {
                assert_eq!(
                    format!("{replay:#?}"),
                    format!("{from_start:#?}"),
                    "{forced:?}"
                );
                counts.1 += 1;
            }
            None => counts.2 += 1,
        }
    }
    counts
}

/// Rank 0 takes one message from each worker per round with `MPI_ANY_SOURCE`, `rounds`
/// times, with a barrier every `barrier_every` rounds; `blocking`: receives, else irecvs
/// completed by one waitall.
fn master_worker(workers: u32, rounds: u32, barrier_every: u32, blocking: bool) -> String {
    let mut t = format!("ranks {}\n", workers + 1);
    for round in 0..rounds {
        for w in 1..=workers {
            writeln!(t, "{w}: send dest=0 tag=0").unwrap();
        }
        // The recorded run took the workers in reverse order.
        if blocking {
            for w in (1..=workers).rev() {
                writeln!(t, "0: recv src=any tag=0 matched={w}").unwrap();
            }
        } else {
            for k in 0..workers {
                writeln!(t, "0: irecv src=any tag=0 req={k}").unwrap();
            }
            for (k, w) in (1..=workers).rev().enumerate() {
                writeln!(t, "0: wait req={k} matched={w}").unwrap();
            }
        }
        if round % barrier_every == barrier_every - 1 {
            writeln!(t, "*: barrier").unwrap();
        }
    }
    t
}

/// Rounds of a PETSc assembly's exchange: every rank posts a receive from `MPI_ANY_SOURCE`
/// for each other rank, sends to each, and completes all with one waitall.
fn exchange_rounds(ranks: u32, rounds: u32) -> String {
    let mut t = format!("ranks {ranks}\n");
    for _ in 0..rounds {
        for r in 0..ranks {
            let others: Vec<u32> = (0..ranks).filter(|&o| o != r).collect();
            // The recorded run took the senders in reverse order.
            for (k, o) in others.iter().rev().enumerate() {
                writeln!(t, "{r}: irecv src=any tag=0 req={k} matched={o}").unwrap();
            }
            for (k, o) in others.iter().enumerate() {
                writeln!(t, "{r}: isend dest={o} tag=0 req={}", 100 + k).unwrap();
            }
            let reqs: Vec<String> = (0..others.len())
                .chain(100..100 + others.len())
                .map(|k| k.to_string())
                .collect();
            writeln!(t, "{r}: waitall reqs={}", reqs.join(",")).unwrap();
        }
    }
    t
}

#[test]
fn an_exchange_round_gets_back_though_its_requests_took_other_slots() {
    // Taking the messages of a round in another order frees the requests' slots in
    // another order; the states are the same once the round is over.
    let rounds = 12;
    let (early, to_end, left) = played_out(&exchange_rounds(3, rounds));
    assert_eq!(left, 0);
    assert!(
        early >= 3 * (rounds as usize - 2),
        "{early} early, {to_end} to the end"
    );
    assert!(to_end <= 2 * 3, "{early} early, {to_end} to the end");
}

#[test]
fn a_master_worker_round_gets_back_to_the_strict_replay() {
    // Each alternative order of the messages is over within a few receives (the workers
    // run ahead to the barrier, so rounds race with each other too).
    let (early, to_end, left) = played_out(&master_worker(2, 40, 10, true));
    assert_eq!((to_end, left), (0, 0));
    assert!(early >= 40, "{early}");
    let (early, to_end, left) = played_out(&master_worker(3, 12, 4, true));
    assert_eq!((to_end, left), (0, 0));
    assert!(early >= 12 * 2, "{early}");
}

#[test]
fn nonblocking_receives_completed_by_waits_get_back_too() {
    let (early, to_end, left) = played_out(&master_worker(2, 30, 5, false));
    assert_eq!(left, 0);
    assert!(early >= 30, "{early} early, {to_end} to the end");
}

#[test]
fn an_alternative_that_deadlocks_is_replayed_to_its_end() {
    // DL003's example: if the wildcard takes rank 2's message, the receive from rank 2
    // waits forever. Preceded by rounds, so that the copy is made mid-run.
    let mut text = master_worker(2, 20, 5, true);
    text.push_str(
        "0: recv src=any tag=7 matched=1
         0: recv src=2 tag=7
         1: send dest=0 tag=7
         2: send dest=0 tag=7
         *: finalize",
    );
    let (early, to_end, left) = played_out(&text);
    assert_eq!(left, 0);
    assert!(early >= 20, "{early}");
    assert_eq!(to_end, 1);
}

#[test]
fn a_forced_source_that_never_sends_again_is_replayed_to_its_end() {
    // Rank 1 sends once, rank 2 twice: taking rank 1's message second leaves the last
    // wildcard receive nothing from it, a different end than the run's.
    let text = "ranks 3
        1: send dest=0 tag=0
        2: send dest=0 tag=0
        2: send dest=0 tag=0
        0: recv src=any tag=0 matched=2
        0: recv src=any tag=0 matched=2
        0: recv src=any tag=0 matched=1
        *: finalize";
    let (early, to_end, left) = played_out(text);
    assert_eq!(left, 0);
    assert!(early + to_end >= 1);
}

#[test]
fn persistent_wildcard_receives_are_played_out_to_the_end() {
    // Each start posts the persistent receive again under its first event: a replay
    // forced from the start forces every one of them.
    let mut text = String::from(
        "ranks 3
         0: recv_init src=any tag=0 req=0\n",
    );
    for _ in 0..6 {
        text.push_str(
            "1: send dest=0 tag=0
             2: send dest=0 tag=0
             0: start req=0
             0: wait req=0 matched=2
             0: start req=0
             0: wait req=0 matched=1\n",
        );
    }
    text.push_str("0: request_free req=0\n*: finalize");
    let (early, to_end, left) = played_out(&text);
    assert_eq!(early, 0, "a persistent receive never stops early");
    assert!(to_end + left > 0);
}

#[test]
fn a_persistent_receive_forced_again_later_is_played_to_its_end() {
    // Forced to rank 2, the persistent receive's first round still completes (the other
    // wildcard takes rank 1's message), and at the tag-5 receive the state is the strict
    // replay's again; but the next start is forced to rank 2 too, which sends no more:
    // stuck. Only a replay to the end says so.
    let text = "ranks 3
        0: recv_init src=any tag=0 req=0
        1: send dest=0 tag=0
        2: send dest=0 tag=0
        0: start req=0
        0: wait req=0 matched=1
        0: recv src=any tag=0 matched=2
        1: send dest=0 tag=5
        0: recv src=any tag=5 matched=1
        1: send dest=0 tag=0
        0: start req=0
        0: wait req=0 matched=1
        0: request_free req=0
        *: finalize";
    let (_, to_end, left) = played_out(text);
    assert_eq!(left, 0);
    assert!(to_end >= 1);
}

#[test]
fn in_a_large_world_fewer_alternatives_play_at_once_with_the_same_outcomes() {
    // 40,000 ranks (three of them talk, on their own communicator): only 26 copies of
    // the replay may live at once. The alternatives get back to the strict replay only at
    // the barrier at the end, so those made while 26 play are played out alone.
    let mut text = String::from("ranks 40000\ncomm 1 members 0 1 2\n");
    for round in 0..40 {
        text.push_str("1-2: send dest=0 tag=0 comm=1\n");
        text.push_str("0: recv src=any tag=0 comm=1 matched=2\n");
        text.push_str("0: recv src=any tag=0 comm=1 matched=1\n");
        if round == 39 {
            text.push_str("0-2: barrier comm=1\n");
        }
    }
    let (early, to_end, left) = played_out(&text);
    assert_eq!(left, 0);
    assert!(
        early > 0 && to_end > 0,
        "{early} early, {to_end} to the end"
    );
}
