//! Group handles as lists of world ranks, so `MPI_Win_post` and `MPI_Win_start` know the
//! members of their epochs.
//!
//! A group is known when it comes from a communicator or window whose members are known
//! (`MPI_Comm_group`, `MPI_Comm_remote_group`, `MPI_Win_get_group`, `MPI_GROUP_EMPTY`) and
//! then through the group constructors, whose rank arrays the trace records. Anything else
//! (a rank outside the group, an array the trace lacks, a handle never seen made) leaves
//! the new handle unknown, and the epochs that name it are not judged.

use super::super::{Args, RankNormalizer};
use crate::model::Rank;

impl RankNormalizer<'_> {
    /// Tracks the group a group-constructing call made; `short` is the name without `MPI_`.
    /// Returns whether the call was one.
    pub(super) fn group_call(&mut self, short: &str, args: &Args) -> bool {
        let made: Option<Option<Vec<Rank>>> = match short {
            "Comm_group" => Some(
                args.int("comm")
                    .and_then(|c| self.comms.get(&c))
                    .filter(|c| !c.local.is_empty())
                    .map(|c| c.local.to_vec()),
            ),
            "Comm_remote_group" => Some(
                args.int("comm")
                    .and_then(|c| self.comms.get(&c))
                    .and_then(|c| c.remote.as_deref().map(<[Rank]>::to_vec)),
            ),
            "Win_get_group" => Some(
                args.int("win")
                    .and_then(|w| self.rma.by_handle.get(&w))
                    .map(|w| self.tables.rma.windows[w.0 as usize].members.clone()),
            ),
            "Group_incl" | "Group_excl" | "Group_range_incl" | "Group_range_excl" => {
                let group = self.group(args.int("group"));
                let array = args
                    .input(if short.starts_with("Group_range") {
                        "ranges"
                    } else {
                        "ranks"
                    })
                    .and_then(|v| v.as_array());
                Some(match (group, array) {
                    (Some(group), Some(array)) => subgroup(short, &group, array),
                    _ => None,
                })
            }
            "Group_union" | "Group_intersection" | "Group_difference" => {
                let (a, b) = (
                    self.group(args.int("group1")),
                    self.group(args.int("group2")),
                );
                Some(a.zip(b).map(|(a, b)| combine(short, &a, &b)))
            }
            "Group_free" => {
                if let Some(raw) = args.int("group") {
                    self.rma.groups.remove(&raw);
                }
                return true;
            }
            _ => None,
        };
        let Some(made) = made else {
            return false;
        };
        if let Some(raw) = args.out_int(if short == "Win_get_group" || short.starts_with("Comm_") {
            "group"
        } else {
            "newgroup"
        }) {
            match made {
                Some(members) => self.rma.groups.insert(raw, members),
                // A reused handle must not keep the members of the group it named before.
                None => self.rma.groups.remove(&raw),
            };
        }
        true
    }

    /// The world ranks of a group handle, if known.
    pub(super) fn group(&self, raw: Option<i64>) -> Option<Vec<Rank>> {
        let raw = raw?;
        if Some(raw) == self.constants.group_empty {
            return Some(Vec::new());
        }
        self.rma.groups.get(&raw).cloned()
    }
}

/// `MPI_Group_incl`/`_excl` (`array` = ranks) and `_range_incl`/`_range_excl` (`array` =
/// triplets first, last, stride); `None` when a rank or range is invalid.
fn subgroup(short: &str, group: &[Rank], array: &[i64]) -> Option<Vec<Rank>> {
    let positions: Vec<usize> = if short.starts_with("Group_range") {
        if !array.len().is_multiple_of(3) {
            return None;
        }
        let mut positions = Vec::new();
        for triplet in array.chunks(3) {
            let (first, last, stride) = (triplet[0], triplet[1], triplet[2]);
            if stride == 0 || (last - first).signum() * stride.signum() < 0 {
                return None;
            }
            let mut at = first;
            while (stride > 0 && at <= last) || (stride < 0 && at >= last) {
                positions.push(usize::try_from(at).ok()?);
                // A group has at most a few million ranks: bound the loop by its size.
                if positions.len() > group.len() {
                    return None;
                }
                at += stride;
            }
        }
        positions
    } else {
        array
            .iter()
            .map(|&r| usize::try_from(r).ok())
            .collect::<Option<_>>()?
    };
    if positions.iter().any(|&p| p >= group.len()) {
        return None;
    }
    Some(if short.ends_with("_incl") {
        positions.iter().map(|&p| group[p]).collect()
    } else {
        group
            .iter()
            .enumerate()
            .filter(|(i, _)| !positions.contains(i))
            .map(|(_, &r)| r)
            .collect()
    })
}

/// `MPI_Group_union`, `_intersection`, `_difference`, in the standard's order (the first
/// group's order, then the second's).
fn combine(short: &str, a: &[Rank], b: &[Rank]) -> Vec<Rank> {
    match short {
        "Group_union" => {
            let mut out = a.to_vec();
            out.extend(b.iter().filter(|r| !a.contains(r)));
            out
        }
        "Group_intersection" => a.iter().copied().filter(|r| b.contains(r)).collect(),
        _ => a.iter().copied().filter(|r| !b.contains(r)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroups_follow_the_standard() {
        let g = [10, 11, 12, 13, 14];
        assert_eq!(subgroup("Group_incl", &g, &[3, 0]), Some(vec![13, 10]));
        assert_eq!(subgroup("Group_excl", &g, &[3, 0]), Some(vec![11, 12, 14]));
        assert_eq!(
            subgroup("Group_range_incl", &g, &[4, 0, -2]),
            Some(vec![14, 12, 10])
        );
        assert_eq!(
            subgroup("Group_range_excl", &g, &[1, 3, 2]),
            Some(vec![10, 12, 14])
        );
        assert_eq!(subgroup("Group_incl", &g, &[5]), None);
        assert_eq!(subgroup("Group_range_incl", &g, &[0, 4, 0]), None);
        assert_eq!(subgroup("Group_range_incl", &g, &[0, 4, -1]), None);
    }

    #[test]
    fn set_operations_keep_the_first_groups_order() {
        assert_eq!(combine("Group_union", &[3, 1], &[1, 2]), vec![3, 1, 2]);
        assert_eq!(
            combine("Group_intersection", &[3, 1, 2], &[2, 3]),
            vec![3, 2]
        );
        assert_eq!(combine("Group_difference", &[3, 1, 2], &[2]), vec![3, 1]);
    }
}
