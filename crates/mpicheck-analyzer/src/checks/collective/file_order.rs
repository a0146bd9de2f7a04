//! CO006: split collective file operations out of order: an `MPI_File_..._begin` not
//! followed by its matching `_end` before another collective operation on the same file's
//! communicator, an `_end` without its `_begin`, or a `_begin` never ended.

use crate::checks::Check;
use std::collections::HashMap;

use crate::checks::{event_location, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{CommId, Event, Op};

pub const CO006: CheckInfo = CheckInfo {
    code: "CO006",
    name: "split-collective-order",
    category: Category::CollectiveMismatch,
    severity: Severity::Error,
    summary: "a split collective file operation (MPI_File_..._begin/_end) is interleaved with another collective file operation, or its begin and end do not pair up",
    docs: r#"## What it does

Follows, per rank and file, the split collective I/O calls (`MPI_File_read_all_begin` /
`MPI_File_read_all_end`, and the `_at_all` and `_ordered` and write forms). Reports an
`_end` whose `_begin` is missing or is of another operation, a collective file operation
(another `_begin`, `MPI_File_read_all`, `MPI_File_set_view`, `MPI_File_close`, ...) between a
`_begin` and its `_end`, and a `_begin` that is never ended.

## Why is this bad

"Each file handle may have at most one active split collective operation at any time", and
the end call must match the begin call. Interleaving is erroneous: implementations order the
pieces of collective I/O by these calls, so data goes to wrong offsets or the ranks hang.

## Example

```c
MPI_File_read_all_begin(fh, buf, n, MPI_INT);
MPI_File_write_all(fh, out, n, MPI_INT, &st);   /* not allowed here */
MPI_File_read_all_end(fh, buf, &st);
```

## How to fix

Complete each split collective with its own `_end` before starting any other collective
operation on the same file.

## MPI standard reference

MPI 4.1 §14.4.5 ("Split Collective Data Access Routines": at most one active split
collective per file handle; the end call must match the preceding begin call).
"#,
};

/// `MPI_File_read_all_begin` → `MPI_File_read_all`.
fn split_base(call: &str) -> Option<(&str, bool)> {
    let call = call.strip_suffix("_c").unwrap_or(call);
    if !call.starts_with("MPI_File_") {
        return None;
    }
    if let Some(b) = call.strip_suffix("_begin") {
        return Some((b, true));
    }
    call.strip_suffix("_end").map(|b| (b, false))
}

fn check(ctx: &Context) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for trace in &ctx.run.ranks {
        // comm → the open split collective (its event).
        let mut open: HashMap<CommId, &Event> = HashMap::new();
        for event in &trace.events {
            let Op::Collective { comm, .. } = &event.op else {
                continue;
            };
            if !event.call.starts_with("MPI_File_") || event.call.starts_with("MPI_File_open") {
                continue;
            }
            let finding = |message: String,
                           first: &Event,
                           first_label: String,
                           second: Option<(&Event, String)>| {
                let mut locations = vec![event_location(ctx, vec![trace.rank], first, first_label)];
                if let Some((e, l)) = second {
                    locations.push(event_location(ctx, vec![trace.rank], e, l));
                }
                Diagnostic {
                    code: CO006.code,
                    category: CO006.category,
                    severity: CO006.severity,
                    message: message.into(),
                    locations,
                    notes: vec![
                        "a file handle has at most one active split collective operation, and its end call must match its begin call (MPI 4.1 §14.4.5)".into(),
                    ],
                    help: Some(
                        "complete each split collective with its matching _end before any other collective operation on the file"
                            .into(),
                    ),
                    wait_for: None,
                    communicator: None,
                    tag: None,
                }
            };
            let pending = open.get(comm).copied();
            match (split_base(event.call), pending) {
                (Some((base, false)), Some(begin))
                    if split_base(begin.call).map(|b| b.0) == Some(base) =>
                {
                    open.remove(comm);
                }
                (Some((_, false)), Some(begin)) => {
                    out.push(finding(
                        format!("{} does not match the open {}", event.call, begin.call),
                        event,
                        format!("ends a split collective, but {} is open", begin.call),
                        Some((begin, "starts the open split collective".into())),
                    ));
                    open.remove(comm);
                }
                (Some((_, false)), None) => out.push(finding(
                    format!("{} without its _begin", event.call),
                    event,
                    "ends a split collective that was never started".into(),
                    None,
                )),
                (_, Some(begin)) => {
                    out.push(finding(
                        format!(
                            "{} while the split collective {} is still open",
                            event.call, begin.call
                        ),
                        event,
                        format!(
                            "collective file operation before the _end of {}",
                            begin.call
                        ),
                        Some((begin, "starts the split collective".into())),
                    ));
                    if split_base(event.call).is_some_and(|b| b.1) {
                        open.insert(*comm, event);
                    }
                }
                (Some((_, true)), None) => {
                    open.insert(*comm, event);
                }
                (None, None) => {}
            }
        }
        for begin in open.into_values() {
            out.push(Diagnostic {
                code: CO006.code,
                category: CO006.category,
                severity: CO006.severity,
                message: format!("{} is never ended", begin.call).into(),
                locations: vec![event_location(
                    ctx,
                    vec![trace.rank],
                    begin,
                    "starts a split collective with no matching _end",
                )],
                notes: vec![
                    "every split collective begin call must be followed by its end call (MPI 4.1 §14.4.5)".into(),
                ],
                help: Some("call the matching _end".into()),
                wait_for: None,
                communicator: None,
                tag: None,
            });
        }
    }
    fold_ranks(out)
}

/// The same finding at the same call sites on several ranks becomes one finding.
fn fold_ranks(findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in findings {
        let same = |o: &Diagnostic| {
            o.message == d.message
                && o.locations.len() == d.locations.len()
                && o.locations
                    .iter()
                    .zip(&d.locations)
                    .all(|(a, b)| (&a.file, a.line, &a.call) == (&b.file, b.line, &b.call))
        };
        match out.iter_mut().find(|o| same(o)) {
            Some(o) => {
                for (a, b) in o.locations.iter_mut().zip(&d.locations) {
                    a.ranks.union_with(&b.ranks);
                }
            }
            None => out.push(d),
        }
    }
    out
}

/// CO006.
pub(crate) struct SplitCollectiveOrder;

impl Check for SplitCollectiveOrder {
    fn infos(&self) -> &'static [CheckInfo] {
        &[CO006]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx)
    }
}
