//! Vector clocks over the run, kept only for the ranks whose receive completions the goals
//! name.
//!
//! Each rank's calls that send knowledge (a send's start, the entry into a collective) and
//! that receive it (a receive's completion, a collective's completion) become actions in
//! call order. Ranks advance through their actions; a rank whose next action needs what
//! another rank has not sent yet waits for it, the way the run itself did.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::rc::Rc;

use super::{dep, CollKey, Dep, Goal, Pairs, Proofs, RankOps};
use crate::model::{CommId, Rank, ReqId};

/// What a rank does at one call for the clocks.
#[derive(Clone, Copy, Debug)]
enum Action {
    /// The start of a send (index into the rank's sends): what the sender knows goes out.
    SendStart(usize),
    /// Entry into a collective instance, as the member with this communicator rank.
    CollEntry(usize, u32),
    /// The completion of a receive of the message of (sender, send).
    MessageIn(Rank, usize),
    /// The completion of a collective instance, with what it depends on.
    CollOut(usize, Dep),
}

/// Per tracked rank, how many of its calls are known complete (a prefix length).
type Clock = Rc<Vec<u32>>;

/// What a rank knew at one call: its clock, plus its own position if it is tracked (kept
/// apart, so that a rank sending many messages in a row shares one clock among them).
#[derive(Clone)]
struct Known {
    clock: Clock,
    own: Option<(usize, u32)>,
}

fn merge(into: &mut Clock, from: &Known) {
    let behind = into.iter().zip(from.clock.iter()).any(|(a, b)| a < b)
        || from.own.is_some_and(|(s, v)| into[s] < v);
    if !behind {
        return;
    }
    let into = Rc::make_mut(into);
    for (a, b) in into.iter_mut().zip(from.clock.iter()) {
        *a = (*a).max(*b);
    }
    if let Some((s, v)) = from.own {
        into[s] = into[s].max(v);
    }
}

/// One call of a collective operation by all members of its communicator.
struct Instance {
    members: Vec<Rank>,
    entries: Vec<Option<Known>>,
    arrived: usize,
    /// What all members knew on entry, once all have arrived.
    all: Option<Known>,
    waiters: Vec<Rank>,
}

/// Goals of one rank per tracked slot, smallest completion first.
type GoalHeaps = HashMap<usize, BinaryHeap<Reverse<(usize, ReqId)>>>;

/// Each rank's actions in call order, by the call's event index.
type Actions = Vec<Vec<(usize, Action)>>;

struct Clocks<'a> {
    slot_of: HashMap<Rank, usize>,
    width: usize,
    actions: Actions,
    instances: Vec<Instance>,
    clocks: Vec<Clock>,
    cursor: Vec<usize>,
    /// What the sender knew at the start of each send not received yet.
    snapshots: HashMap<(Rank, usize), Known>,
    message_waiters: HashMap<(Rank, usize), Rank>,
    queue: VecDeque<Rank>,
    queued: Vec<bool>,
    blocked: Vec<bool>,
    goals: Vec<GoalHeaps>,
    proofs: &'a mut Proofs,
}

/// Finds the call at which each goal's sender learns of its receive's completion.
pub(super) fn prove(
    members: &dyn Fn(CommId) -> Vec<Rank>,
    ops: &[RankOps],
    pairs: &Pairs,
    goals: &[Goal],
    proofs: &mut Proofs,
) {
    let mut tracked: Vec<Rank> = goals.iter().map(|g| g.receiver).collect();
    tracked.sort_unstable();
    tracked.dedup();
    let slot_of: HashMap<Rank, usize> = tracked.iter().enumerate().map(|(s, &r)| (r, s)).collect();
    let n = ops.len();
    let mut heaps: Vec<GoalHeaps> = (0..n).map(|_| GoalHeaps::new()).collect();
    for g in goals {
        heaps[g.sender as usize]
            .entry(slot_of[&g.receiver])
            .or_default()
            .push(Reverse((g.completion, g.request)));
    }
    let (actions, instances) = actions(members, ops, pairs);
    let zero: Clock = Rc::new(vec![0; tracked.len()]);
    let mut clocks = Clocks {
        slot_of,
        width: tracked.len(),
        actions,
        instances,
        clocks: vec![zero; n],
        cursor: vec![0; n],
        snapshots: HashMap::new(),
        message_waiters: HashMap::new(),
        queue: (0..n as Rank).collect(),
        queued: vec![true; n],
        blocked: vec![false; n],
        goals: heaps,
        proofs,
    };
    clocks.run();
}

/// Every rank's actions in call order, and the collective instances they name.
fn actions(
    members: &dyn Fn(CommId) -> Vec<Rank>,
    ops: &[RankOps],
    pairs: &Pairs,
) -> (Actions, Vec<Instance>) {
    let mut instances: Vec<Instance> = Vec::new();
    let mut instance_ids: HashMap<(CollKey, u32), usize> = HashMap::new();
    let mut actions: Actions = vec![Vec::new(); ops.len()];
    for (rank, o) in ops.iter().enumerate() {
        let list = &mut actions[rank];
        for (i, s) in o.sends.iter().enumerate() {
            list.push((s.event, Action::SendStart(i)));
        }
        for (j, r) in o.recvs.iter().enumerate() {
            if let (Some(done), Some(&(sender, i))) = (r.completion, pairs.get(&(rank as Rank, j)))
            {
                list.push((done, Action::MessageIn(sender, i)));
            }
        }
        let mut ordinals: HashMap<CollKey, u32> = HashMap::new();
        for c in &o.colls {
            let ordinal = ordinals.entry(c.key).or_insert(0);
            let id = *instance_ids.entry((c.key, *ordinal)).or_insert_with(|| {
                let members = members(c.key.comm);
                instances.push(Instance {
                    entries: vec![None; members.len()],
                    members,
                    arrived: 0,
                    all: None,
                    waiters: Vec::new(),
                });
                instances.len() - 1
            });
            *ordinal += 1;
            let Some(me) = instances[id]
                .members
                .iter()
                .position(|&m| m == rank as Rank)
            else {
                continue;
            };
            list.push((c.entry, Action::CollEntry(id, me as u32)));
            if let Some(done) = c.completion {
                let d = dep(c.key.kind, c.key.root, me as u32);
                if d != Dep::Nothing {
                    list.push((done, Action::CollOut(id, d)));
                }
            }
        }
        // By call; at one call, what the rank knows on entry goes out before anything comes
        // in (a blocking collective or MPI_Sendrecv is both).
        list.sort_by_key(|&(e, a)| (e, matches!(a, Action::MessageIn(..) | Action::CollOut(..))));
    }
    (actions, instances)
}

impl Clocks<'_> {
    fn run(&mut self) {
        loop {
            while let Some(r) = self.queue.pop_front() {
                self.queued[r as usize] = false;
                self.blocked[r as usize] = false;
                self.advance(r);
            }
            // Everybody left waits: the pairing or the trace is incomplete. Go on without
            // the first missing piece (knowing less only proves less).
            let Some(stuck) = (0..self.blocked.len()).find(|&r| self.blocked[r]) else {
                break;
            };
            self.cursor[stuck] += 1;
            self.wake(stuck as Rank);
        }
    }

    fn wake(&mut self, r: Rank) {
        let ri = r as usize;
        self.blocked[ri] = false;
        if !self.queued[ri] {
            self.queued[ri] = true;
            self.queue.push_back(r);
        }
    }

    /// Runs a rank's actions until one needs what nobody has sent yet.
    fn advance(&mut self, r: Rank) {
        let ri = r as usize;
        while let Some(&(event, action)) = self.actions[ri].get(self.cursor[ri]) {
            let known = Known {
                clock: self.clocks[ri].clone(),
                own: self.slot_of.get(&r).map(|&s| (s, event as u32)),
            };
            let done = match action {
                Action::SendStart(i) => {
                    self.snapshots.insert((r, i), known);
                    if let Some(w) = self.message_waiters.remove(&(r, i)) {
                        self.wake(w);
                    }
                    true
                }
                Action::CollEntry(id, me) => {
                    let inst = &mut self.instances[id];
                    if inst.entries[me as usize].is_none() {
                        inst.entries[me as usize] = Some(known);
                        inst.arrived += 1;
                        for w in std::mem::take(&mut inst.waiters) {
                            self.wake(w);
                        }
                    }
                    true
                }
                Action::MessageIn(sender, i) => match self.snapshots.remove(&(sender, i)) {
                    Some(snapshot) => {
                        merge(&mut self.clocks[ri], &snapshot);
                        true
                    }
                    None => {
                        self.message_waiters.insert((sender, i), r);
                        false
                    }
                },
                Action::CollOut(id, d) => self.collective_in(r, id, d),
            };
            if !done {
                self.blocked[ri] = true;
                return;
            }
            self.settle(r, event);
            self.cursor[ri] += 1;
        }
    }

    /// Merges what a collective's result depends on, if all of it has arrived.
    fn collective_in(&mut self, r: Rank, id: usize, d: Dep) -> bool {
        let width = self.width;
        let inst = &mut self.instances[id];
        let from: Vec<Known> = match d {
            Dep::Nothing => Vec::new(),
            Dep::All if inst.arrived == inst.entries.len() => {
                let all = inst.all.get_or_insert_with(|| {
                    let mut clock = Rc::new(vec![0; width]);
                    for k in inst.entries.iter().flatten() {
                        merge(&mut clock, k);
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
            merge(&mut self.clocks[r as usize], k);
        }
        true
    }

    /// Records the goals of `r` that it knows of at call `at`.
    fn settle(&mut self, r: Rank, at: usize) {
        let ri = r as usize;
        let own = self.slot_of.get(&r).copied();
        for (&slot, heap) in self.goals[ri].iter_mut() {
            let known = if own == Some(slot) {
                self.clocks[ri][slot].max(at as u32)
            } else {
                self.clocks[ri][slot]
            };
            while let Some(&Reverse((completion, request))) = heap.peek() {
                if completion as u64 >= known as u64 {
                    break;
                }
                heap.pop();
                self.proofs.entry((r, request)).or_insert(at);
            }
        }
    }
}
