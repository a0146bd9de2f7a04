//! The rule table: for each rule, the parameter kinds it judges, the check that reports it
//! and what it requires ([`KIND_RULES`]), and the functions of a schema each rule covers
//! (the docs' table of parameter kinds, `mpicheck explain`).

use mpicheck_trace::schema::{Direction, FunctionSchema, ParamShape};

use super::handles::{conversion, moves_data, null_forbidden, null_request_forbidden};
use super::topology::{topology_function, RequiredTopology};
use super::{arrays, asserts, partitions};

/// One rule of the table: the parameter kinds it applies to, the code that reports it and
/// what it requires.
pub struct KindRule {
    pub kinds: &'static [&'static str],
    pub code: &'static str,
    pub rule: &'static str,
}

/// Kinds of element counts and lengths that the standard declares non-negative.
pub const COUNT_KINDS: &[&str] = &[
    "POLYXFER_NUM_ELEM_NNI",
    "XFER_NUM_ELEM_NNI",
    "POLYDTYPE_NUM_ELEM_NNI",
    "ARRAY_LENGTH_NNI",
    "POLYNUM_BYTES_NNI",
    "DEGREE",
];

/// Every handle kind, for the freed-handle rule.
const HANDLE_KINDS: &[&str] = &[
    "COMMUNICATOR",
    "GROUP",
    "DATATYPE",
    "OPERATION",
    "WINDOW",
    "ERRHANDLER",
    "KEYVAL",
    "INFO",
    "FILE",
    "SESSION",
];

/// Handle kinds whose null handle AR004 judges: requests by call
/// ([`null_request_forbidden`]), the others by kind ([`null_forbidden`]).
pub(super) const NULL_HANDLE_KINDS: &[&str] = &[
    "COMMUNICATOR",
    "GROUP",
    "OPERATION",
    "WINDOW",
    "DATATYPE",
    "ERRHANDLER",
    "FILE",
    "INFO",
    "SESSION",
    "REQUEST",
];

/// The table the docs' parameter-kind table is generated from (`kind_table`).
pub const KIND_RULES: &[KindRule] = &[
    KindRule {
        kinds: &["RANK", "RANK_NNI"],
        code: "AR001",
        rule: "a peer rank (`dest`, `source`, `root`, the `rank` of a topology query) is a rank of the communicator (the remote group of an intercommunicator), or `MPI_PROC_NULL`; `MPI_ANY_SOURCE` for receives; `MPI_ROOT` or `MPI_PROC_NULL` as an intercommunicator root (an RMA `target_rank` is RM005's); every rank of a group's `ranks` or `ranges` is in the group, of a graph's `edges` in 0..`nnodes`-1, of a distributed graph's `sources` and `destinations` in the communicator",
    },
    KindRule {
        kinds: &["TAG"],
        code: "AR002",
        rule: "a tag is in 0..=`MPI_TAG_UB`; `MPI_ANY_TAG` for receives and probes",
    },
    KindRule {
        kinds: COUNT_KINDS,
        code: "AR003",
        rule: "a count, array length or graph degree, and every entry of an array of them, is not negative",
    },
    KindRule {
        kinds: NULL_HANDLE_KINDS,
        code: "AR004",
        rule: "not the kind's null handle (a request: not `MPI_REQUEST_NULL` for `MPI_Start`, `MPI_Cancel`, `MPI_Request_free`, `MPI_Pready*`, `MPI_Parrived`; `MPI_INFO_NULL` only in the `MPI_Info_*` calls on the info object; `MPI_FILE_NULL` except where it names the default file error handler)",
    },
    KindRule {
        kinds: HANDLE_KINDS,
        code: "AR005",
        rule: "not a handle this rank has freed",
    },
    KindRule {
        kinds: &["DATATYPE"],
        code: "AR006",
        rule: "a derived datatype that describes a buffer MPI reads or writes is committed",
    },
    KindRule {
        kinds: &["BUFFER"],
        code: "AR007",
        rule: "not `NULL` with a positive count of a predefined datatype",
    },
    KindRule {
        kinds: &["BUFFER"],
        code: "AR008",
        rule: "`MPI_IN_PLACE` only where the function accepts it: the send buffer of the collectives that allow it, the receive buffer of a scatter (at a non-root of a rooted collective CO004 reports it)",
    },
    KindRule {
        kinds: &["COLOR", "SPLIT_TYPE"],
        code: "AR011",
        rule: "a split color is not negative, or is `MPI_UNDEFINED`; a split type is `MPI_UNDEFINED` or one the library defines (`MPI_COMM_TYPE_SHARED`, ...)",
    },
    KindRule {
        kinds: &["NUM_DIMS", "DIMENSION", "COMM_SIZE", "INDEX", "COORDINATE"],
        code: "AR012",
        rule: "topology sizes are not negative, a cartesian grid has no more processes than its communicator, a graph's `index` is non-decreasing from 0, a cartesian `direction` is a dimension of the grid and a coordinate of `MPI_Cart_rank` inside it on a non-periodic dimension",
    },
    KindRule {
        kinds: &["COMMUNICATOR"],
        code: "AR013",
        rule: "the communicator of a cartesian (`MPI_Cart_*`), graph (`MPI_Graph_*`), distributed graph (`MPI_Dist_graph_neighbors*`) query or neighborhood collective has that topology",
    },
    KindRule {
        kinds: &["RANK"],
        code: "AR014",
        rule: "the ranks a group is made of or without (`MPI_Group_incl`, `MPI_Group_excl`, the ranks the triplets of `MPI_Group_range_incl`/`_excl` name) are distinct, and no triplet has stride 0",
    },
    KindRule {
        kinds: &["ASSERT"],
        code: "AR015",
        rule: "an RMA assertion holds only the `MPI_MODE_*` bits its call accepts: `MPI_MODE_NOCHECK` for `MPI_Win_start`, `MPI_Win_lock`, `MPI_Win_lock_all`; `NOCHECK`, `NOSTORE`, `NOPUT` for `MPI_Win_post`; `NOSTORE`, `NOPUT`, `NOPRECEDE`, `NOSUCCEED` for `MPI_Win_fence`",
    },
    KindRule {
        kinds: &["PARTITION"],
        code: "AR016",
        rule: "a partitioned request has at least one partition, and a partitioned receive no `MPI_ANY_SOURCE` or `MPI_ANY_TAG`; `MPI_Pready`, `MPI_Pready_range`, `MPI_Pready_list` and `MPI_Parrived` name partitions in 0..`partitions`-1 of their request; a send partition is marked ready only while its request is active (started, not completed), and once per epoch",
    },
];

/// Whether a rule judges a function: it has a parameter the rule looks at (the same
/// conditions as in [`judge`](super::judge), without the values).
fn rule_applies(rule: &KindRule, f: &FunctionSchema) -> bool {
    let short = f.name.strip_prefix("MPI_").unwrap_or(&f.name);
    if conversion(short) {
        return false;
    }
    let topology = RequiredTopology::of(short).is_some();
    f.params.iter().any(|p| {
        let (kind, name) = (p.kind.as_str(), p.name.as_str());
        let input = p.direction != Direction::Out;
        if !rule.kinds.contains(&kind) || !(input || kind == "BUFFER") {
            return false;
        }
        match (rule.code, kind) {
            ("AR001", _) => {
                matches!(name, "dest" | "source" | "root")
                    || (name == "rank" && topology)
                    || (arrays::RANK_ARRAYS.contains(&name) && p.shape == ParamShape::Array)
            }
            ("AR012", "INDEX") => matches!(short, "Graph_create" | "Graph_map" | "Cart_shift"),
            ("AR012", "COORDINATE") => short == "Cart_rank",
            ("AR015", _) => asserts::judged(short),
            ("AR014", _) => matches!(name, "ranks" | "ranges") && short.starts_with("Group_"),
            ("AR004", "REQUEST") => null_request_forbidden(short),
            ("AR016", _) => partitions::judged(short),
            ("AR004", _) => null_forbidden(short, kind),
            ("AR006", _) => moves_data(f, short),
            ("AR007", _) => matches!(
                name,
                "buf" | "buffer" | "sendbuf" | "recvbuf" | "origin_addr" | "result_addr"
            ),
            ("AR012", _) => topology_function(short),
            _ => true,
        }
    })
}

/// The number of functions of a schema that a rule judges.
pub fn functions_covered<'a>(
    functions: impl IntoIterator<Item = &'a FunctionSchema>,
    rule: &KindRule,
) -> usize {
    functions
        .into_iter()
        .filter(|f| {
            let short = f.name.strip_prefix("MPI_").unwrap_or(&f.name);
            if rule.code == "AR013" {
                return RequiredTopology::of(short).is_some();
            }
            rule_applies(rule, f)
        })
        .count()
}

/// The C functions the recorder records, from the function table the generator wrote
/// (`build.rs` extracts it from `wrappers.c`).
pub fn recorded_functions() -> Vec<FunctionSchema> {
    let text = include_str!(concat!(env!("OUT_DIR"), "/recorded_functions.txt"));
    let Ok(schema) = mpicheck_trace::Schema::parse(text) else {
        return Vec::new(); // a test keeps it parsing
    };
    (0..schema.len() as u16)
        .filter_map(|id| schema.function(id).cloned())
        .filter(|f| f.name.starts_with("MPI_"))
        .collect()
}

/// The recorded functions the rules of check `code` apply to, by name; `None` for a check
/// that is not a parameter-kind rule.
pub fn functions_of(code: &str) -> Option<Vec<String>> {
    let rules: Vec<&KindRule> = KIND_RULES.iter().filter(|r| r.code == code).collect();
    if rules.is_empty() {
        return None;
    }
    let functions = recorded_functions();
    Some(
        functions
            .iter()
            .filter(|f| rules.iter().any(|r| functions_covered([*f], r) == 1))
            .map(|f| f.name.clone())
            .collect(),
    )
}

/// The docs' table of parameter kinds: each rule, its kinds, its code and how many
/// functions of the API description it covers.
pub fn kind_table(functions: &[FunctionSchema]) -> String {
    let mut table =
        String::from("| parameter kinds | check | rule | functions |\n|---|---|---|---|\n");
    for rule in KIND_RULES {
        let kinds = rule
            .kinds
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        table += &format!(
            "| {kinds} | {} | {} | {} |\n",
            rule.code,
            rule.rule,
            functions_covered(functions, rule)
        );
    }
    table
}
