//! Tier-1 tests of TH001-TH007 on hand-built runs with call times and synchronization.

use crate::checks::pass::{interleave, RunTables};
use crate::checks::{run_all, Check};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::*;

/// Builds one rank's calls and synchronization in record order.
struct RankBuilder {
    events: Vec<Event>,
    sync: Vec<SyncEvent>,
    order: u64,
    sites: u32,
}

const REGION: u64 = 1 << 56; // start object of region token 0 (c/threads.c namespaces)
const BARRIER: u64 = 3 << 56;

impl RankBuilder {
    fn new() -> RankBuilder {
        RankBuilder {
            events: Vec::new(),
            sync: Vec::new(),
            order: 0,
            sites: 0,
        }
    }

    /// A call of `thread` inside MPI from `enter` to `exit` (ns; None: never returned).
    fn call(
        &mut self,
        thread: u16,
        call: &'static str,
        op: Op,
        enter: u64,
        exit: Option<u64>,
    ) -> &mut Self {
        self.order += 1;
        self.sites += 1;
        self.events.push(Event {
            call,
            op,
            site: SiteId(self.sites),
            thread,
            returned: exit.is_some(),
            facts: EventFacts::None,
            time: Some(CallTime {
                order: self.order,
                enter_ns: enter,
                exit_ns: exit,
            }),
        });
        self
    }

    fn sync(&mut self, thread: u16, kind: SyncKind, object: u64) -> &mut Self {
        self.order += 1;
        self.sync.push(SyncEvent {
            thread,
            order: self.order,
            kind,
            object,
        });
        self
    }

    /// Thread 1 starts in a parallel region opened by thread 0.
    fn fork(&mut self) -> &mut Self {
        self.sync(0, SyncKind::Release, REGION)
            .sync(0, SyncKind::Acquire, REGION)
            .sync(1, SyncKind::Acquire, REGION)
    }

    fn barrier(&mut self) -> &mut Self {
        self.sync(0, SyncKind::Release, BARRIER)
            .sync(1, SyncKind::Release, BARRIER)
            .sync(0, SyncKind::Acquire, BARRIER)
            .sync(1, SyncKind::Acquire, BARRIER)
    }

    fn run(&self, level: ThreadLevel, sync_recorded: bool) -> Run {
        let rank = RankTrace {
            rank: 0,
            events: self.events.clone(),
            end: RankEnd::Finalized,
            threads: ThreadInfo {
                provided: Some(level),
                sync_recorded,
                sync: self.sync.clone(),
                parallel_regions: Vec::new(),
                thread_starts: Vec::new(),
                shared_requests: Vec::new(),
                freed_after_use: Vec::new(),
                workshares: Vec::new(),
            },
        };
        Run {
            ranks: vec![rank],
            comms: [CommInfo {
                name: "MPI_COMM_WORLD".into(),
                members: [0].into(),
                remote: None,
            }]
            .into_iter()
            .collect(),
            sites: (0..=self.sites)
                .map(|i| SourceLocation {
                    file: Some("t.c".into()),
                    line: Some(i),
                    ..Default::default()
                })
                .collect(),
            datatypes: Vec::new(),
            collective_args: Default::default(),
            ..Default::default()
        }
    }
}

fn init(level: i32) -> Op {
    Op::Init {
        thread_level: Some(level),
    }
}

fn barrier_op() -> Op {
    Op::Collective {
        kind: CollectiveKind::Barrier,
        comm: CommId(0),
        root: None,
        blocking: Blocking::Blocking,
    }
}

fn recv(source: u32, tag: i32) -> Op {
    Op::Recv {
        recv: RecvSpec {
            source: Some(Source::Rank(source)),
            tag: TagMatch::Tag(tag),
            comm: CommId(0),
            count: 1,
            datatype: None,
            matched: Some((source, tag)),
        },
        blocking: Blocking::Blocking,
    }
}

fn probe(source: u32, tag: i32) -> Op {
    Op::Probe {
        source: Some(Source::Rank(source)),
        tag: TagMatch::Tag(tag),
        comm: CommId(0),
        blocking: true,
        matched_probe: false,
        found: Some(true),
        matched: Some((source, tag)),
    }
}

fn wait(request: u32, test: bool) -> Op {
    Op::Wait {
        requests: smallvec::smallvec![Some(ReqId(request))],
        kind: WaitKind::One,
        test,
        completed: None,
    }
}

/// TH001-TH007 as [`super::ThreadChecks`] finds them: its pass fed the ranks' events and
/// synchronization records in every order of [`interleave::orders`] (the receives' matches
/// at their events and late), which must agree with each other and with the checks on whole
/// ranks ([`reference`]).
fn thread_findings(run: &Run) -> Vec<Diagnostic> {
    let pass = || super::ThreadChecks.pass().expect("a pass");
    let mut orders = interleave::orders(run).to_vec();
    // (A run of one rank has one order: feed it once.)
    orders.dedup();
    let of_pass = interleave::fed(run, pass(), &orders[0]);
    for (i, order) in orders.iter().enumerate() {
        if i > 0 {
            let fed = interleave::fed(run, pass(), order);
            assert_eq!(fed, of_pass, "fed in the order {order:?}");
        }
        assert_eq!(
            interleave::fed_late(run, pass(), order),
            of_pass,
            "fed in the order {order:?}, the matches late"
        );
    }
    assert_eq!(
        of_pass,
        reference(run),
        "the pass and the whole-rank checks"
    );
    of_pass
}

/// TH003 and TH005 alone, from the pass ([`thread_findings`]).
fn concurrent_findings(run: &Run) -> Vec<Diagnostic> {
    thread_findings(run)
        .into_iter()
        .filter(|d| matches!(d.code, "TH003" | "TH005"))
        .collect()
}

/// TH001-TH007 as the whole-rank checks find them (happens-before over every call).
fn reference(run: &Run) -> Vec<Diagnostic> {
    let mut findings = super::Findings::default();
    for rank in &run.ranks {
        let threads = super::RankThreads::new(rank);
        super::request::check(&threads, &mut findings);
        super::collective::check(run, &threads, &mut findings);
        if super::several_threads(rank) {
            super::level::check(&threads, &mut findings);
            super::finalize::check(&threads, &mut findings);
            super::probe::check(&threads, &mut findings);
            super::single::check(&threads, &mut findings);
            super::freed::check(&threads, &mut findings);
        }
    }
    findings.into_diagnostics_on(&RunTables::of(run))
}

fn lines(d: &Diagnostic) -> Vec<u32> {
    d.locations.iter().filter_map(|l| l.line).collect()
}

#[test]
fn serialized_overlap_occurred_and_unordered_possible() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(2), 0, Some(10))
        .fork()
        .call(0, "MPI_Comm_rank", Op::Other, 100, Some(200))
        .call(1, "MPI_Comm_size", Op::Other, 150, Some(250))
        .call(1, "MPI_Comm_size", Op::Other, 900, Some(950));
    let d = thread_findings(&b.run(ThreadLevel::Serialized, true));
    let occurred: Vec<_> = d.iter().filter(|d| d.severity == Severity::Error).collect();
    let possible: Vec<_> = d
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    assert_eq!(occurred.len(), 1, "{d:#?}");
    assert_eq!(lines(occurred[0]), vec![3, 2]);
    assert!(occurred[0].message.contains("ran at the same time"));
    assert_eq!(possible.len(), 1, "{d:#?}");
    assert_eq!(lines(possible[0]), vec![4, 2]);
    assert!(d.iter().all(|d| d.code == "TH001"));
}

#[test]
fn barrier_orders_calls_and_without_sync_records_nothing_is_possible() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(2), 0, Some(10))
        .fork()
        .call(0, "MPI_Comm_rank", Op::Other, 100, Some(200))
        .barrier()
        .call(1, "MPI_Comm_size", Op::Other, 900, Some(950));
    assert!(thread_findings(&b.run(ThreadLevel::Serialized, true)).is_empty());
    // Without the barrier: possible, unless synchronization was not recorded at all.
    let mut c = RankBuilder::new();
    c.call(0, "MPI_Init_thread", init(2), 0, Some(10))
        .fork()
        .call(0, "MPI_Comm_rank", Op::Other, 100, Some(200))
        .call(1, "MPI_Comm_size", Op::Other, 900, Some(950));
    assert_eq!(
        thread_findings(&c.run(ThreadLevel::Serialized, true)).len(),
        1
    );
    assert!(thread_findings(&c.run(ThreadLevel::Serialized, false)).is_empty());
}

#[test]
fn thread_of_unknown_origin_gives_no_possible_report() {
    // Thread 1's start was not recorded (no acquire of a start object).
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(2), 0, Some(10))
        .call(0, "MPI_Comm_rank", Op::Other, 100, Some(200))
        .call(1, "MPI_Comm_size", Op::Other, 900, Some(950));
    assert!(thread_findings(&b.run(ThreadLevel::Serialized, true)).is_empty());
}

#[test]
fn funneled_reports_worker_calls_with_the_init_site() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(1), 0, Some(10))
        .fork()
        .call(1, "MPI_Barrier", barrier_op(), 100, Some(200))
        .call(1, "MPI_Wtime", Op::Other, 300, Some(301));
    let d = thread_findings(&b.run(ThreadLevel::Funneled, true));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "TH001");
    assert_eq!(lines(&d[0]), vec![2, 1]);
    // Under MPI_THREAD_MULTIPLE the same calls are fine.
    assert!(thread_findings(&b.run(ThreadLevel::Multiple, true)).is_empty());
}

#[test]
fn finalize_wrong_thread_concurrent_and_later_calls() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(1, "MPI_Finalize", Op::Finalize, 100, Some(200))
        .call(0, "MPI_Comm_rank", Op::Other, 150, Some(160))
        .call(0, "MPI_Comm_size", Op::Other, 300, Some(310))
        .call(0, "MPI_Finalized", Op::Other, 400, Some(410));
    let d = thread_findings(&b.run(ThreadLevel::Multiple, true));
    let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    assert!(d.iter().all(|d| d.code == "TH002"), "{msgs:?}");
    assert_eq!(d.len(), 3, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("not the main thread")));
    assert!(msgs
        .iter()
        .any(|m| m.contains("MPI_Comm_rank of thread 0 ran while")));
    assert!(msgs
        .iter()
        .any(|m| m.contains("MPI_Comm_size called after MPI_Finalize")));
}

#[test]
fn requests_and_collectives_shared_by_threads() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(0, "MPI_Wait", wait(7, false), 100, Some(500))
        .call(1, "MPI_Test", wait(7, true), 200, Some(210))
        .call(1, "MPI_Test", wait(8, true), 220, Some(230))
        .barrier()
        .call(0, "MPI_Barrier", barrier_op(), 1000, Some(1100))
        .call(1, "MPI_Barrier", barrier_op(), 2000, Some(2100));
    let d = thread_findings(&b.run(ThreadLevel::Multiple, true));
    let codes: Vec<(&str, Severity, Vec<u32>)> =
        d.iter().map(|d| (d.code, d.severity, lines(d))).collect();
    assert_eq!(
        codes,
        vec![
            ("TH003", Severity::Error, vec![3, 2]),
            ("TH005", Severity::Warning, vec![6, 5]),
        ]
    );
    // A handle MPI gave to two live requests at once cannot be attributed: no TH003.
    let mut run = b.run(ThreadLevel::Multiple, true);
    run.ranks[0].threads.shared_requests = vec![ReqId(7)];
    assert!(thread_findings(&run).iter().all(|d| d.code != "TH003"));
}

#[test]
fn probe_stolen_in_the_seeds_forms() {
    // Case 3 (A): the other thread's receive runs with the probe.
    let mut a = RankBuilder::new();
    a.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(0, "MPI_Probe", probe(1, 0), 100, Some(300))
        .call(1, "MPI_Recv", recv(1, 0), 150, Some(350))
        .barrier()
        .call(0, "MPI_Recv", recv(1, 0), 500, Some(600));
    let d = thread_findings(&a.run(ThreadLevel::Multiple, true));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "TH004");
    assert!(
        d[0].message.contains("same time as the probe"),
        "{}",
        d[0].message
    );
    // Case 4 (B): ordered by barriers between the probe and the probing thread's receive.
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(0, "MPI_Probe", probe(1, 0), 100, Some(200))
        .barrier()
        .call(1, "MPI_Recv", recv(1, 0), 300, Some(400))
        .barrier()
        .call(0, "MPI_Recv", recv(1, 0), 500, Some(600));
    let d = thread_findings(&b.run(ThreadLevel::Multiple, true));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].message.contains("between the probe"),
        "{}",
        d[0].message
    );
    // Ordered before the probe, or after the probing thread's receive: fine.
    let mut c = RankBuilder::new();
    c.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(1, "MPI_Recv", recv(1, 0), 50, Some(60))
        .barrier()
        .call(0, "MPI_Probe", probe(1, 0), 100, Some(200))
        .call(0, "MPI_Recv", recv(1, 0), 300, Some(400))
        .barrier()
        .call(1, "MPI_Recv", recv(1, 0), 500, Some(600));
    assert!(thread_findings(&c.run(ThreadLevel::Multiple, true)).is_empty());
    // Another tag: not a conflict.
    let mut e = RankBuilder::new();
    e.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(0, "MPI_Probe", probe(1, 0), 100, Some(300))
        .call(1, "MPI_Recv", recv(1, 5), 150, Some(350))
        .call(0, "MPI_Recv", recv(1, 0), 500, Some(600));
    assert!(thread_findings(&e.run(ThreadLevel::Multiple, true)).is_empty());
}

#[test]
fn single_threaded_runs_cost_nothing_and_report_nothing() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init", Op::Init { thread_level: None }, 0, Some(10))
        .call(0, "MPI_Barrier", barrier_op(), 100, Some(200))
        .call(0, "MPI_Finalize", Op::Finalize, 300, Some(400));
    let run = b.run(ThreadLevel::Single, true);
    assert!(run_all(&run).is_empty());
}

#[test]
fn large_threaded_runs_stay_linear() {
    // 200k calls of 2 threads under MPI_THREAD_SERIALIZED, a barrier every 10 calls and one
    // unordered pair at the end: one finding per site pair, found without quadratic work.
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(2), 0, Some(10)).fork();
    let mut t = 100;
    for i in 0..20_000u64 {
        for k in 0..10u64 {
            let thread = ((i + k) % 2) as u16;
            b.order += 1;
            b.events.push(Event {
                call: "MPI_Comm_rank",
                op: Op::Other,
                site: SiteId(1),
                thread,
                returned: true,
                facts: EventFacts::None,
                time: Some(CallTime {
                    order: b.order,
                    enter_ns: t,
                    exit_ns: Some(t + 5),
                }),
            });
            t += 10;
            b.barrier();
        }
    }
    b.call(0, "MPI_Comm_size", Op::Other, t, Some(t + 5)).call(
        1,
        "MPI_Comm_size",
        Op::Other,
        t + 100,
        Some(t + 105),
    );
    // No wall-clock limit (timings belong in benchmarks): that the pass holds a bounded
    // state over long runs is what `generated::thread_pass_holds_only_live_state` counts.
    let d = thread_findings(&b.run(ThreadLevel::Serialized, true));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, Severity::Warning);
}

#[test]
fn threads_started_under_single_are_reported_unless_they_call_mpi() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init", Op::Init { thread_level: None }, 0, Some(10)); // order 1, line 1
    b.order = 10;
    b.call(0, "MPI_Barrier", barrier_op(), 100, Some(200)); // order 11, line 2
    b.order = 20;
    b.call(0, "MPI_Finalize", Op::Finalize, 300, Some(400)); // order 21, line 3
    b.sites = 20;
    let run_with = |level, starts: &[ThreadStart], regions: &[ParallelRegion]| {
        let mut run = b.run(level, true);
        run.ranks[0].threads.thread_starts = starts.to_vec();
        run.ranks[0].threads.parallel_regions = regions.to_vec();
        thread_findings(&run)
    };
    let start = |order, line| ThreadStart {
        by: 0,
        order,
        site: SiteId(line),
        started: Some(1),
    };
    let region = |begin_order, end_order, line| ParallelRegion {
        thread: 0,
        site: SiteId(line),
        begin_order,
        end_order,
        threads: 4,
    };
    // A thread started between MPI_Init and MPI_Finalize, and a region of 4 threads with no
    // MPI call inside: both reported, with the MPI_Init line.
    let d = run_with(ThreadLevel::Single, &[start(5, 10)], &[region(12, 15, 11)]);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d
        .iter()
        .all(|d| d.code == "TH006" && d.severity == Severity::Warning));
    let mut found: Vec<Vec<u32>> = d.iter().map(lines).collect();
    found.sort();
    assert_eq!(found, vec![vec![10, 1], vec![11, 1]]);
    // Not after MPI_Finalize, not a region with an MPI call inside (TH001's), not a
    // one-thread region, not under a higher level.
    let mut one_thread = region(12, 15, 11);
    one_thread.threads = 1;
    let d = run_with(
        ThreadLevel::Single,
        &[start(25, 10)],
        &[region(5, 15, 11), one_thread],
    );
    let codes: Vec<&str> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["TH001"], "{d:#?}");
    assert!(run_with(
        ThreadLevel::Funneled,
        &[start(5, 10)],
        &[region(12, 15, 11)]
    )
    .is_empty());
}

fn comm_op(call_kind: CollectiveKind) -> Op {
    Op::Collective {
        kind: call_kind,
        comm: CommId(0),
        root: None,
        blocking: Blocking::Blocking,
    }
}

#[test]
fn th007_object_freed_by_another_thread_unless_ordered() {
    // CorrBench's comm_free: thread 1 uses the communicator (a `single nowait`), thread 0
    // frees it (the next `single`) with nothing in between.
    let build = |barrier_between: bool| {
        let mut b = RankBuilder::new();
        b.call(0, "MPI_Init_thread", init(3), 0, Some(10))
            .fork()
            .call(1, "MPI_Comm_rank", Op::Other, 100, Some(200));
        if barrier_between {
            b.barrier();
        }
        b.call(
            0,
            "MPI_Comm_free",
            comm_op(CollectiveKind::Management),
            300,
            Some(400),
        );
        let mut run = b.run(ThreadLevel::Multiple, true);
        run.ranks[0].threads.freed_after_use = vec![FreedAfterUse {
            kind: ObjectKind::Communicator,
            used: 1,
            freed: 2,
        }];
        run
    };
    let d = thread_findings(&build(false));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "TH007");
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(lines(&d[0]), vec![2, 3]);
    assert!(
        d[0].message.contains(
            "MPI_Comm_rank of thread 1 can use the communicator after MPI_Comm_free of thread 0"
        ),
        "{}",
        d[0].message
    );
    // A barrier orders the use before the free; without recorded synchronization nothing
    // is claimed; under a lower thread level the pair is TH001's.
    assert!(thread_findings(&build(true)).is_empty());
    assert!(thread_findings(&{
        let mut run = build(false);
        run.ranks[0].threads.sync_recorded = false;
        run
    })
    .is_empty());
    let mut serialized = build(false);
    serialized.ranks[0].threads.provided = Some(ThreadLevel::Serialized);
    assert!(thread_findings(&serialized)
        .iter()
        .all(|d| d.code == "TH001"));
}

#[test]
fn th007_request_freed_by_another_thread() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10))
        .fork()
        .call(
            1,
            "MPI_Start",
            Op::Start {
                requests: vec![ReqId(4)],
            },
            100,
            Some(110),
        )
        .call(1, "MPI_Test", wait(4, true), 120, Some(130))
        .call(
            0,
            "MPI_Request_free",
            Op::RequestFree { request: ReqId(4) },
            300,
            Some(310),
        )
        // Another request, freed by the thread that uses it: fine.
        .call(
            1,
            "MPI_Start",
            Op::Start {
                requests: vec![ReqId(5)],
            },
            400,
            Some(410),
        )
        .call(
            1,
            "MPI_Request_free",
            Op::RequestFree { request: ReqId(5) },
            420,
            Some(430),
        );
    let d = thread_findings(&b.run(ThreadLevel::Multiple, true));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "TH007");
    // The other thread's last use before the free is reported.
    assert_eq!(lines(&d[0]), vec![3, 4]);
    assert!(d[0].message.contains("the request"), "{}", d[0].message);
}

#[test]
fn funneled_call_in_a_single_block_of_the_main_thread_is_possible() {
    // Thread 0 (main) runs a `single` block of a team of 2 (site 50) and calls MPI in it,
    // then calls MPI again after the block ended.
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(1), 0, Some(10)) // order 1, line 1
        .fork()
        .call(0, "MPI_Bcast", barrier_op(), 100, Some(200)) // order 5, line 2
        .call(0, "MPI_Wtime", Op::Other, 210, Some(220)) // order 6, line 3
        .call(0, "MPI_Barrier", barrier_op(), 300, Some(400)); // order 7, line 4
    let block = |thread, end_order, team| WorkshareBlock {
        thread,
        construct: Workshare::Single,
        begin_order: 4,
        end_order,
        team,
    };
    let with = |level, blocks: &[WorkshareBlock]| {
        let mut run = b.run(level, true);
        run.sites.resize(
            51,
            SourceLocation {
                file: Some("t.c".into()),
                line: Some(50),
                ..Default::default()
            },
        );
        run.ranks[0].threads.workshares = blocks.to_vec();
        run.ranks[0].threads.parallel_regions = vec![ParallelRegion {
            thread: 0,
            site: SiteId(50),
            begin_order: 2,
            end_order: 8,
            threads: 2,
        }];
        thread_findings(&run)
    };
    let d = with(ThreadLevel::Funneled, &[block(0, 7, 2)]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "TH001");
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(lines(&d[0]), vec![2, 1]);
    assert!(
        d[0].message
            .starts_with("MPI_Bcast in a `#pragma omp single` block"),
        "{}",
        d[0].message
    );
    // A block that ended before the call, of another thread, of a team of one thread, or
    // under MPI_THREAD_MULTIPLE: nothing.
    assert!(with(ThreadLevel::Funneled, &[block(0, 5, 2)]).is_empty());
    assert!(with(ThreadLevel::Funneled, &[block(1, 7, 2)]).is_empty());
    assert!(with(ThreadLevel::Funneled, &[block(0, 7, 1)]).is_empty());
    assert!(with(ThreadLevel::Multiple, &[block(0, 7, 2)]).is_empty());
}

#[test]
fn finalize_in_a_single_block_of_the_main_thread_is_possible() {
    let mut b = RankBuilder::new();
    b.call(0, "MPI_Init_thread", init(3), 0, Some(10)) // order 1
        .fork()
        .call(0, "MPI_Finalize", Op::Finalize, 100, Some(200)); // order 5
    let with = |end_order| {
        let mut run = b.run(ThreadLevel::Multiple, true);
        run.ranks[0].threads.workshares = vec![WorkshareBlock {
            thread: 0,
            construct: Workshare::Single,
            begin_order: 4,
            end_order,
            team: 2,
        }];
        run.ranks[0].threads.parallel_regions = vec![ParallelRegion {
            thread: 0,
            site: SiteId(1),
            begin_order: 2,
            end_order: 8,
            threads: 2,
        }];
        thread_findings(&run)
    };
    let d = with(6);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!((d[0].code, d[0].severity), ("TH002", Severity::Warning));
    assert_eq!(lines(&d[0]), vec![2]);
    assert!(
        d[0].message.contains("`#pragma omp single` block"),
        "{}",
        d[0].message
    );
    // After the block: fine.
    assert!(with(5).is_empty());
}

mod generated;
