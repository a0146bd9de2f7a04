//! rustc-style terminal output through `codespan-reporting`.
//!
//! ```text
//! error[DL001]: ranks 0-3 wait for each other in a cycle of blocking receives
//!    ┌─ ring.c:12:5
//!    │
//! 12 │     MPI_Recv(&buf, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
//!    │     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
//!    │     │
//!    │     rank 0: waits for a message from rank 3
//!    │     ranks 1-3: wait for a message from their left neighbour
//! 13 │     MPI_Send(&buf, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
//!    │     ---------------------------------------------------- ranks 0-3: never reached
//!    │
//!    = note: a blocking receive returns only once a matching message has arrived
//!    = help: post the receive with MPI_Irecv before the send, or use MPI_Sendrecv
//!
//! mpicheck: for more about this check, run `mpicheck explain DL001`
//! mpicheck: 1 error
//! ```
//!
//! The primary label sits at the reporting rank's call (the first location), secondary
//! labels at the other ranks' calls; each label starts with its rank set. After the
//! findings, one line names the command that documents their checks (as rustc's
//! `--explain`). A location whose
//! source cannot be read (or has no file or line) is printed as a `= rank N: MPI_X at
//! file:line: label` line instead, so the place is never lost; without a file (a binary
//! without debug info) the line says what the binary tells: ``MPI_X in `foo`
//! (libfoo.so+0x1234)``. Colors come from the writer:
//! pass a `termcolor` stream built with the caller's `ColorChoice` (`Auto` gives colors on
//! a terminal and none when piped), or `NoColor` for plain text.

use std::io;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};
use mpicheck_analyzer::diagnostic::{Diagnostic, Location, Severity};
use termcolor::{ColorSpec, WriteColor};

use crate::ranks::format_ranks;
use crate::source::{call_span, SourceCache};
use crate::{binary_site_text, site_text, ReportInput, Summary, TOOL_NAME};

/// Renders every finding and the final summary line (`mpicheck: 2 errors, 1 warning` or
/// `mpicheck: no findings`).
pub fn render_terminal(w: &mut dyn WriteColor, input: &ReportInput<'_>) -> io::Result<()> {
    let mut sources = SourceCache::new(input.source_base);
    let mut files: SimpleFiles<String, String> = SimpleFiles::new();
    let mut file_ids: Vec<(String, usize)> = Vec::new();
    let config = Config::default();
    for d in input.findings {
        let cs = to_codespan(d, &mut sources, &mut files, &mut file_ids);
        term::emit_to_write_style(w, &config, &files, &cs).map_err(|e| match e {
            codespan_reporting::files::Error::Io(e) => e,
            other => io::Error::other(other.to_string()),
        })?;
    }
    write_explain_hint(w, input.findings)?;
    let beyond = input.hidden.beyond_cap;
    let not_shown = beyond.errors + beyond.warnings;
    if not_shown > 0 {
        writeln!(
            w,
            "{TOOL_NAME}: {} more {} not shown (--max-findings); the report files have them all",
            not_shown,
            if not_shown == 1 {
                "finding"
            } else {
                "findings"
            }
        )?;
    }
    write_summary(w, &Summary::of_input(input))
}

/// Where the docs of the shown findings' checks are, once for all of them.
fn write_explain_hint(w: &mut dyn WriteColor, findings: &[Diagnostic]) -> io::Result<()> {
    let mut codes: Vec<&str> = Vec::new();
    for d in findings {
        if !codes.contains(&d.code) {
            codes.push(d.code);
        }
    }
    match codes.as_slice() {
        [] => Ok(()),
        [one] => writeln!(
            w,
            "{TOOL_NAME}: for more about this check, run `{}`",
            crate::explain_command(one)
        ),
        several => writeln!(
            w,
            "{TOOL_NAME}: for more about these checks, run `{}` ({})",
            crate::explain_command("CODE"),
            several.join(", ")
        ),
    }
}

fn write_summary(w: &mut dyn WriteColor, summary: &Summary) -> io::Result<()> {
    w.set_color(ColorSpec::new().set_bold(true))?;
    write!(w, "{TOOL_NAME}: {}", summary.text())?;
    w.reset()?;
    writeln!(w)
}

/// The label text of a location: its rank set and what the call does.
pub(crate) fn label_text(l: &Location) -> String {
    format!("{}: {}", format_ranks(&l.ranks), l.label)
}

/// The one-line form of a location, for when its source line cannot be shown.
pub(crate) fn location_line(l: &Location) -> String {
    match site_text(l.file.as_deref(), l.line) {
        Some(site) => format!(
            "{}: {} at {site}: {}",
            format_ranks(&l.ranks),
            l.call,
            l.label
        ),
        None => format!(
            "{}: {} {}: {}",
            format_ranks(&l.ranks),
            l.call,
            binary_site_text(l).unwrap_or_else(|| "(call site unknown)".into()),
            l.label
        ),
    }
}

fn to_codespan(
    d: &Diagnostic,
    sources: &mut SourceCache<'_>,
    files: &mut SimpleFiles<String, String>,
    file_ids: &mut Vec<(String, usize)>,
) -> CsDiagnostic<usize> {
    let severity = match d.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
    };
    let mut labels = Vec::new();
    let mut unshown = Vec::new();
    for (i, l) in d.locations.iter().enumerate() {
        let shown = match (l.file.as_deref(), l.line) {
            (Some(file), Some(line)) => sources.line(file, line).map(|(range, text)| {
                let span = call_span(text, &l.call);
                (file, range.start + span.start..range.start + span.end)
            }),
            _ => None,
        };
        match shown {
            Some((file, range)) => {
                let id = match file_ids.iter().find(|(f, _)| f == file) {
                    Some(&(_, id)) => id,
                    None => {
                        let text = sources.text(file).unwrap_or_default().to_string();
                        let id = files.add(file.to_string(), text);
                        file_ids.push((file.to_string(), id));
                        id
                    }
                };
                let label = if i == 0 {
                    Label::primary(id, range)
                } else {
                    Label::secondary(id, range)
                };
                labels.push(label.with_message(label_text(l)));
            }
            None => unshown.push(location_line(l)),
        }
    }
    let mut notes = unshown;
    notes.extend(d.notes.iter().map(|n| format!("note: {n}")));
    notes.extend(d.help.iter().map(|h| format!("help: {h}")));
    CsDiagnostic::new(severity)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}
