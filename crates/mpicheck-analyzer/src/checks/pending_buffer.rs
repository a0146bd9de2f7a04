//! Loads and stores of the program into the buffer of a pending nonblocking send or receive
//! (DR002), as `mpicheck run --check-buffers` caught them ([`Run::buffer_accesses`]).

use super::{run_event_location, Check, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::*;
use crate::ranks::RankSet;

pub const DR002: CheckInfo = CheckInfo {
    code: "DR002",
    name: "pending-buffer-access",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "the program stores into the buffer of a pending nonblocking send, or loads or stores the buffer of a pending nonblocking receive, before the operation completes",
    docs: r#"## What it does

With `mpicheck run --check-buffers`, the memory pages of the buffer of every pending
`MPI_Isend`, `MPI_Issend`, `MPI_Ibsend`, `MPI_Irsend` and `MPI_Irecv` are protected while
no thread of the process is inside MPI, until a wait, test or `MPI_Request_free`
completes the request. An access by the program to the buffer's own bytes (not to its
neighbours on the same page) is reported with the instruction that made it, resolved to
file and line, the thread, and the call that started the operation. Stores into a send
buffer are reported, loads from it are not (MPI allows them); both loads and stores of a
receive buffer are, except loads on the receive buffer's first and last page, which stay
readable so that the program's system calls on neighbouring data keep working. Buffers
with a non-contiguous datatype, on a thread's stack, or in memory other than a private
read-write mapping are not watched. The first access to each buffer is reported.

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
(communication completion), §11.6.2 (the same across threads).
"#,
};

pub(crate) struct PendingBufferAccess;

impl Check for PendingBufferAccess {
    fn infos(&self) -> &'static [CheckInfo] {
        &[DR002]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx.run)
    }
}

/// The call that started the pending operation: the latest nonblocking send or receive
/// before the access whose buffer starts at the watched bytes (any of the right direction
/// when the call's buffers are unknown).
fn posting_event<'r>(run: &'r Run, access: &BufferAccess) -> Option<&'r Event> {
    let events = &run.ranks.get(access.rank as usize)?.events;
    let before = &events[..(access.events_before as usize).min(events.len())];
    let right_kind = |e: &&Event| {
        matches!(
            (&e.op, access.recv),
            (
                Op::Send {
                    blocking: Blocking::Nonblocking(_),
                    ..
                },
                false
            ) | (
                Op::Recv {
                    blocking: Blocking::Nonblocking(_),
                    ..
                },
                true
            )
        )
    };
    let same_buffer = |e: &&Event| e.buffers().iter().any(|b| b.start == access.start);
    before
        .iter()
        .rev()
        .filter(right_kind)
        .find(same_buffer)
        .or_else(|| before.iter().rev().find(right_kind))
}

fn check(run: &Run) -> Vec<Diagnostic> {
    run.buffer_accesses
        .iter()
        .map(|access| {
            let post = posting_event(run, access);
            let call = post.map_or(if access.recv { "MPI_Irecv" } else { "MPI_Isend" }, |e| e.call);
            let (noun, verb) = if access.write {
                ("store into", "stores into")
            } else {
                ("load from", "loads from")
            };
            let what = if access.recv { "receive" } else { "send" };
            let thread = match (access.thread, post.map(|e| e.thread)) {
                (Some(t), Some(p)) if t == p => "the thread that started it".to_string(),
                (Some(t), _) => format!("thread {t}"),
                (None, _) => "a thread that made no MPI call".to_string(),
            };
            let offset = access.address.wrapping_sub(access.start);
            let message = format!(
                "{noun} byte {offset} of the {len}-byte buffer of a pending {call} by {thread}, before the {what} completed",
                len = access.len
            );
            let site = run.site(access.site);
            let mut locations = vec![Location {
                ranks: RankSet::one(access.rank),
                call: if access.write { "store" } else { "load" }.to_string(),
                file: site.file.clone(),
                line: site.line,
                function: site.function.clone(),
                object: site.object.clone(),
                offset: site.offset,
                label: format!("{verb} the pending {what} buffer").into(),
            }];
            let started = format!("starts the {what} with this buffer");
            if let Some(event) = post {
                locations.push(run_event_location(run, vec![access.rank], event, started));
            } else if access.post_site != SiteId(0) {
                let s = run.site(access.post_site);
                locations.push(Location {
                    ranks: RankSet::one(access.rank),
                    call: call.to_string(),
                    file: s.file.clone(),
                    line: s.line,
                    function: s.function.clone(),
                    object: s.object.clone(),
                    offset: s.offset,
                    label: started.into(),
                });
            }
            Diagnostic {
                code: DR002.code,
                category: DR002.category,
                severity: DR002.severity,
                message: message.into(),
                locations,
                notes: vec![format!(
                    "until a wait or test completes it, MPI may {} the buffer at any moment (MPI 4.1 §3.7.2)",
                    if access.recv { "write" } else { "read" }
                )
                .into()],
                help: Some(if access.recv {
                    "complete the request (MPI_Wait, or MPI_Test returning true) before reading or writing the receive buffer".into()
                } else {
                    "complete the request (MPI_Wait, or MPI_Test returning true) before modifying the send buffer; reading it is allowed".into()
                }),
                wait_for: None,
            }
        })
        .collect()
}
