//! How many files the analysis may open at once: it reads every rank's trace at the same
//! time, and a run of more ranks than the default limit on open files (often 1024) would
//! fail half-way with "too many open files".

use anyhow::{bail, Result};

/// Files the analysis opens besides the traces (the standard streams, the output
/// directory's lock, the reports, the program's and libraries' files for symbols).
const OTHER_FILES: u64 = 64;

/// Raises this process's limit on open files (its soft limit, up to the hard one) so that
/// `traces` trace files and a few more can be open at once; an error saying what to do when
/// the hard limit is lower. Only the analysis runs under the raised limit: the job, started
/// before, kept the limit the user gave it.
pub fn allow(traces: usize) -> Result<()> {
    let needed = traces as u64 + OTHER_FILES;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid rlimit to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Ok(()); // unknown: try, and let an open that fails say why
    }
    if limit.rlim_cur == libc::RLIM_INFINITY || limit.rlim_cur >= needed {
        return Ok(());
    }
    if limit.rlim_max != libc::RLIM_INFINITY && limit.rlim_max < needed {
        bail!(
            "analyzing the traces of {traces} ranks needs {needed} open files at once, more than this process may open ({}): raise the limit (`ulimit -n {needed}`) and run `mpicheck analyze` on the output directory",
            limit.rlim_max
        );
    }
    let raised = libc::rlimit {
        rlim_cur: needed,
        rlim_max: limit.rlim_max,
    };
    // SAFETY: a valid rlimit, within the hard limit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        bail!(
            "analyzing the traces of {traces} ranks needs {needed} open files at once, more than the limit ({}), which cannot be raised: {}",
            limit.rlim_cur,
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}
