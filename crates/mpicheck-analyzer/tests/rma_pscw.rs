//! Post/start pairing rules on hand-written traces: MPI_MODE_NOCHECK that nothing backs
//! (RM007), each next to a correct twin.

use mpicheck_analyzer::checks::{mismatch_stall, run_all};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text_trace::parse;

fn findings(text: &str) -> Vec<Diagnostic> {
    run_all(&parse(text).unwrap_or_else(|e| panic!("{e}")))
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
