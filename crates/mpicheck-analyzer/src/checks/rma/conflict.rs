//! Conflicting accesses to the same target bytes in one fence epoch (DR001).

use std::collections::BTreeMap;

use super::{site_text, FenceAccess, Walk};
use crate::checks::run_event_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text::ranks;

pub const DR001: CheckInfo = CheckInfo {
    code: "DR001",
    name: "rma-conflicting-accesses",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "two RMA calls in the same fence epoch access overlapping bytes of one target and at least one writes them (other than concurrent accumulates with the same op and type)",
    docs: r#"## What it does

Collects the RMA calls of every fence epoch of a window (between two `MPI_Win_fence`
calls) with the target bytes each touches (displacement × the target's `disp_unit`,
count × the size of the target datatype) and reports two calls, from different origins
or from one, whose bytes on the same target overlap where at least one is a `MPI_Put`,
or one writes and the other is a `MPI_Get`. Accumulates (`MPI_Accumulate`,
`MPI_Get_accumulate`, `MPI_Fetch_and_op`, `MPI_Compare_and_swap`) with the same basic
datatype and the same operation (or `MPI_NO_OP`) may overlap: MPI makes them atomic per
element. Calls whose target datatype has holes are not judged, and only fence epochs
are: accesses in lock and PSCW epochs are not compared yet.

## Why is this bad

Nothing orders the calls of one epoch: MPI may apply them in any order, and a put is not
atomic, so the target ends up with one value, the other, or a mix of both bytes, and a
get may read old, new or torn data. The result changes from run to run without any
error. Such conflicting accesses are erroneous.

## Example

```c
MPI_Win_fence(0, win);
if (rank > 0)   /* every non-zero rank writes element 0 of rank 0 */
    MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
MPI_Win_fence(0, win);
```

## How to fix

Give each origin its own target bytes (displacement by origin rank), separate the
accesses by a fence, or use `MPI_Accumulate` with one operation (`MPI_SUM`,
`MPI_REPLACE`) when several origins update the same element on purpose.

## MPI standard reference

MPI 4.1 §12.7.1 (atomicity, and which concurrent accesses to one target location are
erroneous), §12.3.4 (accumulate functions: same operation and basic datatype),
§12.5.1 (fence epochs).
"#,
};

/// How far back among overlapping accesses each new one is compared: bounds the work on
/// epochs where thousands of calls hit the same bytes (their conflicts repeat the same
/// pairs of call sites).
const COMPARED: usize = 64;

/// The predefined type all elements of an access's target datatype are made of.
fn basic_datatype<'r>(run: &'r Run, access: &RmaAccess) -> Option<&'r str> {
    let info = run.datatypes.get(access.datatype?.0 as usize)?;
    info.layout.as_deref()?.uniform_basic()
}

/// Whether two overlapping accesses conflict. Accumulates are compared by their basic
/// datatype, not the handle: two ranks' derived types of `MPI_INT` (PETSc's star forests
/// build one per target) update the same ints atomically.
pub(super) fn conflicting(run: &Run, a: &RmaAccess, b: &RmaAccess) -> bool {
    if !a.writes_target() && !b.writes_target() {
        return false;
    }
    let same_basic = a.datatype == b.datatype
        || basic_datatype(run, a).is_some_and(|t| Some(t) == basic_datatype(run, b));
    if a.kind.is_accumulate() && b.kind.is_accumulate() && same_basic {
        let op = |x: &RmaAccess| match x.kind {
            AccessKind::CompareAndSwap => Some("compare-and-swap".to_string()),
            _ => x.op.clone(),
        };
        let (oa, ob) = (op(a), op(b));
        let no_op = |o: &Option<String>| o.as_deref() == Some("MPI_NO_OP");
        if oa == ob || no_op(&oa) || no_op(&ob) {
            return false;
        }
    }
    true
}

fn access<'r>(run: &'r Run, f: &FenceAccess) -> Option<(&'r Event, &'r RmaAccess)> {
    let event = run.ranks.get(f.origin as usize)?.events.get(f.event)?;
    match &run.rma.get(&(f.origin, f.event as u32))?.kind {
        RmaKind::Access(a) => Some((event, a)),
        _ => None,
    }
}

struct Found {
    first: (FenceAccess, FenceAccess),
    pairs: usize,
    origins_a: Vec<Rank>,
    origins_b: Vec<Rank>,
}

pub(super) fn diagnostics(run: &Run, walk: &Walk) -> Vec<Diagnostic> {
    // (window, site and call of one side, of the other) → the first pair and all origins.
    let mut found: BTreeMap<(WinId, u32, &'static str, u32, &'static str), Found> = BTreeMap::new();
    for (&win, accesses) in &walk.fence_accesses {
        let mut groups: BTreeMap<(u32, Rank), Vec<&FenceAccess>> = BTreeMap::new();
        for f in accesses.iter().filter(|f| f.end > f.start) {
            groups.entry((f.epoch, f.target)).or_default().push(f);
        }
        for group in groups.values_mut() {
            group.sort_by_key(|f| (f.start, f.origin, f.event));
            let mut active: Vec<&FenceAccess> = Vec::new();
            for &x in group.iter() {
                active.retain(|a| a.end > x.start);
                let Some((ex, ax)) = access(run, x) else {
                    continue;
                };
                for &a in active.iter().rev().take(COMPARED) {
                    let Some((ea, aa)) = access(run, a) else {
                        continue;
                    };
                    if !conflicting(run, aa, ax) {
                        continue;
                    }
                    let (p, q, ep, eq) = if (a.origin, a.event) <= (x.origin, x.event) {
                        (a, x, ea, ex)
                    } else {
                        (x, a, ex, ea)
                    };
                    let entry = found
                        .entry((win, ep.site.0, ep.call, eq.site.0, eq.call))
                        .or_insert_with(|| Found {
                            first: (p.clone(), q.clone()),
                            pairs: 0,
                            origins_a: Vec::new(),
                            origins_b: Vec::new(),
                        });
                    entry.pairs += 1;
                    entry.origins_a.push(p.origin);
                    entry.origins_b.push(q.origin);
                }
                active.push(x);
            }
        }
    }
    found
        .into_iter()
        .filter_map(|((win, ..), mut f)| {
            let window = run.windows.get(win.0 as usize)?;
            let (p, q) = &f.first;
            let (ep, ap) = access(run, p)?;
            let (eq, aq) = access(run, q)?;
            let (start, end) = (p.start.max(q.start), p.end.min(q.end));
            let verb = |a: &RmaAccess| if a.writes_target() { "writes" } else { "reads" };
            let message = crate::text!(
                "{} from {} ({}) and {} from {} ({}) access bytes {start}..{end} of {} in {} in the same fence epoch, and {}{}",
                ep.call,
                ranks(p.origin),
                site_text(run, ep),
                eq.call,
                ranks(q.origin),
                site_text(run, eq),
                ranks(p.target),
                window.name.as_str(),
                if ap.writes_target() && aq.writes_target() {
                    "both write them"
                } else {
                    "one writes them while the other reads them"
                },
                match f.pairs {
                    1 => String::new(),
                    n => format!(" ({} more conflicting pairs of calls at these two lines)", n - 1),
                }
            );
            f.origins_a.sort_unstable();
            f.origins_a.dedup();
            f.origins_b.sort_unstable();
            f.origins_b.dedup();
            // A location folded over several origins may stand for other targets and bytes.
            let label = |a: &RmaAccess, x: &FenceAccess, origins: &[Rank]| {
                if origins.len() == 1 {
                    crate::text!(
                        "{} bytes {}..{} of {}",
                        verb(a),
                        x.start,
                        x.end,
                        ranks(x.target)
                    )
                } else {
                    crate::text!("{} target bytes the other call also accesses", verb(a))
                }
            };
            let mut first = run_event_location(run, vec![p.origin], ep, label(ap, p, &f.origins_a));
            first.ranks = f.origins_a.into();
            let mut second = run_event_location(run, vec![q.origin], eq, label(aq, q, &f.origins_b));
            second.ranks = f.origins_b.into();
            Some(Diagnostic {
                code: DR001.code,
                category: DR001.category,
                severity: DR001.severity,
                message,
                locations: vec![first, second],
                notes: vec![
                    "RMA calls of one epoch are not ordered: overlapping accesses to one target location where one writes are erroneous, except accumulates with the same operation and basic datatype (MPI 4.1 §12.7.1)".into(),
                ],
                help: Some(
                    "give each origin its own target bytes, separate the accesses with MPI_Win_fence, or use MPI_Accumulate with one operation for concurrent updates".into(),
                ),
                wait_for: None,
                communicator: None,
                tag: None,
            })
        })
        .collect()
}
