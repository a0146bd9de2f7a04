//! Whether the analysis of a run fits in memory, decided before it starts.
//!
//! The analysis holds about what is live (issue 14), so its cost grows little with the
//! calls; a program that makes RMA windows also holds, until the checks end, a few words
//! per message and collective (the happens-before skeleton that four RMA checks query) and
//! every call on a window. A long run could still need more memory than the machine has;
//! the kernel's OOM killer would then end mpicheck with a bare "Killed" and no report.
//! Instead, the calls are counted when the traces are scanned and the analysis refuses to
//! start, with a one-line error, when even the least it can take does not fit; the traces
//! stay for `mpicheck analyze` elsewhere.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// Keeps glibc's malloc from serving large blocks from its heap once large blocks were
/// freed. By default glibc raises its mmap threshold to the size of each large block freed
/// (up to 32 MiB); the analysis frees its growing tables' old blocks, and its later large
/// blocks then come from the heap, whose pages stay resident once touched. At 1000x calls
/// of a varied program that was ~4 MiB of the ~22 MiB peak, all of it at the end of the
/// normalization (BENCHMARKS.md, "What a 1000x run's memory does over time"). Setting the
/// threshold fixes it at its default (128 KiB) and turns that adjustment off.
pub fn keep_large_blocks_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) at start, before any other thread runs; it only sets a parameter.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// What an analysis takes: a fixed part (the program, the trace schemas, the read windows)
/// and a part per recorded MPI call, at least and typically (peak RSS of a varied program:
/// point-to-point, collectives, communicators and derived types; BENCHMARKS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    pub least_fixed: u64,
    pub least_per_call: u64,
    pub typical_fixed: u64,
    pub typical_per_call: u64,
}

/// The least any analysis takes: its smallest runs peak at about 14 MiB.
const LEAST_FIXED: u64 = 8 << 20;

/// The streaming analysis of a program that makes RMA windows: besides what [`STREAMING`]
/// holds, each call on a window stays in the run's table of them (a 160-byte `RmaCall` in
/// a hash map), each send, receive and synchronizing collective in the happens-before
/// skeleton (24 to 48 bytes, up to twice that in growing vectors), and each call with a
/// buffer in exposed window memory. A call that is none of these (a wait, a test) holds
/// nothing, so the least is the fixed part; typically 370 bytes per call where 3 calls in
/// 5 are on a window (BENCHMARKS.md, "RMA programs without the run's events").
pub const CALL_SKELETON: Cost = Cost {
    least_fixed: LEAST_FIXED,
    least_per_call: 0,
    typical_fixed: 40 << 20,
    typical_per_call: 370,
};

/// The streaming analysis: what still grows with the calls (BENCHMARKS.md, "Analysis
/// memory without the run's events").
pub const STREAMING: Cost = Cost {
    least_fixed: LEAST_FIXED,
    least_per_call: 0,
    typical_fixed: 40 << 20,
    typical_per_call: 48,
};

/// Parses `--max-memory`: a number of bytes with an optional unit, `512M`, `4GiB`, `1.5G`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            format!("expected a size such as 512M, 4G or 1.5GiB (binary units), got `{text}`")
        })
}

/// The memory mpicheck may still use: the kernel's estimate of available memory plus free
/// swap, lowered by the memory limit of mpicheck's cgroup (a batch job's or container's
/// limit) when there is one. `None` when neither can be read.
pub fn available() -> Option<u64> {
    let system = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| meminfo_available(&text));
    let cgroup = fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_room(&text, Path::new("/sys/fs/cgroup")));
    match (system, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` + `SwapFree` of `/proc/meminfo`, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = meminfo.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    Some(field("MemAvailable:")? + field("SwapFree:").unwrap_or(0))
}

/// Room left under the memory limit of the cgroup named in `/proc/self/cgroup`: v2
/// (`memory.max` − `memory.current`) or v1 (`memory.limit_in_bytes` −
/// `memory.usage_in_bytes`). A container often sees its own cgroup as the root of the
/// mount, so the mount's root is tried after the named path.
fn cgroup_room(proc_cgroup: &str, root: &Path) -> Option<u64> {
    let mut candidates: Vec<(PathBuf, &str, &str)> = Vec::new();
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            for dir in [root.join(path), root.to_path_buf()] {
                candidates.push((dir, "memory.max", "memory.current"));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let mount = root.join("memory");
            for dir in [mount.join(path), mount] {
                candidates.push((dir, "memory.limit_in_bytes", "memory.usage_in_bytes"));
            }
        }
    }
    candidates.into_iter().find_map(|(dir, limit, usage)| {
        let read = |name: &str| fs::read_to_string(dir.join(name)).ok();
        let limit = read(limit)?;
        // "max" (v2) or a huge number (v1's "no limit"): no limit here.
        let limit: u64 = limit.trim().parse().ok().filter(|&l| l < 1 << 60)?;
        let usage: u64 = read(usage).and_then(|u| u.trim().parse().ok()).unwrap_or(0);
        Some(limit.saturating_sub(usage))
    })
}

/// Refuses an analysis of `calls` recorded calls costing `cost` that cannot fit in `limit`
/// bytes (given with `--max-memory`, else what is available); warns when it may not.
pub fn check_fits(
    calls: u64,
    cost: Cost,
    limit: Option<u64>,
    given: bool,
    dir: &Path,
) -> Result<()> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let least = calls
        .saturating_mul(cost.least_per_call)
        .saturating_add(cost.least_fixed);
    let typical = calls
        .saturating_mul(cost.typical_per_call)
        .saturating_add(cost.typical_fixed);
    let whose = if given {
        "the limit set by --max-memory"
    } else {
        "the memory available"
    };
    if least > limit {
        bail!(
            "analyzing the {calls} recorded MPI calls needs at least {} of memory, more than {whose} ({}); the traces are kept: analyze them on a machine with more memory (`mpicheck analyze {}`), or record a shorter run",
            gib(least),
            gib(limit),
            dir.display()
        );
    }
    if typical > limit {
        eprintln!(
            "mpicheck: warning: analyzing the {calls} recorded MPI calls may need up to {} of memory, more than {whose} ({})",
            gib(typical),
            gib(limit)
        );
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if bytes as f64 >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB)
    } else {
        format!("{:.0} MiB", (bytes as f64 / MIB).ceil())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_available_memory_and_free_swap() {
        let meminfo = "MemTotal: 100 kB\nMemAvailable:   2048 kB\nSwapFree:  1024 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(3 * 1024 * 1024));
        assert_eq!(meminfo_available("MemAvailable: 1 kB\n"), Some(1024));
        assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn reads_the_room_under_a_cgroup_limit() {
        let root = tempfile::tempdir().unwrap();
        let v2 = root.path().join("job");
        fs::create_dir_all(&v2).unwrap();
        fs::write(v2.join("memory.max"), "1000\n").unwrap();
        fs::write(v2.join("memory.current"), "400\n").unwrap();
        assert_eq!(cgroup_room("0::/job\n", root.path()), Some(600));
        fs::write(v2.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_room("0::/job\n", root.path()), None);

        let v1 = root.path().join("memory");
        fs::create_dir_all(&v1).unwrap();
        // The named path is not mounted here (a container): its root is read.
        fs::write(v1.join("memory.limit_in_bytes"), "5000\n").unwrap();
        fs::write(v1.join("memory.usage_in_bytes"), "1000\n").unwrap();
        assert_eq!(
            cgroup_room("4:memory:/elsewhere/abc\n0::/\n", root.path()),
            Some(4000)
        );
        fs::write(v1.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        assert_eq!(cgroup_room("4:memory:/elsewhere/abc\n", root.path()), None);
    }

    /// A cost with a part per call, to test refusals.
    const PER_CALL: Cost = Cost {
        least_fixed: LEAST_FIXED,
        least_per_call: 144,
        typical_fixed: 16 << 20,
        typical_per_call: 320,
    };

    #[test]
    fn refuses_only_what_cannot_fit() {
        let dir = Path::new("out");
        let least = 1000 * PER_CALL.least_per_call + LEAST_FIXED;
        assert!(check_fits(1000, PER_CALL, Some(least), false, dir).is_ok());
        let err = check_fits(1000, PER_CALL, Some(least - 1), true, dir)
            .unwrap_err()
            .to_string();
        assert!(err.contains("1000 recorded MPI calls"), "{err}");
        assert!(err.contains("--max-memory"), "{err}");
        assert!(err.contains("mpicheck analyze out"), "{err}");
        assert!(check_fits(u64::MAX, PER_CALL, None, false, dir).is_ok());
    }

    #[test]
    fn a_streaming_analysis_of_many_calls_is_not_refused() {
        // 10^9 calls, of a program with or without RMA windows: refused only if the fixed
        // part does not fit.
        let dir = Path::new("out");
        assert!(check_fits(1_000_000_000, STREAMING, Some(1 << 30), false, dir).is_ok());
        assert!(check_fits(1_000_000_000, CALL_SKELETON, Some(1 << 30), false, dir).is_ok());
        assert!(check_fits(1_000_000_000, PER_CALL, Some(1 << 30), false, dir).is_err());
        assert!(check_fits(1, STREAMING, Some(LEAST_FIXED - 1), true, dir).is_err());
    }

    #[test]
    fn parses_sizes_with_binary_units() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
    }
}
