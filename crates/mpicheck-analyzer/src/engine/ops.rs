//! What the replay executes: [`ReplayOp`]s (24 bytes, one per trace event), their kinds and
//! flags, the call each was compiled from ([`OpInfo`]), and the members of communicators.

use super::*;

/// `MPI_PROC_NULL` as a peer, or "no rank".
pub const NO_RANK: u32 = u32::MAX;
/// `MPI_ANY_SOURCE` as a source.
pub const ANY_SOURCE: u32 = u32::MAX - 1;
/// `MPI_ANY_TAG` as a receive tag.
pub const ANY_TAG: i32 = i32::MIN;
/// No request (blocking operation).
pub const NO_REQ: u32 = u32::MAX;

/// What a [`ReplayOp`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern)]
#[repr(u8)]
pub enum OpKind {
    /// Nothing the replay needs (`MPI_Comm_rank`, an unsuccessful test, `MPI_Mrecv`).
    Nop,
    Finalize,
    /// `peer` = destination, `tag`, `sub` = [`SendMode`] as `u8`, `a` = request, `b` = bytes.
    Send,
    /// `peer` = source ([`ANY_SOURCE`]), `tag` ([`ANY_TAG`]), `a` = request, `b` = recorded
    /// source of a wildcard receive ([`NO_RANK`] if unknown).
    Recv,
    /// Send half as in [`OpKind::Send`]; `a` = request, `b` = offset in the aux table of
    /// `[source, tag, recorded source, bytes]` for the receive half.
    Sendrecv,
    /// A blocking probe: `peer` = source, `tag`.
    Probe,
    /// `a` = offset in the aux table of the request ids, `b` = their number; flag
    /// [`flags::WAIT_ANY`] for `MPI_Waitany`/`MPI_Waitsome`.
    Wait,
    /// `a` = offset in the aux table of the request ids, `b` = their number.
    Start,
    /// A single test that found requests complete (see the `polling` module): the program
    /// has them back, and their operations go on without anybody waiting. `a` = offset in
    /// the aux table of `b` pairs `[request, fresh request]`: the handle is the fresh
    /// request from here on, so a persistent request can start again while the replay has
    /// not yet matched its last instance.
    Release,
    /// `sub` = collective kind index, `peer` = root (communicator rank) or [`NO_RANK`],
    /// `a` = request, `b` = name id for [`CollectiveKind::Management`] calls.
    Collective,
    /// `b` = bytes.
    BufferAttach,
    BufferDetach,
    /// `a` = request.
    RequestFree,
    /// `a` = request.
    Cancel,
    /// Active-target synchronization (`engine/rma.rs`): `comm` = window, `a` = offset in
    /// the aux table of the group's world ranks, `b` = their number.
    WinPost,
    /// As [`OpKind::WinPost`].
    WinStart,
    /// `comm` = window.
    WinComplete,
    /// `comm` = window: `MPI_Win_wait`, or an `MPI_Win_test` that ended a polling loop.
    WinWait,
    /// A lock, unlock, flush or RMA call the trace shows blocked while other origins hold
    /// conflicting locks on its target in epochs that never end (`engine/rma.rs`): `comm` =
    /// window, `a` = offset in the aux table of the holders' world ranks, `b` = their number.
    WinLockWait,
}

/// Bits of [`ReplayOp::flags`].
pub mod flags {
    /// The call returned in the trace.
    pub const RETURNED: u8 = 1;
    /// The trace shows the operation did not complete locally (a wait on it never
    /// returned): a standard send the library did not buffer, a collective that waited.
    pub const UNBUFFERED: u8 = 2;
    /// `MPI_Waitany`/`MPI_Waitsome`: any one completion suffices.
    pub const WAIT_ANY: u8 = 4;
    /// A send or receive whose peer is the source the rank's latest wildcard receive took
    /// in the run: where its call site always does so ([`RankProgram`]'s follower sites),
    /// it is taken to be the status's `MPI_SOURCE` (a reply to whoever sent), and a replay
    /// in which that receive took another source names that one.
    pub const FOLLOWS_WILDCARD: u8 = 8;
    /// A receive or probe for any tag whose message's tag the trace shows: `tag` holds that
    /// tag, and the operation matches any ([`ReplayOp::recv_tag`]). A replay of another
    /// matching in which the receive takes a message with another tag stops replaying its
    /// rank there ([`super::Engine`]'s `diverged`): programs branch on `status.MPI_TAG` (a
    /// worker ends on the master's stop tag), and what the rank does next is not in its
    /// trace. (The tag itself, not a digest of it: two tags that shared a digest were taken
    /// as the same, and a rank that took the stop tag instead of a work tag replayed on.)
    pub const TAG_RECORDED: u8 = 16;
    /// A send whose tag is the tag the rank's latest receive for any tag took in the run:
    /// where its call site always does so ([`RankProgram`]'s tag follower sites), it is
    /// taken to be the status's `MPI_TAG` (an echo of the request's tag), and a replay in
    /// which that receive took a message with another tag sends with that one.
    pub const FOLLOWS_WILDCARD_TAG: u8 = 32;
    /// A sendrecv whose receive half's source is the source the rank's latest wildcard
    /// receive took in the run, as [`FOLLOWS_WILDCARD`] is for the send half's destination
    /// (`MPI_Sendrecv(..., status.MPI_SOURCE, ..., status.MPI_SOURCE, ...)`: a reply and
    /// its acknowledgement). Its call site's record is kept apart from the send half's
    /// ([`super::RECEIVE_HALF`]).
    pub const RECEIVE_FOLLOWS_WILDCARD: u8 = 64;
    /// A receive of the message a single successful `MPI_Iprobe` found (see the `polling`
    /// module), nobody waiting for it. The single probe is no wildcard the replays replay,
    /// so the source and tag the receive names are the run's message's, whichever it was:
    /// its call site follows no wildcard (`compile/followers.rs`).
    pub const TAKES_PROBED: u8 = 128;
}

/// Marks the function of a follower call site ([`RankProgram`]'s follower sites) that
/// stands for the receive half of a sendrecv made there: the half names its source apart
/// from the send half's destination (a sendrecv may reply to the wildcard's source and
/// receive from a fixed neighbour). No function index reaches it.
pub(crate) const RECEIVE_HALF: u16 = 1 << 15;

/// Blocking classes in [`ReplayOp::class`].
pub mod class {
    pub const BLOCKING: u8 = 0;
    pub const NONBLOCKING: u8 = 1;
    /// `*_init`: creates an inactive persistent request.
    pub const PERSISTENT: u8 = 2;
}

/// One operation of one rank, compiled from one [`Event`] (24 bytes, so a million ranks
/// with 64 calls each fit in 1.5 GB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern)]
#[repr(C)]
pub struct ReplayOp {
    pub kind: OpKind,
    pub flags: u8,
    pub class: u8,
    pub sub: u8,
    pub comm: u32,
    pub peer: u32,
    pub tag: i32,
    pub a: u32,
    pub b: u32,
}

impl ReplayOp {
    pub fn new(kind: OpKind) -> ReplayOp {
        ReplayOp {
            kind,
            flags: flags::RETURNED,
            class: class::BLOCKING,
            sub: 0,
            comm: 0,
            peer: NO_RANK,
            tag: 0,
            a: NO_REQ,
            b: 0,
        }
    }

    /// The tag a receive or probe matches: [`ANY_TAG`] where `tag` holds the tag it took
    /// in the run ([`flags::TAG_RECORDED`]).
    #[inline]
    pub fn recv_tag(&self) -> i32 {
        if self.flags & flags::TAG_RECORDED != 0 {
            ANY_TAG
        } else {
            self.tag
        }
    }

    /// The tag a receive or probe for any tag took in the run, where the trace shows it.
    #[inline]
    pub fn recorded_tag(&self) -> Option<i32> {
        (self.flags & flags::TAG_RECORDED != 0).then_some(self.tag)
    }
}

/// What the checks say about the call an operation was compiled from, kept next to the
/// operations (8 bytes each) so that reports of stuck or racing calls need no events:
/// where it was made, which function, whether it returned.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern,
)]
#[repr(C)]
pub struct OpInfo {
    /// The call site ([`SiteId`]).
    pub site: u32,
    /// The called function, an index into the program's names (0: not known, for
    /// operations that were not compiled from a call).
    pub call: u16,
    pub shape: CallShape,
    /// [`info_bits`].
    pub bits: u8,
}

/// Bits of [`OpInfo::bits`].
pub mod info_bits {
    /// The call returned in the trace.
    pub const RETURNED: u8 = 1;
    /// A nonblocking send whose request a later `MPI_Cancel` of the rank names.
    pub const CANCELLED: u8 = 2;
    /// A send or collective of a persistent request (`*_init`).
    pub const PERSISTENT: u8 = 4;
}

/// What kind of call an operation was compiled from, as recorded (a polling loop modelled
/// as the blocking call it stands for keeps the shape of that call, and its own name).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::NoUninit, bytemuck::CheckedBitPattern,
)]
#[repr(u8)]
pub enum CallShape {
    #[default]
    Other,
    /// A send in standard, buffered or ready mode.
    Send,
    /// A synchronous send.
    SyncSend,
    Sendrecv,
    Recv,
    /// A probe (blocking or not, matched or not).
    Probe,
    /// A wait, test or request-status query.
    Wait,
    Collective,
}

/// How a rank's trace ends, as the replay needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    Finalized,
    Exited,
    /// Still running, killed or crashed: what it would have done next is unknown.
    Interrupted,
}

pub(crate) const SEND_MODES: [SendMode; 4] = [
    SendMode::Standard,
    SendMode::Synchronous,
    SendMode::Buffered,
    SendMode::Ready,
];

pub(crate) const COLLECTIVE_KINDS: [CollectiveKind; 23] = {
    use CollectiveKind::*;
    [
        Barrier,
        Bcast,
        Gather,
        Gatherv,
        Scatter,
        Scatterv,
        Allgather,
        Allgatherv,
        Alltoall,
        Alltoallv,
        Alltoallw,
        Reduce,
        Allreduce,
        ReduceScatter,
        ReduceScatterBlock,
        Scan,
        Exscan,
        NeighborAllgather,
        NeighborAllgatherv,
        NeighborAlltoall,
        NeighborAlltoallv,
        NeighborAlltoallw,
        Management,
    ]
};

pub(crate) fn kind_index(kind: CollectiveKind) -> u8 {
    COLLECTIVE_KINDS
        .iter()
        .position(|&k| k == kind)
        .unwrap_or(0) as u8
}

pub(crate) fn mode_index(mode: SendMode) -> u8 {
    SEND_MODES.iter().position(|&m| m == mode).unwrap_or(0) as u8
}

/// The members of a communicator with a fast world-rank → communicator-rank lookup.
#[derive(Clone, Debug)]
pub struct CommMembers {
    /// `None`: the identity over `size` ranks (`MPI_COMM_WORLD`).
    list: Option<Vec<Rank>>,
    index: FxHashMap<Rank, u32>,
    size: u32,
}

impl CommMembers {
    /// `MPI_COMM_WORLD`'s members: world ranks `0..size`.
    pub fn identity(size: u32) -> CommMembers {
        CommMembers {
            list: None,
            index: FxHashMap::default(),
            size,
        }
    }
    /// World ranks in communicator rank order.
    pub fn of(members: Vec<Rank>) -> CommMembers {
        let identity = members.iter().enumerate().all(|(i, &m)| i as u32 == m);
        if identity {
            return CommMembers::identity(members.len() as u32);
        }
        let index = members
            .iter()
            .enumerate()
            .map(|(i, &m)| (m, i as u32))
            .collect();
        CommMembers {
            size: members.len() as u32,
            list: Some(members),
            index,
        }
    }
    pub fn size(&self) -> u32 {
        self.size
    }
    pub fn comm_rank(&self, world: Rank) -> Option<u32> {
        match &self.list {
            None => (world < self.size).then_some(world),
            Some(_) => self.index.get(&world).copied(),
        }
    }
    pub fn member(&self, comm_rank: u32) -> Rank {
        match &self.list {
            None => comm_rank,
            Some(list) => list[comm_rank as usize],
        }
    }
    pub fn members(&self) -> impl Iterator<Item = Rank> + '_ {
        (0..self.size).map(move |i| self.member(i))
    }
}
