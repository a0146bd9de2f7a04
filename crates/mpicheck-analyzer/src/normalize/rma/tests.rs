//! Windows and RMA calls normalized from raw trace words of two ranks.

use super::super::normalize;
use crate::model::*;
use mpicheck_trace::builder::{decoded_call, decoded_trace};
use mpicheck_trace::{CallRecord, Trace};

const SCHEMA: &str = "\
0 MPI_Init argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s
1 MPI_Win_create base:BUFFER:in:s size:WINDOW_SIZE:in:s disp_unit:POLYRMA_DISPLACEMENT:in:s info:INFO:in:s comm:COMMUNICATOR:in:s win:WINDOW:out:s
2 MPI_Win_fence assert:ASSERT:in:s win:WINDOW:in:s
3 MPI_Put origin_addr:BUFFER:in:s origin_count:POLYXFER_NUM_ELEM_NNI:in:s origin_datatype:DATATYPE:in:s target_rank:RANK_NNI:in:s target_disp:RMA_DISPLACEMENT_NNI:in:s target_count:POLYXFER_NUM_ELEM_NNI:in:s target_datatype:DATATYPE:in:s win:WINDOW:in:s
4 MPI_Win_free win:WINDOW:inout:s
5 MPI_Win_lock lock_type:LOCK_TYPE:in:s rank:RANK_NNI:in:s assert:ASSERT:in:s win:WINDOW:in:s
6 MPI_Win_unlock rank:RANK_NNI:in:s win:WINDOW:in:s
7 MPI_Finalize
8 MPI_Comm_rank comm:COMMUNICATOR:in:s rank:RANK:out:s
9 MPICHECK_Type_info datatype:DATATYPE:in:s size:INT:in:s extent:INT:in:s true_lb:INT:in:s true_extent:INT:in:s
";
const WORLD: i64 = 0x44000000;
const INT: i64 = 0x4c000405;
const PROC_NULL: i64 = -1;
const NOSUCCEED: i64 = 0x1000;
const NOCHECK: i64 = 0x400;

fn call(func: u16, words: Vec<i64>, line: u64) -> CallRecord {
    decoded_call(func, words, line, true)
}

fn trace(rank: i32, calls: Vec<CallRecord>) -> Trace {
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_COMM_NULL", 0x04000000),
        ("MPI_DATATYPE_NULL", 0x0c000000),
        ("MPI_REQUEST_NULL", 0x2c000000),
        ("MPI_PROC_NULL", PROC_NULL),
        ("MPI_MODE_NOPRECEDE_VALUE", 0x2000),
        ("MPI_MODE_NOSUCCEED_VALUE", NOSUCCEED),
        ("MPI_MODE_NOCHECK_VALUE", NOCHECK),
        ("MPI_LOCK_EXCLUSIVE_VALUE", 1),
        ("MPI_LOCK_SHARED_VALUE", 2),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    decoded_trace(
        rank,
        2,
        mpicheck_trace::state::INITIALIZED
            | mpicheck_trace::state::FINALIZED
            | mpicheck_trace::state::EXITED,
        SCHEMA,
        &constants,
        calls,
    )
}

fn line(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("w.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    }
}

/// Rank 0 exposes 40 bytes in units of 4, rank 1 8 bytes in units of 1; each rank's MPI
/// names the windows by other handles. Two windows on MPI_COMM_WORLD, one after the other.
fn ranks() -> Vec<Trace> {
    let per_rank = |rank: i64, size: i64, unit: i64, first: i64, second: i64| {
        let mut calls = vec![
            call(0, vec![0, 0], 1),
            call(1, vec![0x1000, size, unit, 0, WORLD, first], 2),
            call(2, vec![0, first], 3),
        ];
        if rank == 0 {
            // 4 bytes at displacement 6 × rank 1's unit 1: bytes 6..10 of its 8.
            calls.push(call(3, vec![0x2000, 1, INT, 1, 6, 1, INT, first], 4));
            calls.push(call(
                3,
                vec![0x2000, 1, INT, PROC_NULL, 0, 1, INT, first],
                5,
            ));
            calls.push(call(3, vec![0x2000, 1, INT, 2, 0, 1, INT, first], 6));
        }
        calls.extend([
            call(2, vec![NOSUCCEED, first], 7),
            call(4, vec![first, 0], 8),
            call(1, vec![0x1000, 4, 4, 0, WORLD, second], 9),
        ]);
        if rank == 1 {
            calls.push(call(5, vec![1, 0, 0, second], 10));
            calls.push(call(6, vec![0, second], 11));
            calls.push(call(6, vec![0, second], 12));
        }
        calls.extend([call(4, vec![second, 0], 13), call(7, vec![], 14)]);
        calls
    };
    vec![
        trace(0, per_rank(0, 40, 4, 0xa0000000, 0xa0000001)),
        trace(1, per_rank(1, 8, 1, 0x7f00, 0x7f08)),
    ]
}

#[test]
fn windows_get_one_id_on_every_member_with_each_members_memory() {
    let run = normalize(&ranks(), &mut line).unwrap();
    assert_eq!(run.windows.len(), 2, "{:?}", run.windows);
    let w = &run.windows[0];
    assert_eq!(w.members, vec![0, 1]);
    assert_eq!(w.flavor, WinFlavor::Create);
    assert_eq!(w.name, "window 0 (MPI_Win_create on MPI_COMM_WORLD)");
    assert_eq!(
        w.memory.get(&0),
        Some(&WinMemory {
            size: 40,
            disp_unit: 4,
            base: Some(0x1000)
        })
    );
    assert_eq!(
        w.memory.get(&1),
        Some(&WinMemory {
            size: 8,
            disp_unit: 1,
            base: Some(0x1000)
        })
    );
    // The second constructor is window 1 on both ranks, whatever the handles.
    for rank in 0..2u32 {
        let events = &run.ranks[rank as usize].events;
        let creates: Vec<WinId> = (0..events.len() as u32)
            .filter_map(|i| run.rma.get(&(rank, i)))
            .filter(|c| c.kind == RmaKind::Create)
            .map(|c| c.win)
            .collect();
        assert_eq!(creates, vec![WinId(0), WinId(1)], "rank {rank}");
    }
    assert_eq!(run.rma[&(0, 2)].kind, RmaKind::Fence { nosucceed: false });
    assert_eq!(run.rma[&(0, 6)].kind, RmaKind::Fence { nosucceed: true });
    // Rank 1's MPI_Win_lock passed lock type 1, this MPI's MPI_LOCK_EXCLUSIVE.
    assert_eq!(
        run.rma[&(1, 6)].kind,
        RmaKind::Lock {
            target: RmaTarget::Rank(0),
            exclusive: Some(true),
            nocheck: false
        }
    );
}

#[test]
fn puts_become_accesses_with_world_targets_and_target_bytes() {
    let run = normalize(&ranks(), &mut line).unwrap();
    let RmaKind::Access(put) = &run.rma[&(0, 3)].kind else {
        panic!("{:?}", run.rma[&(0, 3)])
    };
    assert_eq!(put.kind, AccessKind::Put);
    assert_eq!(put.target, RmaTarget::Rank(1));
    assert_eq!((put.disp, put.count, put.bytes), (6, 1, Some(4)));
    // Scaled by the target's unit (1), not the origin's (4).
    assert_eq!(put.target_range(&run.windows[0]), Some((6, 10)));
    let target = |event: u32| match &run.rma[&(0, event)].kind {
        RmaKind::Access(a) => a.target,
        other => panic!("{other:?}"),
    };
    assert_eq!(target(4), RmaTarget::ProcNull);
    assert_eq!(target(5), RmaTarget::Invalid(2));
}

#[test]
fn the_checks_see_what_the_raw_words_say() {
    let run = normalize(&ranks(), &mut line).unwrap();
    let mut found: Vec<(&str, u32, Option<u32>)> = crate::checks::run_all(&run)
        .iter()
        .map(|d| (d.code, d.locations[0].ranks[0], d.locations[0].line))
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            ("RM002", 1, Some(12)), // the second unlock
            ("RM005", 0, Some(6)),  // target 2 of 2
            ("RM006", 0, Some(4)),  // bytes 6..10 of 8
        ]
    );
}

/// Fences and frees take their window's communicator, also in a free the rank was killed in
/// (its record has no output and did not return): no communicator is made up for a call
/// that names none (`mpicheck events` listed one per rank, "creation not recorded").
#[test]
fn calls_on_windows_make_up_no_communicator() {
    let mut traces = ranks();
    let last_free = traces[0].calls.iter().rposition(|c| c.func == 4).unwrap();
    traces[0].calls.truncate(last_free + 1);
    traces[0].calls[last_free].complete = false;
    traces[0].header.state = mpicheck_trace::state::INITIALIZED;
    // Rank 1 fences a window it freed: no collective, on no made-up communicator.
    let finalize = traces[1].calls.pop().unwrap();
    traces[1].calls.push(call(2, vec![0, 0x7f08], 15));
    traces[1].calls.push(finalize);
    let run = normalize(&traces, &mut line).unwrap();
    let names: Vec<&str> = run.comms.iter().map(|c| &*c.name).collect();
    assert!(
        !names.iter().any(|n| n.contains("creation not recorded")),
        "{names:?}"
    );
    for (rank, trace) in run.ranks.iter().enumerate() {
        let on_windows: Vec<_> = trace
            .events
            .iter()
            .filter(|e| matches!(e.call, "MPI_Win_fence" | "MPI_Win_free"))
            .map(|e| match &e.op {
                Op::Collective { comm, .. } => Some(*comm),
                _ => None,
            })
            .collect();
        let mut expected = vec![Some(CommId(0)); 4];
        if rank == 1 {
            expected.push(None);
        }
        assert_eq!(on_windows, expected, "rank {rank}");
    }
}

/// Group handles become world ranks through the constructors the trace records (their rank
/// arrays included), so post and start know their partners; an unknown handle is not
/// guessed.
#[test]
fn post_and_start_groups_are_world_ranks() {
    const SCHEMA: &str = "\
0 MPI_Init argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s
1 MPI_Win_create base:BUFFER:in:s size:WINDOW_SIZE:in:s disp_unit:POLYRMA_DISPLACEMENT:in:s info:INFO:in:s comm:COMMUNICATOR:in:s win:WINDOW:out:s
2 MPI_Comm_group comm:COMMUNICATOR:in:s group:GROUP:out:s
3 MPI_Group_incl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranks:RANK:in:a newgroup:GROUP:out:s
4 MPI_Group_excl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranks:RANK:in:a newgroup:GROUP:out:s
5 MPI_Group_range_excl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranges:RANK:in:a newgroup:GROUP:out:s
6 MPI_Group_free group:GROUP:inout:s
7 MPI_Win_post group:GROUP:in:s assert:ASSERT:in:s win:WINDOW:in:s
8 MPI_Win_start group:GROUP:in:s assert:ASSERT:in:s win:WINDOW:in:s
9 MPI_Finalize
";
    const WIN: i64 = 0xa0000000;
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(1, vec![0x1000, 8, 1, 0, WORLD, WIN], 2),
        call(2, vec![WORLD, 0x88], 3),
        call(3, vec![0x88, 2, 2, 1, 0, 0x89], 4),
        call(4, vec![0x88, 1, 1, 0, 0x8a], 5),
        call(5, vec![0x88, 1, 3, 0, 0, 1, 0x8b], 6),
        call(6, vec![0x88, 0], 7),
        call(7, vec![0x8a, 0, WIN], 8),
        call(8, vec![0x89, NOCHECK, WIN], 9),
        call(7, vec![0x8b, NOCHECK | 0x1000, WIN], 10),
        // The freed handle, and one never made: unknown.
        call(7, vec![0x88, 0, WIN], 11),
        call(8, vec![0x77, 0, WIN], 12),
        call(9, vec![], 13),
    ];
    let traces: Vec<Trace> = (0..2)
        .map(|rank| {
            let mut t = trace(rank, calls.clone());
            t.schema = mpicheck_trace::schema::Schema::parse(SCHEMA).unwrap();
            t
        })
        .collect();
    let run = normalize(&traces, &mut line).unwrap();
    let kind = |event: u32| run.rma[&(0, event)].kind.clone();
    assert_eq!(
        kind(7),
        RmaKind::Post {
            group: Some(vec![1]),
            nocheck: false
        }
    );
    // MPI_MODE_NOCHECK alone and with another assertion.
    assert_eq!(
        kind(8),
        RmaKind::Start {
            group: Some(vec![1, 0]),
            nocheck: true
        }
    );
    assert_eq!(
        kind(9),
        RmaKind::Post {
            group: Some(vec![1]),
            nocheck: true
        }
    );
    assert_eq!(
        kind(10),
        RmaKind::Post {
            group: None,
            nocheck: false
        }
    );
    assert_eq!(
        kind(11),
        RmaKind::Start {
            group: None,
            nocheck: false
        }
    );
}

/// A vector of 2 ints with a stride of 4 ints: 8 bytes of data over a true extent of 20
/// bytes (`MPI_Type_get_true_extent`), extent 20.
const VECTOR: i64 = 0x8c000001;

#[test]
fn a_target_datatype_with_holes_reaches_its_last_elements_true_upper_bound() {
    let mut traces = ranks();
    // Rank 0, after its first fence: the vector's info (no event of its own), then puts of 1 and 2 vectors at
    // displacement 0 of rank 1's 8 bytes.
    traces[0].calls.splice(
        3..3,
        [
            call(9, vec![VECTOR, 8, 20, 0, 20], 20),
            call(3, vec![0x2000, 2, INT, 1, 0, 1, VECTOR, 0xa0000000], 21),
            call(3, vec![0x2000, 4, INT, 1, 0, 2, VECTOR, 0xa0000000], 22),
        ],
    );
    let run = normalize(&traces, &mut line).unwrap();
    let span = |event: u32| match &run.rma[&(0, event)].kind {
        RmaKind::Access(a) => (a.bytes, a.span),
        other => panic!("{other:?}"),
    };
    // Not one block of bytes (no conflicts judged on it), but its reach is known: one
    // element ends at its true extent, two at extent + true extent.
    assert_eq!(span(3), (None, Some((0, 20))));
    assert_eq!(span(4), (None, Some((0, 40))));
    assert_eq!(span(5), (Some(4), Some((0, 4))));
    let rm006: Vec<Option<u32>> = crate::checks::run_all(&run)
        .iter()
        .filter(|d| d.code == "RM006")
        .flat_map(|d| d.locations.iter().map(|l| l.line))
        .collect();
    assert_eq!(rm006, vec![Some(21), Some(22), Some(4)], "{rm006:?}");
}

#[test]
fn the_rma_checks_find_the_same_whatever_order_the_ranks_calls_are_normalized_in() {
    // Rank 0's put past rank 1's memory (RM006) comes before rank 1 made the window when
    // rank 0's calls come first; rank 1 unlocks twice (RM002).
    let traces = ranks();
    let expected = crate::checks::run_all(&normalize(&traces, &mut line).unwrap());
    let codes: Vec<_> = expected.iter().map(|d| d.code).collect();
    assert!(
        codes.contains(&"RM006") && codes.contains(&"RM002"),
        "{codes:?}"
    );
    let mut last_first = |left: &[Rank]| *left.last().unwrap();
    let mut alternating = {
        let mut turn = 0;
        move |left: &[Rank]| {
            turn += 1;
            left[turn % left.len()]
        }
    };
    for (name, order) in [
        ("rank after rank", super::super::Order::RankAfterRank),
        ("by entry time", super::super::Order::EntryTime),
        (
            "last rank first",
            super::super::Order::Chosen(&mut last_first),
        ),
        ("alternating", super::super::Order::Chosen(&mut alternating)),
    ] {
        let (_, found) = crate::checks::analyze_streaming_in(
            &traces,
            &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
            &mut line,
            &[],
            |_| {},
            order,
            crate::checks::Holding {
                keep: crate::checks::KEEP,
                spill: None,
                calls: Default::default(),
            },
            &mut |_| None,
        )
        .unwrap();
        assert_eq!(found, expected, "normalized {name}");
    }
}
