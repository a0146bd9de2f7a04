//! Compilation of a [`Run`] into a [`Program`] of [`ReplayOp`]s, and [`ProgramBuilder`].

use super::*;

impl Program {
    /// Compiles a run. Each event becomes exactly one operation, so event indices carry over.
    pub fn from_run(run: &Run) -> Program {
        let mut b = ProgramBuilder::new(run.world_size());
        for info in run.comms.iter().skip(1) {
            let mut members = info.members.clone();
            if let Some(remote) = &info.remote {
                // Collectives on an intercommunicator involve both groups.
                members.extend(remote.iter().copied());
            }
            b.add_comm(members);
        }
        let held = rma::HeldLocks::of(run);
        for trace in &run.ranks {
            b.begin_rank();
            let first = b.program.ops.len();
            // Request id → index of the operation that created it, to mark the sends and
            // collectives whose wait never returned.
            let mut origin: FxHashMap<u32, usize> = FxHashMap::default();
            let mut polls = polling::PollScanner::default();
            let mut ids = RequestIds::default();
            let rank = (b.program.rank_start.len() - 1) as Rank;
            // A process that ran its exit handlers inside its last call did not block there:
            // MPI ended it in the call (an error handler, MPI_Abort), or another thread did;
            // nor did a call in which MPI aborted the job. The call does nothing in the
            // replay, or it would look blocked forever.
            let exited_in = match trace.end {
                RankEnd::ExitedWithoutFinalize => trace
                    .events
                    .len()
                    .checked_sub(1)
                    .filter(|&last| !trace.events[last].returned),
                RankEnd::AbortedInCall { event, .. } => Some(event),
                _ => None,
            };
            let mut cancels = Cancels::default();
            for (index, event) in trace.events.iter().enumerate() {
                let poll = polls.role(event);
                let info = b.info_of(event);
                cancels.note(event, b.program.ops.len(), &mut b.program.info);
                if exited_in == Some(index) {
                    b.push_call(ReplayOp::new(OpKind::Nop), info, event);
                    continue;
                }
                let mut op = compile_event(event, poll, &mut ids, run, &mut b);
                if let Some(call) = run.rma.get(&(rank, index as u32)) {
                    op = rma::compile(call, index, op, run, rank, &held, &mut b);
                }
                if matches!(
                    op.kind,
                    OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective
                ) && op.a != NO_REQ
                {
                    origin.insert(op.a, b.program.ops.len());
                }
                b.push_call(op, info, event);
            }
            for i in first..b.program.ops.len() {
                let op = b.program.ops[i];
                if op.kind != OpKind::Wait || op.flags & flags::RETURNED != 0 {
                    continue;
                }
                for k in 0..op.b {
                    let req = b.program.aux[(op.a + k) as usize];
                    if let Some(&o) = origin.get(&req) {
                        b.program.ops[o].flags |= flags::UNBUFFERED;
                    }
                }
            }
            b.end_rank(match trace.end {
                RankEnd::Finalized => EndKind::Finalized,
                RankEnd::ExitedWithoutFinalize => EndKind::Exited,
                // Nothing is known after the call MPI aborted in.
                RankEnd::Interrupted { .. } | RankEnd::AbortedInCall { .. } => EndKind::Interrupted,
            });
        }
        b.finish()
    }
}

/// The nonblocking sends of one rank by request, to mark those a later `MPI_Cancel` names
/// ([`info_bits::CANCELLED`]). A request id names one request (the normalizer gives each
/// new request its own), so an entry goes once the request is cancelled.
#[derive(Default)]
struct Cancels {
    sends: FxHashMap<u32, Vec<u32>>,
}

impl Cancels {
    /// Notes `event`, about to become operation `at`.
    fn note(&mut self, event: &Event, at: usize, info: &mut [OpInfo]) {
        match &event.op {
            Op::Send {
                blocking: Blocking::Nonblocking(r),
                ..
            } => self.sends.entry(r.0).or_default().push(at as u32),
            Op::Cancel { request } => {
                for i in self.sends.remove(&request.0).unwrap_or_default() {
                    info[i as usize].bits |= info_bits::CANCELLED;
                }
            }
            _ => {}
        }
    }
}

/// The shape and bits of an event's [`OpInfo`].
fn shape_of(event: &Event) -> (CallShape, u8) {
    let mut bits = if event.returned {
        info_bits::RETURNED
    } else {
        0
    };
    let shape = match &event.op {
        Op::Send { send, blocking } => {
            if matches!(blocking, Blocking::Persistent(_)) {
                bits |= info_bits::PERSISTENT;
            }
            if send.mode == SendMode::Synchronous {
                CallShape::SyncSend
            } else {
                CallShape::Send
            }
        }
        Op::Sendrecv { .. } => CallShape::Sendrecv,
        Op::Recv { .. } => CallShape::Recv,
        Op::Probe { .. } => CallShape::Probe,
        Op::Wait { .. } | Op::RequestStatus { .. } => CallShape::Wait,
        Op::Collective { blocking, .. } => {
            if matches!(blocking, Blocking::Persistent(_)) {
                bits |= info_bits::PERSISTENT;
            }
            CallShape::Collective
        }
        _ => CallShape::Other,
    };
    (shape, bits)
}

pub(super) fn blocking_parts(blocking: &Blocking, ids: &RequestIds) -> (u8, u32) {
    match blocking {
        Blocking::Blocking => (class::BLOCKING, NO_REQ),
        Blocking::Nonblocking(r) => (class::NONBLOCKING, ids.id(*r)),
        Blocking::Persistent(r) => (class::PERSISTENT, ids.id(*r)),
    }
}

/// The replay's request ids of one rank: the trace's, except for handles a single
/// successful test gave back ([`OpKind::Release`]), which name a fresh request from then on.
/// Fresh ids count down from just below [`NO_REQ`], away from the trace's (which count up
/// from 0), so they are known without reading the rank's events first.
pub(super) struct RequestIds {
    renamed: FxHashMap<u32, u32>,
    next_fresh: u32,
}

impl Default for RequestIds {
    fn default() -> RequestIds {
        RequestIds {
            renamed: FxHashMap::default(),
            next_fresh: NO_REQ - 1,
        }
    }
}

impl RequestIds {
    pub(super) fn id(&self, r: ReqId) -> u32 {
        self.renamed.get(&r.0).copied().unwrap_or(r.0)
    }
    /// A request no event names (for a message a single probe let the program take).
    pub(super) fn fresh(&mut self) -> u32 {
        self.next_fresh -= 1;
        self.next_fresh + 1
    }
    /// Gives the handle a fresh request; returns `[old, new]`.
    pub(super) fn rename(&mut self, r: ReqId) -> [u32; 2] {
        let old = self.id(r);
        let new = self.fresh();
        self.renamed.insert(r.0, new);
        [old, new]
    }
}

pub(super) fn message_bytes(run: &Run, count: i64, datatype: Option<TypeId>) -> u32 {
    let size = datatype
        .and_then(|t| run.datatypes.get(t.0 as usize))
        .and_then(|d| d.size)
        .unwrap_or(1);
    (count.max(0) as u64)
        .saturating_mul(size)
        .min(u32::MAX as u64) as u32
}

pub(super) fn source_word(source: Option<Source>) -> u32 {
    match source {
        None => NO_RANK,
        Some(Source::Any) => ANY_SOURCE,
        Some(Source::Rank(r)) => r,
    }
}

pub(super) fn tag_word(tag: TagMatch) -> i32 {
    match tag {
        TagMatch::Any => ANY_TAG,
        TagMatch::Tag(t) => t,
    }
}

/// Compiles one event; `poll` says whether a test or nonblocking probe that succeeded ended
/// a polling loop, and `ids` maps the rank's requests to the replay's.
pub(super) fn compile_event(
    event: &Event,
    poll: Poll,
    ids: &mut RequestIds,
    run: &Run,
    b: &mut ProgramBuilder,
) -> ReplayOp {
    let mut op = ReplayOp::new(OpKind::Nop);
    op.flags = if event.returned { flags::RETURNED } else { 0 };
    match &event.op {
        Op::Init { .. } | Op::Other => {}
        Op::Finalize => op.kind = OpKind::Finalize,
        Op::Send { send, blocking } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Send;
            op.peer = send.dest.unwrap_or(NO_RANK);
            op.tag = send.tag;
            op.comm = send.comm.0;
            op.sub = mode_index(send.mode);
            op.b = message_bytes(run, send.count, send.datatype);
        }
        Op::Recv { recv, blocking } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            if poll == Poll::ReceivesProbed {
                // Received only because a single probe found the message: nobody waits.
                op.class = class::NONBLOCKING;
                op.a = ids.fresh();
            }
            op.kind = OpKind::Recv;
            op.peer = source_word(recv.source);
            op.tag = tag_word(recv.tag);
            op.comm = recv.comm.0;
            op.b = recv.matched.map_or(NO_RANK, |m| m.0);
        }
        Op::Sendrecv {
            send,
            recv,
            blocking,
        } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Sendrecv;
            op.peer = send.dest.unwrap_or(NO_RANK);
            op.tag = send.tag;
            op.comm = send.comm.0;
            op.sub = mode_index(send.mode);
            op.b = b.push_aux(&[
                source_word(recv.source),
                tag_word(recv.tag) as u32,
                recv.matched.map_or(NO_RANK, |m| m.0),
                message_bytes(run, send.count, send.datatype),
            ]);
        }
        Op::Probe {
            source,
            tag,
            comm,
            blocking,
            matched_probe,
            found,
            matched,
        } => {
            // A nonblocking probe that found nothing is polling; one that found a message
            // at the end of a polling loop behaves like the blocking probe; a single one
            // that found a message waited for nothing, but a matched one still took the
            // message, as a receive nobody waits for.
            let took = *found == Some(true) && *matched_probe && poll == Poll::Once;
            if *blocking || poll == Poll::LoopEnd || took {
                op.kind = if *matched_probe {
                    OpKind::Recv
                } else {
                    OpKind::Probe
                };
                op.peer = source_word(*source);
                op.tag = tag_word(*tag);
                op.comm = comm.0;
                op.b = matched.map_or(NO_RANK, |m| m.0);
                if took {
                    op.class = class::NONBLOCKING;
                    op.a = ids.fresh();
                }
            }
        }
        Op::Wait {
            requests,
            kind,
            test: false,
            ..
        } => {
            let chosen: Vec<u32> = requests.iter().flatten().map(|&r| ids.id(r)).collect();
            if !chosen.is_empty() {
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen.len() as u32;
                op.a = b.push_aux(&chosen);
            }
        }
        Op::Wait {
            requests,
            kind,
            test: true,
            completed,
        }
        | Op::RequestStatus {
            requests,
            kind,
            completed,
        } => {
            // Only a test that ended a polling loop waited: for all its requests
            // (`Test`, `Testall`), or for any of them (`Testany`, `Testsome`). A single
            // one that succeeded gave the program back the requests it found complete.
            if poll == Poll::Once {
                let pairs: Vec<u32> = completed
                    .iter()
                    .flatten()
                    .filter_map(|&i| requests.get(i as usize).copied().flatten())
                    .flat_map(|r| ids.rename(r))
                    .collect();
                op.kind = OpKind::Release;
                op.b = pairs.len() as u32 / 2;
                op.a = b.push_aux(&pairs);
            } else if poll == Poll::LoopEnd {
                let chosen: Vec<u32> = requests.iter().flatten().map(|&r| ids.id(r)).collect();
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen.len() as u32;
                op.a = b.push_aux(&chosen);
            }
        }
        Op::Start { requests } => {
            let started: Vec<u32> = requests.iter().map(|&r| ids.id(r)).collect();
            op.kind = OpKind::Start;
            op.b = started.len() as u32;
            op.a = b.push_aux(&started);
        }
        Op::Cancel { request } => {
            op.kind = OpKind::Cancel;
            op.a = ids.id(*request);
        }
        Op::RequestFree { request } => {
            op.kind = OpKind::RequestFree;
            op.a = ids.id(*request);
        }
        Op::Collective {
            kind,
            comm,
            root,
            blocking,
        } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            op.kind = OpKind::Collective;
            op.comm = comm.0;
            op.sub = kind_index(*kind);
            op.peer = root.and_then(|r| u32::try_from(r).ok()).unwrap_or(NO_RANK);
            if *kind == CollectiveKind::Management {
                op.b = b.name_id(event.call);
            }
        }
        Op::BufferAttach { bytes } => {
            op.kind = OpKind::BufferAttach;
            op.b = (*bytes).clamp(0, u32::MAX as i64) as u32;
        }
        Op::BufferDetach => op.kind = OpKind::BufferDetach,
    }
    op
}

/// Builds a [`Program`] rank by rank, for runs too large to hold as a [`Run`] (benchmarks)
/// and for [`Program::from_run`].
pub struct ProgramBuilder {
    program: Program,
    open: bool,
    /// Name → index in the program's names.
    name_ids: FxHashMap<&'static str, u32>,
}

impl ProgramBuilder {
    /// Communicator 0 is `MPI_COMM_WORLD` over `world_size` ranks.
    pub fn new(world_size: u32) -> ProgramBuilder {
        ProgramBuilder {
            program: Program {
                ops: Vec::new(),
                rank_start: vec![0],
                aux: Vec::new(),
                ends: Vec::with_capacity(world_size as usize),
                comms: vec![CommMembers::identity(world_size)],
                names: vec![""],
                info: Vec::new(),
                collective_comms: FxHashMap::default(),
            },
            open: false,
            name_ids: FxHashMap::from_iter([("", 0)]),
        }
    }
    pub fn reserve_ops(&mut self, n: usize) {
        self.program.ops.reserve(n);
        self.program.info.reserve(n);
    }
    /// Adds a communicator (world ranks in communicator rank order) and returns its id.
    pub fn add_comm(&mut self, members: Vec<Rank>) -> CommId {
        self.program.comms.push(CommMembers::of(members));
        CommId(self.program.comms.len() as u32 - 1)
    }
    /// Starts the next rank (ranks are added in order 0, 1, ...).
    pub fn begin_rank(&mut self) {
        assert!(!self.open, "end_rank was not called");
        self.open = true;
    }
    /// An operation not compiled from a call (generated programs).
    pub fn push(&mut self, op: ReplayOp) {
        debug_assert!(self.open);
        self.program.ops.push(op);
        self.program.info.push(OpInfo::default());
    }
    /// The [`OpInfo`] of the operation `event` becomes (its bits as far as the event tells).
    pub(crate) fn info_of(&mut self, event: &Event) -> OpInfo {
        let (shape, bits) = shape_of(event);
        OpInfo {
            site: event.site.0,
            call: u16::try_from(self.name_id(event.call)).unwrap_or(u16::MAX),
            shape,
            bits,
        }
    }
    /// An operation compiled from `event`, with its [`OpInfo`].
    pub(crate) fn push_call(&mut self, op: ReplayOp, info: OpInfo, event: &Event) {
        debug_assert!(self.open);
        if let Op::Collective { comm, .. } = &event.op {
            if op.kind != OpKind::Collective || op.comm != comm.0 {
                self.program
                    .collective_comms
                    .insert(self.program.ops.len() as u32, comm.0);
            }
        }
        self.program.ops.push(op);
        self.program.info.push(info);
    }
    /// Stores words in the aux table (request lists) and returns their offset.
    pub fn push_aux(&mut self, words: &[u32]) -> u32 {
        let at = self.program.aux.len() as u32;
        self.program.aux.extend_from_slice(words);
        at
    }
    pub(super) fn name_id(&mut self, name: &'static str) -> u32 {
        let names = &mut self.program.names;
        *self.name_ids.entry(name).or_insert_with(|| {
            names.push(name);
            names.len() as u32 - 1
        })
    }
    pub fn end_rank(&mut self, end: EndKind) {
        assert!(self.open, "begin_rank was not called");
        self.open = false;
        self.program.ends.push(end);
        self.program.rank_start.push(self.program.ops.len());
    }
    pub fn finish(self) -> Program {
        assert!(!self.open, "end_rank was not called");
        assert!(
            self.program.ops.len() < u32::MAX as usize,
            "too many operations"
        );
        self.program
    }

    // Conveniences for generated programs.

    pub fn send(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn isend(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    pub fn recv(&mut self, source: Rank, tag: i32, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        self.push(op);
    }
    pub fn irecv(&mut self, source: Rank, tag: i32, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv(
        &mut self,
        dest: Rank,
        send_tag: i32,
        source: Rank,
        recv_tag: i32,
        bytes: u32,
        comm: CommId,
    ) {
        let mut op = ReplayOp::new(OpKind::Sendrecv);
        op.peer = dest;
        op.tag = send_tag;
        op.comm = comm.0;
        op.b = self.push_aux(&[source, recv_tag as u32, NO_RANK, bytes]);
        self.push(op);
    }
    pub fn waitall(&mut self, reqs: &[u32]) {
        let mut op = ReplayOp::new(OpKind::Wait);
        op.b = reqs.len() as u32;
        op.a = self.push_aux(reqs);
        self.push(op);
    }
    pub fn collective(&mut self, kind: CollectiveKind, root: Option<u32>, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Collective);
        op.sub = kind_index(kind);
        op.peer = root.unwrap_or(NO_RANK);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn finalize(&mut self) {
        self.push(ReplayOp::new(OpKind::Finalize));
    }
}
