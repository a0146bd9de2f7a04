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
pub mod fold;
pub mod html;
pub mod json;
pub mod ranks;
pub mod sarif;
mod source;
pub mod svg;
pub mod terminal;

pub use checks::{render_check_list, render_explain};
pub use dot::to_dot;
pub use fold::fold;
pub use html::write_html;
pub use json::write_json;
pub use ranks::{format_ranks, parse_ranks};
pub use sarif::write_sarif;
pub use terminal::render_terminal;

/// The tool's name as it appears in every report.
pub const TOOL_NAME: &str = "mpicheck";
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

/// Error and warning counts, as in the summary line and `report.json`'s `summary`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
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

    /// `2 errors, 1 warning`, `1 error`, `3 warnings` or `no findings`.
    pub fn text(&self) -> String {
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
        let s = |errors, warnings| Summary { errors, warnings }.text();
        assert_eq!(s(0, 0), "no findings");
        assert_eq!(s(1, 0), "1 error");
        assert_eq!(s(2, 1), "2 errors, 1 warning");
        assert_eq!(s(0, 3), "3 warnings");
        assert_eq!(s(1, 1), "1 error, 1 warning");
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
