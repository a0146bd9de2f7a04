//! Holding the job back while the analysis that follows it catches up: the analysis releases
//! only what it has read, so a job that writes its traces faster than they are analyzed
//! would fill the disk all the same. When the bytes of a trace not yet released pass a
//! bound, the ranks on this machine are stopped (`SIGSTOP`) until the analysis, which then
//! has their CPUs (an idle thread too), has released most of them, and continued
//! (`SIGCONT`). The job only waits; it never runs wrong. If the analysis releases nothing
//! for [`NO_PROGRESS`] while the job waits (its reader waits for a record a stopped rank has
//! not finished), the job goes on and is not held back again.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::online::{debug, Online};
use crate::run::PausedRanks;

/// How long the job may wait without the analysis releasing anything.
const NO_PROGRESS: Duration = Duration::from_secs(10);
/// How long the job waits at most at a time (ranks on other machines, not stopped, may keep
/// the backlog up however fast the analysis releases).
const LONGEST_HOLD: Duration = Duration::from_secs(30);
/// Slack above the release size before the job waits, and below which it goes on, so that
/// it is not stopped and continued at every look.
const HOLD_SLACK: u64 = 16 << 20;

/// Whether and how long the job was held back; see the module docs.
pub struct HoldBack {
    /// The job waits once a trace has this many bytes not released...
    hold_above: u64,
    /// ...until none has more than this.
    go_on_below: u64,
    held: Option<Held>,
    given_up: bool,
    /// How often, and for how long in all, the job waited.
    holds: u32,
    held_for: Duration,
}

/// The job's local ranks, stopped (continued when this is dropped), since when, and how
/// the analysis went meanwhile.
struct Held {
    _paused: PausedRanks,
    since: Instant,
    /// The bytes released of all traces, and when that last grew.
    released: u64,
    progress_at: Instant,
}

impl HoldBack {
    /// For an analysis that releases what it read past `release_after` bytes of a trace.
    pub fn new(release_after: u64) -> HoldBack {
        HoldBack {
            hold_above: release_after.saturating_mul(2).saturating_add(HOLD_SLACK),
            go_on_below: release_after.saturating_add(HOLD_SLACK / 2),
            held: None,
            given_up: false,
            holds: 0,
            held_for: Duration::ZERO,
        }
    }

    /// Looks at the analysis's backlog and stops or continues the ranks (`pids` of this
    /// run, in `out_dir`); true while the job waits (its lack of progress is no stall).
    pub fn look(
        &mut self,
        online: &Online,
        pids: impl FnOnce() -> Vec<u32>,
        out_dir: &Path,
    ) -> bool {
        let Some((backlog, released)) = online.backlog() else {
            self.go_on();
            return false;
        };
        match &mut self.held {
            Some(held) => {
                if released > held.released {
                    (held.released, held.progress_at) = (released, Instant::now());
                }
                if backlog <= self.go_on_below || held.since.elapsed() >= LONGEST_HOLD {
                    debug(&format!(
                        "the job goes on: {} MiB of a trace not yet released",
                        backlog >> 20
                    ));
                    self.go_on();
                } else if held.progress_at.elapsed() >= NO_PROGRESS {
                    debug("the analysis released nothing while the job waited: the job goes on, and is not held back again");
                    self.given_up = true;
                    self.go_on();
                }
            }
            None if !self.given_up && backlog > self.hold_above => {
                let pids = pids();
                if pids.is_empty() {
                    // (No rank runs here: nothing to hold back.)
                    return false;
                }
                debug(&format!(
                    "the job waits for the analysis: {} MiB of a trace not yet released",
                    backlog >> 20
                ));
                self.holds += 1;
                self.held = Some(Held {
                    _paused: PausedRanks::pause(&pids, out_dir),
                    since: Instant::now(),
                    released,
                    progress_at: Instant::now(),
                });
            }
            None => {}
        }
        self.held.is_some()
    }

    /// Continues the ranks if they wait (before the job is ended, or when it is over).
    pub fn go_on(&mut self) {
        if let Some(held) = self.held.take() {
            self.held_for += held.since.elapsed();
        }
    }

    /// What the user is told once the job is over, if it waited.
    pub fn summary(&self) -> Option<String> {
        (self.holds > 0).then(|| {
            format!(
                "the job waited {:.1} s in all ({} times) for the analysis that follows it to catch up and release the traces it read (--keep-traces lets it run at full speed, keeping every trace whole)",
                self.held_for.as_secs_f64(),
                self.holds
            )
        })
    }
}
