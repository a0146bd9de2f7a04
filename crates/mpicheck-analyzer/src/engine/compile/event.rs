//! What one event becomes: its [`ReplayOp`] ([`compile_event`]) and [`OpInfo`]
//! ([`info_of`]), with the rank's requests renamed into the replay's ([`RequestIds`]).

use super::*;
/// The [`OpInfo`] of the operation `event` becomes (its bits as far as the event tells).
/// (Inlined into the compiler's one call: called, it cost ~25 instructions per event.)
#[inline]
pub(super) fn info_of(event: &Event, names: &mut Names) -> OpInfo {
    let (shape, bits) = shape_of(event);
    OpInfo {
        site: event.site.0,
        call: u16::try_from(names.id(event.call)).unwrap_or(u16::MAX),
        shape,
        bits,
    }
}

/// The shape and bits of an event's [`OpInfo`].
pub(super) fn shape_of(event: &Event) -> (CallShape, u8) {
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
    pub(super) renamed: FxHashMap<u32, u32>,
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
    fn fresh(&mut self) -> u32 {
        self.next_fresh -= 1;
        self.next_fresh + 1
    }
    /// Forgets the fresh request the handle `r` was given, once nothing names it again.
    pub(super) fn forget(&mut self, r: ReqId) {
        self.renamed.remove(&r.0);
    }
    /// Gives the handle a fresh request; returns `[old, new]`.
    pub(super) fn rename(&mut self, r: ReqId) -> [u32; 2] {
        let old = self.id(r);
        let new = self.fresh();
        self.renamed.insert(r.0, new);
        [old, new]
    }
}

pub(super) fn message_bytes(tables: &RunTables, count: i64, datatype: Option<TypeId>) -> u32 {
    let size = datatype.and_then(|t| tables.datatype(t)?.size).unwrap_or(1);
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
    tables: &RunTables,
    aux: &mut SpilledVec<u32>,
    names: &mut Names,
) -> ReplayOp {
    let mut push_aux = |words: &[u32]| {
        let at = aux.len() as u32;
        aux.extend_from_slice(words);
        at
    };
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
            op.b = message_bytes(tables, send.count, send.datatype);
        }
        Op::Recv { recv, blocking } => {
            (op.class, op.a) = blocking_parts(blocking, ids);
            if poll == Poll::ReceivesProbed {
                // Received only because a single probe found the message: nobody waits.
                op.class = class::NONBLOCKING;
                op.a = ids.fresh();
                op.flags |= flags::TAKES_PROBED;
            }
            op.kind = OpKind::Recv;
            op.peer = source_word(recv.source);
            op.tag = tag_word(recv.tag);
            op.comm = recv.comm.0;
            op.b = recv.matched.map_or(NO_RANK, |m| m.0);
            if let Some((_, tag)) = recv.matched {
                note_recorded_tag(&mut op, tag);
            }
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
            op.b = push_aux(&[
                source_word(recv.source),
                tag_word(recv.tag) as u32,
                recv.matched.map_or(NO_RANK, |m| m.0),
                message_bytes(tables, send.count, send.datatype),
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
                if let Some((_, tag)) = matched {
                    note_recorded_tag(&mut op, *tag);
                }
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
            // The requests go straight into the aux words (none for a wait on none).
            let at = aux.len() as u32;
            for &r in requests.iter().flatten() {
                aux.push(ids.id(r));
            }
            let chosen = aux.len() as u32 - at;
            if chosen > 0 {
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen;
                op.a = at;
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
                op.a = push_aux(&pairs);
            } else if poll == Poll::LoopEnd {
                let chosen: Vec<u32> = requests.iter().flatten().map(|&r| ids.id(r)).collect();
                op.kind = OpKind::Wait;
                if matches!(kind, WaitKind::Any | WaitKind::Some) {
                    op.flags |= flags::WAIT_ANY;
                }
                op.b = chosen.len() as u32;
                op.a = push_aux(&chosen);
            }
        }
        Op::Start { requests } => {
            let started: Vec<u32> = requests.iter().map(|&r| ids.id(r)).collect();
            op.kind = OpKind::Start;
            op.b = started.len() as u32;
            op.a = push_aux(&started);
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
                op.b = names.id(event.call);
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

/// The tag of the message a receive event took, where the event shows it.
pub(super) fn taken_tag(event: &Event) -> Option<i32> {
    match &event.op {
        Op::Recv { recv, .. } => recv.matched.map(|m| m.1),
        Op::Probe { matched, .. } => matched.map(|m| m.1),
        Op::Sendrecv { recv, .. } => recv.matched.map(|m| m.1),
        _ => None,
    }
}

/// Notes on a receive or probe for any tag the tag of the message it took or found in the
/// run ([`flags::TAG_RECORDED`]).
pub(super) fn note_recorded_tag(op: &mut ReplayOp, tag: i32) {
    if matches!(op.kind, OpKind::Recv | OpKind::Probe) && op.recv_tag() == ANY_TAG {
        op.flags |= flags::TAG_RECORDED;
        op.tag = tag;
    }
}
