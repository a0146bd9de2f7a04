//! Calls that follow a wildcard receive (a reply to `status.MPI_SOURCE`) in replays of
//! another matching, on hand-written traces of the master/worker loops real programs use.

use mpicheck_analyzer::checks::run_all_in_every_order;
use mpicheck_analyzer::text_trace::parse;

fn codes(text: &str) -> Vec<&'static str> {
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    run_all_in_every_order(&run)
        .iter()
        .map(|d| d.code)
        .collect()
}

/// HyPhy's master loop (tests/programs/dl_iprobe_then_wildcard_recv_reply_ok.c): rank 0
/// polls `MPI_Iprobe(any, 111)` (or finds the length at its first try), receives it with
/// its own `MPI_Recv(any, 111)` at line 45, then the characters from the status's source
/// at line 46, and replies there at line 47.
fn hyphy_master(rounds: &[(u32, bool)]) -> String {
    let mut text = String::from("ranks 3\n");
    for &(source, polled) in rounds {
        text.push_str(&format!(
            "{source}: send dest=0 tag=111 @ w.c:22
            {source}: send dest=0 tag=112 @ w.c:23\n"
        ));
        if polled {
            text.push_str("0: iprobe src=any tag=111 @ m.c:42\n");
        }
        text.push_str(&format!(
            "0: iprobe src=any tag=111 found=1 matched={source}:111 @ m.c:42
            0: recv src=any tag=111 matched={source} @ m.c:45
            0: recv src={source} tag=112 matched={source} @ m.c:46
            0: send dest={source} tag=113 @ m.c:47
            {source}: recv src=0 tag=113 @ w.c:53\n"
        ));
    }
    text
}

#[test]
fn a_wildcard_receive_after_a_single_probe_is_the_wildcard_its_followers_follow() {
    // Rounds alternate the workers; some single probes (rank 0 late), some polled. The
    // receive at line 45 names any source itself: whichever length it takes, line 46 and
    // the reply follow it, so every order completes.
    let rounds = [
        (1, true),
        (2, false),
        (1, false),
        (2, true),
        (1, true),
        (2, false),
        (2, true),
        (1, false),
        (1, true),
        (2, true),
        (1, false),
        (2, false),
    ];
    assert_eq!(codes(&hyphy_master(&rounds)), vec!["MR001", "MR001"]);
}

/// HyPhy's strings, blocking (tests/programs/dl_iprobe_wildcard_recv_then_source_ok.c):
/// a job is a length (tag 111, line 10) and its characters (tag 112, line 11), a stop is a
/// length of 0 alone, both sent by the same calls; rank 0 takes each result with a
/// wildcard (line 20) and sends whoever sent it the next job or the stop. `jobs[w]` is how
/// many jobs worker `w` did in the run; `order` the workers whose results rank 0 took.
/// First, `rounds` rounds send each worker a job by the same calls and take both results
/// (worker 1's first), as HyPhy's fel does before it farms out sites.
fn master_stops_workers_by_length(jobs: [usize; 3], order: &[u32], rounds: usize) -> String {
    let mut text = String::from("ranks 3\n");
    let job = |text: &mut String, w: u32| {
        text.push_str(&format!(
            "0: send dest={w} tag=111 @ m.c:10\n0: send dest={w} tag=112 @ m.c:11\n"
        ))
    };
    for _ in 0..rounds {
        job(&mut text, 1);
        job(&mut text, 2);
        text.push_str("0: recv src=any tag=113 matched=1 @ m.c:20\n");
        text.push_str("0: recv src=any tag=113 matched=2 @ m.c:20\n");
    }
    job(&mut text, 1);
    job(&mut text, 2);
    let mut left = jobs[1] + jobs[2] - 2;
    for &w in order {
        text.push_str(&format!("0: recv src=any tag=113 matched={w} @ m.c:20\n"));
        if left > 0 {
            job(&mut text, w);
            left -= 1;
        } else {
            text.push_str(&format!("0: send dest={w} tag=111 @ m.c:10\n"));
        }
    }
    for w in [1, 2] {
        for _ in 0..rounds + jobs[w as usize] {
            text.push_str(&format!(
                "{w}: recv src=0 tag=111 @ w.c:40
                 {w}: recv src=0 tag=112 @ w.c:41
                 {w}: send dest=0 tag=113 @ w.c:42\n"
            ));
        }
        text.push_str(&format!("{w}: recv src=0 tag=111 @ w.c:40\n"));
    }
    text.push_str("*: finalize\n");
    text
}

#[test]
fn a_worker_fed_another_workers_message_may_stop_elsewhere_than_its_trace() {
    // Worker 1 did six jobs, worker 2 three. Where a wildcard takes worker 2's result
    // instead of worker 1's, worker 2 gets a job more than its trace, takes one job's
    // length where its trace took its stop, and ends there with the characters left;
    // worker 1 takes its stop where its trace took a job, and waits for characters. The
    // program would go on (worker 2 did the job, worker 1 stopped): no DL003.
    let order = [1, 1, 2, 1, 1, 2, 1, 2, 1];
    let text = master_stops_workers_by_length([0, 6, 3], &order, 0);
    assert_eq!(codes(&text), vec!["MR001"]);
}

#[test]
fn a_call_site_that_also_sends_rounds_to_every_worker_still_replies() {
    // The same farm after two rounds that send both workers a job by the same calls: lines
    // 10 and 11 do not always name the latest wildcard's source. A job sent right after a
    // result, to its sender, is still a reply (HyPhy's MPISendString, for both): in the
    // matching where worker 2's result comes first, it goes to worker 2 (DL003's second
    // replay, which follows calls that may not follow by design); sent to the recorded
    // worker, it met that worker sending its own result.
    let order = [1, 1, 2, 1, 1, 2, 1, 2, 1];
    let text = master_stops_workers_by_length([0, 6, 3], &order, 2);
    assert_eq!(codes(&text), vec!["MR001"]);
}
