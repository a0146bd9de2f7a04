//! The recorder: the hot path inside the MPI program.
//!
//! The generated wrappers of the interposition library call the `extern "C"` functions below
//! (declared in `include/mpicheck_recorder.h`). Each call reserves a record in a shared memory
//! mapping of the per-process trace file with one atomic add, writes plain words, and
//! publishes them with a release store of the record state. Nothing here blocks on MPI or on
//! I/O: the kernel owns the mapped pages, so a record survives the process being killed the
//! moment it is written. The layout is documented in `mpicheck_trace`.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use mpicheck_trace::{
    kind, offset, record_state, state, text, CALL_FIXED_SIZE, FORMAT_VERSION, HEADER_SIZE, MAGIC,
};

/// Address space reserved for one trace. The file grows inside it; nothing is committed
/// until written, so this costs no memory.
const MAP_RESERVE: usize = 1 << 36; // 64 GiB
/// The file grows by at least this much at a time, so growth (a syscall) is rare.
const GROW_STEP: u64 = 8 << 20;

struct Recorder {
    base: *mut u8,
    /// Current file length: every byte below it may be written.
    file_len: AtomicU64,
    file: File,
    grow_lock: Mutex<()>,
    start: Clock,
}

// The raw pointer is to a process-wide shared mapping that lives until exit.
unsafe impl Send for Recorder {}
unsafe impl Sync for Recorder {}

static RECORDER: AtomicPtr<Recorder> = AtomicPtr::new(ptr::null_mut());
static STARTED: OnceLock<()> = OnceLock::new();
static NEXT_THREAD: AtomicU16 = AtomicU16::new(0);

thread_local! {
    static THREAD_INDEX: Cell<u16> = const { Cell::new(u16::MAX) };
}

#[derive(Clone, Copy)]
struct Clock {
    origin_ns: u64,
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Clock {
    fn now(&self) -> u64 {
        monotonic_ns().wrapping_sub(self.origin_ns)
    }
}

impl Recorder {
    fn header_u32(&self, at: usize) -> &AtomicU32 {
        // SAFETY: header offsets are in bounds and 4-byte aligned; the mapping is page aligned.
        unsafe { &*(self.base.add(at) as *const AtomicU32) }
    }
    fn header_u64(&self, at: usize) -> &AtomicU64 {
        // SAFETY: as above, 8-byte aligned offsets.
        unsafe { &*(self.base.add(at) as *const AtomicU64) }
    }

    /// Reserves `len` bytes (a multiple of 8) in the record area and returns their address,
    /// or None when the file cannot grow.
    fn reserve(&self, len: usize) -> Option<*mut u8> {
        let at = self
            .header_u64(offset::RECORDS_END)
            .fetch_add(len as u64, Ordering::Relaxed);
        let end = at + len as u64;
        // Keep room for the 8-byte end marker after the last record.
        if end + 8 > self.file_len.load(Ordering::Acquire) && !self.grow(end + 8) {
            self.header_u64(offset::DROPPED)
                .fetch_add(1, Ordering::Relaxed);
            return None;
        }
        // SAFETY: [at, end) lies inside the file and the reserved mapping, owned by us alone.
        Some(unsafe { self.base.add(at as usize) })
    }

    #[cold]
    fn grow(&self, needed: u64) -> bool {
        let _guard = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
        let current = self.file_len.load(Ordering::Acquire);
        if needed <= current {
            return true;
        }
        let new_len = needed.max(current * 2).max(current + GROW_STEP);
        if new_len > MAP_RESERVE as u64 {
            return false;
        }
        // SAFETY: plain syscall on our own descriptor.
        if unsafe { libc::ftruncate(self.file.as_raw_fd(), new_len as libc::off_t) } != 0 {
            return false;
        }
        self.file_len.store(new_len, Ordering::Release);
        true
    }

    fn write_text(&self, subkind: u32, content: &[u8]) {
        let len = (16 + content.len()).div_ceil(8) * 8;
        let Ok(len32) = u32::try_from(len) else {
            return;
        };
        let Some(rec) = self.reserve(len) else { return };
        // SAFETY: `rec` points at `len` reserved bytes, zero-filled by the file growth.
        unsafe {
            ptr::write(rec as *mut u32, len32);
            ptr::write(rec.add(4) as *mut u16, kind::TEXT);
            ptr::write(rec.add(8) as *mut u32, subkind);
            ptr::write(rec.add(12) as *mut u32, content.len() as u32);
            ptr::copy_nonoverlapping(content.as_ptr(), rec.add(16), content.len());
            (*(rec.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
        }
    }

    fn set_state_flag(&self, flag: u32) {
        self.header_u32(offset::STATE)
            .fetch_or(flag, Ordering::Release);
    }
}

fn recorder() -> Option<&'static Recorder> {
    let p = RECORDER.load(Ordering::Acquire);
    // SAFETY: once published, the recorder is never freed.
    (!p.is_null()).then(|| unsafe { &*p })
}

fn env_rank() -> i32 {
    [
        "MPICHECK_RANK",
        "PMI_RANK",
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok()?.parse().ok())
    .unwrap_or(-1)
}

fn open_trace(family: &str) -> Option<Recorder> {
    let dir = PathBuf::from(std::env::var_os("MPICHECK_OUT_DIR")?);
    let pid = std::process::id();
    let path = dir.join(format!("trace-{pid}{}", mpicheck_trace::TRACE_SUFFIX));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(&path)
        .map_err(|e| {
            eprintln!(
                "mpicheck: cannot create trace {}: {e}; this process is not recorded",
                path.display()
            )
        })
        .ok()?;
    // SAFETY: mapping our own file; the mapping is never unmapped (records may be written
    // until the very end of the process).
    let base = unsafe {
        libc::mmap(
            ptr::null_mut(),
            MAP_RESERVE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_NORESERVE,
            file.as_raw_fd(),
            0,
        )
    };
    if base == libc::MAP_FAILED {
        eprintln!(
            "mpicheck: cannot map trace {}; this process is not recorded",
            path.display()
        );
        return None;
    }
    let recorder = Recorder {
        base: base as *mut u8,
        file_len: AtomicU64::new(0),
        file,
        grow_lock: Mutex::new(()),
        start: Clock {
            origin_ns: monotonic_ns(),
        },
    };
    if !recorder.grow(GROW_STEP) {
        eprintln!(
            "mpicheck: cannot grow trace {}; this process is not recorded",
            path.display()
        );
        return None;
    }
    let start_unix_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // SAFETY: the header lies in the first page, which the growth above made writable.
    unsafe {
        let b = recorder.base;
        ptr::copy_nonoverlapping(MAGIC.as_ptr(), b.add(offset::MAGIC), 8);
        ptr::write(b.add(offset::VERSION) as *mut u32, FORMAT_VERSION);
        ptr::write(b.add(offset::HEADER_SIZE) as *mut u32, HEADER_SIZE as u32);
        ptr::write(b.add(offset::PID) as *mut u32, pid);
        ptr::write(b.add(offset::ENV_RANK) as *mut i32, env_rank());
        ptr::write(b.add(offset::RANK) as *mut i32, -1);
        ptr::write(b.add(offset::WORLD_SIZE) as *mut i32, -1);
        ptr::write(b.add(offset::THREAD_LEVEL) as *mut i32, -1);
        ptr::write(b.add(offset::START_UNIX_NS) as *mut u64, start_unix_ns);
        let family = family.as_bytes();
        let n = family.len().min(offset::FAMILY_LEN - 1);
        ptr::copy_nonoverlapping(family.as_ptr(), b.add(offset::FAMILY), n);
    }
    recorder
        .header_u64(offset::RECORDS_END)
        .store(HEADER_SIZE as u64, Ordering::Release);
    Some(recorder)
}

fn process_text() -> String {
    let exe = std::fs::read_link("/proc/self/exe")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let cmdline = std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    format!("exe={exe}\ncmdline={cmdline}\n")
}

unsafe fn c_text<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        &[]
    } else {
        CStr::from_ptr(p).to_bytes()
    }
}

extern "C" fn at_exit() {
    if let Some(r) = recorder() {
        if let Ok(maps) = std::fs::read("/proc/self/maps") {
            r.write_text(text::PROC_MAPS, &maps);
        }
        r.set_state_flag(state::EXITED);
        // Cut the zero tail so the file is no larger than what was recorded. Other threads
        // may still record after this; their records land beyond the end and are lost, which
        // is acceptable at exit.
        let end = r.header_u64(offset::RECORDS_END).load(Ordering::Acquire) + 8;
        let _guard = r.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
        if end <= r.file_len.load(Ordering::Acquire) {
            // SAFETY: plain syscall on our own descriptor.
            unsafe { libc::ftruncate(r.file.as_raw_fd(), end as libc::off_t) };
        }
    }
}

/// Opens the trace and writes the function table and constants. See the C header.
///
/// # Safety
/// The arguments are NUL-terminated strings or null.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_start(
    family: *const c_char,
    schema: *const c_char,
    constants: *const c_char,
) {
    if STARTED.set(()).is_err() {
        return;
    }
    let family = String::from_utf8_lossy(c_text(family)).into_owned();
    let Some(recorder) = open_trace(&family) else {
        return;
    };
    let recorder: &'static Recorder = Box::leak(Box::new(recorder));
    recorder.write_text(text::PROCESS, process_text().as_bytes());
    recorder.write_text(text::SCHEMA, c_text(schema));
    recorder.write_text(text::CONSTANTS, c_text(constants));
    if let Ok(maps) = std::fs::read("/proc/self/maps") {
        recorder.write_text(text::PROC_MAPS, &maps);
    }
    RECORDER.store(
        recorder as *const Recorder as *mut Recorder,
        Ordering::Release,
    );
    libc::atexit(at_exit);
}

fn thread_index() -> u16 {
    THREAD_INDEX.with(|cell| {
        let index = cell.get();
        if index != u16::MAX {
            return index;
        }
        let index = NEXT_THREAD
            .fetch_add(1, Ordering::Relaxed)
            .min(u16::MAX - 1);
        cell.set(index);
        index
    })
}

/// Reserves a call record; returns its argument words, or null when not recording.
///
/// # Safety
/// Called by the generated wrappers only; `callsite` is any address (only recorded).
#[no_mangle]
pub unsafe extern "C" fn mpicheck_begin(
    func_id: u16,
    nwords: u32,
    callsite: *const c_void,
    flags: u8,
) -> *mut i64 {
    let Some(r) = recorder() else {
        return ptr::null_mut();
    };
    let len = CALL_FIXED_SIZE + 8 * nwords as usize;
    let Some(rec) = r.reserve(len) else {
        return ptr::null_mut();
    };
    let order_key = rec.offset_from(r.base) as u64;
    ptr::write(rec as *mut u32, len as u32);
    ptr::write(rec.add(4) as *mut u16, kind::CALL);
    // rec[6] (state) stays RESERVED (the growth zero-filled it).
    ptr::write(rec.add(7), flags);
    ptr::write(rec.add(8) as *mut u16, func_id);
    ptr::write(rec.add(10) as *mut u16, thread_index());
    ptr::write(rec.add(12) as *mut u32, nwords);
    ptr::write(rec.add(16) as *mut u64, order_key);
    ptr::write(rec.add(24) as *mut u64, r.start.now());
    ptr::write(rec.add(40) as *mut u64, callsite as u64);
    rec.add(CALL_FIXED_SIZE) as *mut i64
}

unsafe fn record_of(words: *mut i64) -> *mut u8 {
    (words as *mut u8).sub(CALL_FIXED_SIZE)
}

/// Publishes the record's input words.
///
/// # Safety
/// `words` was returned by [`mpicheck_begin`].
#[no_mangle]
pub unsafe extern "C" fn mpicheck_entered(words: *mut i64) {
    let rec = record_of(words);
    (*(rec.add(6) as *const AtomicU8)).store(record_state::ENTERED, Ordering::Release);
}

/// Publishes the call's return.
///
/// # Safety
/// `words` was returned by [`mpicheck_begin`].
#[no_mangle]
pub unsafe extern "C" fn mpicheck_end(words: *mut i64, ret: i32) {
    let Some(r) = recorder() else { return };
    let rec = record_of(words);
    ptr::write(rec.add(32) as *mut u64, r.start.now());
    ptr::write(rec.add(48) as *mut i32, ret);
    (*(rec.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
}

/// `MPI_Init*` returned.
#[no_mangle]
pub extern "C" fn mpicheck_initialized(rank: i32, size: i32, thread_level: i32) {
    let Some(r) = recorder() else { return };
    // SAFETY: header fields, aligned, in the first page.
    unsafe {
        ptr::write_volatile(r.base.add(offset::RANK) as *mut i32, rank);
        ptr::write_volatile(r.base.add(offset::WORLD_SIZE) as *mut i32, size);
        ptr::write_volatile(r.base.add(offset::THREAD_LEVEL) as *mut i32, thread_level);
    }
    r.set_state_flag(state::INITIALIZED);
}

/// `MPI_Finalize` returned.
#[no_mangle]
pub extern "C" fn mpicheck_finalized() {
    if let Some(r) = recorder() {
        r.set_state_flag(state::FINALIZED);
    }
}

/// Appends a text record.
///
/// # Safety
/// `content` is a NUL-terminated string or null.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_text(subkind: u32, content: *const c_char) {
    if let Some(r) = recorder() {
        r.write_text(subkind, c_text(content));
    }
}
