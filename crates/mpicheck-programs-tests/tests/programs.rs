//! Tier-2 harness: every program of `tests/programs/` under every MPI family on this machine.
//!
//! The programs of `tests/programs/generated/` (the argument rules' generated suite) are
//! run the same way, their tests named `generated/<file>::<family>`.
//!
//! For each program there is one test `<file>::expectations` (no MPI: the directive and
//! expectations parse) and one test `<file>::<family>` per MPI family (`mpich`, `openmpi`):
//! compile with the family's wrapper (`-g -O0`) into a temporary directory, run
//! `mpicheck run --mpi <family> -n N --out <dir> --deadlock-timeout 3 -- <program>` under a
//! hard timeout, read `<dir>/report.json` and compare it with the program's expectations
//! (see the library docs). A program whose `mpi=` directive leaves a family out passes
//! under it with the reason printed (`ok (not run: openmpi's mpi.h lacks MPI_Psend_init)`),
//! after checking that the family's preprocessed `mpi.h` indeed lacks a function the
//! program calls. A family whose compiler or `mpiexec` is missing gives ignored tests,
//! failed ones in CI (`CI` set), where every test must run.
//!
//! A small libtest-compatible runner (`harness = false`): filters, `--exact`, `--skip`,
//! `--ignored`, `--include-ignored`, `--list [--format terse]`, `--test-threads`, so `cargo
//! test` and `cargo nextest` both see each program × family as its own test. At most two
//! tests run at once (2-core machines, each test starts several ranks).
//!
//! The mpicheck binary: `$MPICHECK_BIN`, else `mpicheck` next to the profile directory this
//! test was built into (`target/<profile>/`), else `target/{debug,release}/mpicheck` of the
//! workspace. Build it with `cargo build -p mpicheck-cli`.

use std::collections::VecDeque;
use std::fs;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mpicheck_programs_tests::{
    compare, lacking_functions, parse_program, parse_report, Expectations, Language, FAMILIES,
};

/// Compiling one program. (Its `mpicheck run` may take `Expectations::timeout_secs`.)
const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);
const DEADLOCK_TIMEOUT_SECS: &str = "3";
const MAX_PARALLEL: usize = 2;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn programs_dir() -> PathBuf {
    workspace_root().join("tests/programs")
}

#[derive(Clone)]
enum Kind {
    Expectations,
    Run { family: &'static str },
}

#[derive(Clone)]
struct Test {
    name: String,
    path: PathBuf,
    lang: Language,
    kind: Kind,
    /// Why it cannot run here, for ignored tests.
    ignored: Option<String>,
    /// Why it cannot run here, in CI: the test fails with this.
    unavailable: Option<String>,
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            let p = d.join(program);
            p.is_file()
                && fs::metadata(&p)
                    .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0)
                    .unwrap_or(false)
        })
    })
}

/// The programs of a directory, sorted.
fn programs_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| Language::of(p).is_some())
        .collect();
    files.sort();
    Ok(files)
}

fn collect_tests() -> Result<Vec<Test>, String> {
    let dir = programs_dir();
    let mut files = programs_in(&dir)?;
    // The generated argument-rule suite (`src/generated.rs`), named `generated/<file>`.
    files.extend(programs_in(&dir.join("generated"))?);
    if files.is_empty() {
        return Err(format!("no programs in {}", dir.display()));
    }
    let mut tests = Vec::new();
    for path in files {
        let lang = Language::of(&path).expect("filtered above");
        let file = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        tests.push(Test {
            name: format!("{file}::expectations"),
            path: path.clone(),
            lang,
            kind: Kind::Expectations,
            ignored: None,
            unavailable: None,
        });
        for &family in FAMILIES {
            let cc = lang.compiler(family);
            let exec = format!("mpiexec.{family}");
            let missing: Vec<&str> = [cc.as_str(), exec.as_str()]
                .into_iter()
                .filter(|p| !on_path(p))
                .collect();
            let missing = (!missing.is_empty())
                .then(|| format!("{} not found on PATH", missing.join(" and ")));
            let (ignored, unavailable) = if mpicheck_test_support::in_ci() {
                (None, missing)
            } else {
                (missing, None)
            };
            tests.push(Test {
                name: format!("{file}::{family}"),
                path: path.clone(),
                lang,
                kind: Kind::Run { family },
                ignored,
                unavailable,
            });
        }
    }
    Ok(tests)
}

fn read_program(path: &Path, lang: Language) -> Result<(String, Expectations), String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let exp = parse_program(&text, lang).map_err(|errs| {
        format!(
            "{} has malformed expectations:\n  {}",
            path.display(),
            errs.join("\n  ")
        )
    })?;
    Ok((text, exp))
}

fn mpicheck_binary() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("MPICHECK_BIN") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("MPICHECK_BIN={} does not exist", p.display()))
        };
    }
    let mut candidates = Vec::new();
    // target/<profile>/deps/programs-<hash> → target/<profile>/mpicheck
    if let Ok(exe) = std::env::current_exe() {
        if let Some(profile_dir) = exe.parent().and_then(Path::parent) {
            candidates.push(profile_dir.join("mpicheck"));
        }
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    candidates.push(target.join("debug/mpicheck"));
    candidates.push(target.join("release/mpicheck"));
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "the mpicheck binary was not found (looked at {}); build it with \
                 `cargo build -p mpicheck-cli`, or point MPICHECK_BIN at it",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// Runs `cmd` in its own process group with stdout/stderr to files; kills the whole group
/// when it outlives `timeout` (and after it exits, so no rank is left behind).
fn run_bounded(
    mut cmd: Command,
    timeout: Duration,
    out: &Path,
    err: &Path,
) -> Result<std::process::ExitStatus, String> {
    let stdout = fs::File::create(out).map_err(|e| e.to_string())?;
    let stderr = fs::File::create(err).map_err(|e| e.to_string())?;
    cmd.stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    let pgid = child.id();
    let kill_group = || {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                kill_group();
                return Ok(status);
            }
            Ok(None) if start.elapsed() >= timeout => {
                kill_group();
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{:?} did not finish within {} s; its process group was killed",
                    cmd.get_program(),
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for {:?}: {e}", cmd.get_program())),
        }
    }
}

fn tail(path: &Path, max_lines: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(max_lines);
    lines[from..]
        .iter()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a program whose `mpi=` leaves `family` out is not run under it: the functions it
/// calls that the family's `mpi.h` lacks; an error if it lacks none (the directive would
/// hide a program the family can run).
fn not_run_reason(test: &Test, family: &str, source: &str) -> Result<String, String> {
    let stem = test.path.file_stem().unwrap().to_string_lossy();
    let work = std::env::temp_dir().join(format!(
        "mpicheck-programs-{}-{stem}-{family}-header",
        std::process::id()
    ));
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let probe = work.join("probe.c");
    fs::write(&probe, "#include <mpi.h>\n").map_err(|e| e.to_string())?;
    let cc_name = Language::C.compiler(family);
    let mut cc = Command::new(&cc_name);
    cc.arg("-E").arg(&probe);
    let (out, err) = (work.join("header.i"), work.join("header.stderr"));
    let status = run_bounded(cc, COMPILE_TIMEOUT, &out, &err)?;
    let header = fs::read_to_string(&out).unwrap_or_default();
    let _ = fs::remove_dir_all(&work);
    if !status.success() {
        return Err(format!("`{cc_name} -E` of <mpi.h> failed ({status})"));
    }
    let lacking = lacking_functions(source, &header);
    let file = test.path.file_name().unwrap().to_string_lossy();
    if lacking.is_empty() {
        return Err(format!(
            "{file} is not run under {family} (its `mpi=` directive leaves it out), but \
             {family}'s mpi.h declares every MPI function it calls: add {family} to `mpi=`"
        ));
    }
    Ok(format!(
        "not run: {family}'s mpi.h lacks {}",
        lacking.join(", ")
    ))
}

/// Runs one program under one family; `Ok(Some(why))` when its `mpi=` directive leaves the
/// family out and the family lacks a function it calls.
fn run_program(test: &Test, family: &str) -> Result<Option<String>, String> {
    let (source, exp) = read_program(&test.path, test.lang)?;
    if !exp.runs_under(family) {
        return not_run_reason(test, family, &source).map(Some);
    }
    let mpicheck = mpicheck_binary()?;
    let file = test
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let stem = test
        .path
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let work = std::env::temp_dir().join(format!(
        "mpicheck-programs-{}-{stem}-{family}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let src = fs::canonicalize(&test.path).map_err(|e| e.to_string())?;
    let exe = work.join(&stem);

    let mut cc = Command::new(test.lang.compiler(family));
    cc.args(["-g", "-O0"])
        .args(&exp.cflags)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .current_dir(&work);
    let (cc_out, cc_err) = (work.join("compile.stdout"), work.join("compile.stderr"));
    let status = run_bounded(cc, COMPILE_TIMEOUT, &cc_out, &cc_err)?;
    if !status.success() {
        return Err(format!(
            "compiling {file} with {} failed ({status}):\n{}",
            test.lang.compiler(family),
            tail(&cc_err, 30)
        ));
    }

    let out_dir = work.join("report");
    let mut run = Command::new(&mpicheck);
    run.arg("run")
        .args(["--mpi", family, "-n", &exp.ranks.to_string()])
        .args(exp.check_buffers.then_some("--check-buffers"))
        .arg("--out")
        .arg(&out_dir)
        .args(["--deadlock-timeout", DEADLOCK_TIMEOUT_SECS, "--"])
        .arg(&exe)
        .current_dir(&work);
    if family == "openmpi" {
        // Open MPI refuses root and more ranks than cores unless told (CI runs as root on
        // 2 cores), whatever launcher mpicheck builds.
        run.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    }
    let (run_out, run_err) = (work.join("mpicheck.stdout"), work.join("mpicheck.stderr"));
    let started = Instant::now();
    let status = run_bounded(
        run,
        Duration::from_secs(exp.timeout_secs),
        &run_out,
        &run_err,
    )
    .map_err(|e| {
        format!(
            "{e}\n  mpicheck stderr (last lines):\n{}\n  kept: {}",
            tail(&run_err, 20),
            work.display()
        )
    })?;
    let elapsed = started.elapsed();

    let report_path = out_dir.join("report.json");
    let json = fs::read_to_string(&report_path).map_err(|e| {
        format!(
            "no {} after `mpicheck run` ({status}, {:.1} s): {e}\n  mpicheck stderr (last lines):\n{}\n  kept: {}",
            report_path.display(),
            elapsed.as_secs_f64(),
            tail(&run_err, 20),
            work.display()
        )
    })?;
    let findings = parse_report(&json).map_err(|e| format!("{e}\n  kept: {}", work.display()))?;
    let keys = protection_keys();
    let mut problems = compare(&file, &source, &exp, &findings, keys);
    // Buffer checking, and the trampolines mpicheck puts around the program's callbacks,
    // must not change what the program does: those programs check their own data and fail
    // when it is wrong (mpicheck's status 3: the program failed).
    if (exp.check_buffers || exp.checks_itself) && status.code() == Some(3) {
        problems.push(format!(
            "the program failed under mpicheck; its output:\n{}",
            tail(&run_out, 20)
        ));
    }
    if problems.is_empty() {
        let _ = fs::remove_dir_all(&work);
        return Ok(None);
    }
    let mut msg = format!(
        "{file} under {family} ({} ranks, mpicheck {status}, {:.1} s) does not meet its expectations:\n",
        exp.ranks,
        elapsed.as_secs_f64()
    );
    for p in &problems {
        msg.push_str(&format!("  - {p}\n"));
    }
    if findings.is_empty() {
        msg.push_str("  reported: no findings\n");
    } else {
        msg.push_str("  reported:\n");
        for f in &findings {
            msg.push_str(&format!("    {f}\n"));
        }
    }
    msg.push_str(&format!("  kept: {}", work.display()));
    Err(msg)
}

/// Whether `mpicheck run --check-buffers` uses memory protection keys here: the kernel has
/// them enabled on this CPU (`ospke`) and `MPICHECK_BUFFERS_MECHANISM` does not ask for page
/// protection. Without, lines marked `expect: ... keys` are not required.
fn protection_keys() -> bool {
    if std::env::var("MPICHECK_BUFFERS_MECHANISM").is_ok_and(|m| m == "mprotect") {
        return false;
    }
    fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| {
        c.lines()
            .filter(|l| l.starts_with("flags"))
            .any(|l| l.split_whitespace().any(|f| f == "ospke"))
    })
}

fn run_test(test: &Test) -> Result<Option<String>, String> {
    if let Some(why) = &test.unavailable {
        return Err(format!(
            "{why} (scripts/install-deps installs it); in CI every test must run (CI is set), \
             so this is a failure, not a skip"
        ));
    }
    match test.kind {
        Kind::Expectations => read_program(&test.path, test.lang).map(|_| None),
        Kind::Run { family } => run_program(test, family),
    }
}

#[derive(Default)]
struct Args {
    filters: Vec<String>,
    skip: Vec<String>,
    exact: bool,
    list: bool,
    terse: bool,
    ignored: bool,
    include_ignored: bool,
    threads: Option<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--exact" => a.exact = true,
            "--list" => a.list = true,
            "--ignored" => a.ignored = true,
            "--include-ignored" => a.include_ignored = true,
            "--format" => a.terse = value("--format")? == "terse",
            "--test-threads" => {
                a.threads = Some(
                    value("--test-threads")?
                        .parse()
                        .map_err(|_| "--test-threads needs a number".to_string())?,
                )
            }
            "--skip" => a.skip.push(value("--skip")?),
            "--color" | "--logfile" | "-Z" => {
                value(&flag)?;
            }
            "--nocapture"
            | "--no-capture"
            | "--show-output"
            | "-q"
            | "--quiet"
            | "--bench"
            | "--test"
            | "--force-run-in-process" => {}
            f if f.starts_with('-') => return Err(format!("unknown option {f}")),
            _ => a.filters.push(arg),
        }
    }
    Ok(a)
}

fn selected(a: &Args, name: &str) -> bool {
    let matches = |f: &String| {
        if a.exact {
            name == f
        } else {
            name.contains(f.as_str())
        }
    };
    (a.filters.is_empty() || a.filters.iter().any(matches)) && !a.skip.iter().any(matches)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let all = match collect_tests() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(101);
        }
    };
    let total = all.len();
    let tests: Vec<Test> = all
        .into_iter()
        .filter(|t| selected(&args, &t.name))
        .collect();
    let filtered_out = total - tests.len();

    if args.list {
        for t in &tests {
            if args.ignored && t.ignored.is_none() {
                continue;
            }
            println!("{}: test", t.name);
        }
        if !args.terse {
            println!("\n{} tests, 0 benchmarks", tests.len());
        }
        return ExitCode::SUCCESS;
    }

    let mut ignored = 0usize;
    let mut queue = VecDeque::new();
    for t in tests {
        let run = match (&t.ignored, args.ignored, args.include_ignored) {
            (_, _, true) => true,
            (Some(_), true, _) => true,
            (None, true, _) => false,
            (None, false, _) => true,
            (Some(_), false, _) => false,
        };
        if run {
            queue.push_back(t);
        } else if !args.ignored {
            println!(
                "test {} ... ignored, {}",
                t.name,
                t.ignored.as_deref().unwrap_or("")
            );
            ignored += 1;
        }
    }
    let count = queue.len();
    println!("\nrunning {count} tests");
    let threads = args.threads.unwrap_or(MAX_PARALLEL).clamp(1, MAX_PARALLEL);
    let queue = Arc::new(Mutex::new(queue));
    let failures: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let passed = Arc::new(Mutex::new(0usize));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (queue, failures, passed) = (queue.clone(), failures.clone(), passed.clone());
            std::thread::spawn(move || loop {
                let Some(t) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let result = std::panic::catch_unwind(|| run_test(&t))
                    .unwrap_or_else(|_| Err("the harness panicked".to_string()));
                let mut stdout = std::io::stdout().lock();
                match result {
                    Ok(note) => {
                        let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
                        let _ = writeln!(stdout, "test {} ... ok{note}", t.name);
                        *passed.lock().unwrap() += 1;
                    }
                    Err(e) => {
                        let _ = writeln!(stdout, "test {} ... FAILED", t.name);
                        failures.lock().unwrap().push((t.name.clone(), e));
                    }
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }

    let mut failures = std::mem::take(&mut *failures.lock().unwrap());
    failures.sort();
    let passed = *passed.lock().unwrap();
    if !failures.is_empty() {
        println!("\nfailures:\n");
        for (name, msg) in &failures {
            println!("---- {name} ----\n{msg}\n");
        }
        println!("failures:");
        for (name, _) in &failures {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed; {ignored} ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n",
        if failures.is_empty() { "ok" } else { "FAILED" },
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(101)
    }
}
