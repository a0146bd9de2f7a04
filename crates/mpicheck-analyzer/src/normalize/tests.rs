use super::*;
use mpicheck_trace::builder::{decoded_call, decoded_trace};
use mpicheck_trace::{CallRecord, Trace};

const SCHEMA: &str = "\
0 MPI_Comm_split comm:COMMUNICATOR:in:s color:COLOR:in:s key:KEY:in:s newcomm:COMMUNICATOR:out:s
1 MPICHECK_Comm_info comm:COMMUNICATOR:in:s members:WORLD_RANKS:in:a remote:WORLD_RANKS:in:a
2 MPI_Isend buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
3 MPI_Irecv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
4 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s array_of_requests:REQUEST:inout:a array_of_statuses:STATUS:out:sa
5 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st
6 MPI_Ialltoall sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcount:POLYXFER_NUM_ELEM_NNI:in:s recvtype:DATATYPE:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
7 MPI_Abort comm:COMMUNICATOR:in:s errorcode:ERROR_CODE:in:s
8 MPI_Barrier comm:COMMUNICATOR:in:s
9 MPI_Comm_free comm:COMMUNICATOR:inout:s
";
const WORLD: i64 = 0x44000000;
const INT: i64 = 0x4c000405;
const ANY_SOURCE: i64 = -2;
const ANY_TAG: i64 = -1;
const REQUEST_NULL: i64 = 0x2c000000;
const COMM_NULL: i64 = 0x04000000;

fn call(func: u16, words: Vec<i64>, complete: bool, site: u64) -> CallRecord {
    decoded_call(func, words, site, complete)
}

fn trace(rank: i32, calls: Vec<CallRecord>) -> Trace {
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_ANY_SOURCE", ANY_SOURCE),
        ("MPI_ANY_TAG", ANY_TAG),
        ("MPI_PROC_NULL", -1),
        ("MPI_REQUEST_NULL", REQUEST_NULL),
        ("MPI_UNDEFINED", -32766),
        ("MPI_COMM_NULL", COMM_NULL),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    decoded_trace(
        rank,
        3,
        mpicheck_trace::state::INITIALIZED | mpicheck_trace::state::EXITED,
        SCHEMA,
        &constants,
        calls,
    )
}

fn resolve(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("split.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    }
}

#[test]
fn communicators_requests_and_wildcard_matches_are_normalized() {
    // World ranks 1 and 2 split off a communicator {1, 2}; each process sees a different
    // raw handle for it. Rank 1 (comm rank 0) sends to comm rank 1 = world rank 2, which
    // receives from any source.
    let rank0 = trace(
        0,
        vec![
            call(0, vec![WORLD, 1, 0, 0], true, 10),
            call(1, vec![0x0, 0, -1], true, 10), // MPI_COMM_NULL-like handle: color undefined
        ],
    );
    let rank1 = trace(
        1,
        vec![
            call(0, vec![WORLD, 0, 0, 0x84000001], true, 10),
            call(1, vec![0x84000001, 2, 1, 2, -1], true, 10),
            call(
                2,
                vec![0x1000, 4, INT, 1, 7, 0x84000001, 0x2c000011],
                true,
                11,
            ),
            call(
                4,
                vec![1, 1, 0x2c000011, 1, REQUEST_NULL, 1, 0, 0, 0, 0],
                true,
                12,
            ),
        ],
    );
    let rank2 = trace(
        2,
        vec![
            call(0, vec![WORLD, 0, 0, 0x84000009], true, 10),
            call(1, vec![0x84000009, 2, 1, 2, -1], true, 10),
            call(
                3,
                vec![0x2000, 4, INT, ANY_SOURCE, ANY_TAG, 0x84000009, 0x2c000001],
                true,
                20,
            ),
            call(
                4,
                vec![1, 1, 0x2c000001, 1, REQUEST_NULL, 1, 0, 7, 0, 16],
                true,
                21,
            ),
            call(
                5,
                vec![0x2000, 4, INT, 0, 3, 0x84000009, 0, 0, 0, 0],
                false,
                22,
            ),
        ],
    );
    let run = normalize(&[rank2, rank0, rank1], &mut resolve).unwrap();
    assert_eq!(run.world_size(), 3);
    let send = &run.ranks[1].events[1];
    let Op::Send {
        send: spec,
        blocking: Blocking::Nonblocking(req),
    } = &send.op
    else {
        panic!("{send:?}")
    };
    assert_eq!(
        spec.dest,
        Some(2),
        "comm rank 1 of {{1, 2}} is world rank 2"
    );
    assert_eq!(
        run.datatypes[spec.datatype.unwrap().0 as usize].name,
        "MPI_INT"
    );
    let Op::Wait {
        requests,
        completed,
        ..
    } = &run.ranks[1].events[2].op
    else {
        panic!()
    };
    assert_eq!(requests, &vec![Some(*req)]);
    assert_eq!(completed.as_deref(), Some(&[0][..]));

    let Op::Recv { recv, .. } = &run.ranks[2].events[1].op else {
        panic!()
    };
    assert_eq!(
        recv.comm, spec.comm,
        "both members name the split communicator alike"
    );
    assert_eq!(recv.source, Some(Source::Any));
    assert_eq!(
        recv.matched,
        Some((1, 7)),
        "the wait's status says who matched"
    );
    assert_eq!(*run.comm(recv.comm).members, [1, 2]);
    assert_eq!(run.site(run.ranks[2].events[1].site).line, Some(20));

    let blocked = &run.ranks[2].events[3];
    assert!(!blocked.returned);
    let Op::Recv { recv, .. } = &blocked.op else {
        panic!()
    };
    assert_eq!(
        recv.source,
        Some(Source::Rank(1)),
        "comm rank 0 is world rank 1"
    );
    assert_eq!(recv.matched, None);
    assert!(matches!(
        run.ranks[0].events[0].op,
        Op::Collective {
            kind: CollectiveKind::Management,
            comm: CommId(0),
            ..
        }
    ));
}

#[test]
fn splits_that_leave_a_rank_out_still_name_communicators_alike() {
    // Two splits of world (the standard's three-communicator broadcast example, cut to
    // two ranks): rank 1 is in both new communicators, rank 2 only in the second. The
    // second is the second split on world for both, although rank 2 got MPI_COMM_NULL
    // from the first.
    let split = |color, new| call(0, vec![WORLD, color, 0, new], true, 10);
    let info = |comm, members: &[i64]| {
        let mut words = vec![comm, members.len() as i64];
        words.extend_from_slice(members);
        words.push(-1);
        call(1, words, true, 10)
    };
    let send = |comm| call(2, vec![0x1000, 4, INT, 0, 0, comm, 0x2c000011], true, 11);
    let rank1 = trace(
        1,
        vec![
            split(0, 0x84000001),
            info(0x84000001, &[0, 1]),
            split(0, 0x84000002),
            info(0x84000002, &[1, 2]),
            send(0x84000002),
        ],
    );
    let rank2 = trace(
        2,
        vec![
            split(-32766, COMM_NULL),
            info(COMM_NULL, &[]),
            split(0, 0x84000005),
            info(0x84000005, &[1, 2]),
            send(0x84000005),
        ],
    );
    let rank0 = trace(
        0,
        vec![
            split(0, 0x84000007),
            info(0x84000007, &[0, 1]),
            split(-32766, COMM_NULL),
            info(COMM_NULL, &[]),
        ],
    );
    let run = normalize(&[rank0, rank1, rank2], &mut resolve).unwrap();
    let comm_of = |rank: usize| match &run.ranks[rank].events[2].op {
        Op::Send { send, .. } => send.comm,
        op => panic!("{op:?}"),
    };
    assert_eq!(comm_of(1), comm_of(2));
    assert_eq!(*run.comm(comm_of(1)).members, [1, 2]);
}

#[test]
fn nonblocking_collectives_are_collectives_with_a_request() {
    let rank0 = trace(
        0,
        vec![call(
            6,
            vec![0x1000, 2, INT, 0x2000, 2, INT, WORLD, 0x2c000005],
            true,
            30,
        )],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    assert!(
        matches!(
            run.ranks[0].events[0].op,
            Op::Collective {
                kind: CollectiveKind::Alltoall,
                comm: CommId(0),
                blocking: Blocking::Nonblocking(_),
                ..
            }
        ),
        "{:?}",
        run.ranks[0].events[0].op
    );
}

#[test]
fn one_handle_for_several_live_requests_stays_several_requests() {
    // Open MPI returns one static, complete request for every send it finished inline.
    const INLINE_DONE: i64 = 0x7f00_0000_1000;
    let isend = |tag| {
        call(
            2,
            vec![0x1000, 0, INT, 1, tag, WORLD, INLINE_DONE],
            true,
            11,
        )
    };
    let waitall = call(
        4,
        vec![
            2,
            2,
            INLINE_DONE,
            INLINE_DONE,
            2,
            INLINE_DONE,
            INLINE_DONE,
            2,
            -2,
            -1,
            0,
            0,
            -2,
            -1,
            0,
            0,
        ],
        true,
        12,
    );
    let rank0 = trace(0, vec![isend(1), isend(2), waitall]);
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let request_of = |event: usize| match &run.ranks[0].events[event].op {
        Op::Send {
            blocking: Blocking::Nonblocking(request),
            ..
        } => *request,
        op => panic!("{op:?}"),
    };
    let Op::Wait { requests, .. } = &run.ranks[0].events[2].op else {
        panic!()
    };
    assert_ne!(request_of(0), request_of(1));
    assert_eq!(requests, &vec![Some(request_of(0)), Some(request_of(1))]);
}

#[test]
fn one_shared_handle_for_sends_completed_at_once_names_each_request() {
    // MPICH and Open MPI return the same handle for every send that completed
    // immediately; a waitall over four such handles completes four requests.
    let shared = 0x6c000001;
    let isend = |tag| {
        call(
            2,
            vec![0x1000, 4, INT, 1, tag, WORLD, shared],
            true,
            40 + tag as u64,
        )
    };
    let mut words = vec![4, 4, shared, shared, shared, shared, 4];
    words.extend([REQUEST_NULL; 4]);
    words.push(4);
    words.extend([0; 16]);
    let rank0 = trace(
        0,
        vec![
            isend(0),
            isend(1),
            isend(2),
            isend(3),
            call(4, words, true, 50),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let started: Vec<ReqId> = run.ranks[0].events[..4]
        .iter()
        .map(|e| match e.op {
            Op::Send {
                blocking: Blocking::Nonblocking(r),
                ..
            } => r,
            ref op => panic!("{op:?}"),
        })
        .collect();
    let Op::Wait { requests, .. } = &run.ranks[0].events[4].op else {
        panic!()
    };
    let waited: Vec<ReqId> = requests.iter().flatten().copied().collect();
    assert_eq!(waited, started);
}

#[test]
fn a_handle_freed_by_one_thread_and_reused_by_another_names_the_right_request() {
    // Thread 0 enters MPI_Irecv first but gets its handle only after thread 1's wait freed
    // that handle: its record comes first, its request was made last.
    const HANDLE: i64 = 0xac000000u32 as i64;
    let timed = |thread: u16, enter: u64, exit: u64, mut c: CallRecord| {
        c.thread = thread;
        c.t_enter_ns = enter;
        c.t_exit_ns = exit;
        c
    };
    let irecv = |tag, buf| {
        call(
            3,
            vec![buf, 1, INT, 1, tag, WORLD, HANDLE],
            true,
            20 + tag as u64,
        )
    };
    let wait = |tag| {
        call(
            4,
            vec![1, 1, HANDLE, 1, REQUEST_NULL, 1, 1, tag, 0, 0],
            true,
            30 + tag as u64,
        )
    };
    let rank0 = trace(
        0,
        vec![
            timed(0, 10, 100, irecv(0, 0x1000)),
            timed(1, 20, 30, irecv(1, 0x2000)),
            timed(1, 40, 50, wait(1)),
            timed(0, 110, 120, wait(0)),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let events = &run.ranks[0].events;
    let made = |event: usize| match &events[event].op {
        Op::Recv {
            blocking: Blocking::Nonblocking(request),
            ..
        } => *request,
        op => panic!("{op:?}"),
    };
    let waited = |event: usize| match &events[event].op {
        Op::Wait { requests, .. } => requests.clone(),
        op => panic!("{op:?}"),
    };
    assert_eq!(
        waited(2),
        vec![Some(made(1))],
        "thread 1 waits for its own receive"
    );
    assert_eq!(
        waited(3),
        vec![Some(made(0))],
        "thread 0 waits for its own receive"
    );
    // Each receive matched the tag it asked for.
    for (event, tag) in [(0, 0), (1, 1)] {
        let Op::Recv { recv, .. } = &events[event].op else {
            panic!()
        };
        assert_eq!(recv.matched, Some((1, tag)));
    }
}

#[test]
fn duplicate_ranks_are_an_error() {
    let err = normalize(&[trace(0, vec![]), trace(0, vec![])], &mut resolve).unwrap_err();
    assert!(err.to_string().contains("world rank 0"));
}

/// Facts live as long as the analysis, one per call: boxed ones must not keep spare
/// capacity. (These calls come before any `MPI_Init`, so each has an argument issue besides
/// its buffer and keeps boxed facts; a lone buffer is kept in the event, see
/// `a_lone_buffer_span_is_kept_in_the_event`.)
#[test]
fn facts_keep_no_spare_capacity() {
    let rank0 = trace(
        0,
        vec![
            call(2, vec![0x1000, 4, INT, 1, 7, WORLD, 0x2c000011], true, 11),
            call(3, vec![0x2000, 4, INT, 1, 7, WORLD, 0x2c000012], true, 12),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let mut spans = 0;
    for event in &run.ranks[0].events {
        spans += event.buffers().len();
        let facts = event.facts().expect("boxed facts");
        assert_eq!(
            facts.buffers.capacity(),
            facts.buffers.len(),
            "{}",
            event.call
        );
        assert_eq!(facts.created.capacity(), facts.created.len());
        assert_eq!(facts.arg_issues.capacity(), facts.arg_issues.len());
    }
    assert_eq!(spans, 2);
}

/// Resolving a call site reads debug information: once per address and process, not per
/// call.
#[test]
fn each_call_site_is_resolved_once_per_process() {
    let sends = |rank: i32| {
        let calls = (0..5)
            .map(|i| call(2, vec![0x1000, 4, INT, 1, i, WORLD, 0x2c000011], true, 11))
            .collect();
        trace(rank, calls)
    };
    let mut resolved = Vec::new();
    let run = normalize(&[sends(0), sends(1)], &mut |trace, addr| {
        resolved.push((trace, addr));
        resolve(trace, addr)
    })
    .unwrap();
    assert_eq!(resolved, [(0, 11), (1, 11)]);
    for rank in &run.ranks[..2] {
        assert_eq!(rank.events.len(), 5);
        assert!(rank
            .events
            .iter()
            .all(|e| run.site(e.site).line == Some(11)));
    }
}

/// A program repeats a few collectives many times: calls with equal arguments share one
/// copy of them, and calls with other arguments keep their own.
#[test]
fn equal_collective_arguments_are_held_once() {
    let alltoall = |count: i64, request: i64| {
        call(
            6,
            vec![0x1000, count, INT, 0x2000, count, INT, WORLD, request],
            true,
            30,
        )
    };
    let calls = vec![
        alltoall(2, 0x2c000005),
        alltoall(2, 0x2c000006),
        alltoall(3, 0x2c000007),
    ];
    let run = normalize(&[trace(0, calls)], &mut resolve).unwrap();
    let args = |index: u32| run.collective_args[&(0, index)].clone();
    assert!(Arc::ptr_eq(&args(0), &args(1)));
    assert!(!Arc::ptr_eq(&args(0), &args(2)));
    assert_eq!(args(0).send.map(|s| s.count), Some(2));
    assert_eq!(args(2).send.map(|s| s.count), Some(3));
    assert_eq!(run.collective_args_of(0, 2), Some(&*args(2)));
}

/// Releasing each rank's records once it is normalized gives the same run, and leaves the
/// traces without records.
#[test]
fn streaming_the_calls_gives_the_run_of_held_calls() {
    let traces = || {
        vec![
            trace(
                0,
                vec![
                    call(2, vec![0x1000, 4, INT, 1, 7, WORLD, 0x2c000011], true, 11),
                    call(
                        4,
                        vec![1, 1, 0x2c000011, 1, REQUEST_NULL, 1, 0, 0, 0, 0],
                        true,
                        12,
                    ),
                ],
            ),
            trace(
                1,
                vec![call(
                    5,
                    vec![0x2000, 4, INT, ANY_SOURCE, 7, WORLD, 0, 7, 0, 16],
                    true,
                    20,
                )],
            ),
            trace(
                2,
                vec![call(
                    6,
                    vec![0x1000, 2, INT, 0x2000, 2, INT, WORLD, 0x2c000005],
                    true,
                    30,
                )],
            ),
        ]
    };
    let expected = normalize(&traces(), &mut resolve).unwrap();
    // As scanned: the calls are not held, only counted.
    let mut scanned = traces();
    let calls: Vec<Vec<CallRecord>> = scanned
        .iter_mut()
        .map(|t| std::mem::take(&mut t.calls))
        .collect();
    let run = normalize_streaming(
        &scanned,
        &mut |i| Ok(calls[i].clone().into_iter().map(Ok)),
        &mut resolve,
    )
    .unwrap();
    assert_eq!(run, expected);
    assert_eq!(run.ranks.iter().map(|r| r.events.len()).sum::<usize>(), 4);
    // Events are held without spare room: their number was known from the scan.
    assert!(run
        .ranks
        .iter()
        .all(|r| r.events.capacity() == r.events.len()));

    // A trace that cannot be read to its end is an error, not a shorter rank.
    let err = normalize_streaming(
        &scanned,
        &mut |i| {
            let unreadable = (i == 1).then(|| {
                Err(TraceError::Io {
                    path: "trace-2.mpitrace".into(),
                    source: std::io::ErrorKind::UnexpectedEof.into(),
                })
            });
            Ok(calls[i].clone().into_iter().map(Ok).chain(unreadable))
        },
        &mut resolve,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot read the calls of rank 1: {}",
            TraceError::Io {
                path: "trace-2.mpitrace".into(),
                source: std::io::ErrorKind::UnexpectedEof.into(),
            }
        )
    );
}

/// Every recorded call becomes an event held until the checks end: its size is the analysis'
/// memory per call. A rare operation's payload inline (a `Sendrecv`'s two specs) made every
/// event 160 bytes; the one buffer span of a point-to-point call is kept inline (24 bytes)
/// instead of in boxed facts (160 bytes).
#[test]
fn events_stay_small() {
    assert!(size_of::<Op>() <= 64, "{}", size_of::<Op>());
    assert!(size_of::<BufferSpan>() <= 24, "{}", size_of::<BufferSpan>());
    assert!(size_of::<EventFacts>() <= 24, "{}", size_of::<EventFacts>());
    assert!(size_of::<Event>() <= 144, "{}", size_of::<Event>());
}

/// A call whose only fact is one buffer keeps it in the event, without boxed facts; one
/// with more keeps all of them boxed.
#[test]
fn a_lone_buffer_span_is_kept_in_the_event() {
    let span = BufferSpan {
        param: BufferParam::Buf,
        start: 4096,
        len: 8,
        write: false,
    };
    let lone = CallFacts {
        buffers: vec![span.clone()],
        ..CallFacts::default()
    };
    assert_eq!(
        EventFacts::from_facts(lone),
        EventFacts::Buffer(span.clone())
    );
    let two = CallFacts {
        buffers: vec![span.clone(), span.clone()],
        ..CallFacts::default()
    };
    assert!(matches!(EventFacts::from_facts(two), EventFacts::Full(_)));
    let with_bsend = CallFacts {
        buffers: vec![span.clone()],
        bsend_bytes: Some(100),
        ..CallFacts::default()
    };
    let EventFacts::Full(kept) = EventFacts::from_facts(with_bsend) else {
        panic!("boxed")
    };
    assert_eq!(kept.buffers, vec![span]);
    assert_eq!(kept.buffers.capacity(), 1, "no spare capacity kept");
    assert_eq!(
        EventFacts::from_facts(CallFacts::default()),
        EventFacts::None
    );
}

#[test]
fn a_call_mpi_aborted_in_ends_the_rank_there() {
    // MPI aborted the job inside the receive of thread index 0 (header: slot 1); the exit
    // handlers did not run.
    let recv = || call(5, vec![0x1000, -1, INT, 0, 0, WORLD, 0, 0, 0], false, 40);
    let mut aborted = trace(0, vec![recv()]);
    aborted.header.state =
        mpicheck_trace::state::INITIALIZED | mpicheck_trace::state::ABORTED_IN_CALL;
    aborted.header.abort_thread = 1;
    let run = normalize(&[aborted.clone()], &mut resolve).unwrap();
    assert_eq!(
        run.ranks[0].end,
        RankEnd::AbortedInCall {
            event: 0,
            call: "MPI_Recv"
        }
    );
    // Without the flag the process did not exit: interrupted inside the call.
    aborted.header.state = mpicheck_trace::state::INITIALIZED;
    let run = normalize(&[aborted], &mut resolve).unwrap();
    assert!(matches!(run.ranks[0].end, RankEnd::Interrupted { .. }));
}

#[test]
fn a_trace_that_ends_in_mpi_abort_ends_there_even_when_its_exit_handlers_ran() {
    // MPICH runs the exit handlers when MPI_Abort's communicator is not MPI_COMM_WORLD: the
    // rank did not merely exit without MPI_Finalize, it aborted the job.
    let aborted = trace(0, vec![call(7, vec![WORLD, 1], false, 50)]);
    let run = normalize(&[aborted], &mut resolve).unwrap();
    assert_eq!(
        run.ranks[0].end,
        RankEnd::AbortedInCall {
            event: 0,
            call: "MPI_Abort"
        }
    );
}

/// The real traces of `tests/traces`, by set.
fn committed_traces() -> Vec<(String, Vec<Trace>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces");
    let mut sets: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    assert_eq!(sets.len(), 5, "{sets:?}");
    sets.iter()
        .map(|dir| {
            let mut files: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            let traces = files
                .iter()
                .map(|f| mpicheck_trace::read_trace(f).unwrap())
                .collect();
            (
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                traces,
            )
        })
        .collect()
}

/// Call sites as a resolver could name them: the same line for the same call in every
/// process, whose addresses differ (ASLR moves them by whole pages).
fn resolve_line(_: usize, address: u64) -> SourceLocation {
    SourceLocation {
        file: Some("features.c".into()),
        line: Some((address & 0xfff) as u32),
        ..Default::default()
    }
}

/// The first part in which two runs differ, for a readable failure.
fn first_difference(a: &Run, b: &Run) -> Option<String> {
    macro_rules! differ {
        ($($field:ident),*) => {
            $(if a.$field != b.$field {
                return Some(format!("{}:\n{:#?}\nversus\n{:#?}", stringify!($field), a.$field, b.$field));
            })*
        };
    }
    differ!(sites, comms, datatypes, windows, buffer_accesses);
    for (x, y) in a.ranks.iter().zip(&b.ranks) {
        for (i, (e, f)) in x.events.iter().zip(&y.events).enumerate() {
            if e != f {
                return Some(format!(
                    "rank {} event {i}:\n{e:#?}\nversus\n{f:#?}",
                    x.rank
                ));
            }
        }
    }
    differ!(ranks, collective_args, rma, buffer_watch);
    None
}

/// Orders of the ranks' calls to normalize in: by entry time, the last rank first, the ranks
/// alternating, and three pseudo-random interleavings.
/// Names the next rank among those with calls left.
type Chooser = Box<dyn FnMut(&[Rank]) -> Rank>;

fn orders() -> Vec<(String, Chooser)> {
    let mut out: Vec<(String, Chooser)> = vec![
        (
            "last rank first".into(),
            Box::new(|left: &[Rank]| left[left.len() - 1]),
        ),
        (
            "alternating".into(),
            Box::new({
                let mut turn = 0;
                move |left: &[Rank]| {
                    turn += 1;
                    left[turn % left.len()]
                }
            }),
        ),
    ];
    for seed in [1u64, 7, 1234567] {
        let mut state = seed;
        out.push((
            format!("random {seed}"),
            Box::new(move |left: &[Rank]| {
                // xorshift64
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                left[(state % left.len() as u64) as usize]
            }),
        ));
    }
    out
}

#[test]
fn the_run_and_its_findings_do_not_depend_on_the_order_the_ranks_are_normalized_in() {
    for (set, traces) in committed_traces() {
        let expected = normalize_in(&traces, &mut resolve_line, Order::RankAfterRank).unwrap();
        let expected_findings = crate::checks::run_all(&expected);
        let held_calls = |i: usize| Ok(traces[i].calls.iter().cloned().map(Ok));
        let mut orders = orders();
        let check = |name: &str, order: Order| {
            let run = normalize_in(&traces, &mut resolve_line, order).unwrap();
            if let Some(difference) = first_difference(&run, &expected) {
                panic!("{set}, normalized {name}: {difference}");
            }
            assert_eq!(run, expected, "{set}, normalized {name}");
        };
        check("by entry time", Order::EntryTime);
        for (name, choose) in &mut orders {
            check(name, Order::Chosen(choose.as_mut()));
        }
        // The whole analysis, passes fed while the calls are normalized, keeping only each
        // rank's last event.
        let keep = Keep::LastEvents(1);
        let analyze = |name: &str, order: Order| {
            let (run, findings) = crate::checks::analyze_streaming_in(
                &traces,
                &mut held_calls.clone(),
                &mut resolve_line,
                &[],
                |_| {},
                order,
                crate::checks::Holding {
                    keep,
                    // The replays' program read back from a file, three operations a chunk.
                    spill: Some(crate::engine::SpillTo {
                        dir: &std::env::temp_dir(),
                        chunk: 3,
                    }),
                    calls: Default::default(),
                },
                &mut |_| None,
            )
            .unwrap();
            for (r, e) in run.ranks.iter().zip(&expected.ranks) {
                assert_eq!(r.events[..], e.events[e.events.len().saturating_sub(1)..]);
            }
            assert_eq!(run.comms, expected.comms, "{set}, analyzed {name}");
            assert_eq!(findings, expected_findings, "{set}, analyzed {name}");
        };
        analyze("rank after rank", Order::RankAfterRank);
        analyze("by entry time", Order::EntryTime);
        for (name, choose) in &mut orders {
            analyze(name, Order::Chosen(choose.as_mut()));
        }
    }
}

/// Issue 14: the most the collective aligner and TY002's message streams hold at once, the
/// ranks normalized one after the other and interleaved by entry time, on the run recorded
/// in `MPICHECK_LIVE_STATE_DIR` (BENCHMARKS.md, "Ranks normalized interleaved"). TY002 is
/// fed from the normalized run (matches known at the events) in the order the events were
/// made.
#[test]
#[ignore = "a measurement: set MPICHECK_LIVE_STATE_DIR to a recorded run"]
fn live_state_rank_after_rank_and_by_entry_time() {
    use crate::checks::collective::CollectivePass;
    use crate::checks::datatype::point_to_point::MessageTypePass;
    use crate::checks::pass::feed_in;
    use crate::diagnostic::Diagnostic;

    /// The rank of every event, in the order they were made.
    struct Arrivals(Vec<Rank>);
    impl EventPass for Arrivals {
        fn event(&mut self, rank: Rank, _: usize, _: &Event, _: &RunTables) {
            self.0.push(rank);
        }
        fn finish(self: Box<Self>, _: &RunTables) -> Vec<Diagnostic> {
            Vec::new()
        }
    }
    /// TY002's pass and the most it held after an event.
    struct Held(MessageTypePass, usize);
    impl EventPass for Held {
        fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
            self.0.event(rank, index, event, tables);
            self.1 = self.1.max(self.0.held());
        }
        fn finish(self: Box<Self>, _: &RunTables) -> Vec<Diagnostic> {
            Vec::new()
        }
    }

    let dir = std::path::PathBuf::from(std::env::var_os("MPICHECK_LIVE_STATE_DIR").unwrap());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .collect();
    files.sort();
    let traces: Vec<Trace> = files
        .iter()
        .map(|f| mpicheck_trace::read_trace(f).unwrap())
        .collect();
    for t in &traces {
        let at = |i: usize| t.calls.get(i).map(|c| c.t_enter_ns);
        let n = t.calls.len();
        println!(
            "rank {:?}: start {} ns, entry times {:?} {:?} {:?} {:?} ns since ({} calls)",
            t.header.rank,
            t.header.start_unix_ns,
            at(0),
            at(n / 4),
            at(n / 2),
            at(n - 1),
            n
        );
    }
    for (name, order) in [
        ("rank after rank", Order::RankAfterRank),
        ("by entry time", Order::EntryTime),
    ] {
        let mut collective = CollectivePass::default();
        let mut arrivals = Arrivals(Vec::new());
        let (mut run, numbering) = normalize_streaming_into(
            &traces,
            &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
            &mut resolve_line,
            &mut [&mut collective, &mut arrivals],
            order,
            Keep::AllEvents,
            &mut |_| None,
        )
        .unwrap();
        numbering.apply(&mut run);
        let mut ty002 = Held(MessageTypePass::default(), 0);
        feed_in(&run, &mut [&mut ty002], &arrivals.0);
        println!(
            "{name}: {} events; the collective aligner held at most {} calls, TY002's streams at most {} messages and receives",
            arrivals.0.len(),
            collective.aligner_peak(),
            ty002.1
        );
    }
}

/// Issue 14: a normalization that keeps only each rank's last events gives the passes every
/// event, with its index in the rank, and the collective arguments they read, and keeps
/// the same last events (with their late matches) as one that keeps them all.
#[test]
fn keeping_the_last_events_gives_the_passes_the_same_events() {
    /// Every event given, with the collective arguments of its call.
    #[derive(Default)]
    struct Given(Vec<(Rank, usize, Event, Option<CollectiveArgs>)>);
    impl EventPass for Given {
        fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
            let args = tables.collective_args(rank, index).map(|a| (**a).clone());
            self.0.push((rank, index, event.clone(), args));
        }
        fn finish(self: Box<Self>, _: &RunTables) -> Vec<crate::diagnostic::Diagnostic> {
            Vec::new()
        }
    }
    for (set, traces) in committed_traces() {
        let normalized = |keep: Keep| {
            let mut given = Given::default();
            let (run, _) = normalize_streaming_into(
                &traces,
                &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
                &mut resolve_line,
                &mut [&mut given],
                Order::EntryTime,
                keep,
                &mut |_| None,
            )
            .unwrap();
            (run, given.0)
        };
        let (all, given_all) = normalized(Keep::AllEvents);
        for n in [1, 3, 50] {
            let (last, given) = normalized(Keep::LastEvents(n));
            assert!(
                given == given_all,
                "{set}: the passes were given other events"
            );
            for (a, l) in all.ranks.iter().zip(&last.ranks) {
                assert_eq!(
                    l.events,
                    a.events[a.events.len().saturating_sub(n)..],
                    "{set}"
                );
                // Synchronization records are not kept once the passes had them.
                let threads = ThreadInfo {
                    sync: Vec::new(),
                    ..a.threads.clone()
                };
                assert_eq!((&l.end, &l.threads), (&a.end, &threads), "{set}");
            }
            assert!(last.collective_args.is_empty(), "{set}");
            assert_eq!(last.comms, all.comms, "{set}");
        }
    }
}

/// A program that makes RMA windows holds the happens-before skeleton its RMA checks query
/// at the end (every program keeps each rank's last events only, `checks::KEEP`).
#[test]
fn window_programs_hold_a_call_skeleton() {
    for (set, traces) in committed_traces() {
        assert_eq!(
            crate::checks::holds_call_skeleton(&traces),
            set.starts_with("features"),
            "{set}"
        );
    }
}

/// A communicator's key is forgotten once its last member frees it (its id and info stay);
/// a rank outside it freeing a handle of that id changes nothing.
#[test]
fn a_communicator_freed_by_every_member_loses_its_key() {
    let mut tables = Tables::new(3);
    let key = CommKey::Child {
        parent: CommId(0),
        ordinal: 1,
        members: vec![1, 2],
        remote: None,
    };
    let info = || CommInfo {
        name: "communicator from MPI_Comm_split on MPI_COMM_WORLD".into(),
        members: [1, 2].into(),
        remote: None,
    };
    let id = tables.comm(key.clone(), Seen::of(1, 1), info);
    assert_eq!(tables.comm(key.clone(), Seen::of(2, 1), info), id);
    assert!(!tables.comm_freed(id, 2));
    assert!(!tables.comm_freed(id, 0), "rank 0 is no member");
    assert!(tables.comm_ids.contains_key(&key));
    assert!(tables.comm_freed(id, 1));
    assert!(!tables.comm_ids.contains_key(&key));
    assert!(tables.unfreed.is_empty());
    assert_eq!(tables.comms[id.0 as usize], info());
    // MPI_COMM_WORLD is never forgotten.
    assert!(!tables.comm_freed(CommId(0), 0));
}

/// Communicators made over the same ranks share one member list, as they share a name.
#[test]
fn communicators_over_the_same_ranks_share_their_member_list() {
    let mut tables = Tables::new(3);
    let ids: Vec<CommId> = (1..=3)
        .map(|ordinal| {
            let key = CommKey::Child {
                parent: CommId(0),
                ordinal,
                members: vec![1, 2],
                remote: None,
            };
            tables.comm(key, Seen::of(1, ordinal), || CommInfo {
                name: "communicator from MPI_Comm_dup on MPI_COMM_WORLD".into(),
                members: vec![1, 2].into(),
                remote: Some(vec![0].into()),
            })
        })
        .collect();
    let info = |id: CommId| &tables.comms[id.0 as usize];
    assert!(Arc::ptr_eq(&info(ids[0]).members, &info(ids[2]).members));
    let remote = |id: CommId| info(id).remote.clone().unwrap();
    assert!(Arc::ptr_eq(&remote(ids[0]), &remote(ids[1])));
    assert!(Arc::ptr_eq(&info(ids[0]).name, &info(ids[1]).name));
    assert_eq!(*info(ids[1]).members, [1, 2]);
}

/// Ranks 1 and 2 split off {1, 2}, make `barriers[r]` barriers on it and free it (rank 0
/// gets MPI_COMM_NULL); the collective pass fed while normalizing: its aligner's lines
/// after (`MPI_COMM_WORLD`'s, of the split, stays), and its findings.
fn split_barriers_free(barriers: [usize; 2], order: Order) -> (usize, Vec<&'static str>) {
    use crate::checks::collective::CollectivePass;
    let rank0 = trace(
        0,
        vec![call(0, vec![WORLD, -32766, 0, COMM_NULL], true, 10)],
    );
    let member = |rank: i32, handle: i64, barriers: usize| {
        let mut calls = vec![
            call(0, vec![WORLD, 0, 0, handle], true, 10),
            call(1, vec![handle, 2, 1, 2, -1], true, 10),
        ];
        calls.extend((0..barriers).map(|_| call(8, vec![handle], true, 11)));
        calls.push(call(9, vec![handle, COMM_NULL], true, 12));
        trace(rank, calls)
    };
    let traces = [
        rank0,
        member(1, 0x84000001, barriers[0]),
        member(2, 0x84000009, barriers[1]),
    ];
    let mut collective = CollectivePass::default();
    let (run, _) = normalize_streaming_into(
        &traces,
        &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
        &mut resolve,
        &mut [&mut collective],
        order,
        Keep::AllEvents,
        &mut |_| None,
    )
    .unwrap();
    let lines = collective.aligner_lines();
    let found = Box::new(collective).finish(&RunTables::of(&run));
    (lines, found.iter().map(|d| d.code).collect())
}

#[test]
fn the_aligner_forgets_a_communicator_every_member_freed_with_nothing_open() {
    for order in [Order::RankAfterRank, Order::EntryTime] {
        assert_eq!(split_barriers_free([2, 2], order), (1, vec![]));
    }
}

#[test]
fn a_collective_some_member_never_made_stays_after_the_free() {
    for order in [Order::RankAfterRank, Order::EntryTime] {
        assert_eq!(split_barriers_free([2, 1], order), (2, vec!["CO001"]));
    }
}

#[test]
fn the_streamed_stall_analysis_says_what_the_analysis_of_every_event_says() {
    let mut deadlocks = 0;
    for (set, traces) in committed_traces() {
        let held = normalize_in(&traces, &mut resolve_line, Order::RankAfterRank).unwrap();
        let expected = match crate::checks::actual_deadlock(&held) {
            Some(deadlock) => Some(vec![deadlock]),
            None => crate::checks::mismatch_stall(&held),
        };
        let held_calls = |i: usize| Ok(traces[i].calls.iter().cloned().map(Ok));
        let (run, explained) = crate::checks::stall_streaming(
            &traces,
            &mut held_calls.clone(),
            &mut resolve_line,
            &[],
            Some(&std::env::temp_dir()),
            |_| {},
        )
        .unwrap();
        assert_eq!(explained, expected, "{set}");
        assert_eq!(run.comms, held.comms, "{set}");
        // So says the analysis of every check (the one following the job, ended at a stall).
        let (every, found) = crate::checks::analyze_streaming(
            &traces,
            &mut held_calls.clone(),
            &mut resolve_line,
            &[],
            Some(&std::env::temp_dir()),
            |_| {},
        )
        .unwrap();
        assert_eq!(
            crate::checks::stall_explanation(&every, found),
            expected,
            "{set}"
        );
        deadlocks += usize::from(explained.is_some_and(|found| found[0].code == "DL001"));
    }
    // The deadlock-mpich and deadlock-openmpi sets.
    assert_eq!(deadlocks, 2);
}
