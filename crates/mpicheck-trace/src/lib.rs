//! The per-rank trace format written by the interposition library and read by the analyzer.
//!
//! # Layout (format version 7)
//!
//! One file per process, `trace-<pid>.mpitrace`, in the output directory. All integers are
//! little-endian. The file is written through a shared memory mapping, so everything a process
//! recorded is in the kernel's page cache the moment it is written and survives `SIGKILL`, a
//! segfault or `MPI_Abort`; the file is grown in chunks, so a trace cut short ends in zero
//! bytes, which the reader treats as the end.
//!
//! ## Header (the first [`HEADER_SIZE`] bytes)
//!
//! | offset | type      | field                                                                 |
//! |-------:|-----------|-----------------------------------------------------------------------|
//! | 0      | `[u8; 8]` | magic `MPICHKTR`                                                      |
//! | 8      | `u32`     | format version ([`FORMAT_VERSION`])                                   |
//! | 12     | `u32`     | header size ([`HEADER_SIZE`])                                         |
//! | 16     | `u32`     | process id                                                            |
//! | 20     | `i32`     | rank announced by the launcher's environment, -1 if none              |
//! | 24     | `i32`     | world rank, set when `MPI_Init*` returns; -1 before                  |
//! | 28     | `i32`     | world size, set when `MPI_Init*` returns; -1 before                  |
//! | 32     | `u32`     | state flags ([`state`])                                               |
//! | 36     | `i32`     | thread level provided, -1 before init                                 |
//! | 40     | `u64`     | end of the reserved record area (bytes from file start)               |
//! | 48     | `u64`     | records dropped because the file could not grow                       |
//! | 56     | `u64`     | start time, nanoseconds since the Unix epoch                          |
//! | 64     | `[u8;32]` | MPI family, NUL-padded (`mpich`, `openmpi`, `abi`)                   |
//! | 96     | `u32`     | clock of the call times ([`clock`])                                   |
//! | 100    | `u32`     | which calibration slot (0 or 1) holds the latest pair                 |
//! | 104    | `u64`     | clock reading at the trace start                                      |
//! | 112    | `u64`     | `CLOCK_MONOTONIC` nanoseconds at the trace start                      |
//! | 120    | `u64;2`   | calibration slot 0: a clock reading and `CLOCK_MONOTONIC` ns, taken together |
//! | 136    | `u64;2`   | calibration slot 1, likewise                                          |
//! | 152    | `u64`     | process start time, clock ticks since boot (`/proc/self/stat` field 22); 0 if unknown |
//! | 160    | `u64`     | end of the record area when the exit handlers ran; 0 before           |
//! | 168    | `u32`     | parent process id                                                     |
//! | 172    | `u32`     | index + 1 of the thread inside whose MPI call MPI aborted the job ([`state::ABORTED_IN_CALL`]); 0 if none |
//! | 176    | `u32`     | clock reads outside MPI ([`offset::CLOCK_READS`])                     |
//! | 184    | `u64;2`   | records released from, to ([`offset::RELEASED_FROM`]); 0, 0 if none  |
//! | 512    | `u32;896` | kernel thread id of each thread index (0 = not yet), [`MAX_THREAD_TIDS`] |
//!
//! The fields from offset 152 on were added without a version change: a writer that predates
//! them left zeros there, which readers take as unknown.
//!
//! A trace is created by a process's first MPI call, not when the interposition library is
//! loaded: helper processes a rank starts (`system()`, `popen()`, a fork) that never call MPI
//! leave no trace. A forked child never writes into its parent's trace. Several traces may
//! still claim one rank (a child program that calls an MPI function without initializing
//! MPI inherits the rank's environment); a reader prefers the one that initialized MPI, then
//! the process that started first (offset 152).
//!
//! The file only grows while the process runs: space is reserved (`posix_fallocate`) before
//! records are written into it, so a full disk or quota never faults the program. When space
//! runs out the writer stops recording, sets [`state::NO_SPACE`] and counts the calls it
//! dropped (offset 48). At exit the file keeps its length (late calls from library
//! destructors or other threads still land in a small margin after offset 160, which ends
//! with an empty skip record the exit handler writes), and the
//! disk space of the unused tail is released by punching a hole, so a reader sees zeros
//! there. A trace of an exited process whose file is shorter than offset 160 says was cut
//! after the process finished (a truncated copy). Records may still stop before offset 160
//! in a whole trace: `exit` ends the other threads wherever they are, possibly between
//! reserving a record and writing its frame (see "Holes" below).
//!
//! Call times are raw readings of the clock named at offset 96: `CLOCK_MONOTONIC` nanoseconds
//! ([`clock::MONOTONIC_NS`]), or the CPU's time-stamp counter ([`clock::TSC`], used when the
//! kernel itself uses it as its clock source; reading it costs half a `clock_gettime`). The
//! reader converts them to nanoseconds since the trace start with the start pair (104, 112)
//! and the latest calibration pair: the writer refreshes the pair at least every 200 ms
//! and at exit by writing the slot not in use and then switching the index, so a trace cut
//! short always holds a whole pair.
//!
//! ## Records (from offset [`HEADER_SIZE`], 8-byte aligned)
//!
//! Every record starts with an 8-byte frame: `u32 len` (whole record in bytes, a multiple of
//! 8), `u16 kind` ([`kind`]), `u8 state` ([`record_state`]), `u8 flags` ([`flags`]). A `len`
//! of zero marks the end of the trace, unless nonzero words follow it below the reserved end
//! (offset 40): then it is a hole.
//!
//! **Holes.** A thread ended (by `exit` or a kill of the process) after reserving a record
//! but before writing its frame leaves the record's bytes zero, with other threads' records
//! after it. The writer stores the frame before any other word of a record, and space it
//! gives back (a folded poll) is left all zero, so a hole is zeros throughout: the reader
//! steps to the next nonzero word, which must be a frame, and counts the hole among the
//! partial records. The hole's call never reached MPI (its wrapper was still reserving).
//! Writers before this rule (same format version) zeroed only the frame of space they gave
//! back; a reader then finds no frame after the hole and stops there as at damage.
//!
//! A **call record** (`kind::CALL`) continues with:
//!
//! | offset | type  | field                                                                |
//! |-------:|-------|----------------------------------------------------------------------|
//! | 8      | `u16` | function id, an index into the schema                                |
//! | 10     | `u16` | thread index (0 = first thread that called MPI)                      |
//! | 12     | `i32` | return code (valid when complete)                                    |
//! | 16     | `u64` | entry time, a raw clock reading (see the header)                     |
//! | 24     | `u64` | exit time, likewise (valid when complete, unless [`flags::INSTANT`]) |
//! | 32     | `u64` | call site: return address of the outermost MPI entry point           |
//! | 40     | bytes | argument words, laid out as the function table says (see [`schema`]): scalars and array elements of 4 or 8 bytes, arrays and statuses from a multiple of 8; zeros up to `len` |
//!
//! The record's offset in the file is its order key: records are reserved with one atomic
//! add on the header's end of the record area, so offsets increase in the order the calls
//! were entered, across all threads of the process.
//!
//! Version 1 had a 56-byte fixed part (an explicit word count and order key, times in ns
//! since the start, a reserved word); version 2 saves 16 bytes per call and one
//! `clock_gettime` worth of time per timestamp. Version 3 adds [`flags::INSTANT`]: a call
//! that cannot block, made while only one thread of the process recorded, has no exit time
//! (reading the clock is a third of a recorded call's cost); with several threads every call
//! keeps its exit time, which tells whether calls of different threads overlapped.
//! Version 4 sizes each scalar argument word and array element by its C type in the
//! writer's MPI: 4 bytes for `int`, enums and 4-byte handles (MPICH's), 8 for pointers,
//! `MPI_Aint`, `MPI_Count`, `MPI_Offset` and 8-byte handles (Open MPI's, MPICH's `MPI_File`);
//! the function table says each width (`s4`, `s8`, `a4`, `a8`). A status is packed into 3
//! words (`st3`, `sa3`: source and tag, error, bytes). An array (its 8-byte count first), a
//! status or an array of statuses starts at the next multiple of 8 bytes; other words follow
//! each other unaligned, and the record is padded at its end to a multiple of 8 (a poll's two
//! fold words come last, after the padding). Why: writing a fresh page of trace costs more
//! than the rest of a recorded call, per byte. `MPI_Send` takes 72 bytes instead of 88 with
//! MPICH, 80 with Open MPI; `MPI_Recv` 96 or 104 instead of 120; `MPI_Waitall` of 2 with
//! statuses 136 or 152 instead of 168. The reader returns the same 8-byte words as before
//! (4-byte values sign-extended, statuses as 4 words), so what reads calls does not change.
//! The reader reads versions 2 to 7; in versions 2 and 3 every word takes 8 bytes (`s`, `a`,
//! `st`, `sa` in their tables). Version 5 adds repeat records ("Repeated calls" below),
//! version 6 counted repeats ("Counted runs" below), version 7 counted cycles ("Counted
//! cycles" below).
//!
//! The record is reserved with state `RESERVED`, its input words are written and the state
//! becomes `ENTERED` before the MPI library is called; output words and the exit time are
//! written when the library returns and the state becomes `COMPLETE`. A call still `ENTERED`
//! at the end of a trace is the call the process was blocked or crashed in.
//!
//! Entry and exit times come from `CLOCK_MONOTONIC` minus one origin per process, so the
//! intervals of different threads of a process are comparable: two calls whose intervals
//! intersect were inside MPI at the same moment. Thread indices are numbered per process in
//! the order threads first record anything (0 = usually the main thread).
//!
//! **Pseudo-calls** are call records of functions that are not MPI's, named `MPICHECK_*` in
//! the schema (so a reader that does not know them can skip them by name):
//!
//! | function | words | written |
//! |----------|-------|---------|
//! | `MPICHECK_Comm_info` | communicator, world ranks of its group (and remote group) | after a call creates a communicator |
//! | `MPICHECK_Type_info` | datatype, size, extent, true_lb, true_extent (`MPI_Type_get_true_extent`; absent in older traces) | after `MPI_Type_commit` |
//! | `MPICHECK_Sync` | `what`, `object` | synchronization between the process's threads |
//! | `MPICHECK_Access` | `write`, `address`, `thread`, `tid`, `start`, `len`, `recv`, `post_site` | `--check-buffers`: a load or store into the buffer of a pending operation, at the next MPI call (call site: the faulting instruction + 1) |
//! | `MPICHECK_Buffers` | `watched`, `unwatched`, `dropped`, `given_up`, `neighbour_faults` (the last two absent in older traces) | `--check-buffers`: counts of buffers watched and not, after `MPI_Finalize` |
//! | `MPICHECK_Given_up` | `faults`, `buffers` | `--check-buffers`: a call site (the record's) whose buffers were no longer watched because of too many faults on other data on their pages, after `MPI_Finalize` |
//!
//! Pseudo-calls' words are 8-byte words (`s8` in the table) whatever their C types.
//!
//! `MPICHECK_Sync` records (since the function appears in the schema; no layout change) come
//! from the interposed OpenMP (libgomp) and POSIX threads entry points: `what` 0 = thread
//! tracking is on (written once at start; absent with `MPICHECK_THREADS=0`), 1 = the thread
//! releases `object`, 2 = it acquires `object`, 3 = it starts parallel region `object` (a
//! release of the region's start object), 4 = the region it started ended (an acquire of
//! the region's end object), 5 = the process uses synchronization that is not recorded
//! (OpenMP explicit tasks), 6 = the thread begins to execute the block of a worksharing
//! construct that any thread of its team could have executed (`object`: top byte 8 a
//! `single`, 9 a section of `sections`, then the team's region token), 7 = it left that
//! block (written only where no other record of the thread follows first: the block ends at
//! the thread's next record of any kind). Releases are recorded before the real operation
//! and acquires after it, so in record order an acquire follows every release it observed.
//! Objects are
//! mutex and lock addresses, or tagged values (top byte: 1 region start, 2 region end,
//! 3 team barrier, 4 thread start, 5 thread end, 6 unnamed critical/atomic, 7 ordered).
//! The analyzer turns them into happens-before (`mpicheck_analyzer::threads`).
//!
//! **Folded polls.** A thread that polls in a loop (`MPI_Test`, `MPI_Iprobe`, ...), or repeats
//! a query (`MPI_Wtime`, `MPI_Comm_rank`, ...), would write a record per call, over 100 MB/s.
//! Such a call's record has the [`flags::POLL`] flag and two more words after its arguments:
//! `repeats` and `last_enter`. When a thread makes the same unsuccessful poll, or the same
//! query, again (same function, same argument words, nothing found) right after
//! its previous record, the writer adds one to `repeats` of that record, stores the call's
//! entry time in `last_enter`, and gives back the space it had reserved (its frame is zeroed
//! first; if another record was reserved after it meanwhile, it becomes a [`kind::SKIP`]
//! record instead). The reader returns such a record as two calls: the first, as recorded,
//! and the last (entry and exit at `last_enter`), so checks see when the loop began and
//! ended; the identical calls in between are only counted.
//!
//! **Repeated calls** (format 5). Programs repeat calls with the same arguments (a halo
//! exchange in a loop); most of such a call's record would repeat its previous one, and the
//! bytes of a record are what it costs (BENCHMARKS.md, "Interposition hot path"). A call
//! record written in full that a later call may repeat has the [`flags::ORIGINAL`] flag. A
//! later call of the same thread, function and call site whose input words equal those of
//! that thread's latest `ORIGINAL` record of that function and call site, and whose record
//! would be as long, may be written as a *repeat*: a call record with [`flags::REPEAT`], the
//! same 40-byte fixed part except that the call-site word (offset 32) holds the byte offset
//! of the original record, and then only the tail of the argument words: the full record's
//! argument bytes from `keep = original len - repeat len` on (a multiple of 8 at or below the
//! end of the input words; what follows are the call's output words). The reader returns it
//! as the full record: the original's argument bytes before `keep`, the repeat's after, the
//! repeat's frame state and flags, return code and times, the original's call site. Inputs
//! come first in every record the writer may repeat (no input word follows an output word),
//! so what the repeat leaves out is inputs only. A repeat whose original is not the latest
//! `ORIGINAL` record of the same thread, function and call site read so far, or is shorter
//! than the repeat, is damage: the reader stops there as at a damaged record. Polls
//! (`flags::POLL`) and pseudo-calls are never repeats. `MPICHECK_REPEATS=0` in the
//! environment of the program makes the writer write every call in full.
//!
//! **Counted runs** (format 6). A loop of identical calls (the same function, call site,
//! input words, output words and return code, one call right after the other) would still
//! write a repeat record per call. A repeat written while the process records from one
//! thread only, right after its original or after another repeat of the same original (no
//! record of any kind in between), has the [`flags::COUNTED`] flag and two more words at its
//! end ([`COUNT_WORDS`]; the argument tail of the repeat ends before them):
//!
//! | offset from the end | type  | field |
//! |--------------------:|-------|-------|
//! | -16 | `u64` | `runs`: bits 0-62 the calls folded into the record after its own call, all returned; bit 63 ([`COUNT_PENDING`]) one more folded call entered MPI and has not returned |
//! | -8  | `u64` | `last`: raw entry time of a recent folded call (see below) |
//!
//! The next call of the thread, if it repeats the same original with the same inputs while
//! the counted record is still the last record of the trace and the process still records
//! from one thread, reserves nothing: the writer stores its entry time in `last` (only the
//! first folded call and every 64th after it read the clock for it, and the others leave
//! `last` as it is: a clock read costs more than the rest of counting a call), then sets
//! bit 63 (a release store) before calling MPI; when the call returns with the record's
//! return code and output words, and the process still records from one thread, it adds one
//! to `runs` and clears bit 63 in one release store. No exit time is read for a folded call.
//! Otherwise (other outputs or return code, or another thread began to record meanwhile) it
//! restores `last`, clears bit 63 and writes the call as a record of its own, reserved then
//! (with the entry time it read, or if it read none, the `last` it found, which is no later):
//! such a call's order key follows the records other threads reserved while it was inside
//! MPI. A process killed between these stores loses that one call (it returned), or reads
//! with the previous call's `last`; anywhere else it leaves the right count.
//!
//! The reader returns a counted record as its own call (as a repeat), then `runs` identical
//! complete calls, then, with bit 63, one more identical call that is not complete (the call
//! the process was in). Per-call times inside a run are not recorded: the folded calls enter
//! at times spread evenly from the first call's exit to `last` (the last one at `last`) and
//! each returns when it enters, as the last call of a folded poll does. Their order keys are
//! the record's offset plus the call's index in the run, capped at the record's last byte
//! (so the order keys of a long run end in equal values; only one thread was recording, so
//! no other thread's record falls between them). The counted words are not part of the
//! argument tail: a counted repeat stands for the original's argument bytes before `keep =
//! original len - (repeat len - 16)`.
//!
//! **Counted cycles** (format 7). A loop of a few different calls (`MPI_Irecv`, `MPI_Isend`,
//! `MPI_Waitall`; `MPI_Allreduce` and `MPI_Send`) repeats no call right after itself, so
//! counted runs do not fold it. A *cycle record* ([`kind::CYCLE`], [`CYCLE_LEN`] bytes) counts
//! the calls of such a loop after one turn of it was written as records:
//!
//! | offset | type  | field |
//! |-------:|-------|-------|
//! | 0  | `u32`, `u16`, `u8`, `u8` | frame: length 32, kind [`kind::CYCLE`], state, flags 0 |
//! | 8  | `u16` | `period`: the cycle's calls, 2 to [`MAX_CYCLE`] |
//! | 10 | `u16` | thread index (where call records have it) |
//! | 12 | `u32` | `span`: bytes from the first of the cycle's records to this record |
//! | 16 | `u64` | `runs`: bits 0-62 the calls counted that returned; bit 63 ([`COUNT_PENDING`]) one more counted call entered MPI and has not returned |
//! | 24 | `u64` | `last`: raw entry time of a recent counted call (as for counted runs) |
//!
//! The cycle's records (its *members*) are the `period` records right before the cycle
//! record, `span` bytes in all, with no hole or other record between them: call records of
//! its thread, complete, neither polls ([`flags::POLL`]) nor counted repeats
//! ([`flags::COUNTED`]); full records or repeats. Counted call `i` (from 0) is identical to
//! member `i mod period` (function, call site, argument words, return code, flags): a cycle
//! record with `runs` = n stands for n more turns' worth of calls, cut anywhere in a turn.
//! The writer, while the process records from one thread: when a call equals (function,
//! call site, input words) the first record of the thread's last 2 to `MAX_CYCLE` records
//! that follow each other at the end of the trace, and does not equal the last one (a run
//! of one call is counted as above), it reserves the cycle record, writes its words with
//! `runs` = bit 63 and `last` = the call's entry time, and publishes it `COMPLETE` before
//! calling MPI. Each later call of the thread, while the cycle record is still the last
//! record of the trace and the process still records from one thread, is compared with the
//! next member: with the same inputs the writer stores its entry time in `last` (every 64th
//! call, as in counted runs) and sets bit 63 (a release store) before calling MPI, and when it returns with the member's outputs
//! and return code adds one to `runs` and clears bit 63 in one release store. Otherwise the
//! call, and every call after it, is written as records again (a call that differed only in
//! its outputs restores `last` and clears bit 63 first; the cycle then may count fewer
//! calls than a whole turn, or none). A process killed with bit 63 set was inside the
//! counted call `runs`; a cycle record not yet `COMPLETE` stands for no call (its call had
//! not entered MPI).
//!
//! The reader returns a cycle record as its `runs` calls, copies of the members in turn,
//! then, with bit 63, one more that is not complete. As in counted runs, per-call times are
//! not recorded: the counted calls enter at times spread evenly from the last member's exit
//! to `last` (the last one at `last`) and each returns when it enters; their order keys are
//! the cycle record's offset plus the call's index, capped at its last byte. A cycle record
//! whose members are not as described is damage: the reader stops there.
//!
//! A **text record** (`kind::TEXT`) continues with `u32 subkind` ([`text`]), `u32 byte
//! length` and UTF-8 text, zero-padded to 8 bytes. The schema (the function table) and the
//! MPI constants are written as text records before the first call record; the process's
//! memory map (`/proc/self/maps`) is written at start and again when it changes
//! (after `MPI_Init` and at exit), for resolving call sites offline.

pub mod builder;
pub mod follow;
pub mod open;
pub mod reader;
pub mod schema;

pub use open::{
    open_trace_file, scan_trace_file, scan_trace_file_past_released, trace_file_calls, window_for,
    FileWindow,
};
pub use reader::{
    read_trace, read_trace_bytes, scan_trace, CallRecord, ClockConversion, EndOfTrace, Incomplete,
    Trace, TraceBytes, TraceCalls, TraceError, TraceHeader,
};
pub use schema::{
    encode_words, record_words, ArgValue, FunctionSchema, ParamSchema, ParamShape, Schema, Status,
};

/// The file magic.
pub const MAGIC: &[u8; 8] = b"MPICHKTR";
/// Bumped whenever the layout changes incompatibly.
pub const FORMAT_VERSION: u32 = 7;
/// The first version whose argument words are sized by their C type (`s4` and `s8` in the
/// function table) rather than all 8 bytes.
pub const SIZED_WORDS_VERSION: u32 = 4;
/// The first version with repeat records ([`flags::REPEAT`]).
pub const REPEATS_VERSION: u32 = 5;
/// The first version with counted repeats ([`flags::COUNTED`]).
pub const COUNTED_VERSION: u32 = 6;
/// The first version with counted cycles ([`kind::CYCLE`]).
pub const CYCLES_VERSION: u32 = 7;
/// The oldest version the reader still reads: version 2 lacks only [`flags::INSTANT`].
pub const OLDEST_READABLE_VERSION: u32 = 2;
/// Size of the fixed header; records start here.
pub const HEADER_SIZE: usize = 4096;
/// File name suffix of per-process traces.
pub const TRACE_SUFFIX: &str = ".mpitrace";
/// Size of the fixed part of a call record, before the argument words.
pub const CALL_FIXED_SIZE: usize = 40;
/// The largest world size a trace may claim: 2^20 = 1,048,576 ranks, the million ranks
/// mpicheck is built for. A header claiming a larger world, or a rank beyond it, is damaged:
/// the reader refuses it rather than let the analysis allocate for every claimed rank.
/// (The analyzer also refuses a world far larger than the ranks that left a trace.)
pub const MAX_WORLD_SIZE: u32 = 1 << 20;

/// Header byte offsets (shared by the writer in `mpicheck-recorder`).
pub mod offset {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 8;
    pub const HEADER_SIZE: usize = 12;
    pub const PID: usize = 16;
    pub const ENV_RANK: usize = 20;
    pub const RANK: usize = 24;
    pub const WORLD_SIZE: usize = 28;
    pub const STATE: usize = 32;
    pub const THREAD_LEVEL: usize = 36;
    pub const RECORDS_END: usize = 40;
    pub const DROPPED: usize = 48;
    pub const START_UNIX_NS: usize = 56;
    pub const FAMILY: usize = 64;
    pub const FAMILY_LEN: usize = 32;
    pub const CLOCK: usize = 96;
    pub const CALIBRATION_SLOT: usize = 100;
    pub const CLOCK_START: usize = 104;
    pub const CLOCK_START_NS: usize = 112;
    /// Slot `i` (0 or 1): clock reading at `CALIBRATION + 16 * i`, ns 8 bytes after.
    pub const CALIBRATION: usize = 120;
    pub const PROCESS_START: usize = 152;
    pub const EXIT_RECORDS_END: usize = 160;
    pub const PARENT_PID: usize = 168;
    pub const ABORT_THREAD: usize = 172;
    /// A `u32` counting (modulo 2^32, losing concurrent updates) the clock reads
    /// (`clock_gettime`, `gettimeofday`, `time`) that threads which call MPI made outside MPI:
    /// a polling loop that reads the clock may end on a timer. Since format version 5; zero
    /// in older traces and where the reads are not interposed.
    pub const CLOCK_READS: usize = 176;
    /// Two `u64`: the bytes from `RELEASED_FROM` to `RELEASED_TO` (record offsets) were
    /// released: `mpicheck run`'s analysis that followed the job had read those records,
    /// and gave their disk space back (a hole: they read as zeros). Written by that
    /// analysis, never by the process, `RELEASED_TO` before each release (so a trace never
    /// shows zeros it does not declare); 0, 0 when nothing was released. A reader from the
    /// start refuses such a trace ([`crate::TraceError::Released`]); the records before
    /// `RELEASED_FROM` (the texts the process wrote before the analysis began) and after
    /// `RELEASED_TO` are whole.
    pub const RELEASED_FROM: usize = 184;
    pub const RELEASED_TO: usize = 192;
    /// Thread index `i`'s kernel thread id is the `u32` at `THREAD_TIDS + 4 * i`.
    pub const THREAD_TIDS: usize = 512;
}

/// Thread indices whose kernel thread id the header has room for.
pub const MAX_THREAD_TIDS: usize = (HEADER_SIZE - offset::THREAD_TIDS) / 4;

/// The clock of the call times (header offset [`offset::CLOCK`]).
pub mod clock {
    /// `CLOCK_MONOTONIC`, in nanoseconds.
    pub const MONOTONIC_NS: u32 = 0;
    /// The x86 time-stamp counter (`rdtsc`), converted with the header's calibration pairs.
    pub const TSC: u32 = 1;
}

/// Header state flags.
pub mod state {
    /// `MPI_Init*` returned.
    pub const INITIALIZED: u32 = 1;
    /// `MPI_Finalize` returned.
    pub const FINALIZED: u32 = 2;
    /// The process ran its exit handlers (a normal `exit`, not a kill or crash).
    pub const EXITED: u32 = 4;
    /// The trace could not grow (disk full, quota, file size limit): recording stopped and the
    /// header's dropped count says how many calls are missing.
    pub const NO_SPACE: u32 = 8;
    /// MPI began to abort the job inside a thread's MPI call (its error handler rejected the
    /// call: Open MPI's `_exit`, MPICH's abort request to its process manager), without exit
    /// handlers. The header's [`super::offset::ABORT_THREAD`] says which thread; that call
    /// did not block.
    pub const ABORTED_IN_CALL: u32 = 16;
    /// The trace's file descriptor no longer named the trace when the recorder needed it:
    /// the program closed it (a double `close`) and maybe opened another file under its
    /// number. The recorder did not touch that file; the trace stopped growing there (with
    /// [`NO_SPACE`] if calls were dropped).
    pub const FILE_CLOSED: u32 = 32;
}

/// Record kinds.
pub mod kind {
    pub const CALL: u16 = 1;
    pub const TEXT: u16 = 2;
    /// Space a folded poll could not give back: skipped by readers.
    pub const SKIP: u16 = 3;
    /// A counted cycle of the few call records before it (see "Counted cycles" in the crate
    /// docs). Since format version 7.
    pub const CYCLE: u16 = 4;
}

/// Bytes of a cycle record ([`kind::CYCLE`]).
pub const CYCLE_LEN: usize = 32;
/// The most calls a counted cycle has (its `period`).
pub const MAX_CYCLE: usize = 4;

/// Words a poll record ([`flags::POLL`]) has after its arguments.
pub const POLL_FOLD_WORDS: usize = 2;

/// Words a counted repeat ([`flags::COUNTED`]) has after its argument tail: `runs`, `last`.
pub const COUNT_WORDS: usize = 2;
/// The bit of a counted repeat's `runs` word saying that one more folded call is inside MPI.
pub const COUNT_PENDING: u64 = 1 << 63;

/// Record states, written last so a reader never trusts half-written words.
pub mod record_state {
    pub const RESERVED: u8 = 0;
    pub const ENTERED: u8 = 1;
    pub const COMPLETE: u8 = 2;
}

/// Record flags.
pub mod flags {
    /// Called through a Fortran binding (`mpi_send_`, `mpi_send_f08_`, ...).
    pub const FORTRAN: u8 = 1;
    /// A poll (`MPI_Test*`, `MPI_Iprobe`, ...) or a query a program may repeat in a loop
    /// (`MPI_Wtime`, `MPI_Comm_rank`, ...): the record ends with two more words, the number of
    /// identical calls folded into it after the first, and the last one's entry time. See
    /// "Folded polls" in the crate docs.
    pub const POLL: u8 = 2;
    /// A call that cannot block (`MPI_Isend`, `MPI_Type_commit`, ...), made while the process
    /// recorded from one thread only: no exit time was read (the word holds nothing); the
    /// reader takes the entry time as the exit time. Since format version 3.
    pub const INSTANT: u8 = 4;
    /// A repeat of an earlier record of the thread (see "Repeated calls" in the crate docs):
    /// the call-site word holds the original's offset, and only the tail of the argument
    /// words follows. Since format version 5.
    pub const REPEAT: u8 = 8;
    /// A record written in full that later repeats of its thread, function and call site may
    /// refer to. Since format version 5.
    pub const ORIGINAL: u8 = 16;
    /// A repeat with [`crate::COUNT_WORDS`] more words at its end, counting the identical
    /// calls that followed it (see "Counted runs" in the crate docs). Since format version 6.
    pub const COUNTED: u8 = 32;
}

/// Text record subkinds.
pub mod text {
    /// The function table, see [`crate::schema`].
    pub const SCHEMA: u32 = 1;
    /// `NAME=value` lines: predefined handles and constants of this MPI.
    pub const CONSTANTS: u32 = 2;
    /// A copy of `/proc/self/maps`.
    pub const PROC_MAPS: u32 = 3;
    /// `key=value` lines about the process (executable, command line).
    pub const PROCESS: u32 = 4;
}
