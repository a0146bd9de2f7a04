//! TY002 and TY003: a point-to-point message and the receive that takes it disagree in type
//! signature (TY002), or the receive is too small for the message (TY003).
//!
//! Messages are paired with receives the way MPI matches them: per sender, receiver,
//! communicator and tag in order (non-overtaking), using the source and tag the receive's
//! status reported when it completed, and its own source and tag when it did not (a receive
//! that crashed on a truncation error never returns).

use crate::checks::Check;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::typed;
use crate::checks::{event_location, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{
    Blocking, CommId, Event, Op, Rank, RecvSpec, ReqId, SendSpec, Source, TagMatch,
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

struct Message<'r> {
    tag: i32,
    sender: Rank,
    event: &'r Event,
    spec: &'r SendSpec,
    taken: bool,
}

/// The persistent operations of one rank by request: the `MPI_Send_init`/`MPI_Recv_init`
/// events whose messages each `MPI_Start` of them sends or receives.
fn persistent_inits(events: &[Event]) -> HashMap<ReqId, &Event> {
    events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Send {
                blocking: Blocking::Persistent(req),
                ..
            }
            | Op::Recv {
                blocking: Blocking::Persistent(req),
                ..
            } => Some((*req, e)),
            _ => None,
        })
        .collect()
}

/// The operations an event starts, each with the event that describes it: itself, or for
/// `MPI_Start`/`MPI_Startall` the persistent requests' init calls (a persistent init
/// itself moves nothing).
/// (An iterator, not a vector: the check asks this of every event of the run.)
fn started<'r, 'i>(
    event: &'r Event,
    inits: &'i HashMap<ReqId, &'r Event>,
) -> impl Iterator<Item = &'r Event> + 'i
where
    'r: 'i,
{
    let (itself, starts): (Option<&'r Event>, &'r [ReqId]) = match &event.op {
        Op::Start { requests } => (None, requests),
        Op::Send {
            blocking: Blocking::Persistent(_),
            ..
        }
        | Op::Recv {
            blocking: Blocking::Persistent(_),
            ..
        } => (None, &[]),
        _ => (Some(event), &[]),
    };
    itself
        .into_iter()
        .chain(starts.iter().filter_map(move |r| inits.get(r).copied()))
}

fn send_of(event: &Event) -> Option<&SendSpec> {
    match &event.op {
        Op::Send { send, .. } => Some(send),
        Op::Sendrecv { send, .. } => Some(send),
        _ => None,
    }
}

fn recv_of(event: &Event) -> Option<&RecvSpec> {
    match &event.op {
        Op::Recv { recv, .. } => Some(recv),
        Op::Sendrecv { recv, .. } => Some(recv),
        _ => None,
    }
}

fn check(ctx: &Context) -> Vec<Diagnostic> {
    let run = ctx.run;
    // (sender, receiver, comm) → messages in send order.
    let mut streams: HashMap<(Rank, Rank, CommId), VecDeque<Message>> = HashMap::new();
    for trace in &run.ranks {
        let inits = persistent_inits(&trace.events);
        for event in trace.events.iter().flat_map(|e| started(e, &inits)) {
            let Some(send) = send_of(event) else { continue };
            let Some(dest) = send.dest else { continue };
            streams
                .entry((trace.rank, dest, send.comm))
                .or_default()
                .push_back(Message {
                    tag: send.tag,
                    sender: trace.rank,
                    event,
                    spec: send,
                    taken: false,
                });
        }
    }
    let mut out: Vec<Diagnostic> = Vec::new();
    // One finding per pair of call sites and problem.
    let mut seen: HashSet<(u32, u32, String)> = HashSet::new();
    let mut repeats: BTreeMap<usize, u32> = BTreeMap::new();
    let mut index_of: HashMap<(u32, u32, String), usize> = HashMap::new();
    for trace in &run.ranks {
        let inits = persistent_inits(&trace.events);
        for recv_event in trace.events.iter().flat_map(|e| started(e, &inits)) {
            let Some(recv) = recv_of(recv_event) else {
                continue;
            };
            // The status of a persistent receive is that of its last completion only: each
            // start is judged by the source and tag it was posted with.
            let persistent = matches!(
                recv_event.op,
                Op::Recv {
                    blocking: Blocking::Persistent(_),
                    ..
                }
            );
            let matched = if persistent { None } else { recv.matched };
            let (source, tag) = match (matched, recv.source) {
                (Some((s, t)), _) => (s, Some(t)),
                (None, Some(Source::Rank(s))) => (
                    s,
                    match recv.tag {
                        TagMatch::Tag(t) => Some(t),
                        TagMatch::Any => None,
                    },
                ),
                _ => continue,
            };
            let Some(stream) = streams.get_mut(&(source, trace.rank, recv.comm)) else {
                continue;
            };
            let Some(message) = stream
                .iter_mut()
                .find(|m| !m.taken && tag.is_none_or(|t| t == m.tag))
            else {
                continue;
            };
            message.taken = true;
            // Copy what the finding needs before the stream is trimmed.
            let (sender, send_event, send_spec, msg_tag) =
                (message.sender, message.event, message.spec, message.tag);
            while stream.front().is_some_and(|m| m.taken) {
                stream.pop_front();
            }
            let (Some(sent), Some(room)) = (
                typed(
                    run,
                    &crate::model::BufSpec {
                        count: send_spec.count,
                        datatype: send_spec.datatype,
                    },
                ),
                typed(
                    run,
                    &crate::model::BufSpec {
                        count: recv.count,
                        datatype: recv.datatype,
                    },
                ),
            ) else {
                continue;
            };
            let Some(why) = typesig::mismatch(&sent, &room, false) else {
                continue;
            };
            let (info, message_text, recv_label, send_label) = match &why {
                Mismatch::TooShort { .. } => (
                    &TY003,
                    text!(
                        "receive too small: {} sends {sent} (tag {msg_tag}), {} posts {} for {room} ({why})",
                        ranks(sender),
                        ranks(trace.rank),
                        recv_event.call
                    ),
                    text!(
                        "has room for {room} only; the message from {} is {sent}",
                        ranks(sender)
                    ),
                    text!("sends {sent} to {}", ranks(trace.rank)),
                ),
                _ => (
                    &TY002,
                    text!(
                        "type signature mismatch: {} sends {sent} (tag {msg_tag}), {} receives it as {room} ({why})",
                        ranks(sender),
                        ranks(trace.rank)
                    ),
                    text!(
                        "receives {room} from {}, which sends {sent}",
                        ranks(sender)
                    ),
                    text!(
                        "sends {sent} to {}, which receives {room}",
                        ranks(trace.rank)
                    ),
                ),
            };
            let key = (
                send_event.site.0,
                recv_event.site.0,
                format!("{}{}{}", info.code, sent, room),
            );
            if !seen.insert(key.clone()) {
                if let Some(&i) = index_of.get(&key) {
                    *repeats.entry(i).or_insert(1) += 1;
                    // Fold the ranks that make the same mistake at the same two sites.
                    for (loc, rank) in out[i].locations.iter_mut().zip([trace.rank, sender]) {
                        loc.ranks.insert(rank);
                    }
                }
                continue;
            }
            index_of.insert(key, out.len());
            out.push(Diagnostic {
                code: info.code,
                category: info.category,
                severity: info.severity,
                message: message_text,
                locations: vec![
                    event_location(ctx, vec![trace.rank], recv_event, recv_label),
                    event_location(ctx, vec![sender], send_event, send_label),
                ],
                notes: vec![if info.code == "TY003" {
                    "a message longer than the receive buffer is an overflow error (MPI 4.1 §3.2.4)".into()
                } else {
                    "the type signature of a message must be a prefix of the receive's type signature (MPI 4.1 §3.3.1, §5.1.11)".into()
                }],
                help: Some(if info.code == "TY003" {
                    "post the receive with room for the whole message (probe with MPI_Probe and MPI_Get_count if its length varies)".into()
                } else {
                    "receive with the datatype the message was sent with, or one with the same type signature".into()
                }),
                wait_for: None,
                communicator: Some(run.comm(recv.comm).name.clone()),
                tag: Some(msg_tag),
            });
        }
    }
    for (i, n) in repeats {
        out[i].notes.push(text!(
            "the same mismatch occurs {n} times between these two calls"
        ));
    }
    out
}

/// TY002, TY003.
pub(crate) struct MessageTypeMismatch;

impl Check for MessageTypeMismatch {
    fn infos(&self) -> &'static [CheckInfo] {
        &[TY002, TY003]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx)
    }
}
