//! Helpers shared by the end-to-end tests: compile a test program with an MPI family's
//! wrapper, run commands bounded in time in their own process group (nothing left behind),
//! and run `mpicheck run` or plain `mpiexec`.
#![allow(dead_code)] // each test file uses a part

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mpicheck_trace::reader::{read_trace, Trace};

pub const MPICHECK: &str = env!("CARGO_BIN_EXE_mpicheck");
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Clone, Copy)]
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
}

pub fn program_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Compiles a test program with the family's wrapper (`-g -O0`), into `dir`.
pub fn compile(family: Family, name: &str, dir: &Path) -> PathBuf {
    let source = program_source(name);
    let exe = dir.join(Path::new(name).file_stem().unwrap());
    let compiler = family.compiler(&source);
    let output = Command::new(&compiler)
        .args(["-g", "-O0", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {compiler} (scripts/install-deps installs it): {e}")
        });
    assert!(
        output.status.success(),
        "{compiler} {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// Runs a command in its own process group, feeding `stdin`, and kills the group when it
/// outlives `RUN_TIMEOUT` (and after it exits: no rank is left behind).
pub fn run_bounded(mut cmd: Command, stdin: &[u8]) -> (Output, Duration) {
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
    let (out_thread, err_thread) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
            panic!("{cmd:?} did not finish within {RUN_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let elapsed = start.elapsed();
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    let output = Output {
        status,
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
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
    let mut cmd = Command::new(MPICHECK);
    cmd.args([
        "run",
        "--mpi",
        family.name,
        "-n",
        &ranks.to_string(),
        "--out",
    ])
    .arg(out)
    .args(extra)
    .arg("--")
    .args(program);
    run_bounded(cmd, stdin)
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
