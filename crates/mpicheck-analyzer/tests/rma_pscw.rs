//! Post/start pairing rules on hand-written traces: MPI_MODE_NOCHECK that nothing backs
//! (RM007), post and start groups that do not name each other (RM008), each next to a
//! correct twin.

use mpicheck_analyzer::checks::{mismatch_stall, run_all, run_all_in_every_order};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text_trace::parse;

fn findings(text: &str) -> Vec<Diagnostic> {
    run_all_in_every_order(&parse(text).unwrap_or_else(|e| panic!("{e}")))
}

fn codes(text: &str) -> Vec<&'static str> {
    findings(text).iter().map(|d| d.code).collect()
}

/// Two ranks with window 0 on MPI_COMM_WORLD; each posts to the other with `post`
/// assertions, runs `between`, starts toward the other with `start` assertions, gets one
/// element, completes and waits.
fn exchange(post: &str, between: &str, start: &str) -> String {
    format!(
        "ranks 2
         *: init
         *: win_create win=0 size=40 unit=4            @ w.c:1
         0: win_post win=0 group=1 {post}              @ w.c:10
         1: win_post win=0 group=0 {post}              @ w.c:10
         {between}
         0: win_start win=0 group=1 {start}            @ w.c:12
         1: win_start win=0 group=0 {start}            @ w.c:12
         0: get win=0 target=1 disp=0 count=1 type=int @ w.c:13
         1: get win=0 target=0 disp=0 count=1 type=int @ w.c:13
         *: win_complete win=0                         @ w.c:14
         *: win_wait win=0                             @ w.c:15
         *: win_free win=0                             @ w.c:16
         *: finalize"
    )
}

#[test]
fn a_nocheck_start_nothing_orders_after_its_post_is_reported_at_both_calls() {
    let found = findings(&exchange("assert=nocheck", "", "assert=nocheck"));
    assert_eq!(
        found.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["RM007"],
        "{found:#?}"
    );
    let d = &found[0];
    let message = d.message.to_string();
    assert!(
        message.contains("MPI_Win_start on ranks 0, 1 (w.c:12) is not ordered after the matching MPI_Win_post on ranks 0, 1 (w.c:10)")
            && message.contains("both give MPI_MODE_NOCHECK"),
        "{message}"
    );
    let lines: Vec<_> = d.locations.iter().map(|l| l.line).collect();
    assert_eq!(lines, [Some(12), Some(10)]);
    // Either call's promise alone is broken just the same.
    assert_eq!(codes(&exchange("", "", "assert=nocheck")), ["RM007"]);
    assert_eq!(codes(&exchange("assert=nocheck", "", "")), ["RM007"]);
}

#[test]
fn a_barrier_or_a_message_from_the_target_backs_nocheck() {
    let barrier = exchange("assert=nocheck", "*: barrier", "assert=nocheck");
    assert_eq!(codes(&barrier), Vec::<&str>::new());
    // Without NOCHECK the MPI does the handshake: nothing to order.
    assert_eq!(codes(&exchange("", "", "")), Vec::<&str>::new());
    // Each target tells its origin it has posted.
    let told = exchange(
        "assert=nocheck",
        "0: send dest=1 tag=0
         1: recv src=0 tag=0
         1: send dest=0 tag=0
         0: recv src=1 tag=0",
        "assert=nocheck",
    );
    assert_eq!(codes(&told), Vec::<&str>::new());
}

#[test]
fn a_message_that_orders_only_one_pair_leaves_the_other_reported() {
    // Rank 1 learns that rank 0 posted; rank 0 learns nothing of rank 1's post.
    let text = exchange(
        "assert=nocheck",
        "0: send dest=1 tag=0
         1: recv src=0 tag=0",
        "assert=nocheck",
    );
    let found = findings(&text);
    assert_eq!(
        found.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["RM007"],
        "{found:#?}"
    );
    assert!(
        found[0]
            .message
            .to_string()
            .contains("MPI_Win_start on rank 0 (w.c:12) is not ordered after the matching MPI_Win_post on rank 1"),
        "{}",
        found[0].message
    );
}

#[test]
fn a_job_hung_in_win_wait_behind_an_unbacked_nocheck_is_explained() {
    // The hang of tests/programs/ar_rma_asserts_ok.c before its barrier: rank 0 waits in
    // MPI_Win_wait for a complete that never counts.
    let text = "ranks 2
         *: init
         *: win_create win=0 size=40 unit=4            @ w.c:1
         0: win_post win=0 group=1 assert=nocheck      @ w.c:10
         1: win_post win=0 group=0 assert=nocheck      @ w.c:10
         0: win_start win=0 group=1 assert=nocheck     @ w.c:12
         1: win_start win=0 group=0 assert=nocheck     @ w.c:12
         *: win_complete win=0                         @ w.c:14
         1: win_wait win=0                             @ w.c:15
         0: blocked win_wait win=0                     @ w.c:15
         1: blocked win_free win=0                     @ w.c:16";
    let run = parse(text).unwrap();
    let stall = mismatch_stall(&run).expect("the stall is explained");
    assert_eq!(
        stall.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["RM007"],
        "{stall:#?}"
    );
    // The correct twin, hung for another reason, is not explained by it.
    let twin = text.replace(
        "         0: win_start",
        "         *: barrier\n         0: win_start",
    );
    assert!(mismatch_stall(&parse(&twin).unwrap()).is_none());
}

/// A ring of 3: each rank posts to `exposure(r)` and starts toward `access(r)`, puts one
/// element, completes and waits; every call returns (as under MPICH, which counts
/// notifications without checking who sent them).
fn ring(exposure: impl Fn(u32) -> u32, access: impl Fn(u32) -> u32) -> String {
    let mut text = String::from(
        "ranks 3
         *: init
         *: win_create win=0 size=40 unit=4            @ r.c:1\n",
    );
    for r in 0..3 {
        text += &format!("{r}: win_post win=0 group={}  @ r.c:10\n", exposure(r));
    }
    for r in 0..3 {
        text += &format!("{r}: win_start win=0 group={} @ r.c:11\n", access(r));
    }
    for r in 0..3 {
        text += &format!(
            "{r}: put win=0 target={} disp=0 count=1 type=int @ r.c:12\n",
            access(r)
        );
    }
    text += "*: win_complete win=0 @ r.c:13
             *: win_wait win=0 @ r.c:14
             *: win_free win=0 @ r.c:15
             *: finalize";
    text
}

#[test]
fn a_ring_whose_start_groups_point_the_wrong_way_is_reported_at_both_sides() {
    let left = |r: u32| (r + 2) % 3;
    let right = |r: u32| (r + 1) % 3;
    // Correct: rank r exposes to its left neighbour, which accesses its right one.
    assert_eq!(codes(&ring(left, right)), Vec::<&str>::new());
    // The bug: each rank accesses its left neighbour too.
    let found = findings(&ring(left, left));
    let rm008: Vec<_> = found.iter().filter(|d| d.code == "RM008").collect();
    assert_eq!(rm008.len(), 2, "{found:#?}");
    let start = rm008
        .iter()
        .find(|d| d.locations[0].line == Some(11))
        .expect("the starts");
    assert!(
        start.message.to_string().contains(
            "MPI_Win_start on ranks 0-2 starts an access epoch in window 0 (MPI_Win_create on MPI_COMM_WORLD) toward ranks 0-2, which never posts a matching exposure epoch naming the origin (origin → target: 0 → 2, 1 → 0, 2 → 1)"
        ),
        "{}",
        start.message
    );
    // The posts whose groups lack the origin are shown too.
    assert_eq!(start.locations[1].line, Some(10));
    let post = rm008
        .iter()
        .find(|d| d.locations[0].line == Some(10))
        .expect("the posts");
    assert!(
        post.message
            .to_string()
            .contains("which never starts a matching access epoch toward the target"),
        "{}",
        post.message
    );
    assert_eq!(post.locations[1].line, Some(11));
}

#[test]
fn a_partner_that_may_still_call_is_not_judged() {
    // Rank 1 has not started yet: it is blocked in a receive, and could start after it.
    let text = "ranks 2
         *: init
         *: win_create win=0 size=40 unit=4            @ w.c:1
         0: win_post win=0 group=1                     @ w.c:10
         0: blocked win_wait win=0                     @ w.c:11
         1: blocked recv src=0 tag=5                   @ w.c:20";
    let run = parse(text).unwrap();
    assert!(run_all(&run).iter().all(|d| d.code != "RM008"));
    // Once it frees the window it never will: the post is reported, also as the stall's
    // explanation.
    let freed = text.replace("1: blocked recv src=0 tag=5", "1: blocked win_free win=0");
    let run = parse(&freed).unwrap();
    let stall = mismatch_stall(&run).expect("explained");
    assert!(stall.iter().any(|d| d.code == "RM008"), "{stall:#?}");
    // A rank blocked in an epoch call on the window never calls again either.
    let stuck = text.replace(
        "1: blocked recv src=0 tag=5",
        "1: win_start win=0 group=1\n 1: blocked win_complete win=0",
    );
    let found = findings(&stuck);
    assert_eq!(
        found.iter().filter(|d| d.code == "RM008").count(),
        2,
        "{found:#?}"
    );
}
