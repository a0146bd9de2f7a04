//! One-sided communication (RMA) in the normalized model.
//!
//! Windows get a [`WinId`] equal on every member (like [`CommId`]s), with the memory each
//! member exposes. Every call on a window (constructors, synchronization, communication) has
//! an [`RmaCall`] in [`super::Run::rma`], keyed like collective arguments by (world rank,
//! event index). The calls keep their [`super::Op`]: `MPI_Win_fence`, the constructors and
//! `MPI_Win_free` stay collectives for the replay, the others are [`super::Op::Other`] to it.

use std::collections::BTreeMap;

use super::{CommId, Event, Rank, SiteId, TypeId};

/// Index into [`super::Run::windows`]; the same value on every member of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WinId(pub u32);

/// How a window's memory was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinFlavor {
    /// `MPI_Win_create`: memory the user passed.
    Create,
    /// `MPI_Win_allocate`.
    Allocate,
    /// `MPI_Win_allocate_shared`.
    Shared,
    /// `MPI_Win_create_dynamic`: memory attached later ([`RmaKind::Attach`]); target
    /// displacements are addresses at the target (its [`WinMemory`] has size 0, unit 1).
    Dynamic,
}

/// The memory one member exposes in a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WinMemory {
    /// Bytes (`size` of the constructor).
    pub size: u64,
    /// `disp_unit`: target displacements are in these units.
    pub disp_unit: u64,
    /// The memory's address in the member's process (`base` of `MPI_Win_create`); `None`
    /// when MPI allocated it (the trace keeps only where the pointer was stored) or for
    /// dynamic windows.
    pub base: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowInfo {
    /// `window 0 (MPI_Win_create on MPI_COMM_WORLD)`, for messages.
    pub name: String,
    pub comm: CommId,
    /// World ranks of the window's group, in window rank order.
    pub members: Vec<Rank>,
    pub flavor: WinFlavor,
    /// What each member exposes, by world rank, from its constructor call.
    pub memory: BTreeMap<Rank, WinMemory>,
}

/// A target rank of an RMA call, as the window's group resolves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmaTarget {
    Rank(Rank),
    ProcNull,
    /// Not a rank of the window's group: the value passed.
    Invalid(i64),
}

/// The communication calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Put,
    Get,
    Accumulate,
    GetAccumulate,
    FetchAndOp,
    CompareAndSwap,
}

impl AccessKind {
    /// An accumulate function: element-wise atomic at the target (MPI 4.1 §12.3.4).
    pub fn is_accumulate(self) -> bool {
        !matches!(self, AccessKind::Put | AccessKind::Get)
    }
}

/// One communication call: what it does to which bytes of which target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RmaAccess {
    pub kind: AccessKind,
    /// The request-based form (`MPI_Rput`, ...).
    pub request: bool,
    pub target: RmaTarget,
    /// `target_disp`, in the target's displacement units.
    pub disp: i64,
    /// `target_count` elements of `datatype` (`target_datatype`, or `datatype` of the
    /// single-element calls).
    pub count: i64,
    pub datatype: Option<TypeId>,
    /// Bytes the `count` target elements span when their layout is contiguous and known;
    /// `None` for derived types with holes or unknown sizes (not judged).
    pub bytes: Option<u64>,
    /// Bytes the `count` elements touch relative to the target displacement, `[first,
    /// end)`, from the datatype's true extent: for a type with holes, from the first
    /// element's first byte to the last element's last byte (the holes included), so only
    /// for bounds (RM006), never for conflicts. `None` when the bounds are unknown.
    pub span: Option<(i64, i64)>,
    /// The reduction operation of an accumulate (`MPI_SUM`, `MPI_REPLACE`, `MPI_NO_OP`).
    pub op: Option<String>,
}

impl RmaAccess {
    /// Whether the call writes target memory (`MPI_Get_accumulate` with `MPI_NO_OP` only
    /// reads it).
    pub fn writes_target(&self) -> bool {
        match self.kind {
            AccessKind::Get => false,
            AccessKind::Put => true,
            _ => self.op.as_deref() != Some("MPI_NO_OP"),
        }
    }

    /// The target bytes `[start, end)` relative to the start of the target's window memory,
    /// when the displacement unit of the target and the element layout are known.
    pub fn target_range(&self, window: &WindowInfo) -> Option<(u64, u64)> {
        let RmaTarget::Rank(target) = self.target else {
            return None;
        };
        let unit = window.memory.get(&target)?.disp_unit;
        let start = u64::try_from(self.disp).ok()?.checked_mul(unit)?;
        Some((start, start.checked_add(self.bytes?)?))
    }

    /// The bytes `[first, end)` that the call's elements reach in the target's window memory
    /// (holes of the datatype included), for the window's bounds; `first` may be negative.
    pub fn reached_range(&self, window: &WindowInfo) -> Option<(i64, i64)> {
        let RmaTarget::Rank(target) = self.target else {
            return None;
        };
        let unit = i64::try_from(window.memory.get(&target)?.disp_unit).ok()?;
        let base = self.disp.checked_mul(unit)?;
        let (first, end) = self.span?;
        Some((base.checked_add(first)?, base.checked_add(end)?))
    }
}

/// What a call on a window does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmaKind {
    /// A constructor (`MPI_Win_create`, `_allocate`, `_allocate_shared`, `_create_dynamic`).
    Create,
    Free,
    /// `MPI_Win_fence`; `nosucceed`: `MPI_MODE_NOSUCCEED` was given (no epoch follows).
    Fence {
        nosucceed: bool,
    },
    /// `MPI_Win_lock`; `exclusive`: `MPI_LOCK_EXCLUSIVE` (`Some(false)`: `MPI_LOCK_SHARED`,
    /// `None`: not known).
    Lock {
        target: RmaTarget,
        exclusive: Option<bool>,
        /// `MPI_MODE_NOCHECK`: the program promises no other origin holds or requests a
        /// conflicting lock on the target during the epoch (MPI 4.1 §12.5.5).
        nocheck: bool,
    },
    Unlock {
        target: RmaTarget,
    },
    LockAll,
    UnlockAll,
    /// `MPI_Win_post` (exposure epoch: `group` are the origins) and `MPI_Win_start` (access
    /// epoch: `group` are the targets), with the group's world ranks when the normalizer
    /// could follow the group handle (`None`: the epoch's partners are unknown);
    /// `nocheck`: `MPI_MODE_NOCHECK` was given (the program promises the matching call on
    /// the other side is already ordered, MPI 4.1 §12.5.5).
    Post {
        group: Option<Vec<Rank>>,
        nocheck: bool,
    },
    Start {
        group: Option<Vec<Rank>>,
        nocheck: bool,
    },
    Complete,
    Wait,
    /// `MPI_Win_test`; `done`: the flag it returned.
    Test {
        done: bool,
    },
    /// `MPI_Win_flush`/`_flush_local` (one target) and their `_all` forms, `MPI_Win_sync`.
    Flush {
        target: Option<RmaTarget>,
    },
    Sync,
    /// `MPI_Win_attach` of `size` bytes at address `base` to a dynamic window.
    Attach {
        base: u64,
        size: u64,
    },
    /// `MPI_Win_detach` of the memory attached at `base`.
    Detach {
        base: u64,
    },
    Access(RmaAccess),
}

/// One call on a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RmaCall {
    pub win: WinId,
    pub kind: RmaKind,
    /// What the RMA checks say of the call's event, so that they read the calls on
    /// windows, not every event of the run.
    pub event: EventSummary,
}

/// Where and how a call was made: its event's call name, site, thread, whether it returned
/// and when it entered MPI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventSummary {
    pub call: &'static str,
    pub site: SiteId,
    pub thread: u16,
    pub returned: bool,
    /// [`super::CallTime::enter_ns`]; `None` in hand-written traces without times.
    pub enter_ns: Option<u64>,
}

impl EventSummary {
    pub fn of(event: &Event) -> EventSummary {
        EventSummary {
            call: event.call,
            site: event.site,
            thread: event.thread,
            returned: event.returned,
            enter_ns: event.time.map(|t| t.enter_ns),
        }
    }
}
