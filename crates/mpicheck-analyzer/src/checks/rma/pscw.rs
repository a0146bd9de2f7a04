//! Pairs the `MPI_Win_post` and `MPI_Win_start` calls of active-target epochs, for RM007
//! and RM008.
//!
//! MPI 4.1 §12.5.2: epochs match in order per (window, origin, target): the k-th start of
//! an origin whose group names a target pairs with the k-th post of that target whose group
//! names the origin (as the replay, `engine/rma.rs`, counts them). A rank's epochs on a
//! window are not paired once one of its post or start groups is unknown (a group handle
//! the normalizer could not follow): the counts after it would be guesses.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::model::*;

/// One post or start call, as one side of an epoch toward one partner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyncCall {
    pub rank: Rank,
    pub event: usize,
    pub nocheck: bool,
}

/// What the pairing found on one window.
#[derive(Default)]
pub(crate) struct Pscw {
    /// Matched (post of the target, start of the origin).
    pub pairs: Vec<(SyncCall, SyncCall)>,
    /// Posts naming an origin whose starts toward the target are fewer: (post, origin).
    pub lone_posts: Vec<(SyncCall, Rank)>,
    /// Starts naming a target whose posts toward the origin are fewer: (start, target).
    pub lone_starts: Vec<(SyncCall, Rank)>,
}

/// The post/start pairing of every window, by window, from the run's calls on windows
/// ([`super::calls_in_order`]).
pub(crate) fn pair(calls: &[super::Call]) -> BTreeMap<WinId, Pscw> {
    // (window, target, origin) → posts of the target naming the origin, in order; and
    // (window, origin, target) → starts of the origin naming the target.
    type Calls = BTreeMap<(WinId, Rank, Rank), Vec<SyncCall>>;
    let (mut posts, mut starts): (Calls, Calls) = Default::default();
    let mut unknown: BTreeSet<(WinId, Rank)> = BTreeSet::new();
    for &(rank, index, call) in calls {
        let (group, nocheck, into) = match &call.kind {
            RmaKind::Post { group, nocheck } => (group, *nocheck, &mut posts),
            RmaKind::Start { group, nocheck } => (group, *nocheck, &mut starts),
            _ => continue,
        };
        let Some(group) = group else {
            unknown.insert((call.win, rank));
            continue;
        };
        let me = SyncCall {
            rank,
            event: index,
            nocheck,
        };
        for &partner in group {
            into.entry((call.win, rank, partner)).or_default().push(me);
        }
    }
    let mut out: BTreeMap<WinId, Pscw> = BTreeMap::new();
    let known =
        |win: WinId, a: Rank, b: Rank| !unknown.contains(&(win, a)) && !unknown.contains(&(win, b));
    for (&(win, target, origin), target_posts) in &posts {
        if !known(win, target, origin) {
            continue;
        }
        let origin_starts = starts
            .get(&(win, origin, target))
            .map_or(&[][..], Vec::as_slice);
        let pscw = out.entry(win).or_default();
        for (k, &post) in target_posts.iter().enumerate() {
            match origin_starts.get(k) {
                Some(&start) => pscw.pairs.push((post, start)),
                None => pscw.lone_posts.push((post, origin)),
            }
        }
    }
    for (&(win, origin, target), origin_starts) in &starts {
        if !known(win, origin, target) {
            continue;
        }
        let posted = posts.get(&(win, target, origin)).map_or(0, Vec::len);
        let pscw = out.entry(win).or_default();
        for &start in origin_starts.iter().skip(posted) {
            pscw.lone_starts.push((start, target));
        }
    }
    out
}

/// One post or start call kept while the events stream: [`SyncCall`] with its site and
/// name, which the findings show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyncAt {
    pub call: SyncCall,
    pub site: SiteId,
    pub name: &'static str,
}

/// The post/start pairing of one window while the events stream: the calls of each
/// (target, origin) that the other side has not matched yet. A post and a start are paired
/// as soon as both came, so only the calls one side runs ahead with are held (and, at the
/// end, the lone ones).
#[derive(Default)]
pub(crate) struct StreamPairing {
    /// Ranks that gave a post or start group the normalizer could not follow: their epochs
    /// are not paired ([`pair`]).
    pub unknown: BTreeSet<Rank>,
    /// (target, origin) → the target's posts naming the origin no start matched yet.
    pub posts: BTreeMap<(Rank, Rank), VecDeque<SyncAt>>,
    /// (origin, target) → the origin's starts naming the target no post matched yet.
    pub starts: BTreeMap<(Rank, Rank), VecDeque<SyncAt>>,
}

impl StreamPairing {
    /// A post (`post`) or start of `me` whose group is `group` (`None`: not known): the
    /// pairs it completes, (post, start).
    pub fn call(
        &mut self,
        me: SyncAt,
        post: bool,
        group: Option<&[Rank]>,
    ) -> Vec<(SyncAt, SyncAt)> {
        let mut paired = Vec::new();
        let Some(group) = group else {
            self.unknown.insert(me.call.rank);
            return paired;
        };
        let (mine, theirs) = if post {
            (&mut self.posts, &mut self.starts)
        } else {
            (&mut self.starts, &mut self.posts)
        };
        for &partner in group {
            // The k-th call of each side pairs with the other side's k-th.
            let other = theirs.get_mut(&(partner, me.call.rank));
            if let Some(other) = other.filter(|q| !q.is_empty()) {
                if let Some(them) = other.pop_front() {
                    paired.push(if post { (me, them) } else { (them, me) });
                }
                if other.is_empty() {
                    theirs.remove(&(partner, me.call.rank));
                }
            } else {
                mine.entry((me.call.rank, partner))
                    .or_default()
                    .push_back(me);
            }
        }
        paired
    }

    /// Whether the epochs of `a` and `b` are paired (neither gave an unknown group).
    pub fn known(&self, a: Rank, b: Rank) -> bool {
        !self.unknown.contains(&a) && !self.unknown.contains(&b)
    }

    /// Whether no call waits for its partner.
    pub fn is_empty(&self) -> bool {
        self.posts.is_empty() && self.starts.is_empty()
    }
}
