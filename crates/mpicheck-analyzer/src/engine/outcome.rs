//! The replay's result: per-rank outcomes and what stuck ranks wait on.

use super::*;

impl Engine<'_> {
    pub(super) fn finish(mut self) -> Replay {
        let n = self.world;
        let mut ranks = Vec::with_capacity(n as usize);
        let mut stuck = Vec::new();
        let mut missing_cache: FxHashMap<(u32, u32), Arc<[Rank]>> = FxHashMap::default();
        for r in 0..n {
            let actors: Vec<Actor> = std::iter::once(r)
                .chain(self.lanes.others(r).iter().copied())
                .collect();
            let status = |a: &Actor| self.actors[*a as usize].status;
            // Threads stuck in a call; held ones only wait for another thread of the rank,
            // which is stuck itself (unless nothing else is).
            let mut stuck_actors: Vec<Actor> = actors
                .iter()
                .copied()
                .filter(|a| matches!(status(a), R_READY | R_BLOCKED))
                .collect();
            if stuck_actors.is_empty() {
                stuck_actors = actors
                    .iter()
                    .copied()
                    .filter(|a| status(a) == R_HELD)
                    .collect();
            }
            if self.diverged[r as usize] || self.fed_otherwise(r) {
                // Stuck or not, what it did after leaving its trace is unknown.
                ranks.push(RankOutcome::Unfinished);
                continue;
            }
            if stuck_actors.is_empty() {
                ranks.push(if actors.iter().any(|a| status(a) == R_UNFINISHED) {
                    RankOutcome::Unfinished
                } else if actors.iter().any(|a| status(a) == R_FINALIZED) {
                    RankOutcome::Finalized
                } else {
                    RankOutcome::Exited
                });
                continue;
            }
            let event_of = |a: &Actor| match self.cur[*a as usize].op {
                // Stuck before its call: in the receive it waits for.
                Some(_) if self.actors[*a as usize].before_call => self
                    .probed_wildcard_slot(r)
                    .and_then(|s| self.slots.get(s))
                    .map_or(self.cur[*a as usize].event, |s| s.event),
                Some(_) => self.cur[*a as usize].event,
                None => self.lanes.next_event(r),
            };
            stuck_actors.sort_by_key(event_of);
            let event = event_of(&stuck_actors[0]) as usize;
            // The rank goes on once any of its stuck threads does.
            let mut conds: Vec<WaitCond> = stuck_actors
                .iter()
                .map(|&a| self.actor_cond(a, &mut missing_cache))
                .collect();
            let cond = if conds.len() == 1 {
                conds.pop().expect("one condition")
            } else {
                WaitCond::AnyOf(conds)
            };
            stuck.push(StuckRank {
                rank: r,
                event,
                cond,
            });
            ranks.push(RankOutcome::Stuck { event });
        }
        let passed_unseen = self.released_active.ranks(&self.slots);
        Replay {
            mode: self.mode,
            ranks,
            stuck,
            passed_unseen,
            races: std::mem::take(&mut self.races),
            forced_matched: self.forced_matched,
            unreceived: self.unreceived(),
            stats: self.stats,
        }
    }

    /// Whether rank `r` took a message meant for another rank in the run ([`Engine`]'s
    /// `took_redirected`) and is left with a message it received in the run: its receives
    /// went to other messages, so it received other data than its trace did, and the
    /// program need not have stopped where its trace does (HyPhy's worker took a job's
    /// length where it took its stop and ended with the job's characters unreceived; or
    /// sent a result while its master sent it the next job).
    fn fed_otherwise(&self, r: u32) -> bool {
        self.took_redirected[r as usize]
            && self.dests.iter().any(|d| {
                d.rank == r
                    && (d.pending_sends())
                        .any(|(source, s)| !self.never_received.contains(&(source, s.event)))
            })
    }

    /// The sends left in the queues that their senders got past (not waiting for a
    /// receive), by rank and event.
    fn unreceived(&self) -> Vec<UnreceivedSend> {
        let mut out = Vec::new();
        let mut note = |source: Rank, dest: Rank, m: &PendingSend| {
            if m.sync {
                return;
            }
            out.push(UnreceivedSend {
                rank: source,
                event: m.event as usize,
                dest,
                tag: m.tag,
            });
        };
        for d in &self.dests {
            d.pending_sends().for_each(|(s, m)| note(s, d.rank, m));
        }
        out.sort_unstable_by_key(|u| (u.rank, u.event));
        out
    }

    /// What stuck actor `a`'s current call waits for.
    pub(super) fn actor_cond(
        &self,
        a: Actor,
        cache: &mut FxHashMap<(u32, u32), Arc<[Rank]>>,
    ) -> WaitCond {
        let op = self.current_op(a);
        let r = self.rank_of(a);
        if self.actors[a as usize].before_call {
            if let Some(slot) = self.probed_wildcard_slot(r) {
                return self.slot_cond(r, slot, cache);
            }
        }
        match op.kind {
            OpKind::Probe => self.recv_cond(r, op.comm, op.peer, op.recv_tag(), NO_RANK, false),
            OpKind::WinStart | OpKind::WinComplete | OpKind::WinWait | OpKind::WinLockWait => {
                self.epoch_cond(a, op)
            }
            OpKind::Wait => {
                let mut parts = Vec::new();
                for k in 0..op.b {
                    let req = self.aux(a, op.a + k);
                    if let Some(s) = self.req_slot(r, req) {
                        if self.state(s) == S_ACTIVE {
                            parts.push(self.slot_cond(r, s, cache));
                        }
                    }
                }
                if parts.len() == 1 {
                    parts.pop().expect("one part")
                } else if op.flags & flags::WAIT_ANY != 0 {
                    WaitCond::AnyOf(parts)
                } else {
                    WaitCond::AllOf(parts)
                }
            }
            _ => self.slot_cond(r, self.hidden_slot(a), cache),
        }
    }

    pub(super) fn recv_cond(
        &self,
        r: u32,
        comm: u32,
        source: u32,
        tag: i32,
        preferred: u32,
        forced: bool,
    ) -> WaitCond {
        let on = WaitOn::Message {
            comm: CommId(comm),
            tag: (tag != ANY_TAG).then_some(tag),
        };
        let _ = r;
        if source == ANY_SOURCE {
            if preferred != NO_RANK && (forced || self.mode == Mode::Recorded) {
                WaitCond::Rank {
                    rank: preferred,
                    on,
                }
            } else {
                WaitCond::AnySource {
                    comm: CommId(comm),
                    on,
                }
            }
        } else {
            WaitCond::Rank { rank: source, on }
        }
    }

    pub(super) fn slot_cond(
        &self,
        r: u32,
        slot: SlotId,
        cache: &mut FxHashMap<(u32, u32), Arc<[Rank]>>,
    ) -> WaitCond {
        let s = *self.slots.get(slot).expect("a live slot");
        let op = s.op;
        let mut parts = Vec::new();
        if s.pend & P_SEND != 0 {
            parts.push(WaitCond::Rank {
                rank: op.peer,
                on: WaitOn::Receive {
                    comm: CommId(op.comm),
                    tag: op.tag,
                },
            });
        }
        if s.pend & P_RECV != 0 {
            let (source, tag, recorded) = if op.kind == OpKind::Sendrecv {
                (s.rx[0], s.rx[1] as i32, s.rx[2])
            } else {
                (op.peer, op.recv_tag(), op.b)
            };
            let forced = self
                .forced
                .is_some_and(|f| f.rank == r && s.event as usize == f.event);
            let preferred = if forced {
                self.forced.map_or(NO_RANK, |f| f.source)
            } else {
                recorded
            };
            parts.push(self.recv_cond(r, op.comm, source, tag, preferred, forced));
        }
        if s.pend & P_COLL != 0 {
            parts.push(self.collective_cond(r, &op, s.series, s.ordinal, cache));
        }
        if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            WaitCond::AllOf(parts)
        }
    }

    pub(super) fn collective_cond(
        &self,
        r: u32,
        op: &ReplayOp,
        sid: u32,
        ordinal: u32,
        cache: &mut FxHashMap<(u32, u32), Arc<[Rank]>>,
    ) -> WaitCond {
        let series = &self.series[sid as usize];
        let members = self
            .src
            .comm(series.key.comm)
            .expect("posted on a known comm");
        let kind = COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()];
        let on = WaitOn::Collective {
            comm: CommId(series.key.comm),
            kind,
        };
        let cr = members.comm_rank(r).unwrap_or(0);
        let arrived = |m: u32| series.next[m as usize] > ordinal;
        let ranks: Arc<[Rank]> = match self.need(op, cr, series.size) {
            Need::Root(root) => (!arrived(root))
                .then(|| members.member(root))
                .into_iter()
                .collect(),
            Need::Prefix(t) => (0..t)
                .filter(|&m| !arrived(m))
                .map(|m| members.member(m))
                .collect(),
            _ => cache
                .entry((sid, ordinal))
                .or_insert_with(|| {
                    (0..series.size)
                        .filter(|&m| !arrived(m))
                        .map(|m| members.member(m))
                        .collect()
                })
                .clone(),
        };
        WaitCond::Ranks { ranks, on }
    }
}

/// The requests a single successful test gave back to their rank while the strict replay
/// had not completed their operation, by rank: [`Replay::passed_unseen`] keeps the ranks of
/// those it never completes. Kept while live: the entries whose operation completed since
/// are dropped whenever the list has doubled since its last trim.
#[derive(Clone)]
pub(super) struct ReleasedActive {
    list: Vec<(Rank, SlotId)>,
    trim_at: usize,
}

impl Default for ReleasedActive {
    fn default() -> ReleasedActive {
        ReleasedActive {
            list: Vec::new(),
            trim_at: 64,
        }
    }
}

impl ReleasedActive {
    /// A single successful test of rank `r` gave back `slot`, still active.
    #[inline(never)]
    pub(super) fn note(&mut self, r: Rank, slot: SlotId, slots: &Slots) {
        self.list.push((r, slot));
        if self.list.len() >= self.trim_at {
            self.list.retain(|&(_, s)| still_active(slots, s));
            self.trim_at = (2 * self.list.len()).max(64);
        }
    }

    /// The ranks (ascending, once each) with such a request still active.
    pub(super) fn ranks(&self, slots: &Slots) -> Vec<Rank> {
        let mut ranks: Vec<Rank> = (self.list.iter())
            .filter(|&&(_, s)| still_active(slots, s))
            .map(|&(r, _)| r)
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        ranks
    }
}

/// A slot freed since (its generation moved on) or done has completed its operation.
fn still_active(slots: &Slots, slot: SlotId) -> bool {
    slots.get(slot).is_some_and(|s| s.state == S_ACTIVE)
}
