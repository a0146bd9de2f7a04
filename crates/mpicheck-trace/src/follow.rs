//! Reading a trace while its process still writes it: the calls of its records that are
//! *final* (no writer will change them again), waiting at the frontier for more, until the
//! process is gone or the job is over. What `mpicheck run` analyzes while the job runs.
//!
//! A record is final when:
//! - it is `COMPLETE` (a call that returned, a text, a skip) — a call still `ENTERED` is the
//!   call its thread is inside;
//! - and, for the records a writer updates in place, when that can no longer happen:
//!   a folded poll ([`crate::flags::POLL`]) once a later call record of its thread is
//!   `COMPLETE` (the thread's next poll reserves a record and folds into the first only when
//!   it returns); a counted run ([`crate::flags::COUNTED`]) or a cycle record
//!   ([`crate::kind::CYCLE`]) once no counted call is inside MPI (bit 63 of `runs` clear) and
//!   a record follows it (the writer counts only into the last record of the trace).
//!
//! The walk never looks past a poll record that is not `COMPLETE`: its thread may give its
//! space back (when it is the last record), and the next record then starts at its offset.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::open::ReadWindow;
use crate::reader::TraceError;
use crate::{
    flags, kind, offset, record_state, state, TraceBytes, TraceHeader, CALL_FIXED_SIZE,
    COUNT_PENDING, CYCLE_LEN, HEADER_SIZE,
};

/// How long a reader waiting at the frontier sleeps before it looks again.
const FOLLOW_POLL: Duration = Duration::from_millis(20);

/// A record at or after the frontier that is not final yet.
#[derive(Clone, Copy, Debug)]
struct Unsettled {
    at: usize,
    /// The thread of a call or cycle record (what settles an updatable record).
    thread: Option<u16>,
}

/// Where the final records of a growing trace end, found by reading the frames of its new
/// records as they come (each once, plus the few unsettled ones again).
pub struct Frontier {
    file: File,
    path: String,
    /// The records before this offset are final.
    settled: usize,
    /// The frames up to here were read; the records from `settled` to here not final yet.
    scanned: usize,
    unsettled: std::collections::VecDeque<Unsettled>,
    /// The offset of the latest `COMPLETE` call record of each thread seen.
    latest_complete: Vec<usize>,
    /// The process ran its exit handlers (header state), as last read.
    exited: bool,
    /// Bytes of the file from `chunk_start`, as read during the current advance.
    chunk: Vec<u8>,
    chunk_start: usize,
}

/// Bytes read at once while looking at frames.
const FRAMES_CHUNK: usize = 64 << 10;
/// The most bytes of new records one [`Frontier::advance`] reads.
const ADVANCE_BYTES: usize = 4 << 20;

impl Frontier {
    pub fn open(path: &Path) -> Result<Frontier, TraceError> {
        Ok(Frontier {
            file: crate::open_trace_file(path)?,
            path: path.display().to_string(),
            settled: HEADER_SIZE,
            scanned: HEADER_SIZE,
            unsettled: Default::default(),
            latest_complete: Vec::new(),
            exited: false,
            chunk: Vec::new(),
            chunk_start: 0,
        })
    }

    /// The offset before which every record is final.
    pub fn settled(&self) -> usize {
        self.settled
    }

    /// Whether the process had run its exit handlers when [`Frontier::advance`] last looked.
    pub fn exited(&self) -> bool {
        self.exited
    }

    /// Reads `buf.len()` bytes at `at` as they are now (through one chunk read per
    /// [`Frontier::advance`] for the many small reads of frames); false if the file ends
    /// before.
    fn read(&mut self, at: usize, buf: &mut [u8]) -> Result<bool, TraceError> {
        let end = at + buf.len();
        if at < self.chunk_start || end > self.chunk_start + self.chunk.len() {
            self.chunk.resize(FRAMES_CHUNK.max(buf.len()), 0);
            let mut filled = 0;
            while filled < self.chunk.len() {
                match self
                    .file
                    .read_at(&mut self.chunk[filled..], (at + filled) as u64)
                {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(source) => {
                        self.chunk.clear();
                        return Err(TraceError::Io {
                            path: self.path.clone(),
                            source,
                        });
                    }
                }
            }
            self.chunk.truncate(filled);
            self.chunk_start = at;
            if filled < buf.len() {
                return Ok(false);
            }
        }
        buf.copy_from_slice(&self.chunk[at - self.chunk_start..end - self.chunk_start]);
        Ok(true)
    }

    fn u64_at(&mut self, at: usize) -> Result<Option<u64>, TraceError> {
        let mut word = [0u8; 8];
        Ok(self.read(at, &mut word)?.then(|| u64::from_le_bytes(word)))
    }

    /// Reads what was written since the last call, up to [`ADVANCE_BYTES`] of new records
    /// (a writer faster than the reader would otherwise keep it reading until the writer
    /// stops); returns the new settled offset.
    pub fn advance(&mut self) -> Result<usize, TraceError> {
        // What was read before is stale now.
        self.chunk.clear();
        let mut state_word = [0u8; 4];
        // (A direct read: the chunk serves the records.)
        self.exited = self
            .file
            .read_exact_at(&mut state_word, offset::STATE as u64)
            .is_ok()
            && u32::from_le_bytes(state_word) & state::EXITED != 0;
        // Records looked at before and not final then, in offset order.
        let mut i = 0;
        while i < self.unsettled.len() {
            let record = self.unsettled[i];
            match self.look_at(record.at)? {
                Look::Final => {
                    self.unsettled.remove(i);
                }
                Look::Unsettled(_) => i += 1,
                Look::Gone => {
                    // A poll's thread gave its space back: read on from there.
                    self.scanned = record.at;
                    self.unsettled.truncate(i);
                }
            }
        }
        // New records, while their frames are written.
        let budget_end = self.scanned.saturating_add(ADVANCE_BYTES);
        while self.scanned < budget_end {
            let at = self.scanned;
            if let Some(last) = self.unsettled.back() {
                if self.may_give_back(last.at)? {
                    break;
                }
            }
            match self.look_at(at)? {
                Look::Gone => break,
                Look::Final => {}
                Look::Unsettled(thread) => self.unsettled.push_back(Unsettled { at, thread }),
            }
            let Some(len) = self.record_len(at)? else {
                break;
            };
            self.scanned = at + len;
        }
        // Records updated in place settle once their thread went on.
        let latest = &self.latest_complete;
        let thread_went_on = |u: &Unsettled| {
            u.thread
                .is_some_and(|t| latest.get(t as usize).is_some_and(|&l| l > u.at))
        };
        self.unsettled.retain(|u| !thread_went_on(u));
        self.settled = self.unsettled.front().map_or(self.scanned, |u| u.at);
        Ok(self.settled)
    }

    /// Whether the space of the unsettled record at `at` may still be given back, so that
    /// nothing after it can be trusted yet: a poll not yet returned, or the skip frame that
    /// covers a folded poll's space while it is given back (as long as it is the last).
    fn may_give_back(&mut self, at: usize) -> Result<bool, TraceError> {
        let mut frame = [0u8; 8];
        if !self.read(at, &mut frame)? {
            return Ok(true);
        }
        let record_kind = u16::from_le_bytes([frame[4], frame[5]]);
        Ok(match record_kind {
            kind::CALL => frame[6] != record_state::COMPLETE && frame[7] & flags::POLL != 0,
            kind::SKIP => !self.followed(at)?,
            _ => false,
        })
    }

    /// Whether a record follows the one at `at` (its frame is written).
    fn followed(&mut self, at: usize) -> Result<bool, TraceError> {
        Ok(match self.record_len(at)? {
            Some(len) => self.record_len(at + len)?.is_some(),
            None => false,
        })
    }

    fn record_len(&mut self, at: usize) -> Result<Option<usize>, TraceError> {
        let mut frame = [0u8; 8];
        if !self.read(at, &mut frame)? {
            return Ok(None);
        }
        let len = u32::from_le_bytes(frame[0..4].try_into().unwrap()) as usize;
        Ok((len >= 8 && len & 7 == 0).then_some(len))
    }

    /// What the record at `at` is now.
    fn look_at(&mut self, at: usize) -> Result<Look, TraceError> {
        let mut head = [0u8; 16];
        if !self.read(at, &mut head)? {
            return Ok(Look::Gone);
        }
        let len = u32::from_le_bytes(head[0..4].try_into().unwrap()) as usize;
        if len < 8 || len & 7 != 0 {
            // Not written yet (or damage, which the walk judges once the job is over).
            return Ok(Look::Gone);
        }
        let (record_kind, record_state, record_flags) =
            (u16::from_le_bytes([head[4], head[5]]), head[6], head[7]);
        let thread = u16::from_le_bytes([head[10], head[11]]);
        match record_kind {
            kind::CALL if len >= CALL_FIXED_SIZE => {
                if record_state != record_state::COMPLETE {
                    return Ok(Look::Unsettled(None));
                }
                let t = thread as usize;
                if self.latest_complete.len() <= t {
                    self.latest_complete.resize(t + 1, 0);
                }
                self.latest_complete[t] = self.latest_complete[t].max(at);
                if record_flags & flags::COUNTED != 0 {
                    return self.counted(at, at + len - 16, thread);
                }
                if record_flags & flags::POLL != 0 {
                    return Ok(Look::Unsettled(Some(thread)));
                }
                Ok(Look::Final)
            }
            kind::CYCLE if len == CYCLE_LEN && record_state == record_state::COMPLETE => {
                self.counted(at, at + 16, thread)
            }
            // Final once a record follows: until then its space may be given back.
            kind::SKIP if !self.followed(at)? => Ok(Look::Unsettled(None)),
            _ if record_state == record_state::COMPLETE => Ok(Look::Final),
            _ => Ok(Look::Unsettled(None)),
        }
    }

    /// A counted run or cycle record at `at`, its `runs` word at `runs_at`: final once no
    /// counted call is inside MPI and a record follows it.
    fn counted(&mut self, at: usize, runs_at: usize, thread: u16) -> Result<Look, TraceError> {
        let pending = self.u64_at(runs_at)?.unwrap_or(0) & COUNT_PENDING != 0;
        Ok(if !pending && self.followed(at)? {
            Look::Final
        } else {
            // Settled by the thread's next complete call at the latest.
            Look::Unsettled(Some(thread))
        })
    }
}

enum Look {
    Final,
    /// Not final; `Some(thread)`: a record its thread updates in place, final once a later
    /// call record of the thread is complete.
    Unsettled(Option<u16>),
    /// No record there (not written yet, or its space given back).
    Gone,
}

/// When a followed trace has no more records to wait for.
#[derive(Clone, Debug)]
pub struct FollowUntil {
    /// Set once the job is over (every process of it gone).
    pub job_over: Arc<AtomicBool>,
    /// The process's pid, when it runs on this machine: once it exited and is gone, its
    /// trace is over before the job is.
    pub local_pid: Option<u32>,
    /// Set when what is read is no longer wanted (its analysis would be thrown away): the
    /// calls end at the next one asked for, with [`TraceError::Stopped`], and a reader
    /// waiting at the frontier wakes within a poll of the file. Whoever sets it drops the
    /// reader after that, which gives back its file and buffers.
    pub stop: Arc<AtomicBool>,
    /// Called each time the reader waits at the frontier for the process's next records:
    /// where a caller may look at what it was asked meanwhile (`mpicheck run` makes a copy
    /// of the analysis there to judge a stall).
    pub waiting: Option<WhileWaiting>,
}

/// What a reader does each time it waits at the frontier ([`FollowUntil::waiting`]).
#[derive(Clone)]
pub struct WhileWaiting(pub Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for WhileWaiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WhileWaiting")
    }
}

/// Set in a copy of a following analysis ([`keep_every_record`]).
static KEEP_EVERY_RECORD: AtomicBool = AtomicBool::new(false);

/// For a copy of a following analysis made by `fork` (to judge a stall while the original
/// reads on): the records this process reads are the original's to release, not its own,
/// so from now on no reader of this process releases any.
pub fn keep_every_record() {
    KEEP_EVERY_RECORD.store(true, Ordering::Release);
}

impl FollowUntil {
    fn process_gone(&self, exited: bool) -> bool {
        let Some(pid) = self.local_pid.filter(|_| exited) else {
            return false;
        };
        // SAFETY: kill(2) with signal 0 only checks that the process exists.
        let alive = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        !alive
    }
}

/// When the records a followed trace's reader has passed are released (their disk space
/// given back, [`crate::offset::RELEASED_FROM`]), so that a long run does not fill the disk.
#[derive(Clone, Debug)]
pub struct ReleaseBehind {
    /// Nothing is released until the reader passed this many bytes of the trace.
    pub after_bytes: u64,
    /// Bytes the reader passes between two releases (a call to `fallocate` and a header
    /// write each; [`RELEASE_STEP`] unless a test wants more of them).
    pub every_bytes: usize,
    /// How far another reader of the file (the hang watcher) has read it: nothing past this
    /// offset is released.
    pub watched: Arc<AtomicU64>,
    /// The offset released up to: 0 while nothing is (then nothing can read the trace from
    /// its start any more).
    pub released_to: Arc<AtomicU64>,
}

/// Bytes the reader passes between two releases, by default.
pub const RELEASE_STEP: usize = 8 << 20;
/// The unit of the holes made (a page: file systems free whole blocks).
const PAGE: usize = 4096;

/// The releasing of the records a [`FollowedFile`]'s reader passed ([`ReleaseBehind`]).
struct Releaser {
    behind: ReleaseBehind,
    /// The file opened for writing (the header's release fields and the holes).
    file: File,
    /// The first record that may be released: the one after the texts the process wrote
    /// before the reader began (a reader of the released trace still finds them).
    from: usize,
    /// Released up to here (a record's offset; `from` while nothing is).
    to: usize,
    /// The holes made end here (a page boundary at or before `to`).
    punched_to: usize,
}

impl Releaser {
    fn open(path: &Path, read: &File, behind: ReleaseBehind, from: usize) -> Option<Releaser> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let file = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .ok()?;
        // The file read, not another one put in its place since.
        let (a, b) = (file.metadata().ok()?, read.metadata().ok()?);
        (a.dev() == b.dev() && a.ino() == b.ino()).then_some(Releaser {
            behind,
            file,
            from,
            to: from,
            punched_to: from.next_multiple_of(PAGE),
        })
    }

    /// Whether the reader, at `record`, has passed enough since the last release to look
    /// whether to release again.
    fn due(&self, record: usize) -> bool {
        record >= self.to + self.behind.every_bytes
    }

    /// Releases the records before `record` (a record's offset the reader reached, one
    /// [`Releaser::due`]), if it may; `None` once releasing failed (and the header says
    /// nothing was released past what was).
    fn release_before(mut self, record: usize) -> Option<Releaser> {
        let watched = self.behind.watched.load(Ordering::Acquire);
        if ((record - self.from) as u64) < self.behind.after_bytes
            || record as u64 > watched
            || KEEP_EVERY_RECORD.load(Ordering::Acquire)
        {
            return Some(self);
        }
        let write = |at: usize, value: usize| {
            self.file
                .write_all_at(&(value as u64).to_le_bytes(), at as u64)
                .is_ok()
        };
        // Declared first: a reader never sees zeros the header does not explain.
        let declared = (self.to > self.from || write(offset::RELEASED_FROM, self.from))
            && write(offset::RELEASED_TO, record);
        // Whole pages only: the bytes around them stay as they are.
        let (start, end) = (self.punched_to, record / PAGE * PAGE);
        // SAFETY: fallocate(2) on a file this reader owns a descriptor of; the range holds
        // records every reader of the run has passed, which no writer changes any more.
        let punched = declared
            && (end <= start
                || unsafe {
                    libc::fallocate(
                        std::os::fd::AsRawFd::as_raw_fd(&self.file),
                        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                        start as libc::off_t,
                        (end - start) as libc::off_t,
                    )
                } == 0);
        if !punched {
            // (A file system without holes: what the header said before stands again.)
            if self.to > self.from {
                write(offset::RELEASED_TO, self.to);
            } else {
                write(offset::RELEASED_TO, 0);
                write(offset::RELEASED_FROM, 0);
            }
            return None;
        }
        self.to = record;
        self.punched_to = self.punched_to.max(end);
        self.behind
            .released_to
            .store(record as u64, Ordering::Release);
        Some(self)
    }
}

/// A trace file read while its process writes it ([`TraceBytes`]): the bytes of final
/// records only, waiting at the frontier; once the trace is over, the whole file, as
/// [`crate::FileWindow`] reads it.
pub struct FollowedFile {
    frontier: Frontier,
    until: FollowUntil,
    /// Releases what the reader passed, if asked to ([`ReleaseBehind`]).
    releaser: Option<Releaser>,
    /// The trace is over: `len` is the file's length and every byte may be read.
    over: bool,
    len: usize,
    window: ReadWindow,
    /// Zeros returned past the end of a trace that is over.
    zeros: Vec<u8>,
    /// Why looking at the frames failed.
    error: Option<TraceError>,
}

impl FollowedFile {
    /// `release`: what the reader passed is released ([`ReleaseBehind`]), from `from` on.
    pub fn open(
        path: &Path,
        until: FollowUntil,
        window_bytes: usize,
        release: Option<(ReleaseBehind, usize)>,
    ) -> Result<FollowedFile, TraceError> {
        let frontier = Frontier::open(path)?;
        let releaser = release.and_then(|(behind, from)| {
            Releaser::open(path, &frontier.file, behind, from.max(HEADER_SIZE))
        });
        Ok(FollowedFile {
            frontier,
            until,
            releaser,
            over: false,
            len: 0,
            window: ReadWindow::new(window_bytes),
            zeros: Vec::new(),
            error: None,
        })
    }

    /// Waits until the bytes before `end` are final or the trace is over.
    fn wait_for(&mut self, end: usize) {
        loop {
            if self.until.stop.load(Ordering::Acquire) {
                stopped_now(self);
                return;
            }
            // Once the job is over the whole file is read as it is: what the processes wrote
            // last counts, and no frame needs a look first.
            if self.until.job_over.load(Ordering::Acquire) {
                job_over_now(self);
                return;
            }
            let scanned_before = self.frontier.scanned;
            match self.frontier.advance() {
                Ok(settled) if settled >= end => return,
                // It stopped at its budget: more may be written already, read on at once.
                Ok(_) if self.frontier.scanned >= scanned_before + ADVANCE_BYTES => continue,
                Ok(_) => {}
                Err(e) => {
                    self.error.get_or_insert(e);
                    job_over_now(self);
                    return;
                }
            }
            if self.until.process_gone(self.frontier.exited()) {
                job_over_now(self);
                return;
            }
            if let Some(waiting) = &self.until.waiting {
                (waiting.0)();
                // (It may have ended the trace: the job is over for a copy.)
                if self.until.job_over.load(Ordering::Acquire) {
                    continue;
                }
            }
            std::thread::sleep(FOLLOW_POLL);
        }

        /// The trace is over: from now on it reads as the file it is.
        fn job_over_now(f: &mut FollowedFile) {
            f.over = true;
            f.len = f
                .frontier
                .file
                .metadata()
                .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
            // The header may have changed since it was read.
            f.window.forget_bytes();
        }

        /// Nothing more is wanted: the walk ends here (zeros), with the error that says so.
        fn stopped_now(f: &mut FollowedFile) {
            f.error.get_or_insert(TraceError::Stopped);
            f.over = true;
            f.len = 0;
            f.window.forget_bytes();
        }
    }
}

impl TraceBytes for FollowedFile {
    fn len(&self) -> usize {
        if self.over {
            self.len
        } else {
            // Unknown yet: every record is read through `get`, which waits for it.
            usize::MAX / 2
        }
    }

    fn get(&mut self, at: usize, n: usize) -> &[u8] {
        let header = at + n <= HEADER_SIZE;
        if !self.over && !header && at + n > self.frontier.settled() {
            self.wait_for(at + n);
        }
        // The walk reads forward: it will not ask for the bytes before `at` again. Nothing is
        // released once the trace is over (a reader scans it whole then).
        if !header && !self.over {
            if let Some(releaser) = self.releaser.take_if(|r| r.due(at)) {
                self.releaser = releaser.release_before(at);
            }
        }
        // Cached bytes are final ones only (or, once over, the file's).
        let limit = if self.over {
            self.len
        } else if header {
            HEADER_SIZE
        } else {
            self.frontier.settled()
        };
        if at + n > limit {
            // Past the end of a trace that is over: zeros end the walk there.
            self.zeros.clear();
            self.zeros.resize(n, 0);
            return &self.zeros;
        }
        self.window
            .get(&self.frontier.file, &self.frontier.path, at, n, limit)
    }

    fn take_error(&mut self) -> Option<TraceError> {
        self.error.take().or_else(|| self.window.take_error())
    }
}

/// The calls of a trace read while its process writes it ([`follow_trace_calls`]).
pub struct FollowedCalls {
    calls: crate::TraceCalls<FollowedFile>,
    stop: Arc<AtomicBool>,
    /// [`TraceError::Stopped`] was returned: nothing comes after it.
    stopped: bool,
}

impl Iterator for FollowedCalls {
    type Item = Result<std::rc::Rc<crate::CallRecord>, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        // Asked before every call: a counted run or cycle expands into many calls without
        // reading the file, and a reader far behind the writer does not wait.
        let call = match self.stop.load(Ordering::Acquire) {
            true => Some(Err(TraceError::Stopped)),
            false => self.calls.next(),
        };
        self.stopped = matches!(call, Some(Err(TraceError::Stopped)));
        call
    }
}

/// The calls of the trace at `path` as its process writes them, final ones only, waiting at
/// the frontier until `until` says the trace is over (or that they are no longer wanted).
/// `header`: the trace's header as read once its process initialized MPI (its version and
/// clock).
/// `release`: the records the reader passed are released ([`ReleaseBehind`]), from
/// `header`'s trace's end on (where the records not scanned then begin).
pub fn follow_trace_calls(
    path: &Path,
    header: &TraceHeader,
    until: FollowUntil,
    window_bytes: usize,
    release: Option<(ReleaseBehind, usize)>,
) -> Result<FollowedCalls, TraceError> {
    let stop = until.stop.clone();
    Ok(FollowedCalls {
        calls: crate::TraceCalls::new(
            FollowedFile::open(path, until, window_bytes, release)?,
            header,
        ),
        stop,
        stopped: false,
    })
}

/// The header, texts and final records of the trace at `path` so far, scanned as
/// [`crate::scan_trace_file`] scans a whole trace (its end reads as truncated), and the
/// offset where the records not scanned begin.
pub fn scan_settled(path: &Path) -> Result<(crate::Trace, usize), TraceError> {
    let mut frontier = Frontier::open(path)?;
    let settled = frontier.advance()?;
    let trace = crate::scan_trace(&mut crate::FileWindow::open_prefix(path, settled)?)?;
    Ok((trace, settled))
}
