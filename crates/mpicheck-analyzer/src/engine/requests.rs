//! The live slot of each request handle, by (rank, request id) ([`ReqMap`]).
//!
//! A rank's request ids count up from 0, one per request the program made, and a program
//! waits for its requests roughly in the order it made them: the ids of its live requests
//! are nearly always a short run. So each rank keeps the slots of a window of ids, indexed
//! by their offset from the window's first, which moves on as the first ones go; the ids
//! outside it (behind it, ones a jump left behind, the compiler's fresh ids counting down
//! from [`NO_REQ`]) are hashed. A hash insert and remove per request cost ~180
//! instructions of the replay's ~700 per operation.

use super::*;

/// The ids a window spans at most: a request live this far behind the newest is moved
/// to the hashed ones. Small, as every rank keeps its window's room (16 bytes an id: 1 KiB
/// per rank, 1 GiB for a million ranks at most).
const WINDOW: u32 = 64;

/// Ids from here on are never in a window (the compiler's fresh ids are just below
/// [`NO_REQ`]), so a window never reaches one that is hashed.
const FRESH_FROM: u32 = 1 << 31;

/// (rank, request id) → the live slot of that request.
///
/// Every id is in one place: the ids of its rank's window's span are in the window (a
/// `None` there is an id with no slot), the others hashed. The hashed ones other than
/// fresh ids are behind the window (a window only moves on), so an id in the span of a
/// window is never hashed.
#[derive(Clone, Default)]
pub(super) struct ReqMap {
    /// By rank.
    windows: Vec<ReqWindow>,
    other: FxHashMap<(u32, u32), SlotId>,
}

/// The slots of ids `base..base + slots.len()` of one rank.
#[derive(Clone, Default)]
struct ReqWindow {
    base: u32,
    slots: VecDeque<Option<SlotId>>,
}

impl ReqMap {
    pub(super) fn new(world: u32) -> ReqMap {
        ReqMap {
            windows: vec![ReqWindow::default(); world as usize],
            other: FxHashMap::default(),
        }
    }

    #[inline]
    pub(super) fn get(&self, rank: u32, req: u32) -> Option<SlotId> {
        if let Some(w) = self.windows.get(rank as usize) {
            let i = req.wrapping_sub(w.base) as usize;
            if i < w.slots.len() {
                return w.slots[i];
            }
        }
        if self.other.is_empty() {
            return None;
        }
        self.other.get(&(rank, req)).copied()
    }

    pub(super) fn get_mut(&mut self, rank: u32, req: u32) -> Option<&mut SlotId> {
        if let Some(w) = self.windows.get_mut(rank as usize) {
            let i = req.wrapping_sub(w.base) as usize;
            if i < w.slots.len() {
                return w.slots[i].as_mut();
            }
        }
        self.other.get_mut(&(rank, req))
    }

    /// Names `slot` by `req` of `rank` (in place of the slot it named, if any).
    #[inline]
    pub(super) fn insert(&mut self, rank: u32, req: u32, slot: SlotId) {
        // Nearly always an id a little past the rank's window (the ids between went to
        // requests that completed as they started): appended to it.
        if let Some(w) = self.windows.get_mut(rank as usize) {
            let i = req.wrapping_sub(w.base) as usize;
            if i >= w.slots.len() && i < WINDOW as usize && req < FRESH_FROM {
                if w.slots.is_empty() {
                    w.base = req;
                } else {
                    w.slots.resize(i, None);
                }
                w.slots.push_back(Some(slot));
                return;
            }
        }
        self.insert_other(rank, req, slot);
    }

    /// [`ReqMap::insert`] of an id in the rank's window, behind it, far ahead of it, or
    /// fresh.
    #[inline(never)]
    fn insert_other(&mut self, rank: u32, req: u32, slot: SlotId) {
        let Some(w) = self.windows.get_mut(rank as usize) else {
            self.other.insert((rank, req), slot);
            return;
        };
        let i = req.wrapping_sub(w.base);
        if (i as usize) < w.slots.len() {
            w.slots[i as usize] = Some(slot);
            return;
        }
        if req < w.base || req >= FRESH_FROM {
            self.other.insert((rank, req), slot);
            return;
        }
        if i >= WINDOW || w.slots.is_empty() {
            // The id is far ahead: the window starts again at it, the requests it held
            // hashed (all behind it).
            for (k, s) in w.slots.drain(..).enumerate() {
                if let Some(s) = s {
                    self.other.insert((rank, w.base + k as u32), s);
                }
            }
            w.base = req;
        }
        let i = (req - w.base) as usize;
        while w.slots.len() < i {
            w.slots.push_back(None);
        }
        w.slots.push_back(Some(slot));
    }

    /// The slot `req` of `rank` names, made by `new` if it names none.
    pub(super) fn get_or_insert_with(
        &mut self,
        rank: u32,
        req: u32,
        new: impl FnOnce() -> SlotId,
    ) -> SlotId {
        if let Some(slot) = self.get(rank, req) {
            return slot;
        }
        let slot = new();
        self.insert(rank, req, slot);
        slot
    }

    /// Forgets `req` of `rank` if it names `slot`.
    #[inline]
    pub(super) fn remove_if(&mut self, rank: u32, req: u32, slot: SlotId) {
        if let Some(w) = self.windows.get_mut(rank as usize) {
            let i = req.wrapping_sub(w.base) as usize;
            if i < w.slots.len() {
                if w.slots[i] == Some(slot) {
                    w.slots[i] = None;
                    // The window moves on past the ids with no slot at its front.
                    while let Some(None) = w.slots.front() {
                        w.slots.pop_front();
                        w.base += 1;
                    }
                }
                return;
            }
        }
        self.remove_other_if(rank, req, slot);
    }

    /// [`ReqMap::remove_if`] of an id outside its rank's window.
    #[inline(never)]
    fn remove_other_if(&mut self, rank: u32, req: u32, slot: SlotId) {
        if let std::collections::hash_map::Entry::Occupied(entry) = self.other.entry((rank, req)) {
            if *entry.get() == slot {
                entry.remove();
            }
        }
    }

    /// Every (rank, request id) that names a slot, in no particular order.
    pub(super) fn keys(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.iter().map(|(key, _)| key)
    }

    fn iter(&self) -> impl Iterator<Item = ((u32, u32), SlotId)> + '_ {
        let windowed = self.windows.iter().enumerate().flat_map(|(rank, w)| {
            (w.slots.iter().enumerate())
                .filter_map(move |(k, s)| s.map(|s| ((rank as u32, w.base + k as u32), s)))
        });
        windowed.chain(self.other.iter().map(|(&key, &s)| (key, s)))
    }
}

/// The same requests naming the same slots (wherever each map keeps them).
impl PartialEq for ReqMap {
    fn eq(&self, other: &ReqMap) -> bool {
        self.iter().count() == other.iter().count()
            && self
                .iter()
                .all(|((rank, req), s)| other.get(rank, req) == Some(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(map: &ReqMap) -> Vec<(u32, u32)> {
        let mut keys: Vec<(u32, u32)> = map.keys().collect();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn ids_in_and_out_of_the_window_find_their_slots() {
        let mut map = ReqMap::new(2);
        // Ids with gaps (requests that completed as they started), on two ranks.
        for req in [0, 1, 5, 9] {
            map.insert(0, req, 100 + req as SlotId);
        }
        map.insert(1, 3, 7);
        // A fresh id, and one far ahead: the window starts again there.
        map.insert(0, NO_REQ - 1, 42);
        map.insert(0, 9 + WINDOW, 43);
        assert_eq!(map.get(0, 5), Some(105));
        assert_eq!(map.get(0, 9), Some(109));
        assert_eq!(map.get(0, 2), None);
        assert_eq!(map.get(0, NO_REQ - 1), Some(42));
        assert_eq!(map.get(0, 9 + WINDOW), Some(43));
        assert_eq!(map.get(1, 3), Some(7));
        assert_eq!(map.get(1, 0), None);
        // An id behind the window, named late.
        map.insert(0, 2, 102);
        assert_eq!(map.get(0, 2), Some(102));
        assert_eq!(
            keys(&map),
            vec![
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 5),
                (0, 9),
                (0, 9 + WINDOW),
                (0, NO_REQ - 1),
                (1, 3)
            ]
        );
        *map.get_mut(0, 1).expect("a key") = 201;
        assert_eq!(map.get(0, 1), Some(201));
    }

    #[test]
    fn an_id_goes_only_while_it_names_the_slot() {
        let mut map = ReqMap::new(1);
        for req in 0..4 {
            map.insert(0, req, req as SlotId);
        }
        map.insert(0, NO_REQ - 1, 9);
        map.remove_if(0, 1, 5);
        map.remove_if(0, NO_REQ - 1, 8);
        assert_eq!(map.get(0, 1), Some(1));
        assert_eq!(map.get(0, NO_REQ - 1), Some(9));
        for req in [1, 0, 3] {
            map.remove_if(0, req, req as SlotId);
        }
        map.remove_if(0, NO_REQ - 1, 9);
        assert_eq!(keys(&map), vec![(0, 2)]);
        // The window moved on past the ids it no longer holds; the next ones still go in.
        map.insert(0, 4, 4);
        assert_eq!(map.get(0, 4), Some(4));
        assert_eq!(map.get(0, 0), None);
    }

    #[test]
    fn maps_with_the_same_entries_are_equal_however_they_keep_them() {
        let mut a = ReqMap::new(1);
        let mut b = ReqMap::new(1);
        // `a` hashes id 0 (a jump left it behind), `b` keeps it in its window.
        a.insert(0, 10, 1);
        a.insert(0, 0, 2);
        b.insert(0, 0, 2);
        b.insert(0, 10, 1);
        assert!(a == b);
        b.insert(0, 11, 3);
        assert!(a != b);
        a.insert(0, 11, 4);
        assert!(a != b);
    }
}
