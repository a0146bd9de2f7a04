//! The grids of the cartesian communicators a rank holds, for the coordinates of
//! `MPI_Cart_rank` (AR012): from `MPI_Cart_create`'s `dims` and `periods`, the dimensions
//! `MPI_Cart_sub` keeps, or the communicator a duplicate copies.

use super::super::{Args, RankNormalizer};
use crate::checks::argument::rules::CartShape;

impl RankNormalizer<'_> {
    /// The grid of the communicator a successful call made (none: forget the handle's).
    pub(super) fn note_cart_shape(&mut self, args: &Args, short: &str, ret: i32) {
        if ret != 0 || args.plan.returns_borrowed {
            return;
        }
        let Some(new) = args.out_int_at(args.plan.out_communicator) else {
            return;
        };
        let array = |name| args.array(name);
        let parent = || {
            args.int("comm")
                .and_then(|c| self.objects.cart_shapes.get(&c))
        };
        let shape = match short {
            "Cart_create" => array("dims").zip(array("periods")).map(|(d, p)| CartShape {
                dims: d.to_vec(),
                periods: p.iter().map(|&p| p != 0).collect(),
            }),
            "Cart_sub" => parent().zip(array("remain_dims")).map(|(grid, remain)| {
                let kept = |i: &usize| remain.get(*i).is_some_and(|&r| r != 0);
                let dims = (0..grid.dims.len()).filter(kept);
                CartShape {
                    dims: dims.clone().map(|i| grid.dims[i]).collect(),
                    periods: dims.filter_map(|i| grid.periods.get(i).copied()).collect(),
                }
            }),
            _ if short.starts_with("Comm_dup") || short.starts_with("Comm_idup") => {
                parent().cloned()
            }
            _ => None,
        };
        match shape {
            Some(shape) => self.objects.cart_shapes.insert(new, shape),
            None => self.objects.cart_shapes.remove(&new),
        };
    }
}
