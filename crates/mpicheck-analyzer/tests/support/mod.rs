//! What the analyzer's tests share.

use std::path::{Path, PathBuf};

use mpicheck_trace::Trace;

/// The real traces of set `set` of `tests/traces`, read whole, ordered by rank.
pub fn committed_traces(set: &str) -> Vec<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/traces")
        .join(set);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut traces: Vec<Trace> = files
        .iter()
        .map(|p| mpicheck_trace::read_trace(p).unwrap())
        .collect();
    traces.sort_by_key(|t| t.header.rank);
    traces
}
