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

use std::cell::Cell;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use mpicheck_trace::schema::Direction;
use mpicheck_trace::{CallRecord, Trace};

use super::args::Value;
use super::{parse_int, Args, RankNormalizer};
use crate::checks::argument::rules::{
    self, ArgConstants, ArgState, CartShape, CommView, HandleState, PartitionedRequest,
    TopologyKind,
};
use crate::checks::pass::ThreadMark;
use crate::model::*;

/// The constants the lifecycle and argument rules need, from a trace's constants record.
#[derive(Default)]
pub(super) struct FactConstants {
    /// `*_NULL` handle of each kind.
    nulls: Nulls,
    /// Predefined handles of any kind: never created nor freed by the program.
    predefined: FxHashSet<i64>,
    bsend_overhead: Option<i64>,
    /// The constants of the argument rules.
    args: ArgConstants,
}

impl FactConstants {
    pub(super) fn of(trace: &Trace) -> FactConstants {
        let get = |name: &str| trace.constant(name).and_then(parse_int);
        let mut nulls = Nulls::default();
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
                nulls.0[kind as usize] = Some(v);
            }
        }
        let mut predefined = FxHashSet::default();
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
            bsend_overhead: get("MPI_BSEND_OVERHEAD"),
            args: ArgConstants {
                proc_null: get("MPI_PROC_NULL"),
                any_source: get("MPI_ANY_SOURCE"),
                any_tag: get("MPI_ANY_TAG"),
                tag_ub: get("MPI_TAG_UB_VALUE"),
                in_place: get("MPI_IN_PLACE"),
                mpi_root: get("MPI_ROOT"),
                undefined: get("MPI_UNDEFINED"),
                request_null: get("MPI_REQUEST_NULL"),
                no_op: get("OP.MPI_NO_OP"),
                rma_modes: [
                    "MPI_MODE_NOCHECK",
                    "MPI_MODE_NOSTORE",
                    "MPI_MODE_NOPUT",
                    "MPI_MODE_NOPRECEDE",
                    "MPI_MODE_NOSUCCEED",
                ]
                .into_iter()
                .filter_map(|name| Some((name, get(&format!("{name}_VALUE"))?)))
                .collect(),
                split_types: trace
                    .constant("MPI_COMM_TYPE_VALUES")
                    .map(|list| list.split(',').filter_map(parse_int).collect()),
            },
        }
    }
}

/// The null handle of each object kind, by the kind's index.
#[derive(Default)]
pub(super) struct Nulls([Option<i64>; ObjectKind::Request as usize + 1]);

impl Nulls {
    pub(super) fn get(&self, kind: ObjectKind) -> Option<i64> {
        self.0[kind as usize]
    }
}

/// An object the program holds, under one raw handle.
struct LiveObject {
    /// The references the program holds, oldest first, each freed by its own `*_free`: MPI
    /// hands out the handle of an existing object again as a new reference from accessors
    /// (MPICH's and Open MPI's `MPI_Comm_group` and `MPI_Comm_get_errhandler`, MPICH's
    /// `MPI_Type_get_contents`).
    refs: Vec<ObjectId>,
    /// A datatype that is committed.
    committed: bool,
    /// The last call of each thread that passed the object, by thread (once the process
    /// started threads): another thread's free of it is TH007's if nothing orders the two.
    uses: Vec<(u16, usize)>,
}

/// One rank's live objects.
#[derive(Default)]
pub(super) struct ObjectTables {
    pub(super) constants: FactConstants,
    /// Live objects by kind and raw handle.
    live: FxHashMap<(ObjectKind, i64), LiveObject>,
    /// How many datatypes `MPI_Type_get_contents` returns for a derived datatype (from its
    /// constructor or `MPI_Type_get_envelope`), by raw handle (live ones).
    type_parts: FxHashMap<i64, usize>,
    /// Size and extent of committed derived datatypes, by raw handle (live ones).
    layouts: FxHashMap<i64, (i64, i64)>,
    /// `MPI_Init*` (or `MPI_Session_init`) was called.
    initialized: bool,
    /// Raw handles of freed objects not since handed out again.
    freed: FxHashSet<(ObjectKind, i64)>,
    /// The topology of each communicator whose creation the trace shows (`None`: it has
    /// none), by raw handle; communicators not in it are not judged.
    topologies: FxHashMap<i64, Option<TopologyKind>>,
    /// The number of processes of each group whose size is known, by raw handle.
    group_sizes: FxHashMap<i64, u32>,
    /// The grid of each cartesian communicator whose making the trace shows, by raw handle.
    pub(super) cart_shapes: FxHashMap<i64, CartShape>,
    /// The partitioned requests the rank holds, by raw handle.
    partitioned: FxHashMap<i64, PartitionedRequest>,
    next: u32,
    /// The process started threads (a recorded parallel region or `pthread_create`): only
    /// then are the uses of objects by thread kept.
    track_uses: bool,
    /// Objects freed after another thread's use, in record order.
    pub(super) freed_after_use: Vec<FreedAfterUse>,
    /// The uses and frees of objects by threads of the call being normalized, for the
    /// passes ([`ThreadMark::Used`], [`ThreadMark::Freed`]).
    pub(super) marks: Vec<ThreadMark>,
    /// The buffer spans of the call being normalized (room reused from call to call).
    spans: Vec<BufferSpan>,
    /// The facts of the call being normalized but its spans: empty between calls, and
    /// taken whole by a call with facts (most have none: nothing is built or dropped then).
    facts: CallFacts,
    /// The spans of each function's last call with only several buffers, by function id
    /// (see `shared_buffers`).
    last_buffers: Vec<Option<Arc<[BufferSpan]>>>,
    /// The last predefined handle the argument rules asked about, by kind: a call passes
    /// the same `MPI_COMM_WORLD` or `MPI_INT` call after call, and the set of predefined
    /// handles never changes, so a hit needs no lookup (`ArgState::handle`).
    last_predefined: [Cell<Option<i64>>; ObjectKind::Request as usize + 1],
    /// The last predefined datatype a buffer span was measured with, and its size: calls
    /// pass the same `MPI_INT` call after call (the sizes of predefined types never change).
    last_predefined_size: Cell<Option<(i64, Option<u64>)>>,
}

impl ObjectTables {
    pub(super) fn new(trace: &Trace) -> ObjectTables {
        let mut topologies = FxHashMap::default();
        for name in ["MPI_COMM_WORLD", "MPI_COMM_SELF"] {
            if let Some(raw) = trace.constant(name).and_then(parse_int) {
                topologies.insert(raw, None);
            }
        }
        let mut group_sizes = FxHashMap::default();
        if let Some(raw) = trace.constant("HANDLE.MPI_GROUP_EMPTY").and_then(parse_int) {
            group_sizes.insert(raw, 0);
        }
        ObjectTables {
            constants: FactConstants::of(trace),
            topologies,
            group_sizes,
            ..Default::default()
        }
    }

    /// Size and extent of a committed datatype (from `MPICHECK_Type_info`).
    pub(super) fn note_layout(&mut self, raw: i64, size: i64, extent: i64) {
        self.layouts.insert(raw, (size, extent));
    }

    /// Whether a datatype handle names a committed type: predefined types are, and so are
    /// types whose creation the trace does not show (nothing to judge them by).
    pub(super) fn is_committed(&self, raw: i64) -> bool {
        self.live
            .get(&(ObjectKind::Datatype, raw))
            .is_none_or(|entry| entry.committed)
    }

    /// From now on, remember which thread used each object (the process started threads).
    pub(super) fn track_uses(&mut self) {
        self.track_uses = true;
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

/// How many datatypes `MPI_Type_get_contents` returns for a type made by this call
/// (MPI 4.1 §5.1.13, table of combiners): one old type for every constructor except the
/// struct ones, `count` for those; `None` where the call is no constructor.
fn type_parts(short: &str, args: &Args) -> Option<usize> {
    match short {
        "Type_create_struct" | "Type_struct" => Some(args.int("count")?.max(0) as usize),
        "Type_dup"
        | "Type_contiguous"
        | "Type_vector"
        | "Type_hvector"
        | "Type_create_hvector"
        | "Type_indexed"
        | "Type_hindexed"
        | "Type_create_hindexed"
        | "Type_create_indexed_block"
        | "Type_create_hindexed_block"
        | "Type_create_subarray"
        | "Type_create_darray"
        | "Type_create_resized" => Some(1),
        _ => None,
    }
}

/// Calls whose handle-kind inout parameter is the object they free.
pub(super) fn frees(short: &str) -> bool {
    short.ends_with("_free")
        || short.ends_with("_free_keyval")
        || matches!(short, "Comm_disconnect" | "File_close" | "Session_finalize")
}

/// Calls whose output handles are not new objects the program must free: predefined
/// datatypes (`MPI_Type_create_f90_*`, `MPI_Type_match_size`, `MPI_Type_get_value_index`),
/// the parent intercommunicator, handle conversions.
/// (`MPI_Type_get_contents` is not one: it returns new datatypes the caller must free,
/// MPI 4.1 §5.1.13; only its predefined ones are borrowed.)
pub(super) fn returns_borrowed(short: &str) -> bool {
    short.starts_with("Type_create_f90_")
        || matches!(
            short,
            "Type_match_size" | "Type_get_value_index" | "Comm_get_parent"
        )
        || short.ends_with("_f2c")
        || short.ends_with("_fromint")
}

/// The committed state of a datatype a call returns, per the standard: `MPI_Type_dup`
/// copies it from `oldtype` (MPI 4.1 §5.1.10), `MPI_File_get_view` returns committed types
/// (§14.3), and every other constructor, `MPI_Type_create_resized` included, makes an
/// uncommitted type (§5.1.9); `MPI_Type_get_contents` leaves it undefined (§5.1.13), so the
/// program must commit such a type before it communicates with it.
fn returned_type_committed(short: &str, old_committed: bool) -> bool {
    match short {
        "Type_dup" => old_committed,
        "File_get_view" => true,
        _ => false,
    }
}

/// Point-to-point operations: every argument is significant on the calling rank.
fn point_to_point(op: &Op) -> bool {
    matches!(
        op,
        Op::Send { .. } | Op::Recv { .. } | Op::Sendrecv { .. } | Op::Probe { .. }
    )
}

impl RankNormalizer<'_> {
    /// The facts of one call; `op` is what the call was normalized to, `index` the event it
    /// becomes.
    pub(super) fn call_facts(
        &mut self,
        args: &Args,
        call: &CallRecord,
        op: &Op,
        index: usize,
    ) -> EventFacts {
        let plan = args.plan;
        let short = plan.short;
        if matches!(op, Op::Init { .. }) || plan.session_init {
            self.objects.initialized = true;
        } else if !self.objects.initialized && !plan.allowed_anytime {
            self.objects.facts.arg_issues.push(ArgIssue {
                param: "",
                problem: ArgProblem::BeforeInit,
            });
        }
        self.argument_issues(args);
        self.note_topology(args, short, call.ret);
        self.note_group_size(args, short, call.ret);
        self.note_cart_shape(args, short, call.ret);
        self.note_partitioned(args, op, short, call.ret);
        // The spans go into room kept from call to call: most calls with a buffer have only
        // that one fact, which the event holds without an allocation.
        let mut spans = std::mem::take(&mut self.objects.spans);
        self.buffer_spans(args, op, &mut spans);
        let by = (call.thread, index);
        if self.objects.track_uses {
            self.note_uses(args, by);
        }
        self.lifecycle(args, short, call.ret, by);
        if matches!(op, Op::Other) {
            // Requests of calls the model has no operation for (MPI_Rput, MPI_File_iwrite,
            // MPI_Grequest_start, partitioned and persistent RMA/IO requests).
            if let Some(raw) = args.out_int("request") {
                if Some(raw) != self.constants.request_null {
                    let persistent = short.contains("_init");
                    let address = args.int_at(args.plan.p2p.request_address);
                    let id = self.new_request(Some(raw), address, persistent, None, None);
                    self.objects.facts.other_requests.push(id);
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
                self.objects.facts.bsend_bytes = Some(count.saturating_mul(size as i64) + overhead);
            }
        }
        let event_facts = if self.objects.facts.is_empty() {
            match spans.len() {
                0 => EventFacts::None,
                1 => EventFacts::Buffer(spans.pop().expect("one span")),
                // (As `EventFacts::from_facts` keeps them, without comparing again.)
                _ => {
                    let buffers = self.shared_buffers(call.func, &spans);
                    spans.clear();
                    EventFacts::Buffers(buffers)
                }
            }
        } else {
            let mut facts = std::mem::take(&mut self.objects.facts);
            // With the capacity it needs: the facts are kept boxed as they are.
            facts.buffers = spans.to_vec();
            spans.clear();
            EventFacts::from_facts(facts)
        };
        self.objects.spans = spans;
        event_facts
    }

    /// The spans of a call with only several buffers, shared with the function's last such
    /// call when they are equal: a program's loop passes the same buffers call after call,
    /// and a shared copy is cheaper to keep and to drop than an allocation per call.
    fn shared_buffers(&mut self, function: u16, spans: &[BufferSpan]) -> Arc<[BufferSpan]> {
        let at = usize::from(function);
        let last = &mut self.objects.last_buffers;
        if let Some(Some(shared)) = last.get(at) {
            if **shared == *spans {
                return shared.clone();
            }
        }
        if last.len() <= at {
            last.resize(at + 1, None);
        }
        let shared: Arc<[BufferSpan]> = spans.into();
        last[at] = Some(shared.clone());
        shared
    }

    /// Remembers the call as its thread's last use of each live object it passes.
    fn note_uses(&mut self, args: &Args, (thread, index): (u16, usize)) {
        for param in &args.plan.handles {
            if param.direction == Direction::Out {
                continue;
            }
            let kind = param.kind;
            let input = args.values.input(param.at);
            let raws = match &input {
                Value::Int(raw) => std::slice::from_ref(raw),
                Value::Array(raws) => raws,
                _ => continue,
            };
            for raw in raws {
                if let Some(entry) = self.objects.live.get_mut(&(kind, *raw)) {
                    match entry.uses.iter_mut().find(|(t, _)| *t == thread) {
                        Some(used) => used.1 = index,
                        None => entry.uses.push((thread, index)),
                    }
                    self.objects
                        .marks
                        .push(ThreadMark::Used { kind, object: *raw });
                }
            }
        }
    }

    fn lifecycle(&mut self, args: &Args, short: &str, ret: i32, by: (u16, usize)) {
        // Most calls only read handles: nothing below is done for an input handle but by
        // `MPI_Type_commit` (whose `datatype` is inout, but not to rest on it).
        if !args.plan.lifecycle {
            return;
        }
        let freeing = args.plan.frees;
        // A call that returned an error (MPI_SUCCESS is 0 in every ABI) made nothing, whatever
        // its output handle holds (ROMIO's MPI_File_open leaves it unset).
        let failed = ret != 0;
        let borrowed = args.plan.returns_borrowed;
        if short == "Type_get_envelope" && !failed {
            if let (Some(raw), Some(n)) = (args.int("datatype"), args.out_int("num_datatypes")) {
                self.objects.type_parts.insert(raw, n.max(0) as usize);
            }
        }
        for param in &args.plan.handles {
            let kind = param.kind;
            let input = args.values.input(param.at);
            if short == "Type_commit" {
                if let Some(raw) = input.as_int() {
                    if let Some(entry) = self.objects.live.get_mut(&(kind, raw)) {
                        entry.committed = true;
                    }
                }
                continue;
            }
            if freeing && param.direction == Direction::InOut {
                if let Some(raw) = input.as_int() {
                    self.release(kind, raw, by);
                }
                continue;
            }
            if failed || borrowed || param.direction != Direction::Out {
                continue;
            }
            let raws: Vec<i64> = match args.values.output(param.at) {
                Value::Int(raw) => vec![raw],
                // MPI_Type_get_contents: only the first `num_datatypes` entries are written.
                Value::Array(raws) => {
                    let parts = args
                        .int("datatype")
                        .and_then(|t| self.objects.type_parts.get(&t).copied())
                        .unwrap_or(raws.len());
                    raws.iter().take(parts).copied().collect()
                }
                _ => continue,
            };
            for raw in raws {
                self.acquire(kind, raw, short, args);
            }
        }
    }

    /// A handle a call returned: a new object, or a new reference to a live one.
    fn acquire(&mut self, kind: ObjectKind, raw: i64, short: &str, args: &Args) {
        if self.objects.constants.nulls.get(kind) == Some(raw)
            || self.objects.constants.predefined.contains(&raw)
        {
            return;
        }
        let id = ObjectId(self.objects.next);
        self.objects.next += 1;
        self.objects.facts.created.push(ObjectRef { kind, id });
        if let Some(entry) = self.objects.live.get_mut(&(kind, raw)) {
            // MPI never hands out the handle of a live object for another object: this is
            // one more reference to it, freed by its own *_free.
            entry.refs.push(id);
            return;
        }
        self.objects.freed.remove(&(kind, raw));
        let mut committed = false;
        if kind == ObjectKind::Datatype {
            self.objects.layouts.remove(&raw);
            self.objects.type_parts.remove(&raw);
            if let Some(parts) = type_parts(short, args) {
                self.objects.type_parts.insert(raw, parts);
            }
            let old = args.int("oldtype");
            let old_committed = old.is_none_or(|old| self.objects.is_committed(old));
            committed = returned_type_committed(short, old_committed);
            if short == "Type_dup" && committed {
                // Same size and extent, for the buffer spans of calls that use the copy.
                if let Some(layout) = old.and_then(|old| self.layout_of(old)) {
                    self.objects.layouts.insert(raw, layout);
                }
            }
        }
        self.objects.live.insert(
            (kind, raw),
            LiveObject {
                refs: vec![id],
                committed,
                uses: Vec::new(),
            },
        );
    }

    /// A handle a `*_free` call released: its newest reference; the object is gone with its
    /// last one, and the other threads' last uses of it are noted.
    fn release(&mut self, kind: ObjectKind, raw: i64, (thread, index): (u16, usize)) {
        let objects = &mut self.state.objects;
        let Some(entry) = objects.live.get_mut(&(kind, raw)) else {
            return;
        };
        if let Some(id) = entry.refs.pop() {
            objects.facts.freed.push(ObjectRef { kind, id });
        }
        if entry.refs.is_empty() {
            if !entry.uses.is_empty() {
                objects.marks.push(ThreadMark::Freed { kind, object: raw });
            }
            for &(_, used) in entry.uses.iter().filter(|(t, _)| *t != thread) {
                objects.freed_after_use.push(FreedAfterUse {
                    kind,
                    used,
                    freed: index,
                });
            }
            self.objects.live.remove(&(kind, raw));
            self.objects.freed.insert((kind, raw));
            if kind == ObjectKind::Datatype {
                self.objects.layouts.remove(&raw);
                self.objects.type_parts.remove(&raw);
            }
        }
    }

    /// Size and extent of a committed derived datatype or of a predefined one.
    fn layout_of(&self, raw: i64) -> Option<(i64, i64)> {
        if let Some(&layout) = self.objects.layouts.get(&raw) {
            return Some(layout);
        }
        let size = (*self.constants.predefined_sizes.get(&raw)?)? as i64;
        Some((size, size))
    }

    /// [`ArgState::handle`] of a handle that is not the kind's last predefined one.
    fn handle_looked_up(&self, kind: ObjectKind, raw: i64) -> HandleState {
        let objects = &self.objects;
        // A predefined handle is never made or freed by the program (`acquire`): one lookup
        // for the handles most calls pass.
        if objects.constants.predefined.contains(&raw) {
            objects.last_predefined[kind as usize].set(Some(raw));
            return HandleState::Usable;
        }
        match objects.live.get(&(kind, raw)) {
            None if objects.freed.contains(&(kind, raw)) => HandleState::Freed,
            Some(entry) if kind == ObjectKind::Datatype && !entry.committed => {
                HandleState::Uncommitted
            }
            _ => HandleState::Usable,
        }
    }

    /// The argument problems of one call, by the rules of `checks::argument::rules`, judged
    /// with this rank's state before the call changes it.
    fn argument_issues(&mut self, args: &Args) {
        let call_args = rules::CallArgs {
            function: args.function,
            short: args.plan.short,
            plan: &args.plan.rules,
            values: args.values,
        };
        let issues = rules::judge(&call_args, &*self);
        // (Most calls have none: no vector is moved then.)
        if !issues.is_empty() {
            self.objects.facts.arg_issues.extend(issues);
        }
    }

    /// The topology of the communicator a successful call created: the one it made
    /// (`MPI_Cart_create`, `MPI_Cart_sub`, `MPI_Graph_create`, `MPI_Dist_graph_create*`),
    /// its parent's for a duplicate, none for any other constructor.
    fn note_topology(&mut self, args: &Args, short: &str, ret: i32) {
        if ret != 0 || args.plan.returns_borrowed {
            return;
        }
        let Some(new) = args.out_int_at(args.plan.out_communicator) else {
            return;
        };
        let topology = match short {
            "Cart_create" => args.int("ndims").map(|n| {
                Some(TopologyKind::Cart {
                    ndims: n.max(0) as usize,
                })
            }),
            "Cart_sub" => args.array("remain_dims").map(|remain| {
                Some(TopologyKind::Cart {
                    ndims: remain.iter().filter(|&&r| r != 0).count(),
                })
            }),
            "Graph_create" => Some(Some(TopologyKind::Graph)),
            "Dist_graph_create" | "Dist_graph_create_adjacent" => {
                Some(Some(TopologyKind::DistGraph))
            }
            _ if short.starts_with("Comm_dup") || short.starts_with("Comm_idup") => args
                .int("comm")
                .and_then(|parent| self.objects.topologies.get(&parent).copied()),
            _ => Some(None),
        };
        match topology {
            Some(topology) => self.objects.topologies.insert(new, topology),
            None => self.objects.topologies.remove(&new),
        };
    }

    /// The size of a predefined datatype (`None`: `datatype` is none; `Some(None)`: its
    /// size is not known).
    fn predefined_size(&self, datatype: i64) -> Option<Option<u64>> {
        let last = &self.objects.last_predefined_size;
        if let Some((_, size)) = last.get().filter(|&(raw, _)| raw == datatype) {
            return Some(size);
        }
        let size = *self.constants.predefined_sizes.get(&datatype)?;
        last.set(Some((datatype, size)));
        Some(size)
    }

    /// Bytes covered by `count` elements of a datatype whose layout is contiguous.
    pub(super) fn contiguous_bytes(&self, count: i64, datatype: i64) -> Option<u64> {
        let extent = if let Some(size) = self.predefined_size(datatype) {
            size? as i64
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
    fn buffer_spans(&self, args: &Args, op: &Op, spans: &mut Vec<BufferSpan>) {
        if !(point_to_point(op) || args.plan.counted_collective) {
            return;
        }
        // The words as on entry, output buffer addresses included.
        let values = args.values;
        let address =
            |i: usize| -> Option<i64> { values.int(i).or_else(|| values.out_int_on_entry(i)) };
        for row in &args.plan.buffers {
            let (Some(start), Some(n), Some(t)) = (
                address(row.address),
                values.int(row.count),
                values.int(row.datatype),
            ) else {
                continue;
            };
            let (param, write) = (
                row.param,
                row.write.unwrap_or_else(|| {
                    !matches!(op, Op::Send { .. }) || args.plan.short.ends_with("_replace")
                }),
            );
            // A partitioned operation's buffer holds all its partitions.
            let n = n.saturating_mul(super::p2p::partitions(args));
            if start == 0 || Some(start) == self.objects.constants.args.in_place || n <= 0 {
                continue;
            }
            if matches!(op, Op::Probe { .. }) {
                continue;
            }
            if let Some(len) = self.contiguous_bytes(n, t) {
                spans.push(BufferSpan {
                    param,
                    start: start as u64,
                    len,
                    write,
                });
            }
        }
    }
}

impl ArgState for RankNormalizer<'_> {
    fn constants(&self) -> &ArgConstants {
        &self.objects.constants.args
    }

    // (Inlined into the loop of `rules::judge`: most handles it asks about are the kind's
    // last predefined one.)
    #[inline(always)]
    fn handle(&self, kind: ObjectKind, raw: i64) -> HandleState {
        let objects = &self.objects;
        if objects.constants.nulls.get(kind) == Some(raw) {
            return HandleState::Null;
        }
        if objects.last_predefined[kind as usize].get() == Some(raw) {
            return HandleState::Usable;
        }
        self.handle_looked_up(kind, raw)
    }

    fn comm(&self, raw: i64) -> Option<CommView> {
        let comm = self.comms.get(&raw).filter(|c| !c.local.is_empty())?;
        Some(CommView {
            size: comm.local.len() as u32,
            remote_size: comm.remote.as_ref().map(|r| r.len() as u32),
            my_rank: comm.me,
        })
    }

    fn comm_topology(&self, raw: i64) -> Option<Option<TopologyKind>> {
        self.comm(raw)?;
        self.objects.topologies.get(&raw).copied()
    }

    fn predefined_datatype(&self, raw: i64) -> bool {
        self.constants.datatypes.contains_key(&raw)
    }

    fn group_size(&self, raw: i64) -> Option<u32> {
        self.objects.group_sizes.get(&raw).copied()
    }

    fn cart_shape(&self, raw: i64) -> Option<&CartShape> {
        self.objects.cart_shapes.get(&raw)
    }

    fn partitioned(&self, raw: i64) -> Option<&PartitionedRequest> {
        self.objects.partitioned.get(&raw)
    }
}

mod grids;
mod groups;
mod partitioned;
#[cfg(test)]
mod tests;
