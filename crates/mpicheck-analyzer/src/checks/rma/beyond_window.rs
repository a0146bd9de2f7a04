//! RMA accesses beyond the target's window memory (RM006).

use super::{describe_access, Item};
use crate::checks::request::fold_by_site;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;

pub const RM006: CheckInfo = CheckInfo {
    code: "RM006",
    name: "rma-beyond-window",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an RMA call's target displacement and count reach beyond the memory the target exposes in the window (or the displacement is negative)",
    docs: r#"## What it does

Computes the target bytes of each `MPI_Put`, `MPI_Get` and accumulate call: from
`target_disp` × the target's `disp_unit` to that plus `target_count` × the size of
`target_datatype`, and compares them with the `size` the target passed to
`MPI_Win_create`, `MPI_Win_allocate` or `MPI_Win_allocate_shared`. For a derived target
datatype (a vector, a resized type, ...) the bytes run from its true lower bound to the
true upper bound of the last element, `(target_count - 1)` × its extent further
(`MPI_Type_get_true_extent`): the last byte actually touched, not count × size. Windows
created with `MPI_Win_create_dynamic` are not judged.

## Why is this bad

An access outside the target's window is erroneous. MPI may raise an error, or it writes
into (or reads from) whatever memory follows the window on the target: a silent
corruption on another process, found far from its cause.

## Example

```c
int buf[10];
MPI_Win_create(buf, 10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
MPI_Win_fence(0, win);
MPI_Put(src, 4, MPI_INT, 1, 8, 4, MPI_INT, win);   /* elements 8..11 of a 10-element window */
MPI_Win_fence(0, win);
```

## How to fix

Keep `target_disp + target_count` within the target's window (in units of its
`disp_unit`), or create the window large enough. Remember that the displacement is
scaled by the *target's* `disp_unit`.

## MPI standard reference

MPI 4.1 §12.2.1 (window size and displacement unit), §12.3 (the target buffer starts at
`window_base + target_disp × disp_unit` and must fit in the target window).
"#,
};

pub(super) fn check(run: &Run) -> Vec<Diagnostic> {
    let mut items: Vec<Item> = Vec::new();
    for trace in &run.ranks {
        for (index, event) in trace.events.iter().enumerate() {
            let Some(call) = run.rma.get(&(trace.rank, index as u32)) else {
                continue;
            };
            let (Some(window), RmaKind::Access(access)) =
                (run.windows.get(call.win.0 as usize), &call.kind)
            else {
                continue;
            };
            let RmaTarget::Rank(target) = access.target else {
                continue;
            };
            if window.flavor == WinFlavor::Dynamic {
                continue;
            }
            let Some(memory) = window.memory.get(&target) else {
                continue;
            };
            let what = describe_access(event.call, access, window);
            if access.disp < 0 {
                items.push((
                    trace.rank,
                    index,
                    crate::text!(
                        "{} has a negative target displacement ({})",
                        &what,
                        access.disp
                    ),
                    format!("target_disp = {} is negative", access.disp).into(),
                ));
                continue;
            }
            let Some((start, end)) = access.reached_range(window) else {
                continue;
            };
            if start < 0 || end > memory.size as i64 {
                items.push((
                    trace.rank,
                    index,
                    crate::text!(
                        "{} reaches bytes {start}..{end} of the target's window, which has {} bytes",
                        &what,
                        memory.size
                    ),
                    if start < 0 {
                        format!(
                            "target_disp = {} × disp_unit {} and the datatype's true lower bound start at byte {start}, before the window",
                            access.disp, memory.disp_unit
                        )
                    } else {
                        format!(
                            "target_disp = {} × disp_unit {} and {} element(s) end at byte {end}, past {}",
                            access.disp, memory.disp_unit, access.count, memory.size
                        )
                    }
                    .into(),
                ));
            }
        }
    }
    fold_by_site(
        run,
        items,
        &RM006,
        &["the target buffer starts at target_disp × the target's disp_unit in its window and must lie within the window's size (MPI 4.1 §12.3)"],
        "keep target_disp + target_count within the target's window, in units of the target's disp_unit, or make the window larger",
    )
}
