//! Starting the user's program under its MPI's launcher with the interposition library
//! preloaded into every rank, and only into the ranks: `mpiexec` itself is not an MPI
//! program. The launcher starts `mpicheck exec-rank ... -- PROGRAM ARGS` as each rank
//! ([`exec_rank`]), which sets the rank's environment and `exec`s the program in place, so
//! the rank keeps its process id and the program's path is never parsed by anyone (`env
//! NAME=VALUE prog` took a program path containing `=` for another assignment). On the
//! way it asks the kernel to kill the rank when its parent (the MPI's proxy or daemon)
//! dies, so a job never outlives mpicheck (see `run.rs`).

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The MPI implementations mpicheck has an interposition library for.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum MpiFamily {
    Mpich,
    Openmpi,
    /// The MPI-5 standard ABI (`mpi_abi.h`, `libmpi_abi.so`; PyPI's `mpich` wheel).
    MpiAbi,
}

impl MpiFamily {
    pub fn name(self) -> &'static str {
        match self {
            MpiFamily::Mpich => "mpich",
            MpiFamily::Openmpi => "openmpi",
            MpiFamily::MpiAbi => "mpiabi",
        }
    }

    /// File name of the interposition library built for this family.
    pub fn library_file(self) -> &'static str {
        match self {
            MpiFamily::Mpich => "libmpicheck_mpich.so",
            MpiFamily::Openmpi => "libmpicheck_openmpi.so",
            MpiFamily::MpiAbi => "libmpicheck_mpiabi.so",
        }
    }

    /// Debian's names for this family's launcher, then the generic one.
    fn launcher_candidates(self) -> &'static [&'static str] {
        match self {
            MpiFamily::Mpich => &["mpiexec.mpich", "mpiexec.hydra", "mpiexec"],
            MpiFamily::Openmpi => &["mpiexec.openmpi", "mpirun.openmpi", "mpiexec"],
            // The wheel's Hydra, where scripts/install-deps puts it (else --launcher).
            MpiFamily::MpiAbi => &["/opt/mpich-abi/bin/mpiexec"],
        }
    }

    /// The name people know it by.
    pub fn display_name(self) -> &'static str {
        match self {
            MpiFamily::Mpich => "MPICH",
            MpiFamily::Openmpi => "Open MPI",
            MpiFamily::MpiAbi => "the MPI-5 ABI (libmpi_abi)",
        }
    }

    /// The value of `--mpi` that selects it.
    pub fn flag(self) -> &'static str {
        match self {
            MpiFamily::Mpich => "mpich",
            MpiFamily::Openmpi => "openmpi",
            MpiFamily::MpiAbi => "mpi-abi",
        }
    }

    fn install_hint(self) -> &'static str {
        match self {
            MpiFamily::Mpich => "apt-get install mpich libmpich-dev",
            MpiFamily::Openmpi => "apt-get install openmpi-bin libopenmpi-dev",
            MpiFamily::MpiAbi => "pip install --prefix /opt/mpich-abi mpich",
        }
    }
}

/// Finds an executable: a path with a slash as given, else on `PATH`.
pub fn find_program(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let path = PathBuf::from(name);
        return is_executable(&path).then_some(path);
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| is_executable(p))
}

/// An MPI launcher given as the program (`mpicheck run -- mpirun -n 4 ./app`): mpicheck
/// starts the job itself, so the launcher would be started as a rank and start a second,
/// unrecorded job inside it. Returns the one-line error naming the command to use, built
/// from the launcher's arguments when they are only a process count and the program.
pub fn launcher_given_as_program(program: &Path, command: &[String]) -> Option<String> {
    let launcher = [Some(program.to_path_buf()), program.canonicalize().ok()]
        .into_iter()
        .flatten()
        .filter_map(|path| Some(path.file_name()?.to_str()?.to_owned()))
        .find(|name| is_launcher_name(name))?;
    let given = &command[0];
    let (ranks, rest) = process_count_and_rest(&command[1..]);
    let ranks = ranks.unwrap_or("N");
    let instead = match rest.first() {
        Some(first) if !first.starts_with('-') => {
            let program_args = shlex::try_join(rest.iter().map(String::as_str))
                .unwrap_or_else(|_| rest.join(" "));
            format!("`mpicheck run -n {ranks} -- {program_args}`")
        }
        _ => format!(
            "`mpicheck run -n {ranks} -- PROGRAM ARGS`, with other launcher options in --launcher \"{given} OPTIONS\""
        ),
    };
    // Name the launcher a link or an alternative leads to, where it is another name.
    let through = if Path::new(given).file_name() == Some(launcher.as_ref()) {
        String::new()
    } else {
        format!(" ({launcher})")
    };
    Some(format!(
        "`{given}` is an MPI launcher{through}: mpicheck run starts the job itself; run {instead}"
    ))
}

/// One program of the job and the number of ranks that run it. `mpicheck run -n 2 --
/// ./ocean : -n 4 ./atmosphere` starts a job of two programs (a multiple-program launch,
/// "MPMD"), as mpiexec's colon syntax does: each program is recorded, and the ranks share
/// one `MPI_COMM_WORLD` (ranks 0-1 the ocean, 2-5 the atmosphere).
#[derive(Debug, PartialEq, Eq)]
pub struct AppContext {
    pub ranks: u32,
    /// The program and its arguments.
    pub command: Vec<String>,
}

/// The programs of `command` (split on a `:` word, as every MPI launcher does), the first
/// run by `first_ranks` ranks (`mpicheck run -n`), each later one by the count it starts
/// with (`: -n 4 ./atmosphere`).
pub fn app_contexts(first_ranks: u32, command: &[String]) -> Result<Vec<AppContext>> {
    let mut parts = command.split(|word| word == ":");
    let first = parts.next().unwrap_or_default();
    if first.is_empty() {
        bail!(
            "no program before `:`; run `mpicheck run -n N -- PROGRAM ARGS : -n M PROGRAM2 ARGS`"
        );
    }
    let mut contexts = vec![AppContext {
        ranks: first_ranks,
        command: first.to_vec(),
    }];
    let mut total = first_ranks;
    for part in parts {
        let (count, rest) = process_count_and_rest(part);
        let Some(count) = count else {
            bail!(
                "each program after `:` needs its process count: `: -n M PROGRAM ARGS` (got `: {}`)",
                part.join(" ")
            );
        };
        let ranks = count
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .with_context(|| format!("invalid process count `{count}` after `:`"))?;
        match rest.first() {
            None => bail!("no program after `: -n {count}`"),
            Some(option) if option.starts_with('-') => bail!(
                "launcher option `{option}` for one program after `:`: mpicheck takes only `-n M PROGRAM ARGS` there; give options for the whole job in --launcher"
            ),
            Some(_) => {}
        }
        total = total
            .checked_add(ranks)
            .context("too many processes in all")?;
        contexts.push(AppContext {
            ranks,
            command: rest.to_vec(),
        });
    }
    Ok(contexts)
}

/// The MPI of a job, and its first program, which names the job (reports, the "nothing
/// recorded" diagnosis).
pub struct JobMpi {
    pub program: PathBuf,
    /// The MPI the first program is linked against, if any.
    pub linked: Option<MpiFamily>,
    pub family: MpiFamily,
}

/// Checks every program of the job (found, not a launcher, linked against the MPI that
/// `--mpi` may only confirm, or a Python program, for which `--mpi` decides, the same for
/// all) and returns the job's MPI.
pub fn job_mpi(contexts: &[AppContext], requested: Option<MpiFamily>) -> Result<JobMpi> {
    let mut first: Option<JobMpi> = None;
    for context in contexts {
        let program_name = &context.command[0];
        let program = find_program(program_name).with_context(|| {
            format!("program `{program_name}` not found or not executable (give a path such as ./app, or a name on PATH)")
        })?;
        if let Some(error) = launcher_given_as_program(&program, &context.command) {
            bail!("{error}");
        }
        // A Python program loads MPI with an extension module: mpi4py's when the
        // interpreter has one, which the program need not import (GPAW loads its own).
        let (linked, family) = match linked_family(&program)? {
            Some(family) => (
                Some(family),
                choose_family(requested, Some(family), &program)?,
            ),
            None => match python_family(&program) {
                Some((found, module)) => (
                    Some(found),
                    python_choice(requested, found, &program, &module),
                ),
                None => (None, choose_family(requested, None, &program)?),
            },
        };
        match &first {
            None => {
                first = Some(JobMpi {
                    program,
                    linked,
                    family,
                })
            }
            Some(job) if job.family != family => bail!(
                "{} uses {} and {} uses {}: the programs of one job must use the same MPI",
                job.program.display(),
                job.family.display_name(),
                program.display(),
                family.display_name()
            ),
            Some(_) => {}
        }
    }
    first.context("no program to run")
}

fn is_launcher_name(name: &str) -> bool {
    // Debian's mpirun.openmpi, mpiexec.hydra, mpiexec.mpich, ...
    let base = name.split_once('.').map_or(name, |(base, _)| base);
    [
        "mpirun", "mpiexec", "orterun", "prterun", "srun", "aprun", "jsrun",
    ]
    .contains(&base)
}

/// The process count of launcher arguments that start with one (`-n 4`, `-np 4`, `--np 4`,
/// `-c 4`, `-n=4`), and the arguments after it.
fn process_count_and_rest(args: &[String]) -> (Option<&str>, &[String]) {
    let Some(first) = args.first() else {
        return (None, args);
    };
    if let Some((flag, count)) = first.split_once('=') {
        if is_count_flag(flag) {
            return (Some(count), &args[1..]);
        }
    }
    match args.get(1) {
        Some(count) if is_count_flag(first) => (Some(count), &args[2..]),
        _ => (None, args),
    }
}

fn is_count_flag(flag: &str) -> bool {
    ["-n", "-np", "--np", "--n", "-c"].contains(&flag)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The MPI the dynamic loader resolves for a program (`ldd`), so that programs linked
/// through Fortran or C++ MPI libraries count too: `None` when it links none (statically
/// linked MPI, a script, not an MPI program, MPI loaded with `dlopen`).
pub fn linked_family(program: &Path) -> Result<Option<MpiFamily>> {
    let output = Command::new("ldd").arg(program).output().with_context(|| {
        "cannot run `ldd` to see which MPI the program uses; pass --mpi mpich|openmpi|mpi-abi"
    })?;
    Ok(family_from_ldd(&String::from_utf8_lossy(&output.stdout)))
}

/// The MPI a Python program uses through mpi4py, and the mpi4py extension that links it: the
/// program is a Python interpreter, or a script whose `#!` line names one. The interpreter is
/// asked where `mpi4py.MPI` lives without importing it (that would initialize MPI); the
/// extension's libraries say which MPI. `None` when it is no Python program, has no mpi4py,
/// or the interpreter does not answer within a few seconds.
pub fn python_family(program: &Path) -> Option<(MpiFamily, PathBuf)> {
    const FIND_MPI4PY: &str = "import importlib.util as u\n\
        s = u.find_spec('mpi4py.MPI')\n\
        print(s.origin if s is not None and s.origin else '')";
    let interpreter = python_interpreter(program)?;
    let mut child = Command::new(interpreter)
        .args(["-c", FIND_MPI4PY])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut origin = String::new();
    child.stdout.take()?.read_to_string(&mut origin).ok()?;
    let module = PathBuf::from(origin.trim());
    if !module.is_absolute() {
        return None;
    }
    let family = linked_family(&module).ok()??;
    Some((family, module))
}

/// The Python interpreter that runs `program`: itself, or the one its `#!` line names
/// (directly or through `env`).
fn python_interpreter(program: &Path) -> Option<PathBuf> {
    let is_python = |path: &Path| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("python"))
    };
    if is_python(program) {
        return Some(program.to_path_buf());
    }
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let head = String::from_utf8_lossy(&head[..n]);
    let mut words = head.strip_prefix("#!")?.lines().next()?.split_whitespace();
    let first = PathBuf::from(words.next()?);
    let interpreter = if first.file_name().is_some_and(|n| n == "env") {
        find_program(words.find(|w| !w.starts_with('-'))?)?
    } else {
        first
    };
    is_python(&interpreter).then_some(interpreter)
}

/// The MPI to record: the one the program is linked against, which `--mpi` may only
/// confirm (the other MPI's library would record nothing, or crash the program); `--mpi`
/// alone, with a warning, for a program linked against none.
pub fn choose_family(
    requested: Option<MpiFamily>,
    linked: Option<MpiFamily>,
    program: &Path,
) -> Result<MpiFamily> {
    match (requested, linked) {
        (Some(requested), Some(linked)) if requested != linked => bail!(
            "{} is linked against {}, not {}; drop --mpi or pass --mpi {}",
            program.display(),
            linked.display_name(),
            requested.display_name(),
            linked.flag()
        ),
        (_, Some(linked)) => Ok(linked),
        (Some(requested), None) => {
            eprintln!(
                "mpicheck: warning: {} is not linked against an MPI library (statically linked MPI, a script, or not an MPI program); mpicheck records only calls made through a shared MPI library (here {}), so nothing may be recorded",
                program.display(),
                requested.display_name()
            );
            Ok(requested)
        }
        (None, None) => bail!(
            "{} is not linked against MPICH or Open MPI (no libmpich or libmpi.so.40 in `ldd` output); \
             build it with mpicc, or pass --mpi mpich|openmpi if it loads MPI another way",
            program.display()
        ),
    }
}

/// The MPI to record for a Python program whose interpreter has mpi4py linked against
/// `found`: that one, or the one `--mpi` names, with a warning, as the program may load
/// another MPI through an extension of its own.
fn python_choice(
    requested: Option<MpiFamily>,
    found: MpiFamily,
    program: &Path,
    mpi4py: &Path,
) -> MpiFamily {
    match requested {
        Some(requested) if requested != found => {
            eprintln!(
                "mpicheck: warning: {}'s mpi4py ({}) is linked against {}; recording {} as --mpi says, for the MPI the program loads another way",
                program.display(),
                mpi4py.display(),
                found.display_name(),
                requested.display_name()
            );
            requested
        }
        _ => found,
    }
}

fn family_from_ldd(ldd: &str) -> Option<MpiFamily> {
    let names: Vec<&str> = ldd
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    if names.iter().any(|n| n.starts_with("libmpi_abi.so")) {
        Some(MpiFamily::MpiAbi)
    } else if names.iter().any(|n| n.starts_with("libmpich")) {
        Some(MpiFamily::Mpich)
    } else if names.iter().any(|n| {
        n.starts_with("libmpi.so.40")
            || n.starts_with("libopen-rte")
            || n.starts_with("libopen-pal")
    }) {
        Some(MpiFamily::Openmpi)
    } else {
        None
    }
}

/// The interposition library for `family`: `$MPICHECK_LIB_DIR`, else beside this executable.
pub fn interposition_library(family: MpiFamily) -> Result<PathBuf> {
    let dir = match std::env::var_os("MPICHECK_LIB_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_exe()
            .context("cannot find the mpicheck executable's directory")?
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let path = dir.join(family.library_file());
    if !path.is_file() {
        bail!(
            "no {} interposition library at {}: mpicheck was built without {} support; install it ({}) and rebuild with `cargo build --release`",
            family.name(),
            path.display(),
            family.name(),
            family.install_hint()
        );
    }
    // An empty library (built on a machine without this MPI) exports no MPI_* symbols.
    let exports_mpi = std::fs::read(&path)
        .map(|b| b.windows(9).any(|w| w == b"MPI_Send\0"))
        .unwrap_or(false);
    if !exports_mpi {
        bail!(
            "{} was built without {} (its mpicc was not found at build time); install it ({}) and rebuild with `cargo build --release`",
            path.display(),
            family.name(),
            family.install_hint()
        );
    }
    Ok(path)
}

/// The launcher command for a job of `ranks` ranks, before the programs (each with its `-n
/// N`): `--launcher` as given (split on spaces), else the family's mpiexec.
pub fn launcher_command(
    family: MpiFamily,
    custom: Option<&str>,
    ranks: u32,
) -> Result<Vec<String>> {
    if let Some(custom) = custom {
        let words: Vec<String> = custom.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            bail!("--launcher is empty; give a command such as \"srun\" or \"mpiexec -f hosts\"");
        }
        if find_program(&words[0]).is_none() {
            bail!("launcher `{}` not found on PATH", words[0]);
        }
        return Ok(words);
    }
    let mpiexec = family
        .launcher_candidates()
        .iter()
        .find_map(|name| find_program(name))
        .with_context(|| {
            format!(
                "no {} launcher found (tried {}); install it ({})",
                family.name(),
                family.launcher_candidates().join(", "),
                family.install_hint()
            )
        })?;
    let mut words = vec![mpiexec.display().to_string()];
    if family == MpiFamily::Openmpi {
        // Open MPI refuses to start as root, and refuses more ranks than cores, unless told.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            words.push("--allow-run-as-root".into());
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        if ranks > cores {
            words.push("--oversubscribe".into());
        }
    }
    Ok(words)
}

/// The hidden subcommand that starts each rank.
pub const EXEC_RANK: &str = "exec-rank";

/// What the launcher starts as each rank, before the program's arguments: mpicheck itself
/// as a trampoline ([`exec_rank`]). `MPICHECK_THREADS` (0 turns thread tracking off) goes on
/// the command line, since not every launcher forwards the environment; so does
/// `--check-buffers`.
pub fn rank_command(
    library: &Path,
    out_dir: &Path,
    program: &str,
    check_buffers: bool,
) -> Result<Vec<OsString>> {
    let mpicheck = std::env::current_exe()
        .context("cannot find the mpicheck executable to start the ranks with")?;
    let mut words: Vec<OsString> = vec![
        mpicheck.into(),
        EXEC_RANK.into(),
        "--library".into(),
        library.into(),
        "--out".into(),
        out_dir.into(),
    ];
    if let Some(threads) = std::env::var_os("MPICHECK_THREADS") {
        words.extend(["--threads".into(), threads]);
    }
    if check_buffers {
        words.push("--check-buffers".into());
    }
    words.extend(["--".into(), program.into()]);
    Ok(words)
}

/// `mpicheck exec-rank`: becomes the rank. Sets the preload library and the output
/// directory in this process's environment only, arranges to be killed when the parent
/// that started it (the MPI's proxy or daemon) dies, and `exec`s the program, keeping the
/// process id the launcher knows. Returns only when the program cannot be started.
pub fn exec_rank(
    library: &Path,
    out_dir: &Path,
    threads: Option<&OsString>,
    check_buffers: bool,
    command: &[OsString],
) -> Result<u8> {
    let parent = std::os::unix::process::parent_id();
    // SAFETY: prctl with integer arguments. PR_SET_PDEATHSIG survives exec (not for
    // set-user-id programs), and is cleared in the program's own children.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    if std::os::unix::process::parent_id() != parent {
        // The parent died before the request took effect: the job is gone.
        return Ok(EXIT_RANK_ORPHANED);
    }
    let mut preload = OsString::from(library);
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(existing);
    }
    let program = &command[0];
    let mut exec = Command::new(program);
    exec.args(&command[1..])
        .env("LD_PRELOAD", preload)
        .env("MPICHECK_OUT_DIR", out_dir);
    if let Some(threads) = threads {
        exec.env("MPICHECK_THREADS", threads);
    }
    // Only `mpicheck run --check-buffers` turns buffer checking on, never the environment.
    if check_buffers {
        exec.env("MPICHECK_CHECK_BUFFERS", "1");
    } else {
        exec.env_remove("MPICHECK_CHECK_BUFFERS");
    }
    let error = exec.exec();
    eprintln!(
        "mpicheck: error: cannot start {}: {error}",
        Path::new(program).display()
    );
    // As a shell or `env` would: 127 not found, 126 found but not runnable.
    Ok(if error.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    })
}

/// Exit status of a rank whose launcher died before it could start.
const EXIT_RANK_ORPHANED: u8 = 137;

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn launchers_given_as_the_program_name_the_command_to_use() {
        let error = |line: &str| {
            let command = words(line);
            launcher_given_as_program(Path::new(&command[0]), &command)
        };
        assert_eq!(
            error("mpirun -n 4 lmp -in in.indent").unwrap(),
            "`mpirun` is an MPI launcher: mpicheck run starts the job itself; run `mpicheck run -n 4 -- lmp -in in.indent`"
        );
        for line in [
            "mpiexec.hydra -np 4 ./app",
            "srun --np=4 ./app",
            "orterun -c 4 ./app",
        ] {
            assert!(
                error(line)
                    .unwrap()
                    .ends_with("run `mpicheck run -n 4 -- ./app`"),
                "{line}"
            );
        }
        // Arguments the suggestion must quote for the shell.
        let command = vec![
            "mpiexec".into(),
            "-n".into(),
            "2".into(),
            "./app".into(),
            "a b".into(),
        ];
        assert!(launcher_given_as_program(Path::new("mpiexec"), &command)
            .unwrap()
            .ends_with("`mpicheck run -n 2 -- ./app 'a b'`"));
        // Other launcher options: where the program starts is not known.
        assert!(error("mpirun --host a,b -n 2 ./app")
            .unwrap()
            .ends_with("run `mpicheck run -n N -- PROGRAM ARGS`, with other launcher options in --launcher \"mpirun OPTIONS\""));
        assert!(error("mpirun").unwrap().contains("-n N -- PROGRAM ARGS"));
        for program in [
            "./app",
            "lmp",
            "mpicc",
            "/usr/bin/python3",
            "./mpiruns_here",
            "my.mpirun",
        ] {
            assert_eq!(error(program), None, "{program}");
        }
    }

    #[test]
    fn a_launcher_is_known_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = dir.path().join("mpiexec.hydra");
        std::fs::write(&launcher, "").unwrap();
        let link = dir.path().join("run-job");
        std::os::unix::fs::symlink(&launcher, &link).unwrap();
        let command = vec![link.to_str().unwrap().to_owned(), "./app".into()];
        let error = launcher_given_as_program(&link, &command).unwrap();
        assert!(
            error.contains("is an MPI launcher (mpiexec.hydra)"),
            "{error}"
        );
    }

    #[test]
    fn a_command_splits_into_programs_at_each_colon() {
        let contexts =
            app_contexts(2, &words("./ocean -x 1 : -n 4 ./atm in.nml : -np=1 io")).unwrap();
        let expected = [(2, "./ocean -x 1"), (4, "./atm in.nml"), (1, "io")];
        assert_eq!(contexts.len(), expected.len());
        for (context, (ranks, command)) in contexts.iter().zip(expected) {
            assert_eq!(
                (context.ranks, context.command.clone()),
                (ranks, words(command))
            );
        }
        // One program: the command as given, a `-n` among its arguments included.
        let one = app_contexts(3, &words("./app -n 5")).unwrap();
        assert_eq!(
            one,
            [AppContext {
                ranks: 3,
                command: words("./app -n 5")
            }]
        );
    }

    #[test]
    fn a_program_after_a_colon_needs_its_count_and_nothing_else() {
        for (command, error) in [
            ("./a : ./b", "needs its process count"),
            ("./a : -n 0 ./b", "invalid process count `0`"),
            ("./a : -n x ./b", "invalid process count `x`"),
            ("./a : -n 2", "no program after `: -n 2`"),
            ("./a : -n 2 -host h ./b", "launcher option `-host`"),
            (": -n 2 ./b", "no program before `:`"),
            ("./a : -n 4294967295 ./b", "too many processes"),
        ] {
            let found = app_contexts(1, &words(command)).unwrap_err().to_string();
            assert!(found.contains(error), "{command}: {found}");
        }
    }

    #[test]
    fn mpi_requested_for_a_python_program_wins_over_its_mpi4py() {
        let (python, module) = (Path::new("/usr/bin/python3"), Path::new("/x/MPI.so"));
        let choice = |requested| python_choice(requested, MpiFamily::Openmpi, python, module);
        assert_eq!(choice(None), MpiFamily::Openmpi);
        assert_eq!(choice(Some(MpiFamily::Openmpi)), MpiFamily::Openmpi);
        assert_eq!(choice(Some(MpiFamily::Mpich)), MpiFamily::Mpich);
        // A program linked against an MPI is still only confirmed by --mpi.
        let program = Path::new("./app");
        assert!(choose_family(Some(MpiFamily::Mpich), Some(MpiFamily::Openmpi), program).is_err());
    }

    #[test]
    fn detects_families_from_ldd_output() {
        let mpich = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibmpich.so.12 => /lib/x86_64-linux-gnu/libmpich.so.12 (0x7f)\n";
        let ompi = "\tlibmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x7f)\n\tlibopen-pal.so.40 => x\n";
        let ompi_fortran = "\tlibmpi_mpifh.so.40 => x\n\tlibmpi.so.40 => y\n";
        assert_eq!(family_from_ldd(mpich), Some(MpiFamily::Mpich));
        assert_eq!(family_from_ldd(ompi), Some(MpiFamily::Openmpi));
        assert_eq!(family_from_ldd(ompi_fortran), Some(MpiFamily::Openmpi));
        let abi = "\tlibmpi_abi.so.1 => /opt/mpich-abi/lib/libmpi_abi.so.1 (0x7f)\n";
        assert_eq!(family_from_ldd(abi), Some(MpiFamily::MpiAbi));
        assert_eq!(family_from_ldd("\tlibc.so.6 => /lib/libc.so.6\n"), None);
    }
}
