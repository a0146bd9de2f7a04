//! One test per matching/completion rule of the replay engine, on hand-written traces.

use mpicheck_analyzer::checks::{run_all, run_all_in_every_order};
use mpicheck_analyzer::diagnostic::WaitSemantics;
use mpicheck_analyzer::engine::{
    replay, ForcedMatch, Mode, RankOutcome, Replay, ReplayOptions, WaitCond,
};
use mpicheck_analyzer::model::Run;
use mpicheck_analyzer::text_trace::parse;

fn run(text: &str) -> Run {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn replay_mode(text: &str, mode: Mode) -> Replay {
    replay(&run(text), &ReplayOptions::new(mode))
}

fn stuck_ranks(r: &Replay) -> Vec<u32> {
    r.stuck.iter().map(|s| s.rank).collect()
}

fn codes(text: &str) -> Vec<&'static str> {
    run_all_in_every_order(&run(text))
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn messages_from_one_sender_do_not_overtake() {
    // The ANY_TAG receive takes the first message (tag 1); the tag-1 receive after it
    // then has nothing left.
    let text = "ranks 2
        0: isend dest=1 tag=1 req=0
        0: isend dest=1 tag=2 req=1
        0: waitall reqs=0,1
        1: recv src=0 tag=any
        1: recv src=0 tag=1";
    let r = replay_mode(text, Mode::Recorded);
    assert_eq!(stuck_ranks(&r), vec![1]);
    assert_eq!(r.stuck[0].event, 1);
}

#[test]
fn tags_select_among_messages_of_one_sender() {
    let text = "ranks 2
        0: isend dest=1 tag=1 req=0
        0: isend dest=1 tag=2 req=1
        0: waitall reqs=0,1
        1: recv src=0 tag=2
        1: recv src=0 tag=1";
    assert!(replay_mode(text, Mode::Strict).completed());
    let mismatched = "ranks 2\n0: send dest=1 tag=4\n1: recv src=0 tag=3";
    let r = replay_mode(mismatched, Mode::Recorded);
    assert_eq!(stuck_ranks(&r), vec![1]);
}

#[test]
fn wildcard_receive_takes_the_recorded_source_and_reports_the_race() {
    let text = "ranks 3
        1-2: send dest=0 tag=0
        0: recv src=any tag=0 matched=2
        0: recv src=any tag=0 matched=1";
    let r = replay_mode(text, Mode::Recorded);
    assert!(r.completed());
    assert_eq!(r.races.len(), 1, "{:?}", r.races);
    assert_eq!(r.races[0].matched, 2);
    assert_eq!(
        r.races[0]
            .candidates
            .iter()
            .map(|c| c.0)
            .collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert!(codes(text).contains(&"MR001"));
}

#[test]
fn a_wildcard_with_one_possible_sender_is_no_race() {
    let text = "ranks 3
        1: send dest=0 tag=0
        0: recv src=any tag=0 matched=1
        0: send dest=2 tag=0
        2: recv src=0 tag=0
        2: send dest=0 tag=0
        0: recv src=any tag=0 matched=2";
    assert!(codes(text).is_empty(), "{:?}", codes(text));
}

#[test]
fn a_probe_does_not_consume_and_a_matched_probe_does() {
    let ok = "ranks 2
        0: send dest=1 tag=1
        1: probe src=0 tag=1
        1: probe src=any tag=1
        1: recv src=0 tag=1";
    assert!(replay_mode(ok, Mode::Strict).completed());
    let consumed = "ranks 2
        0: send dest=1 tag=1
        1: mprobe src=0 tag=1
        1: mrecv
        1: probe src=0 tag=1";
    let r = replay_mode(consumed, Mode::Recorded);
    assert_eq!(stuck_ranks(&r), vec![1]);
    assert_eq!(r.stuck[0].event, 2);
}

#[test]
fn polling_probes_and_tests_never_block() {
    let text = "ranks 2
        1: iprobe src=0 tag=0 found=0
        1: irecv src=0 tag=0 req=0
        1: test req=0 flag=0
        1: test req=0 flag=0
        1: barrier
        1: test req=0 flag=1
        0: barrier
        0: ssend dest=1 tag=0";
    // If a failed test blocked, rank 1 would wait for the message before the barrier that
    // rank 0 must pass before sending it.
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn a_test_that_ends_a_polling_loop_waits_like_a_wait() {
    let text = "ranks 2
        1: irecv src=0 tag=0 req=0
        1: test req=0 flag=0
        1: test req=0 flag=1";
    let r = replay_mode(text, Mode::Recorded);
    assert_eq!(stuck_ranks(&r), vec![1]);
    assert_eq!(r.stuck[0].event, 2);
}

#[test]
fn a_single_test_that_succeeds_waits_for_nothing() {
    // BLACS: MPI_Testall tells whether a send buffer is free; if not, BLACS takes another.
    // Had the sends not completed, the program would have gone on all the same: no rank
    // waits for the other before its receive.
    for test in [
        "testall reqs=0 flag=1",
        "test req=0 flag=1",
        "testany reqs=0 index=0",
        "testsome reqs=0 indices=0",
        "request_get_status req=0 flag=1",
        "request_get_status_all reqs=0 flag=1",
    ] {
        let text = format!(
            "ranks 2
             0: isend dest=1 tag=0 req=0
             1: isend dest=0 tag=0 req=0
             *: {test}
             0: recv src=1 tag=0
             1: recv src=0 tag=0
             *: wait req=null
             *: finalize"
        );
        assert!(replay_mode(&text, Mode::Strict).completed(), "{test}");
        assert_eq!(codes(&text), Vec::<&str>::new(), "{test}");
    }
    // The same test at the end of a polling loop waits: both ranks poll their sends until
    // the other receives, which it does only after its own loop.
    let looped = "ranks 2
        0: isend dest=1 tag=0 req=0
        1: isend dest=0 tag=0 req=0
        *: testall reqs=0 flag=0
        *: testall reqs=0 flag=1
        0: recv src=1 tag=0
        1: recv src=0 tag=0
        *: finalize";
    assert_eq!(stuck_ranks(&replay_mode(looped, Mode::Strict)), vec![0, 1]);
    assert_eq!(codes(looped), vec!["DL002"]);
}

#[test]
fn a_rank_past_a_test_of_a_send_never_received_unbuffered_is_no_deadlock_evidence() {
    // Each rank tests its second send once (found complete: MPI buffered it), then waits
    // for its first, and receives the other's two only after. Unbuffered, the test fails
    // (the other rank receives only later) and the program would poll on: the strict
    // replay's cycle of waits is on a path that program never takes.
    let passed = "ranks 2
        0: isend dest=1 tag=1 req=0
        1: isend dest=0 tag=1 req=0
        0: isend dest=1 tag=2 req=1
        1: isend dest=0 tag=2 req=1
        *: test req=1 flag=1
        *: wait req=0
        0: recv src=1 tag=1
        1: recv src=0 tag=1
        0: recv src=1 tag=2
        1: recv src=0 tag=2
        *: finalize";
    let strict = replay_mode(passed, Mode::Strict);
    assert_eq!(stuck_ranks(&strict), vec![0, 1]);
    assert_eq!(strict.passed_unseen, vec![0, 1]);
    assert_eq!(codes(passed), Vec::<&str>::new());
    // When the replay does complete what the test found (the other rank receives it before
    // it blocks), the test could have succeeded unbuffered too: the send-send cycle after
    // it is reported.
    let completed = "ranks 2
        0: isend dest=1 tag=0 req=0
        0: test req=0 flag=1
        1: recv src=0 tag=0
        0: send dest=1 tag=1
        1: send dest=0 tag=1
        0: recv src=1 tag=1
        1: recv src=0 tag=1
        *: finalize";
    let strict = replay_mode(completed, Mode::Strict);
    assert_eq!(stuck_ranks(&strict), vec![0, 1]);
    assert!(strict.passed_unseen.is_empty());
    assert_eq!(codes(completed), vec!["DL002"]);
}

#[test]
fn a_single_probe_that_finds_a_message_waits_for_nothing() {
    // The probing rank receives the message only because it was there, then joins the
    // broadcast whose root sends it: with a synchronizing broadcast the probe would have
    // found nothing and the receive would have come later.
    let single = "ranks 2
        1: bcast root=1
        1: send dest=0 tag=1
        0: iprobe src=1 tag=1 found=1 matched=1:1
        0: recv src=1 tag=1
        0: bcast root=1
        *: finalize";
    assert!(replay_mode(single, Mode::Strict).completed());
    assert_eq!(codes(single), Vec::<&str>::new());
    let matched = "ranks 2
        1: bcast root=1
        1: send dest=0 tag=1
        0: improbe src=1 tag=1 found=1 matched=1:1
        0: mrecv
        0: bcast root=1
        *: finalize";
    assert!(replay_mode(matched, Mode::Strict).completed());
    assert_eq!(codes(matched), Vec::<&str>::new());
    // A probe loop that ends with the message waits for it: a potential deadlock.
    let looped = single.replace(
        "0: iprobe src=1 tag=1 found=1",
        "0: iprobe src=1 tag=1\n 0: iprobe src=1 tag=1 found=1",
    );
    assert_eq!(codes(&looped), vec!["DL002"]);
}

#[test]
fn waitany_needs_one_and_waitall_needs_all() {
    let any = "ranks 3
        0: irecv src=1 tag=0 req=0
        0: irecv src=2 tag=0 req=1
        0: waitany reqs=0,1 index=1
        2: send dest=0 tag=0";
    assert!(replay_mode(any, Mode::Strict).completed());
    let all = any.replace("waitany reqs=0,1 index=1", "waitall reqs=0,1");
    let r = replay_mode(&all, Mode::Strict);
    assert_eq!(stuck_ranks(&r), vec![0]);
    assert!(matches!(r.stuck[0].cond, WaitCond::Rank { rank: 1, .. }));
}

#[test]
fn waitany_blocked_forever_is_an_or_node() {
    let text = "ranks 3
        0: irecv src=1 tag=0 req=0
        0: irecv src=2 tag=0 req=1
        0: blocked waitany reqs=0,1
        1: blocked recv src=0 tag=5
        2: blocked recv src=0 tag=6";
    let d = run_all(&run(text));
    let dl = d.iter().find(|d| d.code == "DL001").expect("DL001");
    let g = dl.wait_for.as_ref().unwrap();
    let node0 = g.nodes.iter().find(|n| n.ranks == vec![0]).unwrap();
    assert_eq!(node0.semantics, WaitSemantics::Or);
    assert!(g.nodes.iter().all(|n| n.in_cycle || n.ranks.is_empty()));
}

#[test]
fn an_or_wait_released_by_a_running_rank_is_no_deadlock() {
    // Rank 2 was still running when the trace ended: it may yet send.
    let text = "ranks 3
        0: blocked recv src=any tag=0
        1: blocked recv src=0 tag=0
        2: other MPI_Comm_rank
        2: end interrupted still running";
    let r = run(text);
    assert!(mpicheck_analyzer::checks::actual_deadlock(&r).is_none());
}

#[test]
fn buffered_sends_need_room_in_the_attached_buffer() {
    let roomy = "ranks 2
        *: buffer_attach bytes=64
        0: bsend dest=1 tag=0 count=4 type=double
        1: bsend dest=0 tag=0 count=4 type=double
        0: recv src=1 tag=0
        1: recv src=0 tag=0";
    assert!(replay_mode(roomy, Mode::Strict).completed());
    let tight = roomy.replace("bytes=64", "bytes=16");
    assert_eq!(stuck_ranks(&replay_mode(&tight, Mode::Strict)), vec![0, 1]);
    // The buffer is given back when the message is received.
    let reused = "ranks 2
        0: buffer_attach bytes=32
        0: bsend dest=1 tag=0 count=4 type=double
        1: recv src=0 tag=0
        1: ssend dest=0 tag=1
        0: recv src=1 tag=1
        0: bsend dest=1 tag=2 count=4 type=double
        0: recv src=1 tag=3
        1: send dest=0 tag=3
        1: recv src=0 tag=2";
    assert!(replay_mode(reused, Mode::Strict).completed());
}

#[test]
fn standard_sends_are_buffered_as_recorded_and_synchronous_when_strict() {
    let text = "ranks 2
        *: send dest=0 tag=0
        0: send dest=1 tag=0
        1: send dest=0 tag=0
        *: recv src=0 tag=0";
    let text = text.replace("*: send dest=0 tag=0\n", "");
    let text = text.replace(
        "*: recv src=0 tag=0",
        "0: recv src=1 tag=0\n1: recv src=0 tag=0",
    );
    assert!(replay_mode(&text, Mode::Recorded).completed());
    assert_eq!(stuck_ranks(&replay_mode(&text, Mode::Strict)), vec![0, 1]);
    // A standard send the trace shows blocked was not buffered.
    let blocked = "ranks 2
        0: blocked send dest=1 tag=0
        1: blocked send dest=0 tag=0";
    assert_eq!(
        stuck_ranks(&replay_mode(blocked, Mode::Recorded)),
        vec![0, 1]
    );
}

#[test]
fn ready_sends_behave_like_standard_sends() {
    let text = "ranks 2
        1: irecv src=0 tag=0 req=0
        1: barrier
        0: barrier
        0: rsend dest=1 tag=0
        1: wait req=0";
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn sendrecv_exchanges_without_deadlock() {
    let text = "ranks 3
        0: sendrecv dest=1 sendtag=0 src=2 recvtag=0
        1: sendrecv dest=2 sendtag=0 src=0 recvtag=0
        2: sendrecv dest=0 sendtag=0 src=1 recvtag=0";
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn proc_null_completes_at_once() {
    let text = "ranks 2
        0: ssend dest=null tag=0
        0: recv src=null tag=0
        1: sendrecv dest=null src=null";
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn persistent_requests_restart() {
    let text = "ranks 2
        0: ssend_init dest=1 tag=0 req=0
        1: recv_init src=0 tag=0 req=0
        *: start req=0
        *: wait req=0
        *: start req=0
        *: wait req=0
        *: barrier_init req=1
        *: start req=1
        *: wait req=1
        *: request_free req=0";
    assert!(replay_mode(text, Mode::Strict).completed());
    // One start too many on the receiver: the second message never comes.
    let extra = text.replace(
        "*: barrier_init req=1",
        "1: start req=0\n1: wait req=0\n*: barrier_init req=1",
    );
    let r = replay_mode(&extra, Mode::Strict);
    assert_eq!(r.ranks[1], RankOutcome::Stuck { event: 6 });
}

#[test]
fn cancelled_receive_completes() {
    let text = "ranks 2
        0: irecv src=1 tag=0 req=0
        0: cancel req=0
        0: wait req=0
        0: ssend dest=1 tag=1
        1: recv src=0 tag=1";
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn recorded_collectives_wait_only_for_their_data() {
    // A broadcast root leaves at once, a gather's non-roots too, a scan needs lower ranks.
    let text = "ranks 3
        0: bcast root=0
        0: send dest=1 tag=0
        1: recv src=0 tag=0
        1: bcast root=0
        2: bcast root=0";
    assert!(replay_mode(text, Mode::Recorded).completed());
    assert!(!replay_mode(text, Mode::Strict).completed());
    let scan = "ranks 3
        0: scan
        0: send dest=2 tag=0
        1: scan
        2: recv src=0 tag=0
        2: scan";
    assert!(replay_mode(scan, Mode::Recorded).completed());
    let exscan_wrong = scan.replace("0: scan\n", "0: recv src=2 tag=1\n0: scan\n");
    let r = replay_mode(&exscan_wrong, Mode::Recorded);
    assert!(!r.completed());
}

#[test]
fn blocking_and_nonblocking_collectives_never_match() {
    let text = "ranks 2
        0: ibarrier req=0
        0: wait req=0
        1: barrier";
    for mode in [Mode::Recorded, Mode::Strict] {
        assert_eq!(stuck_ranks(&replay_mode(text, mode)), vec![0, 1]);
    }
}

#[test]
fn collectives_match_in_order_per_communicator() {
    let text = "ranks 3
        comm 1 members 0 1
        0: barrier comm=1
        0: barrier
        1: barrier comm=1
        1: barrier
        2: barrier";
    assert!(replay_mode(text, Mode::Strict).completed());
    let crossed = "ranks 2
        comm 1 members 0 1
        0: barrier comm=1
        0: barrier
        1: barrier
        1: barrier comm=1";
    let r = replay_mode(crossed, Mode::Strict);
    assert_eq!(stuck_ranks(&r), vec![0, 1]);
}

#[test]
fn nonblocking_collectives_progress_while_blocked_elsewhere() {
    let text = "ranks 2
        0: ibarrier req=0
        0: wait req=0
        0: ssend dest=1 tag=0
        1: ibarrier req=0
        1: recv src=0 tag=0
        1: wait req=0";
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn a_rank_blocked_on_a_finalized_peer_is_an_actual_deadlock() {
    let text = "ranks 2
        0: blocked recv src=1 tag=0 @ a.c:3
        1: finalize @ a.c:9";
    let d = mpicheck_analyzer::checks::actual_deadlock(&run(text)).expect("DL001");
    assert!(d.message.contains("already finished"), "{}", d.message);
    assert_eq!(d.locations[0].line, Some(3));
    assert!(d.locations[0].label.contains("MPI_Finalize"));
}

#[test]
fn ranks_waiting_on_the_cycle_are_folded() {
    let text = "ranks 6
        0: blocked ssend dest=1 tag=0 @ c.c:1
        1: blocked ssend dest=0 tag=0 @ c.c:1
        2-5: blocked recv src=0 tag=9 @ c.c:7";
    let d = mpicheck_analyzer::checks::actual_deadlock(&run(text)).expect("DL001");
    let g = d.wait_for.unwrap();
    let cycle: Vec<u32> = g
        .nodes
        .iter()
        .filter(|n| n.in_cycle)
        .flat_map(|n| n.ranks.clone())
        .collect();
    assert_eq!(cycle, vec![0, 1]);
    let folded: Vec<_> = g.nodes.iter().filter(|n| !n.in_cycle).collect();
    assert_eq!(folded.len(), 1);
    assert_eq!(folded[0].ranks, vec![2, 3, 4, 5]);
    // Locations: the cycle first, the folded waiters in one location.
    assert_eq!(d.locations.len(), 2);
    assert_eq!(d.locations[1].ranks, vec![2, 3, 4, 5]);
}

#[test]
fn another_wildcard_matching_that_deadlocks_is_dl003() {
    let text = "ranks 3
        0: recv src=any tag=0 matched=1 @ w.c:5
        0: recv src=2 tag=0 @ w.c:6
        1: send dest=0 tag=0 @ w.c:10
        2: send dest=0 tag=0 @ w.c:20";
    let d = run_all(&run(text));
    let found: Vec<&str> = d.iter().map(|d| d.code).collect();
    assert_eq!(found, vec!["DL003", "MR001"], "{d:#?}");
    let dl3 = &d[0];
    assert_eq!(dl3.locations[0].line, Some(5));
    assert!(dl3.locations.iter().any(|l| l.line == Some(20)));
    // The forced replay itself.
    let r = replay(
        &run(text),
        &ReplayOptions {
            forced: Some(ForcedMatch {
                rank: 0,
                event: 0,
                source: 2,
            }),
            ..ReplayOptions::new(Mode::Strict)
        },
    );
    assert_eq!(r.forced_matched, Some(true));
    assert_eq!(r.ranks[0], RankOutcome::Stuck { event: 1 });
}

/// A master that takes each worker's message with a wildcard, then sends to worker 1 and
/// worker 2 at lines `first` and `second` (the same line: a reply to whoever sent),
/// `rounds` times.
fn master_worker_replies(rounds: usize, first: u32, second: u32) -> String {
    let mut text = String::from("ranks 3\n");
    for _ in 0..rounds {
        text.push_str(&format!(
            "1-2: send dest=0 tag=0 @ w.c:20
             1-2: recv src=0 tag=1 @ w.c:21
             0: recv src=any tag=0 matched=1 @ m.c:5
             0: send dest=1 tag=1 @ m.c:{first}
             0: recv src=any tag=0 matched=2 @ m.c:5
             0: send dest=2 tag=1 @ m.c:{second}\n"
        ));
    }
    text
}

#[test]
fn a_reply_to_the_wildcard_source_follows_it_in_another_matching() {
    // The reply's call names whichever worker the wildcard took, every time: in the
    // matching where rank 2's message comes first, the reply goes to rank 2, and every
    // order completes. Replayed to the recorded ranks, it was a DL003.
    assert_eq!(codes(&master_worker_replies(5, 6, 6)), vec!["MR001"]);
}

#[test]
fn a_few_calls_that_named_the_wildcard_source_may_be_replies() {
    // Four calls at one line named each time the source just taken, two sources: a master
    // replying to whoever sent, two rounds, records this, and so does a loop sending to
    // ranks 1 and 2 in turn (by chance once in 16), whose other matching deadlocks. The
    // alternative deadlocks only if the calls go to the recorded ranks: no DL003, rather
    // than a false one on the master. (The strict replay, DL002's, sends them to the
    // recorded ranks: hpcc's RandomAccess made three such calls at the line that sends a
    // bucket to the rank its updates hash to, and following them found a false DL002.)
    let found = codes(&master_worker_replies(2, 6, 6));
    assert_eq!(found, vec!["MR001"]);
}

/// Master-worker with sendrecvs: rank 0 takes each worker's result with a wildcard
/// receive (`sendrecv_wildcard`: a sendrecv sending nothing), and at line 6 replies to its
/// source with a sendrecv that takes the acknowledgement from `ack` (`None`: the source);
/// workers 1 and 2 send, take the reply, acknowledge; `rounds` rounds.
fn sendrecv_replies(rounds: usize, sendrecv_wildcard: bool, ack: Option<u32>) -> String {
    let mut text = String::from("ranks 3\n");
    for _ in 0..rounds {
        for worker in [1, 2] {
            let take = if sendrecv_wildcard {
                format!("sendrecv dest=null sendtag=3 src=any recvtag=0 matched={worker}")
            } else {
                format!("recv src=any tag=0 matched={worker}")
            };
            let ack = ack.unwrap_or(worker);
            text.push_str(&format!(
                "{worker}: send dest=0 tag=0 @ w.c:20
                 0: {take} @ m.c:5
                 0: sendrecv dest={worker} sendtag=1 src={ack} recvtag=2 @ m.c:6
                 {worker}: recv src=0 tag=1 @ w.c:21
                 {ack}: send dest=0 tag=2 @ w.c:22\n"
            ));
        }
    }
    text
}

#[test]
fn a_sendrecv_replying_to_the_wildcard_source_follows_it_in_another_matching() {
    // Both halves of line 6 name the worker just taken, every time: in the matching where
    // rank 2's result comes first, the reply goes to rank 2 and the acknowledgement comes
    // from it. Replayed to the recorded ranks, it was a DL003 (the reply to rank 1, blocked
    // in its send of the result).
    assert_eq!(codes(&sendrecv_replies(5, false, None)), vec!["MR001"]);
    // The same with the results taken by a sendrecv for any source.
    assert_eq!(codes(&sendrecv_replies(5, true, None)), vec!["MR001"]);
}

#[test]
fn a_sendrecv_half_that_names_a_fixed_rank_is_no_reply() {
    // Every acknowledgement comes from rank 1: in the matching where rank 2's result
    // comes first, rank 0 waits for rank 1's acknowledgement, rank 1 in its send of the
    // result.
    assert_eq!(
        codes(&sendrecv_replies(5, false, Some(1))),
        vec!["DL003", "MR001"]
    );
}

#[test]
fn a_receive_that_takes_another_tag_in_another_matching_leaves_the_trace_whatever_the_tags() {
    // Rank 2 takes work (tag 1) from rank 0 and then its stop (tag `stop`) from rank 1,
    // each with a receive for any source and tag. Forcing the first to take the stop, the
    // second takes the work: the rank's trace no longer says what it does (it would have
    // stopped), and it is replayed no further. Tags 1 and 256 shared an 8-bit digest, and
    // the rank replayed on as if it had taken the stop.
    for stop in [2, 256] {
        let text = format!(
            "ranks 3
             0: send dest=2 tag=1 @ m.c:1
             2: recv src=any tag=any matched=0:1 @ w.c:1
             1: send dest=2 tag={stop} @ s.c:1
             2: recv src=any tag=any matched=1:{stop} @ w.c:2"
        );
        let r = replay(
            &run(&text),
            &ReplayOptions {
                forced: Some(ForcedMatch {
                    rank: 2,
                    event: 0,
                    source: 1,
                }),
                ..ReplayOptions::new(Mode::Strict)
            },
        );
        assert_eq!(r.forced_matched, Some(true));
        assert_eq!(r.ranks[2], RankOutcome::Unfinished, "stop tag {stop}");
    }
}

/// An echo server: rank 0 takes each worker's request with a wildcard for source and tag,
/// and replies to its source with its tag (line 6); workers 1 and 2 tag their requests
/// with their rank and wait for the reply of that tag; `rounds` rounds.
fn tag_echo(rounds: usize) -> String {
    let mut text = String::from("ranks 3\n");
    for _ in 0..rounds {
        text.push_str(
            "1: send dest=0 tag=1 @ w.c:20
             2: send dest=0 tag=2 @ w.c:20
             1: recv src=0 tag=1 @ w.c:21
             2: recv src=0 tag=2 @ w.c:21
             0: recv src=any tag=any matched=1:1 @ m.c:5
             0: send dest=1 tag=1 @ m.c:6
             0: recv src=any tag=any matched=2:2 @ m.c:5
             0: send dest=2 tag=2 @ m.c:6\n",
        );
    }
    text
}

#[test]
fn a_reply_with_the_wildcard_tag_carries_it_in_another_matching() {
    // In the matching where rank 2's request comes first, the reply goes to rank 2 with
    // tag 2, and every order completes. With the recorded tag, it was a DL003.
    assert_eq!(codes(&tag_echo(5)), vec!["MR001"]);
}

#[test]
fn a_few_replies_with_the_wildcard_tag_may_echo_it() {
    // Two rounds: too few replies to tell that line 6 follows the wildcard's source and
    // tag by design. The alternative deadlocks only if the reply goes with the recorded
    // tag (or to the recorded worker): no DL003.
    assert_eq!(codes(&tag_echo(2)), vec!["MR001"]);
}

#[test]
fn sends_to_fixed_ranks_after_a_wildcard_are_not_replies() {
    // Line 6 always sends to rank 1, line 8 to rank 2: if the first wildcard takes rank
    // 2's message, rank 0 waits in its send to rank 1, which waits in its send to rank 0.
    let found = codes(&master_worker_replies(5, 6, 8));
    assert_eq!(found, vec!["DL003", "MR001"]);
}

#[test]
fn an_alternative_matching_strict_rules_make_impossible_is_not_explored_as_a_deadlock() {
    // std_wildcard_bcast_race: rank 0's message exists only after a broadcast rank 1
    // joins after the wildcard receive.
    let text = "ranks 3
        0: bcast root=0
        0: send dest=1 tag=0
        1: recv src=any tag=0 matched=2
        1: bcast root=0
        1: recv src=any tag=0 matched=0
        2: send dest=1 tag=0
        2: bcast root=0";
    assert_eq!(codes(text), vec!["MR001"]);
}

#[test]
fn exploration_is_bounded_and_says_so() {
    // 70 racing receives, each with an alternative that deadlocks (a later receive names
    // the sender whose message the alternative would take).
    let mut text = String::from("ranks 3\n");
    for i in 0..70 {
        text.push_str(&format!(
            "1: send dest=0 tag={i}\n2: send dest=0 tag={i}\n0: recv src=any tag={i} matched=1 @ w.c:{i}\n0: recv src=2 tag={i}\n"
        ));
    }
    let d = run_all(&run(&text));
    assert!(d.iter().any(|d| d.code == "DL003"));
    assert!(d
        .iter()
        .filter(|d| d.code == "DL003" || d.code == "MR001")
        .all(|d| d.notes.iter().any(|n| n.contains("inconclusive"))));
}

#[test]
fn a_mismatch_that_hangs_is_not_reported_twice() {
    // fig21: the strict replay deadlocks because of the mismatch; CO001 says it all.
    let text = "ranks 3
        0-1: bcast root=0
        0-1: gather root=0
        2: gather root=0
        2: bcast root=0";
    assert_eq!(codes(text), vec!["CO001"]);
}

#[test]
fn large_fan_in_keeps_per_source_order() {
    // 40 senders, two messages each, received in reverse source order and by tag: the
    // destination switches to per-source queues on the way.
    let n = 41;
    let mut text = format!("ranks {n}\n");
    for s in 1..n {
        text += &format!("{s}: send dest=0 tag=1\n{s}: send dest=0 tag=2\n");
    }
    for s in (1..n).rev() {
        text += &format!("0: recv src={s} tag=any\n");
    }
    for s in 1..n {
        text += &format!("0: probe src={s} tag=2\n0: recv src=any tag=2 matched={s}\n");
    }
    for mode in [Mode::Recorded, Mode::Strict] {
        let r = replay_mode(&text, mode);
        assert!(r.completed(), "{mode:?}: {:?}", r.stuck);
    }
    // A tag-1 receive more than was sent is stuck.
    let extra = format!("{text}0: recv src=7 tag=1\n");
    assert_eq!(stuck_ranks(&replay_mode(&extra, Mode::Recorded)), vec![0]);
}

#[test]
fn a_request_named_twice_in_one_waitall_is_waited_for_once() {
    // Erroneous in MPI, but the replay must not leave the wait pending forever.
    let text = "ranks 2
        0: isend dest=1 tag=0 req=0
        0: waitall reqs=0,0
        1: recv src=0 tag=0";
    assert!(replay_mode(text, Mode::Recorded).completed());
    assert!(replay_mode(text, Mode::Strict).completed());
}

#[test]
fn a_persistent_request_a_single_test_found_complete_restarts() {
    // tests/traces/features.c: each round starts a persistent send and receive and waits
    // only if MPI_Testall says they are not done yet. The rank whose test succeeded starts
    // the same requests again: a new receive, while the replay may not have matched the
    // old one yet.
    let text = "ranks 2
        0: send_init dest=1 tag=5 req=0
        0: recv_init src=1 tag=5 req=1
        1: send_init dest=0 tag=5 req=0
        1: recv_init src=0 tag=5 req=1
        *: startall reqs=0,1
        0: testall reqs=0,1 flag=1
        1: testall reqs=0,1 flag=0
        1: waitall reqs=0,1
        *: startall reqs=0,1
        0: testall reqs=0,1 flag=1
        1: testall reqs=0,1 flag=0
        1: waitall reqs=0,1
        *: startall reqs=0,1
        0: testall reqs=0,1 flag=1
        1: testall reqs=0,1 flag=0
        1: waitall reqs=0,1
        *: request_free req=0
        *: request_free req=1
        *: bcast root=0
        *: finalize";
    assert!(replay_mode(text, Mode::Strict).completed());
    assert_eq!(codes(text), Vec::<&str>::new());
}

#[test]
fn a_deadlock_in_a_polling_loop_says_the_loop_waits() {
    // Rank 0 polls its receive with MPI_Test until the message comes; rank 1 first waits
    // for rank 0's message: the loop stands for a wait, and the notes say so, not that an
    // MPI_Wait was called.
    let text = "ranks 2
        0: irecv src=1 tag=7 req=0
        0: test req=0 flag=0
        0: test req=0 flag=0
        1: blocked recv src=0 tag=3";
    // As `mpicheck run` models a thread its watcher saw polling when the job was ended.
    let mut run = run(text);
    assert!(mpicheck_analyzer::polling::block_trailing_polls(
        &mut run.ranks[0],
        0
    ));
    let findings = run_all(&run);
    let dl001 = findings
        .iter()
        .find(|d| d.code == "DL001")
        .unwrap_or_else(|| panic!("no DL001 in {findings:?}"));
    assert!(
        dl001
            .notes
            .iter()
            .any(|n| n.starts_with("a loop that polls")),
        "{:?}",
        dl001.notes
    );
    assert!(
        !dl001.notes.iter().any(|n| n.starts_with("MPI_Wait")),
        "{:?}",
        dl001.notes
    );
}

#[test]
fn a_rank_that_waits_for_itself_is_one_rank_not_each_other() {
    let actual = "ranks 2
        0: blocked ssend dest=0 tag=0
        1: finalize";
    let findings = run_all(&run(actual));
    let messages: Vec<&str> = findings.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages.contains(&"deadlock: rank 0 is blocked forever waiting for itself"),
        "{messages:?}"
    );
    // A rank waiting on the one stuck rank: "on it", not "on them".
    let waited_on = "ranks 2
        0: blocked ssend dest=0 tag=0
        1: blocked recv src=0 tag=1";
    let findings = run_all(&run(waited_on));
    let messages: Vec<&str> = findings.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages.contains(
            &"deadlock: rank 0 is blocked forever waiting for itself (1 more rank is waiting on it)"
        ),
        "{messages:?}"
    );
    let potential = "ranks 2
        0: send dest=0 tag=0
        0: recv src=0 tag=0
        *: finalize";
    let findings = run_all(&run(potential));
    let dl002 = findings
        .iter()
        .find(|d| d.code == "DL002")
        .unwrap_or_else(|| panic!("no DL002 in {findings:?}"));
    assert!(
        dl002
            .message
            .starts_with("potential deadlock: rank 0 waits for itself unless"),
        "{}",
        dl002.message
    );
}

#[test]
fn a_process_that_exited_inside_its_last_call_did_not_block_in_it() {
    // MPI's error handler ended rank 0 inside a send to itself (a negative count): the
    // process exited there, and nothing was blocked forever.
    let exited = "ranks 1\n0: init\n0: blocked send dest=0 tag=0\n0: end exited\n";
    assert!(!codes(exited).contains(&"DL001"), "{:?}", codes(exited));
    // Still running in it when the trace ended (the job was ended from outside): blocked.
    let stuck = "ranks 1\n0: init\n0: blocked send dest=0 tag=0\n0: end interrupted\n";
    assert!(codes(stuck).contains(&"DL001"), "{:?}", codes(stuck));
}

#[test]
fn a_call_mpi_aborted_in_did_not_block_and_nothing_is_known_after_it() {
    // MPI's error handler aborted the job inside rank 0's send to itself (a negative
    // count) while rank 1 waited in the barrier: no deadlock, and no rank "never calls" the
    // barrier.
    let aborted = "ranks 2\n0: init\n0: blocked send dest=0 tag=0\n0: end aborted\n\
                   1: init\n1: blocked barrier\n1: end interrupted\n";
    assert_eq!(codes(aborted), Vec::<&str>::new());
    // The same calls with rank 0 still inside its send when the job was ended: blocked.
    let stuck = "ranks 2\n0: init\n0: blocked send dest=0 tag=0\n0: end interrupted\n\
                 1: init\n1: blocked barrier\n1: end interrupted\n";
    assert!(codes(stuck).contains(&"DL001"), "{:?}", codes(stuck));
}

#[test]
fn a_message_nobody_receives_is_lost_not_a_potential_deadlock() {
    // Every rank tells the other it is done and nobody receives: RQ005 once for the call
    // site, and no DL002 (the sends wait for receives nobody posts, not for each other).
    let lost = "ranks 2\n0: send dest=1 tag=7\n1: send dest=0 tag=7\n0: barrier\n1: barrier\n";
    assert_eq!(codes(lost), vec!["RQ005"]);
    // Received: nothing to report.
    let received = "ranks 2\n0: send dest=1 tag=7\n1: recv src=0 tag=7\n0: barrier\n1: barrier\n";
    assert_eq!(codes(received), Vec::<&str>::new());
    // A cancelled immediate send is not a lost message.
    let cancelled =
        "ranks 2\n0: isend dest=1 tag=7 req=0\n0: cancel req=0\n0: wait req=0\n0: barrier\n1: barrier\n";
    assert!(
        !codes(cancelled).contains(&"RQ005"),
        "{:?}",
        codes(cancelled)
    );
    // The destination never finalized (its trace was cut): it may still receive.
    let cut = "ranks 2\n0: send dest=1 tag=7\n0: barrier\n1: barrier\n1: end interrupted\n";
    assert!(!codes(cut).contains(&"RQ005"), "{:?}", codes(cut));
}

#[test]
fn the_receive_after_a_single_probe_takes_what_that_probe_would_find() {
    // MUMPS's message loop: rank 0 polls with MPI_Iprobe(any, any) until a message is there
    // and receives it from the status's source and tag at line 6; the later probes succeed
    // at their first try (single polls, which wait for nothing). In the matching where the
    // polled probe finds rank 1's message first (a probe takes nothing), line 6 still
    // receives rank 2's, and the later receives the others. The receive site was no source
    // follower (its calls after
    // single probes named a source no replayed wildcard took) but still a tag follower:
    // the first receive waited for rank 2's message with rank 1's tag, a false DL003.
    let text = "ranks 4
        1: isend dest=0 tag=11 req=0 @ w.c:20
        2: isend dest=0 tag=12 req=0 @ w.c:20
        3: isend dest=0 tag=13 req=0 @ w.c:20
        0: iprobe src=any tag=any @ m.c:5
        0: iprobe src=any tag=any found=1 matched=2:12 @ m.c:5
        0: recv src=2 tag=12 matched=2 @ m.c:6
        0: barrier @ m.c:7
        1: barrier @ w.c:21
        2: barrier @ w.c:21
        3: barrier @ w.c:21
        0: iprobe src=any tag=any found=1 matched=3:13 @ m.c:5
        0: recv src=3 tag=13 matched=3 @ m.c:6
        0: iprobe src=any tag=any found=1 matched=1:11 @ m.c:5
        0: recv src=1 tag=11 matched=1 @ m.c:6
        1: wait req=0 @ w.c:22
        2: wait req=0 @ w.c:22
        3: wait req=0 @ w.c:22";
    assert_eq!(codes(text), vec!["MR001"]);
}

#[test]
fn only_the_instance_of_a_persistent_send_whose_wait_never_returned_is_unbuffered() {
    // Rank 0's first instance of a persistent send completed in the run (MPI buffered it)
    // before the barrier that rank 1 passes before receiving it; the second instance's
    // wait never returned, while rank 1 waits for a message rank 0 never sends: the hang.
    // Replayed with every start unbuffered, the first wait blocked before the barrier and
    // the actual deadlock was not the run's.
    let text = "ranks 2
        0: send_init dest=1 tag=0 req=0
        0: start req=0
        0: wait req=0
        0: barrier
        1: barrier
        1: recv src=0 tag=0
        0: start req=0
        0: blocked wait req=0
        1: blocked recv src=0 tag=1";
    let r = replay_mode(text, Mode::Recorded);
    let stuck: Vec<(u32, usize)> = r.stuck.iter().map(|s| (s.rank, s.event)).collect();
    assert_eq!(stuck, vec![(0, 5), (1, 2)]);
    assert_eq!(codes(text), vec!["DL001"]);
}
