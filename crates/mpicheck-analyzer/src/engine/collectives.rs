//! Collective matching: which members a collective waits for, and posting one.

use super::*;

impl Engine<'_> {
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
        let next_id = self.series.len() as u32;
        let sid = *self.series_ids.entry(key).or_insert(next_id);
        if sid == next_id {
            self.series.push(Series {
                key,
                size,
                next: vec![0; size as usize],
                instances: VecDeque::new(),
                base: 0,
            });
        }
        let need = self.need(op, cr, size);
        let is_scan = matches!(
            COLLECTIVE_KINDS[op.sub as usize % COLLECTIVE_KINDS.len()],
            CollectiveKind::Scan | CollectiveKind::Exscan
        );
        let series = &mut self.series[sid as usize];
        let ordinal = series.next[cr as usize];
        series.next[cr as usize] += 1;
        while series.base as usize + series.instances.len() <= ordinal as usize {
            series.instances.push_back(Instance::default());
        }
        if let Some(s) = self.slots.get_mut(slot) {
            s.series = sid;
            s.ordinal = ordinal;
        }
        let inst = &mut series.instances[(ordinal - series.base) as usize];
        inst.arrived += 1;
        let mut wake: Vec<SlotId> = Vec::new();
        if inst.arrived == size {
            wake.append(&mut inst.wait_all);
            wake.append(&mut inst.wait_root);
            wake.extend(inst.wait_prefix.drain().map(|Reverse((_, s))| s));
            inst.prefix = size;
        } else {
            if key.root == cr {
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
            series.instances.pop_front();
            series.base += 1;
        }
        if series.instances.is_empty() {
            // A series is kept per communicator ever used (its members' counts); one with
            // no call open holds no room for instances (four, 320 bytes, otherwise).
            series.instances = VecDeque::new();
        }
        for s in wake {
            self.part_done(s, P_COLL);
        }
    }
}
