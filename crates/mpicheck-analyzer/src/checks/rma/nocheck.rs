//! `MPI_MODE_NOCHECK` on `MPI_Win_post` or `MPI_Win_start` that no recorded synchronization
//! backs (RM007).

use std::collections::BTreeMap;

use super::pscw::{Pscw, SyncCall};
use super::{site_text_at, CrossRank};
use crate::checks::site_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

pub const RM007: CheckInfo = CheckInfo {
    code: "RM007",
    name: "unsynchronized-nocheck",
    category: Category::RmaEpoch,
    severity: Severity::Error,
    summary: "MPI_Win_start or MPI_Win_post is given MPI_MODE_NOCHECK, but nothing orders the target's post before the origin's matching start; or MPI_Win_lock is given MPI_MODE_NOCHECK while another origin's conflicting lock epoch on the target is not ordered with it",
    docs: r#"## What it does

Pairs every `MPI_Win_start` with the matching `MPI_Win_post` of each target (the k-th
start of an origin naming a target with the k-th post of that target naming the origin)
and, where either call gives `MPI_MODE_NOCHECK`, looks for synchronization the trace
records between them: a chain of messages and collectives (a barrier, an allreduce, a
send the origin receives after the target posted) by which the post happens before the
start. Where there is none, it reports both calls.

It also compares every `MPI_Win_lock` given `MPI_MODE_NOCHECK` with the lock epochs of
other origins on the same window and target (`MPI_Win_lock_all` counting as a shared lock
of every target) where one of the two locks is `MPI_LOCK_EXCLUSIVE`: when no chain of
messages and collectives orders one epoch's `MPI_Win_unlock` before the other's
`MPI_Win_lock`, both locks are reported.

## Why is this bad

`MPI_MODE_NOCHECK` is a promise. On `MPI_Win_start` it says "the matching calls to
`MPI_Win_post` have already completed on all target processes"; on `MPI_Win_post`, "the
matching calls to `MPI_Win_start` have not yet occurred on any origin". The MPI then skips
the handshake between post and start. On `MPI_Win_lock` it says that no other process
holds or attempts to acquire a conflicting lock while the caller holds the window lock, and
the MPI does not take the lock at all: two such epochs run at once and an exclusive epoch
is no longer exclusive. When nothing orders them, the promise holds only by
luck of timing: a start that runs ahead of its post may put into a window not yet
exposed, or leave the epoch unmatched, and `MPI_Win_wait` hangs (Open MPI hangs in it
about once in 40 runs of the example). The finding is a property of the calls, not of one
run's timing.

## Example

```c
MPI_Win_post(peer_group, MPI_MODE_NOCHECK, win);
MPI_Win_start(peer_group, MPI_MODE_NOCHECK, win);   /* peer may not have posted yet */
MPI_Get(&y, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
MPI_Win_complete(win);
MPI_Win_wait(win);
```

## How to fix

Order each post before its matching start, e.g. with `MPI_Barrier` (or a message from
target to origin) between `MPI_Win_post` and `MPI_Win_start`, or drop `MPI_MODE_NOCHECK`
and let the MPI do the handshake. For locks: order the epochs (a barrier or a message
after one unlock and before the other lock), or drop `MPI_MODE_NOCHECK`.

## MPI standard reference

MPI 4.1 §12.5.5 (assertions: `MPI_MODE_NOCHECK` on `MPI_Win_start`, `MPI_Win_post` and
`MPI_Win_lock`), §12.5.3 (lock types),
§12.5.2 (general active target synchronization).
"#,
};

/// One finding per (post site, start site): the ranks of each side.
#[derive(Default)]
struct Sites {
    targets: RankSet,
    origins: RankSet,
    /// A pair of them: (post, start).
    example: Option<(SyncCall, SyncCall)>,
}

pub(super) fn check(run: &Run, pscw: &BTreeMap<WinId, Pscw>, cross: &CrossRank) -> Vec<Diagnostic> {
    let mut candidates: Vec<(WinId, SyncCall, SyncCall)> = Vec::new();
    for (&win, p) in pscw {
        for &(post, start) in &p.pairs {
            if post.nocheck || start.nocheck {
                candidates.push((win, post, start));
            }
        }
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let queries: Vec<_> = candidates
        .iter()
        .map(|(_, post, start)| ((post.rank, post.event), (start.rank, start.event)))
        .collect();
    let ordered = cross.happens_before(run, &queries);
    let mut by_site: BTreeMap<(WinId, u32, u32), Sites> = BTreeMap::new();
    for (&(win, post, start), ordered) in candidates.iter().zip(ordered) {
        if ordered {
            continue;
        }
        let (Some(p), Some(s)) = (event(run, post), event(run, start)) else {
            continue;
        };
        let sites = by_site.entry((win, p.site.0, s.site.0)).or_default();
        sites.targets.insert(post.rank);
        sites.origins.insert(start.rank);
        sites.example.get_or_insert((post, start));
    }
    by_site
        .into_iter()
        .filter_map(|((win, ..), sites)| {
            let (post, start) = sites.example?;
            Some(diagnostic(run, win, &sites, post, start))
        })
        .collect()
}

fn event(run: &Run, call: SyncCall) -> Option<&EventSummary> {
    Some(
        &run.rma
            .get(&(call.rank, u32::try_from(call.event).ok()?))?
            .event,
    )
}

fn diagnostic(run: &Run, win: WinId, sites: &Sites, post: SyncCall, start: SyncCall) -> Diagnostic {
    let window = run
        .windows
        .get(win.0 as usize)
        .map_or("a window", |w| w.name.as_str());
    let (pe, se) = (
        event(run, post).expect("paired call"),
        event(run, start).expect("paired call"),
    );
    let given = match (post.nocheck, start.nocheck) {
        (true, true) => "both give",
        (true, false) => "the post gives",
        _ => "the start gives",
    };
    let message = text!(
        "{} on {} ({}) is not ordered after the matching {} on {} ({}) in {window}, but {given} MPI_MODE_NOCHECK",
        se.call,
        sites.origins.clone(),
        site_text_at(run, se.site),
        pe.call,
        sites.targets.clone(),
        site_text_at(run, pe.site),
    );
    let label = |nocheck: bool, what: &str| -> Text {
        if nocheck {
            text!("{what} with MPI_MODE_NOCHECK")
        } else {
            Text::from(what)
        }
    };
    Diagnostic {
        code: RM007.code,
        category: RM007.category,
        severity: RM007.severity,
        message,
        locations: vec![
            site_location(
                run,
                se.site,
                sites.origins.clone(),
                se.call,
                label(start.nocheck, "starts the access epoch"),
            ),
            site_location(
                run,
                pe.site,
                sites.targets.clone(),
                pe.call,
                label(post.nocheck, "posts the exposure epoch"),
            ),
        ],
        notes: vec![
            "MPI_MODE_NOCHECK promises that the matching MPI_Win_post has completed when MPI_Win_start is called (on the start), or that the matching start has not yet occurred (on the post); no message or collective recorded between the two calls orders them (MPI 4.1 §12.5.5)".into(),
        ],
        help: Some(
            "order the post before the start (an MPI_Barrier or a message from target to origin between them), or drop MPI_MODE_NOCHECK".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}
