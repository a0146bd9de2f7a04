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
//! | `win_create` `win_allocate` `win_allocate_shared` `win_create_dynamic` | `win=N` (windows in order 0, 1, ...) `comm=N` `size=BYTES` `unit=N` (this rank's memory; default unit 1) `base=ADDRESS` (decimal; its address, known for `win_create`) |
//! | `win_fence` `win_free` | `win=N`; fences take `assert=nosucceed` |
//! | `win_lock` `win_unlock` `win_flush` `win_flush_local` | `win=N` `target=N\|null` (a window rank); `win_lock` takes `type=exclusive\|shared` (absent: unknown) and `assert=nocheck` |
//! | `win_attach` `win_detach` | `win=N` `base=ADDRESS` (decimal); `win_attach` takes `size=BYTES` (dynamic windows: a target displacement is an address) |
//! | `win_lock_all` `win_unlock_all` `win_post` `win_start` `win_complete` `win_wait` `win_test` `win_flush_all` `win_sync` | `win=N`; `win_test` takes `flag=0\|1`; `win_post` and `win_start` take `group=1,2` (world ranks, `none`: empty; absent: unknown) and `assert=nocheck` |
//! | `put` `get` `accumulate` `get_accumulate` `fetch_and_op` `compare_and_swap`, and `rput` `rget` `raccumulate` `rget_accumulate` | `win=N` `target=N\|null` `disp=N` `count=N` `type=T` `op=sum`; `span=A..B`: a target type with holes whose elements reach bytes A..B from the displacement (judged for bounds, not for conflicts) |
//! | `init` `finalize` | |
//! | `other NAME` | any other MPI call, e.g. `other MPI_Comm_rank` |
//! | `access` | not a call: a load or store into a pending operation's buffer (`--check-buffers`), at the line's `@` site: `write=0\|1` `addr=N` `buf=START+LEN` `recv=0\|1` `thread=N` (absent: a thread without MPI calls) `tid=N` `post=FILE:LINE` (where the operation started, as the recorder gives it) |
//!
//! A line `type NAME 2*int,1*double` declares a derived datatype (a struct of blocks of
//! builtin or earlier declared types) usable as `type=NAME`.
//! Any line may also carry `new=KIND:N,...` and `freed=KIND:N,...` (objects the call made or
//! freed; KIND is `comm` `group` `type` `op` `win` `errhandler` `keyval` `info` `file`
//! `session` `request`, N an object id of the rank), `bad=PARAM:PROBLEM,...` (argument
//! problems: `rank` `tag` `count` `uncommitted` `nullbuf` `inplace` `before-init` `color`
//! `topology` `grid` `no-topology` `rank-list` `repeated` `stride` `index` `direction`
//! `assert` `partition` `null-KIND` `freed-KIND`), `bsend_bytes=N` (the attached-buffer space a buffered send needs) and
//! `mem=PARAM:START+LEN:r|w,...` (the bytes a buffer argument covers, `w` when MPI writes
//! them).
//!
//! Waits and tests fill in the `matched` source of the nonblocking receives they complete
//! when given `matched=SRC[:TAG]` (one receive) — as the normalizer does from statuses.
//! A rank's trace ends `interrupted` if its last call is `blocked`, `finalized` otherwise,
//! unless an `end` line says otherwise.

use std::collections::HashMap;

use crate::model::*;

mod names;
mod ops;
mod rma;
mod values;

/// A parse error with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TextTraceError {
    pub line: usize,
    pub message: String,
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
            self.run.comms = CommTable::default();
            self.run.comms.push(CommInfo {
                name: "MPI_COMM_WORLD".into(),
                members: (0..n).collect(),
                remote: None,
            });
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
                name: name.unwrap_or_else(|| format!("comm {id}")).into(),
                members: members.into(),
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
                // MPI aborted the job inside the rank's last call.
                Some("aborted") => RankEnd::AbortedInCall {
                    event: usize::MAX,
                    call: "",
                },
                other => {
                    return self.err(format!(
                        "`end {}`: expected finalized, exited, interrupted or aborted",
                        other.unwrap_or("")
                    ))
                }
            };
            for r in ranks {
                let trace = &mut self.run.ranks[r as usize];
                trace.end = match end {
                    RankEnd::AbortedInCall { .. } => match trace.events.len().checked_sub(1) {
                        Some(event) => RankEnd::AbortedInCall {
                            event,
                            call: trace.events[event].call,
                        },
                        None => return self.err("`end aborted` needs a call before it"),
                    },
                    _ => end.clone(),
                };
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
        if name == "access" {
            return self.access(&ranks, site, &keys);
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
                    self.run
                        .collective_args
                        .insert((rank, index), std::sync::Arc::new(args));
                }
            }
            if let Some(mut rma) = self.rma_call(rank, name, &keys)? {
                let index = self.run.ranks[rank as usize].events.len() as u32;
                rma.event = EventSummary {
                    call,
                    site,
                    thread,
                    returned: !blocked,
                    enter_ns: None,
                };
                self.run.rma.insert((rank, index), rma);
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
        assert_eq!(*run.comms[1].members, [0, 1]);
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
