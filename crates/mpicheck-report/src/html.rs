//! `report.html`: one self-contained page (inline CSS and SVG, no scripts, nothing loaded
//! from the network) with the run, the findings (the same content as the terminal: message,
//! each location with its rank set, call, `file:line`, label and source line, notes, help),
//! a drawing of each wait-for graph with its DOT text, and a per-rank timeline of the last
//! calls when the caller passes timelines.
//!
//! The page is also well-formed XML (polyglot markup), so tests parse it with an XML parser.

use std::io::{self, Write};

use mpicheck_analyzer::diagnostic::{Diagnostic, Location, Severity};

use crate::dot::to_dot;
use crate::ranks::format_ranks;
use crate::source::{call_span, SourceCache};
use crate::svg::{to_svg, xml_escape as esc, SVG_CSS};
use crate::{
    binary_site_text, site_text, RankTimeline, ReportInput, RunInfo, Summary, TOOL_NAME,
    TOOL_VERSION,
};

/// The page's own style (the graph has [`SVG_CSS`]).
pub const PAGE_CSS: &str = r#"
:root { --err: #c0392b; --warn: #b9770e; --muted: #666; --line: #ddd; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid var(--line); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table.run { border-collapse: collapse; }
table.run th { text-align: left; color: var(--muted); font-weight: normal; padding: 0.15em 1em 0.15em 0; vertical-align: top; }
.summary { font-weight: bold; font-size: 1.1em; }
.summary.clean { color: #1e8449; }
.finding { border: 1px solid var(--line); border-left: 5px solid var(--err); border-radius: 4px; padding: 0.5em 1em; margin: 1em 0; }
.finding.warning { border-left-color: var(--warn); }
.finding h3 { font-size: 1.05em; margin: 0.3em 0 0.6em; }
.sev { font-weight: bold; color: var(--err); }
.warning .sev { color: var(--warn); }
.category { color: var(--muted); font-size: 0.9em; margin-left: 0.5em; }
.loc { margin: 0.5em 0; }
.loc .head { font-size: 0.95em; }
.loc.primary .head .ranks { color: var(--err); font-weight: bold; }
.warning .loc.primary .head .ranks { color: var(--warn); }
.loc .site { color: var(--muted); }
pre.src { background: #f7f7f7; border: 1px solid var(--line); padding: 0.3em 0.6em; margin: 0.2em 0 0; overflow-x: auto; }
pre.src .ln { color: var(--muted); user-select: none; }
pre.src mark { background: #fde2e1; color: inherit; border-bottom: 2px solid var(--err); }
.warning pre.src mark { background: #fcf3cf; border-bottom-color: var(--warn); }
.loc.secondary pre.src mark { background: #e8f1fb; border-bottom-color: #2e86c1; }
.nosrc { color: var(--muted); font-style: italic; font-size: 0.9em; }
ul.notes { list-style: none; padding-left: 0; margin: 0.6em 0 0.3em; }
ul.notes li { margin: 0.2em 0; }
ul.notes b { color: var(--muted); }
figure { margin: 1em 0; }
figcaption { color: var(--muted); font-size: 0.9em; }
details pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; }
.timeline { display: grid; grid-template-columns: max-content 1fr; gap: 0.4em 1em; align-items: start; }
.timeline .rank { font-weight: bold; padding-top: 0.3em; }
.timeline ol { list-style: none; display: flex; flex-wrap: wrap; gap: 0.3em; margin: 0; padding: 0; }
.timeline li { border: 1px solid var(--line); border-radius: 4px; padding: 0.2em 0.5em; background: #f4f4f4; }
.timeline li small { display: block; color: var(--muted); }
.timeline li.blocked { border: 2px solid var(--err); background: #fde2e1; }
.timeline li.blocked::after { content: "still inside when the trace ended"; display: block; font-size: 0.75em; color: var(--err); }
footer { margin-top: 3em; color: var(--muted); font-size: 0.85em; }
"#;

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn run_section(out: &mut String, run: &RunInfo) {
    let mut row = |k: &str, v: String| {
        out.push_str(&format!("<tr><th>{k}</th><td>{v}</td></tr>\n"));
    };
    let command = std::iter::once(run.program.as_str())
        .chain(run.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    row("program", format!("<code>{}</code>", esc(&command)));
    row("MPI", esc(run.mpi_family.as_deref().unwrap_or("unknown")));
    row("ranks", run.ranks.to_string());
    row(
        "exit status",
        run.exit_status
            .map_or("none (killed, or ended by mpicheck)".to_string(), |c| {
                c.to_string()
            }),
    );
    // One line per distinct way of ending, with its rank set.
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for t in &run.trace_ends {
        let text = match &t.reason {
            Some(r) => format!("{}: {r}", t.state.as_str()),
            None => t.state.as_str().to_string(),
        };
        match groups.iter_mut().find(|(g, _)| *g == text) {
            Some((_, ranks)) => ranks.push(t.rank),
            None => groups.push((text, vec![t.rank])),
        }
    }
    if !groups.is_empty() {
        let lines: Vec<String> = groups
            .iter()
            .map(|(text, ranks)| format!("{}: {}", esc(&format_ranks(ranks)), esc(text)))
            .collect();
        row("traces", lines.join("<br/>"));
    }
}

fn location_html(out: &mut String, l: &Location, primary: bool, sources: &mut SourceCache<'_>) {
    let site = site_text(l.file.as_deref(), l.line);
    // Without a file, what the binary tells (function, object+offset), with the object's
    // full path on hover.
    let binary_site = binary_site_text(l).filter(|_| site.is_none());
    let site_html = match (&site, &binary_site) {
        (Some(s), _) => format!(" <span class=\"site mono\">at {}</span>", esc(s)),
        (None, Some(b)) => format!(
            " <span class=\"site mono\" title=\"{}\">{}</span>",
            esc(l.object.as_deref().unwrap_or_default()),
            esc(b)
        ),
        (None, None) => String::new(),
    };
    out.push_str(&format!(
        "<div class=\"loc {}\"><div class=\"head\"><span class=\"ranks\">{}</span> · <code>{}</code>{} — {}</div>\n",
        if primary { "primary" } else { "secondary" },
        esc(&format_ranks(&l.ranks)),
        esc(&l.call),
        site_html,
        esc(&l.label),
    ));
    let line = match (l.file.as_deref(), l.line) {
        (Some(f), Some(n)) => sources.line(f, n).map(|(_, text)| (n, text.to_string())),
        _ => None,
    };
    match line {
        Some((n, text)) => {
            let span = call_span(&text, &l.call);
            out.push_str(&format!(
                "<pre class=\"src\"><span class=\"ln\">{n:>4} │ </span>{}<mark>{}</mark>{}</pre>\n",
                esc(&text[..span.start]),
                esc(&text[span.clone()]),
                esc(&text[span.end..]),
            ));
        }
        None if site.is_none() && binary_site.is_some() => {
            let hint = match (&l.object, l.offset) {
                (Some(object), Some(offset)) => {
                    format!(
                        "no debug info; try <code>addr2line -Cfe {} {offset:#x}</code>",
                        esc(object)
                    )
                }
                _ => "no debug info".to_string(),
            };
            out.push_str(&format!("<div class=\"nosrc\">{hint}</div>\n"));
        }
        None if site.is_some() => {
            out.push_str("<div class=\"nosrc\">source not available</div>\n");
        }
        None => out.push_str("<div class=\"nosrc\">call site unknown</div>\n"),
    }
    out.push_str("</div>\n");
}

fn finding_html(out: &mut String, index: usize, d: &Diagnostic, sources: &mut SourceCache<'_>) {
    let sev = severity_word(d.severity);
    out.push_str(&format!(
        "<section class=\"finding {sev}\" id=\"finding-{index}\">\n<h3><span class=\"sev\">{sev}[{}]</span>: {}<span class=\"category\">{}</span></h3>\n",
        esc(d.code),
        esc(&d.message),
        d.category.as_str(),
    ));
    for (i, l) in d.locations.iter().enumerate() {
        location_html(out, l, i == 0, sources);
    }
    if !d.notes.is_empty() || d.help.is_some() {
        out.push_str("<ul class=\"notes\">\n");
        for n in &d.notes {
            out.push_str(&format!("<li><b>note:</b> {}</li>\n", esc(n)));
        }
        if let Some(h) = &d.help {
            out.push_str(&format!("<li><b>help:</b> {}</li>\n", esc(h)));
        }
        out.push_str("</ul>\n");
    }
    // The report is one self-contained file, opened away from the repository: the check's
    // docs travel inside it, folded, with where to find them again.
    if let Some(check) = mpicheck_analyzer::checks::catalogue()
        .iter()
        .find(|c| c.code == d.code)
    {
        out.push_str(&format!(
            "<details class=\"docs\"><summary>about {code}: {} (<code>{}</code>, <code>{}</code>)</summary><pre>{}</pre></details>\n",
            esc(check.summary),
            esc(&crate::explain_command(d.code)),
            esc(&crate::docs_path(d.code)),
            esc(&crate::render_explain(check)),
            code = esc(d.code),
        ));
    }
    if let Some(g) = &d.wait_for {
        out.push_str("<figure>\n");
        out.push_str(&to_svg(g, &format!("wf{index}")));
        out.push_str("\n<figcaption>wait-for graph: an arrow points from a blocked call to what it waits for</figcaption>\n</figure>\n");
        out.push_str(&format!(
            "<details><summary>DOT</summary><pre>{}</pre></details>\n",
            esc(&to_dot(g))
        ));
    }
    out.push_str("</section>\n");
}

fn timeline_section(out: &mut String, timelines: &[RankTimeline]) {
    out.push_str("<h2 id=\"timeline\">Last calls of each rank</h2>\n<div class=\"timeline\">\n");
    for t in timelines {
        out.push_str(&format!("<div class=\"rank\">rank {}</div><ol>", t.rank));
        for c in &t.calls {
            out.push_str(&format!(
                "<li class=\"{}\"><code>{}</code>{}</li>",
                if c.returned { "returned" } else { "blocked" },
                esc(&c.call),
                c.site
                    .as_ref()
                    .map(|s| format!("<small class=\"mono\">{}</small>", esc(s)))
                    .unwrap_or_default(),
            ));
        }
        if t.calls.is_empty() {
            out.push_str("<li class=\"returned\">no calls recorded</li>");
        }
        out.push_str("</ol>\n");
    }
    out.push_str("</div>\n");
}

/// The page as a string (what [`write_html`] writes).
pub fn render_html(input: &ReportInput<'_>) -> String {
    let mut sources = SourceCache::new(input.source_base);
    let summary = Summary::of_input(input);
    let mut out = String::new();
    out.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{TOOL_NAME} report: {}</title>\n<style>{PAGE_CSS}{SVG_CSS}</style>\n</head>\n<body>\n<h1>{TOOL_NAME} report</h1>\n",
        esc(&input.run.program)
    ));
    out.push_str("<table class=\"run\">\n");
    run_section(&mut out, input.run);
    out.push_str("</table>\n");
    out.push_str(&format!(
        "<p class=\"summary{}\">{TOOL_NAME}: {}</p>\n",
        if input.findings.is_empty() {
            " clean"
        } else {
            ""
        },
        summary.text()
    ));
    if !input.findings.is_empty() {
        out.push_str("<h2 id=\"findings\">Findings</h2>\n");
        for (i, d) in input.findings.iter().enumerate() {
            finding_html(&mut out, i + 1, d, &mut sources);
        }
    }
    if !input.timelines.is_empty() {
        timeline_section(&mut out, input.timelines);
    }
    out.push_str(&format!(
        "<footer>generated by {TOOL_NAME} {TOOL_VERSION}</footer>\n</body>\n</html>\n"
    ));
    out
}

/// Writes `report.html`.
pub fn write_html(w: &mut dyn Write, input: &ReportInput<'_>) -> io::Result<()> {
    w.write_all(render_html(input).as_bytes())
}
