//! The replay driver: runs ranks until they block, and executes one operation.

use super::*;

impl<'p> Engine<'p> {
    pub(super) fn new(p: &'p Program, options: &ReplayOptions) -> Engine<'p> {
        let n = p.world_size() as usize;
        let mut slot_base = Vec::with_capacity(n + 1);
        let mut total: u64 = 0;
        for r in 0..n {
            slot_base.push(total as u32);
            // Two hidden slots: the request of a blocking call, and a spare.
            total += p.req_count[r] as u64 + 2;
        }
        assert!(total < u32::MAX as u64, "too many requests");
        slot_base.push(total as u32);
        let mut slots = vec![Slot::default(); total as usize];
        for r in 0..n {
            for s in slot_base[r]..slot_base[r + 1] {
                slots[s as usize].owner = r as u32;
            }
        }
        // World destinations are indexed by rank directly; other communicators get ids.
        let dests = (0..n as u32).map(DestState::new).collect();
        Engine {
            p,
            mode: options.mode,
            never_received: options.never_received.clone(),
            forced: options.forced,
            forced_matched: options.forced.map(|_| false),
            ranks: vec![RankState::default(); n],
            slot_base,
            slots,
            runq: VecDeque::new(),
            dests,
            dest_ids: FxHashMap::default(),
            wild_heads: Vec::new(),
            series: Vec::new(),
            series_ids: FxHashMap::default(),
            races: Vec::new(),
            stats: ReplayStats::default(),
            epochs: Default::default(),
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

    pub(super) fn enqueue(&mut self, rank: u32) {
        let st = &mut self.ranks[rank as usize];
        if !st.queued {
            st.queued = true;
            self.runq.push_back(rank);
        }
    }

    pub(super) fn run(&mut self) {
        for r in 0..self.p.world_size() {
            self.enqueue(r);
        }
        loop {
            while let Some(r) = self.runq.pop_front() {
                self.ranks[r as usize].queued = false;
                self.run_rank(r);
            }
            if !self.resolve_wildcards() {
                break;
            }
        }
    }

    pub(super) fn hidden_slot(&self, rank: u32) -> u32 {
        self.slot_base[rank as usize] + self.p.req_count[rank as usize]
    }

    pub(super) fn req_slot(&self, rank: u32, req: u32) -> Option<u32> {
        (req < self.p.req_count[rank as usize]).then(|| self.slot_base[rank as usize] + req)
    }

    pub(super) fn activate(&mut self, slot: u32, op: u32, pend: u8) {
        let s = &mut self.slots[slot as usize];
        s.state = S_ACTIVE;
        s.waited = false;
        s.pend = pend;
        s.op = op;
    }

    /// One part of a request completed.
    pub(super) fn part_done(&mut self, slot: u32, part: u8) {
        let s = &mut self.slots[slot as usize];
        if s.pend & part == 0 {
            return;
        }
        s.pend &= !part;
        if s.pend != 0 {
            return;
        }
        s.state = S_DONE;
        if s.waited {
            s.waited = false;
            let owner = s.owner;
            let st = &mut self.ranks[owner as usize];
            if st.pending > 0 {
                st.pending -= 1;
                if st.pending == 0 {
                    self.enqueue(owner);
                }
            }
        }
    }

    pub(super) fn run_rank(&mut self, r: u32) {
        let base = self.p.rank_start[r as usize];
        let len = self.p.rank_start[r as usize + 1] - base;
        match self.ranks[r as usize].status {
            R_READY => {}
            R_BLOCKED => {
                if self.ranks[r as usize].pending > 0 {
                    return;
                }
                self.resume(r, base);
            }
            _ => return,
        }
        loop {
            let pc = self.ranks[r as usize].pc as usize;
            if pc >= len {
                self.ranks[r as usize].status = match self.p.ends[r as usize] {
                    EndKind::Finalized => R_FINALIZED,
                    EndKind::Exited => R_EXITED,
                    EndKind::Interrupted => R_UNFINISHED,
                };
                return;
            }
            let gop = base + pc;
            let op = self.p.ops[gop];
            self.stats.ops += 1;
            match self.exec(r, gop as u32, op) {
                Step::Next => self.ranks[r as usize].pc += 1,
                Step::Block => {
                    self.ranks[r as usize].status = R_BLOCKED;
                    return;
                }
                Step::Stop => return,
            }
        }
    }

    /// The blocked call's condition holds: finish it and move on.
    pub(super) fn resume(&mut self, r: u32, base: usize) {
        let pc = self.ranks[r as usize].pc as usize;
        let op = self.p.ops[base + pc];
        if op.kind == OpKind::Wait {
            for k in 0..op.b {
                let req = self.p.aux[(op.a + k) as usize];
                if let Some(s) = self.req_slot(r, req) {
                    self.slots[s as usize].waited = false;
                }
            }
        }
        let st = &mut self.ranks[r as usize];
        st.in_probe = false;
        st.status = R_READY;
        st.pc += 1;
    }

    /// Blocks on one request unless it is complete.
    pub(super) fn block_on(&mut self, r: u32, slot: u32) -> Step {
        let s = &mut self.slots[slot as usize];
        if s.state != S_ACTIVE {
            return Step::Next;
        }
        s.waited = true;
        self.ranks[r as usize].pending = 1;
        Step::Block
    }

    pub(super) fn exec(&mut self, r: u32, gop: u32, op: ReplayOp) -> Step {
        match op.kind {
            OpKind::Nop | OpKind::BufferDetach | OpKind::RequestFree => Step::Next,
            OpKind::Finalize => {
                self.ranks[r as usize].status = R_FINALIZED;
                Step::Stop
            }
            OpKind::BufferAttach => {
                self.ranks[r as usize].buffer_capacity = op.b;
                Step::Next
            }
            OpKind::Cancel => {
                if let Some(s) = self.req_slot(r, op.a) {
                    // Lazily removed from the queues: matching skips slots not expecting it.
                    let slot = &mut self.slots[s as usize];
                    if slot.state == S_ACTIVE {
                        slot.pend = 0;
                        slot.state = S_DONE;
                    }
                }
                Step::Next
            }
            OpKind::Send | OpKind::Recv | OpKind::Sendrecv | OpKind::Collective => match op.class {
                class::BLOCKING => {
                    let slot = self.hidden_slot(r);
                    self.start(r, gop, op, slot);
                    self.block_on(r, slot)
                }
                class::NONBLOCKING => {
                    if let Some(slot) = self.req_slot(r, op.a) {
                        self.start(r, gop, op, slot);
                    }
                    Step::Next
                }
                _ => {
                    if let Some(slot) = self.req_slot(r, op.a) {
                        let s = &mut self.slots[slot as usize];
                        s.state = S_INACTIVE;
                        s.op = gop;
                        s.pend = 0;
                    }
                    Step::Next
                }
            },
            OpKind::Release => {
                for k in 0..op.b {
                    let at = (op.a + 2 * k) as usize;
                    let [old, new] = [self.p.aux[at], self.p.aux[at + 1]];
                    let (Some(old), Some(new)) = (self.req_slot(r, old), self.req_slot(r, new))
                    else {
                        continue;
                    };
                    // The old slot's operation goes on matching; the handle's new slot
                    // is complete, or inactive for a persistent request not started.
                    let handle = self.slots[old as usize];
                    let slot = &mut self.slots[new as usize];
                    slot.op = handle.op;
                    slot.state = if handle.state == S_INACTIVE {
                        S_INACTIVE
                    } else {
                        S_DONE
                    };
                    slot.pend = 0;
                    slot.waited = false;
                }
                Step::Next
            }
            OpKind::Start => {
                for k in 0..op.b {
                    let req = self.p.aux[(op.a + k) as usize];
                    let Some(slot) = self.req_slot(r, req) else {
                        continue;
                    };
                    let s = self.slots[slot as usize];
                    if s.state == S_INACTIVE || s.state == S_DONE {
                        let template = self.p.ops[s.op as usize];
                        self.start(r, s.op, template, slot);
                    }
                }
                Step::Next
            }
            OpKind::WinPost
            | OpKind::WinStart
            | OpKind::WinComplete
            | OpKind::WinWait
            | OpKind::WinLockWait => self.exec_epoch(r, op),
            OpKind::Probe => {
                if op.peer == NO_RANK || self.probe_ready(r, &op) {
                    return Step::Next;
                }
                let st = &mut self.ranks[r as usize];
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
                    let req = self.p.aux[(op.a + k) as usize];
                    match self.req_slot(r, req) {
                        Some(s) if self.slots[s as usize].state == S_ACTIVE => {
                            let slot = &mut self.slots[s as usize];
                            if !slot.waited {
                                slot.waited = true;
                                incomplete += 1;
                            }
                        }
                        _ => some_done = true,
                    }
                }
                if incomplete == 0 || (any && some_done) {
                    for k in 0..op.b {
                        let req = self.p.aux[(op.a + k) as usize];
                        if let Some(s) = self.req_slot(r, req) {
                            self.slots[s as usize].waited = false;
                        }
                    }
                    return Step::Next;
                }
                self.ranks[r as usize].pending = if any { 1 } else { incomplete };
                Step::Block
            }
        }
    }

    /// Starts a communication operation on a request slot.
    pub(super) fn start(&mut self, r: u32, gop: u32, op: ReplayOp, slot: u32) {
        match op.kind {
            OpKind::Send => {
                self.activate(slot, gop, P_SEND);
                self.post_send(r, gop, &op, op.sub, op.b, slot);
            }
            OpKind::Recv => {
                self.activate(slot, gop, P_RECV);
                self.post_recv(r, gop, op.comm, op.peer, op.tag, op.b, slot);
            }
            OpKind::Sendrecv => {
                self.activate(slot, gop, P_SEND | P_RECV);
                let aux = &self.p.aux[op.b as usize..op.b as usize + 4];
                let (source, tag, preferred, bytes) = (aux[0], aux[1] as i32, aux[2], aux[3]);
                self.post_send(r, gop, &op, op.sub, bytes, slot);
                self.post_recv(r, gop, op.comm, source, tag, preferred, slot);
            }
            OpKind::Collective => {
                self.activate(slot, gop, P_COLL);
                self.post_collective(r, &op, slot);
            }
            _ => {}
        }
    }
}
