//! Meta-tests of the check catalogue (clippy keeps every lint documented and tested the same
//! way): whatever `catalogue()` holds, every check must have
//! - a well-formed stable code, a kebab-case name and a one-line summary;
//! - docs with the five fixed headings, in order, none of them empty, and a code example;
//! - a tier-2 program in `tests/programs/` that expects the code (`expect: CODE`), and a
//!   correct program there (`expect: none`) exists;
//! - a tier-1 test in this crate that names the code and runs the checks on a trace.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use mpicheck_analyzer::checks::catalogue;
use mpicheck_analyzer::diagnostic::CheckInfo;

const HEADINGS: [&str; 5] = [
    "## What it does",
    "## Why is this bad",
    "## Example",
    "## How to fix",
    "## MPI standard reference",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate sits in crates/")
        .to_path_buf()
}

fn is_code(s: &str) -> bool {
    s.len() == 5
        && s[..2].bytes().all(|b| b.is_ascii_uppercase())
        && s[2..].bytes().all(|b| b.is_ascii_digit())
}

/// The text under each heading, in the order the headings appear.
fn sections(docs: &str) -> Vec<(&str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for line in docs.lines() {
        if line.starts_with("## ") {
            out.push((line.trim_end(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// Problems with one check's identity and docs.
fn doc_problems(c: &CheckInfo) -> Vec<String> {
    let mut p = Vec::new();
    if !is_code(c.code) {
        p.push(format!(
            "code `{}` is not two capitals and three digits",
            c.code
        ));
    }
    if c.name.is_empty()
        || !c
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        p.push(format!("name `{}` is not kebab-case", c.name));
    }
    let summary = c.summary.trim();
    if summary.is_empty() || summary.ends_with('.') || summary.contains('\n') {
        p.push("summary must be one line without a trailing period".into());
    }
    // An MPI name may open it (`MPI_Finalize is called ...`); prose may not.
    if summary.chars().next().is_some_and(char::is_uppercase) && !summary.starts_with("MPI_") {
        p.push("summary starts lowercase, like the messages".into());
    }
    let found = sections(c.docs);
    let headings: Vec<&str> = found.iter().map(|(h, _)| *h).collect();
    if headings != HEADINGS {
        p.push(format!(
            "docs headings are {headings:?}, expected exactly {HEADINGS:?} in this order"
        ));
    }
    for (heading, body) in &found {
        if body.trim().is_empty() {
            p.push(format!("`{heading}` is empty"));
        }
    }
    if let Some((_, example)) = found.iter().find(|(h, _)| *h == "## Example") {
        if !example.contains("```") {
            p.push("`## Example` has no code block".into());
        }
    }
    if let Some((_, reference)) = found
        .iter()
        .find(|(h, _)| *h == "## MPI standard reference")
    {
        if !reference.contains("MPI") || !reference.bytes().any(|b| b.is_ascii_digit()) {
            p.push("`## MPI standard reference` names no section (`MPI 4.1 §3.4`)".into());
        }
    }
    p
}

/// The codes each tier-2 program expects, from its `expect:` comments.
fn tier2_expectations() -> Vec<(String, BTreeSet<String>)> {
    let dir = workspace().join("tests/programs");
    let mut out = Vec::new();
    for entry in fs::read_dir(&dir).expect("tests/programs exists") {
        let path = entry.unwrap().path();
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let mut codes = BTreeSet::new();
        for line in text.lines() {
            let Some((_, rest)) = line.split_once("expect:") else {
                continue;
            };
            let rest = rest.split("*/").next().unwrap_or(rest);
            for word in rest.split(|c: char| !c.is_ascii_alphanumeric()) {
                if is_code(word) || word == "none" {
                    codes.insert(word.to_string());
                }
            }
        }
        out.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            codes,
        ));
    }
    out.sort();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Test code of this crate: `tests/**.rs`, `src/**/tests.rs`, and what follows `#[cfg(test)]` in `src/**.rs`
/// (where the definitions of the codes are not).
fn tier1_sources() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    for path in files {
        if path.file_name().is_some_and(|n| n == "catalogue.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        out.push((path, text));
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        // A `tests.rs` is a test module (`#[cfg(test)] mod tests;` in its parent) as a whole.
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            out.push((path, text));
        } else if let Some(at) = text.find("#[cfg(test)]") {
            out.push((path, text[at..].to_string()));
        }
    }
    out
}

/// A tier-1 test of `code`: test code that names it and runs the checks on a trace.
fn has_tier1_test(code: &str, sources: &[(PathBuf, String)]) -> bool {
    let quoted = format!("\"{code}\"");
    sources.iter().any(|(_, text)| {
        text.contains(&quoted)
            && (text.contains("run_all(")
                || text.contains("actual_deadlock(")
                || text.contains("text_trace"))
    })
}

#[test]
fn every_check_is_documented() {
    let mut problems = Vec::new();
    for c in catalogue() {
        for p in doc_problems(c) {
            problems.push(format!("{}: {p}", c.code));
        }
    }
    let mut codes: Vec<&str> = catalogue().iter().map(|c| c.code).collect();
    codes.sort_unstable();
    for pair in codes.windows(2) {
        if pair[0] == pair[1] {
            problems.push(format!("{}: code used twice", pair[0]));
        }
    }
    let mut names: Vec<&str> = catalogue().iter().map(|c| c.name).collect();
    names.sort_unstable();
    for pair in names.windows(2) {
        if pair[0] == pair[1] {
            problems.push(format!("name `{}` used twice", pair[0]));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_check_has_a_tier2_program_and_a_tier1_test() {
    let programs = tier2_expectations();
    assert!(
        programs.iter().any(|(_, codes)| codes.contains("none")),
        "no correct program (`expect: none`) in tests/programs"
    );
    let sources = tier1_sources();
    let mut problems = Vec::new();
    for c in catalogue() {
        if !programs.iter().any(|(_, codes)| codes.contains(c.code)) {
            problems.push(format!(
                "{}: no program in tests/programs/ expects it (add one with `/* expect: {} */` on the line, and its correct twin)",
                c.code, c.code
            ));
        }
        if !has_tier1_test(c.code, &sources) {
            problems.push(format!(
                "{}: no test in crates/mpicheck-analyzer names \"{}\" and runs the checks on a text trace",
                c.code, c.code
            ));
        }
    }
    // Programs may only expect codes the catalogue knows (a typo would never be met).
    for (name, codes) in &programs {
        for code in codes {
            if code != "none" && !catalogue().iter().any(|c| c.code == code) {
                problems.push(format!("{name}: expects unknown code {code}"));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_meta_checks_catch_gaps() {
    // The tests above must be able to fail.
    let bad = CheckInfo {
        code: "dl01",
        name: "Bad Name",
        category: mpicheck_analyzer::diagnostic::Category::Deadlock,
        severity: mpicheck_analyzer::diagnostic::Severity::Error,
        summary: "Ends with a period.",
        docs: "## What it does\n\nSomething.\n\n## Why is this bad\n\n## Example\n\nno code\n\n## How to fix\n\nFix it.\n",
    };
    let p = doc_problems(&bad).join("\n");
    for expected in [
        "code `dl01`",
        "not kebab-case",
        "trailing period",
        "starts lowercase",
        "expected exactly",
        "`## Why is this bad` is empty",
        "no code block",
    ] {
        assert!(p.contains(expected), "missing {expected:?} in:\n{p}");
    }
    let good = catalogue()[0];
    assert_eq!(doc_problems(&good), Vec::<String>::new());
    let sources = tier1_sources();
    assert!(has_tier1_test(good.code, &sources));
    assert!(!has_tier1_test("ZZ999", &sources));
    assert!(tier2_expectations()
        .iter()
        .any(|(_, codes)| codes.contains(good.code)));
}

const README_START: &str =
    "<!-- check list: generated from the registry (crates/mpicheck-analyzer/tests/catalogue.rs) -->";
const README_END: &str = "<!-- end of check list -->";

/// The README's table of checks, one row per catalogue entry.
fn readme_check_list() -> String {
    let mut out = format!(
        "{README_START}\n| code | name | category | severity | finds |\n| --- | --- | --- | --- | --- |\n"
    );
    for c in catalogue() {
        let severity = match c.severity {
            mpicheck_analyzer::diagnostic::Severity::Error => "error",
            mpicheck_analyzer::diagnostic::Severity::Warning => "warning",
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {severity} | {} |\n",
            c.code,
            c.name,
            c.category.as_str(),
            c.summary.replace('|', "\\|")
        ));
    }
    out.push_str(README_END);
    out
}

/// The README lists every check of the registry. `MPICHECK_BLESS=1` rewrites its list.
#[test]
fn readme_lists_the_registry() {
    let path = workspace().join("README.md");
    let readme = fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (readme.find(README_START), readme.find(README_END)) else {
        panic!("README.md has no check list between `{README_START}` and `{README_END}`");
    };
    let current = &readme[start..end + README_END.len()];
    let expected = readme_check_list();
    if current == expected {
        return;
    }
    if std::env::var_os("MPICHECK_BLESS").is_some() {
        let updated = readme.replacen(current, &expected, 1);
        fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "README.md's check list differs from the registry; run this test with MPICHECK_BLESS=1 to rewrite it, or paste:\n{expected}"
    );
}

const RULES_START: &str = "<!-- parameter kinds: generated by tests/catalogue.rs from the argument rules and the recorder's function table -->";
const RULES_END: &str = "<!-- end of parameter kinds -->";

/// docs/argument-rules.md's table lists every argument rule with the number of recorded
/// functions it covers. `MPICHECK_BLESS=1` rewrites it.
#[test]
fn the_argument_rules_table_is_generated() {
    use mpicheck_analyzer::checks::argument::rules::{kind_table, recorded_functions};
    let functions = recorded_functions();
    assert!(functions.len() > 600, "{} functions", functions.len());
    let expected = format!("{RULES_START}\n{}{RULES_END}", kind_table(&functions));
    let path = workspace().join("docs/argument-rules.md");
    let doc = fs::read_to_string(&path).unwrap_or_default();
    let current = match (doc.find(RULES_START), doc.find(RULES_END)) {
        (Some(start), Some(end)) => &doc[start..end + RULES_END.len()],
        _ => "",
    };
    if current == expected {
        return;
    }
    if std::env::var_os("MPICHECK_BLESS").is_some() && !current.is_empty() {
        fs::write(&path, doc.replacen(current, &expected, 1)).unwrap();
        return;
    }
    panic!("docs/argument-rules.md's table differs from the rules; run this test with MPICHECK_BLESS=1 to rewrite it, or paste:\n{expected}");
}
