//! TH007: an object one thread uses can be freed first by another thread.
//!
//! Followed as the calls come ([`Watch`]): per live object (as the normalizer marks its uses
//! and its free, [`ThreadMark`]) and per request, each thread's latest call on it, paired
//! with the freeing call when it comes; a request completed by a wait or a test leaves (its
//! handle is then `MPI_REQUEST_NULL`) unless it is persistent (started).
//!
//! [`ThreadMark`]: crate::checks::pass::ThreadMark

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use super::stream::{Call, Ended};
use super::{on_thread_id, Findings, SiteRole, When};
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{Event, ObjectKind, Op, ReqId, SiteId, ThreadLevel, WaitKind};
use crate::threads::ThreadClocks;
#[cfg(test)]
use {
    super::{on_thread, RankThreads, Role},
    std::collections::HashMap,
};

pub const TH007: CheckInfo = CheckInfo {
    code: "TH007",
    name: "freed-by-another-thread",
    category: Category::ThreadSafety,
    severity: Severity::Warning,
    summary: "a handle one thread uses can be freed first by another thread (no synchronization orders the use before the free)",
    docs: r#"## What it does

Finds an MPI object (communicator, datatype, group, info, window, operation, error
handler, persistent or nonblocking request, ...) that one thread passes to an MPI call
and another thread frees (`MPI_Comm_free`, `MPI_Type_free`, `MPI_Info_free`,
`MPI_Request_free`, ...), where the use came first in this run but no recorded
synchronization (barrier, critical section, lock, mutex, thread join, end of the parallel
region) orders it before the free, or the two calls ran at the same time. In another run
the free can come first, and the use is then a use of a freed object. Both call sites are
reported. A use that came after the free in this run is `AR005` (`RQ003` for requests).
Reported under `MPI_THREAD_MULTIPLE`; under a lower level the two calls are already
`TH001`.

## Why is this bad

A freed object no longer exists: MPI fails with an invalid handle error or, once the
handle value is given to a new object, silently uses that one. Whether it happens depends
on how the threads are scheduled, so the program fails only now and then, and not in the
run you test.

## Example

```c
MPI_Comm comm;
MPI_Comm_dup(MPI_COMM_WORLD, &comm);
#pragma omp parallel num_threads(2)
{
    #pragma omp single nowait
    MPI_Send(buf, 1, MPI_INT, peer, 0, comm);   /* one thread */
    #pragma omp single
    MPI_Comm_free(&comm);                       /* another one, maybe first */
}
```

## How to fix

Free an object only after every thread's last use of it: after the parallel region or the
join of the threads, after an `omp barrier` (remove the `nowait`), or in the thread that
uses it.

## MPI standard reference

MPI 4.1 §2.5.1 (a freed object cannot be accessed through any handle), §11.6.2 (the calls
of concurrent threads execute as if in some order; the user must prevent races between
conflicting calls), §6.4.3 (`MPI_Comm_free`), §5.1.10 (`MPI_Type_free`).
"#,
};

const NOTE: &str = "MPI 4.1 §2.5.1: a freed object cannot be accessed through any handle; §11.6.2: the calls of concurrent threads execute in some order, and the user must prevent races between conflicting calls";
const HELP: &str = "free the object after every thread's last use of it (after the parallel region, the thread join or a barrier), or in the thread that uses it";

/// What TH007 keeps of one rank's calls.
#[derive(Default)]
pub(super) struct Watch {
    /// Live objects the process's threads used: each thread's latest call on it.
    objects: FxHashMap<(ObjectKind, i64), Vec<Call>>,
    /// Requests: each thread's latest call on it.
    requests: FxHashMap<ReqId, Vec<Call>>,
    /// Requests `MPI_Start` started (persistent: a completion leaves them allocated).
    started: FxHashSet<ReqId>,
    found: BTreeSet<Found>,
}

/// A use and a free of other threads that nothing orders.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    when: When,
    noun: &'static str,
    /// Thread, site and function of the use and of the free.
    used: (u16, u32, &'static str),
    freed: (u16, u32, &'static str),
}

/// Remembers `call` as its thread's latest use.
fn note(uses: &mut Vec<Call>, call: &Call) {
    match uses.iter_mut().find(|u| u.thread == call.thread) {
        Some(last) => *last = *call,
        None => uses.push(*call),
    }
}

impl Watch {
    /// Whether [`Watch::call`] has anything to do with a call of `op` (one on requests).
    #[inline]
    pub fn wants(op: &Op) -> bool {
        matches!(
            op,
            Op::Wait { .. }
                | Op::RequestStatus { .. }
                | Op::Start { .. }
                | Op::Cancel { .. }
                | Op::RequestFree { .. }
        )
    }

    /// The next call of the rank (what it does with requests); `clock`: its thread's
    /// clock when it entered.
    pub fn call(&mut self, call: &Call, event: &Event, clock: &[u32]) {
        match &event.op {
            Op::Wait {
                requests,
                kind,
                test,
                completed,
            } => {
                // A completed request is gone unless it is persistent.
                let all = event.returned && !test && matches!(kind, WaitKind::One | WaitKind::All);
                for r in requests.iter().flatten() {
                    // (Not those forgotten right below: all but the persistent ones.)
                    if !all || self.started.contains(r) {
                        note(self.requests.entry(*r).or_default(), call);
                    }
                }
                // (Most waits find nothing to forget: no hashing then.)
                if !self.requests.is_empty() {
                    let mut forget = |r: ReqId| {
                        if !self.started.contains(&r) {
                            self.requests.remove(&r);
                        }
                    };
                    if all {
                        requests.iter().flatten().copied().for_each(&mut forget);
                    } else {
                        crate::checks::request::completed_requests(requests, completed)
                            .for_each(&mut forget);
                    }
                }
            }
            Op::RequestStatus { requests, .. } => {
                for r in requests.iter().flatten() {
                    note(self.requests.entry(*r).or_default(), call);
                }
            }
            Op::Start { requests } => {
                for r in requests {
                    note(self.requests.entry(*r).or_default(), call);
                    self.started.insert(*r);
                }
            }
            Op::Cancel { request } => note(self.requests.entry(*request).or_default(), call),
            Op::RequestFree { request } => {
                self.started.remove(request);
                if let Some(uses) = self.requests.remove(request) {
                    for used in uses {
                        self.judge(ObjectKind::Request, &used, call, clock);
                    }
                }
            }
            _ => {}
        }
    }

    /// How many calls it holds.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        let uses: usize = self
            .objects
            .values()
            .chain(self.requests.values())
            .map(Vec::len)
            .sum();
        uses + self.started.len() + self.found.len()
    }

    /// `call` is its thread's latest use of a live object.
    pub fn used(&mut self, kind: ObjectKind, object: i64, call: Call) {
        note(self.objects.entry((kind, object)).or_default(), &call);
    }

    /// `call` freed a live object; `clock`: its thread's clock when it entered.
    pub fn freed(&mut self, kind: ObjectKind, object: i64, call: &Call, clock: &[u32]) {
        if let Some(uses) = self.objects.remove(&(kind, object)) {
            for used in uses {
                self.judge(kind, &used, call, clock);
            }
        }
    }

    /// A use of another thread before a free: whether they ran at the same time or nothing
    /// orders the use before the free (the free, recorded later, cannot happen before it).
    fn judge(&mut self, kind: ObjectKind, used: &Call, freed: &Call, clock: &[u32]) {
        if used.thread == freed.thread {
            return;
        }
        let when = if used.overlaps(freed) {
            When::Occurred
        } else if !used.before(clock) {
            When::Possible
        } else {
            return;
        };
        // Nonblocking requests are freed too, not only persistent ones.
        let noun = match kind {
            ObjectKind::Request => "request",
            _ => kind.noun(),
        };
        self.found.insert(Found {
            when,
            noun,
            used: (used.thread, used.site.0, used.call),
            freed: (freed.thread, freed.site.0, freed.call),
        });
    }

    /// The findings, once the rank ended.
    pub fn finish(self, ended: &Ended, clocks: &ThreadClocks, out: &mut Findings) {
        if ended.level.is_some_and(|l| l < ThreadLevel::Multiple) {
            return; // TH001 reports every unordered pair of calls
        }
        for f in self.found {
            let (used, freed, noun) = (f.used, f.freed, f.noun);
            let how = match f.when {
                When::Occurred => "the two calls ran at the same time",
                When::Possible => {
                    if !ended.possible || !Ended::known(clocks, used.0, freed.0) {
                        continue;
                    }
                    "no synchronization orders the use before the free"
                }
            };
            out.add_at_sites(
                "TH007",
                Severity::Warning,
                ended.rank,
                format!(
                    "{} of thread {} can use the {noun} after {} of thread {} freed it ({how})",
                    used.2, used.0, freed.2, freed.0
                ),
                vec![
                    SiteRole {
                        site: SiteId(used.1),
                        call: used.2,
                        label: on_thread_id(used.0, format!("{} uses the {noun}", used.2)),
                    },
                    SiteRole {
                        site: SiteId(freed.1),
                        call: freed.2,
                        label: on_thread_id(freed.0, format!("{} frees it", freed.2)),
                    },
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
    if t.level().is_some_and(|l| l < ThreadLevel::Multiple) {
        return; // TH001 reports every unordered pair of calls
    }
    let mut pairs: Vec<(ObjectKind, usize, usize)> = t
        .rank
        .threads
        .freed_after_use
        .iter()
        .map(|f| (f.kind, f.used, f.freed))
        .collect();
    pairs.extend(request_pairs(t));
    for (kind, used, freed) in pairs {
        let Some(when) = t.conflict(used, freed) else {
            continue;
        };
        let (u, f) = (t.event(used), t.event(freed));
        // Nonblocking requests are freed too, not only persistent ones.
        let noun = match kind {
            ObjectKind::Request => "request",
            _ => kind.noun(),
        };
        let how = match when {
            When::Occurred => "the two calls ran at the same time",
            When::Possible => "no synchronization orders the use before the free",
        };
        out.add(
            "TH007",
            Severity::Warning,
            t.rank.rank,
            format!(
                "{} of thread {} can use the {noun} after {} of thread {} freed it ({how})",
                u.call, u.thread, f.call, f.thread
            ),
            vec![
                Role {
                    event: u,
                    label: on_thread(u, format!("{} uses the {noun}", u.call)),
                },
                Role {
                    event: f,
                    label: on_thread(f, format!("{} frees it", f.call)),
                },
            ],
            NOTE,
            HELP,
        );
    }
}

/// Requests (never reused ids): each other thread's last call on a request before a thread
/// frees it with `MPI_Request_free`.
#[cfg(test)]
fn request_pairs(t: &RankThreads) -> Vec<(ObjectKind, usize, usize)> {
    let mut uses: HashMap<ReqId, Vec<(u16, usize)>> = HashMap::new();
    let mut pairs = Vec::new();
    for (i, e) in t.rank.events.iter().enumerate() {
        let used: &[ReqId] = match &e.op {
            Op::Wait { requests, .. } | Op::RequestStatus { requests, .. } => {
                for r in requests.iter().flatten() {
                    note_use(&mut uses, *r, e.thread, i);
                }
                continue;
            }
            Op::Start { requests } => requests,
            Op::Cancel { request } => std::slice::from_ref(request),
            Op::RequestFree { request } => {
                if let Some(list) = uses.remove(request) {
                    pairs.extend(
                        list.into_iter()
                            .filter(|(thread, _)| *thread != e.thread)
                            .map(|(_, used)| (ObjectKind::Request, used, i)),
                    );
                }
                continue;
            }
            _ => continue,
        };
        for r in used {
            note_use(&mut uses, *r, e.thread, i);
        }
    }
    pairs
}

#[cfg(test)]
fn note_use(
    uses: &mut HashMap<ReqId, Vec<(u16, usize)>>,
    request: ReqId,
    thread: u16,
    event: usize,
) {
    let list = uses.entry(request).or_default();
    match list.iter_mut().find(|(t, _)| *t == thread) {
        Some(last) => last.1 = event,
        None => list.push((thread, event)),
    }
}
