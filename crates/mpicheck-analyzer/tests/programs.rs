//! Text-trace versions of the tier-2 programs in `tests/programs/*.c`: each trace is what
//! MPICH or Open MPI records for the program (blocked calls where the real run hangs), with
//! the call sites on the program's lines, and the findings must satisfy the program's
//! `expect:` comments the way the tier-2 harness checks them: every expected (code, line)
//! is reported at some location, and no other code is reported.

use std::collections::BTreeSet;

use mpicheck_analyzer::checks::{actual_deadlock, run_all_in_every_order};
use mpicheck_analyzer::text_trace::parse;

fn check(name: &str, trace: &str, expected: &[(&str, u32)]) {
    let run = parse(trace).unwrap_or_else(|e| panic!("{name}: {e}"));
    let findings = run_all_in_every_order(&run);
    let mut reported: BTreeSet<(String, u32)> = BTreeSet::new();
    for f in &findings {
        for l in &f.locations {
            if let Some(line) = l.line {
                reported.insert((f.code.to_string(), line));
            }
        }
    }
    let expected_codes: BTreeSet<&str> = expected.iter().map(|e| e.0).collect();
    let dump = || {
        findings
            .iter()
            .map(|f| {
                let locs: Vec<String> = f
                    .locations
                    .iter()
                    .map(|l| format!("{:?} {} line {:?}: {}", l.ranks, l.call, l.line, l.label))
                    .collect();
                format!("{} {}\n    {}", f.code, f.message, locs.join("\n    "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (code, line) in expected {
        assert!(
            reported.contains(&(code.to_string(), *line)),
            "{name}: expected {code} at line {line}; findings:\n{}",
            dump()
        );
    }
    for f in &findings {
        assert!(
            expected_codes.contains(f.code),
            "{name}: unexpected {}; findings:\n{}",
            f.code,
            dump()
        );
        assert!(!f.message.ends_with('.'), "{name}: {}", f.message);
        assert!(
            !f.locations.is_empty(),
            "{name}: {} without locations",
            f.code
        );
    }
    // The live check agrees with the full run on actual deadlocks.
    let live = actual_deadlock(&run);
    assert_eq!(
        live.is_some(),
        expected_codes.contains("DL001"),
        "{name}: actual_deadlock() = {live:?}"
    );
}

#[test]
fn fig01_bsend_cycle() {
    check(
        "fig01_bsend_cycle",
        "ranks 2
         *: buffer_attach bytes=128 @ f.c:32
         0: bsend dest=1 tag=1 count=4 type=double @ f.c:35
         0: recv src=1 tag=2 @ f.c:36
         1: bsend dest=0 tag=2 count=4 type=double @ f.c:38
         1: recv src=0 tag=1 @ f.c:39
         *: buffer_detach @ f.c:42
         *: finalize @ f.c:44",
        &[],
    );
}

#[test]
fn fig01_send_cycle() {
    check(
        "fig01_send_cycle",
        "ranks 2
         0: send dest=1 tag=1 @ f.c:29
         0: recv src=1 tag=2 @ f.c:30
         1: send dest=0 tag=2 @ f.c:32
         1: recv src=0 tag=1 @ f.c:33
         *: finalize @ f.c:36",
        &[("DL002", 29), ("DL002", 32)],
    );
}

#[test]
fn fig01_ssend_cycle() {
    check(
        "fig01_ssend_cycle",
        "ranks 2
         0: blocked ssend dest=1 tag=1 @ f.c:31
         1: blocked ssend dest=0 tag=2 @ f.c:34",
        &[("DL001", 31), ("DL001", 34)],
    );
}

#[test]
fn fig02_bsend_ring4() {
    check(
        "fig02_bsend_ring4",
        "ranks 4
         *: buffer_attach bytes=128 @ f.c:35
         0: bsend dest=1 tag=7 count=4 type=double @ f.c:38
         1: ssend dest=2 tag=7 @ f.c:40
         2: ssend dest=3 tag=7 @ f.c:40
         3: ssend dest=0 tag=7 @ f.c:40
         0: recv src=3 tag=7 @ f.c:41
         1: recv src=0 tag=7 @ f.c:41
         2: recv src=1 tag=7 @ f.c:41
         3: recv src=2 tag=7 @ f.c:41
         *: buffer_detach @ f.c:43
         *: finalize @ f.c:45",
        &[],
    );
}

#[test]
fn fig02_send_ring4() {
    check(
        "fig02_send_ring4",
        "ranks 4
         0: send dest=1 tag=7 @ f.c:30
         1: send dest=2 tag=7 @ f.c:30
         2: send dest=3 tag=7 @ f.c:30
         3: send dest=0 tag=7 @ f.c:30
         0: recv src=3 tag=7 @ f.c:31
         1: recv src=0 tag=7 @ f.c:31
         2: recv src=1 tag=7 @ f.c:31
         3: recv src=2 tag=7 @ f.c:31
         *: finalize @ f.c:33",
        &[("DL002", 30)],
    );
}

#[test]
fn fig02_ssend_ring4() {
    check(
        "fig02_ssend_ring4",
        "ranks 4
         0: blocked ssend dest=1 tag=7 @ f.c:30
         1: blocked ssend dest=2 tag=7 @ f.c:30
         2: blocked ssend dest=3 tag=7 @ f.c:30
         3: blocked ssend dest=0 tag=7 @ f.c:30",
        &[("DL001", 30)],
    );
}

#[test]
fn fig05_bsend_ssend_cycle() {
    check(
        "fig05_bsend_ssend_cycle",
        "ranks 2
         0: buffer_attach bytes=128 @ f.c:35
         0: bsend dest=1 tag=1 count=4 type=double @ f.c:36
         0: recv src=1 tag=2 @ f.c:37
         0: buffer_detach @ f.c:38
         1: ssend dest=0 tag=2 @ f.c:41
         1: recv src=0 tag=1 @ f.c:42
         *: finalize @ f.c:45",
        &[],
    );
}

#[test]
fn fig07_sendrecv_recv_cycle() {
    check(
        "fig07_sendrecv_recv_cycle",
        "ranks 2
         0: blocked recv src=1 tag=5 @ f.c:32
         1: blocked sendrecv dest=0 sendtag=1 src=0 recvtag=1 @ f.c:36",
        &[("DL001", 32), ("DL001", 36)],
    );
}

#[test]
fn fig07_sendrecv_send_cycle() {
    check(
        "fig07_sendrecv_send_cycle",
        "ranks 2
         0: send dest=1 tag=5 @ f.c:32
         0: sendrecv dest=1 sendtag=1 src=1 recvtag=1 @ f.c:33
         1: sendrecv dest=0 sendtag=1 src=0 recvtag=1 @ f.c:36
         1: recv src=0 tag=5 @ f.c:37
         *: finalize @ f.c:40",
        &[("DL002", 32), ("DL002", 36)],
    );
}

#[test]
fn fig09_probe_cycle() {
    check(
        "fig09_probe_cycle",
        "ranks 2
         0: blocked probe src=1 tag=1 @ f.c:32
         1: blocked probe src=0 tag=2 @ f.c:36",
        &[("DL001", 32), ("DL001", 36)],
    );
}

#[test]
fn fig09_probe_twice_ok() {
    check(
        "fig09_probe_twice_ok",
        "ranks 2
         0: send dest=1 tag=3 @ f.c:30
         1: probe src=0 tag=3 matched=0:3 @ f.c:32
         1: probe src=any tag=3 matched=0:3 @ f.c:33
         1: recv src=0 tag=3 @ f.c:35
         *: finalize @ f.c:38",
        &[],
    );
}

#[test]
fn fig11_isend_send_cycle() {
    check(
        "fig11_isend_send_cycle",
        "ranks 2
         0: isend dest=1 tag=1 req=0 @ f.c:35
         0: wait req=0 @ f.c:36
         0: recv src=1 tag=2 @ f.c:37
         1: send dest=0 tag=2 @ f.c:39
         1: recv src=0 tag=1 @ f.c:40
         *: finalize @ f.c:43",
        &[("DL002", 36), ("DL002", 39)],
    );
}

#[test]
fn fig11_issend_ssend_cycle() {
    check(
        "fig11_issend_ssend_cycle",
        "ranks 2
         0: issend dest=1 tag=1 req=0 @ f.c:34
         0: blocked wait req=0 @ f.c:35
         1: blocked ssend dest=0 tag=2 @ f.c:38",
        &[("DL001", 35), ("DL001", 38)],
    );
}

#[test]
fn fig12_irecv_ssend_wait() {
    check(
        "fig12_irecv_ssend_wait",
        "ranks 2
         0: irecv src=1 tag=1 req=0 @ f.c:34
         1: irecv src=0 tag=1 req=0 @ f.c:34
         0: ssend dest=1 tag=1 @ f.c:35
         1: ssend dest=0 tag=1 @ f.c:35
         *: wait req=0 @ f.c:36
         *: finalize @ f.c:39",
        &[],
    );
}

#[test]
fn fig13_progress_ssend_irecv() {
    check(
        "fig13_progress_ssend_irecv",
        "ranks 2
         0: ssend dest=1 tag=0 @ f.c:36
         0: send dest=1 tag=1 @ f.c:37
         1: irecv src=0 tag=0 req=0 @ f.c:39
         1: recv src=0 tag=1 @ f.c:40
         1: wait req=0 @ f.c:41
         *: finalize @ f.c:45",
        &[],
    );
}

#[test]
fn fig14_isend_wait_irecv_wait() {
    check(
        "fig14_isend_wait_irecv_wait",
        "ranks 2
         0: isend dest=1 tag=1 req=0 @ f.c:34
         1: isend dest=0 tag=1 req=0 @ f.c:34
         *: wait req=0 @ f.c:35
         0: irecv src=1 tag=1 req=1 @ f.c:36
         1: irecv src=0 tag=1 req=1 @ f.c:36
         *: wait req=1 @ f.c:37
         *: finalize @ f.c:39",
        &[("DL002", 35)],
    );
}

#[test]
fn fig15_isend_irecv_waits() {
    check(
        "fig15_isend_irecv_waits",
        "ranks 2
         0: isend dest=1 tag=1 req=0 @ f.c:31
         1: isend dest=0 tag=1 req=0 @ f.c:31
         0: irecv src=1 tag=1 req=1 @ f.c:32
         1: irecv src=0 tag=1 req=1 @ f.c:32
         *: wait req=0 @ f.c:33
         *: wait req=1 @ f.c:34
         *: finalize @ f.c:36",
        &[],
    );
}

#[test]
fn fig16_irecv_issend_waits_reversed() {
    check(
        "fig16_irecv_issend_waits_reversed",
        "ranks 2
         0: irecv src=1 tag=1 req=0 @ f.c:34
         1: irecv src=0 tag=1 req=0 @ f.c:34
         0: issend dest=1 tag=1 req=1 @ f.c:35
         1: issend dest=0 tag=1 req=1 @ f.c:35
         *: wait req=1 @ f.c:36
         *: wait req=0 @ f.c:37
         *: finalize @ f.c:39",
        &[],
    );
}

#[test]
fn fig19_gather_missing_root0() {
    // Rank 0 (the root) hangs; ranks 1 and 2 are killed inside MPI_Finalize.
    check(
        "fig19_gather_missing_root0",
        "ranks 3
         0: blocked gather root=0 @ f.c:29
         1: gather root=0 @ f.c:29
         1-2: blocked finalize @ f.c:31",
        &[("CO001", 29), ("DL001", 29)],
    );
}

#[test]
fn fig19_gather_missing_root2() {
    check(
        "fig19_gather_missing_root2",
        "ranks 3
         0-1: gather root=2 @ f.c:32
         *: finalize @ f.c:34",
        &[("CO001", 32)],
    );
}

#[test]
fn fig20_allgather_vs_gather() {
    check(
        "fig20_allgather_vs_gather",
        "ranks 3
         0-1: blocked allgather @ f.c:31
         2: gather root=0 @ f.c:33
         2: blocked finalize @ f.c:35",
        &[("CO001", 31), ("CO001", 33), ("DL001", 31)],
    );
}

#[test]
fn fig21_bcast_gather_order() {
    check(
        "fig21_bcast_gather_order",
        "ranks 3
         0-1: bcast root=0 @ f.c:31
         0-1: gather root=0 @ f.c:32
         2: gather root=0 @ f.c:34
         2: bcast root=0 @ f.c:35
         *: finalize @ f.c:38",
        &[("CO001", 31), ("CO001", 34)],
    );
}

#[test]
fn fig22_barrier_allreduce_order() {
    check(
        "fig22_barrier_allreduce_order",
        "ranks 3
         0: blocked barrier @ f.c:30
         1-2: blocked allreduce @ f.c:33",
        &[("CO001", 30), ("CO001", 33), ("DL001", 30), ("DL001", 33)],
    );
}

#[test]
fn fig23_bcast_recv_root0() {
    check(
        "fig23_bcast_recv_root0",
        "ranks 3
         0: bcast root=0 @ f.c:37
         0: send dest=2 tag=1 @ f.c:38
         1: bcast root=0 @ f.c:40
         2: recv src=0 tag=1 @ f.c:42
         2: bcast root=0 @ f.c:43
         *: finalize @ f.c:46",
        &[("DL002", 37), ("DL002", 42)],
    );
}

#[test]
fn fig23_bcast_recv_root2() {
    check(
        "fig23_bcast_recv_root2",
        "ranks 3
         0: blocked bcast root=2 @ f.c:31
         1: blocked bcast root=2 @ f.c:34
         2: blocked recv src=0 tag=1 @ f.c:36",
        &[("DL001", 31), ("DL001", 36)],
    );
}

#[test]
fn std_bcast_reverse_order() {
    check(
        "std_bcast_reverse_order",
        "ranks 2
         0: bcast root=0 @ f.c:37
         0: bcast root=1 @ f.c:38
         1: bcast root=1 @ f.c:41
         1: bcast root=0 @ f.c:42
         *: finalize @ f.c:46",
        &[("DL002", 37), ("DL002", 41)],
    );
}

#[test]
fn std_bcast_then_send() {
    check(
        "std_bcast_then_send",
        "ranks 2
         0: bcast root=0 @ f.c:36
         0: send dest=1 tag=0 @ f.c:37
         1: recv src=0 tag=0 @ f.c:40
         1: bcast root=0 @ f.c:41
         *: finalize @ f.c:45",
        &[("DL002", 36), ("DL002", 40)],
    );
}

#[test]
fn std_bcast_three_comms() {
    check(
        "std_bcast_three_comms",
        "ranks 3
         comm 1 members 0 1 name comm0
         comm 2 members 1 2 name comm1
         comm 3 members 0 2 name comm2
         *: comm_split @ f.c:37
         *: comm_split @ f.c:38
         *: comm_split @ f.c:39
         0: bcast root=0 comm=1 @ f.c:46
         0: bcast root=1 comm=3 @ f.c:47
         1: bcast root=0 comm=2 @ f.c:50
         1: bcast root=0 comm=1 @ f.c:51
         2: bcast root=1 comm=3 @ f.c:54
         2: bcast root=0 comm=2 @ f.c:55
         *: finalize @ f.c:63",
        &[("DL002", 46), ("DL002", 50), ("DL002", 54)],
    );
}

#[test]
fn std_iallreduce_three_comms_ok() {
    check(
        "std_iallreduce_three_comms_ok",
        "ranks 3
         comm 1 members 0 1
         comm 2 members 1 2
         comm 3 members 0 2
         *: comm_split @ f.c:38
         *: comm_split @ f.c:39
         *: comm_split @ f.c:40
         0: iallreduce comm=1 req=0 @ f.c:44
         0: iallreduce comm=3 req=1 @ f.c:45
         1: iallreduce comm=1 req=0 @ f.c:48
         1: iallreduce comm=2 req=1 @ f.c:49
         2: iallreduce comm=2 req=0 @ f.c:52
         2: iallreduce comm=3 req=1 @ f.c:53
         *: waitall reqs=0,1 @ f.c:56
         *: finalize @ f.c:62",
        &[],
    );
}

#[test]
fn std_ialltoall_vs_alltoall() {
    check(
        "std_ialltoall_vs_alltoall",
        "ranks 2
         0: ialltoall req=0 @ f.c:36
         0: blocked wait req=0 @ f.c:37
         1: blocked alltoall @ f.c:40",
        &[("CO001", 36), ("CO001", 40), ("DL001", 37), ("DL001", 40)],
    );
}

#[test]
fn std_ibarrier_bcast_dupcomm_ok() {
    check(
        "std_ibarrier_bcast_dupcomm_ok",
        "ranks 2
         comm 1 members 0 1 name dupcomm
         *: comm_dup @ f.c:33
         0: ibarrier req=0 @ f.c:36
         0: bcast root=0 comm=1 @ f.c:37
         0: wait req=0 @ f.c:38
         1: bcast root=0 comm=1 @ f.c:41
         1: ibarrier req=0 @ f.c:42
         1: wait req=0 @ f.c:43
         *: finalize @ f.c:48",
        &[],
    );
}

#[test]
fn std_ibarrier_bcast_mismatch() {
    check(
        "std_ibarrier_bcast_mismatch",
        "ranks 2
         0: ibarrier req=0 @ f.c:36
         0: bcast root=0 @ f.c:37
         0: wait req=0 @ f.c:38
         1: bcast root=0 @ f.c:41
         1: ibarrier req=0 @ f.c:42
         1: wait req=0 @ f.c:43
         *: finalize @ f.c:47",
        &[("CO001", 36), ("CO001", 41)],
    );
}

#[test]
fn std_ibarrier_bcast_ok() {
    check(
        "std_ibarrier_bcast_ok",
        "ranks 2
         *: ibarrier req=0 @ f.c:31
         *: bcast root=0 @ f.c:32
         *: wait req=0 @ f.c:33
         *: finalize @ f.c:35",
        &[],
    );
}

#[test]
fn std_ibarrier_irecv_waitall_ok() {
    check(
        "std_ibarrier_irecv_waitall_ok",
        "ranks 2
         0: ibarrier req=0 @ f.c:36
         0: send dest=1 tag=0 @ f.c:37
         0: wait req=0 @ f.c:38
         1: irecv src=0 tag=0 req=0 @ f.c:41
         1: ibarrier req=1 @ f.c:42
         1: waitall reqs=0,1 @ f.c:43
         *: finalize @ f.c:47",
        &[],
    );
}

#[test]
fn std_ibarrier_recv_progress_ok() {
    check(
        "std_ibarrier_recv_progress_ok",
        "ranks 2
         0: ibarrier req=0 @ f.c:36
         0: wait req=0 @ f.c:37
         0: send dest=1 tag=0 @ f.c:38
         1: ibarrier req=0 @ f.c:41
         1: recv src=0 tag=0 @ f.c:42
         1: wait req=0 @ f.c:43
         *: finalize @ f.c:47",
        &[],
    );
}

#[test]
fn std_ibcast_pipeline_ok() {
    check(
        "std_ibcast_pipeline_ok",
        "ranks 2
         *: ibcast root=0 req=0 @ f.c:34
         *: ibcast root=0 req=1 @ f.c:36
         *: ibcast root=0 req=2 @ f.c:38
         *: waitall reqs=0,1,2 @ f.c:39
         *: finalize @ f.c:41",
        &[],
    );
}

#[test]
fn std_ibcast_wait_reverse_ok() {
    check(
        "std_ibcast_wait_reverse_ok",
        "ranks 2
         *: ibcast root=0 req=0 @ f.c:33
         *: ibcast root=0 req=1 @ f.c:35
         *: wait req=1 @ f.c:36
         *: wait req=0 @ f.c:38
         *: finalize @ f.c:40",
        &[],
    );
}

#[test]
fn std_wildcard_bcast_race() {
    check(
        "std_wildcard_bcast_race",
        "ranks 3
         0: bcast root=0 @ f.c:42
         0: send dest=1 tag=0 @ f.c:44
         1: recv src=any tag=0 matched=2 @ f.c:47
         1: bcast root=0 @ f.c:48
         1: recv src=any tag=0 matched=0 @ f.c:49
         2: send dest=1 tag=0 @ f.c:52
         2: bcast root=0 @ f.c:53
         *: finalize @ f.c:57",
        &[("MR001", 47)],
    );
}

#[test]
fn std_wildcard_then_specific_recv() {
    check(
        "std_wildcard_then_specific_recv",
        "ranks 3
         0: recv src=any tag=0 matched=1 @ f.c:35
         0: recv src=2 tag=0 @ f.c:36
         1: send dest=0 tag=0 @ f.c:40
         2: send dest=0 tag=0 @ f.c:45
         *: finalize @ f.c:49",
        &[("DL003", 35), ("MR001", 35)],
    );
}

/// dl_master_worker_reply_ok.c's rounds as both MPIs record them, each round's first
/// result from the worker in `firsts`.
fn master_worker_reply_rounds(firsts: &[u32]) -> String {
    let mut text = String::from("ranks 3\n");
    for first in firsts {
        let second = 3 - first;
        text.push_str(&format!(
            "1-2: send dest=0 tag=0 @ f.c:33
             1-2: recv src=0 tag=1 @ f.c:34
             0: recv src=any tag=0 matched={first} @ f.c:27
             0: send dest={first} tag=1 @ f.c:28
             0: recv src=any tag=0 matched={second} @ f.c:27
             0: send dest={second} tag=1 @ f.c:28\n"
        ));
    }
    text.push_str("*: finalize @ f.c:37");
    text
}

#[test]
fn dl_master_worker_reply_ok() {
    // Five rounds (a reply line needs ten calls with two workers to count as following the
    // wildcard's source for sure).
    let text = master_worker_reply_rounds(&[2, 1, 2, 2, 1]);
    check("dl_master_worker_reply_ok", &text, &[("MR001", 27)]);
}

#[test]
fn dl_master_worker_reply_few_ok() {
    // Two rounds: four replies to two workers are too few to tell that line 28 follows
    // the wildcard's source, and the alternatives deadlock only if the replies go to the
    // recorded workers.
    let text = master_worker_reply_rounds(&[2, 1]);
    check("dl_master_worker_reply_few_ok", &text, &[("MR001", 27)]);
}

/// dl_master_worker_tag_echo_ok.c's rounds as both MPIs record them, each round's first
/// request from the worker in `firsts`: each reply goes to the request's source with its
/// tag (the worker's rank).
fn tag_echo_rounds(firsts: &[u32]) -> String {
    let mut text = String::from("ranks 3\n");
    for first in firsts {
        let second = 3 - first;
        text.push_str(&format!(
            "1: send dest=0 tag=1 @ f.c:31
             2: send dest=0 tag=2 @ f.c:31
             1: recv src=0 tag=1 @ f.c:32
             2: recv src=0 tag=2 @ f.c:32
             0: recv src=any tag=any matched={first}:{first} @ f.c:25
             0: send dest={first} tag={first} @ f.c:26
             0: recv src=any tag=any matched={second}:{second} @ f.c:25
             0: send dest={second} tag={second} @ f.c:26\n"
        ));
    }
    text.push_str("*: finalize @ f.c:35");
    text
}

#[test]
fn dl_master_worker_tag_echo_ok() {
    // Five rounds: line 26 follows both the source and the tag of the wildcard for sure.
    let text = tag_echo_rounds(&[2, 1, 2, 2, 1]);
    check("dl_master_worker_tag_echo_ok", &text, &[("MR001", 25)]);
}

#[test]
fn dl_relay_tag_order() {
    // Line 28 forwards each message with the tag the wildcard took, ten times over two
    // tags: it follows the tag. Had a message of rank 2 come first, rank 0 would wait in
    // its MPI_Ssend of tag 2 for rank 3, which waits for tag 1 (with the recorded tag, the
    // forward would have gone through).
    let mut text = String::from("ranks 4\n");
    for source in [1, 2] {
        for _ in 0..5 {
            text.push_str(&format!(
                "{source}: send dest=0 tag={source} @ f.c:38
                 0: recv src=any tag=any matched={source}:{source} @ f.c:27
                 0: ssend dest=3 tag={source} @ f.c:28
                 3: recv src=0 tag={source} @ f.c:33\n"
            ));
        }
    }
    text.push_str("*: finalize @ f.c:41");
    check("dl_relay_tag_order", &text, &[("DL003", 27), ("MR001", 27)]);
}

#[test]
fn dl_probe_then_specific() {
    // The probe found rank 1's message (rank 2 slept) and line 33 received it from
    // status.MPI_SOURCE, once: right after the probe, it receives what the probe finds.
    // Had the probe found rank 2's, the receive from rank 2 at line 34 would wait forever.
    check(
        "dl_probe_then_specific",
        "ranks 3
         1: send dest=0 tag=0 @ f.c:38
         0: probe src=any tag=0 matched=1:0 @ f.c:32
         0: recv src=1 tag=0 @ f.c:33
         2: send dest=0 tag=0 @ f.c:43
         0: recv src=2 tag=0 @ f.c:34
         *: finalize @ f.c:47",
        &[("DL003", 32), ("MR001", 32)],
    );
}

#[test]
fn dl_probe_master_worker_ok() {
    // Each request is received from the probe's source with its tag and answered there:
    // every order completes.
    let mut text = String::from("ranks 3\n");
    for first in [2, 1, 1] {
        let second = 3 - first;
        text.push_str(&format!(
            "1: send dest=0 tag=1 @ f.c:33
             2: send dest=0 tag=2 @ f.c:33
             1: recv src=0 tag=1 @ f.c:34
             2: recv src=0 tag=2 @ f.c:34
             0: probe src=any tag=any matched={first}:{first} @ f.c:26
             0: recv src={first} tag={first} @ f.c:27
             0: send dest={first} tag={first} @ f.c:28
             0: probe src=any tag=any matched={second}:{second} @ f.c:26
             0: recv src={second} tag={second} @ f.c:27
             0: send dest={second} tag={second} @ f.c:28\n"
        ));
    }
    text.push_str("*: finalize @ f.c:38");
    check("dl_probe_master_worker_ok", &text, &[("MR001", 26)]);
}

#[test]
fn dl_reply_then_fixed_recv() {
    // One reply to the wildcard's source (line 24), then a receive from rank 1 by name: if
    // the wildcard takes rank 1, rank 0 waits forever at line 25 wherever the reply goes.
    check(
        "dl_reply_then_fixed_recv",
        "ranks 3
         1-2: send dest=0 tag=0 @ f.c:31
         1-2: recv src=0 tag=1 @ f.c:32
         0: recv src=any tag=0 matched=2 @ f.c:23
         0: send dest=2 tag=1 @ f.c:24
         0: recv src=1 tag=0 @ f.c:25
         0: send dest=1 tag=1 @ f.c:26
         *: finalize @ f.c:34",
        &[("DL003", 23), ("MR001", 23)],
    );
}

#[test]
fn dl_wildcard_then_fixed_sends_ok() {
    // As both MPIs record it: the results came from ranks 1, 2, 3 in turn, so each bucket
    // went to the source of the latest wildcard receive (two calls: no evidence).
    check(
        "dl_wildcard_then_fixed_sends_ok",
        "ranks 4
         *: barrier @ f.c:24
         1-3: isend dest=0 tag=0 req=0 @ f.c:35
         1: recv src=0 tag=1 @ f.c:37
         3: recv src=0 tag=1 @ f.c:37
         1-3: wait req=0 @ f.c:38
         0: recv src=any tag=0 matched=1 @ f.c:27
         0: send dest=1 tag=1 @ f.c:30
         0: recv src=any tag=0 matched=2 @ f.c:27
         0: recv src=any tag=0 matched=3 @ f.c:27
         0: send dest=3 tag=1 @ f.c:30
         *: finalize @ f.c:40",
        &[("MR001", 27)],
    );
}

#[test]
fn std_specific_recvs_ok() {
    check(
        "std_specific_recvs_ok",
        "ranks 3
         0: recv src=1 tag=0 @ f.c:27
         0: recv src=2 tag=0 @ f.c:27
         1: send dest=0 tag=0 @ f.c:31
         2: send dest=0 tag=0 @ f.c:36
         *: finalize @ f.c:40",
        &[],
    );
}

#[test]
fn dl_testall_poll_ok() {
    // As both MPIs record it: the small first send is complete at the poll.
    check(
        "dl_testall_poll_ok",
        "ranks 2
         0: isend dest=1 tag=0 req=0 @ f.c:19
         1: isend dest=0 tag=0 req=0 @ f.c:19
         *: testall reqs=0 flag=1 @ f.c:20
         0: isend dest=1 tag=1 req=1 @ f.c:21
         1: isend dest=0 tag=1 req=1 @ f.c:21
         0: recv src=1 tag=0 @ f.c:22
         1: recv src=0 tag=0 @ f.c:22
         0: recv src=1 tag=1 @ f.c:23
         1: recv src=0 tag=1 @ f.c:23
         *: waitall reqs=null,1 @ f.c:24
         *: finalize @ f.c:25",
        &[],
    );
}

#[test]
fn dl_testall_loop() {
    check(
        "dl_testall_loop",
        "ranks 2
         0: isend dest=1 tag=0 req=0 @ f.c:23
         0: testall reqs=0 flag=0 @ f.c:25
         0: testall reqs=0 flag=0 @ f.c:25
         0: testall reqs=0 flag=1 @ f.c:25
         0: recv src=1 tag=1 @ f.c:27
         1: send dest=0 tag=1 @ f.c:28
         1: recv src=0 tag=0 @ f.c:30
         *: finalize @ f.c:32",
        &[("DL002", 25), ("DL002", 28)],
    );
}

#[test]
fn dl_test_then_wait_ok() {
    // Each rank tests its values' send once (tag 52) and, found complete, waits for its
    // indices' send (tag 51), before it receives the other's: both MPIs return one shared
    // request for the two sends (complete at once), so the trace names the test's request
    // as the first send's and the wait's as the second's. Either way, the test found complete
    // a send the unbuffered replay never matches: the program would have polled on.
    for (tested, waited) in [(0, 1), (1, 0)] {
        check(
            "dl_test_then_wait_ok",
            &format!(
                "ranks 2
                 0: isend dest=1 tag=51 req=0 @ f.c:25
                 1: isend dest=0 tag=51 req=0 @ f.c:25
                 0: isend dest=1 tag=52 req=1 @ f.c:26
                 1: isend dest=0 tag=52 req=1 @ f.c:26
                 *: iprobe src=any tag=51 found=0 @ f.c:29
                 *: test req={tested} flag=1 @ f.c:37
                 *: wait req={waited} @ f.c:39
                 0: iprobe src=any tag=51 found=1 matched=1:51 @ f.c:29
                 1: iprobe src=any tag=51 found=1 matched=0:51 @ f.c:29
                 0: recv src=1 tag=51 @ f.c:31
                 1: recv src=0 tag=51 @ f.c:31
                 0: recv src=1 tag=52 @ f.c:32
                 1: recv src=0 tag=52 @ f.c:32
                 *: finalize @ f.c:44"
            ),
            &[],
        );
    }
}

#[test]
fn dl_iprobe_poll_ok() {
    check(
        "dl_iprobe_poll_ok",
        "ranks 2
         1: send dest=0 tag=1 @ f.c:20
         1: send dest=0 tag=7 @ f.c:21
         0: iprobe src=1 tag=1 found=1 matched=1:1 @ f.c:24
         0: iprobe src=1 tag=7 found=1 matched=1:7 @ f.c:25
         0: recv src=1 tag=7 @ f.c:27
         0: recv src=1 tag=1 @ f.c:28
         *: finalize @ f.c:32",
        &[],
    );
}

#[test]
fn bf_freed_send_barrier_ok() {
    let trace = "ranks 2
         0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r @ f.c:19
         1: isend dest=0 tag=0 req=0 mem=buf:8192+16:r @ f.c:19
         *: request_free req=0 @ f.c:20
         0: recv src=1 tag=0 mem=buf:4112+16:w @ f.c:21
         1: recv src=0 tag=0 mem=buf:8208+16:w @ f.c:21
         *: barrier @ f.c:22
         0: sendrecv dest=1 sendtag=1 src=1 recvtag=1 mem=sendbuf:4112+16:r,recvbuf:4096+16:w @ f.c:23
         1: sendrecv dest=0 sendtag=1 src=0 recvtag=1 mem=sendbuf:8208+16:r,recvbuf:8192+16:w @ f.c:23
         *: finalize @ f.c:25";
    check("bf_freed_send_barrier_ok", trace, &[]);
    // Without the barrier the reuse comes before anything shows the send received.
    let reused = trace.replace("*: barrier @ f.c:22\n", "");
    check("bf_freed_send_reused", &reused, &[("BF001", 23)]);
}

#[test]
fn rq_free_send_reply_ok() {
    // MPI 4.1 Example 3.13 with n = 2.
    check(
        "rq_free_send_reply_ok",
        "ranks 2
         1: recv src=0 tag=0 @ f.c:19
         0: isend dest=1 tag=0 req=0 @ f.c:24
         0: request_free req=0 @ f.c:25
         0: irecv src=1 tag=0 req=1 @ f.c:27
         0: wait req=1 @ f.c:27
         0: isend dest=1 tag=0 req=2 @ f.c:24
         0: request_free req=2 @ f.c:25
         0: irecv src=1 tag=0 req=3 @ f.c:27
         0: wait req=3 @ f.c:27
         1: isend dest=0 tag=0 req=0 @ f.c:24
         1: request_free req=0 @ f.c:25
         1: irecv src=0 tag=0 req=1 @ f.c:27
         1: wait req=1 @ f.c:27
         1: isend dest=0 tag=0 req=2 @ f.c:30
         1: wait req=2 @ f.c:31
         *: finalize @ f.c:33",
        &[],
    );
}
