//! The MPI constants of one process's library, and interned call names.

use rustc_hash::FxHashMap;
use std::sync::{Mutex, OnceLock};

use mpicheck_trace::Trace;

/// Interns a function or parameter name for [`Event::call`] and the argument facts (also
/// for text traces). The set of names is bounded by the MPI function table (a few hundred)
/// and the test fixtures, so leaking them is bounded too.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<FxHashMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = names.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(name.to_string(), s);
    s
}

/// The MPI constants of one process's MPI library, from the trace's constants record.
#[derive(Default)]
pub(super) struct Constants {
    pub(super) comm_world: Option<i64>,
    pub(super) comm_self: Option<i64>,
    pub(super) comm_null: Option<i64>,
    pub(super) request_null: Option<i64>,
    pub(super) any_source: Option<i64>,
    pub(super) any_tag: Option<i64>,
    pub(super) proc_null: Option<i64>,
    pub(super) undefined: Option<i64>,
    /// Raw handle → predefined datatype name.
    pub(super) datatypes: FxHashMap<i64, String>,
    pub(super) datatype_sizes: FxHashMap<String, u64>,
    /// Raw handle of a predefined datatype → its size, if the trace gives it: the two
    /// lookups above by handle, made once per trace instead of once per call.
    pub(super) predefined_sizes: FxHashMap<i64, Option<u64>>,
    pub(super) datatype_null: Option<i64>,
    /// Raw handle → predefined reduction operation name.
    pub(super) ops: FxHashMap<i64, std::sync::Arc<str>>,
    pub(super) in_place: Option<i64>,
    /// The `MPI_Win_fence` assertions every member must give if any gives them.
    pub(super) mode_noprecede: Option<i64>,
    pub(super) mode_nosucceed: Option<i64>,
    pub(super) mode_nocheck: Option<i64>,
    pub(super) group_empty: Option<i64>,
    pub(super) lock_exclusive: Option<i64>,
    pub(super) lock_shared: Option<i64>,
}

impl Constants {
    pub(super) fn of(trace: &Trace) -> Constants {
        let get = |name: &str| trace.constant(name).and_then(parse_int);
        let mut c = Constants {
            comm_world: get("MPI_COMM_WORLD"),
            comm_self: get("MPI_COMM_SELF"),
            comm_null: get("MPI_COMM_NULL"),
            request_null: get("MPI_REQUEST_NULL"),
            any_source: get("MPI_ANY_SOURCE"),
            any_tag: get("MPI_ANY_TAG"),
            proc_null: get("MPI_PROC_NULL"),
            undefined: get("MPI_UNDEFINED"),
            datatype_null: get("MPI_DATATYPE_NULL"),
            in_place: get("MPI_IN_PLACE"),
            mode_noprecede: get("MPI_MODE_NOPRECEDE_VALUE"),
            mode_nosucceed: get("MPI_MODE_NOSUCCEED_VALUE"),
            mode_nocheck: get("MPI_MODE_NOCHECK_VALUE"),
            group_empty: get("HANDLE.MPI_GROUP_EMPTY"),
            lock_exclusive: get("MPI_LOCK_EXCLUSIVE_VALUE"),
            lock_shared: get("MPI_LOCK_SHARED_VALUE"),
            ..Default::default()
        };
        for (name, value) in &trace.constants {
            if let (Some(dt), Some(v)) = (name.strip_prefix("DATATYPE."), parse_int(value)) {
                c.datatypes.insert(v, dt.to_string());
            } else if let (Some(dt), Some(v)) =
                (name.strip_prefix("DATATYPE_SIZE."), parse_int(value))
            {
                c.datatype_sizes.insert(dt.to_string(), v as u64);
            } else if let (Some(op), Some(v)) = (name.strip_prefix("OP."), parse_int(value)) {
                c.ops.insert(v, op.into());
            }
        }
        c.predefined_sizes = c
            .datatypes
            .iter()
            .map(|(&raw, name)| (raw, c.datatype_sizes.get(name).copied()))
            .collect();
        c
    }
}

pub(super) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok().map(|v| v as i64)
    } else {
        t.parse::<i64>()
            .ok()
            .or_else(|| t.parse::<u64>().ok().map(|v| v as i64))
    }
}
