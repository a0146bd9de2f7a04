//! [`ProgramBuilder`]: a [`Program`] built rank by rank, from compiled ranks
//! (`engine/compile.rs`) or generated operations (benchmarks, tests).

use super::*;

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
