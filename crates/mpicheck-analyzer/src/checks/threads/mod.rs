//! Rules for programs that call MPI from several threads (MARMOT's checks for hybrid
//! MPI + OpenMP programs, seed 004): the thread level provided (TH001), `MPI_Finalize`
//! (TH002), requests completed by two threads (TH003), probes whose message another thread
//! receives (TH004), concurrent collectives on one communicator (TH005), threads started
//! under `MPI_THREAD_SINGLE` (TH006), objects one thread uses and another frees (TH007).
//!
//! All seven are one pass over the events ([`stream`], issue 14): per rank the threads'
//! vector clocks fed the synchronization records, and per check only what a later call can
//! still conflict with, folded by call site; what needs the rank's end (its thread level,
//! whether synchronization was recorded, its worksharing blocks' teams) is decided then.
//! Each check's file has its part of the pass and, for the tests, the check on a whole rank
//! (`RankThreads`, every call's clock) that the pass must agree with.
//!
//! A violation that *occurred* is seen in the recorded intervals: two threads were inside
//! MPI at the same moment (one process, one monotonic clock). A violation that *could*
//! occur in another run is two calls of different threads that no recorded synchronization
//! orders ([`crate::threads::ThreadClocks`]): OpenMP barriers, critical sections, locks,
//! region start and end, thread create and join, mutexes.
//!
//! What is recorded and what is not (`c/threads.c` of the interposition library): GCC's
//! libgomp has no OMPT tool interface (GCC 12-14), so OpenMP is observed at libgomp's entry
//! points (parallel regions, barriers including the implicit ones of worksharing constructs,
//! critical, atomic, ordered, locks, and the `single` blocks and sections a thread executes:
//! the main thread's MPI calls in them are reported where another thread could make them);
//! POSIX threads through create/join/exit, mutexes,
//! condition waits, barriers, spin locks and semaphores called from the program itself.
//! Explicit OpenMP tasks are not tracked: a process that creates tasks gets no "possible"
//! reports. Threads whose start was not recorded (started by a library or another OpenMP
//! runtime) get none either. Synchronization through atomics or flags on plain variables is
//! invisible: calls ordered only that way are reported as possibly concurrent.
//! `MPICHECK_THREADS=0` turns the recording off (then only violations that occurred are
//! reported). Happens-before orders calls by the synchronization order observed in this
//! run: two critical sections are ordered the way they ran, so a violation that needs the
//! other order is not claimed.

use std::collections::BTreeMap;

use super::pass::{EventPass, RunTables};
use super::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Rank, SiteId};
use crate::text::{IntoPieces, Text};
#[cfg(test)]
use {
    crate::model::{Event, Op, RankTrace, ThreadLevel, WorkshareBlock},
    crate::threads::{overlap, HappensBefore},
    std::collections::HashSet,
};

pub mod collective;
pub(crate) mod concurrent;
pub mod finalize;
pub mod freed;
pub mod level;
pub mod probe;
pub mod request;
pub mod single;
mod stream;

pub use collective::TH005;
pub use finalize::TH002;
pub use freed::TH007;
pub use level::TH001;
pub use probe::TH004;
pub use request::TH003;
pub use single::TH006;

/// TH001-TH007, one pass over the events ([`stream`]).
pub(crate) struct ThreadChecks;

impl Check for ThreadChecks {
    fn infos(&self) -> &'static [CheckInfo] {
        &[TH001, TH002, TH003, TH004, TH005, TH006, TH007]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::new(stream::ThreadPass::default()))
    }
}

/// Whether the rank ran more than one thread: calls of several threads, a parallel region of
/// several threads or a thread started.
#[cfg(test)]
pub(crate) fn several_threads(rank: &RankTrace) -> bool {
    rank.events
        .iter()
        .any(|e| e.thread != rank.events[0].thread)
        || rank.threads.parallel_regions.iter().any(|r| r.threads >= 2)
        || !rank.threads.thread_starts.is_empty()
}

/// Calls that the standard lets any thread make lets any thread make at any time (MPI 4.1 §11.6.1, §11.2.1).
pub(crate) fn always_allowed(call: &str) -> bool {
    matches!(
        call,
        "MPI_Initialized"
            | "MPI_Finalized"
            | "MPI_Query_thread"
            | "MPI_Is_thread_main"
            | "MPI_Get_version"
            | "MPI_Get_library_version"
            | "MPI_Wtime"
            | "MPI_Wtick"
    )
}

/// One rank's calls as the whole-rank checks see them: the reference the pass is tested
/// against.
#[cfg(test)]
pub(crate) struct RankThreads<'r> {
    pub rank: &'r RankTrace,
    pub hb: Option<HappensBefore>,
    /// The event of `MPI_Init*`, if recorded.
    pub init: Option<usize>,
    /// The thread that initialized MPI (the main thread).
    pub main: u16,
    pub provided: Option<ThreadLevel>,
    /// The main thread's `single` blocks and sections in teams of several threads, in
    /// order.
    main_workshares: Vec<WorkshareBlock>,
}

/// How two calls of different threads conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum When {
    /// They ran at the same time in this run.
    Occurred,
    /// Nothing orders them: another run can make them overlap.
    Possible,
}

#[cfg(test)]
impl<'r> RankThreads<'r> {
    pub fn new(rank: &'r RankTrace) -> RankThreads<'r> {
        let init = rank
            .events
            .iter()
            .position(|e| matches!(e.op, Op::Init { .. }));
        let main = init.map_or(rank.events.first().map_or(0, |e| e.thread), |i| {
            rank.events[i].thread
        });
        RankThreads {
            rank,
            hb: HappensBefore::of(rank),
            init,
            main,
            provided: rank.threads.provided,
            main_workshares: rank
                .threads
                .workshares
                .iter()
                .filter(|b| b.thread == main && b.team >= 2)
                .copied()
                .collect(),
        }
    }

    /// The thread level MPI provided: as queried after `MPI_Init*`, else `MPI_Init_thread`'s
    /// recorded output.
    pub fn level(&self) -> Option<ThreadLevel> {
        self.provided.or_else(|| {
            self.init.and_then(|i| match self.event(i).op {
                Op::Init {
                    thread_level: Some(l),
                } => Some(match l {
                    0 => ThreadLevel::Single,
                    1 => ThreadLevel::Funneled,
                    2 => ThreadLevel::Serialized,
                    _ => ThreadLevel::Multiple,
                }),
                _ => None,
            })
        })
    }

    /// Appended to messages about the level when the program called plain `MPI_Init`.
    pub fn init_hint(&self) -> &'static str {
        if self.init.is_some_and(|i| self.event(i).call == "MPI_Init") {
            " (MPI_Init requests no thread support: call MPI_Init_thread)"
        } else {
            ""
        }
    }

    pub fn event(&self, i: usize) -> &'r Event {
        &self.rank.events[i]
    }

    /// The `single` block or section of a team of several threads that the main thread was
    /// executing when it made call `e`: another thread of the team could have made it.
    pub fn main_thread_workshare(&self, e: &Event) -> Option<&WorkshareBlock> {
        let order = e.time?.order;
        if e.thread != self.main {
            return None;
        }
        // A thread's blocks do not overlap: the last one it began before the call.
        let i = self
            .main_workshares
            .partition_point(|b| b.begin_order < order);
        let block = &self.main_workshares[i.checked_sub(1)?];
        (order < block.end_order).then_some(block)
    }

    /// Whether two calls of different threads ran, or could run, at the same time.
    pub fn conflict(&self, a: usize, b: usize) -> Option<When> {
        let (ea, eb) = (self.event(a), self.event(b));
        if ea.thread == eb.thread {
            return None;
        }
        if overlap(ea, eb) {
            return Some(When::Occurred);
        }
        self.hb
            .as_ref()
            .is_some_and(|hb| hb.unordered(self.rank, a, b))
            .then_some(When::Possible)
    }

    /// One finding per conflicting pair among `calls` (see [`RankThreads::conflicts`]), the
    /// later call first: `message(later, earlier, how they overlap)`, and each call labelled
    /// with what it does, `label(call)`.
    #[allow(clippy::too_many_arguments)]
    pub fn report_conflicts(
        &self,
        calls: &[usize],
        out: &mut Findings,
        code: &'static str,
        message: impl Fn(&Event, &Event, &str) -> String,
        label: impl Fn(&Event) -> String,
        note: &str,
        help: &str,
    ) {
        for (a, b, when) in self.conflicts(calls) {
            let (earlier, later) = (self.event(a), self.event(b));
            let roles = [later, earlier]
                .into_iter()
                .map(|event| Role {
                    event,
                    label: on_thread(event, label(event)),
                })
                .collect();
            out.add(
                code,
                severity(when),
                self.rank.rank,
                message(later, earlier, when_text(when)),
                roles,
                note,
                help,
            );
        }
    }

    /// Conflicting pairs among `calls` (event indices in program order): each call with the
    /// calls of other threads it overlapped, and with the first call of each other thread
    /// that nothing orders with it. Each pair once, earlier call first.
    pub fn conflicts(&self, calls: &[usize]) -> Vec<(usize, usize, When)> {
        let mut out = Vec::new();
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        // Occurred: sweep by entry time.
        let mut by_enter: Vec<usize> = calls
            .iter()
            .copied()
            .filter(|&i| self.event(i).time.is_some())
            .collect();
        by_enter.sort_by_key(|&i| self.event(i).time.map(|t| t.enter_ns));
        let mut active: Vec<usize> = Vec::new();
        for &b in &by_enter {
            let enter = self.event(b).time.map_or(0, |t| t.enter_ns);
            active.retain(|&a| {
                self.event(a)
                    .time
                    .and_then(|t| t.exit_ns)
                    .is_none_or(|exit| exit > enter)
            });
            for &a in active.iter().take(8) {
                if self.event(a).thread != self.event(b).thread && seen.insert(pair(a, b)) {
                    out.push((a.min(b), a.max(b), When::Occurred));
                }
            }
            active.push(b);
        }
        // Possible: for each call, the first unordered call of every other thread.
        if let Some(hb) = &self.hb {
            let mut per_thread: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
            for &i in calls {
                per_thread.entry(self.event(i).thread).or_default().push(i);
            }
            for &b in calls {
                let tb = self.event(b).thread;
                for (&ta, list) in &per_thread {
                    if ta == tb {
                        continue;
                    }
                    let Some(slot) = hb.slot_of_thread(ta) else {
                        continue;
                    };
                    let first = hb.first_not_before(b, list, slot);
                    if let Some(&a) = list.get(first) {
                        if hb.unordered(self.rank, a, b) && seen.insert(pair(a, b)) {
                            out.push((a.min(b), a.max(b), When::Possible));
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
fn pair(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

/// Findings folded across ranks: one diagnostic per code, message and call sites.
#[derive(Default)]
pub(crate) struct Findings {
    groups: BTreeMap<FindingKey, Finding>,
}

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FindingKey {
    code: &'static str,
    message: String,
    sites: Vec<(u32, &'static str, Text)>,
}

struct Finding {
    severity: Severity,
    ranks: Vec<Rank>,
    notes: Vec<String>,
    help: String,
}

/// One call of a finding: the event and what it does in it.
#[cfg(test)]
pub(crate) struct Role<'e> {
    pub event: &'e Event,
    pub label: Text,
}

/// One place of a finding: where, the function called there, and what it does.
#[derive(Clone)]
pub(crate) struct SiteRole {
    pub site: SiteId,
    pub call: &'static str,
    pub label: Text,
}

impl Findings {
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        code: &'static str,
        severity: Severity,
        rank: Rank,
        message: String,
        roles: Vec<Role>,
        note: &str,
        help: &str,
    ) {
        let sites = roles
            .into_iter()
            .map(|r| SiteRole {
                site: r.event.site,
                call: r.event.call,
                label: r.label,
            })
            .collect();
        self.add_at_sites(code, severity, rank, message, sites, note, help);
    }

    /// [`Findings::add`] for places that are not recorded MPI calls (a thread start).
    #[allow(clippy::too_many_arguments)]
    pub fn add_at_sites(
        &mut self,
        code: &'static str,
        severity: Severity,
        rank: Rank,
        message: String,
        sites: Vec<SiteRole>,
        note: &str,
        help: &str,
    ) {
        let key = FindingKey {
            code,
            message,
            sites: sites
                .into_iter()
                .map(|r| (r.site.0, r.call, r.label))
                .collect(),
        };
        let finding = self.groups.entry(key).or_insert_with(|| Finding {
            severity,
            ranks: Vec::new(),
            notes: vec![note.to_string()],
            help: help.to_string(),
        });
        if !finding.ranks.contains(&rank) {
            finding.ranks.push(rank);
        }
    }

    /// One diagnostic per finding, in the order of code, message and call sites
    /// ([`RunTables::site_order`]: the same whether the sites were numbered as the events
    /// streamed or for good).
    pub fn into_diagnostics_on(self, tables: &RunTables) -> Vec<Diagnostic> {
        let mut groups: Vec<(FindingKey, Finding)> = self.groups.into_iter().collect();
        groups.sort_by_cached_key(|(key, _)| {
            (
                key.code,
                key.message.clone(),
                key.sites
                    .iter()
                    .map(|(site, call, label)| {
                        (tables.site_order(SiteId(*site)), *call, label.clone())
                    })
                    .collect::<Vec<_>>(),
            )
        });
        groups
            .into_iter()
            .map(|(key, mut f)| {
                f.ranks.sort_unstable();
                let locations = key
                    .sites
                    .iter()
                    .map(|(site, call, label)| {
                        tables.location(SiteId(*site), f.ranks.clone(), call, label.clone())
                    })
                    .collect();
                Diagnostic {
                    code: key.code,
                    category: Category::ThreadSafety,
                    severity: f.severity,
                    message: key.message.into(),
                    locations,
                    notes: f.notes.into_iter().map(Text::from).collect(),
                    help: Some(f.help.into()),
                    wait_for: None,
                    communicator: None,
                    tag: None,
                }
            })
            .collect()
    }
}

/// "thread 1" with the call: a location label.
#[cfg(test)]
pub(crate) fn on_thread(event: &Event, what: impl IntoPieces) -> Text {
    on_thread_id(event.thread, what)
}

/// [`on_thread`] for a call kept as its thread and site.
pub(crate) fn on_thread_id(thread: u16, what: impl IntoPieces) -> Text {
    crate::text!("thread {}: {}", thread, what)
}

/// "at the same time" or "can run at the same time" for messages.
pub(crate) fn when_text(when: When) -> &'static str {
    match when {
        When::Occurred => "ran at the same time",
        When::Possible => "can run at the same time (no synchronization orders them)",
    }
}

pub(crate) fn severity(when: When) -> Severity {
    match when {
        When::Occurred => Severity::Error,
        When::Possible => Severity::Warning,
    }
}

#[cfg(test)]
pub(crate) mod tests;
