//! The real traces of `tests/traces` (see its README): they read back whole, and the
//! ignored `regenerate_fixtures` rebuilds them from the output directories of fresh runs.

use std::path::{Path, PathBuf};

use mpicheck_trace::builder::TraceBuilder;
use mpicheck_trace::{read_trace, EndOfTrace};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces")
}

fn trace_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .collect();
    files.sort();
    files
}

#[test]
fn fixture_traces_read_back_whole() {
    for (set, exited) in [
        ("features-mpich", true),
        ("features-openmpi", true),
        ("deadlock-mpich", false),
        ("deadlock-openmpi", false),
    ] {
        let files = trace_files(&fixtures().join(set));
        assert_eq!(files.len(), 2, "{set}");
        let mut ranks = Vec::new();
        for path in &files {
            let trace = read_trace(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            ranks.push(trace.header.rank);
            assert!(trace.calls.len() >= 4, "{}", path.display());
            assert!(trace.schema.len() > 3, "{}", path.display());
            assert!(!trace.constants.is_empty(), "{}", path.display());
            assert_eq!(trace.header.exited(), exited, "{}", path.display());
            if exited {
                assert_eq!(trace.end, EndOfTrace::Clean, "{}", path.display());
                assert_eq!(trace.incomplete(), None, "{}", path.display());
            }
        }
        ranks.sort();
        assert_eq!(ranks, [Some(0), Some(1)], "{set}");
    }
}

/// `MPICHECK_FIXTURE_RUNS=DIR cargo test -p mpicheck-trace --test fixtures -- --ignored`,
/// with DIR holding one `mpicheck run` output directory per set (`features-mpich`, ...):
/// writes compact copies (function table of the calls made, no memory map) of their
/// traces, under their own names, into `tests/traces`.
#[test]
#[ignore]
fn regenerate_fixtures() {
    let runs =
        PathBuf::from(std::env::var_os("MPICHECK_FIXTURE_RUNS").expect("MPICHECK_FIXTURE_RUNS"));
    for entry in std::fs::read_dir(&runs).unwrap() {
        let dir = entry.unwrap().path();
        let set = dir.file_name().unwrap().to_owned();
        let out = fixtures().join(&set);
        std::fs::create_dir_all(&out).unwrap();
        for path in trace_files(&dir) {
            let trace = read_trace(&path).unwrap();
            let mut builder = TraceBuilder::from_trace(&trace);
            let bytes = if trace.header.exited() {
                builder.exited()
            } else {
                builder.bytes()
            };
            std::fs::write(out.join(path.file_name().unwrap()), bytes).unwrap();
        }
    }
}
