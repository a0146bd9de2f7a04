//! Replay engine benchmark: generated traces (ring, 2-D halo exchange, butterfly), with and
//! without a planted cycle, from 1,024 to 1,048,576 ranks × 64 calls per rank.
//!
//! `cargo bench -p mpicheck-analyzer --bench replay [-- SIZES...]`
//!
//! Each (pattern, size) runs in a child process so that its peak RSS (VmHWM) is its own.
//! Programs are built directly as compiled [`Program`]s (24 bytes per call): a million
//! ranks × 64 calls as `Run` events (120 bytes each) would not fit in 8 GiB next to the
//! engine. The `run` pattern measures the whole path from a `Run` (compile + every check).

use std::process::Command;
use std::time::Instant;

use mpicheck_analyzer::engine::{
    class, move_aux, replay_program, replay_source, CommMembers, EndKind, Following, Mode, OpKind,
    OpSource, Program, ProgramBuilder, ReplayOp, ReplayOptions, NO_RANK,
};
use mpicheck_analyzer::model::{CollectiveKind, CommId, Rank, SendMode};
use mpicheck_analyzer::waitfor;

const OPS_PER_RANK: usize = 64;
const WORLD: CommId = CommId(0);

/// Even ranks send right then receive from the left, odd ranks the other way round (32
/// rounds). Planted: in round 16 every rank sends first — the unsafe ring of MPI-CHECK's
/// figure 2, a cycle through all ranks.
fn ring(n: u32, planted: bool) -> Program {
    let mut b = ProgramBuilder::new(n);
    for r in 0..n {
        b.begin_rank();
        let right = (r + 1) % n;
        let left = (r + n - 1) % n;
        for round in 0..(OPS_PER_RANK as i32 - 1) / 2 {
            let send_first = r % 2 == 0 || (planted && round == 16);
            if send_first {
                b.send(right, round, SendMode::Standard, WORLD);
                b.recv(left, round, WORLD);
            } else {
                b.recv(left, round, WORLD);
                b.send(right, round, SendMode::Standard, WORLD);
            }
        }
        b.collective(CollectiveKind::Barrier, None, WORLD);
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    b.finish()
}

/// Periodic 2-D grid; 7 rounds of 4 Irecv + 4 Isend + Waitall. Planted: in round 3, rank 0
/// and its east neighbour first exchange with blocking synchronous sends in the unsafe
/// order.
fn halo(n: u32, planted: bool) -> Program {
    let mut px = 1u32;
    while px * px < n {
        px *= 2;
    }
    let py = n / px;
    let mut b = ProgramBuilder::new(n);
    for r in 0..n {
        b.begin_rank();
        let (x, y) = (r % px, r / px);
        let east = (x + 1) % px + y * px;
        let west = (x + px - 1) % px + y * px;
        let north = x + ((y + 1) % py) * px;
        let south = x + ((y + py - 1) % py) * px;
        let neighbours = [
            (east, west, 0),
            (west, east, 1),
            (north, south, 2),
            (south, north, 3),
        ];
        for round in 0..7u32 {
            if planted && round == 3 && (r == 0 || r == 1) {
                let peer = 1 - r;
                b.send(peer, 999, SendMode::Synchronous, WORLD);
                b.recv(peer, 999, WORLD);
            }
            let base = round * 8;
            // Receive from the neighbour on the other side of the direction the message
            // travels; tags keep the four directions apart when px or py is 2.
            for (i, &(_to, from, dir)) in neighbours.iter().enumerate() {
                b.irecv(from, (round * 4 + dir) as i32, WORLD, base + i as u32);
            }
            for (i, &(to, _from, dir)) in neighbours.iter().enumerate() {
                b.isend(
                    to,
                    (round * 4 + dir) as i32,
                    SendMode::Standard,
                    WORLD,
                    base + 4 + i as u32,
                );
            }
            let reqs: Vec<u32> = (base..base + 8).collect();
            b.waitall(&reqs);
        }
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    b.finish()
}

/// Recursive doubling: MPI_Sendrecv with partner r xor 2^k, k cycling over log2(n) (63
/// exchanges). Planted: in exchange 10, ranks 0 and 1 swap with synchronous sends first.
fn butterfly(n: u32, planted: bool) -> Program {
    let levels = n.trailing_zeros().max(1);
    let mut b = ProgramBuilder::new(n);
    for r in 0..n {
        b.begin_rank();
        for i in 0..(OPS_PER_RANK as u32 - 1) {
            let partner = r ^ (1 << (i % levels));
            if planted && i == 10 && r < 2 {
                b.send(1 - r, 999, SendMode::Synchronous, WORLD);
                b.recv(1 - r, 999, WORLD);
            }
            b.sendrecv(partner, i as i32, partner, i as i32, 64, WORLD);
        }
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    b.finish()
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The `run` pattern: a ring as a `Run`, through `checks::run_all`.
fn ring_run(n: u32, planted: bool) -> mpicheck_analyzer::model::Run {
    let mut text = format!("ranks {n}\n");
    for r in 0..n {
        let right = (r + 1) % n;
        let left = (r + n - 1) % n;
        for round in 0..31 {
            let send_first = r % 2 == 0 || (planted && round == 16);
            let s = format!("{r}: send dest={right} tag={round} @ ring.c:10\n");
            let v = format!("{r}: recv src={left} tag={round} @ ring.c:11\n");
            if send_first {
                text += &s;
                text += &v;
            } else {
                text += &v;
                text += &s;
            }
        }
        text += &format!("{r}: barrier @ ring.c:12\n{r}: finalize @ ring.c:13\n");
    }
    mpicheck_analyzer::text_trace::parse(&text).expect("generated trace parses")
}

fn child(pattern: &str, n: u32, planted: bool) {
    if pattern == "run" {
        let t = Instant::now();
        let run = ring_run(n, planted);
        let build = t.elapsed().as_secs_f64();
        let events: usize = run.ranks.iter().map(|r| r.events.len()).sum();
        let t = Instant::now();
        let findings = mpicheck_analyzer::checks::run_all(&run);
        let analyze = t.elapsed().as_secs_f64();
        let codes: Vec<&str> = findings.iter().map(|d| d.code).collect();
        println!(
            "RESULT {pattern} {n} {planted} {events} {build:.3} {analyze:.3} 0 {} {} {}",
            codes.len(),
            if codes.is_empty() {
                "-".to_string()
            } else {
                codes.join(",")
            },
            vm_hwm_kib()
        );
        return;
    }
    let t = Instant::now();
    let program = match pattern {
        "ring" => ring(n, planted),
        "halo" => halo(n, planted),
        _ => butterfly(n, planted),
    };
    let build = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let replay = replay_program(&program, &ReplayOptions::new(Mode::Strict));
    let replay_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let set = waitfor::deadlocked(&program, &replay);
    let analyze = t.elapsed().as_secs_f64();
    assert_eq!(
        replay.completed(),
        !planted,
        "{pattern} {n} planted={planted}"
    );
    println!(
        "RESULT {pattern} {n} {planted} {} {build:.3} {replay_s:.3} {analyze:.3} {} {} {}",
        replay.stats.ops,
        replay.stuck.len(),
        set.core.len(),
        vm_hwm_kib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() >= 5 && args[1] == "--child" {
        child(&args[2], args[3].parse().expect("size"), args[4] == "true");
        return;
    }
    if args.len() >= 6 && args[1] == "--long-child" {
        long_child(
            &args[2],
            args[3].parse().expect("ranks"),
            args[4].parse().expect("calls"),
            args[5] == "true",
        );
        return;
    }
    if args.iter().any(|a| a == "long") {
        long_table(&args[1..]);
        return;
    }
    // `cargo bench` passes `--bench`; sizes may follow.
    let sizes: Vec<u32> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![1 << 10, 1 << 14, 1 << 17, 1 << 20]
    } else {
        sizes
    };
    let exe = std::env::current_exe().expect("current exe");
    println!(
        "{:<10} {:>9} {:>7} {:>11} {:>8} {:>9} {:>9} {:>13} {:>9} {:>8} {:>9}",
        "pattern",
        "ranks",
        "planted",
        "ops",
        "build s",
        "replay s",
        "graph s",
        "ops/s",
        "stuck",
        "core",
        "peak MiB"
    );
    for pattern in ["ring", "halo", "butterfly", "run"] {
        for &n in &sizes {
            if pattern == "run" && n > 1 << 16 {
                continue;
            }
            for planted in [false, true] {
                let out = Command::new(&exe)
                    .args(["--child", pattern, &n.to_string(), &planted.to_string()])
                    .output()
                    .expect("run child");
                let stdout = String::from_utf8_lossy(&out.stdout);
                let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT")) else {
                    println!(
                        "{pattern:<10} {n:>9} {planted:>7} failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .last()
                            .unwrap_or("")
                    );
                    continue;
                };
                let f: Vec<&str> = line.split_whitespace().collect();
                let ops: f64 = f[4].parse().unwrap_or(0.0);
                let replay: f64 = f[6].parse().unwrap_or(0.0);
                let graph: f64 = f[7].parse().unwrap_or(0.0);
                let hwm: f64 = f[f.len() - 1].parse().unwrap_or(0.0);
                println!(
                    "{:<10} {:>9} {:>7} {:>11} {:>8} {:>9} {:>9} {:>13.0} {:>9} {:>8} {:>9.0}",
                    pattern,
                    n,
                    planted,
                    f[4],
                    f[5],
                    f[6],
                    f[7],
                    ops / (replay + graph).max(1e-9),
                    f[8],
                    f[9],
                    hwm / 1024.0
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Long runs: few ranks, many calls each, generated round by round. The same generator
// fills a whole `Program` (before: memory grows with the calls) or feeds the replay
// lazily through an `OpSource` (after: only one round per rank is generated at a time).
//
// `cargo bench -p mpicheck-analyzer --bench replay -- long [RANKS CALLS_PER_RANK...]`

/// Where generated operations go: a [`ProgramBuilder`] or a lazy source's round buffer.
trait Sink {
    fn push(&mut self, op: ReplayOp);
    fn push_aux(&mut self, words: &[u32]) -> u32;
}

impl Sink for ProgramBuilder {
    fn push(&mut self, op: ReplayOp) {
        ProgramBuilder::push(self, op)
    }
    fn push_aux(&mut self, words: &[u32]) -> u32 {
        ProgramBuilder::push_aux(self, words)
    }
}

/// One rank's current round, generated on demand.
#[derive(Default)]
struct Round {
    ops: Vec<ReplayOp>,
    aux: Vec<u32>,
    next: usize,
}

impl Sink for Round {
    fn push(&mut self, op: ReplayOp) {
        self.ops.push(op)
    }
    fn push_aux(&mut self, words: &[u32]) -> u32 {
        let at = self.aux.len() as u32;
        self.aux.extend_from_slice(words);
        at
    }
}

fn op_send(dest: u32, tag: i32, sync: bool, req: Option<u32>) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Send);
    op.peer = dest;
    op.tag = tag;
    op.sub = sync as u8; // Standard = 0, Synchronous = 1
    if let Some(req) = req {
        op.class = class::NONBLOCKING;
        op.a = req;
    }
    op
}

fn op_recv(source: u32, tag: i32, req: Option<u32>) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Recv);
    op.peer = source;
    op.tag = tag;
    op.b = NO_RANK;
    if let Some(req) = req {
        op.class = class::NONBLOCKING;
        op.a = req;
    }
    op
}

fn op_wait(sink: &mut dyn Sink, reqs: &[u32]) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Wait);
    op.b = reqs.len() as u32;
    op.a = sink.push_aux(reqs);
    op
}

fn op_sendrecv(sink: &mut dyn Sink, partner: u32, tag: i32) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Sendrecv);
    op.peer = partner;
    op.tag = tag;
    op.b = sink.push_aux(&[partner, tag as u32, NO_RANK, 64]);
    op
}

fn op_collective(kind: CollectiveKind, req: Option<u32>) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Collective);
    op.sub = COLLECTIVES.iter().position(|&k| k == kind).unwrap_or(0) as u8;
    if let Some(req) = req {
        op.class = class::NONBLOCKING;
        op.a = req;
    }
    op
}

/// The engine's collective kind order (`OpKind::Collective`'s `sub`).
const COLLECTIVES: [CollectiveKind; 3] = [
    CollectiveKind::Barrier,
    CollectiveKind::Bcast,
    CollectiveKind::Gather,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Ring,
    Halo,
    Butterfly,
    /// Point-to-point with changing tags (nonblocking ring + waitall, a butterfly
    /// sendrecv), a broadcast every 4th round, a nonblocking barrier every 16th.
    Mixed,
}

impl Shape {
    fn of(name: &str) -> Shape {
        match name {
            "ring" => Shape::Ring,
            "halo" => Shape::Halo,
            "butterfly" => Shape::Butterfly,
            _ => Shape::Mixed,
        }
    }
    /// Rounds for about `calls` operations per rank.
    fn rounds(self, calls: u64) -> u64 {
        let rounds = match self {
            Shape::Ring => calls / 2,
            Shape::Halo => calls / 9,
            Shape::Butterfly => calls,
            // 4 + 1/4 + 2/16 operations per round.
            Shape::Mixed => calls * 8 / 35,
        };
        rounds.max(1)
    }
    /// Emits round `round` of rank `r` (of `n`); tags change every round.
    fn round(self, n: u32, r: u32, round: u64, sink: &mut dyn Sink) {
        let tag = (round % (1 << 30)) as i32;
        let right = (r + 1) % n;
        let left = (r + n - 1) % n;
        let levels = n.trailing_zeros().max(1);
        match self {
            Shape::Ring => {
                if r.is_multiple_of(2) {
                    sink.push(op_send(right, tag, false, None));
                    sink.push(op_recv(left, tag, None));
                } else {
                    sink.push(op_recv(left, tag, None));
                    sink.push(op_send(right, tag, false, None));
                }
            }
            Shape::Halo => {
                let mut px = 1u32;
                while px * px < n {
                    px *= 2;
                }
                let py = (n / px).max(1);
                let (x, y) = (r % px, r / px);
                let east = (x + 1) % px + y * px;
                let west = (x + px - 1) % px + y * px;
                let north = x + ((y + 1) % py) * px;
                let south = x + ((y + py - 1) % py) * px;
                let nb = [(east, west), (west, east), (north, south), (south, north)];
                // Request ids are never reused, as in a trace.
                let base = (round * 8) as u32;
                for (i, &(_, from)) in nb.iter().enumerate() {
                    let t = (tag.wrapping_mul(4) & 0x3fff_ffff) + i as i32;
                    sink.push(op_recv(from, t, Some(base + i as u32)));
                }
                for (i, &(to, _)) in nb.iter().enumerate() {
                    let t = (tag.wrapping_mul(4) & 0x3fff_ffff) + i as i32;
                    sink.push(op_send(to, t, false, Some(base + 4 + i as u32)));
                }
                let reqs: Vec<u32> = (base..base + 8).collect();
                let op = op_wait(sink, &reqs);
                sink.push(op);
            }
            Shape::Butterfly => {
                let partner = r ^ (1 << (round as u32 % levels));
                let op = op_sendrecv(sink, partner % n, tag);
                sink.push(op);
            }
            Shape::Mixed => {
                let base = (round * 3) as u32;
                sink.push(op_recv(left, tag, Some(base)));
                sink.push(op_send(right, tag, round.is_multiple_of(8), Some(base + 1)));
                let op = op_wait(sink, &[base, base + 1]);
                sink.push(op);
                let partner = r ^ (1 << (round as u32 % levels));
                let op = op_sendrecv(sink, partner % n, tag);
                sink.push(op);
                if round.is_multiple_of(4) {
                    let mut op = op_collective(CollectiveKind::Bcast, None);
                    op.peer = (round / 4 % n as u64) as u32;
                    sink.push(op);
                }
                if round.is_multiple_of(16) {
                    sink.push(op_collective(CollectiveKind::Barrier, Some(base + 2)));
                    let op = op_wait(sink, &[base + 2]);
                    sink.push(op);
                }
            }
        }
    }
}

/// A long run generated lazily, one round per rank at a time.
struct LazyRun {
    shape: Shape,
    rounds: u64,
    world: CommMembers,
    /// Per rank: the next round to generate, and the current one.
    next_round: Vec<u64>,
    current: Vec<Round>,
}

impl LazyRun {
    fn new(shape: Shape, n: u32, rounds: u64) -> LazyRun {
        LazyRun {
            shape,
            rounds,
            world: CommMembers::identity(n),
            next_round: vec![0; n as usize],
            current: (0..n).map(|_| Round::default()).collect(),
        }
    }
}

impl OpSource for LazyRun {
    fn world_size(&self) -> u32 {
        self.world.size()
    }
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        (comm == 0).then_some(&self.world)
    }
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        let r = rank as usize;
        let n = self.world.size();
        let cur = &mut self.current[r];
        if cur.next == cur.ops.len() {
            let round = self.next_round[r];
            if round > self.rounds {
                return None;
            }
            cur.ops.clear();
            cur.aux.clear();
            cur.next = 0;
            if round == self.rounds {
                cur.ops.push(ReplayOp::new(OpKind::Finalize));
            } else {
                self.shape.round(n, rank, round, cur);
            }
            self.next_round[r] = round + 1;
        }
        let op = cur.ops[cur.next];
        cur.next += 1;
        Some(move_aux(op, &cur.aux, aux))
    }
    fn end(&self, _rank: Rank) -> EndKind {
        EndKind::Finalized
    }
    // Generated rounds: one thread per rank, no call follows a wildcard's source or tag.
    fn thread(&self, _rank: Rank) -> u16 {
        0
    }
    fn threaded(&self, _rank: Rank) -> bool {
        false
    }
    fn may_follow_wildcards(&self, _rank: Rank) -> bool {
        false
    }
    fn follows_wildcard(
        &mut self,
        _rank: Rank,
        _event: u32,
        _receive_half: bool,
        _least: Following,
    ) -> bool {
        false
    }
    fn may_follow_wildcard_tags(&self, _rank: Rank) -> bool {
        false
    }
    fn follows_wildcard_tag(&mut self, _rank: Rank, _event: u32, _least: Following) -> bool {
        false
    }
}

fn long_program(shape: Shape, n: u32, rounds: u64, calls: u64) -> Program {
    let mut b = ProgramBuilder::new(n);
    for r in 0..n {
        b.begin_rank();
        b.reserve_ops((calls + 16) as usize);
        for round in 0..rounds {
            shape.round(n, r, round, &mut b);
        }
        b.push(ReplayOp::new(OpKind::Finalize));
        b.end_rank(EndKind::Finalized);
    }
    b.finish()
}

fn long_child(shape: &str, n: u32, calls: u64, lazy: bool) {
    let s = Shape::of(shape);
    let rounds = s.rounds(calls);
    let t = Instant::now();
    let (replay, build) = if lazy {
        let mut source = LazyRun::new(s, n, rounds);
        (
            replay_source(&mut source, &ReplayOptions::new(Mode::Strict)),
            0.0,
        )
    } else {
        let program = long_program(s, n, rounds, calls);
        let build = t.elapsed().as_secs_f64();
        (
            replay_program(&program, &ReplayOptions::new(Mode::Strict)),
            build,
        )
    };
    let total = t.elapsed().as_secs_f64();
    assert!(replay.completed(), "{shape} {n} {calls} lazy={lazy}");
    println!(
        "RESULT {} {build:.3} {total:.3} {} {}",
        replay.stats.ops,
        replay.stats.peak_live_requests,
        vm_hwm_kib()
    );
}

fn long_table(args: &[String]) {
    let exe = std::env::current_exe().expect("current exe");
    let nums: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    // (ranks, calls per rank); the whole Program is skipped past 3 GiB of operations.
    let cases: Vec<(u32, u64)> = if nums.len() >= 2 {
        nums.chunks(2).map(|c| (c[0] as u32, c[1])).collect()
    } else {
        vec![
            (4, 1_000_000),
            (4, 10_000_000),
            (4, 100_000_000),
            (16, 1_000_000),
            (16, 10_000_000),
        ]
    };
    let shapes: Vec<&str> = ["ring", "halo", "butterfly", "mixed"]
        .into_iter()
        .filter(|s| args.iter().any(|a| a == s))
        .collect();
    let shapes = if shapes.is_empty() {
        vec!["ring", "halo", "butterfly", "mixed"]
    } else {
        shapes
    };
    println!(
        "{:<10} {:>5} {:>11} {:>8} {:>12} {:>8} {:>9} {:>12} {:>10} {:>9}",
        "shape",
        "ranks",
        "calls/rank",
        "source",
        "ops",
        "build s",
        "total s",
        "ops/s",
        "live reqs",
        "peak MiB"
    );
    for shape in shapes {
        for &(n, calls) in &cases {
            for lazy in [false, true] {
                let source = if lazy { "lazy" } else { "Program" };
                if !lazy && n as u64 * calls * 24 > 3 << 30 {
                    println!(
                        "{shape:<10} {n:>5} {calls:>11} {source:>8} not run: {:.1} GiB of ops",
                        (n as u64 * calls * 24) as f64 / (1u64 << 30) as f64
                    );
                    continue;
                }
                let out = Command::new(&exe)
                    .args([
                        "--long-child",
                        shape,
                        &n.to_string(),
                        &calls.to_string(),
                        &lazy.to_string(),
                    ])
                    .output()
                    .expect("run child");
                let stdout = String::from_utf8_lossy(&out.stdout);
                let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT")) else {
                    println!(
                        "{shape:<10} {n:>5} {calls:>11} {source:>8} failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .last()
                            .unwrap_or("")
                    );
                    continue;
                };
                let f: Vec<&str> = line.split_whitespace().collect();
                let ops: f64 = f[1].parse().unwrap_or(0.0);
                let total: f64 = f[3].parse().unwrap_or(0.0);
                let hwm: f64 = f[5].parse().unwrap_or(0.0);
                println!(
                    "{shape:<10} {n:>5} {calls:>11} {source:>8} {:>12} {:>8} {:>9} {:>12.0} {:>10} {:>9.1}",
                    f[1],
                    f[2],
                    f[3],
                    ops / total.max(1e-9),
                    f[4],
                    hwm / 1024.0
                );
            }
        }
    }
}
