//! Conflicting accesses from concurrent shared-lock epochs (DR003).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::conflict::conflicting;
use super::{site_text_at, Call, CrossRank};
use crate::checks::site_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text;
use crate::text::ranks;

pub const DR003: CheckInfo = CheckInfo {
    code: "DR003",
    name: "rma-shared-lock-conflict",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "two origins access overlapping bytes of one target under shared locks (MPI_LOCK_SHARED or MPI_Win_lock_all) with nothing ordering the accesses, and at least one writes them",
    docs: r#"## What it does

Collects every access an origin makes under `MPI_Win_lock(MPI_LOCK_SHARED, target, ...)`
or `MPI_Win_lock_all`, with the target bytes it touches and the call that completes it at
the target (the `MPI_Win_unlock`, `MPI_Win_unlock_all` or flush after it). Two accesses of
different origins to overlapping bytes of one target, where at least one writes them,
are reported when nothing orders them: no chain of messages and collectives (a barrier,
a send the other origin receives) leads from the completion of one to the other call.
Accumulates with the same operation and basic datatype may overlap, as in DR001. Every
epoch of every origin is compared, in any number of epochs between two collectives.
Not judged: request-based calls (`MPI_Rput`, ...), ranks that call MPI from several
threads, and accesses a fetching atomic (`MPI_Fetch_and_op`, `MPI_Compare_and_swap`,
`MPI_Get_accumulate`) may order, as in a flag that one origin sets with an accumulate
after its accesses and the other polls before its own.

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

/// Accesses of another origin compared with each access: this many on each side of it in
/// time. Bounds the work on long lock/put/unlock loops, whose conflicts repeat the same
/// pairs of call sites; concurrent epochs are near each other in time.
const NEIGHBOURS: usize = 4;

/// Unordered candidates kept per pair of call sites, for the happens-before query.
const PER_SITES: usize = 16;

/// One access made under a shared lock or `MPI_Win_lock_all`.
#[derive(Clone, Copy, Debug)]
struct SharedAccess {
    origin: Rank,
    event: usize,
    /// The unlock or flush that completes it at the target; `None` if the trace has none.
    completion: Option<usize>,
    target: Rank,
    start: u64,
    end: u64,
    /// When it was made: entry time in the origin's trace, else its event index. Only
    /// chooses which accesses of other origins are compared with it.
    when: u64,
}

/// One origin's accumulate-family calls on one window, which a program may use as flags
/// that order other accesses without any message.
#[derive(Default)]
struct Atomics {
    /// Calls that write the target: (event, target, start, end), in program order.
    writes: Vec<(usize, Rank, u64, u64)>,
    /// Calls that fetch target bytes: (target, start, end) → the first such event.
    reads: BTreeMap<(Rank, u64, u64), usize>,
}

#[derive(Default)]
struct Collected {
    /// By (window, target), then by origin, in program order.
    accesses: BTreeMap<(WinId, Rank), BTreeMap<Rank, Vec<SharedAccess>>>,
    atomics: HashMap<(WinId, Rank), Atomics>,
}

/// One rank's passive-target state on one window.
#[derive(Default)]
struct LockState {
    shared: BTreeSet<Rank>,
    lock_all: bool,
    /// Accesses not completed yet: indices into the rank's list.
    pending: Vec<usize>,
}

fn collect(run: &Run, calls: &[Call], cross: &CrossRank) -> Collected {
    let mut out = Collected::default();
    for rank_calls in calls.chunk_by(|a, b| a.0 == b.0) {
        let rank = rank_calls[0].0;
        // Another thread could order accesses by calls of its own: single-threaded ranks only.
        if !cross.single_thread(rank) {
            continue;
        }
        let mut states: HashMap<WinId, LockState> = HashMap::new();
        let mut mine: Vec<(WinId, SharedAccess)> = Vec::new();
        for &(_, index, call) in rank_calls {
            let event = &call.event;
            let Some(window) = run.windows.get(call.win.0 as usize) else {
                continue;
            };
            let state = states.entry(call.win).or_default();
            // Completes the pending accesses to `target` (every target: `None`).
            let complete = |state: &mut LockState,
                            mine: &mut Vec<(WinId, SharedAccess)>,
                            target: Option<Rank>| {
                state.pending.retain(|&i| {
                    let a = &mut mine[i].1;
                    if target.is_none_or(|t| t == a.target) {
                        a.completion = Some(index);
                        false
                    } else {
                        true
                    }
                });
            };
            match &call.kind {
                RmaKind::Create | RmaKind::Free => *state = LockState::default(),
                RmaKind::Lock {
                    target: RmaTarget::Rank(t),
                    exclusive: Some(false),
                    ..
                } => {
                    state.shared.insert(*t);
                }
                RmaKind::Unlock {
                    target: RmaTarget::Rank(t),
                } => {
                    complete(state, &mut mine, Some(*t));
                    state.shared.remove(t);
                }
                RmaKind::LockAll => state.lock_all = true,
                RmaKind::UnlockAll => {
                    complete(state, &mut mine, None);
                    state.lock_all = false;
                }
                RmaKind::Flush { target } => match target {
                    Some(RmaTarget::Rank(t)) => complete(state, &mut mine, Some(*t)),
                    Some(_) => {}
                    None => complete(state, &mut mine, None),
                },
                RmaKind::Access(a) => {
                    let (RmaTarget::Rank(t), Some((start, end))) =
                        (a.target, a.target_range(window))
                    else {
                        continue;
                    };
                    if a.kind.is_accumulate() {
                        let atomics = out.atomics.entry((call.win, rank)).or_default();
                        if a.writes_target() {
                            atomics.writes.push((index, t, start, end));
                        }
                        if a.kind != AccessKind::Accumulate {
                            atomics.reads.entry((t, start, end)).or_insert(index);
                        }
                    }
                    if a.request || !event.returned || end <= start {
                        continue;
                    }
                    if state.lock_all || state.shared.contains(&t) {
                        state.pending.push(mine.len());
                        mine.push((
                            call.win,
                            SharedAccess {
                                origin: rank,
                                event: index,
                                completion: None,
                                target: t,
                                start,
                                end,
                                when: event.enter_ns.unwrap_or(index as u64),
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        for (win, a) in mine {
            out.accesses
                .entry((win, a.target))
                .or_default()
                .entry(a.origin)
                .or_default()
                .push(a);
        }
    }
    out
}

/// Pairs of overlapping conflicting accesses of different origins to compare, at most
/// [`PER_SITES`] per pair of call sites, and how many pairs of accesses were looked at
/// (at most 2 × [`NEIGHBOURS`] per access and other origin).
fn candidates(
    run: &Run,
    collected: &Collected,
) -> (Vec<(WinId, SharedAccess, SharedAccess)>, usize) {
    let mut out = Vec::new();
    let mut looked = 0usize;
    let mut per_sites: HashMap<(WinId, u32, u32), usize> = HashMap::new();
    let mut seen: HashSet<(Rank, usize, Rank, usize)> = HashSet::new();
    for (&(win, _), by_origin) in &collected.accesses {
        let lists: Vec<&Vec<SharedAccess>> = by_origin.values().collect();
        for (i, xs) in lists.iter().enumerate() {
            for (j, ys) in lists.iter().enumerate() {
                if i == j {
                    continue;
                }
                for x in xs.iter() {
                    let at = ys.partition_point(|y| y.when < x.when);
                    let near = &ys[at.saturating_sub(NEIGHBOURS)..(at + NEIGHBOURS).min(ys.len())];
                    for y in near {
                        looked += 1;
                        if x.start.max(y.start) >= x.end.min(y.end)
                            || x.completion.is_none()
                            || y.completion.is_none()
                        {
                            continue;
                        }
                        // Each pair once, lower origin first.
                        let (p, q) = if i < j { (x, y) } else { (y, x) };
                        if !seen.insert((p.origin, p.event, q.origin, q.event)) {
                            continue;
                        }
                        let (Some((ep, ap)), Some((eq, aq))) = (
                            access(run, p.origin, p.event),
                            access(run, q.origin, q.event),
                        ) else {
                            continue;
                        };
                        if !conflicting(&crate::checks::pass::RunTables::of(run), ap, aq) {
                            continue;
                        }
                        let kept = per_sites.entry((win, ep.site.0, eq.site.0)).or_default();
                        if *kept < PER_SITES {
                            *kept += 1;
                            out.push((win, *p, *q));
                        }
                    }
                }
            }
        }
    }
    (out, looked)
}

/// Per (window, writer, reader): (write event, earliest fetch of its bytes at or after any
/// later write), in write order.
type FlagLinks = HashMap<(WinId, Rank, Rank), Vec<(usize, usize)>>;

/// Whether a flag may order `x` before `y`: after `x`, its origin writes target bytes
/// with an accumulate-family call that `y`'s origin fetches before `y` (MPI 4.1 §12.7:
/// accumulates are atomic, so polling a flag is a valid way to wait for another origin).
/// Cached per (window, writer, reader) as the earliest fetch after each write, suffix
/// minimums over the writes.
fn flag_orders(
    collected: &Collected,
    cache: &mut FlagLinks,
    win: WinId,
    x: &SharedAccess,
    y: &SharedAccess,
) -> bool {
    let links = cache.entry((win, x.origin, y.origin)).or_insert_with(|| {
        let (Some(w), Some(r)) = (
            collected.atomics.get(&(win, x.origin)),
            collected.atomics.get(&(win, y.origin)),
        ) else {
            return Vec::new();
        };
        let mut links: Vec<(usize, usize)> = w
            .writes
            .iter()
            .map(|&(event, t, start, end)| {
                let first = r
                    .reads
                    .range((t, 0, 0)..=(t, u64::MAX, u64::MAX))
                    .filter(|(&(_, s, e), _)| s.max(start) < e.min(end))
                    .map(|(_, &at)| at)
                    .min()
                    .unwrap_or(usize::MAX);
                (event, first)
            })
            .collect();
        for i in (0..links.len().saturating_sub(1)).rev() {
            links[i].1 = links[i].1.min(links[i + 1].1);
        }
        links
    });
    let after = links.partition_point(|&(w, _)| w <= x.event);
    links.get(after).is_some_and(|&(_, r)| r < y.event)
}

fn access(run: &Run, origin: Rank, event: usize) -> Option<(&EventSummary, &RmaAccess)> {
    let call = run.rma.get(&(origin, u32::try_from(event).ok()?))?;
    match &call.kind {
        RmaKind::Access(a) => Some((&call.event, a)),
        _ => None,
    }
}

pub(super) fn check(run: &Run, calls: &[Call], cross: &CrossRank) -> Vec<Diagnostic> {
    let collected = collect(run, calls, cross);
    let (candidates, _) = candidates(run, &collected);
    if candidates.is_empty() {
        return Vec::new();
    }
    let queries: Vec<_> = candidates
        .iter()
        .flat_map(|(_, p, q)| {
            [
                (
                    (p.origin, p.completion.unwrap_or(usize::MAX)),
                    (q.origin, q.event),
                ),
                (
                    (q.origin, q.completion.unwrap_or(usize::MAX)),
                    (p.origin, p.event),
                ),
            ]
        })
        .collect();
    let ordered = cross.happens_before(run, &queries);
    let mut cache = HashMap::new();
    let mut reported: BTreeSet<(WinId, u32, u32)> = BTreeSet::new();
    let mut out = Vec::new();
    for (k, (win, p, q)) in candidates.iter().enumerate() {
        if ordered[2 * k]
            || ordered[2 * k + 1]
            || flag_orders(&collected, &mut cache, *win, p, q)
            || flag_orders(&collected, &mut cache, *win, q, p)
        {
            continue;
        }
        let (Some(window), Some((ep, ap)), Some((eq, aq))) = (
            run.windows.get(win.0 as usize),
            access(run, p.origin, p.event),
            access(run, q.origin, q.event),
        ) else {
            continue;
        };
        if reported.insert((*win, ep.site.0, eq.site.0)) {
            out.push(diagnostic(run, window, (p, ep, ap), (q, eq, aq)));
        }
    }
    out
}

type Side<'a> = (&'a SharedAccess, &'a EventSummary, &'a RmaAccess);

fn diagnostic(run: &Run, window: &WindowInfo, p: Side, q: Side) -> Diagnostic {
    let verb = |a: &RmaAccess| if a.writes_target() { "writes" } else { "reads" };
    let (start, end) = (p.0.start.max(q.0.start), p.0.end.min(q.0.end));
    let message = text!(
        "{} from {} ({}) and {} from {} ({}) access bytes {start}..{end} of {} in {} in shared-lock epochs nothing orders, and {}",
        p.1.call,
        ranks(p.0.origin),
        site_text_at(run, p.1.site),
        q.1.call,
        ranks(q.0.origin),
        site_text_at(run, q.1.site),
        ranks(p.0.target),
        window.name.as_str(),
        if p.2.writes_target() && q.2.writes_target() {
            "both write them"
        } else {
            "one writes them while the other reads them"
        },
    );
    let location = |s: &Side| {
        site_location(
            run,
            s.1.site,
            vec![s.0.origin],
            s.1.call,
            text!(
                "{} bytes {}..{} of {} under a shared lock",
                verb(s.2),
                s.0.start.to_string(),
                s.0.end.to_string(),
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
            "a shared lock lets epochs of several origins run at the same time, and no message or collective recorded after the unlock or flush that completes one access comes before the other: overlapping accesses where one writes are erroneous, except accumulates with the same operation and basic datatype (MPI 4.1 §12.5.3, §12.7.1)".into(),
        ],
        help: Some(
            "lock with MPI_LOCK_EXCLUSIVE when an epoch writes bytes other origins access, order the epochs (a barrier or a message after the unlock), give each origin its own target bytes, or use MPI_Accumulate with one operation".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::rma::calls_in_order;
    use crate::text_trace::parse;

    /// Ranks 1 and 2 each run `epochs` lock/put/unlock epochs on element 0 of rank 0, with
    /// no collective between them.
    fn long_loop(epochs: usize, lock: &str) -> Run {
        let mut text = String::from(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4 @ w.c:1
             *: barrier @ w.c:2\n",
        );
        for _ in 0..epochs {
            text.push_str(&format!(
                "1-2: win_lock win=0 target=0 type={lock} @ w.c:3
                 1-2: put win=0 target=0 disp=0 count=1 type=int @ w.c:4
                 1-2: win_unlock win=0 target=0 @ w.c:5\n"
            ));
        }
        text.push_str("*: barrier @ w.c:6\n*: win_free win=0 @ w.c:7\n*: finalize\n");
        parse(&text).unwrap()
    }

    #[test]
    fn a_long_loop_of_epochs_is_compared_in_bounded_work() {
        let epochs = 3000;
        let run = long_loop(epochs, "shared");
        let (calls, cross) = (calls_in_order(&run), CrossRank::of_run(&run));
        let collected = collect(&run, &calls, &cross);
        let (candidates, looked) = candidates(&run, &collected);
        // Each access is compared with at most 2 × NEIGHBOURS accesses of the other origin
        // (2 origins), not with all 3000.
        assert!(looked <= 2 * epochs * 2 * NEIGHBOURS, "{looked}");
        assert!(looked >= 2 * epochs, "{looked}");
        // One pair of call sites: the happens-before query gets at most PER_SITES pairs.
        assert_eq!(candidates.len(), PER_SITES);
        let found = check(&run, &calls, &cross);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("access bytes 0..4 of rank 0"),
            "{}",
            found[0].message
        );
        // Exclusive locks serialize the epochs: nothing is collected.
        let run = long_loop(epochs, "exclusive");
        assert_eq!(candidates_of(&run), 0);
    }

    fn candidates_of(run: &Run) -> usize {
        let (calls, cross) = (calls_in_order(run), CrossRank::of_run(run));
        candidates(run, &collect(run, &calls, &cross)).0.len()
    }
}
