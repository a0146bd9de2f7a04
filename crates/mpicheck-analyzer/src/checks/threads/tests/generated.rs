//! Tests of the thread pass on generated runs: random ranks against the whole-rank checks,
//! what the pass holds over long runs, and the pass fed while the traces are normalized.

use super::*;

/// xorshift: reproducible randomness for the generated runs.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A rank of three threads started by a parallel region, making waits on three requests,
/// collectives on two communicators and other calls, some overlapping, with barriers and
/// lock handoffs between them, at random.
fn random_rank(rng: &mut Rng, rank: Rank) -> RankTrace {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10));
    // The main thread alone first, its last call maybe still inside MPI when threads start.
    let (mut now, mut main_free) = (20, 20);
    for _ in 0..rng.below(3) {
        now = main_free + 10;
        main_free = now + 5 + rng.below(200);
        let op = match rng.below(2) {
            0 => wait(rng.below(3) as u32, false),
            _ => barrier_op(),
        };
        b.call(0, "MPI_Wait", op, now, Some(main_free));
    }
    b.fork().sync(2, SyncKind::Acquire, REGION);
    now += 10;
    let mut free_at = [main_free + 1, 0, 0];
    let steps = 10 + rng.below(60);
    for step in 0..steps {
        match rng.below(10) {
            0 => {
                b.sync(0, SyncKind::Release, BARRIER)
                    .sync(1, SyncKind::Release, BARRIER)
                    .sync(2, SyncKind::Release, BARRIER)
                    .sync(0, SyncKind::Acquire, BARRIER)
                    .sync(1, SyncKind::Acquire, BARRIER)
                    .sync(2, SyncKind::Acquire, BARRIER);
            }
            1 => {
                let lock = 0x1000 + rng.below(2);
                let (from, to) = (rng.below(3) as u16, rng.below(3) as u16);
                b.sync(from, SyncKind::Release, lock)
                    .sync(to, SyncKind::Acquire, lock);
            }
            _ => {
                let thread = rng.below(3) as u16;
                now = now.max(free_at[thread as usize]) + 1 + rng.below(20);
                let exit = now + rng.below(60);
                free_at[thread as usize] = exit + 1;
                let (call, op) = match rng.below(4) {
                    0 => ("MPI_Wait", wait(rng.below(3) as u32, false)),
                    1 => ("MPI_Test", wait(rng.below(3) as u32, true)),
                    2 => (
                        "MPI_Allreduce",
                        Op::Collective {
                            kind: CollectiveKind::Allreduce,
                            comm: CommId(rng.below(2) as u32),
                            root: None,
                            blocking: Blocking::Blocking,
                        },
                    ),
                    _ => ("MPI_Comm_rank", Op::Other),
                };
                // A thread's last call may never return.
                let returned = step + 1 < steps || rng.below(2) == 0;
                b.call(thread, call, op, now, returned.then_some(exit));
                // Fewer sites than calls: findings fold.
                b.events.last_mut().expect("a call").site = SiteId(1 + rng.below(6) as u32);
            }
        }
    }
    let mut trace = b
        .run(ThreadLevel::Multiple, rng.below(5) != 0)
        .ranks
        .remove(0);
    trace.rank = rank;
    if rng.below(4) == 0 {
        trace.threads.provided = Some(ThreadLevel::Serialized);
    }
    if rng.below(4) == 0 {
        trace.threads.shared_requests = vec![ReqId(1)];
    }
    trace
}

#[test]
fn concurrent_use_pass_finds_what_the_whole_rank_checks_find() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut with_findings = 0;
    for _ in 0..300 {
        let mut run = RankBuilder::new().run(ThreadLevel::Multiple, true);
        run.ranks = vec![random_rank(&mut rng, 0), random_rank(&mut rng, 1)];
        run.comms.push(CommInfo {
            name: "communicator from MPI_Comm_dup on MPI_COMM_WORLD".into(),
            members: [0, 1].into(),
            remote: None,
        });
        run.sites = (0..=6)
            .map(|i| SourceLocation {
                file: Some("t.c".into()),
                line: Some(i),
                ..Default::default()
            })
            .collect();
        // Both the pass in every interleaving and the reference (asserted equal inside).
        let found = concurrent_findings(&run);
        with_findings += usize::from(!found.is_empty());
    }
    // The generator makes both kinds of runs.
    assert!((50..300).contains(&with_findings), "{with_findings}");
}

#[test]
fn concurrent_use_pass_holds_only_live_calls() {
    // 2 threads under MPI_THREAD_MULTIPLE, each waiting on its own requests and calling a
    // collective on its own communicator, a barrier every round: what the pass holds stays
    // flat however many rounds run.
    let held_after = |rounds: u32| {
        let mut b = RankBuilder::new();
        b.call(0, "MPI_Init_thread", init(3), 0, Some(10)).fork();
        let mut t = 100;
        for round in 0..rounds {
            for thread in 0..2u16 {
                let request = round * 2 + u32::from(thread);
                b.call(thread, "MPI_Wait", wait(request, false), t, Some(t + 50));
                b.call(
                    thread,
                    "MPI_Allreduce",
                    Op::Collective {
                        kind: CollectiveKind::Allreduce,
                        comm: CommId(u32::from(thread)),
                        root: None,
                        blocking: Blocking::Blocking,
                    },
                    t + 60,
                    Some(t + 90),
                );
            }
            t += 100;
            b.barrier();
        }
        let mut run = b.run(ThreadLevel::Multiple, true);
        run.comms.push(run.comms[0].clone());
        let mut pass = crate::checks::threads::concurrent::ConcurrentPass::default();
        crate::checks::pass::feed(&run, &mut [&mut pass]);
        pass.held()
    };
    let small = held_after(100);
    assert_eq!(held_after(10_000), small);
    assert!(small.calls <= 8 && small.peak_groups <= 20, "{small:?}");
}

/// Issue 14: what TH003/TH005's pass holds while the run recorded in
/// `MPICHECK_LIVE_STATE_DIR` is normalized (interleaved by entry time), at each quarter of
/// its events and at the end (BENCHMARKS.md, "The thread checks TH003/TH005 as a pass").
#[test]
#[ignore = "a measurement: set MPICHECK_LIVE_STATE_DIR to a recorded run"]
fn live_state_of_the_concurrent_use_pass() {
    use crate::checks::pass::EventPass;
    use crate::checks::threads::concurrent::{ConcurrentPass, Held};

    /// The pass, counting events, with what it held at each sampled count.
    struct Sampled(ConcurrentPass, usize, Vec<(usize, Held)>, usize);
    impl EventPass for Sampled {
        fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
            self.0.event(rank, index, event, tables);
            self.1 += 1;
            if self.1.is_multiple_of(self.3) {
                let held = self.0.held();
                self.2.push((self.1, held));
            }
        }
        fn sync(&mut self, rank: Rank, sync: &SyncEvent) {
            self.0.sync(rank, sync);
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
    let traces: Vec<mpicheck_trace::Trace> = files
        .iter()
        .map(|f| mpicheck_trace::read_trace(f).unwrap())
        .collect();
    let calls: usize = traces.iter().map(|t| t.calls.len()).sum();
    let mut sampled = Sampled(ConcurrentPass::default(), 0, Vec::new(), (calls / 8).max(1));
    let (run, _) = crate::normalize::normalize_streaming_into(
        &traces,
        &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
        &mut |_, _| SourceLocation::default(),
        &mut [&mut sampled],
        crate::normalize::Order::EntryTime,
        crate::normalize::Keep::AllEvents,
        &mut |_| None,
    )
    .unwrap();
    let sync: usize = run.ranks.iter().map(|r| r.threads.sync.len()).sum();
    println!("{} events, {sync} synchronization records", sampled.1);
    for (events, held) in &sampled.2 {
        println!("after {events} events: {held:?}");
    }
    println!("at the end: {:?}", sampled.0.held());
}

/// A hybrid rank as the recorder writes it: thread 0 initializes MPI (providing
/// `provided`), duplicates a communicator and opens a parallel region of two threads;
/// thread 1 uses the communicator; thread 0 makes a call in a `single` block, leaves it at
/// a team barrier, and frees the communicator; the region ends and MPI is finalized.
fn hybrid_trace(provided: i64) -> mpicheck_trace::Trace {
    use mpicheck_trace::builder::{decoded_call, decoded_trace};
    const SCHEMA: &str = "\
0 MPI_Init_thread argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s required:THREAD_LEVEL:in:s provided:THREAD_LEVEL:out:s
1 MPI_Comm_dup comm:COMMUNICATOR:in:s newcomm:COMMUNICATOR:out:s
2 MPI_Comm_free comm:COMMUNICATOR:inout:s
3 MPI_Comm_rank comm:COMMUNICATOR:in:s rank:RANK:out:s
4 MPI_Finalize
5 MPICHECK_Sync what:INT:in:s object:INT:in:s
";
    const WORLD: i64 = 0x44000000;
    const DUP: i64 = 0x84000001;
    let (token, start) = (7, (1 << 56) | 7);
    let steps: Vec<(u16, u16, Vec<i64>)> = vec![
        (0, 5, vec![0, 0]), // synchronization is recorded
        (0, 0, vec![0, 0, provided, provided]),
        (0, 1, vec![WORLD, DUP]),
        (0, 5, vec![3, token]), // region begins
        (0, 5, vec![2, start]),
        (1, 5, vec![2, start]),
        (1, 3, vec![DUP, 1]),               // thread 1 uses the communicator
        (0, 5, vec![6, (8 << 56) | token]), // thread 0 begins a `single` block
        (0, 3, vec![WORLD, 0]),
        (0, 5, vec![1, (3 << 56) | token]), // a team barrier: the block ends
        (0, 2, vec![DUP]),                  // thread 0 frees the communicator
        (1, 5, vec![1, (2 << 56) | token]),
        (0, 5, vec![4, token]), // the region ends
        (0, 4, vec![]),
    ];
    let calls: Vec<_> = steps
        .into_iter()
        .enumerate()
        .map(|(seq, (thread, func, words))| {
            let mut c = decoded_call(func, words, 100 + seq as u64, true);
            c.seq = seq as u64;
            c.thread = thread;
            c.t_enter_ns = 100 * seq as u64;
            c.t_exit_ns = 100 * seq as u64 + 10;
            c
        })
        .collect();
    let constants = [
        ("MPI_COMM_WORLD", WORLD),
        ("MPI_COMM_NULL", 0x04000000),
        ("MPI_REQUEST_NULL", 0x2c000000),
    ];
    decoded_trace(
        0,
        1,
        mpicheck_trace::state::INITIALIZED,
        SCHEMA,
        &constants,
        calls,
    )
}

#[test]
fn fed_while_normalizing_the_pass_finds_what_it_finds_on_the_run() {
    // The normalizer marks regions, blocks and objects as their records come; fed from the
    // normalized run, the pass gets the same marks from the rank's thread information.
    for (provided, expected) in [(1, vec!["TH001", "TH001"]), (3, vec!["TH007"])] {
        let traces = [hybrid_trace(provided)];
        let mut resolve = |_: usize, address: u64| SourceLocation {
            file: Some("t.c".into()),
            line: Some(address as u32),
            ..Default::default()
        };
        let mut analyze = |keep| {
            crate::checks::analyze_streaming_in(
                &traces,
                &mut |i| Ok(traces[i].calls.iter().cloned().map(Ok)),
                &mut resolve,
                &[],
                |_| {},
                crate::normalize::Order::RankAfterRank,
                crate::checks::Holding {
                    keep,
                    spill: None,
                    calls: Default::default(),
                },
                &mut |_| None,
            )
            .unwrap()
        };
        let (run, _) = analyze(crate::normalize::Keep::AllEvents);
        let (last_events, streamed) = analyze(crate::checks::KEEP);
        let threads = &run.ranks[0].threads;
        assert_eq!(threads.parallel_regions.len(), 1, "{threads:?}");
        assert_eq!(threads.workshares.len(), 1, "{threads:?}");
        assert_eq!(threads.freed_after_use.len(), 1, "{threads:?}");
        // Not keeping the events, the run keeps no synchronization record either, and the
        // teams are the same.
        let kept = &last_events.ranks[0].threads;
        assert!(!threads.sync.is_empty() && kept.sync.is_empty(), "{kept:?}");
        assert_eq!(
            (
                &kept.parallel_regions,
                &kept.workshares,
                &kept.thread_starts
            ),
            (
                &threads.parallel_regions,
                &threads.workshares,
                &threads.thread_starts
            )
        );
        assert_eq!(threads.parallel_regions[0].threads, 2);
        assert_eq!(threads.workshares[0].team, 2);
        let on_run = thread_findings(&run);
        let codes = |found: &[Diagnostic]| -> Vec<&'static str> {
            found
                .iter()
                .map(|d| d.code)
                .filter(|c| c.starts_with("TH"))
                .collect()
        };
        assert_eq!(codes(&on_run), expected, "{on_run:#?}");
        let streamed: Vec<Diagnostic> = streamed
            .into_iter()
            .filter(|d| d.code.starts_with("TH"))
            .collect();
        assert_eq!(streamed, on_run);
    }
}

/// The findings of `trace` analyzed from its scan as the command does: its calls read
/// one at a time, not held; its scan saying that thread `only_thread` made every record
/// (whether or not it did); `calls`: whether the traces were scanned whole.
fn analyze_scanned(
    mut trace: mpicheck_trace::Trace,
    only_thread: Option<u16>,
    calls: crate::checks::Calls,
) -> Vec<Diagnostic> {
    let held = std::mem::take(&mut trace.calls);
    trace.only_thread = only_thread;
    let traces = [trace];
    let (_, found) = crate::checks::analyze_streaming_in(
        &traces,
        &mut |_| Ok(held.iter().cloned().map(Ok)),
        &mut |_, address| SourceLocation {
            file: Some("t.c".into()),
            line: Some(address as u32),
            ..Default::default()
        },
        &[],
        |_| {},
        crate::normalize::Order::EntryTime,
        crate::checks::Holding {
            keep: crate::checks::KEEP,
            spill: None,
            calls,
        },
        &mut |_| None,
    )
    .unwrap();
    found
        .into_iter()
        .filter(|d| d.code.starts_with("TH"))
        .collect()
}

#[test]
fn a_rank_of_one_thread_is_still_checked_for_what_one_thread_does() {
    // Thread 0 alone records: it initializes MPI with MPI_THREAD_SINGLE and starts a
    // thread (which never records) before MPI_Finalize. Told by the scan that one thread
    // made every record, the pass follows no pairs of threads, but still finds TH006.
    use mpicheck_trace::builder::{decoded_call, decoded_trace};
    const SCHEMA: &str = "\
0 MPI_Init_thread argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s required:THREAD_LEVEL:in:s provided:THREAD_LEVEL:out:s
1 MPI_Comm_rank comm:COMMUNICATOR:in:s rank:RANK:out:s
2 MPI_Finalize
3 MPICHECK_Sync what:INT:in:s object:INT:in:s
";
    const WORLD: i64 = 0x44000000;
    let steps: Vec<(u16, Vec<i64>)> = vec![
        (3, vec![0, 0]), // synchronization is recorded
        (0, vec![0, 0, 0, 0]),
        (3, vec![1, (4 << 56) | 9]), // pthread_create
        (1, vec![WORLD, 0]),
        (2, vec![]),
    ];
    let calls = (steps.into_iter().enumerate())
        .map(|(seq, (func, words))| {
            let mut c = decoded_call(func, words, 100 + seq as u64, true);
            c.seq = seq as u64;
            c.t_enter_ns = 100 * seq as u64;
            c.t_exit_ns = 100 * seq as u64 + 10;
            c
        })
        .collect();
    let constants = [("MPI_COMM_WORLD", WORLD), ("MPI_COMM_NULL", 0x04000000)];
    let state = mpicheck_trace::state::INITIALIZED;
    let trace = decoded_trace(0, 1, state, SCHEMA, &constants, calls);
    let scanned = crate::checks::Calls::Scanned;
    let of_one_thread = analyze_scanned(trace.clone(), Some(0), scanned);
    let codes: Vec<&str> = of_one_thread.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["TH006"], "{of_one_thread:#?}");
    assert_eq!(of_one_thread, analyze_scanned(trace, None, scanned));
}

#[test]
fn one_thread_is_believed_only_of_traces_scanned_whole() {
    // Scanned while the process ran, before thread 1 recorded, the trace said thread 0
    // made every record: read while the processes run, that is not believed, and thread
    // 1's use of the communicator thread 0 frees is still found.
    let found = analyze_scanned(hybrid_trace(3), Some(0), crate::checks::Calls::Unknown);
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["TH007"], "{found:#?}");
    let scanned = crate::checks::Calls::Scanned;
    assert_eq!(found, analyze_scanned(hybrid_trace(3), None, scanned));
}

#[test]
fn thread_pass_holds_only_live_state() {
    // Two threads, rounds of: a wait on a new request each, a probe and the receive of the
    // probed message, another call, in a parallel region of thread 0; thread 0 frees an
    // object thread 1 used the round before; a barrier. What the pass holds stays flat
    // however many rounds run, at every thread level.
    let held_after = |rounds: u32, level: ThreadLevel, code: i32| {
        let mut b = RankBuilder::new();
        b.call(0, "MPI_Init_thread", init(code), 0, Some(10)).fork();
        let (mut t, mut regions, mut pairs, mut used) = (100, Vec::new(), Vec::new(), None);
        let call = |b: &mut RankBuilder, thread: u16, name, op, site: u32, t: u64| {
            b.call(thread, name, op, t, Some(t + 10));
            b.events.last_mut().expect("a call").site = SiteId(10 * u32::from(thread) + site);
            b.events.len() - 1
        };
        for round in 0..rounds {
            b.order += 1;
            let begin_order = b.order;
            for thread in 0..2u16 {
                let request = round * 2 + u32::from(thread);
                let tag = i32::from(thread);
                call(&mut b, thread, "MPI_Wait", wait(request, false), 1, t);
                call(&mut b, thread, "MPI_Probe", probe(0, tag), 2, t + 20);
                call(&mut b, thread, "MPI_Recv", recv(0, tag), 3, t + 40);
                let rank = call(&mut b, thread, "MPI_Comm_rank", Op::Other, 4, t + 60);
                match (thread, used) {
                    (0, Some(used)) => pairs.push(FreedAfterUse {
                        kind: ObjectKind::Communicator,
                        used,
                        freed: rank,
                    }),
                    (1, _) => used = Some(rank),
                    _ => {}
                }
                t += 100;
            }
            b.order += 1;
            regions.push(ParallelRegion {
                thread: 0,
                site: SiteId(1),
                begin_order,
                end_order: b.order,
                threads: 2,
            });
            b.barrier();
        }
        b.call(0, "MPI_Finalize", Op::Finalize, t, Some(t + 10));
        let mut run = b.run(level, true);
        run.ranks[0].threads.parallel_regions = regions;
        run.ranks[0].threads.freed_after_use = pairs;
        let mut pass = crate::checks::threads::stream::ThreadPass::default();
        crate::checks::pass::feed(&run, &mut [&mut pass]);
        pass.held()
    };
    for (level, code) in [
        (ThreadLevel::Single, 0),
        (ThreadLevel::Funneled, 1),
        (ThreadLevel::Serialized, 2),
        (ThreadLevel::Multiple, 3),
    ] {
        let small = held_after(100, level, code);
        assert_eq!(held_after(5_000, level, code), small, "{level:?}");
        assert!(small.calls <= 40 && small.open == 0, "{level:?}: {small:?}");
    }
}
