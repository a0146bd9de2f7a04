//! TH002: `MPI_Finalize` on the wrong thread, while another thread is in MPI, or followed by
//! MPI calls.

use super::{always_allowed, on_thread, Findings, RankThreads, Role, When};
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::Op;

pub const TH002: CheckInfo = CheckInfo {
    code: "TH002",
    name: "finalize-with-threads",
    category: Category::ThreadSafety,
    severity: Severity::Error,
    summary: "MPI_Finalize is called from a thread other than the main one, while another thread is in MPI, or before another thread's MPI calls",
    docs: r#"## What it does

Reports, with both call sites:

- `MPI_Finalize` called from a thread other than the one that initialized MPI, or, as a
  possible violation (a warning), from the main thread inside an `omp single` block or an
  `omp section` of a team of several threads (another thread could execute it);
- another thread inside MPI while `MPI_Finalize` runs, or an MPI call of another thread
  that no synchronization orders before `MPI_Finalize` (it can run during or after it in
  another run);
- an MPI call another thread makes after `MPI_Finalize` returned (the finalizing thread's
  own late calls are `AR010`).

Calls allowed at any time (`MPI_Initialized`, `MPI_Finalized`, `MPI_Get_version`, ...) are
ignored.

## Why is this bad

`MPI_Finalize` tears down the library's state; a call made during or after it uses
freed resources or is rejected, and the program crashes or aborts, depending on timing.

## Example

```c
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 1)
        MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Finalize(); /* thread 1 may still be in MPI_Send */
}
```

## How to fix

Join or synchronize all threads (end the parallel region, `#pragma omp barrier`,
`pthread_join`) and complete their communication, then call `MPI_Finalize` from the main
thread.

## MPI standard reference

MPI 4.1 §11.6.2 (Finalization: "The call to `MPI_FINALIZE` should occur on the same thread
that initialized MPI ... only after all the process threads have completed their MPI calls,
and have no pending communications or I/O operations").
"#,
};

const NOTE: &str = "MPI 4.1 §11.6.2: the call to MPI_FINALIZE should occur on the same thread that initialized MPI, only after all the process threads have completed their MPI calls";
const HELP: &str = "end the threads' MPI use first (join them, end the parallel region or add a barrier), then call MPI_Finalize from the main thread";

pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    let events = &t.rank.events;
    let Some(fin) = events.iter().position(|e| matches!(e.op, Op::Finalize)) else {
        return;
    };
    let f = t.event(fin);
    let rank = t.rank.rank;
    let fin_role = |label: &str| Role {
        event: f,
        label: on_thread(f, label),
    };
    // (A) the wrong thread, or a block another thread can execute in another run.
    if let Some(block) = t.main_thread_workshare(f) {
        let construct = block.construct.pragma();
        out.add(
            "TH002",
            Severity::Warning,
            rank,
            format!(
                "MPI_Finalize in a `{construct}` block can be called from a thread other than the main one (the main thread executed the block in this run)"
            ),
            vec![fin_role(&format!(
                "calls MPI_Finalize in a `{construct}` block that any of the team's {} threads can execute",
                block.team
            ))],
            NOTE,
            "call MPI_Finalize from the main thread outside the parallel region, after the threads' MPI use ends",
        );
    }
    if f.thread != t.main {
        let mut roles = vec![fin_role("calls MPI_Finalize")];
        if let Some(i) = t.init {
            roles.push(Role {
                event: t.event(i),
                label: on_thread(t.event(i), "initializes MPI"),
            });
        }
        out.add(
            "TH002",
            Severity::Error,
            rank,
            format!(
                "MPI_Finalize called from thread {}, not the main thread {} that initialized MPI",
                f.thread, t.main
            ),
            roles,
            NOTE,
            HELP,
        );
    }
    let fin_exit = f.time.and_then(|t| t.exit_ns);
    for (i, e) in events.iter().enumerate() {
        if i == fin || always_allowed(e.call) {
            continue;
        }
        // (C) after MPI_Finalize returned.
        let after = match (fin_exit, e.time) {
            (Some(exit), Some(time)) => time.enter_ns >= exit,
            _ => i > fin && e.thread == f.thread,
        };
        // The finalizing thread's own late calls are AR010's, reported once there.
        if after && e.thread != f.thread {
            out.add(
                "TH002",
                Severity::Error,
                rank,
                format!("{} called after MPI_Finalize returned", e.call),
                vec![
                    Role {
                        event: e,
                        label: on_thread(e, format!("calls {}", e.call)),
                    },
                    fin_role("finalized MPI before"),
                ],
                NOTE,
                HELP,
            );
            continue;
        }
        if e.thread == f.thread {
            continue;
        }
        // (B) at the same time as MPI_Finalize, or unordered with it.
        let when = t.conflict(i, fin);
        let Some(when) = when else { continue };
        let (message, severity) = match when {
            When::Occurred => (
                format!(
                    "{} of thread {} ran while thread {} was in MPI_Finalize",
                    e.call, e.thread, f.thread
                ),
                Severity::Error,
            ),
            When::Possible => (
                format!(
                    "{} of thread {} can run during or after MPI_Finalize (no synchronization orders it before)",
                    e.call, e.thread
                ),
                Severity::Warning,
            ),
        };
        out.add(
            "TH002",
            severity,
            rank,
            message,
            vec![
                fin_role("calls MPI_Finalize"),
                Role {
                    event: e,
                    label: on_thread(e, format!("calls {}", e.call)),
                },
            ],
            NOTE,
            HELP,
        );
    }
}
