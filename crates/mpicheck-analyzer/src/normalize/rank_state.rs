//! What the normalization of one rank keeps from call to call ([`RankState`]: its handle
//! tables and live objects; made in `handles.rs`), and that state with the run's shared
//! tables while one call is normalized ([`RankNormalizer`], on which the other files of
//! `normalize/` define how each kind of call is normalized).

use std::num::NonZeroI64;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::constants::Constants;
use super::numbering::Seen;
use super::tables::{LocalComm, Tables};
use super::topology::Topology;
use super::{facts, rma};
use crate::model::*;
use crate::typesig::Layout;

/// A request as one rank knows it.
pub(super) struct RequestInfo {
    pub(super) id: ReqId,
    pub(super) persistent: bool,
    /// Communicator of the operation, to translate the status source of a receive.
    pub(super) comm: Option<LocalComm>,
    /// Index of the receive event whose `matched` a completion fills in.
    pub(super) recv_event: Option<usize>,
    /// When the call that made it returned (`u64::MAX` if it did not): a call that entered
    /// MPI before then cannot name it (see `request_of`).
    pub(super) made_ns: u64,
    /// The address of the program's variable MPI wrote the handle to (traces that record
    /// it): tells apart live requests that MPI gave one handle (see `request_of`).
    pub(super) address: Option<NonZeroI64>,
}

/// What the normalization of one rank keeps from call to call: its handle tables and live
/// objects.
pub(super) struct RankState {
    pub(super) rank: Rank,
    /// Entries of the run's tables this rank named so far (see [`Seen`]).
    pub(super) named: u32,
    pub(super) constants: Constants,
    pub(super) comms: FxHashMap<i64, LocalComm>,
    /// Live requests by raw handle, oldest first. Usually one per handle, but MPI may hand
    /// out one handle for several live requests: Open MPI returns its static, already
    /// complete `ompi_request_empty` for every send it finished inline.
    pub(super) requests: FxHashMap<i64, smallvec::SmallVec<[RequestInfo; 1]>>,
    /// Handles completed by a call and when that call returned: another thread's call that
    /// entered before then still used the same request (records are in entry order, so a
    /// completion is seen before calls of other threads that overlapped it).
    pub(super) retired: FxHashMap<i64, (ReqId, u64)>,
    /// Requests whose handle MPI gave to another live request too, where the addresses of
    /// the program's request variables cannot tell which a call names.
    pub(super) shared_requests: Vec<ReqId>,
    /// Whether some handle was ever live for two requests at once: until then a wait's
    /// request addresses need not be looked at.
    pub(super) handles_shared: bool,
    /// Entry and exit time of the call being normalized.
    pub(super) call_enter_ns: u64,
    pub(super) call_exit_ns: u64,
    pub(super) next_request: u32,
    /// Derived datatype handles → their id (changed by `set_derived_type` only).
    pub(super) datatypes: FxHashMap<i64, TypeId>,
    /// Predefined datatype handles → their id, once looked up.
    pub(super) predefined_type_ids: FxHashMap<i64, TypeId>,
    /// The predefined datatype handle `datatype` resolved last, with its id: never a key of
    /// `datatypes`.
    pub(super) last_predefined_type: Option<(i64, TypeId)>,
    /// Derived datatype handles → their signature structure, from the constructor calls
    /// (committed or not: constructors may use uncommitted types).
    pub(super) layouts: FxHashMap<i64, Arc<Layout>>,
    /// User-defined reduction operations → description.
    /// User-defined ops by handle: how to name them across ranks, `None` when the function
    /// is unknown (stripped binary): such ops are not compared.
    pub(super) user_ops: FxHashMap<i64, Option<Arc<str>>>,
    /// Where the function of the `MPI_Op_create` being normalized is defined.
    pub(super) pending_user_fn: Option<SourceLocation>,
    /// Graph topologies by communicator handle, and the one whose creation awaits its
    /// `MPICHECK_Comm_info`.
    pub(super) topologies: FxHashMap<i64, Topology>,
    pub(super) pending_topology: Option<Topology>,
    /// Open files → the communicator they were opened on.
    pub(super) files: FxHashMap<i64, LocalComm>,
    /// The communicator of each window, from its creation (window calls name no communicator).
    pub(super) windows: FxHashMap<i64, LocalComm>,
    /// Communicator-creating calls per parent so far on this rank, counting the ones that
    /// gave this rank MPI_COMM_NULL: every member of the parent makes each call, so the
    /// count agrees across ranks even when the new communicators' member sets differ.
    pub(super) creations: FxHashMap<CommId, u32>,
    pub(super) intercomm_creations: FxHashMap<(Vec<Rank>, Vec<Rank>), u32>,
    /// The last communicator-creating call (parent, name, ordinal on the parent), awaiting
    /// its `MPICHECK_Comm_info`.
    pub(super) pending_creation: Option<(CommId, &'static str, u32)>,
    /// The last call that may connect the job to processes outside it (function, site),
    /// awaiting its `MPICHECK_Comm_info` ([`plan::FunctionPlan::connects_outside`]).
    pub(super) pending_outside: Option<(&'static str, SiteId)>,
    /// The shared arguments of each function's last collective call with any, by function
    /// id (see `shared_collective_args`).
    pub(super) last_collective_args: Vec<Option<Arc<CollectiveArgs>>>,
    /// Communicators the call being normalized freed as their last member.
    pub(super) freed_comms: Vec<CommId>,
    /// Live MPI objects and the constants to judge arguments by.
    pub(super) objects: facts::ObjectTables,
    pub(super) rma: rma::RankWindows,
}

impl RankState {
    /// This rank names an entry of the run's tables.
    pub(super) fn seen(&mut self) -> Seen {
        self.named += 1;
        Seen::of(self.rank, self.named)
    }
}

/// One rank's state with the run's shared tables, while one call is normalized. (Each rank
/// keeps its own [`RankState`], so the ranks of a run can be normalized in any interleaving.)
pub(super) struct RankNormalizer<'t> {
    pub(super) tables: &'t mut Tables,
    pub(super) state: &'t mut RankState,
}

impl std::ops::Deref for RankNormalizer<'_> {
    type Target = RankState;
    fn deref(&self) -> &RankState {
        self.state
    }
}

impl std::ops::DerefMut for RankNormalizer<'_> {
    fn deref_mut(&mut self) -> &mut RankState {
        self.state
    }
}
