//! Send and receive buffers of one call that overlap (BF002).

use crate::checks::pass::{EventPass, RunTables, SiteFindings};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{BufferSpan, Event, Rank};

pub const BF002: CheckInfo = CheckInfo {
    code: "BF002",
    name: "overlapping-buffers",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "the send and receive buffers of one call overlap",
    docs: r#"## What it does

Compares the byte ranges (address, count and datatype extent) of the send and receive
buffers of `MPI_Sendrecv`/`MPI_Isendrecv` and of the collectives whose buffers hold
`count` elements on every rank (`MPI_Allreduce`, `MPI_Scan`, `MPI_Exscan` and their
nonblocking forms) and reports calls where they overlap. Overlap anywhere in the range
counts, not just an equal first byte; datatypes with holes are not judged.

## Why is this bad

MPI writes the receive buffer while it may still be reading the send buffer: aliased
arguments are erroneous (and forbidden by the C and Fortran rules on arguments). The
result is corrupted data, or MPI rejects the call ("buffers must not be aliased") and
aborts.

## Example

```c
MPI_Allreduce(buf, buf, n, MPI_DOUBLE, MPI_SUM, comm);          /* aliased */
MPI_Sendrecv(a, 8, MPI_INT, r, 0, a + 4, 8, MPI_INT, r, 0, comm, &st);
```

## How to fix

Use `MPI_IN_PLACE` as the send buffer of the collective, `MPI_Sendrecv_replace` to
exchange in place, or a separate receive buffer.

## MPI standard reference

MPI 4.1 §2.5.7 (aliasing: buffers passed to one call must not overlap when one of them
is written), §3.10 (`MPI_Sendrecv`: send and receive buffers must be disjoint), §6.2.1
(`MPI_IN_PLACE`).
"#,
};

/// The calls whose buffers overlap, by call site.
#[derive(Default)]
struct Overlaps(SiteFindings);

impl EventPass for Overlaps {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        let spans = event.buffers();
        // (Nearly every call has one buffer or none: answered without the search's register
        // saves.)
        if spans.len() >= 2 {
            self.judge(rank, event, spans);
        }
    }
    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        self.0.diagnostics(
            tables,
            &BF002,
            &["the buffers of one call must not overlap where MPI writes one of them (MPI 4.1 §2.5.7)"],
            "use MPI_IN_PLACE (collectives), MPI_Sendrecv_replace, or a separate receive buffer",
        )
    }
}

impl Overlaps {
    /// Notes the first two of `spans`, the buffers of `event`, that overlap where one is
    /// written.
    #[inline(never)]
    fn judge(&mut self, rank: Rank, event: &Event, spans: &[BufferSpan]) {
        let clash = spans.iter().enumerate().find_map(|(k, a)| {
            spans[k + 1..]
                .iter()
                .find(|b| a.param != b.param && (a.write || b.write) && a.overlaps(b))
                .map(|b| (a, b))
        });
        if let Some((a, b)) = clash {
            self.0.add(
                rank,
                event,
                format!("the {} and {} of {} overlap", a.param, b.param, event.call),
                format!("{} and {} share memory", a.param, b.param),
            );
        }
    }
}

/// BF002.
pub(crate) struct OverlappingBuffers;

impl Check for OverlappingBuffers {
    fn infos(&self) -> &'static [CheckInfo] {
        &[BF002]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<Overlaps>::default())
    }
}
