//! The analysis thread's share of the CPU: idle while the job runs (the job comes first),
//! ordinary again where it may be, and how much CPU time it (or its copy) gets, to give up
//! on it where it starves beside other work.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The analysis thread's niceness where it cannot be made an idle thread (see
/// [`yield_to_the_job`]).
const ANALYSIS_NICENESS: libc::c_int = 10;

/// Makes the calling thread run only on a CPU the job leaves idle: on a busy machine the
/// job comes first, and the analysis catches up after it. A niceness was not enough: at
/// nice 10, LAMMPS `in.balance` on 4 ranks of a 2-core machine ran 7 s instead of 2 s
/// (ranks that wait on each other lose more than the CPU share the thread takes); as an
/// idle thread it ran 2 s, and the report came 4-6 s after the job instead of at once, the
/// same total time (BENCHMARKS.md, "The analysis thread as an idle thread").
pub(super) fn yield_to_the_job() {
    // SAFETY: gettid(2) has no preconditions.
    make_idle(unsafe { libc::gettid() });
}

/// Makes the thread `tid` of this process an idle one ([`yield_to_the_job`]), or a nice one
/// where it cannot be.
pub(super) fn make_idle(tid: libc::pid_t) {
    let idle = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler(2) and setpriority(2) on a thread of this process (Linux:
    // a thread id is a process id here).
    unsafe {
        if libc::sched_setscheduler(tid, libc::SCHED_IDLE, &idle) != 0 {
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, ANALYSIS_NICENESS);
        }
    }
}

/// Makes the thread `tid` of this process an ordinary one again; true if it is.
pub(super) fn make_ordinary(tid: libc::pid_t) -> bool {
    let ordinary = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler(2) and setpriority(2) on a thread of this process.
    unsafe {
        libc::sched_setscheduler(tid, libc::SCHED_OTHER, &ordinary) == 0
            && libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 0) == 0
    }
}

/// How long an idle analysis thread may get almost no CPU before it is given up
/// ([`super::Online::finish`], [`super::Online::judge_in_a_copy`]).
pub(super) const STARVED_FOR: Duration = Duration::from_secs(2);
/// Below this share of one CPU, the thread is starving (an idle thread gets all of a free
/// CPU, or next to nothing beside ordinary work).
const STARVED_SHARE: f64 = 0.1;

/// Waits for `thread` to end while it gets CPU time; true if it has not ended and got less
/// than [`STARVED_SHARE`] of a CPU over the last [`STARVED_FOR`].
pub(super) fn starves<T>(thread: &JoinHandle<T>) -> bool {
    let Some(cpu) = thread_cpu_time(thread) else {
        return false;
    };
    let mut share = CpuShare::watch(cpu);
    while !thread.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        let Some(cpu) = thread_cpu_time(thread) else {
            return false;
        };
        if share.starves(cpu) {
            return !thread.is_finished();
        }
    }
    false
}

/// The share of a CPU some work gets, from the CPU time it has used as it goes.
pub(super) struct CpuShare {
    /// The start of the current window, and the CPU time used then.
    since: Instant,
    cpu_then: Duration,
    /// The most CPU time seen: a reading may miss a part that ended (a copy reaped).
    most: Duration,
}

impl CpuShare {
    /// From now, when the work has used `cpu`.
    pub(super) fn watch(cpu: Duration) -> CpuShare {
        CpuShare {
            since: Instant::now(),
            cpu_then: cpu,
            most: cpu,
        }
    }

    /// The work has used `cpu` by now: true once it got less than [`STARVED_SHARE`] of a
    /// CPU over a window of [`STARVED_FOR`] (a window that ends with more starts the next).
    pub(super) fn starves(&mut self, cpu: Duration) -> bool {
        self.most = self.most.max(cpu);
        let wall = self.since.elapsed();
        if wall < STARVED_FOR {
            return false;
        }
        if (self.most - self.cpu_then).as_secs_f64() < STARVED_SHARE * wall.as_secs_f64() {
            return true;
        }
        (self.since, self.cpu_then) = (Instant::now(), self.most);
        false
    }
}

/// The CPU time process `pid` (a child of ours) has used, if it can be read.
pub(crate) fn process_cpu_time(pid: libc::pid_t) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: clock_getcpuclockid(3) only writes the local it is given.
    unsafe { libc::clock_getcpuclockid(pid, &mut clock) == 0 }
        .then(|| read_clock(clock))
        .flatten()
}

/// The CPU time `thread` has used, if it can be read.
pub(super) fn thread_cpu_time<T>(thread: &JoinHandle<T>) -> Option<Duration> {
    use std::os::unix::thread::JoinHandleExt;
    let mut clock: libc::clockid_t = 0;
    // SAFETY: the thread is not joined yet, so its pthread_t is valid; the call only writes
    // the local it is given.
    unsafe { libc::pthread_getcpuclockid(thread.as_pthread_t(), &mut clock) == 0 }
        .then(|| read_clock(clock))
        .flatten()
}

/// The time of a CPU-time clock, if it can be read.
fn read_clock(clock: libc::clockid_t) -> Option<Duration> {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime(2) only writes the local it is given.
    let read = unsafe { libc::clock_gettime(clock, &mut time) == 0 };
    read.then(|| Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analysis_thread_runs_only_on_idle_cpus() {
        // (A thread of its own: the policy is per thread, and the test harness's must stay.)
        let policy = std::thread::spawn(|| {
            yield_to_the_job();
            // SAFETY: sched_getscheduler(2) of the calling thread.
            unsafe { libc::sched_getscheduler(0) }
        })
        .join()
        .unwrap();
        assert_eq!(policy, libc::SCHED_IDLE);
        // SAFETY: as above.
        assert_ne!(unsafe { libc::sched_getscheduler(0) }, libc::SCHED_IDLE);
    }
}
