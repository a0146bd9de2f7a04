//! A buffer attached with `MPI_Buffer_attach` and never detached (RS002).

use rustc_hash::FxHashMap;

use crate::checks::pass::{EventKind, EventPass, RunTables, SiteFindings, Wants};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Event, Op, Rank, SiteId};

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

/// The buffer each rank has attached (where), until it is detached.
#[derive(Default)]
struct Attached {
    /// No trace calls `MPI_Buffer_attach` (known from their scan): nothing to find.
    no_attach: bool,
    attached: FxHashMap<Rank, (SiteId, &'static str)>,
    found: SiteFindings,
}

impl EventPass for Attached {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        match &event.op {
            Op::BufferAttach { .. } => {
                self.attached.insert(rank, (event.site, event.call));
            }
            Op::BufferDetach => {
                self.attached.remove(&rank);
            }
            Op::Finalize => {
                if let Some((site, call)) = self.attached.remove(&rank) {
                    self.found.add_at(
                        rank,
                        site,
                        call,
                        "the buffer attached here was never detached before MPI_Finalize",
                        "attaches a buffer that is never detached",
                    );
                }
            }
            _ => {}
        }
    }
    fn scanned(&mut self, called: &[&str]) {
        self.no_attach = !crate::checks::pass::calls_named_with(called, "buffer_attach");
    }

    fn idle(&self) -> bool {
        self.no_attach
    }

    fn wants(&self) -> Wants {
        Wants::only(&[
            EventKind::BufferAttach,
            EventKind::BufferDetach,
            EventKind::Finalize,
        ])
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        self.found.diagnostics(
            tables,
            &RS002,
            &["MPI_Buffer_detach waits until the buffered messages are sent and returns the memory (MPI 4.1 §3.6.1)"],
            "call MPI_Buffer_detach after the last buffered send, before freeing the memory and before MPI_Finalize",
        )
    }
}

/// RS002.
pub(crate) struct BufferNeverDetached;

impl Check for BufferNeverDetached {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RS002]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<Attached>::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass is left unfed only when no trace attaches a buffer, in any spelling.
    #[test]
    fn idle_only_without_buffer_attach() {
        crate::checks::pass::assert_idle_only_without::<Attached>(
            &["MPI_Init", "MPI_Bsend", "MPI_Buffer_detach"],
            &[
                "MPI_Buffer_attach",
                "MPI_Buffer_attach_c",
                "mpi_buffer_attach_",
            ],
        );
    }
}
