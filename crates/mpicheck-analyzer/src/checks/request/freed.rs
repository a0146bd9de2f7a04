//! When the program knows that a send whose request it freed has completed.
//!
//! `MPI_Request_free` of an active send is allowed (MPI 4.1 §3.7.3, Example 3.13): the
//! operation completes in the background, and the program learns that it has from some
//! other communication. The send is complete once its matching receive has completed, so
//! the sender knows it from the first of its calls that the receive's completion happens
//! before: a reply the receiver sent afterwards, a barrier both passed afterwards, any chain
//! of messages and collectives. (A freed receive is different: nothing the sender does
//! tells the receiver its data has arrived, MPI 4.1 §3.7.3. Freeing an active nonblocking
//! collective request is erroneous, §6.12.)
//!
//! Happens-before across ranks comes from the matched messages (a send's start before its
//! receive's completion) and from collectives where a member's result depends on other
//! members' calls (everybody's for a barrier or an allreduce, the root's for a broadcast,
//! the lower ranks' for a scan; none for `MPI_Comm_dup` and the like, which need not
//! synchronize). Messages are paired with receives the way MPI matches them, with the
//! source and tag the receives' statuses recorded; collectives by their order per
//! communicator, operation and root. Vector clocks are kept only for the ranks whose
//! receive completions matter (the receivers of freed sends), so a run without freed
//! sends costs nothing. Events of one rank count in record order, whatever their thread.

use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::model::{
    Blocking, CollectiveKind, CommId, Event, Op, Rank, RecvSpec, ReqId, Run, SendSpec, Source,
    TagMatch,
};

mod clocks;

/// The event (of the sender's rank) after which each freed active send is known complete,
/// by sender and request. A freed send missing here is never known complete.
pub(crate) type Proofs = HashMap<(Rank, ReqId), usize>;

/// A freed send to prove complete: its sender must learn that `receiver` returned from
/// event `completion`, which completed the matching receive.
struct Goal {
    sender: Rank,
    request: ReqId,
    receiver: Rank,
    completion: usize,
}

/// Receives paired with the messages they took: `(receiver, receive)` → `(sender, send)`,
/// indices into [`RankOps`].
type Pairs = HashMap<(Rank, usize), (Rank, usize)>;

struct SendOcc {
    event: usize,
    comm: CommId,
    dest: Option<Rank>,
    tag: i32,
}

struct RecvOcc {
    comm: CommId,
    source: Option<Source>,
    tag: TagMatch,
    matched: Option<(Rank, i32)>,
    /// The call that completed the receive (returned from it, or reported it complete).
    completion: Option<usize>,
}

/// What a collective member's result depends on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dep {
    Nothing,
    All,
    Root(u32),
    /// Members `0..n` (communicator ranks).
    Prefix(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct CollKey {
    comm: CommId,
    class: u8,
    kind: CollectiveKind,
    root: Option<i32>,
}

struct CollOcc {
    key: CollKey,
    entry: usize,
    completion: Option<usize>,
}

/// A request's operation while active.
#[derive(Clone, Copy)]
enum Active {
    Send(usize),
    Recv(usize),
    /// `MPI_Isendrecv`: its receive.
    Sendrecv(usize),
    Coll(usize),
}

/// What `MPI_Start` starts for a persistent request.
enum Template {
    Send(SendSpec),
    Recv(RecvSpec),
    Coll(CollKey),
}

#[derive(Default)]
pub(crate) struct RankOps {
    sends: Vec<SendOcc>,
    recvs: Vec<RecvOcc>,
    colls: Vec<CollOcc>,
    /// Sends freed while active: (request, send occurrence).
    freed: Vec<(ReqId, usize)>,
}

fn coll_class(blocking: &Blocking) -> u8 {
    match blocking {
        Blocking::Blocking => 0,
        Blocking::Nonblocking(_) => 1,
        Blocking::Persistent(_) => 2,
    }
}

/// Collectives whose members' results depend on other members' calls.
fn synchronizes(kind: CollectiveKind) -> bool {
    use CollectiveKind::*;
    !matches!(
        kind,
        Management
            | NeighborAllgather
            | NeighborAllgatherv
            | NeighborAlltoall
            | NeighborAlltoallv
            | NeighborAlltoallw
    )
}

fn dep(kind: CollectiveKind, root: Option<i32>, me: u32) -> Dep {
    use CollectiveKind::*;
    let root = root.and_then(|r| u32::try_from(r).ok());
    match (kind, root) {
        (Bcast | Scatter | Scatterv, Some(r)) if r != me => Dep::Root(r),
        (Bcast | Scatter | Scatterv, _) => Dep::Nothing,
        (Gather | Gatherv | Reduce, Some(r)) if r == me => Dep::All,
        (Gather | Gatherv | Reduce, _) => Dep::Nothing,
        (Scan, _) => Dep::Prefix(me + 1),
        (Exscan, _) => Dep::Prefix(me),
        _ => Dep::All,
    }
}

/// Builds one rank's [`RankOps`] from its events in order: what a request's operation is
/// while active, persistent requests' templates and the requests whose completion
/// `MPI_Request_get_status` reported. Its state besides the [`RankOps`] is the rank's live
/// requests.
#[derive(Default)]
pub(crate) struct RankOpsBuilder {
    ops: RankOps,
    active: FxHashMap<ReqId, Active>,
    templates: FxHashMap<ReqId, Template>,
    /// Requests whose operation MPI_Request_get_status reported complete.
    done: Vec<ReqId>,
    /// Nonblocking receives whose match may still come ([`RankOpsBuilder::matched`]): by
    /// event, its occurrence in `ops.recvs`; and the event of each one's request. A
    /// receive leaves when a wait completes it or it is freed: no match comes after that.
    unmatched: FxHashMap<usize, usize>,
    unmatched_requests: FxHashMap<ReqId, usize>,
}

impl RankOpsBuilder {
    /// The rank's next event, `e` its index; `intra` tells whether a communicator is an
    /// intracommunicator.
    pub(crate) fn event(&mut self, e: usize, event: &Event, intra: impl Fn(CommId) -> bool) {
        let RankOpsBuilder {
            ops,
            active,
            templates,
            done,
            unmatched,
            unmatched_requests,
        } = self;
        let returned = event.returned.then_some(e);
        let send = |ops: &mut RankOps, spec: &SendSpec| {
            ops.sends.push(SendOcc {
                event: e,
                comm: spec.comm,
                dest: spec.dest,
                tag: spec.tag,
            });
            ops.sends.len() - 1
        };
        let recv = |ops: &mut RankOps, spec: &RecvSpec, completion: Option<usize>| {
            ops.recvs.push(RecvOcc {
                comm: spec.comm,
                source: spec.source,
                tag: spec.tag,
                matched: spec.matched,
                completion,
            });
            ops.recvs.len() - 1
        };
        match &event.op {
            Op::Send {
                send: spec,
                blocking,
            } => match blocking {
                Blocking::Blocking => {
                    send(ops, spec);
                }
                Blocking::Nonblocking(r) => {
                    let i = send(ops, spec);
                    active.insert(*r, Active::Send(i));
                }
                Blocking::Persistent(r) => {
                    templates.insert(*r, Template::Send(spec.clone()));
                }
            },
            Op::Recv {
                recv: spec,
                blocking,
            } => match blocking {
                Blocking::Blocking => {
                    recv(ops, spec, returned);
                }
                Blocking::Nonblocking(r) => {
                    let i = recv(ops, spec, None);
                    active.insert(*r, Active::Recv(i));
                    if spec.matched.is_none() {
                        unmatched.insert(e, i);
                        unmatched_requests.insert(*r, e);
                    }
                }
                Blocking::Persistent(r) => {
                    templates.insert(*r, Template::Recv(spec.clone()));
                }
            },
            Op::Sendrecv {
                send: s,
                recv: r,
                blocking,
            } => {
                send(ops, s);
                match blocking {
                    Blocking::Nonblocking(q) => {
                        let j = recv(ops, r, None);
                        active.insert(*q, Active::Sendrecv(j));
                        if r.matched.is_none() {
                            unmatched.insert(e, j);
                            unmatched_requests.insert(*q, e);
                        }
                    }
                    _ => {
                        recv(ops, r, returned);
                    }
                }
            }
            Op::Probe {
                matched_probe: true,
                found,
                blocking,
                source,
                tag,
                comm,
                matched,
            } if (*blocking && event.returned) || *found == Some(true) => {
                // A matched probe takes the message; the receive completes in MPI_Mrecv,
                // which the model does not pair.
                ops.recvs.push(RecvOcc {
                    comm: *comm,
                    source: *source,
                    tag: *tag,
                    matched: *matched,
                    completion: None,
                });
            }
            Op::Collective {
                kind,
                comm,
                root,
                blocking,
            } if synchronizes(*kind) && intra(*comm) => {
                let key = CollKey {
                    comm: *comm,
                    class: coll_class(blocking),
                    kind: *kind,
                    root: *root,
                };
                match blocking {
                    Blocking::Blocking => ops.colls.push(CollOcc {
                        key,
                        entry: e,
                        completion: returned,
                    }),
                    Blocking::Nonblocking(r) => {
                        ops.colls.push(CollOcc {
                            key,
                            entry: e,
                            completion: None,
                        });
                        active.insert(*r, Active::Coll(ops.colls.len() - 1));
                    }
                    Blocking::Persistent(r) => {
                        templates.insert(*r, Template::Coll(key));
                    }
                }
            }
            Op::Start { requests } => {
                for r in requests {
                    done.retain(|d| d != r);
                    let started = match templates.get(r) {
                        Some(Template::Send(spec)) => Active::Send(send(ops, spec)),
                        Some(Template::Recv(spec)) => Active::Recv(recv(ops, spec, None)),
                        Some(Template::Coll(key)) => {
                            ops.colls.push(CollOcc {
                                key: *key,
                                entry: e,
                                completion: None,
                            });
                            Active::Coll(ops.colls.len() - 1)
                        }
                        None => continue,
                    };
                    active.insert(*r, started);
                }
            }
            Op::Wait {
                requests,
                completed,
                ..
            }
            | Op::RequestStatus {
                requests,
                completed,
                ..
            } => {
                let status_only = matches!(event.op, Op::RequestStatus { .. });
                for r in super::completed_requests(requests, completed) {
                    match active.get(&r) {
                        Some(Active::Recv(j) | Active::Sendrecv(j)) => {
                            ops.recvs[*j].completion.get_or_insert(e);
                        }
                        Some(Active::Coll(j)) => {
                            ops.colls[*j].completion.get_or_insert(e);
                        }
                        _ => {}
                    }
                    if status_only {
                        done.push(r);
                    } else {
                        active.remove(&r);
                        if let Some(e) = unmatched_requests.remove(&r) {
                            unmatched.remove(&e);
                        }
                    }
                }
            }
            Op::RequestFree { request } => {
                if let Some(e) = unmatched_requests.remove(request) {
                    unmatched.remove(&e);
                }
                if let Some(Active::Send(i)) = active.remove(request) {
                    if !done.contains(request) {
                        ops.freed.push((*request, i));
                    }
                }
                templates.remove(request);
                done.retain(|d| d != request);
            }
            _ => {}
        }
    }

    /// The source and tag that the receive of event `e` matched, known after its event
    /// (while the traces are normalized, when the call that completed it is).
    pub(crate) fn matched(&mut self, e: usize, matched: (Rank, i32)) {
        if let Some(&i) = self.unmatched.get(&e) {
            self.ops.recvs[i].matched = Some(matched);
        }
    }

    /// How many receives wait for their match (for tests).
    #[cfg(test)]
    pub(crate) fn unmatched(&self) -> usize {
        self.unmatched.len()
    }

    pub(crate) fn finish(self) -> RankOps {
        self.ops
    }
}

/// One rank's messages, receives, collectives and freed sends, in call order.
fn rank_ops(run: &Run, rank: Rank) -> RankOps {
    let mut builder = RankOpsBuilder::default();
    let intra = |comm: CommId| {
        run.comms
            .get(comm.0 as usize)
            .is_some_and(|c| c.remote.is_none())
    };
    for (e, event) in run.ranks[rank as usize].events.iter().enumerate() {
        builder.event(e, event, intra);
    }
    builder.finish()
}

/// Pairs every receive with the message it took.
fn pair_messages(ops: &[RankOps]) -> Pairs {
    // (sender, receiver, comm) → (send, tag, taken) in send order.
    type Stream = VecDeque<(usize, i32, bool)>;
    let mut streams: HashMap<(Rank, Rank, CommId), Stream> = HashMap::new();
    for (sender, o) in ops.iter().enumerate() {
        for (i, s) in o.sends.iter().enumerate() {
            if let Some(dest) = s.dest {
                streams
                    .entry((sender as Rank, dest, s.comm))
                    .or_default()
                    .push_back((i, s.tag, false));
            }
        }
    }
    let mut pairs = HashMap::new();
    for (receiver, o) in ops.iter().enumerate() {
        for (j, r) in o.recvs.iter().enumerate() {
            let (source, tag) = match (r.matched, r.source) {
                (Some((s, t)), _) => (s, Some(t)),
                (None, Some(Source::Rank(s))) => (
                    s,
                    match r.tag {
                        TagMatch::Tag(t) => Some(t),
                        TagMatch::Any => None,
                    },
                ),
                _ => continue,
            };
            let Some(stream) = streams.get_mut(&(source, receiver as Rank, r.comm)) else {
                continue;
            };
            let Some(message) = stream
                .iter_mut()
                .find(|(_, t, taken)| !taken && tag.is_none_or(|tag| tag == *t))
            else {
                continue;
            };
            message.2 = true;
            pairs.insert((receiver as Rank, j), (source, message.0));
            while stream.front().is_some_and(|m| m.2) {
                stream.pop_front();
            }
        }
    }
    pairs
}

#[cfg(test)]
pub(crate) fn freed_send_proofs(run: &Run) -> Proofs {
    let ops: Vec<RankOps> = (0..run.world_size()).map(|r| rank_ops(run, r)).collect();
    proofs_of(&ops, &|comm| run.comm(comm).members.clone())
}

/// The freed sends of `ops` (every rank's, by rank) that the program later knew complete;
/// `members` gives a communicator's members.
pub(crate) fn proofs_of(ops: &[RankOps], members: &dyn Fn(CommId) -> Vec<Rank>) -> Proofs {
    let mut proofs = Proofs::new();
    if ops.iter().all(|o| o.freed.is_empty()) {
        return proofs;
    }
    let pairs = pair_messages(ops);
    // sender's send → its receive's (receiver, completion)
    let mut received: HashMap<(Rank, usize), (Rank, Option<usize>)> = HashMap::new();
    for (&(receiver, j), &(sender, i)) in &pairs {
        received.insert(
            (sender, i),
            (receiver, ops[receiver as usize].recvs[j].completion),
        );
    }
    // What to prove: the sender knows of its receive's completion.
    let mut goals: Vec<Goal> = Vec::new();
    for (sender, o) in ops.iter().enumerate() {
        for &(request, i) in &o.freed {
            let send = &o.sends[i];
            if send.dest.is_none() {
                // MPI_PROC_NULL: complete at once.
                proofs.insert((sender as Rank, request), send.event);
                continue;
            }
            if let Some(&(receiver, Some(completion))) = received.get(&(sender as Rank, i)) {
                goals.push(Goal {
                    sender: sender as Rank,
                    request,
                    receiver,
                    completion,
                });
            }
        }
    }
    if !goals.is_empty() {
        clocks::prove(members, ops, &pairs, &goals, &mut proofs);
    }
    proofs
}

/// A call: (rank, event index).
pub(crate) type CallAt = (Rank, usize);

/// Whether the first call of each pair happens before the second (by event index in their
/// ranks): one call of a rank precedes its later calls, and calls of different ranks are
/// ordered by the messages and collectives the clocks follow. Used by the RMA checks for
/// what `MPI_MODE_NOCHECK` promises.
pub(crate) fn happens_before(run: &Run, pairs: &[(CallAt, CallAt)]) -> Vec<bool> {
    let mut goals: Vec<Goal> = Vec::new();
    for (i, &((first, before), (second, _))) in pairs.iter().enumerate() {
        if first != second {
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
        let ops: Vec<RankOps> = (0..run.world_size()).map(|r| rank_ops(run, r)).collect();
        let messages = pair_messages(&ops);
        clocks::prove(
            &|comm| run.comm(comm).members.clone(),
            &ops,
            &messages,
            &goals,
            &mut proofs,
        );
    }
    pairs
        .iter()
        .enumerate()
        .map(|(i, &((first, before), (second, after)))| {
            if first == second {
                before < after
            } else {
                // Known at a call before the second one (the proof is the call that brought it).
                proofs
                    .get(&(second, ReqId(i as u32)))
                    .is_some_and(|&at| at < after)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_trace::parse;

    fn proofs(text: &str) -> Vec<(Rank, u32, usize)> {
        let mut out: Vec<(Rank, u32, usize)> = freed_send_proofs(&parse(text).unwrap())
            .into_iter()
            .map(|((rank, req), at)| (rank, req.0, at))
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn a_reply_sent_after_the_receive_proves_the_freed_send_complete() {
        // MPI 4.1 Example 3.13.
        assert_eq!(
            proofs(
                "ranks 2
                 0: isend dest=1 tag=0 req=0
                 0: request_free req=0
                 0: irecv src=1 tag=0 req=1
                 0: wait req=1
                 1: irecv src=0 tag=0 req=0
                 1: wait req=0
                 1: isend dest=0 tag=0 req=1
                 1: wait req=1"
            ),
            vec![(0, 0, 3)]
        );
    }

    #[test]
    fn a_collective_after_the_receive_proves_it_and_one_before_does_not() {
        let text = "ranks 3
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
             2: allreduce";
        // Not the barrier (before the receive), not the broadcast (rank 0 depends on
        // the root only), the allreduce.
        assert_eq!(proofs(text), vec![(0, 0, 4)]);
        // A chain through a third rank proves it too.
        let chain = "ranks 3
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: recv src=2 tag=5
             1: recv src=0 tag=0
             1: send dest=2 tag=5
             2: recv src=1 tag=5
             2: send dest=0 tag=5";
        assert_eq!(proofs(chain), vec![(0, 0, 2)]);
    }

    #[test]
    fn nothing_proves_a_send_whose_receive_never_completed_or_came_later() {
        let text = "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: barrier
             1: send dest=0 tag=3
             1: barrier
             1: recv src=0 tag=0
             0: recv src=1 tag=3";
        assert_eq!(proofs(text), vec![]);
        let never = "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: barrier
             1: irecv src=0 tag=0 req=0
             1: barrier";
        assert_eq!(proofs(never), vec![]);
    }

    #[test]
    fn freed_persistent_sends_are_proved_by_their_last_start() {
        let text = "ranks 2
             0: send_init dest=1 tag=0 req=0
             0: start req=0
             0: wait req=0
             0: start req=0
             0: request_free req=0
             0: barrier
             1: recv src=0 tag=0
             1: recv src=0 tag=0
             1: barrier";
        assert_eq!(proofs(text), vec![(0, 0, 5)]);
    }
}
