//! Opening trace files safely. A trace directory may hold anything a user or another
//! program put there: a named pipe (opening it blocks until a writer comes, reading it may
//! never end), a symbolic link to `/dev/zero` (endless) or to a file elsewhere, a directory
//! or a device. Every reader of traces opens them here: only regular files are read, links
//! are never followed, opening never blocks, and what is read is bounded by the size the
//! file had when it was opened.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::reader::TraceError;

/// What a directory entry is when it is not a regular file, for messages.
fn file_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    Some(if file_type.is_file() {
        return None;
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a named pipe"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    })
}

/// Opens a trace file for reading: not through a symbolic link (`O_NOFOLLOW`), without
/// blocking (`O_NONBLOCK`: a named pipe would otherwise wait for a writer), not inherited
/// by programs mpicheck starts (`O_CLOEXEC`), and only if it is a regular file. Anything
/// else is a [`TraceError::NotAFile`]. The type is checked before opening (opening some
/// devices has effects) and again on the open file (the entry may have been replaced).
pub fn open_trace_file(path: &Path) -> Result<File, TraceError> {
    let io_error = |source| TraceError::Io {
        path: path.display().to_string(),
        source,
    };
    let not_a_file = |what| TraceError::NotAFile {
        path: path.display().to_string(),
        what,
    };
    let before = std::fs::symlink_metadata(path).map_err(io_error)?;
    if let Some(what) = file_kind(&before.file_type()) {
        return Err(not_a_file(what));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_a_file("a symbolic link")
            } else {
                io_error(e)
            }
        })?;
    let opened = file.metadata().map_err(io_error)?;
    if let Some(what) = file_kind(&opened.file_type()) {
        return Err(not_a_file(what));
    }
    Ok(file)
}

/// Reads a whole trace file opened by [`open_trace_file`]: at most as many bytes as the
/// file had when it was opened (a file still growing is read as a prefix).
pub fn read_trace_file(path: &Path) -> Result<Vec<u8>, TraceError> {
    let file = open_trace_file(path)?;
    let io_error = |source| TraceError::Io {
        path: path.display().to_string(),
        source,
    };
    let len = file.metadata().map_err(io_error)?.len();
    let capacity = usize::try_from(len).map_err(|_| {
        io_error(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            "the file is larger than this machine can address",
        ))
    })?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(capacity).map_err(|_| {
        io_error(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("not enough memory to read its {len} bytes"),
        ))
    })?;
    file.take(len).read_to_end(&mut bytes).map_err(io_error)?;
    Ok(bytes)
}

/// Bytes a [`FileWindow`] reads at a time, at most: records are decoded from this window, so
/// a trace of any size is walked in this much memory (plus its largest record).
const WINDOW_BYTES: usize = 1 << 20;
/// The least window of a trace read among many ([`window_for`]).
const LEAST_WINDOW_BYTES: usize = 16 << 10;
/// What the windows of the traces read at once may take together ([`window_for`]).
const WINDOWS_BUDGET: usize = 64 << 20;

/// The window of each of `traces` trace files read at once (the ranks' calls are normalized
/// interleaved): 1 MiB for a few ranks, less for many, so that a run of thousands of ranks
/// is not read through gigabytes of windows; never under 16 KiB.
pub fn window_for(traces: usize) -> usize {
    (WINDOWS_BUDGET / traces.max(1)).clamp(LEAST_WINDOW_BYTES, WINDOW_BYTES)
}

/// A trace file opened by [`open_trace_file`], read through a window that follows the
/// records being walked ([`crate::TraceBytes`]). Its length is the file's when it was
/// opened: a file still growing is read as a prefix. The file is read with `pread`, not
/// mapped: a file cut while it is read is a read error, never a `SIGBUS`.
pub struct FileWindow {
    file: File,
    path: String,
    len: usize,
    window: ReadWindow,
}

/// The bytes of a file read last, `window_bytes` or more at a time from the offset asked,
/// and why a read failed: what [`FileWindow`] and [`crate::follow::FollowedFile`] read
/// through.
pub(crate) struct ReadWindow {
    bytes: Vec<u8>,
    /// Bytes read at a time, at least.
    window_bytes: usize,
    /// File offset of `bytes[0]`.
    start: usize,
    error: Option<TraceError>,
}

impl ReadWindow {
    pub(crate) fn new(window_bytes: usize) -> ReadWindow {
        ReadWindow {
            bytes: Vec::new(),
            window_bytes,
            start: 0,
            error: None,
        }
    }

    /// The bytes `at..at + n` of `file` (named `path`), which lie within its first `len`
    /// bytes, the only ones read. A failed read gives zeros and keeps its error.
    #[inline]
    pub(crate) fn get(
        &mut self,
        file: &File,
        path: &str,
        at: usize,
        n: usize,
        len: usize,
    ) -> &[u8] {
        // Called twice per record (its frame, then the record): what the window holds
        // is found inline, a read is out of line.
        match at.checked_sub(self.start) {
            Some(from) if from + n <= self.bytes.len() => &self.bytes[from..from + n],
            _ => self.read(file, path, at, n, len),
        }
    }

    /// [`ReadWindow::get`] of bytes the window does not hold: reads them, and what follows.
    #[cold]
    #[inline(never)]
    fn read(&mut self, file: &File, path: &str, at: usize, n: usize, len: usize) -> &[u8] {
        let want = n.max(self.window_bytes).min(len - at);
        if self.bytes.capacity() > 2 * self.window_bytes && want <= self.window_bytes {
            // A large record passed: give back its room.
            self.bytes = Vec::new();
        }
        self.bytes.resize(want, 0);
        self.start = at;
        if let Err(source) = file.read_exact_at(&mut self.bytes, at as u64) {
            self.bytes.fill(0);
            self.error.get_or_insert(TraceError::Io {
                path: path.to_string(),
                source,
            });
        }
        &self.bytes[..n]
    }

    pub(crate) fn take_error(&mut self) -> Option<TraceError> {
        self.error.take()
    }

    /// Forgets the bytes read (the file changed there), not the error.
    pub(crate) fn forget_bytes(&mut self) {
        self.bytes.clear();
    }
}

impl FileWindow {
    pub fn open(path: &Path) -> Result<FileWindow, TraceError> {
        FileWindow::open_with(path, WINDOW_BYTES)
    }

    /// [`FileWindow::open`] of the file's first `len` bytes only (the final records of a
    /// trace still written, [`crate::follow::scan_settled`]).
    pub fn open_prefix(path: &Path, len: usize) -> Result<FileWindow, TraceError> {
        let mut window = FileWindow::open(path)?;
        window.len = window.len.min(len);
        Ok(window)
    }

    /// [`FileWindow::open`] reading `window_bytes` at a time (see [`window_for`]).
    pub fn open_with(path: &Path, window_bytes: usize) -> Result<FileWindow, TraceError> {
        let file = open_trace_file(path)?;
        let len = file
            .metadata()
            .map_err(|source| TraceError::Io {
                path: path.display().to_string(),
                source,
            })?
            .len();
        Ok(FileWindow {
            file,
            path: path.display().to_string(),
            // A file beyond the address space cannot be a trace mpicheck wrote; its first
            // bytes are still read and judged.
            len: usize::try_from(len).unwrap_or(usize::MAX),
            window: ReadWindow::new(window_bytes),
        })
    }
}

impl crate::TraceBytes for FileWindow {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn get(&mut self, at: usize, n: usize) -> &[u8] {
        self.window.get(&self.file, &self.path, at, n, self.len)
    }

    fn take_error(&mut self) -> Option<TraceError> {
        self.window.take_error()
    }
}

/// Reads the header, text records and end of the trace file at `path` without decoding its
/// calls (see [`crate::scan_trace`]): what the analysis needs of every trace before it
/// decodes any, in the memory of one window.
pub fn scan_trace_file(path: &Path) -> Result<crate::Trace, TraceError> {
    crate::scan_trace(&mut FileWindow::open(path)?)
}

/// [`scan_trace_file`], stepping over the records released during the run
/// ([`crate::reader::scan_trace_past_released`]).
pub fn scan_trace_file_past_released(path: &Path) -> Result<crate::Trace, TraceError> {
    crate::reader::scan_trace_past_released(&mut FileWindow::open(path)?)
}

/// The calls of the trace file at `path`, whose [`scan_trace_file`] gave `header`, decoded
/// one at a time, read `window_bytes` at a time ([`window_for`]).
pub fn trace_file_calls(
    path: &Path,
    header: &crate::TraceHeader,
    window_bytes: usize,
) -> Result<crate::TraceCalls<FileWindow>, TraceError> {
    Ok(crate::TraceCalls::new(
        FileWindow::open_with(path, window_bytes)?,
        header,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_traces_share_a_budget_of_windows() {
        assert_eq!(window_for(0), WINDOW_BYTES);
        assert_eq!(window_for(64), WINDOW_BYTES);
        assert_eq!(window_for(1024), 64 << 10);
        assert_eq!(window_for(1_000_000), LEAST_WINDOW_BYTES);
    }
    use std::time::{Duration, Instant};

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mpicheck-open-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn regular_files_are_read_whole() {
        let dir = temp_dir("regular");
        let path = dir.join("trace-1.mpitrace");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_trace_file(&path).unwrap(), b"0123456789");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pipes_links_devices_and_directories_are_refused_at_once() {
        let dir = temp_dir("hostile");
        let fifo = dir.join("trace-1.mpitrace");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: plain mkfifo(3) on a path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let zero = dir.join("trace-2.mpitrace");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let real = dir.join("real");
        std::fs::write(&real, b"x").unwrap();
        let link = dir.join("trace-3.mpitrace");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let subdir = dir.join("trace-4.mpitrace");
        std::fs::create_dir(&subdir).unwrap();
        let start = Instant::now();
        for (path, what) in [
            (&fifo, "a named pipe"),
            (&zero, "a symbolic link"),
            (&link, "a symbolic link"),
            (&subdir, "a directory"),
            (&std::path::PathBuf::from("/dev/zero"), "a device"),
        ] {
            let err = read_trace_file(path).unwrap_err();
            assert!(
                matches!(&err, TraceError::NotAFile { what: w, .. } if *w == what),
                "{}: {err}",
                path.display()
            );
            assert!(err.to_string().contains(what), "{err}");
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A trace several windows long, with records of every size straddling the windows'
    /// edges, folded polls, pseudo-calls and a call that never returned.
    fn long_trace() -> Vec<u8> {
        use crate::builder::{CallToWrite, TraceBuilder};
        let mut b = TraceBuilder::new();
        b.rank(1, 2).text(
            crate::text::SCHEMA,
            "0 MPI_Send comm:COMMUNICATOR:in:s\n1 MPI_Iprobe comm:COMMUNICATOR:in:s\n2 MPICHECK_Sync comm:COMMUNICATOR:in:s\n",
        );
        for i in 0..60_000u64 {
            b.call(&CallToWrite {
                func: (i % 3) as u16,
                thread: (i % 2) as u16,
                ret: i as i32,
                words: (0..i % 7).map(|w| (i * 10 + w) as i64).collect(),
                complete: i != 59_999,
                t_enter: 100 * i,
                t_exit: 100 * i + 50,
                callsite: 0x1000 + i,
                instant: i % 5 == 0,
                poll: (i % 3 == 1 && i % 4 == 0).then_some((i % 9, 100 * i + 70)),
                ..Default::default()
            });
        }
        b.bytes()
    }

    #[test]
    fn calls_decoded_one_window_at_a_time_are_the_calls_read_whole() {
        let dir = temp_dir("window");
        let path = dir.join("trace-1.mpitrace");
        let bytes = long_trace();
        assert!(bytes.len() > 3 * WINDOW_BYTES);
        std::fs::write(&path, &bytes).unwrap();
        let whole = crate::read_trace_bytes(&bytes).unwrap();
        let scanned = scan_trace_file(&path).unwrap();
        assert!(scanned.calls.is_empty());
        assert_eq!(scanned.end, whole.end);
        assert!(scanned.schema.function(2).is_some());
        // Every call but the pseudo-calls (a third), the folded polls twice.
        assert_eq!(
            scanned.mpi_calls as usize,
            whole.calls.iter().filter(|c| c.func != 2).count()
        );
        assert!(whole.calls.iter().any(|c| c.repeats > 0));
        for window in [WINDOW_BYTES, LEAST_WINDOW_BYTES] {
            let streamed: Vec<crate::CallRecord> = trace_file_calls(&path, &scanned.header, window)
                .unwrap()
                .map(|call| std::rc::Rc::unwrap_or_clone(call.unwrap()))
                .collect();
            assert_eq!(streamed.len(), whole.calls.len());
            assert_eq!(streamed, whole.calls);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_trace_cut_while_its_calls_are_decoded_is_a_read_error() {
        let dir = temp_dir("cut-while-read");
        let path = dir.join("trace-1.mpitrace");
        std::fs::write(&path, long_trace()).unwrap();
        let scanned = scan_trace_file(&path).unwrap();
        let mut calls = trace_file_calls(&path, &scanned.header, WINDOW_BYTES).unwrap();
        assert!(calls.next().unwrap().is_ok());
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 * WINDOW_BYTES as u64)
            .unwrap();
        let rest: Vec<_> = calls.collect();
        let err = rest.last().unwrap().as_ref().unwrap_err();
        assert!(matches!(err, TraceError::Io { .. }), "{err}");
        assert!(err.to_string().contains("trace-1.mpitrace"), "{err}");
        assert!(rest[..rest.len() - 1].iter().all(Result::is_ok));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
