//! The output directory belongs to the user: mpicheck removes or overwrites only files it
//! wrote itself, and never follows a symbolic link in it.
//!
//! Proof of ownership is a run marker, [`MARKER_FILE`], that lists every file mpicheck wrote
//! into the directory with its device, inode and size (reports and `run.json` also with a
//! hash of their content, so a re-analysis of a copied directory may replace them). A file
//! whose name mpicheck uses but that the marker does not list, or that was replaced since,
//! is the user's: `mpicheck run` refuses to start rather than touch it. We chose a marker
//! over a fresh directory per run because `--out DIR` and `mpicheck analyze DIR` keep
//! working as before (one directory, the latest run), and the marker also says which traces
//! belong to the run ([`run_traces`]), so stray or older trace files are never analyzed.
//!
//! Every file mpicheck writes is created with `O_CREAT | O_EXCL | O_NOFOLLOW` after its own
//! earlier file of that name was removed; a directory owned by another user is refused; and
//! a run holds an exclusive lock (`flock`) on the directory so that two runs never mix.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The run marker's name in the output directory.
pub const MARKER_FILE: &str = ".mpicheck-run.json";
/// Largest marker mpicheck reads (a million traces' entries fit easily).
const MARKER_MAX_BYTES: u64 = 256 << 20;
const MARKER_VERSION: u32 = 1;
const HINT: &str = "choose another with --out DIR";

/// What [`MARKER_FILE`] holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Marker {
    version: u32,
    /// The files mpicheck wrote, by name: mpicheck may remove or replace these, and only
    /// these, as long as they are still the files it wrote.
    written: BTreeMap<String, WrittenFile>,
    /// The traces to analyze, by name: those the run's processes created (`mpicheck run`),
    /// or those present when `mpicheck analyze` first wrote into a directory without a
    /// marker (traces copied in by hand).
    traces: BTreeSet<String>,
}

/// How mpicheck recognizes a file it wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct WrittenFile {
    dev: u64,
    ino: u64,
    /// Size when written (reports) or first seen (traces).
    len: u64,
    /// FNV-1a of the content, for files mpicheck wrote whole (reports, run.json).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<u64>,
}

impl WrittenFile {
    fn of(meta: &fs::Metadata, hash: Option<u64>) -> WrittenFile {
        WrittenFile {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            hash,
        }
    }

    /// Whether `path` (not followed if a link) is still this file: the same inode, or for a
    /// file with a content hash, the same content (a copy of what mpicheck wrote).
    fn matches(&self, path: &Path) -> bool {
        let Ok(meta) = fs::symlink_metadata(path) else {
            return false;
        };
        if !meta.file_type().is_file() {
            return false;
        }
        match self.hash {
            // A trace: the same inode (it grows after it is listed, so its size proves
            // nothing).
            None => meta.dev() == self.dev && meta.ino() == self.ino,
            Some(_) if meta.len() != self.len => false,
            Some(_) if meta.dev() == self.dev && meta.ino() == self.ino => true,
            Some(hash) => open_nofollow(path)
                .ok()
                .and_then(|mut f| {
                    let mut bytes = Vec::new();
                    f.read_to_end(&mut bytes).ok()?;
                    Some(fnv1a(&bytes))
                })
                .is_some_and(|h| h == hash),
        }
    }
}

/// An output directory in use: it stays locked until this is dropped.
pub struct OutDir {
    path: PathBuf,
    /// The directory, open for `flock`.
    _lock: File,
}

impl OutDir {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `mpicheck run`: creates the directory if needed, refuses one owned by another user or
/// in use by another run, removes the files of the earlier run that mpicheck wrote there,
/// and refuses to start when a file it would write is someone else's.
pub fn prepare_for_run(dir: &Path) -> Result<RunDir> {
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {} ({HINT})", dir.display()))?;
    let out = open_locked(dir)?;
    let earlier = read_marker(out.path())?.unwrap_or_default();
    for (name, file) in &earlier.written {
        let path = out.path().join(name);
        // A file the user replaced since is theirs now: left alone (and refused below when
        // mpicheck needs its name).
        if safe_name(name) && file.matches(&path) {
            fs::remove_file(&path).with_context(|| {
                format!(
                    "cannot remove {} of the earlier run ({HINT})",
                    path.display()
                )
            })?;
        }
    }
    for name in crate::analyze::OUTPUT_FILES {
        let path = out.path().join(name);
        if fs::symlink_metadata(&path).is_ok() {
            bail!(
                "{} exists and was not written by mpicheck (its run marker does not list it); move it away or {HINT}",
                path.display()
            );
        }
    }
    let foreign: BTreeSet<String> = trace_names(out.path())?.into_iter().collect();
    if !foreign.is_empty() {
        eprintln!(
            "mpicheck: note: {} holds {} trace file(s) that mpicheck's earlier run there did not write (or whose run was killed); they are left alone and not analyzed",
            out.path().display(),
            foreign.len()
        );
    }
    write_marker(
        out.path(),
        &Marker {
            version: MARKER_VERSION,
            ..Marker::default()
        },
    )
    .with_context(|| {
        format!(
            "output directory {} is not writable ({HINT})",
            dir.display()
        )
    })?;
    Ok(RunDir {
        out,
        foreign,
        adopted: BTreeSet::new(),
    })
}

/// The output directory of a running `mpicheck run`.
pub struct RunDir {
    out: OutDir,
    /// Trace files present before the run started: never the run's.
    foreign: BTreeSet<String>,
    /// Trace files the run's processes created, already listed in the marker.
    adopted: BTreeSet<String>,
}

impl RunDir {
    pub fn path(&self) -> &Path {
        self.out.path()
    }

    /// Lists the traces the run's processes created since the last call in the marker, so
    /// that they are analyzed and the next run may remove them. A trace file is the run's
    /// when it appeared after the run started (the directory is locked against other
    /// runs), is a regular file of this user, and is a trace the recorder wrote: its header
    /// names the process of its file name (the program may create files named like traces
    /// too; those are its own, never analyzed or removed). A trace whose header is not
    /// written yet is looked at again next time.
    pub fn adopt_new_traces(&mut self) -> Result<()> {
        // SAFETY: geteuid has no preconditions.
        let euid = unsafe { libc::geteuid() };
        let mut new = Vec::new();
        for name in trace_names(self.path())? {
            if self.foreign.contains(&name) || self.adopted.contains(&name) {
                continue;
            }
            let path = self.path().join(&name);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.file_type().is_file() || meta.uid() != euid {
                self.foreign.insert(name);
                continue;
            }
            let Some(named_pid) = pid_in_trace_name(&name) else {
                self.foreign.insert(name);
                continue;
            };
            if trace_header(&path).is_some_and(|h| h.pid == named_pid) {
                new.push((name, WrittenFile::of(&meta, None)));
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let mut marker = read_marker(self.path())?.unwrap_or_default();
        for (name, file) in new {
            marker.traces.insert(name.clone());
            marker.written.insert(name.clone(), file);
            self.adopted.insert(name);
        }
        write_marker(self.path(), &marker)
    }
}

/// `mpicheck analyze`: locks an existing directory against a run writing into it.
pub fn open_for_analysis(dir: &Path) -> Result<OutDir> {
    open_locked(dir)
}

/// The trace files of the run saved in `dir`, by path: those the marker lists, or every
/// `trace-*.mpitrace` in a directory without a marker (traces gathered by hand, or a run of
/// an mpicheck older than the marker). Files that are no longer there are left out.
pub fn run_traces(dir: &Path) -> Result<Vec<PathBuf>> {
    let names: Vec<String> = match read_marker(dir)? {
        Some(marker) => marker
            .traces
            .into_iter()
            .filter(|name| safe_name(name))
            .collect(),
        None => trace_names(dir)?,
    };
    Ok(names
        .into_iter()
        .map(|name| dir.join(name))
        .filter(|path| fs::symlink_metadata(path).is_ok())
        .collect())
}

/// Reads a small file of the directory (run.json) without following a link, at most `max`
/// bytes.
pub fn read_small(dir: &Path, name: &str, max: u64) -> Result<Vec<u8>> {
    let path = dir.join(name);
    let file = open_nofollow(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.file_type().is_file() || meta.len() > max {
        bail!(
            "{} is not a regular file of at most {max} bytes",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    file.take(max)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}

/// Writes `name` in `dir` as `write` produces it: removes mpicheck's own earlier file of that
/// name, refuses anyone else's, creates the file exclusively without following links, and
/// lists it in the marker. A directory without a marker (traces gathered by hand) gets one
/// that keeps its traces as the ones to analyze.
pub fn write_owned(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let path = dir.join(name);
    let mut marker = match read_marker(dir)? {
        Some(marker) => marker,
        None => Marker {
            version: MARKER_VERSION,
            traces: trace_names(dir)?.into_iter().collect(),
            ..Marker::default()
        },
    };
    if fs::symlink_metadata(&path).is_ok() {
        match marker.written.get(name) {
            Some(file) if file.matches(&path) => fs::remove_file(&path)
                .with_context(|| format!("cannot replace {}", path.display()))?,
            _ => bail!(
                "{} exists and was not written by mpicheck; move it away or {HINT}",
                path.display()
            ),
        }
    }
    let file = create_exclusive(&path)?;
    let mut hashing = HashingWriter {
        inner: BufWriter::new(file),
        hash: FNV_OFFSET,
    };
    write(&mut hashing)
        .and_then(|()| hashing.inner.flush())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let meta = hashing
        .inner
        .get_ref()
        .metadata()
        .with_context(|| format!("cannot write {}", path.display()))?;
    marker
        .written
        .insert(name.to_string(), WrittenFile::of(&meta, Some(hashing.hash)));
    write_marker(dir, &marker)
}

/// Creates `path` for writing: it must not exist, and a symbolic link there is not followed.
fn create_exclusive(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .with_context(|| format!("cannot create {} ({HINT})", path.display()))
}

fn open_nofollow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

/// Opens and locks the directory (following a link the user gave as `--out`: the path is
/// theirs to choose), refusing one owned by another user.
fn open_locked(dir: &Path) -> Result<OutDir> {
    let path = dir
        .canonicalize()
        .with_context(|| format!("cannot use output directory {} ({HINT})", dir.display()))?;
    let handle = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(&path)
        .with_context(|| format!("cannot use output directory {} ({HINT})", path.display()))?;
    let meta = handle
        .metadata()
        .with_context(|| format!("cannot use output directory {} ({HINT})", path.display()))?;
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if meta.uid() != euid {
        bail!(
            "output directory {} belongs to another user (uid {}); {HINT}",
            path.display(),
            meta.uid()
        );
    }
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(handle.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        bail!(
            "output directory {} is in use by another mpicheck; wait for it or {HINT}",
            path.display()
        );
    }
    Ok(OutDir {
        path,
        _lock: handle,
    })
}

/// Reads the marker of `dir`: `None` when there is none; an error when the name is taken by
/// something that is not mpicheck's marker.
fn read_marker(dir: &Path) -> Result<Option<Marker>> {
    let path = dir.join(MARKER_FILE);
    let mut file = match open_nofollow(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => bail!(
            "{} is a symbolic link, which mpicheck does not follow in its output directory; remove it or {HINT}",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() || meta.uid() != euid || meta.len() > MARKER_MAX_BYTES {
        bail!(
            "{} is not mpicheck's run marker (not a regular file of yours); remove it or {HINT}",
            path.display()
        );
    }
    let mut text = Vec::new();
    file.read_to_end(&mut text)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let marker: Marker = serde_json::from_slice(&text).ok().with_context(|| {
        format!(
            "{} is damaged; remove it (and mpicheck's earlier files there) or {HINT}",
            path.display()
        )
    })?;
    if marker.version != MARKER_VERSION {
        bail!(
            "{} was written by another version of mpicheck; remove it (and mpicheck's earlier files there) or {HINT}",
            path.display()
        );
    }
    Ok(Some(marker))
}

/// Replaces the marker atomically: a new file created exclusively, renamed over the old one
/// (rename replaces a link itself, never its target).
fn write_marker(dir: &Path, marker: &Marker) -> Result<()> {
    let path = dir.join(MARKER_FILE);
    // Named after this process: two mpicheck processes never share one (the directory is
    // locked besides), and one left by a crash is not removed (it might be the user's).
    let temp = dir.join(format!("{MARKER_FILE}.{}.tmp", std::process::id()));
    let mut file = create_exclusive(&temp)?;
    let text = serde_json::to_vec_pretty(marker).expect("the marker serializes");
    let written = file
        .write_all(&text)
        .and_then(|()| fs::rename(&temp, &path));
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// The header of a trace file, read without following a link or blocking on a FIFO; `None`
/// when it is not (yet) a trace.
pub fn trace_header(path: &Path) -> Option<mpicheck_trace::TraceHeader> {
    let mut file = open_nofollow(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = vec![0u8; mpicheck_trace::HEADER_SIZE];
    file.read_exact(&mut bytes).ok()?;
    mpicheck_trace::reader::read_header(&bytes).ok()
}

/// Names of the entries of `dir` named like traces (`trace-*.mpitrace`), sorted.
fn trace_names(dir: &Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| crate::analyze::is_trace_file(Path::new(name)))
        .collect();
    names.sort();
    Ok(names)
}

/// A marker entry names a file in the directory itself, never a path elsewhere.
fn safe_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a_update(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_update(FNV_OFFSET, bytes)
}

/// Hashes what passes through, so the marker can recognize the file's content later.
struct HashingWriter<W: Write> {
    inner: W,
    hash: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash = fnv1a_update(self.hash, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The pid a trace's file name gives: the recorder names it `trace-PID.mpitrace`, or
/// `trace-PID-N.mpitrace` when a file of the first name exists already.
fn pid_in_trace_name(name: &str) -> Option<u32> {
    let rest = name
        .strip_prefix("trace-")?
        .strip_suffix(mpicheck_trace::TRACE_SUFFIX)?;
    let pid = match rest.split_once('-') {
        Some((pid, attempt)) => {
            attempt.parse::<u32>().ok()?;
            pid
        }
        None => rest,
    };
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A trace header of process `pid`, as the recorder writes it first.
    fn trace_bytes(pid: u32) -> Vec<u8> {
        let mut bytes = vec![0u8; mpicheck_trace::HEADER_SIZE];
        bytes[..8].copy_from_slice(mpicheck_trace::MAGIC);
        let at = |o: usize| o..o + 4;
        bytes[at(mpicheck_trace::offset::VERSION)]
            .copy_from_slice(&mpicheck_trace::FORMAT_VERSION.to_le_bytes());
        bytes[at(mpicheck_trace::offset::HEADER_SIZE)]
            .copy_from_slice(&(mpicheck_trace::HEADER_SIZE as u32).to_le_bytes());
        bytes[at(mpicheck_trace::offset::PID)].copy_from_slice(&pid.to_le_bytes());
        // Unknown until MPI_Init returns, as the recorder writes them.
        for field in [
            mpicheck_trace::offset::ENV_RANK,
            mpicheck_trace::offset::RANK,
            mpicheck_trace::offset::WORLD_SIZE,
            mpicheck_trace::offset::THREAD_LEVEL,
        ] {
            bytes[at(field)].copy_from_slice(&(-1i32).to_le_bytes());
        }
        bytes
    }

    fn names(dir: &Path) -> BTreeSet<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    }

    #[test]
    fn a_run_removes_only_what_the_earlier_run_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        fs::write(out.join("report.tex"), b"thesis").unwrap();
        fs::write(out.join("trace-1.mpitrace"), b"someone else's").unwrap();
        {
            let mut run = prepare_for_run(out).unwrap();
            // Named like a trace by the program, not written by the recorder: not the run's.
            fs::write(out.join("trace-3.mpitrace"), b"the program's own").unwrap();
            fs::write(out.join("trace-2.mpitrace"), trace_bytes(2)).unwrap();
            // The recorder's second choice of name when the first one was taken.
            fs::write(out.join("trace-4-1.mpitrace"), trace_bytes(4)).unwrap();
            run.adopt_new_traces().unwrap();
            // It grows after it was listed.
            OpenOptions::new()
                .append(true)
                .open(out.join("trace-2.mpitrace"))
                .unwrap()
                .write_all(b" calls")
                .unwrap();
            write_owned(out, "report.json", |w| w.write_all(b"{}")).unwrap();
            assert_eq!(
                run_traces(out).unwrap(),
                [out.join("trace-2.mpitrace"), out.join("trace-4-1.mpitrace")]
            );
        }
        let run = prepare_for_run(out).unwrap();
        assert_eq!(
            names(out),
            BTreeSet::from([
                MARKER_FILE.to_string(),
                "report.tex".to_string(),
                "trace-1.mpitrace".to_string(),
                "trace-3.mpitrace".to_string()
            ])
        );
        assert!(run_traces(run.path()).unwrap().is_empty());
        assert_eq!(fs::read(out.join("report.tex")).unwrap(), b"thesis");
    }

    #[test]
    fn a_file_mpicheck_did_not_write_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        fs::write(out.join("report.json"), b"mine").unwrap();
        let error = prepare_for_run(out).err().unwrap().to_string();
        assert!(error.contains("was not written by mpicheck"), "{error}");
        assert_eq!(fs::read(out.join("report.json")).unwrap(), b"mine");
        // Replaced by the user after mpicheck wrote it: theirs now.
        fs::remove_file(out.join("report.json")).unwrap();
        drop(prepare_for_run(out).unwrap());
        write_owned(out, "report.json", |w| w.write_all(b"{}")).unwrap();
        fs::remove_file(out.join("report.json")).unwrap();
        fs::write(out.join("report.json"), b"also mine").unwrap();
        let error = write_owned(out, "report.json", |w| w.write_all(b"{}"))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("was not written by mpicheck"), "{error}");
        assert_eq!(fs::read(out.join("report.json")).unwrap(), b"also mine");
    }

    #[test]
    fn links_in_the_directory_are_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        let target = dir.path().join("victim");
        fs::write(&target, b"precious").unwrap();
        symlink(&target, out.join("report.html")).unwrap();
        assert!(prepare_for_run(&out).is_err());
        fs::remove_file(out.join("report.html")).unwrap();
        drop(prepare_for_run(&out).unwrap());
        // Planted after the run started, between removal and creation.
        symlink(&target, out.join("report.html")).unwrap();
        assert!(write_owned(&out, "report.html", |w| w.write_all(b"x")).is_err());
        fs::remove_file(out.join("report.html")).unwrap();
        // A linked marker is refused, not read or replaced through the link.
        fs::remove_file(out.join(MARKER_FILE)).unwrap();
        symlink(&target, out.join(MARKER_FILE)).unwrap();
        let error = prepare_for_run(&out).err().unwrap().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        assert_eq!(fs::read(&target).unwrap(), b"precious");
    }

    #[test]
    fn a_copy_of_a_report_is_recognized_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        drop(prepare_for_run(out).unwrap());
        write_owned(out, "report.json", |w| w.write_all(b"{\"a\":1}")).unwrap();
        // Like `cp`: same bytes, another inode.
        let bytes = fs::read(out.join("report.json")).unwrap();
        fs::remove_file(out.join("report.json")).unwrap();
        fs::write(out.join("report.json"), bytes).unwrap();
        write_owned(out, "report.json", |w| w.write_all(b"{}")).unwrap();
        assert_eq!(fs::read(out.join("report.json")).unwrap(), b"{}");
    }

    #[test]
    fn a_directory_is_used_by_one_mpicheck_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let _run = prepare_for_run(dir.path()).unwrap();
        let error = open_for_analysis(dir.path()).err().unwrap().to_string();
        assert!(error.contains("in use by another mpicheck"), "{error}");
    }

    #[test]
    fn traces_gathered_by_hand_are_analyzed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        fs::write(out.join("trace-7.mpitrace"), b"x").unwrap();
        assert_eq!(run_traces(out).unwrap(), [out.join("trace-7.mpitrace")]);
        write_owned(out, "report.json", |w| w.write_all(b"{}")).unwrap();
        assert_eq!(run_traces(out).unwrap(), [out.join("trace-7.mpitrace")]);
    }
}
