//! Loads and stores of the program into the buffer of a pending nonblocking send or receive,
//! started persistent request, nonblocking collective or RMA operation (DR002), as `mpicheck
//! run --check-buffers` caught them ([`Run::buffer_accesses`]).

use std::collections::VecDeque;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::pass::{EventPass, RunTables};
use super::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;

pub const DR002: CheckInfo = CheckInfo {
    code: "DR002",
    name: "pending-buffer-access",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "the program stores into the buffer of a pending nonblocking send (or RMA origin buffer), or loads or stores the buffer of a pending nonblocking receive, before the operation completes",
    docs: r#"## What it does

With `mpicheck run --check-buffers`, the memory pages of the buffers of pending operations
are protected against the threads that are outside MPI (with memory protection keys; on
CPUs without them, while no thread of the process is inside MPI): of every `MPI_Isend`,
`MPI_Issend`, `MPI_Ibsend`, `MPI_Irsend` and `MPI_Irecv`, and every persistent send or
receive from `MPI_Start`/`MPI_Startall`, until a wait, test or `MPI_Request_free`
completes the request; the send and receive buffers of nonblocking collectives
(`MPI_Ibcast`, `MPI_Iallreduce`, `MPI_Igatherv`, `MPI_Ineighbor_alltoall`, ...; root-only arguments at the root only,
the blocks of v-variants as their counts and displacements give them) until their
request completes; the origin buffers of `MPI_Rput`, `MPI_Raccumulate` and
`MPI_Rget_accumulate` until their request completes, and of `MPI_Put`, `MPI_Accumulate`,
`MPI_Get_accumulate`, `MPI_Fetch_and_op` and `MPI_Compare_and_swap` until the fence,
unlock, flush or complete that ends them at the origin; with protection keys also the
result buffers of gets, get-accumulates and atomics, until the same. An access by the program to the buffer's own bytes (not to its
neighbours on the same page) is reported with the instruction that made it, resolved to
file and line, the thread, and the call that started the operation. Stores into a send
buffer are reported, loads from it are not (MPI allows them); both loads and stores of a
receive buffer are, except loads on the receive buffer's first and last page, which stay
readable so that the program's system calls on neighbouring data keep working (without
protection keys also loads from the receive buffers of nonblocking collectives, which
other processes read, and the results of gets, which they write). Buffers with a
non-contiguous datatype, on a thread's stack, or in memory other than a private
read-write mapping, and on a page of an RMA window's memory are not watched. The first
access to each buffer is reported; the first accesses of one instruction of a rank to the
buffers of operations started at one call site are one finding, which counts the buffers
(a program that allocates a new buffer for each message size repeats one mistake).

## Why is this bad

MPI reads a send buffer and writes a receive buffer at any time between the start of the
operation and its completion, from inside any MPI call of the process or from another
process through shared memory. A store into a pending send buffer makes the receiver get
the old value, the new one or a mix, depending on message size, transport and timing; a
load from a pending receive buffer reads data that may not have arrived, and a store
into it may be overwritten by the message. The program is erroneous and its results
change from run to run without any error.

## Example

```c
MPI_Isend(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
buf[0]++;                       /* MPI may still be reading buf */
MPI_Wait(&req, MPI_STATUS_IGNORE);
```

## How to fix

Complete the request (`MPI_Wait`, or a successful `MPI_Test`) before touching the buffer,
or work on another buffer in the meantime (double buffering). Reading a pending send
buffer is allowed.

## MPI standard reference

MPI 4.1 §3.7.2 (communication initiation: the send buffer must not be modified, the
receive buffer must not be accessed until the operation completes), §3.7.3
(communication completion), §3.9 (persistent requests), §6.12 (nonblocking collectives),
§12.3 (RMA origin buffers), §11.6.2 (the same across threads).
"#,
};

pub(crate) struct PendingBufferAccess;

impl Check for PendingBufferAccess {
    fn infos(&self) -> &'static [CheckInfo] {
        &[DR002]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<Pending>::default())
    }
}

/// A call that may have started the pending operation of an access: what a finding says of
/// it.
#[derive(Clone)]
struct Posted {
    /// Its event index, to find the latest of several candidates.
    index: u32,
    call: &'static str,
    site: SiteId,
    thread: u16,
    /// The requests of an `MPI_Start`/`MPI_Startall`.
    started: Option<Arc<[ReqId]>>,
}

fn latest(a: Option<&Posted>, b: Option<&Posted>) -> Option<Posted> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if a.index >= b.index { a } else { b }.clone()),
        (a, b) => a.or(b).cloned(),
    }
}

/// The `MPI_Send_init`/`MPI_Recv_init`... that made a persistent request, and its last
/// start.
struct Init {
    call: &'static str,
    /// It receives into its buffer (else it sends from it).
    recv: bool,
    /// Where its buffers start (none when unknown).
    buffers: Box<[u64]>,
    last_start: Option<Posted>,
}

impl Init {
    /// It moves data in the access's direction and its buffer (if known) is the watched one.
    fn fits(&self, access: &BufferAccess) -> bool {
        self.recv == access.recv
            && (self.buffers.is_empty() || self.buffers.contains(&access.start))
    }
}

/// What one rank's events so far leave to find the call that posted a watched buffer:
/// the latest call at each call site, the latest nonblocking send and receive, and by
/// buffer address, and the live persistent requests with their last start. It grows with
/// the call sites, the buffer addresses of nonblocking operations and the live persistent
/// requests, not with the events.
#[derive(Default)]
struct RankPosts {
    /// By call site id.
    by_site: Vec<Option<Posted>>,
    /// The latest nonblocking send ([0]) and receive ([1]).
    latest: [Option<Posted>; 2],
    /// The latest nonblocking send or receive by (buffer start, receive).
    by_buffer: FxHashMap<(u64, bool), Posted>,
    inits: FxHashMap<ReqId, Init>,
    /// The rank's accesses taken from the tables and not judged yet (the rank's events
    /// before them are still to come), with their place among the rank's accesses.
    waiting: VecDeque<(u32, BufferAccess)>,
    /// How many of the rank's accesses were taken from the tables.
    taken: u32,
}

impl RankPosts {
    fn event(&mut self, index: usize, event: &Event) {
        let posted = || Posted {
            index: index as u32,
            call: event.call,
            site: event.site,
            thread: event.thread,
            started: match &event.op {
                Op::Start { requests } => Some(requests.as_slice().into()),
                _ => None,
            },
        };
        let site = event.site.0 as usize;
        if self.by_site.len() <= site {
            self.by_site.resize(site + 1, None);
        }
        let this = posted();
        match &event.op {
            Op::Send { blocking, .. } | Op::Recv { blocking, .. } => {
                let recv = matches!(event.op, Op::Recv { .. });
                match blocking {
                    Blocking::Nonblocking(_) => {
                        for b in event.buffers() {
                            self.by_buffer.insert((b.start, recv), this.clone());
                        }
                        self.latest[recv as usize] = Some(this.clone());
                    }
                    Blocking::Persistent(req) => {
                        self.inits.insert(
                            *req,
                            Init {
                                call: event.call,
                                recv,
                                buffers: event.buffers().iter().map(|b| b.start).collect(),
                                last_start: None,
                            },
                        );
                    }
                    _ => {}
                }
            }
            Op::Start { requests } => {
                for r in requests {
                    if let Some(init) = self.inits.get_mut(r) {
                        init.last_start = Some(this.clone());
                    }
                }
            }
            // The recorder stops watching a request's buffer when it is freed.
            Op::RequestFree { request } => {
                self.inits.remove(request);
            }
            _ => {}
        }
        self.by_site[site] = Some(this);
    }

    /// The call that started the pending operation of `access`, once the rank's events
    /// before it were seen: the latest call at the site the recorder gave; without one, the
    /// latest nonblocking send or receive, or start of a persistent one, whose buffer starts
    /// at the watched bytes (any of the right direction when the call's buffers are
    /// unknown).
    fn posting(&self, access: &BufferAccess) -> Option<Posted> {
        if access.post_site != SiteId(0) {
            if let Some(Some(found)) = self.by_site.get(access.post_site.0 as usize) {
                return Some(found.clone());
            }
        }
        let started = self
            .inits
            .values()
            .filter(|init| init.fits(access))
            .filter_map(|init| init.last_start.as_ref())
            .max_by_key(|p| p.index);
        latest(self.by_buffer.get(&(access.start, access.recv)), started)
            .or_else(|| latest(self.latest[access.recv as usize].as_ref(), started))
    }

    /// How the message names the pending operation: its call, or for a started persistent
    /// request the call that made it.
    fn operation_name(&self, access: &BufferAccess, post: &Posted) -> String {
        let Some(requests) = &post.started else {
            return post.call.to_string();
        };
        match requests
            .iter()
            .find_map(|r| self.inits.get(r).filter(|init| init.fits(access)))
        {
            Some(init) => format!("{} request (started by {})", init.call, post.call),
            None => format!("persistent request (started by {})", post.call),
        }
    }
}

/// DR002 over the events: each rank's accesses are judged when the rank's events reach
/// them.
#[derive(Default)]
struct Pending {
    /// No trace records accesses to pending buffers (known from their scan): no event
    /// needs following.
    idle: bool,
    ranks: Vec<RankPosts>,
    /// How many of the tables' accesses were taken (while the events stream, the tables
    /// only grow).
    seen: usize,
    /// The findings by (rank, place among the rank's accesses).
    found: Vec<(Rank, u32, Same, Buffer, Diagnostic)>,
}

impl Pending {
    fn rank(&mut self, rank: Rank) -> &mut RankPosts {
        let r = rank as usize;
        if self.ranks.len() <= r {
            self.ranks.resize_with(r + 1, RankPosts::default);
        }
        &mut self.ranks[r]
    }

    /// Takes the accesses the tables got since the last time.
    fn take_new(&mut self, tables: &RunTables) {
        let accesses = tables.buffer_accesses();
        for access in &accesses[self.seen.min(accesses.len())..] {
            let posts = self.rank(access.rank);
            posts.waiting.push_back((posts.taken, access.clone()));
            posts.taken += 1;
        }
        self.seen = accesses.len();
    }

    /// Judges the accesses of `rank` that come before its event `index`.
    fn judge(&mut self, rank: Rank, index: usize, tables: &RunTables) {
        let Some(posts) = self.ranks.get_mut(rank as usize) else {
            return;
        };
        while posts
            .waiting
            .front()
            .is_some_and(|(_, a)| a.events_before as usize <= index)
        {
            let (place, access) = posts.waiting.pop_front().expect("checked");
            let (same, found) = diagnostic(posts, &access, tables);
            let buffer = (access.start, access.len);
            self.found.push((rank, place, same, buffer, found));
        }
    }
}

impl EventPass for Pending {
    fn scanned(&mut self, called: &[&str]) {
        self.idle = !called.contains(&"MPICHECK_Access");
    }

    fn idle(&self) -> bool {
        self.idle
    }

    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        if self.idle {
            return;
        }
        self.take_new(tables);
        self.judge(rank, index, tables);
        self.rank(rank).event(index, event);
    }

    fn finish(mut self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        // At the end the tables hold each rank's accesses rank after rank (while the
        // events streamed, in the order they came): those of a rank not taken yet are its
        // last ones.
        let mut place = FxHashMap::<Rank, u32>::default();
        for access in tables.buffer_accesses() {
            let seen = place.entry(access.rank).or_default();
            *seen += 1;
            let posts = self.rank(access.rank);
            if *seen > posts.taken {
                posts.waiting.push_back((posts.taken, access.clone()));
                posts.taken += 1;
            }
        }
        for rank in 0..self.ranks.len() {
            self.judge(rank as Rank, usize::MAX, tables);
        }
        self.found.sort_by_key(|&(rank, place, ..)| (rank, place));
        fold_same(self.found)
    }
}

/// What makes the findings of several buffers one: the rank's instruction, the call site
/// that started the operations, the kind of access and the threads.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Same {
    site: SiteId,
    post_site: Option<SiteId>,
    write: bool,
    recv: bool,
    thread: Option<u16>,
}

/// A buffer: its start address and length.
type Buffer = (u64, u64);

/// One finding per rank and [`Same`], the first in `found`'s order, its message counting the
/// other buffers (the same buffer again, in a loop, adds nothing: its finding is the same).
fn fold_same(found: Vec<(Rank, u32, Same, Buffer, Diagnostic)>) -> Vec<Diagnostic> {
    let mut first = FxHashMap::<(Rank, Same), (usize, FxHashSet<Buffer>)>::default();
    let mut out = Vec::new();
    for (rank, _, same, buffer, d) in found {
        match first.entry((rank, same)) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                e.get_mut().1.insert(buffer);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((out.len(), [buffer].into_iter().collect()));
                out.push(d);
            }
        }
    }
    for (at, buffers) in first.values() {
        let more = buffers.len() - 1;
        if more > 0 {
            let d = &mut out[*at];
            let buffers = if more == 1 { "buffer" } else { "buffers" };
            d.message = format!(
                "{}; the same instruction did so to {more} more {buffers} of operations started at the same call",
                d.message
            )
            .into();
        }
    }
    out
}

/// The finding of `access`, judged on the rank's events before it, and what it has in
/// common with the findings of other buffers.
fn diagnostic(posts: &RankPosts, access: &BufferAccess, tables: &RunTables) -> (Same, Diagnostic) {
    let post = posts.posting(access);
    let same = Same {
        site: access.site,
        post_site: post
            .as_ref()
            .map(|p| p.site)
            .or((access.post_site != SiteId(0)).then_some(access.post_site)),
        write: access.write,
        recv: access.recv,
        thread: access.thread,
    };
    let call = post.as_ref().map_or(
        if access.recv {
            "MPI_Irecv"
        } else {
            "MPI_Isend"
        }
        .to_string(),
        |p| posts.operation_name(access, p),
    );
    let (noun, verb) = if access.write {
        ("store into", "stores into")
    } else {
        ("load from", "loads from")
    };
    // An RMA origin buffer (MPI_Put, MPI_Rput...): completed by a request or by the
    // epoch's synchronization, not by a matching receive. (Looked up here, not at every
    // event: the tables keep the calls on windows.)
    let rma = post.as_ref().is_some_and(|p| {
        tables
            .rma_call(access.rank, p.index as usize)
            .is_some_and(|c| matches!(c.kind, RmaKind::Access(_)))
    });
    // An RMA buffer MPI writes (a get's or an atomic's result) is its result buffer.
    let what = match (rma, access.recv) {
        (true, true) => "result",
        (_, true) => "receive",
        (_, false) => "send",
    };
    let until = if rma {
        "the operation completed at the origin".to_string()
    } else {
        format!("the {what} completed")
    };
    let thread = match (access.thread, post.as_ref().map(|p| p.thread)) {
        (Some(t), Some(p)) if t == p => "the thread that started it".to_string(),
        (Some(t), _) => format!("thread {t}"),
        (None, _) => "a thread that made no MPI call".to_string(),
    };
    let offset = access.address.wrapping_sub(access.start);
    let message = format!(
        "{noun} byte {offset} of the {len}-byte buffer of a pending {call} by {thread}, before {until}",
        len = access.len
    );
    let mut locations = vec![tables.location(
        access.site,
        access.rank,
        if access.write { "store" } else { "load" },
        format!("{verb} the pending {what} buffer"),
    )];
    let started = format!("starts the {what} with this buffer");
    if let Some(p) = &post {
        locations.push(tables.location(p.site, access.rank, p.call, started));
    } else if access.post_site != SiteId(0) {
        locations.push(tables.location(access.post_site, access.rank, &call, started));
    }
    let found = Diagnostic {
        code: DR002.code,
        category: DR002.category,
        severity: DR002.severity,
        message: message.into(),
        locations,
        notes: vec![if rma && access.recv {
            "until the request or the synchronization that ends the access (fence, unlock, flush, complete) completes it, MPI may write the result buffer at any moment (MPI 4.1 §12.3)".into()
        } else if rma {
            "until the request or the synchronization that ends the access (fence, unlock, flush, complete) completes it, MPI may read the origin buffer at any moment (MPI 4.1 §12.3)".into()
        } else {
            format!(
                "until a wait or test completes it, MPI may {} the buffer at any moment (MPI 4.1 §3.7.2)",
                if access.recv { "write" } else { "read" }
            )
            .into()
        }],
        help: Some(if rma && access.recv {
            "complete the operation (MPI_Win_fence, MPI_Win_unlock, MPI_Win_flush, MPI_Win_complete, or a wait on the request of MPI_Rget) before reading or writing the result buffer".into()
        } else if rma {
            "complete the operation (MPI_Win_fence, MPI_Win_unlock, MPI_Win_flush, MPI_Win_complete, or a wait on the request of MPI_Rput) before modifying the origin buffer; reading it is allowed".into()
        } else if access.recv {
            "complete the request (MPI_Wait, or MPI_Test returning true) before reading or writing the receive buffer".into()
        } else {
            "complete the request (MPI_Wait, or MPI_Test returning true) before modifying the send buffer; reading it is allowed".into()
        }),
        wait_for: None,
        communicator: None,
        tag: None,
    };
    (same, found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::pass::interleave::same_in_every_order;
    use crate::text_trace::parse;

    fn dr002(body: &str) -> Vec<Diagnostic> {
        let text = format!(
            "ranks 2
             *: init
             *: win_create win=0 size=40 unit=4        @ g.c:1
             *: win_fence win=0                        @ g.c:2
             {body}
             *: win_fence win=0                        @ g.c:9
             *: win_free win=0                         @ g.c:10
             *: finalize"
        );
        let run = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        same_in_every_order(&run, || Box::<Pending>::default())
    }

    /// A get's result is written by MPI: an access to it is about the result buffer, which
    /// may be neither read nor written (not the origin buffer that may be read).
    #[test]
    fn access_to_a_pending_get_result_names_the_result_buffer() {
        let found = dr002(
            "0: get win=0 target=1 disp=0 count=10 type=int  @ g.c:5
             0: access buf=4096+40 addr=4100 recv=1 post=g.c:5 @ g.c:6",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        let d = &found[0];
        assert_eq!(
            d.message.to_string(),
            "load from byte 4 of the 40-byte buffer of a pending MPI_Get by a thread that made no MPI call, before the operation completed at the origin"
        );
        assert!(
            d.notes[0]
                .to_string()
                .contains("MPI may write the result buffer"),
            "{:?}",
            d.notes
        );
        let help = d.help.as_ref().unwrap().to_string();
        assert!(
            help.contains("before reading or writing the result buffer"),
            "{help}"
        );
        assert_eq!(
            d.locations[0].label.to_string(),
            "loads from the pending result buffer"
        );
    }

    /// NetPIPE's -a mode posts a receive into a new buffer for each message size and
    /// writes it at one instruction: one finding that counts the buffers, not one each (a
    /// buffer met again is not counted again).
    #[test]
    fn one_instruction_on_the_buffers_of_one_call_is_one_finding() {
        let found = dr002(
            "0: irecv src=1 tag=0 count=4 type=int req=1 @ g.c:5
             0: access buf=4096+16 write=1 recv=1 post=g.c:5         @ g.c:6
             0: irecv src=1 tag=0 count=4 type=int req=2 @ g.c:5
             0: access buf=8192+16 write=1 recv=1 post=g.c:5         @ g.c:6
             0: irecv src=1 tag=0 count=4 type=int req=4 @ g.c:5
             0: access buf=4096+16 write=1 recv=1 post=g.c:5         @ g.c:6
             0: irecv src=1 tag=0 count=8 type=int req=3 @ g.c:5
             0: access buf=12288+32 write=1 recv=1 post=g.c:5        @ g.c:6
             0: access buf=12288+32 recv=1 post=g.c:5                @ g.c:7
             1: send dest=0 tag=0 count=4 type=int
             1: send dest=0 tag=0 count=4 type=int
             1: send dest=0 tag=0 count=4 type=int
             1: send dest=0 tag=0 count=8 type=int
             0: waitall reqs=1,2,4,3",
        );
        let messages: Vec<String> = found.iter().map(|d| d.message.to_string()).collect();
        assert_eq!(
            messages,
            [
                "store into byte 0 of the 16-byte buffer of a pending MPI_Irecv by a thread that made no MPI call, before the receive completed; the same instruction did so to 2 more buffers of operations started at the same call",
                "load from byte 0 of the 32-byte buffer of a pending MPI_Irecv by a thread that made no MPI call, before the receive completed",
            ],
            "{found:?}"
        );
    }

    #[test]
    fn store_into_a_pending_put_origin_names_the_origin_buffer() {
        let found = dr002(
            "0: put win=0 target=1 disp=0 count=10 type=int  @ g.c:5
             0: access buf=4096+40 write=1 post=g.c:5       @ g.c:6",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        let help = found[0].help.as_ref().unwrap().to_string();
        assert!(
            help.contains("before modifying the origin buffer; reading it is allowed"),
            "{help}"
        );
        assert_eq!(
            found[0].locations[0].label.to_string(),
            "stores into the pending send buffer"
        );
    }
}
