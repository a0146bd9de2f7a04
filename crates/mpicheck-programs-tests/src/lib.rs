//! Inline expectations of the tier-2 test programs and their comparison with `report.json`.
//!
//! The programs live in `tests/programs/` at the repository root. Each one carries, in
//! comments:
//!
//! - a directive `mpicheck: ranks=N` (C: `/* mpicheck: ranks=N */`, Fortran:
//!   `! mpicheck: ranks=N`): how many ranks to start; optionally `cflags=FLAG[,FLAG...]`
//!   (in the same or another directive, repeatable): extra compiler flags, e.g.
//!   `cflags=-fopenmp` for OpenMP programs; `check-buffers`: run with `mpicheck run
//!   --check-buffers`; `checks-itself`: the program checks its own results and exits
//!   non-zero when they are wrong, which fails the test (mpicheck changed what it does);
//!   `mpi=FAMILY[,FAMILY...]`: run only under these MPI families (of
//!   [`FAMILIES`]), for a program that calls a function another family's `mpi.h` lacks
//!   (Open MPI 4.1 has no `MPI_Psend_init`); under the others its test passes and says why,
//!   and fails if that family's `mpi.h` declares every function the program calls
//!   ([`lacking_functions`]); `timeout=SECONDS`: how long the run may take (default
//!   [`DEFAULT_TIMEOUT_SECS`]), for a program that must compute for longer than mpicheck's
//!   deadlock timeout and so takes many times that on a loaded 2-core machine;
//! - either `expect: none` (the program is correct: no finding at all), or one or more
//!   `expect: CODE[, CODE...]` comments on the exact line that must be reported. The word
//!   `keys` among the codes (`expect: DR002 keys`) marks a buffer access that only memory
//!   protection keys find (docs/buffer-checking.md: loads from receive buffers of
//!   nonblocking collectives, RMA results, another thread's access while one is in MPI):
//!   where the run has no keys (no `ospke` CPU flag, or `MPICHECK_BUFFERS_MECHANISM=mprotect`)
//!   that line is not required; its code is still allowed.
//!
//! A run passes when every expected `(code, line)` pair is among the pairs reported (over
//! the primary and secondary locations of all findings, any rank, in this program's file),
//! and no finding has a code that the file does not expect somewhere. Extra locations of an
//! expected code are fine: a cycle may also name the calls of ranks waiting on it.
//!
//! The harness itself is `tests/programs.rs`; this library holds the parts that can be
//! tested without MPI.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// Whether a program may expect `code`: the codes of the analyzer's check catalogue (stable
/// codes, never reused).
fn is_known_code(code: &str) -> bool {
    mpicheck_analyzer::checks::catalogue()
        .iter()
        .any(|c| c.code == code)
}

fn known_codes() -> String {
    let codes: Vec<&str> = mpicheck_analyzer::checks::catalogue()
        .iter()
        .map(|c| c.code)
        .collect();
    codes.join(", ")
}

/// The MPI families the programs run under, as `mpi=` names them.
pub const FAMILIES: &[&str] = &["mpich", "openmpi"];

/// Largest rank count a program may ask for (the machines have 2 cores; tests oversubscribe).
pub const MAX_RANKS: u32 = 8;

/// Source language of a program, from its file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    C,
    Fortran,
}

impl Language {
    /// `.c` is C; `.f90`, `.f`, `.f08`, `.F90`, `.F` are Fortran; anything else is not a program.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "c" => Some(Language::C),
            "f90" | "f" | "f08" | "F90" | "F" => Some(Language::Fortran),
            _ => None,
        }
    }

    /// The compiler wrapper of this language for an MPI family (`mpicc.mpich`, `mpif90.openmpi`).
    pub fn compiler(self, family: &str) -> String {
        match self {
            Language::C => format!("mpicc.{family}"),
            Language::Fortran => format!("mpif90.{family}"),
        }
    }
}

/// How long a program's run under `mpicheck run` may take unless it says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// What one program expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectations {
    pub ranks: u32,
    /// `(code, 1-based line)`; empty for a correct program (`expect: none`).
    pub expected: BTreeSet<(String, u32)>,
    /// The pairs of `expected` on lines marked `keys`: required only with protection keys.
    pub needs_keys: BTreeSet<(String, u32)>,
    /// Extra compiler flags (`cflags=`), after the harness's own.
    pub cflags: Vec<String>,
    /// Run with `mpicheck run --check-buffers` (`check-buffers`).
    pub check_buffers: bool,
    /// The program fails when its own results are wrong (`checks-itself`).
    pub checks_itself: bool,
    /// The families it runs under (`mpi=`); `None`: all of [`FAMILIES`].
    pub mpis: Option<Vec<String>>,
    /// How long its run may take, in seconds (`timeout=`).
    pub timeout_secs: u64,
}

impl Expectations {
    /// Whether the program runs under `family` (its `mpi=` directive lists it, or it has none).
    pub fn runs_under(&self, family: &str) -> bool {
        self.mpis
            .as_ref()
            .is_none_or(|m| m.iter().any(|f| f == family))
    }

    /// The codes this file expects somewhere; a finding with any other code is a failure.
    pub fn allowed_codes(&self) -> BTreeSet<&str> {
        self.expected.iter().map(|(c, _)| c.as_str()).collect()
    }
}

/// The text of a comment on `line` that starts with `keyword` (`expect:`, `mpicheck:`),
/// without the keyword and the comment closer. Several comments on one line are all looked at.
fn comment_bodies<'a>(line: &'a str, lang: Language, keyword: &str) -> Vec<&'a str> {
    let openers: &[&str] = match lang {
        Language::C => &["/*", "//"],
        Language::Fortran => &["!"],
    };
    let mut out = Vec::new();
    for opener in openers {
        let mut from = 0;
        while let Some(pos) = line[from..].find(opener) {
            let start = from + pos + opener.len();
            let rest = line[start..].trim_start();
            if let Some(body) = rest.strip_prefix(keyword) {
                let body = if *opener == "/*" {
                    body.split("*/").next().unwrap_or(body)
                } else {
                    body
                };
                out.push(body.trim());
            }
            from = start;
        }
    }
    out
}

/// Reads the directive and expectations of a program. All problems are returned at once.
pub fn parse_program(text: &str, lang: Language) -> Result<Expectations, Vec<String>> {
    let mut errors = Vec::new();
    let mut ranks: Option<u32> = None;
    let mut expected = BTreeSet::new();
    let mut needs_keys = BTreeSet::new();
    let mut none_line: Option<u32> = None;
    let mut cflags: Vec<String> = Vec::new();
    let mut check_buffers = false;
    let mut checks_itself = false;
    let mut mpis: Option<Vec<String>> = None;
    let mut timeout_secs: Option<u64> = None;

    for (idx, line) in text.lines().enumerate() {
        let lineno = idx as u32 + 1;
        for body in comment_bodies(line, lang, "mpicheck:") {
            for item in body.split_whitespace() {
                if item == "check-buffers" {
                    check_buffers = true;
                    continue;
                }
                if item == "checks-itself" {
                    checks_itself = true;
                    continue;
                }
                match item.split_once('=') {
                    Some(("ranks", n)) => match n.parse::<u32>() {
                        Ok(n) if (1..=MAX_RANKS).contains(&n) => {
                            if ranks.replace(n).is_some() {
                                errors.push(format!("line {lineno}: second `ranks=` directive"));
                            }
                        }
                        _ => errors.push(format!(
                            "line {lineno}: `ranks={n}` is not a number between 1 and {MAX_RANKS}"
                        )),
                    },
                    Some(("timeout", secs)) => match secs.parse::<u64>() {
                        Ok(secs) if (1..=600).contains(&secs) => {
                            if timeout_secs.replace(secs).is_some() {
                                errors.push(format!("line {lineno}: second `timeout=` directive"));
                            }
                        }
                        _ => errors.push(format!(
                            "line {lineno}: `timeout={secs}` is not a number of seconds between 1 and 600"
                        )),
                    },
                    Some(("cflags", flags)) => {
                        let flags: Vec<&str> = flags.split(',').filter(|f| !f.is_empty()).collect();
                        if flags.is_empty() || flags.iter().any(|f| !f.starts_with('-')) {
                            errors.push(format!(
                                "line {lineno}: `cflags={}`: give compiler options, comma-separated (`cflags=-fopenmp`)",
                                flags.join(",")
                            ));
                        }
                        cflags.extend(flags.into_iter().map(str::to_string));
                    }
                    Some(("mpi", list)) => {
                        let names: Vec<&str> = list.split(',').filter(|f| !f.is_empty()).collect();
                        if names.is_empty() {
                            errors.push(format!("line {lineno}: `mpi=` without a family"));
                        }
                        for name in &names {
                            if !FAMILIES.contains(name) {
                                errors.push(format!(
                                    "line {lineno}: unknown MPI family `{name}` in `mpi=` (known: {})",
                                    FAMILIES.join(", ")
                                ));
                            }
                        }
                        if mpis
                            .replace(names.iter().map(|n| n.to_string()).collect())
                            .is_some()
                        {
                            errors.push(format!("line {lineno}: second `mpi=` directive"));
                        }
                    }
                    _ => errors.push(format!(
                        "line {lineno}: unknown mpicheck directive `{item}` (known: ranks=N, cflags=FLAGS, check-buffers, checks-itself, mpi=FAMILIES, timeout=SECONDS)"
                    )),
                }
            }
        }
        for body in comment_bodies(line, lang, "expect:") {
            let codes: Vec<&str> = body
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .collect();
            let keys = codes.contains(&"keys");
            let codes: Vec<&str> = codes.into_iter().filter(|c| *c != "keys").collect();
            if codes.is_empty() {
                errors.push(format!("line {lineno}: `expect:` without a code"));
            }
            if keys && codes.contains(&"none") {
                errors.push(format!("line {lineno}: `keys` with `expect: none`"));
            }
            for code in codes {
                if keys && code != "none" {
                    needs_keys.insert((code.to_string(), lineno));
                }
                if code == "none" {
                    if none_line.replace(lineno).is_some() {
                        errors.push(format!("line {lineno}: second `expect: none`"));
                    }
                } else if is_known_code(code) {
                    if !expected.insert((code.to_string(), lineno)) {
                        errors.push(format!("line {lineno}: `{code}` expected twice"));
                    }
                } else {
                    errors.push(format!(
                        "line {lineno}: unknown code `{code}` (known: {})",
                        known_codes()
                    ));
                }
            }
        }
    }

    if ranks.is_none() {
        errors.push("no `mpicheck: ranks=N` directive".to_string());
    }
    match (none_line, expected.is_empty()) {
        (Some(l), false) => errors.push(format!(
            "line {l}: `expect: none` in a file that also expects findings"
        )),
        (None, true) => errors.push(
            "no expectation: put `expect: CODE` on the line to report, or `expect: none` in the header"
                .to_string(),
        ),
        _ => {}
    }

    if errors.is_empty() {
        Ok(Expectations {
            ranks: ranks.expect("checked above"),
            expected,
            needs_keys,
            cflags,
            check_buffers,
            checks_itself,
            mpis,
            timeout_secs: timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS),
        })
    } else {
        Err(errors)
    }
}

/// The MPI functions a program calls (`MPI_Xxx(`, outside comments or not: a name in a
/// comment followed by `(` counts too, which only makes the check stricter).
pub fn called_functions(source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(pos) = source[from..].find("MPI_") {
        let start = from + pos;
        let word_start = start == 0 || !is_ident(bytes[start - 1]);
        let end = start + source[start..].bytes().take_while(|&b| is_ident(b)).count();
        if word_start && source[end..].trim_start().starts_with('(') {
            out.insert(source[start..end].to_string());
        }
        from = end.max(start + 4);
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The functions a program calls that an MPI's preprocessed `mpi.h` does not declare: why a
/// family may be left out with `mpi=`. Empty means the family could run the program.
pub fn lacking_functions(source: &str, preprocessed_header: &str) -> Vec<String> {
    let declared = called_functions(preprocessed_header);
    called_functions(source)
        .into_iter()
        .filter(|f| !declared.contains(f))
        .collect()
}

/// One location of a finding in `report.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportLocation {
    /// The rank or ranks as written in the report (`0`, `[0, 2]`, `"0-3"`), for messages.
    pub ranks: String,
    pub call: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// One finding of `report.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportFinding {
    pub code: String,
    pub severity: String,
    pub message: String,
    pub locations: Vec<ReportLocation>,
}

impl std::fmt::Display for ReportFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.severity, self.message)?;
        for l in &self.locations {
            let file = l.file.as_deref().unwrap_or("?");
            let line = l.line.map_or("?".to_string(), |n| n.to_string());
            write!(f, "\n      rank {} {} at {file}:{line}", l.ranks, l.call)?;
        }
        Ok(())
    }
}

/// Reads the findings of a `report.json`:
/// `{"findings":[{"code","category","severity","message","locations":[{"rank","call","file","line"}]}]}`.
/// A location may name its ranks as `rank` (a number) or `ranks` (a list or a string).
pub fn parse_report(json: &str) -> Result<Vec<ReportFinding>, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("report.json is not JSON: {e}"))?;
    let findings = v
        .get("findings")
        .and_then(|f| f.as_array())
        .ok_or("report.json has no `findings` array")?;
    let mut out = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let code = f
            .get("code")
            .and_then(|c| c.as_str())
            .ok_or_else(|| format!("finding {i} has no string `code`"))?;
        let text = |k: &str| f.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
        let mut locations = Vec::new();
        for (j, l) in f
            .get("locations")
            .and_then(|l| l.as_array())
            .ok_or_else(|| format!("finding {i} ({code}) has no `locations` array"))?
            .iter()
            .enumerate()
        {
            let ranks = match (l.get("rank"), l.get("ranks")) {
                (Some(r), _) if !r.is_null() => r.to_string(),
                (_, Some(serde_json::Value::String(s))) => s.clone(),
                (_, Some(r)) if !r.is_null() => r.to_string(),
                _ => "?".to_string(),
            };
            let line = match l.get("line") {
                None | Some(serde_json::Value::Null) => None,
                Some(n) => Some(n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(
                    || format!("finding {i} ({code}) location {j}: `line` is not a line number"),
                )?),
            };
            locations.push(ReportLocation {
                ranks,
                call: l
                    .get("call")
                    .and_then(|c| c.as_str())
                    .unwrap_or("?")
                    .to_string(),
                file: l.get("file").and_then(|c| c.as_str()).map(str::to_string),
                line,
            });
        }
        out.push(ReportFinding {
            code: code.to_string(),
            severity: text("severity"),
            message: text("message"),
            locations,
        });
    }
    Ok(out)
}

/// Whether a reported file names the program: same file name (reports may give the path as
/// compiled, absolute, or relative to the build directory).
fn same_file(reported: &str, program_file_name: &str) -> bool {
    Path::new(reported)
        .file_name()
        .is_some_and(|n| n == program_file_name)
}

/// The `(code, line)` pairs that the findings report in the program's file.
pub fn reported_pairs(
    findings: &[ReportFinding],
    program_file_name: &str,
) -> BTreeSet<(String, u32)> {
    let mut out = BTreeSet::new();
    for f in findings {
        for l in &f.locations {
            if let (Some(file), Some(line)) = (&l.file, l.line) {
                if same_file(file, program_file_name) {
                    out.insert((f.code.clone(), line));
                }
            }
        }
    }
    out
}

/// Every way the findings differ from the expectations, one readable line (or block) each;
/// empty when the run passes. `source` is the program text, to quote expected lines. `keys`:
/// the run had memory protection keys (without, the pairs of `needs_keys` are not required).
pub fn compare(
    program_file_name: &str,
    source: &str,
    exp: &Expectations,
    findings: &[ReportFinding],
    keys: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let reported = reported_pairs(findings, program_file_name);
    let src_lines: Vec<&str> = source.lines().collect();
    for (code, line) in &exp.expected {
        if !keys && exp.needs_keys.contains(&(code.clone(), *line)) {
            continue;
        }
        if !reported.contains(&(code.clone(), *line)) {
            let text = src_lines.get(*line as usize - 1).map_or("", |s| s.trim());
            let elsewhere: Vec<String> = reported
                .iter()
                .filter(|(c, _)| c == code)
                .map(|(_, l)| l.to_string())
                .collect();
            let mut msg = format!("missing {code} at line {line}: {text}");
            if !elsewhere.is_empty() {
                let _ = write!(
                    msg,
                    "\n      ({code} was reported at line(s) {} instead)",
                    elsewhere.join(", ")
                );
            }
            problems.push(msg);
        }
    }
    let allowed = exp.allowed_codes();
    for f in findings {
        if !allowed.contains(f.code.as_str()) {
            problems.push(format!("unexpected finding {f}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const C_PROGRAM: &str = "/*\n * header\n */\n/* mpicheck: ranks=2 */\n#include <mpi.h>\nint main(void) {\n    MPI_Ssend(a); /* expect: DL001 */\n    MPI_Recv(b); /* expect: CO001, DL002 */\n}\n";

    fn report(findings: serde_json::Value) -> Vec<ReportFinding> {
        parse_report(&serde_json::json!({ "findings": findings }).to_string()).unwrap()
    }

    fn loc(rank: u32, file: &str, line: u32) -> serde_json::Value {
        serde_json::json!({"rank": rank, "call": "MPI_Ssend", "file": file, "line": line})
    }

    fn finding(code: &str, locs: Vec<serde_json::Value>) -> serde_json::Value {
        serde_json::json!({
            "code": code, "category": "deadlock", "severity": "error",
            "message": "ranks 0, 1 wait for each other", "locations": locs
        })
    }

    #[test]
    fn parses_c_directive_and_expectations() {
        let e = parse_program(C_PROGRAM, Language::C).unwrap();
        assert_eq!(e.ranks, 2);
        let want: BTreeSet<(String, u32)> = [("DL001", 7), ("CO001", 8), ("DL002", 8)]
            .iter()
            .map(|(c, l)| (c.to_string(), *l))
            .collect();
        assert_eq!(e.expected, want);
        assert_eq!(
            e.allowed_codes(),
            ["CO001", "DL001", "DL002"].into_iter().collect()
        );
    }

    #[test]
    fn parses_timeout_directive() {
        let slow = "/* mpicheck: ranks=2 timeout=180 */\n/* expect: none */\n";
        assert_eq!(parse_program(slow, Language::C).unwrap().timeout_secs, 180);
        let plain = parse_program("/* mpicheck: ranks=2 */\n/* expect: none */\n", Language::C);
        assert_eq!(plain.unwrap().timeout_secs, DEFAULT_TIMEOUT_SECS);
        let bad = "/* mpicheck: ranks=2 timeout=0 timeout=5s */\n/* expect: none */\n";
        let errs = parse_program(bad, Language::C).unwrap_err().join("\n");
        assert!(errs.contains("`timeout=0` is not a number"), "{errs}");
        assert!(errs.contains("`timeout=5s` is not a number"), "{errs}");
    }

    #[test]
    fn parses_cflags_directive() {
        let c = "/* mpicheck: ranks=2 cflags=-fopenmp */\n/* mpicheck: cflags=-DX=1,-pthread */\n/* expect: none */\n";
        let exp = parse_program(c, Language::C).unwrap();
        assert_eq!(exp.ranks, 2);
        assert_eq!(exp.cflags, vec!["-fopenmp", "-DX=1", "-pthread"]);
        let plain =
            parse_program("/* mpicheck: ranks=2 */\n/* expect: none */\n", Language::C).unwrap();
        assert!(plain.cflags.is_empty());
        let errs = parse_program(
            "/* mpicheck: ranks=2 cflags=fopenmp cflags= */\n/* expect: none */\n",
            Language::C,
        )
        .unwrap_err();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("cflags=fopenmp"), "{errs:?}");
    }

    #[test]
    fn parses_mpi_directive_and_rejects_unknown_families() {
        let only = "/* mpicheck: ranks=2 mpi=mpich */\n/* expect: none */\n";
        let e = parse_program(only, Language::C).unwrap();
        assert!(e.runs_under("mpich"));
        assert!(!e.runs_under("openmpi"));
        let both = parse_program(
            "/* mpicheck: ranks=2 mpi=openmpi,mpich */\n/* expect: none */\n",
            Language::C,
        )
        .unwrap();
        assert!(both.runs_under("mpich") && both.runs_under("openmpi"));
        let all =
            parse_program("/* mpicheck: ranks=2 */\n/* expect: none */\n", Language::C).unwrap();
        assert!(all.runs_under("openmpi"));

        let bad = "/* mpicheck: ranks=2 mpi=mpich,intelmpi */\n/* mpicheck: mpi= */\n/* expect: none */\n";
        let errs = parse_program(bad, Language::C).unwrap_err();
        let all = errs.join("\n");
        assert!(
            all.contains("line 1: unknown MPI family `intelmpi`"),
            "{all}"
        );
        assert!(all.contains("line 2: `mpi=` without a family"), "{all}");
        assert!(all.contains("line 2: second `mpi=` directive"), "{all}");
    }

    #[test]
    fn lacking_functions_are_the_calls_the_header_does_not_declare() {
        let program = "/* MPI_Pready_list is not called here */\nMPI_Init(&argc, &argv);\nMPI_Psend_init (buf, 4, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);\nPMPI_Pready(0, req);\nmy_MPI_Wrapper(x);\n";
        assert_eq!(
            called_functions(program),
            ["MPI_Init", "MPI_Psend_init"]
                .into_iter()
                .map(String::from)
                .collect()
        );
        let header =
            "int MPI_Init(int *argc, char ***argv);\nint PMPI_Psend_init(const void *buf);\n";
        assert_eq!(lacking_functions(program, header), vec!["MPI_Psend_init"]);
        let full =
            "int MPI_Init(int*, char***) __attribute__((x));\nint MPI_Psend_init(const void*);\n";
        assert!(lacking_functions(program, full).is_empty());
    }

    #[test]
    fn parses_fortran_and_none() {
        let f = "! mpicheck: ranks=3\nprogram p\n  call mpi_recv(x) ! expect: MR001\nend\n";
        let e = parse_program(f, Language::Fortran).unwrap();
        assert_eq!(e.ranks, 3);
        assert_eq!(e.expected, [("MR001".to_string(), 3)].into_iter().collect());

        let ok = "/* mpicheck: ranks=4 */\n/* expect: none */\nint main(void) { return 0; }\n";
        let e = parse_program(ok, Language::C).unwrap();
        assert_eq!(e.ranks, 4);
        assert!(e.expected.is_empty());
        // A C comment mentioning the word elsewhere is not an expectation.
        let prose = "/* mpicheck: ranks=2 */\n/* expect: none */\n/* we expect: nothing */\n";
        assert!(parse_program(prose, Language::C).is_ok());
    }

    #[test]
    fn rejects_malformed_programs_with_every_problem() {
        let errs = parse_program("int main(void) { return 0; }\n", Language::C).unwrap_err();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("ranks=N"), "{errs:?}");
        assert!(errs[1].contains("no expectation"), "{errs:?}");

        let bad = "/* mpicheck: ranks=0 np=2 */\n/* expect: none */\nx(); /* expect: DL009 */\ny(); /* expect: DL001 */\nz(); /* expect: */\n";
        let errs = parse_program(bad, Language::C).unwrap_err();
        let all = errs.join("\n");
        assert!(all.contains("`ranks=0`"), "{all}");
        assert!(all.contains("unknown mpicheck directive `np=2`"), "{all}");
        assert!(all.contains("unknown code `DL009`"), "{all}");
        assert!(
            all.contains("`expect: none` in a file that also expects"),
            "{all}"
        );
        assert!(all.contains("line 5: `expect:` without a code"), "{all}");

        // Fortran comments are `!`, not `/*`.
        let f = "/* mpicheck: ranks=2 */\n/* expect: none */\n";
        assert!(parse_program(f, Language::Fortran).is_err());
    }

    #[test]
    fn passing_report_covers_expectations() {
        let e = parse_program(C_PROGRAM, Language::C).unwrap();
        let findings = report(serde_json::json!([
            // Primary and secondary locations both count, whatever the rank; paths may be
            // absolute; extra lines of an expected code are fine.
            finding(
                "DL001",
                vec![loc(0, "/abs/dir/prog.c", 7), loc(1, "prog.c", 30)]
            ),
            finding("DL002", vec![loc(1, "prog.c", 99), loc(0, "./prog.c", 8)]),
            finding("CO001", vec![loc(2, "prog.c", 8)]),
        ]));
        assert_eq!(
            compare("prog.c", C_PROGRAM, &e, &findings, true),
            Vec::<String>::new()
        );
    }

    #[test]
    fn keys_marked_lines_are_required_only_with_keys() {
        let text = "/* mpicheck: ranks=2 check-buffers */\na[0] = 1; /* expect: DR002 */\nx = b[0]; /* expect: DR002 keys */\n";
        let e = parse_program(text, Language::C).unwrap();
        let both: BTreeSet<(String, u32)> = [("DR002".to_string(), 2), ("DR002".to_string(), 3)]
            .into_iter()
            .collect();
        assert_eq!(e.expected, both);
        assert_eq!(
            e.needs_keys,
            [("DR002".to_string(), 3)].into_iter().collect()
        );
        let store_only = report(serde_json::json!([finding(
            "DR002",
            vec![loc(0, "p.c", 2)]
        )]));
        assert!(compare("p.c", text, &e, &store_only, false).is_empty());
        let with_keys = compare("p.c", text, &e, &store_only, true);
        assert_eq!(with_keys.len(), 1, "{with_keys:?}");
        assert!(
            with_keys[0].starts_with("missing DR002 at line 3"),
            "{with_keys:?}"
        );
        // Without keys the other lines are still required.
        let load_only = report(serde_json::json!([finding(
            "DR002",
            vec![loc(0, "p.c", 3)]
        )]));
        let p = compare("p.c", text, &e, &load_only, false);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("missing DR002 at line 2"), "{p:?}");
        // `keys` alone is no code, nor does it go with `none`.
        assert!(parse_program(
            "/* mpicheck: ranks=2 */\nx; /* expect: keys */\n",
            Language::C
        )
        .is_err());
        assert!(parse_program(
            "/* mpicheck: ranks=2 */\n/* expect: none keys */\n",
            Language::C
        )
        .is_err());
    }

    #[test]
    fn missing_expectation_is_reported_with_the_source_line() {
        let e = parse_program(C_PROGRAM, Language::C).unwrap();
        let findings = report(serde_json::json!([
            finding("DL001", vec![loc(0, "prog.c", 6)]),
            // Right code and line, but in another file: does not count.
            finding("DL002", vec![loc(0, "other.c", 8)]),
            finding("CO001", vec![loc(0, "prog.c", 8)]),
        ]));
        let p = compare("prog.c", C_PROGRAM, &e, &findings, true);
        assert_eq!(p.len(), 2, "{p:#?}");
        assert_eq!(
            p[0],
            "missing DL001 at line 7: MPI_Ssend(a); /* expect: DL001 */\n      (DL001 was reported at line(s) 6 instead)"
        );
        assert!(p[1].starts_with("missing DL002 at line 8"), "{p:#?}");
    }

    #[test]
    fn unexpected_code_fails_even_when_expectations_are_met() {
        let e = parse_program(C_PROGRAM, Language::C).unwrap();
        let findings = report(serde_json::json!([
            finding("DL001", vec![loc(0, "prog.c", 7)]),
            finding("DL002", vec![loc(0, "prog.c", 8)]),
            finding("CO001", vec![loc(0, "prog.c", 8)]),
            finding("MR001", vec![loc(1, "prog.c", 7)]),
        ]));
        let p = compare("prog.c", C_PROGRAM, &e, &findings, true);
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(
            p[0].starts_with("unexpected finding MR001 (error)"),
            "{p:#?}"
        );
        assert!(p[0].contains("rank 1 MPI_Ssend at prog.c:7"), "{p:#?}");
    }

    #[test]
    fn correct_program_fails_on_any_finding() {
        let ok = "/* mpicheck: ranks=2 */\n/* expect: none */\n";
        let e = parse_program(ok, Language::C).unwrap();
        assert!(compare("ok.c", ok, &e, &report(serde_json::json!([])), true).is_empty());
        let f = report(serde_json::json!([finding("DL002", vec![])]));
        let p = compare("ok.c", ok, &e, &f, true);
        assert_eq!(
            p,
            vec!["unexpected finding DL002 (error): ranks 0, 1 wait for each other"]
        );
    }

    #[test]
    fn report_reader_accepts_rank_lists_and_rejects_bad_reports() {
        let json = r#"{"findings":[{"code":"DL001","category":"deadlock","severity":"error",
            "message":"m","locations":[
              {"ranks":[0,2],"call":"MPI_Recv","file":"a.c","line":3},
              {"ranks":"1-3","call":"MPI_Send","file":null,"line":null}]}]}"#;
        let f = parse_report(json).unwrap();
        assert_eq!(f[0].locations[0].ranks, "[0,2]");
        assert_eq!(f[0].locations[1].ranks, "1-3");
        assert_eq!(f[0].locations[1].line, None);
        assert_eq!(
            reported_pairs(&f, "a.c"),
            [("DL001".to_string(), 3)].into_iter().collect()
        );

        assert!(parse_report("not json").is_err());
        assert!(parse_report(r#"{"run":{}}"#)
            .unwrap_err()
            .contains("findings"));
        assert!(parse_report(r#"{"findings":[{"locations":[]}]}"#)
            .unwrap_err()
            .contains("code"));
        assert!(parse_report(r#"{"findings":[{"code":"DL001"}]}"#)
            .unwrap_err()
            .contains("locations"));
        assert!(
            parse_report(r#"{"findings":[{"code":"DL001","locations":[{"line":"seven"}]}]}"#)
                .unwrap_err()
                .contains("line")
        );
    }

    #[test]
    fn language_from_extension() {
        assert_eq!(Language::of(Path::new("a/b.c")), Some(Language::C));
        assert_eq!(Language::of(Path::new("b.f90")), Some(Language::Fortran));
        assert_eq!(Language::of(Path::new("b.f")), Some(Language::Fortran));
        assert_eq!(Language::of(Path::new("README.md")), None);
        assert_eq!(Language::Fortran.compiler("openmpi"), "mpif90.openmpi");
    }
}
pub mod generated;
