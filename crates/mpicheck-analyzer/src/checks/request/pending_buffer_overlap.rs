//! Buffers shared by outstanding nonblocking operations where MPI forbids it (BF001).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::fold_by_site;
use super::freed::Proofs;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Blocking, BufferSpan, Event, Op, ReqId, Run};

pub const BF001: CheckInfo = CheckInfo {
    code: "BF001",
    name: "pending-buffer-overlap",
    category: Category::RequestLifecycle,
    severity: Severity::Error,
    summary: "a call uses memory that an outstanding nonblocking operation may still write, or writes memory an outstanding send still reads",
    docs: r#"## What it does

Follows the buffers of nonblocking point-to-point operations (and started persistent
requests) from the call that starts them to their completion (a wait or test reporting
it, or for a send whose request was freed, the first call after which the program knows
its receive completed: a reply, a barrier after the receive), as byte ranges: address,
count and the datatype's extent. A later call on the same rank whose buffer overlaps
one of them is reported when either side writes: a receive into memory a pending
receive or send owns, or a send from memory a pending receive is filling. Sends reading
the same memory are fine (MPI 3.0 and later). Datatypes with holes are not judged (their
byte range overstates what MPI touches).

## Why is this bad

Until the operation completes, MPI owns its buffer: a pending receive may write any of
its bytes at any time, and a pending send may read its bytes at any time. Two receives
into the same bytes leave a result that depends on timing; receiving into a buffer that
is still being sent corrupts the outgoing message.

## Example

```c
MPI_Irecv(buf,     8, MPI_INT, 0, 0, comm, &r[0]);
MPI_Irecv(buf + 4, 8, MPI_INT, 1, 0, comm, &r[1]);   /* bytes 16..31 are in both */
MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
```

## How to fix

Give each outstanding operation its own memory, or complete the first operation
(`MPI_Wait`) before starting the next one on the same bytes.

## MPI standard reference

MPI 4.1 §3.7.2 (communication initiation: the send buffer must not be modified and the
receive buffer must not be accessed until the operation completes), §3.7.3.
"#,
};

type Pending = HashMap<ReqId, (usize, Vec<BufferSpan>)>;

fn request_of(event: &Event) -> Option<Blocking> {
    match &event.op {
        Op::Send { blocking, .. } | Op::Recv { blocking, .. } | Op::Sendrecv { blocking, .. } => {
            Some(*blocking)
        }
        _ => None,
    }
}

/// The first conflict of `spans` with a pending operation: (pending event, its span, ours).
fn conflict<'p>(
    spans: &'p [BufferSpan],
    pending: &'p Pending,
) -> Option<(usize, &'p BufferSpan, &'p BufferSpan)> {
    let mut found: Option<(usize, &BufferSpan, &BufferSpan)> = None;
    for (event, theirs) in pending.values() {
        for t in theirs {
            for ours in spans {
                if ours.overlaps(t) && (ours.write || t.write) {
                    // The earliest pending operation, for a stable report.
                    if found.is_none_or(|(e, _, _)| *event < e) {
                        found = Some((*event, t, ours));
                    }
                }
            }
        }
    }
    found
}

/// Where the pending call was made, as the message can say it: its line, else (in code
/// without debug info, where both calls show as one object and offset) that it was made at
/// the same place as the later call, or in which function.
fn where_pending(run: &Run, pending: &Event, later: &Event) -> String {
    let site = run.site(pending.site);
    match (site.line, &site.function) {
        (Some(line), _) => format!(" (line {line})"),
        _ if pending.site == later.site && pending.site.0 != 0 => {
            " made at the same place earlier".to_string()
        }
        (None, Some(function)) => format!(" in `{function}`"),
        (None, None) => String::new(),
    }
}

pub(super) fn diagnostics(run: &Run, proofs: &Proofs) -> Vec<Diagnostic> {
    let mut items = Vec::new();
    for trace in &run.ranks {
        let mut pending: Pending = HashMap::new();
        // Freed sends, pending until the event after the one that proves them complete.
        let mut freed: BinaryHeap<Reverse<(usize, ReqId)>> = BinaryHeap::new();
        let mut persistent: HashMap<ReqId, (usize, Vec<BufferSpan>)> = HashMap::new();
        let mut report = |at: usize, (with, theirs, ours): (usize, &BufferSpan, &BufferSpan)| {
            let other = trace.events[with].call;
            let line = where_pending(run, &trace.events[with], &trace.events[at]);
            let what = if theirs.write {
                "a receive still pending"
            } else {
                "a send still pending"
            };
            items.push((
                trace.rank,
                at,
                format!(
                    "{} uses memory of {what} from {other}{line}",
                    trace.events[at].call
                ),
                format!(
                    "{} overlaps the {} of the pending {other}",
                    ours.param, theirs.param
                ),
            ));
        };
        for (i, event) in trace.events.iter().enumerate() {
            while let Some(&Reverse((proven, r))) = freed.peek() {
                if proven >= i {
                    break;
                }
                freed.pop();
                pending.remove(&r);
            }
            let spans = event.buffers();
            if let Some(c) = conflict(spans, &pending) {
                report(i, c);
            }
            match (&event.op, request_of(event)) {
                (_, Some(Blocking::Nonblocking(r))) if !spans.is_empty() => {
                    pending.insert(r, (i, spans.to_vec()));
                }
                (_, Some(Blocking::Persistent(r))) if !spans.is_empty() => {
                    persistent.insert(r, (i, spans.to_vec()));
                }
                (Op::Start { requests }, _) => {
                    for r in requests {
                        if let Some((_, spans)) = persistent.get(r) {
                            if let Some(c) = conflict(spans, &pending) {
                                report(i, c);
                            }
                            pending.insert(*r, (i, spans.clone()));
                        }
                    }
                }
                (
                    Op::Wait {
                        requests,
                        completed,
                        ..
                    }
                    | Op::RequestStatus {
                        requests,
                        completed,
                        ..
                    },
                    _,
                ) => {
                    for &index in completed.iter().flatten() {
                        if let Some(Some(r)) = requests.get(index as usize) {
                            pending.remove(r);
                        }
                    }
                }
                (Op::RequestFree { request }, _) => {
                    persistent.remove(request);
                    if let Some(&proven) = proofs.get(&(trace.rank, *request)) {
                        if pending.contains_key(request) {
                            freed.push(Reverse((proven.max(i), *request)));
                        }
                    }
                }
                (Op::Finalize, _) => {
                    pending.clear();
                    persistent.clear();
                }
                _ => {}
            }
        }
    }
    fold_by_site(
        run,
        items,
        &BF001,
        &["until a nonblocking operation completes, its receive buffer must not be accessed and its send buffer must not be modified (MPI 4.1 §3.7.2)"],
        "use separate memory for each outstanding operation, or wait for the pending one before reusing its buffer",
    )
}
