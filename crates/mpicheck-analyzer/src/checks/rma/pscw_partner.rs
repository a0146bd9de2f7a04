//! `MPI_Win_start` and `MPI_Win_post` groups that do not name each other (RM008).

use std::collections::BTreeMap;

use super::pscw::{Pscw, SyncCall};
use crate::checks::{run_event_location, site_location};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
use crate::model::*;
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

pub const RM008: CheckInfo = CheckInfo {
    code: "RM008",
    name: "pscw-partner-mismatch",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary: "an MPI_Win_start group names a target that posts no matching exposure epoch naming the origin, or an MPI_Win_post group names an origin that never starts an access epoch toward the target",
    docs: r#"## What it does

Pairs the active-target epochs of each window per origin and target: the k-th
`MPI_Win_start` of an origin whose group names a target with the k-th `MPI_Win_post` of
that target whose group names the origin. It reports a start left without its post and a
post left without its start, once the partner can no longer make the missing call: it
has freed the window, ended, or is blocked for good in a synchronization call on the same
window. The other side's calls whose groups lack the rank are shown too.

## Why is this bad

Each start must be matched by a post of every target in its group naming the origin, and
each post by a start of every origin in its group naming the target (MPI 4.1 §12.5.2).
A group pointing the wrong way is erroneous even where the job completes: MPICH counts
post and complete notifications without checking who sent them, so a ring whose start
groups name the left neighbour while the posts expect the right one can complete under
MPICH, with accesses to windows whose owners never exposed them to that origin, and hang
under Open MPI.

## Example

```c
/* each rank exposes its window to its left neighbour ... */
MPI_Win_post(left_group, 0, win);
/* ... but accesses its left neighbour too, instead of its right one */
MPI_Win_start(left_group, 0, win);
MPI_Put(&x, 1, MPI_INT, left, 0, 1, MPI_INT, win);
MPI_Win_complete(win);
MPI_Win_wait(win);
```

## How to fix

Build the two groups from the same pattern: if rank r posts to the origins that access
it, each of those origins must start toward r. In a ring where r accesses its right
neighbour, r's post group is its left neighbour and its start group its right one.

## MPI standard reference

MPI 4.1 §12.5.2 (general active target synchronization: `MPI_Win_start` accesses the
windows of the targets of its group, each of which calls a matching `MPI_Win_post`;
`MPI_Win_wait` waits for the `MPI_Win_complete` of every origin of the post group).
"#,
};

/// Whether `rank` can no longer make a call on `win`: it freed the window, its trace ended,
/// or it is blocked in a synchronization call on the window that never returned.
fn done_with(run: &Run, win: WinId, rank: Rank) -> bool {
    let Some(trace) = run.ranks.get(rank as usize) else {
        return false;
    };
    if matches!(
        trace.end,
        RankEnd::Finalized | RankEnd::ExitedWithoutFinalize
    ) {
        return true;
    }
    let on_win = |index: usize| {
        run.rma
            .get(&(rank, index as u32))
            .filter(|c| c.win == win)
            .map(|c| &c.kind)
    };
    let freed = (0..trace.events.len()).any(|i| matches!(on_win(i), Some(RmaKind::Free)));
    let stuck_on_win = trace.events.last().is_some_and(|e| {
        !e.returned
            && matches!(
                on_win(trace.events.len() - 1),
                Some(
                    RmaKind::Start { .. }
                        | RmaKind::Complete
                        | RmaKind::Wait
                        | RmaKind::Test { .. }
                )
            )
    });
    freed || stuck_on_win
}

/// The side of an epoch a lone call is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Start,
    Post,
}

/// The lone calls of one call site: (rank, partner) pairs, and an example call.
struct Lone {
    pairs: Vec<(Rank, Rank)>,
    example: SyncCall,
}

pub(super) fn check(run: &Run, pscw: &BTreeMap<WinId, Pscw>) -> Vec<Diagnostic> {
    let mut by_site: BTreeMap<(WinId, Side, u32), Lone> = BTreeMap::new();
    for (&win, p) in pscw {
        let lone = p
            .lone_starts
            .iter()
            .map(|&(c, partner)| (Side::Start, c, partner))
            .chain(
                p.lone_posts
                    .iter()
                    .map(|&(c, partner)| (Side::Post, c, partner)),
            );
        for (side, call, partner) in lone {
            if !done_with(run, win, partner) {
                continue;
            }
            let Some(event) = event(run, call) else {
                continue;
            };
            let entry = by_site
                .entry((win, side, event.site.0))
                .or_insert_with(|| Lone {
                    pairs: Vec::new(),
                    example: call,
                });
            if !entry.pairs.contains(&(call.rank, partner)) {
                entry.pairs.push((call.rank, partner));
            }
        }
    }
    by_site
        .into_iter()
        .map(|((win, side, _), lone)| diagnostic(run, win, side, &lone))
        .collect()
}

fn event(run: &Run, call: SyncCall) -> Option<&Event> {
    run.ranks.get(call.rank as usize)?.events.get(call.event)
}

/// The other side's calls on `win` whose groups lack the rank they should name: by site,
/// the ranks that made them.
fn other_side(run: &Run, win: WinId, side: Side, pairs: &[(Rank, Rank)]) -> Vec<Location> {
    let mut sites: BTreeMap<u32, (usize, Rank, RankSet)> = BTreeMap::new();
    for &(rank, partner) in pairs {
        let Some(trace) = run.ranks.get(partner as usize) else {
            continue;
        };
        for (index, event) in trace.events.iter().enumerate() {
            let group = match (run.rma.get(&(partner, index as u32)), side) {
                (Some(c), Side::Start) if c.win == win => match &c.kind {
                    RmaKind::Post { group, .. } => group,
                    _ => continue,
                },
                (Some(c), Side::Post) if c.win == win => match &c.kind {
                    RmaKind::Start { group, .. } => group,
                    _ => continue,
                },
                _ => continue,
            };
            if group.as_ref().is_some_and(|g| !g.contains(&rank)) {
                let entry = sites
                    .entry(event.site.0)
                    .or_insert_with(|| (index, partner, RankSet::default()));
                entry.2.insert(partner);
            }
        }
    }
    sites
        .into_values()
        .filter_map(|(index, rank, ranks)| {
            let event = run.ranks.get(rank as usize)?.events.get(index)?;
            let label = match side {
                Side::Start => "posts an exposure epoch whose group lacks the origin",
                Side::Post => "starts an access epoch whose group lacks the target",
            };
            Some(site_location(run, event.site, ranks, event.call, label))
        })
        .collect()
}

fn diagnostic(run: &Run, win: WinId, side: Side, lone: &Lone) -> Diagnostic {
    let window = run
        .windows
        .get(win.0 as usize)
        .map_or("a window", |w| w.name.as_str());
    let event = event(run, lone.example).expect("a lone call's event");
    let callers: RankSet = lone.pairs.iter().map(|&(r, _)| r).collect();
    let partners: RankSet = lone.pairs.iter().map(|&(_, p)| p).collect();
    const SHOWN: usize = 4;
    let mut listed: Vec<String> = lone
        .pairs
        .iter()
        .take(SHOWN)
        .map(|&(r, p)| format!("{r} → {p}"))
        .collect();
    if lone.pairs.len() > SHOWN {
        listed.push(format!("{} more", lone.pairs.len() - SHOWN));
    }
    let (message, label, note) = match side {
        Side::Start => (
            text!(
                "{} on {} starts an access epoch in {window} toward {}, which never posts a matching exposure epoch naming the origin (origin → target: {})",
                event.call,
                callers.clone(),
                partners,
                listed.join(", "),
            ),
            "names a target that posts no matching epoch naming this rank",
            "each target of an MPI_Win_start group must call a matching MPI_Win_post whose group names the origin (MPI 4.1 §12.5.2); an MPI may complete the epochs without checking, and the accesses then reach windows their owners never exposed to this origin",
        ),
        Side::Post => (
            text!(
                "{} on {} exposes {window} to {}, which never starts a matching access epoch toward the target (target → origin: {})",
                event.call,
                callers.clone(),
                partners,
                listed.join(", "),
            ),
            "names an origin that never starts an epoch toward this rank",
            "each origin of an MPI_Win_post group must call a matching MPI_Win_start whose group names the target, and MPI_Win_wait waits for its MPI_Win_complete (MPI 4.1 §12.5.2)",
        ),
    };
    let mut locations = vec![run_event_location(run, callers, event, Text::from(label))];
    locations.extend(other_side(run, win, side, &lone.pairs));
    Diagnostic {
        code: RM008.code,
        category: RM008.category,
        severity: RM008.severity,
        message,
        locations,
        notes: vec![note.into()],
        help: Some(
            "build the post and start groups from the same pattern: every origin a target posts to must start toward that target, and every target an origin starts toward must post to it".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}
