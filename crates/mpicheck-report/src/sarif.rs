//! `report.sarif`: SARIF 2.1.0, for code-scanning services and editors.
//!
//! One run. The tool driver lists one rule per check passed in (id = check code, name =
//! the check's kebab-case name, `shortDescription` = its summary, `fullDescription` and
//! `help` = its docs, `defaultConfiguration.level` = its severity, `properties.docs` = the
//! docs page in the repository, `docs/checks/CODE.md`). Each finding is a result
//! with `ruleId` (and `ruleIndex` when the rule is in the list), `level` (`error` or
//! `warning`), the message, and:
//!
//! - `locations`: the reporting rank's call (the first location);
//! - `relatedLocations`: the other ranks' calls, each with a message naming its rank set;
//! - `properties`: `category`, `ranks` of every location, `notes` and `help`, which SARIF
//!   has no place for on a result;
//! - `graphs`: the wait-for graph, when there is one (SARIF's graph object: nodes with
//!   labels, edges between them).
//!
//! Relative source paths become URIs relative to the `SRCROOT` base id, which
//! `originalUriBaseIds` maps to the caller's source directory when that is absolute; absolute
//! paths become `file://` URIs. A location without file gets only a message (rank set, call
//! and label), as SARIF allows.

use std::io::{self, Write};
use std::path::Path;

use mpicheck_analyzer::diagnostic::{CheckInfo, Diagnostic, Location, Severity, WaitForGraph};
use serde_json::{json, Map, Value};

use crate::ranks::format_ranks;
use crate::{ReportInput, TOOL_NAME, TOOL_VERSION};

/// The `$schema` URI written into the log, as SARIF producers conventionally do.
pub const SARIF_SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The base id relative source paths are resolved against.
pub const SRCROOT: &str = "SRCROOT";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Percent-encodes what may not stand in a URI path (RFC 3986 `pchar` plus `/`).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'@' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `file://` URI of an absolute path; a directory URI ends in `/` (SARIF requires that for
/// base ids).
fn file_uri(path: &Path, directory: bool) -> String {
    let mut s = format!("file://{}", encode_path(&path.to_string_lossy()));
    if directory && !s.ends_with('/') {
        s.push('/');
    }
    s
}

fn artifact_location(file: &str) -> Value {
    let path = Path::new(file);
    if path.is_absolute() {
        json!({ "uri": file_uri(path, false) })
    } else {
        // `./src/a.c` and `src/a.c` are the same artifact; keep the URI canonical.
        let relative = file.trim_start_matches("./");
        json!({ "uri": encode_path(relative), "uriBaseId": SRCROOT })
    }
}

fn location(l: &Location, id: Option<usize>) -> Value {
    let mut loc = Map::new();
    if let Some(id) = id {
        loc.insert("id".into(), json!(id));
    }
    if let Some(file) = &l.file {
        let mut physical = Map::new();
        physical.insert("artifactLocation".into(), artifact_location(file));
        if let Some(line) = l.line.filter(|&n| n > 0) {
            physical.insert("region".into(), json!({ "startLine": line }));
        }
        loc.insert("physicalLocation".into(), Value::Object(physical));
    } else if let Some(object) = &l.object {
        // No source file (a binary without debug info): the binary is the artifact.
        loc.insert(
            "physicalLocation".into(),
            json!({ "artifactLocation": artifact_location(object) }),
        );
    }
    if let Some(function) = &l.function {
        loc.insert(
            "logicalLocations".into(),
            json!([{ "name": function, "kind": "function" }]),
        );
    }
    loc.insert(
        "message".into(),
        json!({ "text": format!("{}: {} {}", format_ranks(&l.ranks), l.call, l.label) }),
    );
    let mut properties = json!({ "ranks": l.ranks, "call": l.call });
    if let Some(object) = &l.object {
        properties["object"] = json!(object);
    }
    if let Some(offset) = l.offset {
        properties["offset"] = json!(offset);
    }
    loc.insert("properties".into(), properties);
    Value::Object(loc)
}

fn graph(g: &WaitForGraph) -> Value {
    let nodes: Vec<Value> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({
                "id": format!("n{i}"),
                "label": { "text": format!("{}: {}", format_ranks(&n.ranks), n.label) },
                "properties": {
                    "ranks": n.ranks,
                    "semantics": n.semantics,
                    "in_cycle": n.in_cycle,
                },
            })
        })
        .collect();
    let edges: Vec<Value> = g
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({
                "id": format!("e{i}"),
                "sourceNodeId": format!("n{}", e.from),
                "targetNodeId": format!("n{}", e.to),
                "label": { "text": e.label },
            })
        })
        .collect();
    json!({
        "description": { "text": "wait-for graph: an edge points from a blocked call to what it waits for" },
        "nodes": nodes,
        "edges": edges,
    })
}

fn rule(c: &CheckInfo) -> Value {
    json!({
        "id": c.code,
        "name": c.name,
        "shortDescription": { "text": c.summary },
        "fullDescription": { "text": c.docs },
        "help": { "text": c.docs, "markdown": c.docs },
        "defaultConfiguration": { "level": level(c.severity) },
        // No `helpUri`: SARIF wants an absolute URI there and the project publishes no
        // site; `help` carries the docs themselves and `docs` their page in the repository.
        "properties": { "category": c.category.as_str(), "docs": crate::docs_path(c.code) },
    })
}

fn result(d: &Diagnostic, checks: &[CheckInfo]) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), json!(d.code));
    if let Some(i) = checks.iter().position(|c| c.code == d.code) {
        r.insert("ruleIndex".into(), json!(i));
    }
    r.insert("level".into(), json!(level(d.severity)));
    r.insert("message".into(), json!({ "text": d.message }));
    if let Some(first) = d.locations.first() {
        r.insert("locations".into(), json!([location(first, None)]));
    }
    if d.locations.len() > 1 {
        let related: Vec<Value> = d.locations[1..]
            .iter()
            .enumerate()
            .map(|(i, l)| location(l, Some(i + 1)))
            .collect();
        r.insert("relatedLocations".into(), Value::Array(related));
    }
    if let Some(g) = &d.wait_for {
        r.insert("graphs".into(), json!([graph(g)]));
    }
    let mut props = Map::new();
    props.insert("category".into(), json!(d.category.as_str()));
    props.insert("notes".into(), json!(d.notes));
    if let Some(help) = &d.help {
        props.insert("help".into(), json!(help));
    }
    r.insert("properties".into(), Value::Object(props));
    Value::Object(r)
}

/// The SARIF log as a JSON value (what [`write_sarif`] writes).
pub fn to_sarif_value(input: &ReportInput<'_>, checks: &[CheckInfo]) -> Value {
    let mut run = Map::new();
    run.insert(
        "tool".into(),
        json!({
            "driver": {
                "name": TOOL_NAME,
                "version": TOOL_VERSION,
                "rules": checks.iter().map(rule).collect::<Vec<_>>(),
            }
        }),
    );
    // SARIF wants an absolute URI for a base id; a relative source base cannot be one, and
    // then consumers resolve SRCROOT themselves (as code-scanning services do).
    if input.source_base.is_absolute() {
        run.insert(
            "originalUriBaseIds".into(),
            json!({ SRCROOT: { "uri": file_uri(input.source_base, true) } }),
        );
    }
    let mut invocation = Map::new();
    invocation.insert(
        "executionSuccessful".into(),
        json!(input.run.exit_status == Some(0)),
    );
    if let Some(code) = input.run.exit_status {
        invocation.insert("exitCode".into(), json!(code));
    }
    invocation.insert(
        "commandLine".into(),
        json!(std::iter::once(input.run.program.as_str())
            .chain(input.run.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")),
    );
    invocation.insert(
        "properties".into(),
        json!({
            "mpi_family": input.run.mpi_family,
            "ranks": input.run.ranks,
            "trace_ends": input.run.trace_ends,
        }),
    );
    run.insert("invocations".into(), json!([invocation]));
    run.insert(
        "results".into(),
        Value::Array(input.findings.iter().map(|d| result(d, checks)).collect()),
    );
    json!({
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [Value::Object(run)],
    })
}

/// Writes `report.sarif` (pretty-printed, final newline). `checks` is the check catalogue;
/// each becomes a rule of the tool driver.
pub fn write_sarif(
    w: &mut dyn Write,
    input: &ReportInput<'_>,
    checks: &[CheckInfo],
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &to_sarif_value(input, checks))?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uris() {
        assert_eq!(encode_path("src/a b%.c"), "src/a%20b%25.c");
        assert_eq!(encode_path("dir/ü.f90"), "dir/%C3%BC.f90");
        assert_eq!(
            artifact_location("./src/ring.c"),
            json!({"uri": "src/ring.c", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            artifact_location("/home/me/ring #2.c"),
            json!({"uri": "file:///home/me/ring%20%232.c"})
        );
        assert_eq!(file_uri(Path::new("/src"), true), "file:///src/");
        assert_eq!(file_uri(Path::new("/src/"), true), "file:///src/");
    }
}
