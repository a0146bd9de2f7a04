//! MPI calls made after `MPI_Finalize` (AR010).

use rustc_hash::FxHashMap;

use crate::checks::pass::{EventPass, RunTables, SiteFindings};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{CallTime, Event, Op, Rank};
use crate::normalize::allowed_anytime;

pub const AR010: CheckInfo = CheckInfo {
    code: "AR010",
    name: "call-after-finalize",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an MPI function was called after MPI_Finalize",
    docs: r#"## What it does

Reports MPI calls a thread makes after its own `MPI_Finalize` returned (other threads' calls
during or after it are `TH002`), except the ones the
standard allows at any time (`MPI_Initialized`, `MPI_Finalized`, `MPI_Get_version`,
`MPI_Get_library_version`, the info, session and tool-interface calls).

## Why is this bad

After `MPI_Finalize` the world model of MPI is gone: the call fails or aborts, and
calling `MPI_Init` again is not allowed either. Typical causes are cleanup code
(destructors, `atexit` handlers) that frees MPI objects or communicates too late.

## Example

```c
MPI_Finalize();
MPI_Comm_free(&comm);      /* too late */
```

## How to fix

Move the call before `MPI_Finalize`; free MPI objects before finalizing and make sure
destructors of objects holding MPI handles run before it.

## MPI standard reference

MPI 4.1 §11.2.2 (after `MPI_Finalize` only `MPI_Initialized`, `MPI_Finalized`,
`MPI_Get_version`, `MPI_Get_library_version` and a few others may be called).
"#,
};

/// Each rank's returned `MPI_Finalize` (its thread and time), then the calls after it.
#[derive(Default)]
struct AfterFinalize {
    finalized: FxHashMap<Rank, (u16, Option<CallTime>)>,
    found: SiteFindings,
}

impl EventPass for AfterFinalize {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        // (Nearly every event: no rank finalized yet, and not a finalize. Answered before the
        // lookup, without the rest's register saves.)
        if self.finalized.is_empty() && !matches!(event.op, Op::Finalize) {
            return;
        }
        self.after_a_finalize(rank, event);
    }
    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        self.found.diagnostics(
            tables,
            &AR010,
            &["after MPI_Finalize only MPI_Initialized, MPI_Finalized, MPI_Get_version and a few others may be called (MPI 4.1 §11.2.2)"],
            "make the call before MPI_Finalize",
        )
    }
}

impl AfterFinalize {
    /// [`EventPass::event`] once some rank finalized, or at a finalize.
    #[inline(never)]
    fn after_a_finalize(&mut self, rank: Rank, event: &Event) {
        let Some(&(thread, time)) = self.finalized.get(&rank) else {
            if matches!(event.op, Op::Finalize) && event.returned {
                self.finalized.insert(rank, (event.thread, event.time));
            }
            return;
        };
        // Other threads' late calls are TH002's (thread-safety), reported once there.
        // Calls of attribute delete functions that MPI_Finalize itself ran are made before
        // it returned (MPI 4.1 §11.2.2).
        if event.thread == thread
            && !event.ran_inside_call(thread, time)
            && !allowed_anytime(event.call)
        {
            self.found.add(
                rank,
                event,
                format!("{} is called after MPI_Finalize", event.call),
                "called after MPI is finalized",
            );
        }
    }
}

/// AR010.
pub(crate) struct CallAfterFinalize;

impl Check for CallAfterFinalize {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR010]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<AfterFinalize>::default())
    }
}
