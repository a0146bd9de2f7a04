//! Watching the traces of a running job for an actual deadlock.
//!
//! Every rank appends to its trace file as it calls MPI (the recorder's records are visible
//! in the file at once), so the launcher sees each rank's state without talking to it: a
//! rank whose threads all sit in an MPI call that has not returned is *blocked*; a rank that
//! exited is *finished*; anything else (returned from its last call, computing, polling
//! with MPI_Test) is *running*. When every rank is blocked or finished, at least one is
//! blocked, and no trace has changed for the deadlock timeout, the job is stuck; the
//! analyzer then decides whether the recorded calls form a deadlock.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mpicheck_trace::reader::{frame_at, read_header, TraceHeader};
use mpicheck_trace::{kind, record_state, HEADER_SIZE};

use crate::analyze::is_trace_file;

/// Offset of the thread id in a call record (after the 8-byte frame and the function id).
const CALL_THREAD_OFFSET: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankState {
    Running,
    Blocked,
    Finished,
}

/// One trace file being tailed.
struct TailedTrace {
    file: File,
    header: Option<TraceHeader>,
    /// Offset of the first record not yet walked.
    cursor: u64,
    /// Per thread: offset of its last call record.
    last_call_of_thread: BTreeMap<u16, u64>,
    /// What changed last time we looked: records written and the states of the last calls.
    signature: (u64, Vec<u8>),
}

impl TailedTrace {
    fn open(path: &Path) -> Option<TailedTrace> {
        Some(TailedTrace {
            file: File::open(path).ok()?,
            header: None,
            cursor: HEADER_SIZE as u64,
            last_call_of_thread: BTreeMap::new(),
            signature: (0, Vec::new()),
        })
    }

    /// Reads what was appended since the last poll; returns whether anything changed.
    fn poll(&mut self) -> bool {
        let mut header_bytes = vec![0u8; HEADER_SIZE];
        if self.file.read_exact_at(&mut header_bytes, 0).is_err() {
            return false;
        }
        let Ok(header) = read_header(&header_bytes) else {
            return false;
        };
        let end = header.records_end;
        if end > self.cursor {
            let mut bytes = vec![0u8; (end - self.cursor) as usize];
            if self.file.read_exact_at(&mut bytes, self.cursor).is_ok() {
                let mut at = 0usize;
                while let Some(frame) = frame_at(&bytes, at) {
                    if frame.kind == kind::CALL && frame.len > CALL_THREAD_OFFSET + 2 {
                        let thread = u16::from_le_bytes([
                            bytes[at + CALL_THREAD_OFFSET],
                            bytes[at + CALL_THREAD_OFFSET + 1],
                        ]);
                        self.last_call_of_thread
                            .insert(thread, self.cursor + at as u64);
                    }
                    at += frame.len;
                }
                // Stop at a record still being written (zero length); re-read it next time.
                self.cursor += at as u64;
            }
        }
        let mut states = Vec::with_capacity(self.last_call_of_thread.len());
        for &offset in self.last_call_of_thread.values() {
            let mut state = [0u8; 1];
            let _ = self.file.read_exact_at(&mut state, offset + 6);
            states.push(state[0]);
        }
        let signature = (end, states);
        let changed = signature != self.signature
            || self.header.as_ref().map(|h| h.state) != Some(header.state);
        self.signature = signature;
        self.header = Some(header);
        changed
    }

    fn state(&self) -> RankState {
        let Some(header) = &self.header else {
            return RankState::Running;
        };
        if header.exited() || !process_alive(header.pid) {
            return RankState::Finished;
        }
        let states = &self.signature.1;
        if !states.is_empty() && states.iter().all(|&s| s == record_state::ENTERED) {
            RankState::Blocked
        } else {
            RankState::Running
        }
    }

    fn is_rank(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.initialized())
    }
}

fn process_alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Tails every trace of an output directory.
pub struct Watcher {
    dir: PathBuf,
    ranks: u32,
    timeout: Duration,
    traces: BTreeMap<PathBuf, TailedTrace>,
    last_progress: Instant,
}

impl Watcher {
    pub fn new(dir: &Path, ranks: u32, timeout: Duration) -> Watcher {
        Watcher {
            dir: dir.to_path_buf(),
            ranks,
            timeout,
            traces: BTreeMap::new(),
            last_progress: Instant::now(),
        }
    }

    /// Looks at every trace once. Returns true when the job is stuck: every rank blocked
    /// or finished, at least one blocked, and nothing changed for the timeout.
    pub fn poll(&mut self) -> bool {
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
                if is_trace_file(&path) && !self.traces.contains_key(&path) {
                    if let Some(trace) = TailedTrace::open(&path) {
                        self.traces.insert(path, trace);
                        self.last_progress = Instant::now();
                    }
                }
            }
        }
        let mut changed = false;
        for trace in self.traces.values_mut() {
            changed |= trace.poll();
        }
        if changed {
            self.last_progress = Instant::now();
            return false;
        }
        let mut blocked = 0;
        let mut finished = 0;
        for trace in self.traces.values() {
            match (trace.is_rank(), trace.state()) {
                (true, RankState::Blocked) => blocked += 1,
                (true, RankState::Finished) => finished += 1,
                // A process that has not reached MPI_Init yet, or a non-MPI helper still
                // alive, may yet do something.
                (_, RankState::Running) => return false,
                (false, _) => {}
            }
        }
        blocked > 0
            && blocked + finished >= self.ranks
            && self.last_progress.elapsed() >= self.timeout
    }

    /// Starts the timeout again (after a stuck state the analyzer did not call a deadlock).
    pub fn reset(&mut self) {
        self.last_progress = Instant::now();
    }

    /// The pids of the ranks' processes, to end them.
    pub fn pids(&self) -> Vec<u32> {
        self.traces
            .values()
            .filter_map(|t| t.header.as_ref().map(|h| h.pid))
            .collect()
    }

    pub fn stuck_for(&self) -> Duration {
        self.last_progress.elapsed()
    }
}
