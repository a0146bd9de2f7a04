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
    replay_program, EndKind, Mode, Program, ProgramBuilder, ReplayOptions,
};
use mpicheck_analyzer::model::{CommId, SendMode};
use mpicheck_analyzer::waitfor;

const OPS_PER_RANK: usize = 64;
const WORLD: CommId = CommId(0);

/// Even ranks send right then receive from the left, odd ranks the other way round (32
/// rounds). Planted: in round 16 every rank sends first — the unsafe ring of MPI-CHECK's
/// figure 2, a cycle through all ranks.
fn ring(n: u32, planted: bool) -> Program {
    let mut b = ProgramBuilder::new(n);
    b.reserve_ops(n as usize * OPS_PER_RANK);
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
        b.collective(
            mpicheck_analyzer::model::CollectiveKind::Barrier,
            None,
            WORLD,
        );
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
    b.reserve_ops(n as usize * OPS_PER_RANK);
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
    b.reserve_ops(n as usize * OPS_PER_RANK);
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
