//! Tests of the replay engine on generated programs.

use super::*;

#[test]
fn replay_op_is_compact() {
    assert_eq!(size_of::<ReplayOp>(), 24);
}

/// Counts the operations the replay pulls from a program, per rank.
struct Counting<'p> {
    inner: ProgramOps<'p>,
    pulled: Vec<usize>,
}

impl OpSource for Counting<'_> {
    fn world_size(&self) -> u32 {
        self.inner.world_size()
    }
    fn comm(&self, comm: u32) -> Option<&CommMembers> {
        self.inner.comm(comm)
    }
    fn next_op(&mut self, rank: Rank, aux: &mut Vec<u32>) -> Option<ReplayOp> {
        let op = self.inner.next_op(rank, aux);
        self.pulled[rank as usize] += op.is_some() as usize;
        op
    }
    fn end(&self, rank: Rank) -> EndKind {
        self.inner.end(rank)
    }
    fn thread(&self, rank: Rank) -> u16 {
        self.inner.thread(rank)
    }
    fn threaded(&self, rank: Rank) -> bool {
        self.inner.threaded(rank)
    }
    fn may_follow_wildcards(&self, rank: Rank) -> bool {
        self.inner.may_follow_wildcards(rank)
    }
    fn follows_wildcard(
        &mut self,
        rank: Rank,
        event: u32,
        receive_half: bool,
        least: Following,
    ) -> bool {
        self.inner
            .follows_wildcard(rank, event, receive_half, least)
    }
    fn may_follow_wildcard_tags(&self, rank: Rank) -> bool {
        self.inner.may_follow_wildcard_tags(rank)
    }
    fn follows_wildcard_tag(&mut self, rank: Rank, event: u32, least: Following) -> bool {
        self.inner.follows_wildcard_tag(rank, event, least)
    }
}

#[test]
fn a_rank_s_operations_are_pulled_only_when_it_reaches_them() {
    let world = CommId(0);
    let mut b = ProgramBuilder::new(2);
    b.begin_rank();
    b.recv(1, 7, world);
    for i in 0..100 {
        b.send(1, i, SendMode::Standard, world);
    }
    b.finalize();
    b.end_rank(EndKind::Finalized);
    b.begin_rank();
    b.finalize();
    b.end_rank(EndKind::Finalized);
    let program = b.finish();
    let mut source = Counting {
        inner: program.ops(),
        pulled: vec![0; 2],
    };
    let replay = replay_source(&mut source, &ReplayOptions::new(Mode::Strict));
    assert_eq!(replay.ranks[0], RankOutcome::Stuck { event: 0 });
    assert_eq!(replay.ranks[1], RankOutcome::Finalized);
    assert_eq!(source.pulled, vec![1, 1]);
}

#[test]
fn completed_requests_are_released_so_live_requests_stay_few() {
    let world = CommId(0);
    let rounds = 10_000;
    let mut b = ProgramBuilder::new(2);
    for r in 0..2 {
        b.begin_rank();
        for i in 0..rounds {
            b.irecv(1 - r, i as i32, world, 2 * i);
            b.isend(1 - r, i as i32, SendMode::Standard, world, 2 * i + 1);
            b.waitall(&[2 * i, 2 * i + 1]);
            b.collective(CollectiveKind::Barrier, None, world);
        }
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    let program = b.finish();
    for mode in [Mode::Recorded, Mode::Strict] {
        let replay = replay_program(&program, &ReplayOptions::new(mode));
        assert!(replay.completed());
        assert_eq!(replay.stats.matches, 2 * rounds as u64);
        // Two hidden slots and at most the two requests of each rank in flight.
        assert!(
            replay.stats.peak_live_requests <= 6,
            "{}",
            replay.stats.peak_live_requests
        );
    }
}

#[test]
fn communicators_with_the_same_members_share_one_member_list() {
    let mut b = ProgramBuilder::new(4);
    let dups: Vec<CommId> = (0..1000).map(|_| b.add_comm(vec![0, 1, 2, 3])).collect();
    let halves: Vec<CommId> = (0..1000)
        .map(|i| b.add_comm(if i % 2 == 0 { vec![2, 0] } else { vec![1, 3] }))
        .collect();
    for _ in 0..4 {
        b.begin_rank();
        b.end_rank(EndKind::Finalized);
    }
    let program = b.finish();
    assert_eq!(program.member_sets.len(), 3);
    assert_eq!(program.comm(dups[999].0).unwrap().comm_rank(3), Some(3));
    let half = program.comm(halves[998].0).unwrap();
    assert_eq!(half.members().collect::<Vec<_>>(), vec![2, 0]);
    assert_eq!(half.comm_rank(0), Some(1));
    let other = program.comm(halves[999].0).unwrap();
    assert_eq!(other.members().collect::<Vec<_>>(), vec![1, 3]);
    assert!(program.comm(halves[999].0 + 1).is_none());
}

#[test]
fn finished_collective_series_are_swept_so_series_stay_few() {
    let comms = 20_000;
    let mut b = ProgramBuilder::new(2);
    let ids: Vec<CommId> = (0..comms).map(|_| b.add_comm(vec![0, 1])).collect();
    for r in 0..2 {
        b.begin_rank();
        // Rank 0 starts a barrier on the first communicator, which rank 1 calls only at
        // the end: its series stays open through every sweep.
        let mut ibarrier = ReplayOp::new(OpKind::Collective);
        ibarrier.sub = kind_index(CollectiveKind::Barrier);
        ibarrier.comm = ids[0].0;
        ibarrier.class = class::NONBLOCKING;
        ibarrier.a = 0;
        if r == 0 {
            b.push(ibarrier);
        }
        for &c in &ids[1..] {
            b.collective(CollectiveKind::Allreduce, None, c);
            b.collective(CollectiveKind::Allreduce, None, c);
        }
        if r == 1 {
            b.push(ibarrier);
        }
        b.waitall(&[0]);
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    let program = b.finish();
    for mode in [Mode::Recorded, Mode::Strict] {
        let replay = replay_program(&program, &ReplayOptions::new(mode));
        assert!(replay.completed(), "{mode:?}: {:?}", replay.stuck);
        assert!(
            replay.stats.peak_series <= 2 * collectives::SWEEP_SERIES_FROM as u64,
            "{}",
            replay.stats.peak_series
        );
    }
}

#[test]
fn persistent_requests_stay_until_freed_and_restart_each_time() {
    let world = CommId(0);
    let rounds = 1_000;
    let mut b = ProgramBuilder::new(2);
    for r in 0..2u32 {
        b.begin_rank();
        // Rank 0 sends, rank 1 receives, on persistent request 0, `rounds` times.
        let mut init = if r == 0 {
            let mut op = ReplayOp::new(OpKind::Send);
            op.sub = mode_index(SendMode::Synchronous);
            op
        } else {
            ReplayOp::new(OpKind::Recv)
        };
        init.peer = 1 - r;
        init.tag = 3;
        init.comm = world.0;
        init.class = class::PERSISTENT;
        init.a = 0;
        b.push(init);
        for _ in 0..rounds {
            let mut start = ReplayOp::new(OpKind::Start);
            start.b = 1;
            start.a = b.push_aux(&[0]);
            b.push(start);
            b.waitall(&[0]);
        }
        let mut free = ReplayOp::new(OpKind::RequestFree);
        free.a = 0;
        b.push(free);
        b.finalize();
        b.end_rank(EndKind::Finalized);
    }
    let program = b.finish();
    let replay = replay_program(&program, &ReplayOptions::new(Mode::Strict));
    assert!(replay.completed(), "{:?}", replay.stuck);
    assert_eq!(replay.stats.matches, rounds as u64);
    assert!(replay.stats.peak_live_requests <= 4);
}
