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

    /// The new id by old id, `None` when the ids are in order already.
    fn numbering(&self) -> Option<Vec<u32>> {
        let mut by_seen: Vec<u32> = (0..self.0.len() as u32).collect();
        by_seen.sort_by_key(|&id| self.0[id as usize]);
        if by_seen
            .iter()
            .enumerate()
            .all(|(new, &old)| new as u32 == old)
        {
            return None;
        }
        let mut new_of = vec![0; by_seen.len()];
        for (new, &old) in by_seen.iter().enumerate() {
            new_of[old as usize] = new as u32;
        }
        Some(new_of)
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

/// `items` with item `i` at `map[i]`.
fn permuted<T>(items: Vec<T>, map: &Option<Vec<u32>>) -> Vec<T> {
    let Some(map) = map else { return items };
    let mut slots: Vec<Option<T>> = (0..items.len()).map(|_| None).collect();
    for (item, &new) in items.into_iter().zip(map) {
        slots[new as usize] = Some(item);
    }
    slots
        .into_iter()
        .map(|s| s.expect("a numbering is a permutation"))
        .collect()
}

impl Numbering {
    pub(super) fn new(
        sites: &FirstSeen,
        comms: &FirstSeen,
        datatypes: &FirstSeen,
        windows: &FirstSeen,
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
