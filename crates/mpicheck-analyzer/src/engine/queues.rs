//! Point-to-point matching queues of one destination: pending sends, posted receives and
//! receives deferred behind a wildcard.

use super::*;

/// A message sent and not yet received.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct PendingSend {
    pub(super) tag: i32,
    /// The sender's request, completed on matching when `sync`.
    pub(super) slot: SlotId,
    /// Event index of the send in the sender.
    pub(super) event: u32,
    /// Buffer bytes to give back to the sender on matching.
    pub(super) buffered: u32,
    pub(super) sync: bool,
    /// A call following a wildcard sent it to another rank than in the run (a reply to
    /// whoever sent, when another did): its receiver gets what another rank got in the run
    /// ([`super::Engine`]'s `took_redirected`).
    pub(super) redirected: bool,
}

/// A receive posted and not yet matched.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct PostedRecv {
    pub(super) tag: i32,
    pub(super) slot: SlotId,
}

/// A receive held back behind an unresolved wildcard receive of the same rank.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct DeferredRecv {
    pub(super) source: u32,
    pub(super) tag: i32,
    /// Recorded (or forced) source of a wildcard receive.
    pub(super) preferred: u32,
    /// Recorded source of a wildcard receive.
    pub(super) recorded: u32,
    pub(super) forced: bool,
    pub(super) slot: SlotId,
    /// Event index of the receive.
    pub(super) event: u32,
}

/// The queues between one source and one destination on one communicator.
#[derive(Clone, Default, PartialEq)]
pub(super) struct MatchQueue {
    pub(super) sends: VecDeque<PendingSend>,
    pub(super) recvs: VecDeque<PostedRecv>,
}

/// Removes entry `i` of a queue: nearly always the first (messages match in order), which
/// `pop_front` takes for less than the general removal.
#[inline]
fn take_at<T>(queue: &mut VecDeque<T>, i: usize) -> Option<T> {
    if i == 0 {
        queue.pop_front()
    } else {
        queue.remove(i)
    }
}

/// Above this many pending entries, a destination keeps one queue per source.
pub(super) const FLAT_LIMIT: usize = 32;

/// The unmatched sends and posted receives addressed to one rank on one communicator.
/// Usually only a few are pending at a time, so one pair of queues tagged with the source
/// (scanned in order, which keeps the per-source order) is smaller and faster than a
/// queue per source; a destination with a large fan-in switches to per-source queues.
#[derive(Clone, PartialEq)]
pub(super) enum Queues {
    Flat {
        sends: VecDeque<(Rank, PendingSend)>,
        recvs: VecDeque<(Rank, PostedRecv)>,
    },
    BySource {
        queues: Vec<(Rank, MatchQueue)>,
        index: FxHashMap<Rank, u32>,
    },
}

/// Everything addressed to one rank on one communicator.
#[derive(Clone, PartialEq)]
pub(super) struct DestState {
    pub(super) rank: Rank,
    pub(super) queues: Queues,
    pub(super) deferred: VecDeque<DeferredRecv>,
    pub(super) listed: bool,
}

impl DestState {
    pub(super) fn new(rank: Rank) -> DestState {
        DestState {
            rank,
            queues: Queues::Flat {
                sends: VecDeque::new(),
                recvs: VecDeque::new(),
            },
            deferred: VecDeque::new(),
            listed: false,
        }
    }

    pub(super) fn source_queue(&mut self, source: Rank) -> &mut MatchQueue {
        let Queues::BySource { queues, index } = &mut self.queues else {
            unreachable!("only called in per-source mode")
        };
        let i = *index.entry(source).or_insert_with(|| {
            queues.push((source, MatchQueue::default()));
            queues.len() as u32 - 1
        });
        &mut queues[i as usize].1
    }

    /// Switches to per-source queues once more than [`FLAT_LIMIT`] entries are pending (the
    /// test is inlined into every push, the switch is not).
    #[inline]
    pub(super) fn maybe_split(&mut self) {
        if let Queues::Flat { sends, recvs } = &self.queues {
            if sends.len() + recvs.len() > FLAT_LIMIT {
                self.split();
            }
        }
    }

    #[inline(never)]
    fn split(&mut self) {
        let Queues::Flat { sends, recvs } = &mut self.queues else {
            return;
        };
        let sends = std::mem::take(sends);
        let recvs = std::mem::take(recvs);
        self.queues = Queues::BySource {
            queues: Vec::new(),
            index: FxHashMap::default(),
        };
        for (s, m) in sends {
            self.source_queue(s).sends.push_back(m);
        }
        for (s, r) in recvs {
            self.source_queue(s).recvs.push_back(r);
        }
    }

    /// The messages sent here and not yet received, with their sources (in per-source
    /// order, whichever way the queues are kept).
    pub(super) fn pending_sends(&self) -> impl Iterator<Item = (Rank, &PendingSend)> {
        let (flat, by_source) = match &self.queues {
            Queues::Flat { sends, .. } => (Some(sends), None),
            Queues::BySource { queues, .. } => (None, Some(queues)),
        };
        let flat = flat.into_iter().flatten().map(|(source, s)| (*source, s));
        let by_source = (by_source.into_iter().flatten())
            .flat_map(|(source, q)| q.sends.iter().map(move |s| (*source, s)));
        flat.chain(by_source)
    }

    /// Removes the first posted receive from `source` that accepts `tag` (skipping
    /// cancelled ones).
    pub(super) fn take_recv(
        &mut self,
        source: Rank,
        tag: i32,
        live: impl Fn(SlotId) -> bool,
    ) -> Option<PostedRecv> {
        match &mut self.queues {
            Queues::Flat { recvs, .. } => {
                // (Nearly always none is posted, or the first matches: both are answered
                // without a scan.)
                let &(s, r) = recvs.front()?;
                if s == source && tag_matches(r.tag, tag) && live(r.slot) {
                    recvs.pop_front();
                    return Some(r);
                }
                let i = recvs
                    .iter()
                    .position(|(s, r)| *s == source && tag_matches(r.tag, tag) && live(r.slot))?;
                take_at(recvs, i).map(|(_, r)| r)
            }
            Queues::BySource { .. } => {
                let q = self.source_queue(source);
                let i = q
                    .recvs
                    .iter()
                    .position(|r| tag_matches(r.tag, tag) && live(r.slot))?;
                take_at(&mut q.recvs, i)
            }
        }
    }

    /// Removes the first unmatched send from `source` that `tag` accepts.
    pub(super) fn take_send(&mut self, source: Rank, tag: i32) -> Option<PendingSend> {
        match &mut self.queues {
            Queues::Flat { sends, .. } => {
                let &(s, m) = sends.front()?;
                if s == source && tag_matches(tag, m.tag) {
                    sends.pop_front();
                    return Some(m);
                }
                let i = sends
                    .iter()
                    .position(|(s, m)| *s == source && tag_matches(tag, m.tag))?;
                take_at(sends, i).map(|(_, m)| m)
            }
            Queues::BySource { .. } => {
                let q = self.source_queue(source);
                let i = q.sends.iter().position(|m| tag_matches(tag, m.tag))?;
                take_at(&mut q.sends, i)
            }
        }
    }

    pub(super) fn push_send(&mut self, source: Rank, send: PendingSend) {
        match &mut self.queues {
            Queues::Flat { sends, .. } => sends.push_back((source, send)),
            Queues::BySource { .. } => self.source_queue(source).sends.push_back(send),
        }
        self.maybe_split();
    }

    pub(super) fn push_recv(&mut self, source: Rank, recv: PostedRecv) {
        match &mut self.queues {
            Queues::Flat { recvs, .. } => recvs.push_back((source, recv)),
            Queues::BySource { .. } => self.source_queue(source).recvs.push_back(recv),
        }
        self.maybe_split();
    }

    /// The tag of the message `take_send(source, tag)` would take, left pending.
    pub(super) fn first_send_tag(&self, source: Rank, tag: i32) -> Option<i32> {
        match &self.queues {
            Queues::Flat { sends, .. } => sends
                .iter()
                .find(|(s, m)| *s == source && tag_matches(tag, m.tag))
                .map(|(_, m)| m.tag),
            Queues::BySource { queues, index } => {
                let q = &queues[*index.get(&source)? as usize].1;
                q.sends
                    .iter()
                    .find(|m| tag_matches(tag, m.tag))
                    .map(|m| m.tag)
            }
        }
    }

    /// The first unmatched send `tag` accepts from each source (`source` may be
    /// [`ANY_SOURCE`]), sorted by source: `(source, event index of the send)`.
    /// Into `out` (emptied first): by source, the first pending send each source has
    /// that a receive from `source` with `tag` matches.
    pub(super) fn candidates(&self, source: u32, tag: i32, out: &mut Vec<(Rank, u32)>) {
        out.clear();
        match &self.queues {
            Queues::Flat { sends, .. } => {
                for (s, m) in sends {
                    if (source == ANY_SOURCE || source == *s)
                        && tag_matches(tag, m.tag)
                        && !out.iter().any(|c| c.0 == *s)
                    {
                        out.push((*s, m.event));
                    }
                }
            }
            Queues::BySource { queues, .. } => {
                for (s, q) in queues {
                    if source != ANY_SOURCE && source != *s {
                        continue;
                    }
                    if let Some(m) = q.sends.iter().find(|m| tag_matches(tag, m.tag)) {
                        out.push((*s, m.event));
                    }
                }
            }
        }
        out.sort_unstable_by_key(|c| c.0);
    }

    pub(super) fn has_send(&self, source: u32, tag: i32) -> bool {
        match &self.queues {
            Queues::Flat { sends, .. } => sends
                .iter()
                .any(|(s, m)| (source == ANY_SOURCE || source == *s) && tag_matches(tag, m.tag)),
            Queues::BySource { queues, index } => {
                let has = |q: &MatchQueue| q.sends.iter().any(|m| tag_matches(tag, m.tag));
                if source == ANY_SOURCE {
                    queues.iter().any(|(_, q)| has(q))
                } else {
                    index
                        .get(&source)
                        .is_some_and(|&i| has(&queues[i as usize].1))
                }
            }
        }
    }
}
