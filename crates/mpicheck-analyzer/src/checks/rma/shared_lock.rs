//! Conflicting accesses from concurrent shared-lock epochs (DR003).

use std::collections::BTreeMap;

use super::conflict::conflicting;
use super::site_text;
use crate::checks::run_event_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text;
use crate::text::ranks;

pub const DR003: CheckInfo = CheckInfo {
    code: "DR003",
    name: "rma-shared-lock-conflict",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "two origins access overlapping bytes of one target under MPI_LOCK_SHARED in epochs nothing orders, and at least one writes them",
    docs: r#"## What it does

Finds two origins that each open one `MPI_Win_lock(MPI_LOCK_SHARED, target, ...)` epoch
on the same window and target between the same two collective calls on the window's
communicator (`MPI_Barrier`, `MPI_Win_fence`, ...), with no other MPI call in between that
could order them (no message, no flush, no other epoch), and whose accesses overlap on the
target's bytes where at least one writes them. Accumulates with the same operation and
basic datatype may overlap, as in DR001. Epochs that other calls may order are not judged.

## Why is this bad

A shared lock lets several origins access the target at the same time: MPI orders
nothing between their epochs. Two puts to the same bytes leave one value, the other or a
mix, and a get may read old, new or torn data. Such concurrent conflicting accesses are
erroneous, and the result changes from run to run.

## Example

```c
MPI_Barrier(MPI_COMM_WORLD);
if (rank > 0) {  /* every other rank writes element 0 of rank 0 */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
}
MPI_Barrier(MPI_COMM_WORLD);
```

## How to fix

Take `MPI_LOCK_EXCLUSIVE` when an epoch writes bytes other origins access, give each
origin its own target bytes, or use `MPI_Accumulate` with one operation (`MPI_SUM`,
`MPI_REPLACE`) for concurrent updates of the same element.

## MPI standard reference

MPI 4.1 §12.5.3 (lock: "shared" locks let epochs of several origins run concurrently),
§12.7.1 (atomicity, and which concurrent accesses to one target location are erroneous),
§12.3.4 (accumulate functions: same operation and basic datatype).
"#,
};

/// One origin's only MPI activity between two collectives on the window's communicator: a
/// shared-lock epoch on one target.
struct LoneEpoch {
    origin: Rank,
    /// Collectives on the window's communicator before it: the same number on every member
    /// names the same stretch between two of them.
    segment: u32,
    target: Rank,
    /// Event indices of its accesses with their target bytes.
    accesses: Vec<Bytes>,
}

/// Event index and target bytes `[start, end)` of one access.
type Bytes = (usize, u64, u64);

/// The lone shared-lock epochs of one rank on one window.
fn lone_epochs(run: &Run, win: WinId, window: &WindowInfo, trace: &RankTrace) -> Vec<LoneEpoch> {
    let mut out = Vec::new();
    // Another thread could order the epochs by calls of its own: single-threaded ranks only.
    if trace
        .events
        .first()
        .is_some_and(|f| trace.events.iter().any(|e| e.thread != f.thread))
    {
        return out;
    }
    let mut segment = 0u32;
    // The epoch being read: (target, accesses, unlocked); `None` after anything else.
    let mut current: Option<(Rank, Vec<Bytes>, bool)> = None;
    let mut spoiled = false;
    for (index, event) in trace.events.iter().enumerate() {
        if let Op::Collective {
            comm,
            blocking: Blocking::Blocking,
            ..
        } = &event.op
        {
            if *comm == window.comm {
                if let (Some((target, accesses, true)), false) = (current.take(), spoiled) {
                    if !accesses.is_empty() {
                        out.push(LoneEpoch {
                            origin: trace.rank,
                            segment,
                            target,
                            accesses,
                        });
                    }
                }
                segment += 1;
                spoiled = false;
                continue;
            }
        }
        let call = run
            .rma
            .get(&(trace.rank, index as u32))
            .filter(|c| c.win == win);
        let ok = event.returned
            && match (call.map(|c| &c.kind), &mut current) {
                (
                    Some(RmaKind::Lock {
                        target: RmaTarget::Rank(t),
                        exclusive: Some(false),
                    }),
                    None,
                ) => {
                    current = Some((*t, Vec::new(), false));
                    true
                }
                (Some(RmaKind::Access(a)), Some((t, accesses, false)))
                    if a.target == RmaTarget::Rank(*t) && !a.request =>
                {
                    if let Some((start, end)) = a.target_range(window) {
                        accesses.push((index, start, end));
                    }
                    true
                }
                (Some(RmaKind::Unlock { target }), Some((t, _, unlocked)))
                    if *target == RmaTarget::Rank(*t) && !*unlocked =>
                {
                    *unlocked = true;
                    true
                }
                _ => false,
            };
        spoiled |= !ok;
    }
    out
}

fn access(run: &Run, origin: Rank, event: usize) -> Option<(&Event, &RmaAccess)> {
    let e = run.ranks.get(origin as usize)?.events.get(event)?;
    match &run.rma.get(&(origin, event as u32))?.kind {
        RmaKind::Access(a) => Some((e, a)),
        _ => None,
    }
}

pub(super) fn check(run: &Run) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (w, window) in run.windows.iter().enumerate() {
        let win = WinId(w as u32);
        let mut by_stretch: BTreeMap<(u32, Rank), Vec<LoneEpoch>> = BTreeMap::new();
        for &member in &window.members {
            let Some(trace) = run.ranks.get(member as usize) else {
                continue;
            };
            for epoch in lone_epochs(run, win, window, trace) {
                by_stretch
                    .entry((epoch.segment, epoch.target))
                    .or_default()
                    .push(epoch);
            }
        }
        // One finding per pair of call sites.
        let mut seen: BTreeMap<(u32, u32), ()> = BTreeMap::new();
        for epochs in by_stretch.values() {
            for (i, p) in epochs.iter().enumerate() {
                for q in &epochs[i + 1..] {
                    for &(pe, ps, pend) in &p.accesses {
                        for &(qe, qs, qend) in &q.accesses {
                            if ps.max(qs) >= pend.min(qend) {
                                continue;
                            }
                            let (Some((ep, ap)), Some((eq, aq))) =
                                (access(run, p.origin, pe), access(run, q.origin, qe))
                            else {
                                continue;
                            };
                            if !conflicting(run, ap, aq)
                                || seen.insert((ep.site.0, eq.site.0), ()).is_some()
                            {
                                continue;
                            }
                            out.push(diagnostic(
                                run,
                                window,
                                (p, ep, ap, ps, pend),
                                (q, eq, aq, qs, qend),
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

type Side<'a> = (&'a LoneEpoch, &'a Event, &'a RmaAccess, u64, u64);

fn diagnostic(run: &Run, window: &WindowInfo, p: Side, q: Side) -> Diagnostic {
    let verb = |a: &RmaAccess| if a.writes_target() { "writes" } else { "reads" };
    let (start, end) = (p.3.max(q.3), p.4.min(q.4));
    let message = text!(
        "{} from {} ({}) and {} from {} ({}) access bytes {start}..{end} of {} in {} in shared-lock epochs nothing orders, and {}",
        p.1.call,
        ranks(p.0.origin),
        site_text(run, p.1),
        q.1.call,
        ranks(q.0.origin),
        site_text(run, q.1),
        ranks(p.0.target),
        window.name.as_str(),
        if p.2.writes_target() && q.2.writes_target() {
            "both write them"
        } else {
            "one writes them while the other reads them"
        },
    );
    let location = |s: &Side| {
        run_event_location(
            run,
            vec![s.0.origin],
            s.1,
            text!(
                "{} bytes {}..{} of {} under MPI_LOCK_SHARED",
                verb(s.2),
                s.3.to_string(),
                s.4.to_string(),
                ranks(s.0.target)
            ),
        )
    };
    Diagnostic {
        code: DR003.code,
        category: DR003.category,
        severity: DR003.severity,
        message,
        locations: vec![location(&p), location(&q)],
        notes: vec![
            "a shared lock lets epochs of several origins run at the same time, and the only calls between these two collectives are the epochs themselves: overlapping accesses where one writes are erroneous, except accumulates with the same operation and basic datatype (MPI 4.1 §12.5.3, §12.7.1)".into(),
        ],
        help: Some(
            "lock with MPI_LOCK_EXCLUSIVE when an epoch writes bytes other origins access, give each origin its own target bytes, or use MPI_Accumulate with one operation".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}
