//! Argument checks: each call valid on its own, judged from the arguments the recorder
//! wrote before the MPI library was called (so a call that makes the library abort is still
//! judged).
//!
//! The rules of [`rules`] (one per parameter kind of the API description) judge each call's
//! arguments while the normalizer replays the rank, with its live handles, communicators
//! and MPI's constants, and the normalizer attaches what they find to the event
//! ([`crate::model::CallFacts::arg_issues`]); each check here reports one kind of problem,
//! one finding per call site, parameter and message.

use super::pass::{EventPass, RunTables, SiteFindings};
use crate::diagnostic::{CheckInfo, Diagnostic};
use crate::model::{ArgIssue, Event, Rank};

pub mod after_finalize;
pub mod before_init;
pub mod freed_handle;
pub mod in_place;
pub mod invalid_assert;
pub mod invalid_color;
pub mod invalid_partition;
pub mod invalid_rank_list;
pub mod invalid_tag;
pub mod invalid_topology;
pub mod missing_topology;
pub mod negative_count;
pub mod null_buffer;
pub mod null_handle;
pub mod overlapping_buffers;
pub mod rank_out_of_range;
pub mod rules;
pub mod uncommitted_datatype;

pub use after_finalize::AR010;
pub use before_init::AR009;
pub use freed_handle::AR005;
pub use in_place::AR008;
pub use invalid_assert::AR015;
pub use invalid_color::AR011;
pub use invalid_partition::AR016;
pub use invalid_rank_list::AR014;
pub use invalid_tag::AR002;
pub use invalid_topology::AR012;
pub use missing_topology::AR013;
pub use negative_count::AR003;
pub use null_buffer::AR007;
pub use null_handle::AR004;
pub use overlapping_buffers::BF002;
pub use rank_out_of_range::AR001;
pub use uncommitted_datatype::AR006;

/// How an argument check describes an issue it reports: the message and the location's
/// label for an issue of the call named, or `None` for issues of other kinds.
pub(crate) type Describe = fn(&ArgIssue, &'static str) -> Option<(String, String)>;

/// What an argument check reports, for its pass: its code, the notes and help of its
/// findings, and how it describes the issues it recognizes.
#[derive(Clone, Copy)]
pub(crate) struct IssueSpec {
    info: &'static CheckInfo,
    notes: &'static [&'static str],
    help: &'static str,
    describe: Describe,
}

/// The pass of an argument check: one finding per call site and message for the argument
/// issues its `describe` recognizes.
pub(crate) struct IssuePass {
    spec: IssueSpec,
    found: SiteFindings,
}

impl IssuePass {
    pub fn boxed(
        info: &'static CheckInfo,
        notes: &'static [&'static str],
        help: &'static str,
        describe: Describe,
    ) -> Box<dyn EventPass> {
        Box::new(IssuePass::new(IssueSpec {
            info,
            notes,
            help,
            describe,
        }))
    }

    fn new(spec: IssueSpec) -> IssuePass {
        IssuePass {
            spec,
            found: SiteFindings::default(),
        }
    }

    /// The issues of `event` this check recognizes.
    fn issues(&mut self, rank: Rank, event: &Event, issues: &[ArgIssue]) {
        for issue in issues {
            if let Some((message, label)) = (self.spec.describe)(issue, event.call) {
                self.found.add(rank, event, message, label);
            }
        }
    }

    fn diagnostics(self, tables: &RunTables) -> Vec<Diagnostic> {
        let IssueSpec {
            info, notes, help, ..
        } = self.spec;
        self.found.diagnostics(tables, info, notes, help)
    }
}

impl EventPass for IssuePass {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        let Some(facts) = event.facts() else { return };
        self.issues(rank, event, &facts.arg_issues);
    }
    fn issue_spec(&self) -> Option<IssueSpec> {
        Some(self.spec)
    }
    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        self.diagnostics(tables)
    }
}

/// The passes of several argument checks fed as one: most events have no argument issue,
/// found once for all of them.
#[derive(Default)]
pub(crate) struct IssuePasses {
    /// Each check's pass, with the check's index in the registry.
    members: Vec<(usize, IssuePass)>,
}

impl IssuePasses {
    /// Adds the pass of check `index` (its [`EventPass::issue_spec`]).
    pub fn add(&mut self, index: usize, spec: IssueSpec) {
        self.members.push((index, IssuePass::new(spec)));
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// An event's issues, given to every member. (Out of line: the events without issues,
    /// nearly all, return without the loop's register saves.)
    #[inline(never)]
    fn issues(&mut self, rank: Rank, event: &Event, issues: &[ArgIssue]) {
        for (_, pass) in &mut self.members {
            pass.issues(rank, event, issues);
        }
    }

    /// Each check's findings, with its index in the registry.
    pub fn finish_each(self, tables: &RunTables) -> Vec<(usize, Vec<Diagnostic>)> {
        (self.members.into_iter())
            .map(|(index, pass)| (index, pass.diagnostics(tables)))
            .collect()
    }
}

impl EventPass for IssuePasses {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        let Some(facts) = event.facts().filter(|f| !f.arg_issues.is_empty()) else {
            return;
        };
        self.issues(rank, event, &facts.arg_issues);
    }
    /// (Every check's findings one after the other: the plan takes them apart with
    /// [`IssuePasses::finish_each`] instead.)
    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        (self.finish_each(tables).into_iter())
            .flat_map(|(_, found)| found)
            .collect()
    }
}
