//! The driver: the run and its findings in every order the ranks' calls can be normalized
//! in, streamed calls, the events kept and given to the passes. The fixtures here (`call`,
//! `trace`, `resolve` and the handle constants) also make the traces of `rank_stream/tests.rs`
//! and `tables/tests.rs`.

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
pub(super) const WORLD: i64 = 0x44000000;
pub(super) const INT: i64 = 0x4c000405;
pub(super) const ANY_SOURCE: i64 = -2;
pub(super) const ANY_TAG: i64 = -1;
pub(super) const REQUEST_NULL: i64 = 0x2c000000;
pub(super) const COMM_NULL: i64 = 0x04000000;

pub(super) fn call(func: u16, words: Vec<i64>, complete: bool, site: u64) -> CallRecord {
    decoded_call(func, words, site, complete)
}

pub(super) fn trace(rank: i32, calls: Vec<CallRecord>) -> Trace {
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

pub(super) fn resolve(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("split.c".into()),
        line: Some(addr as u32),
        ..Default::default()
    }
}

#[test]
fn duplicate_ranks_are_an_error() {
    let err = normalize(&[trace(0, vec![]), trace(0, vec![])], &mut resolve).unwrap_err();
    assert!(err.to_string().contains("world rank 0"));
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
    differ!(ranks, collective_args, rma, buffer_watch, buffers_given_up);
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
                    // The replays' program read back from a file, three operations a chunk,
                    // plain for the first 100 bytes, compressed after.
                    spill: Some(crate::engine::SpillTo {
                        dir: &std::env::temp_dir(),
                        chunk: 3,
                        compress_from: 100,
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
            crate::checks::stall_explanation(&every, &found),
            expected,
            "{set}"
        );
        deadlocks += usize::from(explained.is_some_and(|found| found[0].code == "DL001"));
    }
    // The deadlock-mpich and deadlock-openmpi sets.
    assert_eq!(deadlocks, 2);
}

/// `CollectiveArgs::is_empty` (which spares building a default per collective call) says
/// what a comparison with the default says, whichever field is set.
#[test]
fn collective_args_are_empty_as_the_default_is() {
    let setters: [fn(&mut CollectiveArgs); 11] = [
        |a| {
            a.send = Some(BufSpec {
                count: 1,
                datatype: None,
            })
        },
        |a| {
            a.recv = Some(BufSpec {
                count: 0,
                datatype: None,
            })
        },
        |a| a.send_counts = Some(Vec::new()),
        |a| a.recv_counts = Some(vec![1]),
        |a| a.send_types = Some(Vec::new()),
        |a| a.recv_types = Some(vec![None]),
        |a| a.in_place = true,
        |a| a.op = Some("MPI_SUM".into()),
        |a| a.agree = vec![("ndims", "2".into())],
        |a| a.in_neighbors = Some(Vec::new()),
        |a| a.out_neighbors = Some(vec![None]),
    ];
    assert!(CollectiveArgs::default().is_empty());
    for set in setters {
        let mut args = CollectiveArgs::default();
        set(&mut args);
        assert_eq!(args.is_empty(), args == CollectiveArgs::default());
        assert!(!args.is_empty(), "{args:?}");
    }
}
