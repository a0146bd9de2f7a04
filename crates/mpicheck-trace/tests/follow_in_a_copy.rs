//! A copy of a following analysis (`mpicheck run` forks one to judge a stall while the
//! original reads on): its readers release nothing, and a reader asked at the frontier to
//! read the trace as it is reads every call. A test binary of its own: releasing is turned
//! off for the whole process.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use mpicheck_trace::follow::{follow_trace_calls, keep_every_record, ReleaseBehind, WhileWaiting};
use mpicheck_trace::read_trace_bytes;
use mpicheck_trace::reader::{frames, read_header};

mod support;
use support::*;

#[test]
fn a_copy_releases_nothing_and_reads_to_the_end_once_told_at_the_frontier() {
    let finished = finished_trace_of(2000);
    let whole = read_trace_bytes(&finished).unwrap();
    let from = frames(&finished).nth(1).unwrap().offset;
    let dir = temp_dir("copy");
    let path = dir.join("trace-7.mpitrace");
    // Its process still running, its last call inside MPI: the reader waits there.
    let mut running = still_running(finished.clone());
    running.resize(finished.len() + 65536, 0);
    std::fs::write(&path, &running).unwrap();
    keep_every_record();
    let released_to = Arc::new(AtomicU64::new(0));
    // Released at once but for the copy.
    let behind = ReleaseBehind {
        after_bytes: 0,
        every_bytes: 4096,
        watched: Arc::new(AtomicU64::new(u64::MAX)),
        released_to: released_to.clone(),
    };
    let mut until = job_running();
    let waits = Arc::new(AtomicUsize::new(0));
    let (job_over, counted) = (until.job_over.clone(), waits.clone());
    // As the copy does: the job is over for it once it waits at the frontier.
    until.waiting = Some(WhileWaiting(Arc::new(move || {
        counted.fetch_add(1, Ordering::Relaxed);
        job_over.store(true, Ordering::Release);
    })));
    let header = whole.header.clone();
    let calls: Vec<_> = follow_trace_calls(&path, &header, until, 16 << 10, Some((behind, from)))
        .unwrap()
        .map(|call| Rc::unwrap_or_clone(call.unwrap()))
        .collect();
    assert_eq!(calls, whole.calls);
    assert_eq!(
        waits.load(Ordering::Relaxed),
        1,
        "asked once, at the frontier"
    );
    assert_eq!(released_to.load(Ordering::Acquire), 0);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(read_header(&bytes).unwrap().released, None);
    assert!(bytes == running, "the file is as it was written");
    std::fs::remove_dir_all(&dir).unwrap();
}
