//! The freed sends' proofs while the events stream, holding only what later events can
//! still need (issue 14), not every rank's skeleton of messages and collectives.
//!
//! [`LiveProofs`] finds what `proofs_of` finds from every rank's whole skeleton
//! ([`super::RankOps`]), in any interleaving of the ranks' events, with three parts that
//! each forget what is done:
//!
//! - Pairing. Messages not taken yet, per (sender, receiver, communicator), and per
//!   receiver the receives not paired yet, in posting order. A receive takes the first
//!   message not taken that it accepts, as [`super::pair_messages`] does for the receives
//!   in posting order, as soon as that is certain: when no earlier receive whose match is
//!   still to come ([`Sink::recv_matched`]) could take that message (by its source and tag:
//!   a status names the source and tag the receive asked for, when it asked for one) and
//!   no earlier receive held back that way could. A receive that accepts no message known
//!   yet waits for the next; an earlier receive that waits that way cannot take a message
//!   known now, so it does not hold later ones back.
//! - Actions. The clocks' actions ([`super::clocks`]) of each rank, in the same order,
//!   done as soon as what they need was done: a send's start, a collective's entry, the
//!   completion of a receive (once its message is known and started) or of a collective
//!   (once the members it depends on entered). What is done is forgotten; a receive
//!   completed before its message is known holds its rank's later actions until it is.
//!   Since every action waits for the same actions as in the whole run, the actions done
//!   before the end are ones the whole run does before it is stuck, and at the end the
//!   rest goes on as there, skipping the first blocked action of the lowest rank whenever
//!   all are stuck.
//! - Clocks. A receiver's progress is followed only while some send paired with one of
//!   its receives may need it: a freed send not proved yet, or an active send (it may be
//!   freed later) whose receive completed. Such a goal is known once its receive's message
//!   and completion are, before the receiver's actions after the completion are done, so
//!   what the clocks say of that receiver past the completion is exact. The sender's first
//!   action after which it knows of the completion proves the send; a send that completes
//!   otherwise drops its goal, and a receiver nobody waits on is no longer followed (its
//!   clock entries are under a key that is not reused).
//!
//! So a run without freed sends holds its pairing state, the actions and messages its
//! ranks run ahead of each other, its open collectives, and the goals of active sends
//! whose receives completed; freed sends proved soon add their goals until then. What
//! waits for the end: a receive whose match is still to come holds back later receives on
//! its communicator that could take the message it may take (and, once completed, its
//! rank's later actions); a completed receive that no message will ever match (its
//! sender's trace ended early) holds its rank's later actions; a freed send never proved
//! keeps its goal; messages nobody receives stay.

use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{dep, CollKey, CollOcc, Dep, Proofs, RankOpsBuilder, RecvOcc, Sink};
use crate::model::{CommId, Event, Rank, ReqId, SendSpec, Source, TagMatch};

/// A send: (sender, its send occurrence).
type SendKey = (Rank, usize);
/// A receive: (receiver, its receive occurrence).
type RecvKey = (Rank, usize);

mod pairing;
use pairing::{Msg, OpenRecv, Paired, Pairing};

/// What a rank does at one call for the clocks ([`super::clocks`]'s actions).
#[derive(Clone, Copy, Debug)]
enum Act {
    /// The start of send `send`: what the sender knows goes out (`keep`: a receive may
    /// take it).
    SendStart { send: usize, keep: bool },
    /// Entry into a collective instance, as the member with this communicator rank.
    CollEntry { inst: u64, me: u32 },
    /// The completion of a receive of this message.
    MessageIn(SendKey),
    /// The completion of a receive whose message is not known yet.
    Pending,
    /// The completion of a receive that took no message: no action.
    Skip,
    /// The completion of a collective instance, with what it depends on.
    CollOut { inst: u64, dep: Dep },
}

/// Per followed receiver (by key), how many of its calls are known complete: (key, a
/// prefix length), by key.
type Clock = Rc<Vec<(u32, u32)>>;

fn value(clock: &[(u32, u32)], key: u32) -> u32 {
    clock
        .binary_search_by_key(&key, |&(k, _)| k)
        .map_or(0, |i| clock[i].1)
}

/// What a rank knew at one call: its clock, plus its own position if it is followed.
#[derive(Clone)]
struct Known {
    clock: Clock,
    own: Option<(u32, u32)>,
}

/// Merges `from` into `into`, for the keys still followed (`live`).
fn merge(into: &mut Clock, from: &Known, live: &FxHashMap<u32, (Rank, usize)>) {
    if live.is_empty() {
        return;
    }
    let newer = |(k, v): (u32, u32)| live.contains_key(&k) && value(into, k) < v;
    if !(from.clock.iter().any(|&p| newer(p)) || from.own.is_some_and(newer)) {
        return;
    }
    let mut all: Vec<(u32, u32)> = (into.iter().chain(from.clock.iter()))
        .copied()
        .chain(from.own)
        .filter(|(k, _)| live.contains_key(k))
        .collect();
    all.sort_unstable();
    // The largest value of each key is its last.
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(all.len());
    for (k, v) in all {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 = v,
            _ => out.push((k, v)),
        }
    }
    *into = Rc::new(out);
}

/// One call of a collective operation by all members of its communicator.
struct Instance {
    /// (key, ordinal): how its members name it.
    name: (CollKey, u32),
    entries: Vec<Option<Known>>,
    arrived: usize,
    /// What all members knew on entry, once all have arrived.
    all: Option<Known>,
    waiters: Vec<Rank>,
    /// Members whose completion may still bring an action not done yet.
    unsettled: usize,
}

#[derive(Default)]
struct SimRank {
    /// The actions not done yet, in order.
    actions: VecDeque<(usize, Act)>,
    /// How many actions came before `actions[0]`.
    base: u64,
    clock: Clock,
    queued: bool,
    /// How many collectives of each kind the rank made (the instance's ordinal).
    ordinals: FxHashMap<CollKey, u32>,
}

/// An active send its rank may free.
struct LiveSend {
    request: ReqId,
    event: usize,
    dest_none: bool,
}

/// A receive not paired, or paired and not completed yet.
struct LiveRecv {
    pair: Option<SendKey>,
    completion: Option<usize>,
    /// No completion comes any more.
    over: bool,
}

/// A send to prove complete: freed, or active and perhaps freed later.
struct Goal {
    send: usize,
    key: u32,
    completion: usize,
    freed: bool,
    /// Where its sender learned of the completion (while not freed yet).
    proof: Option<usize>,
}

/// The actions one event makes, put in order when the event is done: what goes out
/// (sends, then collective entries), then what comes in (receives, then collectives), each
/// by occurrence.
#[derive(Default)]
struct EventActs {
    outs: Vec<(u8, usize, Act)>,
    ins: Vec<(u8, usize, Act)>,
}

#[derive(Default)]
struct Core {
    pairing: Pairing,
    /// Receivers with receives or messages to pair.
    dirty: Vec<Rank>,
    /// What pairing found (kept for its memory).
    found: Vec<Paired>,
    sends: FxHashMap<SendKey, LiveSend>,
    recvs: FxHashMap<RecvKey, LiveRecv>,
    /// Nonblocking collectives not completed yet: their instance and dependency.
    colls: FxHashMap<SendKey, (u64, Dep)>,
    /// Sends freed while active whose receive's completion is not known yet: their request.
    freed_unpaired: FxHashMap<SendKey, ReqId>,
    /// Sends taken by receives that never complete: their start keeps nothing.
    unneeded: FxHashSet<SendKey>,
    ev: EventActs,
    sims: Vec<SimRank>,
    queue: VecDeque<Rank>,
    /// Where each pending receive's action is (absolute index in its rank's actions).
    placeholders: FxHashMap<RecvKey, u64>,
    /// What each sender knew at the start of a send not received yet.
    snapshots: FxHashMap<SendKey, Known>,
    message_waiters: FxHashMap<SendKey, Rank>,
    instances: FxHashMap<u64, Instance>,
    instance_ids: FxHashMap<(CollKey, u32), u64>,
    next_instance: u64,
    /// The key each followed receiver's progress is under now.
    key_of: FxHashMap<Rank, u32>,
    /// Keys followed: the receiver, and how many goals not proved yet wait on it.
    live: FxHashMap<u32, (Rank, usize)>,
    next_key: u32,
    goals: FxHashMap<(Rank, ReqId), Goal>,
    /// By sender and key, the goals not proved yet: (completion, request).
    waiting: FxHashMap<Rank, FxHashMap<u32, BTreeSet<(usize, ReqId)>>>,
    proofs: Proofs,
}

/// The communicator size and the rank's place in it (none if not a member).
pub(crate) type Members<'a> = &'a dyn Fn(CommId, Rank) -> (usize, Option<u32>);

/// One rank's [`Sink`] into the [`Core`].
struct RankSink<'a, 'm> {
    core: &'a mut Core,
    rank: Rank,
    members: Members<'m>,
}

impl Sink for RankSink<'_, '_> {
    fn send(&mut self, i: usize, e: usize, spec: &SendSpec, request: Option<ReqId>) {
        let (core, r) = (&mut *self.core, self.rank);
        if let Some(request) = request {
            let send = LiveSend {
                request,
                event: e,
                dest_none: spec.dest.is_none(),
            };
            core.sends.insert((r, i), send);
        }
        let keep = spec.dest.is_some();
        core.ev.outs.push((0, i, Act::SendStart { send: i, keep }));
        if let Some(dest) = spec.dest {
            let message = Msg {
                send: i,
                tag: spec.tag,
                taken: false,
            };
            let stream = core.pairing.streams.entry((r, dest, spec.comm));
            stream.or_default().push_back(message);
            core.dirty(dest);
        }
    }

    fn recv(&mut self, j: usize, recv: RecvOcc, awaits_match: bool, completion_final: bool) {
        let (core, r) = (&mut *self.core, self.rank);
        let open = OpenRecv {
            comm: recv.comm,
            source: recv.source,
            tag: recv.tag,
            matched: recv.matched,
            resolved: !awaits_match,
        };
        core.pairing.open_of(r).push_back((j, open, false));
        let live = LiveRecv {
            pair: None,
            completion: recv.completion,
            over: completion_final,
        };
        core.recvs.insert((r, j), live);
        if recv.completion.is_some() {
            core.ev.ins.push((0, j, Act::Pending));
        }
        core.dirty(r);
    }

    fn recv_matched(&mut self, j: usize, matched: (Rank, i32)) {
        if let Some(o) = self.core.pairing.open_recv(self.rank, j) {
            o.matched = Some(matched);
        }
    }

    fn recv_settled(&mut self, j: usize) {
        if let Some(o) = self.core.pairing.open_recv(self.rank, j) {
            o.resolved = true;
            self.core.dirty(self.rank);
        }
    }

    fn recv_completed(&mut self, j: usize, e: usize) {
        let (core, r) = (&mut *self.core, self.rank);
        let Some(live) = core.recvs.get_mut(&(r, j)) else {
            return;
        };
        if live.completion.is_some() {
            return;
        }
        live.completion = Some(e);
        match live.pair {
            Some(send) => {
                core.recvs.remove(&(r, j));
                core.ev.ins.push((0, j, Act::MessageIn(send)));
                core.received(r, e, send);
            }
            None => core.ev.ins.push((0, j, Act::Pending)),
        }
    }

    fn recv_over(&mut self, j: usize) {
        let (core, r) = (&mut *self.core, self.rank);
        let Some(live) = core.recvs.get_mut(&(r, j)) else {
            return;
        };
        live.over = true;
        if let (None, Some(send)) = (live.completion, live.pair) {
            core.recvs.remove(&(r, j));
            core.unneeded(send);
        }
    }

    fn coll(&mut self, k: usize, coll: CollOcc, completion_final: bool) {
        let (core, r) = (&mut *self.core, self.rank);
        let key = coll.key;
        let ordinals = &mut core.sims[r as usize].ordinals;
        let ordinal = ordinals.entry(key).or_insert(0);
        let name = (key, *ordinal);
        *ordinal += 1;
        let (size, me) = (self.members)(key.comm, r);
        let Some(me) = me else {
            return;
        };
        let inst = match core.instance_ids.get(&name) {
            Some(&inst) => inst,
            None => {
                let inst = core.next_instance;
                core.next_instance += 1;
                core.instance_ids.insert(name, inst);
                let instance = Instance {
                    name,
                    entries: vec![None; size],
                    arrived: 0,
                    all: None,
                    waiters: Vec::new(),
                    unsettled: size,
                };
                core.instances.insert(inst, instance);
                inst
            }
        };
        core.ev.outs.push((1, k, Act::CollEntry { inst, me }));
        let dep = dep(key.kind, key.root, me);
        match coll.completion {
            _ if dep == Dep::Nothing => core.settle_member(inst),
            Some(_) => core.ev.ins.push((1, k, Act::CollOut { inst, dep })),
            None if completion_final => core.settle_member(inst),
            None => {
                core.colls.insert((r, k), (inst, dep));
            }
        }
    }

    fn coll_completed(&mut self, k: usize, _e: usize) {
        if let Some((inst, dep)) = self.core.colls.remove(&(self.rank, k)) {
            self.core.ev.ins.push((1, k, Act::CollOut { inst, dep }));
        }
    }

    fn coll_over(&mut self, k: usize) {
        if let Some((inst, _)) = self.core.colls.remove(&(self.rank, k)) {
            self.core.settle_member(inst);
        }
    }

    fn send_over(&mut self, i: usize) {
        self.core.send_over((self.rank, i));
    }

    fn freed(&mut self, request: ReqId, i: usize) {
        self.core.freed((self.rank, i), request);
    }
}

impl Core {
    fn dirty(&mut self, receiver: Rank) {
        if !self.dirty.contains(&receiver) {
            self.dirty.push(receiver);
        }
    }

    /// Puts the actions of event `e` of rank `r` in order, pairs what can be and does what
    /// can be done.
    fn flush(&mut self, r: Rank, e: usize) {
        if self.ev.outs.is_empty() && self.ev.ins.is_empty() && self.dirty.is_empty() {
            return;
        }
        let mut ev = std::mem::take(&mut self.ev);
        ev.outs.sort_by_key(|&(class, i, _)| (class, i));
        ev.ins.sort_by_key(|&(class, i, _)| (class, i));
        let sim = &mut self.sims[r as usize];
        for (_, _, act) in ev.outs.drain(..) {
            sim.actions.push_back((e, act));
        }
        for (class, j, act) in ev.ins.drain(..) {
            if class == 0 && matches!(act, Act::Pending) {
                let at = sim.base + sim.actions.len() as u64;
                self.placeholders.insert((r, j), at);
            }
            sim.actions.push_back((e, act));
        }
        self.ev = ev;
        self.wake(r);
        self.pair_dirty();
        self.run();
    }

    fn pair_dirty(&mut self) {
        let mut found = std::mem::take(&mut self.found);
        while let Some(receiver) = self.dirty.pop() {
            self.pairing.drain(receiver, &mut found);
            for p in found.drain(..) {
                match p {
                    Paired::Took(j, send) => self.took((receiver, j), send),
                    Paired::Never(j) => self.never((receiver, j)),
                }
            }
        }
        self.found = found;
    }

    /// Receive `recv` took the message of `send`.
    fn took(&mut self, recv: RecvKey, send: SendKey) {
        let Some(live) = self.recvs.get_mut(&recv) else {
            return;
        };
        live.pair = Some(send);
        match live.completion {
            Some(completion) => {
                self.recvs.remove(&recv);
                self.fill(recv, Act::MessageIn(send));
                self.received(recv.0, completion, send);
            }
            None if live.over => {
                self.recvs.remove(&recv);
                self.unneeded(send);
            }
            None => {}
        }
    }

    /// Receive `recv` takes no message.
    fn never(&mut self, recv: RecvKey) {
        if let Some(live) = self.recvs.remove(&recv) {
            if live.completion.is_some() {
                self.fill(recv, Act::Skip);
            }
        }
    }

    /// Replaces the pending action of `recv`.
    fn fill(&mut self, recv: RecvKey, act: Act) {
        if let Some(at) = self.placeholders.remove(&recv) {
            let sim = &mut self.sims[recv.0 as usize];
            if let Some(slot) = sim.actions.get_mut((at - sim.base) as usize) {
                slot.1 = act;
            }
            self.wake(recv.0);
        }
    }

    /// The message of `send` is taken by a receive that never completes.
    fn unneeded(&mut self, send: SendKey) {
        if self.snapshots.remove(&send).is_none() {
            self.unneeded.insert(send);
        }
    }

    /// The receive that took `send` completed at event `completion` of `receiver`: the send
    /// has a goal if it was freed or may still be.
    fn received(&mut self, receiver: Rank, completion: usize, send: SendKey) {
        let (request, freed) = match self.freed_unpaired.remove(&send) {
            Some(request) => (request, true),
            None => match self.sends.get(&send) {
                Some(s) => (s.request, false),
                None => return,
            },
        };
        let key = match self.key_of.get(&receiver) {
            Some(&key) => key,
            None => {
                let key = self.next_key;
                self.next_key += 1;
                self.key_of.insert(receiver, key);
                self.live.insert(key, (receiver, 0));
                key
            }
        };
        let (sender, i) = send;
        let goal = Goal {
            send: i,
            key,
            completion,
            freed,
            proof: None,
        };
        self.goals.insert((sender, request), goal);
        let waiting = self.waiting.entry(sender).or_default();
        waiting
            .entry(key)
            .or_default()
            .insert((completion, request));
        if let Some(live) = self.live.get_mut(&key) {
            live.1 += 1;
        }
    }

    /// One goal waiting on `key` is no longer.
    fn unwait(&mut self, key: u32) {
        let Some(live) = self.live.get_mut(&key) else {
            return;
        };
        live.1 -= 1;
        if live.1 == 0 {
            let receiver = live.0;
            self.live.remove(&key);
            if self.key_of.get(&receiver) == Some(&key) {
                self.key_of.remove(&receiver);
            }
        }
    }

    fn send_over(&mut self, send: SendKey) {
        let Some(s) = self.sends.remove(&send) else {
            return;
        };
        let id = (send.0, s.request);
        if !self
            .goals
            .get(&id)
            .is_some_and(|g| g.send == send.1 && !g.freed)
        {
            return;
        }
        let Some(goal) = self.goals.remove(&id) else {
            return;
        };
        if goal.proof.is_none() {
            if let Some(by_key) = self.waiting.get_mut(&send.0) {
                if let Some(set) = by_key.get_mut(&goal.key) {
                    set.remove(&(goal.completion, s.request));
                    if set.is_empty() {
                        by_key.remove(&goal.key);
                    }
                }
                if by_key.is_empty() {
                    self.waiting.remove(&send.0);
                }
            }
            self.unwait(goal.key);
        }
    }

    fn freed(&mut self, send: SendKey, request: ReqId) {
        let Some(s) = self.sends.remove(&send) else {
            return;
        };
        let id = (send.0, request);
        if s.dest_none {
            // MPI_PROC_NULL: complete at once.
            self.proofs.insert(id, s.event);
            return;
        }
        match self.goals.get_mut(&id) {
            Some(goal) if goal.send == send.1 => match goal.proof {
                Some(at) => {
                    self.proofs.entry(id).or_insert(at);
                    self.goals.remove(&id);
                }
                None => goal.freed = true,
            },
            _ => {
                self.freed_unpaired.insert(send, request);
            }
        }
    }

    fn settle_member(&mut self, inst: u64) {
        if let Some(i) = self.instances.get_mut(&inst) {
            i.unsettled -= 1;
        }
        self.maybe_drop(inst);
    }

    fn maybe_drop(&mut self, inst: u64) {
        let Some(i) = self.instances.get(&inst) else {
            return;
        };
        if i.arrived == i.entries.len() && i.unsettled == 0 {
            self.instance_ids.remove(&i.name);
            self.instances.remove(&inst);
        }
    }

    fn wake(&mut self, r: Rank) {
        let sim = &mut self.sims[r as usize];
        if !sim.queued {
            sim.queued = true;
            self.queue.push_back(r);
        }
    }

    fn run(&mut self) {
        while let Some(r) = self.queue.pop_front() {
            self.sims[r as usize].queued = false;
            self.advance(r);
        }
    }

    /// Does a rank's actions until one needs what is not done or known yet.
    fn advance(&mut self, r: Rank) {
        let ri = r as usize;
        while let Some(&(event, act)) = self.sims[ri].actions.front() {
            let known = || Known {
                clock: self.sims[ri].clock.clone(),
                own: self.key_of.get(&r).map(|&k| (k, event as u32)),
            };
            let done = match act {
                Act::Skip => {
                    self.pop(ri);
                    continue;
                }
                Act::Pending => false,
                Act::SendStart { send, keep } => {
                    if keep && !self.unneeded.remove(&(r, send)) {
                        let known = known();
                        self.snapshots.insert((r, send), known);
                    }
                    if let Some(w) = self.message_waiters.remove(&(r, send)) {
                        self.wake(w);
                    }
                    true
                }
                Act::CollEntry { inst, me } => {
                    let known = known();
                    if let Some(i) = self.instances.get_mut(&inst) {
                        if i.entries[me as usize].is_none() {
                            i.entries[me as usize] = Some(known);
                            i.arrived += 1;
                            for w in std::mem::take(&mut i.waiters) {
                                self.wake(w);
                            }
                        }
                    }
                    true
                }
                Act::MessageIn(send) => match self.snapshots.remove(&send) {
                    Some(snapshot) => {
                        merge(&mut self.sims[ri].clock, &snapshot, &self.live);
                        true
                    }
                    None => {
                        self.message_waiters.insert(send, r);
                        false
                    }
                },
                Act::CollOut { inst, dep } => self.collective_in(r, inst, dep),
            };
            if !done {
                return;
            }
            self.settle(r, event);
            self.pop(ri);
            match act {
                Act::CollEntry { inst, .. } => self.maybe_drop(inst),
                Act::CollOut { inst, .. } => self.settle_member(inst),
                _ => {}
            }
        }
    }

    fn pop(&mut self, ri: usize) {
        let sim = &mut self.sims[ri];
        sim.actions.pop_front();
        sim.base += 1;
    }

    /// Merges what a collective's result depends on, if all of it has arrived.
    fn collective_in(&mut self, r: Rank, inst: u64, d: Dep) -> bool {
        let Core {
            instances,
            sims,
            live,
            ..
        } = self;
        let Some(inst) = instances.get_mut(&inst) else {
            return true;
        };
        let from: Vec<Known> = match d {
            Dep::Nothing => Vec::new(),
            Dep::All if inst.arrived == inst.entries.len() => {
                let all = inst.all.get_or_insert_with(|| {
                    let mut clock = Clock::default();
                    for k in inst.entries.iter().flatten() {
                        merge(&mut clock, k, live);
                    }
                    Known { clock, own: None }
                });
                vec![all.clone()]
            }
            Dep::Root(root) if inst.entries.get(root as usize).is_none_or(Option::is_some) => inst
                .entries
                .get(root as usize)
                .cloned()
                .flatten()
                .into_iter()
                .collect(),
            Dep::Prefix(t) if inst.entries.iter().take(t as usize).all(Option::is_some) => inst
                .entries
                .iter()
                .take(t as usize)
                .flatten()
                .cloned()
                .collect(),
            _ => {
                inst.waiters.push(r);
                return false;
            }
        };
        for k in &from {
            merge(&mut sims[r as usize].clock, k, live);
        }
        true
    }

    /// Records the goals of `r` that it knows of at call `at`.
    fn settle(&mut self, r: Rank, at: usize) {
        let Some(by_key) = self.waiting.get_mut(&r) else {
            return;
        };
        let own = self.key_of.get(&r).copied();
        let clock = &self.sims[r as usize].clock;
        let mut proven: Vec<(u32, ReqId)> = Vec::new();
        for (&key, set) in by_key.iter_mut() {
            let mut known = value(clock, key);
            if own == Some(key) {
                known = known.max(at as u32);
            }
            while let Some(&(completion, request)) = set.first() {
                if completion as u64 >= known as u64 {
                    break;
                }
                set.pop_first();
                proven.push((key, request));
            }
        }
        if proven.is_empty() {
            return;
        }
        by_key.retain(|_, set| !set.is_empty());
        if by_key.is_empty() {
            self.waiting.remove(&r);
        }
        for (key, request) in proven {
            let id = (r, request);
            if let Some(goal) = self.goals.get_mut(&id) {
                if goal.freed {
                    self.proofs.entry(id).or_insert(at);
                    self.goals.remove(&id);
                } else {
                    goal.proof = Some(at);
                }
            }
            self.unwait(key);
        }
    }

    /// Everything not done yet: entries held for the pairing, the actions and the proofs.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.pairing.held()
            + self.sends.len()
            + self.recvs.len()
            + self.colls.len()
            + self.freed_unpaired.len()
            + self.unneeded.len()
            + self.sims.iter().map(|s| s.actions.len()).sum::<usize>()
            + self.placeholders.len()
            + self.snapshots.len()
            + self.message_waiters.len()
            + self.instances.len()
            + self.goals.len()
    }
}

/// The freed sends' proofs, fed each rank's events in order (the ranks interleaved in any
/// way), holding what later events can still need (see the module's documentation).
#[derive(Default)]
pub(crate) struct LiveProofs {
    builders: Vec<RankOpsBuilder>,
    core: Core,
}

impl LiveProofs {
    fn rank(&mut self, rank: Rank) {
        let r = rank as usize;
        if self.builders.len() <= r {
            self.builders.resize_with(r + 1, RankOpsBuilder::default);
        }
        if self.core.sims.len() <= r {
            self.core.sims.resize_with(r + 1, SimRank::default);
        }
    }

    /// The next event of `rank`, `e` its index; `intra` tells whether a communicator is an
    /// intracommunicator, `members` its size and the rank's place in it.
    pub(crate) fn event(
        &mut self,
        rank: Rank,
        e: usize,
        event: &Event,
        intra: impl Fn(CommId) -> bool,
        members: Members,
    ) {
        self.rank(rank);
        let mut sink = RankSink {
            core: &mut self.core,
            rank,
            members,
        };
        self.builders[rank as usize].event(e, event, intra, &mut sink);
        self.core.flush(rank, e);
    }

    /// Every member of `comm` (these ranks) freed it: no collective on it comes any more,
    /// so the members' counts of collectives on it go (unless a persistent collective
    /// request on it lives, which may still be started). Its instances go as they settle.
    pub(crate) fn comm_freed(&mut self, comm: CommId, members: impl Iterator<Item = Rank>) {
        if self.builders.iter().any(|b| b.persistent_on(comm)) {
            return;
        }
        for r in members {
            if let Some(sim) = self.core.sims.get_mut(r as usize) {
                sim.ordinals.retain(|key, _| key.comm != comm);
            }
        }
    }

    /// How many counts of collectives the ranks keep (for tests).
    #[cfg(test)]
    pub(crate) fn ordinals(&self) -> usize {
        self.core.sims.iter().map(|s| s.ordinals.len()).sum()
    }

    /// The source and tag that the receive of event `e` of `rank` matched, known after its
    /// event.
    pub(crate) fn matched(&mut self, rank: Rank, e: usize, matched: (Rank, i32)) {
        self.rank(rank);
        let mut sink = RankSink {
            core: &mut self.core,
            rank,
            members: &|_, _| (0, None),
        };
        self.builders[rank as usize].matched(e, matched, &mut sink);
    }

    /// The event (of the sender's rank) after which each freed active send is known
    /// complete, once every event was given.
    pub(crate) fn finish(mut self) -> Proofs {
        for (r, builder) in self.builders.iter_mut().enumerate() {
            let mut sink = RankSink {
                core: &mut self.core,
                rank: r as Rank,
                members: &|_, _| (0, None),
            };
            builder.finish(&mut sink);
        }
        let core = &mut self.core;
        // Every match is known: pair what can be; the rest takes no message.
        for r in 0..core.pairing.open.len() {
            core.dirty(r as Rank);
        }
        core.pair_dirty();
        for r in 0..core.pairing.open.len() {
            let left: Vec<usize> = std::mem::take(&mut core.pairing.open[r])
                .into_iter()
                .map(|(j, ..)| j)
                .collect();
            for j in left {
                core.never((r as Rank, j));
            }
        }
        for r in 0..core.sims.len() {
            core.wake(r as Rank);
        }
        core.run();
        // Everybody left waits: the pairing or the trace is incomplete. Go on without the
        // first missing piece (knowing less only proves less).
        while let Some(stuck) = (0..core.sims.len()).find(|&r| !core.sims[r].actions.is_empty()) {
            core.pop(stuck);
            core.wake(stuck as Rank);
            core.run();
        }
        std::mem::take(&mut core.proofs)
    }

    /// How many entries the proofs hold now (for tests).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.core.held()
    }

    /// How many receives of `rank` wait for their match (for tests).
    #[cfg(test)]
    pub(crate) fn unmatched(&self, rank: Rank) -> usize {
        self.builders
            .get(rank as usize)
            .map_or(0, |b| b.unmatched())
    }
}

#[cfg(test)]
mod tests;
