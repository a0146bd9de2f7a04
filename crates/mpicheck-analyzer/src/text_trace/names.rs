//! Names in text traces: MPI call names, collectives, object kinds, builtin datatypes.

use crate::model::*;

pub(super) use crate::normalize::intern;

/// Object kinds as text traces name them.
pub(super) fn object_kind(name: &str) -> Option<ObjectKind> {
    Some(match name {
        "comm" => ObjectKind::Communicator,
        "group" => ObjectKind::Group,
        "type" => ObjectKind::Datatype,
        "op" => ObjectKind::Op,
        "win" => ObjectKind::Window,
        "errhandler" => ObjectKind::Errhandler,
        "keyval" => ObjectKind::Keyval,
        "info" => ObjectKind::Info,
        "file" => ObjectKind::File,
        "session" => ObjectKind::Session,
        "request" => ObjectKind::Request,
        _ => return None,
    })
}

/// `MPI_` + the operation name with its first letter capitalized: `comm_dup` → `MPI_Comm_dup`.
pub(super) fn mpi_name(op: &str) -> &'static str {
    let mut chars = op.chars();
    let name = match chars.next() {
        Some(c) => format!("MPI_{}{}", c.to_ascii_uppercase(), chars.as_str()),
        None => "MPI_".to_string(),
    };
    intern(&name)
}

pub(super) fn collective_kind(name: &str) -> Option<CollectiveKind> {
    use CollectiveKind::*;
    Some(match name {
        "barrier" => Barrier,
        "bcast" => Bcast,
        "gather" => Gather,
        "gatherv" => Gatherv,
        "scatter" => Scatter,
        "scatterv" => Scatterv,
        "allgather" => Allgather,
        "allgatherv" => Allgatherv,
        "alltoall" => Alltoall,
        "alltoallv" => Alltoallv,
        "alltoallw" => Alltoallw,
        "reduce" => Reduce,
        "allreduce" => Allreduce,
        "reduce_scatter" => ReduceScatter,
        "reduce_scatter_block" => ReduceScatterBlock,
        "scan" => Scan,
        "exscan" => Exscan,
        "neighbor_allgather" => NeighborAllgather,
        "neighbor_allgatherv" => NeighborAllgatherv,
        "neighbor_alltoall" => NeighborAlltoall,
        "neighbor_alltoallv" => NeighborAlltoallv,
        "neighbor_alltoallw" => NeighborAlltoallw,
        _ => return None,
    })
}

pub(super) const MANAGEMENT: &[&str] = &[
    "comm_dup",
    "comm_idup",
    "comm_split",
    "comm_split_type",
    "comm_create",
    "cart_create",
    "cart_sub",
    "graph_create",
    "dist_graph_create",
    "dist_graph_create_adjacent",
    "intercomm_create",
    "intercomm_merge",
    "win_create",
    "win_allocate",
    "win_allocate_shared",
    "win_create_dynamic",
    "win_fence",
    "win_free",
    "file_open",
    "file_close",
    "file_set_view",
    "file_set_size",
    "file_set_atomicity",
    "file_read_all",
    "file_write_all",
    "file_read_all_begin",
    "file_read_all_end",
    "file_write_all_begin",
    "file_write_all_end",
];

pub(super) fn builtin_type(name: &str) -> Option<u64> {
    Some(match name {
        "char" | "byte" | "signed_char" | "unsigned_char" => 1,
        "short" => 2,
        "int" | "float" | "unsigned" => 4,
        "long" | "double" | "long_long" | "int64_t" => 8,
        _ => return None,
    })
}
