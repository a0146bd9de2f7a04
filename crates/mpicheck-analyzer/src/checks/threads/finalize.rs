//! TH002: `MPI_Finalize` on the wrong thread, while another thread is in MPI, or followed by
//! MPI calls.
//!
//! Followed as the calls come ([`Watch`]): until `MPI_Finalize`, each thread's last call and
//! its older calls folded by call site with their latest epoch (a call `MPI_Finalize` may be
//! unordered with: the latest of a site's calls is the one least likely to happen before
//! it); then `MPI_Finalize` with its entry clock, against which each later call is judged as
//! it comes.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::stream::{Call, Ended};
#[cfg(test)]
use super::{always_allowed, on_thread, RankThreads, Role};
use super::{on_thread_id, Findings, SiteRole, When};
use crate::checks::pass::ByAddress;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{Event, Op, SiteId};

pub const TH002: CheckInfo = CheckInfo {
    code: "TH002",
    name: "finalize-with-threads",
    category: Category::ThreadSafety,
    severity: Severity::Error,
    summary: "MPI_Finalize is called from a thread other than the main one, while another thread is in MPI, or before another thread's MPI calls",
    docs: r#"## What it does

Reports, with both call sites:

- `MPI_Finalize` called from a thread other than the one that initialized MPI, or, as a
  possible violation (a warning), from the main thread inside an `omp single` block or an
  `omp section` of a team of several threads (another thread could execute it);
- another thread inside MPI while `MPI_Finalize` runs, or an MPI call of another thread
  that no synchronization orders before `MPI_Finalize` (it can run during or after it in
  another run);
- an MPI call another thread makes after `MPI_Finalize` returned (the finalizing thread's
  own late calls are `AR010`).

Calls allowed at any time (`MPI_Initialized`, `MPI_Finalized`, `MPI_Get_version`, ...) are
ignored.

## Why is this bad

`MPI_Finalize` tears down the library's state; a call made during or after it uses
freed resources or is rejected, and the program crashes or aborts, depending on timing.

## Example

```c
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 1)
        MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Finalize(); /* thread 1 may still be in MPI_Send */
}
```

## How to fix

Join or synchronize all threads (end the parallel region, `#pragma omp barrier`,
`pthread_join`) and complete their communication, then call `MPI_Finalize` from the main
thread.

## MPI standard reference

MPI 4.1 §11.6.2 (Finalization: "The call to `MPI_FINALIZE` should occur on the same thread
that initialized MPI ... only after all the process threads have completed their MPI calls,
and have no pending communications or I/O operations").
"#,
};

const NOTE: &str = "MPI 4.1 §11.6.2: the call to MPI_FINALIZE should occur on the same thread that initialized MPI, only after all the process threads have completed their MPI calls";
const HELP: &str = "end the threads' MPI use first (join them, end the parallel region or add a barrier), then call MPI_Finalize from the main thread";

/// What TH002 keeps of one rank's calls.
#[derive(Default)]
pub(super) struct Watch {
    /// Until `MPI_Finalize`: by thread slot, the calls it may be unordered with.
    before: Vec<Earlier>,
    /// The first `MPI_Finalize` and its entry clock.
    finalize: Option<(Call, Vec<u32>)>,
    found: BTreeSet<Found>,
}

/// One thread's calls before `MPI_Finalize`.
#[derive(Default)]
struct Earlier {
    /// Its last call: the one that may still be inside MPI.
    last: Option<Call>,
    /// The older ones, by site and function: the latest epoch (inside MPI no more).
    older: FxHashMap<(SiteId, ByAddress), u32>,
}

/// A call of another thread that `MPI_Finalize` conflicts with.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    /// `None`: it was called after `MPI_Finalize` returned.
    when: Option<When>,
    thread: u16,
    site: u32,
    call: &'static str,
}

impl Watch {
    /// The next call of the rank that MPI does not allow at any time
    /// ([`super::always_allowed`]); `clock` is its thread's clock when it entered.
    pub fn call(&mut self, call: &Call, event: &Event, clock: &[u32]) {
        let Some((fin, fin_clock)) = &self.finalize else {
            if matches!(event.op, Op::Finalize) {
                self.finalize_now(*call, clock.to_vec());
            } else {
                if self.before.len() <= call.slot {
                    self.before.resize_with(call.slot + 1, Earlier::default);
                }
                let earlier = &mut self.before[call.slot];
                if let Some(last) = earlier.last.replace(*call) {
                    let epoch = earlier
                        .older
                        .entry((last.site, ByAddress(last.call)))
                        .or_default();
                    *epoch = (*epoch).max(last.epoch);
                }
            }
            return;
        };
        // After MPI_Finalize (in record order).
        let after = match (fin.time.and_then(|t| t.exit_ns), call.time) {
            (Some(exit), Some(time)) => time.enter_ns >= exit,
            _ => call.thread == fin.thread,
        };
        if call.thread == fin.thread {
            return; // its own late calls are AR010's
        }
        let when = if after {
            None
        } else if call.overlaps(fin) {
            Some(When::Occurred)
        } else if !call.before(fin_clock) && !fin.before(clock) {
            Some(When::Possible)
        } else {
            return;
        };
        self.found.insert(Found {
            when,
            thread: call.thread,
            site: call.site.0,
            call: call.call,
        });
    }

    /// How many calls (or calls folded by site) it holds.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        let before: usize = self
            .before
            .iter()
            .map(|e| usize::from(e.last.is_some()) + e.older.len())
            .sum();
        before + self.found.len()
    }

    /// `MPI_Finalize` enters: the calls of other threads before it are judged.
    fn finalize_now(&mut self, fin: Call, clock: Vec<u32>) {
        for earlier in std::mem::take(&mut self.before) {
            let Some(thread) = earlier.last.map(|last| last.thread) else {
                continue;
            };
            if thread == fin.thread {
                continue;
            }
            let mut found = |when, site: SiteId, call| {
                self.found.insert(Found {
                    when,
                    thread,
                    site: site.0,
                    call,
                });
            };
            if let Some(last) = earlier.last {
                let after = match (fin.time.and_then(|t| t.exit_ns), last.time) {
                    (Some(exit), Some(time)) => time.enter_ns >= exit,
                    _ => false,
                };
                if after {
                    found(None, last.site, last.call);
                } else if last.overlaps(&fin) {
                    found(Some(When::Occurred), last.site, last.call);
                } else if !last.before(&clock) {
                    // (MPI_Finalize, recorded later, cannot happen before it.)
                    found(Some(When::Possible), last.site, last.call);
                }
            }
            // Older calls ended before the last one entered, so before MPI_Finalize did.
            let slot_seen = earlier
                .last
                .map_or(0, |last| clock.get(last.slot).copied().unwrap_or(0));
            for ((site, ByAddress(call)), epoch) in earlier.older {
                if epoch > slot_seen {
                    found(Some(When::Possible), site, call);
                }
            }
        }
        self.finalize = Some((fin, clock));
    }

    /// The findings, once the rank ended.
    pub fn finish(self, ended: &Ended, clocks: &crate::threads::ThreadClocks, out: &mut Findings) {
        let Some((fin, _)) = self.finalize else {
            return;
        };
        let rank = ended.rank;
        let fin_role = |label: &str| SiteRole {
            site: fin.site,
            call: fin.call,
            label: on_thread_id(fin.thread, label),
        };
        // (A) the wrong thread, or a block another thread can execute in another run.
        if let Some(block) = ended.main_thread_workshare(&fin) {
            let construct = block.construct.pragma();
            out.add_at_sites(
                "TH002",
                Severity::Warning,
                rank,
                format!(
                    "MPI_Finalize in a `{construct}` block can be called from a thread other than the main one (the main thread executed the block in this run)"
                ),
                vec![fin_role(&format!(
                    "calls MPI_Finalize in a `{construct}` block that any of the team's {} threads can execute",
                    block.team
                ))],
                NOTE,
                "call MPI_Finalize from the main thread outside the parallel region, after the threads' MPI use ends",
            );
        }
        if fin.thread != ended.main {
            let mut sites = vec![fin_role("calls MPI_Finalize")];
            if let Some(init) = ended.init {
                sites.push(SiteRole {
                    site: init.site,
                    call: init.call,
                    label: on_thread_id(init.thread, "initializes MPI"),
                });
            }
            out.add_at_sites(
                "TH002",
                Severity::Error,
                rank,
                format!(
                    "MPI_Finalize called from thread {}, not the main thread {} that initialized MPI",
                    fin.thread, ended.main
                ),
                sites,
                NOTE,
                HELP,
            );
        }
        for found in self.found {
            let other = SiteRole {
                site: SiteId(found.site),
                call: found.call,
                label: on_thread_id(found.thread, format!("calls {}", found.call)),
            };
            let (message, severity, sites) = match found.when {
                None => (
                    format!("{} called after MPI_Finalize returned", found.call),
                    Severity::Error,
                    vec![other, fin_role("finalized MPI before")],
                ),
                Some(When::Occurred) => (
                    format!(
                        "{} of thread {} ran while thread {} was in MPI_Finalize",
                        found.call, found.thread, fin.thread
                    ),
                    Severity::Error,
                    vec![fin_role("calls MPI_Finalize"), other],
                ),
                Some(When::Possible) => {
                    // Both threads' starts must be known, and the synchronization recorded.
                    if !ended.possible || !Ended::known(clocks, found.thread, fin.thread) {
                        continue;
                    }
                    (
                        format!(
                            "{} of thread {} can run during or after MPI_Finalize (no synchronization orders it before)",
                            found.call, found.thread
                        ),
                        Severity::Warning,
                        vec![fin_role("calls MPI_Finalize"), other],
                    )
                }
            };
            out.add_at_sites("TH002", severity, rank, message, sites, NOTE, HELP);
        }
    }
}

/// The whole-rank form of the check, the reference the pass ([`Watch`]) is tested against.
#[cfg(test)]
pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    let events = &t.rank.events;
    let Some(fin) = events.iter().position(|e| matches!(e.op, Op::Finalize)) else {
        return;
    };
    let f = t.event(fin);
    let rank = t.rank.rank;
    let fin_role = |label: &str| Role {
        event: f,
        label: on_thread(f, label),
    };
    // (A) the wrong thread, or a block another thread can execute in another run.
    if let Some(block) = t.main_thread_workshare(f) {
        let construct = block.construct.pragma();
        out.add(
            "TH002",
            Severity::Warning,
            rank,
            format!(
                "MPI_Finalize in a `{construct}` block can be called from a thread other than the main one (the main thread executed the block in this run)"
            ),
            vec![fin_role(&format!(
                "calls MPI_Finalize in a `{construct}` block that any of the team's {} threads can execute",
                block.team
            ))],
            NOTE,
            "call MPI_Finalize from the main thread outside the parallel region, after the threads' MPI use ends",
        );
    }
    if f.thread != t.main {
        let mut roles = vec![fin_role("calls MPI_Finalize")];
        if let Some(i) = t.init {
            roles.push(Role {
                event: t.event(i),
                label: on_thread(t.event(i), "initializes MPI"),
            });
        }
        out.add(
            "TH002",
            Severity::Error,
            rank,
            format!(
                "MPI_Finalize called from thread {}, not the main thread {} that initialized MPI",
                f.thread, t.main
            ),
            roles,
            NOTE,
            HELP,
        );
    }
    let fin_exit = f.time.and_then(|t| t.exit_ns);
    for (i, e) in events.iter().enumerate() {
        if i == fin || always_allowed(e.call) {
            continue;
        }
        // (C) after MPI_Finalize returned.
        let after = match (fin_exit, e.time) {
            (Some(exit), Some(time)) => time.enter_ns >= exit,
            _ => i > fin && e.thread == f.thread,
        };
        // The finalizing thread's own late calls are AR010's, reported once there.
        if after && e.thread != f.thread {
            out.add(
                "TH002",
                Severity::Error,
                rank,
                format!("{} called after MPI_Finalize returned", e.call),
                vec![
                    Role {
                        event: e,
                        label: on_thread(e, format!("calls {}", e.call)),
                    },
                    fin_role("finalized MPI before"),
                ],
                NOTE,
                HELP,
            );
            continue;
        }
        if e.thread == f.thread {
            continue;
        }
        // (B) at the same time as MPI_Finalize, or unordered with it.
        let when = t.conflict(i, fin);
        let Some(when) = when else { continue };
        let (message, severity) = match when {
            When::Occurred => (
                format!(
                    "{} of thread {} ran while thread {} was in MPI_Finalize",
                    e.call, e.thread, f.thread
                ),
                Severity::Error,
            ),
            When::Possible => (
                format!(
                    "{} of thread {} can run during or after MPI_Finalize (no synchronization orders it before)",
                    e.call, e.thread
                ),
                Severity::Warning,
            ),
        };
        out.add(
            "TH002",
            severity,
            rank,
            message,
            vec![
                fin_role("calls MPI_Finalize"),
                Role {
                    event: e,
                    label: on_thread(e, format!("calls {}", e.call)),
                },
            ],
            NOTE,
            HELP,
        );
    }
}
