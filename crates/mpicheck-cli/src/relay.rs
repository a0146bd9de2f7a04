//! The launcher's stdout and stderr pass through mpicheck, byte for byte, as they arrive.
//!
//! Why not let the launcher write to the terminal directly: when mpicheck ends a deadlocked
//! job, MPICH's `mpiexec` prints a "BAD TERMINATION ... YOUR APPLICATION TERMINATED" block
//! on stdout (and `[mpiexec@host]` lines on stderr), Open MPI its own dash-framed notices on
//! stderr, between the program's output and mpicheck's diagnosis. Only the launcher sees the
//! ranks' output, so only its streams can be filtered. From the moment mpicheck starts
//! ending the job ([`hide_teardown`]), lines that are the launcher's teardown
//! messages are dropped; everything else, the program's output included, still passes
//! unchanged. Before that moment nothing is held back or changed.
//!
//! The relay also reads (never alters) the launcher's own report of a rank killed by a
//! signal, which the launcher's exit status alone does not tell (MPICH exits with the bare
//! signal number).

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Set once mpicheck starts ending the job; one per process, so that a signal handler can
/// set it too (Ctrl-C reaches the launcher at the same moment as mpicheck).
static HIDE_TEARDOWN: AtomicBool = AtomicBool::new(false);

/// From now on, the launcher's teardown messages are dropped. Async-signal-safe.
pub fn hide_teardown() {
    HIDE_TEARDOWN.store(true, Ordering::SeqCst);
}

/// What the launcher said about how the job ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LauncherNotes {
    /// A rank the launcher says was killed by a signal (Open MPI names the rank).
    pub killed_rank: Option<i32>,
    /// The process the launcher says failed first (MPICH names the pid)...
    pub killed_pid: Option<u32>,
    /// ...and its wait status: the signal that killed it, which is not always `signal`
    /// (MPICH's exit string ORs every process's status together).
    pub killed_pid_status: Option<i32>,
    pub signal: Option<i32>,
    /// Teardown lines kept from the user.
    pub hidden_lines: usize,
}

impl LauncherNotes {
    fn merge(&mut self, other: LauncherNotes) {
        self.killed_rank = self.killed_rank.or(other.killed_rank);
        if self.killed_pid.is_none() {
            self.killed_pid = other.killed_pid;
            self.killed_pid_status = other.killed_pid_status;
        }
        self.signal = self.signal.or(other.signal);
        self.hidden_lines += other.hidden_lines;
    }
}

pub struct Relay {
    done: mpsc::Receiver<LauncherNotes>,
    streams: usize,
}

/// Where a relayed stream goes.
#[derive(Clone, Copy)]
pub enum Target {
    Stdout = 1,
    Stderr = 2,
}

impl Relay {
    /// Starts copying each stream to its target on its own thread.
    pub fn start(streams: Vec<(Box<dyn Read + Send>, Target)>) -> Relay {
        let (tx, done) = mpsc::channel();
        let count = streams.len();
        for (from, target) in streams {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let notes = relay(from, target, &HIDE_TEARDOWN);
                let _ = tx.send(notes);
            });
        }
        Relay {
            done,
            streams: count,
        }
    }

    /// Waits until the launcher's streams end, at most `limit` (a process the launcher
    /// started may keep them open after it exited; its output still passes, later).
    pub fn finish(self, limit: Duration) -> LauncherNotes {
        let deadline = Instant::now() + limit;
        let mut notes = LauncherNotes::default();
        for _ in 0..self.streams {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.done.recv_timeout(left) {
                Ok(stream_notes) => notes.merge(stream_notes),
                Err(_) => break,
            }
        }
        notes
    }
}

fn relay(mut from: Box<dyn Read + Send>, target: Target, teardown: &AtomicBool) -> LauncherNotes {
    // SAFETY: fd 1 or 2 stays open for the life of the process; ManuallyDrop never closes it.
    let mut to = ManuallyDrop::new(unsafe { File::from_raw_fd(target as i32) });
    let mut filter = TeardownFilter::default();
    let mut scanner = NoteScanner::default();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buf[..n];
        scanner.feed(chunk);
        let mut out = Vec::new();
        if teardown.load(Ordering::SeqCst) {
            filter.feed(chunk, &mut out);
        } else {
            filter.pass(chunk);
            out.extend_from_slice(chunk);
        }
        if !out.is_empty() && to.write_all(&out).is_err() {
            // The reader went away (`mpicheck run ... | head`): closing our end gives the
            // launcher the broken pipe it would have had without mpicheck.
            break;
        }
    }
    drop(from);
    let mut out = Vec::new();
    filter.finish(&mut out);
    let _ = to.write_all(&out);
    let mut notes = scanner.notes;
    notes.hidden_lines = filter.hidden;
    notes
}

/// Drops the launchers' teardown messages line by line, passing everything else unchanged.
#[derive(Default)]
struct TeardownFilter {
    /// The current line so far, when it is held (teardown mode).
    line: Vec<u8>,
    /// Whether the bytes passed so far end in the middle of a line.
    mid_line: bool,
    /// Empty lines held back: MPICH starts its block with one.
    blank_lines: usize,
    /// Inside an Open MPI notice between two dash rules.
    in_notice: bool,
    hidden: usize,
}

impl TeardownFilter {
    /// Notes bytes that passed unfiltered.
    fn pass(&mut self, chunk: &[u8]) {
        if let Some(&last) = chunk.last() {
            self.mid_line = last != b'\n';
        }
    }

    fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        for &b in chunk {
            self.line.push(b);
            if b == b'\n' {
                let line = std::mem::take(&mut self.line);
                self.line_done(line, out);
            }
        }
    }

    fn line_done(&mut self, line: Vec<u8>, out: &mut Vec<u8>) {
        // The rest of a line that had started to pass is the program's, unless it is only
        // the newline MPICH puts before its block (decided by the next line).
        let continued = std::mem::replace(&mut self.mid_line, false);
        let text = &line[..line.len() - 1];
        if self.in_notice {
            self.hidden += 1;
            if is_rule(text, b'-') {
                self.in_notice = false;
            }
            return;
        }
        if text.is_empty() {
            self.blank_lines += 1;
            return;
        }
        if !continued && is_teardown(text) {
            if is_rule(text, b'=') && self.blank_lines > 0 {
                // MPICH's block starts with one empty line; earlier ones are not its.
                self.blank_lines -= 1;
                self.hidden += 1;
                self.release_blank_lines(out);
            }
            if is_rule(text, b'-') {
                self.in_notice = true;
            }
            self.hidden += 1;
            return;
        }
        self.release_blank_lines(out);
        out.extend_from_slice(&line);
    }

    fn release_blank_lines(&mut self, out: &mut Vec<u8>) {
        for _ in 0..std::mem::take(&mut self.blank_lines) {
            out.push(b'\n');
        }
    }

    /// At the end of the stream: what is still held is not teardown noise.
    fn finish(&mut self, out: &mut Vec<u8>) {
        self.release_blank_lines(out);
        out.append(&mut self.line);
    }
}

/// A line of at least 20 `c` and nothing else.
fn is_rule(text: &[u8], c: u8) -> bool {
    text.len() >= 20 && text.iter().all(|&b| b == c)
}

/// Lines the launchers print when a job is ended: MPICH's (Hydra) "BAD TERMINATION" block and
/// its `[mpiexec@host]`/`[proxy:...]` diagnostics, Open MPI's dash-framed notices and
/// `mpirun:`/`mpiexec:` lines.
fn is_teardown(text: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 8] = [
        b"=   ",
        b"YOUR APPLICATION TERMINATED WITH THE EXIT STRING:",
        b"This typically refers to a problem with your application.",
        b"Please see the FAQ page for debugging suggestions",
        b"[mpiexec@",
        b"[proxy:",
        b"mpirun: ",
        b"mpiexec: ",
    ];
    is_rule(text, b'=') || is_rule(text, b'-') || PREFIXES.iter().any(|p| text.starts_with(p))
}

/// Reads the launchers' reports of a rank killed by a signal:
/// Open MPI: `... noticed that process rank 1 with PID 0 on node vm exited on signal 11
/// (Segmentation fault).`; MPICH: `=   PID 17212 RUNNING AT vm` then
/// `=   EXIT CODE: 11`, `YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault
/// (signal 11)`.
#[derive(Default)]
struct NoteScanner {
    line: Vec<u8>,
    notes: LauncherNotes,
}

/// Long enough for every launcher line we read; the program's long lines are cut for
/// scanning only.
const SCAN_LINE_MAX: usize = 512;

impl NoteScanner {
    fn feed(&mut self, chunk: &[u8]) {
        for &b in chunk {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.line).into_owned();
                self.scan(&line);
                self.line.clear();
            } else if self.line.len() < SCAN_LINE_MAX {
                self.line.push(b);
            }
        }
    }

    fn scan(&mut self, line: &str) {
        if let Some(rest) = line
            .split_once("noticed that process rank ")
            .map(|(_, r)| r)
        {
            let rank = leading_number(rest);
            let signal = rest
                .split_once(" exited on signal ")
                .and_then(|(_, s)| leading_number(s));
            if let (Some(rank), Some(signal)) = (rank, signal) {
                self.notes.killed_rank.get_or_insert(rank as i32);
                self.notes.signal.get_or_insert(signal as i32);
            }
        } else if let Some(rest) = line.strip_prefix("=   PID ") {
            if self.notes.killed_pid.is_none() {
                self.notes.killed_pid = leading_number(rest).map(|p| p as u32);
            }
        } else if let Some(rest) = line.strip_prefix("=   EXIT CODE: ") {
            if self.notes.killed_pid.is_some() && self.notes.killed_pid_status.is_none() {
                self.notes.killed_pid_status = leading_number(rest).map(|s| s as i32);
            }
        } else if let Some(rest) =
            line.strip_prefix("YOUR APPLICATION TERMINATED WITH THE EXIT STRING: ")
        {
            let signal = rest
                .rsplit_once("(signal ")
                .and_then(|(_, s)| leading_number(s));
            if let Some(signal) = signal {
                self.notes.signal.get_or_insert(signal as i32);
            }
        }
    }
}

fn leading_number(text: &str) -> Option<u64> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MPICH_BLOCK: &str = "\n\
===================================================================================\n\
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n\
=   PID 15677 RUNNING AT vm\n\
=   EXIT CODE: 15\n\
=   CLEANING UP REMAINING PROCESSES\n\
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n\
===================================================================================\n\
YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)\n\
This typically refers to a problem with your application.\n\
Please see the FAQ page for debugging suggestions\n";

    const OPENMPI_NOTICE: &str = "\
--------------------------------------------------------------------------\n\
Primary job  terminated normally, but 1 process returned\n\
a non-zero exit code. Per user-direction, the job has been aborted.\n\
--------------------------------------------------------------------------\n\
--------------------------------------------------------------------------\n\
mpiexec.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 11 (Segmentation fault).\n\
--------------------------------------------------------------------------\n";

    /// Passes `before` unfiltered, then `after` in teardown mode, in chunks of `chunk`.
    fn filtered(before: &str, after: &str, chunk: usize) -> String {
        let mut filter = TeardownFilter::default();
        let mut out = before.as_bytes().to_vec();
        filter.pass(before.as_bytes());
        for piece in after.as_bytes().chunks(chunk) {
            filter.feed(piece, &mut out);
        }
        filter.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn teardown_blocks_are_dropped_and_the_program_output_kept() {
        for chunk in [1, 7, 4096] {
            let program = "rank 0 ready\nrank 1 ready\n";
            assert_eq!(filtered(program, MPICH_BLOCK, chunk), program);
            assert_eq!(filtered(program, OPENMPI_NOTICE, chunk), program);
            // A partial line the program left stays exactly as it was; the newline MPICH
            // starts its block with is not the program's.
            assert_eq!(filtered("progress 10%", MPICH_BLOCK, chunk), "progress 10%");
            // The program's own lines during teardown (a signal handler) pass.
            let handler = "\nrank 0: got SIGTERM\n\n";
            assert_eq!(
                filtered(program, &format!("{handler}{MPICH_BLOCK}"), chunk),
                format!("{program}{handler}")
            );
            assert_eq!(filtered("partial", "\nrest\n", chunk), "partial\nrest\n");
            assert_eq!(
                filtered("", "no newline at the end", chunk),
                "no newline at the end"
            );
        }
    }

    #[test]
    fn the_launchers_reports_of_killed_ranks_are_read() {
        let mut scanner = NoteScanner::default();
        scanner.feed(OPENMPI_NOTICE.as_bytes());
        assert_eq!(scanner.notes.killed_rank, Some(1));
        assert_eq!(scanner.notes.signal, Some(11));
        let mut scanner = NoteScanner::default();
        scanner.feed(MPICH_BLOCK.as_bytes());
        assert_eq!(scanner.notes.killed_pid, Some(15677));
        assert_eq!(scanner.notes.killed_pid_status, Some(15));
        assert_eq!(scanner.notes.signal, Some(15));
        let mut scanner = NoteScanner::default();
        scanner.feed(b"rank 0 ready\n");
        assert_eq!(scanner.notes, LauncherNotes::default());
    }
}
