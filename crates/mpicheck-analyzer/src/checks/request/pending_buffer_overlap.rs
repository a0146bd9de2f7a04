//! Buffers shared by outstanding nonblocking operations where MPI forbids it (BF001).

use rustc_hash::FxHashMap;

use super::freed::Proofs;
use super::Call;
use crate::checks::few_map::FewMap;
use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Blocking, BufferSpan, Event, Op, Rank, ReqId, SiteId};

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

/// An operation whose buffers MPI still owns.
struct PendingOp {
    /// The call that started it, by index in its rank.
    event: usize,
    call: Call,
    spans: Spans,
    /// Freed while pending, at this call: it stays pending until the call after the one
    /// that shows the program its receive completed (a send's proof, known at the end), or
    /// for good when nothing does.
    freed: bool,
}

/// A pending operation's buffers: most have one, held without an allocation of its own.
enum Spans {
    One(BufferSpan),
    Many(Box<[BufferSpan]>),
}

impl Spans {
    fn of(spans: &[BufferSpan]) -> Spans {
        match spans {
            [one] => Spans::One(one.clone()),
            _ => Spans::Many(spans.into()),
        }
    }

    fn as_slice(&self) -> &[BufferSpan] {
        match self {
            Spans::One(span) => std::slice::from_ref(span),
            Spans::Many(spans) => spans,
        }
    }
}

type Pending = FewMap<ReqId, PendingOp>;

fn request_of(event: &Event) -> Option<Blocking> {
    match &event.op {
        Op::Send { blocking, .. } | Op::Recv { blocking, .. } | Op::Sendrecv { blocking, .. } => {
            Some(*blocking)
        }
        _ => None,
    }
}

/// Whether one of `spans` overlaps a buffer of a pending operation where either side
/// writes: whether [`conflicts`] finds any.
fn clashes(spans: &[BufferSpan], pending: &Pending) -> bool {
    pending.values().any(|op| {
        op.spans.as_slice().iter().any(|t| {
            spans
                .iter()
                .any(|ours| ours.overlaps(t) && (ours.write || t.write))
        })
    })
}

/// One conflict: the pending operation's request, whether it was freed, and the finding.
struct Conflict {
    request: ReqId,
    freed: bool,
    message: String,
    label: String,
}

/// The conflicts of `spans` with pending operations, earliest pending operation first, up
/// to the first one that was not freed: the finding is the first whose operation is still
/// pending (a freed one may turn out to have completed before).
fn conflicts(
    at: &Event,
    spans: &[BufferSpan],
    pending: &Pending,
    tables: &RunTables,
) -> Vec<Conflict> {
    // For each pending operation, its first overlap with a write on either side.
    let mut found: Vec<(usize, ReqId, &PendingOp, &BufferSpan, &BufferSpan)> = Vec::new();
    for (request, op) in pending.iter() {
        let first = op.spans.as_slice().iter().find_map(|t| {
            spans
                .iter()
                .find(|ours| ours.overlaps(t) && (ours.write || t.write))
                .map(|ours| (t, ours))
        });
        if let Some((theirs, ours)) = first {
            found.push((op.event, *request, op, theirs, ours));
        }
    }
    found.sort_unstable_by_key(|&(event, request, ..)| (event, request.0));
    let upto = found
        .iter()
        .position(|(_, _, op, ..)| !op.freed)
        .map_or(found.len(), |p| p + 1);
    found
        .into_iter()
        .take(upto)
        .map(|(_, request, op, theirs, ours)| {
            let other = op.call.name;
            let line = where_pending(tables, op.call.site, at.site);
            let what = if theirs.write {
                "a receive still pending"
            } else {
                "a send still pending"
            };
            Conflict {
                request,
                freed: op.freed,
                message: format!("{} uses memory of {what} from {other}{line}", at.call),
                label: format!(
                    "{} overlaps the {} of the pending {other}",
                    ours.param, theirs.param
                ),
            }
        })
        .collect()
}

/// Where the pending call was made, as the message can say it: its line, else (in code
/// without debug info, where both calls show as one object and offset) that it was made at
/// the same place as the later call, or in which function.
fn where_pending(tables: &RunTables, pending: SiteId, later: SiteId) -> String {
    let site = tables.site(pending);
    match (site.line, &site.function) {
        (Some(line), _) => format!(" (line {line})"),
        _ if pending == later && pending.0 != 0 => " made at the same place earlier".to_string(),
        (None, Some(function)) => format!(" in `{function}`"),
        (None, None) => String::new(),
    }
}

/// The buffers of one rank's pending operations.
#[derive(Default)]
pub(super) struct BufferWalk {
    pending: Pending,
    /// Persistent requests' buffers, pending from each start.
    persistent: FxHashMap<ReqId, Vec<BufferSpan>>,
}

/// A finding that depends on whether freed sends were known complete by then.
struct Conditional {
    rank: Rank,
    call: Call,
    /// The event of the rank the finding is at.
    at: usize,
    conflicts: Vec<Conflict>,
}

/// What the walks found: findings, and findings that depend on freed sends' proofs.
#[derive(Default)]
pub(super) struct Overlaps {
    found: SiteFindings,
    conditional: Vec<Conditional>,
}

impl Overlaps {
    fn add(&mut self, rank: Rank, at: usize, event: &Event, mut conflicts: Vec<Conflict>) {
        match conflicts.first() {
            None => {}
            Some(c) if !c.freed => {
                let c = conflicts.swap_remove(0);
                self.found.add(rank, event, c.message, c.label);
            }
            Some(_) => self.conditional.push(Conditional {
                rank,
                call: Call::of(event),
                at,
                conflicts,
            }),
        }
    }

    /// The findings, once `proofs` tell when each freed send was known complete: a freed
    /// operation stays pending up to the call that proves it complete, and for good when
    /// nothing does.
    pub(super) fn diagnostics(mut self, proofs: &Proofs, tables: &RunTables) -> Vec<Diagnostic> {
        for c in self.conditional {
            let rank = c.rank;
            let still_pending = |x: &Conflict| {
                !x.freed
                    || proofs
                        .get(&(rank, x.request))
                        .is_none_or(|&proven| proven >= c.at)
            };
            if let Some(x) = c.conflicts.into_iter().find(still_pending) {
                self.found
                    .add_at(rank, c.call.site, c.call.name, x.message, x.label);
            }
        }
        self.found.diagnostics(
            tables,
            &BF001,
            &["until a nonblocking operation completes, its receive buffer must not be accessed and its send buffer must not be modified (MPI 4.1 §3.7.2)"],
            "use separate memory for each outstanding operation, or wait for the pending one before reusing its buffer",
        )
    }
}

impl BufferWalk {
    /// Whether no operation's buffers are pending.
    pub(super) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The rank's next event, `i` its index.
    #[inline]
    pub(super) fn event(
        &mut self,
        rank: Rank,
        i: usize,
        event: &Event,
        tables: &RunTables,
        found: &mut Overlaps,
    ) {
        let spans = event.buffers();
        // (A call without buffers overlaps none; nearly always none overlaps: seen before
        // the list of conflicts is built.)
        if !self.pending.is_empty() && !spans.is_empty() && clashes(spans, &self.pending) {
            found.add(
                rank,
                i,
                event,
                conflicts(event, spans, &self.pending, tables),
            );
        }
        match (&event.op, request_of(event)) {
            (_, Some(Blocking::Nonblocking(r))) if !spans.is_empty() => {
                self.pending.insert(
                    r,
                    PendingOp {
                        event: i,
                        call: Call::of(event),
                        spans: Spans::of(spans),
                        freed: false,
                    },
                );
            }
            (_, Some(Blocking::Persistent(r))) if !spans.is_empty() => {
                self.persistent.insert(r, spans.to_vec());
            }
            (Op::Start { requests }, _) => {
                for r in requests {
                    if let Some(spans) = self.persistent.get(r) {
                        found.add(
                            rank,
                            i,
                            event,
                            conflicts(event, spans, &self.pending, tables),
                        );
                        self.pending.insert(
                            *r,
                            PendingOp {
                                event: i,
                                call: Call::of(event),
                                spans: Spans::of(spans),
                                freed: false,
                            },
                        );
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
                for r in super::completed_requests(requests, completed) {
                    self.pending.remove(&r);
                }
            }
            (Op::RequestFree { request }, _) => {
                self.persistent.remove(request);
                if let Some(op) = self.pending.get_mut(request) {
                    op.freed = true;
                }
            }
            (Op::Finalize, _) => {
                self.pending.clear();
                self.persistent.clear();
            }
            _ => {}
        }
    }
}
