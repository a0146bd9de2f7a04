//! Object lifecycles and argument problems of one rank's calls, from raw handles.
//!
//! While a rank's trace is replayed, every handle a call returns in an output parameter of
//! a handle kind (`newcomm`, `newtype`, `op`, `info`, ...) becomes an [`ObjectId`] of that
//! rank, and the `*_free` calls retire it. Only live handles (and the raw values of freed
//! ones, to recognize a later use) are kept, so the state stays bounded by what the
//! program holds at once, not by how many objects it made over its life.
//!
//! Arguments are judged from their input words, which the recorder writes before the MPI
//! library is called: a call that makes the library abort still has them in the trace.

use std::collections::{HashMap, HashSet};

use mpicheck_trace::schema::{decode_args, Direction};
use mpicheck_trace::{ArgValue, CallRecord, FunctionSchema, Trace};

use super::{parse_int, Args, LocalComm, RankNormalizer};
use crate::model::*;

/// The constants the lifecycle and argument rules need, from a trace's constants record.
#[derive(Default)]
pub(super) struct FactConstants {
    /// `*_NULL` handle of each kind.
    nulls: HashMap<ObjectKind, i64>,
    /// Predefined handles of any kind: never created nor freed by the program.
    predefined: HashSet<i64>,
    tag_ub: Option<i64>,
    in_place: Option<i64>,
    bsend_overhead: Option<i64>,
    mpi_root: Option<i64>,
}

impl FactConstants {
    pub(super) fn of(trace: &Trace) -> FactConstants {
        let get = |name: &str| trace.constant(name).and_then(parse_int);
        let mut nulls = HashMap::new();
        for (kind, name) in [
            (ObjectKind::Communicator, "MPI_COMM_NULL"),
            (ObjectKind::Group, "MPI_GROUP_NULL"),
            (ObjectKind::Datatype, "MPI_DATATYPE_NULL"),
            (ObjectKind::Op, "MPI_OP_NULL"),
            (ObjectKind::Window, "MPI_WIN_NULL"),
            (ObjectKind::Errhandler, "MPI_ERRHANDLER_NULL"),
            (ObjectKind::Info, "MPI_INFO_NULL"),
            (ObjectKind::File, "MPI_FILE_NULL"),
            (ObjectKind::Session, "MPI_SESSION_NULL"),
            (ObjectKind::Request, "MPI_REQUEST_NULL"),
            (ObjectKind::Keyval, "MPI_KEYVAL_INVALID"),
        ] {
            if let Some(v) = get(name) {
                nulls.insert(kind, v);
            }
        }
        let mut predefined = HashSet::new();
        for (name, value) in &trace.constants {
            let handle = name.starts_with("DATATYPE.")
                || name.starts_with("OP.")
                || name.starts_with("HANDLE.")
                || matches!(name.as_str(), "MPI_COMM_WORLD" | "MPI_COMM_SELF");
            if let (true, Some(v)) = (handle, parse_int(value)) {
                predefined.insert(v);
            }
        }
        FactConstants {
            nulls,
            predefined,
            tag_ub: get("MPI_TAG_UB_VALUE"),
            in_place: get("MPI_IN_PLACE"),
            bsend_overhead: get("MPI_BSEND_OVERHEAD"),
            mpi_root: get("MPI_ROOT"),
        }
    }
}

/// One rank's live objects.
#[derive(Default)]
pub(super) struct ObjectTables {
    pub(super) constants: FactConstants,
    /// Live objects by kind and raw handle; `bool`: a datatype that was committed.
    live: HashMap<(ObjectKind, i64), (ObjectId, bool)>,
    /// Size and extent of committed derived datatypes, by raw handle (live ones).
    layouts: HashMap<i64, (i64, i64)>,
    /// `MPI_Init*` (or `MPI_Session_init`) was called.
    initialized: bool,
    /// Raw handles of freed objects not since handed out again.
    freed: HashSet<(ObjectKind, i64)>,
    next: u32,
}

impl ObjectTables {
    pub(super) fn new(trace: &Trace) -> ObjectTables {
        ObjectTables {
            constants: FactConstants::of(trace),
            ..Default::default()
        }
    }

    /// Size and extent of a committed datatype (from `MPICHECK_Type_info`).
    pub(super) fn note_layout(&mut self, raw: i64, size: i64, extent: i64) {
        self.layouts.insert(raw, (size, extent));
    }

    /// Live objects right now (for tests and benchmarks of bounded state).
    #[cfg(test)]
    pub(super) fn live_count(&self) -> usize {
        self.live.len()
    }
}

/// Calls valid whether or not MPI is initialized (MPI 4.1 §11.2.1 and §11.2.2, plus the
/// tool interface and the mpicheck pseudo-calls).
pub(crate) fn allowed_anytime(call: &str) -> bool {
    matches!(
        call,
        "MPI_Initialized"
            | "MPI_Finalized"
            | "MPI_Get_version"
            | "MPI_Get_library_version"
            | "MPI_Wtime"
            | "MPI_Wtick"
            | "MPI_Abort"
            | "MPI_Add_error_class"
            | "MPI_Add_error_code"
            | "MPI_Add_error_string"
            | "MPI_Error_class"
            | "MPI_Error_string"
            | "MPI_Remove_error_class"
            | "MPI_Remove_error_code"
            | "MPI_Remove_error_string"
    ) || call.starts_with("MPI_Info_")
        || call.starts_with("MPI_Session_")
        || call.starts_with("MPI_T_")
        || call.starts_with("MPICHECK_")
}

/// The object kind of a Forum parameter kind.
fn object_kind(forum_kind: &str) -> Option<ObjectKind> {
    Some(match forum_kind {
        "COMMUNICATOR" => ObjectKind::Communicator,
        "GROUP" => ObjectKind::Group,
        "DATATYPE" => ObjectKind::Datatype,
        "OPERATION" => ObjectKind::Op,
        "WINDOW" => ObjectKind::Window,
        "ERRHANDLER" => ObjectKind::Errhandler,
        "KEYVAL" => ObjectKind::Keyval,
        "INFO" => ObjectKind::Info,
        "FILE" => ObjectKind::File,
        "SESSION" => ObjectKind::Session,
        _ => return None,
    })
}

/// Calls whose handle-kind inout parameter is the object they free.
fn frees(short: &str) -> bool {
    short.ends_with("_free")
        || short.ends_with("_free_keyval")
        || matches!(short, "Comm_disconnect" | "File_close" | "Session_finalize")
}

/// Calls whose output handles are not new objects the program must free.
fn returns_borrowed(short: &str) -> bool {
    short.starts_with("Type_create_f90_")
        || matches!(
            short,
            "Type_match_size" | "Comm_get_parent" | "Type_get_contents" | "Type_get_envelope"
        )
        || short.ends_with("_f2c")
        || short.ends_with("_fromint")
}

/// Kinds whose `*_NULL` is an error wherever an input of that kind is expected (in the calls
/// checked). `MPI_INFO_NULL`, `MPI_ERRHANDLER_NULL` and `MPI_FILE_NULL` are valid arguments of
/// many calls, and datatypes are checked only where they describe a buffer that is used.
fn null_is_error(kind: ObjectKind) -> bool {
    matches!(
        kind,
        ObjectKind::Communicator | ObjectKind::Group | ObjectKind::Op | ObjectKind::Window
    )
}

/// Point-to-point operations: every argument is significant on the calling rank.
fn point_to_point(op: &Op) -> bool {
    matches!(
        op,
        Op::Send { .. } | Op::Recv { .. } | Op::Sendrecv { .. } | Op::Probe { .. }
    )
}

/// Data-moving collectives whose counts and types are significant on every rank.
fn collective_everywhere(op: &Op) -> bool {
    use CollectiveKind::*;
    matches!(
        op,
        Op::Collective {
            kind: Bcast
                | Allgather
                | Allreduce
                | Alltoall
                | ReduceScatterBlock
                | Scan
                | Exscan
                | NeighborAllgather
                | NeighborAlltoall,
            ..
        }
    )
}

impl RankNormalizer<'_> {
    /// The facts of one call; `op` is what the call was normalized to.
    pub(super) fn call_facts(
        &mut self,
        function: &FunctionSchema,
        args: &Args,
        call: &CallRecord,
        op: &Op,
        short: &str,
    ) -> Option<Box<CallFacts>> {
        let mut facts = CallFacts::default();
        if matches!(op, Op::Init { .. }) || short.starts_with("Session_init") {
            self.objects.initialized = true;
        } else if !self.objects.initialized && !allowed_anytime(&function.name) {
            facts.arg_issues.push(ArgIssue {
                param: "",
                problem: ArgProblem::BeforeInit,
            });
        }
        self.argument_issues(function, args, call, op, short, &mut facts);
        self.lifecycle(function, args, short, call.ret, &mut facts);
        if matches!(op, Op::Other) {
            // Requests of calls the model has no operation for (MPI_Rput, MPI_File_iwrite,
            // MPI_Grequest_start, partitioned and persistent RMA/IO requests).
            if let Some(raw) = args.out_int("request") {
                if Some(raw) != self.constants.request_null {
                    let persistent = short.contains("_init");
                    let id = self.new_request(Some(raw), persistent, None, None);
                    facts.other_requests.push(id);
                }
            }
        }
        if let Op::Send {
            send:
                SendSpec {
                    mode: SendMode::Buffered,
                    count,
                    datatype: Some(datatype),
                    ..
                },
            ..
        } = op
        {
            let size = self.tables.datatypes[datatype.0 as usize].size;
            if let (Some(size), Some(overhead)) = (size, self.objects.constants.bsend_overhead) {
                facts.bsend_bytes = Some(count.saturating_mul(size as i64) + overhead);
            }
        }
        (facts != CallFacts::default()).then(|| Box::new(facts))
    }

    fn lifecycle(
        &mut self,
        function: &FunctionSchema,
        args: &Args,
        short: &str,
        ret: i32,
        facts: &mut CallFacts,
    ) {
        let freeing = frees(short);
        // A call that returned an error (MPI_SUCCESS is 0 in every ABI) made nothing, whatever
        // its output handle holds (ROMIO's MPI_File_open leaves it unset).
        let failed = ret != 0;
        let borrowed = returns_borrowed(short);
        for (param, (input, output)) in function.params.iter().zip(&args.values) {
            let Some(kind) = object_kind(&param.kind) else {
                continue;
            };
            if short == "Type_commit" {
                if let Some(raw) = input.as_int() {
                    if let Some(entry) = self.objects.live.get_mut(&(kind, raw)) {
                        entry.1 = true;
                    }
                }
                continue;
            }
            if freeing && param.direction == Direction::InOut {
                if let Some(raw) = input.as_int() {
                    if kind == ObjectKind::Datatype {
                        self.objects.layouts.remove(&raw);
                    }
                    if let Some((id, _)) = self.objects.live.remove(&(kind, raw)) {
                        facts.freed.push(ObjectRef { kind, id });
                        self.objects.freed.insert((kind, raw));
                    }
                }
                continue;
            }
            if failed || borrowed || param.direction != Direction::Out {
                continue;
            }
            let Some(raw) = output.as_int() else { continue };
            if self.objects.constants.nulls.get(&kind) == Some(&raw)
                || self.objects.constants.predefined.contains(&raw)
            {
                continue;
            }
            let id = ObjectId(self.objects.next);
            self.objects.next += 1;
            self.objects.freed.remove(&(kind, raw));
            // A handle still live under this raw value was lost track of (its free was not
            // recorded): the new object replaces it.
            self.objects.live.insert((kind, raw), (id, false));
            facts.created.push(ObjectRef { kind, id });
        }
    }

    fn argument_issues(
        &mut self,
        function: &FunctionSchema,
        args: &Args,
        call: &CallRecord,
        op: &Op,
        short: &str,
        facts: &mut CallFacts,
    ) {
        let issue = |facts: &mut CallFacts, param: &str, problem: ArgProblem| {
            facts.arg_issues.push(ArgIssue {
                param: super::intern(param),
                problem,
            });
        };
        let p2p = point_to_point(op);
        let data_collective = collective_everywhere(op);
        let rooted_collective = matches!(op, Op::Collective { kind, .. } if *kind != CollectiveKind::Management)
            && !data_collective;
        let conversion = short.ends_with("_c2f")
            || short.ends_with("_f2c")
            || short.ends_with("_toint")
            || short.ends_with("_fromint");
        let comm = args
            .int("comm")
            .and_then(|raw| self.comms.get(&raw).cloned());

        // With MPI_IN_PLACE as the send buffer, the send count and type are ignored.
        let in_place_send =
            args.int("sendbuf").is_some() && args.int("sendbuf") == self.objects.constants.in_place;
        let ignored = |name: &str| {
            in_place_send && matches!(name, "sendcount" | "sendtype" | "sendcounts" | "sendtypes")
        };

        // Handles: null where a valid object is needed, freed, uncommitted.
        for (param, (input, _)) in function.params.iter().zip(&args.values) {
            if param.direction == Direction::Out || conversion || ignored(&param.name) {
                continue;
            }
            let Some(raw) = input.as_int() else { continue };
            if param.kind == "REQUEST" {
                if matches!(short, "Start" | "Request_free" | "Cancel")
                    && Some(raw) == self.constants.request_null
                {
                    issue(
                        facts,
                        &param.name,
                        ArgProblem::NullHandle {
                            kind: ObjectKind::Request,
                        },
                    );
                }
                continue;
            }
            let Some(kind) = object_kind(&param.kind) else {
                continue;
            };
            let is_null = self.objects.constants.nulls.get(&kind) == Some(&raw);
            let datatype_used = kind == ObjectKind::Datatype && (p2p || data_collective);
            if is_null {
                let optional = param.name == "peer_comm" // significant only at the leaders
                    || (kind == ObjectKind::Datatype && !datatype_used);
                if !optional && (null_is_error(kind) || datatype_used) {
                    issue(facts, &param.name, ArgProblem::NullHandle { kind });
                }
                continue;
            }
            if !self.objects.live.contains_key(&(kind, raw))
                && self.objects.freed.contains(&(kind, raw))
            {
                issue(facts, &param.name, ArgProblem::FreedHandle { kind });
                continue;
            }
            if datatype_used && self.objects.live.get(&(kind, raw)).is_some_and(|e| !e.1) {
                issue(facts, &param.name, ArgProblem::UncommittedDatatype);
            }
        }

        // Counts that must not be negative: everywhere except the arguments of rooted
        // collectives, which are significant on some ranks only.
        if !rooted_collective {
            for (param, (input, _)) in function.params.iter().zip(&args.values) {
                let count_kind = param.kind.ends_with("_NUM_ELEM_NNI")
                    || param.kind == "ARRAY_LENGTH_NNI"
                    || param.kind == "POLYNUM_BYTES_NNI";
                if ignored(&param.name) {
                    continue;
                }
                if let (true, Direction::In, Some(v)) =
                    (count_kind, param.direction, input.as_int())
                {
                    if v < 0 {
                        issue(facts, &param.name, ArgProblem::NegativeCount { value: v });
                    }
                }
            }
        }

        if p2p {
            self.peer_and_tag_issues(args, short, comm.as_ref(), facts);
            // Buffers: addresses are written on entry even for output buffers.
            let entry_words = decode_args(function, &call.words, true);
            let buffer = |name: &str| -> Option<i64> {
                let i = function.params.iter().position(|p| p.name == name)?;
                match &entry_words[i] {
                    (ArgValue::Int(v), _) | (_, ArgValue::Int(v)) => Some(*v),
                    _ => None,
                }
            };
            for (buf, count, datatype) in [
                ("buf", "count", "datatype"),
                ("sendbuf", "sendcount", "sendtype"),
                ("recvbuf", "recvcount", "recvtype"),
            ] {
                let Some(address) = buffer(buf) else { continue };
                if Some(address) == self.objects.constants.in_place {
                    issue(facts, buf, ArgProblem::InPlaceNotAllowed);
                    continue;
                }
                let count = args.int(count).unwrap_or(0);
                let predefined_type = args
                    .int(datatype)
                    .is_some_and(|t| self.constants.datatypes.contains_key(&t));
                if address == 0 && count > 0 && predefined_type {
                    issue(facts, buf, ArgProblem::NullBuffer { count });
                }
            }
        }
        self.buffer_spans(function, call, args, op, short, facts);
        if let (Op::Collective { kind, .. }, Some(comm)) = (op, comm.as_ref()) {
            if *kind != CollectiveKind::Management {
                self.root_issue(args, comm, facts);
            }
            if *kind == CollectiveKind::Bcast
                && args.int("buffer").is_some()
                && args.int("buffer") == self.objects.constants.in_place
            {
                issue(facts, "buffer", ArgProblem::InPlaceNotAllowed);
            }
        }
    }

    /// Bytes covered by `count` elements of a datatype whose layout is contiguous.
    fn contiguous_bytes(&self, count: i64, datatype: i64) -> Option<u64> {
        let extent = if let Some(name) = self.constants.datatypes.get(&datatype) {
            *self.constants.datatype_sizes.get(name)? as i64
        } else {
            let &(size, extent) = self.objects.layouts.get(&datatype)?;
            if size != extent {
                return None; // holes: the span would overstate what MPI touches
            }
            extent
        };
        u64::try_from(count.checked_mul(extent)?).ok()
    }

    /// The spans of the buffers of point-to-point calls and of the collectives whose
    /// buffers are `count` elements on every rank.
    fn buffer_spans(
        &self,
        function: &FunctionSchema,
        call: &CallRecord,
        args: &Args,
        op: &Op,
        short: &str,
        facts: &mut CallFacts,
    ) {
        let base = short.strip_prefix('I').unwrap_or(short);
        let counted_collective = matches!(
            base,
            "allreduce" | "Allreduce" | "scan" | "Scan" | "exscan" | "Exscan"
        );
        if !(point_to_point(op) || counted_collective) {
            return;
        }
        let entry_words = decode_args(function, &call.words, true);
        let address = |name: &str| -> Option<i64> {
            let i = function.params.iter().position(|p| p.name == name)?;
            match &entry_words[i] {
                (ArgValue::Int(v), _) | (_, ArgValue::Int(v)) => Some(*v),
                _ => None,
            }
        };
        let sendrecv_replace = short.ends_with("_replace");
        for (buf, count, datatype, write) in [
            (
                "buf",
                "count",
                "datatype",
                !matches!(op, Op::Send { .. }) || sendrecv_replace,
            ),
            ("sendbuf", "sendcount", "sendtype", false),
            ("recvbuf", "recvcount", "recvtype", true),
            ("sendbuf", "count", "datatype", false),
            ("recvbuf", "count", "datatype", true),
        ] {
            let (Some(start), Some(n), Some(t)) =
                (address(buf), args.int(count), args.int(datatype))
            else {
                continue;
            };
            if start == 0 || Some(start) == self.objects.constants.in_place || n <= 0 {
                continue;
            }
            if matches!(op, Op::Probe { .. }) {
                continue;
            }
            if let Some(len) = self.contiguous_bytes(n, t) {
                facts.buffers.push(BufferSpan {
                    param: super::intern(buf),
                    start: start as u64,
                    len,
                    write,
                });
            }
        }
    }

    fn peer_and_tag_issues(
        &self,
        args: &Args,
        short: &str,
        comm: Option<&LocalComm>,
        facts: &mut CallFacts,
    ) {
        let receive_side = matches!(
            short,
            "Recv" | "Irecv" | "Recv_init" | "Probe" | "Iprobe" | "Mprobe" | "Improbe"
        );
        for (name, wildcard_ok) in [("tag", receive_side), ("sendtag", false), ("recvtag", true)] {
            let Some(tag) = args.int(name) else { continue };
            if wildcard_ok && Some(tag) == self.constants.any_tag {
                continue;
            }
            let tag_ub = self.objects.constants.tag_ub;
            if tag < 0 || tag_ub.is_some_and(|ub| tag > ub) {
                facts.arg_issues.push(ArgIssue {
                    param: super::intern(name),
                    problem: ArgProblem::InvalidTag { value: tag, tag_ub },
                });
            }
        }
        let Some(comm) = comm.filter(|c| !c.local.is_empty()) else {
            return;
        };
        let size = comm.remote.as_ref().unwrap_or(&comm.local).len() as u32;
        for (name, any_ok) in [("dest", false), ("source", true)] {
            let Some(rank) = args.int(name) else { continue };
            if Some(rank) == self.constants.proc_null
                || (any_ok && Some(rank) == self.constants.any_source)
            {
                continue;
            }
            if rank < 0 || rank >= size as i64 {
                facts.arg_issues.push(ArgIssue {
                    param: super::intern(name),
                    problem: ArgProblem::RankOutOfRange { value: rank, size },
                });
            }
        }
    }

    fn root_issue(&self, args: &Args, comm: &LocalComm, facts: &mut CallFacts) {
        let Some(root) = args.int("root") else { return };
        if comm.local.is_empty() {
            return;
        }
        let (size, valid_special) = match &comm.remote {
            // Intercommunicator: MPI_ROOT in the root group, MPI_PROC_NULL for the others.
            Some(remote) => (
                remote.len() as u32,
                Some(root) == self.constants.proc_null
                    || Some(root) == self.objects.constants.mpi_root,
            ),
            None => (comm.local.len() as u32, false),
        };
        if !valid_special && (root < 0 || root >= size as i64) {
            facts.arg_issues.push(ArgIssue {
                param: "root",
                problem: ArgProblem::RankOutOfRange { value: root, size },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{normalize, RankNormalizer, Tables};
    use crate::model::*;
    use mpicheck_trace::{CallRecord, EndOfTrace, Schema, Trace, TraceHeader};

    const SCHEMA: &str = "\
0 MPI_Init argc:ARGUMENT_COUNT:in:s argv:ARGUMENT_LIST:in:s
1 MPI_Comm_dup comm:COMMUNICATOR:in:s newcomm:COMMUNICATOR:out:s
2 MPI_Comm_free comm:COMMUNICATOR:inout:s
3 MPI_Type_contiguous count:POLYXFER_NUM_ELEM_NNI:in:s oldtype:DATATYPE:in:s newtype:DATATYPE:out:s
4 MPI_Type_commit datatype:DATATYPE:inout:s
5 MPI_Type_free datatype:DATATYPE:inout:s
6 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s
7 MPI_Recv buf:BUFFER:out:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s source:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s status:STATUS:out:st
8 MPI_Comm_rank comm:COMMUNICATOR:in:s rank:RANK:out:s
9 MPI_Finalize
";
    const WORLD: i64 = 0x44000000;
    const COMM_NULL: i64 = 0x04000000;
    const INT: i64 = 0x4c000405;
    const TYPE_NULL: i64 = 0x0c000000;
    const ANY_TAG: i64 = -1;
    const ANY_SOURCE: i64 = -2;
    const IN_PLACE: i64 = -1;

    fn call(func: u16, words: Vec<i64>, line: u64) -> CallRecord {
        CallRecord {
            func,
            thread: 0,
            seq: 0,
            t_enter_ns: 0,
            t_exit_ns: 0,
            callsite: line,
            ret: 0,
            fortran: false,
            complete: true,
            words,
        }
    }

    fn trace(calls: Vec<CallRecord>) -> Trace {
        let constants = [
            ("MPI_COMM_WORLD", WORLD),
            ("MPI_COMM_NULL", COMM_NULL),
            ("MPI_DATATYPE_NULL", TYPE_NULL),
            ("MPI_REQUEST_NULL", 0x2c000000),
            ("MPI_ANY_SOURCE", ANY_SOURCE),
            ("MPI_ANY_TAG", ANY_TAG),
            ("MPI_PROC_NULL", -1),
            ("MPI_IN_PLACE", IN_PLACE),
            ("MPI_TAG_UB_VALUE", 32767),
            ("DATATYPE.MPI_INT", INT),
            ("DATATYPE_SIZE.MPI_INT", 4),
        ];
        Trace {
            header: TraceHeader {
                version: 1,
                pid: 7,
                env_rank: Some(0),
                rank: Some(0),
                world_size: Some(2),
                state: mpicheck_trace::state::INITIALIZED,
                thread_level: None,
                records_end: 0,
                dropped: 0,
                start_unix_ns: 0,
                family: "mpich".into(),
                process_start: 0,
                exit_records_end: 0,
                parent_pid: 0,
            },
            schema: Schema::parse(SCHEMA).unwrap(),
            constants: constants
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            proc_maps: String::new(),
            process: Vec::new(),
            calls,
            partial_records: 0,
            end: EndOfTrace::Truncated {
                offset: 0,
                reason: "aborted".into(),
            },
        }
    }

    fn issues(run: &Run, event: usize) -> Vec<(&'static str, ArgProblem)> {
        run.ranks[0].events[event]
            .facts()
            .map(|f| {
                f.arg_issues
                    .iter()
                    .map(|i| (i.param, i.problem.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn line(_: usize, addr: u64) -> SourceLocation {
        SourceLocation {
            file: Some("t.c".into()),
            line: Some(addr as u32),
            function: None,
        }
    }

    #[test]
    fn arguments_are_judged_from_raw_words_and_live_handles() {
        let pair = 0x8c000001;
        let calls = vec![
            call(8, vec![WORLD, 0], 1), // before MPI_Init
            call(0, vec![0, 0], 2),
            call(3, vec![2, INT, pair], 3),
            call(6, vec![0x1000, 1, pair, 1, 0, WORLD], 4), // uncommitted
            call(4, vec![pair, pair], 5),
            call(6, vec![0x1000, 1, pair, 2, 40000, WORLD], 6), // dest 2 of 2, tag > UB
            call(
                7,
                vec![0, 4, INT, ANY_SOURCE, ANY_TAG, WORLD, 0, 0, 0, 0],
                7,
            ), // NULL buffer
            call(6, vec![IN_PLACE, -4, INT, 1, ANY_TAG, COMM_NULL], 8),
            call(5, vec![pair, TYPE_NULL], 9),
            call(6, vec![0x1000, 1, pair, 1, 0, WORLD], 10), // freed type
            call(
                7,
                vec![0x1000, 0, INT, ANY_SOURCE, ANY_TAG, WORLD, 0, 0, 0, 0],
                11,
            ), // fine
        ];
        let run = normalize(&[trace(calls)], &mut line).unwrap();
        assert_eq!(issues(&run, 0), vec![("", ArgProblem::BeforeInit)]);
        assert_eq!(issues(&run, 1), vec![]);
        assert_eq!(
            issues(&run, 3),
            vec![("datatype", ArgProblem::UncommittedDatatype)]
        );
        assert_eq!(
            issues(&run, 5),
            vec![
                (
                    "tag",
                    ArgProblem::InvalidTag {
                        value: 40000,
                        tag_ub: Some(32767)
                    }
                ),
                ("dest", ArgProblem::RankOutOfRange { value: 2, size: 2 }),
            ]
        );
        assert_eq!(
            issues(&run, 6),
            vec![("buf", ArgProblem::NullBuffer { count: 4 })]
        );
        let bad = issues(&run, 7);
        for expected in [
            (
                "comm",
                ArgProblem::NullHandle {
                    kind: ObjectKind::Communicator,
                },
            ),
            ("count", ArgProblem::NegativeCount { value: -4 }),
            (
                "tag",
                ArgProblem::InvalidTag {
                    value: ANY_TAG,
                    tag_ub: Some(32767),
                },
            ),
            ("buf", ArgProblem::InPlaceNotAllowed),
        ] {
            assert!(bad.contains(&expected), "{expected:?} in {bad:?}");
        }
        assert_eq!(
            issues(&run, 9),
            vec![(
                "datatype",
                ArgProblem::FreedHandle {
                    kind: ObjectKind::Datatype
                }
            )]
        );
        assert_eq!(issues(&run, 10), vec![]);
    }

    #[test]
    fn a_create_free_loop_keeps_one_live_object() {
        let mut calls = vec![call(0, vec![0, 0], 1)];
        for _ in 0..10_000 {
            // MPI hands the same handle value out again after each free.
            calls.push(call(1, vec![WORLD, 0x84000001], 2));
            calls.push(call(2, vec![0x84000001, COMM_NULL], 3));
        }
        let trace = trace(calls);
        let mut tables = Tables::default();
        tables.sites.push(SourceLocation::default());
        let mut rank = RankNormalizer::new(0, 2, &trace, &mut tables);
        let mut events = Vec::new();
        let mut peak = 0;
        for c in &trace.calls {
            let function = trace.schema.function(c.func).unwrap();
            if let Some(e) = rank.event(function, c, SiteId(0), &mut events) {
                events.push(e);
            }
            peak = peak.max(rank.objects.live_count());
        }
        assert_eq!(peak, 1);
        assert_eq!(rank.objects.live_count(), 0);
        let created: usize = events
            .iter()
            .filter_map(|e| e.facts())
            .map(|f| f.created.len())
            .sum();
        assert_eq!(created, 10_000, "every dup is a new object");
    }
}
