//! Following a trace while it is written (`mpicheck_trace::follow`): the calls read are the
//! calls of the finished trace, whatever the writer was doing when the reader looked —
//! records still inside MPI, folded polls and counted runs still counting.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mpicheck_trace::builder::{CallToWrite, TraceBuilder};
use mpicheck_trace::follow::{follow_trace_calls, scan_settled, ReleaseBehind};
use mpicheck_trace::reader::{frames, read_header};
use mpicheck_trace::{
    flags, kind, offset, read_trace_bytes, record_state, scan_trace_file,
    scan_trace_file_past_released, state, text, CallRecord, HEADER_SIZE,
};

mod support;
use support::*;

/// Writes `finished` into `path` record by record as a recorder would: each call first
/// `ENTERED` (returning only after other threads' records, now and then), polls and counts
/// first as they start and brought to their final words only when their thread (or, for
/// counts, any thread) goes on; the exit flag last.
fn write_slowly(path: &std::path::Path, finished: &[u8], seed: u64) {
    let file = File::options().write(true).open(path).unwrap();
    let mut header = finished[..HEADER_SIZE].to_vec();
    let exited = u32::from_le_bytes(header[offset::STATE..offset::STATE + 4].try_into().unwrap());
    header[offset::STATE..offset::STATE + 4]
        .copy_from_slice(&(exited & !state::EXITED).to_le_bytes());
    file.write_all_at(&header, 0).unwrap();
    let mut rng = seed;
    let mut next = || {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        rng >> 33
    };
    // Writes still to do: (offset, bytes), done before the next record of `thread` (None:
    // of any thread).
    let mut later: Vec<(Option<u16>, usize, Vec<u8>)> = Vec::new();
    let frames: Vec<_> = frames(finished).collect();
    for f in &frames {
        let rec = &finished[f.offset..f.offset + f.len];
        let thread = (f.kind == kind::CALL || f.kind == kind::CYCLE)
            .then(|| u16::from_le_bytes([rec[10], rec[11]]));
        later.retain(|(owner, at, bytes)| {
            let due = owner.is_none() || *owner == thread || next() % 3 == 0;
            if due {
                file.write_all_at(bytes, *at as u64).unwrap();
            }
            !due
        });
        let mut first = rec.to_vec();
        if f.kind == kind::CALL && f.state == record_state::COMPLETE {
            first[6] = record_state::ENTERED;
            let complete = (f.offset + 6, vec![record_state::COMPLETE]);
            if f.flags & flags::POLL != 0 {
                // The fold words come when the thread's next poll returns.
                first[f.len - 16..f.len - 8].fill(0);
                later.push((thread, f.offset + f.len - 16, rec[f.len - 16..].to_vec()));
            }
            if f.flags & flags::COUNTED != 0 {
                first[6] = record_state::COMPLETE;
                first[f.len - 16..f.len - 8]
                    .copy_from_slice(&mpicheck_trace::COUNT_PENDING.to_le_bytes());
                later.push((None, f.offset + f.len - 16, rec[f.len - 16..].to_vec()));
            } else if next() % 2 == 0 {
                later.push((thread, complete.0, complete.1));
            } else {
                file.write_all_at(&first, f.offset as u64).unwrap();
                std::thread::sleep(Duration::from_micros(next() % 300));
                first[6] = record_state::COMPLETE;
            }
        } else if f.kind == kind::CYCLE {
            first[16..24].copy_from_slice(&mpicheck_trace::COUNT_PENDING.to_le_bytes());
            later.push((None, f.offset + 16, rec[16..].to_vec()));
        }
        // The frame last: a reader must never see the record before its words.
        file.write_all_at(&first[8..], (f.offset + 8) as u64)
            .unwrap();
        file.write_all_at(&first[..8], f.offset as u64).unwrap();
        if next() % 4 == 0 {
            std::thread::sleep(Duration::from_micros(next() % 500));
        }
    }
    for (_, at, bytes) in later {
        file.write_all_at(&bytes, at as u64).unwrap();
    }
    // Around the fields of what a reader released: the process never writes those.
    file.write_all_at(&finished[..offset::RELEASED_FROM], 0)
        .unwrap();
    let after = offset::RELEASED_TO + 8;
    file.write_all_at(&finished[after..HEADER_SIZE], after as u64)
        .unwrap();
}

fn followed_calls(finished: Vec<u8>, seed: u64) -> Vec<CallRecord> {
    let dir = temp_dir(&format!("seed{seed}"));
    let path = dir.join("trace-7.mpitrace");
    // Space reserved ahead, as the recorder does: zeros beyond the records.
    File::create(&path)
        .unwrap()
        .set_len(finished.len() as u64 + 65536)
        .unwrap();
    let header = read_trace_bytes(&finished).unwrap().header;
    let until = job_running();
    let job_over = until.job_over.clone();
    let reader = {
        let path = path.clone();
        std::thread::spawn(move || {
            follow_trace_calls(&path, &header, until, 16 << 10, None)
                .unwrap()
                .map(|call| Rc::unwrap_or_clone(call.unwrap()))
                .collect::<Vec<_>>()
        })
    };
    write_slowly(&path, &finished, seed);
    // The reader has not ended before the job did.
    std::thread::sleep(Duration::from_millis(50));
    assert!(!reader.is_finished(), "the reader ended before the job");
    let (settled, _) = scan_settled(&path).unwrap();
    assert!(settled.mpi_calls > 0);
    job_over.store(true, Ordering::Release);
    let calls = reader.join().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    calls
}

/// The calls of `finished`, written into `dir` as its process left it while still running
/// (its last call inside MPI), as a reader following it with `release` reads them: the job
/// ends once the reader released something (or after 10 s).
fn followed_releasing(
    dir: &std::path::Path,
    finished: &[u8],
    release: (ReleaseBehind, usize),
) -> Vec<CallRecord> {
    let path = dir.join("trace-7.mpitrace");
    let mut running = still_running(finished.to_vec());
    running.resize(finished.len() + 65536, 0);
    std::fs::write(&path, &running).unwrap();
    let header = read_trace_bytes(finished).unwrap().header;
    let until = job_running();
    let job_over = until.job_over.clone();
    let released_to = release.0.released_to.clone();
    let reader = {
        let path = path.to_path_buf();
        std::thread::spawn(move || {
            follow_trace_calls(&path, &header, until, 16 << 10, Some(release))
                .unwrap()
                .map(|call| Rc::unwrap_or_clone(call.unwrap()))
                .collect::<Vec<_>>()
        })
    };
    let start = std::time::Instant::now();
    while released_to.load(Ordering::Acquire) == 0 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // (Past the release: the reader waits at the last call now, or soon.)
    std::thread::sleep(Duration::from_millis(200));
    job_over.store(true, Ordering::Release);
    reader.join().unwrap()
}

#[test]
fn released_records_are_read_first_and_declared() {
    let finished = finished_trace_of(2000);
    let whole = read_trace_bytes(&finished).unwrap();
    // Where the records after the schema begin: what a reader scanned before it followed.
    let from = frames(&finished).nth(1).unwrap().offset;
    for seed in 0..1 {
        let dir = temp_dir(&format!("release{seed}"));
        let released_to = Arc::new(AtomicU64::new(0));
        let behind = ReleaseBehind {
            after_bytes: 16 << 10,
            every_bytes: 8 << 10,
            watched: Arc::new(AtomicU64::new(u64::MAX)),
            released_to: released_to.clone(),
        };
        let followed = followed_releasing(&dir, &finished, (behind, from));
        assert_eq!(followed, whole.calls, "seed {seed}");
        assert!(released_to.load(Ordering::Acquire) > 0, "seed {seed}");
        let path = dir.join("trace-7.mpitrace");
        let bytes = std::fs::read(&path).unwrap();
        let header = read_header(&bytes).unwrap();
        let (start, end) = header.released.expect("the header declares the release");
        assert_eq!(start as usize, from);
        assert!(end as usize > from + (16 << 10) && (end as usize) < finished.len());
        // What the header declares released holds zeros, in whole pages, and nothing else.
        let pages = start.next_multiple_of(4096) as usize..(end / 4096 * 4096) as usize;
        assert!(pages.len() >= 4096);
        assert!(bytes[pages.clone()].iter().all(|&b| b == 0), "seed {seed}");
        assert_eq!(bytes[pages.end..finished.len()], finished[pages.end..]);
        // A reader from the start refuses it; the reader that released it can still scan
        // its texts and end.
        assert!(matches!(
            scan_trace_file(&path),
            Err(mpicheck_trace::TraceError::Released { .. })
        ));
        let rest = scan_trace_file_past_released(&path).unwrap();
        // (The trace as written: its process still running.)
        let mut running = still_running(finished.clone());
        running.resize(finished.len() + 65536, 0);
        let expected = mpicheck_trace::scan_trace(&mut &running[..]).unwrap();
        assert_eq!(rest.end, expected.end);
        assert_eq!(rest.schema.len(), whole.schema.len());
        assert!(rest.mpi_calls > 0 && rest.mpi_calls < whole.mpi_calls);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn nothing_is_released_past_what_the_watcher_read() {
    let finished = finished_trace_of(2000);
    let whole = read_trace_bytes(&finished).unwrap();
    let from = frames(&finished).nth(1).unwrap().offset;
    let dir = temp_dir("unwatched");
    let behind = ReleaseBehind {
        after_bytes: 0,
        every_bytes: 4096,
        watched: Arc::new(AtomicU64::new(from as u64 + (8 << 10))),
        released_to: Default::default(),
    };
    let followed = followed_releasing(&dir, &finished, (behind, from));
    assert_eq!(followed, whole.calls);
    let bytes = std::fs::read(dir.join("trace-7.mpitrace")).unwrap();
    let (_, to) = read_header(&bytes).unwrap().released.unwrap();
    assert!(to as usize <= from + (8 << 10), "released to {to}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn followed_calls_are_the_finished_traces_calls() {
    let finished = finished_trace();
    let whole = read_trace_bytes(&finished).unwrap();
    assert!(whole.calls.iter().any(|c| c.repeats > 0));
    for seed in 0..12 {
        let followed = followed_calls(finished.clone(), seed);
        assert_eq!(followed.len(), whole.calls.len(), "seed {seed}");
        assert_eq!(followed, whole.calls, "seed {seed}");
    }
}

#[test]
fn a_stopped_reader_ends_at_once() {
    let finished = finished_trace();
    let whole = read_trace_bytes(&finished).unwrap();
    let dir = temp_dir("stopped");
    let path = dir.join("trace-7.mpitrace");
    // Every record written, the process still running and space reserved ahead: the
    // reader waits at the last call, still inside MPI, for the job to end.
    let mut running = still_running(finished.clone());
    running.resize(finished.len() + 65536, 0);
    std::fs::write(&path, &running).unwrap();
    let header = whole.header.clone();
    let until = job_running();
    let stop = until.stop.clone();
    let (sent, got) = std::sync::mpsc::channel();
    let reader = {
        let (path, until) = (path.clone(), until.clone());
        std::thread::spawn(move || {
            for call in follow_trace_calls(&path, &header, until, 16 << 10, None).unwrap() {
                sent.send(call.map(Rc::unwrap_or_clone)).unwrap();
            }
        })
    };
    let wait = Duration::from_secs(10);
    for expected in &whole.calls[..whole.calls.len() - 1] {
        assert_eq!(&got.recv_timeout(wait).unwrap().unwrap(), expected);
    }
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !reader.is_finished(),
        "the reader did not wait at the frontier"
    );
    stop.store(true, Ordering::Release);
    let stopped = got.recv_timeout(Duration::from_secs(2)).unwrap();
    assert!(
        matches!(stopped, Err(mpicheck_trace::TraceError::Stopped)),
        "{stopped:?}"
    );
    reader.join().unwrap();
    assert!(got.try_recv().is_err(), "a call after the stop");
    // Asked to stop before it starts (a counted run, a cycle: calls without reading), a
    // reader gives no call.
    let mut calls = follow_trace_calls(&path, &whole.header, until, 16 << 10, None).unwrap();
    assert!(matches!(
        calls.next(),
        Some(Err(mpicheck_trace::TraceError::Stopped))
    ));
    assert!(calls.next().is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_settled_scan_holds_only_final_records() {
    let finished = finished_trace();
    let dir = temp_dir("settled");
    let path = dir.join("trace-7.mpitrace");
    // The header and the schema, then a call still inside MPI, then one that returned.
    let frames: Vec<_> = frames(&finished).collect();
    let cut = frames[3].offset;
    let mut prefix = finished[..cut].to_vec();
    prefix[frames[1].offset + 6] = record_state::ENTERED;
    prefix.resize(cut + 4096, 0);
    std::fs::write(&path, &prefix).unwrap();
    let (settled, _) = scan_settled(&path).unwrap();
    assert_eq!(settled.mpi_calls, 0, "a call inside MPI is not final");
    assert!(settled.schema.function(2).is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A trace much longer than one look reads (a writer faster than its reader): the settled
/// scan stops after a bounded number of bytes instead of reading on while records keep
/// coming, and a follower still reads every final call, one look after another.
#[test]
fn one_look_reads_a_bounded_part_of_a_long_trace() {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SCHEMA);
    let calls = 200_000u64;
    for i in 0..calls {
        b.call(&send(i, 0));
    }
    b.call(&CallToWrite {
        complete: false,
        ..recv(calls, 0)
    });
    let running = still_running(b.exited());
    assert!(running.len() > 8 << 20, "{} bytes", running.len());
    let dir = temp_dir("long");
    let path = dir.join("trace-8.mpitrace");
    std::fs::write(&path, &running).unwrap();

    let (settled, _) = scan_settled(&path).unwrap();
    assert!(
        settled.mpi_calls > 0 && settled.mpi_calls < calls / 2,
        "{} calls in one look",
        settled.mpi_calls
    );

    let whole = read_trace_bytes(&running).unwrap();
    let until = job_running();
    let stop = until.stop.clone();
    let (sent, got) = std::sync::mpsc::channel();
    let reader = {
        let (path, header, until) = (path.clone(), whole.header.clone(), until.clone());
        std::thread::spawn(move || {
            for call in follow_trace_calls(&path, &header, until, 64 << 10, None).unwrap() {
                if sent.send(call.map(Rc::unwrap_or_clone)).is_err() {
                    break;
                }
            }
        })
    };
    for expected in &whole.calls[..calls as usize] {
        let call = got.recv_timeout(Duration::from_secs(20)).unwrap().unwrap();
        assert_eq!(&call, expected);
    }
    stop.store(true, Ordering::Release);
    drop(got);
    reader.join().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
