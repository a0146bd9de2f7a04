use super::*;
use crate::checks::pass::interleave;
use crate::text_trace::parse;

/// A program as text that does not depend on where its aux words or names sit.
fn canonical(program: &Program) -> Vec<String> {
    let mut out = Vec::new();
    let mut ops = program.ops();
    for rank in 0..program.world_size() {
        let mut index = 0;
        loop {
            let mut aux = Vec::new();
            let Some(mut op) = ops.next_op(rank, &mut aux) else {
                break;
            };
            if op.kind == OpKind::Collective && op.sub == kind_index(CollectiveKind::Management) {
                op.b = 0;
            }
            let call = program.call(rank, index);
            out.push(format!(
                "{rank}:{index} {op:?} aux {aux:?} call {:?} comm {:?}",
                call.map(|c| (c.site, c.name, c.shape, c.bits)),
                call.and_then(|c| c.collective_comm()),
            ));
            index += 1;
        }
        out.push(format!("{rank} ends {:?}", program.ends[rank as usize]));
    }
    for comm in 0..program.comms.len() as u32 {
        let members = program.comm(comm).expect("a communicator");
        out.push(format!("comm {:?}", members.members().collect::<Vec<_>>()));
    }
    out
}

/// The program compiled with the ranks' events fed in `order`, the matches of
/// nonblocking receives coming late, as while the traces are normalized.
/// Its operations go to a file two at a time, so that what is settled or matched late
/// is written into operations already there: in place, or into a compressed chunk
/// written again past `compress_from` bytes.
pub(super) fn compiled_in(
    run: &Run,
    order: &[Rank],
    polling: &[(Rank, u16)],
    compress_from: u64,
) -> Program {
    let temp = std::env::temp_dir();
    let spill = SpillTo {
        dir: &temp,
        chunk: 2,
        compress_from,
    };
    let mut compiler = ProgramCompiler::new(polling, Some(spill));
    interleave::feed_late(run, &mut compiler, order);
    compiler.into_program(&RunTables::of(run))
}

fn same_in_every_order(text: &str) -> Program {
    let run = parse(text).unwrap();
    let whole = Program::from_run(&run);
    for order in interleave::orders(&run) {
        for compress_from in [u64::MAX, 0] {
            assert_eq!(
                canonical(&compiled_in(&run, &order, &[], compress_from)),
                canonical(&whole),
                "fed in {order:?}, compressed from {compress_from}"
            );
        }
    }
    whole
}

#[test]
fn late_matches_unbuffered_sends_and_cancels_compile_in_any_order() {
    let program = same_in_every_order(
        "ranks 3
        0: irecv src=any tag=any req=1 @ a.c:1
        0: isend dest=1 tag=5 req=2 @ a.c:2
        0: wait req=1 matched=2:7 @ a.c:3
        0: blocked wait req=2 @ a.c:4
        1: isendrecv dest=2 sendtag=1 src=any recvtag=any req=3 @ a.c:10
        1: isend dest=0 tag=9 req=1 @ a.c:11
        1: cancel req=1 @ a.c:12
        1: irecv src=0 tag=5 req=2 @ a.c:13
        1: waitall reqs=2,3 @ a.c:14
        1: bcast root=0 @ a.c:15
        1: comm_dup
        2: send dest=0 tag=7 @ a.c:20
        2: recv src=1 tag=1 @ a.c:21
        2: bcast root=0 @ a.c:22
        2: comm_dup",
    );
    let ops = program.rank_ops(0);
    assert_eq!(
        ops[0].b, 2,
        "the wildcard receive takes its recorded source"
    );
    assert_ne!(
        ops[1].flags & flags::UNBUFFERED,
        0,
        "its wait never returned"
    );
    assert!(program.call(1, 1).unwrap().cancelled());
}

#[test]
fn only_a_live_nonblocking_send_is_marked_cancelled() {
    let run = parse(
        "ranks 2
        0: isend dest=1 tag=5 req=1 @ a.c:1
        0: irecv src=1 tag=6 req=2 @ a.c:2
        0: cancel req=2 @ a.c:3
        0: wait req=1 @ a.c:4
        0: cancel req=1 @ a.c:5
        0: isend dest=1 tag=7 req=3 @ a.c:6
        0: cancel req=3 @ a.c:7
        1: recv src=0 tag=5 @ b.c:1",
    )
    .unwrap();
    let program = Program::from_run(&run);
    let cancelled: Vec<bool> = (0..7)
        .map(|i| program.call(0, i).is_some_and(|c| c.cancelled()))
        .collect();
    assert_eq!(
        cancelled,
        [false, false, false, false, false, true, false],
        "the receive, and the send its wait completed before the cancel, are not"
    );
}

#[test]
fn a_late_match_is_written_into_its_receive() {
    let run = parse(
        "ranks 2
        0: irecv src=any tag=any req=1
        0: wait req=1 matched=1:3
        1: send dest=0 tag=3",
    )
    .unwrap();
    for order in interleave::orders(&run) {
        assert_eq!(compiled_in(&run, &order, &[], 0).rank_ops(0)[0].b, 1);
    }
}

#[test]
fn a_lock_held_by_a_later_rank_to_its_end_is_waited_for() {
    let program = same_in_every_order(
        "ranks 3
        *: win_create win=0 comm=0 size=64
        0: blocked win_lock win=0 target=2 type=shared @ r.c:1
        1: win_lock win=0 target=2 type=exclusive @ r.c:10
        1: put win=0 target=2 disp=0 count=1 type=int @ r.c:11
        1: end exited
        2: barrier",
    );
    let blocked = program.rank_ops(0)[1];
    assert_eq!(blocked.kind, OpKind::WinLockWait);
    assert_eq!(program.call(0, 1).unwrap().name, "MPI_Win_lock");
}

#[test]
fn a_call_the_rank_exited_in_does_nothing() {
    let program = same_in_every_order(
        "ranks 2
        0: barrier
        0: blocked allreduce
        0: end exited
        1: barrier
        1: allreduce",
    );
    assert_eq!(program.rank_ops(0)[1].kind, OpKind::Nop);
    let call = program.call(0, 1).unwrap();
    assert_eq!(call.collective_comm(), Some(CommId(0)));
    assert!(!call.returned());
}

#[test]
fn a_polled_win_test_ends_its_loop() {
    let program = same_in_every_order(
        "ranks 2
        *: win_create win=0 comm=0 size=8
        0: win_post win=0 group=1
        0: win_test win=0 flag=0
        0: win_test win=0 flag=1
        0: win_test win=0 flag=1
        1: win_start win=0 group=0
        1: put win=0 target=0 disp=0 count=1 type=int
        1: win_complete win=0",
    );
    let kinds: Vec<OpKind> = program.rank_ops(0).iter().map(|op| op.kind).collect();
    assert_eq!(
        kinds[1..],
        [OpKind::WinPost, OpKind::Nop, OpKind::WinWait, OpKind::Nop]
    );
}

/// Issue 14: the compiler's own tables hold only requests a later call may still name,
/// however many requests the run makes (the program itself grows by one operation per
/// call).
#[test]
fn the_compiler_forgets_completed_requests() {
    let mut text = String::from("ranks 2\n");
    for i in 0..500 {
        let (a, b) = (2 * i + 1, 2 * i + 2);
        text += &format!(
            "0: irecv src=1 tag=1 req={a}\n0: isend dest=1 tag=1 req={b}\n\
             0: waitall reqs={a},{b}\n\
             1: irecv src=0 tag=1 req={a}\n1: isend dest=0 tag=1 req={b}\n\
             1: testall reqs={a},{b} flag=1\n"
        );
    }
    let run = parse(&text).unwrap();
    let temp = std::env::temp_dir();
    let spill = SpillTo {
        dir: &temp,
        chunk: 64,
        compress_from: u64::MAX,
    };
    let mut compiler = ProgramCompiler::new(&[], Some(spill));
    crate::checks::pass::feed(&run, &mut [&mut compiler]);
    for r in &compiler.ranks {
        assert_eq!(r.ops.len(), 1500);
        // The rest went to the file.
        assert!(r.ops.held() < 64 && r.info.held() < 64 && r.aux.held() < 64);
        assert_eq!((r.origin.len(), r.ids.renamed.len()), (0, 0));
    }
    let program = compiler.into_program(&RunTables::of(&run));
    assert_eq!(
        program.rank_ops(1)[2].kind,
        OpKind::Release,
        "a single test"
    );
}

/// The origins of requests are found wherever they are kept: in the window (in order,
/// with gaps, completed out of order), behind it, far ahead of it, or fresh.
#[test]
fn origins_are_found_in_and_out_of_their_window() {
    let origin = |op: u32, nonblocking: bool| Origin { op, nonblocking };
    let mut origins = Origins::default();
    let fresh = NO_REQ - 1;
    for (id, nonblocking) in [(5, true), (7, true), (6, false), (1, true), (fresh, true)] {
        origins.insert(id, origin(id, nonblocking));
    }
    // Past the window's span: it starts again there, 5 to 7 hashed.
    origins.insert(5 + ORIGINS_WINDOW, origin(5 + ORIGINS_WINDOW, true));
    origins.insert(8, origin(8, true));
    assert_eq!(origins.len(), 7);
    let op = |o: Option<Origin>| o.map(|o| o.op);
    assert_eq!(
        op(origins.remove_nonblocking(6)),
        None,
        "a persistent one stays"
    );
    assert_eq!(op(origins.get(6)), Some(6));
    for id in [7, 5, 1, fresh, 8, 5 + ORIGINS_WINDOW] {
        assert_eq!(op(origins.get(id)), Some(id), "{id}");
        assert_eq!(op(origins.remove_nonblocking(id)), Some(id), "{id}");
        assert!(origins.get(id).is_none(), "{id}");
    }
    assert_eq!(origins.len(), 1);
    // In order, completed out of order: the window moves on past the completed.
    let mut origins = Origins::default();
    for id in 0..10 {
        origins.insert(id, origin(id, true));
    }
    for id in [1, 0, 3, 2] {
        assert_eq!(op(origins.remove_nonblocking(id)), Some(id));
    }
    assert_eq!(
        (origins.base, origins.window.len(), origins.other.len()),
        (4, 6, 0)
    );
}

/// The launcher's model of a hung thread's polling loop, applied by the compiler to
/// the events as they come, gives the program of the run the model changed.
fn modelled_as_on_the_run(text: &str, thread: (Rank, u16)) {
    let run = parse(text).unwrap();
    let mut changed = run.clone();
    assert!(crate::polling::block_trailing_polls(
        &mut changed.ranks[thread.0 as usize],
        thread.1
    ));
    let expected = canonical(&Program::from_run(&changed));
    assert_ne!(canonical(&Program::from_run(&run)), expected);
    for order in interleave::orders(&run) {
        assert_eq!(
            canonical(&compiled_in(&run, &order, &[thread], 0)),
            expected,
            "fed in {order:?}"
        );
    }
}

#[test]
fn a_test_loop_of_a_hung_thread_stands_for_its_wait() {
    modelled_as_on_the_run(
        "ranks 2
        0: isend dest=1 tag=1 req=2 @ poll.c:9
        0: irecv src=1 tag=7 req=1 @ poll.c:10
        0: test req=1 @ poll.c:12
        0: test req=1 @ poll.c:12
        0: testall reqs=1,2 @ poll.c:13
        0: end interrupted still running
        1: blocked recv src=0 tag=3 @ poll.c:20",
        (0, 0),
    );
}

#[test]
fn a_probe_loop_and_a_win_test_loop_of_hung_threads_stand_for_their_waits() {
    modelled_as_on_the_run(
        "ranks 2
        0: send dest=1 tag=2
        0: iprobe src=1 tag=4
        0: iprobe src=1 tag=4
        0: end interrupted still running
        1: blocked recv src=0 tag=3",
        (0, 0),
    );
    modelled_as_on_the_run(
        "ranks 2
        *: win_create win=0 comm=0 size=8
        0: win_lock win=0 target=1 type=exclusive
        0: win_post win=0 group=1
        0: win_test win=0 flag=0
        0: win_test win=0 flag=0
        0: end interrupted still running
        1: blocked win_lock win=0 target=1 type=shared",
        (0, 0),
    );
}
