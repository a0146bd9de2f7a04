//! Judging a stall in a copy of the analysis that follows the job, so that the analysis
//! goes on when the stall proves nothing.
//!
//! A stall is judged from the analysis as if the job were over: it reads the traces to their
//! end, models the polling threads and runs every check. Done in the analysis itself, that
//! ends it, and a stall that turns out to be a long transfer or a loop mpicheck cannot model
//! would leave the rest of the run without it: nothing released any more, a later deadlock
//! never judged where the traces were released (they cannot be read again). So the
//! analysis thread, asked at a stall, makes a copy of itself with `fork` the next time it
//! waits for the job's records (a consistent point: nothing half-read), and the copy ends
//! the analysis, running only the checks a verdict reads, and exits with its verdict while
//! the original waits, then reads on. Copies
//! of memory are made only of the pages either side changes; the copy writes nothing the
//! original reads ([`mpicheck_trace::follow::keep_every_record`],
//! [`mpicheck_analyzer::engine::keep_temporary_files_unchanged`]) and prints nothing
//! (another thread of the original may have held the lock of stderr when it was made).
//!
//! When the copy proves a deadlock, the analysis itself is then ended at the stall as before
//! (its result is the report); when it cannot judge (no copy could be made, the analysis
//! had not started or had ended), the caller judges the stall as before.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::online::Followed;

/// Exit statuses of the copy ([`CopyVerdict`]).
const EXPLAINED: i32 = 40;
const UNPROVEN: i32 = 41;
/// How often the original looks whether its copy ended or it was told to end it.
const COPY_POLL: Duration = Duration::from_millis(10);

/// What a copy of the analysis made of a stall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyVerdict {
    /// The calls read show a deadlock, or mismatches the MPI hangs in.
    Explained,
    /// They prove nothing: the analysis goes on.
    Unproven,
    /// No verdict (no copy, or the copy could not judge).
    None,
}

/// Between the supervisor, which asks for a stall to be judged, and the analysis thread,
/// which answers once it waits for the job's records.
#[derive(Default)]
pub struct StallQuestion {
    state: Mutex<Question>,
    answered: Condvar,
    /// The pid of the copy while it judges (0 when none does).
    copy: AtomicI32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Question {
    #[default]
    Idle,
    Asked,
    /// The supervisor no longer waits (interrupted): a copy running is ended.
    Withdrawn,
    Answered(CopyVerdict),
}

/// Set in the copy.
static IN_A_COPY: AtomicBool = AtomicBool::new(false);

/// Whether this process is a copy of the analysis made to judge a stall.
pub fn in_a_copy() -> bool {
    IN_A_COPY.load(Ordering::Acquire)
}

impl StallQuestion {
    fn state(&self) -> MutexGuard<'_, Question> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answer(&self, verdict: CopyVerdict) {
        let mut state = self.state();
        if *state == Question::Asked {
            *state = Question::Answered(verdict);
        } else if *state == Question::Withdrawn {
            *state = Question::Idle;
        }
        self.answered.notify_all();
    }

    /// Asks for the stall to be judged and waits for the verdict, while `thread_ended` is
    /// false (an ended analysis answers nothing), `interrupted` is not set and
    /// `starving` (asked every 100 ms) says the analysis gets CPU time.
    pub fn ask(
        &self,
        thread_ended: impl Fn() -> bool,
        mut starving: impl FnMut() -> bool,
        interrupted: &AtomicBool,
    ) -> CopyVerdict {
        let mut state = self.state();
        *state = Question::Asked;
        loop {
            state = self
                .answered
                .wait_timeout(state, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if let Question::Answered(verdict) = *state {
                *state = Question::Idle;
                return verdict;
            }
            if interrupted.load(Ordering::SeqCst) || starving() {
                *state = Question::Withdrawn;
                return CopyVerdict::None;
            }
            if thread_ended() {
                *state = Question::Idle;
                return CopyVerdict::None;
            }
        }
    }

    /// The analysis thread cannot judge a stall where it is (it waits for the ranks to
    /// start): a question asked is answered so.
    pub fn cannot_answer_yet(&self) {
        if matches!(*self.state(), Question::Asked | Question::Withdrawn) {
            self.answer(CopyVerdict::None);
        }
    }

    /// Called by the analysis thread each time it waits for a trace's next records: if a
    /// stall is to be judged, makes the copy that judges it and answers with its verdict.
    /// In the copy, returns at once with `job_over` set: the copy reads the traces to their
    /// end and ends ([`end_the_copy`]).
    pub fn at_the_frontier(&self, job_over: &AtomicBool) {
        if in_a_copy() || *self.state() != Question::Asked {
            return;
        }
        // SAFETY: fork(2). The child goes on with this thread's analysis only: it takes no
        // lock another thread may hold (the supervisor, the only other user of the
        // analysis's shared state, waits in `ask` meanwhile) and prints nothing, and ends
        // with `_exit` (`end_the_copy`).
        match unsafe { libc::fork() } {
            -1 => self.answer(CopyVerdict::None),
            0 => become_the_copy(job_over),
            copy => {
                self.copy.store(copy, Ordering::Release);
                let verdict = self.wait_for(copy);
                self.copy.store(0, Ordering::Release);
                self.answer(verdict);
            }
        }
    }

    /// The CPU time of the copy judging the stall, if one does (zero otherwise).
    pub fn copy_cpu_time(&self) -> Duration {
        match self.copy.load(Ordering::Acquire) {
            0 => Duration::ZERO,
            pid => crate::online::process_cpu_time(pid).unwrap_or_default(),
        }
    }

    /// Waits for the copy `pid` to end and reads its verdict; ends it if the question is
    /// withdrawn.
    fn wait_for(&self, pid: libc::pid_t) -> CopyVerdict {
        let mut status = 0;
        loop {
            // SAFETY: waitpid(2) of our own child.
            let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if waited == pid {
                break;
            }
            if waited < 0 {
                return CopyVerdict::None;
            }
            if *self.state() == Question::Withdrawn {
                // SAFETY: kill(2) and waitpid(2) of our own child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                }
                return CopyVerdict::None;
            }
            std::thread::sleep(COPY_POLL);
        }
        match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
            Some(EXPLAINED) => CopyVerdict::Explained,
            Some(UNPROVEN) => CopyVerdict::Unproven,
            _ => CopyVerdict::None,
        }
    }
}

/// Makes this process, just forked, the copy: it ends with the original (never left
/// behind), is not ended by the user's Ctrl-C (the original decides), is the process the
/// kernel ends first when memory runs out (the pages it changes are copied: the original
/// then judges the stall itself), changes nothing the original reads, and reads the traces
/// as if the job were over.
fn become_the_copy(job_over: &AtomicBool) {
    IN_A_COPY.store(true, Ordering::Release);
    let _ = std::fs::write("/proc/self/oom_score_adj", "1000");
    // SAFETY: prctl(2), getppid(2) and signal(2) on this process only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() == 1 {
            libc::_exit(1);
        }
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    mpicheck_trace::follow::keep_every_record();
    mpicheck_analyzer::engine::keep_temporary_files_unchanged();
    // (Its result is the verdict only: the checks no verdict reads need not run.)
    mpicheck_analyzer::checks::judge_only_the_stall();
    job_over.store(true, Ordering::Release);
}

/// Ends the copy with its verdict on the analysis's result: `_exit`, so that nothing of the
/// original's (files, buffers) is flushed or removed by this process.
pub fn end_the_copy(result: &std::thread::Result<Result<Option<Followed>, String>>) -> ! {
    let verdict = match result {
        Ok(Ok(Some(followed))) if followed.judges_stall() => match followed.stall_explanation() {
            Some(_) => EXPLAINED,
            None => UNPROVEN,
        },
        _ => 1,
    };
    // SAFETY: _exit(2) ends this process only.
    unsafe { libc::_exit(verdict) }
}
