//! The recorder: the hot path inside the MPI program.
//!
//! The generated wrappers of the interposition library call the `extern "C"` functions below
//! (declared in `include/mpicheck_recorder.h`). Each call reserves a record in a shared memory
//! mapping of the per-process trace file with one atomic add, writes plain words, and
//! publishes them with a release store of the record state. Nothing here blocks on MPI or on
//! I/O: the kernel owns the mapped pages, so a record survives the process being killed the
//! moment it is written. The layout is documented in `mpicheck_trace`.
//!
//! Page faults are kept off the hot path: a helper thread grows the file and populates its
//! pages (`MADV_POPULATE_WRITE`) ahead of the writers, so a writer normally stores into
//! memory that is already mapped writable. Writers never wait for the helper (nor for the
//! lock it holds while populating a chunk): if it falls behind (or does not exist), they
//! populate the next pages in bulk themselves, or fault them in. The helper
//! stays 1 MiB ahead, doubling up to 32 MiB while writers keep catching up; a trace cut short
//! by a crash keeps that much zero tail, which the reader treats as the end.
//!
//! The recorder must never harm the program:
//! - The trace is opened at the process's first MPI call (not when the library is loaded),
//!   so helper processes that never call MPI (`system()`, `popen()`) leave no trace.
//! - Disk space is reserved (`posix_fallocate`) before records are written into it: a store
//!   into a mapped page whose block cannot be allocated would be a SIGBUS. When the file
//!   cannot grow (disk full, quota, file size limit), recording stops for good, the header
//!   says so and counts the calls dropped, and the program runs on.
//! - A child forked after recording started never writes into the parent's trace (the
//!   mapping is shared): `pthread_atfork` turns recording off in the child.
//! - Exit never shrinks the file: library destructors and other threads may still record
//!   (into a margin left after the last record); the disk space beyond the margin is
//!   released by punching a hole, which reads as zeros.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::fs::{File, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::PathBuf;
use std::ptr;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering,
};
use std::sync::Mutex;

mod repeat;
mod space;
mod start;

pub use repeat::{
    mpicheck_begin_repeatable, mpicheck_end_folded, mpicheck_end_repeatable,
    mpicheck_enter_repeatable, REPEAT_SCRATCH_BYTES, REPEAT_SLOTS, REPEAT_TABLE_WORDS,
};

use start::*;

use mpicheck_trace::{
    clock, kind, offset, record_state, state, text, CALL_FIXED_SIZE, FORMAT_VERSION, HEADER_SIZE,
    MAGIC,
};

/// Address space reserved for one trace, at most. The file grows inside it; nothing is
/// committed until written, so this costs no memory.
const MAP_RESERVE: usize = 1 << 36; // 64 GiB
/// The least reservation a trace is recorded with (see `start::map_reserve`).
const MAP_RESERVE_LEAST: usize = 1 << 28; // 256 MiB
/// The file grows by at least this much at a time, so growth (a syscall) is rare.
const GROW_STEP: u64 = 8 << 20;
/// The helper populates at least this far ahead of the last reservation...
const POPULATE_AHEAD_MIN: u64 = 1 << 20;
/// ...doubling the distance whenever the writers catch up with it, up to this far.
const POPULATE_AHEAD_MAX: u64 = 32 << 20;
/// One `madvise` call populates at most this much, so exit can stop the helper quickly.
const POPULATE_CHUNK: u64 = 1 << 20;
/// Growth beyond `GROW_STEP` is a quarter of the file, at most this much: reserved space is
/// allocated on disk, so a crash leaves at most this much unused.
const GROW_STEP_MAX: u64 = 64 << 20;
/// Room kept after the last record at exit for calls made later (library destructors calling
/// `MPI_Finalized`, other threads): about 20,000 small records.
const EXIT_MARGIN: u64 = 1 << 20;
/// Distance in bytes of the cache line a writer prefetches for a later record.
const PREFETCH_AHEAD: usize = 1024;
/// A writer that finds the helper behind populates this much beyond its record itself.
const WRITER_CHUNK: u64 = 256 << 10;
/// The helper wakes at least this often even when nobody asks (nanoseconds).
const HELPER_PERIOD_NS: i64 = 200_000_000;
const PAGE_SIZE: u64 = 4096;
/// `madvise` advice (Linux 5.14): fault the range in writable, as a write would.
const MADV_POPULATE_WRITE: libc::c_int = 23;

struct Recorder {
    base: *mut u8,
    /// Bytes of address space mapped at `base`: the trace file never grows beyond.
    reserved: u64,
    /// Current file length: every byte below it may be written.
    file_len: AtomicU64,
    /// Writers take the cold path (growth, waking the helper) when a reservation ends beyond
    /// this. Never above `file_len`, so the hot path compares against this alone.
    soft_limit: AtomicU64,
    /// Bytes from the file start whose pages the helper has populated.
    populated: AtomicU64,
    /// Futex word: bumped by a writer to wake the helper.
    helper_wake: AtomicU32,
    /// The helper exists (false in a forked child, or if it could not be started).
    helper_running: AtomicBool,
    /// Exit handlers ran: the helper must neither grow the file nor populate it any more,
    /// and writers may only use the space below `exit_limit`.
    exiting: AtomicBool,
    /// Set by the exit handler (0 until then): records must end below this.
    exit_limit: AtomicU64,
    /// The file could not grow (no space): recording has stopped for good.
    no_space: AtomicBool,
    /// Held while pages are populated, so that exit can release the unused tail without the
    /// helper faulting it back in.
    populate_lock: Mutex<()>,
    /// `MADV_POPULATE_WRITE` works (Linux 5.14 and later).
    populate_supported: AtomicBool,
    /// The trace file, at a high descriptor number ([`high_descriptor`]); only used through
    /// [`Recorder::trace_fd`].
    file: File,
    /// The trace file's device and inode: what `file`'s descriptor must still name.
    file_id: (u64, u64),
    grow_lock: Mutex<()>,
    /// Serializes writers of the header's calibration pairs.
    calibration_lock: Mutex<()>,
    clock: Clock,
}

// The raw pointer is to a process-wide shared mapping that lives until exit.
unsafe impl Send for Recorder {}
unsafe impl Sync for Recorder {}

static RECORDER: AtomicPtr<Recorder> = AtomicPtr::new(ptr::null_mut());
/// Threads numbered so far; the C header's `mpicheck_end_instant` reads it to know whether
/// calls of other threads may overlap.
#[export_name = "mpicheck_recording_threads"]
static NEXT_THREAD: AtomicU16 = AtomicU16::new(0);

/// Whether this process records: [`UNSTARTED`] until its first MPI call opens the trace.
/// The C header reads it to skip the recorder while not recording ([`OFF`]).
#[export_name = "mpicheck_recording"]
static RECORDING: AtomicU8 = AtomicU8::new(UNSTARTED);
const UNSTARTED: u8 = 0;
const ON: u8 = 1;
/// Not recording: no output directory, the trace could not be created, or a forked child.
const OFF: u8 = 2;

/// What the trace starts with, given by the interposition library's constructor; taken by
/// the first MPI call, which opens the trace.
struct Prepared {
    family: String,
    schema: String,
    constants: String,
    /// Called once the trace is open (the thread tracking's first record).
    on_start: Option<unsafe extern "C" fn()>,
}

static PREPARED: Mutex<Option<Prepared>> = Mutex::new(None);
/// The process that opened the trace: only it finalizes the trace at exit.
static OWNER_PID: AtomicU32 = AtomicU32::new(0);

/// How the C header's inline `mpicheck_end` finishes a record: [`END_OFF`] (not recording:
/// before the trace is open, and in a forked child), [`END_TSC`] (exit time from `rdtsc`,
/// inline) or [`END_CALL`] (exit time from [`mpicheck_clock_now`]). Stored before the
/// recorder is published, so a wrapper holding a record sees it.
#[export_name = "mpicheck_end_mode"]
pub static END_MODE: AtomicU8 = AtomicU8::new(END_OFF);
/// The trace's end of the record area (header offset [`offset::RECORDS_END`]), for the C
/// header's inline count (a counted record must still be the trace's last); null before the
/// trace is open. Stored before [`END_MODE`].
#[export_name = "mpicheck_records_end"]
static RECORDS_END_WORD: AtomicPtr<u64> = AtomicPtr::new(ptr::null_mut());
pub const END_OFF: u8 = 0;
pub const END_TSC: u8 = 1;
pub const END_CALL: u8 = 2;

thread_local! {
    static THREAD_INDEX: Cell<u16> = const { Cell::new(u16::MAX) };
}

/// The clock of the call times: the time-stamp counter when the kernel trusts it as its own
/// clock source (invariant and synchronized across CPUs), else `CLOCK_MONOTONIC`.
#[derive(Clone, Copy)]
struct Clock {
    tsc: bool,
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
    fn detect() -> Clock {
        let kernel_uses_tsc = std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .is_ok_and(|s| s.trim() == "tsc");
        Clock {
            tsc: cfg!(target_arch = "x86_64") && kernel_uses_tsc,
        }
    }

    /// The header's `clock` field.
    fn kind(&self) -> u32 {
        if self.tsc {
            clock::TSC
        } else {
            clock::MONOTONIC_NS
        }
    }

    #[inline(always)]
    fn now(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.tsc {
            // SAFETY: rdtsc is available on every x86_64 CPU.
            return unsafe { core::arch::x86_64::_rdtsc() };
        }
        monotonic_ns()
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

    /// Takes `len` bytes at the end of the record area and returns their offset; the caller
    /// must then check the end (plus the 8-byte end marker) against `soft_limit`, loaded
    /// SeqCst, as [`Self::reserve`] does.
    #[inline(always)]
    fn reserve_fast(&self, len: usize) -> u64 {
        // SeqCst on both (free on x86_64: a locked add and a plain load) pairs with the exit
        // handler's store of `soft_limit` and load of the end: either this writer sees the
        // lowered limit, or the exit handler sees this reservation.
        self.header_u64(offset::RECORDS_END)
            .fetch_add(len as u64, Ordering::SeqCst)
    }

    /// Reserves `len` bytes (a multiple of 8) in the record area and returns their address,
    /// or None when the file cannot grow.
    #[inline(always)]
    fn reserve(&self, len: usize) -> Option<*mut u8> {
        let at = self.reserve_fast(len);
        let end = at + len as u64;
        // Keep room for the 8-byte end marker after the last record.
        if end + 8 > self.soft_limit.load(Ordering::SeqCst) && !self.beyond_soft_limit(end + 8) {
            return None;
        }
        // SAFETY: [at, end) lies inside the file and the reserved mapping, owned by us alone.
        Some(unsafe { self.base.add(at as usize) })
    }

    /// Returns the space of a record that was folded into the one before it: when it is the
    /// last reservation, the end of the record area moves back over it; else it stays as a
    /// record readers skip. The space is left all zero either way (under a skip frame, or
    /// none), so that a record later reserved there whose writer is ended before writing
    /// its frame reads as a hole, never as stale words (trace format: "Holes"); while it is
    /// being zeroed, a skip frame covers it.
    fn give_back(&self, rec: *mut u8, len: usize) {
        let at = rec as u64 - self.base as u64;
        // SAFETY: the record is ours; its first word is the frame.
        let frame = unsafe { &*(rec as *const AtomicU64) };
        let skip = len as u64 | (kind::SKIP as u64) << 32 | (record_state::COMPLETE as u64) << 48;
        frame.store(skip, Ordering::Release);
        // SAFETY: the record's `len` bytes are ours until the end moves back over them.
        unsafe { ptr::write_bytes(rec.add(8), 0, len - 8) };
        frame.store(0, Ordering::Release);
        let given_back = self
            .header_u64(offset::RECORDS_END)
            .compare_exchange(at + len as u64, at, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok();
        if !given_back {
            frame.store(skip, Ordering::Release);
        }
    }

    fn write_text(&self, subkind: u32, content: &[u8]) {
        let len = (16 + content.len()).div_ceil(8) * 8;
        let Ok(len32) = u32::try_from(len) else {
            return;
        };
        let Some(rec) = self.reserve(len) else { return };
        // SAFETY: `rec` points at `len` reserved bytes, zero-filled by the file growth.
        unsafe {
            // The frame first and whole (state RESERVED), as for calls (see `begin`).
            ptr::write(rec as *mut u64, len32 as u64 | (kind::TEXT as u64) << 32);
            std::sync::atomic::fence(Ordering::Release);
            ptr::write(rec.add(8) as *mut u32, subkind);
            ptr::write(rec.add(12) as *mut u32, content.len() as u32);
            ptr::copy_nonoverlapping(content.as_ptr(), rec.add(16), content.len());
            (*(rec.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
        }
    }

    /// A clock reading and `CLOCK_MONOTONIC` ns taken together (the ns read between two
    /// clock readings, whose mean is the reading).
    fn clock_pair(&self) -> (u64, u64) {
        // Of three tries, the one whose two clock readings lie closest: the process's first
        // call into the vDSO faults its page in, and a preemption may fall between them,
        // either of which puts `ns` microseconds off the midpoint, and the start pair
        // against an early calibration pair then skews every call time (a 50 ms pause read
        // as 49.8 ms).
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..3 {
            let before = self.clock.now();
            let ns = monotonic_ns();
            let after = self.clock.now();
            let gap = after.wrapping_sub(before);
            if gap < best.0 {
                best = (gap, before + gap / 2, ns);
            }
        }
        (best.1, best.2)
    }

    /// Writes a fresh calibration pair into the slot not in use, then switches to it, so a
    /// reader of a trace cut at any moment finds a whole pair.
    fn calibrate(&self) {
        let Ok(_guard) = self.calibration_lock.try_lock() else {
            return; // another thread is at it
        };
        let slot = self
            .header_u32(offset::CALIBRATION_SLOT)
            .load(Ordering::Relaxed)
            & 1;
        let next = slot ^ 1;
        let (ticks, ns) = self.clock_pair();
        let at = offset::CALIBRATION + 16 * next as usize;
        self.header_u64(at).store(ticks, Ordering::Relaxed);
        self.header_u64(at + 8).store(ns, Ordering::Relaxed);
        self.header_u32(offset::CALIBRATION_SLOT)
            .store(next, Ordering::Release);
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

unsafe fn c_text<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        &[]
    } else {
        CStr::from_ptr(p).to_bytes()
    }
}

/// Keeps what the trace starts with; the process's first MPI call opens the trace. See the
/// C header.
///
/// # Safety
/// The string arguments are NUL-terminated strings or null.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_prepare(
    family: *const c_char,
    schema: *const c_char,
    constants: *const c_char,
    on_start: Option<unsafe extern "C" fn()>,
) {
    let mut prepared = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
    if prepared.is_some() || RECORDING.load(Ordering::Acquire) != UNSTARTED {
        return;
    }
    *prepared = Some(Prepared {
        family: String::from_utf8_lossy(c_text(family)).into_owned(),
        schema: String::from_utf8_lossy(c_text(schema)).into_owned(),
        constants: String::from_utf8_lossy(c_text(constants)).into_owned(),
        on_start,
    });
    libc::pthread_atfork(None, None, Some(in_forked_child));
}

fn thread_index(r: &Recorder) -> u16 {
    THREAD_INDEX.with(|cell| {
        let index = cell.get();
        if index != u16::MAX {
            return index;
        }
        let index = new_thread_index(r);
        cell.set(index);
        index
    })
}

/// Numbers a thread at its first record, and publishes its kernel thread id in the header
/// so that the launcher can see what it does between MPI calls.
#[cold]
fn new_thread_index(r: &Recorder) -> u16 {
    // SeqCst, and before the thread's first entry time is read: a call of another thread that
    // returns after that entry sees this count (`mpicheck_end_instant`).
    let index = NEXT_THREAD.fetch_add(1, Ordering::SeqCst).min(u16::MAX - 2);
    if (index as usize) < mpicheck_trace::MAX_THREAD_TIDS {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() } as u32;
        r.header_u32(offset::THREAD_TIDS + 4 * index as usize)
            .store(tid, Ordering::Release);
    }
    index
}

/// Reserves a call record with `nwords` 8-byte argument words; returns its argument words,
/// or null when not recording.
///
/// # Safety
/// `callsite` is any address (only recorded).
#[no_mangle]
pub unsafe extern "C" fn mpicheck_begin(
    func_id: u16,
    nwords: u32,
    callsite: *const c_void,
    flags: u8,
) -> *mut i64 {
    let Some(r) = recorder().or_else(start_recording) else {
        return ptr::null_mut();
    };
    let nbytes = nwords.saturating_mul(8);
    begin(r, func_id, nbytes, callsite, flags, thread_index(r))
}

/// [`mpicheck_begin`] with room for `nbytes` bytes of argument words (trace format 4: scalars
/// of 4 or 8 bytes; the record is padded to a multiple of 8), and the thread index kept by
/// the caller in `thread_slot` (index + 1, 0 until assigned): the C wrappers keep it in
/// initial-exec TLS, a plain load, where a Rust `thread_local!` in a shared library goes
/// through `__tls_get_addr`.
///
/// # Safety
/// `thread_slot` points at the calling thread's own slot.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_begin_slot(
    func_id: u16,
    nbytes: u32,
    callsite: *const c_void,
    flags: u8,
    thread_slot: *mut u16,
) -> *mut i64 {
    // The common case (recording, the thread known, the time-stamp counter, room below the
    // limit) calls nothing, so it saves no registers; every other case goes to a cold
    // function (a tail call, or past the limit a call in its own branch).
    #[cfg(target_arch = "x86_64")]
    if let Some(r) = recorder() {
        let slot = *thread_slot;
        if slot != 0 && r.clock.tsc {
            let len = call_len(nbytes);
            let at = r.reserve_fast(len);
            if at + len as u64 + 8 <= r.soft_limit.load(Ordering::SeqCst) {
                let now = core::arch::x86_64::_rdtsc();
                return write_call(
                    r.base.add(at as usize),
                    len,
                    func_id,
                    slot - 1,
                    callsite,
                    flags,
                    now,
                );
            }
            return begin_reserved_cold(r, at, len, func_id, slot - 1, callsite, flags);
        }
    }
    begin_slot_cold(func_id, nbytes, callsite, flags, thread_slot)
}

/// [`mpicheck_begin_slot`] before recording starts, for a thread's first record, or with the
/// fallback clock.
#[cold]
#[inline(never)]
unsafe fn begin_slot_cold(
    func_id: u16,
    nbytes: u32,
    callsite: *const c_void,
    flags: u8,
    thread_slot: *mut u16,
) -> *mut i64 {
    let Some(r) = recorder().or_else(start_recording) else {
        return ptr::null_mut();
    };
    begin_in_slot(r, func_id, nbytes, callsite, flags, thread_slot)
}

/// [`mpicheck_begin_slot`] past the writers' limit, with its space reserved at `at`: the
/// rest of [`Recorder::reserve`] (grow, populate, or give up), then the record.
#[cold]
#[inline(never)]
unsafe fn begin_reserved_cold(
    r: &Recorder,
    at: u64,
    len: usize,
    func_id: u16,
    thread: u16,
    callsite: *const c_void,
    flags: u8,
) -> *mut i64 {
    if !r.beyond_soft_limit(at + len as u64 + 8) {
        return ptr::null_mut();
    }
    write_call(
        r.base.add(at as usize),
        len,
        func_id,
        thread,
        callsite,
        flags,
        r.clock.now(),
    )
}

/// [`mpicheck_begin_slot`] for records that are not MPI calls (synchronization between
/// threads): they never open the trace, so a process that does not call MPI leaves none.
///
/// # Safety
/// As [`mpicheck_begin_slot`].
#[no_mangle]
pub unsafe extern "C" fn mpicheck_begin_recording_slot(
    func_id: u16,
    nbytes: u32,
    callsite: *const c_void,
    flags: u8,
    thread_slot: *mut u16,
) -> *mut i64 {
    let Some(r) = recorder() else {
        return ptr::null_mut();
    };
    begin_in_slot(r, func_id, nbytes, callsite, flags, thread_slot)
}

#[inline(always)]
unsafe fn begin_in_slot(
    r: &Recorder,
    func_id: u16,
    nbytes: u32,
    callsite: *const c_void,
    flags: u8,
    thread_slot: *mut u16,
) -> *mut i64 {
    let mut slot = *thread_slot;
    if slot == 0 {
        slot = new_thread_index(r) + 1;
        *thread_slot = slot;
    }
    begin(r, func_id, nbytes, callsite, flags, slot - 1)
}

#[inline(always)]
unsafe fn begin(
    r: &Recorder,
    func_id: u16,
    nbytes: u32,
    callsite: *const c_void,
    flags: u8,
    thread: u16,
) -> *mut i64 {
    let len = call_len(nbytes);
    let Some(rec) = r.reserve(len) else {
        return ptr::null_mut();
    };
    write_call(rec, len, func_id, thread, callsite, flags, r.clock.now())
}

/// Bytes of a call record with `nbytes` of argument words: padded at the end, so records
/// stay 8-byte aligned (the padding is the file's zeros).
#[inline(always)]
fn call_len(nbytes: u32) -> usize {
    CALL_FIXED_SIZE + (nbytes as usize).next_multiple_of(8)
}

/// Writes the fixed part of a call record into the `len` bytes reserved at `rec`; returns
/// where its argument words go.
#[inline(always)]
unsafe fn write_call(
    rec: *mut u8,
    len: usize,
    func_id: u16,
    thread: u16,
    callsite: *const c_void,
    flags: u8,
    now: u64,
) -> *mut i64 {
    // Ask for the cache line a few records ahead in exclusive state now, so that the stores
    // of a later record do not wait for it (the pages were zeroed long ago by the helper and
    // are out of the cache). A prefetch never faults, even beyond the file.
    // `prefetchw` (0F 0D /1) executes as a no-op on x86_64 CPUs without it.
    #[cfg(target_arch = "x86_64")]
    std::arch::asm!(
        "prefetchw [{}]",
        in(reg) rec.wrapping_add(PREFETCH_AHEAD),
        options(nostack, preserves_flags, readonly)
    );
    // Frame and ids as one word: len, kind, state RESERVED (0), flags, func, thread; the
    // return code (12..16) is written at the end.
    let frame = len as u64 | (kind::CALL as u64) << 32 | (flags as u64) << 56;
    ptr::write(rec as *mut u64, frame);
    // The frame before any other word, so that a writer ended in between leaves a hole of
    // zeros the reader can step over (trace format: "Holes"). Free on x86_64.
    std::sync::atomic::fence(Ordering::Release);
    ptr::write(rec.add(8) as *mut u16, func_id);
    ptr::write(rec.add(10) as *mut u16, thread);
    ptr::write(rec.add(16) as *mut u64, now);
    ptr::write(rec.add(32) as *mut u64, callsite as u64);
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
    ptr::write(rec.add(24) as *mut u64, r.clock.now());
    ptr::write(rec.add(12) as *mut i32, ret);
    (*(rec.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
}

/// The clock reading of a call time, for the C header's inline `mpicheck_end` when the clock
/// is not the time-stamp counter.
#[no_mangle]
pub extern "C" fn mpicheck_clock_now() -> u64 {
    recorder().map_or_else(monotonic_ns, |r| r.clock.now())
}

thread_local! {
    /// The calling thread's last poll record, which an identical unsuccessful poll right
    /// after it is folded into.
    static LAST_POLL: Cell<*mut u8> = const { Cell::new(ptr::null_mut()) };
}

/// Publishes a poll's return, folding it into the thread's previous record when that is the
/// same unsuccessful poll right before this one (see "Folded polls" in `mpicheck_trace`).
/// The record was reserved with [`mpicheck_trace::POLL_FOLD_WORDS`] extra words and the
/// `POLL` flag.
///
/// # Safety
/// `words` was returned by [`mpicheck_begin`] for a record with the `POLL` flag.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_end_poll(words: *mut i64, ret: i32, unsuccessful: i32) {
    let Some(r) = recorder() else { return };
    let rec = record_of(words);
    let len = ptr::read(rec as *const u32) as usize;
    let fold_at = len - 8 * mpicheck_trace::POLL_FOLD_WORDS;
    let previous = LAST_POLL.with(Cell::get);
    if unsuccessful != 0 && ret == 0 && !previous.is_null() && previous.add(len) == rec {
        // Adjacent and as long: compare the frame's ids and every argument word.
        let same_call = ptr::read(previous as *const u32) as usize == len
            && ptr::read(previous.add(8) as *const u32) == ptr::read(rec.add(8) as *const u32)
            && ptr::read(previous as *const u64) >> 56 == ptr::read(rec as *const u64) >> 56
            && std::slice::from_raw_parts(previous.add(CALL_FIXED_SIZE), fold_at - CALL_FIXED_SIZE)
                == std::slice::from_raw_parts(rec.add(CALL_FIXED_SIZE), fold_at - CALL_FIXED_SIZE)
            && ptr::read(previous.add(12) as *const i32) == 0;
        if same_call {
            let entered = ptr::read(rec.add(16) as *const u64);
            let repeats = &*(previous.add(fold_at) as *const AtomicU64);
            ptr::write(previous.add(fold_at + 8) as *mut u64, entered);
            repeats.fetch_add(1, Ordering::Release);
            r.give_back(rec, len);
            return;
        }
    }
    ptr::write(rec.add(fold_at) as *mut u64, 0);
    ptr::write(rec.add(fold_at + 8) as *mut u64, 0);
    LAST_POLL.with(|last| {
        last.set(if unsuccessful != 0 {
            rec
        } else {
            ptr::null_mut()
        })
    });
    mpicheck_end(words, ret);
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
    r.calibrate();
    r.set_state_flag(state::INITIALIZED);
}

/// MPI begins to abort the job inside the calling thread's MPI call (`thread_slot`: its
/// index + 1, 0 if it never recorded): its error handler rejected the call, and the exit
/// handlers will not run. The header says so, or the call would look blocked forever.
/// Async-signal-safe (two stores); not in a forked or vforked child, which shares nothing it
/// may write.
#[no_mangle]
pub extern "C" fn mpicheck_aborting_in_call(thread_slot: u16) {
    let Some(r) = recorder() else { return };
    if OWNER_PID.load(Ordering::Relaxed) != std::process::id() {
        return;
    }
    r.header_u32(offset::ABORT_THREAD)
        .store(u32::from(thread_slot), Ordering::Relaxed);
    r.set_state_flag(state::ABORTED_IN_CALL);
}

/// The calling thread, which calls MPI, read the clock outside MPI (c/clock.c): counted in
/// the header ([`offset::CLOCK_READS`]) for the watcher of `mpicheck run`. A plain load and
/// store, no locked instruction: the watcher only looks for a change, and a program that
/// reads the clock in a tight loop must not pay for an atomic add.
#[no_mangle]
pub extern "C" fn mpicheck_note_clock_read() {
    let Some(r) = recorder() else { return };
    let count = r.header_u32(offset::CLOCK_READS);
    count.store(
        count.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
}

/// `MPI_Finalize` returned.
#[no_mangle]
pub extern "C" fn mpicheck_finalized() {
    if let Some(r) = recorder() {
        r.calibrate();
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

#[cfg(test)]
mod tests {
    /// The C header inlines `mpicheck_entered` with the record layout spelled out.
    #[test]
    fn c_header_agrees_with_the_record_layout() {
        let header = include_str!("../include/mpicheck_recorder.h");
        let fixed = format!(
            "#define MPICHECK_CALL_FIXED_SIZE {}\n",
            mpicheck_trace::CALL_FIXED_SIZE
        );
        assert!(header.contains(&fixed), "header lacks {fixed:?}");
        let store = format!(
            "- MPICHECK_CALL_FIXED_SIZE + 6, (uint8_t){}, __ATOMIC_RELEASE)",
            mpicheck_trace::record_state::ENTERED
        );
        assert!(header.contains(&store), "header lacks {store:?}");
        let instant = format!(
            "#define MPICHECK_FLAG_INSTANT {}\n",
            mpicheck_trace::flags::INSTANT
        );
        assert!(header.contains(&instant), "header lacks {instant:?}");
        // Repeat records: the flag, the scratch buffer and the table the wrappers provide.
        for line in [
            format!(
                "#define MPICHECK_FLAG_REPEAT {}\n",
                mpicheck_trace::flags::REPEAT
            ),
            format!(
                "#define MPICHECK_REPEAT_SCRATCH_BYTES {}\n",
                super::REPEAT_SCRATCH_BYTES
            ),
            format!("#define MPICHECK_REPEAT_SLOTS {}\n", super::REPEAT_SLOTS),
            format!(
                "#define MPICHECK_FLAG_COUNTED {}\n",
                mpicheck_trace::flags::COUNTED
            ),
            format!(
                "#define MPICHECK_COUNT_WORDS {}\n",
                mpicheck_trace::COUNT_WORDS
            ),
            format!(
                "#define MPICHECK_REPEAT_TABLE_WORDS (MPICHECK_REPEAT_SLOTS + {})\n",
                super::REPEAT_TABLE_WORDS - super::REPEAT_SLOTS
            ),
            // The counted call inline: the table's expected calls, the record kind, the
            // pending bit, how often `last` is stamped, the recorder's state.
            format!(
                "#define MPICHECK_FAST_REC (MPICHECK_REPEAT_SLOTS + {})\n",
                super::repeat::FAST_REC - super::REPEAT_SLOTS
            ),
            format!(
                "#define MPICHECK_CURSOR (MPICHECK_REPEAT_SLOTS + {})\n",
                super::repeat::CURSOR - super::REPEAT_SLOTS
            ),
            format!(
                "#define MPICHECK_FAST_RUNS (MPICHECK_FAST_REC + {})\n",
                super::repeat::FAST_RUNS - super::repeat::FAST_REC
            ),
            format!(
                "#define MPICHECK_FAST_END (MPICHECK_FAST_REC + {})\n",
                super::repeat::FAST_END - super::repeat::FAST_REC
            ),
            format!(
                "#define MPICHECK_FAST_PERIOD (MPICHECK_FAST_REC + {})\n",
                super::repeat::FAST_PERIOD - super::repeat::FAST_REC
            ),
            format!(
                "#define MPICHECK_FAST_NEXT (MPICHECK_FAST_REC + {})\n",
                super::repeat::FAST_NEXT - super::repeat::FAST_REC
            ),
            format!(
                "#define MPICHECK_FAST_MEMBERS (MPICHECK_FAST_REC + {})\n",
                super::repeat::FAST_MEMBERS - super::repeat::FAST_REC
            ),
            format!(
                "#define MPICHECK_FAST_MEMBER_WORDS {}\n",
                super::repeat::MEMBER_WORDS
            ),
            format!(
                "#define MPICHECK_KIND_CALL {}\n",
                mpicheck_trace::kind::CALL
            ),
            format!(
                "#define MPICHECK_COUNT_PENDING ((uint64_t)1 << {})\n",
                mpicheck_trace::COUNT_PENDING.trailing_zeros()
            ),
            format!(
                "#define MPICHECK_STAMP_EVERY {}\n",
                super::repeat::STAMP_EVERY
            ),
            format!("#define MPICHECK_RECORDING_OFF {}\n", super::OFF),
        ] {
            assert!(header.contains(&line), "header lacks {line:?}");
        }
        // The inline mpicheck_end: exit time, return code, state COMPLETE.
        for line in [
            "__builtin_memcpy(rec + 24, &now, 8);".to_string(),
            "__builtin_memcpy(rec + 12, &ret, 4);".to_string(),
            format!(
                "__atomic_store_n(rec + 6, (uint8_t){}, __ATOMIC_RELEASE);",
                mpicheck_trace::record_state::COMPLETE
            ),
        ] {
            assert!(header.contains(&line), "header lacks {line:?}");
        }
    }
}
