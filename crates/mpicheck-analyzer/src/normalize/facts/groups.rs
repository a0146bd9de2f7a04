//! The sizes of the groups a rank holds, for the rank lists of `MPI_Group_incl` and its
//! kin (AR001, AR014): from the communicator a group was taken from, the list it was made
//! of, or `MPI_Group_size`. A group made any other way (`MPI_Group_union`, ...) has no
//! known size until the program asks for it, and its lists are not judged.

use super::super::{Args, RankNormalizer};
use crate::checks::argument::rules::ranges_len;
use crate::model::ObjectKind;

impl RankNormalizer<'_> {
    /// The size of the group a successful call returned or measured.
    pub(super) fn note_group_size(&mut self, args: &Args, short: &str, ret: i32) {
        if ret != 0 {
            return;
        }
        if short == "Group_size" {
            if let (Some(group), Some(size)) = (args.int("group"), args.out_int("size")) {
                if let Ok(size) = u32::try_from(size) {
                    self.objects.group_sizes.insert(group, size);
                }
            }
            return;
        }
        let Some(new) = args.out_int_at(args.plan.out_group) else {
            return;
        };
        let constants = &self.objects.constants;
        if constants.predefined.contains(&new)
            || constants.nulls.get(ObjectKind::Group) == Some(new)
        {
            return; // MPI_GROUP_EMPTY keeps its size 0
        }
        let group = |me: &Self| {
            args.int("group")
                .and_then(|g| me.objects.group_sizes.get(&g).copied())
                .map(i128::from)
        };
        let n = args.int("n").map(i128::from);
        let size: Option<i128> = match short {
            "Comm_group" | "Comm_remote_group" => args
                .int("comm")
                .and_then(|raw| self.comms.get(&raw))
                .and_then(|c| match short {
                    "Comm_group" => Some(c.local.len()),
                    _ => c.remote.as_ref().map(|r| r.len()),
                })
                .map(|len| len as i128),
            "Group_incl" => n,
            "Group_excl" => group(self).zip(n).map(|(g, n)| g - n),
            "Group_range_incl" => args
                .input("ranges")
                .and_then(|r| r.as_array())
                .and_then(ranges_len),
            "Group_range_excl" => args
                .input("ranges")
                .and_then(|r| r.as_array())
                .and_then(ranges_len)
                .zip(group(self))
                .map(|(n, g)| g - n),
            _ => None,
        };
        // A handle MPI hands out again after a free names another group: forget the old size.
        match size.and_then(|s| u32::try_from(s).ok()) {
            Some(size) => self.objects.group_sizes.insert(new, size),
            None => self.objects.group_sizes.remove(&new),
        };
    }
}
