//! One trace of a running job, tailed: its new records walked as they are written, and what
//! each thread's last record says it is doing (in a call, polling, waiting for its team).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use mpicheck_trace::reader::{
    counted_run, cycle_fields, folded_poll, frame_at, read_header, thread_tid, TraceHeader,
};
use mpicheck_trace::{
    flags, kind, record_state, text, Schema, CALL_FIXED_SIZE, CYCLE_LEN, HEADER_SIZE, MAX_CYCLE,
};

use super::procfs::{
    asleep_on_futex, clock_ticks_per_second, cpu_ticks, process_alive, this_host, thread_alive,
    thread_stat, voluntary_switches,
};
use super::DeadRank;

/// Offset of the thread index in a call record (after the 8-byte frame and the function id).
const CALL_THREAD_OFFSET: usize = 10;
/// At most this much of a trace is read per poll, so a flood of records never holds much
/// memory; the rest is read at the next poll.
const READ_CHUNK: u64 = 64 << 20;

/// What a thread's last record says it is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Activity {
    /// Inside an MPI call that has not returned.
    InCall,
    /// Its last call was a poll that returned.
    Polling,
    /// Waiting for its OpenMP team (see [`mpicheck_analyzer::threads::waits_for_team`]).
    WaitingForTeam,
    /// Outside MPI, doing something mpicheck does not see.
    Outside,
}

/// One thread of a traced process.
pub(super) struct ThreadWatch {
    /// Offset of its last call record, whose state byte tells whether the call returned.
    last_record: u64,
    /// Function id of that record.
    last_func: u16,
    last_is_poll: bool,
    /// For a synchronization record: what it leaves the thread doing (else None).
    last_sync: Option<Activity>,
    activity: Activity,
    /// When this thread last did something other than poll.
    pub(super) progress_at: Instant,
    /// CPU time (clock ticks) last seen, and since when it has not changed.
    cpu: Option<(u64, Instant)>,
    /// What the watcher saw of its polling since its last progress.
    pub(super) polling: PollSamples,
    /// Its polls since its last progress, in its poll records before `last_record`.
    pub(super) polls_before_last: u64,
    /// The calls its last record stood for at the last look: a counted repeat's grow while
    /// the thread repeats the call (trace format 6, "Counted runs"), a cycle record's while
    /// it repeats a loop of a few calls (format 7, "Counted cycles").
    last_calls: u64,
    /// Function ids of its last few call records, oldest first: the calls a cycle record
    /// after them counts in turn.
    recent_funcs: Vec<u16>,
    /// When its last record is a cycle record: the function ids of its calls, in turn.
    cycle_funcs: Vec<u16>,
}

/// How a thread whose last call is a poll spends its time since its last progress. A
/// thread that waits in a polling loop does nothing but poll, or sleeps between polls; one
/// that works between its polls (a work loop that checks for messages now and then, as the
/// genome assembler Ray's does) spends CPU time outside MPI between them: it may send what
/// the others wait for once its work is done, so it is not waiting.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PollSamples {
    /// Looks at the thread while it polled, and how many found it running (or runnable)
    /// rather than asleep.
    looks: u32,
    running: u32,
    /// At the first look where its CPU time could be read: when, and its counts then.
    first: Option<(Instant, PollCounts)>,
    /// Its counts at the last look.
    now: PollCounts,
}

/// What a polling thread had done by a look.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PollCounts {
    /// CPU time, in clock ticks.
    cpu: u64,
    /// Its polls since its last progress.
    polls: u64,
    /// The times it slept (gave up its CPU to wait), where they can be read.
    sleeps: Option<u64>,
}

impl PollSamples {
    /// Fewer looks than this judge nothing: the watcher looks every 200 ms.
    const ENOUGH_LOOKS: u32 = 10;
    /// CPU time per poll above which a thread works between its polls. Measured on a 2-core
    /// VM: a thread waiting in an `MPI_Test` or `MPI_Iprobe` loop uses 0.05 µs per poll under
    /// MPICH (0.15 µs in Ray's loop under Open MPI, whose wait ends on a timer: see
    /// [`TailedTrace::note_clock_reads`]); a loop doing tens of µs of work between polls
    /// (`hang_work_between_polls_ok.c`) 75 µs. A loop that sleeps 1 ms after every two
    /// polls uses 12–18 µs per poll, its waking up included: hence [`Self::SLEEPS_PER_POLL`].
    const WORK_PER_POLL_SECONDS: f64 = 5e-6;
    /// Sleeps per poll at or above which a thread sleeps between its polls, whatever CPU
    /// they cost: a loop that sleeps once every few polls (`usleep`) makes about one per
    /// turn; a work loop almost none (it is preempted, which does not count).
    const SLEEPS_PER_POLL: f64 = 0.05;

    /// `stat` (the thread's state and CPU time) is None where it cannot be read; so is
    /// `sleeps`.
    fn look(&mut self, now: Instant, stat: Option<(char, u64)>, sleeps: Option<u64>, polls: u64) {
        self.looks += 1;
        if let Some((state, cpu)) = stat {
            self.running += u32::from(state == 'R');
            let counts = PollCounts { cpu, polls, sleeps };
            self.first.get_or_insert((now, counts));
            self.now = counts;
        }
    }

    /// Whether the thread works between its polls: running (not asleep between polls) in at
    /// least half of the looks, seldom sleeping, and using more CPU per poll than a poll
    /// costs. Whether it runs, not how much CPU it gets: on a loaded machine a working thread
    /// waits for a core. The sleeps are counted too because a look sees a sleeping poller
    /// running as often as not where waking up is slow (a loaded VM: its CPU per poll is
    /// then above a poll's cost too). Unknown (too few looks) counts as working, so that
    /// nothing is decided yet.
    fn works_between_polls(&self, now: Instant) -> bool {
        if self.looks < Self::ENOUGH_LOOKS {
            return true;
        }
        let Some((since, then)) = self.first else {
            return false; // no CPU time to read (another machine's /proc): as before
        };
        let seconds = now.duration_since(since).as_secs_f64();
        let cpu = self.now.cpu.saturating_sub(then.cpu) as f64 / clock_ticks_per_second();
        let polls = self.now.polls.saturating_sub(then.polls).max(1) as f64;
        let sleeps = match (self.now.sleeps, then.sleeps) {
            (Some(now), Some(then)) => now.saturating_sub(then) as f64,
            _ => 0.0, // not readable: judged by the rest, as before
        };
        seconds > 0.0
            && 2 * self.running >= self.looks
            && sleeps / polls < Self::SLEEPS_PER_POLL
            && cpu / polls >= Self::WORK_PER_POLL_SECONDS
    }
}

/// The polls a poll record stands for: itself and the identical ones folded into it (its
/// `repeats` word, which grows while the thread polls).
fn polls_in(file: &File, record: u64) -> u64 {
    let mut frame = [0u8; 8];
    if file.read_exact_at(&mut frame, record).is_err() {
        return 1;
    }
    let len = u32::from_le_bytes(frame[0..4].try_into().unwrap()) as usize;
    let mut rec = vec![0u8; len];
    if !(CALL_FIXED_SIZE..=READ_CHUNK as usize).contains(&len)
        || file.read_exact_at(&mut rec, record).is_err()
    {
        return 1;
    }
    1 + folded_poll(&rec).map_or(0, |(repeats, _)| repeats)
}

/// The state byte of the call record at `record`, whether a call folded into it is inside
/// MPI (a counted repeat's pending bit), and the calls it stands for (a counted repeat
/// counts a run of identical calls as they return; see "Counted runs" in `mpicheck_trace`).
fn call_progress(file: &File, record: u64) -> Option<(u8, bool, u64)> {
    let mut frame = [0u8; 8];
    file.read_exact_at(&mut frame, record).ok()?;
    if u16::from_le_bytes([frame[4], frame[5]]) == kind::CYCLE {
        // A cycle record counts the calls of a loop as they return ("Counted cycles").
        let mut rec = [0u8; CYCLE_LEN];
        file.read_exact_at(&mut rec, record).ok()?;
        return Some(match cycle_fields(&rec) {
            Some((_, _, _, runs, pending, _)) => (rec[6], pending, 1 + runs + pending as u64),
            None => (rec[6], false, 1),
        });
    }
    let counted = flags::REPEAT | flags::COUNTED;
    if frame[7] & counted != counted {
        return Some((frame[6], false, 1));
    }
    let len = u32::from_le_bytes(frame[0..4].try_into().unwrap()) as usize;
    let mut rec = vec![0u8; len];
    if !(CALL_FIXED_SIZE..=READ_CHUNK as usize).contains(&len)
        || file.read_exact_at(&mut rec, record).is_err()
    {
        return Some((frame[6], false, 1));
    }
    Some(match counted_run(&rec) {
        Some((runs, pending, _)) => (rec[6], pending, 1 + runs + pending as u64),
        None => (rec[6], false, 1),
    })
}

/// One trace file being tailed.
pub(super) struct TailedTrace {
    file: File,
    pub(super) header: Option<TraceHeader>,
    header_bytes: Vec<u8>,
    /// For each function id of the trace's schema: whether it is a poll, or the sync record.
    polls: Vec<bool>,
    sync_id: Option<u16>,
    /// The function table, for naming calls.
    schema: Option<Schema>,
    /// The machine the process runs on (`host=` of its process text), once read.
    host: Option<String>,
    /// Offset of the first record not yet walked.
    pub(super) cursor: u64,
    pub(super) threads: BTreeMap<u16, ThreadWatch>,
    /// The header's count of clock reads outside MPI, at the last look.
    clock_reads: u32,
    /// When the process's trace last showed progress (a new process counts).
    pub(super) progress_at: Instant,
}

/// Opens a trace without following links and without blocking (a FIFO planted in the
/// directory would block a plain open forever); None unless it is a regular file.
fn open_regular(path: &Path) -> Option<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

impl TailedTrace {
    pub(super) fn open(path: &Path) -> Option<TailedTrace> {
        Some(TailedTrace {
            file: open_regular(path)?,
            header: None,
            header_bytes: vec![0u8; HEADER_SIZE],
            polls: Vec::new(),
            sync_id: None,
            schema: None,
            host: None,
            cursor: HEADER_SIZE as u64,
            threads: BTreeMap::new(),
            clock_reads: 0,
            progress_at: Instant::now(),
        })
    }

    /// Reads what was appended since the last poll and updates the threads' activities.
    pub(super) fn poll(&mut self, now: Instant) {
        if self.file.read_exact_at(&mut self.header_bytes, 0).is_err() {
            return;
        }
        let Ok(header) = read_header(&self.header_bytes) else {
            return;
        };
        if self.header.as_ref().map(|h| h.state) != Some(header.state) {
            self.progress_at = now; // initialized, finalized or exited
        }
        let file_len = self.file.metadata().map_or(0, |m| m.len());
        let end = header
            .records_end
            .min(file_len)
            .min(self.cursor + READ_CHUNK);
        self.header = Some(header);
        if end > self.cursor {
            let mut bytes = vec![0u8; (end - self.cursor) as usize];
            if self.file.read_exact_at(&mut bytes, self.cursor).is_ok() {
                let walked = self.walk(&bytes, now);
                // Stop at a record still being written (zero length); re-read it next time.
                self.cursor += walked as u64;
            }
        }
        self.refresh_states(now);
        self.note_clock_reads(now);
    }

    /// A thread that polls while its process reads the clock outside MPI is not waiting only
    /// for other processes: its loop may end on a timer (c/clock.c). Such reads are progress
    /// for the polling threads, as an `MPI_Wtime` record would be.
    fn note_clock_reads(&mut self, now: Instant) {
        let at = mpicheck_trace::offset::CLOCK_READS;
        let reads = u32::from_le_bytes(self.header_bytes[at..at + 4].try_into().unwrap());
        if reads != self.clock_reads {
            self.clock_reads = reads;
            for watch in self.threads.values_mut() {
                if watch.activity == Activity::Polling {
                    watch.progress_at = now;
                    watch.polling = PollSamples::default();
                }
            }
        }
    }

    /// Walks whole records of `bytes` (read at `self.cursor`); returns how far it got.
    fn walk(&mut self, bytes: &[u8], now: Instant) -> usize {
        let mut at = 0usize;
        while let Some(frame) = frame_at(bytes, at) {
            let poll_in_progress = frame.kind == kind::CALL
                && frame.flags & flags::POLL != 0
                && frame.state != record_state::COMPLETE;
            if poll_in_progress {
                break; // it may be folded into the record before and vanish: look again later
            }
            let offset = self.cursor + at as u64;
            if frame.kind == kind::TEXT && frame.len >= 16 {
                let subkind = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
                let len = u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap());
                let content = &bytes[at + 16..at + 16 + (len as usize).min(frame.len - 16)];
                if subkind == text::SCHEMA {
                    self.learn_schema(&String::from_utf8_lossy(content));
                } else if subkind == text::PROCESS {
                    self.host = String::from_utf8_lossy(content)
                        .lines()
                        .find_map(|l| l.strip_prefix("host="))
                        .map(str::to_string);
                }
            } else if frame.kind == kind::CALL && frame.len >= CALL_FIXED_SIZE {
                let thread = u16::from_le_bytes([
                    bytes[at + CALL_THREAD_OFFSET],
                    bytes[at + CALL_THREAD_OFFSET + 1],
                ]);
                let word = |i: usize| -> Option<i64> {
                    let from = at + CALL_FIXED_SIZE + 8 * i;
                    (from + 8 <= at + frame.len)
                        .then(|| i64::from_le_bytes(bytes[from..from + 8].try_into().unwrap()))
                };
                let is_poll = self.polls.get(frame.func as usize) == Some(&true);
                let sync = (Some(frame.func) == self.sync_id).then(|| match (word(0), word(1)) {
                    (Some(what), Some(object))
                        if mpicheck_analyzer::threads::waits_for_team(what, object) =>
                    {
                        Activity::WaitingForTeam
                    }
                    _ => Activity::Outside,
                });
                let polls_before = match self.threads.get(&thread) {
                    Some(earlier) if earlier.last_is_poll => {
                        polls_in(&self.file, earlier.last_record)
                    }
                    _ => 0,
                };
                let watch = self.threads.entry(thread).or_insert(ThreadWatch {
                    last_record: offset,
                    last_func: frame.func,
                    last_is_poll: is_poll,
                    last_sync: sync,
                    activity: Activity::Outside,
                    progress_at: now,
                    cpu: None,
                    polling: PollSamples::default(),
                    polls_before_last: 0,
                    last_calls: 1,
                    recent_funcs: Vec::new(),
                    cycle_funcs: Vec::new(),
                });
                if is_poll {
                    watch.polls_before_last += polls_before;
                } else {
                    watch.progress_at = now;
                    watch.polling = PollSamples::default();
                    watch.polls_before_last = 0;
                }
                watch.last_record = offset;
                watch.last_calls = 1;
                watch.last_func = frame.func;
                watch.last_is_poll = is_poll;
                watch.last_sync = sync;
                if watch.recent_funcs.len() == MAX_CYCLE {
                    watch.recent_funcs.remove(0);
                }
                watch.recent_funcs.push(frame.func);
                watch.cycle_funcs.clear();
                // The state byte decides whether the call returned (refresh_states).
                watch.activity = sync.unwrap_or(Activity::InCall);
            } else if frame.kind == kind::CYCLE && frame.len == CYCLE_LEN {
                // Calls of the thread's last few records, counted (trace format 7): a call
                // record of the cycle's calls in turn, for the watcher.
                let thread = u16::from_le_bytes([
                    bytes[at + CALL_THREAD_OFFSET],
                    bytes[at + CALL_THREAD_OFFSET + 1],
                ]);
                let period = u16::from_le_bytes([bytes[at + 8], bytes[at + 9]]) as usize;
                if let Some(watch) = self.threads.get_mut(&thread) {
                    if (2..=watch.recent_funcs.len()).contains(&period) {
                        let funcs = &watch.recent_funcs[watch.recent_funcs.len() - period..];
                        watch.cycle_funcs = funcs.to_vec();
                        watch.last_record = offset;
                        watch.last_calls = 1;
                        watch.last_is_poll = false;
                        watch.last_sync = None;
                        watch.progress_at = now;
                        watch.polling = PollSamples::default();
                        watch.polls_before_last = 0;
                        watch.activity = Activity::InCall;
                    }
                    watch.recent_funcs.clear();
                }
            }
            at += frame.len;
        }
        at
    }

    fn learn_schema(&mut self, text: &str) {
        let Ok(schema) = Schema::parse(text) else {
            return;
        };
        let ids = |names: &[&str]| -> BTreeSet<u16> {
            names.iter().filter_map(|n| schema.id_of(n)).collect()
        };
        let polls = ids(mpicheck_analyzer::polling::POLL_CALLS);
        let max = polls.iter().max().map_or(0, |&m| m as usize + 1);
        self.polls = (0..max).map(|id| polls.contains(&(id as u16))).collect();
        self.sync_id = schema.id_of("MPICHECK_Sync");
        self.schema = Some(schema);
    }

    fn call_name(&self, func: u16) -> String {
        self.schema
            .as_ref()
            .and_then(|s| s.function(func))
            .map_or_else(|| format!("MPI function {func}"), |f| f.name.clone())
    }

    /// A rank's process that is gone without having finalized MPI: what it died in, or
    /// after (its last recorded call, of any thread).
    pub(super) fn death(&self) -> Option<DeadRank> {
        let pid = self.header.as_ref()?.pid;
        if !self.on_this_host() || process_alive(pid) {
            return None;
        }
        // Read again now that the process is gone: the header read at the last look may
        // predate its MPI_Finalize and exit (a look that reads far behind a fast writer takes
        // a while), and a process that finalized and exited wrote so before it went.
        let mut bytes = vec![0u8; HEADER_SIZE];
        let header = match self.file.read_exact_at(&mut bytes, 0) {
            Ok(()) => read_header(&bytes).ok()?,
            Err(_) => self.header.clone()?,
        };
        if !header.initialized() || header.finalized() {
            return None;
        }
        let last = self
            .threads
            .values()
            .filter(|w| w.last_sync.is_none())
            .max_by_key(|w| w.last_record);
        let mut inside = false;
        if let Some(watch) = last {
            inside = call_progress(&self.file, watch.last_record)
                .is_some_and(|(state, pending, _)| state == record_state::ENTERED || pending);
        }
        Some(DeadRank {
            rank: header.best_rank(),
            pid: header.pid,
            exited: header.exited(),
            last_call: last.map(|w| (self.call_name(w.last_func), inside)),
        })
    }

    /// The calls the threads of a blocked process wait in (or poll with), in thread order.
    pub(super) fn waiting_in(&self) -> Vec<String> {
        let mut calls: Vec<String> = Vec::new();
        for watch in self.threads.values() {
            if matches!(watch.activity, Activity::InCall | Activity::Polling) {
                let name = self.call_name(watch.last_func);
                if !calls.contains(&name) {
                    calls.push(name);
                }
            }
        }
        calls
    }

    /// A blocking call that returned is progress; so is a thread's CPU time moving while it
    /// is outside MPI.
    fn refresh_states(&mut self, now: Instant) {
        let pid = self.header.as_ref().map_or(0, |h| h.pid);
        for (&thread, watch) in self.threads.iter_mut() {
            let progress = call_progress(&self.file, watch.last_record);
            let returned = progress
                .is_some_and(|(state, pending, _)| state == record_state::COMPLETE && !pending);
            if let Some((_, pending, calls)) = progress.filter(|_| watch.last_sync.is_none()) {
                if !watch.cycle_funcs.is_empty() {
                    // The latest call counted in the cycle (its first one is call 2).
                    let period = watch.cycle_funcs.len();
                    let latest = (calls as usize + period - 2) % period;
                    watch.last_func = watch.cycle_funcs[latest];
                }
                if calls != watch.last_calls {
                    // More identical calls counted into the record: those before it returned.
                    watch.last_calls = calls;
                    watch.progress_at = now;
                }
                if pending && !watch.last_is_poll {
                    watch.activity = Activity::InCall; // a folded call is inside MPI
                }
            }
            if watch.last_sync.is_none() && returned && watch.activity == Activity::InCall {
                watch.activity = if watch.last_is_poll {
                    Activity::Polling
                } else {
                    watch.progress_at = now; // a call returned
                    Activity::Outside
                };
            }
            if watch.activity == Activity::Polling {
                let tid = thread_tid(&self.header_bytes, thread);
                let stat = tid.and_then(|t| thread_stat(pid, t));
                let sleeps = tid.and_then(|t| voluntary_switches(pid, t));
                let polls = watch.polls_before_last + polls_in(&self.file, watch.last_record);
                watch.polling.look(now, stat, sleeps, polls);
            }
            if watch.activity == Activity::Outside {
                let cpu = thread_tid(&self.header_bytes, thread).and_then(|t| cpu_ticks(pid, t));
                watch.cpu = match (cpu, watch.cpu) {
                    (Some(ticks), Some((seen, since))) if ticks == seen => Some((seen, since)),
                    (Some(ticks), _) => Some((ticks, now)),
                    (None, _) => None,
                };
            } else {
                watch.cpu = None;
            }
        }
    }

    /// Whether the process's trace says it is done, or the process is gone (dead or a
    /// zombie).
    pub(super) fn finished(&self) -> bool {
        self.header
            .as_ref()
            .is_some_and(|h| h.exited() || (self.on_this_host() && !process_alive(h.pid)))
    }

    /// Whether the process runs on this machine, so that its pid means something here: a
    /// rank of a multi-node job is never taken for dead because no local process has its
    /// pid. Unknown (a trace before its process text, or of an older recorder): assumed.
    fn on_this_host(&self) -> bool {
        self.host
            .as_deref()
            .is_none_or(|host| host.is_empty() || Some(host) == this_host().as_deref())
    }

    /// Whether every live thread waits (see the module docs) and has for `timeout`, with at
    /// least one of them in or polling MPI; the polling threads, if so.
    pub(super) fn blocked(&self, now: Instant, timeout: Duration) -> Option<Vec<u16>> {
        let pid = self.header.as_ref()?.pid;
        let mut in_mpi = false;
        let mut polling = Vec::new();
        for (&thread, watch) in &self.threads {
            let tid = thread_tid(&self.header_bytes, thread);
            if tid.is_some_and(|t| !thread_alive(pid, t)) {
                continue; // the thread ended
            }
            if now.duration_since(watch.progress_at) < timeout {
                return None;
            }
            match watch.activity {
                Activity::InCall => in_mpi = true,
                Activity::Polling => {
                    if watch.polling.works_between_polls(now) {
                        return None;
                    }
                    in_mpi = true;
                    polling.push(thread);
                }
                Activity::WaitingForTeam => {}
                Activity::Outside => {
                    let idle = watch
                        .cpu
                        .is_some_and(|(_, since)| now.duration_since(since) >= timeout);
                    if !(idle && tid.is_some_and(|t| asleep_on_futex(pid, t))) {
                        return None;
                    }
                }
            }
        }
        in_mpi.then_some(polling)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use mpicheck_trace::builder::TraceBuilder;
    use mpicheck_trace::offset;

    /// A trace of a process that initialized MPI and is gone (its pid is a child that was
    /// reaped), written on `host`.
    fn dead_process_trace(dir: &Path, host: &str) -> TailedTrace {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let mut trace = TraceBuilder::new();
        trace.set_u32(offset::PID, pid).rank(0, 2).text(
            text::PROCESS,
            &format!("exe=/bin/x\ncmdline=x\nhost={host}\n"),
        );
        let path = dir.join(format!("trace-{pid}.mpitrace"));
        std::fs::write(&path, trace.bytes()).unwrap();
        let mut tailed = TailedTrace::open(&path).unwrap();
        tailed.poll(Instant::now());
        tailed
    }

    #[test]
    fn a_process_that_finalized_after_the_last_look_did_not_die() {
        let dir = tempfile::tempdir().unwrap();
        let tailed = dead_process_trace(dir.path(), &this_host().unwrap());
        assert!(tailed.death().is_some());
        // The process finalized MPI and exited after the watcher's last look at its header.
        let path = dir.path().join(format!(
            "trace-{}.mpitrace",
            tailed.header.as_ref().unwrap().pid
        ));
        let mut bytes = std::fs::read(&path).unwrap();
        let at = offset::STATE..offset::STATE + 4;
        let flags = u32::from_le_bytes(bytes[at.clone()].try_into().unwrap());
        let done = flags | mpicheck_trace::state::FINALIZED | mpicheck_trace::state::EXITED;
        bytes[at].copy_from_slice(&done.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert!(tailed.death().is_none());
    }

    #[test]
    fn pids_of_another_host_say_nothing_about_its_processes() {
        let dir = tempfile::tempdir().unwrap();
        let here = dead_process_trace(dir.path(), &this_host().unwrap());
        assert!(here.finished());
        assert!(here.death().is_some());
        // A rank of a multi-node job: no local process has its pid, which proves nothing.
        let elsewhere = dead_process_trace(dir.path(), "another-node.example");
        assert!(!elsewhere.finished());
        assert!(elsewhere.death().is_none());
    }

    #[test]
    fn a_polling_thread_works_between_its_polls_only_when_it_spends_cpu_outside_them() {
        let now = Instant::now();
        let ticks = |seconds: f64| (seconds * clock_ticks_per_second()) as u64;
        let then = PollCounts {
            cpu: 1000,
            polls: 500,
            sleeps: Some(40),
        };
        let after_3s = |cpu: f64, polls: u64| PollSamples {
            looks: 15,
            running: 15,
            first: Some((now - Duration::from_secs(3), then)),
            now: PollCounts {
                cpu: 1000 + ticks(cpu),
                polls: 500 + polls,
                sleeps: Some(40 + 3),
            },
        };
        // Waiting in an MPI_Test loop: 25 M polls in 1.5 s of CPU (0.06 µs each).
        assert!(!after_3s(1.5, 25_000_000).works_between_polls(now));
        // A work loop: 20,000 polls in 1.5 s of CPU (75 µs each).
        assert!(after_3s(1.5, 20_000).works_between_polls(now));
        // Asleep between polls (usleep in the loop), however few the polls.
        let asleep = PollSamples {
            running: 2,
            ..after_3s(0.05, 3_000)
        };
        assert!(!asleep.works_between_polls(now));
        // Working on a loaded machine: little CPU, but running (waiting for a core).
        assert!(after_3s(0.4, 5_000).works_between_polls(now));
        // Asleep after every other poll on a loaded VM: seen running at most looks, at 18 µs
        // of CPU per poll (its waking up), but it slept 2,700 times in 5,400 polls.
        let sleeps_between = PollSamples {
            now: PollCounts {
                sleeps: Some(40 + 2_700),
                ..after_3s(0.1, 5_400).now
            },
            ..after_3s(0.1, 5_400)
        };
        assert!(!sleeps_between.works_between_polls(now));
        // Sleeps that cannot be read: judged by the rest.
        let unread = PollSamples {
            first: Some((
                now - Duration::from_secs(3),
                PollCounts {
                    sleeps: None,
                    ..then
                },
            )),
            ..sleeps_between
        };
        assert!(unread.works_between_polls(now));
        // Too few looks to judge: nothing is decided yet.
        let early = PollSamples {
            looks: 3,
            ..after_3s(1.5, 25_000_000)
        };
        assert!(early.works_between_polls(now));
        // No CPU time to read: as before, the polls are waiting.
        let unknown = PollSamples {
            first: None,
            ..after_3s(1.5, 20_000)
        };
        assert!(!unknown.works_between_polls(now));
    }
}
