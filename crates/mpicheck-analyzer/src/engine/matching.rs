//! Point-to-point matching: posting sends and receives, probes, wildcard resolution.

use super::*;

impl Engine<'_> {
    /// Posts rank `r`'s send `op` (its send mode in `op.sub`), `redirected` where it
    /// follows a wildcard to another rank than in the run ([`PendingSend::redirected`]).
    pub(super) fn post_send(
        &mut self,
        r: u32,
        event: u32,
        op: &ReplayOp,
        redirected: bool,
        bytes: u32,
        slot: SlotId,
    ) {
        let dest = op.peer;
        if dest == NO_RANK || dest >= self.world {
            self.part_done(slot, P_SEND);
            return;
        }
        let mode = SEND_MODES[op.sub as usize & 3];
        let returned = op.flags & flags::RETURNED != 0;
        let unbuffered = op.flags & flags::UNBUFFERED != 0
            || (op.class == class::BLOCKING && !returned && op.kind == OpKind::Send);
        let mut buffered = 0;
        let sync = match self.mode {
            Mode::Recorded => match mode {
                SendMode::Synchronous => true,
                SendMode::Buffered => false,
                SendMode::Standard | SendMode::Ready => unbuffered,
            },
            Mode::Strict => match mode {
                SendMode::Buffered => {
                    let buffer = &mut self.buffers[r as usize];
                    if buffer.capacity.saturating_sub(buffer.used) >= bytes {
                        buffer.used += bytes;
                        buffered = bytes;
                        false
                    } else {
                        true
                    }
                }
                // A message nobody received in the run: lost (RQ005), not a wait to model.
                _ => self.never_received.is_empty() || !self.never_received.contains(&(r, event)),
            },
        };
        if !sync {
            self.part_done(slot, P_SEND);
        }
        let did = self.dest_id(op.comm, dest);
        let slots = &self.slots;
        let send = PendingSend {
            tag: op.tag,
            slot,
            event,
            buffered,
            sync,
            redirected,
        };
        let ds = &mut self.dests[did];
        if let Some(recv) = ds.take_recv(r, op.tag, |s| {
            slots.get(s).is_some_and(|s| s.pend & P_RECV != 0)
        }) {
            self.matched(r, send, recv.slot);
            return;
        }
        ds.push_send(r, send);
        // A thread of the destination blocked in a probe may be waiting for exactly this
        // message.
        self.wake_probe(dest, r, op);
        for k in 0..self.lanes.others(dest).len() {
            self.wake_probe(self.lanes.others(dest)[k], r, op);
        }
    }

    /// Releases actor `a` if it is blocked in a probe that `source`'s send `op` matches.
    fn wake_probe(&mut self, a: Actor, source: Rank, op: &ReplayOp) {
        let d = &self.actors[a as usize];
        if d.status == R_BLOCKED && d.in_probe {
            let probe = self.current_op(a);
            if probe.comm == op.comm
                && (probe.peer == ANY_SOURCE || probe.peer == source)
                && tag_matches(probe.recv_tag(), op.tag)
            {
                self.actors[a as usize].pending = 0;
                self.enqueue(a);
            }
        }
    }

    pub(super) fn matched(&mut self, source: Rank, send: PendingSend, recv_slot: SlotId) {
        self.stats.matches += 1;
        if self.forced.is_some() {
            self.note_divergence(send.tag, recv_slot);
            if send.redirected {
                if let Some(s) = self.slots.get(recv_slot) {
                    self.took_redirected[s.owner as usize] = true;
                }
            }
        }
        if self.follows_tags {
            self.note_taken_tag(send.tag, recv_slot);
        }
        self.part_done(recv_slot, P_RECV);
        if send.sync {
            self.part_done(send.slot, P_SEND);
        }
        if send.buffered > 0 {
            let buffer = &mut self.buffers[source as usize];
            buffer.used = buffer.used.saturating_sub(send.buffered);
        }
    }

    /// In a replay of another matching: a receive for any tag that takes a message with
    /// another tag than in the run, other than the forced receive (whose other message is
    /// the alternative), leaves its rank's trace behind ([`flags::TAG_RECORDED`]).
    fn note_divergence(&mut self, tag: i32, recv_slot: SlotId) {
        let Some(s) = self.slots.get(recv_slot) else {
            return;
        };
        let op = s.op;
        if !matches!(op.kind, OpKind::Recv | OpKind::Probe)
            || op.flags & flags::TAG_RECORDED == 0
            || op.tag == tag
            || self
                .forced
                .is_some_and(|f| f.rank == s.owner && f.event == s.event as usize)
        {
            return;
        }
        self.diverged[s.owner as usize] = true;
    }

    /// A receive for any tag of a rank whose sends may follow that tag took a message
    /// with `tag`: the rank's latest ([`TakenTag`]).
    #[inline(never)]
    fn note_taken_tag(&mut self, tag: i32, recv_slot: SlotId) {
        let Some(s) = self.slots.get(recv_slot) else {
            return;
        };
        let op = s.op;
        if !matches!(op.kind, OpKind::Recv | OpKind::Probe) || op.recv_tag() != ANY_TAG {
            return;
        }
        if let Some(latest) = &mut self.wildcard_tags[s.owner as usize] {
            *latest = TakenTag {
                recorded: op.recorded_tag(),
                taken: tag,
            };
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn post_recv(
        &mut self,
        r: u32,
        event: u32,
        comm: u32,
        source: u32,
        tag: i32,
        recorded: u32,
        slot: SlotId,
    ) {
        if source == NO_RANK {
            self.part_done(slot, P_RECV);
            return;
        }
        let did = self.dest_id(comm, r);
        let mut preferred = recorded;
        let mut forced = false;
        if let Some(f) = self.forced {
            if f.rank == r && event as usize == f.event {
                preferred = f.source;
                forced = true;
            }
        }
        let ds = &mut self.dests[did];
        if source == ANY_SOURCE || !ds.deferred.is_empty() {
            ds.deferred.push_back(DeferredRecv {
                source,
                tag,
                preferred,
                recorded,
                forced,
                slot,
                event,
            });
            if !ds.listed {
                ds.listed = true;
                self.wild_heads.push(did as u32);
            }
            if self
                .watched
                .as_ref()
                .is_some_and(|w| w.contains(&(r, event)))
            {
                self.posted_watched.push((r, event));
            }
            return;
        }
        self.post_specific(did, source, tag, slot);
    }

    pub(super) fn post_specific(&mut self, did: usize, source: Rank, tag: i32, slot: SlotId) {
        let ds = &mut self.dests[did];
        if let Some(send) = ds.take_send(source, tag) {
            self.matched(source, send, slot);
        } else {
            ds.push_recv(source, PostedRecv { tag, slot });
        }
    }

    pub(super) fn probe_ready(&mut self, r: u32, op: &ReplayOp) -> bool {
        let did = self.dest_id(op.comm, r);
        self.dests[did].has_send(op.peer, op.recv_tag())
    }

    /// At quiescence: match the first held-back wildcard receive of every destination.
    pub(super) fn resolve_wildcards(&mut self) -> bool {
        // The list is rebuilt into the spare one's room (no allocation per quiescence).
        let spare = std::mem::take(&mut self.spare_heads);
        let mut heads = std::mem::replace(&mut self.wild_heads, spare);
        let mut progressed = false;
        for &did in &heads {
            if self.resolve_head(did as usize) {
                progressed = true;
            }
        }
        for &did in &heads {
            let ds = &mut self.dests[did as usize];
            if ds.deferred.is_empty() {
                ds.listed = false;
            } else {
                self.wild_heads.push(did);
            }
        }
        heads.clear();
        self.spare_heads = heads;
        progressed
    }

    pub(super) fn resolve_head(&mut self, did: usize) -> bool {
        let Some(head) = self.dests[did].deferred.front().copied() else {
            return false;
        };
        if !self.expects_message(head.slot) {
            // Cancelled.
            self.dests[did].deferred.pop_front();
            self.drain_deferred(did);
            return true;
        }
        let dest = self.dests[did].rank;
        // (A buffer kept for the next resolution: one is made at every wildcard.)
        let mut candidates = std::mem::take(&mut self.candidates);
        self.dests[did].candidates(head.source, head.tag, &mut candidates);
        let preferred = candidates.iter().find(|c| c.0 == head.preferred).copied();
        let choice = if head.forced || (self.mode == Mode::Recorded && head.preferred != NO_RANK) {
            // Forced, or replaying what happened: only the chosen source will do.
            preferred
        } else {
            preferred.or(candidates.first().copied())
        };
        let race = (choice.is_some() && candidates.len() > 1).then(|| {
            candidates
                .iter()
                .map(|&(s, event)| (s, event as usize))
                .collect()
        });
        self.candidates = candidates;
        let Some((source, _)) = choice else {
            return false;
        };
        if let Some(candidates) = race {
            self.races.push(WildcardRace {
                rank: dest,
                event: head.event as usize,
                matched: source,
                candidates,
            });
        }
        if head.forced {
            self.forced_matched = Some(true);
        }
        if let Some(sources) = &mut self.wildcard_sources[dest as usize] {
            *sources = [head.recorded, source];
            self.sends_named_wildcard[dest as usize] = true;
        }
        self.dests[did].deferred.pop_front();
        if self.slots.get(head.slot).map(|s| s.op.kind) == Some(OpKind::Probe) {
            // A probe finds the message and leaves it for the receive that follows.
            let tag = self.dests[did]
                .first_send_tag(source, head.tag)
                .expect("the candidate is pending");
            self.found(tag, head.slot);
        } else {
            let send = self.dests[did]
                .take_send(source, head.tag)
                .expect("the candidate is pending");
            self.matched(source, send, head.slot);
        }
        self.drain_deferred(did);
        true
    }

    /// A held-back wildcard probe found a message with `tag`.
    fn found(&mut self, tag: i32, probe_slot: SlotId) {
        if self.forced.is_some() {
            self.note_divergence(tag, probe_slot);
        }
        if self.follows_tags {
            self.note_taken_tag(tag, probe_slot);
        }
        self.part_done(probe_slot, P_RECV);
    }

    /// Posts the receives queued behind a resolved wildcard, up to the next wildcard.
    pub(super) fn drain_deferred(&mut self, did: usize) {
        while let Some(front) = self.dests[did].deferred.front().copied() {
            if front.source == ANY_SOURCE {
                break;
            }
            self.dests[did].deferred.pop_front();
            if self.expects_message(front.slot) {
                self.post_specific(did, front.source, front.tag, front.slot);
            }
        }
    }

    /// Whether a receive's slot still waits for its message (not cancelled or gone).
    pub(super) fn expects_message(&self, slot: SlotId) -> bool {
        self.slots.get(slot).is_some_and(|s| s.pend & P_RECV != 0)
    }
}
