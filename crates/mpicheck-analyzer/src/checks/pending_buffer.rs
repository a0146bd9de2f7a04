//! Loads and stores of the program into the buffer of a pending nonblocking send or receive,
//! started persistent request, nonblocking collective or RMA operation (DR002), as `mpicheck
//! run --check-buffers` caught them ([`Run::buffer_accesses`]).

use super::{run_event_location, Check, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::*;
use crate::ranks::RankSet;

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
access to each buffer is reported.

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
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx.run)
    }
}

/// The call that started the pending operation: the latest call before the access at the
/// site the recorder gave; without one, the latest nonblocking send or receive, or start of
/// a persistent one, whose buffer starts at the watched bytes (any of the right direction
/// when the call's buffers are unknown).
fn posting_event<'r>(run: &'r Run, access: &BufferAccess) -> Option<(usize, &'r Event)> {
    let events = &run.ranks.get(access.rank as usize)?.events;
    let before = &events[..(access.events_before as usize).min(events.len())];
    if access.post_site != SiteId(0) {
        if let Some(found) = before
            .iter()
            .enumerate()
            .rev()
            .find(|(_, e)| e.site == access.post_site)
        {
            return Some(found);
        }
    }
    let right_kind = |e: &&Event| match &e.op {
        Op::Start { requests } => requests
            .iter()
            .any(|r| persistent_init(before, *r, access).is_some()),
        op => starts_direction(op, access.recv, false),
    };
    let same_buffer = |e: &&Event| match &e.op {
        Op::Start { .. } => true,
        _ => has_buffer(e, access),
    };
    let found = before
        .iter()
        .rposition(|e| right_kind(&e) && same_buffer(&e))
        .or_else(|| before.iter().rposition(|e| right_kind(&e)))?;
    Some((found, &before[found]))
}

fn starts_direction(op: &Op, recv: bool, persistent: bool) -> bool {
    let started = |b: &Blocking| match b {
        Blocking::Nonblocking(_) => !persistent,
        Blocking::Persistent(_) => persistent,
        _ => false,
    };
    match op {
        Op::Send { blocking, .. } => !recv && started(blocking),
        Op::Recv { blocking, .. } => recv && started(blocking),
        _ => false,
    }
}

fn has_buffer(e: &Event, access: &BufferAccess) -> bool {
    e.buffers().iter().any(|b| b.start == access.start)
}

/// The `MPI_Send_init`/`MPI_Recv_init`... that made the persistent request `req`, when it
/// moves data in the access's direction and its buffer (if known) is the watched one.
fn persistent_init<'r>(
    before: &'r [Event],
    req: ReqId,
    access: &BufferAccess,
) -> Option<&'r Event> {
    before.iter().rev().find(|e| {
        let made = match &e.op {
            Op::Send { blocking, .. } | Op::Recv { blocking, .. } => {
                *blocking == Blocking::Persistent(req)
            }
            _ => false,
        };
        made && starts_direction(&e.op, access.recv, true)
            && (e.buffers().is_empty() || has_buffer(e, access))
    })
}

/// How the message names the pending operation: its call, or for a started persistent
/// request the call that made it.
fn operation_name(run: &Run, access: &BufferAccess, post: &Event) -> String {
    let Op::Start { requests } = &post.op else {
        return post.call.to_string();
    };
    let events = &run.ranks[access.rank as usize].events;
    let before = &events[..(access.events_before as usize).min(events.len())];
    match requests
        .iter()
        .find_map(|r| persistent_init(before, *r, access))
    {
        Some(init) => format!("{} request (started by {})", init.call, post.call),
        None => format!("persistent request (started by {})", post.call),
    }
}

fn check(run: &Run) -> Vec<Diagnostic> {
    run.buffer_accesses
        .iter()
        .map(|access| {
            let posted = posting_event(run, access);
            let post = posted.map(|(_, e)| e);
            let call = post.map_or(
                if access.recv { "MPI_Irecv" } else { "MPI_Isend" }.to_string(),
                |e| operation_name(run, access, e),
            );
            let (noun, verb) = if access.write {
                ("store into", "stores into")
            } else {
                ("load from", "loads from")
            };
            // An RMA origin buffer (MPI_Put, MPI_Rput...): completed by a request or by the
            // epoch's synchronization, not by a matching receive.
            let rma = posted.is_some_and(|(i, _)| {
                run.rma.get(&(access.rank, i as u32)).is_some_and(|c| matches!(c.kind, RmaKind::Access(_)))
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
            let thread = match (access.thread, post.map(|e| e.thread)) {
                (Some(t), Some(p)) if t == p => "the thread that started it".to_string(),
                (Some(t), _) => format!("thread {t}"),
                (None, _) => "a thread that made no MPI call".to_string(),
            };
            let offset = access.address.wrapping_sub(access.start);
            let message = format!(
                "{noun} byte {offset} of the {len}-byte buffer of a pending {call} by {thread}, before {until}",
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
                    call: call.clone(),
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
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
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
        check(&parse(&text).unwrap_or_else(|e| panic!("{e}")))
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
