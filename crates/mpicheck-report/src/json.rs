//! `report.json`: the machine-readable report, for CI and for tier-2 tests.
//!
//! # Schema (version 1)
//!
//! The JSON Schema is `docs/report.schema.json`; `docs/report-schema.md` explains it. A
//! report is one object:
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "tool": { "name": "mpicheck", "version": "0.1.0" },
//!   "run": {
//!     "program": "./ring", "args": ["10"], "mpi_family": "mpich", "ranks": 4,
//!     "exit_status": null,
//!     "trace_ends": [ { "rank": 0, "state": "interrupted", "reason": "killed after 10 s" } ]
//!   },
//!   "findings": [ {
//!     "code": "DL001", "category": "deadlock", "severity": "error",
//!     "message": "ranks 0-3 wait for each other in a receive cycle",
//!     "ranks": [0, 1, 2, 3], "message_ranks": [[0, 1, 2, 3]],
//!     "locations": [ { "rank": 0, "ranks": [0], "call": "MPI_Recv", "file": "ring.c",
//!                      "line": 14, "label": "waits for a message from rank 3" } ],
//!     "notes": ["a blocking receive returns only once a matching message arrives"],
//!     "help": "post the receives with MPI_Irecv before sending",
//!     "wait_for": { "nodes": [ { "ranks": [0], "label": "MPI_Recv at ring.c:14",
//!                                "semantics": "and", "in_cycle": true } ],
//!                   "edges": [ { "from": 0, "to": 0, "label": "message tag 0" } ] },
//!     "explain": "mpicheck explain DL001", "docs": "docs/checks/DL001.md"
//!   } ],
//!   "summary": { "errors": 1, "warnings": 0, "suppressed": 0, "below_threshold": 0 }
//! }
//! ```
//!
//! - `schema_version` changes only when a field is removed or changes meaning; new fields
//!   may appear in version 1 (readers ignore what they do not know).
//! - `severity` is `"error"` or `"warning"`; `category` one of the kebab-case
//!   [`Category`](mpicheck_analyzer::diagnostic::Category) names.
//! - In a location, `ranks` lists every rank (sorted) for which this call plays this role
//!   and `rank` is the first of them; `file` and `line` are `null` when unknown. The first
//!   location is the reporting rank's call.
//! - `explain` is the command that prints the check's docs (what it detects, why it is
//!   wrong, how to fix it, the MPI standard's section); `docs` the same text's page in the
//!   repository.
//! - `ranks` are the reporting ranks (those of the first location); `message_ranks` the
//!   rank sets the message names, in order, so that no one has to parse them out of it.
//! - `help` and `wait_for` are `null` when absent; `exit_status` is `null` when the launcher
//!   was killed, mpicheck ended the job (a deadlock), or its status is unknown; `reason` appears only on interrupted traces.
//! - `wait_for.edges[].from`/`to` index `wait_for.nodes`; `semantics` is `"and"` (the node
//!   needs all its out-edges) or `"or"` (any one suffices); `in_cycle` marks the nodes of
//!   the cycle or knot itself.
//! - `summary` counts the findings by severity, and the findings left out by the
//!   suppression file (`suppressed`) and by the severity threshold (`below_threshold`).
//!   `--max-findings` never shortens `report.json`.

use std::io::{self, Write};

use mpicheck_analyzer::diagnostic::{Diagnostic, Location, WaitForGraph};
use mpicheck_analyzer::model::Rank;
use mpicheck_analyzer::text::Text;
use serde::Serialize;

use crate::{ReportInput, RunInfo, Summary, TOOL_NAME, TOOL_VERSION};

/// The version of the layout above.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    schema_version: u32,
    tool: Tool,
    run: &'a RunInfo,
    findings: Vec<Finding<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Finding<'a> {
    code: &'a str,
    category: &'static str,
    severity: mpicheck_analyzer::diagnostic::Severity,
    message: &'a str,
    /// The reporting ranks: those of the first location.
    ranks: &'a [Rank],
    /// The rank sets the message names, in order (its typed rank slots).
    message_ranks: Vec<&'a [Rank]>,
    locations: Vec<JsonLocation<'a>>,
    notes: &'a [Text],
    help: Option<&'a str>,
    wait_for: Option<&'a WaitForGraph>,
    /// The communicator the finding is about, when it is about one.
    communicator: Option<&'a str>,
    /// The message tag the finding is about, when it is about one.
    tag: Option<i32>,
    /// The command that prints the check's docs.
    explain: String,
    /// The check's docs page in the repository.
    docs: String,
}

#[derive(Serialize)]
struct JsonLocation<'a> {
    rank: Option<Rank>,
    ranks: &'a [Rank],
    call: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    function: Option<&'a str>,
    object: Option<&'a str>,
    offset: Option<u64>,
    label: &'a str,
}

impl<'a> From<&'a Location> for JsonLocation<'a> {
    fn from(l: &'a Location) -> Self {
        JsonLocation {
            rank: l.ranks.first().copied(),
            ranks: &l.ranks,
            call: &l.call,
            file: l.file.as_deref(),
            line: l.line,
            function: l.function.as_deref(),
            object: l.object.as_deref(),
            offset: l.offset,
            label: &l.label,
        }
    }
}

impl<'a> From<&'a Diagnostic> for Finding<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        Finding {
            code: d.code,
            category: d.category.as_str(),
            severity: d.severity,
            message: &d.message,
            ranks: d.locations.first().map_or(&[], |l| &l.ranks),
            message_ranks: d.message.rank_slots().map(|r| r.as_slice()).collect(),
            locations: d.locations.iter().map(JsonLocation::from).collect(),
            notes: &d.notes,
            help: d.help.as_deref(),
            wait_for: d.wait_for.as_ref(),
            communicator: d.communicator.as_deref(),
            tag: d.tag,
            explain: crate::explain_command(d.code),
            docs: crate::docs_path(d.code),
        }
    }
}

/// The report as a JSON value (what [`write_json`] writes).
pub fn to_json_value(input: &ReportInput<'_>) -> serde_json::Value {
    serde_json::to_value(report(input)).expect("the report has only string keys")
}

fn report<'a>(input: &ReportInput<'a>) -> Report<'a> {
    Report {
        schema_version: SCHEMA_VERSION,
        tool: Tool {
            name: TOOL_NAME,
            version: TOOL_VERSION,
        },
        run: input.run,
        findings: input.findings.iter().map(Finding::from).collect(),
        summary: Summary::of_input(input),
    }
}

/// Writes `report.json` (pretty-printed, with a final newline). See the module docs for the
/// schema.
pub fn write_json(w: &mut dyn Write, input: &ReportInput<'_>) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &report(input))?;
    w.write_all(b"\n")
}
