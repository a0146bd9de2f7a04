//! Other matchings of wildcard receives (DL003), played out from where they diverge.
//!
//! A replay that forces a wildcard receive to take another source is the strict replay up
//! to the moment that receive is matched: the forced source is read nowhere before. So one
//! strict replay runs, and at the first quiescent point after such a receive was posted it
//! is copied; the copy, told to force the receive, plays the alternative out step by step
//! (a step: the held-back wildcards matched, then every rank run until it blocks) beside
//! the strict replay, and stops as soon as both stand in the same state after the same
//! number of steps (every rank at the same operation, the same requests, messages,
//! held-back receives and collectives, whichever slots the requests took: both are
//! renumbered at each step, [`Engine::renumber_slots`]): from there the replay is
//! deterministic, so the alternative goes on as the strict replay does, which completed. A
//! master-worker loop gets back to the strict replay's state at the next point where every
//! rank waits for the others (a barrier, a round of replies), so an alternative costs the
//! rounds up to there, not a replay of the whole run. One that does not get back within
//! [`LOCKSTEP_LIMIT`] steps, or that would make more copies live at once than
//! [`LIVE_RANKS`] allows, is played out alone to its end, as before.

use super::*;

/// How an alternative matching of a wildcard receive plays out.
#[derive(Clone, Debug)]
pub enum Alternative {
    /// It gets back to the state of the strict replay, which completed: it completes too.
    Completes,
    /// Its replay to the end, the same as a replay forced from the start
    /// ([`ReplayOptions::forced`]) gives.
    Replay(Replay),
}

/// Steps an alternative is compared with the strict replay at, at most, before it is
/// played out alone to its end.
const LOCKSTEP_LIMIT: usize = 4096;

/// Copies of the replay kept at once, counted in ranks (each holds a state per rank): 64
/// alternatives play beside the strict replay up to 16,384 ranks, one at a million.
const LIVE_RANKS: usize = 1 << 20;

/// An alternative being played out beside the strict replay.
struct Playing<'t> {
    /// Its index in the alternatives.
    index: usize,
    replay: Engine<'t>,
    /// The steps it made since it was copied, as many as the strict replay's since then.
    steps: usize,
}

/// Plays out each of `alternatives` (each a receive forced to another source) from the
/// strict replay of `program` under `options` (which must force nothing), the replay run
/// once. By alternative: how it played out, or `None` where this replay cannot tell (a
/// rank calls MPI from several threads, or the receive was never posted): the caller then
/// replays it from the start.
pub fn explore_alternatives(
    program: &Program,
    options: &ReplayOptions,
    alternatives: &[ForcedMatch],
) -> Vec<Option<Alternative>> {
    debug_assert!(options.forced.is_none());
    let mut out: Vec<Option<Alternative>> = vec![None; alternatives.len()];
    if alternatives.is_empty() {
        return out;
    }
    let mut by_receive: FxHashMap<(Rank, u32), Vec<usize>> = FxHashMap::default();
    for (i, f) in alternatives.iter().enumerate() {
        by_receive
            .entry((f.rank, f.event as u32))
            .or_default()
            .push(i);
    }
    let mut strict = Engine::new(ReplaySource::Program(program.ops()), options);
    if !strict.lanes.single_threaded() {
        return out;
    }
    strict.watched = Some(by_receive.keys().copied().collect());
    // Each copy holds a state as large as the world: at most this many play beside the
    // strict replay at once; the others are played out alone as they come.
    let at_once = (LIVE_RANKS / strict.world as usize).clamp(1, alternatives.len());
    let mut playing: Vec<Playing> = Vec::new();
    strict.start_actors();
    loop {
        // Every copy made as many steps as the strict replay since it was made: the same
        // state goes on as the strict replay does, and completes.
        if !playing.is_empty() {
            strict.renumber_slots();
            for p in &mut playing {
                p.replay.renumber_slots();
            }
        }
        playing.retain(|p| {
            let back = p.replay.forced_matched == Some(true) && p.replay.same_state(&strict);
            if back {
                out[p.index] = Some(Alternative::Completes);
            }
            !back
        });
        for receive in std::mem::take(&mut strict.posted_watched) {
            // A persistent receive is posted again by each start: its first posting only.
            let Some(indices) = by_receive.remove(&receive) else {
                continue;
            };
            for index in indices {
                let forced = alternatives[index];
                let source = program.ops_from(strict.lanes.positions());
                let mut replay = strict.copy_onto(ReplaySource::Program(source));
                // The forced replay forces each posting of a persistent receive, the
                // strict one none: their states tell nothing.
                let persistent = replay.force(forced);
                if persistent || playing.len() >= at_once {
                    out[index] = Some(replay.play_to_the_end());
                } else {
                    playing.push(Playing {
                        index,
                        replay,
                        steps: 0,
                    });
                }
            }
        }
        if playing.is_empty() && by_receive.is_empty() {
            break;
        }
        if !strict.step() {
            // No more postings, and no state of the strict replay to get back to.
            for p in playing {
                out[p.index] = Some(p.replay.play_to_the_end());
            }
            break;
        }
        // (In place: a replay is too large a value to move at every step.)
        let mut i = 0;
        while i < playing.len() {
            let p = &mut playing[i];
            p.steps += 1;
            let went_on = p.replay.step();
            if went_on && p.steps < LOCKSTEP_LIMIT {
                i += 1;
                continue;
            }
            let p = playing.swap_remove(i);
            out[p.index] = Some(match went_on {
                true => p.replay.play_to_the_end(),
                false => Alternative::Replay(p.replay.finish()),
            });
        }
    }
    out
}

impl Engine<'_> {
    /// A copy of this replay reading from `src`, which stands where this one's source does.
    fn copy_onto<'t>(&self, src: ReplaySource<'t>) -> Engine<'t> {
        Engine {
            src,
            world: self.world,
            mode: self.mode,
            never_received: self.never_received.clone(),
            forced: self.forced,
            forced_matched: self.forced_matched,
            follow_doubtful: self.follow_doubtful,
            diverged: self.diverged.clone(),
            took_redirected: self.took_redirected.clone(),
            actors: self.actors.clone(),
            cur: self.cur.clone(),
            lanes: self.lanes.clone(),
            buffers: self.buffers.clone(),
            slots: self.slots.clone(),
            reqs: self.reqs.clone(),
            hidden: self.hidden.clone(),
            runq: self.runq.clone(),
            dests: self.dests.clone(),
            dest_ids: self.dest_ids.clone(),
            wild_heads: self.wild_heads.clone(),
            series: self.series.clone(),
            series_ids: self.series_ids.clone(),
            free_series: self.free_series.clone(),
            sweep_series_at: self.sweep_series_at,
            races: self.races.clone(),
            stats: self.stats,
            epochs: self.epochs.clone(),
            watched: None,
            posted_watched: Vec::new(),
            candidates: Vec::new(),
            spare_heads: Vec::new(),
            woken: Vec::new(),
            spare_queues: Vec::new(),
            spare_instances: Vec::new(),
            wildcard_sources: self.wildcard_sources.clone(),
            wildcard_tags: self.wildcard_tags.clone(),
            sends_named_wildcard: self.sends_named_wildcard.clone(),
            probed_wildcards: self.probed_wildcards.clone(),
            follows_tags: self.follows_tags,
            released_active: self.released_active.clone(),
        }
    }

    /// Runs this replay to its end.
    fn play_to_the_end(mut self) -> Alternative {
        while self.step() {}
        Alternative::Replay(self.finish())
    }

    /// Forces the posted receive of `forced` to its source, as a replay with
    /// [`ReplayOptions::forced`] would have from the start. Whether that receive is a
    /// persistent one (each start posts it again, forced again).
    fn force(&mut self, forced: ForcedMatch) -> bool {
        self.forced = Some(forced);
        self.forced_matched = Some(false);
        let mut persistent = false;
        for &did in &self.wild_heads {
            let ds = &mut self.dests[did as usize];
            if ds.rank != forced.rank {
                continue;
            }
            for d in ds.deferred.iter_mut() {
                if d.event as usize == forced.event {
                    d.preferred = forced.source;
                    d.forced = true;
                    persistent |= self
                        .slots
                        .get(d.slot)
                        .is_none_or(|s| s.keep & K_PERSISTENT != 0);
                }
            }
        }
        persistent
    }

    /// Numbers the live slots in the order the state names them (requests by rank and id,
    /// the blocking calls' slots, the queues, the collectives), all of generation 0, and
    /// makes every reference to a freed slot [`DEAD_SLOT`]. An alternative takes the
    /// messages of a round in another order and so frees and reuses slots in another
    /// order: without this, its state never equals the strict replay's once the round is
    /// over (a PETSc assembly's wildcard receives: every alternative played to the end).
    /// Which slot a request takes changes nothing the replay does, so the renumbered
    /// replay goes on as it would have.
    fn renumber_slots(&mut self) {
        let Engine {
            slots,
            reqs,
            hidden,
            dests,
            series,
            ..
        } = self;
        let mut keys: Vec<(u32, u32)> = reqs.keys().collect();
        keys.sort_unstable();
        // Old index -> new index, and the old indices in their new order.
        let mut new_index = vec![u32::MAX; slots.entries.len()];
        let mut order: Vec<u32> = Vec::with_capacity(slots.live());
        let mut number = |id: &mut SlotId| {
            if slots.get(*id).is_some() && new_index[*id as u32 as usize] == u32::MAX {
                new_index[*id as u32 as usize] = order.len() as u32;
                order.push(*id as u32);
            }
        };
        visit_slot_refs(&keys, reqs, hidden, dests, series, &mut number);
        // Live slots nothing names (none expected): after the others, in index order.
        for (i, free) in slots.free_mask().into_iter().enumerate() {
            if !free && new_index[i] == u32::MAX {
                new_index[i] = order.len() as u32;
                order.push(i as u32);
            }
        }
        visit_slot_refs(
            &keys,
            reqs,
            hidden,
            dests,
            series,
            &mut |id: &mut SlotId| {
                *id = match slots.get(*id) {
                    Some(_) => u64::from(new_index[*id as u32 as usize]),
                    None => DEAD_SLOT,
                };
            },
        );
        let entries = order
            .iter()
            .map(|&i| Slot {
                gen: 0,
                ..slots.entries[i as usize]
            })
            .collect();
        *slots = Slots {
            entries,
            free: Vec::new(),
        };
    }

    /// Whether the same ranks of two replays wait for a probed wildcard receive
    /// ([`Engine::probed_wildcards`]; one forgotten once matched is none). Only ranks that
    /// noted one are looked up: the others cost a comparison, as the vectors beside them.
    fn same_probed_wildcards(&self, other: &Engine) -> bool {
        (self.probed_wildcards.iter().zip(&other.probed_wildcards))
            .enumerate()
            .all(|(r, (&mine, &theirs))| {
                (mine == NO_REQ && theirs == NO_REQ)
                    || self.probed_wildcard_slot(r as u32).is_some()
                        == other.probed_wildcard_slot(r as u32).is_some()
            })
    }

    /// Whether two quiescent replays of one program stand in the same state: everything
    /// their next steps read, but what they found so far (races, counts) and the forced
    /// receive, matched already. The same state goes on the same way.
    fn same_state(&self, other: &Engine) -> bool {
        self.lanes == other.lanes
            && self.actors == other.actors
            && same_current(&self.cur, &other.cur)
            && self.buffers == other.buffers
            && self.slots.same_as(&other.slots)
            && self.reqs == other.reqs
            && self.hidden == other.hidden
            && self.runq == other.runq
            && self.wild_heads == other.wild_heads
            && self.dest_ids == other.dest_ids
            && self.dests == other.dests
            && self.series == other.series
            && self.series_ids == other.series_ids
            && self.free_series == other.free_series
            && self.sweep_series_at == other.sweep_series_at
            && self.epochs == other.epochs
            && self.wildcard_sources == other.wildcard_sources
            && self.wildcard_tags == other.wildcard_tags
            && self.sends_named_wildcard == other.sends_named_wildcard
            && self.same_probed_wildcards(other)
            && self.diverged == other.diverged
            && self.took_redirected == other.took_redirected
    }
}

/// What a reference to a freed slot becomes in [`Engine::renumber_slots`]: its index is
/// never a slot's, so it finds none, as a stale id does.
const DEAD_SLOT: SlotId = u64::MAX;

/// Calls `f` on every slot reference of a replay's state, always in the same order: the
/// requests in the order of `keys` (the keys of `reqs`, sorted), the blocking calls'
/// slots, each destination's queues and held-back receives, each collective's waiters.
fn visit_slot_refs(
    keys: &[(u32, u32)],
    reqs: &mut ReqMap,
    hidden: &mut [SlotId],
    dests: &mut [DestState],
    series: &mut [Series],
    f: &mut dyn FnMut(&mut SlotId),
) {
    for key in keys {
        f(reqs.get_mut(key.0, key.1).expect("a key of reqs"));
    }
    hidden.iter_mut().for_each(&mut *f);
    for dest in dests {
        match &mut dest.queues {
            Queues::Flat { sends, recvs } => {
                sends.iter_mut().for_each(|(_, send)| f(&mut send.slot));
                recvs.iter_mut().for_each(|(_, recv)| f(&mut recv.slot));
            }
            Queues::BySource { queues, .. } => {
                for (_, queue) in queues {
                    queue.sends.iter_mut().for_each(|send| f(&mut send.slot));
                    queue.recvs.iter_mut().for_each(|recv| f(&mut recv.slot));
                }
            }
        }
        dest.deferred.iter_mut().for_each(|d| f(&mut d.slot));
    }
    for instance in series.iter_mut().flat_map(|s| s.instances.iter_mut()) {
        instance.wait_all.iter_mut().for_each(&mut *f);
        instance.wait_root.iter_mut().for_each(&mut *f);
        // The heap's order is by (rank, slot): rebuilt around the new ids.
        let mut waiting = std::mem::take(&mut instance.wait_prefix).into_vec();
        waiting.iter_mut().for_each(|Reverse((_, slot))| f(slot));
        instance.wait_prefix = BinaryHeap::from(waiting);
    }
}

/// The actors stand at the same operations (an actor at none may keep stale aux words).
fn same_current(a: &[Current], b: &[Current]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.op == y.op && x.event == y.event && (x.op.is_none() || x.aux == y.aux))
}

impl Slots {
    /// The same slots live with the same contents, and the same free ones in the same
    /// order (what the next allocations take). A free slot's other fields are stale.
    fn same_as(&self, other: &Slots) -> bool {
        if self.entries.len() != other.entries.len() || self.free != other.free {
            return false;
        }
        self.entries
            .iter()
            .zip(&other.entries)
            .zip(self.free_mask())
            .all(|((a, b), free)| {
                a.gen == b.gen
                    && (free
                        || (a.state == b.state
                            && a.waited == b.waited
                            && a.pend == b.pend
                            && a.keep == b.keep
                            && a.owner == b.owner
                            && a.waiter == b.waiter
                            && a.req == b.req
                            && a.event == b.event
                            && a.op == b.op
                            && a.rx == b.rx
                            && a.series == b.series
                            && a.ordinal == b.ordinal))
            })
    }

    /// By entry: whether it is free.
    fn free_mask(&self) -> Vec<bool> {
        let mut free = vec![false; self.entries.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        free
    }
}
