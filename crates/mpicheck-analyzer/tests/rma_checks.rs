//! One-sided communication checks (RM001-RM006, DR001) on hand-written traces: each
//! positive case next to the correct twin that must produce nothing.

use mpicheck_analyzer::checks::run_all_in_every_order;
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text_trace::parse;

fn findings(text: &str) -> Vec<Diagnostic> {
    run_all_in_every_order(&parse(text).unwrap_or_else(|e| panic!("{e}")))
}

/// (code, line of the first location) of every finding.
fn codes_at(text: &str) -> Vec<(&'static str, Option<u32>)> {
    findings(text)
        .iter()
        .map(|d| (d.code, d.locations.first().and_then(|l| l.line)))
        .collect()
}

/// A window of 40 bytes (10 ints) on each of `ranks` ranks, then `body`, then its free.
fn with_window(ranks: u32, body: &str) -> String {
    format!(
        "ranks {ranks}
         *: init
         *: win_create win=0 size=40 unit=4        @ w.c:1
         {body}
         *: win_free win=0                         @ w.c:99
         *: finalize"
    )
}

#[test]
fn fence_epochs_with_disjoint_puts_report_nothing() {
    let text = with_window(
        3,
        "*: win_fence win=0                        @ w.c:5
         1: put win=0 target=0 disp=0 count=1 type=int   @ w.c:6
         2: put win=0 target=0 disp=1 count=1 type=int   @ w.c:6
         0: get win=0 target=1 disp=0 count=10 type=int  @ w.c:7
         *: win_fence win=0                        @ w.c:8
         1: put win=0 target=0 disp=1 count=1 type=int   @ w.c:9
         *: win_fence win=0 assert=nosucceed       @ w.c:10",
    );
    assert_eq!(codes_at(&text), vec![]);
}

#[test]
fn a_put_before_any_fence_or_after_nosucceed_is_outside_an_epoch() {
    let text = with_window(
        2,
        "0: put win=0 target=1 disp=0 count=1 type=int   @ w.c:4
         *: win_fence win=0                        @ w.c:5
         *: win_fence win=0 assert=nosucceed       @ w.c:8
         1: get win=0 target=0 disp=0 count=1 type=int   @ w.c:9",
    );
    assert_eq!(
        codes_at(&text),
        vec![("RM001", Some(4)), ("RM001", Some(9))]
    );
    let d = findings(&text);
    assert!(
        d[0].message.contains("MPI_Put to rank 1 in window 0")
            && d[0].message.contains("outside any access epoch"),
        "{}",
        d[0].message
    );
    assert!(
        d[1].message.contains("MPI_MODE_NOSUCCEED"),
        "{}",
        d[1].message
    );
}

#[test]
fn lock_epochs_cover_their_target_only() {
    let ok = with_window(
        2,
        "0: win_lock win=0 target=1                @ w.c:4
         0: put win=0 target=1 disp=0 count=1 type=int   @ w.c:5
         0: win_flush win=0 target=1
         0: win_unlock win=0 target=1              @ w.c:6
         1: win_lock_all win=0                     @ w.c:7
         1: rget win=0 target=0 disp=0 count=1 type=int  @ w.c:8
         1: win_unlock_all win=0                   @ w.c:9",
    );
    assert_eq!(codes_at(&ok), vec![]);
    let wrong_target = with_window(
        2,
        "0: win_lock win=0 target=1                @ w.c:4
         0: put win=0 target=0 disp=0 count=1 type=int   @ w.c:5
         0: win_unlock win=0 target=1              @ w.c:6",
    );
    assert_eq!(codes_at(&wrong_target), vec![("RM001", Some(5))]);
}

#[test]
fn unlock_without_lock_and_double_lock_are_unmatched() {
    let text = with_window(
        2,
        "0: win_lock win=0 target=1                @ w.c:4
         0: win_lock win=0 target=1                @ w.c:5
         0: win_unlock win=0 target=1              @ w.c:6
         0: win_unlock win=0 target=1              @ w.c:7
         1: win_unlock_all win=0                   @ w.c:8",
    );
    assert_eq!(
        codes_at(&text),
        vec![("RM002", Some(5)), ("RM002", Some(7)), ("RM002", Some(8))]
    );
    let d = findings(&text);
    assert!(
        d[0].message.contains("already holds a lock on rank 1"),
        "{}",
        d[0].message
    );
    assert!(
        d[1].message.contains("without a matching MPI_Win_lock"),
        "{}",
        d[1].message
    );
}

#[test]
fn pscw_pairs_are_checked() {
    let ok = with_window(
        2,
        "1: win_post win=0                         @ w.c:4
         0: win_start win=0                        @ w.c:5
         0: put win=0 target=1 disp=0 count=1 type=int   @ w.c:6
         0: win_complete win=0                     @ w.c:7
         1: win_test win=0 flag=0                  @ w.c:8
         1: win_wait win=0                         @ w.c:9",
    );
    assert_eq!(codes_at(&ok), vec![]);
    let text = with_window(
        2,
        "0: win_complete win=0                     @ w.c:4
         1: win_wait win=0                         @ w.c:5",
    );
    assert_eq!(
        codes_at(&text),
        vec![("RM002", Some(4)), ("RM002", Some(5))]
    );
    assert!(findings(&text)[0]
        .message
        .contains("MPI_Win_complete in window 0 (MPI_Win_create on MPI_COMM_WORLD) without a matching MPI_Win_start"));
}

#[test]
fn freeing_a_window_inside_an_epoch_is_reported() {
    let text = "ranks 2
        *: init
        *: win_create win=0 size=40 unit=4          @ w.c:1
        0: win_lock win=0 target=1                  @ w.c:2
        *: win_fence win=0                          @ w.c:3
        1: put win=0 target=0 disp=0 count=1 type=int   @ w.c:4
        *: win_free win=0                           @ w.c:5
        *: finalize";
    assert_eq!(codes_at(text), vec![("RM003", Some(5)), ("RM003", Some(5))]);
    let d = findings(text);
    let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("an open lock on rank 1 (MPI_Win_lock)")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("RMA calls since the last MPI_Win_fence")),
        "{messages:?}"
    );
    // Completed by a fence, the epoch left open by the last fence holds nothing.
    let ok = with_window(
        2,
        "*: win_fence win=0
         1: put win=0 target=0 disp=0 count=1 type=int
         *: win_fence win=0",
    );
    assert_eq!(codes_at(&ok), vec![]);
}

#[test]
fn request_based_rma_in_a_fence_epoch_is_reported() {
    let text = with_window(
        2,
        "*: win_fence win=0                        @ w.c:4
         0: rput win=0 target=1 disp=0 count=1 type=int  @ w.c:5
         *: win_fence win=0                        @ w.c:6",
    );
    assert_eq!(codes_at(&text), vec![("RM004", Some(5))]);
    assert!(findings(&text)[0].message.contains("MPI_Rput to rank 1"));
}

#[test]
fn target_ranks_outside_the_window_group_are_reported() {
    let text = "ranks 3
        comm 1 members 0 1
        *: init
        0-1: win_create win=0 comm=1 size=40 unit=4   @ w.c:1
        0-1: win_fence win=0 comm=1
        0: put win=0 target=2 disp=0 count=1 type=int  @ w.c:3
        0: put win=0 target=null disp=0 count=1 type=int
        0-1: win_fence win=0 comm=1
        0: win_lock win=0 target=5                     @ w.c:5
        0-1: win_free win=0 comm=1
        *: finalize";
    assert_eq!(codes_at(text), vec![("RM005", Some(3)), ("RM005", Some(5))]);
    let d = findings(text);
    assert!(
        d[0].message
            .contains("target_rank = 2, outside the 2 ranks of window 0"),
        "{}",
        d[0].message
    );
}

#[test]
fn accesses_past_the_target_window_are_reported_with_the_target_disp_unit() {
    // Rank 1 exposes 8 bytes with disp_unit 1: displacement 6 and 4 bytes end at byte 10.
    let text = "ranks 2
        *: init
        0: win_create win=0 size=40 unit=4   @ w.c:1
        1: win_create win=0 size=8 unit=1    @ w.c:1
        *: win_fence win=0
        0: put win=0 target=1 disp=6 count=1 type=int   @ w.c:3
        0: put win=0 target=1 disp=0 count=1 type=int   @ w.c:4
        1: get win=0 target=0 disp=9 count=1 type=int   @ w.c:5
        1: get win=0 target=0 disp=-1 count=1 type=int  @ w.c:6
        *: win_fence win=0
        *: win_free win=0
        *: finalize";
    assert_eq!(codes_at(text), vec![("RM006", Some(3)), ("RM006", Some(6))]);
    let d = findings(text);
    assert!(d[0].message.contains("bytes 6..10"), "{}", d[0].message);
    assert!(
        d[0].message.contains("which has 8 bytes"),
        "{}",
        d[0].message
    );
    assert!(d[1].message.contains("negative"), "{}", d[1].message);
    // A dynamic window has no size to judge by: its displacements are addresses in the
    // memory the target attached.
    let dynamic = "ranks 2
        *: init
        *: win_create_dynamic win=0
        1: win_attach win=0 base=4000 size=4
        *: win_fence win=0
        0: put win=0 target=1 disp=4000 count=1 type=int
        *: win_fence win=0
        *: win_free win=0
        *: finalize";
    assert_eq!(codes_at(dynamic), vec![]);
}

#[test]
fn overlapping_puts_from_two_origins_in_one_fence_epoch_race() {
    let text = with_window(
        3,
        "*: win_fence win=0                                  @ w.c:4
         1: put win=0 target=0 disp=0 count=2 type=int       @ w.c:5
         2: put win=0 target=0 disp=1 count=2 type=int       @ w.c:6
         *: win_fence win=0                                  @ w.c:7",
    );
    let d = findings(&text);
    assert_eq!(codes_at(&text), vec![("DR001", Some(5))]);
    assert_eq!(
        d[0].message,
        "MPI_Put from rank 1 (w.c:5) and MPI_Put from rank 2 (w.c:6) access bytes 4..8 of \
         rank 0 in window 0 (MPI_Win_create on MPI_COMM_WORLD) in the same fence epoch, and both \
         write them"
    );
    assert_eq!(d[0].locations.len(), 2);
    assert_eq!(d[0].locations[1].line, Some(6));
    assert_eq!(d[0].locations[0].label, "writes bytes 0..8 of rank 0");
}

#[test]
fn conflicts_need_overlap_a_write_and_the_same_epoch() {
    // Separated by a fence, reads only, disjoint bytes, other targets: no conflict.
    let ok = with_window(
        3,
        "*: win_fence win=0
         1: put win=0 target=0 disp=0 count=1 type=int
         *: win_fence win=0
         2: put win=0 target=0 disp=0 count=1 type=int
         1: get win=0 target=0 disp=1 count=3 type=int
         *: win_fence win=0
         1: get win=0 target=2 disp=0 count=4 type=int
         2: get win=0 target=2 disp=0 count=4 type=int
         0: put win=0 target=1 disp=0 count=1 type=int
         2: put win=0 target=0 disp=0 count=1 type=int
         *: win_fence win=0",
    );
    assert_eq!(codes_at(&ok), vec![]);
    let read_write = with_window(
        3,
        "*: win_fence win=0                                  @ w.c:4
         1: get win=0 target=0 disp=2 count=1 type=int       @ w.c:5
         2: accumulate win=0 target=0 disp=0 count=4 type=int op=sum   @ w.c:6
         *: win_fence win=0",
    );
    let d = findings(&read_write);
    assert_eq!(codes_at(&read_write), vec![("DR001", Some(5))]);
    assert!(d[0]
        .message
        .contains("one writes them while the other reads them"));
}

#[test]
fn concurrent_accumulates_with_one_op_and_type_are_allowed() {
    let ok = with_window(
        3,
        "*: win_fence win=0
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=sum
         2: accumulate win=0 target=0 disp=0 count=1 type=int op=sum
         1: get_accumulate win=0 target=0 disp=0 count=1 type=int op=no_op
         2: fetch_and_op win=0 target=0 disp=0 type=int op=sum
         *: win_fence win=0",
    );
    assert_eq!(codes_at(&ok), vec![]);
    let mixed = with_window(
        3,
        "*: win_fence win=0
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=sum   @ w.c:5
         2: accumulate win=0 target=0 disp=0 count=1 type=int op=max   @ w.c:6
         *: win_fence win=0",
    );
    assert_eq!(codes_at(&mixed), vec![("DR001", Some(5))]);
}

#[test]
fn concurrent_accumulates_compare_basic_datatypes_not_handles() {
    // Each origin builds its own derived type of ints (as PETSc's star forests do): the
    // ints are still updated atomically.
    let declare = "type two_ints 2*int
         type one_int 1*int
         type int_double 1*int,1*double
         ";
    let ok = with_window(
        3,
        &(declare.to_string()
            + "*: win_fence win=0
               1: accumulate win=0 target=0 disp=0 count=1 type=two_ints op=sum
               2: accumulate win=0 target=0 disp=0 count=1 type=one_int op=sum
               2: accumulate win=0 target=0 disp=0 count=2 type=int op=sum
               *: win_fence win=0"),
    );
    assert_eq!(codes_at(&ok), vec![]);
    let mixed = with_window(
        3,
        &(declare.to_string()
            + "*: win_fence win=0
               1: accumulate win=0 target=0 disp=0 count=1 type=two_ints op=sum     @ w.c:5
               2: accumulate win=0 target=0 disp=0 count=1 type=int_double op=sum   @ w.c:6
               *: win_fence win=0"),
    );
    // A datatype of ints and doubles is no accumulate's datatype at all (RM009).
    assert_eq!(
        codes_at(&mixed),
        vec![("RM009", Some(6)), ("DR001", Some(5))]
    );
}

#[test]
fn the_same_pair_of_call_sites_is_reported_once() {
    // Every rank but 0 puts to element 0 of rank 0 from one line: one finding.
    let text = with_window(
        6,
        "*: win_fence win=0                                  @ w.c:4
         1-5: put win=0 target=0 disp=0 count=1 type=int     @ w.c:5
         *: win_fence win=0",
    );
    let d = findings(&text);
    assert_eq!(codes_at(&text), vec![("DR001", Some(5))]);
    assert_eq!(d[0].locations[0].ranks, vec![1, 2, 3, 4]);
    assert_eq!(d[0].locations[1].ranks, vec![2, 3, 4, 5]);
    // 10 pairs among 5 origins; folded locations do not name one target.
    assert!(
        d[0].message
            .ends_with("(9 more conflicting pairs of calls at these two lines)"),
        "{}",
        d[0].message
    );
    assert_eq!(
        d[0].locations[0].label,
        "writes target bytes the other call also accesses"
    );
}

/// Ranks 1 and 2 each put into rank 0 under a lock of `lock_type` between the same two
/// barriers, at the given displacements; `between` runs on rank 2 before its epoch.
fn shared_epochs(lock_type: &str, disp_2: u32, between: &str) -> String {
    with_window(
        3,
        &format!(
            "*: barrier                                        @ w.c:3
             1-2: win_lock win=0 target=0 type={lock_type}    @ w.c:4
             1: put win=0 target=0 disp=0 count=2 type=int    @ w.c:5
             {between}
             2: put win=0 target=0 disp={disp_2} count=1 type=int @ w.c:5
             1-2: win_unlock win=0 target=0                   @ w.c:6
             *: barrier                                        @ w.c:7"
        ),
    )
}

#[test]
fn puts_to_the_same_bytes_under_shared_locks_race() {
    let text = shared_epochs("shared", 1, "");
    assert_eq!(codes_at(&text), vec![("DR003", Some(5))]);
    let d = &findings(&text)[0];
    assert!(
        d.message.contains("MPI_Put from rank 1 (w.c:5) and MPI_Put from rank 2 (w.c:5) access bytes 4..8 of rank 0 in window 0")
            && d.message.contains("shared-lock epochs nothing orders"),
        "{}",
        d.message
    );
    assert_eq!(d.locations[0].ranks, vec![1]);
    assert_eq!(d.locations[1].ranks, vec![2]);
}

#[test]
fn shared_lock_epochs_that_cannot_race_report_nothing() {
    // Exclusive locks serialize the epochs; disjoint bytes do not conflict; a message
    // between the epochs may order them; accumulates with one op may overlap.
    assert_eq!(codes_at(&shared_epochs("exclusive", 1, "")), vec![]);
    assert_eq!(codes_at(&shared_epochs("shared", 2, "")), vec![]);
    // A message sent inside rank 1's epoch does not order its put, which completes only at
    // the unlock.
    let inside = shared_epochs("shared", 1, "1: send dest=2 tag=0\n 2: recv src=1 tag=0");
    assert_eq!(codes_at(&inside), vec![("DR003", Some(5))]);
    let sums = shared_epochs("shared", 1, "").replace("put win=0", "accumulate op=sum win=0");
    assert_eq!(codes_at(&sums), vec![]);
    // Unknown lock type (an MPI that did not record it): not judged.
    assert_eq!(
        codes_at(&shared_epochs("shared", 1, "").replace(" type=shared", "")),
        vec![]
    );
}

/// Rank 1 makes two shared-lock epochs on rank 0, rank 2 one, between the same barriers;
/// `order` runs on rank 1 inside its second epoch.
fn epochs_without_collectives(order: &str) -> String {
    with_window(
        3,
        &format!(
            "*: barrier                                        @ w.c:3
             1: win_lock win=0 target=0 type=shared           @ w.c:4
             1: put win=0 target=0 disp=1 count=1 type=int    @ w.c:5
             1: win_unlock win=0 target=0                     @ w.c:6
             1: win_lock win=0 target=0 type=shared           @ w.c:7
             1: put win=0 target=0 disp=0 count=1 type=int    @ w.c:8
             1: win_flush win=0 target=0                      @ w.c:9
             {order}
             1: put win=0 target=0 disp=3 count=1 type=int    @ w.c:10
             1: win_unlock win=0 target=0                     @ w.c:11
             2: win_lock win=0 target=0 type=shared           @ w.c:12
             2: get win=0 target=0 disp=0 count=1 type=int    @ w.c:13
             2: win_unlock win=0 target=0                     @ w.c:14
             *: barrier                                        @ w.c:20"
        ),
    )
}

#[test]
fn every_shared_lock_epoch_of_an_origin_is_compared() {
    // Rank 1's second epoch in the stretch conflicts with rank 2's (missed when only an
    // origin's first epoch was read).
    let text = epochs_without_collectives("");
    assert_eq!(codes_at(&text), vec![("DR003", Some(8))]);
    let d = &findings(&text)[0];
    assert!(
        d.message.starts_with("MPI_Put from rank 1 (w.c:8) and MPI_Get from rank 2 (w.c:13) access bytes 0..4 of rank 0 in window 0 (MPI_Win_create on MPI_COMM_WORLD) in shared-lock epochs nothing orders, and one writes them while the other reads them"),
        "{}",
        d.message
    );
    // A message after the flush that completes the put, received before the get, orders
    // them, although both epochs are still open.
    let flushed = with_window(
        3,
        "*: barrier                                        @ w.c:3
         1: win_lock win=0 target=0 type=shared           @ w.c:4
         1: put win=0 target=0 disp=0 count=1 type=int    @ w.c:5
         1: win_flush win=0 target=0                      @ w.c:6
         1: send dest=2 tag=0                             @ w.c:7
         1: win_unlock win=0 target=0                     @ w.c:8
         2: recv src=1 tag=0                              @ w.c:9
         2: win_lock win=0 target=0 type=shared           @ w.c:10
         2: get win=0 target=0 disp=0 count=1 type=int    @ w.c:11
         2: win_unlock win=0 target=0                     @ w.c:12
         *: barrier                                        @ w.c:20",
    );
    assert_eq!(codes_at(&flushed), vec![]);
    // Without the flush, the put completes only at the unlock, after the message.
    assert_eq!(
        codes_at(&flushed.replace("1: win_flush win=0 target=0", "1: win_sync win=0")),
        vec![("DR003", Some(5))]
    );
}

#[test]
fn lock_all_epochs_race_like_shared_locks() {
    let text = with_window(
        2,
        "*: barrier                                        @ w.c:3
         *: win_lock_all win=0                            @ w.c:4
         0: put win=0 target=1 disp=2 count=1 type=int    @ w.c:5
         1: put win=0 target=1 disp=2 count=1 type=int    @ w.c:6
         *: win_unlock_all win=0                          @ w.c:7
         *: barrier                                        @ w.c:8",
    );
    assert_eq!(codes_at(&text), vec![("DR003", Some(5))]);
    // A flush and a barrier inside the lock_all epoch order them.
    let ordered = text.replace(
        "1: put win=0",
        "0: win_flush_all win=0\n *: barrier\n 1: put win=0",
    );
    assert_eq!(codes_at(&ordered), vec![]);
}

#[test]
fn a_flag_set_by_an_accumulate_and_fetched_by_the_other_origin_orders_accesses() {
    // Rank 1 writes data, flushes, then sets a flag with MPI_Accumulate; rank 2 polls the
    // flag with MPI_Fetch_and_op and then reads the data: the flag orders them.
    let text = with_window(
        3,
        "*: barrier                                        @ w.c:3
         1-2: win_lock win=0 target=0 type=shared         @ w.c:4
         1: put win=0 target=0 disp=0 count=2 type=int    @ w.c:5
         1: win_flush win=0 target=0                      @ w.c:6
         1: accumulate op=replace win=0 target=0 disp=9 count=1 type=int @ w.c:7
         2: fetch_and_op op=no_op win=0 target=0 disp=9 count=1 type=int @ w.c:8
         2: get win=0 target=0 disp=0 count=2 type=int    @ w.c:9
         1-2: win_unlock win=0 target=0                   @ w.c:10
         *: barrier                                        @ w.c:20",
    );
    assert_eq!(codes_at(&text), vec![]);
    // A flag on other bytes than the one polled orders nothing.
    assert_eq!(
        codes_at(&text.replace(
            "op=replace win=0 target=0 disp=9",
            "op=replace win=0 target=0 disp=8"
        )),
        vec![("DR003", Some(5))]
    );
}

#[test]
fn a_loop_of_accesses_past_the_window_is_one_finding_per_call_site() {
    // Three iterations of one get, each past rank 1's 4 bytes: the first is reported and
    // counts the others; another call site is its own finding.
    let text = "ranks 2
        *: init
        0: win_create win=0 size=40 unit=4   @ w.c:1
        1: win_create win=0 size=4 unit=4    @ w.c:1
        *: win_fence win=0
        0: get win=0 target=1 disp=1 count=1 type=int   @ w.c:3
        0: get win=0 target=1 disp=2 count=1 type=int   @ w.c:3
        0: get win=0 target=1 disp=3 count=1 type=int   @ w.c:3
        0: put win=0 target=1 disp=5 count=1 type=int   @ w.c:4
        *: win_fence win=0
        *: win_free win=0
        *: finalize";
    assert_eq!(codes_at(text), vec![("RM006", Some(3)), ("RM006", Some(4))]);
    let d = findings(text);
    assert!(d[0].message.contains("bytes 4..8"), "{}", d[0].message);
    assert!(
        d[0].message.contains("(and 2 more such calls from here)"),
        "{}",
        d[0].message
    );
    assert!(
        !d[1].message.contains("more such calls"),
        "{}",
        d[1].message
    );
}

#[test]
fn a_target_type_with_holes_is_bounded_by_its_last_byte_and_not_judged_for_conflicts() {
    // Two vectors whose elements reach bytes 0..36 from the displacement (their true
    // extent): from element 2 they end at byte 44 of 40. Two origins' vectors interleave
    // without sharing a byte: their spans overlap, but spans never make a conflict.
    let text = with_window(
        3,
        "*: win_fence win=0                        @ w.c:5
         1: put win=0 target=0 disp=0 count=2 type=int span=0..36  @ w.c:6
         2: put win=0 target=0 disp=1 count=2 type=int span=0..36  @ w.c:7
         1: put win=0 target=2 disp=2 count=2 type=int span=0..36  @ w.c:8
         *: win_fence win=0                        @ w.c:9",
    );
    assert_eq!(codes_at(&text), vec![("RM006", Some(8))]);
    let d = findings(&text);
    assert!(d[0].message.contains("bytes 8..44"), "{}", d[0].message);
}

/// A dynamic window: rank 1 attaches 16 bytes at 4096 and 16 at 8192; rank 0 accesses
/// it between fences with `body`.
fn dynamic_window(body: &str) -> String {
    format!(
        "ranks 2
         *: init
         *: win_create_dynamic win=0                     @ d.c:1
         1: win_attach win=0 base=4096 size=16           @ d.c:2
         1: win_attach win=0 base=8192 size=16           @ d.c:3
         *: win_fence win=0                              @ d.c:4
         {body}
         *: win_fence win=0                              @ d.c:20
         *: win_free win=0                               @ d.c:21
         *: finalize"
    )
}

#[test]
fn dynamic_window_accesses_must_lie_in_attached_memory() {
    let ok = dynamic_window(
        "0: put win=0 target=1 disp=4096 count=4 type=int   @ d.c:5
         0: get win=0 target=1 disp=8196 count=3 type=int   @ d.c:6",
    );
    // Freeing the window with memory attached is allowed (MPI 4.1 §12.2.4).
    assert_eq!(codes_at(&ok), vec![]);
    let bad = dynamic_window(
        "0: put win=0 target=1 disp=4100 count=4 type=int   @ d.c:5
         0: get win=0 target=1 disp=12288 count=1 type=int  @ d.c:6",
    );
    assert_eq!(codes_at(&bad), vec![("RM006", Some(5)), ("RM006", Some(6))]);
    let d = findings(&bad);
    assert!(
        d[0].message.ends_with("reaches addresses 0x1004..0x1014 at the target, past the 16 bytes it attached at 0x1000"),
        "{}",
        d[0].message
    );
    assert!(
        d[1].message.ends_with("where it attached no memory"),
        "{}",
        d[1].message
    );
}

#[test]
fn dynamic_window_memory_detached_before_the_access_or_never_attached() {
    // Rank 1 detaches the memory at 8192 and a barrier orders that before rank 0's put.
    let text = dynamic_window(
        "1: win_detach win=0 base=8192                      @ d.c:7
         *: barrier                                         @ d.c:8
         0: put win=0 target=1 disp=8192 count=1 type=int   @ d.c:9
         1: win_detach win=0 base=12288                     @ d.c:10",
    );
    assert_eq!(
        codes_at(&text),
        vec![("RM002", Some(10)), ("RM006", Some(9))]
    );
    let d = findings(&text);
    assert!(
        d[1].message
            .ends_with("in memory it detached before (d.c:7)"),
        "{}",
        d[1].message
    );
    // Without the barrier nothing says the detach came first: not judged.
    let unordered = text.replace(
        "*: barrier                                         @ d.c:8",
        "",
    );
    assert_eq!(codes_at(&unordered), vec![("RM002", Some(10))]);
}

#[test]
fn dynamic_window_conflicts_are_keyed_by_address() {
    let text = dynamic_window(
        "0: put win=0 target=1 disp=4096 count=2 type=int   @ d.c:5
         1: put win=0 target=1 disp=4100 count=1 type=int   @ d.c:6
         1: put win=0 target=1 disp=8192 count=1 type=int   @ d.c:7",
    );
    assert_eq!(codes_at(&text), vec![("DR001", Some(5))]);
}

/// Ranks 1 and 2 each lock rank 0 between the same barriers: rank 1 exclusively with
/// MPI_MODE_NOCHECK, rank 2 with `other`; `between` runs after rank 1's epoch.
fn nocheck_lock(other: &str, between: &str) -> String {
    with_window(
        3,
        &format!(
            "*: barrier                                                   @ w.c:3
             1: win_lock win=0 target=0 type=exclusive assert=nocheck    @ w.c:4
             1: put win=0 target=0 disp=0 count=1 type=int               @ w.c:5
             1: win_unlock win=0 target=0                                @ w.c:6
             {between}
             2: win_lock win=0 target=0 type={other}                     @ w.c:7
             2: put win=0 target=0 disp=4 count=1 type=int               @ w.c:8
             2: win_unlock win=0 target=0                                @ w.c:9
             *: barrier                                                   @ w.c:10"
        ),
    )
}

#[test]
fn a_nocheck_lock_overlapping_a_conflicting_lock_epoch_is_reported() {
    for other in ["shared", "exclusive"] {
        let text = nocheck_lock(other, "");
        assert_eq!(codes_at(&text), vec![("RM007", Some(4))], "{other}");
        let d = &findings(&text)[0];
        assert!(
            d.message.starts_with(
                "MPI_Win_lock of rank 0 with MPI_MODE_NOCHECK on rank 1 (w.c:4) overlaps the"
            ),
            "{}",
            d.message
        );
        assert_eq!(d.locations[1].line, Some(7));
    }
    // A message after rank 1's unlock, received before rank 2's lock, orders them.
    let ordered = nocheck_lock("exclusive", "1: send dest=2 tag=0\n 2: recv src=1 tag=0");
    assert_eq!(codes_at(&ordered), vec![]);
    // NOCHECK on shared locks only: no conflicting lock.
    let shared = nocheck_lock("shared", "").replace("type=exclusive assert", "type=shared assert");
    assert_eq!(codes_at(&shared), vec![]);
    // A lock_all epoch is a shared lock of every target.
    let all = nocheck_lock("shared", "")
        .replace(
            "2: win_lock win=0 target=0 type=shared",
            "2: win_lock_all win=0",
        )
        .replace("2: win_unlock win=0 target=0", "2: win_unlock_all win=0");
    assert_eq!(codes_at(&all), vec![("RM007", Some(4))]);
}
