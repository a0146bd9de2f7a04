//! Renders mpicheck findings for people and for CI.
//!
//! Every format renders the same [`Diagnostic`] values (conventions §4): the terminal
//! ([`render_terminal`], rustc style), `report.json` ([`write_json`]), `report.sarif`
//! ([`write_sarif`]) and a self-contained `report.html` ([`write_html`]), plus DOT text of a
//! wait-for graph ([`to_dot`]) and the check catalogue ([`render_check_list`],
//! [`render_explain`]).
//!
//! Renderers show the findings as given; call [`fold()`] first to merge the same finding
//! reported by many ranks into one.

use std::path::Path;

use mpicheck_analyzer::diagnostic::{Diagnostic, Severity};
use mpicheck_analyzer::model::{Rank, RankEnd, Run};
use serde::Serialize;

pub mod checks;
pub mod dot;
pub mod filter;
pub mod fold;
pub mod html;
pub mod json;
pub mod sarif;
mod source;
pub mod svg;
pub mod terminal;

pub use checks::{render_check_list, render_docs_page, render_explain};
pub use dot::to_dot;
pub use filter::{cap, Selected, Selection, Suppressions};
pub use fold::fold;
pub use html::write_html;
pub use json::write_json;
pub use mpicheck_analyzer::ranks::{self, format_ranks, parse_ranks};
pub use sarif::write_sarif;
pub use terminal::render_terminal;

/// The tool's name as it appears in every report.
pub const TOOL_NAME: &str = "mpicheck";
/// The command that prints a check's docs (linked from every finding).
pub fn explain_command(code: &str) -> String {
    format!("{TOOL_NAME} explain {code}")
}

/// The page of a check's docs, relative to the repository root: `docs/checks/DL001.md`.
/// The pages are [`render_explain`]'s text, kept in sync with the catalogue by a test
/// (`tests/check_docs.rs`). A repository path and not a URL: the project publishes no site,
/// and the path works in every checkout and on any forge the repository is hosted on.
pub fn docs_path(code: &str) -> String {
    format!("docs/checks/{code}.md")
}

/// This crate's version, reported as the tool version.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything a report shows.
#[derive(Clone, Copy, Debug)]
pub struct ReportInput<'a> {
    pub run: &'a RunInfo,
    pub findings: &'a [Diagnostic],
    /// The last calls of each rank, for the timeline of the HTML report; empty for none.
    pub timelines: &'a [RankTimeline],
    /// Relative source paths in locations are resolved against this directory (usually the
    /// directory the program was built in).
    pub source_base: &'a Path,
    /// Findings left out of `findings` and how: counted in the summary.
    pub hidden: Hidden,
}

/// Findings a report does not show, for its summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Matched an entry of the suppression file.
    pub suppressed: usize,
    /// Below the severity threshold (`--severity`).
    pub below_threshold: usize,
    /// Beyond `--max-findings`: still counted as errors and warnings, only not rendered.
    pub beyond_cap: Summary,
}

/// What was run and how it ended: the `run` object of `report.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunInfo {
    /// The program as launched (path or name).
    pub program: String,
    pub args: Vec<String>,
    /// `mpich`, `openmpi`, `mpi-abi`, ... `None` when not known.
    pub mpi_family: Option<String>,
    /// Number of ranks (size of `MPI_COMM_WORLD`).
    pub ranks: u32,
    /// Exit status of the launcher, `None` when it was killed or is unknown.
    pub exit_status: Option<i32>,
    /// How each rank's trace ended.
    pub trace_ends: Vec<TraceEnd>,
}

/// How one rank's trace ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceEnd {
    pub rank: Rank,
    pub state: TraceEndState,
    /// What the reader found, for interrupted traces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceEndState {
    Finalized,
    ExitedWithoutFinalize,
    Interrupted,
}

impl TraceEnd {
    pub fn new(rank: Rank, end: &RankEnd) -> TraceEnd {
        let (state, reason) = match end {
            RankEnd::Finalized => (TraceEndState::Finalized, None),
            RankEnd::ExitedWithoutFinalize => (TraceEndState::ExitedWithoutFinalize, None),
            RankEnd::Interrupted { reason } => (TraceEndState::Interrupted, Some(reason.clone())),
            RankEnd::AbortedInCall { call, .. } => (
                TraceEndState::Interrupted,
                Some(format!("MPI aborted the job inside {call}")),
            ),
        };
        TraceEnd {
            rank,
            state,
            reason,
        }
    }

    /// The end states of every rank of an analyzed run.
    pub fn from_run(run: &Run) -> Vec<TraceEnd> {
        run.ranks
            .iter()
            .map(|r| TraceEnd::new(r.rank, &r.end))
            .collect()
    }
}

impl TraceEndState {
    pub fn as_str(self) -> &'static str {
        match self {
            TraceEndState::Finalized => "finalized",
            TraceEndState::ExitedWithoutFinalize => "exited-without-finalize",
            TraceEndState::Interrupted => "interrupted",
        }
    }
}

/// The last calls of one rank, oldest first, for the HTML timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankTimeline {
    pub rank: Rank,
    pub calls: Vec<TimelineCall>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimelineCall {
    /// The MPI function, e.g. `MPI_Send`.
    pub call: String,
    /// `file:line` of the call site, if known.
    pub site: Option<String>,
    /// False when the rank was still inside this call when its trace ended.
    pub returned: bool,
}

/// Error and warning counts, as in the summary line and `report.json`'s `summary`, with the
/// findings left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    /// Left out by the suppression file.
    pub suppressed: usize,
    /// Left out by the severity threshold.
    pub below_threshold: usize,
}

impl Summary {
    pub fn of(findings: &[Diagnostic]) -> Summary {
        let mut s = Summary::default();
        for d in findings {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
            }
        }
        s
    }

    /// The summary of a report: its findings, those beyond the cap, and those left out.
    pub fn of_input(input: &ReportInput<'_>) -> Summary {
        let shown = Summary::of(input.findings);
        Summary {
            errors: shown.errors + input.hidden.beyond_cap.errors,
            warnings: shown.warnings + input.hidden.beyond_cap.warnings,
            suppressed: input.hidden.suppressed,
            below_threshold: input.hidden.below_threshold,
        }
    }

    /// `2 errors, 1 warning`, `1 error`, `3 warnings` or `no findings`, followed by what was
    /// left out: `1 error (2 suppressed, 1 below the severity threshold)`.
    pub fn text(&self) -> String {
        let mut text = self.counts_text();
        let mut left_out = Vec::new();
        if self.suppressed > 0 {
            left_out.push(format!("{} suppressed", self.suppressed));
        }
        if self.below_threshold > 0 {
            left_out.push(format!(
                "{} below the severity threshold",
                self.below_threshold
            ));
        }
        if !left_out.is_empty() {
            text.push_str(&format!(" ({})", left_out.join(", ")));
        }
        text
    }

    fn counts_text(&self) -> String {
        fn count(n: usize, one: &str) -> String {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {one}s")
            }
        }
        match (self.errors, self.warnings) {
            (0, 0) => "no findings".to_string(),
            (e, 0) => count(e, "error"),
            (0, w) => count(w, "warning"),
            (e, w) => format!("{}, {}", count(e, "error"), count(w, "warning")),
        }
    }
}

/// `file:line`, `file` or `None`, as every format prints a location.
/// Where a call without a source file is, from what the binary still tells
/// ([`mpicheck_analyzer::model::binary_place`]): "in `foo` (libfoo.so+0x1234)", "in `foo`"
/// or "at hpcc+0x1234". `None` when nothing is known.
pub(crate) fn binary_site_text(l: &mpicheck_analyzer::diagnostic::Location) -> Option<String> {
    mpicheck_analyzer::model::binary_place(l.function.as_deref(), l.object.as_deref(), l.offset)
}

pub(crate) fn site_text(file: Option<&str>, line: Option<u32>) -> Option<String> {
    match (file, line) {
        (Some(f), Some(l)) => Some(format!("{f}:{l}")),
        (Some(f), None) => Some(f.to_string()),
        (None, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_text() {
        let s = |errors, warnings| {
            Summary {
                errors,
                warnings,
                ..Summary::default()
            }
            .text()
        };
        assert_eq!(s(0, 0), "no findings");
        assert_eq!(s(1, 0), "1 error");
        assert_eq!(s(2, 1), "2 errors, 1 warning");
        assert_eq!(s(0, 3), "3 warnings");
        assert_eq!(s(1, 1), "1 error, 1 warning");
        let left_out = |suppressed, below_threshold| {
            Summary {
                errors: 1,
                suppressed,
                below_threshold,
                ..Summary::default()
            }
            .text()
        };
        assert_eq!(left_out(2, 0), "1 error (2 suppressed)");
        assert_eq!(
            left_out(2, 1),
            "1 error (2 suppressed, 1 below the severity threshold)"
        );
        assert_eq!(
            Summary {
                below_threshold: 3,
                ..Summary::default()
            }
            .text(),
            "no findings (3 below the severity threshold)"
        );
    }

    #[test]
    fn trace_ends_from_rank_end() {
        let t = TraceEnd::new(
            3,
            &RankEnd::Interrupted {
                reason: "killed by the launcher after 10 s without progress".into(),
            },
        );
        assert_eq!(t.state, TraceEndState::Interrupted);
        assert_eq!(
            t.reason.as_deref(),
            Some("killed by the launcher after 10 s without progress")
        );
        assert_eq!(TraceEnd::new(0, &RankEnd::Finalized).reason, None);
    }
}
