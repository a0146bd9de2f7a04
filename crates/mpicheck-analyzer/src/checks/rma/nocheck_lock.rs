//! `MPI_Win_lock(..., MPI_MODE_NOCHECK, ...)` while another origin holds or requests a
//! conflicting lock on the same target (RM007).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{site_text_at, Call, CrossRank, RM007};
use crate::checks::site_location;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::text;
use crate::text::ranks;

/// Epochs of another origin compared with each NOCHECK epoch: this many on each side of it
/// in time (bounds the work on long lock/unlock loops).
const NEIGHBOURS: usize = 4;

/// Pairs of epochs asked about per pair of call sites.
const PER_SITES: usize = 16;

/// One lock epoch of one origin on one target.
#[derive(Clone, Copy, Debug)]
struct LockEpoch {
    origin: Rank,
    lock: usize,
    unlock: usize,
    exclusive: bool,
    nocheck: bool,
    /// Entry time of the lock in the origin's trace, else its event index: only chooses
    /// which epochs of other origins are compared.
    when: u64,
}

/// Every closed lock epoch by (window, target), then by origin in program order.
/// `MPI_Win_lock_all` epochs count as shared locks of every member.
fn epochs(run: &Run, calls: &[Call]) -> BTreeMap<(WinId, Rank), BTreeMap<Rank, Vec<LockEpoch>>> {
    let mut out: BTreeMap<(WinId, Rank), BTreeMap<Rank, Vec<LockEpoch>>> = BTreeMap::new();
    for rank_calls in calls.chunk_by(|a, b| a.0 == b.0) {
        // Open epochs: (window, target) → (lock event, exclusive, nocheck); lock_all by window.
        let mut open: HashMap<(WinId, Rank), (usize, Option<bool>, bool)> = HashMap::new();
        let mut open_all: HashMap<WinId, usize> = HashMap::new();
        for &(rank, index, call) in rank_calls {
            let event = &call.event;
            let when = |i: usize| {
                let lock = run
                    .rma
                    .get(&(rank, i as u32))
                    .and_then(|c| c.event.enter_ns);
                lock.unwrap_or(i as u64)
            };
            let mut close = |target: Rank, lock: usize, exclusive: bool, nocheck: bool| {
                out.entry((call.win, target))
                    .or_default()
                    .entry(rank)
                    .or_default()
                    .push(LockEpoch {
                        origin: rank,
                        lock,
                        unlock: index,
                        exclusive,
                        nocheck,
                        when: when(lock),
                    });
            };
            match &call.kind {
                RmaKind::Lock {
                    target: RmaTarget::Rank(t),
                    exclusive,
                    nocheck,
                } if event.returned => {
                    open.insert((call.win, *t), (index, *exclusive, *nocheck));
                }
                RmaKind::Unlock {
                    target: RmaTarget::Rank(t),
                } => {
                    if let Some((lock, Some(exclusive), nocheck)) = open.remove(&(call.win, *t)) {
                        close(*t, lock, exclusive, nocheck);
                    }
                }
                RmaKind::LockAll if event.returned => {
                    open_all.insert(call.win, index);
                }
                RmaKind::UnlockAll => {
                    if let (Some(lock), Some(window)) = (
                        open_all.remove(&call.win),
                        run.windows.get(call.win.0 as usize),
                    ) {
                        for &t in &window.members {
                            close(t, lock, false, false);
                        }
                    }
                }
                RmaKind::Free => {
                    open.retain(|(w, _), _| *w != call.win);
                    open_all.remove(&call.win);
                }
                _ => {}
            }
        }
    }
    out
}

pub(super) fn check(run: &Run, calls: &[Call], cross: &CrossRank) -> Vec<Diagnostic> {
    let epochs = epochs(run, calls);
    // (window, target, NOCHECK epoch, other epoch), at most PER_SITES per pair of sites.
    let mut candidates: Vec<(WinId, Rank, LockEpoch, LockEpoch)> = Vec::new();
    let mut per_sites: HashMap<(WinId, u32, u32), usize> = HashMap::new();
    let site = |e: &LockEpoch| lock_call(run, e).site.0;
    for (&(win, target), by_origin) in &epochs {
        for (&origin, mine) in by_origin {
            for x in mine.iter().filter(|e| e.nocheck) {
                for (_, theirs) in by_origin.range(..).filter(|(&o, _)| o != origin) {
                    let at = theirs.partition_point(|y| y.when < x.when);
                    let near =
                        &theirs[at.saturating_sub(NEIGHBOURS)..(at + NEIGHBOURS).min(theirs.len())];
                    for y in near.iter().filter(|y| x.exclusive || y.exclusive) {
                        let kept = per_sites.entry((win, site(x), site(y))).or_default();
                        if *kept < PER_SITES {
                            *kept += 1;
                            candidates.push((win, target, *x, *y));
                        }
                    }
                }
            }
        }
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let queries: Vec<_> = candidates
        .iter()
        .flat_map(|(_, _, x, y)| {
            [
                ((x.origin, x.unlock), (y.origin, y.lock)),
                ((y.origin, y.unlock), (x.origin, x.lock)),
            ]
        })
        .collect();
    let ordered = cross.happens_before(run, &queries);
    let mut reported: BTreeSet<(WinId, u32, u32)> = BTreeSet::new();
    let mut out = Vec::new();
    for (k, &(win, target, x, y)) in candidates.iter().enumerate() {
        if ordered[2 * k] || ordered[2 * k + 1] {
            continue;
        }
        // One finding per pair of sites, whichever side is the NOCHECK one.
        let (a, b) = (site(&x).min(site(&y)), site(&x).max(site(&y)));
        if reported.insert((win, a, b)) {
            out.push(diagnostic(run, win, target, &x, &y));
        }
    }
    out
}

/// The lock call that opened `epoch`.
fn lock_call<'r>(run: &'r Run, epoch: &LockEpoch) -> &'r EventSummary {
    &run.rma[&(epoch.origin, epoch.lock as u32)].event
}

fn diagnostic(run: &Run, win: WinId, target: Rank, x: &LockEpoch, y: &LockEpoch) -> Diagnostic {
    let window = run
        .windows
        .get(win.0 as usize)
        .map_or("a window", |w| w.name.as_str());
    let (ex, ey) = (lock_call(run, x), lock_call(run, y));
    let mode = |e: &LockEpoch| {
        if e.exclusive {
            "MPI_LOCK_EXCLUSIVE"
        } else {
            "MPI_LOCK_SHARED"
        }
    };
    let message = text!(
        "{} of {} with MPI_MODE_NOCHECK on {} ({}) overlaps the {} lock epoch of {} on {} ({}) in {window}: nothing orders the two epochs",
        ex.call,
        ranks(target),
        ranks(x.origin),
        site_text_at(run, ex.site),
        mode(y),
        ranks(target),
        ranks(y.origin),
        site_text_at(run, ey.site),
    );
    Diagnostic {
        code: RM007.code,
        category: RM007.category,
        severity: RM007.severity,
        message,
        locations: vec![
            site_location(
                run,
                ex.site,
                vec![x.origin],
                ex.call,
                text!("locks {} ({}) with MPI_MODE_NOCHECK", ranks(target), mode(x)),
            ),
            site_location(
                run,
                ey.site,
                vec![y.origin],
                ey.call,
                text!("locks {} ({}) in an epoch nothing orders with it", ranks(target), mode(y)),
            ),
        ],
        notes: vec![
            "MPI_MODE_NOCHECK on MPI_Win_lock promises that no other process holds or attempts to acquire a conflicting lock on the target while the caller holds it; no message or collective recorded between the two epochs orders one unlock before the other lock (MPI 4.1 §12.5.5)".into(),
        ],
        help: Some(
            "order the epochs (an MPI_Barrier or a message after the unlock, before the other lock), or drop MPI_MODE_NOCHECK and let MPI arbitrate the lock".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}
