//! Polling ranks in a hang.
//!
//! A thread that calls `MPI_Test*` or `MPI_Iprobe` in a loop and never succeeds waits as surely
//! as one blocked in the `MPI_Wait*` or `MPI_Probe` it stands for, but its trace shows only
//! calls that returned. When the launcher has seen such a thread do nothing but poll for the
//! whole deadlock timeout, [`block_trailing_polls`] models its last poll as that blocking call,
//! not returned, so the deadlock analysis can prove that no polled operation can ever
//! complete (and name the loop's call site), or find that one can.

use std::collections::BTreeSet;

use crate::model::{Op, RankTrace, ReqId, WaitKind};

/// A test that completed no request, or a nonblocking probe that found no message.
pub fn is_unsuccessful_poll(op: &Op) -> bool {
    match op {
        Op::Wait {
            test: true,
            completed,
            ..
        } => completed.as_ref().is_some_and(|done| done.is_empty()),
        Op::Probe {
            blocking: false,
            found,
            ..
        } => *found == Some(false),
        _ => false,
    }
}

/// The calls that only ask whether something happened (tests, nonblocking probes, request
/// status queries): a thread that repeats them unsuccessfully waits. The one list of them:
/// the run's watcher reads it too, and a test checks that the recorder's generator
/// (`POLL_UNSUCCESSFUL` in `gen/c_wrappers.py`) folds the same calls.
pub const POLL_CALLS: &[&str] = &[
    "MPI_Test",
    "MPI_Testany",
    "MPI_Testall",
    "MPI_Testsome",
    "MPI_Iprobe",
    "MPI_Improbe",
    "MPI_Request_get_status",
    "MPI_Request_get_status_any",
    "MPI_Request_get_status_all",
    "MPI_Request_get_status_some",
    "MPI_Win_test",
];

/// Whether the MPI function `name` polls (see [`POLL_CALLS`]).
pub fn is_poll_call(name: &str) -> bool {
    POLL_CALLS.contains(&name)
}

/// A test or a nonblocking probe, whatever it found.
pub(crate) fn is_poll(op: &Op) -> bool {
    matches!(
        op,
        Op::Wait { test: true, .. }
            | Op::Probe {
                blocking: false,
                ..
            }
    )
}

/// Models the trailing unsuccessful polls of `thread` as the one blocking call they stand for,
/// replacing the last of them: tests of one request set become the wait of that kind (tests
/// of several sets: a wait for any of their requests, enough to prove that none completes),
/// repeated identical probes a blocking probe. Returns false, leaving the trace as it was,
/// when the thread's last call is not an unsuccessful poll, or its polls mix probes with
/// tests or differ in what they probe for (no single blocking call stands for them).
pub fn block_trailing_polls(rank: &mut RankTrace, thread: u16) -> bool {
    if block_trailing_win_tests(rank, thread) {
        return true;
    }
    let mut thread_events = rank
        .events
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, e)| e.thread == thread)
        .peekable();
    // The trace may have been read while the thread was inside its next poll.
    let in_flight = thread_events
        .next_if(|(_, e)| !e.returned && is_poll(&e.op))
        .map(|(i, _)| i);
    let polls: Vec<usize> = in_flight
        .into_iter()
        .chain(
            thread_events
                .take_while(|(_, e)| e.returned && is_unsuccessful_poll(&e.op))
                .map(|(i, _)| i),
        )
        .collect();
    let Some(&last) = polls.first() else {
        return false;
    };
    let blocking = match &rank.events[last].op {
        Op::Wait { .. } => wait_for_tests(polls.iter().map(|&i| &rank.events[i].op)),
        Op::Probe { .. } => {
            let same = polls
                .iter()
                .all(|&i| same_probe(&rank.events[i].op, &rank.events[last].op));
            same.then(|| match rank.events[last].op.clone() {
                Op::Probe {
                    source,
                    tag,
                    comm,
                    matched_probe,
                    ..
                } => Op::Probe {
                    source,
                    tag,
                    comm,
                    blocking: true,
                    matched_probe,
                    found: None,
                    matched: None,
                },
                _ => unreachable!("checked above"),
            })
        }
        _ => None,
    };
    let Some(op) = blocking else {
        return false;
    };
    let event = &mut rank.events[last];
    event.op = op;
    event.returned = false;
    true
}

/// A loop of `MPI_Win_test` stands for `MPI_Win_wait`: its last call is marked as not
/// returned, which the replay models as the wait (`engine/rma.rs`); the flags the tests
/// returned are in the run's RMA calls, not in the events.
fn block_trailing_win_tests(rank: &mut RankTrace, thread: u16) -> bool {
    let last = rank
        .events
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| e.thread == thread)
        .map(|(i, _)| i);
    match last {
        Some(i) if rank.events[i].call == "MPI_Win_test" => {
            rank.events[i].returned = false;
            true
        }
        _ => false,
    }
}

/// The wait that stands for a run of unsuccessful tests, or None if they are not all tests.
fn wait_for_tests<'a>(tests: impl Iterator<Item = &'a Op>) -> Option<Op> {
    let mut polled: Vec<(WaitKind, Vec<ReqId>)> = Vec::new();
    for op in tests {
        let Op::Wait { requests, kind, .. } = op else {
            return None;
        };
        polled.push((*kind, requests.iter().flatten().copied().collect()));
    }
    let all: BTreeSet<ReqId> = polled.iter().flat_map(|(_, r)| r.iter().copied()).collect();
    if all.is_empty() {
        return None; // tests of null requests only: nothing to wait for
    }
    let (first_kind, first_set) = &polled[0];
    let repeated = polled
        .iter()
        .all(|(kind, set)| kind == first_kind && set == first_set);
    let kind = match first_kind {
        WaitKind::All if repeated => WaitKind::All,
        WaitKind::One if repeated && all.len() == 1 => WaitKind::One,
        _ => WaitKind::Any,
    };
    Some(Op::Wait {
        requests: all.into_iter().map(Some).collect(),
        kind,
        test: false,
        completed: None,
    })
}

fn same_probe(a: &Op, b: &Op) -> bool {
    match (a, b) {
        (
            Op::Probe {
                source: s1,
                tag: t1,
                comm: c1,
                matched_probe: m1,
                ..
            },
            Op::Probe {
                source: s2,
                tag: t2,
                comm: c2,
                matched_probe: m2,
                ..
            },
        ) => s1 == s2 && t1 == t2 && c1 == c2 && m1 == m2,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::actual_deadlock;
    use crate::text_trace::parse;

    /// The generator's folded polls (its `POLL_UNSUCCESSFUL` entries with a condition on
    /// what the call found; the others are queries) are polls here too, and the other way
    /// round, but for the MPI 5 request status calls it does not fold yet.
    #[test]
    fn the_recorder_folds_the_calls_that_poll() {
        let generator = include_str!("../../mpicheck-interpose/gen/c_wrappers.py");
        let table = generator
            .split_once("POLL_UNSUCCESSFUL = {")
            .and_then(|(_, rest)| rest.split_once('}'))
            .expect("POLL_UNSUCCESSFUL in c_wrappers.py")
            .0;
        let mut folded: Vec<&str> = table
            .lines()
            .filter_map(|line| line.trim().split_once(':'))
            .filter(|(_, condition)| condition.trim() != "\"1\",")
            .map(|(name, _)| name.trim_matches('"'))
            .collect();
        folded.sort_unstable();
        let mut polls: Vec<&str> = POLL_CALLS
            .iter()
            .copied()
            .filter(|n| !n.starts_with("MPI_Request_get_status_"))
            .collect();
        polls.sort_unstable();
        assert_eq!(folded, polls);
    }

    /// Rank 0 polls the receive rank 1 never sends, rank 1 waits for rank 0's message.
    const TEST_LOOP: &str = "ranks 2
        0: irecv src=1 tag=7 req=1 @ poll.c:10
        0: test req=1 @ poll.c:12
        0: test req=1 @ poll.c:12
        0: test req=1 @ poll.c:12
        0: end interrupted still running
        1: blocked recv src=0 tag=3 @ poll.c:20";

    #[test]
    fn a_test_loop_that_cannot_succeed_is_a_deadlock() {
        let mut run = parse(TEST_LOOP).unwrap();
        assert!(actual_deadlock(&run).is_none(), "polls alone prove nothing");
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        let last = run.ranks[0].events.last().unwrap();
        assert!(!last.returned);
        assert!(matches!(
            &last.op,
            Op::Wait {
                kind: WaitKind::One,
                test: false,
                ..
            }
        ));
        let deadlock = actual_deadlock(&run).expect("the loop waits forever");
        assert_eq!(deadlock.code, "DL001");
        let lines: Vec<_> = deadlock.locations.iter().map(|l| l.line).collect();
        assert!(
            lines.contains(&Some(12)),
            "the polling call is named: {lines:?}"
        );
    }

    #[test]
    fn a_test_loop_whose_message_is_on_its_way_is_no_deadlock() {
        // Rank 1 sent the message before blocking: the next test succeeds.
        let live = "ranks 2
            0: irecv src=1 tag=7 req=1
            0: test req=1
            0: test req=1
            0: end interrupted still running
            1: isend dest=0 tag=7 req=1
            1: blocked recv src=0 tag=3";
        let mut run = parse(live).unwrap();
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        assert!(actual_deadlock(&run).is_none());
    }

    #[test]
    fn an_iprobe_loop_becomes_a_probe() {
        let probe_loop = "ranks 2
            0: iprobe src=any tag=5
            0: end interrupted still running
            1: blocked recv src=0 tag=3";
        let mut run = parse(probe_loop).unwrap();
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        assert!(matches!(
            run.ranks[0].events.last().unwrap().op,
            Op::Probe { blocking: true, .. }
        ));
        assert!(actual_deadlock(&run).is_some());
    }

    #[test]
    fn tests_of_different_requests_wait_for_any_of_them() {
        let two = "ranks 2
            0: irecv src=1 tag=1 req=1
            0: irecv src=1 tag=2 req=2
            0: test req=1
            0: test req=2
            0: testany reqs=1,2
            0: end interrupted still running
            1: blocked recv src=0 tag=3";
        let mut run = parse(two).unwrap();
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        match &run.ranks[0].events.last().unwrap().op {
            Op::Wait { requests, kind, .. } => {
                assert_eq!(*kind, WaitKind::Any);
                assert_eq!(requests.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(actual_deadlock(&run).is_some());
    }

    #[test]
    fn what_is_not_a_plain_polling_loop_is_left_alone() {
        let cases = [
            // The last call succeeded.
            "ranks 1\n0: irecv src=0 tag=1 req=1\n0: test req=1 flag=1",
            // Probes mixed with tests.
            "ranks 1\n0: irecv src=0 tag=1 req=1\n0: test req=1\n0: iprobe src=any tag=1",
            // Different probes.
            "ranks 1\n0: iprobe src=any tag=1\n0: iprobe src=any tag=2",
            // Not a poll at all.
            "ranks 1\n0: barrier",
        ];
        for case in cases {
            let mut run = parse(case).unwrap();
            let before = run.clone();
            assert!(!block_trailing_polls(&mut run.ranks[0], 0), "{case}");
            assert_eq!(run, before, "{case}");
        }
    }

    #[test]
    fn a_poll_in_flight_when_the_trace_was_read_counts_as_one_more() {
        let mut run = parse(TEST_LOOP).unwrap();
        let mut in_flight = run.ranks[0].events.last().unwrap().clone();
        in_flight.returned = false;
        if let Op::Wait { completed, .. } = &mut in_flight.op {
            *completed = None;
        }
        run.ranks[0].events.push(in_flight);
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        assert!(actual_deadlock(&run).is_some());
    }

    #[test]
    fn only_the_polling_threads_calls_count() {
        // Thread 1's barrier after thread 0's polls does not end thread 0's loop.
        let mut run = parse(TEST_LOOP).unwrap();
        let mut other = run.ranks[0].events[0].clone();
        other.thread = 1;
        other.op = Op::Other;
        run.ranks[0].events.push(other);
        assert!(block_trailing_polls(&mut run.ranks[0], 0));
        assert!(!block_trailing_polls(&mut run.ranks[0], 1));
    }
}
