//! Opening trace files safely. A trace directory may hold anything a user or another
//! program put there: a named pipe (opening it blocks until a writer comes, reading it may
//! never end), a symbolic link to `/dev/zero` (endless) or to a file elsewhere, a directory
//! or a device. Every reader of traces opens them here: only regular files are read, links
//! are never followed, opening never blocks, and what is read is bounded by the size the
//! file had when it was opened.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
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

#[cfg(test)]
mod tests {
    use super::*;
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
}
