//! CO006: split collective file operations out of order: an `MPI_File_..._begin` not
//! followed by its matching `_end` before another collective operation on the same file's
//! communicator, an `_end` without its `_begin`, or a `_begin` never ended.

use std::collections::BTreeMap;

use crate::checks::pass::RunTables;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{CommId, Event, Op, Rank, SiteId};

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

/// A split collective call: where it was made.
#[derive(Clone, Copy)]
struct SplitCall {
    site: SiteId,
    call: &'static str,
}

/// A finding of one rank: its message, and its calls with their labels.
struct Finding {
    message: String,
    calls: Vec<(SplitCall, String)>,
}

/// CO006's state: each rank's open split collective per communicator, and the findings.
#[derive(Default)]
pub(crate) struct SplitOrder {
    /// No trace calls a split collective (known from their scan): no event needs following.
    idle: bool,
    /// (rank, comm) → the open split collective (its `_begin`).
    open: BTreeMap<(Rank, u32), SplitCall>,
    /// Each rank's findings, in its call order.
    found: BTreeMap<Rank, Vec<Finding>>,
}

impl SplitOrder {
    /// The functions the traces called, before any event.
    pub fn scanned(&mut self, called: &[&str]) {
        // (A finding needs a `_begin` or an `_end`, in any spelling.)
        use crate::checks::pass::calls_named_with;
        self.idle = !calls_named_with(called, "_begin") && !calls_named_with(called, "_end");
    }

    /// Whether no event needs following ([`SplitOrder::scanned`]).
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// The next event of `rank`.
    pub fn event(&mut self, rank: Rank, event: &Event) {
        let Op::Collective { comm, .. } = &event.op else {
            return;
        };
        if !event.call.starts_with("MPI_File_") || event.call.starts_with("MPI_File_open") {
            return;
        }
        let this = SplitCall {
            site: event.site,
            call: event.call,
        };
        let key = (rank, comm.0);
        let mut finding =
            |message: String, first_label: String, second: Option<(SplitCall, String)>| {
                let mut calls = vec![(this, first_label)];
                calls.extend(second);
                self.found
                    .entry(rank)
                    .or_default()
                    .push(Finding { message, calls });
            };
        let pending = self.open.get(&key).copied();
        match (split_base(event.call), pending) {
            (Some((base, false)), Some(begin))
                if split_base(begin.call).map(|b| b.0) == Some(base) =>
            {
                self.open.remove(&key);
            }
            (Some((_, false)), Some(begin)) => {
                finding(
                    format!("{} does not match the open {}", event.call, begin.call),
                    format!("ends a split collective, but {} is open", begin.call),
                    Some((begin, "starts the open split collective".into())),
                );
                self.open.remove(&key);
            }
            (Some((_, false)), None) => finding(
                format!("{} without its _begin", event.call),
                "ends a split collective that was never started".into(),
                None,
            ),
            (_, Some(begin)) => {
                finding(
                    format!(
                        "{} while the split collective {} is still open",
                        event.call, begin.call
                    ),
                    format!(
                        "collective file operation before the _end of {}",
                        begin.call
                    ),
                    Some((begin, "starts the split collective".into())),
                );
                if split_base(event.call).is_some_and(|b| b.1) {
                    self.open.insert(key, this);
                }
            }
            (Some((_, true)), None) => {
                self.open.insert(key, this);
            }
            (None, None) => {}
        }
    }

    /// The findings, rank after rank, each rank's split collectives never ended after its
    /// other findings.
    pub fn finish(self, tables: &RunTables) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut found = self.found;
        let mut never_ended: BTreeMap<Rank, Vec<SplitCall>> = BTreeMap::new();
        let mut open: Vec<_> = self.open.into_iter().collect();
        // Each rank's in the order of their communicator.
        open.sort_by_key(|((rank, comm), _)| (*rank, tables.comm_order(CommId(*comm))));
        for ((rank, _), begin) in open {
            never_ended.entry(rank).or_default().push(begin);
        }
        let ranks: std::collections::BTreeSet<Rank> =
            found.keys().chain(never_ended.keys()).copied().collect();
        for rank in ranks {
            for f in found.remove(&rank).unwrap_or_default() {
                out.push(Diagnostic {
                    code: CO006.code,
                    category: CO006.category,
                    severity: CO006.severity,
                    message: f.message.into(),
                    locations: f
                        .calls
                        .into_iter()
                        .map(|(c, label)| tables.location(c.site, vec![rank], c.call, label))
                        .collect(),
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
                });
            }
            for begin in never_ended.remove(&rank).unwrap_or_default() {
                out.push(Diagnostic {
                    code: CO006.code,
                    category: CO006.category,
                    severity: CO006.severity,
                    message: format!("{} is never ended", begin.call).into(),
                    locations: vec![tables.location(
                        begin.site,
                        vec![rank],
                        begin.call,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// CO006 follows the events unless no trace calls a split collective, in any spelling.
    #[test]
    fn idle_only_without_split_collectives() {
        let idle_after = |called: &[&str]| {
            let mut order = SplitOrder::default();
            order.scanned(called);
            order.idle()
        };
        assert!(
            !SplitOrder::default().idle(),
            "fed from a whole run: not told"
        );
        assert!(idle_after(&[
            "MPI_File_open",
            "MPI_File_read_all",
            "MPI_Send"
        ]));
        for split in [
            "MPI_File_read_all_begin",
            "MPI_File_write_ordered_end",
            "mpi_file_read_at_all_end_",
        ] {
            assert!(!idle_after(&["MPI_File_open", split]), "{split}");
        }
    }
}
