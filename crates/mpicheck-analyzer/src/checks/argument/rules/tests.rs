//! The argument rules on single calls, with a rank state made up for each test.

use super::*;
use crate::normalize::args::{ArgWords, WordLayout};
use mpicheck_trace::schema::{Direction, FunctionSchema, ParamShape, Schema};

/// Lines of the function table the recorder writes (`wrappers.c`), ids renumbered.
const SCHEMA: &str = "\
0 MPI_Gather sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcount:POLYXFER_NUM_ELEM_NNI:in:s recvtype:DATATYPE:in:s root:RANK:in:s comm:COMMUNICATOR:in:s
1 MPI_Gatherv sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcounts:POLYXFER_NUM_ELEM_NNI:in:a displs:POLYDISPLACEMENT:in:a recvtype:DATATYPE:in:s root:RANK:in:s comm:COMMUNICATOR:in:s
2 MPI_Scatter sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcount:POLYXFER_NUM_ELEM_NNI:in:s recvtype:DATATYPE:in:s root:RANK:in:s comm:COMMUNICATOR:in:s
3 MPI_Reduce sendbuf:BUFFER:in:s recvbuf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s op:OPERATION:in:s root:RANK:in:s comm:COMMUNICATOR:in:s
4 MPI_Comm_split comm:COMMUNICATOR:in:s color:COLOR:in:s key:KEY:in:s newcomm:COMMUNICATOR:out:s
5 MPI_Cart_create comm_old:COMMUNICATOR:in:s ndims:NUM_DIMS:in:s dims:DIMENSION:in:a periods:LOGICAL:in:a reorder:LOGICAL:in:s comm_cart:COMMUNICATOR:out:s
6 MPI_Cart_coords comm:COMMUNICATOR:in:s rank:RANK:in:s maxdims:ARRAY_LENGTH:in:s coords:COORDINATE:out:a
7 MPI_Dims_create nnodes:COMM_SIZE:in:s ndims:NUM_DIMS:in:s dims:DIMENSION:inout:a
8 MPI_Neighbor_allgather sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcount:POLYXFER_NUM_ELEM_NNI:in:s recvtype:DATATYPE:in:s comm:COMMUNICATOR:in:s
9 MPI_Alltoallv sendbuf:BUFFER:in:s sendcounts:POLYXFER_NUM_ELEM_NNI:in:a sdispls:POLYDISPLACEMENT:in:a sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcounts:POLYXFER_NUM_ELEM_NNI:in:a rdispls:POLYDISPLACEMENT:in:a recvtype:DATATYPE:in:s comm:COMMUNICATOR:in:s
10 MPI_Bcast buffer:BUFFER:inout:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s root:RANK:in:s comm:COMMUNICATOR:in:s
11 MPI_Irecv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
12 MPI_Isend_c buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s request:REQUEST:out:s
13 MPI_Get_accumulate origin_addr:BUFFER:in:s origin_count:POLYXFER_NUM_ELEM_NNI:in:s origin_datatype:DATATYPE:in:s result_addr:BUFFER:out:s result_count:POLYXFER_NUM_ELEM_NNI:in:s result_datatype:DATATYPE:in:s target_rank:RANK_NNI:in:s target_disp:RMA_DISPLACEMENT_NNI:in:s target_count:POLYXFER_NUM_ELEM_NNI:in:s target_datatype:DATATYPE:in:s op:OPERATION:in:s win:WINDOW:in:s
14 MPI_Type_size datatype:DATATYPE:in:s size:POLYXFER_NUM_ELEM:out:s
15 MPI_Start request:REQUEST:inout:s
16 MPI_Allgatherv sendbuf:BUFFER:in:s sendcount:POLYXFER_NUM_ELEM_NNI:in:s sendtype:DATATYPE:in:s recvbuf:BUFFER:out:s recvcounts:POLYXFER_NUM_ELEM_NNI:in:a displs:POLYDISPLACEMENT:in:a recvtype:DATATYPE:in:s comm:COMMUNICATOR:in:s
17 MPI_Intercomm_create local_comm:COMMUNICATOR:in:s local_leader:RANK:in:s peer_comm:COMMUNICATOR:in:s remote_leader:RANK:in:s tag:TAG:in:s newintercomm:COMMUNICATOR:out:s
18 MPI_Group_incl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranks:RANK:in:a newgroup:GROUP:out:s
19 MPI_Group_range_excl group:GROUP:in:s n:ARRAY_LENGTH:in:s ranges:RANK:in:a newgroup:GROUP:out:s
20 MPI_Graph_create comm_old:COMMUNICATOR:in:s nnodes:COMM_SIZE:in:s index:INDEX:in:a edges:RANK:in:a reorder:LOGICAL:in:s comm_graph:COMMUNICATOR:out:s
21 MPI_Dist_graph_create comm_old:COMMUNICATOR:in:s n:ARRAY_LENGTH_NNI:in:s sources:RANK_NNI:in:a degrees:DEGREE:in:a destinations:RANK_NNI:in:a weights:WEIGHT:in:a info:INFO:in:s reorder:LOGICAL:in:s comm_dist_graph:COMMUNICATOR:out:s
22 MPI_Dist_graph_create_adjacent comm_old:COMMUNICATOR:in:s indegree:DEGREE:in:s sources:RANK_NNI:in:a sourceweights:WEIGHT:in:a outdegree:DEGREE:in:s destinations:RANK_NNI:in:a destweights:WEIGHT:in:a info:INFO:in:s reorder:LOGICAL:in:s comm_dist_graph:COMMUNICATOR:out:s
23 MPI_Cart_shift comm:COMMUNICATOR:in:s direction:INDEX:in:s disp:DIMENSION:in:s rank_source:RANK:out:s rank_dest:RANK:out:s
24 MPI_Cart_rank comm:COMMUNICATOR:in:s coords:COORDINATE:in:a rank:RANK:out:s
25 MPI_Comm_split_type comm:COMMUNICATOR:in:s split_type:SPLIT_TYPE:in:s key:KEY:in:s info:INFO:in:s newcomm:COMMUNICATOR:out:s
26 MPI_Comm_set_errhandler comm:COMMUNICATOR:in:s errhandler:ERRHANDLER:in:s
27 MPI_Comm_set_info comm:COMMUNICATOR:in:s info:INFO:in:s
28 MPI_Info_get_nkeys info:INFO:in:s nkeys:INDEX:out:s
29 MPI_File_set_errhandler file:FILE:in:s errhandler:ERRHANDLER:in:s
30 MPI_File_get_size fh:FILE:in:s size:OFFSET:out:s
31 MPI_Info_free info:INFO:inout:s
32 MPI_Win_fence assert:ASSERT:in:s win:WINDOW:in:s
33 MPI_Win_start group:GROUP:in:s assert:ASSERT:in:s win:WINDOW:in:s
34 MPI_Win_post group:GROUP:in:s assert:ASSERT:in:s win:WINDOW:in:s
35 MPI_Graph_map comm:COMMUNICATOR:in:s nnodes:ARRAY_LENGTH:in:s index:INDEX:in:a edges:RANK:in:a newrank:RANK:out:s
36 MPI_Psend_init buf:BUFFER:in:s partitions:PARTITION:in:s count:XFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s info:INFO:in:s request:REQUEST:out:s
37 MPI_Precv_init buf:BUFFER:in:s partitions:PARTITION:in:s count:XFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s info:INFO:in:s request:REQUEST:out:s
38 MPI_Pready partition:PARTITION:in:s request:REQUEST:in:s
39 MPI_Pready_range partition_low:PARTITION:in:s partition_high:PARTITION:in:s request:REQUEST:in:s
40 MPI_Pready_list length:ARRAY_LENGTH:in:s array_of_partitions:PARTITION:in:a request:REQUEST:in:s
41 MPI_Parrived request:REQUEST:in:s partition:PARTITION:in:s flag:LOGICAL:out:s
";

const WORLD: i64 = 100;
const COMM_NULL: i64 = 101;
const CART: i64 = 200;
/// A 2x2 grid, periodic in dimension 0 only.
const TORUS: i64 = 201;
const INTER: i64 = 300;
const INT: i64 = 1;
const TYPE_NULL: i64 = 0;
const OP_NULL: i64 = 10;
const SUM: i64 = 11;
const NO_OP: i64 = 12;
const FREED_TYPE: i64 = 7;
const NEW_TYPE: i64 = 8;
const IN_PLACE: i64 = -1;
const UNDEFINED: i64 = -32766;
const PROC_NULL: i64 = -3;
const ROOT: i64 = -4;
/// A group of 4 processes, and one whose size the rank does not know.
const GROUP4: i64 = 400;
const GROUP_UNKNOWN: i64 = 401;
const ERRHANDLER_NULL: i64 = 500;
const INFO_NULL: i64 = 501;
const FILE_NULL: i64 = 502;

/// A rank of a 4-process world (rank `me`) with a 1-d grid of 4, a 2x2 torus and a 2-to-3
/// intercommunicator.
struct State {
    me: u32,
    constants: ArgConstants,
    line: CartShape,
    torus: CartShape,
    partitioned: std::collections::HashMap<i64, PartitionedRequest>,
}

impl State {
    fn rank(me: u32) -> State {
        State {
            me,
            constants: ArgConstants {
                proc_null: Some(PROC_NULL),
                any_source: Some(-2),
                any_tag: Some(-1),
                tag_ub: Some(32767),
                in_place: Some(IN_PLACE),
                mpi_root: Some(ROOT),
                undefined: Some(UNDEFINED),
                request_null: Some(0),
                no_op: Some(NO_OP),
                rma_modes: vec![
                    ("MPI_MODE_NOCHECK", 1024),
                    ("MPI_MODE_NOSTORE", 2048),
                    ("MPI_MODE_NOPUT", 4096),
                    ("MPI_MODE_NOPRECEDE", 8192),
                    ("MPI_MODE_NOSUCCEED", 16384),
                ],
                split_types: Some(vec![1, 2, 3]),
            },
            line: CartShape {
                dims: vec![4],
                periods: vec![false],
            },
            torus: CartShape {
                dims: vec![2, 2],
                periods: vec![true, false],
            },
            partitioned: std::collections::HashMap::new(),
        }
    }
}

impl ArgState for State {
    fn constants(&self) -> &ArgConstants {
        &self.constants
    }
    fn partitioned(&self, raw: i64) -> Option<&PartitionedRequest> {
        self.partitioned.get(&raw)
    }
    fn handle(&self, kind: ObjectKind, raw: i64) -> HandleState {
        match (kind, raw) {
            (ObjectKind::Datatype, TYPE_NULL)
            | (ObjectKind::Op, OP_NULL)
            | (ObjectKind::Communicator, COMM_NULL)
            | (ObjectKind::Errhandler, ERRHANDLER_NULL)
            | (ObjectKind::Info, INFO_NULL)
            | (ObjectKind::File, FILE_NULL) => HandleState::Null,
            (ObjectKind::Datatype, FREED_TYPE) => HandleState::Freed,
            (ObjectKind::Datatype, NEW_TYPE) => HandleState::Uncommitted,
            _ => HandleState::Usable,
        }
    }
    fn comm(&self, raw: i64) -> Option<CommView> {
        let view = CommView {
            size: 4,
            remote_size: None,
            my_rank: Some(self.me),
        };
        match raw {
            WORLD | CART | TORUS => Some(view),
            INTER => Some(CommView {
                size: 2,
                remote_size: Some(3),
                my_rank: Some(0),
            }),
            _ => None,
        }
    }
    fn comm_topology(&self, raw: i64) -> Option<Option<TopologyKind>> {
        match raw {
            WORLD | INTER => Some(None),
            CART => Some(Some(TopologyKind::Cart { ndims: 1 })),
            TORUS => Some(Some(TopologyKind::Cart { ndims: 2 })),
            _ => None,
        }
    }
    fn predefined_datatype(&self, raw: i64) -> bool {
        raw == INT
    }
    fn group_size(&self, raw: i64) -> Option<u32> {
        (raw == GROUP4).then_some(4)
    }
    fn cart_shape(&self, raw: i64) -> Option<&CartShape> {
        match raw {
            CART => Some(&self.line),
            TORUS => Some(&self.torus),
            _ => None,
        }
    }
}

enum V {
    I(i64),
    A(&'static [i64]),
}

/// The problems `judge` finds in a call of function `func` with these input values (output
/// buffers' addresses included), on rank `me`.
fn problems(me: u32, func: u16, values: &[V]) -> Vec<(&'static str, ArgProblem)> {
    judge_with(&State::rank(me), func, values)
}

/// The problems of one call judged with a given rank state.
fn judge_with(state: &State, func: u16, values: &[V]) -> Vec<(&'static str, ArgProblem)> {
    let schema = Schema::parse(SCHEMA).unwrap();
    let function = schema.function(func).unwrap();
    assert_eq!(function.params.len(), values.len(), "{}", function.name);
    // The words of the call: each value where its parameter's input or output goes (an
    // `inout` parameter's output repeats its input).
    let mut words = Vec::new();
    for (p, v) in function.params.iter().zip(values) {
        let times = if p.direction == Direction::InOut {
            2
        } else {
            1
        };
        for _ in 0..times {
            match (v, p.shape) {
                (I(i), ParamShape::Status) => words.extend([*i, 0, 0, 0]),
                (I(i), _) => words.push(*i),
                (A(a), _) => {
                    words.push(a.len() as i64);
                    words.extend_from_slice(a);
                }
            }
        }
    }
    let short = function.name.strip_prefix("MPI_").unwrap();
    let plan = RulePlan::of(function, short);
    let layout = WordLayout::of(function);
    let mut room = Vec::new();
    let slots = layout.slots(&words, &mut room);
    let call = CallArgs {
        function,
        short,
        plan: &plan,
        values: ArgWords::new(&layout, slots, &words, true),
    };
    judge(&call, state)
        .into_iter()
        .map(|i| (i.param, i.problem))
        .collect()
}

use V::{A, I};

#[test]
fn counts_of_rooted_collectives_are_judged_where_significant() {
    // MPI_Gather: the send count everywhere, the receive count at the root only.
    let gather = |me, sendcount, recvcount| {
        problems(
            me,
            0,
            &[
                I(0x10),
                I(sendcount),
                I(INT),
                I(0x20),
                I(recvcount),
                I(INT),
                I(1),
                I(WORLD),
            ],
        )
    };
    assert_eq!(
        gather(0, -1, 1),
        vec![("sendcount", ArgProblem::NegativeCount { value: -1 })]
    );
    assert_eq!(gather(0, 1, -1), vec![], "recvcount is the root's");
    assert_eq!(
        gather(1, 1, -3),
        vec![("recvcount", ArgProblem::NegativeCount { value: -3 })]
    );
    // Arrays of counts: every entry, at the root of MPI_Gatherv, everywhere in Alltoallv.
    let gatherv = |me| {
        problems(
            me,
            1,
            &[
                I(0x10),
                I(1),
                I(INT),
                I(0x20),
                A(&[1, -2, 1, 1]),
                A(&[0, 1, 2, 3]),
                I(INT),
                I(0),
                I(WORLD),
            ],
        )
    };
    assert_eq!(
        gatherv(0),
        vec![("recvcounts", ArgProblem::NegativeCount { value: -2 })]
    );
    assert_eq!(gatherv(2), vec![]);
    assert_eq!(
        problems(
            3,
            9,
            &[
                I(0x10),
                A(&[1, 1, -1, 1]),
                A(&[0; 4]),
                I(INT),
                I(0x20),
                A(&[1; 4]),
                A(&[0; 4]),
                I(INT),
                I(WORLD)
            ]
        ),
        vec![("sendcounts", ArgProblem::NegativeCount { value: -1 })]
    );
}

#[test]
fn in_place_makes_the_ignored_counts_and_types_anything() {
    // MPI_Scatter at the root with MPI_IN_PLACE as the receive buffer.
    let scatter = |me, recvbuf| {
        problems(
            me,
            2,
            &[
                I(0x10),
                I(1),
                I(INT),
                I(recvbuf),
                I(-1),
                I(TYPE_NULL),
                I(0),
                I(WORLD),
            ],
        )
    };
    assert_eq!(scatter(0, IN_PLACE), vec![]);
    // Elsewhere the receive count is significant (MPI_IN_PLACE at a non-root is CO004's).
    assert_eq!(
        scatter(1, 0x30),
        vec![
            ("recvcount", ArgProblem::NegativeCount { value: -1 }),
            (
                "recvtype",
                ArgProblem::NullHandle {
                    kind: ObjectKind::Datatype
                }
            ),
        ]
    );
    // MPI_Allgatherv: IN_PLACE send buffer, send count and type ignored.
    assert_eq!(
        problems(
            1,
            16,
            &[
                I(IN_PLACE),
                I(-5),
                I(TYPE_NULL),
                I(0x20),
                A(&[1; 4]),
                A(&[0, 1, 2, 3]),
                I(INT),
                I(WORLD)
            ]
        ),
        vec![]
    );
    // MPI_Bcast never takes it.
    assert_eq!(
        problems(0, 10, &[I(IN_PLACE), I(1), I(INT), I(0), I(WORLD)]),
        vec![("buffer", ArgProblem::InPlaceNotAllowed)]
    );
}

#[test]
fn null_handles_of_every_collective_and_call() {
    let reduce = |me, op, datatype| {
        problems(
            me,
            3,
            &[I(0x10), I(0x20), I(1), I(datatype), I(op), I(0), I(WORLD)],
        )
    };
    assert_eq!(
        reduce(2, OP_NULL, INT),
        vec![(
            "op",
            ArgProblem::NullHandle {
                kind: ObjectKind::Op
            }
        )]
    );
    assert_eq!(
        reduce(0, SUM, TYPE_NULL),
        vec![(
            "datatype",
            ArgProblem::NullHandle {
                kind: ObjectKind::Datatype
            }
        )]
    );
    assert_eq!(reduce(0, SUM, INT), vec![]);
    // A null communicator: the rank's role is not known, the communicator is wrong.
    assert_eq!(
        problems(
            1,
            3,
            &[I(0x10), I(0x20), I(-1), I(INT), I(SUM), I(0), I(COMM_NULL)]
        ),
        vec![(
            "comm",
            ArgProblem::NullHandle {
                kind: ObjectKind::Communicator
            }
        )]
    );
    // A query: MPI_Type_size of a freed and of a null type.
    assert_eq!(
        problems(0, 14, &[I(FREED_TYPE), I(0)]),
        vec![(
            "datatype",
            ArgProblem::FreedHandle {
                kind: ObjectKind::Datatype
            }
        )]
    );
    assert_eq!(
        problems(0, 14, &[I(TYPE_NULL), I(0)]),
        vec![(
            "datatype",
            ArgProblem::NullHandle {
                kind: ObjectKind::Datatype
            }
        )]
    );
    // Uncommitted: only where it describes a buffer.
    assert_eq!(problems(0, 14, &[I(NEW_TYPE), I(0)]), vec![]);
    assert_eq!(
        problems(
            0,
            12,
            &[I(0x10), I(1), I(NEW_TYPE), I(1), I(0), I(WORLD), I(0)]
        ),
        vec![("datatype", ArgProblem::UncommittedDatatype)]
    );
    assert_eq!(
        problems(0, 15, &[I(0)]),
        vec![(
            "request",
            ArgProblem::NullHandle {
                kind: ObjectKind::Request
            }
        )]
    );
}

#[test]
fn mpi_no_op_makes_the_origin_buffer_of_get_accumulate_anything() {
    let get_accumulate = |op, origin_type| {
        problems(
            0,
            13,
            &[
                I(0),
                I(-1),
                I(origin_type),
                I(0x20),
                I(1),
                I(INT),
                I(1),
                I(0),
                I(1),
                I(INT),
                I(op),
                I(5),
            ],
        )
    };
    assert_eq!(get_accumulate(NO_OP, TYPE_NULL), vec![]);
    assert_eq!(
        get_accumulate(SUM, INT),
        vec![("origin_count", ArgProblem::NegativeCount { value: -1 })]
    );
}

#[test]
fn peers_tags_and_buffers_of_point_to_point_calls() {
    // Large-count forms follow the same rules.
    assert_eq!(
        problems(0, 12, &[I(0), I(2), I(INT), I(4), I(-1), I(WORLD), I(0)]),
        vec![
            ("buf", ArgProblem::NullBuffer { count: 2 }),
            ("dest", ArgProblem::RankOutOfRange { value: 4, size: 4 }),
            (
                "tag",
                ArgProblem::InvalidTag {
                    value: -1,
                    tag_ub: Some(32767)
                }
            ),
        ]
    );
    // A receive: MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL; the remote group of an
    // intercommunicator.
    assert_eq!(
        problems(
            0,
            11,
            &[I(0x10), I(1), I(INT), I(-2), I(-1), I(WORLD), I(0)]
        ),
        vec![]
    );
    assert_eq!(
        problems(
            0,
            11,
            &[I(0x10), I(1), I(INT), I(PROC_NULL), I(3), I(WORLD), I(0)]
        ),
        vec![]
    );
    assert_eq!(
        problems(0, 11, &[I(0x10), I(1), I(INT), I(2), I(3), I(INTER), I(0)]),
        vec![]
    );
    assert_eq!(
        problems(0, 11, &[I(0x10), I(1), I(INT), I(3), I(3), I(INTER), I(0)]),
        vec![("source", ArgProblem::RankOutOfRange { value: 3, size: 3 })]
    );
}

#[test]
fn intercommunicator_roots() {
    let bcast = |root, count| problems(0, 10, &[I(0x10), I(count), I(INT), I(root), I(INTER)]);
    assert_eq!(bcast(ROOT, 1), vec![]);
    assert_eq!(bcast(PROC_NULL, -7), vec![], "nothing is significant there");
    assert_eq!(bcast(2, 1), vec![]);
    assert_eq!(
        bcast(3, 1),
        vec![("root", ArgProblem::RankOutOfRange { value: 3, size: 3 })]
    );
}

#[test]
fn colors() {
    let split = |color| problems(0, 4, &[I(WORLD), I(color), I(-9), I(0)]);
    assert_eq!(split(0), vec![]);
    assert_eq!(split(UNDEFINED), vec![]);
    assert_eq!(
        split(-1),
        vec![("color", ArgProblem::InvalidColor { value: -1 })]
    );
}

#[test]
fn topology_sizes_and_grids() {
    let cart = |dims: &'static [i64]| {
        problems(
            0,
            5,
            &[
                I(WORLD),
                I(dims.len() as i64),
                A(dims),
                A(&[0, 0]),
                I(0),
                I(0),
            ],
        )
    };
    assert_eq!(cart(&[2, 2]), vec![]);
    assert_eq!(
        cart(&[2, -1]),
        vec![("dims", ArgProblem::InvalidTopology { value: -1 })]
    );
    assert_eq!(
        cart(&[4, 2]),
        vec![(
            "dims",
            ArgProblem::GridTooLarge {
                processes: 8,
                size: 4
            }
        )]
    );
    // MPI_Dims_create: zero entries are for it to choose; its dims are inout.
    assert_eq!(problems(0, 7, &[I(4), I(2), A(&[0, 0])]), vec![]);
    assert_eq!(
        problems(0, 7, &[I(4), I(-2), A(&[])]),
        vec![("ndims", ArgProblem::InvalidTopology { value: -2 })]
    );
}

#[test]
fn topology_calls_need_their_topology() {
    let coords = |comm, rank| problems(0, 6, &[I(comm), I(rank), I(1), A(&[0])]);
    assert_eq!(coords(CART, 3), vec![]);
    assert_eq!(
        coords(WORLD, 3),
        vec![("comm", ArgProblem::MissingTopology)]
    );
    assert_eq!(
        coords(CART, 4),
        vec![("rank", ArgProblem::RankOutOfRange { value: 4, size: 4 })]
    );
    assert_eq!(
        coords(999, 0),
        vec![],
        "a communicator the trace does not show"
    );
    let neighbors = |comm| {
        problems(
            0,
            8,
            &[I(0x10), I(1), I(INT), I(0x20), I(1), I(INT), I(comm)],
        )
    };
    assert_eq!(neighbors(CART), vec![]);
    assert_eq!(
        neighbors(WORLD),
        vec![("comm", ArgProblem::MissingTopology)]
    );
}

#[test]
fn the_kind_table_counts_the_functions_of_each_rule() {
    let schema = Schema::parse(SCHEMA).unwrap();
    let functions: Vec<FunctionSchema> = (0..schema.len() as u16)
        .filter_map(|id| schema.function(id).cloned())
        .collect();
    let table = kind_table(&functions);
    // AR011: MPI_Comm_split; AR013: MPI_Cart_coords and MPI_Neighbor_allgather.
    assert!(
        table.contains("| `COLOR`, `SPLIT_TYPE` | AR011 |"),
        "{table}"
    );
    let row = |code: &str| {
        table
            .lines()
            .find(|l| l.contains(&format!("| {code} |")))
            .unwrap()
            .rsplit('|')
            .nth(1)
            .unwrap()
            .trim()
            .to_string()
    };
    // Comm_split, Comm_split_type.
    assert_eq!(row("AR011"), "2");
    // AR013: ... and MPI_Cart_shift, MPI_Cart_rank.
    assert_eq!(row("AR013"), "4");
    // Cart_create, Dims_create, Graph_create, Cart_shift, Cart_rank, Graph_map.
    assert_eq!(row("AR012"), "6");
    // MPI_Group_incl, MPI_Group_range_excl.
    assert_eq!(row("AR014"), "2");
    assert_eq!(row("AR015"), "3"); // MPI_Win_fence, MPI_Win_start, MPI_Win_post
}

#[test]
fn leader_arguments_matter_at_the_leader_only() {
    // MPI_Intercomm_create: peer_comm, remote_leader and tag at the local leader (rank 0).
    let create = |me| problems(me, 17, &[I(WORLD), I(0), I(999), I(-8), I(-1), I(0)]);
    assert_eq!(create(1), vec![]);
    assert_eq!(
        create(0),
        vec![(
            "tag",
            ArgProblem::InvalidTag {
                value: -1,
                tag_ub: Some(32767)
            }
        )]
    );
}

#[test]
fn every_form_of_a_collective_is_that_collective() {
    for (short, base) in [
        ("Gather", "Gather"),
        ("Igatherv_c", "Gatherv"),
        ("Gather_init", "Gather"),
        ("Ibcast", "Bcast"),
        ("Ineighbor_alltoallv", "Neighbor_alltoallv"),
        ("Reduce_scatter_block_init_c", "Reduce_scatter_block"),
    ] {
        assert_eq!(collective_base(short), Some(base), "{short}");
    }
    assert_eq!(collective_base("Isend"), None);
    assert_eq!(collective_base("Irecv"), None);
}

#[test]
fn group_rank_lists_are_distinct_ranks_of_the_group() {
    let incl = |group, ranks: &'static [i64]| {
        problems(0, 18, &[I(group), I(ranks.len() as i64), A(ranks), I(0)])
    };
    assert_eq!(incl(GROUP4, &[3, 0, 1]), vec![]);
    let out = |value| ArgProblem::RankListOutOfRange {
        value,
        size: 4,
        of: "group",
    };
    assert_eq!(incl(GROUP4, &[0, 4]), vec![("ranks", out(4))]);
    assert_eq!(incl(GROUP4, &[-1]), vec![("ranks", out(-1))]);
    assert_eq!(
        incl(GROUP4, &[2, 1, 2]),
        vec![("ranks", ArgProblem::RepeatedRank { value: 2 })]
    );
    // A group of unknown size: only repeats are known wrong.
    assert_eq!(incl(GROUP_UNKNOWN, &[7, 9]), vec![]);
    assert_eq!(
        incl(GROUP_UNKNOWN, &[7, 7]),
        vec![("ranks", ArgProblem::RepeatedRank { value: 7 })]
    );

    let range_excl = |group, ranges: &'static [i64]| {
        problems(
            0,
            19,
            &[I(group), I(ranges.len() as i64 / 3), A(ranges), I(0)],
        )
    };
    // 0, 2 and 3, 1 (a negative stride): distinct, in the group.
    assert_eq!(range_excl(GROUP4, &[0, 3, 2, 3, 1, -2]), vec![]);
    // A range the other way names nothing.
    assert_eq!(range_excl(GROUP4, &[3, 0, 1]), vec![]);
    assert_eq!(
        range_excl(GROUP4, &[0, 1, 1, 2, 2, 0]),
        vec![("ranges", ArgProblem::ZeroStride { range: 1 })]
    );
    assert_eq!(
        range_excl(GROUP_UNKNOWN, &[0, 1, 0]),
        vec![("ranges", ArgProblem::ZeroStride { range: 0 })]
    );
    // 0, 2, 4: the last one is outside; `last` itself need not be a rank named.
    assert_eq!(range_excl(GROUP4, &[0, 4, 2]), vec![("ranges", out(4))]);
    assert_eq!(range_excl(GROUP4, &[0, 5, 2]), vec![("ranges", out(4))]);
    assert_eq!(range_excl(GROUP4, &[1, 4, 4]), vec![]);
    assert_eq!(
        range_excl(GROUP4, &[0, 2, 1, 2, 3, 1]),
        vec![("ranges", ArgProblem::RepeatedRank { value: 2 })]
    );
    // A huge range costs no more than the group.
    assert_eq!(
        range_excl(GROUP4, &[0, 2_147_483_647, 1]),
        vec![("ranges", out(4))]
    );
    assert_eq!(range_excl(GROUP_UNKNOWN, &[0, 2_147_483_647, 1]), vec![]);
}

#[test]
fn graph_arrays_are_offsets_and_nodes_of_the_graph() {
    let graph = |nnodes, index: &'static [i64], edges: &'static [i64]| {
        problems(
            0,
            20,
            &[I(WORLD), I(nnodes), A(index), A(edges), I(0), I(0)],
        )
    };
    // A ring of 3 nodes.
    assert_eq!(graph(3, &[2, 4, 6], &[1, 2, 0, 2, 0, 1]), vec![]);
    assert_eq!(
        graph(5, &[1, 2, 3, 4, 5], &[1, 0, 3, 2, 4]),
        vec![(
            "nnodes",
            ArgProblem::GridTooLarge {
                processes: 5,
                size: 4
            }
        )]
    );
    // MPI_Graph_map takes the same description.
    let map =
        |index: &'static [i64]| problems(0, 35, &[I(WORLD), I(2), A(index), A(&[1, 0]), I(0)]);
    assert_eq!(map(&[1, 2]), vec![]);
    assert_eq!(
        map(&[1, 0]),
        vec![(
            "index",
            ArgProblem::DecreasingIndex {
                position: 1,
                value: 0
            }
        )]
    );
    assert_eq!(
        graph(3, &[2, 1, 6], &[1, 2, 0, 2, 0, 1]),
        vec![(
            "index",
            ArgProblem::DecreasingIndex {
                position: 1,
                value: 1
            }
        )]
    );
    assert_eq!(
        graph(1, &[-1], &[]),
        vec![(
            "index",
            ArgProblem::DecreasingIndex {
                position: 0,
                value: -1
            }
        )]
    );
    assert_eq!(
        graph(3, &[2, 4, 6], &[1, 2, 0, 3, 0, 1]),
        vec![(
            "edges",
            ArgProblem::RankListOutOfRange {
                value: 3,
                size: 3,
                of: "graph"
            }
        )]
    );
}

#[test]
fn distributed_graph_ranks_are_ranks_of_the_communicator_and_degrees_not_negative() {
    let out = |value| ArgProblem::RankListOutOfRange {
        value,
        size: 4,
        of: "communicator",
    };
    let create = |sources: &'static [i64], degrees: &'static [i64], dest: &'static [i64]| {
        problems(
            0,
            21,
            &[
                I(WORLD),
                I(sources.len() as i64),
                A(sources),
                A(degrees),
                A(dest),
                I(0),
                I(0),
                I(0),
                I(0),
            ],
        )
    };
    assert_eq!(create(&[0, 3], &[1, 2], &[1, 0, 2]), vec![]);
    assert_eq!(create(&[0, 4], &[1, 1], &[1, 0]), vec![("sources", out(4))]);
    assert_eq!(
        create(&[0], &[-1], &[]),
        vec![("degrees", ArgProblem::NegativeCount { value: -1 })]
    );
    let adjacent = |indeg, sources: &'static [i64], outdeg, dest: &'static [i64]| {
        problems(
            0,
            22,
            &[
                I(WORLD),
                I(indeg),
                A(sources),
                I(0),
                I(outdeg),
                A(dest),
                I(0),
                I(0),
                I(0),
                I(0),
            ],
        )
    };
    assert_eq!(adjacent(1, &[3], 2, &[1, 2]), vec![]);
    assert_eq!(adjacent(1, &[1], 1, &[-5]), vec![("destinations", out(-5))]);
    assert_eq!(
        adjacent(-1, &[], 0, &[]),
        vec![("indegree", ArgProblem::NegativeCount { value: -1 })]
    );
}

#[test]
fn directions_and_coordinates_are_inside_the_grid() {
    let shift = |comm, direction| problems(0, 23, &[I(comm), I(direction), I(-3), I(0), I(0)]);
    assert_eq!(shift(TORUS, 1), vec![], "a negative displacement is fine");
    let outside = |value, dim, limit| ArgProblem::OutsideGrid { value, dim, limit };
    assert_eq!(shift(TORUS, 2), vec![("direction", outside(2, None, 2))]);
    assert_eq!(shift(CART, -1), vec![("direction", outside(-1, None, 1))]);
    assert_eq!(shift(WORLD, 5), vec![("comm", ArgProblem::MissingTopology)]);
    let rank = |comm, coords: &'static [i64]| problems(0, 24, &[I(comm), A(coords), I(0)]);
    assert_eq!(rank(CART, &[3]), vec![]);
    assert_eq!(rank(CART, &[4]), vec![("coords", outside(4, Some(0), 4))]);
    // Dimension 0 of the torus is periodic: any coordinate wraps.
    assert_eq!(rank(TORUS, &[-1, 1]), vec![]);
    assert_eq!(
        rank(TORUS, &[5, -1]),
        vec![("coords", outside(-1, Some(1), 2))]
    );
}

#[test]
fn split_types_are_not_negative_or_are_undefined() {
    let split = |split_type| problems(0, 25, &[I(WORLD), I(split_type), I(0), I(0), I(0)]);
    assert_eq!(split(1), vec![]);
    assert_eq!(split(UNDEFINED), vec![]);
    assert_eq!(
        split(-1),
        vec![("split_type", ArgProblem::InvalidColor { value: -1 })]
    );
    assert_eq!(
        split(0),
        vec![("split_type", ArgProblem::UndefinedSplitType { value: 0 })]
    );
    assert_eq!(
        split(4),
        vec![("split_type", ArgProblem::UndefinedSplitType { value: 4 })]
    );
}

#[test]
fn split_types_are_not_judged_without_the_library_s_list() {
    let mut state = State::rank(0);
    state.constants.split_types = None;
    assert_eq!(
        judge_with(&state, 25, &[I(WORLD), I(4), I(0), I(0), I(0)]),
        vec![]
    );
}

#[test]
fn null_error_handlers_files_and_infos_where_the_standard_forbids_them() {
    let null = |kind| ArgProblem::NullHandle { kind };
    assert_eq!(
        problems(0, 26, &[I(WORLD), I(ERRHANDLER_NULL)]),
        vec![("errhandler", null(ObjectKind::Errhandler))]
    );
    // MPI_INFO_NULL is "no hints" as an argument, not an info object to work on.
    assert_eq!(problems(0, 27, &[I(WORLD), I(INFO_NULL)]), vec![]);
    assert_eq!(
        problems(0, 28, &[I(INFO_NULL), I(0)]),
        vec![("info", null(ObjectKind::Info))]
    );
    assert_eq!(
        problems(0, 31, &[I(INFO_NULL)]),
        vec![("info", null(ObjectKind::Info))]
    );
    // MPI_FILE_NULL names the default error handler of files.
    assert_eq!(problems(0, 29, &[I(FILE_NULL), I(0x77)]), vec![]);
    assert_eq!(
        problems(0, 30, &[I(FILE_NULL), I(0)]),
        vec![("fh", null(ObjectKind::File))]
    );
}

#[test]
fn rma_assertions_hold_only_the_modes_of_their_call() {
    let (nocheck, nostore, noput, noprecede, nosucceed) = (1024, 2048, 4096, 8192, 16384);
    let fence = |a| problems(0, 32, &[I(a), I(0x99)]);
    let start = |a| problems(0, 33, &[I(GROUP4), I(a), I(0x99)]);
    let post = |a| problems(0, 34, &[I(GROUP4), I(a), I(0x99)]);
    let bad = |value, not_allowed: &[&'static str]| {
        vec![(
            "assert",
            ArgProblem::InvalidAssert {
                value,
                not_allowed: not_allowed.to_vec(),
            },
        )]
    };
    assert_eq!(fence(0), vec![]);
    assert_eq!(fence(noprecede | nostore | noput), vec![]);
    assert_eq!(fence(nosucceed), vec![]);
    assert_eq!(fence(nocheck), bad(nocheck, &["MPI_MODE_NOCHECK"]));
    assert_eq!(start(nocheck), vec![]);
    assert_eq!(
        start(noprecede | nocheck),
        bad(noprecede | nocheck, &["MPI_MODE_NOPRECEDE"])
    );
    assert_eq!(post(nocheck | nostore | noput), vec![]);
    assert_eq!(post(1), bad(1, &["bits of no MPI_MODE_* value"]));
    assert_eq!(
        post(-1),
        bad(
            -1,
            &[
                "MPI_MODE_NOPRECEDE",
                "MPI_MODE_NOSUCCEED",
                "bits of no MPI_MODE_* value"
            ]
        )
    );
}

mod partitions;
