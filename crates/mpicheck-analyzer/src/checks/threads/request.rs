//! TH003: two threads wait on or test the same request at the same time.

use crate::diagnostic::{Category, CheckInfo, Severity};
#[cfg(test)]
use {
    super::{Findings, RankThreads},
    crate::model::{Op, ReqId, ThreadLevel},
    std::collections::{BTreeMap, HashSet},
};

pub const TH003: CheckInfo = CheckInfo {
    code: "TH003",
    name: "request-completed-by-two-threads",
    category: Category::ThreadSafety,
    severity: Severity::Error,
    summary: "two threads wait on or test the same request at the same time",
    docs: r#"## What it does

Finds `MPI_Wait*` / `MPI_Test*` calls of different threads whose requests include the same
request, and that ran at the same time, or that no synchronization orders (another run can
make them overlap). Both call sites are reported. Requests whose handle the MPI library handed out to two
live requests at once (MPICH and Open MPI return one shared, already complete request for
operations that complete immediately) are skipped: the calls cannot be told apart. (Under a
thread level below
`MPI_THREAD_MULTIPLE` any two concurrent calls are already TH001.)

## Why is this bad

A request can be completed only once. Two threads completing the same request race: one of
them frees it while the other still uses it, so a thread blocks forever, reads a freed
request, or the program crashes, depending on timing.

## Example

```c
MPI_Irecv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); /* req is shared */
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
    else { int flag; MPI_Test(&req, &flag, MPI_STATUS_IGNORE); }
}
```

## How to fix

Let one thread own each request (complete it there), or protect the completion calls with
a critical section or lock so that they never overlap.

## MPI standard reference

MPI 4.1 §11.6.2 ("A program in which two threads block, waiting on the same request, is
erroneous. Similarly, the same request cannot appear in the array of requests of two
concurrent `MPI_{WAIT|TEST}{ANY|SOME|ALL}` calls").
"#,
};

/// The whole-rank form of the check, the reference the pass
/// ([`super::concurrent::ConcurrentPass`]) is tested against.
#[cfg(test)]
pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    if t.provided.is_some_and(|l| l < ThreadLevel::Multiple) {
        return; // TH001 reports every concurrent pair
    }
    let shared: HashSet<ReqId> = t.rank.threads.shared_requests.iter().copied().collect();
    let mut by_request: BTreeMap<ReqId, Vec<usize>> = BTreeMap::new();
    for (i, e) in t.rank.events.iter().enumerate() {
        if let Op::Wait { requests, .. } = &e.op {
            for r in requests.iter().flatten().filter(|r| !shared.contains(r)) {
                let list = by_request.entry(*r).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
    }
    for calls in by_request.values() {
        if calls.len() < 2 {
            continue;
        }
        t.report_conflicts(
            calls,
            out,
            "TH003",
            |later, earlier, when| {
                format!(
                    "{} and {} of two threads on the same request {when}",
                    later.call, earlier.call
                )
            },
            |call| format!("completes the request with {}", call.call),
            "MPI 4.1 §11.6.2: a program where two threads block, waiting on the same request, is erroneous; a request can only be completed once",
            "complete each request on one thread only, or put the completion calls in a critical section",
        );
    }
}
