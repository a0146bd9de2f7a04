/* The C interface of mpicheck's trace recorder (implemented in Rust, crate mpicheck-recorder).
 *
 * The generated MPI wrappers call these functions; the record layout they fill is documented
 * in crate mpicheck-trace (src/lib.rs and src/schema.rs).
 *
 * Protocol for one recorded call (only in the outermost MPI entry point of a thread; nested
 * calls, e.g. a Fortran binding calling the C binding, are forwarded without recording):
 *
 *     int64_t *w = mpicheck_begin(FUNC_ID, nwords, __builtin_return_address(0), flags);
 *     if (w) { fill the input words; mpicheck_entered(w); }
 *     ret = PMPI_...(...);
 *     if (w) { fill the output words; mpicheck_end(w, ret); }
 *
 * mpicheck_begin returns NULL when recording is off (no output directory, or the trace could
 * not grow); the wrapper then only forwards. It never blocks on another thread for long and
 * never calls MPI. */
#ifndef MPICHECK_RECORDER_H
#define MPICHECK_RECORDER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything here is defined in the same shared library (the recorder is linked into each
 * interposition library): hidden, so the wrappers call it directly, not through the PLT. */
#pragma GCC visibility push(hidden)

/* Record flags (trace format: mpicheck_trace::flags). */
#define MPICHECK_FLAG_FORTRAN 1

/* Text record subkinds (trace format: mpicheck_trace::text). */
#define MPICHECK_TEXT_SCHEMA 1
#define MPICHECK_TEXT_CONSTANTS 2
#define MPICHECK_TEXT_PROC_MAPS 3
#define MPICHECK_TEXT_PROCESS 4

/* Keeps the function table and the constants for the trace, which the process's first MPI
 * call (the first mpicheck_begin) opens in $MPICHECK_OUT_DIR, if set; `on_start` (may be NULL)
 * is called right after, from that call. Called once, from the interposition library's
 * constructor. `family` is "mpich", "openmpi" or "abi". Later calls do nothing. Processes
 * that never call MPI (a shell the program starts) leave no trace. */
void mpicheck_prepare(const char *family, const char *schema, const char *constants,
                      void (*on_start)(void));

/* Reserves a call record with room for `nwords` 8-byte argument words and returns a pointer
 * to the words, or NULL when not recording. Opens the trace at the process's first call. */
int64_t *mpicheck_begin(uint16_t func_id, uint32_t nwords, const void *callsite, uint8_t flags);

/* Reserves a call record with room for `nbytes` bytes of argument words (trace format 4:
 * each scalar takes the size of its C type, 4 or 8 bytes; arrays and statuses are 8-byte
 * words starting at a multiple of 8; the recorder pads the record to a multiple of 8), with
 * the calling thread's index kept in `*thread_slot` (index + 1, 0 until assigned by the
 * recorder). */
int64_t *mpicheck_begin_slot(uint16_t func_id, uint32_t nbytes, const void *callsite, uint8_t flags,
                             uint16_t *thread_slot);

/* mpicheck_begin_slot for records that are not MPI calls (synchronization between threads):
 * NULL until an MPI call opened the trace. */
int64_t *mpicheck_begin_recording_slot(uint16_t func_id, uint32_t nbytes, const void *callsite,
                                       uint8_t flags, uint16_t *thread_slot);

/* The input words are written: publish the record as entered. */
void mpicheck_entered(int64_t *words);

/* The call returned `ret` and the output words are written: publish the record as complete. */
void mpicheck_end(int64_t *words, int ret);

/* mpicheck_end for a poll (MPI_Test*, MPI_Iprobe, ...), reserved with 2 more words than its
 * arguments and the flag MPICHECK_FLAG_POLL: an unsuccessful poll identical to the thread's
 * previous record is folded into it (trace format: "Folded polls"). */
void mpicheck_end_poll(int64_t *words, int ret, int unsuccessful);
#define MPICHECK_FLAG_POLL 2
#define MPICHECK_POLL_FOLD_WORDS 2

/* MPI_Init* returned: the world rank and size, and the thread level provided (-1 if n/a). */
void mpicheck_initialized(int rank, int size, int thread_level);

/* MPI begins to abort the job inside the calling thread's MPI call (c/abort.c);
 * thread_slot is its mpicheck_thread_slot. Async-signal-safe. */
void mpicheck_aborting_in_call(uint16_t thread_slot);
/* A thread that calls MPI read the clock outside MPI (c/clock.c). */
void mpicheck_note_clock_read(void);

/* MPI_Finalize returned. */
void mpicheck_finalized(void);

/* Appends a text record (e.g. /proc/self/maps after MPI_Init loaded more libraries). */
void mpicheck_text(uint32_t subkind, const char *text);

/* Per-thread nesting depth of MPI entry points; the wrappers record only at depth 0.
 * Defined in the generated C code (initial-exec TLS: a plain load on the hot path). */
extern __thread int mpicheck_depth __attribute__((tls_model("initial-exec")));

/* Per-thread slot of mpicheck_begin_slot, defined beside mpicheck_depth. In the interposition
 * library, mpicheck_begin goes through it: a Rust thread_local in a shared library costs a
 * call to __tls_get_addr on every record, initial-exec TLS a plain load. */
extern __thread uint16_t mpicheck_thread_slot __attribute__((tls_model("initial-exec")));
#define mpicheck_begin(func_id, nwords, callsite, flags) \
    mpicheck_begin_slot((func_id), 8u * (uint32_t)(nwords), (callsite), (flags), &mpicheck_thread_slot)
#define mpicheck_begin_recording(func_id, nwords, callsite, flags) \
    mpicheck_begin_recording_slot((func_id), 8u * (uint32_t)(nwords), (callsite), (flags), \
                                  &mpicheck_thread_slot)
/* mpicheck_begin with the size of the argument words in bytes (the generated wrappers). */
#define mpicheck_begin_bytes(func_id, nbytes, callsite, flags) \
    mpicheck_begin_slot((func_id), (nbytes), (callsite), (flags), &mpicheck_thread_slot)

/* mpicheck_entered inline: the release store of the record state ENTERED (1) into byte 6 of
 * the record, whose argument words start 40 bytes in (trace format versions 2 to 4; the
 * interposition tests read every record back, so a layout change that forgets this fails
 * them). Saves a call per record. */
#define MPICHECK_CALL_FIXED_SIZE 40
#define mpicheck_entered(words) \
    __atomic_store_n((uint8_t *)(words) - MPICHECK_CALL_FIXED_SIZE + 6, (uint8_t)1, __ATOMIC_RELEASE)

/* How the inline mpicheck_end below finishes a record: 0 = not at all (a child forked after
 * recording started must not write into the parent's trace), 1 = exit time from the CPU's
 * time-stamp counter (read inline), 2 = exit time from mpicheck_clock_now. Set before the
 * first record is reserved. Hidden: a PC-relative load, no GOT. */
extern uint8_t mpicheck_end_mode __attribute__((visibility("hidden")));
uint64_t mpicheck_clock_now(void);

/* mpicheck_end inline (the function of the same name does the same for callers without this
 * header): the exit time at byte 24, the return code at 12, then the release store of the
 * state COMPLETE (2) into byte 6. Saves a call and the recorder lookup per record. */
static inline __attribute__((always_inline)) void mpicheck_end_inline(int64_t *words, int ret)
{
    uint8_t *rec = (uint8_t *)words - MPICHECK_CALL_FIXED_SIZE;
    uint8_t mode = mpicheck_end_mode;
    uint64_t now;
    if (__builtin_expect(mode == 0, 0)) return;
#if defined(__x86_64__)
    if (__builtin_expect(mode == 1, 1))
        now = __builtin_ia32_rdtsc();
    else
#endif
        now = mpicheck_clock_now();
    __builtin_memcpy(rec + 24, &now, 8);
    __builtin_memcpy(rec + 12, &ret, 4);
    __atomic_store_n(rec + 6, (uint8_t)2, __ATOMIC_RELEASE);
}
#define mpicheck_end(words, ret) mpicheck_end_inline((words), (ret))

/* Threads that recorded anything so far (the recorder numbers them at their first record). */
extern uint16_t mpicheck_recording_threads __attribute__((visibility("hidden")));
#define MPICHECK_FLAG_INSTANT 4

/* mpicheck_end for a call that cannot block (MPI_Isend, MPI_Type_commit, ...; the generator
 * says which): while the process records from one thread, no exit time is read and the
 * record gets the INSTANT flag (trace format version 3: the reader takes the entry time).
 * With more threads, the exit time says which calls of different threads overlapped; a
 * thread's first record counts it before it reads its entry time, so a call that returned
 * after another thread's call entered sees two threads here. */
static inline __attribute__((always_inline)) void mpicheck_end_instant(int64_t *words, int ret)
{
    uint8_t *rec = (uint8_t *)words - MPICHECK_CALL_FIXED_SIZE;
    if (__builtin_expect(mpicheck_end_mode == 0, 0)) return;
    if (__atomic_load_n(&mpicheck_recording_threads, __ATOMIC_SEQ_CST) > 1) {
        mpicheck_end_inline(words, ret);
        return;
    }
    rec[7] |= MPICHECK_FLAG_INSTANT;
    __builtin_memcpy(rec + 12, &ret, 4);
    __atomic_store_n(rec + 6, (uint8_t)2, __ATOMIC_RELEASE);
}

/* Repeat records (trace format 5: "Repeated calls"). A wrapper whose record has every input
 * word before its first output word writes it into a scratch buffer on its stack:
 *
 *     int64_t s[MPICHECK_SCRATCH_WORDS];
 *     int64_t *w = mpicheck_begin_repeatable_bytes(FUNC_ID, nbytes, site, flags, s);
 *     if (w) { fill the input words; keep the output slots; in = bytes before the first output;
 *              r = mpicheck_enter_rep(w, s, in); }
 *     ret = PMPI_...(...);
 *     if (w) { fill the output words; mpicheck_end_rep(r, w, in, nbytes, ret, instant); }
 *
 * mpicheck_enter_rep writes the record into the trace, as a short repeat when its inputs
 * equal those of the thread's latest full record of the same function and call site (found
 * through mpicheck_repeat_table), and mpicheck_end_rep copies the outputs there. While the
 * process records from one thread, a call that repeats the thread's latest repeat, which is
 * still the trace's last record, reserves nothing: it is counted in that record (trace format
 * 6: "Counted runs"; mpicheck_enter_rep returns the record with its low bit set), and a call
 * that continues a cycle of 2 to 4 calls the thread's last records made is counted in a cycle
 * record after them (trace format 7: "Counted cycles"; returned tagged the same way). A record of
 * more than MPICHECK_REPEAT_SCRATCH_BYTES argument bytes is reserved in the trace directly
 * (w is then not in s) and never repeated. */
#define MPICHECK_FLAG_REPEAT 8
#define MPICHECK_FLAG_COUNTED 32
#define MPICHECK_COUNT_WORDS 2
#define MPICHECK_REPEAT_SCRATCH_BYTES 640
#define MPICHECK_REPEAT_SLOTS 256
#define MPICHECK_SCRATCH_WORDS ((MPICHECK_CALL_FIXED_SIZE + MPICHECK_REPEAT_SCRATCH_BYTES) / 8)
int64_t *mpicheck_begin_repeatable(uint16_t func_id, uint32_t nbytes, const void *callsite,
                                   uint8_t flags, uint16_t *thread_slot, int64_t *scratch);
uint8_t *mpicheck_enter_repeatable(int64_t *words, uint32_t in_bytes, uint64_t *table);
/* Per-thread originals of repeats (offsets in the trace), then the offset of the thread's
 * latest repeat (trace format 6: "Counted runs"), then the ring of its last records and its
 * cycle record with the cursor in it (trace format 7: "Counted cycles"), then its expected
 * calls (below; layout in the recorder's repeat.rs); defined beside mpicheck_depth. */
#define MPICHECK_REPEAT_TABLE_WORDS (MPICHECK_REPEAT_SLOTS + 97)
extern __thread uint64_t mpicheck_repeat_table[MPICHECK_REPEAT_TABLE_WORDS]
    __attribute__((tls_model("initial-exec")));
/* The end of a call mpicheck_enter_repeatable folded into the thread's counted repeat (it
 * returned that record with its low bit set): counted if it returned the same outputs and
 * return code, else written as a record of its own. */
void mpicheck_end_folded(uint8_t *rec, int64_t *words, uint32_t in_bytes, int ret, int instant,
                         uint64_t *table);

/* Whether the process records (the recorder's state): 2 = not, for good (no output
 * directory, the trace could not be made, a forked child). */
extern uint8_t mpicheck_recording __attribute__((visibility("hidden")));
#define MPICHECK_RECORDING_OFF 2
#define MPICHECK_KIND_CALL 1

/* 16 bytes of the scratch buffer or the table, 8-byte aligned (a vector of two words). */
typedef uint64_t mpicheck_v2 __attribute__((vector_size(16), aligned(8)));

/* mpicheck_begin_repeatable inline for the common case (the time-stamp counter, the thread
 * numbered, a record that fits the scratch buffer): the record's fixed part in the scratch
 * buffer, its argument words zeroed; no clock read (the recorder reads the entry time where
 * the call is written). Not recording: NULL without a call. Otherwise the function. */
static inline __attribute__((always_inline)) int64_t *mpicheck_begin_rep_inline(
    uint16_t func_id, uint32_t nbytes, const void *callsite, uint8_t flags, int64_t *scratch)
{
    uint16_t slot = mpicheck_thread_slot;
    if (__builtin_expect(mpicheck_end_mode == 1 && slot != 0 && nbytes <= MPICHECK_REPEAT_SCRATCH_BYTES, 1)) {
        uint32_t len = MPICHECK_CALL_FIXED_SIZE + (nbytes + 7) / 8 * 8;
        /* Padding between words is never written by the wrapper: zero, as in the file. A
         * length known at compile time (records without arrays) is a few vector stores; one
         * known only at run time (MPI_Waitall's) up to 128 bytes is 128 bytes' worth of them
         * (the bytes after the record are never read); otherwise a loop of stores, not a call
         * to memset. */
        if (__builtin_constant_p(len))
            __builtin_memset(scratch + MPICHECK_CALL_FIXED_SIZE / 8, 0, len - MPICHECK_CALL_FIXED_SIZE);
        else if (len <= MPICHECK_CALL_FIXED_SIZE + 128)
            __builtin_memset(scratch + MPICHECK_CALL_FIXED_SIZE / 8, 0, 128);
        else {
            /* 16 bytes per store (volatile: GCC would make the loop a call to memset). */
            const mpicheck_v2 zero = {0, 0};
            uint32_t i = MPICHECK_CALL_FIXED_SIZE / 8;
            for (; i + 2 <= len / 8; i += 2) *(volatile mpicheck_v2 *)(scratch + i) = zero;
            if (i < len / 8) ((volatile int64_t *)scratch)[i] = 0;
        }
        scratch[0] = (int64_t)((uint64_t)len | (uint64_t)MPICHECK_KIND_CALL << 32 | (uint64_t)flags << 56);
        scratch[1] = (int64_t)((uint32_t)func_id | (uint32_t)(slot - 1) << 16); /* return code 0 */
        scratch[2] = 0;                                                          /* entry time */
        scratch[3] = 0;                                                          /* exit time */
        scratch[4] = (int64_t)(intptr_t)callsite;
        return scratch + MPICHECK_CALL_FIXED_SIZE / 8;
    }
    if (__builtin_expect(__atomic_load_n(&mpicheck_recording, __ATOMIC_RELAXED) == MPICHECK_RECORDING_OFF, 0))
        return NULL;
    return mpicheck_begin_repeatable(func_id, nbytes, callsite, flags, &mpicheck_thread_slot, scratch);
}
#define mpicheck_begin_repeatable_bytes(func_id, nbytes, callsite, flags, scratch) \
    mpicheck_begin_rep_inline((func_id), (nbytes), (callsite), (flags), (scratch))

/* Counted calls inline. The recorder keeps in the thread's table a copy of the calls its
 * counted run or cycle repeats (its "expected calls", words from MPICHECK_FAST_REC, filled
 * when a call counted by the recorder returns): the counting record, the address of its
 * `runs` word (`last` follows it), the end of the record area while that record is the
 * trace's last, the members (1 for a run) and the member the next call repeats; per member
 * its scratch frame word (0 = not known), ids word, call site, input bytes | return code <<
 * 32, offset (the recorder's cursor), and argument bytes. A call equal to the next member
 * while the record is still the trace's last, no counted call is pending and one thread
 * records, is counted here as the recorder would count it (trace format 6 and 7: `last`
 * every 64th call, the pending bit set with a release store before MPI is called), and
 * tagged with bits 0 and 1; when it returns with the member's outputs and return code, `runs`
 * gets one more and the pending bit cleared in one release store. Anything else goes
 * through the recorder. */
#define MPICHECK_FAST_REC (MPICHECK_REPEAT_SLOTS + 8)
#define MPICHECK_FAST_RUNS (MPICHECK_FAST_REC + 1)
#define MPICHECK_FAST_END (MPICHECK_FAST_REC + 2)
#define MPICHECK_FAST_PERIOD (MPICHECK_FAST_REC + 3)
#define MPICHECK_FAST_NEXT (MPICHECK_FAST_REC + 4)
#define MPICHECK_FAST_MEMBERS (MPICHECK_FAST_REC + 5)
#define MPICHECK_FAST_MEMBER_WORDS 21
#define MPICHECK_CURSOR (MPICHECK_REPEAT_SLOTS + 7)
#define MPICHECK_COUNT_PENDING ((uint64_t)1 << 63)
#define MPICHECK_STAMP_EVERY 64
extern uint64_t *mpicheck_records_end __attribute__((visibility("hidden")));

/* Whether the n bytes (a multiple of 4) at a and b are equal, without a branch per word:
 * 16 bytes per turn, then 8 and 4. For a constant n (records without arrays) a few loads
 * without a loop; a length known only at run time (MPI_Waitall's) no longer costs a turn of
 * ~7 instructions per 4 bytes. The 16-byte loads may span two of the wrapper's stores into
 * the scratch buffer (a load not forwarded from the stores waits for them): GCC merged the
 * earlier 4-byte loop into such loads for a constant n too, and keeping 4-byte loads (an
 * empty asm in the loop) cost 35 more instructions per MPI_Send and no time measurable here
 * (BENCHMARKS.md). */
static inline __attribute__((always_inline)) int mpicheck_same_bytes(const void *a, const void *b, uint32_t n)
{
    mpicheck_v2 acc = {0, 0};
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        mpicheck_v2 x, y;
        __builtin_memcpy(&x, (const uint8_t *)a + i, 16);
        __builtin_memcpy(&y, (const uint8_t *)b + i, 16);
        acc |= x ^ y;
    }
    uint64_t diff = acc[0] | acc[1];
    if (n - i >= 8) {
        uint64_t x, y;
        __builtin_memcpy(&x, (const uint8_t *)a + i, 8);
        __builtin_memcpy(&y, (const uint8_t *)b + i, 8);
        diff |= x ^ y;
        i += 8;
    }
    if (n - i >= 4) {
        uint32_t x, y;
        __builtin_memcpy(&x, (const uint8_t *)a + i, 4);
        __builtin_memcpy(&y, (const uint8_t *)b + i, 4);
        diff |= x ^ y;
    }
    return diff == 0;
}

static inline __attribute__((always_inline)) uint8_t *mpicheck_enter_rep(int64_t *w, int64_t *scratch,
                                                                        uint32_t in_bytes)
{
    if (w != scratch + MPICHECK_CALL_FIXED_SIZE / 8) { /* reserved directly */
        mpicheck_entered(w);
        return (uint8_t *)w - MPICHECK_CALL_FIXED_SIZE;
    }
    uint64_t *t = mpicheck_repeat_table;
#if defined(__x86_64__)
    const uint64_t *m = t + MPICHECK_FAST_MEMBERS + t[MPICHECK_FAST_NEXT] * MPICHECK_FAST_MEMBER_WORDS;
    const uint64_t *s = (const uint64_t *)scratch;
    if (m[0] == s[0] && m[1] == s[1] && m[2] == s[4] && (uint32_t)m[3] == in_bytes &&
        __atomic_load_n(&mpicheck_recording_threads, __ATOMIC_SEQ_CST) <= 1 &&
        __atomic_load_n(mpicheck_records_end, __ATOMIC_RELAXED) == t[MPICHECK_FAST_END]) {
        uint64_t *runs = (uint64_t *)t[MPICHECK_FAST_RUNS];
        uint64_t count = __atomic_load_n(runs, __ATOMIC_RELAXED);
        if (!(count & MPICHECK_COUNT_PENDING) && mpicheck_same_bytes(m + 5, s + 5, in_bytes)) {
            /* The old `last` in the scratch exit-time word, in case the call returns other
             * outputs and must be written on its own after all. */
            scratch[3] = (int64_t)runs[1];
            if (count % MPICHECK_STAMP_EVERY == 0 || scratch[2] != 0) {
                if (scratch[2] == 0) scratch[2] = (int64_t)__builtin_ia32_rdtsc();
                runs[1] = (uint64_t)scratch[2];
            }
            __atomic_store_n(runs, count | MPICHECK_COUNT_PENDING, __ATOMIC_RELEASE);
            t[MPICHECK_CURSOR] = m[4];
            return (uint8_t *)(uintptr_t)(t[MPICHECK_FAST_REC] | 3);
        }
    }
#endif
    return mpicheck_enter_repeatable(w, in_bytes, t);
}

/* The outputs from the scratch buffer into the record rec (full, or a repeat holding the
 * argument bytes from the last multiple of 8 at or below in_bytes on, before its count words
 * if counted), then mpicheck_end_instant or mpicheck_end; or, for a call counted inline
 * (tagged 3), its count (above); or, for a call folded by the recorder (tagged 1),
 * mpicheck_end_folded. rec is NULL when nothing was recorded. */
static inline __attribute__((always_inline)) void mpicheck_end_rep(uint8_t *rec, int64_t *w, uint32_t in_bytes,
                                                                  uint32_t nbytes, int ret, int instant)
{
    if (__builtin_expect(rec == NULL || mpicheck_end_mode == 0, 0)) return;
    if ((uintptr_t)rec & 1) { /* counted */
        uint64_t *t = mpicheck_repeat_table;
        if ((uintptr_t)rec & 2) { /* inline: against the member it was compared with */
            const uint64_t *m = t + MPICHECK_FAST_MEMBERS + t[MPICHECK_FAST_NEXT] * MPICHECK_FAST_MEMBER_WORDS;
            /* The record's length from the wrapper's argument bytes (a constant for records
             * without arrays: the outputs compared without a loop), the member's the same. */
            uint32_t len = MPICHECK_CALL_FIXED_SIZE + (nbytes + 7) / 8 * 8;
            if ((uint32_t)m[0] == len && t[MPICHECK_FAST_REC] == ((uintptr_t)rec & ~(uintptr_t)3) &&
                __atomic_load_n(&mpicheck_recording_threads, __ATOMIC_SEQ_CST) <= 1 &&
                (int32_t)(m[3] >> 32) == ret &&
                mpicheck_same_bytes((const uint8_t *)(m + 5) + in_bytes, (const uint8_t *)w + in_bytes,
                                    len - MPICHECK_CALL_FIXED_SIZE - in_bytes)) {
                uint64_t *runs = (uint64_t *)t[MPICHECK_FAST_RUNS];
                uint64_t count = __atomic_load_n(runs, __ATOMIC_RELAXED) & ~MPICHECK_COUNT_PENDING;
                __atomic_store_n(runs, count + 1, __ATOMIC_RELEASE);
                uint64_t next = t[MPICHECK_FAST_NEXT] + 1;
                t[MPICHECK_FAST_NEXT] = next == t[MPICHECK_FAST_PERIOD] ? 0 : next;
                return;
            }
        }
        mpicheck_end_folded(rec, w, in_bytes, ret, instant, t);
        return;
    }
    uint8_t *args = rec + MPICHECK_CALL_FIXED_SIZE;
    if ((uint8_t *)w != args) {
        uint32_t len, keep = in_bytes & ~7u, n;
        __builtin_memcpy(&len, rec, 4);
        const uint8_t *from = (const uint8_t *)w + keep;
        uint8_t *to;
        if (rec[7] & MPICHECK_FLAG_REPEAT) {
            to = args;
            n = len - MPICHECK_CALL_FIXED_SIZE;
            if (rec[7] & MPICHECK_FLAG_COUNTED) n -= 8 * MPICHECK_COUNT_WORDS;
        } else {
            to = args + keep;
            n = len - MPICHECK_CALL_FIXED_SIZE - keep;
        }
        /* 4-byte units: the scratch words were just written by stores of 4 and 8 bytes, and
         * a load spanning two stores is not forwarded from them (it waits). */
        for (uint32_t i = 0; i < n; i += 4) __builtin_memcpy(to + i, from + i, 4);
    }
    if (instant)
        mpicheck_end_instant((int64_t *)args, ret);
    else
        mpicheck_end_inline((int64_t *)args, ret);
}

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
