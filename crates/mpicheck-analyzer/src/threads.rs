//! Threads of a rank: the synchronization records of a trace ([`ThreadInfoBuilder`], used by
//! [`crate::normalize`], which also tells the passes of the regions and worksharing blocks
//! as their records come, [`crate::checks::pass::ThreadMark`]) and the happens-before order
//! between the calls of different threads: the threads' vector clocks advanced record by
//! record ([`ThreadClocks`], which the thread checks keep while the calls come), and, for
//! the tests of those checks, the clock of every call of a whole rank (`HappensBefore`).
//!
//! The interposition library (`c/threads.c`) writes `MPICHECK_Sync what object` pseudo-calls:
//! `what` 0 = recording is on, 1 = release of `object`, 2 = acquire of `object`, 3 = an OpenMP
//! parallel region `object` begins (a release of its start object), 4 = it ended (an acquire
//! of its end object), 5 = the process synchronizes in ways that are not recorded (OpenMP
//! tasks: then no call is reported as possibly concurrent), 6 = the thread begins the block
//! of a `single` or a section that any thread of its team could have run (object: namespace
//! 8 or 9 and the team's region token), 7 = it left the block (the block also ends at the
//! thread's next record of any other kind). Releases are recorded before the real operation
//! and acquires after it, so in the process's record order every acquire follows the
//! releases it observed.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use mpicheck_trace::{CallRecord, FunctionSchema, Trace};

use crate::checks::pass::ThreadMark;
use crate::model::{
    CallTime, ParallelRegion, SiteId, SyncEvent, SyncKind, ThreadInfo, ThreadLevel, ThreadStart,
    Workshare, WorkshareBlock,
};
#[cfg(test)]
use crate::model::{Event, RankTrace};

const SYNC_TRACKING: i64 = 0;
const SYNC_RELEASE: i64 = 1;
const SYNC_ACQUIRE: i64 = 2;
const SYNC_REGION_BEGIN: i64 = 3;
const SYNC_REGION_END: i64 = 4;
const SYNC_UNTRACKED: i64 = 5;
const SYNC_WORKSHARE_BEGIN: i64 = 6;

/// Object namespaces of `c/threads.c` (the top byte).
const NS_SHIFT: u32 = 56;
const NS_REGION_START: u64 = 1;
const NS_REGION_END: u64 = 2;
const NS_THREAD_START: u64 = 4;

const NS_BARRIER: u64 = 3;
const NS_THREAD_END: u64 = 5;
const NS_ORDERED: u64 = 7;
const NS_SINGLE: u64 = 8;
const NS_SECTION: u64 = 9;

/// Whether a synchronization record (`MPICHECK_Sync` words `what`, `object`) leaves its
/// thread waiting for the rest of its OpenMP team: it entered a team barrier, or it finished
/// its share of a parallel region (it then waits in the region's closing barrier, or idles
/// until the next region). Such a thread makes no MPI call before a team mate moves on.
pub fn waits_for_team(what: i64, object: i64) -> bool {
    what == SYNC_RELEASE && matches!((object as u64) >> NS_SHIFT, NS_BARRIER | NS_REGION_END)
}

fn object(ns: u64, value: u64) -> u64 {
    (ns << NS_SHIFT) | (value & ((1 << NS_SHIFT) - 1))
}

/// The object a thread acquires first when it is started by a recorded parallel region or
/// `pthread_create`: such a thread's origin is known.
fn is_start_object(object: u64) -> bool {
    matches!(object >> NS_SHIFT, NS_REGION_START | NS_THREAD_START)
}

/// The time of a call record.
pub fn call_time(call: &CallRecord) -> CallTime {
    CallTime {
        order: call.seq,
        enter_ns: call.t_enter_ns,
        exit_ns: call.complete.then_some(call.t_exit_ns),
    }
}

/// Collects the synchronization records of one trace.
pub struct ThreadInfoBuilder {
    info: ThreadInfo,
    /// Region token → index into `info.parallel_regions`.
    open_regions: HashMap<u64, usize>,
    /// The process synchronized in ways not recorded (OpenMP tasks).
    untracked: bool,
    /// Call site addresses, resolved at the end: of each parallel region, and of each
    /// `pthread_create` with its start object.
    region_sites: Vec<u64>,
    thread_starts: Vec<(ThreadStart, u64, u64)>,
    /// Per block of `info.workshares`: its team's region token.
    workshare_teams: Vec<u64>,
    /// Thread → its block (index into `info.workshares`) that no later record ended yet.
    open_workshares: HashMap<u16, usize>,
    /// Start object of each open region → the threads that took it so far.
    region_members: HashMap<u64, HashSet<u16>>,
    /// What the end needs of the synchronization records, so that the records themselves
    /// need not be kept: the thread that took each thread start object (the last one)...
    started_by_object: HashMap<u64, u16>,
    /// ... each release of a region's start object, in record order ...
    region_tokens: Vec<u64>,
    /// ... and the threads that ever took each region start object.
    token_members: HashMap<u64, HashSet<u16>>,
    /// What the passes are told next ([`ThreadMark`]).
    marks: Vec<ThreadMark>,
}

impl ThreadInfoBuilder {
    pub fn new(trace: &Trace) -> ThreadInfoBuilder {
        let level = |name: &str| {
            trace
                .constant(name)
                .and_then(|v| v.trim().parse::<i32>().ok())
        };
        let provided = trace.header.thread_level.and_then(|p| {
            [
                ("MPI_THREAD_SINGLE", ThreadLevel::Single),
                ("MPI_THREAD_FUNNELED", ThreadLevel::Funneled),
                ("MPI_THREAD_SERIALIZED", ThreadLevel::Serialized),
                ("MPI_THREAD_MULTIPLE", ThreadLevel::Multiple),
            ]
            .into_iter()
            .find(|(name, _)| level(name) == Some(p))
            .map(|(_, l)| l)
        });
        // (Held calls, which tests may have edited, are the truth when there are any.)
        let only_thread = trace.only_thread.filter(|_| trace.calls.is_empty());
        ThreadInfoBuilder {
            info: ThreadInfo {
                provided,
                ..ThreadInfo::default()
            },
            open_regions: HashMap::new(),
            untracked: false,
            region_sites: Vec::new(),
            thread_starts: Vec::new(),
            workshare_teams: Vec::new(),
            open_workshares: HashMap::new(),
            region_members: HashMap::new(),
            started_by_object: HashMap::new(),
            region_tokens: Vec::new(),
            token_members: HashMap::new(),
            marks: (provided.map(ThreadMark::Provided).into_iter())
                .chain(only_thread.map(ThreadMark::OnlyThread))
                .collect(),
        }
    }

    /// Takes the record if it is a synchronization pseudo-call; false for anything else.
    pub fn sync_record(&mut self, function: &FunctionSchema, call: &CallRecord) -> bool {
        if function.name != "MPICHECK_Sync" {
            return false;
        }
        let (Some(&what), Some(&value)) = (call.words.first(), call.words.get(1)) else {
            return true;
        };
        let value = value as u64;
        // Any record of a thread ends the worksharing block it was in.
        if let Some(i) = self.open_workshares.remove(&call.thread) {
            self.info.workshares[i].end_order = call.seq;
            self.marks.push(ThreadMark::BlockEnd { block: i as u32 });
        }
        let mut push = |kind, object: u64| {
            match (kind, object >> NS_SHIFT) {
                (SyncKind::Release, NS_REGION_START) => self.region_tokens.push(object),
                (SyncKind::Acquire, NS_REGION_START) => {
                    self.token_members
                        .entry(object)
                        .or_default()
                        .insert(call.thread);
                }
                (SyncKind::Acquire, NS_THREAD_START) => {
                    self.started_by_object.insert(object, call.thread);
                }
                _ => {}
            }
            self.info.sync.push(SyncEvent {
                thread: call.thread,
                order: call.seq,
                kind,
                object,
            })
        };
        match what {
            SYNC_TRACKING => self.info.sync_recorded = true,
            SYNC_UNTRACKED => self.untracked = true,
            SYNC_RELEASE => {
                push(SyncKind::Release, value);
                if value >> NS_SHIFT == NS_THREAD_START {
                    let start = ThreadStart {
                        by: call.thread,
                        order: call.seq,
                        site: SiteId::default(),
                        started: None,
                    };
                    self.thread_starts.push((start, value, call.callsite));
                }
            }
            SYNC_ACQUIRE => {
                push(SyncKind::Acquire, value);
                if let Some(members) = self.region_members.get_mut(&value) {
                    members.insert(call.thread);
                }
            }
            SYNC_REGION_BEGIN => {
                push(SyncKind::Release, object(NS_REGION_START, value));
                self.marks.push(ThreadMark::RegionBegin {
                    region: self.info.parallel_regions.len() as u32,
                    thread: call.thread,
                    order: call.seq,
                });
                self.region_members
                    .insert(object(NS_REGION_START, value), HashSet::new());
                self.open_regions
                    .insert(value, self.info.parallel_regions.len());
                self.region_sites.push(call.callsite);
                self.info.parallel_regions.push(ParallelRegion {
                    thread: call.thread,
                    site: SiteId::default(),
                    begin_order: call.seq,
                    end_order: u64::MAX,
                    threads: 0,
                });
            }
            SYNC_WORKSHARE_BEGIN => {
                let construct = match value >> NS_SHIFT {
                    NS_SINGLE => Workshare::Single,
                    NS_SECTION => Workshare::Section,
                    _ => return true,
                };
                self.marks.push(ThreadMark::BlockBegin {
                    block: self.info.workshares.len() as u32,
                    thread: call.thread,
                    order: call.seq,
                });
                self.open_workshares
                    .insert(call.thread, self.info.workshares.len());
                self.workshare_teams.push(value & ((1 << NS_SHIFT) - 1));
                self.info.workshares.push(WorkshareBlock {
                    thread: call.thread,
                    construct,
                    begin_order: call.seq,
                    end_order: u64::MAX,
                    team: 0,
                });
            }
            SYNC_REGION_END => {
                push(SyncKind::Acquire, object(NS_REGION_END, value));
                if let Some(i) = self.open_regions.remove(&value) {
                    self.info.parallel_regions[i].end_order = call.seq;
                    // Its threads took its start when they entered it.
                    let members = self
                        .region_members
                        .remove(&object(NS_REGION_START, value))
                        .unwrap_or_default();
                    self.marks.push(ThreadMark::RegionEnd {
                        region: i as u32,
                        threads: members.len() as u32,
                    });
                }
            }
            _ => {}
        }
        true
    }

    /// What the passes are to be told since the last call ([`ThreadMark`]).
    pub(crate) fn take_marks(&mut self) -> std::vec::Drain<'_, ThreadMark> {
        self.marks.drain(..)
    }

    /// How many synchronization records were taken so far.
    pub fn sync_len(&self) -> usize {
        self.info.sync.len()
    }

    /// The synchronization records taken since there were `n`.
    pub fn syncs_from(&self, n: usize) -> &[SyncEvent] {
        &self.info.sync[n..]
    }

    /// Drops the synchronization records taken so far (once the passes have them): the
    /// end needs only what was noted of them.
    pub fn forget_syncs(&mut self) {
        self.info.sync.clear();
    }

    /// Whether the process has started threads so far (a recorded parallel region or
    /// `pthread_create`).
    pub fn threads_started(&self) -> bool {
        !self.info.parallel_regions.is_empty() || !self.thread_starts.is_empty()
    }

    /// The rank's thread information; `site` resolves a call site address.
    pub fn finish(mut self, mut site: impl FnMut(u64) -> SiteId) -> ThreadInfo {
        for (region, &address) in self
            .info
            .parallel_regions
            .iter_mut()
            .zip(&self.region_sites)
        {
            region.site = site(address);
        }
        // A started thread's first step acquires its start object.
        let started_by_object = std::mem::take(&mut self.started_by_object);
        let mut starts = std::mem::take(&mut self.thread_starts);
        for (start, object, address) in &mut starts {
            start.site = site(*address);
            start.started = started_by_object.get(object).copied();
        }
        self.info.thread_starts = starts.into_iter().map(|(start, ..)| start).collect();
        if self.untracked {
            // Unordered calls may be ordered by what was not recorded: claim nothing.
            self.info.sync_recorded = false;
        }
        // Team sizes: the threads that entered each region.
        // A start object released again counts for its last release alone.
        let token_of: HashMap<u64, usize> = self
            .region_tokens
            .iter()
            .enumerate()
            .map(|(i, &token)| (token, i))
            .collect();
        let team = |token: u64| {
            self.token_members
                .get(&token)
                .map_or(0, |members| members.len() as u32)
        };
        for (i, region) in self.info.parallel_regions.iter_mut().enumerate() {
            region.threads = match self.region_tokens.get(i) {
                Some(&token) if token_of.get(&token) == Some(&i) => team(token),
                _ => 0,
            };
        }
        for (block, &token) in self.info.workshares.iter_mut().zip(&self.workshare_teams) {
            let token = object(NS_REGION_START, token);
            block.team = if token_of.contains_key(&token) {
                team(token)
            } else {
                0
            };
        }
        self.info
    }
}

/// The vector clocks of one rank's threads, advanced record by record in record order (calls
/// and synchronization records interleaved): what `HappensBefore` computes for a whole
/// rank, and what a streaming check keeps while the records come (each thread's current
/// clock and each synchronization object's, not one clock per call).
///
/// A thread's first record decides whether its origin is known: the process's first thread
/// (the main thread), or a thread whose first record acquires a start object (a parallel
/// region's or `pthread_create`'s) that an earlier record released. Threads of unknown
/// origin are never reported as possibly concurrent.
///
/// Objects that no record can acquire again are dropped (a parallel region's objects once
/// the region ended, a thread's start object once the thread took it), so the state is
/// bounded by the threads and the live objects, not by the regions run.
#[derive(Default)]
pub struct ThreadClocks {
    /// Thread id → dense slot, in the order threads first appeared.
    slot_of: FxHashMap<u16, usize>,
    /// The thread in slot 0 (the rank's first): most calls are its, found without hashing.
    first: Option<u16>,
    /// By slot: the thread's origin is known.
    known: Vec<bool>,
    /// By slot: the thread's current clock (components past the end are 0).
    clocks: Vec<Vec<u32>>,
    /// By slot: the thread's last record released its region share's end or its own end:
    /// its next record, if any, acquires a start object.
    parked: Vec<bool>,
    /// Clocks of the objects released so far.
    objects: HashMap<u64, Vec<u32>>,
    /// Start objects a new thread may still acquire first: released `pthread_create` starts
    /// not yet taken, regions whose team may still be assembling (until a team barrier
    /// completes or the region ends).
    live_starts: HashSet<u64>,
}

impl ThreadClocks {
    /// The slot of `thread`, registered now if it had no record before (`first_is_start`:
    /// its first record acquires `start`).
    fn slot(&mut self, thread: u16, start: Option<u64>) -> usize {
        if let Some(slot) = self.slot_of_thread(thread) {
            return slot;
        }
        let slot = self.slot_of.len();
        let known = self.slot_of.is_empty()
            || start.is_some_and(|o| is_start_object(o) && self.objects.contains_key(&o));
        self.slot_of.insert(thread, slot);
        if slot == 0 {
            self.first = Some(thread);
        }
        self.known.push(known);
        self.parked.push(false);
        let mut clock = vec![0; slot + 1];
        clock[slot] = 1;
        self.clocks.push(clock);
        slot
    }

    /// A call of `thread` enters: its slot (its clock is the call's entry clock).
    pub fn call(&mut self, thread: u16) -> usize {
        let slot = match self.first {
            Some(first) if first == thread => 0,
            _ => self.slot(thread, None),
        };
        self.parked[slot] = false;
        slot
    }

    /// A synchronization record.
    pub fn sync(&mut self, s: &SyncEvent) {
        let acquired = (s.kind == SyncKind::Acquire).then_some(s.object);
        let t = self.slot(s.thread, acquired);
        self.parked[t] = false;
        match s.kind {
            SyncKind::Release => {
                let clock = &self.clocks[t];
                let obj = self.objects.entry(s.object).or_default();
                if obj.len() < clock.len() {
                    obj.resize(clock.len(), 0);
                }
                for (o, c) in obj.iter_mut().zip(clock) {
                    *o = (*o).max(*c);
                }
                self.clocks[t][t] += 1;
                match s.object >> NS_SHIFT {
                    NS_REGION_START | NS_THREAD_START => {
                        self.live_starts.insert(s.object);
                    }
                    NS_REGION_END | NS_THREAD_END => self.parked[t] = true,
                    _ => {}
                }
            }
            SyncKind::Acquire => {
                if let Some(obj) = self.objects.get(&s.object) {
                    let clock = &mut self.clocks[t];
                    if clock.len() < obj.len() {
                        clock.resize(obj.len(), 0);
                    }
                    for (c, o) in clock.iter_mut().zip(obj) {
                        *c = (*c).max(*o);
                    }
                }
                let value = s.object & ((1 << NS_SHIFT) - 1);
                match s.object >> NS_SHIFT {
                    // A started thread takes its start once.
                    NS_THREAD_START => {
                        self.live_starts.remove(&s.object);
                        self.objects.remove(&s.object);
                    }
                    // A team barrier completed: every member of the team has started.
                    NS_BARRIER => {
                        self.live_starts.remove(&object(NS_REGION_START, value));
                    }
                    // The region ended: nothing acquires its objects again.
                    NS_REGION_END => {
                        self.live_starts.remove(&object(NS_REGION_START, value));
                        for ns in [NS_REGION_START, NS_REGION_END, NS_BARRIER, NS_ORDERED] {
                            self.objects.remove(&object(ns, value));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The current clock of the thread in `slot`.
    pub fn clock(&self, slot: usize) -> &[u32] {
        &self.clocks[slot]
    }

    /// Component `of` of the clock of the thread in `slot`: how much of thread `of` it has
    /// seen.
    pub fn seen(&self, slot: usize, of: usize) -> u32 {
        self.clocks[slot].get(of).copied().unwrap_or(0)
    }

    /// The thread's own epoch: what a call it makes now is stamped with.
    pub fn epoch(&self, slot: usize) -> u32 {
        self.clocks[slot][slot]
    }

    /// Whether one thread has run so far and none is being started: every call so far
    /// happens before every later call.
    pub fn single(&self) -> bool {
        self.clocks.len() == 1 && self.live_starts.is_empty()
    }

    /// How many threads and synchronization objects the clocks hold.
    pub fn held(&self) -> (usize, usize) {
        (self.clocks.len(), self.objects.len())
    }

    pub fn known(&self, slot: usize) -> bool {
        self.known[slot]
    }

    pub fn slot_of_thread(&self, thread: u16) -> Option<usize> {
        if self.first == Some(thread) {
            return Some(0);
        }
        self.slot_of.get(&thread).copied()
    }

    /// How much of thread `of` every later call of another thread of known origin will
    /// have seen at least: a call of `of` with an epoch up to this happens before all of
    /// them. The least of the threads' current clocks (a parked thread's next record takes
    /// a start object) and of the start objects a new thread may still take first.
    pub fn floor(&self, of: usize) -> u32 {
        let threads = (0..self.clocks.len())
            .filter(|&t| t != of && self.known[t] && !self.parked[t])
            .map(|t| self.seen(t, of));
        let starts = self.live_starts.iter().map(|o| {
            self.objects
                .get(o)
                .and_then(|c| c.get(of))
                .copied()
                .unwrap_or(0)
        });
        threads.chain(starts).fold(self.epoch(of), u32::min)
    }
}

/// Happens-before between the calls of one rank's threads, from the recorded
/// synchronization (vector clocks): one clock per call, for the whole-rank form of the
/// thread checks that their pass is tested against. Meaningful only when the trace recorded synchronization
/// ([`ThreadInfo::sync_recorded`]); threads whose start was not recorded (started by a
/// library rather than the program, or before recording) are left out: nothing is known
/// about what orders them.
#[cfg(test)]
pub struct HappensBefore {
    /// Thread id → dense slot.
    slot_of: HashMap<u16, usize>,
    /// Per event: the clock of its thread when it entered (empty when unknown).
    enter: Vec<Vec<u32>>,
    /// Per event: its thread's own epoch while it ran, `u32::MAX` if it never returned.
    epoch: Vec<u32>,
    known: Vec<bool>,
}

#[cfg(test)]
impl HappensBefore {
    /// None when nothing can be said (synchronization not recorded, or a single thread).
    pub fn of(rank: &RankTrace) -> Option<HappensBefore> {
        if !rank.threads.sync_recorded {
            return None;
        }
        // Record order of calls and synchronization together.
        enum Item<'a> {
            Call(usize, &'a Event),
            Sync(&'a SyncEvent),
        }
        let mut items: Vec<(u64, Item)> = Vec::new();
        for (i, e) in rank.events.iter().enumerate() {
            let t = e.time?;
            items.push((t.order, Item::Call(i, e)));
        }
        for s in &rank.threads.sync {
            items.push((s.order, Item::Sync(s)));
        }
        items.sort_by_key(|(order, _)| *order);
        let mut clocks = ThreadClocks::default();
        let mut enter = vec![Vec::new(); rank.events.len()];
        let mut epoch = vec![u32::MAX; rank.events.len()];
        for (_, item) in &items {
            match item {
                Item::Call(i, e) => {
                    let t = clocks.call(e.thread);
                    enter[*i] = clocks.clock(t).to_vec();
                    if e.returned {
                        epoch[*i] = clocks.epoch(t);
                    }
                }
                Item::Sync(s) => clocks.sync(s),
            }
        }
        if clocks.slot_of.len() < 2 {
            return None;
        }
        Some(HappensBefore {
            known: clocks.known.clone(),
            slot_of: clocks.slot_of.into_iter().collect(),
            enter,
            epoch,
        })
    }

    fn slot(&self, rank: &RankTrace, event: usize) -> Option<usize> {
        self.slot_of.get(&rank.events.get(event)?.thread).copied()
    }

    /// Whether `a` returned before `b` entered through recorded synchronization (or program
    /// order on one thread).
    pub fn ordered(&self, rank: &RankTrace, a: usize, b: usize) -> bool {
        let (Some(ta), Some(tb)) = (self.slot(rank, a), self.slot(rank, b)) else {
            return false;
        };
        if ta == tb {
            return a < b;
        }
        self.enter[b].get(ta).is_some_and(|&c| c >= self.epoch[a])
    }

    /// Whether two calls of different threads could run at the same time in some run:
    /// nothing recorded orders them either way, and both threads' starts are known.
    pub fn unordered(&self, rank: &RankTrace, a: usize, b: usize) -> bool {
        let (Some(ta), Some(tb)) = (self.slot(rank, a), self.slot(rank, b)) else {
            return false;
        };
        ta != tb
            && self.known[ta]
            && self.known[tb]
            && !self.ordered(rank, a, b)
            && !self.ordered(rank, b, a)
    }

    /// The first call among `candidates` (calls of one other thread, in program order) that
    /// `b` does not follow: every earlier one happens before `b`. Binary search: a thread's
    /// epochs only grow.
    pub fn first_not_before(&self, b: usize, candidates: &[usize], thread_slot: usize) -> usize {
        let seen = self.enter[b].get(thread_slot).copied().unwrap_or(0);
        candidates.partition_point(|&a| self.epoch[a] <= seen)
    }

    pub fn slot_of_thread(&self, thread: u16) -> Option<usize> {
        self.slot_of.get(&thread).copied()
    }
}

/// Two calls' intervals intersect: both were inside MPI at the same moment.
#[cfg(test)]
pub fn overlap(a: &Event, b: &Event) -> bool {
    let (Some(ta), Some(tb)) = (a.time, b.time) else {
        return false;
    };
    let a_end = ta.exit_ns.unwrap_or(u64::MAX);
    let b_end = tb.exit_ns.unwrap_or(u64::MAX);
    ta.enter_ns < b_end && tb.enter_ns < a_end
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_trace::builder::{decoded_call, decoded_trace};

    #[test]
    fn worksharing_blocks_end_at_the_threads_next_record() {
        let schema = "0 MPICHECK_Sync what:INT:in:s object:INT:in:s\n";
        let sync = |seq: u64, thread: u16, what: i64, object: u64, site: u64| {
            let mut c = decoded_call(0, vec![what, object as i64], site, true);
            c.seq = seq;
            c.thread = thread;
            c
        };
        let team = 7;
        let start = object(NS_REGION_START, team);
        let calls = vec![
            sync(1, 0, SYNC_REGION_BEGIN, team, 10),
            sync(2, 0, SYNC_ACQUIRE, start, 11),
            sync(3, 1, SYNC_ACQUIRE, start, 11),
            // Thread 0 runs a single (ends at its barrier), thread 1 a section (ends at an
            // explicit end record), thread 0 another single (never ended).
            sync(4, 0, SYNC_WORKSHARE_BEGIN, object(NS_SINGLE, team), 20),
            sync(5, 1, SYNC_WORKSHARE_BEGIN, object(NS_SECTION, team), 21),
            sync(6, 0, SYNC_RELEASE, object(NS_BARRIER, team), 22),
            sync(7, 1, 7, 0, 23),
            sync(8, 0, SYNC_WORKSHARE_BEGIN, object(NS_SINGLE, team), 24),
        ];
        let trace = decoded_trace(0, 1, 0, schema, &[], calls.clone());
        let mut builder = ThreadInfoBuilder::new(&trace);
        for c in &calls {
            assert!(builder.sync_record(trace.schema.function(0).unwrap(), c));
        }
        let info = builder.finish(|address| SiteId(address as u32));
        let blocks: Vec<(u16, Workshare, u64, u64, u32)> = info
            .workshares
            .iter()
            .map(|b| (b.thread, b.construct, b.begin_order, b.end_order, b.team))
            .collect();
        assert_eq!(
            blocks,
            vec![
                (0, Workshare::Single, 4, 6, 2),
                (1, Workshare::Section, 5, 7, 2),
                (0, Workshare::Single, 8, u64::MAX, 2),
            ]
        );
        // They are no synchronization.
        assert_eq!(info.sync.len(), 4);
    }
}
