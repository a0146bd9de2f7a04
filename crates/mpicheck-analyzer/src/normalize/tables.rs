//! The run's shared tables, which every rank's normalizer borrows call by call ([`Tables`]):
//! communicators, call sites, datatypes and windows, numbered as first named, and the calls'
//! collective arguments and buffer accesses. Here too is what identifies a communicator on
//! every member ([`CommKey`]) and how one rank sees it ([`LocalComm`], made in `handles.rs`).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::numbering::{FirstSeen, Numbering, Seen};
use super::rma;
use crate::model::*;
use crate::typesig::Layout;

/// What identifies a communicator on every member: how it was made and who is in it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum CommKey {
    World,
    SelfOf(Rank),
    /// Made by the `ordinal`-th communicator-creating call on `parent` (counted per rank).
    Child {
        parent: CommId,
        ordinal: u32,
        members: Vec<Rank>,
        remote: Option<Vec<Rank>>,
    },
    /// An intercommunicator between two groups, the `ordinal`-th between them; the groups are
    /// ordered so both sides compute the same key.
    Inter {
        groups: (Vec<Rank>, Vec<Rank>),
        ordinal: u32,
    },
    /// A handle the trace never saw being created (e.g. its creation was not recorded).
    Unknown {
        rank: Rank,
        raw: i64,
    },
}

/// How one rank sees a communicator: the shared id plus which group is local. Cloned for
/// every call that names the communicator: the groups are shared, not copied (a copy of
/// `MPI_COMM_WORLD`'s group per call grew with the world).
#[derive(Clone)]
pub(super) struct LocalComm {
    pub(super) id: CommId,
    pub(super) local: Arc<[Rank]>,
    pub(super) remote: Option<Arc<[Rank]>>,
    /// This rank's position in `local` (looked up once, not per call).
    pub(super) me: Option<u32>,
    /// Some member is no process of the job ([`OUTSIDE_JOB`]).
    pub(super) outside: bool,
}

impl LocalComm {
    /// World rank of a peer given as a rank in this communicator (the remote group for
    /// intercommunicators).
    pub(super) fn peer(&self, rank: i64) -> Option<Rank> {
        let group = self.remote.as_ref().unwrap_or(&self.local);
        usize::try_from(rank)
            .ok()
            .and_then(|r| group.get(r).copied())
    }

    /// Whether a call on this communicator with the peer `peer` exchanges with a process
    /// outside the job: a peer outside, or any source where some could be.
    pub(super) fn reaches_outside(&self, peer: Option<Source>) -> bool {
        self.outside && matches!(peer, Some(Source::Any | Source::Rank(OUTSIDE_JOB)))
    }
}

/// The run's tables, shared by the ranks' normalizers. Communicators, call sites, datatypes
/// and windows are numbered as first named; each also keeps when a normalization rank after
/// rank first names it (`*_seen`), for the final [`Numbering`].
#[derive(Default)]
pub(super) struct Tables {
    pub(super) comms: CommTable,
    /// The key of each communicator some member may still name (see [`Tables::comm_freed`]).
    comm_ids: FxHashMap<CommKey, CommId>,
    comms_seen: FirstSeen,
    /// Communicators made by a call (not `MPI_COMM_WORLD`, `MPI_COMM_SELF` or unknown
    /// ones) that not every member has freed yet: their key and how many members have not.
    unfreed: FxHashMap<CommId, (CommKey, u32)>,
    pub(super) sites: Vec<SourceLocation>,
    site_ids: FxHashMap<SourceLocation, SiteId>,
    sites_seen: FirstSeen,
    pub(super) datatypes: Vec<DatatypeInfo>,
    datatype_ids: FxHashMap<String, TypeId>,
    datatypes_seen: FirstSeen,
    pub(super) collective_args: FxHashMap<(Rank, u32), Arc<CollectiveArgs>>,
    /// Each distinct value of [`Run::collective_args`] once.
    distinct_collective_args: FxHashSet<Arc<CollectiveArgs>>,
    pub(super) rma: rma::RmaTables,
    pub(super) buffer_accesses: Vec<BufferAccess>,
    pub(super) buffer_watch: Option<BufferWatchCounts>,
    pub(super) buffers_given_up: Vec<GivenUpSite>,
    pub(super) outside_job: Vec<OutsideJobCall>,
}

impl Tables {
    /// The tables of a run of `world_size` ranks before any call: the unknown call site
    /// and `MPI_COMM_WORLD`.
    pub(super) fn new(world_size: u32) -> Tables {
        let mut tables = Tables::default();
        tables.sites.push(SourceLocation::default());
        tables.sites_seen.push(Seen::START);
        tables.comm(CommKey::World, Seen::START, || CommInfo {
            name: "MPI_COMM_WORLD".into(),
            members: (0..world_size).collect(),
            remote: None,
        });
        tables
    }

    /// `rank` gave up watching the buffers posted at `site`.
    pub(super) fn given_up(&mut self, site: SiteId, rank: Rank, faults: u64, buffers: u64) {
        let sites = &mut self.buffers_given_up;
        let at = match sites.iter().position(|s| s.site == site) {
            Some(at) => at,
            None => {
                sites.push(GivenUpSite {
                    site,
                    ranks: Vec::new(),
                    faults: 0,
                    buffers: 0,
                });
                sites.len() - 1
            }
        };
        let given_up = &mut sites[at];
        given_up.faults += faults;
        given_up.buffers += buffers;
        if let Err(position) = given_up.ranks.binary_search(&rank) {
            given_up.ranks.insert(position, rank);
        }
    }

    /// `rank`'s call of `function` at `site` made a communicator with members outside the
    /// job.
    pub(super) fn outside_job_call(&mut self, function: &'static str, site: SiteId, rank: Rank) {
        let calls = &mut self.outside_job;
        let at = match calls
            .iter()
            .position(|c| c.function == function && c.site == site)
        {
            Some(at) => at,
            None => {
                calls.push(OutsideJobCall {
                    function,
                    site,
                    ranks: Vec::new(),
                });
                calls.len() - 1
            }
        };
        let ranks = &mut calls[at].ranks;
        if let Err(position) = ranks.binary_search(&rank) {
            ranks.insert(position, rank);
        }
    }

    /// The communicator `key`, named by a rank at `seen`, described by `info` if this is
    /// its earliest naming.
    pub(super) fn comm(
        &mut self,
        key: CommKey,
        seen: Seen,
        info: impl FnOnce() -> CommInfo,
    ) -> CommId {
        if let Some(&id) = self.comm_ids.get(&key) {
            if self.comms_seen.again(id.0, seen) {
                self.comms.set(id, info());
            }
            return id;
        }
        let info = info();
        let members = info.members.len() + info.remote.as_ref().map_or(0, |r| r.len());
        let id = self.comms.push(info);
        if members > 0 && matches!(key, CommKey::Child { .. } | CommKey::Inter { .. }) {
            self.unfreed.insert(id, (key.clone(), members as u32));
        }
        self.comms_seen.push(seen);
        self.comm_ids.insert(key, id);
        id
    }

    /// `rank` freed its handle of communicator `id`; true when that was the last member to
    /// free it. Every member then named it already and will not again (a handle freed is
    /// gone, and MPI's next communicator under the same handle bits has a key of its own),
    /// so its key is forgotten; its id and [`CommInfo`] stay, since ids are never reused and
    /// findings and [`Numbering`] name communicators by id.
    pub(super) fn comm_freed(&mut self, id: CommId, rank: Rank) -> bool {
        let info = &self.comms[id.0 as usize];
        let member =
            info.members.contains(&rank) || info.remote.as_ref().is_some_and(|r| r.contains(&rank));
        let Some((_, left)) = self.unfreed.get_mut(&id).filter(|_| member) else {
            return false;
        };
        *left -= 1;
        if *left > 0 {
            return false;
        }
        if let Some((key, _)) = self.unfreed.remove(&id) {
            self.comm_ids.remove(&key);
        }
        true
    }

    pub(super) fn site(&mut self, location: SourceLocation, seen: Seen) -> SiteId {
        if let Some(&id) = self.site_ids.get(&location) {
            self.sites_seen.again(id.0, seen);
            return id;
        }
        let id = SiteId(self.sites.len() as u32);
        self.sites.push(location.clone());
        self.sites_seen.push(seen);
        self.site_ids.insert(location, id);
        id
    }

    /// The shared copy of `args`.
    pub(super) fn intern_collective_args(&mut self, args: CollectiveArgs) -> Arc<CollectiveArgs> {
        if let Some(shared) = self.distinct_collective_args.get(&args) {
            return shared.clone();
        }
        let shared = Arc::new(args);
        self.distinct_collective_args.insert(shared.clone());
        shared
    }

    pub(super) fn datatype(
        &mut self,
        name: &str,
        seen: Seen,
        size: Option<u64>,
        layout: Option<Arc<Layout>>,
    ) -> TypeId {
        if let Some(&id) = self.datatype_ids.get(name) {
            if self.datatypes_seen.again(id.0, seen) {
                let info = &mut self.datatypes[id.0 as usize];
                (info.size, info.layout) = (size, layout);
            }
            return id;
        }
        let id = TypeId(self.datatypes.len() as u32);
        self.datatypes.push(DatatypeInfo {
            name: name.to_string(),
            size,
            layout,
        });
        self.datatypes_seen.push(seen);
        self.datatype_ids.insert(name.to_string(), id);
        id
    }

    /// The numbering a normalization rank after rank gives, once every rank is normalized.
    /// (Takes the first-seen tables: they are of no use after.)
    pub(super) fn numbering(&mut self) -> Numbering {
        Numbering::new(
            std::mem::take(&mut self.sites_seen),
            std::mem::take(&mut self.comms_seen),
            std::mem::take(&mut self.datatypes_seen),
            std::mem::take(&mut self.rma.windows_seen),
        )
    }
}

#[cfg(test)]
mod tests;
