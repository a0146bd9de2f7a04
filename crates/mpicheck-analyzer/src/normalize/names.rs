//! Which family a call belongs to, by its name.

use crate::model::*;

/// The function name without the large-count suffix: `MPI_Send_c` behaves as `MPI_Send`.
pub(super) fn base_name(name: &str) -> &str {
    name.strip_suffix("_c").unwrap_or(name)
}

pub(super) fn collective_kind(name: &str) -> Option<CollectiveKind> {
    use CollectiveKind::*;
    Some(match name {
        "Barrier" => Barrier,
        "Bcast" => Bcast,
        "Gather" => Gather,
        "Gatherv" => Gatherv,
        "Scatter" => Scatter,
        "Scatterv" => Scatterv,
        "Allgather" => Allgather,
        "Allgatherv" => Allgatherv,
        "Alltoall" => Alltoall,
        "Alltoallv" => Alltoallv,
        "Alltoallw" => Alltoallw,
        "Reduce" => Reduce,
        "Allreduce" => Allreduce,
        "Reduce_scatter" => ReduceScatter,
        "Reduce_scatter_block" => ReduceScatterBlock,
        "Scan" => Scan,
        "Exscan" => Exscan,
        "Neighbor_allgather" => NeighborAllgather,
        "Neighbor_allgatherv" => NeighborAllgatherv,
        "Neighbor_alltoall" => NeighborAlltoall,
        "Neighbor_alltoallv" => NeighborAlltoallv,
        "Neighbor_alltoallw" => NeighborAlltoallw,
        _ => return None,
    })
}

/// `Ialltoall` → `Alltoall`: the blocking collective's name for a nonblocking one's.
pub(super) fn nonblocking_base(short: &str) -> Option<String> {
    let rest = short.strip_prefix('I')?;
    let mut chars = rest.chars();
    let first = chars.next()?;
    Some(first.to_ascii_uppercase().to_string() + chars.as_str())
}

/// Calls that synchronize the members of their communicator like a collective without moving
/// user data; the ones that create communicators are followed by `MPICHECK_Comm_info`.
pub(super) const MANAGEMENT_COLLECTIVES: &[&str] = &[
    "MPI_Comm_dup",
    "MPI_Comm_dup_with_info",
    "MPI_Comm_idup",
    "MPI_Comm_idup_with_info",
    "MPI_Comm_split",
    "MPI_Comm_split_type",
    "MPI_Comm_create",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Win_create",
    "MPI_Win_allocate",
    "MPI_Win_allocate_shared",
    "MPI_Win_create_dynamic",
    "MPI_Win_fence",
    "MPI_Win_free",
    "MPI_File_open",
    "MPI_File_close",
];

/// Collective MPI-IO calls on an open file (the file's communicator is the one of its
/// `MPI_File_open`).
pub(super) const FILE_COLLECTIVES: &[&str] = &[
    "File_close",
    "File_set_view",
    "File_set_size",
    "File_preallocate",
    "File_set_atomicity",
    "File_set_info",
    "File_sync",
    "File_seek_shared",
    "File_read_all",
    "File_read_all_begin",
    "File_read_all_end",
    "File_read_at_all",
    "File_read_at_all_begin",
    "File_read_at_all_end",
    "File_read_ordered",
    "File_read_ordered_begin",
    "File_read_ordered_end",
    "File_write_all",
    "File_write_all_begin",
    "File_write_all_end",
    "File_write_at_all",
    "File_write_at_all_begin",
    "File_write_at_all_end",
    "File_write_ordered",
    "File_write_ordered_begin",
    "File_write_ordered_end",
];
