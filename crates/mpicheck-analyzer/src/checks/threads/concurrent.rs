//! TH003 and TH005 as one pass over the events ([`EventPass`], issue 14; part of the pass
//! of [`super::ThreadChecks`], [`super::stream`], whose other checks read its clocks):
//! calls of different threads on one request (TH003) or one communicator's collectives
//! (TH005) that ran at the same time, or that no recorded synchronization orders. Its
//! groups also pair TH001's calls under `MPI_THREAD_SERIALIZED` ([`super::level`]).
//!
//! The pass finds the pairs `RankThreads::conflicts` (the tests' reference) finds on a whole
//! rank, fed the rank's calls and synchronization records in record order, and keeps only
//! what can still pair with a later call (the FastTrack idea):
//!
//! - per rank, the threads' current vector clocks and the live synchronization objects'
//!   ([`ThreadClocks`]), not one clock per call;
//! - per request or communicator (a *group*):
//!   - the calls still inside MPI at the latest entry seen (*live*: a later call can overlap
//!     them);
//!   - per thread of known origin, its calls that some later call of another thread may not
//!     follow (*kept*): a call is dropped once every thread, and every thread still to start,
//!     has seen it ([`ThreadClocks::floor`]);
//!   - the calls that wait for another thread's next call on the group to pair with
//!     (*pending*), dropped on the same rule;
//! - the findings so far, folded by call sites (with the request for TH003: a request whose
//!   handle MPI shared with another is known only at the rank's end).
//!
//! A group with nothing left is dropped. A rank of one thread keeps each group's last call
//! until a later entry passes it, and nothing else.
//!
//! Fed while the traces are normalized, the ranks' calls come in record order, which is the
//! order their records were reserved, not quite the order their entry times were read: a
//! call whose thread was preempted between the two is compared with the calls still live at
//! the latest entry seen, where the whole-rank sweep by entry time would compare it with the
//! calls live at its own entry.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::FxHashMap;

use super::{severity, when_text, Findings, SiteRole, When};
use crate::checks::pass::{EventPass, RunTables};
use crate::diagnostic::Diagnostic;
use crate::model::{CommId, Event, Op, Rank, ReqId, SiteId, SyncEvent, ThreadLevel};
use crate::text::Text;
use crate::threads::ThreadClocks;

const TH003_NOTE: &str = "MPI 4.1 §11.6.2: a program where two threads block, waiting on the same request, is erroneous; a request can only be completed once";
const TH003_HELP: &str =
    "complete each request on one thread only, or put the completion calls in a critical section";
const TH005_NOTE: &str = "MPI 4.1 §11.6.2: it is the user's responsibility to ensure that the same communicator is not used concurrently by two different collective communication calls at the same process";
const TH005_HELP: &str = "give each thread its own communicator (MPI_Comm_dup before the threads start), or order the collectives the same way on every process";

/// How many live calls of a group a call is compared with (as the whole-rank sweep does).
const LIVE_COMPARED: usize = 8;

#[derive(Default)]
pub(crate) struct ConcurrentPass {
    ranks: FxHashMap<Rank, RankState>,
}

/// One rank's state: also the clocks the other thread checks read ([`super::stream`]).
#[derive(Default)]
pub(super) struct RankState {
    pub clocks: ThreadClocks,
    /// A call had no time: happens-before is unknown for the rank (no possible reports).
    untimed: bool,
    /// The latest entry time seen: a call that exited before it overlaps no later call.
    latest_enter: u64,
    requests: FxHashMap<ReqId, Group>,
    comms: FxHashMap<CommId, Group>,
    /// How many groups there were after the last sweep over them all.
    swept: usize,
    /// The most groups held at once.
    peak_groups: usize,
    /// While the rank has run one thread ([`ThreadClocks::single`]), nothing goes into the
    /// groups: a later thread's call can pair only with the calls still inside MPI, and
    /// those are at most the one thread's last call, kept here if it uses a group.
    single_last: Option<(Use, Key)>,
    /// The buffer of the last list of requests that went out of `single_last`, for the
    /// next one.
    spare: Vec<ReqId>,
    found: BTreeSet<Found>,
}

/// One call of a group, as far as pairing needs it.
#[derive(Clone, Copy)]
pub(super) struct Use {
    pub index: usize,
    pub thread: u16,
    pub slot: usize,
    pub site: SiteId,
    pub call: &'static str,
    pub enter: u64,
    pub exit: Option<u64>,
    /// The thread's epoch while it ran (`u32::MAX` if it never returned).
    pub epoch: u32,
}

/// Calls that can still pair with a later call (also TH001's under
/// `MPI_THREAD_SERIALIZED`: every call of the rank is one group, [`super::level`]).
#[derive(Default)]
pub(super) struct Group {
    live: Vec<Use>,
    kept: BTreeMap<u16, VecDeque<Use>>,
    /// A call and the threads whose next call on the group it no longer waits for.
    pending: Vec<(Use, Vec<u16>)>,
}

impl Group {
    /// A call that may still be inside MPI when the rank's threads start.
    pub fn push_live(&mut self, call: Use) {
        self.live.push(call);
    }

    /// How many calls the group holds (a call held twice counts twice).
    pub fn calls_held(&self) -> usize {
        self.live.len() + self.pending.len() + self.kept.values().map(VecDeque::len).sum::<usize>()
    }

    fn is_empty(&self) -> bool {
        self.live.is_empty() && self.pending.is_empty() && self.kept.is_empty()
    }

    /// Drops what no later call can pair with: live calls that exited before `latest`,
    /// calls every thread has seen.
    fn prune(&mut self, latest: u64, floor: &mut Floors) {
        self.live
            .retain(|u| u.exit.is_none_or(|exit| exit > latest));
        self.kept.retain(|_, list| {
            while list.front().is_some_and(|u| u.epoch <= floor.of(u.slot)) {
                list.pop_front();
            }
            !list.is_empty()
        });
        self.pending.retain(|(u, _)| u.epoch > floor.of(u.slot));
    }
}

/// [`ThreadClocks::floor`] of each slot, computed once per call.
struct Floors<'c> {
    clocks: &'c ThreadClocks,
    cache: Vec<Option<u32>>,
}

impl Floors<'_> {
    fn of(&mut self, slot: usize) -> u32 {
        if self.cache.len() <= slot {
            self.cache.resize(slot + 1, None);
        }
        *self.cache[slot].get_or_insert_with(|| self.clocks.floor(slot))
    }
}

/// A finding of one rank, before the rank's end says whether it stands.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    code: &'static str,
    when: When,
    message: String,
    sites: Vec<(u32, &'static str, Text)>,
    /// TH003's request.
    request: Option<ReqId>,
}

/// A call's groups: the requests it waits on, or the communicator of its collective.
enum Key {
    Requests(Vec<ReqId>),
    Comm(CommId),
}

/// What a group is, for the messages.
#[derive(Clone, Copy)]
enum Kind<'n> {
    Request(ReqId),
    Collective(&'n str),
}

impl RankState {
    /// The next call of the rank; its thread's slot in the clocks.
    pub fn call(&mut self, index: usize, event: &Event, tables: &RunTables) -> usize {
        let slot = self.clocks.call(event.thread);
        let Some(time) = event.time else {
            self.untimed = true;
            self.forget_single_last();
            return slot;
        };
        self.latest_enter = self.latest_enter.max(time.enter_ns);
        let key = match &event.op {
            Op::Wait { requests, .. } => {
                // While one thread runs, the last call's list is replaced below: its buffer
                // is reused.
                if self.clocks.single() {
                    self.forget_single_last();
                }
                let mut unique = std::mem::take(&mut self.spare);
                unique.reserve(requests.len());
                for &r in requests.iter().flatten() {
                    if !unique.contains(&r) {
                        unique.push(r);
                    }
                }
                Key::Requests(unique)
            }
            Op::Collective { comm, .. } => Key::Comm(*comm),
            _ => {
                if self.clocks.single() {
                    self.forget_single_last();
                }
                return slot;
            }
        };
        let used = Use {
            index,
            thread: event.thread,
            slot,
            site: event.site,
            call: event.call,
            enter: time.enter_ns,
            exit: time.exit_ns,
            epoch: if event.returned {
                self.clocks.epoch(slot)
            } else {
                u32::MAX
            },
        };
        if self.clocks.single() {
            self.forget_single_last();
            self.single_last = Some((used, key));
            return slot;
        }
        if let Some((last, key)) = self.single_last.take() {
            // Threads start: the one thread's last call may still be inside MPI.
            match key {
                Key::Requests(requests) => {
                    for r in requests {
                        self.requests.entry(r).or_default().live.push(last);
                    }
                }
                Key::Comm(comm) => self.comms.entry(comm).or_default().live.push(last),
            }
        }
        match key {
            Key::Requests(requests) => {
                for r in requests {
                    let group = self.requests.entry(r).or_default();
                    let found = pair(group, used, &self.clocks, self.latest_enter);
                    self.record(found, used, Kind::Request(r));
                    if group_is_empty(&self.requests, &r) {
                        self.requests.remove(&r);
                    }
                }
            }
            Key::Comm(comm) => {
                let group = self.comms.entry(comm).or_default();
                let found = pair(group, used, &self.clocks, self.latest_enter);
                let name = tables.comm(comm).map_or("?", |c| &*c.name);
                self.record(found, used, Kind::Collective(name));
                if group_is_empty(&self.comms, &comm) {
                    self.comms.remove(&comm);
                }
            }
        }
        let groups = self.requests.len() + self.comms.len();
        self.peak_groups = self.peak_groups.max(groups);
        if groups > 2 * self.swept + 16 {
            self.sweep();
        }
        slot
    }

    /// Drops the one thread's last call, keeping its list of requests' buffer.
    fn forget_single_last(&mut self) {
        if let Some((_, Key::Requests(mut requests))) = self.single_last.take() {
            requests.clear();
            self.spare = requests;
        }
    }

    /// Prunes every group, dropping the empty ones.
    fn sweep(&mut self) {
        let mut floors = Floors {
            clocks: &self.clocks,
            cache: Vec::new(),
        };
        let latest = self.latest_enter;
        self.requests.retain(|_, g| {
            g.prune(latest, &mut floors);
            !g.is_empty()
        });
        self.comms.retain(|_, g| {
            g.prune(latest, &mut floors);
            !g.is_empty()
        });
        self.swept = self.requests.len() + self.comms.len();
    }

    fn record(&mut self, found: Vec<(Use, When)>, later: Use, kind: Kind) {
        let label = |u: &Use| -> Text {
            let what = match kind {
                Kind::Request(_) => format!("completes the request with {}", u.call),
                Kind::Collective(name) => format!("calls {} on {name}", u.call),
            };
            crate::text!("thread {}: {}", u.thread, what)
        };
        for (earlier, when) in found {
            let (code, message, request) = match kind {
                Kind::Request(r) => (
                    "TH003",
                    format!(
                        "{} and {} of two threads on the same request {}",
                        later.call,
                        earlier.call,
                        when_text(when)
                    ),
                    Some(r),
                ),
                Kind::Collective(name) => (
                    "TH005",
                    format!(
                        "collectives {} and {} of two threads on {name} {}",
                        later.call,
                        earlier.call,
                        when_text(when)
                    ),
                    None,
                ),
            };
            let sites = [later, earlier]
                .iter()
                .map(|u| (u.site.0, u.call, label(u)))
                .collect();
            self.found.insert(Found {
                code,
                when,
                message,
                sites,
                request,
            });
        }
    }
}

fn group_is_empty<K: std::hash::Hash + Eq>(groups: &FxHashMap<K, Group>, key: &K) -> bool {
    groups.get(key).is_some_and(Group::is_empty)
}

/// Pairs call `b` with the group's earlier calls it conflicts with, and files it in the
/// group: each earlier call it overlapped (among the first live ones), and, when its
/// thread's origin is known, the first call of each other thread that it does not follow
/// and the earlier calls waiting for its thread's next call that it does not follow.
pub(super) fn pair(
    group: &mut Group,
    b: Use,
    clocks: &ThreadClocks,
    latest: u64,
) -> Vec<(Use, When)> {
    let mut found: Vec<(Use, When)> = Vec::new();
    // Occurred: the live calls it overlapped.
    group
        .live
        .retain(|a| a.exit.is_none_or(|exit| exit > b.enter));
    for a in group.live.iter().take(LIVE_COMPARED) {
        let overlaps = a.enter < b.exit.unwrap_or(u64::MAX) && b.enter < a.exit.unwrap_or(u64::MAX);
        if a.thread != b.thread && overlaps {
            found.push((*a, When::Occurred));
        }
    }
    group.live.push(b);
    let mut floors = Floors {
        clocks,
        cache: Vec::new(),
    };
    if clocks.known(b.slot) {
        let paired = |found: &[(Use, When)], a: &Use| found.iter().any(|(f, _)| f.index == a.index);
        // Each other thread's first call that `b` does not follow.
        let mut not_before: Vec<u16> = Vec::new();
        for (&ta, list) in &mut group.kept {
            if ta == b.thread {
                continue;
            }
            while list.front().is_some_and(|u| u.epoch <= floors.of(u.slot)) {
                list.pop_front();
            }
            if let Some(a) = list.iter().find(|a| a.epoch > clocks.seen(b.slot, a.slot)) {
                not_before.push(ta);
                if !paired(&found, a) {
                    found.push((*a, When::Possible));
                }
            }
        }
        group.kept.retain(|_, list| !list.is_empty());
        // The earlier calls whose first call of this thread after them is `b`.
        for (a, done) in &mut group.pending {
            if a.thread == b.thread || done.contains(&b.thread) {
                continue;
            }
            done.push(b.thread);
            if clocks.seen(b.slot, a.slot) < a.epoch && !paired(&found, a) {
                found.push((*a, When::Possible));
            }
        }
        group.pending.retain(|(a, _)| a.epoch > floors.of(a.slot));
        if b.epoch > floors.of(b.slot) {
            group.pending.push((b, not_before));
            group.kept.entry(b.thread).or_default().push_back(b);
        }
    }
    group
        .live
        .retain(|a| a.exit.is_none_or(|exit| exit > latest));
    found
}

/// What a [`ConcurrentPass`] holds, summed over the ranks (for the tests of its memory and
/// for measurements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))] // read by tests and measurements
pub struct Held {
    /// Requests and communicators with something held.
    pub groups: usize,
    /// The most requests and communicators held at once so far (before the pruning that
    /// runs when they have doubled since the last).
    pub peak_groups: usize,
    /// Calls held in them (live, kept or pending; a call held twice counts twice).
    pub calls: usize,
    /// Threads and synchronization objects with a clock.
    pub threads: usize,
    pub objects: usize,
    /// Findings so far.
    pub findings: usize,
}

impl ConcurrentPass {
    /// What the pass holds now, once every group is pruned.
    #[cfg_attr(not(test), allow(dead_code))] // read by tests and measurements
    pub fn held(&mut self) -> Held {
        let mut held = Held::default();
        for state in self.ranks.values_mut() {
            state.add_held(&mut held);
        }
        held
    }
}

impl RankState {
    /// Adds what the rank holds, once every group is pruned, to `held`.
    #[cfg_attr(not(test), allow(dead_code))] // read by tests and measurements
    pub fn add_held(&mut self, held: &mut Held) {
        self.sweep();
        held.peak_groups += self.peak_groups;
        for group in self.requests.values().chain(self.comms.values()) {
            held.groups += 1;
            held.calls += group.calls_held();
        }
        let (threads, objects) = self.clocks.held();
        held.threads += threads;
        held.objects += objects;
        held.findings += self.found.len();
        held.calls += usize::from(self.single_last.is_some());
    }
}

impl EventPass for ConcurrentPass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        self.ranks
            .entry(rank)
            .or_default()
            .call(index, event, tables);
    }

    fn sync(&mut self, rank: Rank, sync: &SyncEvent) {
        self.ranks.entry(rank).or_default().clocks.sync(sync);
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let mut ranks: Vec<(Rank, RankState)> = self.ranks.into_iter().collect();
        ranks.sort_by_key(|(rank, _)| *rank);
        let mut findings = Findings::default();
        for (rank, state) in ranks {
            state.finish(rank, tables, &mut findings);
        }
        findings.into_diagnostics_on(tables)
    }
}

impl RankState {
    /// The rank's findings, once it ended.
    pub fn finish(self, rank: Rank, tables: &RunTables, findings: &mut Findings) {
        let threads = tables.rank_threads(rank);
        // TH001 reports every concurrent pair below MPI_THREAD_MULTIPLE.
        if threads
            .and_then(|t| t.provided)
            .is_some_and(|l| l < ThreadLevel::Multiple)
        {
            return;
        }
        let possible = !self.untimed && threads.is_some_and(|t| t.sync_recorded);
        for found in self.found {
            if found.when == When::Possible && !possible {
                continue;
            }
            // Waits on a handle MPI gave to two live requests cannot be told apart.
            if found
                .request
                .is_some_and(|r| threads.is_some_and(|t| t.shared_requests.contains(&r)))
            {
                continue;
            }
            let (note, help) = match found.code {
                "TH003" => (TH003_NOTE, TH003_HELP),
                _ => (TH005_NOTE, TH005_HELP),
            };
            let sites = found
                .sites
                .into_iter()
                .map(|(site, call, label)| SiteRole {
                    site: SiteId(site),
                    call,
                    label,
                })
                .collect();
            findings.add_at_sites(
                found.code,
                severity(found.when),
                rank,
                found.message,
                sites,
                note,
                help,
            );
        }
    }
}
