//! The check catalogue as text: `mpicheck checks` (a table) and `mpicheck explain CODE`.

use mpicheck_analyzer::diagnostic::{CheckInfo, Severity};

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A table of code, name, category, default severity and summary, one check per line, in
/// the order given, columns aligned with spaces (no colors: it is read in pipes too).
pub fn render_check_list(checks: &[CheckInfo]) -> String {
    let header = ["CODE", "NAME", "CATEGORY", "SEVERITY", "SUMMARY"];
    let rows: Vec<[&str; 5]> = checks
        .iter()
        .map(|c| {
            [
                c.code,
                c.name,
                c.category.as_str(),
                severity(c.severity),
                c.summary,
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                // The last column is not padded, so lines carry no trailing spaces.
                line.push_str(cell);
            } else {
                line.push_str(cell);
                let pad = widths[i] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The documentation of one check: a heading line with code, name, category and severity,
/// the summary, then its docs (Markdown with the fixed headings).
pub fn render_explain(check: &CheckInfo) -> String {
    let head = format!(
        "{} {} ({}, {} by default)\n\n{}\n",
        check.code,
        check.name,
        check.category.as_str(),
        severity(check.severity),
        check.summary,
    );
    with_docs(head, check)
}

/// A check's docs page (`docs/checks/CODE.md`, see [`crate::docs_path`]): a title with code
/// and name, the category, default severity and summary, then its docs.
pub fn render_docs_page(check: &CheckInfo) -> String {
    let head = format!(
        "# {} {}\n\n{} ({} by default): {}\n\n`mpicheck explain {}` prints this page.\n",
        check.code,
        check.name,
        check.category.as_str(),
        severity(check.severity),
        check.summary,
        check.code,
    );
    with_docs(head, check)
}

/// `head`, then the check's docs after a blank line, when it has any.
fn with_docs(mut head: String, check: &CheckInfo) -> String {
    let docs = check.docs.trim();
    if !docs.is_empty() {
        head.push('\n');
        head.push_str(docs);
        head.push('\n');
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_analyzer::diagnostic::Category;

    const CHECKS: [CheckInfo; 2] = [
        CheckInfo {
            code: "DL001",
            name: "recv-cycle",
            category: Category::Deadlock,
            severity: Severity::Error,
            summary: "blocking receives wait for each other in a cycle",
            docs: "## What it does\n\nFinds cycles of blocking receives.\n",
        },
        CheckInfo {
            code: "RL001",
            name: "request-never-completed",
            category: Category::ResourceLeak,
            severity: Severity::Warning,
            summary: "a nonblocking request is never completed",
            docs: "",
        },
    ];

    #[test]
    fn list_is_an_aligned_table() {
        assert_eq!(
            render_check_list(&CHECKS),
            "\
CODE   NAME                     CATEGORY       SEVERITY  SUMMARY
DL001  recv-cycle               deadlock       error     blocking receives wait for each other in a cycle
RL001  request-never-completed  resource-leak  warning   a nonblocking request is never completed
"
        );
        assert_eq!(
            render_check_list(&[]),
            "CODE  NAME  CATEGORY  SEVERITY  SUMMARY\n"
        );
    }

    #[test]
    fn explain_shows_heading_and_docs() {
        let text = render_explain(&CHECKS[0]);
        assert!(text.starts_with(
            "DL001 recv-cycle (deadlock, error by default)\n\nblocking receives wait for each other in a cycle\n"
        ));
        assert!(text.ends_with("\n\n## What it does\n\nFinds cycles of blocking receives.\n"));
        // Empty docs leave no dangling blank lines.
        assert!(render_explain(&CHECKS[1]).ends_with("never completed\n"));
    }
}
