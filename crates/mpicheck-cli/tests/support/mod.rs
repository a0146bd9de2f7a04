//! Helpers shared by the end-to-end tests: compile a test program with an MPI family's
//! wrapper, run commands bounded in time in their own process group (nothing left behind),
//! and run `mpicheck run` or plain `mpiexec`.
//!
//! `MPICHECK_TEST_BIN` runs `mpicheck run` of these tests with another mpicheck build (for
//! example an older one, to see a test fail before its fix).
#![allow(dead_code)] // each test file uses a part

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use mpicheck_trace::reader::{read_trace, Trace};

pub const MPICHECK: &str = env!("CARGO_BIN_EXE_mpicheck");
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Clone, Copy, Debug)]
pub struct Family {
    pub name: &'static str,
}

pub const MPICH: Family = Family { name: "mpich" };
pub const OPENMPI: Family = Family { name: "openmpi" };

impl Family {
    fn compiler(self, source: &Path) -> String {
        let wrapper = match source.extension().and_then(|e| e.to_str()) {
            Some("c") => "mpicc",
            Some("cpp") => "mpicxx",
            _ => "mpif90",
        };
        format!("{wrapper}.{}", self.name)
    }

    /// The other family: the MPI a program of this family is not linked against.
    pub fn other(self) -> Family {
        if self.name == MPICH.name {
            OPENMPI
        } else {
            MPICH
        }
    }
}

/// The mpicheck binary under test: this crate's, or `MPICHECK_TEST_BIN`.
pub fn mpicheck_bin() -> PathBuf {
    std::env::var_os("MPICHECK_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(MPICHECK))
}

pub fn program_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// The line of `source` whose marker comment is `/* site: NAME */`.
pub fn site_line(source: &Path, name: &str) -> usize {
    let marker = format!("/* site: {name} */");
    let text = std::fs::read_to_string(source).unwrap();
    1 + text.lines().position(|l| l.contains(&marker)).unwrap()
}

/// A set of the real traces of `tests/traces` (`features-mpich`, ...).
pub fn trace_fixture(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/traces")
        .join(set)
}

/// Compiles a test program with the family's wrapper (`-g -O0`), into `dir`.
pub fn compile(family: Family, name: &str, dir: &Path) -> PathBuf {
    let exe = dir.join(Path::new(name).file_stem().unwrap());
    compile_to(family, &program_source(name), &exe);
    exe
}

/// Compiles `source` with the family's wrapper (`-g -O0`) into `exe`.
pub fn compile_to(family: Family, source: &Path, exe: &Path) {
    let name = source.display();
    let compiler = family.compiler(source);
    let output = Command::new(&compiler)
        .args(["-g", "-O0", "-o"])
        .arg(exe)
        .arg(source)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {compiler} (scripts/install-deps installs it): {e}")
        });
    assert!(
        output.status.success(),
        "{compiler} {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs a command in its own process group, feeding `stdin`, and kills the group when it
/// outlives `RUN_TIMEOUT` (and after it exits: no rank is left behind).
pub fn run_bounded(cmd: Command, stdin: &[u8]) -> (Output, Duration) {
    run_bounded_watching(cmd, stdin, |_| {})
}

/// [`run_bounded`], calling `on_stderr_line` with each line the command writes on stderr as
/// it comes (a test that acts when mpicheck says something, instead of guessing a delay).
pub fn run_bounded_watching(
    mut cmd: Command,
    stdin: &[u8],
    mut on_stderr_line: impl FnMut(&[u8]) + Send + 'static,
) -> (Output, Duration) {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // Open MPI refuses root and more ranks than cores unless told.
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn");
    let pgid = child.id() as i32;
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out_thread = read(Box::new(stdout));
    // (Shared, so that a command that outlives the timeout is reported with what it said.)
    let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let err_thread = {
        let said = said.clone();
        std::thread::spawn(move || {
            let mut stderr = std::io::BufReader::new(stderr);
            let mut line = Vec::new();
            while std::io::BufRead::read_until(&mut stderr, b'\n', &mut line).unwrap_or(0) > 0 {
                on_stderr_line(&line);
                said.lock().unwrap().append(&mut line);
            }
        })
    };
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            // What each process of the job was doing, to tell a hang from a slow machine
            // (procps's ps cannot select a process group: `-g` is a session).
            let processes = Command::new("ps")
                .args([
                    "-e",
                    "-o",
                    "pgid=,pid=,ppid=,stat=,etime=,time=,wchan:24=,args=",
                ])
                .output()
                .map_or_else(
                    |e| e.to_string(),
                    |o| {
                        text(&o.stdout)
                            .lines()
                            .filter(|l| l.split_whitespace().next() == Some(&pgid.to_string()))
                            .collect::<Vec<_>>()
                            .join("\n")
                    },
                );
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            let said = String::from_utf8_lossy(&said.lock().unwrap()).into_owned();
            panic!("{cmd:?} did not finish within {RUN_TIMEOUT:?}\n{processes}\nit said:\n{said}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let elapsed = start.elapsed();
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    let stdout = out_thread.join().unwrap();
    err_thread.join().unwrap();
    let stderr = std::mem::take(&mut *said.lock().unwrap());
    let output = Output {
        status,
        stdout,
        stderr,
    };
    (output, elapsed)
}

pub fn mpicheck_run(
    family: Family,
    ranks: u32,
    out: &Path,
    program: &[&str],
    extra: &[&str],
    stdin: &[u8],
) -> (Output, Duration) {
    run_bounded(
        mpicheck_run_command(family, ranks, out, program, extra),
        stdin,
    )
}

/// `mpicheck run --mpi FAMILY -n RANKS --out OUT EXTRA -- PROGRAM`, not started.
pub fn mpicheck_run_command(
    family: Family,
    ranks: u32,
    out: &Path,
    program: &[&str],
    extra: &[&str],
) -> Command {
    let mut cmd = Command::new(mpicheck_bin());
    add_run_args(&mut cmd, family, ranks, out, program, extra);
    cmd
}

/// Adds `run --mpi FAMILY -n RANKS --out OUT EXTRA -- PROGRAM` to `cmd`, an mpicheck
/// command (run directly or through another program, e.g. as another user).
pub fn add_run_args(
    cmd: &mut Command,
    family: Family,
    ranks: u32,
    out: &Path,
    program: &[&str],
    extra: &[&str],
) {
    cmd.args(["run", "--mpi", family.name, "-n", &ranks.to_string()])
        .arg("--out")
        .arg(out)
        .args(extra)
        .arg("--")
        .args(program);
}

/// `mpicheck ARGS`, bounded in time.
pub fn mpicheck(args: &[&str]) -> Output {
    let mut cmd = Command::new(mpicheck_bin());
    cmd.args(args);
    run_bounded(cmd, b"").0
}

pub fn plain_run(family: Family, ranks: u32, program: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(format!("mpiexec.{}", family.name));
    cmd.args(["-n", &ranks.to_string()]).args(program);
    run_bounded(cmd, stdin).0
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Lines in a stable order: ranks print concurrently.
pub fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

pub fn traces(out: &Path) -> Vec<Trace> {
    let mut traces: Vec<Trace> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
        .map(|p| read_trace(&p).unwrap())
        .filter(|t| t.header.initialized())
        .collect();
    traces.sort_by_key(|t| t.header.best_rank());
    traces
}

/// A started command whose output is collected on threads (it never blocks on a full pipe),
/// for tests that act on the job while it runs.
pub struct Collected {
    pub child: Child,
    out: std::thread::JoinHandle<Vec<u8>>,
    err: std::thread::JoinHandle<Vec<u8>>,
}

/// Starts `cmd` like `run_bounded` does, without waiting.
pub fn spawn_collected(mut cmd: Command) -> Collected {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    let mut child = cmd.spawn().expect("spawn");
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    Collected { child, out, err }
}

impl Collected {
    /// Waits at most `RUN_TIMEOUT`, then kills the process group (and after it exits).
    pub fn wait(mut self) -> Output {
        let start = Instant::now();
        let pgid = self.child.id() as i32;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > RUN_TIMEOUT {
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                panic!("did not finish within {RUN_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        Output {
            status,
            stdout: self.out.join().unwrap(),
            stderr: self.err.join().unwrap(),
        }
    }
}

/// The one-line error contract: exit status 2, a line with the expected words that is the
/// error itself (`mpicheck: error: ...`, or clap's `error: ...`), no panic.
pub fn assert_error(output: &Output, expected: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(expected))
        .unwrap_or_else(|| panic!("no line says `{expected}`:\n{stderr}"));
    assert!(
        line.starts_with("mpicheck: error: ") || line.starts_with("error: "),
        "{stderr}"
    );
}

/// The codes of the findings in `out/report.json`.
pub fn report_codes(out: &Path) -> Vec<String> {
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// Whether process `pid` still exists and is not a zombie.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}
