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
//!
//! While the traces are normalized, [`live::LiveProofs`] finds the same proofs as the
//! events come, holding only what later events can still need (issue 14); every rank's
//! whole skeleton ([`RankOps`]) is built only by [`Skeleton`], for the RMA checks that ask
//! what messages and collectives order, and by the tests, as the reference the streaming
//! proofs must equal.

use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::model::{
    Blocking, CollectiveKind, CommId, Event, Op, Rank, RecvSpec, ReqId, SendSpec, Source, TagMatch,
};

#[cfg(test)]
use crate::model::Run;

mod clocks;
pub(crate) mod live;
mod order;

pub(crate) use order::{CallAt, Skeleton};

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

pub(crate) struct SendOcc {
    event: usize,
    comm: CommId,
    dest: Option<Rank>,
    tag: i32,
}

pub(crate) struct RecvOcc {
    comm: CommId,
    source: Option<Source>,
    tag: TagMatch,
    matched: Option<(Rank, i32)>,
    /// The call that completed the receive (returned from it, or reported it complete).
    completion: Option<usize>,
}

/// What a collective member's result depends on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Dep {
    Nothing,
    All,
    Root(u32),
    /// Members `0..n` (communicator ranks).
    Prefix(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CollKey {
    comm: CommId,
    class: u8,
    kind: CollectiveKind,
    root: Option<i32>,
}

pub(crate) struct CollOcc {
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

/// Where a [`RankOpsBuilder`] puts what one rank's events say: its sends, receives and
/// collectives by occurrence (numbered from 0 per rank, in call order), when receives and
/// collectives complete and which sends were freed while active. [`RankOps`] keeps them
/// all (the whole skeleton, for [`Skeleton`] and as the tests' reference);
/// [`live::LiveProofs`] keeps only what later events can still need.
pub(crate) trait Sink {
    /// Send `i`, started at event `e`; `request` when the program may free it while active
    /// (a nonblocking or started persistent send).
    fn send(&mut self, i: usize, e: usize, spec: &SendSpec, request: Option<ReqId>);
    /// Receive `j`. `awaits_match`: its match may still come ([`Sink::recv_matched`]) until
    /// [`Sink::recv_settled`]; `completion_final`: its completion is known now (a blocking
    /// receive, a matched probe), else it comes through [`Sink::recv_completed`] until
    /// [`Sink::recv_over`].
    fn recv(&mut self, j: usize, recv: RecvOcc, awaits_match: bool, completion_final: bool);
    /// The source and tag receive `j` matched (it awaits its match).
    fn recv_matched(&mut self, j: usize, matched: (Rank, i32));
    /// No match comes for receive `j` any more.
    fn recv_settled(&mut self, j: usize);
    /// Event `e` completed receive `j` (the first completion counts).
    fn recv_completed(&mut self, j: usize, e: usize);
    /// Receive `j` can no longer complete (its request was waited for, freed or restarted).
    fn recv_over(&mut self, j: usize);
    /// Collective `k`; `completion_final` as for [`Sink::recv`].
    fn coll(&mut self, k: usize, coll: CollOcc, completion_final: bool);
    /// Event `e` completed collective `k` (the first completion counts).
    fn coll_completed(&mut self, k: usize, e: usize);
    /// Collective `k` can no longer complete.
    fn coll_over(&mut self, k: usize);
    /// Send `i` can no longer be freed while active (it completed, was reported complete,
    /// or its persistent request was restarted).
    fn send_over(&mut self, i: usize);
    /// Send `i` was freed while active, by freeing `request`.
    fn freed(&mut self, request: ReqId, i: usize);
}

impl Sink for RankOps {
    fn send(&mut self, i: usize, e: usize, spec: &SendSpec, _: Option<ReqId>) {
        debug_assert_eq!(i, self.sends.len());
        self.sends.push(SendOcc {
            event: e,
            comm: spec.comm,
            dest: spec.dest,
            tag: spec.tag,
        });
    }
    fn recv(&mut self, j: usize, recv: RecvOcc, _: bool, _: bool) {
        debug_assert_eq!(j, self.recvs.len());
        self.recvs.push(recv);
    }
    fn recv_matched(&mut self, j: usize, matched: (Rank, i32)) {
        self.recvs[j].matched = Some(matched);
    }
    fn recv_settled(&mut self, _: usize) {}
    fn recv_completed(&mut self, j: usize, e: usize) {
        self.recvs[j].completion.get_or_insert(e);
    }
    fn recv_over(&mut self, _: usize) {}
    fn coll(&mut self, k: usize, coll: CollOcc, _: bool) {
        debug_assert_eq!(k, self.colls.len());
        self.colls.push(coll);
    }
    fn coll_completed(&mut self, k: usize, e: usize) {
        self.colls[k].completion.get_or_insert(e);
    }
    fn coll_over(&mut self, _: usize) {}
    fn send_over(&mut self, _: usize) {}
    fn freed(&mut self, request: ReqId, i: usize) {
        self.freed.push((request, i));
    }
}

/// Reads one rank's events in order for a [`Sink`]: what a request's operation is while
/// active, persistent requests' templates and the requests whose completion
/// `MPI_Request_get_status` reported. Its state is the rank's live requests.
#[derive(Default)]
pub(crate) struct RankOpsBuilder {
    active: FxHashMap<ReqId, Active>,
    templates: FxHashMap<ReqId, Template>,
    /// Requests whose operation MPI_Request_get_status reported complete.
    done: Vec<ReqId>,
    /// Nonblocking receives whose match may still come ([`RankOpsBuilder::matched`]): by
    /// event, its receive occurrence; and the event of each one's request. A receive
    /// leaves when a wait completes it or it is freed: no match comes after that.
    unmatched: FxHashMap<usize, usize>,
    unmatched_requests: FxHashMap<ReqId, usize>,
    /// How many sends, receives and collectives the rank made so far.
    sends: usize,
    recvs: usize,
    colls: usize,
}

/// Tells `sink` that an operation is no longer active.
fn over(sink: &mut impl Sink, was: Active) {
    match was {
        Active::Send(i) => sink.send_over(i),
        Active::Recv(j) | Active::Sendrecv(j) => sink.recv_over(j),
        Active::Coll(k) => sink.coll_over(k),
    }
}

fn recv_occ(spec: &RecvSpec, completion: Option<usize>) -> RecvOcc {
    RecvOcc {
        comm: spec.comm,
        source: spec.source,
        tag: spec.tag,
        matched: spec.matched,
        completion,
    }
}

impl RankOpsBuilder {
    /// Whether a persistent collective request on `comm` lives (it may be started again:
    /// its request keeps the communicator after `MPI_Comm_free`).
    pub(crate) fn persistent_on(&self, comm: CommId) -> bool {
        self.templates
            .values()
            .any(|t| matches!(t, Template::Coll(key) if key.comm == comm))
    }

    /// The rank's next event, `e` its index; `intra` tells whether a communicator is an
    /// intracommunicator.
    pub(crate) fn event<S: Sink>(
        &mut self,
        e: usize,
        event: &Event,
        intra: impl Fn(CommId) -> bool,
        sink: &mut S,
    ) {
        let RankOpsBuilder {
            active,
            templates,
            done,
            unmatched,
            unmatched_requests,
            sends,
            recvs,
            colls,
        } = self;
        let returned = event.returned.then_some(e);
        let mut send = |sink: &mut S, spec: &SendSpec, request: Option<ReqId>| {
            let i = *sends;
            *sends += 1;
            Sink::send(sink, i, e, spec, request);
            i
        };
        let mut recv = |sink: &mut S, occ: RecvOcc, awaits: bool, completion_final: bool| {
            let j = *recvs;
            *recvs += 1;
            Sink::recv(sink, j, occ, awaits, completion_final);
            j
        };
        let mut coll = |sink: &mut S, key: CollKey, completion: Option<usize>, is_final: bool| {
            let k = *colls;
            *colls += 1;
            Sink::coll(
                sink,
                k,
                CollOcc {
                    key,
                    entry: e,
                    completion,
                },
                is_final,
            );
            k
        };
        // Makes `r`'s operation `now`: one it replaces is over.
        let activate =
            |sink: &mut S, active: &mut FxHashMap<ReqId, Active>, r: ReqId, now: Active| {
                if let Some(was) = active.insert(r, now) {
                    over(sink, was);
                }
            };
        match &event.op {
            Op::Send {
                send: spec,
                blocking,
            } => match blocking {
                Blocking::Blocking => {
                    send(sink, spec, None);
                }
                Blocking::Nonblocking(r) => {
                    let i = send(sink, spec, Some(*r));
                    activate(sink, active, *r, Active::Send(i));
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
                    recv(sink, recv_occ(spec, returned), false, true);
                }
                Blocking::Nonblocking(r) => {
                    let awaits = spec.matched.is_none();
                    let j = recv(sink, recv_occ(spec, None), awaits, false);
                    activate(sink, active, *r, Active::Recv(j));
                    if awaits {
                        unmatched.insert(e, j);
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
                send(sink, s, None);
                match blocking {
                    Blocking::Nonblocking(q) => {
                        let awaits = r.matched.is_none();
                        let j = recv(sink, recv_occ(r, None), awaits, false);
                        activate(sink, active, *q, Active::Sendrecv(j));
                        if awaits {
                            unmatched.insert(e, j);
                            unmatched_requests.insert(*q, e);
                        }
                    }
                    _ => {
                        recv(sink, recv_occ(r, returned), false, true);
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
                let occ = RecvOcc {
                    comm: *comm,
                    source: *source,
                    tag: *tag,
                    matched: *matched,
                    completion: None,
                };
                recv(sink, occ, false, true);
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
                    Blocking::Blocking => {
                        coll(sink, key, returned, true);
                    }
                    Blocking::Nonblocking(r) => {
                        let k = coll(sink, key, None, false);
                        activate(sink, active, *r, Active::Coll(k));
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
                        Some(Template::Send(spec)) => Active::Send(send(sink, spec, Some(*r))),
                        Some(Template::Recv(spec)) => {
                            Active::Recv(recv(sink, recv_occ(spec, None), false, false))
                        }
                        Some(Template::Coll(key)) => Active::Coll(coll(sink, *key, None, false)),
                        None => continue,
                    };
                    activate(sink, active, *r, started);
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
                        Some(Active::Recv(j) | Active::Sendrecv(j)) => sink.recv_completed(*j, e),
                        Some(Active::Coll(k)) => sink.coll_completed(*k, e),
                        Some(Active::Send(i)) if status_only => sink.send_over(*i),
                        _ => {}
                    }
                    if status_only {
                        done.push(r);
                    } else {
                        if let Some(e) = unmatched_requests.remove(&r) {
                            if let Some(j) = unmatched.remove(&e) {
                                sink.recv_settled(j);
                            }
                        }
                        if let Some(was) = active.remove(&r) {
                            over(sink, was);
                        }
                    }
                }
            }
            Op::RequestFree { request } => {
                if let Some(e) = unmatched_requests.remove(request) {
                    if let Some(j) = unmatched.remove(&e) {
                        sink.recv_settled(j);
                    }
                }
                match active.remove(request) {
                    Some(Active::Send(i)) if !done.contains(request) => sink.freed(*request, i),
                    Some(was) => over(sink, was),
                    None => {}
                }
                templates.remove(request);
                done.retain(|d| d != request);
            }
            _ => {}
        }
    }

    /// The source and tag that the receive of event `e` matched, known after its event
    /// (while the traces are normalized, when the call that completed it is).
    pub(crate) fn matched(&mut self, e: usize, matched: (Rank, i32), sink: &mut impl Sink) {
        if let Some(&j) = self.unmatched.get(&e) {
            sink.recv_matched(j, matched);
        }
    }

    /// Ends the rank's events: no match comes for the receives that still await one.
    pub(crate) fn finish(&mut self, sink: &mut impl Sink) {
        self.unmatched_requests.clear();
        let mut left: Vec<usize> = self.unmatched.drain().map(|(_, j)| j).collect();
        left.sort_unstable();
        for j in left {
            sink.recv_settled(j);
        }
    }

    /// How many receives wait for their match (for tests).
    #[cfg(test)]
    pub(crate) fn unmatched(&self) -> usize {
        self.unmatched.len()
    }
}

/// One rank's messages, receives, collectives and freed sends, in call order.
#[cfg(test)]
fn rank_ops(run: &Run, rank: Rank) -> RankOps {
    let mut builder = RankOpsBuilder::default();
    let mut ops = RankOps::default();
    let intra = |comm: CommId| run.comms.get(comm).is_some_and(|c| c.remote.is_none());
    for (e, event) in run.ranks[rank as usize].events.iter().enumerate() {
        builder.event(e, event, intra, &mut ops);
    }
    ops
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
    proofs_of(&ops, &|comm| run.comm(comm).members.to_vec())
}

/// The freed sends of `ops` (every rank's, by rank) that the program later knew complete;
/// `members` gives a communicator's members. The whole-skeleton computation that
/// [`live::LiveProofs`] must agree with (the tests' reference).
#[cfg(test)]
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
