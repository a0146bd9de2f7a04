//! Per-rank handle tables: communicators, datatypes.

use super::*;

impl RankState {
    pub(super) fn new(rank: Rank, world_size: u32, trace: &Trace, tables: &mut Tables) -> Self {
        let constants = Constants::of(trace);
        let mut comms = FxHashMap::default();
        if let Some(world) = constants.comm_world {
            comms.insert(
                world,
                LocalComm::new(CommId(0), (0..world_size).collect(), None, rank),
            );
        }
        let mut named = 0;
        if let Some(self_handle) = constants.comm_self {
            named += 1;
            let id = tables.comm(CommKey::SelfOf(rank), Seen::of(rank, named), || CommInfo {
                name: format!("MPI_COMM_SELF of rank {rank}").into(),
                members: [rank].into(),
                remote: None,
            });
            comms.insert(
                self_handle,
                LocalComm::new(id, Arc::new([rank]), None, rank),
            );
        }
        RankState {
            rank,
            named,
            constants,
            comms,
            requests: FxHashMap::default(),
            retired: FxHashMap::default(),
            shared_requests: Vec::new(),
            handles_shared: false,
            call_enter_ns: 0,
            call_exit_ns: u64::MAX,
            next_request: 0,
            datatypes: FxHashMap::default(),
            predefined_type_ids: FxHashMap::default(),
            last_predefined_type: None,
            layouts: FxHashMap::default(),
            user_ops: FxHashMap::default(),
            pending_user_fn: None,
            topologies: FxHashMap::default(),
            pending_topology: None,
            files: FxHashMap::default(),
            windows: FxHashMap::default(),
            creations: FxHashMap::default(),
            intercomm_creations: FxHashMap::default(),
            pending_creation: None,
            pending_outside: None,
            last_collective_args: Vec::new(),
            freed_comms: Vec::new(),
            objects: facts::ObjectTables::new(trace),
            rma: Default::default(),
        }
    }
}

impl RankState {
    /// Notes `id` as the type of derived datatype handle `raw` (`None`: forgets it).
    pub(super) fn set_derived_type(&mut self, raw: i64, id: Option<TypeId>) {
        // The handle of a derived type is not the last predefined one (`datatype` asks
        // that one first).
        if self
            .last_predefined_type
            .is_some_and(|(last, _)| last == raw)
        {
            self.last_predefined_type = None;
        }
        match id {
            Some(id) => self.datatypes.insert(raw, id),
            None => self.datatypes.remove(&raw),
        };
    }
}

impl LocalComm {
    /// Communicator `id` as rank `me` sees it: its local group and, for an
    /// intercommunicator, the remote one.
    pub(super) fn new(
        id: CommId,
        local: Arc<[Rank]>,
        remote: Option<Arc<[Rank]>>,
        me: Rank,
    ) -> LocalComm {
        let me = local.iter().position(|&r| r == me).map(|p| p as u32);
        let outside = (local.iter())
            .chain(remote.iter().flat_map(|group| group.iter()))
            .any(|&r| r == OUTSIDE_JOB);
        LocalComm {
            id,
            outside,
            local,
            remote,
            me,
        }
    }
}

impl RankNormalizer<'_> {
    /// The communicator `raw` as this rank sees it. (Inlined: asked by every
    /// point-to-point call; one the trace did not see made is the cold path.)
    #[inline]
    pub(super) fn comm(&mut self, raw: Option<i64>) -> LocalComm {
        let raw = raw.unwrap_or(i64::MIN);
        if let Some(c) = self.comms.get(&raw) {
            return c.clone();
        }
        self.unknown_comm(raw)
    }

    /// A communicator whose making the trace does not show: named once per handle.
    #[cold]
    fn unknown_comm(&mut self, raw: i64) -> LocalComm {
        let rank = self.rank;
        let seen = self.state.seen();
        let id = self
            .tables
            .comm(CommKey::Unknown { rank, raw }, seen, || CommInfo {
                name: format!("communicator {raw:#x} of rank {rank} (creation not recorded)")
                    .into(),
                members: [].into(),
                remote: None,
            });
        LocalComm::new(id, Arc::new([]), None, rank)
    }

    pub(super) fn datatype(&mut self, raw: Option<i64>) -> Option<TypeId> {
        let raw = raw?;
        // Predefined types are used by most calls, and the last one needs no lookup at all
        // (it is not a derived type's handle: `RankState::set_derived_type`).
        if let Some((_, id)) = self.last_predefined_type.filter(|&(last, _)| last == raw) {
            return Some(id);
        }
        if let Some(&id) = self.datatypes.get(&raw) {
            return Some(id);
        }
        if Some(raw) == self.constants.datatype_null {
            return None;
        }
        // A predefined type's id is looked up by name (and its layout built) once per
        // handle, not per call (ids of names never change).
        if let Some(&id) = self.predefined_type_ids.get(&raw) {
            self.last_predefined_type = Some((raw, id));
            return Some(id);
        }
        let name = self.constants.datatypes.get(&raw)?.clone();
        let size = self.constants.datatype_sizes.get(&name).copied();
        let layout = Layout::predefined(&name);
        let seen = self.state.seen();
        let id = self.tables.datatype(&name, seen, size, Some(layout));
        self.predefined_type_ids.insert(raw, id);
        Some(id)
    }

    /// The signature structure of a datatype handle: derived (from its constructor) or
    /// predefined.
    pub(super) fn layout(&self, raw: Option<i64>) -> Option<Arc<Layout>> {
        let raw = raw?;
        if let Some(l) = self.layouts.get(&raw) {
            return Some(l.clone());
        }
        if Some(raw) == self.constants.datatype_null {
            return None;
        }
        self.constants
            .datatypes
            .get(&raw)
            .map(|name| Layout::predefined(name))
    }

    /// Records the signature structure of the type a constructor call creates.
    pub(super) fn type_constructor(&mut self, short: &str, args: &Args) {
        let Some(new) = args.out_int("newtype") else {
            return;
        };
        // A handle MPI reuses names a new type: its id comes with its MPICHECK_Type_info
        // once committed, except for a copy of a committed type, which is committed and
        // has the same signature and size from the start (MPI 4.1 §5.1.10).
        self.state.set_derived_type(new, None);
        if short == "Type_dup" {
            let old = args.int("oldtype");
            if old.is_some_and(|old| self.objects.is_committed(old)) {
                if let Some(id) = self.datatype(old) {
                    self.state.set_derived_type(new, Some(id));
                }
            }
        }
        let int = |n: &str| args.int(n).unwrap_or(0).max(0) as u64;
        let array =
            |n: &str| -> Vec<i64> { args.array(n).map(<[i64]>::to_vec).unwrap_or_default() };
        let old = self.layout(args.int("oldtype"));
        let old_name = || {
            old.as_ref()
                .map_or("?".to_string(), |l| l.description.clone())
        };
        let layout = match short {
            "Type_contiguous" => old.as_ref().map(|o| {
                let n = int("count");
                Layout::repeated(n, o, format!("contiguous({n} × {})", old_name()))
            }),
            "Type_vector" | "Type_create_hvector" | "Type_hvector" => old.as_ref().map(|o| {
                let (n, b) = (int("count"), int("blocklength"));
                let what = if short == "Type_vector" {
                    "vector"
                } else {
                    "hvector"
                };
                Layout::repeated(
                    n.saturating_mul(b),
                    o,
                    format!("{what}({n} blocks of {b} × {})", old_name()),
                )
            }),
            "Type_indexed" | "Type_create_hindexed" | "Type_hindexed" => old.as_ref().map(|o| {
                let blocks = array("array_of_blocklengths");
                let total: u64 = blocks.iter().map(|&b| b.max(0) as u64).sum();
                Layout::repeated(
                    total,
                    o,
                    format!("indexed({} blocks, {total} × {})", blocks.len(), old_name()),
                )
            }),
            "Type_create_indexed_block" | "Type_create_hindexed_block" => old.as_ref().map(|o| {
                let (n, b) = (int("count"), int("blocklength"));
                Layout::repeated(
                    n.saturating_mul(b),
                    o,
                    format!("indexed_block({n} blocks of {b} × {})", old_name()),
                )
            }),
            "Type_create_subarray" => old.as_ref().map(|o| {
                let sub = array("array_of_subsizes");
                let total = sub
                    .iter()
                    .fold(1u64, |p, &s| p.saturating_mul(s.max(0) as u64));
                let dims: Vec<String> = sub.iter().map(|s| s.to_string()).collect();
                Layout::repeated(
                    total,
                    o,
                    format!("subarray({} of {})", dims.join("×"), old_name()),
                )
            }),
            "Type_create_struct" | "Type_struct" => {
                let blocks = array("array_of_blocklengths");
                let types = array("array_of_types");
                let pieces: Option<Vec<(u64, Arc<Layout>)>> = blocks
                    .iter()
                    .zip(&types)
                    .map(|(&b, &t)| self.layout(Some(t)).map(|l| (b.max(0) as u64, l)))
                    .collect();
                pieces.filter(|p| p.len() == blocks.len()).map(|pieces| {
                    let parts: Vec<String> = pieces
                        .iter()
                        .map(|(b, l)| format!("{b} × {}", l.description))
                        .collect();
                    Layout::derived(pieces, format!("struct({})", parts.join(", ")))
                })
            }
            "Type_dup" | "Type_create_resized" => old,
            // The local part of a distributed array: a number of oldtype elements known only
            // from the committed type's size; see MPICHECK_Type_info.
            "Type_create_darray" => old
                .as_ref()
                .map(|o| Layout::repeated(0, o, format!("darray of {}", old_name()))),
            _ => None,
        };
        match layout {
            Some(l) => {
                self.layouts.insert(new, l);
            }
            None => {
                // A handle MPI reused for a type this trace cannot describe.
                self.layouts.remove(&new);
            }
        }
    }
}
