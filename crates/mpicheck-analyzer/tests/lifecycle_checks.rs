//! Request lifecycle, resource and argument checks on hand-written traces: each positive
//! case next to the correct twin that must produce nothing.

use mpicheck_analyzer::checks::{run_all, run_all_in_every_order};
use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text_trace::parse;

fn findings(text: &str) -> Vec<Diagnostic> {
    run_all(&parse(text).unwrap_or_else(|e| panic!("{e}")))
}

/// (code, line of the first location) of every finding.
fn codes_at(text: &str) -> Vec<(&'static str, Option<u32>)> {
    findings(text)
        .iter()
        .map(|d| (d.code, d.locations.first().and_then(|l| l.line)))
        .collect()
}

#[test]
fn a_request_never_completed_is_reported_at_the_call_that_started_it() {
    let text = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=0      @ a.c:10
        1: recv src=0 tag=0              @ a.c:12
        *: finalize                      @ a.c:20";
    assert_eq!(codes_at(text), vec![("RQ001", Some(10))]);
    let d = &findings(text)[0];
    assert_eq!(d.locations[0].ranks, vec![0]);
}

#[test]
fn test_loops_complete_requests_without_false_alarms() {
    let text = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=0
        0: test req=0 flag=0
        0: test req=0 flag=0
        0: test req=0 flag=1
        1: irecv src=0 tag=0 req=0
        1: irecv src=0 tag=1 req=1
        1: testall reqs=0,1 flag=0
        1: waitany reqs=0,1 index=0 matched=0
        0: send dest=1 tag=1
        1: testsome reqs=null,1 indices=1
        *: finalize";
    assert_eq!(codes_at(text), vec![]);
}

#[test]
fn a_request_pending_when_the_trace_stops_before_finalize_is_not_judged() {
    let text = "ranks 1
        0: init
        0: irecv src=0 tag=0 req=0
        0: end interrupted killed";
    assert_eq!(codes_at(text), vec![]);
}

#[test]
fn a_cancelled_request_must_still_be_completed() {
    let text = "ranks 1
        0: init
        0: irecv src=0 tag=0 req=0  @ c.c:5
        0: cancel req=0
        0: finalize";
    let f = findings(text);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].code, "RQ001");
    assert!(f[0].message.contains("cancelled"), "{}", f[0].message);
    let twin = "ranks 1
        0: init
        0: irecv src=0 tag=0 req=0
        0: cancel req=0
        0: wait req=0
        0: finalize";
    assert_eq!(codes_at(twin), vec![]);
}

#[test]
fn freeing_an_active_request_and_using_a_dead_one_are_reported() {
    let text = "ranks 2
        *: init
        0: irecv src=1 tag=0 req=0       @ f.c:3
        0: request_free req=0            @ f.c:4
        1: send dest=0 tag=0
        1: isend dest=0 tag=1 req=0
        1: wait req=0
        1: wait req=7                    @ f.c:9
        0: recv src=1 tag=1
        *: finalize";
    assert_eq!(codes_at(text), vec![("RQ002", Some(4)), ("RQ003", Some(9))]);
}

#[test]
fn persistent_requests_started_twice_and_never_freed() {
    let text = "ranks 1
        0: init
        0: send_init dest=null tag=0 req=0   @ p.c:2
        0: start req=0                       @ p.c:3
        0: start req=0                       @ p.c:4
        0: wait req=0
        0: finalize";
    assert_eq!(codes_at(text), vec![("RQ004", Some(4)), ("RS001", Some(2))]);
    let twin = "ranks 1
        0: init
        0: send_init dest=null tag=0 req=0
        0: start req=0
        0: wait req=0
        0: startall reqs=0
        0: waitall reqs=0
        0: request_free req=0
        0: finalize";
    assert_eq!(codes_at(twin), vec![]);
}

#[test]
fn leaks_are_one_finding_per_kind_and_site_with_the_count() {
    let text = "ranks 2
        *: init
        *: comm_dup new=comm:1          @ leak.c:12
        *: comm_dup new=comm:2          @ leak.c:12
        *: comm_dup new=comm:3          @ leak.c:12
        *: other MPI_Comm_free freed=comm:2
        *: other MPI_Type_vector new=type:4  @ leak.c:15
        *: finalize";
    let f = findings(text);
    let summary: Vec<(&str, Option<u32>, &str)> = f
        .iter()
        .map(|d| (d.code, d.locations[0].line, d.message.as_str()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "RS001",
                Some(12),
                "2 communicators created by MPI_Comm_dup at leak.c:12 were never freed on each of ranks 0, 1"
            ),
            (
                "RS001",
                Some(15),
                "1 datatype created by MPI_Type_vector at leak.c:15 was never freed on each of ranks 0, 1"
            ),
        ]
    );
    assert_eq!(f[0].locations[0].ranks, vec![0, 1]);
}

#[test]
fn objects_freed_in_a_loop_are_no_leak() {
    let mut text = String::from("ranks 1\n0: init\n");
    for i in 0..1000 {
        text += &format!("0: comm_dup new=comm:{i}\n0: other MPI_Comm_free freed=comm:{i}\n");
    }
    text += "0: finalize\n";
    assert_eq!(codes_at(&text), vec![]);
}

#[test]
fn buffered_sends_need_an_attached_buffer_big_enough() {
    let text = "ranks 2
        *: init
        0: bsend dest=1 tag=0 bsend_bytes=112        @ b.c:3
        0: buffer_attach bytes=256                   @ b.c:4
        0: bsend dest=1 tag=1 bsend_bytes=496        @ b.c:5
        0: bsend dest=1 tag=2 bsend_bytes=112
        1: recv src=0 tag=0
        1: recv src=0 tag=1
        1: recv src=0 tag=2
        *: finalize";
    assert_eq!(
        codes_at(text),
        vec![("RS002", Some(4)), ("RS003", Some(3)), ("RS004", Some(5))]
    );
    let twin = "ranks 2
        *: init
        0: buffer_attach bytes=256
        0: bsend dest=1 tag=2 bsend_bytes=112
        0: buffer_detach
        1: recv src=0 tag=2
        *: finalize";
    assert_eq!(codes_at(twin), vec![]);
}

#[test]
fn argument_issues_are_reported_by_their_own_codes() {
    let text = "ranks 2
        *: init
        0: send dest=1 tag=0 bad=dest:rank          @ x.c:1
        0: send dest=1 tag=0 bad=tag:tag            @ x.c:2
        0: send dest=1 tag=0 bad=count:count        @ x.c:3
        0: barrier bad=comm:null-comm               @ x.c:4
        0: send dest=1 tag=0 bad=datatype:freed-type @ x.c:5
        0: send dest=1 tag=0 bad=datatype:uncommitted @ x.c:6
        0: send dest=1 tag=0 bad=buf:nullbuf        @ x.c:7
        0: send dest=1 tag=0 bad=buf:inplace        @ x.c:8
        0: other MPI_Comm_rank bad=:before-init     @ x.c:9
        0: other MPI_Comm_split bad=color:color     @ x.c:11
        0: other MPI_Cart_create bad=dims:topology  @ x.c:12
        0: other MPI_Cart_create bad=dims:grid      @ x.c:13
        0: other MPI_Cart_coords bad=comm:no-topology @ x.c:14
        0: other MPI_Group_incl bad=ranks:rank-list @ x.c:15
        0: other MPI_Group_incl bad=ranks:repeated  @ x.c:16
        0: other MPI_Group_range_incl bad=ranges:stride @ x.c:17
        0: other MPI_Graph_create bad=index:index   @ x.c:18
        0: other MPI_Cart_shift bad=direction:direction @ x.c:19
        0: other MPI_Win_start bad=assert:assert    @ x.c:20
        0: other MPI_Pready bad=partition:partition @ x.c:21
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        1: recv src=0 tag=0
        *: finalize
        1: other MPI_Barrier                        @ x.c:10
        1: other MPI_Finalized";
    let got = codes_at(text);
    for (code, line) in [
        ("AR001", 1),
        ("AR002", 2),
        ("AR003", 3),
        ("AR004", 4),
        ("AR005", 5),
        ("AR006", 6),
        ("AR007", 7),
        ("AR008", 8),
        ("AR009", 9),
        ("AR010", 10),
        ("AR011", 11),
        ("AR012", 12),
        ("AR012", 13),
        ("AR013", 14),
        ("AR001", 15),
        ("AR014", 16),
        ("AR014", 17),
        ("AR012", 18),
        ("AR012", 19),
        ("AR015", 20),
        ("AR016", 21),
    ] {
        assert!(
            got.contains(&(code, Some(line))),
            "{code} at {line}: {got:?}"
        );
    }
    assert_eq!(
        got.iter().filter(|(c, _)| c.starts_with("AR")).count(),
        21,
        "{got:?}"
    );
}

#[test]
fn a_receive_into_the_memory_of_a_pending_send_is_bf001() {
    // Rank 0's MPI_Recv writes bytes 8..24 while its MPI_Isend still reads 0..16.
    let bug = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r       @ a.c:10
        1: isend dest=0 tag=0 req=0 mem=buf:8192+16:r       @ a.c:10
        0: recv src=1 tag=0 mem=buf:4104+16:w               @ a.c:11
        1: recv src=0 tag=0 mem=buf:8224+16:w               @ a.c:11
        *: wait req=0                                       @ a.c:12
        *: finalize";
    assert_eq!(codes_at(bug), vec![("BF001", Some(11))]);
    assert_eq!(findings(bug)[0].locations[0].ranks, vec![0]);
    // After the wait the send's memory is free again; two pending sends may share memory
    // (neither writes it).
    let twin = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r
        0: isend dest=1 tag=1 req=1 mem=buf:4096+16:r
        0: waitall reqs=0,1
        0: recv src=1 tag=0 mem=buf:4104+16:w
        1: recv src=0 tag=0 mem=buf:8192+16:w
        1: recv src=0 tag=1 mem=buf:8192+16:w
        1: send dest=0 tag=0 mem=buf:8192+16:r
        *: finalize";
    assert_eq!(codes_at(twin), vec![]);
}

#[test]
fn bf001_in_code_without_line_numbers_says_where_the_pending_call_was_made() {
    // Code without debug info (a stripped application, a library): the sites have no line.
    // Two receives from one call site in a loop, and a send from a library function while
    // a receive of another function is pending.
    let text = "ranks 1
        0: init
        0: irecv src=0 tag=0 req=0 mem=buf:4096+16:w   @ app:1
        0: irecv src=0 tag=1 req=1 mem=buf:4096+16:w   @ app:1
        0: irecv src=0 tag=2 req=2 mem=buf:8192+16:w   @ lib:2
        0: send dest=0 tag=0 mem=buf:8192+16:r         @ lib:3
        0: send dest=0 tag=1 mem=buf:0+8:r             @ lib:4
        0: send dest=0 tag=2 mem=buf:16+8:r            @ lib:4
        0: waitall reqs=0,1,2
        0: finalize";
    let mut run = parse(text).unwrap();
    for site in &mut run.sites {
        site.line = None;
    }
    run.sites[2].function = Some("BI_Arecv".into());
    let messages: Vec<String> = run_all(&run)
        .into_iter()
        .filter(|d| d.code == "BF001")
        .map(|d| d.message.to_string())
        .collect();
    assert_eq!(
        messages,
        [
            "MPI_Irecv uses memory of a receive still pending from MPI_Irecv made at the same place earlier",
            "MPI_Send uses memory of a receive still pending from MPI_Irecv in `BI_Arecv`",
        ]
    );
}

#[test]
fn send_and_receive_buffers_of_one_call_that_overlap_are_bf002() {
    let bug = "ranks 2
        *: init
        0: sendrecv dest=1 sendtag=0 src=1 recvtag=0 mem=sendbuf:4096+16:r,recvbuf:4100+16:w  @ a.c:7
        1: sendrecv dest=0 sendtag=0 src=0 recvtag=0 mem=sendbuf:8192+16:r,recvbuf:8208+16:w  @ a.c:7
        *: finalize";
    assert_eq!(codes_at(bug), vec![("BF002", Some(7))]);
    assert_eq!(findings(bug)[0].locations[0].ranks, vec![0]);
    let twin = bug.replace("recvbuf:4100+16:w", "recvbuf:4112+16:w");
    assert_eq!(codes_at(&twin), vec![]);
}

#[test]
fn request_get_status_completes_the_operation_and_keeps_the_request() {
    // MPI_Request_get_status reported the send complete: its buffer is free again and
    // freeing the request loses nothing; the request itself stays allocated until then.
    let polled = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r     @ a.c:10
        0: request_get_status req=0 flag=1               @ a.c:11
        0: recv src=1 tag=1 mem=buf:4096+16:w            @ a.c:12
        0: request_free req=0                            @ a.c:13
        1: send dest=0 tag=1                             @ a.c:20
        1: recv src=0 tag=0                              @ a.c:21
        *: finalize                                      @ a.c:30";
    assert_eq!(codes_at(polled), vec![]);
    let waited = polled.replace("request_free req=0", "wait req=0");
    assert_eq!(
        codes_at(&waited),
        vec![],
        "a wait after it names a live request"
    );
    // Without the status, the buffer is reused while the send may be pending.
    let unpolled = polled.replace(
        "request_get_status req=0 flag=1",
        "request_get_status req=0 flag=0",
    );
    assert_eq!(
        codes_at(&unpolled),
        vec![("RQ002", Some(13)), ("BF001", Some(12))]
    );
}

#[test]
fn a_store_into_a_pending_send_buffer_is_reported_with_the_call_that_started_it() {
    let text = "ranks 2
        *: init
        0: irecv src=1 tag=0 req=0 mem=buf:8192+64:w   @ a.c:9
        0: isend dest=1 tag=0 req=1 mem=buf:4096+64:r  @ a.c:10
        0: access write=1 addr=4100 buf=4096+64 thread=0 @ a.c:11
        0: waitall reqs=0,1                            @ a.c:12
        1: recv src=0 tag=0                            @ a.c:10
        1: send dest=0 tag=0                           @ a.c:11
        *: finalize                                    @ a.c:20";
    assert_eq!(codes_at(text), vec![("DR002", Some(11))]);
    let d = &findings(text)[0];
    assert_eq!(
        d.message,
        "store into byte 4 of the 64-byte buffer of a pending MPI_Isend by the thread that started it, before the send completed"
    );
    assert_eq!(d.locations[0].call, "store");
    assert_eq!(
        (d.locations[1].call.as_str(), d.locations[1].line),
        ("MPI_Isend", Some(10))
    );
}

#[test]
fn an_access_to_a_started_persistent_buffer_names_the_request_and_its_start() {
    let text = "ranks 2
        *: init
        0: send_init dest=1 tag=0 req=0 mem=buf:4096+64:r  @ a.c:8
        0: recv_init src=1 tag=0 req=1 mem=buf:8192+64:w   @ a.c:9
        0: isend dest=1 tag=1 req=2 mem=buf:4096+64:r      @ a.c:10
        0: wait req=2                                      @ a.c:11
        0: startall reqs=0,1                               @ a.c:12
        0: access write=1 addr=4100 buf=4096+64 thread=0   @ a.c:13
        0: access addr=8192 buf=8192+64 recv=1 thread=0    @ a.c:14
        0: waitall reqs=0,1                                @ a.c:15
        0: request_free req=0                              @ a.c:16
        0: request_free req=1                              @ a.c:17
        1: recv src=0 tag=1                                @ a.c:10
        1: recv src=0 tag=0                                @ a.c:10
        1: send dest=0 tag=0                               @ a.c:11
        *: finalize                                        @ a.c:20";
    assert_eq!(
        codes_at(text),
        vec![("DR002", Some(13)), ("DR002", Some(14))]
    );
    let found = findings(text);
    assert_eq!(
        found[0].message,
        "store into byte 4 of the 64-byte buffer of a pending MPI_Send_init request (started by MPI_Startall) by the thread that started it, before the send completed"
    );
    assert!(
        found[1].message.starts_with("load from byte 0 of the 64-byte buffer of a pending MPI_Recv_init request (started by MPI_Startall)"),
        "{}",
        found[1].message
    );
    for d in &found {
        assert_eq!(
            (d.locations[1].call.as_str(), d.locations[1].line),
            ("MPI_Startall", Some(12))
        );
    }
}

#[test]
fn a_store_into_a_put_origin_buffer_names_the_put_at_the_recorded_site() {
    // The recorder gives the put's site: the put is the posting call even though an
    // earlier MPI_Isend had the same buffer.
    let text = "ranks 2
        *: init
        *: win_create win=0 size=40 unit=4                 @ w.c:1
        0: isend dest=1 tag=0 req=0 mem=buf:4096+64:r      @ w.c:2
        0: wait req=0                                      @ w.c:3
        1: recv src=0 tag=0                                @ w.c:2
        *: win_fence win=0                                 @ w.c:4
        0: put win=0 target=1 disp=0 count=1 type=int      @ w.c:5
        0: access write=1 addr=4096 buf=4096+4 thread=0 post=w.c:5 @ w.c:6
        *: win_fence win=0                                 @ w.c:7
        *: win_free win=0                                  @ w.c:99
        *: finalize                                        @ w.c:100";
    assert_eq!(codes_at(text), vec![("DR002", Some(6))]);
    let d = &findings(text)[0];
    assert_eq!(
        d.message,
        "store into byte 0 of the 4-byte buffer of a pending MPI_Put by the thread that started it, before the operation completed at the origin"
    );
    assert_eq!(
        (d.locations[1].call.as_str(), d.locations[1].line),
        ("MPI_Put", Some(5))
    );
    assert!(d.notes[0].contains("§12.3"), "{:?}", d.notes);
}

#[test]
fn loads_of_pending_receive_buffers_by_other_threads_are_reported() {
    let text = "ranks 2
        *: init
        0: irecv src=1 tag=0 req=0 mem=buf:8192+64:w   @ a.c:9
        0: access addr=8192 buf=8192+64 recv=1          @ a.c:30
        0: wait req=0                                   @ a.c:12
        1: send dest=0 tag=0                            @ a.c:11
        *: finalize                                     @ a.c:20";
    assert_eq!(codes_at(text), vec![("DR002", Some(30))]);
    let d = &findings(text)[0];
    assert!(
        d.message.starts_with("load from byte 0 of the 64-byte buffer of a pending MPI_Irecv by a thread that made no MPI call"),
        "{}",
        d.message
    );
    assert_eq!(d.locations[1].line, Some(9));
}

#[test]
fn pending_buffers_without_recorded_accesses_report_nothing() {
    let text = "ranks 2
        *: init
        0: isend dest=1 tag=0 req=1 mem=buf:4096+64:r  @ a.c:10
        0: wait req=1                                  @ a.c:12
        1: recv src=0 tag=0                            @ a.c:10
        *: finalize                                    @ a.c:20";
    assert!(codes_at(text).is_empty());
}

#[test]
fn pending_buffer_accesses_are_judged_alike_in_every_interleaving() {
    // DR002 judges each access when its rank's events reach it: with the ranks' events
    // interleaved, and with an access after the rank's last event, the findings and their
    // order (rank after rank, each rank's in its order) stay the same.
    let text = "ranks 2
        *: init
        0: irecv src=1 tag=0 req=0 mem=buf:8192+64:w      @ a.c:9
        0: access addr=8192 buf=8192+64 recv=1            @ a.c:30
        1: isend dest=0 tag=0 req=1 mem=buf:4096+64:r     @ a.c:11
        1: access write=1 addr=4100 buf=4096+64 thread=0  @ a.c:31
        0: wait req=0                                     @ a.c:12
        1: wait req=1                                     @ a.c:13
        1: isend dest=0 tag=1 req=2 mem=buf:4096+64:r     @ a.c:14
        0: recv src=1 tag=1                               @ a.c:15
        1: wait req=2                                     @ a.c:16
        *: finalize                                       @ a.c:20
        1: access write=1 addr=4096 buf=4096+64 thread=0  @ a.c:32";
    let run = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let all = run_all_in_every_order(&run);
    let at: Vec<_> = all
        .iter()
        .map(|d| {
            let line = |i: usize| d.locations.get(i).and_then(|l| l.line);
            (d.code, line(0), line(1))
        })
        .collect();
    assert_eq!(
        at,
        vec![
            ("DR002", Some(30), Some(9)),
            ("DR002", Some(31), Some(11)),
            // The latest send from the buffer before the access.
            ("DR002", Some(32), Some(14)),
        ]
    );
}
