//! Conflicting accesses to the same target bytes in one epoch (DR001): of any origins in
//! one fence epoch or one exposure epoch of the target, of one origin in one lock epoch
//! between flushes.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::pscw::Pscw;
use super::{site_text_in, Epoch, EpochAccess, Walk};
use crate::checks::pass::RunTables;
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
fn basic_datatype<'t>(tables: &RunTables<'t>, access: &RmaAccess) -> Option<&'t str> {
    let info = tables.datatype(access.datatype?)?;
    info.layout.as_deref()?.uniform_basic()
}

/// Whether two overlapping accesses of different origins conflict. Accumulates are
/// compared by their basic datatype, not the handle: two ranks' derived types of `MPI_INT`
/// (PETSc's star forests build one per target) update the same ints atomically.
pub(super) fn conflicting(tables: &RunTables, a: &RmaAccess, b: &RmaAccess) -> bool {
    if !a.writes_target() && !b.writes_target() {
        return false;
    }
    let same_basic = a.datatype == b.datatype
        || basic_datatype(tables, a).is_some_and(|t| Some(t) == basic_datatype(tables, b));
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

pub(super) fn access<'r>(
    run: &'r Run,
    f: &EpochAccess,
) -> Option<(&'r EventSummary, &'r RmaAccess)> {
    let call = run.rma.get(&(f.origin, f.event as u32))?;
    match &call.kind {
        RmaKind::Access(a) => Some((&call.event, a)),
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

/// One access of a scope, with its call.
#[derive(Clone, Debug)]
pub(super) struct ScopedAccess {
    pub at: EpochAccess,
    pub access: RmaAccess,
    pub site: SiteId,
    pub call: &'static str,
}

/// Calls `on_pair` with each conflicting pair of the accesses of one scope to one target
/// (the earlier access by origin, then program order, first), in a fixed order, and returns
/// how many pairs of accesses were compared: at most 2 × [`COMPARED`] per access.
fn compare_scope(
    tables: &RunTables,
    group: &mut [ScopedAccess],
    mut on_pair: impl FnMut(&ScopedAccess, &ScopedAccess),
) -> usize {
    let mut compared = 0usize;
    group.sort_by_key(|f| (f.at.start, f.at.origin, f.at.event));
    // Earlier accesses still overlapping the current one: a read conflicts only with a
    // write, so reads need not be compared with reads.
    let (mut writes, mut reads): (Vec<&ScopedAccess>, Vec<&ScopedAccess>) = Default::default();
    for x in group.iter() {
        for kept in [&mut writes, &mut reads] {
            kept.retain(|a| a.at.end > x.at.start);
            if kept.len() > KEPT {
                kept.drain(..kept.len() - KEPT);
            }
        }
        let earlier = writes
            .iter()
            .rev()
            .take(COMPARED)
            .chain(reads.iter().rev().take(if x.access.writes_target() {
                COMPARED
            } else {
                0
            }));
        for &a in earlier {
            compared += 1;
            let conflict = if a.at.origin == x.at.origin {
                if a.at.event < x.at.event {
                    conflicting_in_one_origin((&a.at, &a.access), (&x.at, &x.access))
                } else {
                    conflicting_in_one_origin((&x.at, &x.access), (&a.at, &a.access))
                }
            } else {
                conflicting(tables, &a.access, &x.access)
            };
            if conflict {
                if (a.at.origin, a.at.event) <= (x.at.origin, x.at.event) {
                    on_pair(a, x);
                } else {
                    on_pair(x, a);
                }
            }
        }
        if x.access.writes_target() {
            writes.push(x);
        } else {
            reads.push(x);
        }
    }
    compared
}

/// One conflicting pair: the earlier (by origin, then program order) first.
struct Pair {
    win: WinId,
    scope: Scope,
    first: ScopedAccess,
    second: ScopedAccess,
    /// The target's `MPI_Win_post` of an exposure epoch: its site and call.
    post: Option<(SiteId, &'static str)>,
}

/// The pairs found at one pair of call sites in one kind of scope.
struct Found {
    first: Pair,
    /// Where `first` comes among the pairs of the run, scope after scope as a walk of the
    /// whole run meets them: (scope, target, rank of the pair in its scope's).
    at: (Scope, Rank, usize),
    pairs: usize,
    origins_a: BTreeSet<Rank>,
    origins_b: BTreeSet<Rank>,
}

/// (window, scope kind, one origin, site and call of one side, of the other), in the ids as
/// the events gave them.
type Key = (WinId, u8, bool, u32, &'static str, u32, &'static str);

/// DR001's findings: the conflicting pairs of the scopes compared so far, by pair of call
/// sites. Scopes may be compared in any order: each keeps the pair a walk of the whole run,
/// scope after scope, would meet first.
#[derive(Default)]
pub(super) struct Conflicts {
    found: BTreeMap<Key, Found>,
}

impl Conflicts {
    /// Compares the accesses of `group`, made in `scope` of window `win` to `target`
    /// (`post`: the post of an exposure epoch); returns how many pairs were compared.
    pub fn scope(
        &mut self,
        tables: &RunTables,
        win: WinId,
        scope: Scope,
        target: Rank,
        post: Option<(SiteId, &'static str)>,
        group: &mut [ScopedAccess],
    ) -> usize {
        let mut seq = 0;
        compare_scope(tables, group, |p, q| {
            let key = (
                win,
                scope.kind(),
                p.at.origin == q.at.origin,
                p.site.0,
                p.call,
                q.site.0,
                q.call,
            );
            let at = (scope, target, seq);
            seq += 1;
            let pair = || Pair {
                win,
                scope,
                first: p.clone(),
                second: q.clone(),
                post,
            };
            let entry = self.found.entry(key).or_insert_with(|| Found {
                first: pair(),
                at,
                pairs: 0,
                origins_a: BTreeSet::new(),
                origins_b: BTreeSet::new(),
            });
            if at < entry.at {
                (entry.first, entry.at) = (pair(), at);
            }
            entry.pairs += 1;
            entry.origins_a.insert(p.at.origin);
            entry.origins_b.insert(q.at.origin);
        })
    }

    /// Adds the findings of `other`, whose scopes are not among these.
    pub fn merge(&mut self, other: Conflicts) {
        for (key, theirs) in other.found {
            match self.found.entry(key) {
                Entry::Vacant(slot) => {
                    slot.insert(theirs);
                }
                Entry::Occupied(mut slot) => {
                    let mine = slot.get_mut();
                    if theirs.at < mine.at {
                        (mine.first, mine.at) = (theirs.first, theirs.at);
                    }
                    mine.pairs += theirs.pairs;
                    mine.origins_a.extend(theirs.origins_a);
                    mine.origins_b.extend(theirs.origins_b);
                }
            }
        }
    }

    /// One diagnostic per pair of call sites and kind of scope, in the order of their
    /// window and sites once numbered for good.
    pub fn diagnostics(self, tables: &RunTables) -> Vec<Diagnostic> {
        let mut found: Vec<(Key, Found)> = self.found.into_iter().collect();
        found.sort_by_key(|((win, kind, one, a, call_a, b, call_b), _)| {
            (
                tables.window_order(*win),
                *kind,
                *one,
                tables.site_order(SiteId(*a)),
                *call_a,
                tables.site_order(SiteId(*b)),
                *call_b,
            )
        });
        found
            .into_iter()
            .filter_map(|(_, f)| diagnostic(tables, f))
            .collect()
    }
}

/// Where the two calls meet: `in the same fence epoch`, ...
fn scope_text(
    tables: &RunTables,
    scope: Scope,
    target: Rank,
    one_origin: bool,
    post: Option<(SiteId, &'static str)>,
) -> Text {
    let post_at = post.map_or_else(String::new, |(site, call)| {
        format!(" ({call} at {})", site_text_in(tables, site))
    });
    match scope {
        Scope::Fence(_) => "in the same fence epoch".into(),
        Scope::Exposure(_) if !one_origin => {
            text!("in the same exposure epoch of {}{}", ranks(target), post_at)
        }
        Scope::Exposure(_) | Scope::Access(..) => "in the same access epoch".into(),
        Scope::Lock(..) => {
            "in the same passive-target epoch with no MPI_Win_flush to the target between them"
                .into()
        }
    }
}

fn diagnostic(tables: &RunTables, f: Found) -> Option<Diagnostic> {
    let window = tables.window(f.first.win)?;
    let (p, q) = (&f.first.first, &f.first.second);
    let scope = f.first.scope;
    let (ap, aq) = (&p.access, &q.access);
    let one_origin = p.at.origin == q.at.origin;
    let (start, end) = (p.at.start.max(q.at.start), p.at.end.min(q.at.end));
    let verb = |a: &RmaAccess| if a.writes_target() { "writes" } else { "reads" };
    let message =
        text!(
        "{} from {} ({}) and {} from {} ({}) access bytes {start}..{end} of {} in {} {}, and {}{}",
        p.call,
        ranks(p.at.origin),
        site_text_in(tables, p.site),
        q.call,
        ranks(q.at.origin),
        site_text_in(tables, q.site),
        ranks(p.at.target),
        window.name.as_str(),
        scope_text(tables, scope, p.at.target, one_origin, f.first.post),
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
    let first_label = label(ap, &p.at, &f.origins_a);
    let first = tables.location(
        p.site,
        f.origins_a.into_iter().collect::<Vec<_>>(),
        p.call,
        first_label,
    );
    let second_label = label(aq, &q.at, &f.origins_b);
    let second = tables.location(
        q.site,
        f.origins_b.into_iter().collect::<Vec<_>>(),
        q.call,
        second_label,
    );
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

/// DR001 on the whole run: (findings, pairs of accesses compared), the run's accesses
/// grouped by scope (what the pass finds scope by scope as the events stream, for tests).
#[cfg(test)]
fn on_run(run: &Run, walk: &Walk, pscw: &BTreeMap<WinId, Pscw>) -> (Vec<Diagnostic>, usize) {
    let tables = RunTables::of(run);
    let mut conflicts = Conflicts::default();
    let mut compared = 0;
    for ((win, scope, target), group) in scoped(walk, pscw) {
        let mut group: Vec<ScopedAccess> = group
            .into_iter()
            .filter_map(|at| {
                let (event, access) = access(run, &at)?;
                Some(ScopedAccess {
                    at,
                    access: access.clone(),
                    site: event.site,
                    call: event.call,
                })
            })
            .collect();
        let post = match scope {
            Scope::Exposure(post) => {
                let event = &run.rma[&(target, post as u32)].event;
                Some((event.site, event.call))
            }
            _ => None,
        };
        compared += conflicts.scope(&tables, win, scope, target, post, &mut group);
    }
    (conflicts.diagnostics(&tables), compared)
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
        let (walk, pscw) = (
            walk(run),
            pscw::pair(&crate::checks::rma::calls_in_order(run)),
        );
        on_run(run, &walk, &pscw)
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
