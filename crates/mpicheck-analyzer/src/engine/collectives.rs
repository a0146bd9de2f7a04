//! Collective matching: which members a collective waits for, and posting one.

use super::*;

/// Series below this number are never swept.
pub(super) const SWEEP_SERIES_FROM: usize = 1024;

/// How many instance queues and instances finished calls leave for the next ones: a
/// series whose calls all finished holds no room, but the next call of some series takes
/// this room rather than allocating its own.
pub(super) const SPARE_ROOM: usize = 64;

impl Engine<'_> {
    /// Makes the series of `key` over `size` members, in an entry a swept series gave back
    /// if any. Every so often (when the series have doubled since the last sweep) the
    /// finished series are swept out first, so that the replay holds the series of
    /// communicators in use, not of every communicator the run made.
    fn new_series(&mut self, key: SeriesKey, size: u32) -> u32 {
        if self.series.len() - self.free_series.len() >= self.sweep_series_at {
            self.sweep_series();
        }
        let series = Series {
            key,
            size,
            next: vec![0; size as usize],
            instances: VecDeque::new(),
            base: 0,
        };
        let sid = match self.free_series.pop() {
            Some(sid) => {
                self.series[sid as usize] = series;
                sid
            }
            None => {
                self.series.push(series);
                self.series.len() as u32 - 1
            }
        };
        self.series_ids.insert(key, sid);
        let live = (self.series.len() - self.free_series.len()) as u64;
        self.stats.peak_series = self.stats.peak_series.max(live);
        sid
    }

    /// Gives back the entries of the series with no call open. Such a series has every
    /// member at the same count, so forgetting it changes nothing: the next call starts it
    /// again with every count at 0. Only open calls' slots name a series.
    fn sweep_series(&mut self) {
        for (sid, series) in self.series.iter_mut().enumerate() {
            // A given-back entry keeps its old key, which may name a newer series now.
            let current = self.series_ids.get(&series.key) == Some(&(sid as u32));
            if current && series.instances.is_empty() {
                self.series_ids.remove(&series.key);
                series.next = Vec::new();
                self.free_series.push(sid as u32);
            }
        }
        let live = self.series.len() - self.free_series.len();
        self.sweep_series_at = (2 * live).max(SWEEP_SERIES_FROM);
    }

    pub(super) fn need(&self, op: &ReplayOp, comm_rank: u32, size: u32) -> Need {
        let returned = op.flags & flags::RETURNED != 0 && op.flags & flags::UNBUFFERED == 0;
        if self.mode == Mode::Strict || !returned {
            return Need::All;
        }
        use CollectiveKind::*;
        let kind = COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()];
        let root = (op.peer < size).then_some(op.peer);
        match (kind, root) {
            (Bcast | Scatter | Scatterv, Some(root)) => {
                if root == comm_rank {
                    Need::Nothing
                } else {
                    Need::Root(root)
                }
            }
            (Gather | Gatherv | Reduce, Some(root)) => {
                if root == comm_rank {
                    Need::All
                } else {
                    Need::Nothing
                }
            }
            (Scan, _) => Need::Prefix(comm_rank + 1),
            (Exscan, _) => Need::Prefix(comm_rank),
            _ => Need::All,
        }
    }

    pub(super) fn post_collective(&mut self, r: u32, op: &ReplayOp, slot: SlotId) {
        self.stats.collectives += 1;
        let Some(members) = self.src.comm(op.comm) else {
            self.part_done(slot, P_COLL);
            return;
        };
        let Some(cr) = members.comm_rank(r) else {
            self.part_done(slot, P_COLL);
            return;
        };
        let size = members.size();
        let key = SeriesKey {
            comm: op.comm,
            class: op.class.min(class::PERSISTENT),
            kind: op.sub,
            root: op.peer,
            name: op.b,
        };
        let sid = match self.series_ids.get(&key) {
            Some(&sid) => sid,
            None => self.new_series(key, size),
        };
        let need = self.need(op, cr, size);
        let is_scan = matches!(
            COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()],
            CollectiveKind::Scan | CollectiveKind::Exscan
        );
        let series = &mut self.series[sid as usize];
        let ordinal = series.next[cr as usize];
        series.next[cr as usize] += 1;
        while series.base as usize + series.instances.len() <= ordinal as usize {
            if series.instances.capacity() == 0 {
                if let Some(queue) = self.spare_queues.pop() {
                    series.instances = queue;
                }
            }
            let instance = self.spare_instances.pop().unwrap_or_default();
            series.instances.push_back(instance);
        }
        if let Some(s) = self.slots.get_mut(slot) {
            s.series = sid;
            s.ordinal = ordinal;
        }
        let inst = &mut series.instances[(ordinal - series.base) as usize];
        inst.arrived += 1;
        // (Taken from the engine, and given back below, emptied.)
        let mut wake = std::mem::take(&mut self.woken);
        // (Each list is looked at before it is moved: most are empty, and moving one
        // costs a call to copy.)
        if inst.arrived == size {
            if !inst.wait_all.is_empty() {
                wake.append(&mut inst.wait_all);
            }
            if !inst.wait_root.is_empty() {
                wake.append(&mut inst.wait_root);
            }
            if !inst.wait_prefix.is_empty() {
                wake.extend(inst.wait_prefix.drain().map(|Reverse((_, s))| s));
            }
            inst.prefix = size;
        } else {
            if key.root == cr && !inst.wait_root.is_empty() {
                wake.append(&mut inst.wait_root);
            }
            if is_scan {
                while inst.prefix < size && series.next[inst.prefix as usize] > ordinal {
                    inst.prefix += 1;
                }
                while let Some(Reverse((t, s))) = inst.wait_prefix.peek().copied() {
                    if t > inst.prefix {
                        break;
                    }
                    inst.wait_prefix.pop();
                    wake.push(s);
                }
            }
        }
        let satisfied = match need {
            Need::Nothing => true,
            Need::All => inst.arrived == size,
            Need::Root(root) => series.next[root as usize] > ordinal,
            Need::Prefix(t) => inst.prefix >= t,
        };
        if satisfied {
            wake.push(slot);
        } else {
            match need {
                Need::Root(_) => inst.wait_root.push(slot),
                Need::Prefix(t) => inst.wait_prefix.push(Reverse((t, slot))),
                _ => inst.wait_all.push(slot),
            }
        }
        // Calls every member made are done: only open ones stay.
        while series.instances.front().is_some_and(|i| i.arrived == size) {
            let mut done = series.instances.pop_front().expect("a front instance");
            series.base += 1;
            if self.spare_instances.len() < SPARE_ROOM {
                done.clear();
                self.spare_instances.push(done);
            }
        }
        if series.instances.is_empty() {
            // A series with no call open holds no room for instances (four, 320 bytes,
            // otherwise) until it is swept out: the room goes to the next call's series.
            let queue = std::mem::take(&mut series.instances);
            if self.spare_queues.len() < SPARE_ROOM && queue.capacity() > 0 {
                self.spare_queues.push(queue);
            }
        }
        for &s in &wake {
            self.part_done(s, P_COLL);
        }
        wake.clear();
        self.woken = wake;
    }
}
