//! TH006: threads started while MPI provides only `MPI_THREAD_SINGLE`, even threads that
//! make no MPI call (those that do are TH001's).
//!
//! Followed as the calls come ([`Watch`]): the threads that called MPI, and the parallel
//! regions of several threads in which no thread did (known as each region ends: each is a
//! finding under `MPI_THREAD_SINGLE`, kept by region until the rank's end gives its site);
//! the thread starts are read at the rank's end.

use rustc_hash::FxHashSet;

use super::stream::{Call, Ended};
use super::{Findings, SiteRole};
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ThreadLevel;
#[cfg(test)]
use {
    super::{always_allowed, RankThreads},
    crate::model::Op,
    std::collections::HashSet,
};

pub const TH006: CheckInfo = CheckInfo {
    code: "TH006",
    name: "threads-under-thread-single",
    category: Category::ThreadSafety,
    severity: Severity::Warning,
    summary: "the program starts threads (pthread_create, an OpenMP parallel region of more than one thread) while MPI provides only MPI_THREAD_SINGLE",
    docs: r#"## What it does

Reports each place where the program's own code starts threads while MPI is initialized
and the thread level provided is `MPI_THREAD_SINGLE` (what plain `MPI_Init` asks for): a
`pthread_create` call in the program, or an OpenMP parallel region that ran with more
than one thread. Threads that call MPI are reported by TH001 instead; this check is about
the threads that make no MPI call at all. Threads started by libraries (a BLAS thread
pool, the MPI library's own progress threads) are not the program's and are not
reported, nor are threads started before `MPI_Init*` or after `MPI_Finalize`.

## Why is this bad

`MPI_THREAD_SINGLE` means that only one thread will execute, not only that one thread
calls MPI: an MPI library initialized at this level may skip all protection against
other threads, for instance in memory hooks or signal handling it installs for the whole
process. Such programs usually work, until an MPI library or a network layer relies on
the promise. `MPI_THREAD_FUNNELED` is the level for "threads, but only the main one calls
MPI", and it costs nothing in most MPI libraries.

## Example

```c
MPI_Init(&argc, &argv);            /* MPI_THREAD_SINGLE */
#pragma omp parallel for           /* several threads run */
for (i = 0; i < n; i++)
    a[i] = f(i);
MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
```

## How to fix

Initialize with `MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided)` (or the
level the threads need) and check `provided`.

## MPI standard reference

MPI 4.1 §11.6.1 (`MPI_THREAD_SINGLE`: "Only one thread will execute"; `MPI_Init` is
`MPI_Init_thread` with `required = MPI_THREAD_SINGLE`).
"#,
};

const NOTE: &str =
    "the thread level provided is MPI_THREAD_SINGLE; MPI 4.1 §11.6.1: only one thread will execute";
const HELP: &str = "initialize MPI with MPI_Init_thread requesting MPI_THREAD_FUNNELED (or the level the threads need) and check `provided`";

/// What TH006 keeps of one rank's calls (none that MPI allows at any time).
#[derive(Default)]
pub(super) struct Watch {
    /// The threads that called MPI.
    mpi_threads: FxHashSet<u16>,
    /// The thread of the last call (in `mpi_threads`).
    last: Option<u16>,
    /// Parallel regions of several threads with no MPI call in them (under
    /// `MPI_THREAD_SINGLE`: each is a finding, if MPI was initialized).
    quiet_regions: Vec<u32>,
}

impl Watch {
    pub fn call(&mut self, call: &Call) {
        if self.last != Some(call.thread) {
            self.mpi_threads.insert(call.thread);
            self.last = Some(call.thread);
        }
    }

    /// Whether `thread` is the thread of the last call noted ([`Watch::call`] of its calls
    /// changes nothing).
    pub fn noted(&self, thread: u16) -> bool {
        self.last == Some(thread)
    }

    /// How many threads and regions it holds.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.mpi_threads.len() + self.quiet_regions.len()
    }

    /// Region `region` of several threads ended with no MPI call in it.
    pub fn region_without_calls(&mut self, region: u32) {
        self.quiet_regions.push(region);
    }

    /// The findings, once the rank ended.
    pub fn finish(self, ended: &Ended, out: &mut Findings) {
        let (Some(ThreadLevel::Single), Some(init), Some(threads)) =
            (ended.level, ended.init, ended.threads)
        else {
            return;
        };
        let initialized = |order: u64| order > init.order && order < ended.finalize_order;
        let init_role = SiteRole {
            site: init.site,
            call: init.call,
            label: crate::text!(
                "thread {}: initializes MPI with MPI_THREAD_SINGLE",
                init.thread
            ),
        };
        for start in &threads.thread_starts {
            // A started thread that calls MPI is TH001's finding.
            if !initialized(start.order)
                || start.started.is_some_and(|s| self.mpi_threads.contains(&s))
            {
                continue;
            }
            out.add_at_sites(
                "TH006",
                Severity::Warning,
                ended.rank,
                format!(
                    "pthread_create starts a thread while MPI provides only MPI_THREAD_SINGLE{}",
                    ended.init_hint()
                ),
                vec![
                    SiteRole {
                        site: start.site,
                        call: "pthread_create",
                        label: crate::text!("thread {}: starts a thread", start.by),
                    },
                    init_role.clone(),
                ],
                NOTE,
                HELP,
            );
        }
        for &index in &self.quiet_regions {
            let Some(region) = threads.parallel_regions.get(index as usize) else {
                continue;
            };
            if region.threads < 2 || !initialized(region.begin_order) {
                continue;
            }
            out.add_at_sites(
                "TH006",
                Severity::Warning,
                ended.rank,
                format!(
                    "an OpenMP parallel region runs {} threads while MPI provides only MPI_THREAD_SINGLE{}",
                    region.threads,
                    ended.init_hint()
                ),
                vec![
                    SiteRole {
                        site: region.site,
                        call: "#pragma omp parallel",
                        label: crate::text!(
                            "thread {}: starts a parallel region of {} threads",
                            region.thread,
                            region.threads.to_string()
                        ),
                    },
                    init_role.clone(),
                ],
                NOTE,
                HELP,
            );
        }
    }
}

/// The whole-rank form of the check, the reference the pass ([`Watch`]) is tested against.
#[cfg(test)]
pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    if t.level() != Some(ThreadLevel::Single) {
        return;
    }
    let Some(init) = t.init.map(|i| t.event(i)) else {
        return;
    };
    let events = &t.rank.events;
    let init_order = init.time.map_or(u64::MAX, |time| time.order);
    let finalize_order = events
        .iter()
        .filter(|e| matches!(e.op, Op::Finalize))
        .find_map(|e| e.time.map(|time| time.order))
        .unwrap_or(u64::MAX);
    let initialized = |order: u64| order > init_order && order < finalize_order;
    // The record orders of MPI calls (sorted: events are in record order), and the
    // threads that made one.
    let mpi_calls: Vec<u64> = events
        .iter()
        .filter(|e| !always_allowed(e.call))
        .filter_map(|e| e.time.map(|time| time.order))
        .collect();
    let mpi_threads: HashSet<u16> = events
        .iter()
        .filter(|e| !always_allowed(e.call))
        .map(|e| e.thread)
        .collect();
    let note = "the thread level provided is MPI_THREAD_SINGLE; MPI 4.1 §11.6.1: only one thread will execute";
    let help = "initialize MPI with MPI_Init_thread requesting MPI_THREAD_FUNNELED (or the level the threads need) and check `provided`";
    let init_role = SiteRole {
        site: init.site,
        call: init.call,
        label: crate::text!(
            "thread {}: initializes MPI with MPI_THREAD_SINGLE",
            init.thread
        ),
    };
    for start in &t.rank.threads.thread_starts {
        // A started thread that calls MPI is TH001's finding.
        if !initialized(start.order) || start.started.is_some_and(|s| mpi_threads.contains(&s)) {
            continue;
        }
        out.add_at_sites(
            "TH006",
            Severity::Warning,
            t.rank.rank,
            format!(
                "pthread_create starts a thread while MPI provides only MPI_THREAD_SINGLE{}",
                t.init_hint()
            ),
            vec![
                SiteRole {
                    site: start.site,
                    call: "pthread_create",
                    label: crate::text!("thread {}: starts a thread", start.by),
                },
                init_role.clone(),
            ],
            note,
            help,
        );
    }
    for region in &t.rank.threads.parallel_regions {
        if region.threads < 2 || !initialized(region.begin_order) {
            continue;
        }
        // MPI calls inside the region are TH001's finding.
        let first_after = mpi_calls.partition_point(|&order| order <= region.begin_order);
        if mpi_calls
            .get(first_after)
            .is_some_and(|&order| order < region.end_order)
        {
            continue;
        }
        out.add_at_sites(
            "TH006",
            Severity::Warning,
            t.rank.rank,
            format!(
                "an OpenMP parallel region runs {} threads while MPI provides only MPI_THREAD_SINGLE{}",
                region.threads,
                t.init_hint()
            ),
            vec![
                SiteRole {
                    site: region.site,
                    call: "#pragma omp parallel",
                    label: crate::text!(
                        "thread {}: starts a parallel region of {} threads",
                        region.thread,
                        region.threads.to_string()
                    ),
                },
                init_role.clone(),
            ],
            note,
            help,
        );
    }
}
