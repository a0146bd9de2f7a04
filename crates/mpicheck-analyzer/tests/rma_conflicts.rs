//! Conflicting accesses (DR001) outside fence epochs: of several origins in one exposure
//! epoch of a target (PSCW), and of one origin in one access epoch or one lock epoch with
//! no flush between the calls; each positive case next to the correct twin that must
//! produce nothing.

use mpicheck_analyzer::checks::{run_all_in_every_order, run_checks};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text_trace::parse;

fn findings(text: &str) -> Vec<Diagnostic> {
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    run_all_in_every_order(&run);
    run_checks(&run, &["DR001", "DR003"]).unwrap()
}

/// (code, line of the first location, line of the second) of every finding.
fn found(text: &str) -> Vec<(&'static str, Option<u32>, Option<u32>)> {
    findings(text)
        .iter()
        .map(|d| {
            let line = |i: usize| d.locations.get(i).and_then(|l| l.line);
            (d.code, line(0), line(1))
        })
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

/// Rank 0 exposes its window to ranks 1 and 2 in one epoch; rank 1 runs `one`, rank 2
/// runs `two` in their access epochs.
fn exposure(one: &str, two: &str) -> String {
    with_window(
        3,
        &format!(
            "0: win_post win=0 group=1,2                   @ w.c:3
             1-2: win_start win=0 group=0                  @ w.c:4
             1: {one}                                      @ w.c:5
             2: {two}                                      @ w.c:6
             1-2: win_complete win=0                       @ w.c:7
             0: win_wait win=0                             @ w.c:8"
        ),
    )
}

const PUT_0: &str = "put win=0 target=0 disp=0 count=1 type=int";

#[test]
fn puts_of_two_origins_in_one_exposure_epoch_conflict() {
    let text = exposure(PUT_0, PUT_0);
    assert_eq!(found(&text), vec![("DR001", Some(5), Some(6))]);
    let d = &findings(&text)[0];
    assert_eq!(
        d.message,
        "MPI_Put from rank 1 (w.c:5) and MPI_Put from rank 2 (w.c:6) access bytes 0..4 of rank 0 \
         in window 0 (MPI_Win_create on MPI_COMM_WORLD) in the same exposure epoch of rank 0 \
         (MPI_Win_post at w.c:3), and both write them"
    );
    assert_eq!(d.locations[0].label, "writes bytes 0..4 of rank 0");
    assert!(
        d.help.as_ref().unwrap().contains("MPI_Win_wait"),
        "{:?}",
        d.help
    );
    // A get of the written bytes conflicts too.
    let get = "get win=0 target=0 disp=0 count=2 type=int";
    assert_eq!(
        found(&exposure(get, PUT_0)),
        vec![("DR001", Some(5), Some(6))]
    );
}

#[test]
fn disjoint_bytes_reads_and_concurrent_accumulates_of_one_exposure_epoch_are_allowed() {
    let second = "put win=0 target=0 disp=1 count=1 type=int";
    assert_eq!(found(&exposure(PUT_0, second)), vec![]);
    let get = "get win=0 target=0 disp=0 count=4 type=int";
    assert_eq!(found(&exposure(get, get)), vec![]);
    let sum = "accumulate win=0 target=0 disp=0 count=1 type=int op=sum";
    assert_eq!(found(&exposure(sum, sum)), vec![]);
    let max = "accumulate win=0 target=0 disp=0 count=1 type=int op=max";
    assert_eq!(
        found(&exposure(sum, max)),
        vec![("DR001", Some(5), Some(6))]
    );
}

#[test]
fn separate_exposure_epochs_of_the_target_order_the_origins() {
    // Rank 0 exposes its window to rank 1, then in a second epoch to rank 2.
    let text = with_window(
        3,
        &format!(
            "0: win_post win=0 group=1                     @ w.c:3
             1: win_start win=0 group=0                    @ w.c:4
             1: {PUT_0}                                    @ w.c:5
             1: win_complete win=0                         @ w.c:6
             0: win_wait win=0                             @ w.c:7
             0: win_post win=0 group=2                     @ w.c:8
             2: win_start win=0 group=0                    @ w.c:9
             2: {PUT_0}                                    @ w.c:10
             2: win_complete win=0                         @ w.c:11
             0: win_test win=0 flag=1                      @ w.c:12"
        ),
    );
    assert_eq!(found(&text), vec![]);
}

#[test]
fn one_origin_putting_and_getting_the_same_element_in_one_access_epoch_conflicts() {
    let text = with_window(
        2,
        "0: win_post win=0 group=1                      @ w.c:3
         1: win_start win=0 group=0                     @ w.c:4
         1: put win=0 target=0 disp=2 count=1 type=int  @ w.c:5
         1: get win=0 target=0 disp=0 count=4 type=int  @ w.c:6
         1: win_complete win=0                          @ w.c:7
         0: win_wait win=0                              @ w.c:8",
    );
    assert_eq!(found(&text), vec![("DR001", Some(5), Some(6))]);
    let d = &findings(&text)[0];
    assert_eq!(
        d.message,
        "MPI_Put from rank 1 (w.c:5) and MPI_Get from rank 1 (w.c:6) access bytes 8..12 of rank 0 \
         in window 0 (MPI_Win_create on MPI_COMM_WORLD) in the same access epoch, and one writes \
         them while the other reads them"
    );
    assert!(d.notes[0].contains("§12.7.2"), "{:?}", d.notes);
    // Without a known post (the start's group was not followed), still one access epoch.
    let unknown = text.replace("1: win_start win=0 group=0", "1: win_start win=0");
    assert_eq!(found(&unknown), vec![("DR001", Some(5), Some(6))]);
}

#[test]
fn accumulates_of_one_origin_are_ordered_and_separate_epochs_are_too() {
    // MPI orders one origin's accumulates to one target (accumulate_ordering), whatever
    // their operations; a get after them is not ordered.
    let accumulates = with_window(
        2,
        "0: win_post win=0 group=1                                      @ w.c:3
         1: win_start win=0 group=0                                     @ w.c:4
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=sum    @ w.c:5
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=max    @ w.c:6
         1: fetch_and_op win=0 target=0 disp=0 type=int op=sum          @ w.c:7
         1: compare_and_swap win=0 target=0 disp=0 type=int             @ w.c:8
         1: get_accumulate win=0 target=0 disp=0 count=1 type=int op=no_op @ w.c:9
         1: win_complete win=0                                          @ w.c:10
         0: win_wait win=0                                              @ w.c:11",
    );
    assert_eq!(found(&accumulates), vec![]);
    let then_get = accumulates.replace(
        "get_accumulate win=0 target=0 disp=0 count=1 type=int op=no_op",
        "get win=0 target=0 disp=0 count=1 type=int",
    );
    // The get conflicts with each of the four writing accumulates before it.
    assert_eq!(
        found(&then_get),
        (5..=8)
            .map(|line| ("DR001", Some(line), Some(9)))
            .collect::<Vec<_>>()
    );
    // Each access in its own access epoch: ordered by MPI_Win_complete.
    let epochs = with_window(
        2,
        "0: win_post win=0 group=1                      @ w.c:3
         1: win_start win=0 group=0                     @ w.c:4
         1: put win=0 target=0 disp=0 count=1 type=int  @ w.c:5
         1: win_complete win=0                          @ w.c:6
         0: win_wait win=0                              @ w.c:7
         0: win_post win=0 group=1                      @ w.c:8
         1: win_start win=0 group=0                     @ w.c:9
         1: get win=0 target=0 disp=0 count=1 type=int  @ w.c:10
         1: win_complete win=0                          @ w.c:11
         0: win_wait win=0                              @ w.c:12",
    );
    assert_eq!(found(&epochs), vec![]);
}

#[test]
fn one_origin_in_one_fence_epoch_conflicts_except_its_accumulates() {
    let put_get = with_window(
        2,
        "*: win_fence win=0                              @ w.c:3
         1: put win=0 target=0 disp=0 count=1 type=int   @ w.c:4
         1: get win=0 target=0 disp=0 count=1 type=int   @ w.c:5
         *: win_fence win=0                              @ w.c:6",
    );
    assert_eq!(found(&put_get), vec![("DR001", Some(4), Some(5))]);
    assert!(findings(&put_get)[0]
        .message
        .contains("in the same fence epoch, and one writes them while the other reads them"));
    let accumulates = with_window(
        2,
        "*: win_fence win=0                                            @ w.c:3
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=sum   @ w.c:4
         1: accumulate win=0 target=0 disp=0 count=1 type=int op=max   @ w.c:5
         *: win_fence win=0                                            @ w.c:6",
    );
    assert_eq!(found(&accumulates), vec![]);
}

/// Rank 1 locks rank 0 with `lock` (a `win_lock ... type=` value or `all`), runs `body`
/// on element 0..2 of rank 0, and unlocks.
fn lock_epoch(lock: &str, body: &str) -> String {
    let (open, close) = if lock == "all" {
        (
            "1: win_lock_all win=0".to_string(),
            "1: win_unlock_all win=0",
        )
    } else {
        (
            format!("1: win_lock win=0 target=0 type={lock}"),
            "1: win_unlock win=0 target=0",
        )
    };
    with_window(
        3,
        &format!(
            "*: barrier                          @ w.c:2
             {open}                              @ w.c:3
             {body}
             {close}                             @ w.c:20
             *: barrier                          @ w.c:21"
        ),
    )
}

const PUT_THEN_GET: &str = "1: put win=0 target=0 disp=0 count=1 type=int   @ w.c:5
     1: get win=0 target=0 disp=0 count=2 type=int   @ w.c:7";

#[test]
fn one_origin_putting_then_getting_in_one_lock_epoch_conflicts() {
    for lock in ["exclusive", "shared", "all"] {
        let text = lock_epoch(lock, PUT_THEN_GET);
        assert_eq!(found(&text), vec![("DR001", Some(5), Some(7))], "{lock}");
        let d = &findings(&text)[0];
        assert_eq!(
            d.message,
            "MPI_Put from rank 1 (w.c:5) and MPI_Get from rank 1 (w.c:7) access bytes 0..4 of \
             rank 0 in window 0 (MPI_Win_create on MPI_COMM_WORLD) in the same passive-target \
             epoch with no MPI_Win_flush to the target between them, and one writes them while \
             the other reads them"
        );
        assert!(d.help.as_ref().unwrap().starts_with("call MPI_Win_flush"));
    }
    // A flush of another target orders nothing here.
    let other = PUT_THEN_GET.replace("@ w.c:5", "@ w.c:5\n 1: win_flush win=0 target=2 @ w.c:6");
    assert_eq!(
        found(&lock_epoch("all", &other)),
        vec![("DR001", Some(5), Some(7))]
    );
}

#[test]
fn a_flush_or_accumulates_order_one_origins_accesses_in_a_lock_epoch() {
    for flush in ["win_flush win=0 target=0", "win_flush_all win=0"] {
        let body = PUT_THEN_GET.replace("@ w.c:5", &format!("@ w.c:5\n 1: {flush} @ w.c:6"));
        for lock in ["exclusive", "all"] {
            assert_eq!(found(&lock_epoch(lock, &body)), vec![], "{flush} {lock}");
        }
    }
    // A local flush completes a get (its data arrived) but not a put at the target.
    for flush in [
        "win_flush_local win=0 target=0",
        "win_flush_local_all win=0",
    ] {
        let put_get = PUT_THEN_GET.replace("@ w.c:5", &format!("@ w.c:5\n 1: {flush} @ w.c:6"));
        assert_eq!(
            found(&lock_epoch("exclusive", &put_get)),
            vec![("DR001", Some(5), Some(7))],
            "{flush}"
        );
        let get_put = format!(
            "1: get win=0 target=0 disp=0 count=2 type=int @ w.c:5
             1: {flush} @ w.c:6
             1: put win=0 target=0 disp=0 count=1 type=int @ w.c:7"
        );
        assert_eq!(found(&lock_epoch("exclusive", &get_put)), vec![], "{flush}");
    }
    // Accumulates of one origin are ordered; a fetch reads after the update.
    let atomics = "1: accumulate win=0 target=0 disp=0 count=1 type=int op=sum @ w.c:5
         1: fetch_and_op win=0 target=0 disp=0 type=int op=sum @ w.c:6
         1: get_accumulate win=0 target=0 disp=0 count=2 type=int op=no_op @ w.c:7";
    assert_eq!(found(&lock_epoch("exclusive", atomics)), vec![]);
    // Gets only, or other bytes.
    let reads = "1: get win=0 target=0 disp=0 count=2 type=int @ w.c:5
         1: get win=0 target=0 disp=0 count=2 type=int @ w.c:7
         1: put win=0 target=0 disp=2 count=1 type=int @ w.c:8";
    assert_eq!(found(&lock_epoch("shared", reads)), vec![]);
    // Request-based calls complete by their own waits: not judged.
    let requests = PUT_THEN_GET
        .replace("1: put", "1: rput")
        .replace("1: get", "1: rget");
    assert_eq!(found(&lock_epoch("all", &requests)), vec![]);
}

#[test]
fn different_origins_under_exclusive_locks_are_serialized() {
    let text = with_window(
        3,
        "*: barrier                                          @ w.c:2
         1-2: win_lock win=0 target=0 type=exclusive         @ w.c:3
         1-2: put win=0 target=0 disp=0 count=1 type=int     @ w.c:4
         1-2: win_unlock win=0 target=0                      @ w.c:5
         *: barrier                                          @ w.c:6",
    );
    assert_eq!(found(&text), vec![]);
}

/// (line of the target's call, line of the origin's access) of every DR004 finding.
fn exposed(text: &str) -> Vec<(Option<u32>, Option<u32>)> {
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    run_all_in_every_order(&run);
    run_checks(&run, &["DR004"])
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d.code, "DR004");
            (d.locations[0].line, d.locations[1].line)
        })
        .collect()
}

/// Rank 0 exposes 40 bytes at address 4096 in a fence epoch; rank 1 runs `origin`, rank 0
/// runs `target` in it, and `after` after the closing fence.
fn fence_exposed(origin: &str, target: &str, after: &str) -> String {
    format!(
        "ranks 3
         *: init
         *: win_create win=0 size=40 unit=4 base=4096     @ w.c:1
         *: win_fence win=0                               @ w.c:2
         1: {origin}                                      @ w.c:3
         {target}
         *: win_fence win=0                               @ w.c:6
         {after}
         *: win_free win=0                                @ w.c:9
         *: finalize"
    )
}

const SEND_FIRST: &str = "0: send dest=2 tag=0 count=1 type=int mem=buf:4096+4:r @ w.c:4
         2: recv src=0 tag=0 count=1 type=int @ w.c:5";

#[test]
fn a_target_sending_window_memory_a_put_writes_in_the_epoch_is_reported() {
    let text = fence_exposed(PUT_0, SEND_FIRST, "");
    assert_eq!(exposed(&text), vec![(Some(4), Some(3))]);
    let run = parse(&text).unwrap();
    let d = &run_checks(&run, &["DR004"]).unwrap()[0];
    assert_eq!(
        d.message,
        "MPI_Send on rank 0 (w.c:4) reads bytes 0..4 of its memory in window 0 (MPI_Win_create \
         on MPI_COMM_WORLD) while MPI_Put from rank 1 (w.c:3) writes them in the same fence epoch"
    );
    assert_eq!(
        d.locations[0].label,
        "reads bytes 0..4 of this rank's memory in the window (buf)"
    );
    // A receive into memory a get reads.
    let get = "get win=0 target=0 disp=0 count=2 type=int";
    let recv = "2: send dest=0 tag=0 count=1 type=int @ w.c:5
         0: recv src=2 tag=0 count=1 type=int mem=buf:4100+4:w @ w.c:4";
    assert_eq!(
        exposed(&fence_exposed(get, recv, "")),
        vec![(Some(4), Some(3))]
    );
    // In an exposure epoch too: between the target's post and its wait.
    let pscw = format!(
        "ranks 3
         *: init
         *: win_create win=0 size=40 unit=4 base=4096     @ w.c:1
         0: win_post win=0 group=1                        @ w.c:2
         1: win_start win=0 group=0                       @ w.c:2
         1: {PUT_0}                                       @ w.c:3
         {SEND_FIRST}
         1: win_complete win=0                            @ w.c:6
         0: win_wait win=0                                @ w.c:6
         *: win_free win=0                                @ w.c:9
         *: finalize"
    );
    assert_eq!(exposed(&pscw), vec![(Some(4), Some(3))]);
    assert!(findings_of(&pscw, "DR004")[0]
        .message
        .ends_with("in the same exposure epoch"));
}

fn findings_of(text: &str, code: &str) -> Vec<Diagnostic> {
    run_checks(&parse(text).unwrap(), &[code]).unwrap()
}

#[test]
fn a_target_using_other_bytes_or_after_the_epoch_or_only_reading_what_gets_read_is_fine() {
    // After the closing fence.
    assert_eq!(exposed(&fence_exposed(PUT_0, "", SEND_FIRST)), vec![]);
    // Other bytes of the window, or memory outside it.
    let other = SEND_FIRST.replace("4096+4", "4100+4");
    assert_eq!(exposed(&fence_exposed(PUT_0, &other, "")), vec![]);
    let outside = SEND_FIRST.replace("4096+4", "8192+4");
    assert_eq!(exposed(&fence_exposed(PUT_0, &outside, "")), vec![]);
    // Sending what a get reads: both only read.
    let get = "get win=0 target=0 disp=0 count=1 type=int";
    assert_eq!(exposed(&fence_exposed(get, SEND_FIRST, "")), vec![]);
    // A window whose address is not known (MPI allocated it) is not judged.
    let allocated = fence_exposed(PUT_0, SEND_FIRST, "").replace(
        "win_create win=0 size=40 unit=4 base=4096",
        "win_allocate win=0 size=40 unit=4",
    );
    assert_eq!(exposed(&allocated), vec![]);
    // The target tells the origin it has received into the memory before the origin gets
    // it: ordered by the message. Received after the get, the message orders nothing.
    let message = |origin: &str| {
        fence_exposed(
            origin,
            "2: send dest=0 tag=0 count=1 type=int @ w.c:5
             0: recv src=2 tag=0 count=1 type=int mem=buf:4096+4:w @ w.c:4
             0: send dest=1 tag=1 count=1 type=int @ w.c:4",
            "",
        )
    };
    let told = message(
        "recv src=0 tag=1 count=1 type=int @ w.c:3
         1: get win=0 target=0 disp=0 count=1 type=int",
    );
    assert_eq!(exposed(&told), vec![]);
    let late = message(
        "get win=0 target=0 disp=0 count=1 type=int @ w.c:3
         1: recv src=0 tag=1 count=1 type=int",
    );
    assert_eq!(exposed(&late), vec![(Some(4), Some(3))]);
    // The target's own put into its memory is not another origin's.
    let own = fence_exposed(
        PUT_0,
        "0: put win=0 target=0 disp=5 count=1 type=int @ w.c:4
         0: send dest=2 tag=0 count=1 type=int mem=buf:4116+4:r @ w.c:4
         2: recv src=0 tag=0 count=1 type=int @ w.c:5",
        "",
    );
    assert_eq!(exposed(&own), vec![]);
}
