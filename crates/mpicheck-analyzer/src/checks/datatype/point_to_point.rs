//! TY002 and TY003: a point-to-point message and the receive that takes it disagree in type
//! signature (TY002), or the receive is too small for the message (TY003).
//!
//! Messages are paired with receives the way MPI matches them: per sender, receiver,
//! communicator and tag in order (non-overtaking), using the source and tag the receive's
//! status reported when it completed, and its own source and tag when it did not (a receive
//! that crashed on a truncation error never returns).
//!
//! A nonblocking receive of any source or any tag is paired by its status, which comes
//! after its event ([`EventPass::matched`], when the call that completed it is normalized).
//! Until then it and the receiver's later receives wait in posting order ([`Posted`]), so
//! that each is paired as if its match had been known at its event: at the latest when a
//! wait completes it or it is freed (no status comes after that), or at the end.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::checks::few_map::FewMap;
use crate::checks::pass::{EventKind, EventPass, RunTables, Wants};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{
    Blocking, CommId, Event, Op, Rank, RecvSpec, ReqId, SendSpec, SiteId, Source, TagMatch, TypeId,
};
use crate::text;
use crate::text::ranks;
use crate::typesig::{self, Mismatch};

pub const TY002: CheckInfo = CheckInfo {
    code: "TY002",
    name: "message-type-mismatch",
    category: Category::TypeMismatch,
    severity: Severity::Error,
    summary:
        "a message is received with a type signature that does not match the one it was sent with",
    docs: r#"## What it does

Pairs every point-to-point message (`MPI_Send` and its modes, nonblocking sends,
`MPI_Sendrecv`, each `MPI_Start` of a persistent or partitioned send) with the receive
that takes it (blocking, nonblocking, persistent or partitioned: a partitioned operation's
message is all its partitions, `partitions × count`) and compares the type signatures: the
sequence of basic types of `count × datatype` on both sides (derived types reduced to their
basic types, hashed once when committed). The message must be a prefix of what the receive
describes; a receive longer than the message is fine. `MPI_PACKED` matches anything.

## Why is this bad

MPI requires the types of sender and receiver to match (an `MPI_INT` is not four
`MPI_BYTE`, a `float` is not an `int`). Most implementations only move bytes and never
notice: the receiver silently gets reinterpreted data, and the program breaks on a
heterogeneous system or with another MPI.

## Example

```c
if (rank == 0) MPI_Send(a, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
else           MPI_Recv(b, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &st);
```

## How to fix

Receive with the datatype the message was sent with (or a derived type with the same type
signature); to move raw bytes, use `MPI_BYTE` on both sides.

## MPI standard reference

MPI 4.1 §3.3.1 (type matching rules), §5.1.11 (type matching of derived datatypes:
"the type signature of the send must be a prefix of the type signature of the receive").
"#,
};

pub const TY003: CheckInfo = CheckInfo {
    code: "TY003",
    name: "receive-too-small",
    category: Category::TypeMismatch,
    severity: Severity::Error,
    summary: "a receive is too small for the message it matches (the message is truncated)",
    docs: r#"## What it does

Pairs every point-to-point message with the receive that takes it (as TY002) and reports
receives whose `count × datatype` holds fewer basic elements than the message carries.

## Why is this bad

A message longer than the receive buffer is an overflow error (`MPI_ERR_TRUNCATE`): with
the default error handler the job aborts inside the receive; with `MPI_ERRORS_RETURN` the
data is cut off. The trace of the aborted receive still shows what was posted.

## Example

```c
if (rank == 0) MPI_Send(a, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
else           MPI_Recv(b, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
```

## How to fix

Post the receive with room for the largest message that can match it (and use
`MPI_Get_count` to learn the actual length), or probe first (`MPI_Probe`, `MPI_Get_count`).

## MPI standard reference

MPI 4.1 §3.2.4 ("if a message that is longer than the receive buffer arrives, an overflow
occurs ... erroneous"), §3.7.3.
"#,
};

/// A call the pass remembers for a report: where it was made and its name.
#[derive(Clone, Copy)]
struct Call {
    site: SiteId,
    name: &'static str,
}

/// A message no receive has taken yet.
struct Message {
    tag: i32,
    sender: Rank,
    call: Call,
    count: i64,
    datatype: Option<TypeId>,
    taken: bool,
}

/// A receive whose message was not sent yet (as far as the events seen so far show).
struct Receive {
    /// Where the receive is in its rank's order: (receiver, event, request started).
    order: (Rank, usize, usize),
    call: Call,
    count: i64,
    datatype: Option<TypeId>,
    comm: CommId,
    /// The tag it takes, `None` for any.
    tag: Option<i32>,
}

/// The messages of one sender to one receiver on one communicator, in send order, and the
/// receives waiting for one of them, in receive order.
#[derive(Default)]
struct Stream {
    messages: VecDeque<Message>,
    waiting: VecDeque<Receive>,
}

impl Stream {
    /// The first message not taken yet that a receive of `tag` takes, taken.
    fn take(&mut self, tag: Option<i32>) -> Option<Message> {
        let at = self
            .messages
            .iter()
            .position(|m| !m.taken && tag.is_none_or(|t| t == m.tag))?;
        let message = &mut self.messages[at];
        message.taken = true;
        let taken = Message {
            taken: true,
            ..*message
        };
        while self.messages.front().is_some_and(|m| m.taken) {
            self.messages.pop_front();
        }
        Some(taken)
    }
}

/// A receive as posted, not paired yet because an earlier receive of its rank, or itself,
/// waits for its match.
struct Posted {
    order: (Rank, usize, usize),
    call: Call,
    count: i64,
    datatype: Option<TypeId>,
    comm: CommId,
    source: Option<Source>,
    tag: TagMatch,
    matched: Option<(Rank, i32)>,
    /// Its match may still come: the receive is in [`MessageTypePass::awaiting`] until it
    /// is known or known never to come.
    awaits: bool,
}

/// The match of a held receive (by rank and event): `None` while it may still come.
type Awaited = Option<Option<(Rank, i32)>>;

/// What a persistent request starts: the send or receive of its `MPI_Send_init`,
/// `MPI_Recv_init`...
struct Init {
    call: Call,
    op: Op,
}

/// One kind of mismatch between two call sites: its first occurrence (in receiver rank
/// and receive order, whatever order the events came in) gives the texts.
struct Found {
    first: (Rank, usize, usize),
    diagnostic: Diagnostic,
    occurrences: u32,
}

/// TY002 and TY003 as one pass: messages are paired with receives as both are seen.
#[derive(Default)]
pub(crate) struct MessageTypePass {
    /// Each rank's persistent requests.
    inits: FxHashMap<(Rank, ReqId), Init>,
    streams: FxHashMap<(Rank, Rank, CommId), Stream>,
    found: HashMap<(u32, u32, String), Found>,
    /// By receiver (rank): its receives from the first one whose match may still come, in
    /// posting order.
    held: Vec<VecDeque<Posted>>,
    /// The held receives that wait for their match, by (rank, event), and their requests.
    /// (Few at a time: a wildcard receive waits from its post to its wait.)
    awaiting: FewMap<(Rank, usize), Awaited>,
    awaiting_requests: FewMap<(Rank, ReqId), usize>,
    /// Ranks whose held receives a match came for since the last event: they are paired at
    /// the next event, with the tables.
    released: Vec<Rank>,
}

fn send_of(op: &Op) -> Option<&SendSpec> {
    match op {
        Op::Send { send, .. } => Some(send),
        Op::Sendrecv { send, .. } => Some(send),
        _ => None,
    }
}

fn recv_of(op: &Op) -> Option<&RecvSpec> {
    match op {
        Op::Recv { recv, .. } => Some(recv),
        Op::Sendrecv { recv, .. } => Some(recv),
        _ => None,
    }
}

impl MessageTypePass {
    /// The send and receive of `op` (the call itself, or what a start started), made by
    /// `call` of `rank`, at `order` in the rank's sends and receives.
    fn transfer(
        &mut self,
        rank: Rank,
        order: (Rank, usize, usize),
        call: Call,
        op: &Op,
        tables: &RunTables,
    ) {
        if let Some(send) = send_of(op) {
            if let Some(dest) = send.dest {
                let stream = self.streams.entry((rank, dest, send.comm)).or_default();
                stream.messages.push_back(Message {
                    tag: send.tag,
                    sender: rank,
                    call,
                    count: send.count,
                    datatype: send.datatype,
                    taken: false,
                });
                // The first waiting receive that takes it.
                if let Some(at) = stream
                    .waiting
                    .iter()
                    .position(|r| r.tag.is_none_or(|t| t == send.tag))
                {
                    let receive = stream.waiting.remove(at).expect("found");
                    let message = stream.take(receive.tag).expect("just sent");
                    self.judge(&message, &receive, tables);
                }
            }
        }
        let Some(recv) = recv_of(op) else {
            return;
        };
        // The status of a persistent receive is that of its last completion only: each
        // start is judged by the source and tag it was posted with.
        let (persistent, request) = match op {
            Op::Recv {
                blocking: Blocking::Persistent(_),
                ..
            } => (true, None),
            Op::Recv {
                blocking: Blocking::Nonblocking(r),
                ..
            }
            | Op::Sendrecv {
                blocking: Blocking::Nonblocking(r),
                ..
            } => (false, Some(*r)),
            _ => (false, None),
        };
        let matched = if persistent { None } else { recv.matched };
        // A receive of one source and tag matches those: its status adds nothing.
        let specific =
            matches!(recv.source, Some(Source::Rank(_))) && matches!(recv.tag, TagMatch::Tag(_));
        let awaits = matched.is_none() && !specific && request.is_some();
        let posted = Posted {
            order,
            call,
            count: recv.count,
            datatype: recv.datatype,
            comm: recv.comm,
            source: recv.source,
            tag: recv.tag,
            matched,
            awaits,
        };
        if awaits {
            self.awaiting.insert((rank, order.1), None);
            if let Some(r) = request {
                self.awaiting_requests.insert((rank, r), order.1);
            }
        }
        let r = rank as usize;
        if self.held.len() <= r {
            self.held.resize_with(r + 1, VecDeque::new);
        }
        let held = &mut self.held[r];
        if !held.is_empty() || awaits {
            held.push_back(posted);
        } else {
            self.pair(rank, posted, tables);
        }
    }

    /// Pairs the receives `rank` holds up to the first whose match may still come (all of
    /// them at the end).
    fn release(&mut self, rank: Rank, tables: &RunTables, at_end: bool) {
        // (Taken out while its receives are paired, and put back with its buffer.)
        let Some(mut held) = self.held.get_mut(rank as usize).map(std::mem::take) else {
            return;
        };
        while let Some(front) = held.front_mut() {
            if front.awaits {
                let key = (rank, front.order.1);
                match self.awaiting.get(&key) {
                    Some(None) if !at_end => break,
                    Some(known) => front.matched = known.flatten(),
                    None => {}
                }
                self.awaiting.remove(&key);
            }
            let posted = held.pop_front().expect("a front");
            self.pair(rank, posted, tables);
        }
        self.held[rank as usize] = held;
    }

    /// A receive of `rank`, paired with the message it takes or waiting for it.
    fn pair(&mut self, rank: Rank, posted: Posted, tables: &RunTables) {
        let (source, tag) = match (posted.matched, posted.source) {
            (Some((s, t)), _) => (s, Some(t)),
            (None, Some(Source::Rank(s))) => (
                s,
                match posted.tag {
                    TagMatch::Tag(t) => Some(t),
                    TagMatch::Any => None,
                },
            ),
            _ => return,
        };
        let receive = Receive {
            order: posted.order,
            call: posted.call,
            count: posted.count,
            datatype: posted.datatype,
            comm: posted.comm,
            tag,
        };
        // Messages not taken yet are ones no waiting receive takes: a new receive takes the
        // first it can, or waits for the sends to come.
        let stream = self.streams.entry((source, rank, posted.comm)).or_default();
        match stream.take(tag) {
            Some(message) => self.judge(&message, &receive, tables),
            None => stream.waiting.push_back(receive),
        }
    }

    /// No match can come any more for the receive of `request` (completed by a wait, or
    /// freed): it is paired as it is when its turn comes. Whether it was a held receive's.
    fn settled(&mut self, rank: Rank, request: ReqId) -> bool {
        let Some(event) = self.awaiting_requests.remove(&(rank, request)) else {
            return false;
        };
        if let Some(known @ None) = self.awaiting.get_mut(&(rank, event)) {
            *known = Some(None);
        }
        true
    }

    /// A message and the receive that took it.
    fn judge(&mut self, message: &Message, receive: &Receive, tables: &RunTables) {
        let (sender, receiver) = (message.sender, receive.order.0);
        let (Some(sent), Some(room)) = (
            tables.typed(message.count, message.datatype),
            tables.typed(receive.count, receive.datatype),
        ) else {
            return;
        };
        let Some(why) = typesig::mismatch(&sent, &room, false) else {
            return;
        };
        let msg_tag = message.tag;
        let (info, message_text, recv_label, send_label) = match &why {
            Mismatch::TooShort { .. } => (
                &TY003,
                text!(
                    "receive too small: {} sends {sent} (tag {msg_tag}), {} posts {} for {room} ({why})",
                    ranks(sender),
                    ranks(receiver),
                    receive.call.name
                ),
                text!(
                    "has room for {room} only; the message from {} is {sent}",
                    ranks(sender)
                ),
                text!("sends {sent} to {}", ranks(receiver)),
            ),
            _ => (
                &TY002,
                text!(
                    "type signature mismatch: {} sends {sent} (tag {msg_tag}), {} receives it as {room} ({why})",
                    ranks(sender),
                    ranks(receiver)
                ),
                text!("receives {room} from {}, which sends {sent}", ranks(sender)),
                text!("sends {sent} to {}, which receives {room}", ranks(receiver)),
            ),
        };
        let key = (
            message.call.site.0,
            receive.call.site.0,
            format!("{}{}{}", info.code, sent, room),
        );
        let diagnostic = || Diagnostic {
            code: info.code,
            category: info.category,
            severity: info.severity,
            message: message_text,
            locations: vec![
                tables.location(receive.call.site, receiver, receive.call.name, recv_label),
                tables.location(message.call.site, sender, message.call.name, send_label),
            ],
            notes: vec![if info.code == "TY003" {
                "a message longer than the receive buffer is an overflow error (MPI 4.1 §3.2.4)"
                    .into()
            } else {
                "the type signature of a message must be a prefix of the receive's type signature (MPI 4.1 §3.3.1, §5.1.11)".into()
            }],
            help: Some(if info.code == "TY003" {
                "post the receive with room for the whole message (probe with MPI_Probe and MPI_Get_count if its length varies)".into()
            } else {
                "receive with the datatype the message was sent with, or one with the same type signature".into()
            }),
            wait_for: None,
            communicator: Some(
                tables
                    .comm(receive.comm)
                    .map(|c| c.name.to_string())
                    .unwrap_or_default(),
            ),
            tag: Some(msg_tag),
        };
        match self.found.entry(key) {
            Entry::Vacant(v) => {
                v.insert(Found {
                    first: receive.order,
                    diagnostic: diagnostic(),
                    occurrences: 1,
                });
            }
            Entry::Occupied(mut o) => {
                let found = o.get_mut();
                found.occurrences += 1;
                if receive.order < found.first {
                    // An earlier occurrence came late: its texts, the ranks so far.
                    let mut earlier = diagnostic();
                    for (loc, old) in earlier
                        .locations
                        .iter_mut()
                        .zip(&found.diagnostic.locations)
                    {
                        loc.ranks.union_with(&old.ranks);
                    }
                    found.first = receive.order;
                    found.diagnostic = earlier;
                } else {
                    // Fold the ranks that make the same mistake at the same two sites.
                    for (loc, rank) in found
                        .diagnostic
                        .locations
                        .iter_mut()
                        .zip([receiver, sender])
                    {
                        loc.ranks.insert(rank);
                    }
                }
            }
        }
    }
}

impl EventPass for MessageTypePass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        if !self.released.is_empty() {
            // (The list keeps its buffer for `matched` to fill again.)
            let mut released = std::mem::take(&mut self.released);
            for &rank in &released {
                self.release(rank, tables, false);
            }
            released.clear();
            self.released = released;
        }
        let call = Call {
            site: event.site,
            name: event.call,
        };
        match &event.op {
            Op::Send {
                blocking: Blocking::Persistent(req),
                ..
            }
            | Op::Recv {
                blocking: Blocking::Persistent(req),
                ..
            } => {
                self.inits.insert(
                    (rank, *req),
                    Init {
                        call,
                        op: event.op.clone(),
                    },
                );
            }
            Op::Start { requests } => {
                for (i, req) in requests.iter().enumerate() {
                    if let Some(init) = self.inits.get(&(rank, *req)) {
                        let (call, op) = (init.call, init.op.clone());
                        self.transfer(rank, (rank, index, i), call, &op, tables);
                    }
                }
            }
            Op::Wait {
                requests,
                completed,
                ..
            } => {
                let mut any = false;
                for r in crate::checks::request::completed_requests(requests, completed) {
                    any |= self.settled(rank, r);
                }
                if any {
                    self.release(rank, tables, false);
                }
            }
            Op::RequestFree { request } => {
                if self.settled(rank, *request) {
                    self.release(rank, tables, false);
                }
            }
            // (Calls that send and receive nothing, most, are not looked at further.)
            op => {
                if matches!(op, Op::Send { .. } | Op::Recv { .. } | Op::Sendrecv { .. }) {
                    self.transfer(rank, (rank, index, 0), call, op, tables)
                }
            }
        }
    }

    // The kinds `event` follows, and the waits and tests that a receive's late match
    // ([`EventPass::matched`]) comes just before: the receives it releases are paired there.
    fn wants(&self) -> Wants {
        Wants::only(&[
            EventKind::Send,
            EventKind::Recv,
            EventKind::Sendrecv,
            EventKind::Start,
            EventKind::Wait,
            EventKind::RequestStatus,
            EventKind::RequestFree,
        ])
    }

    fn matched(&mut self, rank: Rank, index: usize, matched: (Rank, i32)) {
        if let Some(known) = self.awaiting.get_mut(&(rank, index)) {
            *known = Some(Some(matched));
            self.released.push(rank);
        }
    }

    fn finish(mut self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        for rank in 0..self.held.len() {
            if !self.held[rank].is_empty() {
                self.release(rank as Rank, tables, true);
            }
        }
        let mut found: Vec<Found> = self.found.into_values().collect();
        found.sort_by_key(|f| f.first);
        found
            .into_iter()
            .map(|mut f| {
                let n = f.occurrences;
                if n > 1 {
                    f.diagnostic.notes.push(text!(
                        "the same mismatch occurs {n} times between these two calls"
                    ));
                }
                f.diagnostic
            })
            .collect()
    }
}

/// TY002 and TY003, from one pass that pairs messages with receives.
pub(crate) struct MessageTypeMismatch;

impl Check for MessageTypeMismatch {
    fn infos(&self) -> &'static [CheckInfo] {
        &[TY002, TY003]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<MessageTypePass>::default())
    }
}

/// What the pass holds (measurements): messages not taken and receives waiting.
#[cfg(test)]
impl MessageTypePass {
    pub fn held(&self) -> usize {
        self.streams
            .values()
            .map(|s| s.messages.len() + s.waiting.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::pass::interleave::same_in_every_order;
    use crate::ranks::RankSet;
    use crate::text_trace::parse;

    #[test]
    fn findings_do_not_depend_on_how_the_ranks_events_interleave() {
        // Ranks 1 and 3 make the same mistake at the same sites: one finding, whose texts
        // are rank 1's (the first receiver) even when rank 3's events come first. Rank 1's
        // receive of tag 6 takes the later send; its receive of any tag the earlier one,
        // also when both receives wait for the sends.
        let run = parse(
            "ranks 4
             0: send dest=1 tag=0 count=4 type=int @ p.c:10
             2: send dest=3 tag=0 count=4 type=int @ p.c:10
             1: recv src=0 tag=any count=16 type=byte @ p.c:20
             3: recv src=2 tag=0 count=16 type=byte @ p.c:20
             0: send dest=1 tag=5 count=8 type=int @ p.c:11
             0: send dest=1 tag=6 count=2 type=int @ p.c:12
             1: recv src=0 tag=6 count=1 type=int @ p.c:21
             1: recv src=0 tag=any count=8 type=float @ p.c:22
             *: finalize",
        )
        .unwrap();
        let found = same_in_every_order(&run, || Box::<MessageTypePass>::default());
        let summary: Vec<(&str, String, Vec<String>)> = found
            .iter()
            .map(|d| {
                (
                    d.code,
                    d.message.to_string(),
                    d.locations
                        .iter()
                        .map(|l| format!("{}@{}", l.ranks, l.line.unwrap_or(0)))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(summary.len(), 3, "{summary:#?}");
        assert_eq!(summary[0].0, "TY002");
        assert!(
            summary[0].1.starts_with(
                "type signature mismatch: rank 0 sends 4 × MPI_INT (tag 0), rank 1 receives"
            ),
            "{summary:#?}"
        );
        let ranks: Vec<&RankSet> = found[0].locations.iter().map(|l| &l.ranks).collect();
        assert_eq!(
            ranks,
            [&RankSet::new([1, 3]), &RankSet::new([0, 2])],
            "{summary:#?}"
        );
        assert!(found[0]
            .notes
            .iter()
            .any(|n| n.to_string().contains("occurs 2 times")));
        assert_eq!(
            (summary[1].0, found[1].tag),
            ("TY003", Some(6)),
            "{summary:#?}"
        );
        assert_eq!(
            (summary[2].0, found[2].tag),
            ("TY002", Some(5)),
            "{summary:#?}"
        );
        // The registry's runner gives the same.
        let by_registry: Vec<Diagnostic> = crate::checks::run_all(&run)
            .into_iter()
            .filter(|d| d.code == "TY002" || d.code == "TY003")
            .collect();
        assert_eq!(by_registry, found);
    }

    #[test]
    fn a_receive_waits_for_its_match_and_later_receives_wait_behind_it() {
        // Rank 2's wildcard irecv took rank 0's first message (the int), as its wait's
        // status shows; its blocking receive from rank 0 the second (the float): both
        // match. Paired before the irecv's match was known, the blocking receive would take
        // the int (TY002 at p.c:21). Rank 2's second wildcard irecv is never completed: its
        // own source and tag pair it at the end, with rank 1's message (TY003 at p.c:23);
        // the receive of rank 1's next message, posted after it, waits behind it (TY002
        // at p.c:24, not p.c:23's TY003 twice). Fed from the run, the matches are known at
        // the events; fed late (`same_in_every_order`), they come at the waits.
        let run = parse(
            "ranks 3
             0: send dest=2 tag=1 count=4 type=int @ p.c:10
             0: send dest=2 tag=1 count=4 type=float @ p.c:11
             1: send dest=2 tag=3 count=8 type=int @ p.c:12
             1: send dest=2 tag=3 count=2 type=int @ p.c:13
             2: irecv src=any tag=any count=4 type=int req=0 @ p.c:20
             2: recv src=0 tag=1 count=4 type=float @ p.c:21
             2: wait req=0 matched=0:1 @ p.c:22
             2: irecv src=1 tag=any count=4 type=int req=1 @ p.c:23
             2: recv src=1 tag=3 count=2 type=float @ p.c:24
             *: finalize",
        )
        .unwrap();
        let found = same_in_every_order(&run, || Box::<MessageTypePass>::default());
        let summary: Vec<(&str, u32)> = found
            .iter()
            .map(|d| (d.code, d.locations[0].line.unwrap_or(0)))
            .collect();
        assert_eq!(summary, [("TY003", 23), ("TY002", 24)], "{found:#?}");
    }

    #[test]
    fn a_receive_completed_without_a_status_is_paired_at_its_wait() {
        // A wildcard irecv whose wait ignored the status: paired by its own source and tag
        // once the wait shows no match will come, which frees the receives behind it.
        let run = parse(
            "ranks 2
             0: send dest=1 tag=1 count=4 type=int @ p.c:10
             0: send dest=1 tag=2 count=4 type=int @ p.c:11
             1: irecv src=0 tag=any count=4 type=int req=0 @ p.c:20
             1: wait req=0 @ p.c:21
             1: recv src=0 tag=2 count=4 type=float @ p.c:22
             *: finalize",
        )
        .unwrap();
        let found = same_in_every_order(&run, || Box::<MessageTypePass>::default());
        assert_eq!(
            found.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["TY002"],
            "{found:#?}"
        );
        // Fed rank 1 first, nothing waits once rank 1 is done: its wait released the
        // receives (they wait for rank 0's messages in their streams, not behind the irecv).
        let mut pass = MessageTypePass::default();
        let tables = RunTables::of(&run);
        for (i, event) in run.ranks[1].events.iter().enumerate() {
            pass.event(1, i, event, &tables);
        }
        assert!(pass.held.iter().all(VecDeque::is_empty) && pass.awaiting.is_empty());
        assert!(pass.awaiting_requests.is_empty());
    }
}
