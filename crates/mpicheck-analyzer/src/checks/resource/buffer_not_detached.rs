//! A buffer attached with `MPI_Buffer_attach` and never detached (RS002).

use super::super::request::fold_by_site;
use crate::checks::{Check, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Op, Run};

pub const RS002: CheckInfo = CheckInfo {
    code: "RS002",
    name: "buffer-never-detached",
    category: Category::ResourceLeak,
    severity: Severity::Warning,
    summary: "a buffer attached for buffered sends was never detached before MPI_Finalize",
    docs: r#"## What it does

Follows `MPI_Buffer_attach` and `MPI_Buffer_detach` on each rank and reports an attach
whose buffer is still attached when the rank calls `MPI_Finalize`.

## Why is this bad

`MPI_Buffer_detach` is where the program learns that every buffered message has left
the buffer: it blocks until then and hands the memory back. Without it the memory must
stay valid and untouched until MPI is finalized, which programs that free or reuse the
buffer (or a library that attached it) do not guarantee; messages still in the buffer
may also be lost or delay `MPI_Finalize`.

## Example

```c
MPI_Buffer_attach(malloc(size), size);
MPI_Bsend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
MPI_Finalize();            /* the buffer is still attached */
```

## How to fix

Call `MPI_Buffer_detach(&addr, &size)` once the buffered sends are done, then free the
memory.

## MPI standard reference

MPI 4.1 §3.6.1 (`MPI_Buffer_attach`/`MPI_Buffer_detach`: detach blocks until all
messages in the buffer have been transmitted).
"#,
};

fn check(run: &Run) -> Vec<Diagnostic> {
    let mut items = Vec::new();
    for trace in &run.ranks {
        let mut attached: Option<usize> = None;
        for (i, event) in trace.events.iter().enumerate() {
            match &event.op {
                Op::BufferAttach { .. } => attached = Some(i),
                Op::BufferDetach => attached = None,
                Op::Finalize => {
                    if let Some(at) = attached.take() {
                        items.push((
                            trace.rank,
                            at,
                            "the buffer attached here was never detached before MPI_Finalize"
                                .to_string(),
                            "attaches a buffer that is never detached".to_string(),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    fold_by_site(
        run,
        items,
        &RS002,
        &["MPI_Buffer_detach waits until the buffered messages are sent and returns the memory (MPI 4.1 §3.6.1)"],
        "call MPI_Buffer_detach after the last buffered send, before freeing the memory and before MPI_Finalize",
    )
}

/// RS002.
pub(crate) struct BufferNeverDetached;

impl Check for BufferNeverDetached {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RS002]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx.run)
    }
}
