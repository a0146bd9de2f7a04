//! Repeat records (trace format 5, "Repeated calls" in `mpicheck_trace`): a call whose
//! function, call site and input words equal those of the thread's latest record written in
//! full for that function and call site is written as a short record that refers to it.
//!
//! A record must be reserved at its full length or its short one, so the decision is made
//! before reserving: the wrapper writes the record into a scratch buffer on its own stack
//! ([`mpicheck_begin_repeatable`]), [`mpicheck_enter_repeatable`] compares the input words
//! with the original's (read back from the trace mapping: no copy is kept) and reserves and
//! writes either record, and the output words reach the trace when the call returns
//! ([`mpicheck_end_repeatable`]). The originals are found through a small per-thread table the
//! caller owns (C initial-exec TLS in the interposition library: a plain address), indexed by
//! a hash of the function and the call site, two slots per key; a collision only costs a
//! full record.
//!
//! Counted runs (trace format 6, "Counted runs" in `mpicheck_trace`): a repeat written right
//! after its original or another repeat of it, while the process records from one thread,
//! gets two count words; the thread's next identical call, while that record is still the
//! trace's last, is folded into it ([`mpicheck_enter_repeatable`] returns the record tagged
//! with its low bit, and [`mpicheck_end_folded`] counts the call when it returns, or writes
//! it on its own if its outputs or return code differ). The table's last word holds the
//! thread's latest repeat.

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use mpicheck_trace::{flags, kind, offset, record_state, CALL_FIXED_SIZE, COUNT_PENDING};

use super::{
    call_len, new_thread_index, recorder, start_recording, Recorder, NEXT_THREAD, PREFETCH_AHEAD,
};

/// Bytes of a counted repeat's count words (`runs`, `last`) at its end.
const COUNT_BYTES: usize = 8 * mpicheck_trace::COUNT_WORDS;

/// Argument bytes of the largest record written through the scratch buffer (and so the
/// largest that may be repeated): an exchange's `MPI_Waitall` of 16 requests with statuses
/// takes 544 bytes with MPICH. Larger records are reserved and written directly.
pub const REPEAT_SCRATCH_BYTES: u32 = 640;
/// Slots of the per-thread table of originals (a power of two): 2 KiB per thread.
pub const REPEAT_SLOTS: usize = 256;
/// Words of the per-thread table: the slots, then the offset of the thread's latest repeat
/// record (0 = none), which the thread's next identical call may be counted into.
pub const REPEAT_TABLE_WORDS: usize = REPEAT_SLOTS + 1;

/// Whether records may be written as repeats: `MPICHECK_REPEATS=0` turns them off (to
/// compare traces written both ways).
pub(super) static REPEATS_ON: AtomicBool = AtomicBool::new(true);

/// The table slot of a function (and thread: the `u32` at record offset 8) and call site.
#[inline(always)]
fn slot_of(ids: u32, callsite: u64) -> usize {
    let h = (callsite ^ (callsite >> 11) ^ ((ids & 0xffff) as u64).wrapping_mul(0x9e37_79b9))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // The top bits of a multiplicative hash are its best mixed.
    (h >> (64 - REPEAT_SLOTS.trailing_zeros())) as usize
}

/// Starts a call record in `scratch` (at least `CALL_FIXED_SIZE + REPEAT_SCRATCH_BYTES`
/// bytes, 8-byte aligned) and returns where its argument words go, zeroed; or, for a record
/// of more than [`REPEAT_SCRATCH_BYTES`] argument bytes, reserves it in the trace as
/// [`super::mpicheck_begin_slot`] does. Null when not recording.
///
/// # Safety
/// `thread_slot` is the calling thread's slot; `scratch` is as above.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_begin_repeatable(
    func_id: u16,
    nbytes: u32,
    callsite: *const libc::c_void,
    rflags: u8,
    thread_slot: *mut u16,
    scratch: *mut i64,
) -> *mut i64 {
    // The common case (recording, the thread known, the time-stamp counter, a record that
    // fits) calls nothing, so it saves no registers (as `mpicheck_begin_slot`).
    #[cfg(target_arch = "x86_64")]
    if nbytes <= REPEAT_SCRATCH_BYTES {
        if let Some(r) = recorder() {
            let slot = *thread_slot;
            if slot != 0 && r.clock.tsc {
                let now = core::arch::x86_64::_rdtsc();
                return start_in_scratch(scratch, nbytes, func_id, slot - 1, callsite, rflags, now);
            }
        }
    }
    begin_repeatable_cold(func_id, nbytes, callsite, rflags, thread_slot, scratch)
}

/// [`mpicheck_begin_repeatable`] for a record too large for the scratch buffer, before
/// recording starts, for a thread's first record, or with the fallback clock.
#[cold]
#[inline(never)]
unsafe fn begin_repeatable_cold(
    func_id: u16,
    nbytes: u32,
    callsite: *const libc::c_void,
    rflags: u8,
    thread_slot: *mut u16,
    scratch: *mut i64,
) -> *mut i64 {
    if nbytes > REPEAT_SCRATCH_BYTES {
        return super::mpicheck_begin_slot(func_id, nbytes, callsite, rflags, thread_slot);
    }
    let Some(r) = recorder().or_else(start_recording) else {
        return ptr::null_mut();
    };
    let mut slot = *thread_slot;
    if slot == 0 {
        slot = new_thread_index(r) + 1;
        *thread_slot = slot;
    }
    let now = r.clock.now();
    start_in_scratch(scratch, nbytes, func_id, slot - 1, callsite, rflags, now)
}

/// Writes the fixed part of a call record with `nbytes` of argument words into `scratch`
/// and zeroes its argument words; returns where they go.
#[inline(always)]
unsafe fn start_in_scratch(
    scratch: *mut i64,
    nbytes: u32,
    func_id: u16,
    thread: u16,
    callsite: *const libc::c_void,
    rflags: u8,
    now: u64,
) -> *mut i64 {
    let len = call_len(nbytes);
    let s = scratch as *mut u8;
    // Padding between words is never written by the wrapper: zero, as in the file. Volatile
    // stores: a few words, where a call to `memset` would cost more.
    let mut i = CALL_FIXED_SIZE;
    while i < len {
        ptr::write_volatile(s.add(i) as *mut u64, 0);
        i += 8;
    }
    let frame = len as u64 | (kind::CALL as u64) << 32 | (rflags as u64) << 56;
    ptr::write(s as *mut u64, frame);
    ptr::write(s.add(8) as *mut u32, func_id as u32 | (thread as u32) << 16);
    ptr::write(s.add(12) as *mut u32, 0);
    ptr::write(s.add(16) as *mut u64, now);
    ptr::write(s.add(24) as *mut u64, 0);
    ptr::write(s.add(32) as *mut u64, callsite as u64);
    s.add(CALL_FIXED_SIZE) as *mut i64
}

/// Writes the record started in the scratch buffer at `words` into the trace, its input
/// words being the first `in_bytes` bytes of its arguments: as a repeat when the thread's
/// table (`table`, [`REPEAT_SLOTS`] words) holds an original it repeats, else in full (then
/// it becomes the original of its slot). Publishes it as entered and returns the record in
/// the trace, or null when recording stopped.
///
/// # Safety
/// `words` was returned by [`mpicheck_begin_repeatable`] in its scratch buffer, `table` is
/// the calling thread's.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_enter_repeatable(
    words: *mut i64,
    in_bytes: u32,
    table: *mut u64,
) -> *mut u8 {
    let Some(r) = recorder() else {
        return ptr::null_mut();
    };
    let s = (words as *mut u8).sub(CALL_FIXED_SIZE);
    let frame = ptr::read(s as *const u64);
    let len = frame as u32 as usize;
    let rflags = (frame >> 56) as u8;
    let ids = ptr::read(s.add(8) as *const u32);
    let callsite = ptr::read(s.add(32) as *const u64);
    // A multiple of 4 (the words are 4 or 8 bytes), and no more than the arguments.
    let in_bytes = (in_bytes as usize)
        .next_multiple_of(4)
        .min(len - CALL_FIXED_SIZE);
    // Two slots per key (the hash's and its neighbour), so that two call sites of a loop
    // whose hashes collide do not evict each other every turn: the key's own slot, else an
    // empty one, else the one whose original is older.
    let first = slot_of(ids, callsite);
    let (s0, s1) = (table.add(first), table.add(first ^ 1));
    let (e0, e1) = (*s0, *s1);
    let holds_key = |e: u64| {
        e != 0 && {
            let o = r.base.add(e as usize);
            ptr::read(o.add(8) as *const u32) == ids
                && ptr::read(o.add(32) as *const u64) == callsite
        }
    };
    let slot = if holds_key(e0) {
        s0
    } else if holds_key(e1) {
        s1
    } else if e0 == 0 || (e1 != 0 && e0 < e1) {
        s0
    } else {
        s1
    };
    let original = *slot;
    if original != 0 && REPEATS_ON.load(Ordering::Relaxed) {
        let o = r.base.add(original as usize);
        let same = ptr::read(o as *const u32) as usize == len
            && ptr::read(o.add(8) as *const u32) == ids
            && ptr::read(o.add(32) as *const u64) == callsite
            && (ptr::read(o.add(7)) ^ rflags) & flags::FORTRAN == 0
            && same_inputs(o.add(CALL_FIXED_SIZE), s.add(CALL_FIXED_SIZE), in_bytes);
        if same {
            let keep = in_bytes & !7;
            let short = len - keep;
            let last_repeat = table.add(REPEAT_SLOTS);
            // Counted runs (trace format: "Counted runs") while one thread records: the
            // thread's latest repeat, still the trace's last record, repeats this original.
            let mut counted = false;
            if NEXT_THREAD.load(Ordering::SeqCst) <= 1 {
                let end = r.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
                let c_at = *last_repeat;
                let c = r.base.add(c_at as usize);
                let previous_is_run = c_at != 0
                    && ptr::read(c.add(32) as *const u64) == original
                    && c_at + ptr::read(c as *const u32) as u64 == end;
                counted = previous_is_run || original + len as u64 == end;
                if previous_is_run
                    && ptr::read(c as *const u32) as usize == short + COUNT_BYTES
                    && ptr::read(c.add(6)) == record_state::COMPLETE
                    && ptr::read(c.add(7)) & flags::COUNTED != 0
                    && same_inputs(
                        c.add(CALL_FIXED_SIZE),
                        s.add(CALL_FIXED_SIZE + keep),
                        in_bytes - keep,
                    )
                {
                    return fold_enter(c, short + COUNT_BYTES, s);
                }
            }
            let rec = write_repeat(r, s, rflags, original, short, counted, in_bytes - keep);
            if !rec.is_null() {
                *last_repeat = rec as u64 - r.base as u64;
            }
            return rec;
        }
    }
    let Some(rec) = r.reserve(len) else {
        return ptr::null_mut();
    };
    prefetch(rec);
    ptr::write(rec as *mut u64, frame | (flags::ORIGINAL as u64) << 56);
    std::sync::atomic::fence(Ordering::Release);
    // Whole words: the bytes after the inputs in the last one are zero in the scratch buffer.
    copy_words(s.add(8), rec.add(8), CALL_FIXED_SIZE - 8 + in_bytes);
    (*(rec.add(6) as *const AtomicU8)).store(record_state::ENTERED, Ordering::Release);
    *slot = rec as u64 - r.base as u64;
    rec
}

/// Reserves and writes the repeat of `original` whose call is in the scratch buffer `s`:
/// `short` bytes (plus the count words if `counted`): the argument bytes from `keep` (the
/// full length less `short`) on, of which the first `tail_inputs` are inputs. Publishes it as entered; null when recording
/// stopped.
#[inline(always)]
unsafe fn write_repeat(
    r: &Recorder,
    s: *const u8,
    rflags: u8,
    original: u64,
    short: usize,
    counted: bool,
    tail_inputs: usize,
) -> *mut u8 {
    // The scratch buffer's frame holds the full record's length.
    let keep = ptr::read(s as *const u32) as usize - short;
    let (len, rflags) = if counted {
        (short + COUNT_BYTES, rflags | flags::REPEAT | flags::COUNTED)
    } else {
        (short, rflags | flags::REPEAT)
    };
    let Some(rec) = r.reserve(len) else {
        return ptr::null_mut();
    };
    prefetch(rec);
    let rframe = len as u64 | (kind::CALL as u64) << 32 | (rflags as u64) << 56;
    ptr::write(rec as *mut u64, rframe);
    // The frame before any other word (trace format: "Holes").
    std::sync::atomic::fence(Ordering::Release);
    copy_words(s.add(8), rec.add(8), 24);
    ptr::write(rec.add(32) as *mut u64, original);
    // The input bytes in the last word kept, if any (with the zeros of the output bytes
    // after them in the scratch buffer; the outputs come at the end).
    if tail_inputs > 0 {
        copy_words(s.add(CALL_FIXED_SIZE + keep), rec.add(CALL_FIXED_SIZE), 8);
    }
    if counted {
        // Reserved space is zero (trace format: "Holes"); written anyway, as words of their own.
        ptr::write(rec.add(len - 16) as *mut u64, 0);
        ptr::write(rec.add(len - 8) as *mut u64, 0);
    }
    (*(rec.add(6) as *const AtomicU8)).store(record_state::ENTERED, Ordering::Release);
    rec
}

/// Folds the call in the scratch buffer `s` into the counted repeat `c` (`clen` bytes), the
/// trace's last record: its entry time into `last` (the old `last` kept in the scratch
/// buffer's exit-time word, in case the call must be written on its own after all), then the
/// pending bit. Returns `c` tagged with its low bit, for the end of the call.
#[inline(always)]
unsafe fn fold_enter(c: *mut u8, clen: usize, s: *mut u8) -> *mut u8 {
    let last = c.add(clen - 8) as *mut u64;
    ptr::write(s.add(24) as *mut u64, ptr::read(last));
    ptr::write(last, ptr::read(s.add(16) as *const u64));
    let runs = &*(c.add(clen - 16) as *const AtomicU64);
    runs.store(
        runs.load(Ordering::Relaxed) | COUNT_PENDING,
        Ordering::Release,
    );
    (c as usize | 1) as *mut u8
}

/// Whether the `n` bytes (a multiple of 4: every word of a record is 4 or 8 bytes and starts
/// at a multiple of 4) at `a` and `b` are equal. In 4-byte units: the wrapper has just
/// written the scratch buffer's words with stores of 4 and 8 bytes, and a load that spans
/// two of them waits for both to reach the cache (no store-to-load forwarding), where a
/// 4-byte load inside one store is forwarded at once. Not `memcmp`: a call costs more than
/// the few words of a record.
#[inline(always)]
unsafe fn same_inputs(a: *const u8, b: *const u8, n: usize) -> bool {
    let mut i = 0;
    while i < n {
        if ptr::read(a.add(i) as *const u32) != ptr::read(b.add(i) as *const u32) {
            return false;
        }
        i += 4;
    }
    true
}

/// Copies `n` bytes rounded up to a multiple of 4 (both sides 4-byte aligned and that long),
/// in 4-byte units as [`same_inputs`] reads them; not a call to `memcpy`.
#[inline(always)]
unsafe fn copy_words(from: *const u8, to: *mut u8, n: usize) {
    let mut i = 0;
    while i < n {
        ptr::write(to.add(i) as *mut u32, ptr::read(from.add(i) as *const u32));
        i += 4;
    }
}

#[inline(always)]
unsafe fn prefetch(rec: *mut u8) {
    // As `write_call`: the cache line a few records ahead, in exclusive state.
    #[cfg(target_arch = "x86_64")]
    std::arch::asm!(
        "prefetchw [{}]",
        in(reg) rec.wrapping_add(PREFETCH_AHEAD),
        options(nostack, preserves_flags, readonly)
    );
}

/// Copies the output words of a record written through the scratch buffer at `words` into
/// its record `rec` in the trace (full or repeat); `in_bytes` as given to
/// [`mpicheck_enter_repeatable`]. The C header inlines the same.
///
/// # Safety
/// `rec` was returned by [`mpicheck_enter_repeatable`] for `words`.
pub unsafe fn copy_outputs(rec: *mut u8, words: *const i64, in_bytes: u32) {
    let len = ptr::read(rec as *const u32) as usize;
    let keep = in_bytes as usize & !7;
    let from = (words as *const u8).add(keep);
    let rflags = ptr::read(rec.add(7));
    let (to, n) = if rflags & flags::REPEAT != 0 {
        let counted = if rflags & flags::COUNTED != 0 {
            COUNT_BYTES
        } else {
            0
        };
        (rec.add(CALL_FIXED_SIZE), len - CALL_FIXED_SIZE - counted)
    } else {
        (
            rec.add(CALL_FIXED_SIZE + keep),
            len - CALL_FIXED_SIZE - keep,
        )
    };
    copy_words(from, to, n);
}

/// Finishes a record begun with [`mpicheck_begin_repeatable`]: `rec` is what
/// [`mpicheck_enter_repeatable`] returned (or, for a record reserved directly, the record
/// of `words`), null when nothing was recorded; `table` the thread's, as given to it.
///
/// # Safety
/// As [`copy_outputs`].
#[no_mangle]
pub unsafe extern "C" fn mpicheck_end_repeatable(
    rec: *mut u8,
    words: *mut i64,
    in_bytes: u32,
    ret: i32,
    table: *mut u64,
) {
    if rec.is_null() || super::END_MODE.load(Ordering::Relaxed) == super::END_OFF {
        return;
    }
    if rec as usize & 1 != 0 {
        mpicheck_end_folded(rec, words, in_bytes, ret, 0, table);
        return;
    }
    if rec.add(CALL_FIXED_SIZE) as *mut i64 != words {
        copy_outputs(rec, words, in_bytes);
    }
    super::mpicheck_end(rec.add(CALL_FIXED_SIZE) as *mut i64, ret);
}

/// Finishes a call [`mpicheck_enter_repeatable`] folded into the counted repeat `rec` (tagged
/// with its low bit): with the record's return code and output words, and still one thread
/// recording, one more call in `runs` and the pending bit cleared, in one release store;
/// otherwise the call is written as a record of its own after all (see "Counted runs" in
/// `mpicheck_trace`). `instant` as for `mpicheck_end_instant`: the call cannot block.
///
/// # Safety
/// `rec` and `words` as [`mpicheck_enter_repeatable`] returned and took them.
#[no_mangle]
pub unsafe extern "C" fn mpicheck_end_folded(
    rec: *mut u8,
    words: *mut i64,
    in_bytes: u32,
    ret: i32,
    instant: i32,
    table: *mut u64,
) {
    let c = (rec as usize & !1) as *mut u8;
    let Some(r) = recorder() else { return };
    let s = (words as *mut u8).sub(CALL_FIXED_SIZE);
    let clen = ptr::read(c as *const u32) as usize;
    let keep = in_bytes as usize & !7;
    let runs = &*(c.add(clen - COUNT_BYTES) as *const AtomicU64);
    let count = runs.load(Ordering::Relaxed) & !COUNT_PENDING;
    let single = NEXT_THREAD.load(Ordering::SeqCst) <= 1;
    if single
        && ptr::read(c.add(12) as *const i32) == ret
        && same_inputs(
            c.add(CALL_FIXED_SIZE),
            s.add(CALL_FIXED_SIZE + keep),
            clen - COUNT_BYTES - CALL_FIXED_SIZE,
        )
    {
        runs.store(count + 1, Ordering::Release);
        return;
    }
    // Not the same call after all: the run ends as it was, and this call gets its own record.
    ptr::write(
        c.add(clen - 8) as *mut u64,
        ptr::read(s.add(24) as *const u64),
    );
    runs.store(count, Ordering::Release);
    let original = ptr::read(c.add(32) as *const u64);
    let rflags = ptr::read(c.add(7)) & flags::FORTRAN;
    let short = clen - COUNT_BYTES;
    let in_bytes = (in_bytes as usize)
        .next_multiple_of(4)
        .min(short + keep - CALL_FIXED_SIZE);
    // Zero the exit-time word of the scratch buffer again (it held `last`).
    ptr::write(s.add(24) as *mut u64, 0);
    let own = write_repeat(r, s, rflags, original, short, single, in_bytes - keep);
    if own.is_null() {
        return;
    }
    copy_outputs(own, words, keep as u32);
    *table.add(REPEAT_SLOTS) = own as u64 - r.base as u64;
    let args = own.add(CALL_FIXED_SIZE) as *mut i64;
    if instant != 0 && single {
        *own.add(7) |= flags::INSTANT;
        ptr::write(own.add(12) as *mut i32, ret);
        (*(own.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
    } else {
        super::mpicheck_end(args, ret);
    }
}
