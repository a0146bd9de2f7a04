//! Which findings a report shows: a severity threshold, a suppression file, a cap on the
//! number printed.
//!
//! # Suppression file (TOML)
//!
//! ```toml
//! # mpicheck-suppressions.toml
//! [[suppress]]
//! code = "MR001"                 # a check code
//! file = "src/io.c"              # the file of the finding's first location
//! function = "gather_results"    # the function containing that call
//! object = "libfoo.so"           # the executable or shared object containing that call
//! ranks = "0-3"                  # every rank of that location is in this set
//! reason = "results are summed, so their order does not matter"
//! ```
//!
//! An entry suppresses a finding when every field it gives matches; it must give at least
//! one of `code`, `file`, `function`, `object`, `ranks` (`reason` is for the reader). The fields
//! match the finding's first location, the reporting rank's call, which is also where SARIF
//! and the terminal put the finding:
//! - `code`: the check code (`DL001`), exactly; `mpicheck checks` lists them;
//! - `file`: a path matches the finding's file when one ends with the other in whole
//!   components (`solver.c` matches `src/solver.c` and `/home/me/app/src/solver.c`); a path
//!   ending with `/` names a directory and matches every file under it (`third_party/`);
//! - `function`: the name of the function the call is in, as the debug info or, in a
//!   binary without it, the symbol table names it (demangled; compared ignoring ASCII case,
//!   for Fortran);
//! - `object`: the executable or shared object the call is in, matched by file name like
//!   `file` (`libfoo.so` matches `/usr/lib/libfoo.so`); a name ending in `.so` also matches
//!   its versioned files (`libfoo.so` matches `libfoo.so.40.1.0`);
//! - `ranks`: a rank set as the reports write it (`"0-3, 7"`, `"ranks 0-63 stride 2"`) or
//!   an array of ranks; matches when every rank of the location is in the set.
//!
//! Unknown fields and unknown codes are errors, so a typo does not silently suppress
//! nothing.

use std::fmt;

use mpicheck_analyzer::diagnostic::{Diagnostic, Location, Severity};
use mpicheck_analyzer::model::Rank;
use serde::Deserialize;

use crate::ranks::{parse_rank_list, parse_ranks};
use crate::Summary;

/// The file `mpicheck` reads from the current directory when `--suppressions` is not given.
pub const DEFAULT_SUPPRESSIONS_FILE: &str = "mpicheck-suppressions.toml";

/// One `[[suppress]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub code: Option<String>,
    pub file: Option<String>,
    pub function: Option<String>,
    pub object: Option<String>,
    /// Sorted, distinct.
    pub ranks: Option<Vec<Rank>>,
    pub reason: Option<String>,
}

/// The entries of a suppression file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suppressions {
    pub entries: Vec<Suppression>,
}

/// Why a suppression file was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuppressionError {
    pub message: String,
}

impl fmt::Display for SuppressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SuppressionError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    #[serde(default)]
    suppress: Vec<EntryText>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryText {
    code: Option<String>,
    file: Option<String>,
    function: Option<String>,
    object: Option<String>,
    ranks: Option<RanksText>,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RanksText {
    Text(String),
    List(Vec<Rank>),
}

impl Suppressions {
    /// Parses a suppression file; `known_codes` are the codes of the check catalogue.
    pub fn parse(text: &str, known_codes: &[&str]) -> Result<Suppressions, SuppressionError> {
        let file: FileText = toml::from_str(text).map_err(|e| SuppressionError {
            message: e.to_string().trim_end().replace('\n', " "),
        })?;
        let mut entries = Vec::new();
        for (i, e) in file.suppress.into_iter().enumerate() {
            let n = i + 1;
            let fail = |what: String| SuppressionError {
                message: format!("[[suppress]] entry {n}: {what}"),
            };
            if e.code.is_none()
                && e.file.is_none()
                && e.function.is_none()
                && e.object.is_none()
                && e.ranks.is_none()
            {
                return Err(fail(
                    "give at least one of code, file, function, object, ranks (an empty entry would suppress everything)".into(),
                ));
            }
            if let Some(code) = &e.code {
                if !known_codes.iter().any(|k| k == code) {
                    return Err(fail(format!(
                        "no check has the code `{code}`; `mpicheck checks` lists them"
                    )));
                }
            }
            for (name, value) in [
                ("file", &e.file),
                ("function", &e.function),
                ("object", &e.object),
            ] {
                if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                    return Err(fail(format!("{name} is empty")));
                }
            }
            let ranks = match e.ranks {
                None => None,
                Some(RanksText::List(mut v)) => {
                    v.sort_unstable();
                    v.dedup();
                    Some(v)
                }
                Some(RanksText::Text(t)) => {
                    let t = t.trim();
                    let parsed = if t.starts_with("rank") {
                        parse_ranks(t)
                    } else {
                        parse_rank_list(t)
                    };
                    Some(parsed.map_err(|err| fail(format!("ranks `{t}`: {err}")))?)
                }
            };
            entries.push(Suppression {
                code: e.code,
                file: e.file,
                function: e.function,
                object: e.object,
                ranks,
                reason: e.reason,
            });
        }
        Ok(Suppressions { entries })
    }

    /// The first entry that suppresses `d`. `function_of` names the function a location's
    /// call is in, when known.
    pub fn matching(
        &self,
        d: &Diagnostic,
        function_of: &dyn Fn(&Location) -> Option<String>,
    ) -> Option<&Suppression> {
        self.entries.iter().find(|s| s.matches(d, function_of))
    }
}

impl Suppression {
    pub fn matches(
        &self,
        d: &Diagnostic,
        function_of: &dyn Fn(&Location) -> Option<String>,
    ) -> bool {
        if self.code.as_deref().is_some_and(|c| c != d.code) {
            return false;
        }
        let Some(primary) = d.locations.first() else {
            // Without a location only the code can match.
            return self.file.is_none()
                && self.function.is_none()
                && self.object.is_none()
                && self.ranks.is_none();
        };
        if let Some(file) = &self.file {
            match &primary.file {
                Some(actual) if path_matches(file, actual) => {}
                _ => return false,
            }
        }
        if let Some(function) = &self.function {
            match primary.function.clone().or_else(|| function_of(primary)) {
                Some(actual) if actual.eq_ignore_ascii_case(function) => {}
                _ => return false,
            }
        }
        if let Some(object) = &self.object {
            match &primary.object {
                Some(actual) if object_matches(object, actual) => {}
                _ => return false,
            }
        }
        if let Some(ranks) = &self.ranks {
            if !primary.ranks.iter().all(|r| ranks.binary_search(r).is_ok()) {
                return false;
            }
        }
        true
    }
}

fn components(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// `pattern` matches `actual` when one path ends with the other in whole components, or,
/// for a pattern ending with `/`, when `actual` lies under that directory.
/// Whether suppression `object = pattern` names the mapped file `actual`: as for `file`, or
/// by an unversioned shared-object name (`libmpi.so` for `libmpi.so.40.30.0`).
fn object_matches(pattern: &str, actual: &str) -> bool {
    if path_matches(pattern, actual) {
        return true;
    }
    let name = actual.rsplit('/').next().unwrap_or(actual);
    !pattern.contains('/')
        && pattern.ends_with(".so")
        && name
            .strip_prefix(pattern)
            .is_some_and(|rest| rest.starts_with('.'))
}

fn path_matches(pattern: &str, actual: &str) -> bool {
    let p = components(pattern);
    let a = components(actual);
    if p.is_empty() {
        return false;
    }
    if pattern.ends_with('/') {
        // The directory's components appear in order, contiguously, before the file name.
        let dirs = &a[..a.len().saturating_sub(1)];
        return dirs.windows(p.len()).any(|w| w == p.as_slice())
            && (!pattern.starts_with('/') || dirs.starts_with(&p));
    }
    if pattern.starts_with('/') && actual.starts_with('/') {
        return p == a;
    }
    a.ends_with(&p) || (p.ends_with(&a) && !actual.starts_with('/'))
}

/// How a report selects its findings.
#[derive(Clone, Debug)]
pub struct Selection<'s> {
    /// Findings below this severity are left out.
    pub min_severity: Severity,
    pub suppressions: &'s Suppressions,
}

/// The findings a report shows, and how many were left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selected {
    pub findings: Vec<Diagnostic>,
    /// Left out by a suppression entry.
    pub suppressed: usize,
    /// Left out by the severity threshold.
    pub below_threshold: usize,
}

impl Selection<'_> {
    /// Keeps the findings at or above the threshold that no entry suppresses, in order.
    pub fn apply(
        &self,
        findings: Vec<Diagnostic>,
        function_of: &dyn Fn(&Location) -> Option<String>,
    ) -> Selected {
        let mut out = Selected::default();
        for d in findings {
            if d.severity < self.min_severity {
                out.below_threshold += 1;
            } else if self.suppressions.matching(&d, function_of).is_some() {
                out.suppressed += 1;
            } else {
                out.findings.push(d);
            }
        }
        out
    }
}

/// At most `max` findings, the most severe first chosen, shown in their original order.
/// Returns them and the counts of those left out.
pub fn cap(findings: &[Diagnostic], max: Option<usize>) -> (Vec<Diagnostic>, Summary) {
    let Some(max) = max.filter(|&m| m < findings.len()) else {
        return (findings.to_vec(), Summary::default());
    };
    let mut order: Vec<usize> = (0..findings.len()).collect();
    // Stable: among equal severities the earlier finding wins.
    order.sort_by_key(|&i| std::cmp::Reverse(findings[i].severity));
    let mut keep: Vec<usize> = order[..max].to_vec();
    keep.sort_unstable();
    let left_out: Vec<Diagnostic> = order[max..].iter().map(|&i| findings[i].clone()).collect();
    (
        keep.iter().map(|&i| findings[i].clone()).collect(),
        Summary::of(&left_out),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_analyzer::diagnostic::Category;

    const CODES: &[&str] = &["DL001", "MR001", "CO001"];

    fn finding(code: &'static str, severity: Severity, ranks: &[Rank], file: &str) -> Diagnostic {
        Diagnostic {
            code,
            category: Category::Deadlock,
            severity,
            message: format!("{code} finding").into(),
            locations: vec![Location {
                ranks: ranks.into(),
                call: "MPI_Recv".into(),
                file: Some(file.into()),
                line: Some(12),
                function: None,
                object: None,
                offset: None,
                label: "waits".into(),
            }],
            notes: vec![],
            help: None,
            wait_for: None,
            communicator: None,
            tag: None,
        }
    }

    fn no_function(_: &Location) -> Option<String> {
        None
    }

    fn parse(text: &str) -> Result<Suppressions, String> {
        Suppressions::parse(text, CODES).map_err(|e| e.message)
    }

    #[test]
    fn parses_every_field() {
        let s = parse(
            r#"
            [[suppress]]
            code = "MR001"
            file = "src/io.c"
            function = "gather"
            ranks = "0-3, 7"
            reason = "order does not matter"

            [[suppress]]
            ranks = [5, 1, 1]

            [[suppress]]
            ranks = "ranks 0-6 stride 2"
            "#,
        )
        .unwrap();
        assert_eq!(s.entries.len(), 3);
        assert_eq!(s.entries[0].code.as_deref(), Some("MR001"));
        assert_eq!(s.entries[0].ranks, Some(vec![0, 1, 2, 3, 7]));
        assert_eq!(
            s.entries[0].reason.as_deref(),
            Some("order does not matter")
        );
        assert_eq!(s.entries[1].ranks, Some(vec![1, 5]));
        assert_eq!(s.entries[2].ranks, Some(vec![0, 2, 4, 6]));
        assert_eq!(parse("").unwrap(), Suppressions::default());
    }

    #[test]
    fn rejects_what_would_surprise() {
        let err = parse("[[suppress]]\nreason = \"x\"\n").unwrap_err();
        assert!(
            err.contains("entry 1") && err.contains("at least one"),
            "{err}"
        );
        let err = parse("[[suppress]]\ncode = \"XX999\"\n").unwrap_err();
        assert!(err.contains("no check has the code `XX999`"), "{err}");
        let err = parse("[[suppress]]\ncodes = \"DL001\"\n").unwrap_err();
        assert!(err.contains("codes"), "{err}");
        let err = parse("[[suppress]]\nranks = \"3-1\"\n").unwrap_err();
        assert!(err.contains("ranks `3-1`"), "{err}");
        let err = parse("[[suppress]]\nfile = \"\"\n").unwrap_err();
        assert!(err.contains("file is empty"), "{err}");
        assert!(parse("[[suppress]\n").is_err());
        let err = parse("[suppress]\ncode = \"DL001\"\n").unwrap_err();
        assert!(!err.is_empty());
    }

    /// A finding in a binary without debug info: no file or line, only what the ELF tells.
    fn stripped_finding() -> Diagnostic {
        let mut d = finding("DL001", Severity::Error, &[0], "x.c");
        let l = &mut d.locations[0];
        l.file = None;
        l.line = None;
        l.function = Some("MPI_Comm_split_helper".into());
        l.object = Some("/usr/lib/x86_64-linux-gnu/libfoo.so.40.1.0".into());
        l.offset = Some(0x1234);
        d
    }

    #[test]
    fn stripped_findings_are_suppressed_by_function_and_object() {
        let d = stripped_finding();
        let suppressed = |text: &str| parse(text).unwrap().matching(&d, &no_function).is_some();
        assert!(suppressed(
            "[[suppress]]\nfunction = \"mpi_comm_split_helper\"\n"
        ));
        assert!(!suppressed("[[suppress]]\nfunction = \"other\"\n"));
        assert!(suppressed("[[suppress]]\nobject = \"libfoo.so.40.1.0\"\n"));
        assert!(suppressed("[[suppress]]\nobject = \"libfoo.so\"\n"));
        assert!(suppressed(
            "[[suppress]]\nobject = \"/usr/lib/x86_64-linux-gnu/libfoo.so.40.1.0\"\ncode = \"DL001\"\n"
        ));
        assert!(!suppressed("[[suppress]]\nobject = \"libfo.so\"\n"));
        assert!(!suppressed("[[suppress]]\nobject = \"libfoo.so.4\"\n"));
        assert!(!suppressed(
            "[[suppress]]\nobject = \"libfoo.so\"\ncode = \"MR001\"\n"
        ));
        // A finding with a source file but no object is not suppressed by an object entry.
        let with_file = finding("DL001", Severity::Error, &[0], "src/a.c");
        let s = parse("[[suppress]]\nobject = \"libfoo.so\"\n").unwrap();
        assert!(s.matching(&with_file, &no_function).is_none());
        let err = parse("[[suppress]]\nobject = \" \"\n").unwrap_err();
        assert!(err.contains("object is empty"), "{err}");
    }

    #[test]
    fn paths_match_by_whole_components() {
        assert!(path_matches("solver.c", "solver.c"));
        assert!(path_matches("solver.c", "src/solver.c"));
        assert!(path_matches("solver.c", "/home/me/app/src/solver.c"));
        assert!(path_matches("src/solver.c", "solver.c"));
        assert!(path_matches("./src/solver.c", "/home/me/app/src/solver.c"));
        assert!(!path_matches("ver.c", "src/solver.c"));
        assert!(!path_matches("lib/solver.c", "src/solver.c"));
        assert!(!path_matches(
            "/other/src/solver.c",
            "/home/me/app/src/solver.c"
        ));
        assert!(path_matches(
            "/home/me/app/src/solver.c",
            "/home/me/app/src/solver.c"
        ));
        // Directories.
        assert!(path_matches("third_party/", "third_party/blas/gemm.c"));
        assert!(path_matches("third_party/", "/x/app/third_party/gemm.c"));
        assert!(!path_matches("third_party/", "src/third_party.c"));
        assert!(!path_matches("src/", "lib/src.c"));
        assert!(path_matches("/x/app/", "/x/app/src/a.c"));
        assert!(!path_matches("/app/", "/x/app/src/a.c"));
    }

    #[test]
    fn an_entry_needs_every_field_to_match() {
        let s = parse(
            r#"
            [[suppress]]
            code = "MR001"
            file = "io.c"
            ranks = "0-3"
            "#,
        )
        .unwrap();
        let hit = finding("MR001", Severity::Warning, &[1, 2], "src/io.c");
        assert!(s.matching(&hit, &no_function).is_some());
        for miss in [
            finding("DL001", Severity::Warning, &[1, 2], "src/io.c"),
            finding("MR001", Severity::Warning, &[1, 2], "src/main.c"),
            finding("MR001", Severity::Warning, &[3, 4], "src/io.c"),
        ] {
            assert!(s.matching(&miss, &no_function).is_none(), "{miss:?}");
        }
    }

    #[test]
    fn functions_come_from_the_caller() {
        let s = parse("[[suppress]]\nfunction = \"Exchange\"\n").unwrap();
        let d = finding("DL001", Severity::Error, &[0], "ring.f90");
        assert!(s.matching(&d, &no_function).is_none());
        let in_exchange = |_: &Location| Some("exchange".to_string());
        assert!(s.matching(&d, &in_exchange).is_some());
        let in_main = |_: &Location| Some("main".to_string());
        assert!(s.matching(&d, &in_main).is_none());
    }

    #[test]
    fn selection_counts_what_it_leaves_out() {
        let s = parse("[[suppress]]\ncode = \"MR001\"\n").unwrap();
        let findings = vec![
            finding("DL001", Severity::Error, &[0], "a.c"),
            finding("MR001", Severity::Warning, &[0], "a.c"),
            finding("CO001", Severity::Warning, &[0], "a.c"),
            finding("MR001", Severity::Error, &[0], "a.c"),
        ];
        let all = Selection {
            min_severity: Severity::Warning,
            suppressions: &s,
        }
        .apply(findings.clone(), &no_function);
        let codes: Vec<_> = all.findings.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["DL001", "CO001"]);
        assert_eq!((all.suppressed, all.below_threshold), (2, 0));
        let errors = Selection {
            min_severity: Severity::Error,
            suppressions: &s,
        }
        .apply(findings, &no_function);
        let codes: Vec<_> = errors.findings.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["DL001"]);
        assert_eq!((errors.suppressed, errors.below_threshold), (1, 2));
    }

    #[test]
    fn cap_keeps_the_most_severe_in_order() {
        let findings = vec![
            finding("MR001", Severity::Warning, &[0], "a.c"),
            finding("DL001", Severity::Error, &[1], "a.c"),
            finding("CO001", Severity::Warning, &[2], "a.c"),
            finding("DL001", Severity::Error, &[3], "a.c"),
        ];
        let count = |errors, warnings| Summary {
            errors,
            warnings,
            ..Summary::default()
        };
        let (kept, left) = cap(&findings, Some(3));
        let ranks: Vec<_> = kept.iter().map(|d| d.locations[0].ranks[0]).collect();
        assert_eq!((ranks, left), (vec![0, 1, 3], count(0, 1)));
        let (kept, left) = cap(&findings, Some(1));
        assert_eq!((kept[0].locations[0].ranks[0], left), (1, count(1, 2)));
        assert_eq!(cap(&findings, None).0.len(), 4);
        assert_eq!(cap(&findings, Some(9)), (findings.clone(), count(0, 0)));
        assert_eq!(cap(&findings, Some(0)), (vec![], count(2, 2)));
    }
}
