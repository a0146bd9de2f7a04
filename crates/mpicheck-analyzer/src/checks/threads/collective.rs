//! TH005: two collective calls on the same communicator in progress at once in one process.

use crate::diagnostic::{Category, CheckInfo, Severity};
#[cfg(test)]
use {
    super::{Findings, RankThreads},
    crate::model::{CommId, Op, ThreadLevel},
    std::collections::BTreeMap,
};

pub const TH005: CheckInfo = CheckInfo {
    code: "TH005",
    name: "concurrent-collectives-on-comm",
    category: Category::ThreadSafety,
    severity: Severity::Error,
    summary: "two threads call collectives on the same communicator at the same time",
    docs: r#"## What it does

Finds collective calls (including nonblocking starts and communicator management such as
`MPI_Comm_dup`) of different threads of one process on the same communicator that ran at
the same time, or that no synchronization orders (another run can make them overlap). Both
call sites are reported. (Under a thread level below `MPI_THREAD_MULTIPLE` any two
concurrent calls are already TH001.)

## Why is this bad

Collectives on a communicator must be called in the same order on every process. Two
threads of one process calling collectives on the same communicator concurrently make that
order depend on timing: processes match different collectives, which deadlocks or mixes
data.

## Example

```c
#pragma omp parallel num_threads(2)
{
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* both threads */
}
```

## How to fix

Give each thread its own communicator (`MPI_Comm_dup` before the parallel region, one per
thread), or order the collectives with a barrier or critical section in the same way on
every process.

## MPI standard reference

MPI 4.1 §6.14 and §11.6.2 ("it is the user's responsibility to ensure that the same
communicator is not used concurrently by two different collective communication calls at
the same process").
"#,
};

/// The whole-rank form of the check, the reference the pass
/// ([`super::concurrent::ConcurrentPass`]) is tested against.
#[cfg(test)]
pub(crate) fn check(run: &crate::model::Run, t: &RankThreads, out: &mut Findings) {
    if t.provided.is_some_and(|l| l < ThreadLevel::Multiple) {
        return; // TH001 reports every concurrent pair
    }
    let mut by_comm: BTreeMap<CommId, Vec<usize>> = BTreeMap::new();
    for (i, e) in t.rank.events.iter().enumerate() {
        if let Op::Collective { comm, .. } = &e.op {
            by_comm.entry(*comm).or_default().push(i);
        }
    }
    for (comm, calls) in &by_comm {
        if calls.len() < 2 {
            continue;
        }
        let comm_name = run.comm(*comm).name.clone();
        t.report_conflicts(
            calls,
            out,
            "TH005",
            |later, earlier, when| {
                format!(
                    "collectives {} and {} of two threads on {comm_name} {when}",
                    later.call, earlier.call
                )
            },
            |call| format!("calls {} on {comm_name}", call.call),
            "MPI 4.1 §11.6.2: it is the user's responsibility to ensure that the same communicator is not used concurrently by two different collective communication calls at the same process",
            "give each thread its own communicator (MPI_Comm_dup before the threads start), or order the collectives the same way on every process",
        );
    }
}
