//! What ranks' calls become through their streams: communicators, requests and wildcard
//! matches, call sites, per-call facts, the events' size, and how a rank ended. The traces
//! are made with the fixtures of the normalizer's tests ([`super::super::tests`]).

use super::super::normalize;
use super::super::tests::{
    call, resolve, trace, ANY_SOURCE, ANY_TAG, COMM_NULL, INT, REQUEST_NULL, WORLD,
};
use super::*;

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
    assert_eq!(requests[..], [Some(*req)]);
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
    assert_eq!(requests[..], [Some(request_of(0)), Some(request_of(1))]);
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

/// A trace of rank 0 whose calls record the addresses of their request variables (format
/// of the wrappers that write `request_address`, `array_of_requests_address`), MPICH's
/// handles of `width` bytes in arrays (MPICH 4, Open MPI 8).
fn addressed_trace(width: u8, calls: Vec<CallRecord>) -> Trace {
    let schema = format!(
        "\
0 MPI_Isend buf:BUFFER:in:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 dest:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4 request_address:REQUEST_ADDRESS:in:s8 request:REQUEST:out:s4
1 MPI_Wait request_address:REQUEST_ADDRESS:in:s8 request:REQUEST:inout:s4 status:STATUS:out:st3
2 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s4 array_of_requests_address:REQUEST_ADDRESS:in:s8 array_of_requests:REQUEST:inout:a{width} array_of_statuses:STATUS:out:sa3
3 MPI_Request_free request_address:REQUEST_ADDRESS:in:s8 request:REQUEST:inout:s4
"
    );
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_REQUEST_NULL", REQUEST_NULL),
        ("MPI_UNDEFINED", -32766),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    mpicheck_trace::builder::decoded_trace(
        0,
        1,
        mpicheck_trace::state::INITIALIZED | mpicheck_trace::state::EXITED,
        &schema,
        &constants,
        calls,
    )
}

/// MPICH's handle of every send that completed at once.
const SHARED: i64 = 0x6c000001;

/// `MPI_Isend` of tag `tag` whose handle MPI wrote to the variable at `address`.
fn addressed_isend(tag: i64, address: i64, handle: i64) -> CallRecord {
    call(
        0,
        vec![0x1000 * tag, 4, INT, 0, tag, WORLD, address, handle],
        true,
        40 + tag as u64,
    )
}

/// `MPI_Wait` on the variable at `address` holding `handle`.
fn addressed_wait(address: i64, handle: i64) -> CallRecord {
    call(1, vec![address, handle, REQUEST_NULL, 0, 0, 0, 0], true, 60)
}

/// `MPI_Waitall` on the `handles` of the array at `address`.
fn addressed_waitall(address: i64, handles: &[i64]) -> CallRecord {
    let n = handles.len() as i64;
    let mut words = vec![n, address, n];
    words.extend(handles);
    words.push(n);
    words.extend(handles.iter().map(|_| REQUEST_NULL));
    words.push(n);
    words.extend(handles.iter().flat_map(|_| [0; 4]));
    call(2, words, true, 70)
}

/// The requests of the sends among `events`, in order, and the requests each wait names.
fn sends_and_waits(events: &[Event]) -> (Vec<ReqId>, Vec<Vec<Option<ReqId>>>) {
    let mut sends = Vec::new();
    let mut waits = Vec::new();
    for event in events {
        match &event.op {
            Op::Send {
                blocking: Blocking::Nonblocking(r),
                ..
            } => sends.push(*r),
            Op::Wait { requests, .. } => waits.push(requests.to_vec()),
            Op::RequestFree { request } => waits.push(vec![Some(*request)]),
            op => panic!("{op:?}"),
        }
    }
    (sends, waits)
}

#[test]
fn a_wait_names_the_request_of_a_shared_handle_written_to_its_variable() {
    // Isend(&r[0]); Isend(&r[1]); Wait(&r[1]); Wait(&r[0]), both handles the shared one:
    // by handle value alone the first wait named the older send.
    let r = 0x7ffc_1000;
    let rank0 = addressed_trace(
        4,
        vec![
            addressed_isend(1, r, SHARED),
            addressed_isend(2, r + 4, SHARED),
            addressed_wait(r + 4, SHARED),
            addressed_wait(r, SHARED),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let (sends, waits) = sends_and_waits(&run.ranks[0].events);
    assert_eq!(waits, [[Some(sends[1])], [Some(sends[0])]]);
    // Told apart by their variables: the thread checks may attribute their waits.
    assert_eq!(run.ranks[0].threads.shared_requests, []);
}

#[test]
fn a_waitall_names_each_entry_by_its_address_the_handle_width_apart() {
    // Three sends into r[0..3]; MPI_Waitall(2, &r[1]) completes the last two.
    let r = 0x7ffc_2000;
    let rank0 = addressed_trace(
        4,
        vec![
            addressed_isend(1, r, SHARED),
            addressed_isend(2, r + 4, SHARED),
            addressed_isend(3, r + 8, SHARED),
            addressed_waitall(r + 4, &[SHARED, SHARED]),
            addressed_waitall(r, &[SHARED]),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let (sends, waits) = sends_and_waits(&run.ranks[0].events);
    assert_eq!(waits[0], [Some(sends[1]), Some(sends[2])]);
    assert_eq!(waits[1], [Some(sends[0])]);
}

#[test]
fn a_fortran_waitall_steps_through_its_integer_handles_4_bytes_apart() {
    // Open MPI's C handles are 8 bytes, but a Fortran call's array holds INTEGERs.
    let r = 0x7ffc_3000;
    let mut calls = vec![
        addressed_isend(1, r, SHARED),
        addressed_isend(2, r + 4, SHARED),
        addressed_isend(3, r + 8, SHARED),
        addressed_waitall(r + 4, &[SHARED, SHARED]),
    ];
    for c in &mut calls {
        c.fortran = true;
    }
    let rank0 = addressed_trace(8, calls);
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let (sends, waits) = sends_and_waits(&run.ranks[0].events);
    assert_eq!(waits[0], [Some(sends[1]), Some(sends[2])]);
}

#[test]
fn addresses_that_name_no_request_leave_the_order_of_the_handles() {
    // The program copied the handles to other variables (reqs[n++] = tmp): the wait names
    // the oldest request with the handle as without addresses, and the requests so named
    // count as shared for the thread checks. An entry whose address names a request keeps
    // it; the others take the oldest of the rest.
    let (tmp, reqs) = (0x7ffc_4000, 0x7ffc_5000);
    let rank0 = addressed_trace(
        4,
        vec![
            addressed_isend(1, tmp, SHARED),
            addressed_isend(2, tmp, SHARED),
            addressed_isend(3, reqs + 4, SHARED),
            addressed_waitall(reqs, &[SHARED, SHARED]),
            addressed_wait(0x7ffc_6000, SHARED),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let (sends, waits) = sends_and_waits(&run.ranks[0].events);
    assert_eq!(waits[0], [Some(sends[0]), Some(sends[2])]);
    assert_eq!(waits[1], [Some(sends[1])]);
    // The two made at one address are shared from the start; the third was told apart.
    assert_eq!(run.ranks[0].threads.shared_requests, [sends[0], sends[1]]);
}

#[test]
fn without_addresses_a_shared_handle_names_the_oldest_request() {
    // Traces without the address words (older ones; text traces) keep the rule of before.
    let rank0 = trace(
        0,
        vec![
            call(2, vec![0x1000, 4, INT, 0, 1, WORLD, SHARED], true, 41),
            call(2, vec![0x2000, 4, INT, 0, 2, WORLD, SHARED], true, 42),
            call(
                4,
                vec![1, 1, SHARED, 1, REQUEST_NULL, 1, 0, 0, 0, 0],
                true,
                60,
            ),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let events = &run.ranks[0].events;
    let (sends, waits) = sends_and_waits(events);
    assert_eq!(waits, [[Some(sends[0])]]);
    assert_eq!(run.ranks[0].threads.shared_requests, [sends[0], sends[1]]);
}

#[test]
fn request_free_of_a_shared_handle_frees_the_request_of_its_variable() {
    let r = 0x7ffc_7000;
    let rank0 = addressed_trace(
        4,
        vec![
            addressed_isend(1, r, SHARED),
            addressed_isend(2, r + 4, SHARED),
            call(3, vec![r + 4, SHARED, REQUEST_NULL], true, 80),
            addressed_wait(r, SHARED),
        ],
    );
    let run = normalize(&[rank0], &mut resolve).unwrap();
    let (sends, waits) = sends_and_waits(&run.ranks[0].events);
    assert_eq!(waits, [[Some(sends[1])], [Some(sends[0])]]);
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
        Op::Wait { requests, .. } => requests.to_vec(),
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
/// with only buffers keeps them in one boxed slice; one with more keeps all of them boxed.
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
    assert_eq!(
        EventFacts::from_facts(two),
        EventFacts::Buffers([span.clone(), span.clone()].into())
    );
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

/// A wait's completed indices are kept inline up to four and in an allocation beyond, the
/// same list either way.
#[test]
fn completed_indices_keep_their_order_inline_and_beyond() {
    for n in 0..9u32 {
        let indices: Vec<u32> = (0..n).map(|i| 10 * i + 1).collect();
        let collected: Completed = indices.iter().copied().collect();
        let converted = Completed::from(indices.clone());
        assert_eq!(&*collected, &indices[..]);
        assert_eq!(collected, converted);
        assert_eq!(format!("{collected:?}"), format!("{indices:?}"));
    }
    assert_eq!(&*Completed::one(7), &[7]);
    assert!(size_of::<Option<Completed>>() <= 24);
}
