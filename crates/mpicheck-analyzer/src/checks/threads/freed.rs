//! TH007: an object one thread uses can be freed first by another thread.

use std::collections::HashMap;

use super::{on_thread, Findings, RankThreads, Role, When};
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{ObjectKind, Op, ReqId, ThreadLevel};

pub const TH007: CheckInfo = CheckInfo {
    code: "TH007",
    name: "freed-by-another-thread",
    category: Category::ThreadSafety,
    severity: Severity::Warning,
    summary: "a handle one thread uses can be freed first by another thread (no synchronization orders the use before the free)",
    docs: r#"## What it does

Finds an MPI object (communicator, datatype, group, info, window, operation, error
handler, persistent or nonblocking request, ...) that one thread passes to an MPI call
and another thread frees (`MPI_Comm_free`, `MPI_Type_free`, `MPI_Info_free`,
`MPI_Request_free`, ...), where the use came first in this run but no recorded
synchronization (barrier, critical section, lock, mutex, thread join, end of the parallel
region) orders it before the free, or the two calls ran at the same time. In another run
the free can come first, and the use is then a use of a freed object. Both call sites are
reported. A use that came after the free in this run is `AR005` (`RQ003` for requests).
Reported under `MPI_THREAD_MULTIPLE`; under a lower level the two calls are already
`TH001`.

## Why is this bad

A freed object no longer exists: MPI fails with an invalid handle error or, once the
handle value is given to a new object, silently uses that one. Whether it happens depends
on how the threads are scheduled, so the program fails only now and then, and not in the
run you test.

## Example

```c
MPI_Comm comm;
MPI_Comm_dup(MPI_COMM_WORLD, &comm);
#pragma omp parallel num_threads(2)
{
    #pragma omp single nowait
    MPI_Send(buf, 1, MPI_INT, peer, 0, comm);   /* one thread */
    #pragma omp single
    MPI_Comm_free(&comm);                       /* another one, maybe first */
}
```

## How to fix

Free an object only after every thread's last use of it: after the parallel region or the
join of the threads, after an `omp barrier` (remove the `nowait`), or in the thread that
uses it.

## MPI standard reference

MPI 4.1 §2.5.1 (a freed object cannot be accessed through any handle), §11.6.2 (the calls
of concurrent threads execute as if in some order; the user must prevent races between
conflicting calls), §6.4.3 (`MPI_Comm_free`), §5.1.10 (`MPI_Type_free`).
"#,
};

const NOTE: &str = "MPI 4.1 §2.5.1: a freed object cannot be accessed through any handle; §11.6.2: the calls of concurrent threads execute in some order, and the user must prevent races between conflicting calls";
const HELP: &str = "free the object after every thread's last use of it (after the parallel region, the thread join or a barrier), or in the thread that uses it";

pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    if t.level().is_some_and(|l| l < ThreadLevel::Multiple) {
        return; // TH001 reports every unordered pair of calls
    }
    let mut pairs: Vec<(ObjectKind, usize, usize)> = t
        .rank
        .threads
        .freed_after_use
        .iter()
        .map(|f| (f.kind, f.used, f.freed))
        .collect();
    pairs.extend(request_pairs(t));
    for (kind, used, freed) in pairs {
        let Some(when) = t.conflict(used, freed) else {
            continue;
        };
        let (u, f) = (t.event(used), t.event(freed));
        // Nonblocking requests are freed too, not only persistent ones.
        let noun = match kind {
            ObjectKind::Request => "request",
            _ => kind.noun(),
        };
        let how = match when {
            When::Occurred => "the two calls ran at the same time",
            When::Possible => "no synchronization orders the use before the free",
        };
        out.add(
            "TH007",
            Severity::Warning,
            t.rank.rank,
            format!(
                "{} of thread {} can use the {noun} after {} of thread {} freed it ({how})",
                u.call, u.thread, f.call, f.thread
            ),
            vec![
                Role {
                    event: u,
                    label: on_thread(u, format!("{} uses the {noun}", u.call)),
                },
                Role {
                    event: f,
                    label: on_thread(f, format!("{} frees it", f.call)),
                },
            ],
            NOTE,
            HELP,
        );
    }
}

/// Requests (never reused ids): each other thread's last call on a request before a thread
/// frees it with `MPI_Request_free`.
fn request_pairs(t: &RankThreads) -> Vec<(ObjectKind, usize, usize)> {
    let mut uses: HashMap<ReqId, Vec<(u16, usize)>> = HashMap::new();
    let mut pairs = Vec::new();
    for (i, e) in t.rank.events.iter().enumerate() {
        let used: &[ReqId] = match &e.op {
            Op::Wait { requests, .. } | Op::RequestStatus { requests, .. } => {
                for r in requests.iter().flatten() {
                    note(&mut uses, *r, e.thread, i);
                }
                continue;
            }
            Op::Start { requests } => requests,
            Op::Cancel { request } => std::slice::from_ref(request),
            Op::RequestFree { request } => {
                if let Some(list) = uses.remove(request) {
                    pairs.extend(
                        list.into_iter()
                            .filter(|(thread, _)| *thread != e.thread)
                            .map(|(_, used)| (ObjectKind::Request, used, i)),
                    );
                }
                continue;
            }
            _ => continue,
        };
        for r in used {
            note(&mut uses, *r, e.thread, i);
        }
    }
    pairs
}

fn note(uses: &mut HashMap<ReqId, Vec<(u16, usize)>>, request: ReqId, thread: u16, event: usize) {
    let list = uses.entry(request).or_default();
    match list.iter_mut().find(|(t, _)| *t == thread) {
        Some(last) => last.1 = event,
        None => list.push((thread, event)),
    }
}
