//! `MPI_Win_start` and `MPI_Win_post` groups that do not name each other (RM008), fed
//! while the events stream ([`Partners`]).

use std::collections::{BTreeMap, BTreeSet};

use super::pscw::{StreamPairing, SyncAt, SyncCall};
use crate::checks::pass::RunTables;
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

/// The side of an epoch a lone call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Start,
    Post,
}

/// A post or start group, where it was given: site, call and the group's ranks.
type GroupAt = (SiteId, &'static str, Vec<Rank>);

/// One window's post and start calls while the events stream.
#[derive(Default)]
struct WindowCalls {
    pairing: StreamPairing,
    /// Each rank's posts (`Side::Post`) and starts, as the other side's findings show
    /// them: the distinct (site, call, group) of each, with the group's ranks.
    groups: BTreeMap<(Rank, Side), Vec<GroupAt>>,
    /// The members that freed the window.
    freed: BTreeSet<Rank>,
}

/// RM008 fed each rank's calls on windows (the ranks interleaved): per window, the posts
/// and starts not paired yet. A window is dropped once every member freed it with every
/// call paired; the lone calls are judged at the end, when it is known which partners can
/// no longer make the missing call.
#[derive(Default)]
pub(super) struct Partners {
    windows: BTreeMap<WinId, WindowCalls>,
    /// By rank: the window of its latest call, if that is a synchronization call of an
    /// active-target epoch that has not returned (so far: its last call at the end).
    blocked_on: Vec<Option<WinId>>,
}

impl Partners {
    /// How many windows are followed, and how many post or start calls wait for their
    /// partner's, one per partner named (for tests).
    #[cfg(test)]
    pub fn held(&self) -> (usize, usize) {
        let waiting = self
            .windows
            .values()
            .map(|w| {
                let p = &w.pairing;
                p.posts
                    .values()
                    .chain(p.starts.values())
                    .map(|q| q.len())
                    .sum::<usize>()
            })
            .sum();
        (self.windows.len(), waiting)
    }

    /// The next event of `rank`, `index`, a call on a window if `call`: the post and start
    /// pairs it completes, (post, start).
    pub fn event(
        &mut self,
        rank: Rank,
        index: usize,
        event: &Event,
        call: Option<&RmaCall>,
        window: Option<&WindowInfo>,
    ) -> Vec<(SyncAt, SyncAt)> {
        let r = rank as usize;
        if self.blocked_on.len() <= r {
            self.blocked_on.resize(r + 1, None);
        }
        self.blocked_on[r] = call
            .filter(|c| {
                !event.returned
                    && matches!(
                        c.kind,
                        RmaKind::Start { .. }
                            | RmaKind::Complete
                            | RmaKind::Wait
                            | RmaKind::Test { .. }
                    )
            })
            .map(|c| c.win);
        let (Some(call), Some(window)) = (call, window) else {
            return Vec::new();
        };
        let (side, group, nocheck) = match &call.kind {
            RmaKind::Post { group, nocheck } => (Side::Post, group, *nocheck),
            RmaKind::Start { group, nocheck } => (Side::Start, group, *nocheck),
            RmaKind::Free => {
                let calls = self.windows.entry(call.win).or_default();
                calls.freed.insert(rank);
                if calls.pairing.is_empty()
                    && window.members.iter().all(|m| calls.freed.contains(m))
                {
                    self.windows.remove(&call.win);
                }
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        let calls = self.windows.entry(call.win).or_default();
        let me = SyncAt {
            call: SyncCall {
                rank,
                event: index,
                nocheck,
            },
            site: event.site,
            name: event.call,
        };
        let paired = calls.pairing.call(me, side == Side::Post, group.as_deref());
        if let Some(group) = group {
            let seen = calls.groups.entry((rank, side)).or_default();
            if !seen
                .iter()
                .any(|(site, _, g)| *site == event.site && g == group)
            {
                seen.push((event.site, event.call, group.clone()));
            }
        }
        paired
    }

    /// The findings, once every event was given.
    pub fn diagnostics(self, tables: &RunTables) -> Vec<Diagnostic> {
        let mut windows: Vec<(WinId, WindowCalls)> = self.windows.into_iter().collect();
        windows.sort_by_key(|(win, _)| tables.window_order(*win));
        // (window, side, site) in the order of their final ids → the lone calls there.
        let mut by_site: BTreeMap<(u32, Side, u32), (WinId, Lone)> = BTreeMap::new();
        for (win, calls) in &windows {
            // Whether `rank` can no longer make a call on the window: it freed the window,
            // its trace ended, or it is blocked in a synchronization call on the window that
            // never returned.
            let done_with = |rank: Rank| {
                tables.rank_end(rank).is_some_and(|end| {
                    matches!(end, RankEnd::Finalized | RankEnd::ExitedWithoutFinalize)
                        || calls.freed.contains(&rank)
                        || self.blocked_on.get(rank as usize) == Some(&Some(*win))
                })
            };
            let pairing = &calls.pairing;
            let lone = pairing
                .starts
                .iter()
                .map(|(&(origin, target), q)| (Side::Start, origin, target, q))
                .chain(
                    pairing
                        .posts
                        .iter()
                        .map(|(&(target, origin), q)| (Side::Post, target, origin, q)),
                );
            for (side, rank, partner, queue) in lone {
                if !pairing.known(rank, partner) || !done_with(partner) {
                    continue;
                }
                for call in queue {
                    let key = (
                        tables.window_order(*win),
                        side,
                        tables.site_order(call.site),
                    );
                    let (_, entry) = by_site.entry(key).or_insert_with(|| {
                        (
                            *win,
                            Lone {
                                pairs: Vec::new(),
                                example: *call,
                            },
                        )
                    });
                    if !entry.pairs.contains(&(rank, partner)) {
                        entry.pairs.push((rank, partner));
                    }
                }
            }
        }
        let calls: BTreeMap<WinId, &WindowCalls> = windows.iter().map(|(w, c)| (*w, c)).collect();
        by_site
            .into_iter()
            .map(|((_, side, _), (win, lone))| diagnostic(tables, win, calls[&win], side, &lone))
            .collect()
    }
}

/// The lone calls of one call site: (rank, partner) pairs, and an example call.
struct Lone {
    pairs: Vec<(Rank, Rank)>,
    example: SyncAt,
}

/// The other side's calls on the window whose groups lack the rank they should name: by
/// site, the ranks that made them.
fn other_side(
    tables: &RunTables,
    calls: &WindowCalls,
    side: Side,
    pairs: &[(Rank, Rank)],
) -> Vec<Location> {
    let other = match side {
        Side::Start => Side::Post,
        Side::Post => Side::Start,
    };
    // Site, in the order of its final id → the call, and the ranks.
    let mut sites: BTreeMap<u32, (SiteId, &'static str, RankSet)> = BTreeMap::new();
    for &(rank, partner) in pairs {
        let Some(groups) = calls.groups.get(&(partner, other)) else {
            continue;
        };
        for (site, call, group) in groups {
            if !group.contains(&rank) {
                let entry = sites
                    .entry(tables.site_order(*site))
                    .or_insert_with(|| (*site, call, RankSet::default()));
                entry.2.insert(partner);
            }
        }
    }
    let label = match side {
        Side::Start => "posts an exposure epoch whose group lacks the origin",
        Side::Post => "starts an access epoch whose group lacks the target",
    };
    sites
        .into_values()
        .map(|(site, call, ranks)| tables.location(site, ranks, call, label))
        .collect()
}

fn diagnostic(
    tables: &RunTables,
    win: WinId,
    calls: &WindowCalls,
    side: Side,
    lone: &Lone,
) -> Diagnostic {
    let window = tables.window(win).map_or("a window", |w| w.name.as_str());
    let example = lone.example;
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
                example.name,
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
                example.name,
                callers.clone(),
                partners,
                listed.join(", "),
            ),
            "names an origin that never starts an epoch toward this rank",
            "each origin of an MPI_Win_post group must call a matching MPI_Win_start whose group names the target, and MPI_Win_wait waits for its MPI_Win_complete (MPI 4.1 §12.5.2)",
        ),
    };
    let mut locations =
        vec![tables.location(example.site, callers, example.name, Text::from(label))];
    locations.extend(other_side(tables, calls, side, &lone.pairs));
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
