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

/// A message not taken yet, or taken behind one that is not.
struct Msg {
    send: usize,
    tag: i32,
    taken: bool,
}

/// A receive not paired yet.
struct OpenRecv {
    comm: CommId,
    source: Option<Source>,
    tag: TagMatch,
    matched: Option<(Rank, i32)>,
    /// Its match can no longer change.
    resolved: bool,
}

enum Want {
    /// Its match may still come.
    Unresolved,
    /// It takes no message.
    Nothing,
    From {
        sender: Rank,
        tag: Option<i32>,
    },
}

impl OpenRecv {
    fn want(&self) -> Want {
        if !self.resolved {
            return Want::Unresolved;
        }
        match (self.matched, self.source) {
            (Some((sender, tag)), _) => Want::From {
                sender,
                tag: Some(tag),
            },
            (None, Some(Source::Rank(sender))) => Want::From {
                sender,
                tag: match self.tag {
                    TagMatch::Tag(t) => Some(t),
                    TagMatch::Any => None,
                },
            },
            _ => Want::Nothing,
        }
    }

    /// Whether this receive, its match still to come, may take a message from `sender`
    /// with `tag` on its communicator: a status names the source and tag asked for, when
    /// one was (and no source for `MPI_PROC_NULL`).
    fn may_take(&self, sender: Rank, tag: i32) -> bool {
        let source = match self.source {
            Some(Source::Rank(s)) => s == sender,
            Some(Source::Any) => true,
            None => false,
        };
        source
            && match self.tag {
                TagMatch::Tag(t) => t == tag,
                TagMatch::Any => true,
            }
    }
}

/// What pairing found for a receive.
enum Paired {
    Took(usize, SendKey),
    /// It takes no message (it was never matched, or no message it accepts comes).
    Never(usize),
}

/// Messages and receives not paired yet.
#[derive(Default)]
struct Pairing {
    /// By (sender, receiver, communicator), in send order, from the first not taken.
    streams: FxHashMap<(Rank, Rank, CommId), VecDeque<Msg>>,
    /// By receiver, its receives not paired yet, by occurrence (posting order), and
    /// whether [`Pairing::drain`] just paired it.
    open: Vec<VecDeque<(usize, OpenRecv, bool)>>,
    /// How many streams there were after empty ones were last dropped.
    kept: usize,
    /// [`Pairing::drain`]'s lists (kept for their memory): earlier receives that may take
    /// a message known now, unresolved ones (by position in `open`), and resolved ones
    /// held back by them (sender, communicator, tag).
    unresolved: Vec<usize>,
    held: Vec<(Rank, CommId, Option<i32>)>,
}

impl Pairing {
    fn open_of(&mut self, receiver: Rank) -> &mut VecDeque<(usize, OpenRecv, bool)> {
        let r = receiver as usize;
        if self.open.len() <= r {
            self.open.resize_with(r + 1, VecDeque::new);
        }
        &mut self.open[r]
    }

    /// The open receive `j` of `receiver`.
    fn open_recv(&mut self, receiver: Rank, j: usize) -> Option<&mut OpenRecv> {
        let open = self.open_of(receiver);
        let at = open.binary_search_by_key(&j, |&(j, ..)| j).ok()?;
        Some(&mut open[at].1)
    }

    /// Pairs what can be paired for sure among the receives of `receiver`.
    fn drain(&mut self, receiver: Rank, out: &mut Vec<Paired>) {
        let Pairing {
            streams,
            open,
            kept,
            unresolved,
            held,
        } = self;
        let Some(open) = open.get_mut(receiver as usize) else {
            return;
        };
        unresolved.clear();
        held.clear();
        let mut any = false;
        for at in 0..open.len() {
            let (j, o, _) = &open[at];
            let (j, comm) = (*j, o.comm);
            let (sender, tag) = match o.want() {
                Want::Unresolved => {
                    unresolved.push(at);
                    continue;
                }
                Want::Nothing => {
                    open[at].2 = true;
                    any = true;
                    out.push(Paired::Never(j));
                    continue;
                }
                Want::From { sender, tag } => (sender, tag),
            };
            let Some(stream) = streams.get_mut(&(sender, receiver, comm)) else {
                continue;
            };
            let Some(m) = stream
                .iter_mut()
                .find(|m| !m.taken && tag.is_none_or(|t| t == m.tag))
            else {
                continue;
            };
            let contested = unresolved.iter().any(|&u| {
                let u = &open[u].1;
                u.comm == comm && u.may_take(sender, m.tag)
            }) || held
                .iter()
                .any(|&(s, c, t)| s == sender && c == comm && t.is_none_or(|t| t == m.tag));
            if contested {
                held.push((sender, comm, tag));
                continue;
            }
            m.taken = true;
            out.push(Paired::Took(j, (sender, m.send)));
            while stream.front().is_some_and(|m| m.taken) {
                stream.pop_front();
            }
            open[at].2 = true;
            any = true;
        }
        if any {
            open.retain(|&(_, _, paired)| !paired);
        }
        // Streams emptied stay for their next message (no allocation per message); they
        // are dropped when there are many more than when they were last dropped.
        if streams.len() > 2 * *kept + 64 {
            streams.retain(|_, s| !s.is_empty());
            *kept = streams.len();
        }
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.streams.values().map(VecDeque::len).sum::<usize>()
            + self.open.iter().map(VecDeque::len).sum::<usize>()
    }
}

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
mod tests {
    use super::super::{proofs_of, RankOps};
    use super::*;
    use crate::checks::pass::interleavings;
    use crate::model::{Blocking, Op, Run};
    use crate::text_trace::parse;

    /// Feeds `run`'s events in `order` (each entry names the rank whose next event comes),
    /// with the matches of nonblocking receives known at their events or, `late`, coming
    /// just before the wait or test that completed them (after the rank's last event if
    /// none did), as while the traces are normalized.
    fn feed(
        run: &Run,
        order: &[Rank],
        late: bool,
        mut event: impl FnMut(Rank, usize, &Event),
        mut matched: impl FnMut(Rank, usize, (Rank, i32)),
    ) {
        let n = run.ranks.len();
        let mut next = vec![0; n];
        // By rank: the receives whose match is still to come, (request, event, match).
        type Late = Vec<(ReqId, usize, (Rank, i32))>;
        let mut pending: Vec<Late> = vec![Vec::new(); n];
        for &rank in order {
            let r = rank as usize;
            let index = next[r];
            next[r] += 1;
            let mut e = run.ranks[r].events[index].clone();
            if late {
                if let Op::Wait {
                    requests,
                    completed,
                    ..
                }
                | Op::RequestStatus {
                    requests,
                    completed,
                    ..
                } = &e.op
                {
                    let done: Vec<ReqId> =
                        crate::checks::request::completed_requests(requests, completed).collect();
                    pending[r].retain(|&(request, at, m)| {
                        let now = done.contains(&request);
                        if now {
                            matched(rank, at, m);
                        }
                        !now
                    });
                }
                if let Op::Recv {
                    recv,
                    blocking: Blocking::Nonblocking(request),
                }
                | Op::Sendrecv {
                    recv,
                    blocking: Blocking::Nonblocking(request),
                    ..
                } = &mut e.op
                {
                    if let Some(m) = recv.matched.take() {
                        pending[r].push((*request, index, m));
                    }
                }
            }
            event(rank, index, &e);
            if next[r] == run.ranks[r].events.len() {
                for (_, at, m) in pending[r].drain(..) {
                    matched(rank, at, m);
                }
            }
        }
    }

    fn intra(run: &Run) -> impl Fn(CommId) -> bool + '_ {
        |comm| {
            run.comms
                .get(comm.0 as usize)
                .is_some_and(|c| c.remote.is_none())
        }
    }

    /// The proofs [`LiveProofs`] finds fed in `order`, and the most entries it held.
    fn live(run: &Run, order: &[Rank], late: bool) -> (Proofs, usize) {
        let proofs = std::cell::RefCell::new(LiveProofs::default());
        let mut most = 0;
        let members = |comm: CommId, rank: Rank| {
            run.comms
                .get(comm.0 as usize)
                .map_or((0, None), |c| (c.members.len(), c.rank_of(rank)))
        };
        feed(
            run,
            order,
            late,
            |rank, i, e| {
                let mut p = proofs.borrow_mut();
                p.event(rank, i, e, intra(run), &members);
                most = most.max(p.held());
            },
            |rank, i, m| proofs.borrow_mut().matched(rank, i, m),
        );
        (proofs.into_inner().finish(), most)
    }

    /// The proofs of the whole skeleton ([`proofs_of`]) fed in `order`: the walk's
    /// computation before issue 14.
    fn whole(run: &Run, order: &[Rank], late: bool) -> Proofs {
        let n = run.ranks.len();
        let ranks = std::cell::RefCell::new(
            (0..n)
                .map(|_| (RankOpsBuilder::default(), RankOps::default()))
                .collect::<Vec<_>>(),
        );
        feed(
            run,
            order,
            late,
            |rank, i, e| {
                let (b, o) = &mut ranks.borrow_mut()[rank as usize];
                b.event(i, e, intra(run), o);
            },
            |rank, i, m| {
                let (b, o) = &mut ranks.borrow_mut()[rank as usize];
                b.matched(i, m, o);
            },
        );
        let ops: Vec<RankOps> = ranks.into_inner().into_iter().map(|(_, o)| o).collect();
        proofs_of(&ops, &|comm| run.comm(comm).members.clone())
    }

    /// Proofs as (sender, request, event), sorted.
    type Sorted = Vec<(Rank, u32, usize)>;

    fn sorted(proofs: &Proofs) -> Sorted {
        let mut out: Vec<_> = proofs.iter().map(|(&(r, q), &at)| (r, q.0, at)).collect();
        out.sort_unstable();
        out
    }

    /// Orders of the ranks' events besides [`interleavings`]: random ones.
    fn random_orders(run: &Run, seed: u64, count: usize) -> Vec<Vec<Rank>> {
        let mut rng = Rng(seed);
        (0..count)
            .map(|_| {
                let mut left: Vec<usize> = run.ranks.iter().map(|t| t.events.len()).collect();
                let mut order = Vec::new();
                while left.iter().any(|&l| l > 0) {
                    let ranks: Vec<usize> = (0..left.len()).filter(|&r| left[r] > 0).collect();
                    let r = ranks[rng.below(ranks.len())];
                    // Runs of a rank's events, as when one rank runs ahead.
                    for _ in 0..1 + rng.below(4) {
                        if left[r] > 0 {
                            left[r] -= 1;
                            order.push(r as Rank);
                        }
                    }
                }
                order
            })
            .collect()
    }

    /// Requires the live proofs of `run` to equal the whole skeleton's in every order, the
    /// matches known at their events and coming late; returns them.
    fn same_as_whole(run: &Run, seed: u64) -> Vec<(Rank, u32, usize)> {
        let reference = sorted(&whole(run, &interleavings(run)[0], false));
        let mut orders: Vec<Vec<Rank>> = interleavings(run).into_iter().collect();
        orders.extend(random_orders(run, seed, 3));
        for order in &orders {
            for late in [false, true] {
                let expected = sorted(&whole(run, order, late));
                let (found, _) = live(run, order, late);
                assert_eq!(
                    sorted(&found),
                    expected,
                    "fed in the order {order:?}, matches late: {late}"
                );
            }
        }
        reference
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn proofs_equal_the_whole_skeletons_on_fixtures() {
        type Fixture<'a> = (&'a str, &'a [(Rank, u32, usize)]);
        let fixtures: &[Fixture] = &[
            // MPI 4.1 Example 3.13: a reply after the receive.
            (
                "ranks 2
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: irecv src=1 tag=0 req=1
                 0: wait req=1
                 1: irecv src=0 tag=0 req=0
                 1: wait req=0
                 1: isend dest=0 tag=0 req=1
                 1: wait req=1",
                &[(0, 0, 3)],
            ),
            // Barriers: the one before the receive does not prove it, the allreduce does;
            // the broadcast does not (rank 0 depends on the root only).
            (
                "ranks 3
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: barrier
                 0: bcast root=2
                 0: allreduce
                 1: barrier
                 1: recv src=0 tag=0
                 1: bcast root=2
                 1: allreduce
                 2: barrier
                 2: bcast root=2
                 2: allreduce",
                &[(0, 0, 4)],
            ),
            // A chain through a third rank.
            (
                "ranks 3
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: recv src=2 tag=5
                 1: recv src=0 tag=0
                 1: send dest=2 tag=5
                 2: recv src=1 tag=5
                 2: send dest=0 tag=5",
                &[(0, 0, 2)],
            ),
            // Wildcard receives paired by their statuses only, which come late.
            (
                "ranks 2
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: irecv src=any tag=any req=1
                 0: wait req=1 matched=1:9
                 1: irecv src=any tag=any req=0
                 1: wait req=0 matched=0:0
                 1: send dest=0 tag=9",
                &[(0, 0, 3)],
            ),
            // The free comes long after the receive completed (and after the proof).
            (
                "ranks 2
                 0: isend dest=1 tag=3 req=0
                 0: recv src=1 tag=4
                 0: barrier
                 0: request_free req=0
                 1: recv src=0 tag=3
                 1: send dest=0 tag=4
                 1: barrier",
                &[(0, 0, 1)],
            ),
            // Two freed sends to one receiver, proved by different replies; one of rank 1
            // proved by a scan (rank 1 learns of rank 0 there, not the other way round).
            (
                "ranks 2
                 0: isend dest=1 tag=1 req=0
                 0: request_free req=0
                 0: isend dest=1 tag=2 req=1
                 0: request_free req=1
                 0: recv src=1 tag=7
                 0: scan
                 0: recv src=1 tag=8
                 1: recv src=0 tag=1
                 1: send dest=0 tag=7
                 1: recv src=0 tag=2
                 1: scan
                 1: send dest=0 tag=8
                 1: isend dest=0 tag=9 req=5
                 1: request_free req=5
                 1: scan
                 0: recv src=1 tag=9
                 0: scan",
                &[(0, 0, 4), (0, 1, 6), (1, 5, 7)],
            ),
            // Persistent sends (the last start is freed), MPI_PROC_NULL, a receive never
            // completed, a send nobody receives.
            (
                "ranks 2
                 0: send_init dest=1 tag=0 req=0
                 0: start req=0
                 0: wait req=0
                 0: start req=0
                 0: request_free req=0
                 0: isend dest=null tag=0 req=1
                 0: request_free req=1
                 0: isend dest=1 tag=6 req=2
                 0: request_free req=2
                 0: isend dest=1 tag=5 req=3
                 0: request_free req=3
                 0: barrier
                 1: recv src=0 tag=0
                 1: recv src=0 tag=0
                 1: irecv src=0 tag=6 req=0
                 1: barrier",
                &[(0, 0, 11), (0, 1, 5)],
            ),
            // A nonblocking barrier completed by a wait; a send freed after its reply was
            // tested; get_status before the free (no goal: the program knows).
            (
                "ranks 2
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: ibarrier req=1
                 0: wait req=1
                 0: isend dest=1 tag=1 req=2
                 0: request_get_status req=2 flag=1
                 0: request_free req=2
                 1: recv src=0 tag=0
                 1: ibarrier req=0
                 1: test req=0 flag=1
                 1: recv src=0 tag=1",
                &[(0, 0, 3)],
            ),
            // Sendrecv replies and a matched probe taking a message.
            (
                "ranks 2
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: send dest=1 tag=1
                 0: sendrecv dest=1 sendtag=2 src=1 recvtag=3
                 1: mprobe src=0 tag=any matched=0:0
                 1: mrecv
                 1: recv src=0 tag=1
                 1: sendrecv dest=0 sendtag=3 src=0 recvtag=2",
                &[],
            ),
            // A rank missing from a barrier: the others are stuck there at the end and go on
            // without it, the lowest first, which then skips the reply it waits for too
            // (knowing less only proves less).
            (
                "ranks 3
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: barrier
                 0: recv src=1 tag=1
                 1: recv src=0 tag=0
                 1: barrier
                 1: send dest=0 tag=1
                 2: other MPI_Comm_rank",
                &[],
            ),
            // Messages paired against the order of the calls (a cycle): stuck, rank 0 skips
            // its first receive, and rank 1's later send proves the freed one.
            (
                "ranks 2
                 0: recv src=1 tag=0
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: recv src=1 tag=1
                 1: recv src=0 tag=0
                 1: send dest=0 tag=0
                 1: send dest=0 tag=1",
                &[(0, 0, 3)],
            ),
        ];
        for (i, (text, expected)) in fixtures.iter().enumerate() {
            let run = parse(text).unwrap();
            assert_eq!(&same_as_whole(&run, i as u64 + 1), expected, "fixture {i}");
        }
    }

    /// A random program of `ranks` ranks: sends, receives (wildcards with statuses the way
    /// MPI gives them), frees, waits, collectives, in no consistent order (pairings the
    /// run could not have made end stuck).
    fn random_program(rng: &mut Rng, ranks: usize, calls: usize) -> String {
        let mut text = format!("ranks {ranks}\n");
        for me in 0..ranks {
            let mut next_req = 0;
            // (request, kind, source, tag): kind 0 send, 1 receive, 2 collective.
            let mut active: Vec<(u32, u8, Option<usize>, Option<u32>)> = Vec::new();
            let mut persistent: Vec<u32> = Vec::new();
            let peer = |rng: &mut Rng| (me + 1 + rng.below(ranks - 1)) % ranks;
            for _ in 0..calls {
                let tag = rng.below(3) as u32;
                let line = match rng.below(16) {
                    0 | 1 => {
                        let (q, to) = (next_req, peer(rng));
                        next_req += 1;
                        active.push((q, 0, None, None));
                        let dest = if rng.below(12) == 0 {
                            "null".to_string()
                        } else {
                            to.to_string()
                        };
                        format!("isend dest={dest} tag={tag} req={q}")
                    }
                    2 => format!("send dest={} tag={tag}", peer(rng)),
                    3 | 4 => {
                        let q = next_req;
                        next_req += 1;
                        let source = (rng.below(3) > 0).then(|| peer(rng));
                        let tag = (rng.below(3) > 0).then_some(tag);
                        active.push((q, 1, source, tag));
                        let src = source.map_or("any".to_string(), |s| s.to_string());
                        let tg = tag.map_or("any".to_string(), |t| t.to_string());
                        format!("irecv src={src} tag={tg} req={q}")
                    }
                    5 => {
                        let source = (rng.below(3) > 0).then(|| peer(rng));
                        let src = source.map_or("any".to_string(), |s| s.to_string());
                        let m = source.unwrap_or_else(|| peer(rng));
                        format!("recv src={src} tag={tag} matched={m}:{tag}")
                    }
                    6..=8 if !active.is_empty() => {
                        let (q, kind, source, t) = active.swap_remove(rng.below(active.len()));
                        let status = if kind == 1 && rng.below(4) > 0 {
                            let s = source.unwrap_or_else(|| peer(rng));
                            let t = t.unwrap_or(tag);
                            format!(" matched={s}:{t}")
                        } else {
                            String::new()
                        };
                        match rng.below(4) {
                            0 => format!("test req={q} flag=1{status}"),
                            1 if kind == 0 => {
                                active.push((q, kind, source, t));
                                format!("request_get_status req={q} flag=1")
                            }
                            _ => format!("wait req={q}{status}"),
                        }
                    }
                    9 | 10 if !active.is_empty() => {
                        let i = rng.below(active.len());
                        if active[i].1 == 2 {
                            continue;
                        }
                        let (q, ..) = active.swap_remove(i);
                        format!("request_free req={q}")
                    }
                    11 => "barrier".to_string(),
                    12 => match rng.below(4) {
                        0 => format!("bcast root={}", rng.below(ranks)),
                        1 => format!("reduce root={}", rng.below(ranks)),
                        2 => "scan".to_string(),
                        _ => "allreduce".to_string(),
                    },
                    13 => {
                        let q = next_req;
                        next_req += 1;
                        active.push((q, 2, None, None));
                        format!("ibarrier req={q}")
                    }
                    14 => {
                        if persistent.is_empty() || rng.below(3) == 0 {
                            let q = next_req;
                            next_req += 1;
                            persistent.push(q);
                            format!("send_init dest={} tag={tag} req={q}", peer(rng))
                        } else {
                            let q = persistent[rng.below(persistent.len())];
                            active.retain(|a| a.0 != q);
                            active.push((q, 0, None, None));
                            format!("start req={q}")
                        }
                    }
                    _ => {
                        let p = peer(rng);
                        format!("sendrecv dest={p} sendtag={tag} src={p} recvtag={tag}")
                    }
                };
                text.push_str(&format!("{me}: {line}\n"));
            }
        }
        text
    }

    #[test]
    fn proofs_equal_the_whole_skeletons_on_random_programs() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut proved = 0;
        for case in 0..200 {
            let ranks = 2 + rng.below(3);
            let calls = 10 + rng.below(30);
            let text = random_program(&mut rng, ranks, calls);
            let run = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let found = std::panic::catch_unwind(|| same_as_whole(&run, case));
            match found {
                Ok(found) => proved += found.len(),
                Err(e) => {
                    eprintln!("case {case}:\n{text}");
                    std::panic::resume_unwind(e);
                }
            }
        }
        // The programs do free sends that something proves.
        assert!(proved > 100, "{proved}");
    }

    /// A long run of `rounds` exchanges between two ranks: each sends, receives a reply
    /// (by a wildcard receive whose status comes at its wait), and meets the other in a
    /// barrier every tenth round; with `free`, rank 0 frees its send, which the reply
    /// proves.
    fn exchanges(rounds: usize, free: bool) -> Run {
        let mut text = String::from("ranks 2\n");
        for i in 0..rounds {
            let (a, b) = (2 * i, 2 * i + 1);
            text.push_str(&format!("0: isend dest=1 tag=1 req={a}\n"));
            if free {
                text.push_str(&format!("0: request_free req={a}\n"));
            } else {
                text.push_str("0: other MPI_Comm_rank\n");
            }
            text.push_str(&format!("0: irecv src=any tag=any req={b}\n"));
            if !free {
                text.push_str(&format!("0: wait req={a}\n"));
            } else {
                text.push_str("0: other MPI_Comm_rank\n");
            }
            text.push_str(&format!("0: wait req={b} matched=1:2\n"));
            text.push_str(&format!("1: irecv src=0 tag=any req={a}\n"));
            text.push_str(&format!("1: wait req={a} matched=0:1\n"));
            text.push_str(&format!("1: isend dest=0 tag=2 req={b}\n"));
            text.push_str("1: other MPI_Comm_rank\n");
            text.push_str(&format!("1: wait req={b}\n"));
            if i % 10 == 9 {
                text.push_str("0-1: barrier\n");
            }
        }
        parse(&text).unwrap()
    }

    #[test]
    fn the_proofs_hold_only_live_state_on_long_runs() {
        let rounds = 5_000;
        for free in [false, true] {
            let run = exchanges(rounds, free);
            // The ranks' calls alternating, as by entry time when they run in step.
            let order = &interleavings(&run)[1];
            for late in [false, true] {
                let (proofs, most) = live(&run, order, late);
                assert_eq!(proofs.len(), if free { rounds } else { 0 });
                assert!(most < 20, "free: {free}, late: {late}: {most} held");
            }
        }
        // Rank after rank, what one rank runs ahead is held (the order, not the calls).
        let run = exchanges(200, true);
        let (_, most) = live(&run, &interleavings(&run)[0], true);
        assert!(most > 1_000, "{most}");
    }
}
