//! Starting the user's program under its MPI's launcher with the interposition library
//! preloaded into every rank (and only into the ranks: `mpiexec` itself is not an MPI
//! program, so the library is handed to the ranks through `env`, not our own environment).

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Which MPI a program is linked against, from the libraries the dynamic loader resolves
/// for it (`ldd`), so programs linked through Fortran or C++ MPI libraries count too.
pub fn detect_family(program: &Path) -> Result<MpiFamily> {
    let output = Command::new("ldd").arg(program).output().with_context(|| {
        "cannot run `ldd` to see which MPI the program uses; pass --mpi mpich|openmpi"
    })?;
    let libraries = String::from_utf8_lossy(&output.stdout);
    family_from_ldd(&libraries).with_context(|| {
        format!(
            "{} is not linked against MPICH or Open MPI (no libmpich or libmpi.so.40 in `ldd` output); \
             build it with mpicc, or pass --mpi mpich|openmpi if it loads MPI another way",
            program.display()
        )
    })
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

/// The launcher command: `--launcher` as given (split on spaces), else the family's mpiexec.
pub fn launcher_command(
    family: MpiFamily,
    custom: Option<&str>,
    ranks: u32,
) -> Result<Vec<String>> {
    if let Some(custom) = custom {
        let mut words: Vec<String> = custom.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            bail!("--launcher is empty; give a command such as \"srun\" or \"mpiexec -f hosts\"");
        }
        if find_program(&words[0]).is_none() {
            bail!("launcher `{}` not found on PATH", words[0]);
        }
        words.extend(["-n".to_string(), ranks.to_string()]);
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
    let mut words = vec![
        mpiexec.display().to_string(),
        "-n".to_string(),
        ranks.to_string(),
    ];
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

#[cfg(test)]
mod tests {
    use super::*;

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
