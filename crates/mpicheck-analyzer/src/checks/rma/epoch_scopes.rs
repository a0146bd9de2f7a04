//! DR001 while the events stream: each access made in an epoch goes into its scope (the
//! accesses that may run at the same time, [`Scope`]), and a scope is compared
//! ([`Conflicts::scope`]) and dropped once no access can join it any more:
//!
//! - fence epoch `n` of a window, once every member made its fence `n + 1` (or freed the
//!   window);
//! - a lock epoch of one origin, once a flush to the target, or the end of every lock the
//!   origin holds on the window, orders the accesses after it (its later accesses go into
//!   another scope, of a later event). Compared at once, but kept apart per origin until the
//!   end: lock epochs of a rank that made calls from several threads are not judged;
//! - the access epochs of `MPI_Win_start` once every member freed the window (or at the
//!   end): which exposure epoch of the target an access epoch pairs with is known once both
//!   the post and the start came, and whether a post or start group of either rank was
//!   not followed (then they are not paired) once the window is freed.
//!
//! An access whose target has not made the window yet (its memory unknown) waits for the
//! target's constructor call.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::conflict::{Conflicts, Scope, ScopedAccess};
use super::pscw::SyncAt;
use super::{Epoch, EpochAccess, RankEpochs, Walk};
use crate::checks::pass::RunTables;
use crate::diagnostic::Diagnostic;
use crate::model::*;

/// A target's `MPI_Win_post`: its site and call.
type PostAt = (SiteId, &'static str);

/// The scopes of one window not compared yet.
#[derive(Default)]
struct WindowScopes {
    /// The fences each member made on the window.
    fences: BTreeMap<Rank, u32>,
    /// The members that freed the window.
    freed: BTreeSet<Rank>,
    /// Fence epoch `n`, target → its accesses.
    fence: BTreeMap<(u32, Rank), Vec<ScopedAccess>>,
    /// Lock epoch (origin, since, target) → its accesses.
    lock: BTreeMap<(Rank, usize, Rank), Vec<ScopedAccess>>,
    /// The accesses of access epochs (`MPI_Win_start`).
    start: Vec<ScopedAccess>,
    /// (origin, its start, target) → the target's post paired with it: event, site, call.
    posts: HashMap<(Rank, usize, Rank), (usize, SiteId, &'static str)>,
    /// Ranks that gave a post or start group the normalizer could not follow.
    unknown: BTreeSet<Rank>,
    /// Accesses whose target's memory is not known yet (bytes 0..0).
    waiting: Vec<ScopedAccess>,
}

/// DR001's scopes and findings while the events stream.
#[derive(Default)]
pub(super) struct Scopes {
    windows: HashMap<WinId, WindowScopes>,
    found: Conflicts,
    /// Findings of lock epochs, by origin (merged at the end for single-threaded ranks).
    lock_found: BTreeMap<Rank, Conflicts>,
    /// By rank: the thread of its first event, and whether another thread made a call.
    threads: Vec<Option<(u16, bool)>>,
}

impl Scopes {
    /// The accesses held in fence and lock scopes not compared yet, and in access epochs
    /// of `MPI_Win_start` (for tests).
    #[cfg(test)]
    pub fn held(&self) -> (usize, usize) {
        let mut epochs = 0;
        let mut starts = 0;
        for w in self.windows.values() {
            epochs += w
                .fence
                .values()
                .chain(w.lock.values())
                .map(Vec::len)
                .sum::<usize>();
            epochs += w.waiting.len();
            starts += w.start.len() + w.posts.len();
        }
        (epochs, starts)
    }

    /// Any event of `rank`: whether the rank calls MPI from several threads.
    pub fn event(&mut self, rank: Rank, event: &Event) {
        let r = rank as usize;
        if self.threads.len() <= r {
            self.threads.resize(r + 1, None);
        }
        let seen = self.threads[r].get_or_insert((event.thread, false));
        if seen.0 != event.thread && !seen.1 {
            seen.1 = true;
            // Its lock epochs are not judged.
            self.lock_found.remove(&rank);
        }
    }

    fn single_thread(&self, rank: Rank) -> bool {
        self.threads
            .get(rank as usize)
            .is_none_or(|t| t.is_none_or(|(_, multi)| !multi))
    }

    /// Call `index` of `rank` on `window` (`call`), after the rank's epoch walk (`epochs`)
    /// put into `walk` the accesses it made in an epoch; `paired`: the post and start pairs
    /// the call completed.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &mut self,
        tables: &RunTables,
        rank: Rank,
        call: &RmaCall,
        window: &WindowInfo,
        epochs: &RankEpochs,
        walk: &mut Walk,
        paired: &[(SyncAt, SyncAt)],
    ) {
        let win = call.win;
        let scopes = self.windows.entry(win).or_default();
        for (post, start) in paired {
            scopes.posts.insert(
                (start.call.rank, start.call.event, post.call.rank),
                (post.call.event, post.site, post.name),
            );
        }
        let scoped = |at: EpochAccess| {
            let RmaKind::Access(access) = &call.kind else {
                return None;
            };
            Some(ScopedAccess {
                at,
                access: access.clone(),
                site: call.event.site,
                call: call.event.call,
            })
        };
        for (_, at) in walk.waiting_range.drain(..) {
            scopes.waiting.extend(scoped(at));
        }
        for (_, accesses) in std::mem::take(&mut walk.epoch_accesses) {
            for at in accesses {
                if let Some(access) = scoped(at) {
                    scopes.add(access);
                }
            }
        }
        match &call.kind {
            RmaKind::Create => {
                // This rank's memory is known: its accesses wait no more.
                let (now, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut scopes.waiting)
                    .into_iter()
                    .partition(|a| a.at.target == rank);
                scopes.waiting = waiting;
                for mut a in now {
                    if let Some((start, end)) = a.access.target_range(window) {
                        (a.at.start, a.at.end) = (start, end);
                        scopes.add(a);
                    }
                }
            }
            RmaKind::Post { group: None, .. } | RmaKind::Start { group: None, .. } => {
                scopes.unknown.insert(rank);
            }
            RmaKind::Fence { .. } => {
                *scopes.fences.entry(rank).or_default() += 1;
                self.close_fences(tables, win, window, false);
            }
            RmaKind::Flush { target } if !call.event.call.starts_with("MPI_Win_flush_local") => {
                // A flush orders the origin's accesses before it with those after.
                let target = match target {
                    Some(RmaTarget::Rank(t)) => Some(*t),
                    Some(_) => return,
                    None => None,
                };
                self.close_locks(tables, win, window, rank, target, false);
            }
            RmaKind::Unlock { .. } | RmaKind::UnlockAll if !epochs.holds_lock(win) => {
                self.close_locks(tables, win, window, rank, None, false);
            }
            RmaKind::Free => {
                scopes.freed.insert(rank);
                self.close_locks(tables, win, window, rank, None, false);
                let scopes = &self.windows[&win];
                if window.members.iter().all(|m| scopes.freed.contains(m)) {
                    self.close_window(tables, win);
                } else {
                    self.close_fences(tables, win, window, false);
                }
            }
            _ => {}
        }
    }

    /// Compares the fence epochs of `win` that every member has ended (every one left, at
    /// the end: `all`).
    fn close_fences(&mut self, tables: &RunTables, win: WinId, window: &WindowInfo, all: bool) {
        let Some(scopes) = self.windows.get_mut(&win) else {
            return;
        };
        let ended = window
            .members
            .iter()
            .filter(|m| !scopes.freed.contains(m))
            .map(|m| scopes.fences.get(m).copied().unwrap_or(0))
            .min()
            .unwrap_or(0);
        while let Some(entry) = scopes.fence.first_entry() {
            let (n, target) = *entry.key();
            if !all && n >= ended {
                break;
            }
            let mut group = entry.remove();
            self.found
                .scope(tables, win, Scope::Fence(n), target, None, &mut group);
        }
    }

    /// Compares the lock epochs of `origin` on `win` to `target` (to every target: `None`),
    /// whose target's memory is known (an access to the others may still wait for it; at
    /// the end, `all`, every one).
    fn close_locks(
        &mut self,
        tables: &RunTables,
        win: WinId,
        window: &WindowInfo,
        origin: Rank,
        target: Option<Rank>,
        all: bool,
    ) {
        let single_thread = self.single_thread(origin);
        let Some(scopes) = self.windows.get_mut(&win) else {
            return;
        };
        let closed: Vec<(Rank, usize, Rank)> = scopes
            .lock
            .range((origin, 0, 0)..=(origin, usize::MAX, Rank::MAX))
            .map(|(&key, _)| key)
            .filter(|&(_, _, t)| {
                target.is_none_or(|target| t == target) && (all || window.memory.contains_key(&t))
            })
            .collect();
        for key in closed {
            let mut group = scopes.lock.remove(&key).unwrap_or_default();
            if single_thread {
                let (origin, since, target) = key;
                self.lock_found.entry(origin).or_default().scope(
                    tables,
                    win,
                    Scope::Lock(origin, since),
                    target,
                    None,
                    &mut group,
                );
            }
        }
    }

    /// Compares every scope of `win` left and forgets the window.
    fn close_window(&mut self, tables: &RunTables, win: WinId) {
        let Some(window) = tables.window(win) else {
            self.windows.remove(&win);
            return;
        };
        self.close_fences(tables, win, window, true);
        let origins: BTreeSet<Rank> = self.windows[&win].lock.keys().map(|k| k.0).collect();
        for origin in origins {
            self.close_locks(tables, win, window, origin, None, true);
        }
        let Some(scopes) = self.windows.remove(&win) else {
            return;
        };
        // Access epochs: in the target's exposure epoch they pair with, else on their own.
        let mut groups: BTreeMap<(Scope, Rank), (Option<PostAt>, Vec<ScopedAccess>)> =
            BTreeMap::new();
        for access in scopes.start {
            let (origin, target) = (access.at.origin, access.at.target);
            let Epoch::Start(start) = access.at.epoch else {
                continue;
            };
            let known = !scopes.unknown.contains(&origin) && !scopes.unknown.contains(&target);
            let (scope, post) = match scopes.posts.get(&(origin, start, target)) {
                Some(&(post, site, call)) if known => (Scope::Exposure(post), Some((site, call))),
                _ => (Scope::Access(origin, start), None),
            };
            let group = groups.entry((scope, target)).or_insert((post, Vec::new()));
            group.1.push(access);
        }
        for ((scope, target), (post, mut group)) in groups {
            self.found
                .scope(tables, win, scope, target, post, &mut group);
        }
    }

    /// The findings, once every event was given.
    pub fn diagnostics(mut self, tables: &RunTables) -> Vec<Diagnostic> {
        let windows: Vec<WinId> = self.windows.keys().copied().collect();
        for win in windows {
            self.close_window(tables, win);
        }
        let mut found = self.found;
        for (origin, lock_found) in self.lock_found {
            if self
                .threads
                .get(origin as usize)
                .is_none_or(|t| t.is_none_or(|(_, multi)| !multi))
            {
                found.merge(lock_found);
            }
        }
        found.diagnostics(tables)
    }
}

impl WindowScopes {
    /// An access made in an epoch, its bytes known, into its scope.
    fn add(&mut self, access: ScopedAccess) {
        if access.at.end <= access.at.start {
            return;
        }
        let target = access.at.target;
        match access.at.epoch {
            Epoch::Fence(n) => self.fence.entry((n, target)).or_default().push(access),
            Epoch::Lock(since) => self
                .lock
                .entry((access.at.origin, since, target))
                .or_default()
                .push(access),
            Epoch::Start(_) => self.start.push(access),
        }
    }
}
