//! [`CommTable`]: the run's communicators by id, each description stored once.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{CommId, CommInfo, Rank};

/// The run's communicators, indexed by [`CommId`].
///
/// Ids are never reused, so the table has an entry per communicator the program ever made:
/// a long run that splits a communicator every few rounds makes millions. They are made
/// the same few ways, over the same few rank lists, so each entry is the index of its
/// description (4 bytes) and each distinct description ([`CommInfo`]) is held once; its
/// name and member lists are shared with the other descriptions that have them.
#[derive(Clone, Debug, Default)]
pub struct CommTable {
    /// The description of each communicator: an index into `descriptions`.
    described_by: Vec<u32>,
    descriptions: Vec<CommInfo>,
    /// Each description's index, by the addresses of its shared parts (which `share`
    /// makes unique per content, so equal descriptions have equal addresses).
    description_ids: FxHashMap<(usize, usize, usize), u32>,
    names: FxHashSet<Arc<str>>,
    member_lists: FxHashSet<Arc<[Rank]>>,
}

impl CommTable {
    pub fn len(&self) -> usize {
        self.described_by.len()
    }

    pub fn is_empty(&self) -> bool {
        self.described_by.is_empty()
    }

    /// A communicator, if the table has it.
    pub fn get(&self, id: CommId) -> Option<&CommInfo> {
        let description = *self.described_by.get(id.0 as usize)?;
        Some(&self.descriptions[description as usize])
    }

    /// The communicators in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &CommInfo> + '_ {
        self.described_by
            .iter()
            .map(|&d| &self.descriptions[d as usize])
    }

    /// Adds a communicator; its id is the number of communicators before it.
    pub fn push(&mut self, info: CommInfo) -> CommId {
        let id = CommId(self.described_by.len() as u32);
        let description = self.description(info);
        self.described_by.push(description);
        id
    }

    /// Describes communicator `id` as `info` instead.
    pub fn set(&mut self, id: CommId, info: CommInfo) {
        let description = self.description(info);
        self.described_by[id.0 as usize] = description;
    }

    /// The communicators reordered by `reorder`, which takes their descriptions' indices in
    /// id order and gives them in the new order.
    pub(crate) fn renumber(&mut self, reorder: impl FnOnce(Vec<u32>) -> Vec<u32>) {
        self.described_by = reorder(std::mem::take(&mut self.described_by));
    }

    /// The index of `info` among the descriptions, added if new.
    fn description(&mut self, mut info: CommInfo) -> u32 {
        info.name = share(&mut self.names, info.name);
        info.members = share(&mut self.member_lists, info.members);
        info.remote = info.remote.map(|r| share(&mut self.member_lists, r));
        let key = (
            Arc::as_ptr(&info.name) as *const u8 as usize,
            Arc::as_ptr(&info.members) as *const Rank as usize,
            info.remote
                .as_ref()
                .map_or(0, |r| Arc::as_ptr(r) as *const Rank as usize),
        );
        *self.description_ids.entry(key).or_insert_with(|| {
            self.descriptions.push(info);
            (self.descriptions.len() - 1) as u32
        })
    }
}

/// The copy of `value` in `set` (put there if it is the first).
fn share<T: ?Sized + Eq + std::hash::Hash>(set: &mut FxHashSet<Arc<T>>, value: Arc<T>) -> Arc<T> {
    match set.get(&value) {
        Some(shared) => shared.clone(),
        None => {
            set.insert(value.clone());
            value
        }
    }
}

impl std::ops::Index<usize> for CommTable {
    type Output = CommInfo;
    fn index(&self, id: usize) -> &CommInfo {
        &self.descriptions[self.described_by[id] as usize]
    }
}

/// Two tables are equal when they describe the same communicators under the same ids,
/// however their descriptions are stored.
impl PartialEq for CommTable {
    fn eq(&self, other: &CommTable) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for CommTable {}

impl FromIterator<CommInfo> for CommTable {
    fn from_iter<I: IntoIterator<Item = CommInfo>>(infos: I) -> CommTable {
        let mut table = CommTable::default();
        for info in infos {
            table.push(info);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, members: &[Rank]) -> CommInfo {
        CommInfo {
            name: name.into(),
            members: members.into(),
            remote: None,
        }
    }

    #[test]
    fn communicators_made_the_same_way_share_one_description() {
        let mut table = CommTable::default();
        let world = table.push(info("MPI_COMM_WORLD", &[0, 1, 2, 3]));
        let halves: Vec<CommId> = (0..1000)
            .map(|i| {
                table.push(info(
                    "MPI_Comm_split of MPI_COMM_WORLD",
                    &[i % 2, 2 + i % 2],
                ))
            })
            .collect();
        assert_eq!(table.len(), 1001);
        assert_eq!(table.descriptions.len(), 3);
        assert_eq!(
            *table.get(world).unwrap(),
            info("MPI_COMM_WORLD", &[0, 1, 2, 3])
        );
        assert_eq!(
            *table.get(halves[1]).unwrap(),
            info("MPI_Comm_split of MPI_COMM_WORLD", &[1, 3])
        );
        assert_eq!(table.get(CommId(1001)), None);
        // A name shared by two descriptions is held once.
        assert!(Arc::ptr_eq(
            &table.get(halves[0]).unwrap().name,
            &table.get(halves[1]).unwrap().name
        ));
    }

    #[test]
    fn set_and_renumber_keep_the_other_communicators() {
        let mut table: CommTable = [info("a", &[0]), info("b", &[1]), info("c", &[0])]
            .into_iter()
            .collect();
        table.set(CommId(1), info("a", &[0]));
        assert_eq!(table[1], info("a", &[0]));
        assert_eq!(table.descriptions.len(), 3, "b's description stays, unused");
        table.renumber(|ids| vec![ids[2], ids[0], ids[1]]);
        let names: Vec<&str> = table.iter().map(|c| &*c.name).collect();
        assert_eq!(names, ["c", "a", "a"]);
        let other: CommTable = [info("c", &[0]), info("a", &[0]), info("a", &[0])]
            .into_iter()
            .collect();
        assert_eq!(table, other);
    }
}
