//! A small hand-writable text format that parses straight into a [`Run`], for tests and
//! fixtures.
//!
//! ```text
//! # comments run from `#` to the end of the line
//! ranks 3                          # world size; must come first
//! comm 1 members 0 1               # extra communicators (comm 0 is MPI_COMM_WORLD),
//! comm 2 members 1 2 name halo     # ids in order 1, 2, ...; `name` is optional
//! 0: send dest=1 tag=0             @ ring.c:10
//! 0: recv src=2 tag=0              @ ring.c:11
//! 1: ssend dest=2 tag=0
//! 1: irecv src=any tag=any req=1
//! 1: wait req=1 matched=2:0        # fills in the irecv's matched source and tag
//! 2: bcast root=0 comm=0
//! 2: blocked recv src=1 tag=0      # `blocked`: returned=false (the trace ends in the call)
//! 0-2: barrier                     # several ranks at once: `0-2:`, `0,2:`, `*:`
//! 0: end finalized                 # or `exited`, `interrupted [reason]`
//! ```
//!
//! A line is `RANKS: [blocked] OPERATION key=value... [@ file:line]`. Operations and keys:
//!
//! | operation | keys |
//! |-----------|------|
//! | `send` `ssend` `bsend` `rsend` | `dest=N\|null` `tag=N` `comm=N` `count=N` `type=int\|double\|char\|byte\|float\|long` |
//! | `isend` `issend` `ibsend` `irsend` | as `send`, plus `req=N` |
//! | `send_init` `ssend_init` `bsend_init` `rsend_init` | as `isend` (persistent) |
//! | `recv` | `src=N\|any\|null` `tag=N\|any` `comm=N` `count=N` `type=T` `matched=SRC[:TAG]` |
//! | `irecv`, `recv_init` | as `recv`, plus `req=N` |
//! | `sendrecv` | `dest=` `sendtag=` `src=` `recvtag=` `comm=` `matched=`; `isendrecv` adds `req=` |
//! | `probe` `mprobe` | `src=` `tag=` `comm=` `matched=` |
//! | `iprobe` `improbe` | as `probe`, plus `found=0\|1` (default 0) |
//! | `mrecv` | (none: the message was taken by the matched probe) |
//! | `wait` `test` | `req=N`; tests add `flag=0\|1` (default 0) |
//! | `waitall` `testall` | `reqs=1,2,null`; `testall` adds `flag=` |
//! | `waitany` `testany` | `reqs=`, `index=N` (default: first non-null for waits, none for tests) |
//! | `waitsome` `testsome` | `reqs=`, `indices=0,1` (default: all non-null for waits, none for tests) |
//! | `request_get_status`, `request_get_status_all` / `_any` / `_some` | as `test`, `testall`, `testany`, `testsome` (the requests stay allocated) |
//! | `start` `startall` | `req=N` / `reqs=1,2` |
//! | `cancel` `request_free` | `req=N` |
//! | collectives: `barrier` `bcast` `gather` `gatherv` `scatter` `scatterv` `allgather` `allgatherv` `alltoall` `alltoallv` `alltoallw` `reduce` `allreduce` `reduce_scatter` `reduce_scatter_block` `scan` `exscan` | `comm=N` `root=N` (communicator rank); an `i` prefix (`ibarrier`) makes it nonblocking and `_init` (`bcast_init`) persistent, both with `req=N` |
//! | `comm_dup` `comm_split` `comm_create` `win_fence` `win_create` `win_free` ... | `comm=N` (a synchronizing management collective; the call is `MPI_` + the capitalized name) |
//! | (collective arguments) | `count=N type=T` (bcast, reductions), `sendcount=` `sendtype=` `recvcount=` `recvtype=`, `sendcounts=1,2` `recvcounts=`, `sendtypes=int,byte` `recvtypes=`, `op=sum` (any name: `MPI_` + upper case), `inplace=1`, `agree=NAME:VALUE` (e.g. `agree=high:1`) |
//! | `buffer_attach` `buffer_detach` | `bytes=N` |
//! | `win_create` `win_allocate` `win_allocate_shared` `win_create_dynamic` | `win=N` (windows in order 0, 1, ...) `comm=N` `size=BYTES` `unit=N` (this rank's memory; default unit 1) |
//! | `win_fence` `win_free` | `win=N`; fences take `assert=nosucceed` |
//! | `win_lock` `win_unlock` `win_flush` `win_flush_local` | `win=N` `target=N\|null` (a window rank) |
//! | `win_lock_all` `win_unlock_all` `win_post` `win_start` `win_complete` `win_wait` `win_test` `win_flush_all` `win_sync` | `win=N`; `win_test` takes `flag=0\|1` |
//! | `put` `get` `accumulate` `get_accumulate` `fetch_and_op` `compare_and_swap`, and `rput` `rget` `raccumulate` `rget_accumulate` | `win=N` `target=N\|null` `disp=N` `count=N` `type=T` `op=sum` |
//! | `init` `finalize` | |
//! | `other NAME` | any other MPI call, e.g. `other MPI_Comm_rank` |
//!
//! A line `type NAME 2*int,1*double` declares a derived datatype (a struct of blocks of
//! builtin or earlier declared types) usable as `type=NAME`.
//! Any line may also carry `new=KIND:N,...` and `freed=KIND:N,...` (objects the call made or
//! freed; KIND is `comm` `group` `type` `op` `win` `errhandler` `keyval` `info` `file`
//! `session` `request`, N an object id of the rank), `bad=PARAM:PROBLEM,...` (argument
//! problems: `rank` `tag` `count` `uncommitted` `nullbuf` `inplace` `before-init` `null-KIND`
//! `freed-KIND`), `bsend_bytes=N` (the attached-buffer space a buffered send needs) and
//! `mem=PARAM:START+LEN:r|w,...` (the bytes a buffer argument covers, `w` when MPI writes
//! them).
//!
//! Waits and tests fill in the `matched` source of the nonblocking receives they complete
//! when given `matched=SRC[:TAG]` (one receive) — as the normalizer does from statuses.
//! A rank's trace ends `interrupted` if its last call is `blocked`, `finalized` otherwise,
//! unless an `end` line says otherwise.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::model::*;

mod rma;

/// A parse error with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TextTraceError {
    pub line: usize,
    pub message: String,
}

/// Interns a call name (bounded: names come from test fixtures).
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = names.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(name.to_string(), s);
    s
}

/// Object kinds as text traces name them.
fn object_kind(name: &str) -> Option<ObjectKind> {
    Some(match name {
        "comm" => ObjectKind::Communicator,
        "group" => ObjectKind::Group,
        "type" => ObjectKind::Datatype,
        "op" => ObjectKind::Op,
        "win" => ObjectKind::Window,
        "errhandler" => ObjectKind::Errhandler,
        "keyval" => ObjectKind::Keyval,
        "info" => ObjectKind::Info,
        "file" => ObjectKind::File,
        "session" => ObjectKind::Session,
        "request" => ObjectKind::Request,
        _ => return None,
    })
}

/// `MPI_` + the operation name with its first letter capitalized: `comm_dup` → `MPI_Comm_dup`.
fn mpi_name(op: &str) -> &'static str {
    let mut chars = op.chars();
    let name = match chars.next() {
        Some(c) => format!("MPI_{}{}", c.to_ascii_uppercase(), chars.as_str()),
        None => "MPI_".to_string(),
    };
    intern(&name)
}

fn collective_kind(name: &str) -> Option<CollectiveKind> {
    use CollectiveKind::*;
    Some(match name {
        "barrier" => Barrier,
        "bcast" => Bcast,
        "gather" => Gather,
        "gatherv" => Gatherv,
        "scatter" => Scatter,
        "scatterv" => Scatterv,
        "allgather" => Allgather,
        "allgatherv" => Allgatherv,
        "alltoall" => Alltoall,
        "alltoallv" => Alltoallv,
        "alltoallw" => Alltoallw,
        "reduce" => Reduce,
        "allreduce" => Allreduce,
        "reduce_scatter" => ReduceScatter,
        "reduce_scatter_block" => ReduceScatterBlock,
        "scan" => Scan,
        "exscan" => Exscan,
        "neighbor_allgather" => NeighborAllgather,
        "neighbor_allgatherv" => NeighborAllgatherv,
        "neighbor_alltoall" => NeighborAlltoall,
        "neighbor_alltoallv" => NeighborAlltoallv,
        "neighbor_alltoallw" => NeighborAlltoallw,
        _ => return None,
    })
}

const MANAGEMENT: &[&str] = &[
    "comm_dup",
    "comm_idup",
    "comm_split",
    "comm_split_type",
    "comm_create",
    "cart_create",
    "cart_sub",
    "graph_create",
    "dist_graph_create",
    "dist_graph_create_adjacent",
    "intercomm_create",
    "intercomm_merge",
    "win_create",
    "win_allocate",
    "win_allocate_shared",
    "win_create_dynamic",
    "win_fence",
    "win_free",
    "file_open",
    "file_close",
    "file_set_view",
    "file_set_size",
    "file_set_atomicity",
    "file_read_all",
    "file_write_all",
    "file_read_all_begin",
    "file_read_all_end",
    "file_write_all_begin",
    "file_write_all_end",
];

fn builtin_type(name: &str) -> Option<u64> {
    Some(match name {
        "char" | "byte" | "signed_char" | "unsigned_char" => 1,
        "short" => 2,
        "int" | "float" | "unsigned" => 4,
        "long" | "double" | "long_long" | "int64_t" => 8,
        _ => return None,
    })
}

struct Parser {
    run: Run,
    line: usize,
    site_ids: HashMap<(String, u32), SiteId>,
    type_ids: HashMap<String, TypeId>,
    explicit_end: Vec<bool>,
    /// Per rank: request id → index of the event that started a receive on it.
    recv_of_request: Vec<HashMap<u32, usize>>,
}

type Keys<'a> = HashMap<&'a str, &'a str>;

impl Parser {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, TextTraceError> {
        Err(TextTraceError {
            line: self.line,
            message: message.into(),
        })
    }

    fn int<T: std::str::FromStr>(&self, key: &str, value: &str) -> Result<T, TextTraceError> {
        value
            .parse::<T>()
            .or_else(|_| self.err(format!("`{key}={value}`: not a valid number")))
    }

    fn rank_value(&self, key: &str, value: &str) -> Result<Rank, TextTraceError> {
        let r: Rank = self.int(key, value)?;
        if r >= self.run.world_size() {
            return self.err(format!(
                "`{key}={r}`: there are only {} ranks",
                self.run.world_size()
            ));
        }
        Ok(r)
    }

    fn comm(&self, keys: &Keys) -> Result<CommId, TextTraceError> {
        match keys.get("comm") {
            None => Ok(CommId(0)),
            Some(v) => {
                let c: u32 = self.int("comm", v)?;
                if c as usize >= self.run.comms.len() {
                    return self.err(format!("`comm={c}`: communicator {c} is not declared"));
                }
                Ok(CommId(c))
            }
        }
    }

    fn tag(&self, keys: &Keys, key: &str) -> Result<i32, TextTraceError> {
        keys.get(key).map_or(Ok(0), |v| self.int(key, v))
    }

    fn tag_match(&self, keys: &Keys, key: &str) -> Result<TagMatch, TextTraceError> {
        match keys.get(key) {
            None => Ok(TagMatch::Tag(0)),
            Some(&"any") => Ok(TagMatch::Any),
            Some(v) => Ok(TagMatch::Tag(self.int(key, v)?)),
        }
    }

    fn dest(&self, keys: &Keys, key: &str) -> Result<Option<Rank>, TextTraceError> {
        match keys.get(key) {
            None => self.err(format!("missing `{key}=`")),
            Some(&"null") => Ok(None),
            Some(v) => Ok(Some(self.rank_value(key, v)?)),
        }
    }

    fn source(&self, keys: &Keys, key: &str) -> Result<Option<Source>, TextTraceError> {
        match keys.get(key) {
            None => self.err(format!("missing `{key}=`")),
            Some(&"null") => Ok(None),
            Some(&"any") => Ok(Some(Source::Any)),
            Some(v) => Ok(Some(Source::Rank(self.rank_value(key, v)?))),
        }
    }

    fn matched(&self, keys: &Keys, tag: TagMatch) -> Result<Option<(Rank, i32)>, TextTraceError> {
        let Some(v) = keys.get("matched") else {
            return Ok(None);
        };
        let (src, t) = match v.split_once(':') {
            Some((s, t)) => (s, Some(t)),
            None => (*v, None),
        };
        let src = self.rank_value("matched", src)?;
        let t = match (t, tag) {
            (Some(t), _) => self.int("matched", t)?,
            (None, TagMatch::Tag(t)) => t,
            (None, TagMatch::Any) => 0,
        };
        Ok(Some((src, t)))
    }

    fn req(&self, keys: &Keys) -> Result<ReqId, TextTraceError> {
        match keys.get("req") {
            None => self.err("missing `req=`"),
            Some(v) => Ok(ReqId(self.int("req", v)?)),
        }
    }

    fn req_list(&self, keys: &Keys) -> Result<Vec<Option<ReqId>>, TextTraceError> {
        let Some(v) = keys.get("reqs").or(keys.get("req")) else {
            return self.err("missing `reqs=`");
        };
        v.split(',')
            .map(|r| {
                if r == "null" {
                    Ok(None)
                } else {
                    Ok(Some(ReqId(self.int("reqs", r)?)))
                }
            })
            .collect()
    }

    fn index_list(&self, key: &str, v: &str) -> Result<Vec<u32>, TextTraceError> {
        if v.is_empty() || v == "none" {
            return Ok(Vec::new());
        }
        v.split(',').map(|i| self.int(key, i)).collect()
    }

    fn datatype(&mut self, keys: &Keys) -> Result<Option<TypeId>, TextTraceError> {
        let Some(name) = keys.get("type") else {
            return Ok(None);
        };
        if let Some(&id) = self.type_ids.get(*name) {
            return Ok(Some(id));
        }
        self.type_named(name).map(Some)
    }

    fn type_named(&mut self, name: &str) -> Result<TypeId, TextTraceError> {
        if let Some(&id) = self.type_ids.get(name) {
            return Ok(id);
        }
        let Some(size) = builtin_type(name) else {
            return self.err(format!("`type={name}`: unknown datatype"));
        };
        let id = TypeId(self.run.datatypes.len() as u32);
        let mpi_name = format!("MPI_{}", name.to_ascii_uppercase());
        self.run.datatypes.push(DatatypeInfo {
            layout: Some(crate::typesig::Layout::predefined(&mpi_name)),
            name: mpi_name,
            size: Some(size),
        });
        self.type_ids.insert(name.to_string(), id);
        Ok(id)
    }

    /// `type NAME 2*int,1*double`: a derived type of blocks of known types.
    fn declare_type(&mut self, name: &str, blocks: &str) -> Result<(), TextTraceError> {
        let mut pieces = Vec::new();
        let mut size = 0u64;
        for block in blocks.split(',') {
            let (n, t) = block.split_once('*').unwrap_or(("1", block));
            let n: u64 = self.int("type", n)?;
            let id = self.type_named(t)?;
            let info = &self.run.datatypes[id.0 as usize];
            size += n * info.size.unwrap_or(0);
            let Some(layout) = info.layout.clone() else {
                return self.err(format!("type {t} has no signature"));
            };
            pieces.push((n, layout));
        }
        let layout = crate::typesig::Layout::derived(pieces, format!("{name}({blocks})"));
        let id = TypeId(self.run.datatypes.len() as u32);
        self.run.datatypes.push(DatatypeInfo {
            name: layout.description.clone(),
            size: Some(size),
            layout: Some(layout),
        });
        self.type_ids.insert(name.to_string(), id);
        Ok(())
    }

    fn list<T>(
        &mut self,
        keys: &Keys,
        key: &str,
        mut item: impl FnMut(&mut Self, &str) -> Result<T, TextTraceError>,
    ) -> Result<Option<Vec<T>>, TextTraceError> {
        let Some(v) = keys.get(key) else {
            return Ok(None);
        };
        v.split(',')
            .map(|x| item(self, x))
            .collect::<Result<Vec<T>, _>>()
            .map(Some)
    }

    /// The collective arguments given as keys, if any.
    fn collective_args(&mut self, keys: &Keys) -> Result<CollectiveArgs, TextTraceError> {
        let buf =
            |p: &mut Self, count: &str, ty: &str| -> Result<Option<BufSpec>, TextTraceError> {
                let Some(t) = keys.get(ty) else {
                    return Ok(None);
                };
                let count = keys.get(count).map_or(Ok(1), |v| p.int(count, v))?;
                Ok(Some(BufSpec {
                    count,
                    datatype: Some(p.type_named(t)?),
                }))
            };
        let mut args = CollectiveArgs {
            in_place: keys.get("inplace").is_some_and(|v| *v == "1"),
            op: keys
                .get("op")
                .map(|o| format!("MPI_{}", o.to_ascii_uppercase())),
            ..Default::default()
        };
        args.send = match buf(self, "count", "type")? {
            Some(b) => Some(b),
            None => buf(self, "sendcount", "sendtype")?,
        };
        args.recv = buf(self, "recvcount", "recvtype")?;
        args.send_counts = self.list(keys, "sendcounts", |p, x| p.int("sendcounts", x))?;
        args.recv_counts = self.list(keys, "recvcounts", |p, x| p.int("recvcounts", x))?;
        args.send_types = self.list(keys, "sendtypes", |p, x| p.type_named(x).map(Some))?;
        args.recv_types = self.list(keys, "recvtypes", |p, x| p.type_named(x).map(Some))?;
        if let Some(v) = keys.get("agree") {
            for pair in v.split(',') {
                let Some((k, v)) = pair.split_once(':') else {
                    return self.err("`agree=` takes NAME:VALUE pairs");
                };
                let name: &'static str = intern(k);
                args.agree.push((name, v.to_string()));
            }
        }
        Ok(args)
    }

    fn count(&self, keys: &Keys) -> Result<i64, TextTraceError> {
        keys.get("count").map_or(Ok(1), |v| self.int("count", v))
    }

    fn site(&mut self, text: &str) -> Result<SiteId, TextTraceError> {
        let text = text.trim();
        let Some((file, line)) = text.rsplit_once(':') else {
            return self.err(format!("`@ {text}`: expected `@ file:line`"));
        };
        let line: u32 = self.int("@", line.trim())?;
        let key = (file.trim().to_string(), line);
        if let Some(&id) = self.site_ids.get(&key) {
            return Ok(id);
        }
        let id = SiteId(self.run.sites.len() as u32);
        self.run.sites.push(SourceLocation {
            file: Some(key.0.clone()),
            line: Some(line),
            ..Default::default()
        });
        self.site_ids.insert(key, id);
        Ok(id)
    }

    fn ranks(&self, spec: &str) -> Result<Vec<Rank>, TextTraceError> {
        let n = self.run.world_size();
        if spec.trim() == "*" {
            return Ok((0..n).collect());
        }
        let mut out = Vec::new();
        for part in spec.split(',') {
            let part = part.trim();
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (self.rank_value("rank", a)?, self.rank_value("rank", b)?),
                None => {
                    let r = self.rank_value("rank", part)?;
                    (r, r)
                }
            };
            if a > b {
                return self.err(format!("`{part}`: empty rank range"));
            }
            out.extend(a..=b);
        }
        Ok(out)
    }

    fn send_spec(
        &mut self,
        keys: &Keys,
        mode: SendMode,
        tag_key: &str,
    ) -> Result<SendSpec, TextTraceError> {
        Ok(SendSpec {
            dest: self.dest(keys, "dest")?,
            tag: self.tag(keys, tag_key)?,
            comm: self.comm(keys)?,
            count: self.count(keys)?,
            datatype: self.datatype(keys)?,
            mode,
        })
    }

    fn recv_spec(&mut self, keys: &Keys, tag_key: &str) -> Result<RecvSpec, TextTraceError> {
        let tag = self.tag_match(keys, tag_key)?;
        Ok(RecvSpec {
            source: self.source(keys, "src")?,
            tag,
            comm: self.comm(keys)?,
            count: self.count(keys)?,
            datatype: self.datatype(keys)?,
            matched: self.matched(keys, tag)?,
        })
    }

    /// Parses one operation for one rank (parsed again per rank so per-rank effects, like
    /// filling in matched sources, apply to each).
    fn op(
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
                    send,
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
            m if rma::RMA_CALLS.contains(&m) => Op::Other,
            _ => return self.err(format!("unknown operation `{name}`")),
        };
        Ok((op, call))
    }

    /// The keys every line may carry: `new=comm:1,type:2` (objects made), `freed=comm:1`,
    /// `bad=tag:tag,dest:rank` (argument problems), `bsend_bytes=N`,
    /// `mem=buf:4096+32:r,recvbuf:4100+8:w` (bytes a buffer argument covers; w: MPI writes it).
    fn facts(&self, keys: &Keys) -> Result<Option<Box<CallFacts>>, TextTraceError> {
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
                    other => {
                        let (state, kind) = other.split_once('-').unwrap_or(("", other));
                        let kind = object_kind(kind);
                        match (state, kind) {
                            ("null", Some(kind)) => ArgProblem::NullHandle { kind },
                            ("freed", Some(kind)) => ArgProblem::FreedHandle { kind },
                            _ => {
                                return self.err(format!(
                                    "`bad={item}`: expected PARAM:rank|tag|count|uncommitted|nullbuf|inplace|before-init|null-KIND|freed-KIND"
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
                facts.buffers.push(BufferSpan {
                    param: intern(param),
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
        Ok((facts != CallFacts::default()).then(|| Box::new(facts)))
    }

    fn line(&mut self, text: &str) -> Result<(), TextTraceError> {
        let text = text.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut words = text.split_whitespace();
        let first = words.next().unwrap_or("");
        if first == "ranks" {
            if !self.run.ranks.is_empty() {
                return self.err("`ranks` given twice");
            }
            let n: u32 = self.int("ranks", words.next().unwrap_or(""))?;
            if n == 0 {
                return self.err("`ranks 0`: need at least one rank");
            }
            self.run.ranks = (0..n)
                .map(|rank| RankTrace {
                    rank,
                    events: Vec::new(),
                    end: RankEnd::Finalized,
                    threads: Default::default(),
                })
                .collect();
            self.run.comms = vec![CommInfo {
                name: "MPI_COMM_WORLD".into(),
                members: (0..n).collect(),
                remote: None,
            }];
            self.explicit_end = vec![false; n as usize];
            self.recv_of_request = vec![HashMap::new(); n as usize];
            return Ok(());
        }
        if self.run.ranks.is_empty() {
            return self.err("the first line must be `ranks N`");
        }
        if first == "type" {
            let (Some(name), Some(blocks)) = (words.next(), words.next()) else {
                return self.err("expected `type NAME 2*int,1*double`");
            };
            return self.declare_type(name, blocks);
        }
        if first == "comm" {
            let id: usize = self.int("comm", words.next().unwrap_or(""))?;
            if id != self.run.comms.len() {
                return self.err(format!(
                    "communicators must be declared in order: expected `comm {}`",
                    self.run.comms.len()
                ));
            }
            if words.next() != Some("members") {
                return self.err("expected `comm ID members R R ...`");
            }
            let mut members = Vec::new();
            let mut name = None;
            while let Some(w) = words.next() {
                if w == "name" {
                    name = words.next().map(str::to_string);
                    break;
                }
                let r = self.rank_value("members", w)?;
                if members.contains(&r) {
                    return self.err(format!("rank {r} is listed twice"));
                }
                members.push(r);
            }
            if members.is_empty() {
                return self.err("a communicator needs members");
            }
            self.run.comms.push(CommInfo {
                name: name.unwrap_or_else(|| format!("comm {id}")),
                members,
                remote: None,
            });
            return Ok(());
        }
        let Some((ranks, rest)) = text.split_once(':') else {
            return self.err("expected `RANKS: operation ...`");
        };
        let ranks = self.ranks(ranks)?;
        let (body, site) = match rest.split_once('@') {
            Some((body, site)) => (body, Some(site)),
            None => (rest, None),
        };
        let site = match site {
            Some(s) => self.site(s)?,
            None => SiteId(0),
        };
        let mut words = body.split_whitespace().peekable();
        let mut blocked = false;
        if words.peek() == Some(&"blocked") {
            blocked = true;
            words.next();
        }
        let Some(name) = words.next() else {
            return self.err("missing operation");
        };
        if name == "end" {
            let end = match words.next() {
                Some("finalized") => RankEnd::Finalized,
                Some("exited") => RankEnd::ExitedWithoutFinalize,
                Some("interrupted") => RankEnd::Interrupted {
                    reason: {
                        let r: Vec<&str> = words.collect();
                        if r.is_empty() {
                            "interrupted".into()
                        } else {
                            r.join(" ")
                        }
                    },
                },
                other => {
                    return self.err(format!(
                        "`end {}`: expected finalized, exited or interrupted",
                        other.unwrap_or("")
                    ))
                }
            };
            for r in ranks {
                self.run.ranks[r as usize].end = end.clone();
                self.explicit_end[r as usize] = true;
            }
            return Ok(());
        }
        let mut arg = None;
        let mut keys: Keys = HashMap::new();
        for w in words {
            match w.split_once('=') {
                Some((k, v)) => {
                    if keys.insert(k, v).is_some() {
                        return self.err(format!("`{k}=` given twice"));
                    }
                }
                None if arg.is_none() && name == "other" => arg = Some(w),
                None => return self.err(format!("`{w}`: expected key=value")),
            }
        }
        for rank in ranks {
            let (op, call) = self.op(rank, name, arg, &keys, blocked)?;
            let thread = keys
                .get("thread")
                .map(|v| self.int::<u16>("thread", v))
                .transpose()?
                .unwrap_or(0);
            if matches!(op, Op::Collective { .. }) {
                let args = self.collective_args(&keys)?;
                if args != CollectiveArgs::default() {
                    let index = self.run.ranks[rank as usize].events.len() as u32;
                    self.run.collective_args.insert((rank, index), args);
                }
            }
            if let Some(call) = self.rma_call(rank, name, &keys)? {
                let index = self.run.ranks[rank as usize].events.len() as u32;
                self.run.rma.insert((rank, index), call);
            }
            let trace = &mut self.run.ranks[rank as usize];
            if trace.events.last().is_some_and(|e| !e.returned) {
                return self.err(format!(
                    "rank {rank} already ended in a blocked call; nothing can follow it"
                ));
            }
            let facts = self.facts(&keys)?;
            let trace = &mut self.run.ranks[rank as usize];
            trace.events.push(Event {
                call,
                op,
                site,
                thread,
                returned: !blocked,
                facts,
                time: None,
            });
        }
        Ok(())
    }
}

/// Parses a text trace into a [`Run`].
pub fn parse(text: &str) -> Result<Run, TextTraceError> {
    let mut parser = Parser {
        run: Run {
            sites: vec![SourceLocation::default()],
            ..Run::default()
        },
        line: 0,
        site_ids: HashMap::new(),
        type_ids: HashMap::new(),
        explicit_end: Vec::new(),
        recv_of_request: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        parser.line = i + 1;
        parser.line(line)?;
    }
    if parser.run.ranks.is_empty() {
        parser.line = text.lines().count().max(1);
        return parser.err("no `ranks N` line");
    }
    for (r, trace) in parser.run.ranks.iter_mut().enumerate() {
        if !parser.explicit_end[r] && trace.events.last().is_some_and(|e| !e.returned) {
            trace.end = RankEnd::Interrupted {
                reason: "blocked in its last call".into(),
            };
        }
    }
    Ok(parser.run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_module_example() {
        let run = parse(
            "ranks 3\n\
             comm 1 members 0 1     # optional extra comms\n\
             0: send dest=1 tag=0            @ ring.c:10\n\
             0: recv src=2 tag=0             @ ring.c:11\n\
             1: ssend dest=2 tag=0\n\
             1: irecv src=any tag=any req=1\n\
             1: wait req=1 matched=2:0\n\
             2: bcast root=0 comm=0\n\
             2: blocked recv src=1 tag=0\n\
             0: end exited\n",
        )
        .unwrap();
        assert_eq!(run.world_size(), 3);
        assert_eq!(run.comms[1].members, vec![0, 1]);
        let e = &run.ranks[0].events[0];
        assert_eq!(e.call, "MPI_Send");
        assert_eq!(run.site(e.site).line, Some(10));
        let Op::Recv { recv, blocking } = &run.ranks[1].events[1].op else {
            panic!()
        };
        assert_eq!(*blocking, Blocking::Nonblocking(ReqId(1)));
        assert_eq!(recv.matched, Some((2, 0)));
        assert_eq!(run.ranks[1].events[1].call, "MPI_Irecv");
        assert!(!run.ranks[2].events[1].returned);
        assert!(matches!(run.ranks[2].end, RankEnd::Interrupted { .. }));
        assert_eq!(run.ranks[0].end, RankEnd::ExitedWithoutFinalize);
        assert_eq!(run.ranks[1].end, RankEnd::Finalized);
    }

    #[test]
    fn rank_sets_and_names() {
        let run = parse(
            "ranks 4\n*: ibarrier req=0\n0-1,3: wait req=0\n2: comm_dup\n2: bcast_init root=1 req=2\n2: other MPI_Comm_rank",
        )
        .unwrap();
        assert_eq!(run.ranks[3].events.len(), 2);
        assert_eq!(run.ranks[2].events.len(), 4);
        assert_eq!(run.ranks[0].events[0].call, "MPI_Ibarrier");
        assert_eq!(run.ranks[2].events[1].call, "MPI_Comm_dup");
        assert_eq!(run.ranks[2].events[2].call, "MPI_Bcast_init");
        assert_eq!(run.ranks[2].events.last().unwrap().call, "MPI_Comm_rank");
    }

    #[test]
    fn errors_have_line_numbers() {
        let cases = [
            ("0: send dest=1", 1, "ranks N"),
            ("ranks 2\n0: send dest=5", 2, "only 2 ranks"),
            ("ranks 2\n\n0: frobnicate", 3, "unknown operation"),
            ("ranks 2\n0: recv src=1 tag=x", 2, "not a valid number"),
            ("ranks 2\n0: send dest=1 comm=3", 2, "not declared"),
            (
                "ranks 2\n0: blocked recv src=1\n0: send dest=1",
                3,
                "blocked",
            ),
            ("ranks 2\n0: isend dest=1", 2, "req="),
            ("ranks 2\n0: send dest=1 @ nowhere", 2, "file:line"),
            ("ranks 2\ncomm 2 members 0", 2, "in order"),
            ("", 1, "ranks N"),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.message.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn no_panics_on_junk() {
        for text in [
            ":",
            "ranks",
            "ranks -1",
            "ranks 1\n*:",
            "ranks 1\n0: wait reqs=",
            "ranks 1\n0: end",
            "ranks 1\n0-:",
        ] {
            let _ = parse(text);
        }
    }
}
