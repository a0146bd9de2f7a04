//! Conflicting accesses to the same target bytes in one epoch (DR001): of any origins in
//! one fence epoch or one exposure epoch of the target, of one origin in one lock epoch
//! between flushes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::pscw::Pscw;
use super::{site_text, Epoch, EpochAccess, Walk};
use crate::checks::run_event_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text;
use crate::text::{ranks, Text};

pub const DR001: CheckInfo = CheckInfo {
    code: "DR001",
    name: "rma-conflicting-accesses",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "two RMA calls that nothing orders access overlapping bytes of one target and at least one writes them: of any origins in one fence or exposure epoch, of one origin in one epoch with no flush between them (accumulates with one op and type excepted)",
    docs: r#"## What it does

Collects the RMA calls of every epoch with the target bytes each touches (displacement ×
the target's `disp_unit`, count × the size of the target datatype) and reports two calls
whose bytes on the same target overlap, where at least one writes them (a `MPI_Put`, or
an accumulate other than `MPI_Get_accumulate` with `MPI_NO_OP`) and nothing orders them:

- **different origins** in the same fence epoch (between two `MPI_Win_fence` calls), or
  in the same exposure epoch of the target (its `MPI_Win_post` .. `MPI_Win_wait`, the
  origins' `MPI_Win_start` .. `MPI_Win_complete` paired with it). Accumulates
  (`MPI_Accumulate`, `MPI_Get_accumulate`, `MPI_Fetch_and_op`, `MPI_Compare_and_swap`)
  with the same basic datatype and the same operation (or `MPI_NO_OP`) may overlap: MPI
  makes them atomic per element. Different origins under shared locks are DR003's;
  exclusive locks serialize them;
- **one origin** in one fence epoch, one access epoch (`MPI_Win_start` ..
  `MPI_Win_complete`) or one lock epoch (`MPI_Win_lock` or `MPI_Win_lock_all` .. unlock)
  with no `MPI_Win_flush` or `MPI_Win_flush_all` between the two calls: for example a
  `MPI_Put` and then a `MPI_Get` of the same element. MPI orders one origin's accumulates
  to one target, so two accumulates of one origin never conflict; a
  `MPI_Win_flush_local` orders a fetching call (a get) before later calls, not a put.

Not judged: calls whose target datatype has holes, request-based calls (`MPI_Rput`, ...)
in lock epochs (their waits complete them), lock epochs of ranks that call MPI from
several threads, different origins of an access epoch whose post or start group the
trace could not follow (each origin's own calls still are), and windows created with
`accumulate_ordering` relaxed (the info is not recorded: one origin's accumulates are
taken as ordered).

## Why is this bad

Nothing orders the calls of one epoch: MPI may apply them in any order, and a put is not
atomic, so the target ends up with one value, the other, or a mix of both bytes, and a
get may read old, new or torn data. This holds for two calls of one origin too: a get
issued after a put to the same element may reach the target first. The result changes
from run to run without any error. Such conflicting accesses are erroneous.

## Example

```c
MPI_Win_fence(0, win);
if (rank > 0)   /* every non-zero rank writes element 0 of rank 0 */
    MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
MPI_Win_fence(0, win);

MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
MPI_Get(&y, 1, MPI_INT, 1, 0, 1, MPI_INT, win);   /* may read before the put lands */
MPI_Win_unlock(1, win);
```

## How to fix

Give each origin its own target bytes (displacement by origin rank), separate the
accesses by a synchronization (a fence; `MPI_Win_wait` and a new `MPI_Win_post`;
`MPI_Win_flush` to the target between two calls of one lock epoch), or use
`MPI_Accumulate` with one operation (`MPI_SUM`, `MPI_REPLACE`) when several origins
update the same element on purpose, and `MPI_Get_accumulate` with `MPI_NO_OP` to read
after one's own accumulates.

## MPI standard reference

MPI 4.1 §12.7 (which concurrent accesses to one target location are erroneous),
§12.7.1 (atomicity of accumulates), §12.7.2 (ordering: `accumulate_ordering`),
§12.3.4 (accumulate functions: same operation and basic datatype), §12.5.1 (fence),
§12.5.2 (post, start, complete, wait), §12.5.3 (lock), §12.5.4 (flush).
"#,
};

/// How far back among overlapping accesses each new one is compared: bounds the work on
/// epochs where thousands of calls hit the same bytes (their conflicts repeat the same
/// pairs of call sites).
const COMPARED: usize = 64;

/// Overlapping accesses kept for comparison, writes and reads each: the oldest are dropped
/// beyond this, so that an epoch of thousands of accesses to the same bytes stays linear.
const KEPT: usize = 2 * COMPARED;

/// The predefined type all elements of an access's target datatype are made of.
fn basic_datatype<'r>(run: &'r Run, access: &RmaAccess) -> Option<&'r str> {
    let info = run.datatypes.get(access.datatype?.0 as usize)?;
    info.layout.as_deref()?.uniform_basic()
}

/// Whether two overlapping accesses of different origins conflict. Accumulates are
/// compared by their basic datatype, not the handle: two ranks' derived types of `MPI_INT`
/// (PETSc's star forests build one per target) update the same ints atomically.
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

/// Whether two overlapping accesses of one origin in one epoch, `a` before `b`, conflict:
/// MPI orders the accumulate calls of an origin to a target in program order
/// (`accumulate_ordering`, default `rar,raw,war,waw`, MPI 4.1 §12.7.2), nothing else. In a
/// lock epoch, an `MPI_Win_flush_local` between them orders a fetching `a`: its data has
/// arrived, so it was read at the target.
fn conflicting_in_one_origin(a: (&EpochAccess, &RmaAccess), b: (&EpochAccess, &RmaAccess)) -> bool {
    let ((ea, a), (eb, b)) = (a, b);
    let fetched = !matches!(a.kind, AccessKind::Put | AccessKind::Accumulate)
        && matches!(ea.epoch, Epoch::Lock(_))
        && eb.local_flush > ea.event;
    (a.writes_target() || b.writes_target())
        && !(a.kind.is_accumulate() && b.kind.is_accumulate())
        && !fetched
}

/// The accesses that may run at the same time: one epoch of one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Scope {
    /// A fence epoch of the window: every origin's accesses.
    Fence(u32),
    /// The exposure epoch the target's `MPI_Win_post` at this event opened: the accesses
    /// of every origin whose access epoch pairs with it.
    Exposure(usize),
    /// One origin's access epoch (its `MPI_Win_start` event) whose post is not known.
    Access(Rank, usize),
    /// One origin's lock epoch since the event that last ordered its accesses.
    Lock(Rank, usize),
}

impl Scope {
    fn kind(self) -> u8 {
        match self {
            Scope::Fence(_) => 0,
            Scope::Exposure(_) => 1,
            Scope::Access(..) => 2,
            Scope::Lock(..) => 3,
        }
    }
}

pub(super) fn access<'r>(run: &'r Run, f: &EpochAccess) -> Option<(&'r Event, &'r RmaAccess)> {
    let event = run.ranks.get(f.origin as usize)?.events.get(f.event)?;
    match &run.rma.get(&(f.origin, f.event as u32))?.kind {
        RmaKind::Access(a) => Some((event, a)),
        _ => None,
    }
}

/// Every access of every window in its scope, by (window, scope, target).
pub(super) fn scoped(
    walk: &Walk,
    pscw: &BTreeMap<WinId, Pscw>,
) -> BTreeMap<(WinId, Scope, Rank), Vec<EpochAccess>> {
    // (window, origin, start event, target) → the target's paired post event.
    let mut posts: HashMap<(WinId, Rank, usize, Rank), usize> = HashMap::new();
    for (&win, p) in pscw {
        for (post, start) in &p.pairs {
            posts.insert((win, start.rank, start.event, post.rank), post.event);
        }
    }
    let mut out: BTreeMap<(WinId, Scope, Rank), Vec<EpochAccess>> = BTreeMap::new();
    for (&win, accesses) in &walk.epoch_accesses {
        for f in accesses.iter().filter(|f| f.end > f.start) {
            let scope = match f.epoch {
                Epoch::Fence(n) => Scope::Fence(n),
                Epoch::Start(start) => match posts.get(&(win, f.origin, start, f.target)) {
                    Some(&post) => Scope::Exposure(post),
                    None => Scope::Access(f.origin, start),
                },
                Epoch::Lock(since) => Scope::Lock(f.origin, since),
            };
            out.entry((win, scope, f.target))
                .or_default()
                .push(f.clone());
        }
    }
    out
}

/// One conflicting pair: the earlier (by origin, then program order) first.
struct Pair {
    win: WinId,
    scope: Scope,
    first: EpochAccess,
    second: EpochAccess,
}

/// Calls `on_pair` with each conflicting pair of every scope (the earlier access by
/// origin, then program order, first) and returns how many pairs of accesses were
/// compared: at most 2 × [`COMPARED`] per access.
fn conflicting_pairs(
    run: &Run,
    walk: &Walk,
    pscw: &BTreeMap<WinId, Pscw>,
    mut on_pair: impl FnMut(WinId, Scope, &EpochAccess, &EpochAccess),
) -> usize {
    let mut compared = 0usize;
    for ((win, scope, _), mut group) in scoped(walk, pscw) {
        group.sort_by_key(|f| (f.start, f.origin, f.event));
        // Earlier accesses still overlapping the current one: a read conflicts only with a
        // write, so reads need not be compared with reads.
        let (mut writes, mut reads): (Vec<&EpochAccess>, Vec<&EpochAccess>) = Default::default();
        for x in &group {
            let Some((_, ax)) = access(run, x) else {
                continue;
            };
            for kept in [&mut writes, &mut reads] {
                kept.retain(|a| a.end > x.start);
                if kept.len() > KEPT {
                    kept.drain(..kept.len() - KEPT);
                }
            }
            let earlier = writes.iter().rev().take(COMPARED).chain(
                reads
                    .iter()
                    .rev()
                    .take(if ax.writes_target() { COMPARED } else { 0 }),
            );
            for &a in earlier {
                compared += 1;
                let Some((_, aa)) = access(run, a) else {
                    continue;
                };
                let conflict = if a.origin == x.origin {
                    if a.event < x.event {
                        conflicting_in_one_origin((a, aa), (x, ax))
                    } else {
                        conflicting_in_one_origin((x, ax), (a, aa))
                    }
                } else {
                    conflicting(run, aa, ax)
                };
                if conflict {
                    if (a.origin, a.event) <= (x.origin, x.event) {
                        on_pair(win, scope, a, x);
                    } else {
                        on_pair(win, scope, x, a);
                    }
                }
            }
            if ax.writes_target() {
                writes.push(x);
            } else {
                reads.push(x);
            }
        }
    }
    compared
}

/// The pairs found at one pair of call sites in one kind of scope.
struct Found {
    first: Pair,
    pairs: usize,
    origins_a: BTreeSet<Rank>,
    origins_b: BTreeSet<Rank>,
}

pub(super) fn diagnostics(run: &Run, walk: &Walk, pscw: &BTreeMap<WinId, Pscw>) -> Vec<Diagnostic> {
    // (window, scope kind, one origin, site and call of one side, of the other) → the first
    // pair and all origins.
    type Key = (WinId, u8, bool, u32, &'static str, u32, &'static str);
    let mut found: BTreeMap<Key, Found> = BTreeMap::new();
    conflicting_pairs(run, walk, pscw, |win, scope, p, q| {
        let (Some((ep, _)), Some((eq, _))) = (access(run, p), access(run, q)) else {
            return;
        };
        let key = (
            win,
            scope.kind(),
            p.origin == q.origin,
            ep.site.0,
            ep.call,
            eq.site.0,
            eq.call,
        );
        let entry = found.entry(key).or_insert_with(|| Found {
            first: Pair {
                win,
                scope,
                first: p.clone(),
                second: q.clone(),
            },
            pairs: 0,
            origins_a: BTreeSet::new(),
            origins_b: BTreeSet::new(),
        });
        entry.pairs += 1;
        entry.origins_a.insert(p.origin);
        entry.origins_b.insert(q.origin);
    });
    found
        .into_values()
        .filter_map(|f| diagnostic(run, f))
        .collect()
}

/// Where the two calls meet: `in the same fence epoch`, ...
fn scope_text(run: &Run, scope: Scope, target: Rank, one_origin: bool) -> Text {
    let call_at = |rank: Rank, event: usize| {
        run.ranks
            .get(rank as usize)
            .and_then(|t| t.events.get(event))
            .map_or_else(String::new, |e| {
                format!(" ({} at {})", e.call, site_text(run, e))
            })
    };
    match scope {
        Scope::Fence(_) => "in the same fence epoch".into(),
        Scope::Exposure(post) if !one_origin => {
            text!(
                "in the same exposure epoch of {}{}",
                ranks(target),
                call_at(target, post)
            )
        }
        Scope::Exposure(_) | Scope::Access(..) => "in the same access epoch".into(),
        Scope::Lock(..) => {
            "in the same passive-target epoch with no MPI_Win_flush to the target between them"
                .into()
        }
    }
}

fn diagnostic(run: &Run, f: Found) -> Option<Diagnostic> {
    let window = run.windows.get(f.first.win.0 as usize)?;
    let (p, q) = (&f.first.first, &f.first.second);
    let scope = f.first.scope;
    let (ep, ap) = access(run, p)?;
    let (eq, aq) = access(run, q)?;
    let one_origin = p.origin == q.origin;
    let (start, end) = (p.start.max(q.start), p.end.min(q.end));
    let verb = |a: &RmaAccess| if a.writes_target() { "writes" } else { "reads" };
    let message =
        text!(
        "{} from {} ({}) and {} from {} ({}) access bytes {start}..{end} of {} in {} {}, and {}{}",
        ep.call,
        ranks(p.origin),
        site_text(run, ep),
        eq.call,
        ranks(q.origin),
        site_text(run, eq),
        ranks(p.target),
        window.name.as_str(),
        scope_text(run, scope, p.target, one_origin),
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
    // A location folded over several origins may stand for other targets and bytes.
    let label = |a: &RmaAccess, x: &EpochAccess, origins: &BTreeSet<Rank>| {
        if origins.len() == 1 {
            text!(
                "{} bytes {}..{} of {}",
                verb(a),
                x.start,
                x.end,
                ranks(x.target)
            )
        } else {
            text!("{} target bytes the other call also accesses", verb(a))
        }
    };
    let mut first = run_event_location(run, vec![p.origin], ep, label(ap, p, &f.origins_a));
    first.ranks = f.origins_a.into_iter().collect();
    let mut second = run_event_location(run, vec![q.origin], eq, label(aq, q, &f.origins_b));
    second.ranks = f.origins_b.into_iter().collect();
    let (note, help) = if one_origin {
        (
            "MPI orders the accumulate calls of one origin to one target (MPI 4.1 §12.7.2), but no other two calls of one epoch: the second may reach the target before the first, and overlapping accesses where one writes are erroneous (MPI 4.1 §12.7)",
            match scope {
                Scope::Lock(..) => "call MPI_Win_flush on the target between the two calls, merge them into one, or use accumulate calls (MPI_Accumulate, MPI_Get_accumulate), which MPI orders",
                _ => "end the epoch between the two calls (MPI_Win_fence, or MPI_Win_complete and a new MPI_Win_start), merge them into one, or use accumulate calls (MPI_Accumulate, MPI_Get_accumulate), which MPI orders",
            },
        )
    } else {
        (
            "RMA calls of one epoch are not ordered: overlapping accesses to one target location where one writes are erroneous, except accumulates with the same operation and basic datatype (MPI 4.1 §12.7.1)",
            match scope {
                Scope::Fence(_) => "give each origin its own target bytes, separate the accesses with MPI_Win_fence, or use MPI_Accumulate with one operation for concurrent updates",
                _ => "give each origin its own target bytes, expose them in separate epochs (MPI_Win_wait and a new MPI_Win_post between the accesses), or use MPI_Accumulate with one operation for concurrent updates",
            },
        )
    };
    Some(Diagnostic {
        code: DR001.code,
        category: DR001.category,
        severity: DR001.severity,
        message,
        locations: vec![first, second],
        notes: vec![note.into()],
        help: Some(help.into()),
        wait_for: None,
        communicator: None,
        tag: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::rma::{pscw, walk};
    use crate::text_trace::parse;

    /// Ranks 1 and 2 run `body` `times` times between a window's creation and its free.
    fn repeated(times: usize, body: &str) -> Run {
        let mut text = String::from(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4 @ w.c:1\n",
        );
        for _ in 0..times {
            text.push_str(body);
            text.push('\n');
        }
        text.push_str("*: win_free win=0 @ w.c:9\n*: finalize\n");
        parse(&text).unwrap()
    }

    /// (findings, pairs of accesses compared).
    fn compare(run: &Run) -> (Vec<Diagnostic>, usize) {
        let (walk, pscw) = (walk(run), pscw::pair(run));
        let compared = conflicting_pairs(run, &walk, &pscw, |_, _, _, _| {});
        (diagnostics(run, &walk, &pscw), compared)
    }

    const EPOCHS: usize = 3000;

    #[test]
    fn thousands_of_epochs_are_compared_in_linear_work() {
        let put = "put win=0 target=0 disp=0 count=1 type=int";
        let cases = [
            format!("*: win_fence win=0 @ w.c:2\n1-2: {put} @ w.c:3"),
            format!(
                "0: win_post win=0 group=1,2 @ w.c:2
                 1-2: win_start win=0 group=0 @ w.c:3
                 1-2: {put} @ w.c:4
                 1-2: win_complete win=0 @ w.c:5
                 0: win_wait win=0 @ w.c:6"
            ),
            format!(
                "1: win_lock win=0 target=0 type=exclusive @ w.c:2
                 1: {put} @ w.c:3
                 1: get win=0 target=0 disp=0 count=1 type=int @ w.c:4
                 1: win_unlock win=0 target=0 @ w.c:5"
            ),
        ];
        for body in cases {
            let (found, compared) = compare(&repeated(EPOCHS, &body));
            // One conflicting pair per epoch, each compared once: no epoch with another.
            assert_eq!(compared, EPOCHS, "{body}");
            assert_eq!(found.len(), 1, "{body}");
            assert!(
                found[0]
                    .message
                    .ends_with("(2999 more conflicting pairs of calls at these two lines)"),
                "{}",
                found[0].message
            );
        }
    }

    #[test]
    fn thousands_of_accesses_to_the_same_bytes_in_one_epoch_are_compared_in_bounded_work() {
        let run = repeated(
            1,
            &format!(
                "1: win_lock_all win=0 @ w.c:2
                 {}1: win_unlock_all win=0 @ w.c:5",
                "1: put win=0 target=0 disp=0 count=1 type=int @ w.c:3\n".repeat(EPOCHS)
            ),
        );
        let (found, compared) = compare(&run);
        assert!(compared <= EPOCHS * COMPARED, "{compared}");
        assert_eq!(found.len(), 1);
        // Reads are compared with the writes only: one put, then thousands of gets.
        let run = repeated(
            1,
            &format!(
                "*: win_fence win=0 @ w.c:2
                 1: put win=0 target=0 disp=0 count=1 type=int @ w.c:3
                 {}*: win_fence win=0 @ w.c:5",
                "2: get win=0 target=0 disp=0 count=1 type=int @ w.c:4\n".repeat(EPOCHS)
            ),
        );
        let (found, compared) = compare(&run);
        assert_eq!(compared, EPOCHS);
        assert_eq!(found.len(), 1);
    }
}
