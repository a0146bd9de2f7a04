//! A compiled run: its [`Program`] of operations per rank, read by the replay through the
//! [`OpSource`] interface ([`ProgramOps`]), and [`ProgramBuilder`], which builds one rank by
//! rank from compiled ranks (`engine/compile.rs`) or generated operations (benchmarks, tests).

use super::*;

/// A run compiled for replay: one [`ReplayOp`] per trace event (the event index of an
/// operation is its index within its rank), plus the tables they point into.
#[derive(Debug)]
pub struct Program {
    /// By world rank.
    pub(crate) ranks: Vec<RankProgram>,
    pub(crate) ends: Vec<EndKind>,
    /// By communicator id: its members, an index into `member_sets`.
    pub(crate) comms: Vec<u32>,
    /// The distinct member lists: communicators with the same members (a program that
    /// duplicates or splits communicators again and again) share one.
    pub(crate) member_sets: Vec<CommMembers>,
    pub(crate) names: Vec<&'static str>,
    /// The run's final ids of the call sites, communicators and windows the operations
    /// name, applied as they are read.
    pub(crate) ids: FinalIds,
}

/// The run's final ids by the ids the normalizer gave, where they differ (`None`: the
/// same). A compiled program keeps the normalizer's ids and is read through these, so
/// that renumbering a long run rewrites nothing in the temporary file.
#[derive(Clone, Debug, Default)]
pub(crate) struct FinalIds {
    pub(crate) sites: Option<Vec<u32>>,
    pub(crate) comms: Option<Vec<u32>>,
    pub(crate) windows: Option<Vec<u32>>,
}

impl FinalIds {
    fn of(map: &Option<Vec<u32>>, id: u32) -> u32 {
        map.as_ref().map_or(id, |m| m[id as usize])
    }

    pub(crate) fn site(&self, site: u32) -> u32 {
        Self::of(&self.sites, site)
    }

    /// `op` with its communicator or window in final ids.
    #[inline]
    pub(crate) fn op(&self, mut op: ReplayOp) -> ReplayOp {
        if self.comms.is_none() && self.windows.is_none() {
            return op;
        }
        match op.kind {
            OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Probe | OpKind::Collective => {
                op.comm = Self::of(&self.comms, op.comm)
            }
            OpKind::WinPost
            | OpKind::WinStart
            | OpKind::WinComplete
            | OpKind::WinWait
            | OpKind::WinLockWait => op.comm = Self::of(&self.windows, op.comm),
            _ => {}
        }
        op
    }
}

/// One rank's operations, each with the call it was compiled from; a large rank's are
/// mostly in the analysis's temporary file (`engine/spill.rs`).
#[derive(Debug, Default)]
pub(crate) struct RankProgram {
    pub(crate) ops: SpilledVec<ReplayOp>,
    /// Per operation: the call it was compiled from ([`OpInfo`]).
    pub(crate) info: SpilledVec<OpInfo>,
    /// The words the operations' aux offsets point into.
    pub(crate) aux: SpilledVec<u32>,
    /// The communicator of a collective call whose operation does not carry it (an RMA
    /// call or a call the rank exited in), by operation index.
    pub(crate) collective_comms: FxHashMap<u32, u32>,
    /// The thread that made the operations, as runs `[first operation, thread]` (empty:
    /// every operation is thread 0's), so that the replay can run each thread of a rank
    /// that called MPI from several threads as its own sequence (`engine/lanes.rs`).
    pub(crate) threads: SpilledVec<[u32; 2]>,
    /// The call sites (site, function) whose every call's peer was the source the rank's
    /// latest wildcard receive took ([`flags::FOLLOWS_WILDCARD`]), and how sure it is that
    /// they name it by design; and those some of whose calls' peers were
    /// ([`Following::Occasional`]).
    pub(crate) follower_sites: FxHashMap<(u32, u16), Following>,
    /// The send call sites whose every call's tag was the tag the rank's latest receive
    /// for any tag took ([`flags::FOLLOWS_WILDCARD_TAG`]), and how sure it is that they
    /// carry it by design.
    pub(crate) tag_follower_sites: FxHashMap<(u32, u16), Following>,
}

/// Whether a call site that named the source of its rank's latest wildcard receive every
/// time did so by design (a reply to `status.MPI_SOURCE`), or may have by chance.
/// (Ordered from the surest: a replay follows the sites up to the least sure it accepts.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Following {
    /// The sources varied and the calls were too many to have named them by chance: a
    /// replay in which the wildcard takes another source names that one.
    Certain,
    /// Too few calls or sources to tell: only replays with
    /// [`ReplayOptions::follow_doubtful`] name the source the wildcard took.
    Doubtful,
    /// Some calls named the latest wildcard's source and some did not: one call site that
    /// both replies to `status.MPI_SOURCE` and sends to every worker in turn (HyPhy's
    /// MPISendString, called for both). Only replays with
    /// [`ReplayOptions::follow_doubtful`] name the source the wildcard took, and only at a
    /// call made while every send of the rank since that wildcard named its source
    /// ([`super::Engine`]'s `sends_named_wildcard`): a reply, not a round of sends.
    Occasional,
}

impl Program {
    pub fn world_size(&self) -> u32 {
        self.ends.len() as u32
    }
    pub fn op_count(&self) -> usize {
        self.ranks.iter().map(|r| r.ops.len()).sum()
    }
    /// Whether a call site of some rank named its latest wildcard source or tag every
    /// time, too few times to tell whether by design ([`Following::Doubtful`]), or named
    /// the source some times ([`Following::Occasional`]).
    pub(crate) fn has_doubtful_followers(&self) -> bool {
        (self.ranks.iter()).any(|r| {
            (r.follower_sites.values())
                .chain(r.tag_follower_sites.values())
                .any(|&f| f != Following::Certain)
        })
    }
    /// The operations of one rank.
    pub fn rank_ops(&self, rank: Rank) -> Vec<ReplayOp> {
        let ops = self.ranks[rank as usize].ops.to_vec();
        ops.into_iter().map(|op| self.ids.op(op)).collect()
    }
    pub(crate) fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.member_sets
            .get(*self.comms.get(comm as usize)? as usize)
    }
    /// The operation of event `event` of `rank`.
    pub fn op(&self, rank: Rank, event: usize) -> Option<ReplayOp> {
        let op = self.ranks.get(rank as usize)?.ops.get_checked(event)?;
        Some(self.ids.op(op))
    }
    /// The call event `event` of `rank` was, if the operation was compiled from one.
    pub fn call(&self, rank: Rank, event: usize) -> Option<Call> {
        let r = self.ranks.get(rank as usize)?;
        let info = r.info.get_checked(event)?;
        if info.call == 0 {
            return None;
        }
        Some(Call {
            site: SiteId(self.ids.site(info.site)),
            name: self.names.get(info.call as usize).copied().unwrap_or("?"),
            shape: info.shape,
            bits: info.bits,
            op: self.ids.op(r.ops.get(event)),
            collective_comm: r.collective_comms.get(&(event as u32)).copied(),
        })
    }
    /// A source of this program's operations from the start (one per replay).
    pub fn ops(&self) -> ProgramOps<'_> {
        ProgramOps {
            program: self,
            ranks: self
                .ranks
                .iter()
                .map(|rank| RankReading {
                    len: rank.ops.len(),
                    ..RankReading::default()
                })
                .collect(),
        }
    }

    /// Its operations from `next` on (by rank, the index of the next operation to read),
    /// for a replay copied at that point (`engine/explore.rs`).
    pub(crate) fn ops_from(&self, next: &[u32]) -> ProgramOps<'_> {
        let mut ops = self.ops();
        for ((reading, rank), &at) in ops.ranks.iter_mut().zip(&self.ranks).zip(next) {
            reading.next = at as usize;
            // The thread runs that start before it were passed.
            if at > 0 {
                reading.pass_thread_runs(rank, at as usize - 1);
            }
        }
        ops
    }
}

/// A call a [`Program`]'s operation was compiled from ([`Program::call`]).
#[derive(Clone, Copy, Debug)]
pub struct Call {
    pub site: SiteId,
    pub name: &'static str,
    pub shape: CallShape,
    pub(super) bits: u8,
    op: ReplayOp,
    collective_comm: Option<u32>,
}

impl Call {
    /// The call returned in the trace.
    pub fn returned(&self) -> bool {
        self.bits & info_bits::RETURNED != 0
    }
    /// A nonblocking send the rank cancelled later.
    pub fn cancelled(&self) -> bool {
        self.bits & info_bits::CANCELLED != 0
    }
    /// A persistent send or collective (`*_init`).
    pub fn persistent(&self) -> bool {
        self.bits & info_bits::PERSISTENT != 0
    }
    /// A probe (`MPI_Probe`, or an `MPI_Iprobe` that ended a polling loop).
    pub fn is_probe(&self) -> bool {
        self.shape == CallShape::Probe
    }
    /// "wildcard probe" or "wildcard receive", for findings on a call for any source.
    pub fn wildcard_noun(&self) -> &'static str {
        if self.is_probe() {
            "wildcard probe"
        } else {
            "wildcard receive"
        }
    }
    /// The communicator of a collective call.
    pub fn collective_comm(&self) -> Option<CommId> {
        if self.shape != CallShape::Collective {
            return None;
        }
        match self.collective_comm {
            Some(c) => Some(CommId(c)),
            None => (self.op.kind == OpKind::Collective).then_some(CommId(self.op.comm)),
        }
    }
    /// The communicator and tag of a receive or probe (`None`: any tag).
    pub fn receive(&self) -> Option<(CommId, Option<i32>)> {
        let receives = match self.shape {
            CallShape::Recv => self.op.kind == OpKind::Recv,
            CallShape::Probe => self.op.kind == OpKind::Probe,
            _ => false,
        };
        receives.then(|| {
            (
                CommId(self.op.comm),
                (self.op.recv_tag() != ANY_TAG).then_some(self.op.tag),
            )
        })
    }
}

/// The operations of a run as the replay pulls them: each rank's next operation, asked for
/// only when that rank's replay reaches it, so a source may generate or decode them lazily
/// and the replay holds only what is live. A replay consumes its source; one that is run
/// again (wildcard exploration, the strict replay after the recorded one) gets a new source
/// from the start ([`Program::ops`] for a compiled program).
///
/// An operation's aux words (a wait's or start's request ids, a release's pairs, the
/// receive half of a sendrecv, an epoch's group) come with it: `next_op` appends them to
/// the buffer it is given and points the operation's offset (`a`, or `b` of a sendrecv)
/// into that buffer.
///
/// No method has a default: the sources that wrap others (`ReplaySource`,
/// `&mut S`) must forward each one, and a forgotten forward would silently turn a feature
/// (threads, followers) off in every replay through them.
pub trait OpSource {
    fn world_size(&self) -> u32;
    /// The members of communicator `comm` (0 is `MPI_COMM_WORLD`); asked when an operation
    /// on it is replayed, and when a stuck rank's condition is made.
    fn comm(&self, comm: u32) -> Option<&CommMembers>;
    /// The next operation of `rank` (operations come in event order: the n-th is event n),
    /// or `None` past its last one.
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp>;
    /// How `rank`'s trace ends; asked once `next_op` returned `None` for it.
    fn end(&self, rank: Rank) -> EndKind;
    /// The thread that made the operation `next_op` last returned for `rank`. Each thread
    /// of a rank replays as its own sequence (`engine/lanes.rs`); a source that does not
    /// know threads has every operation made by thread 0.
    fn thread(&self, rank: Rank) -> u16;
    /// Whether `rank`'s operations come from more than one thread: the replay then reads
    /// on past a thread's blocked call for the other threads' operations.
    fn threaded(&self, rank: Rank) -> bool;
    /// Whether some calls of `rank` follow the source of its latest wildcard receive
    /// ([`OpSource::follows_wildcard`]).
    fn may_follow_wildcards(&self, rank: Rank) -> bool;
    /// Whether event `event` of `rank`, marked [`flags::FOLLOWS_WILDCARD`], was made at a
    /// call site that names the source of the rank's latest wildcard receive, as surely
    /// as `least` or more ([`Following`]); with `receive_half`, whether the receive half of
    /// a sendrecv marked [`flags::RECEIVE_FOLLOWS_WILDCARD`] was.
    fn follows_wildcard(
        &mut self,
        rank: Rank,
        event: u32,
        receive_half: bool,
        least: Following,
    ) -> bool;
    /// Whether some sends of `rank` follow the tag of its latest receive for any tag
    /// ([`OpSource::follows_wildcard_tag`]).
    fn may_follow_wildcard_tags(&self, rank: Rank) -> bool;
    /// Whether event `event` of `rank`, marked [`flags::FOLLOWS_WILDCARD_TAG`], was made at
    /// a call site that carries the tag of the rank's latest receive for any tag every
    /// time, as surely as `least` or more.
    fn follows_wildcard_tag(&mut self, rank: Rank, event: u32, least: Following) -> bool;
}

// A source borrowed for a replay ([`replay_source`]).
impl<S: OpSource + ?Sized> OpSource for &mut S {
    fn world_size(&self) -> u32 {
        (**self).world_size()
    }
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        (**self).comm(comm)
    }
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        (**self).next_op(rank, aux)
    }
    fn end(&self, rank: Rank) -> EndKind {
        (**self).end(rank)
    }
    fn thread(&self, rank: Rank) -> u16 {
        (**self).thread(rank)
    }
    fn threaded(&self, rank: Rank) -> bool {
        (**self).threaded(rank)
    }
    fn may_follow_wildcards(&self, rank: Rank) -> bool {
        (**self).may_follow_wildcards(rank)
    }
    fn follows_wildcard(
        &mut self,
        rank: Rank,
        event: u32,
        receive_half: bool,
        least: Following,
    ) -> bool {
        (**self).follows_wildcard(rank, event, receive_half, least)
    }
    fn may_follow_wildcard_tags(&self, rank: Rank) -> bool {
        (**self).may_follow_wildcard_tags(rank)
    }
    fn follows_wildcard_tag(&mut self, rank: Rank, event: u32, least: Following) -> bool {
        (**self).follows_wildcard_tag(rank, event, least)
    }
}

/// Where an operation's aux words are: `(in field b rather than a, how many)`.
pub fn aux_span(op: &ReplayOp) -> Option<(bool, u32)> {
    match op.kind {
        OpKind::Wait | OpKind::Start | OpKind::WinPost | OpKind::WinStart | OpKind::WinLockWait => {
            Some((false, op.b))
        }
        OpKind::Release => Some((false, 2 * op.b)),
        OpKind::Sendrecv => Some((true, 4)),
        _ => None,
    }
}

/// Copies an operation's aux words from `table` to the end of `aux` and points the
/// operation there (for sources that keep a table of aux words).
pub fn move_aux(mut op: ReplayOp, table: &[u32], aux: &mut Vec<u32>) -> ReplayOp {
    if let Some(words) = point_aux(&mut op, aux.len()) {
        aux.extend_from_slice(&table[words]);
    }
    op
}

/// Points the offset of `op`'s aux words, if it has any, at `to`; where they were.
fn point_aux(op: &mut ReplayOp, to: usize) -> Option<std::ops::Range<usize>> {
    let (in_b, len) = aux_span(op)?;
    let at = if in_b { &mut op.b } else { &mut op.a };
    let from = *at as usize;
    *at = to as u32;
    Some(from..from + len as usize)
}

/// A [`Program`]'s operations as an [`OpSource`].
pub struct ProgramOps<'p> {
    program: &'p Program,
    /// By rank: where its reading stands.
    ranks: Vec<RankReading>,
}

/// Where the reading of a rank's operations stands: the chunks being read, and the
/// thread of the last operation read.
#[derive(Default)]
struct RankReading {
    /// The index of its next operation.
    next: usize,
    /// Its number of operations.
    len: usize,
    ops: ChunkReader<ReplayOp>,
    aux: ChunkReader<u32>,
    threads: ChunkReader<[u32; 2]>,
    info: ChunkReader<OpInfo>,
    /// The next thread run ([`RankProgram::threads`]) not passed yet.
    next_run: usize,
    /// The first operation of that run (`usize::MAX`: there is none), so that an
    /// operation that starts no run costs one comparison.
    next_run_first: usize,
    /// The thread of the last operation read.
    thread: u16,
}

impl RankReading {
    /// Passes the thread runs of `rank` that start at operation `i` or before it.
    #[inline(never)]
    fn pass_thread_runs(&mut self, rank: &RankProgram, i: usize) {
        while self.next_run < rank.threads.len() {
            let [first, thread] = rank.threads.read(self.next_run, &mut self.threads);
            if first as usize > i {
                self.next_run_first = first as usize;
                return;
            }
            self.thread = thread as u16;
            self.next_run += 1;
        }
        self.next_run_first = usize::MAX;
    }
}

impl ProgramOps<'_> {
    /// [`OpSource::next_op`] into `out`, where the replay keeps it.
    #[inline(always)]
    pub(super) fn next_op_into(
        &mut self,
        rank: Rank,
        out: &mut Option<ReplayOp>,
        aux: &mut Vec<u32>,
    ) -> bool {
        let r = rank as usize;
        let reading = &mut self.ranks[r];
        let i = reading.next;
        if i >= reading.len {
            return false;
        }
        let program = &self.program.ranks[r];
        let op = out.insert(self.program.ids.op(program.ops.read(i, &mut reading.ops)));
        reading.next = i + 1;
        if i >= reading.next_run_first {
            reading.pass_thread_runs(program, i);
        }
        if let Some(words) = point_aux(op, aux.len()) {
            program
                .aux
                .read_into(words.start, words.end, &mut reading.aux, aux);
        }
        true
    }
}

impl OpSource for ProgramOps<'_> {
    fn world_size(&self) -> u32 {
        self.program.world_size()
    }
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.program.comm(comm)
    }
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        let mut op = None;
        self.next_op_into(rank, &mut op, aux);
        op
    }
    fn end(&self, rank: Rank) -> EndKind {
        self.program.ends[rank as usize]
    }
    fn thread(&self, rank: Rank) -> u16 {
        self.ranks[rank as usize].thread
    }
    fn threaded(&self, rank: Rank) -> bool {
        self.program.ranks[rank as usize].threads.len() > 1
    }
    fn may_follow_wildcards(&self, rank: Rank) -> bool {
        !self.program.ranks[rank as usize].follower_sites.is_empty()
    }
    fn follows_wildcard(
        &mut self,
        rank: Rank,
        event: u32,
        receive_half: bool,
        least: Following,
    ) -> bool {
        let half = if receive_half { RECEIVE_HALF } else { 0 };
        self.site_follows(rank, event, half, least, |p| &p.follower_sites)
    }
    fn may_follow_wildcard_tags(&self, rank: Rank) -> bool {
        !self.program.ranks[rank as usize]
            .tag_follower_sites
            .is_empty()
    }
    fn follows_wildcard_tag(&mut self, rank: Rank, event: u32, least: Following) -> bool {
        self.site_follows(rank, event, 0, least, |p| &p.tag_follower_sites)
    }
}

impl ProgramOps<'_> {
    /// Whether the call site of event `event` of `rank` is among its follower sites
    /// `sites`, as surely as `least` or more, as the function marked with `half`
    /// ([`RECEIVE_HALF`] or 0).
    fn site_follows(
        &mut self,
        rank: Rank,
        event: u32,
        half: u16,
        least: Following,
        sites: impl Fn(&RankProgram) -> &FxHashMap<(u32, u16), Following>,
    ) -> bool {
        let program = &self.program.ranks[rank as usize];
        let sites = sites(program);
        if sites.is_empty() || event as usize >= program.info.len() {
            return false;
        }
        let info = program
            .info
            .read(event as usize, &mut self.ranks[rank as usize].info);
        sites
            .get(&(info.site, info.call | half))
            .is_some_and(|&f| f <= least)
    }
}

/// Builds a [`Program`] rank by rank, for runs too large to hold as a [`Run`] (benchmarks)
/// and for [`Program::from_run`].
pub struct ProgramBuilder {
    program: Program,
    open: bool,
    /// Each member list in [`Program::member_sets`] → its set.
    member_set_ids: FxHashMap<Vec<Rank>, u32>,
}

impl ProgramBuilder {
    /// Communicator 0 is `MPI_COMM_WORLD` over `world_size` ranks.
    pub fn new(world_size: u32) -> ProgramBuilder {
        ProgramBuilder {
            program: Program {
                ranks: Vec::with_capacity(world_size as usize),
                ends: Vec::with_capacity(world_size as usize),
                comms: vec![0],
                member_sets: vec![CommMembers::identity(world_size)],
                names: vec![""],
                ids: FinalIds::default(),
            },
            open: false,
            member_set_ids: FxHashMap::from_iter([((0..world_size).collect(), 0)]),
        }
    }
    /// Adds a communicator (world ranks in communicator rank order) and returns its id.
    pub fn add_comm(&mut self, members: Vec<Rank>) -> CommId {
        let sets = &mut self.program.member_sets;
        let set = match self.member_set_ids.get(&members) {
            Some(&set) => set,
            None => {
                sets.push(CommMembers::of(members.clone()));
                self.member_set_ids.insert(members, sets.len() as u32 - 1);
                sets.len() as u32 - 1
            }
        };
        self.program.comms.push(set);
        CommId(self.program.comms.len() as u32 - 1)
    }
    /// Starts the next rank (ranks are added in order 0, 1, ...).
    pub fn begin_rank(&mut self) {
        assert!(!self.open, "end_rank was not called");
        self.open = true;
        self.program.ranks.push(RankProgram::default());
    }
    /// Room for `n` operations of the current rank.
    pub fn reserve_ops(&mut self, n: usize) {
        let rank = self.current();
        rank.ops.reserve(n);
        rank.info.reserve(n);
    }
    fn current(&mut self) -> &mut RankProgram {
        debug_assert!(self.open);
        self.program
            .ranks
            .last_mut()
            .expect("begin_rank was called")
    }
    /// An operation not compiled from a call (generated programs).
    pub fn push(&mut self, op: ReplayOp) {
        let rank = self.current();
        rank.ops.push(op);
        rank.info.push(OpInfo::default());
    }
    /// Adds a rank compiled whole (`engine/compile.rs`), with how it ended.
    pub(super) fn push_rank(&mut self, rank: RankProgram, end: EndKind) {
        assert!(!self.open, "end_rank was not called");
        self.program.ranks.push(rank);
        self.program.ends.push(end);
    }
    /// The names the operations' infos index.
    pub(super) fn set_names(&mut self, names: Vec<&'static str>) {
        self.program.names = names;
    }
    /// The thread that makes the current rank's operations pushed from here on (thread 0
    /// until this is called).
    pub fn thread(&mut self, thread: u16) {
        let rank = self.current();
        let at = rank.ops.len() as u32;
        rank.threads.push([at, thread as u32]);
    }
    /// Stores words in the current rank's aux table (request lists) and returns their
    /// offset.
    pub fn push_aux(&mut self, words: &[u32]) -> u32 {
        let aux = &mut self.current().aux;
        let at = aux.len() as u32;
        aux.extend_from_slice(words);
        at
    }
    pub fn end_rank(&mut self, end: EndKind) {
        assert!(self.open, "begin_rank was not called");
        self.open = false;
        self.program.ends.push(end);
    }
    /// The program, its operations read in `ids`.
    pub(crate) fn finish_in(mut self, ids: FinalIds) -> Program {
        self.program.ids = ids;
        self.finish()
    }

    pub fn finish(self) -> Program {
        assert!(!self.open, "end_rank was not called");
        assert!(
            self.program
                .ranks
                .iter()
                .all(|r| r.ops.len() < u32::MAX as usize),
            "too many operations"
        );
        self.program
    }

    // Conveniences for generated programs.

    pub fn send(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn isend(&mut self, dest: Rank, tag: i32, mode: SendMode, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Send);
        op.peer = dest;
        op.tag = tag;
        op.sub = mode_index(mode);
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    pub fn recv(&mut self, source: Rank, tag: i32, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        self.push(op);
    }
    pub fn irecv(&mut self, source: Rank, tag: i32, comm: CommId, req: u32) {
        let mut op = ReplayOp::new(OpKind::Recv);
        op.peer = source;
        op.tag = tag;
        op.comm = comm.0;
        op.class = class::NONBLOCKING;
        op.a = req;
        self.push(op);
    }
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv(
        &mut self,
        dest: Rank,
        send_tag: i32,
        source: Rank,
        recv_tag: i32,
        bytes: u32,
        comm: CommId,
    ) {
        let mut op = ReplayOp::new(OpKind::Sendrecv);
        op.peer = dest;
        op.tag = send_tag;
        op.comm = comm.0;
        op.b = self.push_aux(&[source, recv_tag as u32, NO_RANK, bytes]);
        self.push(op);
    }
    pub fn waitall(&mut self, reqs: &[u32]) {
        let mut op = ReplayOp::new(OpKind::Wait);
        op.b = reqs.len() as u32;
        op.a = self.push_aux(reqs);
        self.push(op);
    }
    pub fn collective(&mut self, kind: CollectiveKind, root: Option<u32>, comm: CommId) {
        let mut op = ReplayOp::new(OpKind::Collective);
        op.sub = kind_index(kind);
        op.peer = root.unwrap_or(NO_RANK);
        op.comm = comm.0;
        self.push(op);
    }
    pub fn finalize(&mut self) {
        self.push(ReplayOp::new(OpKind::Finalize));
    }
}
