//! TH004: a probed message can be received by another thread's receive.

use std::collections::HashMap;

use super::{on_thread, severity, Findings, RankThreads, Role, When};
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{CommId, Op, RecvSpec, Source, TagMatch};

pub const TH004: CheckInfo = CheckInfo {
    code: "TH004",
    name: "probe-stolen-by-thread",
    category: Category::ThreadSafety,
    severity: Severity::Warning,
    summary: "a message found by MPI_Probe/MPI_Iprobe can be received by another thread's receive",
    docs: r#"## What it does

For every `MPI_Probe` / `MPI_Iprobe` that found a message, takes the probed source, tag and
communicator, and the probing thread's next receive that accepts them (the receive the
probe prepares). Reports a receive of another thread that accepts the same source and tag
on the same communicator and that is not ordered before the probe or after that receive:
it ran at the same time as the probe (the seed's form A), between the probe and the
receive (B), or at the same time as the receive (C), in this run, or can do so in another
run because no synchronization orders it. Both call sites are reported.

## Why is this bad

The probing thread sizes its buffer or chooses its receive from the probed envelope; if
another thread's receive takes that message first, the probing thread receives a different
message (wrong size: truncation error) or blocks forever.

## Example

```c
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 0) {
        MPI_Probe(1, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(other, 100, MPI_INT, 1, 0, MPI_COMM_WORLD, &st); /* can steal it */
    }
}
```

## How to fix

Use `MPI_Mprobe` / `MPI_Mrecv` (the matched message is removed from matching), give each
thread its own communicator, or make probe and receive one critical section that the other
threads' receives also take.

## MPI standard reference

MPI 4.1 §3.8.2 and §11.6.2 ("A receive call that uses source and tag values returned by a
preceding call to `MPI_PROBE` or `MPI_IPROBE` will receive the message matched by the probe
call only if there was no other matching receive after the probe and before that receive.
In a multithreaded environment, it is up to the user to enforce this condition").
"#,
};

/// What a receive accepts: its communicator and pattern.
fn recv_spec(op: &Op) -> Option<&RecvSpec> {
    match op {
        Op::Recv { recv, .. } | Op::Sendrecv { recv, .. } => Some(recv),
        _ => None,
    }
}

fn accepts(recv: &RecvSpec, comm: CommId, source: u32, tag: i32) -> bool {
    recv.comm == comm
        && match recv.source {
            Some(Source::Any) => true,
            Some(Source::Rank(r)) => r == source,
            None => false,
        }
        && match recv.tag {
            TagMatch::Any => true,
            TagMatch::Tag(t) => t == tag,
        }
}

pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    let events = &t.rank.events;
    let mut receives: HashMap<CommId, Vec<usize>> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if let Some(spec) = recv_spec(&e.op) {
            receives.entry(spec.comm).or_default().push(i);
        }
    }
    for (p, pe) in events.iter().enumerate() {
        let Op::Probe {
            comm,
            matched_probe: false,
            found,
            matched: Some((source, tag)),
            ..
        } = pe.op
        else {
            continue;
        };
        if found == Some(false) {
            continue;
        }
        // The probing thread's receive of the probed message.
        let own = events
            .iter()
            .enumerate()
            .skip(p + 1)
            .find(|(_, e)| {
                e.thread == pe.thread
                    && recv_spec(&e.op).is_some_and(|r| accepts(r, comm, source, tag))
            })
            .map(|(i, _)| i);
        for &r in receives.get(&comm).map_or(&[][..], Vec::as_slice) {
            let re = t.event(r);
            if re.thread == pe.thread
                || !recv_spec(&re.op).is_some_and(|spec| accepts(spec, comm, source, tag))
            {
                continue;
            }
            let Some(when) = window_conflict(t, p, own, r) else {
                continue;
            };
            let mut roles = vec![
                Role {
                    event: re,
                    label: on_thread(re, format!("{} accepts the probed message", re.call)),
                },
                Role {
                    event: pe,
                    label: on_thread(
                        pe,
                        crate::text!(
                            "{} found a message from {} with tag {tag}",
                            pe.call,
                            crate::text::ranks(source)
                        ),
                    ),
                },
            ];
            if let Some(o) = own {
                roles.push(Role {
                    event: t.event(o),
                    label: on_thread(t.event(o), "means to receive the probed message"),
                });
            }
            let form = form_text(t, p, own, r, when);
            out.add(
                "TH004",
                severity(when),
                t.rank.rank,
                format!(
                    "{} of thread {} {form} the message thread {} probed (source {source}, tag {tag})",
                    re.call, re.thread, pe.thread
                ),
                roles,
                "MPI 4.1 §11.6.2: a receive that uses source and tag values returned by a preceding probe receives the probed message only if there was no other matching receive after the probe and before that receive; in a multithreaded environment the user must enforce this",
                "use MPI_Mprobe and MPI_Mrecv, give each thread its own communicator, or put probe and receive in one critical section that the other receives also use",
            );
        }
    }
}

/// Whether receive `r` of another thread falls in the window from probe `p` to the probing
/// thread's receive `own`: it ran there in this run, or nothing orders it outside.
fn window_conflict(t: &RankThreads, p: usize, own: Option<usize>, r: usize) -> Option<When> {
    let (pe, re) = (t.event(p), t.event(r));
    let (Some(pt), Some(rt)) = (pe.time, re.time) else {
        return None;
    };
    let window_end = own
        .and_then(|o| t.event(o).time)
        .map_or(Some(u64::MAX), |ot| ot.exit_ns)
        .unwrap_or(u64::MAX);
    let r_exit = rt.exit_ns.unwrap_or(u64::MAX);
    if rt.enter_ns < window_end && r_exit > pt.enter_ns {
        return Some(When::Occurred);
    }
    let hb = t.hb.as_ref()?;
    let known = hb.unordered(t.rank, p, r) || hb.ordered(t.rank, p, r);
    let before_probe = hb.ordered(t.rank, r, p);
    let after_own = own.is_some_and(|o| hb.ordered(t.rank, o, r));
    (known && !before_probe && !after_own).then_some(When::Possible)
}

fn form_text(t: &RankThreads, p: usize, own: Option<usize>, r: usize, when: When) -> &'static str {
    let overlaps = |a: usize| crate::threads::overlap(t.event(a), t.event(r));
    match when {
        When::Possible => "can take",
        When::Occurred if overlaps(p) => "ran at the same time as the probe and can take",
        When::Occurred if own.is_some_and(overlaps) => {
            "ran at the same time as the probing thread's receive and can take"
        }
        When::Occurred => "ran between the probe and the probing thread's receive and can take",
    }
}
