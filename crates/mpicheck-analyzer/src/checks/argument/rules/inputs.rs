//! What the rules read: one call's arguments ([`CallArgs`]) and what the rank knows beyond
//! them ([`ArgState`]: MPI's constants, the state of its handles, its communicators, grids and
//! partitioned requests).

use mpicheck_trace::schema::FunctionSchema;

use super::{PartitionedRequest, RulePlan};
use crate::model::ObjectKind;
use crate::normalize::args::{ArgWords, Value};

/// The constants the rules need, from the trace's constants record.
#[derive(Default, Clone)]
pub struct ArgConstants {
    pub proc_null: Option<i64>,
    pub any_source: Option<i64>,
    pub any_tag: Option<i64>,
    pub tag_ub: Option<i64>,
    pub in_place: Option<i64>,
    pub mpi_root: Option<i64>,
    pub undefined: Option<i64>,
    pub request_null: Option<i64>,
    pub no_op: Option<i64>,
    /// The RMA assertion bits (`MPI_MODE_NOCHECK`, ...) and their values in this MPI.
    pub rma_modes: Vec<(&'static str, i64)>,
    /// The split types of `MPI_Comm_split_type` this MPI defines (`MPI_COMM_TYPE_*`);
    /// `None` in traces that do not list them (older recorders).
    pub split_types: Option<Vec<i64>>,
}

/// What the rank knows of a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleState {
    Null,
    /// Freed by this rank and not since handed out again.
    Freed,
    /// A derived datatype not committed.
    Uncommitted,
    /// Live, predefined, or unknown to the trace (nothing to judge it by).
    Usable,
}

/// A process topology's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyKind {
    Cart { ndims: usize },
    Graph,
    DistGraph,
}

/// A communicator (or a window's communicator) as the rank knows it.
#[derive(Clone, Copy, Debug)]
pub struct CommView {
    pub size: u32,
    /// The remote group's size of an intercommunicator.
    pub remote_size: Option<u32>,
    /// The calling process's rank in it.
    pub my_rank: Option<u32>,
}

/// The state the rules read, kept by the normalizer.
pub trait ArgState {
    fn constants(&self) -> &ArgConstants;
    fn handle(&self, kind: ObjectKind, raw: i64) -> HandleState;
    fn comm(&self, raw: i64) -> Option<CommView>;
    /// The process topology of a communicator the rank knows ([`ArgState::comm`]):
    /// `Some(None)` known to have none, `None` not known. (Apart from the view: most calls
    /// that look up their communicator need no topology.)
    fn comm_topology(&self, raw: i64) -> Option<Option<TopologyKind>>;
    fn predefined_datatype(&self, raw: i64) -> bool;
    /// The number of processes of a group, where the rank knows it.
    fn group_size(&self, raw: i64) -> Option<u32>;
    /// The grid of a cartesian communicator, where the rank saw it made.
    fn cart_shape(&self, raw: i64) -> Option<&CartShape>;
    /// A partitioned request the rank made, by raw handle.
    fn partitioned(&self, raw: i64) -> Option<&PartitionedRequest>;
}

/// A cartesian grid: the extent of each dimension and whether it is periodic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CartShape {
    pub dims: Vec<i64>,
    pub periods: Vec<bool>,
}

/// One call: its function, its short name (`Send`) and its argument words (an output
/// buffer's address is its output word, written on entry).
pub struct CallArgs<'a> {
    pub function: &'a FunctionSchema,
    pub short: &'a str,
    /// What the rules need of the function, worked out once ([`RulePlan::of`]).
    pub plan: &'a RulePlan,
    pub values: ArgWords<'a>,
}

impl<'a> CallArgs<'a> {
    fn position(&self, name: &str) -> Option<usize> {
        self.function.params.iter().position(|p| p.name == name)
    }
    /// A parameter's value on entry: its input, or the address of an output buffer.
    #[inline]
    pub(super) fn on_entry(&self, i: usize) -> Value<'a> {
        match self.values.input(i) {
            Value::Missing if self.buffer(i) => self.values.output_on_entry(i),
            input => input,
        }
    }
    fn buffer(&self, i: usize) -> bool {
        self.function
            .params
            .get(i)
            .is_some_and(|p| p.kind == "BUFFER")
    }
    pub(super) fn int(&self, name: &str) -> Option<i64> {
        self.int_at(self.position(name))
    }
    /// As [`CallArgs::int`], of the parameter at `at` (a position from the plan).
    #[inline]
    pub(super) fn int_at(&self, at: Option<usize>) -> Option<i64> {
        // (The word itself, without a `Value`: the kind of the parameter is compared only
        // where it has no input.)
        let at = at?;
        match self.values.int(at) {
            None if self.buffer(at) => self.values.out_int_on_entry(at),
            input => input,
        }
    }
    /// The communicator the call works on: its first communicator input (`comm`,
    /// `comm_old`).
    pub(super) fn comm(&self) -> Option<i64> {
        self.int_at(self.plan.comm_input)
    }
    pub(super) fn array(&self, name: &str) -> Option<&'a [i64]> {
        self.on_entry(self.position(name)?).as_array()
    }
}
