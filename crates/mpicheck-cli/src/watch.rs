//! Watching the traces of a running job for a hang.
//!
//! Every rank appends to its trace file as it calls MPI (the recorder's records are visible
//! in the file at once), so the launcher sees what each thread of each rank does without
//! talking to it. A job is *stuck* when, for the deadlock timeout, no thread of any rank made
//! progress and none could without another one moving first:
//!
//! - a thread inside a blocking MPI call (its last record entered, not returned) waits;
//! - a thread that only polls (`MPI_Test*`, `MPI_Iprobe`, ...) waits as surely, although its
//!   calls return: polls are not progress;
//! - a thread outside MPI waits when its last record left it waiting for its OpenMP team
//!   (in a barrier, or done with its share of a parallel region), or when the kernel shows it
//!   asleep on a futex (a lock, condition variable or barrier: only another thread of the
//!   process can wake it) without having used the CPU for the timeout;
//! - any other thread outside MPI (computing, sleeping, reading) may make a new call: its
//!   rank is running, and nothing is decided.
//!
//! A rank all of whose threads wait, at least one of them in or polling MPI, is *blocked*; a
//! rank that exited is *finished*. When every rank is blocked or finished and no progress was
//! seen for the timeout, the analyzer decides whether the recorded calls (with each polling
//! thread's loop modelled as the blocking call it stands for) form a deadlock.
//!
//! A rank whose process is gone although its trace says it did not finalize MPI (killed,
//! crashed, ended by `MPI_Abort`, or exited without `MPI_Finalize`) *died*: it counts as finished, and the stuck
//! job names it (in [`Stuck::died`]) with the call it died in or after, so that a job whose
//! launcher does not end it after a rank died is ended, never left to hang. That includes a
//! job whose ranks all ended after one died while the launcher stays (hung in its teardown).
//!
//! Traces of processes that never initialized MPI (children of a rank that called an MPI
//! function) do not count once every rank has initialized; files that are not traces are
//! ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::out_dir;

mod procfs;
mod tailed;

use tailed::{PollSamples, TailedTrace};

/// A job whose ranks all wait (or finished) without progress for the timeout.
pub struct Stuck {
    /// The threads that poll, by the rank the trace claims: the analysis models their loop
    /// as the blocking call it stands for.
    pub polling: Vec<(i32, u16)>,
    /// The ranks that died (see the module docs); the others wait for nothing that can come
    /// from them.
    pub died: Vec<DeadRank>,
    /// Each blocked rank and the calls its threads wait in.
    pub waiting: Vec<(i32, Vec<String>)>,
}

/// A rank whose process is gone although it initialized MPI and did not finalize it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadRank {
    pub rank: Option<i32>,
    pub pid: u32,
    /// It ran its exit handlers (exited without finalizing MPI).
    pub exited: bool,
    /// Its last recorded call, and whether it was still inside it.
    pub last_call: Option<(String, bool)>,
}

impl Stuck {
    /// "rank 0 (pid 42) died inside MPI_Get; rank 1 waits in MPI_Finalize, rank 2 in
    /// MPI_Win_fence", or None when no rank died.
    pub fn death_summary(&self) -> Option<String> {
        if self.died.is_empty() {
            return None;
        }
        let died: Vec<String> = self
            .died
            .iter()
            .map(|d| {
                let who = match d.rank {
                    Some(rank) => format!("rank {rank} (pid {})", d.pid),
                    None => format!("the process {}", d.pid),
                };
                let how = if d.exited {
                    "exited without finalizing MPI"
                } else {
                    "died"
                };
                match &d.last_call {
                    Some((call, true)) => format!("{who} {how} inside {call}"),
                    Some((call, false)) => format!("{who} {how} after {call}"),
                    None => format!("{who} {how}"),
                }
            })
            .collect();
        let mut waiting: Vec<String> = Vec::new();
        for (rank, calls) in &self.waiting {
            let calls = if calls.is_empty() {
                "MPI".to_string()
            } else {
                calls.join(" and ")
            };
            waiting.push(if waiting.is_empty() {
                format!("rank {rank} waits in {calls}")
            } else {
                format!("rank {rank} in {calls}")
            });
        }
        let mut summary = died.join(", ");
        if !waiting.is_empty() {
            summary.push_str("; ");
            summary.push_str(&waiting.join(", "));
        }
        Some(summary)
    }
}

/// Tails every trace of an output directory.
pub struct Watcher {
    dir: PathBuf,
    ranks: u32,
    timeout: Duration,
    traces: BTreeMap<PathBuf, TailedTrace>,
    /// Paths that are not regular files: never looked at again.
    rejected: BTreeSet<PathBuf>,
    /// Since when the watcher has been looking (a job that never records anything is no
    /// deadlock), or was told to start over.
    since: Instant,
}

impl Watcher {
    pub fn new(dir: &Path, ranks: u32, timeout: Duration) -> Watcher {
        Watcher {
            dir: dir.to_path_buf(),
            ranks,
            timeout,
            traces: BTreeMap::new(),
            rejected: BTreeSet::new(),
            since: Instant::now(),
        }
    }

    /// How far the watcher has read each trace (whole records), and how far its writer had
    /// reserved it at the last look (0 before a header was read).
    pub fn read_to(&self) -> impl Iterator<Item = (&Path, u64, u64)> {
        self.traces.iter().map(|(path, trace)| {
            let written = trace.header.as_ref().map_or(0, |h| h.records_end);
            (path.as_path(), trace.cursor, written)
        })
    }

    /// Looks at every trace once. Returns `Some` when the job is stuck: every rank blocked
    /// or finished, at least one blocked, and no progress for the timeout.
    pub fn poll(&mut self) -> Option<Stuck> {
        let now = Instant::now();
        // Only this run's traces (listed in the run marker): a stray trace of a finished
        // process must not count as a rank.
        if let Ok(paths) = out_dir::run_traces(&self.dir) {
            for path in paths {
                if self.traces.contains_key(&path) || self.rejected.contains(&path) {
                    continue;
                }
                match TailedTrace::open(&path) {
                    Some(trace) => {
                        self.traces.insert(path, trace);
                    }
                    None => {
                        self.rejected.insert(path);
                    }
                }
            }
        }
        for trace in self.traces.values_mut() {
            trace.poll(now);
        }
        if now.duration_since(self.since) < self.timeout {
            return None;
        }
        let initialized = self
            .traces
            .values()
            .filter(|t| t.header.as_ref().is_some_and(|h| h.initialized()))
            .count() as u32;
        let mut blocked = 0;
        let mut finished = 0;
        let mut polling = Vec::new();
        let mut died = Vec::new();
        let mut waiting = Vec::new();
        for trace in self.traces.values() {
            let Some(header) = &trace.header else {
                continue; // not a trace (yet): nothing that can make progress
            };
            // A process that has not initialized MPI may be a rank on its way, until every
            // rank has initialized: then it is a child of one.
            if !header.initialized() && initialized >= self.ranks {
                continue;
            }
            if now.duration_since(trace.progress_at) < self.timeout {
                return None;
            }
            if trace.finished() {
                finished += 1;
                died.extend(trace.death());
                continue;
            }
            if !header.initialized() {
                return None;
            }
            let threads = trace.blocked(now, self.timeout)?;
            blocked += 1;
            let rank = header.best_rank().unwrap_or(-1);
            polling.extend(threads.into_iter().map(|t| (rank, t)));
            waiting.push((rank, trace.waiting_in()));
        }
        waiting.sort();
        // Every rank ended, one of them without finalizing MPI, and the launcher is still
        // there: it hangs in its own teardown (seen with Open MPI's mpiexec after
        // MPI_Abort, its ranks left as zombies), and nothing else will end it.
        let ended_after_a_death = blocked == 0 && !died.is_empty();
        ((blocked > 0 || ended_after_a_death) && blocked + finished >= self.ranks).then_some(
            Stuck {
                polling,
                died,
                waiting,
            },
        )
    }

    /// Starts the timeout again (after a stuck state the analyzer did not call a deadlock).
    pub fn reset(&mut self) {
        let now = Instant::now();
        self.since = now;
        for trace in self.traces.values_mut() {
            trace.progress_at = now;
            for thread in trace.threads.values_mut() {
                thread.progress_at = now;
                thread.polling = PollSamples::default();
                thread.polls_before_last = 0;
            }
        }
    }

    /// The pids of the ranks' processes, to end them.
    pub fn pids(&self) -> Vec<u32> {
        self.traces
            .values()
            .filter_map(|t| t.header.as_ref().map(|h| h.pid))
            .collect()
    }

    /// How long nothing has moved: since the last progress of any thread.
    pub fn stuck_for(&self) -> Duration {
        self.last_progress().elapsed()
    }

    /// When a thread of the job last made progress (or the watch started over).
    pub fn last_progress(&self) -> Instant {
        self.traces
            .values()
            .flat_map(|t| {
                std::iter::once(t.progress_at).chain(t.threads.values().map(|w| w.progress_at))
            })
            .max()
            .unwrap_or(self.since)
            .max(self.since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_death_summary_names_the_dead_and_what_the_others_wait_in() {
        let mut stuck = Stuck {
            polling: vec![(2, 0)],
            died: Vec::new(),
            waiting: vec![
                (1, vec!["MPI_Finalize".into()]),
                (2, vec!["MPI_Test".into(), "MPI_Recv".into()]),
            ],
        };
        assert_eq!(stuck.death_summary(), None);
        stuck.died = vec![
            DeadRank {
                rank: Some(0),
                pid: 42,
                exited: false,
                last_call: Some(("MPI_Get".into(), true)),
            },
            DeadRank {
                rank: Some(3),
                pid: 43,
                exited: true,
                last_call: Some(("MPI_Send".into(), false)),
            },
        ];
        assert_eq!(
            stuck.death_summary().unwrap(),
            "rank 0 (pid 42) died inside MPI_Get, rank 3 (pid 43) exited without finalizing MPI after MPI_Send; \
             rank 1 waits in MPI_Finalize, rank 2 in MPI_Test and MPI_Recv"
        );
    }
}
