//! The generated tier-2 suite of the argument rules: for each parameter kind of the docs'
//! table (`docs/argument-rules.md`), a spread of functions, each given one bad argument of
//! that kind in a small program that expects the rule's code on that call.
//!
//! The programs are committed under `tests/programs/generated/` (readable and runnable by
//! hand like every other program, and run by the same harness); `tests/generated.rs` fails
//! when they differ from [`programs`], and `MPICHECK_BLESS=1` rewrites them. MPI is free to
//! abort on the argument: the recorder writes the call's arguments before MPI sees them,
//! so the finding must be there either way.

/// One program: a bad argument of one kind given to one function.
pub struct Case {
    /// The code the argument rule reports.
    pub code: &'static str,
    /// What is wrong, for the file name and header (`negative-count`).
    pub what: &'static str,
    /// The MPI function given the bad argument.
    pub function: &'static str,
    pub ranks: u32,
    /// `mpi=` families, where another MPI lacks the function.
    pub mpi: Option<&'static str>,
    /// Statements before the call (indented by the generator).
    pub setup: &'static [&'static str],
    /// The call, on the line that must be reported.
    pub call: &'static str,
    /// Statements after it (what a correct program would do next).
    pub after: &'static [&'static str],
}

const WIN_SETUP: &[&str] = &[
    "MPI_Win win;",
    "MPI_Win_create(rbuf, sizeof rbuf, sizeof(int), MPI_INFO_NULL, comm, &win);",
    "MPI_Win_fence(0, win);",
];
const WIN_AFTER: &[&str] = &["MPI_Win_fence(0, win);", "MPI_Win_free(&win);"];
const GROUP_AFTER: &[&str] = &["MPI_Group_free(&sub);", "MPI_Group_free(&world);"];
const TYPE_SETUP: &[&str] = &[
    "MPI_Datatype pair;",
    "MPI_Type_contiguous(2, MPI_INT, &pair);",
];
/// A partitioned send from rank 0 to rank 1; the call runs on rank 0 with `req` made.
const PSEND_SETUP: &[&str] = &[
    "MPI_Request req;",
    "if (rank == 1) {",
    "    MPI_Precv_init(rbuf, 4, 1, MPI_INT, 0, 0, comm, MPI_INFO_NULL, &req);",
    "    MPI_Start(&req);",
    "    MPI_Wait(&req, MPI_STATUS_IGNORE);",
    "    MPI_Request_free(&req);",
    "} else {",
    "    MPI_Psend_init(sbuf, 4, 1, MPI_INT, 1, 0, comm, MPI_INFO_NULL, &req);",
    "    MPI_Start(&req);",
];
const PSEND_AFTER: &[&str] = &[
    "    MPI_Pready_range(0, 3, req);",
    "    MPI_Wait(&req, MPI_STATUS_IGNORE);",
    "    MPI_Request_free(&req);",
    "}",
];

macro_rules! case {
    ($code:literal, $what:literal, $function:literal, ranks = $ranks:literal, $call:literal) => {
        case!(
            $code,
            $what,
            $function,
            ranks = $ranks,
            setup = &[],
            $call,
            after = &[]
        )
    };
    ($code:literal, $what:literal, $function:literal, ranks = $ranks:literal,
     setup = $setup:expr, $call:literal) => {
        case!(
            $code,
            $what,
            $function,
            ranks = $ranks,
            setup = $setup,
            $call,
            after = &[]
        )
    };
    ($code:literal, $what:literal, $function:literal, ranks = $ranks:literal,
     setup = $setup:expr, $call:literal, after = $after:expr) => {
        Case {
            code: $code,
            what: $what,
            function: $function,
            ranks: $ranks,
            mpi: None,
            setup: $setup,
            call: $call,
            after: $after,
        }
    };
}

/// The table: for each rule of the docs' kind table, at least three functions where three
/// exist.
pub const CASES: &[Case] = &[
    // AR001: RANK
    case!("AR001", "dest-out-of-range", "MPI_Send", ranks = 1,
        "MPI_Send(sbuf, 1, MPI_INT, size, 0, comm);"),
    case!("AR001", "root-out-of-range", "MPI_Bcast", ranks = 1,
        "MPI_Bcast(sbuf, 1, MPI_INT, size + 1, comm);"),
    case!("AR001", "source-out-of-range", "MPI_Irecv", ranks = 1,
        setup = &["MPI_Request req;"],
        "MPI_Irecv(rbuf, 1, MPI_INT, -7, 0, comm, &req);",
        after = &["MPI_Cancel(&req);", "MPI_Wait(&req, MPI_STATUS_IGNORE);"]),
    case!("AR001", "ranks-out-of-range", "MPI_Group_incl", ranks = 1,
        setup = &["MPI_Group world, sub;", "int members[1] = {1};", "MPI_Comm_group(comm, &world);"],
        "MPI_Group_incl(world, 1, members, &sub);",
        after = &["MPI_Group_free(&sub);", "MPI_Group_free(&world);"]),
    // AR002: TAG
    case!("AR002", "negative-tag", "MPI_Send", ranks = 1,
        "MPI_Send(sbuf, 1, MPI_INT, MPI_PROC_NULL, -5, comm);"),
    case!("AR002", "negative-tag", "MPI_Isend", ranks = 1,
        setup = &["MPI_Request req;"],
        "MPI_Isend(sbuf, 1, MPI_INT, 0, -5, comm, &req);",
        after = &["MPI_Recv(rbuf, 1, MPI_INT, 0, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);", "MPI_Wait(&req, MPI_STATUS_IGNORE);"]),
    case!("AR002", "negative-tag", "MPI_Send_init", ranks = 1,
        setup = &["MPI_Request req;"],
        "MPI_Send_init(sbuf, 1, MPI_INT, 0, -5, comm, &req);",
        after = &["MPI_Request_free(&req);"]),
    case!("AR002", "wildcard-send-tag", "MPI_Sendrecv", ranks = 1,
        "MPI_Sendrecv(sbuf, 1, MPI_INT, 0, MPI_ANY_TAG, rbuf, 1, MPI_INT, 0, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);"),
    // AR003: counts
    case!("AR003", "negative-count", "MPI_Send", ranks = 1,
        "MPI_Send(sbuf, -1, MPI_INT, MPI_PROC_NULL, 0, comm);"),
    case!("AR003", "negative-count", "MPI_Gather", ranks = 1,
        "MPI_Gather(sbuf, -1, MPI_INT, rbuf, -1, MPI_INT, 0, comm);"),
    case!("AR003", "negative-count", "MPI_Scatterv", ranks = 1,
        setup = &["counts[0] = -1;"],
        "MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, 1, MPI_INT, 0, comm);"),
    case!("AR003", "negative-count", "MPI_Put", ranks = 2,
        setup = WIN_SETUP,
        "MPI_Put(sbuf, -1, MPI_INT, rank, 0, 1, MPI_INT, win);",
        after = WIN_AFTER),
    // AR004: null handles
    case!("AR004", "null-datatype", "MPI_Allgatherv", ranks = 1,
        "MPI_Allgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_DATATYPE_NULL, comm);"),
    case!("AR004", "null-datatype", "MPI_Scatter", ranks = 1,
        "MPI_Scatter(sbuf, 1, MPI_DATATYPE_NULL, rbuf, 1, MPI_INT, 0, comm);"),
    case!("AR004", "null-datatype", "MPI_Reduce", ranks = 1,
        "MPI_Reduce(sbuf, rbuf, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, comm);"),
    case!("AR004", "null-op", "MPI_Reduce", ranks = 1,
        "MPI_Reduce(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, 0, comm);"),
    case!("AR004", "null-op", "MPI_Allreduce", ranks = 1,
        "MPI_Allreduce(sbuf, rbuf, 1, MPI_INT, MPI_OP_NULL, comm);"),
    case!("AR004", "null-op", "MPI_Accumulate", ranks = 2,
        setup = WIN_SETUP,
        "MPI_Accumulate(sbuf, 1, MPI_INT, rank, 0, 1, MPI_INT, MPI_OP_NULL, win);",
        after = WIN_AFTER),
    case!("AR004", "null-communicator", "MPI_Barrier", ranks = 1,
        "MPI_Barrier(MPI_COMM_NULL);"),
    case!("AR004", "null-communicator", "MPI_Comm_size", ranks = 1,
        "MPI_Comm_size(MPI_COMM_NULL, &size);"),
    case!("AR004", "null-communicator", "MPI_Bcast", ranks = 1,
        "MPI_Bcast(sbuf, 1, MPI_INT, 0, MPI_COMM_NULL);"),
    // AR005: freed handles (a copy of the handle: *_free sets the program's to null)
    case!("AR005", "freed-datatype", "MPI_Type_size", ranks = 1,
        setup = &["MPI_Datatype pair, copy;", "int bytes;", "MPI_Type_contiguous(2, MPI_INT, &pair);", "copy = pair;", "MPI_Type_free(&pair);"],
        "MPI_Type_size(copy, &bytes);"),
    case!("AR005", "freed-communicator", "MPI_Comm_size", ranks = 1,
        setup = &["MPI_Comm dup, copy;", "MPI_Comm_dup(comm, &dup);", "copy = dup;", "MPI_Comm_free(&dup);"],
        "MPI_Comm_size(copy, &size);"),
    case!("AR005", "freed-group", "MPI_Group_size", ranks = 1,
        setup = &["MPI_Group group, copy;", "MPI_Comm_group(comm, &group);", "copy = group;", "MPI_Group_free(&group);"],
        "MPI_Group_size(copy, &size);"),
    // AR006: uncommitted datatypes
    case!("AR006", "uncommitted-datatype", "MPI_Bcast", ranks = 1,
        setup = TYPE_SETUP,
        "MPI_Bcast(sbuf, 1, pair, 0, comm);",
        after = &["MPI_Type_free(&pair);"]),
    case!("AR006", "uncommitted-datatype", "MPI_Gather", ranks = 1,
        setup = TYPE_SETUP,
        "MPI_Gather(sbuf, 1, pair, rbuf, 1, pair, 0, comm);",
        after = &["MPI_Type_free(&pair);"]),
    case!("AR006", "uncommitted-datatype", "MPI_Sendrecv", ranks = 1,
        setup = TYPE_SETUP,
        "MPI_Sendrecv(sbuf, 1, pair, 0, 0, rbuf, 1, pair, 0, 0, comm, MPI_STATUS_IGNORE);",
        after = &["MPI_Type_free(&pair);"]),
    // AR007: NULL buffers
    case!("AR007", "null-buffer", "MPI_Bcast", ranks = 1,
        "MPI_Bcast(NULL, 1, MPI_INT, 0, comm);"),
    case!("AR007", "null-buffer", "MPI_Allreduce", ranks = 1,
        "MPI_Allreduce(NULL, rbuf, 1, MPI_INT, MPI_SUM, comm);"),
    case!("AR007", "null-buffer", "MPI_Sendrecv", ranks = 1,
        "MPI_Sendrecv(sbuf, 1, MPI_INT, 0, 0, NULL, 1, MPI_INT, 0, 0, comm, MPI_STATUS_IGNORE);"),
    // AR008: MPI_IN_PLACE where the function takes none
    case!("AR008", "in-place", "MPI_Bcast", ranks = 1,
        "MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm);"),
    case!("AR008", "in-place", "MPI_Allreduce", ranks = 1,
        "MPI_Allreduce(sbuf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm);"),
    case!("AR008", "in-place", "MPI_Send_init", ranks = 1,
        setup = &["MPI_Request req;"],
        "MPI_Send_init(MPI_IN_PLACE, 1, MPI_INT, 0, 0, comm, &req);",
        after = &["MPI_Request_free(&req);"]),
    // AR011: colors and split types (two functions have them)
    case!("AR011", "negative-color", "MPI_Comm_split", ranks = 1,
        setup = &["MPI_Comm sub;"],
        "MPI_Comm_split(comm, -5, 0, &sub);",
        after = &["if (sub != MPI_COMM_NULL)", "    MPI_Comm_free(&sub);"]),
    case!("AR011", "negative-split-type", "MPI_Comm_split_type", ranks = 1,
        setup = &["MPI_Comm sub;"],
        "MPI_Comm_split_type(comm, -5, 0, MPI_INFO_NULL, &sub);",
        after = &["if (sub != MPI_COMM_NULL)", "    MPI_Comm_free(&sub);"]),
    case!("AR011", "undefined-split-type", "MPI_Comm_split_type", ranks = 1,
        setup = &["MPI_Comm sub;"],
        "MPI_Comm_split_type(comm, 77, 0, MPI_INFO_NULL, &sub);",
        after = &["if (sub != MPI_COMM_NULL)", "    MPI_Comm_free(&sub);"]),
    // AR012: topology sizes
    case!("AR012", "negative-ndims", "MPI_Cart_create", ranks = 1,
        setup = &["MPI_Comm cart;", "int dims[1] = {1}, periods[1] = {0};"],
        "MPI_Cart_create(comm, -1, dims, periods, 0, &cart);",
        after = &["if (cart != MPI_COMM_NULL)", "    MPI_Comm_free(&cart);"]),
    case!("AR012", "negative-nnodes", "MPI_Dims_create", ranks = 1,
        setup = &["int dims[2] = {0, 0};"],
        "MPI_Dims_create(-4, 2, dims);"),
    case!("AR012", "negative-nnodes", "MPI_Graph_create", ranks = 1,
        setup = &["MPI_Comm graph;", "int index[1] = {0}, edges[1] = {0};"],
        "MPI_Graph_create(comm, -1, index, edges, 0, &graph);",
        after = &["if (graph != MPI_COMM_NULL)", "    MPI_Comm_free(&graph);"]),
    case!("AR012", "grid-too-large", "MPI_Cart_create", ranks = 1,
        setup = &["MPI_Comm cart;", "int dims[2] = {2, 2}, periods[2] = {0, 0};"],
        "MPI_Cart_create(comm, 2, dims, periods, 0, &cart);",
        after = &["if (cart != MPI_COMM_NULL)", "    MPI_Comm_free(&cart);"]),
    // AR013: topology queries on a communicator without that topology
    case!("AR013", "no-topology", "MPI_Cart_get", ranks = 1,
        setup = &["int dims[1], periods[1], coords[1];"],
        "MPI_Cart_get(comm, 1, dims, periods, coords);"),
    case!("AR013", "no-topology", "MPI_Cartdim_get", ranks = 1,
        setup = &["int ndims;"],
        "MPI_Cartdim_get(comm, &ndims);"),
    case!("AR013", "no-topology", "MPI_Graphdims_get", ranks = 1,
        setup = &["int nnodes, nedges;"],
        "MPI_Graphdims_get(comm, &nnodes, &nedges);"),
    case!("AR013", "no-topology", "MPI_Neighbor_allgather", ranks = 1,
        "MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm);"),
    // AR014: ranks of a group named twice, stride 0
    case!("AR014", "repeated-rank", "MPI_Group_incl", ranks = 1,
        setup = &["MPI_Group world, sub;", "int members[2] = {0, 0};", "MPI_Comm_group(comm, &world);"],
        "MPI_Group_incl(world, 2, members, &sub);",
        after = GROUP_AFTER),
    case!("AR014", "repeated-rank", "MPI_Group_excl", ranks = 1,
        setup = &["MPI_Group world, sub;", "int members[2] = {0, 0};", "MPI_Comm_group(comm, &world);"],
        "MPI_Group_excl(world, 2, members, &sub);",
        after = GROUP_AFTER),
    case!("AR014", "zero-stride", "MPI_Group_range_incl", ranks = 1,
        setup = &["MPI_Group world, sub;", "int ranges[1][3] = {{0, 0, 0}};", "MPI_Comm_group(comm, &world);"],
        "MPI_Group_range_incl(world, 1, ranges, &sub);",
        after = GROUP_AFTER),
    case!("AR014", "zero-stride", "MPI_Group_range_excl", ranks = 1,
        setup = &["MPI_Group world, sub;", "int ranges[1][3] = {{0, 0, 0}};", "MPI_Comm_group(comm, &world);"],
        "MPI_Group_range_excl(world, 1, ranges, &sub);",
        after = GROUP_AFTER),
    // AR015: RMA assertions
    case!("AR015", "nocheck-on-fence", "MPI_Win_fence", ranks = 2,
        setup = WIN_SETUP,
        "MPI_Win_fence(MPI_MODE_NOCHECK, win);",
        after = WIN_AFTER),
    case!("AR015", "noprecede-on-lock", "MPI_Win_lock", ranks = 2,
        setup = &["MPI_Win win;", "MPI_Win_create(rbuf, sizeof rbuf, sizeof(int), MPI_INFO_NULL, comm, &win);"],
        "MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOPRECEDE, win);",
        after = &["MPI_Win_unlock(0, win);", "MPI_Win_free(&win);"]),
    case!("AR015", "noput-on-lock-all", "MPI_Win_lock_all", ranks = 2,
        setup = &["MPI_Win win;", "MPI_Win_create(rbuf, sizeof rbuf, sizeof(int), MPI_INFO_NULL, comm, &win);"],
        "MPI_Win_lock_all(MPI_MODE_NOPUT, win);",
        after = &["MPI_Win_unlock_all(win);", "MPI_Win_free(&win);"]),
    // AR016: partitions (Open MPI 4.1 has no partitioned communication)
    Case {
        mpi: Some("mpich"),
        ..case!("AR016", "no-partitions", "MPI_Psend_init", ranks = 1,
            setup = &["MPI_Request req;"],
            "MPI_Psend_init(sbuf, 0, 1, MPI_INT, 0, 0, comm, MPI_INFO_NULL, &req);")
    },
    Case {
        mpi: Some("mpich"),
        ..case!("AR016", "partition-out-of-range", "MPI_Pready", ranks = 2,
            setup = PSEND_SETUP,
            "    MPI_Pready(4, req);",
            after = PSEND_AFTER)
    },
    Case {
        mpi: Some("mpich"),
        ..case!("AR016", "partition-out-of-range", "MPI_Pready_list", ranks = 2,
            setup = PSEND_SETUP,
            "    int parts[2] = {3, 4}; MPI_Pready_list(2, parts, req);",
            after = PSEND_AFTER)
    },
    Case {
        mpi: Some("mpich"),
        ..case!("AR016", "wildcard-source", "MPI_Precv_init", ranks = 2,
            setup = &[
                "MPI_Request req;",
                "if (rank == 0) {",
                "    MPI_Psend_init(sbuf, 4, 1, MPI_INT, 1, 0, comm, MPI_INFO_NULL, &req);",
                "    MPI_Start(&req);",
                "    MPI_Pready_range(0, 3, req);",
                "} else {",
            ],
            "    MPI_Precv_init(rbuf, 4, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, MPI_INFO_NULL, &req);",
            after = &["    MPI_Start(&req);", "}", "MPI_Wait(&req, MPI_STATUS_IGNORE);", "MPI_Request_free(&req);"])
    },
    Case {
        mpi: Some("mpich"),
        ..case!("AR016", "partition-out-of-range", "MPI_Parrived", ranks = 2,
            setup = &[
                "MPI_Request req;",
                "int arrived = 0;",
                "if (rank == 0) {",
                "    MPI_Psend_init(sbuf, 4, 1, MPI_INT, 1, 0, comm, MPI_INFO_NULL, &req);",
                "    MPI_Start(&req);",
                "    MPI_Pready_range(0, 3, req);",
                "    MPI_Wait(&req, MPI_STATUS_IGNORE);",
                "    MPI_Request_free(&req);",
                "} else {",
                "    MPI_Precv_init(rbuf, 4, 1, MPI_INT, 0, 0, comm, MPI_INFO_NULL, &req);",
                "    MPI_Start(&req);",
            ],
            "    MPI_Parrived(req, 4, &arrived);",
            after = &["    MPI_Wait(&req, MPI_STATUS_IGNORE);", "    MPI_Request_free(&req);", "}"])
    },
];

/// The file name of a case's program.
pub fn file_name(case: &Case) -> String {
    let function = case.function.trim_start_matches("MPI_").to_lowercase();
    format!(
        "{}_{}_{function}.c",
        case.code.to_lowercase(),
        case.what.replace('-', "_")
    )
}

/// The text of a case's program.
pub fn program(case: &Case) -> String {
    let mut text = String::new();
    let what = case.what.replace('-', " ");
    text += "/*\n";
    text += &format!(
        " * {}: {what} in {} (generated: do not edit).\n",
        case.code, case.function
    );
    text += " * Written by crates/mpicheck-programs-tests/src/generated.rs; regenerate with\n";
    text += " * MPICHECK_BLESS=1 cargo nextest run -p mpicheck-programs-tests --test generated.\n";
    text += " */\n";
    match case.mpi {
        Some(mpi) => text += &format!("/* mpicheck: ranks={} mpi={mpi} */\n", case.ranks),
        None => text += &format!("/* mpicheck: ranks={} */\n", case.ranks),
    }
    text += "#include <mpi.h>\n#include <stddef.h>\n\n";
    text += "int main(int argc, char **argv)\n{\n";
    text += "    int rank, size, sbuf[16] = {0}, rbuf[16] = {0}, counts[16], displs[16];\n";
    text += "    MPI_Comm comm = MPI_COMM_WORLD;\n";
    text += "    MPI_Init(&argc, &argv);\n";
    text += "    MPI_Comm_rank(comm, &rank);\n";
    text += "    MPI_Comm_size(comm, &size);\n";
    text += "    for (int i = 0; i < 16; i++) {\n        counts[i] = 1;\n        displs[i] = i;\n    }\n";
    for line in case.setup {
        text += &format!("    {line}\n");
    }
    text += &format!("    {} /* expect: {} */\n", case.call, case.code);
    for line in case.after {
        text += &format!("    {line}\n");
    }
    text += "    MPI_Finalize();\n    return 0;\n}\n";
    text
}

/// Every program of the suite: `(file name, text)`, sorted by name.
pub fn programs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = CASES.iter().map(|c| (file_name(c), program(c))).collect();
    out.sort();
    out
}
