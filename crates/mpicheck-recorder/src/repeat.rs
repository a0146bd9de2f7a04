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
//! it on its own if its outputs or return code differ). The table's word after the slots
//! holds the thread's latest repeat.
//!
//! Counted cycles (trace format 7, "Counted cycles" in `mpicheck_trace`): the table also
//! keeps the offsets of the thread's last [`MAX_CYCLE`] records written here (a ring). A call
//! that equals the first of the last 2 to `MAX_CYCLE` of them, all following each other at
//! the end of the trace, reserves a cycle record after them and is counted in it; the next
//! calls are compared with the next member (the table's cursor) and counted while they
//! equal it ([`mpicheck_enter_repeatable`] returns the cycle record tagged with its low bit,
//! as for a counted run, and [`mpicheck_end_folded`] tells the two apart by its kind).
//!
//! Counted calls inline: once a call counted here returns with the record's outputs, the
//! table keeps a copy of it (the run's call, or the cycle's member) as the thread's expected
//! calls (see [`FAST_REC`]), and the C header's `mpicheck_enter_rep` and `mpicheck_end_rep`
//! count the next calls that equal it themselves, with the checks [`run_enter`] and
//! [`cycle_enter`] make, and no call into the recorder; anything else comes here.

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use mpicheck_trace::{
    flags, kind, offset, record_state, CALL_FIXED_SIZE, COUNT_PENDING, CYCLE_LEN, MAX_CYCLE,
};

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
/// Word of the per-thread table after the slots: the offset of the thread's latest repeat
/// record (0 = none), which the thread's next identical call may be counted into.
const LAST_REPEAT: usize = REPEAT_SLOTS;
/// Then: how many records the thread wrote through [`mpicheck_enter_repeatable`], and the
/// offsets of the last [`MAX_CYCLE`] of them (a ring): the members a cycle may count.
const RING_POS: usize = LAST_REPEAT + 1;
const RING: usize = RING_POS + 1;
/// Then: the thread's cycle record that calls may still be counted in (0 = none), and the
/// member the latest call counted in it repeated.
const CYCLE_AT: usize = RING + MAX_CYCLE;
pub(super) const CURSOR: usize = CYCLE_AT + 1;
/// Then the thread's *expected calls*, which the C header compares a call with and counts it
/// inline (`mpicheck_enter_rep` and `mpicheck_end_rep`: no call into the recorder for a
/// counted call). A copy of what the run or cycle being counted will repeat, filled here when
/// a call counted the long way returns ([`arm`]): the counting record's address (0 = none),
/// the address of its `runs` word (`last` follows it in both kinds), the end of the record
/// area while the record is the trace's last, the members (1 for a run), and the member the
/// next call repeats. A cache: every inline count checks what [`run_enter`] or
/// [`cycle_enter`] would (the record is still the last, no call pending, one thread, the
/// same call), and anything else goes the long way.
pub(super) const FAST_REC: usize = CURSOR + 1;
pub(super) const FAST_RUNS: usize = FAST_REC + 1;
pub(super) const FAST_END: usize = FAST_RUNS + 1;
pub(super) const FAST_PERIOD: usize = FAST_END + 1;
pub(super) const FAST_NEXT: usize = FAST_PERIOD + 1;
/// Then per member: the call's scratch frame word (0 = not known yet), its ids word (ids,
/// and 0 where the return code goes), call site, input bytes and return code (`in | ret <<
/// 32`), the member's offset (what [`CURSOR`] holds after it), and its argument bytes.
pub(super) const FAST_MEMBERS: usize = FAST_NEXT + 1;
/// Argument bytes of the largest call kept as an expected call (`MPI_Recv` takes 56,
/// `MPI_Waitall` of two requests with statuses 96 with MPICH); longer calls are counted the
/// long way.
pub const FAST_ARG_BYTES: usize = 128;
pub(super) const MEMBER_WORDS: usize = 5 + FAST_ARG_BYTES / 8;
/// Words of the per-thread table.
pub const REPEAT_TABLE_WORDS: usize = FAST_MEMBERS + MAX_CYCLE * MEMBER_WORDS;

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
                // The entry time is read in `mpicheck_enter_repeatable`, only where the call
                // is written or its count needs it ([`stamp_entry`]).
                return start_in_scratch(scratch, nbytes, func_id, slot - 1, callsite, rflags, 0);
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
    let call = Call::in_scratch((words as *mut u8).sub(CALL_FIXED_SIZE), in_bytes);
    // The common case, a call counted in the thread's run or cycle, in few instructions and
    // registers; the rest out of line.
    if REPEATS_ON.load(Ordering::Relaxed) && NEXT_THREAD.load(Ordering::SeqCst) <= 1 {
        // The thread's cycle first (the call continues it, or it ends).
        if *table.add(CYCLE_AT) != 0 {
            let end = r.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
            if let Some(rec) = cycle_enter(r, &call, table, end) {
                return rec;
            }
        }
        if let Some(rec) = run_enter(r, &call, table) {
            return rec;
        }
    }
    enter_written(r, call.s, in_bytes, table, true)
}

/// [`mpicheck_enter_repeatable`] of a call that is not counted in its thread's run or cycle:
/// written as a repeat when the thread's table holds an original it repeats, else in full,
/// or counted in a new cycle. With `fold` false the call gets a record of its own (a call
/// that was counted at its entry and returned other outputs).
#[inline(never)]
unsafe fn enter_written(
    r: &Recorder,
    s: *mut u8,
    in_bytes: u32,
    table: *mut u64,
    fold: bool,
) -> *mut u8 {
    let call = &Call::in_scratch(s, in_bytes);
    let Call {
        s,
        len,
        ids,
        callsite,
        rflags,
        in_bytes,
    } = *call;
    let frame = ptr::read(s as *const u64);
    let repeats_on = REPEATS_ON.load(Ordering::Relaxed);
    let single = fold && repeats_on && NEXT_THREAD.load(Ordering::SeqCst) <= 1;

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
    if original != 0 && repeats_on {
        let o = r.base.add(original as usize);
        let same = ptr::read(o as *const u32) as usize == len
            && ptr::read(o.add(8) as *const u32) == ids
            && ptr::read(o.add(32) as *const u64) == callsite
            && (ptr::read(o.add(7)) ^ rflags) & flags::FORTRAN == 0
            && same_inputs(o.add(CALL_FIXED_SIZE), s.add(CALL_FIXED_SIZE), in_bytes);
        if same {
            let keep = in_bytes & !7;
            let short = len - keep;
            let last_repeat = table.add(LAST_REPEAT);
            // A repeat written right after its original or another counted repeat of it,
            // while one thread records, gets count words (trace format: "Counted runs").
            let counted = NEXT_THREAD.load(Ordering::SeqCst) <= 1 && {
                let end = r.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
                let c_at = *last_repeat;
                let c = r.base.add(c_at as usize);
                let previous_is_run = c_at != 0
                    && ptr::read(c.add(32) as *const u64) == original
                    && c_at + ptr::read(c as *const u32) as u64 == end;
                previous_is_run || original + len as u64 == end
            };
            if single {
                stamp_entry(r, s);
                if let Some(rec) = cycle_start(r, call, table) {
                    return rec;
                }
            }
            stamp_entry(r, s);
            let rec = write_repeat(r, s, rflags, original, short, counted, in_bytes - keep);
            if !rec.is_null() {
                *last_repeat = rec as u64 - r.base as u64;
                push_recent(table, rec as u64 - r.base as u64);
            }
            return rec;
        }
    }
    stamp_entry(r, s);
    if single {
        if let Some(rec) = cycle_start(r, call, table) {
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
    push_recent(table, rec as u64 - r.base as u64);
    rec
}

/// Counts `call` in the thread's latest repeat if that is a counted repeat (trace format:
/// "Counted runs"), still the trace's last record, complete and with no call inside MPI, of
/// the same function, thread and call site, and `call` has its inputs (those of its
/// original, then of its own argument tail); the record tagged with its low bit then.
#[inline(always)]
unsafe fn run_enter(r: &Recorder, call: &Call, table: *mut u64) -> Option<*mut u8> {
    let c_at = *table.add(LAST_REPEAT);
    if c_at == 0 {
        return None;
    }
    let c = r.base.add(c_at as usize);
    let clen = ptr::read(c as *const u32) as usize;
    let end = r.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
    let counted = flags::REPEAT | flags::COUNTED;
    if c_at + clen as u64 != end
        || ptr::read(c.add(7)) & counted != counted
        || ptr::read(c.add(6)) != record_state::COMPLETE
        || ptr::read(c.add(8) as *const u32) != call.ids
    {
        return None;
    }
    let keep = call.in_bytes & !7;
    let o = r.base.add(ptr::read(c.add(32) as *const u64) as usize);
    let same = clen == call.len - keep + COUNT_BYTES
        && ptr::read(o as *const u32) as usize == call.len
        && ptr::read(o.add(32) as *const u64) == call.callsite
        && (ptr::read(o.add(7)) ^ call.rflags) & flags::FORTRAN == 0
        && same_inputs(o.add(CALL_FIXED_SIZE), call.s.add(CALL_FIXED_SIZE), keep)
        && same_inputs(
            c.add(CALL_FIXED_SIZE),
            call.s.add(CALL_FIXED_SIZE + keep),
            call.in_bytes - keep,
        );
    let runs = &*(c.add(clen - COUNT_BYTES) as *const AtomicU64);
    if !same || runs.load(Ordering::Relaxed) & COUNT_PENDING != 0 {
        return None;
    }
    Some(fold_words(r, runs, c.add(clen - 8) as *mut u64, call.s, c))
}

/// A call in the scratch buffer, as [`mpicheck_enter_repeatable`] compares it.
#[derive(Clone, Copy)]
struct Call {
    s: *mut u8,
    /// Its full record's length, its function and thread ids, call site and record flags.
    len: usize,
    ids: u32,
    callsite: u64,
    rflags: u8,
    /// Bytes of its input words (a multiple of 4).
    in_bytes: usize,
}

impl Call {
    /// The call started in the scratch buffer `s`, whose input words are the first
    /// `in_bytes` bytes of its arguments.
    #[inline(always)]
    unsafe fn in_scratch(s: *mut u8, in_bytes: u32) -> Call {
        let frame = ptr::read(s as *const u64);
        let len = frame as u32 as usize;
        Call {
            s,
            len,
            ids: ptr::read(s.add(8) as *const u32),
            callsite: ptr::read(s.add(32) as *const u64),
            rflags: (frame >> 56) as u8,
            // A multiple of 4 (the words are 4 or 8 bytes), and no more than the arguments.
            in_bytes: (in_bytes as usize)
                .next_multiple_of(4)
                .min(len - CALL_FIXED_SIZE),
        }
    }
}

/// Notes the record at offset `at` as the thread's latest written here (the ring of members).
#[inline(always)]
unsafe fn push_recent(table: *mut u64, at: u64) {
    let pos = *table.add(RING_POS);
    *table.add(RING + pos as usize % MAX_CYCLE) = at;
    *table.add(RING_POS) = pos + 1;
}

/// Whether the record `m` (full or a repeat, as this module writes them) is of the same
/// function, thread and call site as `call`, as long in full, and has its input words.
#[inline(always)]
unsafe fn same_call_inputs(r: &Recorder, m: *const u8, call: &Call) -> bool {
    let mflags = ptr::read(m.add(7));
    if ptr::read(m.add(8) as *const u32) != call.ids || (mflags ^ call.rflags) & flags::FORTRAN != 0
    {
        return false;
    }
    let mlen = ptr::read(m as *const u32) as usize;
    let (s, n) = (call.s.add(CALL_FIXED_SIZE), call.in_bytes);
    if mflags & flags::REPEAT == 0 {
        return mlen == call.len
            && ptr::read(m.add(32) as *const u64) == call.callsite
            && same_inputs(m.add(CALL_FIXED_SIZE), s, n);
    }
    let o = r.base.add(ptr::read(m.add(32) as *const u64) as usize);
    if ptr::read(o as *const u32) as usize != call.len
        || ptr::read(o.add(32) as *const u64) != call.callsite
        || mlen > call.len
    {
        return false;
    }
    let keep = call.len - mlen;
    same_inputs(o.add(CALL_FIXED_SIZE), s, n.min(keep))
        && (n <= keep || same_inputs(m.add(CALL_FIXED_SIZE), s.add(keep), n - keep))
}

/// Counts `call` in the thread's cycle record (trace format: "Counted cycles") if that is
/// still the trace's last record (`end` its end) and the call has the inputs of the cycle's
/// next member; the cycle record tagged with its low bit then. Forgets the cycle otherwise.
#[inline(always)]
unsafe fn cycle_enter(r: &Recorder, call: &Call, table: *mut u64, end: u64) -> Option<*mut u8> {
    let at = *table.add(CYCLE_AT);
    let c = r.base.add(at as usize);
    let runs = &*(c.add(16) as *const AtomicU64);
    if at + CYCLE_LEN as u64 != end || runs.load(Ordering::Relaxed) & COUNT_PENDING != 0 {
        *table.add(CYCLE_AT) = 0;
        return None;
    }
    let cur = *table.add(CURSOR);
    let mut next = cur + ptr::read(r.base.add(cur as usize) as *const u32) as u64;
    if next == at {
        next = at - ptr::read(c.add(12) as *const u32) as u64;
    }
    if !same_call_inputs(r, r.base.add(next as usize), call) {
        *table.add(CYCLE_AT) = 0;
        return None;
    }
    *table.add(CURSOR) = next;
    Some(fold_words(r, runs, c.add(24) as *mut u64, call.s, c))
}

/// Starts a cycle (trace format: "Counted cycles") if `call` has the inputs of the first of
/// the thread's last 2 to [`MAX_CYCLE`] records, which follow each other up to the end of
/// the trace (`end`), and not those of the last one (a run of one call, counted as such):
/// reserves the cycle record, counts the call in it and returns the record tagged.
#[inline(never)]
unsafe fn cycle_start(r: &Recorder, call: &Call, table: *mut u64) -> Option<*mut u8> {
    let end = r.header_u64(offset::RECORDS_END).load(Ordering::Relaxed);
    let pos = *table.add(RING_POS);
    let mut first = end;
    for k in 1..=(MAX_CYCLE as u64).min(pos) {
        let o = *table.add(RING + (pos - k) as usize % MAX_CYCLE);
        let m = r.base.add(o as usize);
        if o == 0
            || o + ptr::read(m as *const u32) as u64 != first
            || ptr::read(m.add(6)) != record_state::COMPLETE
            || ptr::read(m.add(7)) & (flags::POLL | flags::COUNTED) != 0
        {
            return None;
        }
        first = o;
        if same_call_inputs(r, m, call) {
            if k == 1 {
                return None;
            }
            return new_cycle(r, call, table, end, first, k as u16);
        }
    }
    None
}

/// Reserves a cycle record of `period` members from offset `first` to `end`, counting
/// `call`, which enters MPI: see [`cycle_start`].
#[cold]
#[inline(never)]
unsafe fn new_cycle(
    r: &Recorder,
    call: &Call,
    table: *mut u64,
    end: u64,
    first: u64,
    period: u16,
) -> Option<*mut u8> {
    let c = r.reserve(CYCLE_LEN)?;
    let at = c as u64 - r.base as u64;
    if at != end {
        // Another thread reserved a record meanwhile: the cycle would not follow its members.
        let skip =
            CYCLE_LEN as u64 | (kind::SKIP as u64) << 32 | (record_state::COMPLETE as u64) << 48;
        (*(c as *const AtomicU64)).store(skip, Ordering::Release);
        return None;
    }
    ptr::write(c as *mut u64, CYCLE_LEN as u64 | (kind::CYCLE as u64) << 32);
    // The frame before any other word (trace format: "Holes").
    std::sync::atomic::fence(Ordering::Release);
    ptr::write(c.add(8) as *mut u16, period);
    ptr::write(c.add(10) as *mut u16, (call.ids >> 16) as u16);
    ptr::write(c.add(12) as *mut u32, (at - first) as u32);
    ptr::write(c.add(16) as *mut u64, COUNT_PENDING);
    let now = ptr::read(call.s.add(16) as *const u64);
    ptr::write(c.add(24) as *mut u64, now);
    // Kept for a call that returns other outputs (then `last` is restored from it).
    ptr::write(call.s.add(24) as *mut u64, now);
    (*(c.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
    *table.add(CYCLE_AT) = at;
    *table.add(CURSOR) = first;
    Some((c as usize | 1) as *mut u8)
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

/// Folds the call in the scratch buffer `s` into the record `c` (a counted repeat or a cycle
/// record, the trace's last record) whose `runs` and `last` words are given: its entry time
/// into `last` (see [`STAMP_EVERY`]; the old `last` kept in the scratch buffer's exit-time
/// word, in case the call must be written on its own after all), then the pending bit.
/// Returns `c` tagged with its low bit, for the end of the call.
#[inline(always)]
unsafe fn fold_words(
    r: &Recorder,
    runs: &AtomicU64,
    last: *mut u64,
    s: *mut u8,
    c: *mut u8,
) -> *mut u8 {
    let count = runs.load(Ordering::Relaxed);
    ptr::write(s.add(24) as *mut u64, ptr::read(last));
    // `last` is the entry time of one of the last [`STAMP_EVERY`] counted calls: reading the
    // clock for every one would cost more than the rest of counting it.
    if count.is_multiple_of(STAMP_EVERY) || ptr::read(s.add(16) as *const u64) != 0 {
        stamp_entry(r, s);
        ptr::write(last, ptr::read(s.add(16) as *const u64));
    }
    runs.store(count | COUNT_PENDING, Ordering::Release);
    (c as usize | 1) as *mut u8
}

/// A counted call reads the clock for `last` once in this many calls (see [`fold_words`]).
pub(super) const STAMP_EVERY: u64 = 64;

/// Reads the entry time of the call in the scratch buffer `s`, unless it has one.
#[inline(always)]
unsafe fn stamp_entry(r: &Recorder, s: *mut u8) {
    let entry = s.add(16) as *mut u64;
    if ptr::read(entry) == 0 {
        ptr::write(entry, r.clock.now());
    }
}

/// The entry time of a call counted at its entry that must be written on its own after
/// all: the one read then, or (if none was) the latest `last` before it, no later than its
/// entry.
#[inline(always)]
unsafe fn entry_of_uncounted(s: *mut u8) {
    if ptr::read(s.add(16) as *const u64) == 0 {
        ptr::write(s.add(16) as *mut u64, ptr::read(s.add(24) as *const u64));
    }
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
    if rec as usize & 3 != 0 {
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
    // Tagged with its low bit, and bit 1 too when counted inline by the C header.
    let c = (rec as usize & !3) as *mut u8;
    let Some(r) = recorder() else { return };
    let s = (words as *mut u8).sub(CALL_FIXED_SIZE);
    if ptr::read(c.add(4) as *const u16) == kind::CYCLE {
        cycle_end(r, c, s, in_bytes, ret, instant, table);
        return;
    }
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
        arm(r, table, c, s, in_bytes, ret);
        return;
    }
    disarm(table);
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
    entry_of_uncounted(s);
    // Zero the exit-time word of the scratch buffer again (it held `last`).
    ptr::write(s.add(24) as *mut u64, 0);
    let own = write_repeat(r, s, rflags, original, short, single, in_bytes - keep);
    if own.is_null() {
        return;
    }
    copy_outputs(own, words, keep as u32);
    *table.add(LAST_REPEAT) = own as u64 - r.base as u64;
    push_recent(table, own as u64 - r.base as u64);
    finish_own(own, ret, instant != 0 && single);
}

/// Forgets the thread's expected calls (its run or cycle ended).
#[inline(always)]
unsafe fn disarm(table: *mut u64) {
    *table.add(FAST_REC) = 0;
    for k in 0..MAX_CYCLE {
        *table.add(FAST_MEMBERS + k * MEMBER_WORDS) = 0;
    }
}

/// A call counted the long way in the record `c` (a counted repeat, or a cycle record whose
/// member at [`CURSOR`] it repeated) returned with the record's outputs and return code
/// `ret`: keeps the call, whole in the scratch buffer `s` now (`in_bytes` of inputs, then
/// outputs), as that member of the thread's expected calls, so that the next calls that
/// repeat it are counted inline by the C header (see [`FAST_REC`]). Only where the header
/// counts inline: with the time-stamp counter, on x86_64.
#[cold]
#[inline(never)]
unsafe fn arm(r: &Recorder, table: *mut u64, c: *mut u8, s: *const u8, in_bytes: u32, ret: i32) {
    let at = c as u64 - r.base as u64;
    let clen = ptr::read(c as *const u32) as usize;
    let (runs, period, index) = if ptr::read(c.add(4) as *const u16) == kind::CYCLE {
        let period = ptr::read(c.add(8) as *const u16) as usize;
        // Which member the call repeated: its index from the cycle's first record.
        let cursor = *table.add(CURSOR);
        let mut member = at - ptr::read(c.add(12) as *const u32) as u64;
        let mut index = 0;
        while member != cursor && index < period {
            member += ptr::read(r.base.add(member as usize) as *const u32) as u64;
            index += 1;
        }
        (c.add(16), period, index)
    } else {
        (c.add(clen - COUNT_BYTES), 1, 0)
    };
    let len = ptr::read(s as *const u32) as usize;
    if !cfg!(target_arch = "x86_64")
        || !r.clock.tsc
        || len - CALL_FIXED_SIZE > FAST_ARG_BYTES
        || index >= period
        || period > MAX_CYCLE
    {
        disarm(table);
        return;
    }
    if *table.add(FAST_REC) != c as u64 {
        disarm(table);
        *table.add(FAST_REC) = c as u64;
        *table.add(FAST_RUNS) = runs as u64;
        *table.add(FAST_END) = at + clen as u64;
        *table.add(FAST_PERIOD) = period as u64;
    }
    let m = table.add(FAST_MEMBERS + index * MEMBER_WORDS);
    *m.add(1) = ptr::read(s.add(8) as *const u32) as u64;
    *m.add(2) = ptr::read(s.add(32) as *const u64);
    *m.add(3) = in_bytes as u64 | (ret as u32 as u64) << 32;
    // The member's offset, for a cycle (a run's is not used).
    *m.add(4) = *table.add(CURSOR);
    ptr::copy_nonoverlapping(
        s.add(CALL_FIXED_SIZE),
        m.add(5) as *mut u8,
        len - CALL_FIXED_SIZE,
    );
    // The frame last: it is what says the member is known.
    *m = ptr::read(s as *const u64);
    *table.add(FAST_NEXT) = ((index + 1) % period) as u64;
}

/// Completes the record `own` of a call that was counted at its entry but not at its end.
#[inline(always)]
unsafe fn finish_own(own: *mut u8, ret: i32, instant: bool) {
    if instant {
        *own.add(7) |= flags::INSTANT;
        ptr::write(own.add(12) as *mut i32, ret);
        (*(own.add(6) as *const AtomicU8)).store(record_state::COMPLETE, Ordering::Release);
    } else {
        super::mpicheck_end(own.add(CALL_FIXED_SIZE) as *mut i64, ret);
    }
}

/// The end of a call counted in the cycle record `c` at its entry (see "Counted cycles" in
/// `mpicheck_trace`): with the member's outputs and return code, and still one thread
/// recording, one more call in `runs` and the pending bit cleared in one release store;
/// otherwise the cycle ends as it was and the call gets a record of its own.
#[inline(always)]
unsafe fn cycle_end(
    r: &Recorder,
    c: *mut u8,
    s: *mut u8,
    in_bytes: u32,
    ret: i32,
    instant: i32,
    table: *mut u64,
) {
    let runs = &*(c.add(16) as *const AtomicU64);
    let count = runs.load(Ordering::Relaxed) & !COUNT_PENDING;
    let single = NEXT_THREAD.load(Ordering::SeqCst) <= 1;
    let m = r.base.add(*table.add(CURSOR) as usize);
    let mlen = ptr::read(m as *const u32) as usize;
    let keep = ptr::read(s as *const u32) as usize - mlen;
    if single
        && ptr::read(m.add(12) as *const i32) == ret
        && same_inputs(
            m.add(CALL_FIXED_SIZE),
            s.add(CALL_FIXED_SIZE + keep),
            mlen - CALL_FIXED_SIZE,
        )
    {
        runs.store(count + 1, Ordering::Release);
        arm(r, table, c, s, in_bytes, ret);
        return;
    }
    disarm(table);
    // Not the member's call after all: the cycle ends as it was.
    ptr::write(c.add(24) as *mut u64, ptr::read(s.add(24) as *const u64));
    runs.store(count, Ordering::Release);
    *table.add(CYCLE_AT) = 0;
    entry_of_uncounted(s);
    ptr::write(s.add(24) as *mut u64, 0);
    let own = enter_written(r, s, in_bytes, table, false);
    if own.is_null() {
        return;
    }
    copy_outputs(own, s.add(CALL_FIXED_SIZE) as *const i64, in_bytes);
    finish_own(own, ret, instant != 0 && single);
}
