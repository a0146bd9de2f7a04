//! Operations of text-trace lines and the facts (objects, argument problems, buffers)
//! any line may carry.

use super::names::*;
use super::{Keys, Parser, TextTraceError};
use crate::model::*;

impl Parser {
    /// Parses one operation for one rank (parsed again per rank so per-rank effects, like
    /// filling in matched sources, apply to each).
    pub(super) fn op(
        &mut self,
        rank: Rank,
        name: &str,
        arg: Option<&str>,
        keys: &Keys,
        blocked: bool,
    ) -> Result<(Op, &'static str), TextTraceError> {
        let send_mode = |n: &str| match n {
            "send" => Some(SendMode::Standard),
            "ssend" => Some(SendMode::Synchronous),
            "bsend" => Some(SendMode::Buffered),
            "rsend" => Some(SendMode::Ready),
            _ => None,
        };
        let call = mpi_name(name);
        // Point-to-point sends in their three forms.
        let (base, form) = if let Some(b) = name.strip_suffix("_init") {
            (b, 2)
        } else if let Some(b) = name.strip_prefix('i').filter(|b| {
            send_mode(b).is_some()
                || *b == "recv"
                || *b == "sendrecv"
                || collective_kind(b).is_some()
        }) {
            (b, 1)
        } else {
            (name, 0)
        };
        let blocking = |p: &Self| -> Result<Blocking, TextTraceError> {
            Ok(match form {
                0 => Blocking::Blocking,
                1 => Blocking::Nonblocking(p.req(keys)?),
                _ => Blocking::Persistent(p.req(keys)?),
            })
        };
        let call = match (base, form) {
            (_, 0) => call,
            (b, 1) => intern(&format!("MPI_I{b}")),
            (b, _) => intern(&format!("{}_init", mpi_name(b))),
        };
        if let Some(mode) = send_mode(base) {
            let send = self.send_spec(keys, mode, "tag")?;
            return Ok((
                Op::Send {
                    send,
                    blocking: blocking(self)?,
                },
                call,
            ));
        }
        if let Some(kind) = collective_kind(base) {
            let root = keys
                .get("root")
                .map(|v| self.int::<i32>("root", v))
                .transpose()?;
            return Ok((
                Op::Collective {
                    kind,
                    comm: self.comm(keys)?,
                    root,
                    blocking: blocking(self)?,
                },
                call,
            ));
        }
        let op = match base {
            "recv" => {
                let recv = self.recv_spec(keys, "tag")?;
                let blocking = blocking(self)?;
                if let Blocking::Nonblocking(r) = blocking {
                    let index = self.run.ranks[rank as usize].events.len();
                    self.recv_of_request[rank as usize].insert(r.0, index);
                }
                Op::Recv { recv, blocking }
            }
            "sendrecv" => {
                let send = self.send_spec(keys, SendMode::Standard, "sendtag")?;
                let recv = self.recv_spec(keys, "recvtag")?;
                let blocking = blocking(self)?;
                if let Blocking::Nonblocking(r) = blocking {
                    let index = self.run.ranks[rank as usize].events.len();
                    self.recv_of_request[rank as usize].insert(r.0, index);
                }
                Op::Sendrecv {
                    send: Box::new(send),
                    recv,
                    blocking,
                }
            }
            "probe" | "mprobe" | "iprobe" | "improbe" => {
                let tag = self.tag_match(keys, "tag")?;
                let nonblocking = name.starts_with('i');
                let found = if nonblocking {
                    Some(keys.get("found").is_some_and(|v| *v == "1"))
                } else {
                    (!blocked).then_some(true)
                };
                Op::Probe {
                    source: self.source(keys, "src")?,
                    tag,
                    comm: self.comm(keys)?,
                    blocking: !nonblocking,
                    matched_probe: name.contains("mprobe"),
                    found,
                    matched: self.matched(keys, tag)?,
                }
            }
            "mrecv" => Op::Other,
            "wait"
            | "test"
            | "waitall"
            | "testall"
            | "waitany"
            | "testany"
            | "waitsome"
            | "testsome"
            | "request_get_status"
            | "request_get_status_all"
            | "request_get_status_any"
            | "request_get_status_some" => {
                let status_only = name.starts_with("request_get_status");
                let test = status_only || name.starts_with("test");
                let suffix = match name.strip_prefix("request_get_status") {
                    Some(rest) => rest.trim_start_matches('_'),
                    None => &name[4..],
                };
                let kind = match suffix {
                    "all" => WaitKind::All,
                    "any" => WaitKind::Any,
                    "some" => WaitKind::Some,
                    _ => WaitKind::One,
                };
                let requests = self.req_list(keys)?;
                let non_null: Vec<u32> = (0..requests.len() as u32)
                    .filter(|&i| requests[i as usize].is_some())
                    .collect();
                let flag = keys.get("flag").is_some_and(|v| *v == "1");
                let completed = if blocked {
                    None
                } else {
                    Some(match kind {
                        WaitKind::One | WaitKind::All => {
                            if !test || flag {
                                non_null
                            } else {
                                Vec::new()
                            }
                        }
                        WaitKind::Any => match keys.get("index") {
                            Some(v) => vec![self.int("index", v)?],
                            None if !test => non_null.into_iter().take(1).collect(),
                            None => Vec::new(),
                        },
                        WaitKind::Some => match keys.get("indices") {
                            Some(v) => self.index_list("indices", v)?,
                            None if !test => non_null,
                            None => Vec::new(),
                        },
                    })
                };
                let completed: Option<Completed> = completed.map(Completed::from);
                if let (Some(done), Some(_)) = (&completed, keys.get("matched")) {
                    // Fill in the matched source of the receives this call completed.
                    for &i in done {
                        let Some(Some(req)) = requests.get(i as usize) else {
                            return self.err(format!("index {i} is not a request of this call"));
                        };
                        let Some(&index) = self.recv_of_request[rank as usize].get(&req.0) else {
                            continue;
                        };
                        let event = &self.run.ranks[rank as usize].events[index];
                        let tag = match &event.op {
                            Op::Recv { recv, .. } | Op::Sendrecv { recv, .. } => recv.tag,
                            _ => TagMatch::Any,
                        };
                        let matched = self.matched(keys, tag)?;
                        if let Op::Recv { recv, .. } | Op::Sendrecv { recv, .. } =
                            &mut self.run.ranks[rank as usize].events[index].op
                        {
                            recv.matched = matched;
                        }
                    }
                }
                let requests = requests.into();
                if status_only {
                    Op::RequestStatus {
                        requests,
                        kind,
                        completed,
                    }
                } else {
                    Op::Wait {
                        requests,
                        kind,
                        test,
                        completed,
                    }
                }
            }
            "start" | "startall" => Op::Start {
                requests: self.req_list(keys)?.into_iter().flatten().collect(),
            },
            "cancel" => Op::Cancel {
                request: self.req(keys)?,
            },
            "request_free" => Op::RequestFree {
                request: self.req(keys)?,
            },
            "buffer_attach" => Op::BufferAttach {
                bytes: keys.get("bytes").map_or(Ok(0), |v| self.int("bytes", v))?,
            },
            "buffer_detach" => Op::BufferDetach,
            "init" => Op::Init { thread_level: None },
            "finalize" => Op::Finalize,
            "other" => {
                let Some(arg) = arg else {
                    return self.err("`other` needs the MPI function name");
                };
                return Ok((Op::Other, intern(arg)));
            }
            m if MANAGEMENT.contains(&m) => Op::Collective {
                kind: CollectiveKind::Management,
                comm: self.comm(keys)?,
                root: None,
                blocking: if m.starts_with("comm_i") {
                    Blocking::Nonblocking(self.req(keys)?)
                } else {
                    Blocking::Blocking
                },
            },
            m if super::rma::RMA_CALLS.contains(&m) => Op::Other,
            _ => return self.err(format!("unknown operation `{name}`")),
        };
        Ok((op, call))
    }

    /// The keys every line may carry: `new=comm:1,type:2` (objects made), `freed=comm:1`,
    /// `bad=tag:tag,dest:rank` (argument problems), `bsend_bytes=N`,
    /// `mem=buf:4096+32:r,recvbuf:4100+8:w` (bytes a buffer argument covers; w: MPI writes it).
    pub(super) fn facts(&self, keys: &Keys) -> Result<EventFacts, TextTraceError> {
        let mut facts = CallFacts::default();
        let objects = |key: &str| -> Result<Vec<ObjectRef>, TextTraceError> {
            let Some(list) = keys.get(key) else {
                return Ok(Vec::new());
            };
            list.split(',')
                .map(|item| {
                    let (kind, id) = item.split_once(':').unwrap_or((item, ""));
                    let kind = object_kind(kind).ok_or_else(|| TextTraceError {
                        line: self.line,
                        message: format!("`{key}=`: unknown object kind `{kind}`"),
                    })?;
                    Ok(ObjectRef {
                        kind,
                        id: ObjectId(self.int(key, id)?),
                    })
                })
                .collect()
        };
        facts.created = objects("new")?;
        facts.freed = objects("freed")?;
        if let Some(list) = keys.get("bad") {
            for item in list.split(',') {
                let (param, problem) = item.split_once(':').unwrap_or((item, ""));
                let problem = match problem {
                    "rank" => ArgProblem::RankOutOfRange { value: -5, size: 0 },
                    "tag" => ArgProblem::InvalidTag {
                        value: -5,
                        tag_ub: None,
                    },
                    "count" => ArgProblem::NegativeCount { value: -1 },
                    "uncommitted" => ArgProblem::UncommittedDatatype,
                    "nullbuf" => ArgProblem::NullBuffer { count: 1 },
                    "inplace" => ArgProblem::InPlaceNotAllowed,
                    "before-init" => ArgProblem::BeforeInit,
                    "color" => ArgProblem::InvalidColor { value: -2 },
                    "topology" => ArgProblem::InvalidTopology { value: -1 },
                    "grid" => ArgProblem::GridTooLarge {
                        processes: 8,
                        size: 4,
                    },
                    "no-topology" => ArgProblem::MissingTopology,
                    "rank-list" => ArgProblem::RankListOutOfRange {
                        value: 4,
                        size: 4,
                        of: "group",
                    },
                    "repeated" => ArgProblem::RepeatedRank { value: 1 },
                    "stride" => ArgProblem::ZeroStride { range: 0 },
                    "index" => ArgProblem::DecreasingIndex {
                        position: 1,
                        value: 0,
                    },
                    "assert" => ArgProblem::InvalidAssert {
                        value: 8192,
                        not_allowed: vec!["MPI_MODE_NOPRECEDE"],
                    },
                    "partition" => ArgProblem::PartitionOutOfRange {
                        value: 4,
                        partitions: 4,
                    },
                    "direction" => ArgProblem::OutsideGrid {
                        value: 2,
                        dim: None,
                        limit: 2,
                    },
                    other => {
                        let (state, kind) = other.split_once('-').unwrap_or(("", other));
                        let kind = object_kind(kind);
                        match (state, kind) {
                            ("null", Some(kind)) => ArgProblem::NullHandle { kind },
                            ("freed", Some(kind)) => ArgProblem::FreedHandle { kind },
                            _ => {
                                return self.err(format!(
                                    "`bad={item}`: expected PARAM:rank|tag|count|uncommitted|nullbuf|inplace|before-init|color|topology|grid|no-topology|rank-list|repeated|stride|index|direction|assert|partition|null-KIND|freed-KIND"
                                ))
                            }
                        }
                    }
                };
                facts.arg_issues.push(ArgIssue {
                    param: intern(param),
                    problem,
                });
            }
        }
        if let Some(list) = keys.get("mem") {
            for item in list.split(',') {
                let parsed = item.split(':').collect::<Vec<_>>();
                let (param, range, access) = match parsed[..] {
                    [param, range, access @ ("r" | "w")] => (param, range, access),
                    _ => return self.err(format!("`mem={item}`: expected PARAM:START+LEN:r|w")),
                };
                let Some((start, len)) = range.split_once('+') else {
                    return self.err(format!("`mem={item}`: expected PARAM:START+LEN:r|w"));
                };
                let Some(param) = BufferParam::from_name(param) else {
                    return self.err(format!(
                        "`mem={item}`: the buffer is buf, sendbuf or recvbuf"
                    ));
                };
                facts.buffers.push(BufferSpan {
                    param,
                    start: self.int("mem", start)?,
                    len: self.int("mem", len)?,
                    write: access == "w",
                });
            }
        }
        facts.bsend_bytes = keys
            .get("bsend_bytes")
            .map(|v| self.int("bsend_bytes", v))
            .transpose()?;
        Ok(EventFacts::from_facts(facts))
    }

    /// An `access` line: a [`BufferAccess`] of each rank, after the rank's events so far.
    pub(super) fn access(
        &mut self,
        ranks: &[Rank],
        site: SiteId,
        keys: &Keys,
    ) -> Result<(), TextTraceError> {
        let flag = |this: &Self, key: &str| -> Result<bool, TextTraceError> {
            match keys.get(key) {
                None | Some(&"0") => Ok(false),
                Some(&"1") => Ok(true),
                Some(v) => this.err(format!("`{key}={v}`: expected 0 or 1")),
            }
        };
        let Some(buf) = keys.get("buf") else {
            return self.err("`access` needs `buf=START+LEN`");
        };
        let Some((start, len)) = buf.split_once('+') else {
            return self.err(format!("`buf={buf}`: expected START+LEN"));
        };
        let (start, len) = (self.int("buf", start)?, self.int("buf", len)?);
        let address = match keys.get("addr") {
            Some(v) => self.int("addr", v)?,
            None => start,
        };
        let thread = keys
            .get("thread")
            .map(|v| self.int::<u16>("thread", v))
            .transpose()?;
        let tid = keys
            .get("tid")
            .map(|v| self.int::<u32>("tid", v))
            .transpose()?
            .unwrap_or(0);
        let (write, recv) = (flag(self, "write")?, flag(self, "recv")?);
        let post_site = match keys.get("post") {
            Some(v) => self.site(v)?,
            None => SiteId(0),
        };
        for &rank in ranks {
            let events_before = self.run.ranks[rank as usize].events.len() as u32;
            self.run.buffer_accesses.push(BufferAccess {
                rank,
                site,
                write,
                address,
                thread,
                tid,
                start,
                len,
                recv,
                post_site,
                events_before,
            });
        }
        Ok(())
    }
}
