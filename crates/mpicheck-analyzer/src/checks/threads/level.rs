//! TH001: MPI called from threads beyond what the provided thread level allows.
//!
//! Followed as the calls come ([`Watch`]), keeping only what the rank's thread level, once
//! known, needs: the threads, sites and functions of the calls (under
//! `MPI_THREAD_SINGLE` and `FUNNELED`, those of other threads than the main one are
//! findings); the sites and functions of the calls of a parallel region's thread in it
//! (`SINGLE`) or of a thread in its worksharing blocks (`FUNNELED`), folded as the region or
//! block ends; and under `MPI_THREAD_SERIALIZED` the pairs of conflicting calls, every call
//! of the rank being one group of [`super::concurrent`] (the calls some thread may still be
//! concurrent with). A block's team is known only at the rank's end: under `FUNNELED` the
//! calls in each block are kept by block until then (each a finding if the team had
//! several threads), so they grow with the blocks in which the main thread calls MPI.

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;

use super::concurrent::{pair, Group, Use};
use super::stream::{Call, Ended, OpenBlock, OpenRegion};
#[cfg(test)]
use super::{always_allowed, on_thread, RankThreads, Role};
use super::{on_thread_id, severity, Findings, SiteRole, When};
use crate::checks::pass::ByAddress;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{SiteId, ThreadLevel};
use crate::threads::ThreadClocks;

pub const TH001: CheckInfo = CheckInfo {
    code: "TH001",
    name: "thread-level-violated",
    category: Category::ThreadSafety,
    severity: Severity::Error,
    summary:
        "more threads call MPI, or more of them at once, than the thread level provided allows",
    docs: r#"## What it does

Compares the threads that call MPI with the thread level `MPI_Init_thread` provided (as
`MPI_Query_thread` reports it; plain `MPI_Init` usually provides `MPI_THREAD_SINGLE`):

- `MPI_THREAD_SINGLE`: an MPI call from a second thread, or from the main thread while an
  OpenMP parallel region with more than one thread runs;
- `MPI_THREAD_FUNNELED`: an MPI call from a thread other than the one that initialized MPI,
  or, as a possible violation (a warning), an MPI call of the main thread inside an
  `omp single` block or an `omp section` of a team of several threads: another thread
  could execute the block in another run (`omp master` and `omp masked` blocks are fine);
- `MPI_THREAD_SERIALIZED`: two threads inside MPI at the same time, or two calls of
  different threads that no synchronization orders (barrier, critical section, lock, mutex,
  thread join), so another run can make them overlap.

Both call sites are reported. Calls any thread may make at any time (`MPI_Initialized`,
`MPI_Query_thread`, `MPI_Is_thread_main`, `MPI_Wtime`, ...) are ignored.

## Why is this bad

An MPI library initialized for a lower level does not protect its state against
concurrent calls: messages are lost or corrupted, the library crashes or hangs, rarely and
depending on timing.

## Example

```c
int provided;
MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 1)
        MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* not the main thread */
}
```

## How to fix

Call MPI only from the main thread (`#pragma omp master`), serialize the calls
(`#pragma omp critical` around them), or request `MPI_THREAD_MULTIPLE` with
`MPI_Init_thread` and check `provided`.

## MPI standard reference

MPI 4.1 §11.6.1 (Thread levels: `MPI_THREAD_SINGLE`, `FUNNELED`, `SERIALIZED`,
`MPI_Init_thread`, "the main thread").
"#,
};

/// A call as TH001's findings name it: thread, site and function.
type Caller = (u16, u32, &'static str);

/// What TH001 keeps of one rank's calls (none that MPI allows at any time).
#[derive(Default)]
pub(super) struct Watch {
    /// The calls' threads, sites and functions (not the main thread's once `MPI_Init*`
    /// came: they are no finding).
    callers: BTreeSet<Caller>,
    /// The callers already in `callers`, by thread and site (one word) and the address of
    /// their function's name: most calls are from a known caller, and this finds them
    /// without comparing names (the same name at another address is still folded by
    /// `callers`).
    known_callers: FxHashSet<CallerKey>,
    /// Some of `known_callers`: most calls find their caller there.
    recent_callers: RecentCallers,
    /// `MPI_THREAD_SINGLE`: the calls of a region's thread in a region of several threads,
    /// with the threads that ran in it.
    in_regions: BTreeSet<(u32, Caller)>,
    /// `MPI_THREAD_FUNNELED`: the calls a thread made in each of its worksharing blocks
    /// (block, site, function), for those of the main thread in blocks of several threads.
    in_blocks: BTreeSet<(u32, u32, &'static str)>,
    /// `MPI_THREAD_SERIALIZED`: the calls that can still pair with a later one.
    serialized: Group,
    /// While one thread ran, its last call (see [`super::concurrent`]).
    single_last: Option<Use>,
    /// Conflicting pairs: how, the later call, the earlier one.
    pairs: BTreeSet<(When, Caller, Caller)>,
}

/// A caller as a key: its thread and site in one word, and its function.
type CallerKey = (u64, ByAddress);

/// A few callers (thread and site, and function), each at the place its key gives it: the
/// same few callers come over and over, found here without hashing into a set.
#[derive(Default)]
struct RecentCallers {
    places: Option<Box<[Option<CallerKey>; 64]>>,
}

impl RecentCallers {
    /// Whether `caller` is at its place; it is put there either way.
    fn again(&mut self, caller: CallerKey) -> bool {
        let places = self.places.get_or_insert_with(|| Box::new([None; 64]));
        let (thread_site, name) = caller;
        let mixed =
            (thread_site ^ (name.0.as_ptr() as u64 >> 3)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let place = &mut places[(mixed >> 58) as usize];
        if *place == Some(caller) {
            return true;
        }
        *place = Some(caller);
        false
    }
}

impl Watch {
    /// The next call of the rank; `callers`, `serialized`: what the level may need.
    pub fn call(
        &mut self,
        index: usize,
        call: &Call,
        clocks: &ThreadClocks,
        latest_enter: u64,
        callers: bool,
        serialized: bool,
    ) {
        let caller = (call.thread, call.site.0, call.call);
        if callers {
            let key = (
                u64::from(call.thread) << 32 | u64::from(call.site.0),
                ByAddress(call.call),
            );
            if !self.recent_callers.again(key) && self.known_callers.insert(key) {
                self.callers.insert(caller);
            }
        }
        let Some(time) = call.time.filter(|_| serialized) else {
            return;
        };
        let used = Use {
            index,
            thread: call.thread,
            slot: call.slot,
            site: call.site,
            call: call.call,
            enter: time.enter_ns,
            exit: time.exit_ns,
            epoch: call.epoch,
        };
        if clocks.single() {
            self.single_last = Some(used);
            return;
        }
        if let Some(last) = self.single_last.take() {
            // Threads start: the one thread's last call may still be inside MPI.
            self.serialized.push_live(last);
        }
        for (earlier, when) in pair(&mut self.serialized, used, clocks, latest_enter) {
            let earlier = (earlier.thread, earlier.site.0, earlier.call);
            self.pairs.insert((when, caller, earlier));
        }
    }

    /// A parallel region of several threads ended.
    pub fn close_region(&mut self, region: OpenRegion, threads: u32) {
        for (site, call) in region.calls {
            self.in_regions
                .insert((threads, (region.thread, site, call)));
        }
    }

    /// A worksharing block ended.
    pub fn close_block(&mut self, block: OpenBlock) {
        for (site, call) in block.calls {
            self.in_blocks.insert((block.block, site, call));
        }
    }

    /// How many calls (or calls folded by site) it holds.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.callers.len()
            + self.in_regions.len()
            + self.in_blocks.len()
            + self.pairs.len()
            + self.serialized.calls_held()
            + usize::from(self.single_last.is_some())
    }

    /// The findings, once the rank ended.
    pub fn finish(self, ended: &Ended, out: &mut Findings) {
        let Some(level) = ended.level else {
            return;
        };
        let (main, rank, init_hint) = (ended.main, ended.rank, ended.init_hint());
        let note = note(level);
        let help = help(level);
        let init_site = |label: crate::text::Text| {
            ended.init.map(|init| SiteRole {
                site: init.site,
                call: init.call,
                label,
            })
        };
        let at = |(thread, site, call): Caller, label| SiteRole {
            site: SiteId(site),
            call,
            label: on_thread_id(thread, label),
        };
        match level {
            ThreadLevel::Single | ThreadLevel::Funneled => {
                for caller in self.callers.into_iter().filter(|c| c.0 != main) {
                    let (thread, _, call) = caller;
                    let mut sites = vec![at(caller, format!("calls {call}"))];
                    sites.extend(init_site(
                        format!("thread {main}: initializes MPI with {}", level.name()).into(),
                    ));
                    out.add_at_sites(
                        "TH001",
                        Severity::Error,
                        rank,
                        format!(
                            "{call} is called from thread {thread}, not the main thread, under {}{init_hint}",
                            level.name()
                        ),
                        sites,
                        &note,
                        help,
                    );
                }
            }
            ThreadLevel::Serialized => {
                for (when, later, earlier) in self.pairs {
                    if when == When::Possible && !ended.possible {
                        continue;
                    }
                    out.add_at_sites(
                        "TH001",
                        severity(when),
                        rank,
                        format!(
                            "{} and {} of two threads {} under MPI_THREAD_SERIALIZED",
                            later.2,
                            earlier.2,
                            super::when_text(when)
                        ),
                        vec![
                            at(later, format!("calls {}", later.2)),
                            at(earlier, format!("calls {}", earlier.2)),
                        ],
                        &note,
                        help,
                    );
                }
            }
            ThreadLevel::Multiple => {}
        }
        if level == ThreadLevel::Single {
            for (threads, caller) in self.in_regions {
                let call = caller.2;
                let mut sites = vec![at(
                    caller,
                    format!("calls {call} inside a parallel region of {threads} threads"),
                )];
                sites.extend(init_site(crate::text!(
                    "thread {}: initializes MPI with MPI_THREAD_SINGLE",
                    main
                )));
                out.add_at_sites(
                    "TH001",
                    Severity::Error,
                    rank,
                    format!(
                        "{call} called while {threads} threads run under MPI_THREAD_SINGLE{init_hint}"
                    ),
                    sites,
                    &note,
                    "call MPI outside parallel regions, or initialize with MPI_Init_thread requesting MPI_THREAD_FUNNELED or higher and check `provided`",
                );
            }
        }
        if level == ThreadLevel::Funneled {
            let blocks = ended.threads.map_or(&[][..], |t| t.workshares.as_slice());
            for (block, site, call) in self.in_blocks {
                let Some(block) = blocks
                    .get(block as usize)
                    .filter(|b| b.thread == main && b.team >= 2)
                else {
                    continue;
                };
                let construct = block.construct.pragma();
                let mut sites = vec![at(
                    (main, site, call),
                    format!(
                        "calls {call} in a `{construct}` block that any of the team's {} threads can execute",
                        block.team
                    ),
                )];
                sites.extend(init_site(crate::text!(
                    "thread {}: initializes MPI with MPI_THREAD_FUNNELED",
                    main
                )));
                out.add_at_sites(
                    "TH001",
                    Severity::Warning,
                    rank,
                    format!(
                        "{call} in a `{construct}` block can be called from a thread other than the main one under MPI_THREAD_FUNNELED (the main thread executed the block in this run)"
                    ),
                    sites,
                    &note,
                    help,
                );
            }
        }
    }
}

/// What the standard says of `level`, for the notes.
fn note(level: ThreadLevel) -> String {
    format!(
        "the thread level provided is {}; MPI 4.1 §11.6.1: {}",
        level.name(),
        match level {
            ThreadLevel::Single => "only one thread will execute",
            ThreadLevel::Funneled => "only the main thread will make MPI calls",
            ThreadLevel::Serialized =>
                "multiple threads may make MPI calls, but only one at a time",
            ThreadLevel::Multiple => "",
        }
    )
}

fn help(level: ThreadLevel) -> &'static str {
    match level {
        ThreadLevel::Single | ThreadLevel::Funneled => {
            "call MPI only from the main thread (e.g. `#pragma omp master`), or initialize with MPI_Init_thread requesting the level the program needs and check `provided`"
        }
        _ => {
            "serialize the threads' MPI calls (a critical section or lock around them), or request MPI_THREAD_MULTIPLE with MPI_Init_thread and check `provided`"
        }
    }
}

/// The whole-rank form of the check, the reference the pass ([`Watch`]) is tested against.
#[cfg(test)]
pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    let Some(level) = t.level() else {
        return;
    };
    let init_hint = t.init_hint();
    let help = match level {
        ThreadLevel::Single | ThreadLevel::Funneled => {
            "call MPI only from the main thread (e.g. `#pragma omp master`), or initialize with MPI_Init_thread requesting the level the program needs and check `provided`"
        }
        _ => {
            "serialize the threads' MPI calls (a critical section or lock around them), or request MPI_THREAD_MULTIPLE with MPI_Init_thread and check `provided`"
        }
    };
    let note = format!(
        "the thread level provided is {}; MPI 4.1 §11.6.1: {}",
        level.name(),
        match level {
            ThreadLevel::Single => "only one thread will execute",
            ThreadLevel::Funneled => "only the main thread will make MPI calls",
            ThreadLevel::Serialized =>
                "multiple threads may make MPI calls, but only one at a time",
            ThreadLevel::Multiple => "",
        }
    );
    let init_role = |label: String| {
        t.init.map(|i| Role {
            event: t.event(i),
            label: label.into(),
        })
    };
    let events = &t.rank.events;
    match level {
        ThreadLevel::Single | ThreadLevel::Funneled => {
            for e in events {
                if e.thread == t.main || always_allowed(e.call) {
                    continue;
                }
                let mut roles = vec![Role {
                    event: e,
                    label: on_thread(e, format!("calls {}", e.call)),
                }];
                roles.extend(init_role(format!(
                    "thread {}: initializes MPI with {}",
                    t.main,
                    level.name()
                )));
                out.add(
                    "TH001",
                    Severity::Error,
                    t.rank.rank,
                    format!(
                        "{} is called from thread {}, not the main thread, under {}{init_hint}",
                        e.call,
                        e.thread,
                        level.name()
                    ),
                    roles,
                    &note,
                    help,
                );
            }
            if level == ThreadLevel::Single {
                single_in_parallel(t, out, &note, init_hint);
            } else {
                funneled_workshare(t, out, &note, help);
            }
        }
        ThreadLevel::Serialized => {
            let calls: Vec<usize> = (0..events.len())
                .filter(|&i| !always_allowed(events[i].call))
                .collect();
            t.report_conflicts(
                &calls,
                out,
                "TH001",
                |later, earlier, when| {
                    format!(
                        "{} and {} of two threads {when} under MPI_THREAD_SERIALIZED",
                        later.call, earlier.call
                    )
                },
                |call| format!("calls {}", call.call),
                &note,
                help,
            );
        }
        ThreadLevel::Multiple => {}
    }
}

/// `MPI_THREAD_SINGLE`: the main thread calls MPI inside a parallel region of several
/// threads (the other threads exist, even if they do not call MPI).
#[cfg(test)]
fn single_in_parallel(t: &RankThreads, out: &mut Findings, note: &str, init_hint: &str) {
    for region in &t.rank.threads.parallel_regions {
        if region.threads < 2 {
            continue;
        }
        for e in &t.rank.events {
            let Some(time) = e.time else { continue };
            if e.thread != region.thread
                || always_allowed(e.call)
                || time.order < region.begin_order
                || time.order > region.end_order
            {
                continue;
            }
            let mut roles = vec![Role {
                event: e,
                label: on_thread(
                    e,
                    format!(
                        "calls {} inside a parallel region of {} threads",
                        e.call, region.threads
                    ),
                ),
            }];
            if let Some(i) = t.init {
                roles.push(Role {
                    event: t.event(i),
                    label: crate::text!(
                        "thread {}: initializes MPI with MPI_THREAD_SINGLE",
                        t.main
                    ),
                });
            }
            out.add(
                "TH001",
                Severity::Error,
                t.rank.rank,
                format!(
                    "{} called while {} threads run under MPI_THREAD_SINGLE{init_hint}",
                    e.call, region.threads
                ),
                roles,
                note,
                "call MPI outside parallel regions, or initialize with MPI_Init_thread requesting MPI_THREAD_FUNNELED or higher and check `provided`",
            );
        }
    }
}

/// `MPI_THREAD_FUNNELED`: the main thread called MPI inside a `single` block or a section of
/// a team of several threads, which another thread can execute in another run.
#[cfg(test)]
fn funneled_workshare(t: &RankThreads, out: &mut Findings, note: &str, help: &str) {
    if t.rank.threads.workshares.is_empty() {
        return;
    }
    for e in &t.rank.events {
        if always_allowed(e.call) {
            continue;
        }
        let Some(block) = t.main_thread_workshare(e) else {
            continue;
        };
        let construct = block.construct.pragma();
        // The construct itself has no line of its own in GCC's line table (its runtime call
        // is put on the previous statement's line): the call, in the block, stands for it.
        let mut sites = vec![SiteRole {
            site: e.site,
            call: e.call,
            label: on_thread(
                e,
                format!(
                    "calls {} in a `{construct}` block that any of the team's {} threads can execute",
                    e.call, block.team
                ),
            ),
        }];
        if let Some(i) = t.init {
            sites.push(SiteRole {
                site: t.event(i).site,
                call: t.event(i).call,
                label: crate::text!(
                    "thread {}: initializes MPI with MPI_THREAD_FUNNELED",
                    t.main
                ),
            });
        }
        out.add_at_sites(
            "TH001",
            Severity::Warning,
            t.rank.rank,
            format!(
                "{} in a `{construct}` block can be called from a thread other than the main one under MPI_THREAD_FUNNELED (the main thread executed the block in this run)",
                e.call
            ),
            sites,
            note,
            help,
        );
    }
}
