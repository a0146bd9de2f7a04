//! Pairing of the live proofs: messages and receives not paired yet (see the module docs
//! of `live`).

use super::*;

/// A message not taken yet, or taken behind one that is not.
pub(super) struct Msg {
    pub(super) send: usize,
    pub(super) tag: i32,
    pub(super) taken: bool,
}

/// A receive not paired yet.
pub(super) struct OpenRecv {
    pub(super) comm: CommId,
    pub(super) source: Option<Source>,
    pub(super) tag: TagMatch,
    pub(super) matched: Option<(Rank, i32)>,
    /// Its match can no longer change.
    pub(super) resolved: bool,
}

pub(super) enum Want {
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
    pub(super) fn want(&self) -> Want {
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
    pub(super) fn may_take(&self, sender: Rank, tag: i32) -> bool {
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
pub(super) enum Paired {
    Took(usize, SendKey),
    /// It takes no message (it was never matched, or no message it accepts comes).
    Never(usize),
}

/// Messages and receives not paired yet.
#[derive(Default)]
pub(super) struct Pairing {
    /// By (sender, receiver, communicator), in send order, from the first not taken.
    pub(super) streams: FxHashMap<(Rank, Rank, CommId), VecDeque<Msg>>,
    /// By receiver, its receives not paired yet, by occurrence (posting order), and
    /// whether [`Pairing::drain`] just paired it.
    pub(super) open: Vec<VecDeque<(usize, OpenRecv, bool)>>,
    /// How many streams there were after empty ones were last dropped.
    pub(super) kept: usize,
    /// [`Pairing::drain`]'s lists (kept for their memory): earlier receives that may take
    /// a message known now, unresolved ones (by position in `open`), and resolved ones
    /// held back by them (sender, communicator, tag).
    pub(super) unresolved: Vec<usize>,
    pub(super) held: Vec<(Rank, CommId, Option<i32>)>,
}

impl Pairing {
    pub(super) fn open_of(&mut self, receiver: Rank) -> &mut VecDeque<(usize, OpenRecv, bool)> {
        let r = receiver as usize;
        if self.open.len() <= r {
            self.open.resize_with(r + 1, VecDeque::new);
        }
        &mut self.open[r]
    }

    /// The open receive `j` of `receiver`.
    pub(super) fn open_recv(&mut self, receiver: Rank, j: usize) -> Option<&mut OpenRecv> {
        let open = self.open_of(receiver);
        let at = open.binary_search_by_key(&j, |&(j, ..)| j).ok()?;
        Some(&mut open[at].1)
    }

    /// Pairs what can be paired for sure among the receives of `receiver`.
    pub(super) fn drain(&mut self, receiver: Rank, out: &mut Vec<Paired>) {
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
    pub(super) fn held(&self) -> usize {
        self.streams.values().map(VecDeque::len).sum::<usize>()
            + self.open.iter().map(VecDeque::len).sum::<usize>()
    }
}
