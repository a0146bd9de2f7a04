//! Active-target synchronization (post, start, complete, wait) in the replay engine and the
//! deadlock checks, on hand-written traces: one test per rule, each next to a correct twin.

use mpicheck_analyzer::checks::run_all_in_every_order;
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::engine::{replay, Mode, Replay, ReplayOptions, WaitCond, WaitOn};
use mpicheck_analyzer::model::WinId;
use mpicheck_analyzer::text_trace::parse;

fn replay_mode(text: &str, mode: Mode) -> Replay {
    replay(
        &parse(text).unwrap_or_else(|e| panic!("{e}")),
        &ReplayOptions::new(mode),
    )
}

fn findings(text: &str) -> Vec<Diagnostic> {
    run_all_in_every_order(&parse(text).unwrap_or_else(|e| panic!("{e}")))
}

fn codes(text: &str) -> Vec<&'static str> {
    findings(text).iter().map(|d| d.code).collect()
}

/// `ranks` ranks with window 0 on MPI_COMM_WORLD, then `body`.
fn window(ranks: u32, body: &str) -> String {
    format!(
        "ranks {ranks}
         *: init
         *: win_create win=0 size=40 unit=4  @ w.c:1
         {body}"
    )
}

/// The stuck ranks and, for each, the ranks it waits for and on what call of which window.
fn waits(r: &Replay) -> Vec<(u32, Vec<u32>, &'static str, u32)> {
    r.stuck
        .iter()
        .filter_map(|s| match &s.cond {
            WaitCond::Ranks {
                ranks,
                on:
                    WaitOn::Epoch {
                        win: WinId(w),
                        call,
                    },
            } => Some((s.rank, ranks.to_vec(), *call, *w)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_ring_of_epochs_completes_under_strict_rules() {
    // Each rank exposes to its left neighbour and accesses its right one; post first.
    let text = window(
        3,
        "0: win_post win=0 group=2
         1: win_post win=0 group=0
         2: win_post win=0 group=1
         0: win_start win=0 group=1
         1: win_start win=0 group=2
         2: win_start win=0 group=0
         0: put win=0 target=1 disp=0 count=1 type=int
         1: put win=0 target=2 disp=0 count=1 type=int
         2: put win=0 target=0 disp=0 count=1 type=int
         *: win_complete win=0
         *: win_wait win=0
         *: win_free win=0
         *: finalize",
    );
    assert!(replay_mode(&text, Mode::Strict).completed());
    assert_eq!(codes(&text), Vec::<&str>::new());
}

#[test]
fn a_wait_waits_for_every_origin_of_its_post_group() {
    // Rank 2 is in the post group but never starts an epoch: rank 0 waits for ever.
    let text = window(
        3,
        "0: win_post win=0 group=1,2           @ w.c:4
         1: win_start win=0 group=0            @ w.c:5
         1: put win=0 target=0 disp=0 count=1 type=int
         1: win_complete win=0                 @ w.c:7
         0: blocked win_wait win=0             @ w.c:8
         1-2: blocked win_free win=0           @ w.c:9",
    );
    let r = replay_mode(&text, Mode::Recorded);
    assert_eq!(waits(&r), vec![(0, vec![2], "MPI_Win_complete", 0)]);
    let d = findings(&text);
    let dl: Vec<&Diagnostic> = d.iter().filter(|d| d.code == "DL001").collect();
    assert_eq!(dl.len(), 1, "{d:#?}");
    assert!(dl[0].message.contains("ranks 0, 2"), "{}", dl[0].message);
    let graph = dl[0].wait_for.as_ref().expect("graph");
    assert!(
        graph
            .edges
            .iter()
            .any(|e| e.label == "MPI_Win_complete on window 0 (MPI_Win_create on MPI_COMM_WORLD)"),
        "{graph:#?}"
    );
    assert!(dl[0].notes.iter().any(|n| n.contains("§12.5.2")));
    // The twin: rank 2 takes part, and nobody blocks.
    let ok = window(
        3,
        "0: win_post win=0 group=1,2
         1-2: win_start win=0 group=0
         1-2: win_complete win=0
         0: win_wait win=0
         *: win_free win=0
         *: finalize",
    );
    assert!(replay_mode(&ok, Mode::Strict).completed());
    assert_eq!(codes(&ok), Vec::<&str>::new());
}

#[test]
fn a_complete_the_trace_shows_blocked_waits_for_the_targets_post() {
    // Rank 1's start group names rank 2, which never posts; rank 0 posted for rank 1.
    let text = window(
        3,
        "0: win_post win=0 group=1
         1: win_start win=0 group=2
         1: blocked win_complete win=0         @ w.c:6
         0: blocked win_wait win=0             @ w.c:7
         2: blocked win_free win=0             @ w.c:9",
    );
    let r = replay_mode(&text, Mode::Recorded);
    assert_eq!(
        waits(&r),
        vec![
            (0, vec![1], "MPI_Win_complete", 0),
            (1, vec![2], "MPI_Win_post", 0)
        ]
    );
    // Also RM008 twice: rank 1 starts toward rank 2, which never posts to it, and rank 0
    // posts to rank 1, which never starts toward it.
    assert_eq!(codes(&text), vec!["RM008", "RM008", "DL001"]);
}

#[test]
fn a_start_may_wait_for_the_matching_post() {
    // Both ranks start before they post: it ran because neither MPI_Win_start blocked.
    let text = window(
        2,
        "0: win_start win=0 group=1            @ w.c:4
         1: win_start win=0 group=0            @ w.c:4
         *: win_complete win=0                 @ w.c:5
         0: win_post win=0 group=1
         1: win_post win=0 group=0
         *: win_wait win=0
         *: win_free win=0
         *: finalize",
    );
    assert!(replay_mode(&text, Mode::Recorded).completed());
    let strict = replay_mode(&text, Mode::Strict);
    assert_eq!(
        waits(&strict),
        vec![
            (0, vec![1], "MPI_Win_post", 0),
            (1, vec![0], "MPI_Win_post", 0)
        ]
    );
    let d = findings(&text);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "DL002");
    assert!(
        d[0].message
            .contains("unless MPI_Win_start and MPI_Win_complete return without waiting for the matching MPI_Win_post"),
        "{}",
        d[0].message
    );
}

#[test]
fn epochs_match_in_order_per_pair() {
    // Two epochs in a row: the second wait needs the second complete.
    let text = window(
        2,
        "0: win_post win=0 group=1
         1: win_start win=0 group=0
         1: win_complete win=0
         0: win_wait win=0
         0: win_post win=0 group=1
         0: blocked win_wait win=0
         1: blocked win_free win=0",
    );
    let r = replay_mode(&text, Mode::Recorded);
    assert_eq!(waits(&r), vec![(0, vec![1], "MPI_Win_complete", 0)]);
    // Also RM008: rank 1, which freed the window, never starts the second epoch.
    assert_eq!(codes(&text), vec!["RM008", "DL001"]);
}

#[test]
fn a_cycle_through_two_windows_is_an_actual_deadlock() {
    let text = "ranks 2
         *: init
         *: win_create win=0 size=40 unit=4
         *: win_create win=1 size=40 unit=4
         0: win_post win=0 group=1
         1: win_post win=1 group=0
         0: blocked win_wait win=0             @ c.c:10
         1: blocked win_wait win=1             @ c.c:10";
    let r = replay_mode(text, Mode::Recorded);
    assert_eq!(
        waits(&r),
        vec![
            (0, vec![1], "MPI_Win_complete", 0),
            (1, vec![0], "MPI_Win_complete", 1)
        ]
    );
    let d = findings(text);
    assert_eq!(d.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["DL001"]);
    assert!(d[0].message.contains("ranks 0, 1"), "{}", d[0].message);
}

#[test]
fn a_test_loop_waits_and_a_single_successful_test_does_not() {
    // Rank 0 polled until rank 1's epoch completed: a wait, satisfied.
    let polled = window(
        2,
        "0: win_post win=0 group=1
         1: win_start win=0 group=0
         1: win_complete win=0
         0: win_test win=0 flag=0
         0: win_test win=0 flag=1
         *: win_free win=0
         *: finalize",
    );
    assert!(replay_mode(&polled, Mode::Strict).completed());
    assert_eq!(codes(&polled), Vec::<&str>::new());
    // A loop waits for the complete even where the trace's order could not have let it: the
    // origin completes only after a message the target sends after its loop.
    let order = |tests: &str| {
        window(
            2,
            &format!(
                "0: win_post win=0 group=1
                 {tests}
                 0: send dest=1 tag=0
                 1: win_start win=0 group=0
                 1: recv src=0 tag=0
                 1: win_complete win=0
                 *: win_free win=0
                 *: finalize"
            ),
        )
    };
    let looped = order("0: win_test win=0 flag=0\n 0: win_test win=0 flag=1");
    assert_eq!(
        waits(&replay_mode(&looped, Mode::Strict)),
        vec![(0, vec![1], "MPI_Win_complete", 0)]
    );
    // A single successful test waited for nothing.
    let single = order("0: win_test win=0 flag=1");
    assert!(replay_mode(&single, Mode::Strict).completed());
}

#[test]
fn an_epoch_whose_group_is_unknown_is_not_judged() {
    let text = window(
        2,
        "0: win_post win=0
         0: blocked win_wait win=0
         1: blocked win_free win=0",
    );
    let r = replay_mode(&text, Mode::Recorded);
    assert!(waits(&r).is_empty(), "{:?}", r.stuck);
}

#[test]
fn a_fence_missing_on_one_member_is_an_actual_deadlock() {
    let text = window(
        2,
        "0: blocked win_fence win=0            @ f.c:8
         1: blocked barrier                    @ f.c:10",
    );
    let d = findings(&text);
    let dl = d.iter().find(|d| d.code == "DL001").expect("DL001");
    assert!(dl.message.contains("ranks 0, 1"), "{}", dl.message);
}

#[test]
fn a_hung_win_test_loop_stands_for_the_wait() {
    // The run's watcher saw rank 0 poll MPI_Win_test for the whole timeout; rank 1 never
    // starts the epoch.
    let text = window(
        2,
        "0: win_post win=0 group=1
         0: win_test win=0 flag=0              @ t.c:12
         0: end interrupted still polling
         1: blocked win_free win=0             @ t.c:20",
    );
    let mut run = parse(&text).unwrap();
    assert!(mpicheck_analyzer::checks::actual_deadlock(&run).is_none());
    assert!(mpicheck_analyzer::polling::block_trailing_polls(
        &mut run.ranks[0],
        0
    ));
    let dl = mpicheck_analyzer::checks::actual_deadlock(&run).expect("DL001");
    assert_eq!(dl.locations[0].line, Some(12), "{dl:#?}");
    assert!(
        dl.locations[0]
            .label
            .contains("waits for rank 1 to call MPI_Win_complete on window 0"),
        "{dl:#?}"
    );
}

/// Rank 0 holds an exclusive lock on its own window and waits for rank 1's message; rank
/// 1's lock epoch toward rank 0 is blocked in MPI_Win_unlock (the lock is granted lazily)
/// before its send.
const LOCK_CYCLE: &str = "0: win_lock win=0 target=0 type=exclusive   @ l.c:10
         0: blocked recv src=1 tag=0                   @ l.c:11
         1: win_lock win=0 target=0 type=exclusive     @ l.c:20
         1: put win=0 target=0 disp=0 count=1 type=int @ l.c:21
         1: blocked win_unlock win=0 target=0          @ l.c:22";

#[test]
fn a_lock_held_while_waiting_for_the_origin_blocked_on_it_is_a_deadlock() {
    let found = findings(&window(2, LOCK_CYCLE));
    let dl: Vec<_> = found.iter().filter(|d| d.code == "DL001").collect();
    assert_eq!(dl.len(), 1, "{found:#?}");
    let labels: Vec<String> = dl[0]
        .locations
        .iter()
        .map(|l| l.label.to_string())
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l.contains("waits for rank 0 to call MPI_Win_unlock on window 0")),
        "{labels:?}"
    );
    assert!(dl[0]
        .notes
        .iter()
        .any(|n| n.to_string().contains("§12.5.3")));
}

#[test]
fn a_lock_wait_needs_a_conflicting_lock_held_to_the_end() {
    // Shared locks on both sides do not conflict: whatever blocks rank 1, it is not rank 0.
    let shared = LOCK_CYCLE.replace("type=exclusive", "type=shared");
    assert!(codes(&window(2, &shared)).iter().all(|c| *c != "DL001"));
    // Rank 0 unlocked before its receive: nothing holds the lock rank 1 waits for.
    let unlocked = LOCK_CYCLE.replace(
        "0: blocked recv",
        "0: win_unlock win=0 target=0\n         0: blocked recv",
    );
    assert!(codes(&window(2, &unlocked)).iter().all(|c| *c != "DL001"));
    // Rank 1's unlock returned: it did not wait for the lock (the lazy grant came).
    let returned = LOCK_CYCLE.replace(
        "1: blocked win_unlock win=0 target=0          @ l.c:22",
        "1: win_unlock win=0 target=0\n         1: blocked send dest=0 tag=0",
    );
    assert!(codes(&window(2, &returned)).iter().all(|c| *c != "DL001"));
}

/// Each rank locks its own window memory exclusively, puts and flushes (the lock is then
/// granted), then locks the other rank's memory and is stuck in `end` (a flush or an
/// unlock of it), which waits for the lock the other rank holds while stuck the same way.
fn crossed_locks(end: &str) -> String {
    let rank = |r: u32| {
        let o = 1 - r;
        format!(
            "{r}: win_lock win=0 target={r} type=exclusive     @ x.c:10
             {r}: put win=0 target={r} disp=0 count=1 type=int   @ x.c:11
             {r}: win_flush win=0 target={r}                     @ x.c:12
             {r}: win_lock win=0 target={o} type=exclusive       @ x.c:13
             {r}: put win=0 target={o} disp=0 count=1 type=int   @ x.c:14
             {r}: blocked {end} win=0 target={o}                 @ x.c:15\n"
        )
    };
    window(2, &(rank(0) + &rank(1)))
}

#[test]
fn a_holder_blocked_inside_its_granted_epoch_still_holds_the_lock() {
    for end in ["win_flush", "win_unlock"] {
        let found = findings(&crossed_locks(end));
        let dl: Vec<_> = found.iter().filter(|d| d.code == "DL001").collect();
        assert_eq!(dl.len(), 1, "{end}: {found:#?}");
        assert_eq!(dl[0].locations[0].line, Some(15), "{:#?}", dl[0]);
    }
    // Without the flush nothing shows the first lock granted (MPIs grant lazily): a rank
    // stuck later in the epoch is not taken to hold it, and no cycle is made up.
    for end in ["win_flush", "win_unlock"] {
        let lazy = crossed_locks(end).replace("win_flush win=0 target=0 ", "win_sync win=0 ");
        let lazy = lazy.replace("win_flush win=0 target=1 ", "win_sync win=0 ");
        assert!(codes(&lazy).iter().all(|c| *c != "DL001"), "{lazy}");
    }
}
