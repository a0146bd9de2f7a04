//! The diagnostic model every check emits and every output format renders.
//!
//! Serialized once (serde); the JSON report, SARIF, HTML and the terminal all render these
//! values. Messages are lowercase without a trailing period; the problem goes in the
//! message, the fix in `help`.

use serde::Serialize;

use crate::ranks::RankSet;
use crate::text::Text;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// The finding categories of `report.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Deadlock,
    PotentialDeadlock,
    CollectiveMismatch,
    TypeMismatch,
    InvalidArgument,
    RequestLifecycle,
    ResourceLeak,
    ThreadSafety,
    MessageRace,
    RmaEpoch,
    DataRace,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Deadlock => "deadlock",
            Category::PotentialDeadlock => "potential-deadlock",
            Category::CollectiveMismatch => "collective-mismatch",
            Category::TypeMismatch => "type-mismatch",
            Category::InvalidArgument => "invalid-argument",
            Category::RequestLifecycle => "request-lifecycle",
            Category::ResourceLeak => "resource-leak",
            Category::ThreadSafety => "thread-safety",
            Category::MessageRace => "message-race",
            Category::RmaEpoch => "rma-epoch",
            Category::DataRace => "data-race",
        }
    }
}

/// One call involved in a finding, on one or more ranks (folded when the same call site
/// plays the same role on many ranks).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Non-empty.
    pub ranks: RankSet,
    /// The MPI function, e.g. `MPI_Recv`.
    pub call: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The calling function, from debug info or the symbol table.
    pub function: Option<String>,
    /// The executable or shared object holding the call and the call's link-time address in
    /// it, so that a call site in a binary without debug info can still be found.
    pub object: Option<String>,
    pub offset: Option<u64>,
    /// What this call does in the finding ("waits for a message from rank 1").
    pub label: Text,
}

/// A wait-for graph reduced to what causes a deadlock, for pictures (DOT, SVG).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WaitForGraph {
    pub nodes: Vec<WaitNode>,
    pub edges: Vec<WaitEdge>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitNode {
    /// Ranks this node stands for (one, or a folded group that only waits on the cycle).
    pub ranks: RankSet,
    /// The blocking call and where: `MPI_Recv at ring.c:14`.
    pub label: String,
    /// `and` when the node needs all its out-edges satisfied, `or` when any one suffices.
    pub semantics: WaitSemantics,
    /// Part of the cycle or knot itself, not just waiting on it.
    pub in_cycle: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitSemantics {
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitEdge {
    /// Indices into [`WaitForGraph::nodes`].
    pub from: usize,
    pub to: usize,
    /// What `from` waits for: "message tag 0", "MPI_Barrier on comm 1".
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable check code, e.g. `DL001`.
    pub code: &'static str,
    pub category: Category,
    pub severity: Severity,
    pub message: Text,
    /// The reporting rank's call first, then the other ranks' calls.
    pub locations: Vec<Location>,
    /// The MPI rule that is broken.
    pub notes: Vec<Text>,
    /// How to fix it.
    pub help: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<WaitForGraph>,
    /// The communicator the finding is about, as reports name it (`MPI_COMM_WORLD`,
    /// `communicator 3 (MPI_Comm_split of MPI_COMM_WORLD)`), when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub communicator: Option<String>,
    /// The message tag the finding is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<i32>,
}

/// The documentation and defaults of one check, listed by `mpicheck checks`.
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    pub code: &'static str,
    /// Short kebab-case name, e.g. `send-recv-cycle`.
    pub name: &'static str,
    pub category: Category,
    pub severity: Severity,
    pub summary: &'static str,
    /// Markdown with the headings: What it does / Why is this bad / Example / How to fix /
    /// MPI standard reference.
    pub docs: &'static str,
}
