//! Ids whose values do not depend on the order in which the ranks' calls were normalized.
//!
//! The run's tables number their entries (call sites, communicators, datatypes, windows) as
//! the calls name them. The ranks' calls may come interleaved by time, which changes from
//! run to run of one program. So each entry also keeps when a normalization of the ranks one
//! after the other would have named it first ([`Seen`]), and once every call is normalized,
//! [`Numbering`] gives each entry the id it would have had then, and [`Numbering::apply`]
//! renumbers the run. The ids of a run are thus those of its calls read rank after rank,
//! whatever order the calls came in: `mpicheck events`, and every report that lists findings
//! in the order of their communicator or call site, are the same for two runs of a program.
//!
//! A pass fed while the calls are normalized sees the ids as they were first given; it asks
//! [`crate::checks::pass::RunTables`] for the final order of its sites and communicators
//! when it hands out its findings.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::model::*;

/// When a rank named a table entry: the rank, and how many entries it had named before.
/// Compared rank first, the earliest naming of an entry is when a normalization rank after
/// rank first meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Seen(u64);

impl Seen {
    /// Before any rank: the entries every run starts with (the unknown site,
    /// `MPI_COMM_WORLD`).
    pub const START: Seen = Seen(0);

    /// The `nth` naming by `rank` (from 1).
    pub fn of(rank: Rank, nth: u32) -> Seen {
        Seen((u64::from(rank) << 32) | u64::from(nth))
    }
}

/// The earliest [`Seen`] of each entry of a table, by id.
#[derive(Default)]
pub(super) struct FirstSeen(Vec<Seen>);

impl FirstSeen {
    /// A new entry, whose id is the number of entries before it.
    pub fn push(&mut self, seen: Seen) {
        self.0.push(seen);
    }

    /// Entry `id` named again: whether this naming is earlier than every one before (the
    /// entry is then described as this naming describes it, as rank after rank would).
    pub fn again(&mut self, id: u32, seen: Seen) -> bool {
        let first = &mut self.0[id as usize];
        if seen < *first {
            *first = seen;
            true
        } else {
            false
        }
    }

    /// The new id by old id, `None` when the ids are in order already. Consumes the table:
    /// a run's millions of communicators make it large, and the numbering is its last use.
    fn numbering(self) -> Option<Vec<u32>> {
        if self.0.iter().is_sorted() {
            return None;
        }
        // (Every naming is a distinct `Seen`, so no two entries tie; the id breaks ties
        // anyway, and this sort needs no scratch memory.)
        let mut order: Vec<u32> = (0..self.0.len() as u32).collect();
        order.sort_unstable_by_key(|&id| (self.0[id as usize], id));
        drop(self);
        // The old id by new id, turned into the new id by old id without a second table.
        invert_in_place(&mut order);
        Some(order)
    }
}

/// Turns the permutation `p` (`p[i] = j`) into its inverse (`p[j] = i`) in place, walking
/// each cycle once and marking the entries written with the top bit (ids stay below 2^31:
/// `u32` ids, and no run makes two billion communicators).
fn invert_in_place(p: &mut [u32]) {
    const WRITTEN: u32 = 1 << 31;
    assert!(p.len() <= WRITTEN as usize, "ids below 2^31");
    for start in 0..p.len() {
        if p[start] & WRITTEN != 0 {
            continue;
        }
        let (mut i, mut j) = (start as u32, p[start]);
        loop {
            let next = p[j as usize];
            p[j as usize] = i | WRITTEN;
            if j as usize == start {
                break;
            }
            (i, j) = (j, next);
        }
    }
    for id in p {
        *id &= !WRITTEN;
    }
}

/// The ids a normalization rank after rank gives, by the ids the normalization gave (each
/// table `None` when they are the same).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Numbering {
    sites: Option<Vec<u32>>,
    comms: Option<Vec<u32>>,
    datatypes: Option<Vec<u32>>,
    windows: Option<Vec<u32>>,
}

fn renumbered(map: &Option<Vec<u32>>, id: u32) -> u32 {
    match map {
        Some(map) => map[id as usize],
        None => id,
    }
}

/// `items` with item `i` at `map[i]`, moved in place: the communicator table of a long run
/// is large, and a copy would add to the analysis's peak memory at its end.
fn permuted<T>(mut items: Vec<T>, map: &Option<Vec<u32>>) -> Vec<T> {
    if let Some(map) = map {
        permute_in_place(&mut items, map);
    }
    items
}

/// Moves item `i` of `items` to `new_position[i]` (a permutation), following each cycle
/// once with a bit per item.
fn permute_in_place<T>(items: &mut [T], new_position: &[u32]) {
    assert_eq!(items.len(), new_position.len(), "a position for every item");
    let mut placed = vec![0u64; items.len().div_ceil(64)];
    for start in 0..items.len() {
        if placed[start / 64] & (1 << (start % 64)) != 0 {
            continue;
        }
        // The item at `start` goes to its position, swapping that one's item back to
        // `start`, which goes to its own, and so on until the cycle comes back.
        let mut to = new_position[start] as usize;
        while to != start {
            items.swap(start, to);
            placed[to / 64] |= 1 << (to % 64);
            to = new_position[to] as usize;
        }
        placed[start / 64] |= 1 << (start % 64);
    }
}

impl Numbering {
    pub(super) fn new(
        sites: FirstSeen,
        comms: FirstSeen,
        datatypes: FirstSeen,
        windows: FirstSeen,
    ) -> Numbering {
        Numbering {
            sites: sites.numbering(),
            comms: comms.numbering(),
            datatypes: datatypes.numbering(),
            windows: windows.numbering(),
        }
    }

    pub fn site(&self, site: SiteId) -> SiteId {
        SiteId(renumbered(&self.sites, site.0))
    }

    pub fn comm(&self, comm: CommId) -> CommId {
        CommId(renumbered(&self.comms, comm.0))
    }

    fn datatype(&self, datatype: TypeId) -> TypeId {
        TypeId(renumbered(&self.datatypes, datatype.0))
    }

    pub fn window(&self, win: WinId) -> WinId {
        WinId(renumbered(&self.windows, win.0))
    }

    /// The final ids a compiled program is read in.
    pub(crate) fn final_ids(&self) -> crate::engine::FinalIds {
        crate::engine::FinalIds {
            sites: self.sites.clone(),
            comms: self.comms.clone(),
            windows: self.windows.clone(),
        }
    }

    /// Renumbers every id of `run`, which the normalization numbered as this numbering's
    /// tables were seen.
    pub fn apply(&self, run: &mut Run) {
        if *self == Numbering::default() {
            return;
        }
        run.sites = permuted(std::mem::take(&mut run.sites), &self.sites);
        run.comms.renumber(|ids| permuted(ids, &self.comms));
        run.datatypes = permuted(std::mem::take(&mut run.datatypes), &self.datatypes);
        run.windows = permuted(std::mem::take(&mut run.windows), &self.windows);
        for window in &mut run.windows {
            window.comm = self.comm(window.comm);
        }
        for trace in &mut run.ranks {
            for event in &mut trace.events {
                self.event(event);
            }
            for region in &mut trace.threads.parallel_regions {
                region.site = self.site(region.site);
            }
            for start in &mut trace.threads.thread_starts {
                start.site = self.site(start.site);
            }
        }
        if self.datatypes.is_some() {
            // Calls with equal arguments share them, and still do.
            let mut shared: FxHashMap<*const CollectiveArgs, Arc<CollectiveArgs>> =
                FxHashMap::default();
            for args in run.collective_args.values_mut() {
                let new = shared
                    .entry(Arc::as_ptr(args))
                    .or_insert_with(|| Arc::new(self.collective_args(args)))
                    .clone();
                *args = new;
            }
        }
        for call in run.rma.values_mut() {
            call.win = self.window(call.win);
            call.event.site = self.site(call.event.site);
            if let RmaKind::Access(access) = &mut call.kind {
                access.datatype = access.datatype.map(|t| self.datatype(t));
            }
        }
        for access in &mut run.buffer_accesses {
            access.site = self.site(access.site);
            access.post_site = self.site(access.post_site);
        }
        for call in &mut run.outside_job {
            call.site = self.site(call.site);
        }
        for given_up in &mut run.buffers_given_up {
            given_up.site = self.site(given_up.site);
        }
        // (Ranks are read in any order.)
        run.buffers_given_up.sort_by_key(|given_up| given_up.site.0);
    }

    fn event(&self, event: &mut Event) {
        event.site = self.site(event.site);
        let send = |send: &mut SendSpec| {
            send.comm = self.comm(send.comm);
            send.datatype = send.datatype.map(|t| self.datatype(t));
        };
        let recv = |recv: &mut RecvSpec| {
            recv.comm = self.comm(recv.comm);
            recv.datatype = recv.datatype.map(|t| self.datatype(t));
        };
        match &mut event.op {
            Op::Send { send: s, .. } => send(s),
            Op::Recv { recv: r, .. } => recv(r),
            Op::Sendrecv {
                send: s, recv: r, ..
            } => {
                send(s);
                recv(r);
            }
            Op::Probe { comm, .. } | Op::Collective { comm, .. } => *comm = self.comm(*comm),
            Op::Init { .. }
            | Op::Finalize
            | Op::Wait { .. }
            | Op::RequestStatus { .. }
            | Op::Start { .. }
            | Op::Cancel { .. }
            | Op::RequestFree { .. }
            | Op::BufferAttach { .. }
            | Op::BufferDetach
            | Op::Other => {}
        }
    }

    fn collective_args(&self, args: &CollectiveArgs) -> CollectiveArgs {
        let buf = |b: &Option<BufSpec>| {
            b.map(|b| BufSpec {
                datatype: b.datatype.map(|t| self.datatype(t)),
                ..b
            })
        };
        let types = |t: &Option<Vec<Option<TypeId>>>| {
            t.as_ref()
                .map(|t| t.iter().map(|t| t.map(|t| self.datatype(t))).collect())
        };
        CollectiveArgs {
            send: buf(&args.send),
            recv: buf(&args.recv),
            send_types: types(&args.send_types),
            recv_types: types(&args.recv_types),
            ..args.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_is_inverted_in_place() {
        // Cycles of length 3 and 2, and a fixed point.
        let mut p = vec![1, 2, 0, 4, 3, 5];
        invert_in_place(&mut p);
        assert_eq!(p, [2, 0, 1, 4, 3, 5]);
        let mut p: Vec<u32> = (0..1000).map(|i| (i * 7 + 3) % 1000).collect();
        let mut expected = vec![0; 1000];
        for (i, &j) in p.iter().enumerate() {
            expected[j as usize] = i as u32;
        }
        invert_in_place(&mut p);
        assert_eq!(p, expected);
        invert_in_place(&mut []);
    }

    #[test]
    fn items_are_moved_to_their_new_positions_in_place() {
        let items = vec!["a", "b", "c", "d", "e", "f"];
        let moved = permuted(items.clone(), &Some(vec![1, 2, 0, 4, 3, 5]));
        assert_eq!(moved, ["c", "a", "b", "e", "d", "f"]);
        assert_eq!(permuted(items.clone(), &None), items);
        let n = 1000;
        let map: Vec<u32> = (0..n).map(|i| (i * 7 + 3) % n).collect();
        let moved = permuted((0..n).collect::<Vec<u32>>(), &Some(map.clone()));
        for i in 0..n {
            assert_eq!(moved[map[i as usize] as usize], i);
        }
    }

    #[test]
    fn entries_are_numbered_in_the_order_they_were_first_seen() {
        let mut seen = FirstSeen::default();
        // Rank 1 names entries 1 and 2, then rank 0 names entry 3, then entry 2.
        seen.push(Seen::START);
        seen.push(Seen::of(1, 1));
        seen.push(Seen::of(1, 2));
        seen.push(Seen::of(0, 1));
        assert!(seen.again(2, Seen::of(0, 2)));
        assert!(!seen.again(2, Seen::of(1, 3)));
        assert_eq!(seen.numbering(), Some(vec![0, 3, 2, 1]));
        let mut in_order = FirstSeen::default();
        in_order.push(Seen::START);
        in_order.push(Seen::of(0, 1));
        assert_eq!(in_order.numbering(), None);
    }
}
