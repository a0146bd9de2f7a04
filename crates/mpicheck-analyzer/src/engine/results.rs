//! What a replay is asked and what it returns: its [`Mode`] and [`ReplayOptions`], each
//! rank's [`RankOutcome`], the stuck ranks and what they wait on, the wildcard races seen.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Recorded,
    Strict,
}

/// Make one wildcard receive match a chosen source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ForcedMatch {
    pub rank: Rank,
    /// Event index of the receive in its rank.
    pub event: usize,
    pub source: Rank,
}

#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub mode: Mode,
    pub forced: Option<ForcedMatch>,
    /// Sends (rank, event index) whose message no receive ever took in the recorded
    /// replay ([`Replay::unreceived`]). In [`Mode::Strict`] they complete as if buffered:
    /// such a message is lost (RQ005), and waiting for a receive that never comes is no
    /// potential deadlock of the program's order.
    pub never_received: Arc<FxHashSet<(Rank, u32)>>,
    /// Calls of call sites that named their rank's latest wildcard source every time, too
    /// few times to tell whether by design (`Following::Doubtful`), name the source the
    /// wildcard took in this replay too. DL003 reports an alternative matching only if it
    /// deadlocks both ways.
    pub follow_doubtful: bool,
}

impl ReplayOptions {
    pub fn new(mode: Mode) -> ReplayOptions {
        ReplayOptions {
            mode,
            forced: None,
            never_received: Arc::default(),
            follow_doubtful: false,
        }
    }
}

/// Where a rank ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankOutcome {
    /// Reached `MPI_Finalize` (or the end of a trace that says it finalized).
    Finalized,
    /// Reached the end of a trace that exited without `MPI_Finalize`.
    Exited,
    /// Cannot complete the call at this event index.
    Stuck { event: usize },
    /// Replayed all its events, but its trace was interrupted: what it would have done next
    /// is unknown, so it may still release others.
    Unfinished,
}

impl RankOutcome {
    pub fn terminated(self) -> bool {
        matches!(self, RankOutcome::Finalized | RankOutcome::Exited)
    }
}

/// What a blocked call waits for from its peers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitOn {
    /// A message (a receive or probe), with its tag (`None`: any tag).
    Message { comm: CommId, tag: Option<i32> },
    /// The receive matching a synchronous (or unbuffered) send.
    Receive { comm: CommId, tag: i32 },
    /// The peers' calls of a collective.
    Collective { comm: CommId, kind: CollectiveKind },
    /// A partner's call of an active-target epoch on a window (`MPI_Win_post` a start or
    /// complete waits for, `MPI_Win_complete` a wait waits for).
    Epoch { win: WinId, call: &'static str },
}

/// The condition under which a blocked call could complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitCond {
    /// One peer.
    Rank {
        rank: Rank,
        on: WaitOn,
    },
    /// Every one of these peers (a collective).
    Ranks {
        ranks: Arc<[Rank]>,
        on: WaitOn,
    },
    /// Any member of the communicator other than the waiting rank (`MPI_ANY_SOURCE`).
    AnySource {
        comm: CommId,
        on: WaitOn,
    },
    AllOf(Vec<WaitCond>),
    AnyOf(Vec<WaitCond>),
}

impl WaitCond {
    /// `true` when the condition needs all its parts (AND), `false` when any suffices (OR).
    pub fn is_and(&self) -> bool {
        match self {
            WaitCond::Rank { .. } | WaitCond::Ranks { .. } | WaitCond::AllOf(_) => true,
            WaitCond::AnySource { .. } | WaitCond::AnyOf(_) => false,
        }
    }

    /// Every peer the condition mentions (`self_rank` is left out of wildcards).
    pub(crate) fn for_each_rank(
        &self,
        program: &Program,
        self_rank: Rank,
        f: &mut dyn FnMut(Rank, &WaitOn),
    ) {
        match self {
            WaitCond::Rank { rank, on } => f(*rank, on),
            WaitCond::Ranks { ranks, on } => ranks.iter().for_each(|&r| f(r, on)),
            WaitCond::AnySource { comm, on } => {
                if let Some(members) = program.comm(comm.0) {
                    for m in members.members() {
                        if m != self_rank {
                            f(m, on)
                        }
                    }
                }
            }
            WaitCond::AllOf(parts) | WaitCond::AnyOf(parts) => {
                for p in parts {
                    p.for_each_rank(program, self_rank, f)
                }
            }
        }
    }

    /// Whether the condition holds when exactly the ranks with `able(rank)` can still act.
    pub(crate) fn holds(
        &self,
        program: &Program,
        self_rank: Rank,
        able: &dyn Fn(Rank) -> bool,
    ) -> bool {
        match self {
            WaitCond::Rank { rank, .. } => able(*rank),
            WaitCond::Ranks { ranks, .. } => ranks.iter().all(|&r| able(r)),
            WaitCond::AnySource { comm, .. } => program
                .comm(comm.0)
                .is_some_and(|m| m.members().any(|r| r != self_rank && able(r))),
            WaitCond::AllOf(parts) => parts.iter().all(|p| p.holds(program, self_rank, able)),
            WaitCond::AnyOf(parts) => parts.iter().any(|p| p.holds(program, self_rank, able)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckRank {
    pub rank: Rank,
    /// Event index of the call it cannot complete.
    pub event: usize,
    pub cond: WaitCond,
}

/// A wildcard receive that had matching messages from more than one source when it matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WildcardRace {
    pub rank: Rank,
    /// Event index of the receive.
    pub event: usize,
    /// The source it matched in this replay.
    pub matched: Rank,
    /// Every source with a matching message at that moment, with the event index of that
    /// message's send, sorted by source (includes the matched one).
    pub candidates: Vec<(Rank, usize)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// Operations executed.
    pub ops: u64,
    /// Point-to-point matches.
    pub matches: u64,
    /// Collective calls posted.
    pub collectives: u64,
    /// The most request slots live at once (requests in flight, persistent requests, and
    /// one slot per rank for its blocking calls): the replay's request table.
    pub peak_live_requests: u64,
    /// The most collective series (communicator, operation, root) held at once.
    pub peak_series: u64,
}

#[derive(Clone, Debug)]
pub struct Replay {
    pub mode: Mode,
    /// Index = world rank.
    pub ranks: Vec<RankOutcome>,
    /// The stuck ranks, by rank.
    pub stuck: Vec<StuckRank>,
    pub races: Vec<WildcardRace>,
    /// With [`ReplayOptions::forced`]: whether the forced receive matched its source.
    pub forced_matched: Option<bool>,
    /// In [`Mode::Strict`], the ranks (ascending) that went on past a single successful
    /// test (see `engine/polling.rs`) of an operation this replay never completed. The run's
    /// test found it complete only because MPI buffered (or the peer was early); unbuffered
    /// it would have failed, and the program would have gone on polling or to other work:
    /// what such a rank does after the test here is not what it would do unbuffered.
    pub passed_unseen: Vec<Rank>,
    /// Sends that completed at the sender (buffered, or an immediate send completed) whose
    /// message no receive took by the end, by rank and event.
    pub unreceived: Vec<UnreceivedSend>,
    pub stats: ReplayStats,
}

/// A message its sender got past that no receive took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnreceivedSend {
    pub rank: Rank,
    /// Event index of the send in its rank.
    pub event: usize,
    /// The destination's world rank, and the tag.
    pub dest: Rank,
    pub tag: i32,
}

impl Replay {
    /// Every rank got through all its calls.
    pub fn completed(&self) -> bool {
        self.stuck.is_empty()
    }
}
