//! The replay driver: runs ranks until they block, and executes one operation.

use super::*;

impl<'s> Engine<'s> {
    pub(super) fn new(src: ReplaySource<'s>, options: &ReplayOptions) -> Engine<'s> {
        let n = src.world_size();
        let mut slots = Slots::default();
        let hidden = (0..n)
            .map(|r| {
                let id = slots.alloc(r, NO_REQ);
                let slot = slots.get_mut(id).expect("just allocated");
                slot.keep = K_HIDDEN;
                slot.waiter = r;
                id
            })
            .collect();
        let lanes = lanes::Lanes::new(&src);
        let wildcard_sources = (0..n)
            .map(|r| src.may_follow_wildcards(r).then_some([NO_RANK; 2]))
            .collect();
        let wildcard_tags: Vec<Option<TakenTag>> = (0..n)
            .map(|r| {
                src.may_follow_wildcard_tags(r)
                    .then_some(TakenTag::default())
            })
            .collect();
        let follows_tags = wildcard_tags.iter().any(Option::is_some);
        // World destinations are indexed by rank directly; other communicators get ids.
        let dests = (0..n).map(DestState::new).collect();
        Engine {
            src,
            world: n,
            mode: options.mode,
            never_received: options.never_received.clone(),
            forced: options.forced,
            forced_matched: options.forced.map(|_| false),
            follow_doubtful: options.follow_doubtful,
            diverged: vec![false; n as usize],
            took_redirected: vec![false; n as usize],
            actors: vec![ActorState::default(); n as usize],
            cur: (0..n).map(|_| Current::default()).collect(),
            lanes,
            buffers: vec![BsendBuffer::default(); n as usize],
            slots,
            reqs: ReqMap::new(n),
            hidden,
            runq: VecDeque::new(),
            dests,
            dest_ids: FxHashMap::default(),
            wild_heads: Vec::new(),
            series: Vec::new(),
            series_ids: FxHashMap::default(),
            free_series: Vec::new(),
            sweep_series_at: collectives::SWEEP_SERIES_FROM,
            races: Vec::new(),
            stats: ReplayStats {
                peak_live_requests: n as u64,
                ..ReplayStats::default()
            },
            epochs: Default::default(),
            watched: None,
            posted_watched: Vec::new(),
            candidates: Vec::new(),
            spare_heads: Vec::new(),
            woken: Vec::new(),
            spare_queues: Vec::new(),
            spare_instances: Vec::new(),
            wildcard_sources,
            wildcard_tags,
            sends_named_wildcard: vec![false; n as usize],
            probed_wildcards: vec![NO_REQ; n as usize],
            follows_tags,
            released_active: ReleasedActive::default(),
        }
    }

    pub(super) fn dest_id(&mut self, comm: u32, rank: Rank) -> usize {
        if comm == 0 {
            return rank as usize;
        }
        let next = self.dests.len() as u32;
        let id = *self.dest_ids.entry((comm, rank)).or_insert(next);
        if id == next {
            self.dests.push(DestState::new(rank));
        }
        id as usize
    }

    #[inline]
    pub(super) fn enqueue(&mut self, a: Actor) {
        let st = &mut self.actors[a as usize];
        if !st.queued {
            st.queued = true;
            self.runq.push_back(a);
        }
    }

    pub(super) fn run(&mut self) {
        self.start_actors();
        while self.step() {}
    }

    /// Runs every actor until the replay is quiescent (each actor blocked or at its end).
    pub(super) fn start_actors(&mut self) {
        for r in 0..self.world {
            self.enqueue(r);
        }
        self.run_queued();
    }

    /// From a quiescent replay: matches the wildcard receives held back and runs the
    /// actors that released until it is quiescent again. Whether anything matched (else
    /// the replay is over).
    pub(super) fn step(&mut self) -> bool {
        if !self.resolve_wildcards() {
            return false;
        }
        self.run_queued();
        true
    }

    fn run_queued(&mut self) {
        while let Some(a) = self.runq.pop_front() {
            self.actors[a as usize].queued = false;
            self.run_actor(a);
        }
    }

    /// The slot of actor `a`'s blocking calls.
    pub(super) fn hidden_slot(&self, a: Actor) -> SlotId {
        self.hidden[a as usize]
    }

    /// The live slot of a request, if any (a request never started, or completed and
    /// released, has none: every call treats it as complete).
    #[inline]
    pub(super) fn req_slot(&self, rank: u32, req: u32) -> Option<SlotId> {
        if req == NO_REQ {
            return None;
        }
        self.reqs.get(rank, req)
    }

    /// The slot of a request, made if it has none.
    pub(super) fn req_slot_or_new(&mut self, rank: u32, req: u32) -> Option<SlotId> {
        if req == NO_REQ {
            return None;
        }
        let slots = &mut self.slots;
        let id = self
            .reqs
            .get_or_insert_with(rank, req, || slots.alloc(rank, req));
        self.note_live_slots();
        Some(id)
    }

    /// A new slot of `rank` for request `req`, not named in the request map.
    fn new_slot(&mut self, rank: u32, req: u32) -> SlotId {
        let id = self.slots.alloc(rank, req);
        self.note_live_slots();
        id
    }

    #[inline]
    fn note_live_slots(&mut self) {
        let live = self.slots.live() as u64;
        if live > self.stats.peak_live_requests {
            self.stats.peak_live_requests = live;
        }
    }

    /// The word `k` of the aux words of actor `a`'s current operation.
    #[inline]
    pub(super) fn aux(&self, a: Actor, k: u32) -> u32 {
        self.cur[a as usize].aux[k as usize]
    }

    /// Actor `a`'s current operation (it is blocked in it, or executing it).
    #[inline]
    pub(super) fn current_op(&self, a: Actor) -> ReplayOp {
        self.cur[a as usize]
            .op
            .expect("the actor stands at an operation")
    }

    pub(super) fn state(&self, slot: SlotId) -> u8 {
        self.slots.get(slot).map_or(0, |s| s.state)
    }

    pub(super) fn activate(
        &mut self,
        slot: SlotId,
        event: u32,
        op: &ReplayOp,
        rx: [u32; 4],
        pend: u8,
    ) {
        let Some(s) = self.slots.get_mut(slot) else {
            return;
        };
        s.state = S_ACTIVE;
        s.waited = false;
        s.pend = pend;
        s.event = event;
        s.op = *op;
        s.rx = rx;
    }

    /// Frees a slot whose operation completed unless it must stay.
    #[inline]
    pub(super) fn maybe_release(&mut self, slot: SlotId) {
        // Nearly every call finds a slot that stays (a blocking call's, an operation still
        // active): that test is inlined, the release is not.
        if self
            .slots
            .get(slot)
            .is_some_and(|s| s.keep == 0 && s.state != S_ACTIVE && !s.waited)
        {
            self.free_slot(slot);
        }
    }

    /// Frees a slot whose operation completed and that nothing keeps.
    #[inline(never)]
    fn free_slot(&mut self, slot: SlotId) {
        let Some((owner, req)) = self.slots.release(slot) else {
            return;
        };
        // The handle's entry goes only if it still names this slot (a slot named by no
        // handle has none).
        if req != NO_REQ {
            self.reqs.remove_if(owner, req, slot);
        }
    }

    /// One part of a request completed.
    pub(super) fn part_done(&mut self, slot: SlotId, part: u8) {
        let Some(s) = self.slots.get_mut(slot) else {
            return;
        };
        if s.pend & part == 0 {
            return;
        }
        s.pend &= !part;
        if s.pend != 0 {
            return;
        }
        s.state = S_DONE;
        // Complete and waited for by nobody once its waiter is released: it goes unless
        // it must stay (the test of `maybe_release`, without finding the slot again).
        let release = s.keep == 0;
        if s.waited {
            s.waited = false;
            let waiter = s.waiter;
            let st = &mut self.actors[waiter as usize];
            if st.pending > 0 {
                st.pending -= 1;
                if st.pending == 0 {
                    self.enqueue(waiter);
                }
            }
        }
        if release {
            self.free_slot(slot);
        }
    }

    /// Runs actor `a` until it blocks or ends.
    pub(super) fn run_actor(&mut self, a: Actor) {
        match self.actors[a as usize].status {
            R_READY => {}
            R_BLOCKED => {
                if self.actors[a as usize].pending > 0 {
                    return;
                }
                self.resume(a);
            }
            _ => return,
        }
        // (The rank is found once for all the actor's operations here, not by each step.)
        let r = self.rank_of(a);
        loop {
            if self.cur[a as usize].op.is_none() {
                if self.diverged[r as usize] {
                    self.actors[a as usize].status = R_UNFINISHED;
                    return;
                }
                if !self.pull(a, r) {
                    self.actors[a as usize].status = match self.src.end(r) {
                        EndKind::Finalized => R_FINALIZED,
                        EndKind::Exited => R_EXITED,
                        EndKind::Interrupted => R_UNFINISHED,
                    };
                    return;
                }
            }
            let cur = &self.cur[a as usize];
            let (op, event) = (cur.op.expect("the actor stands at an operation"), cur.event);
            if self.lanes.requests_unmade() && self.hold_for_request(a, &op) {
                self.read_ahead(a);
                return;
            }
            if op.flags & FOLLOWERS != 0 && self.awaits_probed_wildcard(a, r) {
                self.read_ahead(a);
                return;
            }
            self.stats.ops += 1;
            let step = self.exec(a, r, event, op);
            if self.lanes.requests_unmade() {
                self.made_requests(a, &op);
            }
            match step {
                Step::Next => self.advance(a),
                Step::Block => {
                    self.actors[a as usize].status = R_BLOCKED;
                    self.read_ahead(a);
                    return;
                }
                Step::Stop => return,
            }
        }
    }

    /// Moves actor `a` past its current operation.
    fn advance(&mut self, a: Actor) {
        self.cur[a as usize].op = None;
    }

    /// The blocked call's condition holds: finish it and move on.
    pub(super) fn resume(&mut self, a: Actor) {
        let st = &mut self.actors[a as usize];
        if st.before_call {
            // What it waited for before its call came: the call runs now.
            st.before_call = false;
            st.status = R_READY;
            return;
        }
        let op = self.current_op(a);
        if op.kind == OpKind::Wait {
            self.unwait(a, &op);
        }
        let st = &mut self.actors[a as usize];
        st.in_probe = false;
        st.status = R_READY;
        self.advance(a);
    }

    /// A wait returned: its requests are no longer waited for (and the complete ones can go).
    fn unwait(&mut self, a: Actor, op: &ReplayOp) {
        let r = self.rank_of(a);
        for k in 0..op.b {
            let req = self.aux(a, op.a + k);
            let Some(s) = self.req_slot(r, req) else {
                continue;
            };
            // (The test of `maybe_release`, without finding the slot again.)
            let Some(slot) = self.slots.get_mut(s) else {
                continue;
            };
            slot.waited = false;
            if slot.keep == 0 && slot.state != S_ACTIVE {
                self.free_slot(s);
            }
        }
    }

    /// Blocks actor `a` on one request unless it is complete.
    pub(super) fn block_on(&mut self, a: Actor, slot: SlotId) -> Step {
        let Some(s) = self.slots.get_mut(slot) else {
            return Step::Next;
        };
        if s.state != S_ACTIVE {
            return Step::Next;
        }
        s.waited = true;
        s.waiter = a;
        self.actors[a as usize].pending = 1;
        Step::Block
    }

    /// Executes actor `a`'s operation `op`, event `event` of its rank `r`.
    pub(super) fn exec(&mut self, a: Actor, r: Rank, event: u32, op: ReplayOp) -> Step {
        match op.kind {
            OpKind::Nop | OpKind::BufferDetach => Step::Next,
            OpKind::RequestFree => {
                // The handle is gone: a persistent request no longer waits to be started.
                if let Some(s) = self.req_slot(r, op.a) {
                    if let Some(slot) = self.slots.get_mut(s) {
                        slot.keep &= !K_PERSISTENT;
                    }
                    self.maybe_release(s);
                }
                Step::Next
            }
            OpKind::Finalize => {
                self.actors[a as usize].status = R_FINALIZED;
                Step::Stop
            }
            OpKind::BufferAttach => {
                self.buffers[r as usize].capacity = op.b;
                Step::Next
            }
            OpKind::Cancel => {
                if let Some(s) = self.req_slot(r, op.a) {
                    // Lazily removed from the queues: matching skips slots not expecting it.
                    if let Some(slot) = self.slots.get_mut(s) {
                        if slot.state == S_ACTIVE {
                            slot.pend = 0;
                            slot.state = S_DONE;
                        }
                    }
                    self.maybe_release(s);
                }
                Step::Next
            }
            OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective => {
                let rx = self.rx_of(a, &op);
                match op.class {
                    class::BLOCKING => {
                        let slot = self.hidden_slot(a);
                        self.start(r, event, &op, rx, slot);
                        self.block_on(a, slot)
                    }
                    class::NONBLOCKING => {
                        if op.a == NO_REQ {
                            return Step::Next;
                        }
                        if let Some(slot) = self.req_slot(r, op.a) {
                            self.start(r, event, &op, rx, slot);
                            self.maybe_release(slot);
                            return Step::Next;
                        }
                        // A new request is named in the request map only if its operation
                        // is still on after it started: many complete at once (a send the
                        // library buffered), and their insert and remove cost ~240
                        // instructions. Nothing looks the handle up while it starts.
                        let slot = self.new_slot(r, NO_REQ);
                        self.start(r, event, &op, rx, slot);
                        self.maybe_release(slot);
                        if let Some(s) = self.slots.get_mut(slot) {
                            s.req = op.a;
                            self.reqs.insert(r, op.a, slot);
                            if op.flags & flags::TAKES_PROBED != 0 {
                                self.note_probed_wildcard(r, &op);
                            }
                        }
                        Step::Next
                    }
                    _ => {
                        if let Some(slot) = self.req_slot_or_new(r, op.a) {
                            let s = self.slots.get_mut(slot).expect("live slot");
                            s.state = S_INACTIVE;
                            s.keep |= K_PERSISTENT;
                            s.event = event;
                            s.op = op;
                            s.rx = rx;
                            s.pend = 0;
                        }
                        Step::Next
                    }
                }
            }
            OpKind::Release => {
                for k in 0..op.b {
                    let [old, new] = [self.aux(a, op.a + 2 * k), self.aux(a, op.a + 2 * k + 1)];
                    let Some(old) = self.req_slot(r, old) else {
                        continue;
                    };
                    // The old slot's operation goes on matching, named by no handle now;
                    // the handle's new slot is complete, or inactive for a persistent
                    // request not started: only a persistent one needs a slot.
                    let handle = *self.slots.get(old).expect("live slot");
                    // The run's test found complete what this replay has not: unbuffered,
                    // the program would have polled on (see Replay::passed_unseen).
                    if self.mode == Mode::Strict && handle.state == S_ACTIVE {
                        self.released_active.note(r, old, &self.slots);
                    }
                    if let Some(s) = self.slots.get_mut(old) {
                        s.keep &= !K_PERSISTENT;
                    }
                    self.reqs.remove_if(r, handle.req, old);
                    self.maybe_release(old);
                    if handle.keep & K_PERSISTENT != 0 {
                        let slot = self.req_slot_or_new(r, new).expect("a request id");
                        let s = self.slots.get_mut(slot).expect("live slot");
                        s.keep |= K_PERSISTENT;
                        s.event = handle.event;
                        s.op = handle.op;
                        s.rx = handle.rx;
                        s.state = if handle.state == S_INACTIVE {
                            S_INACTIVE
                        } else {
                            S_DONE
                        };
                        s.pend = 0;
                        s.waited = false;
                    }
                }
                Step::Next
            }
            OpKind::Start => {
                for k in 0..op.b {
                    let req = self.aux(a, op.a + k);
                    let Some(slot) = self.req_slot(r, req) else {
                        continue;
                    };
                    let s = *self.slots.get(slot).expect("live slot");
                    if s.state == S_INACTIVE || s.state == S_DONE {
                        // This instance's wait never returned: it did not complete locally.
                        let mut instance = s.op;
                        instance.flags |= op.flags & flags::UNBUFFERED;
                        self.start(r, s.event, &instance, s.rx, slot);
                    }
                }
                Step::Next
            }
            OpKind::WinPost
            | OpKind::WinStart
            | OpKind::WinComplete
            | OpKind::WinWait
            | OpKind::WinLockWait => self.exec_epoch(a, op),
            OpKind::Probe => {
                if op.peer == ANY_SOURCE {
                    // Held back as a wildcard receive is: which message it finds is a race,
                    // and the receive of what it found follows it (`compile/followers.rs`).
                    let slot = self.hidden_slot(a);
                    self.activate(slot, event, &op, [0; 4], P_RECV);
                    self.post_recv(r, event, op.comm, op.peer, op.recv_tag(), op.b, slot);
                    return self.block_on(a, slot);
                }
                if op.peer == NO_RANK || self.probe_ready(r, &op) {
                    return Step::Next;
                }
                let st = &mut self.actors[a as usize];
                st.in_probe = true;
                st.pending = 1;
                Step::Block
            }
            OpKind::Wait => {
                let any = op.flags & flags::WAIT_ANY != 0;
                // Counts distinct requests: an array may name one request twice (erroneous,
                // but it must not leave the wait pending forever).
                let mut incomplete = 0;
                let mut some_done = false;
                for k in 0..op.b {
                    let req = self.aux(a, op.a + k);
                    let slot = self
                        .req_slot(r, req)
                        .and_then(|s| self.slots.get_mut(s))
                        .filter(|s| s.state == S_ACTIVE);
                    match slot {
                        Some(slot) => {
                            if !slot.waited {
                                slot.waited = true;
                                slot.waiter = a;
                                incomplete += 1;
                            }
                        }
                        None => some_done = true,
                    }
                }
                if incomplete == 0 || (any && some_done) {
                    self.unwait(a, &op);
                    return Step::Next;
                }
                self.actors[a as usize].pending = if any { 1 } else { incomplete };
                Step::Block
            }
        }
    }

    /// The receive half of actor `a`'s sendrecv (its aux words), or zeros.
    fn rx_of(&self, a: Actor, op: &ReplayOp) -> [u32; 4] {
        if op.kind != OpKind::Sendrecv {
            return [0; 4];
        }
        let at = op.b;
        [0, 1, 2, 3].map(|k| self.aux(a, at + k))
    }

    /// Starts a communication operation of rank `r` on a request slot; `rx` is a
    /// sendrecv's receive half `[source, tag, recorded source, bytes]`. (The operation is
    /// passed by reference: copied into the call, it cost ~20 instructions.)
    pub(super) fn start(&mut self, r: u32, event: u32, op: &ReplayOp, rx: [u32; 4], slot: SlotId) {
        let mut rx = rx;
        if self.follow_doubtful && matches!(op.kind, OpKind::Send | OpKind::Sendrecv) {
            self.note_send_naming(r, op);
        }
        let followed;
        let (op, redirected) = if op.flags & FOLLOWERS != 0 && self.took_otherwise(r) {
            followed = self.followed(r, event, op, &mut rx);
            (
                &followed,
                followed.peer != op.peer && op.kind != OpKind::Recv,
            )
        } else {
            (op, false)
        };
        match op.kind {
            OpKind::Send => {
                self.activate(slot, event, op, rx, P_SEND);
                self.post_send(r, event, op, redirected, op.b, slot);
            }
            OpKind::Recv => {
                self.activate(slot, event, op, rx, P_RECV);
                self.post_recv(r, event, op.comm, op.peer, op.recv_tag(), op.b, slot);
            }
            OpKind::Sendrecv => {
                self.activate(slot, event, op, rx, P_SEND | P_RECV);
                let (source, tag, preferred, bytes) = (rx[0], rx[1] as i32, rx[2], rx[3]);
                self.post_send(r, event, op, redirected, bytes, slot);
                self.post_recv(r, event, op.comm, source, tag, preferred, slot);
            }
            OpKind::Collective => {
                self.activate(slot, event, op, rx, P_COLL);
                self.post_collective(r, op, slot);
            }
            _ => {}
        }
    }

    /// Rank `r` started `op`, a receive of what a single probe found, and it is not
    /// matched yet: where it names any source or tag and the rank's calls may follow
    /// such, it is the rank's pending probed wildcard ([`Engine::probed_wildcards`]).
    #[inline(never)]
    fn note_probed_wildcard(&mut self, r: u32, op: &ReplayOp) {
        let follows = (op.peer == ANY_SOURCE && self.wildcard_sources[r as usize].is_some())
            || (op.recv_tag() == ANY_TAG && self.wildcard_tags[r as usize].is_some());
        if follows {
            self.probed_wildcards[r as usize] = op.a;
        }
    }

    /// The live slot of rank `r`'s probed wildcard receive while it is not matched
    /// ([`Engine::probed_wildcards`]); forgets one matched.
    pub(super) fn probed_wildcard_slot(&self, r: u32) -> Option<SlotId> {
        self.req_slot(r, self.probed_wildcards[r as usize])
            .filter(|&s| self.state(s) == S_ACTIVE)
    }

    /// Whether actor `a` of rank `r`, standing at a call that may follow the rank's latest
    /// wildcard, blocks before it until the rank's probed wildcard receive is matched.
    #[inline(never)]
    fn awaits_probed_wildcard(&mut self, a: Actor, r: u32) -> bool {
        if self.probed_wildcards[r as usize] == NO_REQ {
            return false;
        }
        let Some(slot) = self.probed_wildcard_slot(r) else {
            self.probed_wildcards[r as usize] = NO_REQ;
            return false;
        };
        self.block_on(a, slot);
        let st = &mut self.actors[a as usize];
        st.before_call = true;
        st.status = R_BLOCKED;
        true
    }

    /// Whether rank `r`'s latest wildcard-source or wildcard-tag receive took another
    /// source or tag than in the run (never in a replay of the recorded matching): only
    /// then does a call following it change.
    #[inline]
    fn took_otherwise(&self, r: u32) -> bool {
        self.wildcard_sources[r as usize].is_some_and(|[recorded, taken]| recorded != taken)
            || self.wildcard_tags[r as usize]
                .is_some_and(|t| t.recorded.is_some_and(|recorded| recorded != t.taken))
    }

    /// Rank `r` starts send `op` (as the run recorded it): whether it names the source
    /// its latest wildcard receive took in the run ([`Engine`]'s `sends_named_wildcard`).
    #[inline(never)]
    fn note_send_naming(&mut self, r: u32, op: &ReplayOp) {
        let names = op.flags & flags::FOLLOWS_WILDCARD != 0
            && self.wildcard_sources[r as usize].is_some_and(|[recorded, _]| op.peer == recorded);
        if !names {
            self.sends_named_wildcard[r as usize] = false;
        }
    }

    /// A call following the rank's latest wildcard receives as it is made in this replay:
    /// to the source the latest wildcard-source receive took, with the tag the latest
    /// wildcard-tag receive took, where these differ from the run's. A sendrecv's receive
    /// half `rx` receives from that source where the half follows it.
    #[inline(never)]
    fn followed(&mut self, r: u32, event: u32, op: &ReplayOp, rx: &mut [u32; 4]) -> ReplayOp {
        let mut followed = *op;
        let least = if !self.follow_doubtful {
            Following::Certain
        } else if self.sends_named_wildcard[r as usize] {
            Following::Occasional
        } else {
            Following::Doubtful
        };
        if let Some([recorded, taken]) = self.wildcard_sources[r as usize] {
            if op.flags & flags::FOLLOWS_WILDCARD != 0
                && op.peer == recorded
                && taken != recorded
                && self.src.follows_wildcard(r, event, false, least)
            {
                followed.peer = taken;
            }
            if op.flags & flags::RECEIVE_FOLLOWS_WILDCARD != 0
                && rx[0] == recorded
                && taken != recorded
                && self.src.follows_wildcard(r, event, true, least)
            {
                rx[0] = taken;
            }
        }
        if op.flags & flags::FOLLOWS_WILDCARD_TAG != 0 {
            if let Some(TakenTag {
                recorded: Some(recorded),
                taken,
            }) = self.wildcard_tags[r as usize]
            {
                if op.tag == recorded
                    && taken != op.tag
                    && self
                        .src
                        .follows_wildcard_tag(r, event, least.min(Following::Doubtful))
                {
                    followed.tag = taken;
                }
            }
        }
        followed
    }
}

/// The flags of calls that may follow their rank's latest wildcard receives.
const FOLLOWERS: u8 =
    flags::FOLLOWS_WILDCARD | flags::FOLLOWS_WILDCARD_TAG | flags::RECEIVE_FOLLOWS_WILDCARD;
