//! Buffered sends without an attached buffer (RS003) or with one too small (RS004).

use crate::checks::pass::{EventKind, EventPass, RunTables, SiteFindings, Wants};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Blocking, Event, Op, Rank, SendMode};

pub const RS003: CheckInfo = CheckInfo {
    code: "RS003",
    name: "bsend-without-buffer",
    category: Category::ResourceLeak,
    severity: Severity::Error,
    summary: "a buffered send was made while no buffer was attached",
    docs: r#"## What it does

Follows `MPI_Buffer_attach`/`MPI_Buffer_detach` on each rank and reports `MPI_Bsend` and
`MPI_Ibsend` calls made while no buffer is attached.

## Why is this bad

A buffered send copies the message into the buffer the program attached. With none
attached, MPI behaves as if a zero-sized buffer were attached: the send fails, and with
the default error handler the program aborts.

## Example

```c
MPI_Bsend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);   /* no MPI_Buffer_attach before */
```

## How to fix

Attach a buffer large enough for all buffered messages that can be in flight at once:
each needs `MPI_Pack_size` of the message plus `MPI_BSEND_OVERHEAD`.

## MPI standard reference

MPI 4.1 §3.6.1 (buffer allocation and usage: with no buffer attached, MPI behaves as if
a zero-sized buffer were attached), §3.4 (buffered mode).
"#,
};

pub const RS004: CheckInfo = CheckInfo {
    code: "RS004",
    name: "bsend-buffer-too-small",
    category: Category::ResourceLeak,
    severity: Severity::Error,
    summary: "a buffered send needs more space than the attached buffer has",
    docs: r#"## What it does

Compares what each `MPI_Bsend`/`MPI_Ibsend` needs in the attached buffer (the message size
plus `MPI_BSEND_OVERHEAD`) with the size given to `MPI_Buffer_attach`, and reports sends
that cannot fit even into an empty buffer.

## Why is this bad

A buffered send whose message does not fit into the attached buffer fails; with the
default error handler the program aborts.

## Example

```c
char space[256];
MPI_Buffer_attach(space, sizeof space);
MPI_Bsend(buf, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);   /* 400 bytes + overhead */
```

## How to fix

Size the buffer with `MPI_Pack_size` for each message that can be buffered at once, plus
`MPI_BSEND_OVERHEAD` per message.

## MPI standard reference

MPI 4.1 §3.6.1 (buffer allocation and usage), §3.6.2 (model implementation of buffered
mode: each message takes its packed size plus `MPI_BSEND_OVERHEAD`).
"#,
};

/// What one rank has attached for buffered sends.
struct RankBuffer {
    /// Attached size; `None`: nothing attached.
    attached: Option<i64>,
    /// Attaching through the MPI 4.1 per communicator/session calls is not followed: such
    /// ranks are not judged from then on.
    judged: bool,
}

#[derive(Default)]
struct Bsends {
    /// No trace calls a buffered send (known from their scan): nothing to find.
    no_bsend: bool,
    /// By rank, once it had an event.
    ranks: Vec<Option<RankBuffer>>,
    missing: SiteFindings,
    small: SiteFindings,
}

impl EventPass for Bsends {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        let r = rank as usize;
        if self.ranks.len() <= r {
            self.ranks.resize_with(r + 1, || None);
        }
        let state = self.ranks[r].get_or_insert(RankBuffer {
            attached: None,
            judged: true,
        });
        match &event.op {
            Op::BufferAttach { bytes } => state.attached = Some(*bytes),
            Op::BufferDetach => state.attached = None,
            Op::Other if event.call.ends_with("_attach_buffer") => state.judged = false,
            Op::Send {
                send,
                blocking: Blocking::Blocking | Blocking::Nonblocking(_),
            } if send.mode == SendMode::Buffered && send.dest.is_some() && state.judged => {
                let needed = event.facts().and_then(|f| f.bsend_bytes);
                match (state.attached, needed) {
                    (None, _) => self.missing.add(
                        rank,
                        event,
                        format!("{} is called while no buffer is attached", event.call),
                        "buffered send with no attached buffer",
                    ),
                    (Some(have), Some(need)) if need > have => self.small.add(
                        rank,
                        event,
                        format!(
                            "{} needs {need} bytes of buffer space but only {have} bytes are attached",
                            event.call
                        ),
                        format!("needs {need} bytes, {have} attached"),
                    ),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    fn scanned(&mut self, called: &[&str]) {
        // (`MPI_Bsend`, `MPI_Ibsend`, `MPI_Bsend_init`, their large-count and Fortran names)
        self.no_bsend = !crate::checks::pass::calls_named_with(called, "bsend");
    }

    fn idle(&self) -> bool {
        self.no_bsend
    }

    // (A rank's state is made at its first event wanted, as it was at any: the same.)
    fn wants(&self) -> Wants {
        Wants::only(&[
            EventKind::BufferAttach,
            EventKind::BufferDetach,
            EventKind::Other,
            EventKind::Send,
        ])
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let mut out = self.missing.diagnostics(
            tables,
            &RS003,
            &["with no buffer attached, MPI behaves as if a zero-sized buffer were attached and a buffered send fails (MPI 4.1 §3.6.1)"],
            "attach a buffer with MPI_Buffer_attach (MPI_Pack_size of each message plus MPI_BSEND_OVERHEAD) before the buffered send",
        );
        out.extend(self.small.diagnostics(
            tables,
            &RS004,
            &["each buffered message takes its packed size plus MPI_BSEND_OVERHEAD in the attached buffer (MPI 4.1 §3.6.2)"],
            "attach a larger buffer: at least MPI_Pack_size of the message plus MPI_BSEND_OVERHEAD for every message buffered at once",
        ));
        out
    }
}

/// RS003, RS004.
pub(crate) struct BsendBuffer;

impl Check for BsendBuffer {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RS003, RS004]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<Bsends>::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass is left unfed only when no trace calls a buffered send, in any spelling.
    #[test]
    fn idle_only_without_buffered_sends() {
        crate::checks::pass::assert_idle_only_without::<Bsends>(
            &["MPI_Init", "MPI_Send", "MPI_Buffer_attach"],
            &["MPI_Bsend", "MPI_Ibsend_c", "MPI_Bsend_init", "mpi_ibsend_"],
        );
    }
}
