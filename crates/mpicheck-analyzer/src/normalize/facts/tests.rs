//! Object lifecycles and argument problems judged from raw trace words.

use super::super::{normalize, RankStream, Tables};
use crate::model::*;
use mpicheck_trace::builder::{decoded_call, decoded_trace};
use mpicheck_trace::{CallRecord, EndOfTrace, Trace};

const SCHEMA: &str = "\
0 MPI_Init argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s
1 MPI_Comm_dup comm:COMMUNICATOR:in:s newcomm:COMMUNICATOR:out:s
2 MPI_Comm_free comm:COMMUNICATOR:inout:s
3 MPI_Type_contiguous count:POLYXFER_NUM_ELEM_NNI:in:s oldtype:DATATYPE:in:s newtype:DATATYPE:out:s
4 MPI_Type_commit datatype:DATATYPE:inout:s
5 MPI_Type_free datatype:DATATYPE:inout:s
6 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s
7 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st
8 MPI_Comm_rank comm:COMMUNICATOR:in:s rank:RANK:out:s
9 MPI_Finalize
10 MPI_Type_dup oldtype:DATATYPE:in:s newtype:DATATYPE:out:s
11 MPI_Type_get_envelope datatype:DATATYPE:in:s num_integers:POLYNUM_PARAM_VALUES:out:s num_addresses:POLYNUM_PARAM_VALUES:out:s num_datatypes:POLYNUM_PARAM_VALUES:out:s combiner:COMBINER:out:s
12 MPI_Type_get_contents datatype:DATATYPE:in:s max_integers:POLYNUM_PARAM_VALUES:in:s max_addresses:POLYNUM_PARAM_VALUES:in:s max_datatypes:POLYNUM_PARAM_VALUES:in:s array_of_integers:GENERIC_DTYPE_INT:out:a array_of_addresses:DISPLACEMENT:out:a array_of_datatypes:DATATYPE:out:a
13 MPI_Type_vector count:POLYDTYPE_NUM_ELEM_NNI:in:s blocklength:POLYDTYPE_NUM_ELEM_NNI:in:s stride:POLYDTYPE_NUM_ELEM:in:s oldtype:DATATYPE:in:s newtype:DATATYPE:out:s
14 MPI_Send_init buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
15 MPI_Comm_group comm:COMMUNICATOR:in:s group:GROUP:out:s
16 MPI_Group_free group:GROUP:inout:s
17 MPI_Type_create_resized oldtype:DATATYPE:in:s lb:POLYDISPLACEMENT_AINT_COUNT:in:s extent:POLYDISPLACEMENT_AINT_COUNT:in:s newtype:DATATYPE:out:s
18 MPI_Comm_create_errhandler comm_errhandler_fn:FUNCTION:in:s errhandler:ERRHANDLER:out:s
19 MPI_Comm_get_errhandler comm:COMMUNICATOR:in:s errhandler:ERRHANDLER:out:s
20 MPI_Errhandler_free errhandler:ERRHANDLER:inout:s
21 MPICHECK_Type_info datatype:DATATYPE:in:s size:INT:in:s extent:INT:in:s
22 MPI_Group_incl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranks:RANK:in:a newgroup:GROUP:out:s
23 MPI_Group_union group1:GROUP:in:s group2:GROUP:in:s newgroup:GROUP:out:s
24 MPI_Group_size group:GROUP:in:s size:COMM_SIZE:out:s
25 MPI_Group_range_excl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranges:RANK:in:a newgroup:GROUP:out:s
26 MPI_Cart_create comm_old:COMMUNICATOR:in:s ndims:NUM_DIMS:in:s dims:DIMENSION:in:a periods:LOGICAL:in:a reorder:LOGICAL:in:s comm_cart:COMMUNICATOR:out:s
27 MPI_Cart_sub comm:COMMUNICATOR:in:s remain_dims:LOGICAL:in:a newcomm:COMMUNICATOR:out:s
28 MPI_Cart_rank comm:COMMUNICATOR:in:s coords:COORDINATE:in:a rank:RANK:out:s
29 MPI_Cart_shift comm:COMMUNICATOR:in:s direction:INDEX:in:s disp:DIMENSION:in:s rank_source:RANK:out:s rank_dest:RANK:out:s
30 MPI_Psend_init buf:BUFFER:in:s partitions:PARTITION:in:s count:XFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s info:INFO:in:s request:REQUEST:out:s
31 MPI_Start request:REQUEST:inout:s
32 MPI_Wait request:REQUEST:inout:s status:STATUS:out:st
33 MPI_Pready partition:PARTITION:in:s request:REQUEST:in:s
34 MPI_Request_free request:REQUEST:inout:s
35 MPICHECK_Sync what:INT:in:s object:INT:in:s
";
const WORLD: i64 = 0x44000000;
const COMM_NULL: i64 = 0x04000000;
const INT: i64 = 0x4c000405;
const TYPE_NULL: i64 = 0x0c000000;
const ANY_TAG: i64 = -1;
const ANY_SOURCE: i64 = -2;
const IN_PLACE: i64 = -1;

fn call(func: u16, words: Vec<i64>, line: u64) -> CallRecord {
    decoded_call(func, words, line, true)
}

fn trace(calls: Vec<CallRecord>) -> Trace {
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_COMM_NULL", COMM_NULL),
        ("MPI_DATATYPE_NULL", TYPE_NULL),
        ("MPI_REQUEST_NULL", 0x2c000000),
        ("MPI_ANY_SOURCE", ANY_SOURCE),
        ("MPI_ANY_TAG", ANY_TAG),
        ("MPI_PROC_NULL", -1),
        ("MPI_IN_PLACE", IN_PLACE),
        ("MPI_TAG_UB_VALUE", 32767),
        ("DATATYPE.MPI_INT", INT),
        ("DATATYPE_SIZE.MPI_INT", 4),
    ];
    let mut trace = decoded_trace(
        0,
        2,
        mpicheck_trace::state::INITIALIZED,
        SCHEMA,
        &constants,
        calls,
    );
    trace.end = EndOfTrace::Truncated {
        offset: 0,
        reason: "aborted".into(),
    };
    trace
}

fn issues(run: &Run, event: usize) -> Vec<(&'static str, ArgProblem)> {
    run.ranks[0].events[event]
        .facts()
        .map(|f| {
            f.arg_issues
                .iter()
                .map(|i| (i.param, i.problem.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn line(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("t.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    }
}

#[test]
fn arguments_are_judged_from_raw_words_and_live_handles() {
    let pair = 0x8c000001;
    let calls = vec![
        call(8, vec![WORLD, 0], 1), // before MPI_Init
        call(0, vec![0, 0], 2),
        call(3, vec![2, INT, pair], 3),
        call(6, vec![0x1000, 1, pair, 1, 0, WORLD], 4), // uncommitted
        call(4, vec![pair, pair], 5),
        call(6, vec![0x1000, 1, pair, 2, 40000, WORLD], 6), // dest 2 of 2, tag > UB
        call(
            7,
            vec![0, 4, INT, ANY_SOURCE, ANY_TAG, WORLD, 0, 0, 0, 0],
            7,
        ), // NULL buffer
        call(6, vec![IN_PLACE, -4, INT, 1, ANY_TAG, COMM_NULL], 8),
        call(5, vec![pair, TYPE_NULL], 9),
        call(6, vec![0x1000, 1, pair, 1, 0, WORLD], 10), // freed type
        call(
            7,
            vec![0x1000, 0, INT, ANY_SOURCE, ANY_TAG, WORLD, 0, 0, 0, 0],
            11,
        ), // fine
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert_eq!(issues(&run, 0), vec![("", ArgProblem::BeforeInit)]);
    assert_eq!(issues(&run, 1), vec![]);
    assert_eq!(
        issues(&run, 3),
        vec![("datatype", ArgProblem::UncommittedDatatype)]
    );
    assert_eq!(
        issues(&run, 5),
        vec![
            ("dest", ArgProblem::RankOutOfRange { value: 2, size: 2 }),
            (
                "tag",
                ArgProblem::InvalidTag {
                    value: 40000,
                    tag_ub: Some(32767)
                }
            ),
        ]
    );
    assert_eq!(
        issues(&run, 6),
        vec![("buf", ArgProblem::NullBuffer { count: 4 })]
    );
    let bad = issues(&run, 7);
    for expected in [
        (
            "comm",
            ArgProblem::NullHandle {
                kind: ObjectKind::Communicator,
            },
        ),
        ("count", ArgProblem::NegativeCount { value: -4 }),
        (
            "tag",
            ArgProblem::InvalidTag {
                value: ANY_TAG,
                tag_ub: Some(32767),
            },
        ),
        ("buf", ArgProblem::InPlaceNotAllowed),
    ] {
        assert!(bad.contains(&expected), "{expected:?} in {bad:?}");
    }
    assert_eq!(
        issues(&run, 9),
        vec![(
            "datatype",
            ArgProblem::FreedHandle {
                kind: ObjectKind::Datatype
            }
        )]
    );
    assert_eq!(issues(&run, 10), vec![]);
}

#[test]
fn a_create_free_loop_keeps_one_live_object() {
    let mut calls = vec![call(0, vec![0, 0], 1)];
    for _ in 0..10_000 {
        // MPI hands the same handle value out again after each free.
        calls.push(call(1, vec![WORLD, 0x84000001], 2));
        calls.push(call(2, vec![0x84000001, COMM_NULL], 3));
    }
    let trace = trace(calls);
    let mut tables = Tables::new(2);
    let mut rank = RankStream::new(0, 2, 0, &trace, &mut tables);
    let mut events = Vec::new();
    let mut made = Vec::new();
    let mut peak = 0;
    for c in &trace.calls {
        let resolve = &mut |_, _| SourceLocation::default();
        rank.call(c, &mut tables, resolve, &mut events, &mut made);
        made.clear();
        peak = peak.max(rank.state.objects.live_count());
    }
    assert_eq!(peak, 1);
    assert_eq!(rank.state.objects.live_count(), 0);
    let created: usize = events
        .iter()
        .filter_map(|e| e.facts())
        .map(|f| f.created.len())
        .sum();
    assert_eq!(created, 10_000, "every dup is a new object");
}

/// Object references made and released over the whole run, by kind.
fn balance(run: &Run) -> std::collections::BTreeMap<ObjectKind, i64> {
    let mut out = std::collections::BTreeMap::new();
    for e in &run.ranks[0].events {
        if let Some(f) = e.facts() {
            for o in &f.created {
                *out.entry(o.kind).or_insert(0) += 1;
            }
            for o in &f.freed {
                *out.entry(o.kind).or_insert(0) -= 1;
            }
        }
    }
    out.retain(|_, n| *n != 0);
    out
}

#[test]
fn a_copy_has_the_committed_state_of_its_original() {
    // PETSc's sfpack.c: persistent sends with an MPI_Type_dup of a committed type.
    let (pair, dup, raw, dup_raw, resized, dup_int) = (
        0x8c000001, 0x8c000002, 0x8c000003, 0x8c000004, 0x8c000005, 0x8c000006,
    );
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(3, vec![2, INT, pair], 2),
        call(4, vec![pair, pair], 3),
        call(21, vec![pair, 8, 8], 3),
        call(10, vec![pair, dup], 4),
        call(14, vec![0x1000, 4, dup, 1, 0, WORLD, 0x2c000001], 5), // committed copy
        call(3, vec![2, INT, raw], 6),
        call(10, vec![raw, dup_raw], 7),
        call(6, vec![0x1000, 1, dup_raw, 1, 0, WORLD], 8), // copy of an uncommitted type
        call(17, vec![pair, 0, 16, resized], 9),
        call(6, vec![0x1000, 1, resized, 1, 0, WORLD], 10), // a new type: not committed
        call(10, vec![INT, dup_int], 11),
        call(6, vec![0x1000, 1, dup_int, 1, 0, WORLD], 12), // copy of MPI_INT
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert_eq!(
        issues(&run, 4),
        vec![],
        "the copy of a committed type is committed"
    );
    assert_eq!(
        issues(&run, 7),
        vec![("datatype", ArgProblem::UncommittedDatatype)]
    );
    assert_eq!(
        issues(&run, 9),
        vec![("datatype", ArgProblem::UncommittedDatatype)],
        "MPI_Type_create_resized makes a new, uncommitted type"
    );
    assert_eq!(
        issues(&run, 11),
        vec![],
        "a copy of a predefined type is committed"
    );
    // The copy has the original's signature and size from the start.
    let Op::Send { send, .. } = &run.ranks[0].events[4].op else {
        panic!()
    };
    let info = &run.datatypes[send.datatype.expect("the copy's type is known").0 as usize];
    assert_eq!(info.size, Some(8));
    let spans = run.ranks[0].events[4].buffers();
    assert_eq!((spans[0].start, spans[0].len), (0x1000, 32));
}

#[test]
fn types_from_type_get_contents_are_new_references_the_caller_frees() {
    // PETSc decodes a vector of pairs and frees what MPI_Type_get_contents returned. MPICH
    // returns the pair's own handle (one more reference to it); Open MPI a new handle,
    // here the address of a type freed before. A predefined constituent is not freed.
    let (pair, vec_, old) = (0x8c000001, 0x8c000002, 0x8c000009);
    let envelope = |t: i64, nd: i64| call(11, vec![t, 3, 0, nd, 3], 0);
    let contents = |t: i64, got: i64| call(12, vec![t, 3, 0, 1, 3, 3, 1, 2, 0, 1, got], 0);
    for (family, returned) in [("mpich", pair), ("openmpi", old)] {
        let calls = vec![
            call(0, vec![0, 0], 1),
            call(3, vec![1, INT, old], 2),
            call(5, vec![old, TYPE_NULL], 3),
            call(3, vec![2, INT, pair], 4),
            call(13, vec![3, 1, 2, pair, vec_], 5),
            envelope(vec_, 1),
            contents(vec_, returned),
            call(5, vec![returned, TYPE_NULL], 8), // frees what get_contents returned
            envelope(pair, 1),
            contents(pair, INT), // predefined: nothing to free
            call(5, vec![vec_, TYPE_NULL], 11),
            call(5, vec![pair, TYPE_NULL], 12),
        ];
        let run = normalize(&[trace(calls)], &mut line).unwrap();
        for event in 0..run.ranks[0].events.len() {
            assert_eq!(issues(&run, event), vec![], "{family}: event {event}");
        }
        assert!(balance(&run).is_empty(), "{family}: {:?}", balance(&run));
    }
    // A returned type never freed is the caller's leak.
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(3, vec![2, INT, pair], 2),
        call(13, vec![3, 1, 2, pair, vec_], 3),
        contents(vec_, pair),
        call(5, vec![vec_, TYPE_NULL], 5),
        call(5, vec![pair, TYPE_NULL], 6),
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert_eq!(
        balance(&run),
        [(ObjectKind::Datatype, 1)].into_iter().collect()
    );
    // Without an envelope, the constructor says how many entries MPI wrote: the rest of
    // the array is whatever the caller's memory held.
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(3, vec![2, INT, pair], 2),
        call(13, vec![3, 1, 2, pair, vec_], 3),
        call(
            12,
            vec![vec_, 3, 0, 2, 3, 3, 1, 2, 0, 2, pair, 0x8c0000ff],
            4,
        ),
        call(5, vec![pair, TYPE_NULL], 5),
        call(5, vec![vec_, TYPE_NULL], 6),
        call(5, vec![pair, TYPE_NULL], 7),
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert!(balance(&run).is_empty(), "{:?}", balance(&run));
}

#[test]
fn accessors_hand_out_new_references_to_live_objects() {
    // MPICH and Open MPI return the same group handle from two MPI_Comm_group calls and the
    // program's own error handler from MPI_Comm_get_errhandler; each reference is freed.
    let (group, handler) = (0x88000001, 0x94000001);
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(15, vec![WORLD, group], 2),
        call(15, vec![WORLD, group], 3),
        call(16, vec![group, 0x08000000], 4),
        call(16, vec![group, 0x08000000], 5),
        call(18, vec![0x4000, handler], 6),
        call(19, vec![WORLD, handler], 7),
        call(20, vec![handler, 0x14000000], 8),
        call(20, vec![handler, 0x14000000], 9),
        call(16, vec![group, 0x08000000], 10), // one free too many
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    for event in 0..9 {
        assert_eq!(issues(&run, event), vec![], "event {event}");
    }
    assert_eq!(
        issues(&run, 9),
        vec![(
            "group",
            ArgProblem::FreedHandle {
                kind: ObjectKind::Group
            }
        )]
    );
    assert!(balance(&run).is_empty(), "{:?}", balance(&run));
}

#[test]
fn group_lists_are_judged_against_the_sizes_the_rank_knows() {
    let (world_group, pair, union, rest) = (0x88000001, 0x88000002, 0x88000003, 0x88000004);
    let out = |value, size| ArgProblem::RankListOutOfRange {
        value,
        size,
        of: "group",
    };
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(15, vec![WORLD, world_group], 2), // 2 processes
        call(22, vec![world_group, 1, 1, 2, 0], 3), // rank 2 of 2
        call(22, vec![world_group, 2, 2, 1, 0, pair], 4),
        call(22, vec![pair, 1, 1, 2, 0], 5), // rank 2 of the pair
        call(23, vec![pair, world_group, union], 6), // size not known
        call(22, vec![union, 1, 1, 5, 0], 7), // not judged
        call(24, vec![union, 2], 8),
        call(22, vec![union, 1, 1, 5, 0], 9), // now it is
        // All but rank 1 of the pair (0..=0 stride 1): one left.
        call(25, vec![pair, 1, 3, 0, 0, 1, rest], 10),
        call(22, vec![rest, 1, 1, 1, 0], 11), // rank 1 of 1
        call(16, vec![rest, 0x08000000], 12),
        // The handle again, for a group of unknown size: the old size is gone.
        call(23, vec![pair, world_group, rest], 13),
        call(22, vec![rest, 1, 1, 1, 0], 14),
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert_eq!(issues(&run, 2), vec![("ranks", out(2, 2))]);
    assert_eq!(issues(&run, 3), vec![]);
    assert_eq!(issues(&run, 4), vec![("ranks", out(2, 2))]);
    assert_eq!(issues(&run, 6), vec![]);
    assert_eq!(issues(&run, 8), vec![("ranks", out(5, 2))]);
    assert_eq!(issues(&run, 9), vec![]);
    assert_eq!(issues(&run, 10), vec![("ranks", out(1, 1))]);
    assert_eq!(issues(&run, 13), vec![]);
}

#[test]
fn coordinates_are_judged_on_the_grid_the_rank_made() {
    let (torus, column, copy) = (0x84000001, 0x84000002, 0x84000003);
    let outside = |value, dim, limit| ArgProblem::OutsideGrid { value, dim, limit };
    let calls = vec![
        call(0, vec![0, 0], 1),
        // A 1x2 grid, periodic in dimension 0.
        call(26, vec![WORLD, 2, 2, 1, 2, 2, 1, 0, 0, torus], 2),
        call(28, vec![torus, 2, 7, 1, 0], 3), // wraps
        call(28, vec![torus, 2, 0, 2, 0], 4), // 2 of 2
        call(29, vec![torus, 2, -1, 0, 0], 5),
        // Dimension 1 alone: not periodic, extent 2.
        call(27, vec![torus, 2, 0, 1, column], 6),
        call(28, vec![column, 1, -1, 0], 7),
        call(1, vec![column, copy], 8),
        call(28, vec![copy, 1, 1, 0], 9),
        call(29, vec![copy, 0, 1, 0, 0], 10),
        call(29, vec![copy, 1, 1, 0, 0], 11),
        call(2, vec![copy, COMM_NULL], 12),
        // The handle again, for a communicator without a grid.
        call(1, vec![WORLD, copy], 13),
        call(28, vec![copy, 1, 5, 0], 14),
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    assert_eq!(issues(&run, 2), vec![]);
    assert_eq!(issues(&run, 3), vec![("coords", outside(2, Some(1), 2))]);
    assert_eq!(issues(&run, 4), vec![("direction", outside(2, None, 2))]);
    assert_eq!(issues(&run, 6), vec![("coords", outside(-1, Some(0), 2))]);
    assert_eq!(issues(&run, 8), vec![]);
    assert_eq!(issues(&run, 9), vec![]);
    assert_eq!(issues(&run, 10), vec![("direction", outside(1, None, 1))]);
    assert_eq!(issues(&run, 13), vec![], "the old grid is forgotten");
}

#[test]
fn uses_by_other_threads_are_noted_when_the_object_is_freed() {
    let dup = 0x84000001;
    let on = |thread: u16, mut c: CallRecord| {
        c.thread = thread;
        c
    };
    let sync = |thread, what, object| on(thread, call(35, vec![what, object], 99));
    let calls = |threads_started: bool| {
        let mut calls = vec![
            call(0, vec![0, 0], 1),
            call(1, vec![WORLD, dup], 2), // event 1: MPI_Comm_dup
            call(8, vec![dup, 0], 3),     // event 2: thread 0 uses it
        ];
        if threads_started {
            // Thread 0 begins parallel region 7, thread 1 starts in it.
            calls.push(sync(0, 3, 7));
            calls.push(sync(1, 2, (1 << 56) | 7));
        }
        calls.extend([
            on(1, call(8, vec![dup, 0], 4)),  // event 3: thread 1 uses it
            on(1, call(8, vec![dup, 0], 5)),  // event 4: and again (its last use)
            call(8, vec![WORLD, 0], 6),       // event 5: another communicator
            call(2, vec![dup, COMM_NULL], 7), // event 6: thread 0 frees it
        ]);
        for (seq, c) in calls.iter_mut().enumerate() {
            c.seq = seq as u64;
        }
        calls
    };
    let run = normalize(&[trace(calls(true))], &mut line).unwrap();
    assert_eq!(
        run.ranks[0].threads.freed_after_use,
        vec![FreedAfterUse {
            kind: ObjectKind::Communicator,
            used: 4,
            freed: 6,
        }]
    );
    // Before the process starts threads nothing is kept (one thread orders its own calls).
    let run = normalize(&[trace(calls(false))], &mut line).unwrap();
    assert!(run.ranks[0].threads.freed_after_use.is_empty());
}

#[test]
fn partitions_are_marked_ready_once_in_each_epoch_of_an_active_request() {
    let req = 0x2c000007;
    let null = 0x2c000000;
    let pready = |p, line| call(33, vec![p, req], line);
    let calls = vec![
        call(0, vec![0, 0], 1),
        call(30, vec![0x1000, 2, 4, INT, 1, 0, WORLD, 0, req], 2),
        pready(0, 3), // not started
        call(31, vec![req, req], 4),
        pready(0, 5),
        pready(0, 6), // twice
        pready(2, 7), // partitions are 0, 1
        call(32, vec![req, req, 0, 0, 0, 0], 8),
        pready(1, 9), // completed
        call(31, vec![req, req], 10),
        pready(0, 11), // a new epoch
        call(32, vec![req, req, 0, 0, 0, 0], 12),
        call(34, vec![req, null], 13),
        pready(5, 14), // a freed request is forgotten
    ];
    let run = normalize(&[trace(calls)], &mut line).unwrap();
    let inactive = vec![("request", ArgProblem::PartitionedInactive)];
    // Matched as a persistent send of all its partitions: 2 x 4 ints.
    match &run.ranks[0].events[1].op {
        Op::Send {
            send,
            blocking: Blocking::Persistent(_),
        } => assert_eq!((send.count, send.dest), (8, Some(1))),
        other => panic!("MPI_Psend_init became {other:?}"),
    }
    assert_eq!(issues(&run, 1), vec![]);
    assert_eq!(issues(&run, 2), inactive);
    assert_eq!(issues(&run, 4), vec![]);
    assert_eq!(
        issues(&run, 5),
        vec![("partition", ArgProblem::PartitionReadyTwice { value: 0 })]
    );
    assert_eq!(
        issues(&run, 6),
        vec![(
            "partition",
            ArgProblem::PartitionOutOfRange {
                value: 2,
                partitions: 2
            }
        )]
    );
    assert_eq!(issues(&run, 8), inactive);
    assert_eq!(issues(&run, 10), vec![]);
    assert_eq!(issues(&run, 13), vec![]);
}
