//! Point-to-point calls and the peers, sources and tags they name.

use super::args::Value;
use super::kind::{CallKind, Form};
use super::*;

impl<'t> RankNormalizer<'t> {
    /// Translates a peer rank argument; `None` for `MPI_PROC_NULL`.
    pub(super) fn peer(&self, comm: &LocalComm, rank: Option<i64>) -> Option<Rank> {
        let rank = rank?;
        if Some(rank) == self.constants.proc_null {
            return None;
        }
        comm.peer(rank)
            .or(u32::try_from(rank).ok().filter(|_| comm.local.is_empty()))
    }

    pub(super) fn source(&self, comm: &LocalComm, rank: Option<i64>) -> Option<Source> {
        if rank.is_some() && rank == self.constants.any_source {
            return Some(Source::Any);
        }
        self.peer(comm, rank).map(Source::Rank)
    }

    pub(super) fn tag(&self, tag: Option<i64>) -> TagMatch {
        match tag {
            Some(t) if Some(t) == self.constants.any_tag => TagMatch::Any,
            Some(t) => TagMatch::Tag(t as i32),
            None => TagMatch::Any,
        }
    }

    pub(super) fn matched(&self, comm: &LocalComm, status: Option<Status>) -> Option<(Rank, i32)> {
        let status = status?;
        if Some(status.source) == self.constants.proc_null
            || Some(status.source) == self.constants.any_source
        {
            return None;
        }
        Some((comm.peer(status.source)?, status.tag as i32))
    }

    pub(super) fn send_spec(
        &mut self,
        args: &Args,
        comm: &LocalComm,
        mode: SendMode,
        prefix: &str,
    ) -> SendSpec {
        let p = &args.plan.p2p;
        let (tag, count, datatype) = if prefix.is_empty() {
            (p.tag, p.count, p.datatype)
        } else {
            (p.sendtag, p.sendcount, p.sendtype)
        };
        SendSpec {
            dest: self.peer(comm, args.int_at(p.dest)),
            // (The fallbacks read only when needed: a send's words are read once each.)
            tag: args.int_at(tag).or_else(|| args.int_at(p.tag)).unwrap_or(0) as i32,
            comm: comm.id,
            count: args
                .int_at(count)
                .or_else(|| args.int_at(p.count))
                .unwrap_or(0),
            datatype: self.datatype(args.int_at(datatype).or_else(|| args.int_at(p.datatype))),
            mode,
        }
    }

    pub(super) fn recv_spec(
        &mut self,
        args: &Args,
        comm: &LocalComm,
        sendrecv: bool,
        status: Option<Status>,
    ) -> RecvSpec {
        let p = &args.plan.p2p;
        let (count, datatype, tag) = if sendrecv {
            (
                args.int_at(p.recvcount).or_else(|| args.int_at(p.count)),
                args.int_at(p.recvtype).or_else(|| args.int_at(p.datatype)),
                args.int_at(p.recvtag),
            )
        } else {
            (
                args.int_at(p.count),
                args.int_at(p.datatype),
                args.int_at(p.tag),
            )
        };
        RecvSpec {
            source: self.source(comm, args.int_at(p.source)),
            tag: self.tag(tag),
            comm: comm.id,
            count: count.unwrap_or(0),
            datatype: self.datatype(datatype),
            matched: self.matched(comm, status),
        }
    }

    /// The operation of a communication call; `None` for a call that is none, and for one
    /// that exchanges with a process outside the job ([`OUTSIDE_JOB`]): nobody recorded the
    /// other side, so it is no operation to match or wait for (its request, if any, is one
    /// of the requests that complete on their own, `call_facts`).
    pub(super) fn communication_op(
        &mut self,
        args: &Args,
        call: &CallRecord,
        this_index: usize,
        receives: &mut Vec<(usize, (Rank, i32))>,
    ) -> Option<Op> {
        let p = &args.plan.p2p;
        match args.plan.kind {
            CallKind::Send { mode, form } => {
                let comm = self.comm(args.int_at(p.comm));
                let mut send = self.send_spec(args, &comm, mode, "");
                if comm.reaches_outside(send.dest.map(Source::Rank)) {
                    return None;
                }
                send.count = send.count.saturating_mul(partitions(args));
                let blocking = match form {
                    Form::Persistent => {
                        Blocking::Persistent(self.made_request(args, true, Some(comm), None))
                    }
                    Form::Nonblocking => {
                        Blocking::Nonblocking(self.made_request(args, false, Some(comm), None))
                    }
                    Form::Blocking => Blocking::Blocking,
                };
                Some(Op::Send { send, blocking })
            }
            CallKind::Recv { form } => {
                let comm = self.comm(args.int_at(p.comm));
                let mut recv = self.recv_spec(args, &comm, false, args.status());
                if comm.reaches_outside(recv.source) {
                    return None;
                }
                recv.count = recv.count.saturating_mul(partitions(args));
                let blocking = match form {
                    Form::Blocking => Blocking::Blocking,
                    Form::Nonblocking => Blocking::Nonblocking(self.made_request(
                        args,
                        false,
                        Some(comm),
                        Some(this_index),
                    )),
                    Form::Persistent => {
                        Blocking::Persistent(self.made_request(args, true, Some(comm), None))
                    }
                };
                Some(Op::Recv { recv, blocking })
            }
            CallKind::Sendrecv { nonblocking } => {
                let comm = self.comm(args.int_at(p.comm));
                let send = self.send_spec(args, &comm, SendMode::Standard, "send");
                let recv = self.recv_spec(args, &comm, true, args.status());
                if comm.reaches_outside(send.dest.map(Source::Rank))
                    || comm.reaches_outside(recv.source)
                {
                    return None;
                }
                let blocking = if nonblocking {
                    Blocking::Nonblocking(self.made_request(
                        args,
                        false,
                        Some(comm),
                        Some(this_index),
                    ))
                } else {
                    Blocking::Blocking
                };
                Some(Op::Sendrecv {
                    send: Box::new(send),
                    recv,
                    blocking,
                })
            }
            CallKind::Probe {
                blocking,
                matched_probe,
            } => {
                let comm = self.comm(args.int_at(p.comm));
                let source = self.source(&comm, args.int_at(p.source));
                if comm.reaches_outside(source) {
                    return None;
                }
                let found = if blocking {
                    call.complete.then_some(true)
                } else {
                    args.out_int_at(p.flag).map(|f| f != 0)
                };
                let matched = if found == Some(true) {
                    self.matched(&comm, args.status())
                } else {
                    None
                };
                Some(Op::Probe {
                    source,
                    tag: self.tag(args.int_at(p.tag)),
                    comm: comm.id,
                    blocking,
                    matched_probe,
                    found,
                    matched,
                })
            }
            CallKind::Wait {
                kind,
                test,
                status_only,
            } => Some(self.wait_op(kind, test, status_only, args, call, receives)),
            CallKind::Start => {
                let one;
                let raws: &[i64] = match p.request.map(|at| args.values.input(at)) {
                    Some(Value::Int(r)) => {
                        one = [r];
                        &one
                    }
                    _ => args.array_at(p.requests).unwrap_or(&[]),
                };
                let requests = self
                    .request_ids(raws, self.request_addresses(args, call))
                    .into_iter()
                    .flatten()
                    .collect();
                // Open MPI hands out a new handle when a still-active persistent request is
                // started again; the request goes on under the new handle.
                let out_one;
                let outs: &[i64] = match p.request.map(|at| args.values.output(at)) {
                    Some(Value::Int(r)) => {
                        out_one = [r];
                        &out_one
                    }
                    _ => args.out_array_at(p.requests).unwrap_or(&[]),
                };
                for (&before, &after) in raws.iter().zip(outs) {
                    if before != after && Some(after) != self.constants.request_null {
                        if let Some(info) = self.requests.get_mut(&before).and_then(|live| {
                            let position = live.iter().position(|info| info.persistent)?;
                            Some(live.remove(position))
                        }) {
                            self.requests.entry(after).or_default().push(info);
                        }
                        if self
                            .requests
                            .get(&before)
                            .is_some_and(|live| live.is_empty())
                        {
                            self.requests.remove(&before);
                        }
                    }
                }
                Some(Op::Start { requests })
            }
            CallKind::Cancel => args
                .int_at(p.request)
                .and_then(|r| self.request_id(r, self.request_addresses(args, call)))
                .map(|request| Op::Cancel { request }),
            CallKind::RequestFree => {
                let raw = args.int_at(p.request)?;
                let request = self.request_id(raw, self.request_addresses(args, call))?;
                if let Some(position) = self
                    .requests
                    .get(&raw)
                    .and_then(|live| live.iter().position(|info| info.id == request))
                {
                    self.forget_request(raw, position);
                }
                Some(Op::RequestFree { request })
            }
            CallKind::CommFree => {
                if let Some(freed) = args.int_at(p.comm).and_then(|raw| self.comms.remove(&raw)) {
                    // No more communicators are made on it by this rank.
                    self.state.creations.remove(&freed.id);
                    let rank = self.rank;
                    if self.tables.comm_freed(freed.id, rank) {
                        self.state.freed_comms.push(freed.id);
                    }
                }
                None
            }
            CallKind::Collective { kind, form } => self.collective_op(kind, form, args),
            _ => None,
        }
    }
}

/// The partitions of a partitioned operation (`MPI_Psend_init`, `MPI_Precv_init`), whose
/// message is `partitions` × `count` elements; 1 for any other call.
pub(super) fn partitions(args: &Args) -> i64 {
    args.int_at(args.plan.p2p.partitions)
        .map_or(1, |p| p.max(0))
}
