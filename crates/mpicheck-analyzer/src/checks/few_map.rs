//! A map that nearly always holds a few entries, for the passes' per-rank state updated at
//! most events (a rank's live requests, its pending buffers): a hash insert and remove cost
//! ~150 instructions a request, a short vector's push and search a few dozen.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Entries held in a vector, searched in order, up to this many; a map that once held more
/// hashes them from then on.
const FEW: usize = 8;

/// A map of a few entries (see the module docs). Its iteration order is not the order of
/// insertion: what reads it whole must not depend on the order.
pub(crate) enum FewMap<K, V> {
    Few(Vec<(K, V)>),
    Many(FxHashMap<K, V>),
}

impl<K, V> Default for FewMap<K, V> {
    fn default() -> FewMap<K, V> {
        FewMap::Few(Vec::new())
    }
}

impl<K: Copy + Eq + Hash, V> FewMap<K, V> {
    pub fn is_empty(&self) -> bool {
        match self {
            FewMap::Few(entries) => entries.is_empty(),
            FewMap::Many(map) => map.is_empty(),
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        match self {
            FewMap::Few(entries) => entries.len(),
            FewMap::Many(map) => map.len(),
        }
    }

    #[inline]
    pub fn get(&self, key: &K) -> Option<&V> {
        match self {
            FewMap::Few(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            FewMap::Many(map) => map.get(key),
        }
    }

    #[inline]
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        match self {
            FewMap::Few(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            FewMap::Many(map) => map.get_mut(key),
        }
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Puts `value` under `key`, in place of the value there, if any.
    #[inline]
    pub fn insert(&mut self, key: K, value: V) {
        match self {
            FewMap::Few(entries) => {
                if let Some((_, v)) = entries.iter_mut().find(|(k, _)| *k == key) {
                    *v = value;
                } else if entries.len() < FEW {
                    entries.push((key, value));
                } else {
                    self.spill().insert(key, value);
                }
            }
            FewMap::Many(map) => {
                map.insert(key, value);
            }
        }
    }

    /// The entries hashed from now on.
    #[cold]
    fn spill(&mut self) -> &mut FxHashMap<K, V> {
        if let FewMap::Few(entries) = self {
            *self = FewMap::Many(entries.drain(..).collect());
        }
        match self {
            FewMap::Many(map) => map,
            FewMap::Few(_) => unreachable!("just hashed"),
        }
    }

    #[inline]
    pub fn remove(&mut self, key: &K) -> Option<V> {
        match self {
            FewMap::Few(entries) => {
                let at = entries.iter().position(|(k, _)| k == key)?;
                Some(entries.swap_remove(at).1)
            }
            FewMap::Many(map) => map.remove(key),
        }
    }

    pub fn clear(&mut self) {
        match self {
            FewMap::Few(entries) => entries.clear(),
            FewMap::Many(map) => map.clear(),
        }
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        match self {
            FewMap::Few(entries) => Iter::Few(entries.iter()),
            FewMap::Many(map) => Iter::Many(map.iter()),
        }
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }
}

/// The entries of a [`FewMap`].
pub(crate) enum Iter<'m, K, V> {
    Few(std::slice::Iter<'m, (K, V)>),
    Many(std::collections::hash_map::Iter<'m, K, V>),
}

impl<'m, K, V> Iterator for Iter<'m, K, V> {
    type Item = (&'m K, &'m V);

    fn next(&mut self) -> Option<(&'m K, &'m V)> {
        match self {
            Iter::Few(entries) => entries.next().map(|(k, v)| (k, v)),
            Iter::Many(entries) => entries.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as a hash map, below and past the few entries a vector holds.
    #[test]
    fn answers_as_a_hash_map() {
        let mut few: FewMap<u32, u32> = FewMap::default();
        let mut map: FxHashMap<u32, u32> = FxHashMap::default();
        for i in 0..200u32 {
            // Inserts, a replaced value, removes of present and absent keys.
            let key = (i * 7) % 23;
            match i % 5 {
                0..=2 => {
                    few.insert(key, i);
                    map.insert(key, i);
                }
                3 => assert_eq!(few.remove(&key), map.remove(&key)),
                _ => {
                    if let (Some(a), Some(b)) = (few.get_mut(&key), map.get_mut(&key)) {
                        *a += 1;
                        *b += 1;
                    }
                }
            }
            assert_eq!(few.len(), map.len());
            for k in 0..23 {
                assert_eq!(few.get(&k), map.get(&k), "{k} after {i}");
            }
            let mut entries: Vec<(u32, u32)> = few.iter().map(|(k, v)| (*k, *v)).collect();
            entries.sort_unstable();
            let mut expected: Vec<(u32, u32)> = map.iter().map(|(k, v)| (*k, *v)).collect();
            expected.sort_unstable();
            assert_eq!(entries, expected);
        }
        assert!(
            matches!(few, FewMap::Many(_)),
            "more than a few held at once"
        );
        few.clear();
        assert!(few.is_empty());
    }
}
