//! MPI calls made before `MPI_Init` (AR009).

use super::super::request::fold_by_site;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Op, Run};

pub const AR009: CheckInfo = CheckInfo {
    code: "AR009",
    name: "call-before-init",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an MPI function was called before MPI_Init or MPI_Init_thread",
    docs: r#"## What it does

Reports MPI calls a process makes before `MPI_Init`/`MPI_Init_thread` (or with no
initialization at all), except the ones the standard allows at any time
(`MPI_Initialized`, `MPI_Finalized`, `MPI_Get_version`, `MPI_Get_library_version`, the
info, session, error-class and tool-interface `MPI_T_` calls, `MPI_Wtime`). Processes
that use the sessions model are not judged.

## Why is this bad

Before initialization MPI has no state: the call fails, and since no error handler can
be set yet, the program aborts.

## Example

```c
int main(int argc, char **argv) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);   /* before MPI_Init */
    MPI_Init(&argc, &argv);
```

## How to fix

Call `MPI_Init` (or `MPI_Init_thread`) first, also in libraries' initialization code
that may run earlier (constructors, static initializers).

## MPI standard reference

MPI 4.1 §11.2.1 and §11.2.2 (the functions that may be called before `MPI_Init`).
"#,
};

/// Calls valid whether or not MPI is initialized (MPI 4.1 §11.2.1 and §11.2.2, plus the
/// tool interface).
pub(crate) fn allowed_anytime(call: &str) -> bool {
    matches!(
        call,
        "MPI_Initialized"
            | "MPI_Finalized"
            | "MPI_Get_version"
            | "MPI_Get_library_version"
            | "MPI_Wtime"
            | "MPI_Wtick"
            | "MPI_Abort"
            | "MPI_Add_error_class"
            | "MPI_Add_error_code"
            | "MPI_Add_error_string"
            | "MPI_Error_class"
            | "MPI_Error_string"
            | "MPI_Remove_error_class"
            | "MPI_Remove_error_code"
            | "MPI_Remove_error_string"
    ) || call.starts_with("MPI_Info_")
        || call.starts_with("MPI_Session_")
        || call.starts_with("MPI_T_")
        || call.starts_with("MPICHECK_")
}

pub(super) fn check(run: &Run) -> Vec<Diagnostic> {
    let mut items = Vec::new();
    for trace in &run.ranks {
        if trace
            .events
            .iter()
            .any(|e| e.call.starts_with("MPI_Session_init"))
        {
            continue;
        }
        for (i, event) in trace.events.iter().enumerate() {
            if matches!(event.op, Op::Init { .. }) {
                break;
            }
            if !allowed_anytime(event.call) {
                items.push((
                    trace.rank,
                    i,
                    format!("{} is called before MPI_Init", event.call),
                    "called before MPI is initialized".to_string(),
                ));
            }
        }
    }
    fold_by_site(
        run,
        items,
        &AR009,
        &["only a few functions (MPI_Initialized, MPI_Get_version, ...) may be called before MPI_Init (MPI 4.1 §11.2.1)"],
        "call MPI_Init or MPI_Init_thread before any other MPI function",
    )
}
