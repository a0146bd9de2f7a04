//! Happens-before between calls of different ranks, for the RMA checks that ask what the
//! run's messages and collectives order (RM006 on dynamic windows, RM007, DR003, DR004).
//!
//! [`Skeleton`] holds every rank's sends, receives and collectives ([`RankOps`], a few
//! words per operation, not the events), built as the events stream, and answers the queries with the vector clocks of [`super::clocks`] once every event
//! came.

use super::{clocks, pair_messages, Goal, Proofs, RankOps, RankOpsBuilder};
use crate::model::{CommId, Event, Rank, ReqId};

/// A call: (rank, event index).
pub(crate) type CallAt = (Rank, usize);

/// Every rank's messages, receives and collectives in call order, by rank.
#[derive(Default)]
pub(crate) struct Skeleton {
    ops: Vec<RankOps>,
    /// By rank: its live requests and receives still awaiting their match.
    builders: Vec<RankOpsBuilder>,
}

impl Skeleton {
    fn rank(&mut self, rank: Rank) -> (&mut RankOpsBuilder, &mut RankOps) {
        let r = rank as usize;
        if self.ops.len() <= r {
            self.ops.resize_with(r + 1, RankOps::default);
            self.builders.resize_with(r + 1, RankOpsBuilder::default);
        }
        (&mut self.builders[r], &mut self.ops[r])
    }

    /// The next event of `rank`, `e` its index; `intra` tells whether a communicator is an
    /// intracommunicator.
    pub fn event(&mut self, rank: Rank, e: usize, event: &Event, intra: impl Fn(CommId) -> bool) {
        let (builder, ops) = self.rank(rank);
        builder.event(e, event, intra, ops);
    }

    /// The source and tag that the receive of event `e` of `rank` matched, known after its
    /// event (while the traces are normalized).
    pub fn matched(&mut self, rank: Rank, e: usize, matched: (Rank, i32)) {
        let (builder, ops) = self.rank(rank);
        builder.matched(e, matched, ops);
    }

    /// Every event came: the live requests are no longer needed.
    pub fn finish(&mut self) {
        self.builders = Vec::new();
    }

    /// The communicators renamed by `new` (the run's final ids).
    pub fn renumber_comms(&mut self, new: impl Fn(CommId) -> CommId) {
        for ops in &mut self.ops {
            for s in &mut ops.sends {
                s.comm = new(s.comm);
            }
            for r in &mut ops.recvs {
                r.comm = new(r.comm);
            }
            for c in &mut ops.colls {
                c.key.comm = new(c.key.comm);
            }
        }
    }

    /// How many operations it holds (for tests and measurements).
    #[cfg(test)]
    pub fn operations(&self) -> usize {
        (self.ops.iter())
            .map(|o| o.sends.len() + o.recvs.len() + o.colls.len())
            .sum()
    }

    /// Whether the first call of each pair happens before the second (by event index in
    /// their ranks), the communicators' members given by `members`: one call of a rank
    /// precedes its later calls, and calls of different ranks are ordered by the messages
    /// and collectives the clocks follow.
    pub fn happens_before(
        &self,
        members: &dyn Fn(CommId) -> Vec<Rank>,
        pairs: &[(CallAt, CallAt)],
    ) -> Vec<bool> {
        // A rank that made no call has no operations and orders nothing.
        let known = |r: Rank| (r as usize) < self.ops.len();
        let mut goals: Vec<Goal> = Vec::new();
        for (i, &((first, before), (second, _))) in pairs.iter().enumerate() {
            if first != second && known(first) && known(second) {
                goals.push(Goal {
                    sender: second,
                    request: ReqId(i as u32),
                    receiver: first,
                    completion: before,
                });
            }
        }
        let mut proofs = Proofs::new();
        if !goals.is_empty() {
            let ops = &self.ops[..];
            let messages = pair_messages(ops);
            clocks::prove(members, ops, &messages, &goals, &mut proofs);
        }
        pairs
            .iter()
            .enumerate()
            .map(|(i, &((first, before), (second, after)))| {
                if first == second {
                    before < after
                } else {
                    // Known at a call before the second one (the proof is the call that
                    // brought it).
                    proofs
                        .get(&(second, ReqId(i as u32)))
                        .is_some_and(|&at| at < after)
                }
            })
            .collect()
    }
}
