//! Fuzzing the trace reader, normalization and every check with mutated real traces.
//!
//! The corpus is the real MPICH and Open MPI traces of `tests/traces`. Each case takes the
//! traces of one run (sometimes with a trace of another run mixed in) and applies random
//! mutations: bit flips, bytes and words written anywhere, header fields and record lengths
//! set to extreme values, argument words replaced by extreme counts, ranks and the trace's
//! own handles, records repeated or given another function or state, truncation, and
//! function tables and constants rewritten with bogus lines. Whatever comes out,
//! `read_trace_bytes`, `normalize` and `run_all` must return (an error is fine) without
//! panicking, and no allocation may exceed [`MAX_ALLOCATION`] nor the live heap
//! [`MAX_LIVE`]: a trace of a few kilobytes must not make the analyzer allocate for what
//! its words claim. A breach aborts the test with the case that caused it.
//!
//! CI runs `CASES` cases (a few seconds in a release build). For a longer run:
//! `MPICHECK_FUZZ_CASES=200000 cargo test --release -p mpicheck-analyzer --test trace_fuzz`
//! (`MPICHECK_FUZZ_SEED=N` picks another sequence of cases).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use mpicheck_analyzer::checks::run_all;
use mpicheck_analyzer::model::SourceLocation;
use mpicheck_analyzer::normalize::normalize;
use mpicheck_trace::reader::frame_at;
use mpicheck_trace::{kind, offset, read_trace_bytes, text, HEADER_SIZE};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Cases run by default.
const CASES: u32 = 600;
/// The largest single allocation allowed while analyzing a case.
const MAX_ALLOCATION: usize = 64 << 20;
/// The largest live heap allowed while analyzing a case.
const MAX_LIVE: usize = 512 << 20;
/// The heap an analysis may use: this much, plus [`MEMORY_PER_INPUT_BYTE`] per byte of
/// trace (linear in the input: nothing a trace claims may make it more).
const FIXED_MEMORY: usize = 32 << 20;
const MEMORY_PER_INPUT_BYTE: usize = 256;

/// The system allocator, counting the live heap and aborting (with the case being run) on
/// an allocation beyond the bounds.
struct Bounded;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The largest live heap since the last reset.
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CASE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static CASE_LEN: AtomicUsize = AtomicUsize::new(0);

fn breach(size: usize) -> ! {
    let write = |bytes: &[u8]| {
        // SAFETY: write(2) of a valid buffer; nothing here allocates.
        unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    };
    let mut digits = [0u8; 20];
    let mut n = size;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    write(b"\ntrace_fuzz: an allocation of ");
    write(&digits[at..]);
    write(b" bytes breaks the memory bound; the case:\n");
    let case = CASE.load(Ordering::SeqCst);
    if !case.is_null() {
        // SAFETY: CASE points at CASE_LEN bytes of a string kept alive while it runs.
        write(unsafe { std::slice::from_raw_parts(case, CASE_LEN.load(Ordering::SeqCst)) });
    }
    write(b"\n");
    std::process::abort()
}

unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.check(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.check(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            self.check(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        if new_size > MAX_ALLOCATION {
            breach(new_size);
        }
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

impl Bounded {
    fn check(&self, size: usize) {
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        PEAK.fetch_max(live, Ordering::Relaxed);
        if size > MAX_ALLOCATION || live > MAX_LIVE {
            breach(size);
        }
    }
}

#[global_allocator]
static ALLOCATOR: Bounded = Bounded;

/// The traces of one fixture run, as file bytes.
fn corpus() -> Vec<Vec<Vec<u8>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces");
    let mut sets = Vec::new();
    for set in [
        "features-mpich",
        "features-openmpi",
        "deadlock-mpich",
        "deadlock-openmpi",
    ] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(set))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        sets.push(files.iter().map(|p| std::fs::read(p).unwrap()).collect());
    }
    sets
}

/// Extreme integers: zero and one, the signed and unsigned limits of 16, 32 and 64 bits,
/// the world size bound and powers of two around it, small negatives.
const INTERESTING: &[i64] = &[
    0,
    1,
    2,
    3,
    7,
    8,
    -1,
    -2,
    -32766,
    255,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    1 << 19,
    (1 << 20) - 1,
    1 << 20,
    (1 << 20) + 1,
    1 << 31,
    1 << 40,
    i64::MAX,
    i64::MIN,
    i64::MAX / 8,
];

/// Lines that make a function table lie: shapes and directions changed, huge and duplicate
/// ids, pseudo-call names on MPI functions, MPI names with no parameters.
const BOGUS_SCHEMA_LINES: &[&str] = &[
    "65535 MPI_Send",
    "0 MPI_Barrier comm:COMMUNICATOR:in:a",
    "1 MPI_Comm_split comm:COMMUNICATOR:in:sa color:COLOR:in:a key:KEY:inout:st newcomm:COMMUNICATOR:out:a",
    "2 MPICHECK_Comm_info comm:COMMUNICATOR:in:s members:WORLD_RANKS:in:s",
    "3 MPI_Waitall count:ARRAY_LENGTH_NNI:in:a array_of_requests:REQUEST:inout:sa array_of_statuses:STATUS:out:a",
    "4 MPI_Type_vector count:POLYDTYPE_NUM_ELEM_NNI:in:s blocklength:POLYDTYPE_NUM_ELEM_NNI:in:s stride:POLYDTYPE_STRIDE_ELEM:in:s oldtype:DATATYPE:in:s newtype:DATATYPE:out:s",
    "5 MPI_Cart_create comm_old:COMMUNICATOR:in:s ndims:ARRAY_LENGTH_NNI:in:s dims:ARRAY_LENGTH_NNI:in:a periods:LOGICAL:in:a reorder:LOGICAL:in:s comm_cart:COMMUNICATOR:out:s",
    "6 MPICHECK_Sync what:INTEGER:in:s object:INTEGER:in:s",
    "7 MPI_Finalize",
    "8 MPI_Init",
    "9 MPICHECK_Type_info datatype:DATATYPE:in:s size:INTEGER:in:s extent:INTEGER:in:s",
    "x y z",
    "10 MPI_Alltoallw sendbuf:BUFFER:in:s sendcounts:POLYXFER_NUM_ELEM_NNI:in:a sdispls:DISPLACEMENT:in:a sendtypes:DATATYPE:in:a recvbuf:BUFFER:out:s recvcounts:POLYXFER_NUM_ELEM_NNI:in:a rdispls:DISPLACEMENT:in:a recvtypes:DATATYPE:in:a comm:COMMUNICATOR:in:s",
];

/// Constants that lie: predefined handles and values swapped or out of range.
const BOGUS_CONSTANTS: &[&str] = &[
    "MPI_COMM_WORLD=0",
    "MPI_COMM_SELF=0",
    "MPI_ANY_SOURCE=0",
    "MPI_ANY_TAG=0",
    "MPI_PROC_NULL=1",
    "MPI_UNDEFINED=0",
    "MPI_REQUEST_NULL=0",
    "MPI_COMM_NULL=0",
    "MPI_IN_PLACE=0",
    "DATATYPE.MPI_INT=0",
    "DATATYPE_SIZE.MPI_INT=-1",
    "DATATYPE_SIZE.MPI_INT=18446744073709551615",
    "DATATYPE_SIZE.MPI_DOUBLE=9223372036854775807",
    "OP.MPI_SUM=0",
    "MPI_COMM_WORLD=zzz",
    "=",
    "MPI_MODE_NOPRECEDE_VALUE=-1",
];

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit {
        at: usize,
        bit: u8,
    },
    Byte {
        at: usize,
        value: u8,
    },
    Word32 {
        at: usize,
        value: i64,
    },
    Word64 {
        at: usize,
        value: i64,
    },
    HeaderField {
        field: usize,
        value: i64,
    },
    RecordLen {
        record: usize,
        len: i64,
    },
    RecordState {
        record: usize,
        state: u8,
    },
    CallFunc {
        record: usize,
        func: u16,
    },
    /// An argument word of a call record: an extreme value, or one of the trace's handles.
    ArgWord {
        record: usize,
        word: usize,
        value: i64,
        handle: Option<usize>,
    },
    Repeat {
        record: usize,
        times: u8,
    },
    /// Every call record on its own thread (modulo `threads`), as a process with that many
    /// threads calling MPI.
    Threads {
        threads: u16,
    },
    /// A run of records repeated, to grow the trace.
    RepeatRun {
        record: usize,
        len: u8,
        times: u8,
    },
    Drop {
        record: usize,
    },
    Truncate {
        len: usize,
    },
    SchemaLine {
        line: usize,
    },
    Constant {
        line: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let value = prop_oneof![prop::sample::select(INTERESTING), any::<i64>()];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::Byte { at, value }),
        (any::<usize>(), value.clone()).prop_map(|(at, value)| Mutation::Word32 { at, value }),
        (any::<usize>(), value.clone()).prop_map(|(at, value)| Mutation::Word64 { at, value }),
        (any::<usize>(), value.clone())
            .prop_map(|(field, value)| Mutation::HeaderField { field, value }),
        (any::<usize>(), value.clone())
            .prop_map(|(record, len)| Mutation::RecordLen { record, len }),
        (any::<usize>(), 0u8..4)
            .prop_map(|(record, state)| Mutation::RecordState { record, state }),
        (any::<usize>(), any::<u16>())
            .prop_map(|(record, func)| Mutation::CallFunc { record, func }),
        (
            any::<usize>(),
            any::<usize>(),
            value,
            prop::option::of(any::<usize>())
        )
            .prop_map(|(record, word, value, handle)| Mutation::ArgWord {
                record,
                word,
                value,
                handle
            }),
        (any::<usize>(), 1u8..40).prop_map(|(record, times)| Mutation::Repeat { record, times }),
        // Up to 1024 threads: the thread checks' vector clocks take memory proportional to
        // calls × threads, so a trace of a few thousand calls on 65535 threads needs
        // gigabytes (a known limit of mpicheck_analyzer::threads, not of the reader).
        prop_oneof![Just(2u16), Just(64), Just(1024), 1u16..1024]
            .prop_map(|threads| Mutation::Threads { threads }),
        (any::<usize>(), 1u8..64, 1u8..100).prop_map(|(record, len, times)| Mutation::RepeatRun {
            record,
            len,
            times
        }),
        any::<usize>().prop_map(|record| Mutation::Drop { record }),
        any::<usize>().prop_map(|len| Mutation::Truncate { len }),
        any::<usize>().prop_map(|line| Mutation::SchemaLine { line }),
        any::<usize>().prop_map(|line| Mutation::Constant { line }),
    ]
}

/// Header fields worth lying about.
const HEADER_FIELDS: &[(usize, usize)] = &[
    (offset::VERSION, 4),
    (offset::PID, 4),
    (offset::ENV_RANK, 4),
    (offset::RANK, 4),
    (offset::WORLD_SIZE, 4),
    (offset::STATE, 4),
    (offset::THREAD_LEVEL, 4),
    (offset::RECORDS_END, 8),
    (offset::DROPPED, 8),
    (offset::CLOCK, 4),
    (offset::CALIBRATION_SLOT, 4),
    (offset::CLOCK_START, 8),
    (offset::CALIBRATION, 8),
    (offset::CALIBRATION + 8, 8),
    (offset::PROCESS_START, 8),
    (offset::EXIT_RECORDS_END, 8),
];

/// A trace split into header and records, so records can be changed, repeated or dropped.
struct Parts {
    header: Vec<u8>,
    records: Vec<Vec<u8>>,
    /// Bytes after the last record (the end marker, a tail).
    tail: Vec<u8>,
}

impl Parts {
    fn split(bytes: &[u8]) -> Parts {
        let mut records = Vec::new();
        let mut at = HEADER_SIZE.min(bytes.len());
        while let Some(frame) = frame_at(bytes, at) {
            records.push(bytes[at..at + frame.len].to_vec());
            at += frame.len;
        }
        Parts {
            header: bytes[..HEADER_SIZE.min(bytes.len())].to_vec(),
            records,
            tail: bytes[at..].to_vec(),
        }
    }

    /// The file again, with the end of the records (and at exit, when set) following them.
    fn join(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        let end = (out.len() + self.records.iter().map(Vec::len).sum::<usize>()) as u64;
        if out.len() == HEADER_SIZE {
            let old = u64::from_le_bytes(out[offset::RECORDS_END..][..8].try_into().unwrap());
            let exit = u64::from_le_bytes(out[offset::EXIT_RECORDS_END..][..8].try_into().unwrap());
            out[offset::RECORDS_END..][..8].copy_from_slice(&end.to_le_bytes());
            if exit != 0 && exit == old {
                out[offset::EXIT_RECORDS_END..][..8].copy_from_slice(&end.to_le_bytes());
            }
        }
        for r in &self.records {
            out.extend_from_slice(r);
        }
        out.extend_from_slice(&self.tail);
        out
    }

    fn calls(&self) -> Vec<usize> {
        (0..self.records.len())
            .filter(|&i| {
                let r = &self.records[i];
                r.len() >= 40 && u16::from_le_bytes([r[4], r[5]]) == kind::CALL
            })
            .collect()
    }

    fn text_record(&self, subkind: u32) -> Option<usize> {
        self.records.iter().position(|r| {
            r.len() >= 16
                && u16::from_le_bytes([r[4], r[5]]) == kind::TEXT
                && u32::from_le_bytes(r[8..12].try_into().unwrap()) == subkind
        })
    }

    fn text(&self, record: usize) -> String {
        let r = &self.records[record];
        let len = (u32::from_le_bytes(r[12..16].try_into().unwrap()) as usize).min(r.len() - 16);
        String::from_utf8_lossy(&r[16..16 + len]).into_owned()
    }

    fn set_text(&mut self, record: usize, content: &str) {
        let r = &mut self.records[record];
        let len = (16 + content.len()).div_ceil(8) * 8;
        r.truncate(16);
        r[0..4].copy_from_slice(&(len as u32).to_le_bytes());
        r[12..16].copy_from_slice(&(content.len() as u32).to_le_bytes());
        r.extend_from_slice(content.as_bytes());
        r.resize(len, 0);
    }

    /// The trace's own handle values (from its constants), to put into argument words.
    fn handles(&self) -> Vec<i64> {
        let Some(record) = self.text_record(text::CONSTANTS) else {
            return Vec::new();
        };
        self.text(record)
            .lines()
            .filter_map(|l| l.split_once('='))
            .filter_map(|(_, v)| {
                let v = v.trim();
                match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok().map(|v| v as i64),
                    None => v.parse().ok(),
                }
            })
            .collect()
    }
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let pick = |n: usize, at: usize| if n == 0 { None } else { Some(at % n) };
    match *m {
        Mutation::FlipBit { at, bit } => {
            if let Some(at) = pick(bytes.len(), at) {
                bytes[at] ^= 1 << bit;
            }
        }
        Mutation::Byte { at, value } => {
            if let Some(at) = pick(bytes.len(), at) {
                bytes[at] = value;
            }
        }
        Mutation::Word32 { at, value } => {
            if let Some(at) = pick(bytes.len() / 4, at) {
                bytes[4 * at..4 * at + 4].copy_from_slice(&(value as u32).to_le_bytes());
            }
        }
        Mutation::Word64 { at, value } => {
            if let Some(at) = pick(bytes.len() / 8, at) {
                bytes[8 * at..8 * at + 8].copy_from_slice(&value.to_le_bytes());
            }
        }
        Mutation::HeaderField { field, value } => {
            let (at, size) = HEADER_FIELDS[field % HEADER_FIELDS.len()];
            if bytes.len() >= at + size {
                bytes[at..at + size].copy_from_slice(&value.to_le_bytes()[..size]);
            }
        }
        Mutation::Truncate { len } => {
            let len = len % (bytes.len() + 1);
            bytes.truncate(len);
        }
        _ => {
            let mut parts = Parts::split(bytes);
            mutate_records(&mut parts, m);
            *bytes = parts.join();
        }
    }
}

fn mutate_records(parts: &mut Parts, m: &Mutation) {
    let n = parts.records.len();
    let calls = parts.calls();
    let call = |i: usize| (!calls.is_empty()).then(|| calls[i % calls.len()]);
    match *m {
        Mutation::RecordLen { record, len } if n > 0 => {
            parts.records[record % n][0..4].copy_from_slice(&(len as u32).to_le_bytes());
        }
        Mutation::RecordState { record, state } if n > 0 => parts.records[record % n][6] = state,
        Mutation::CallFunc { record, func } => {
            if let Some(i) = call(record) {
                parts.records[i][8..10].copy_from_slice(&func.to_le_bytes());
            }
        }
        Mutation::ArgWord {
            record,
            word,
            value,
            handle,
        } => {
            let handles = parts.handles();
            if let Some(i) = call(record) {
                let r = &mut parts.records[i];
                let words = (r.len() - 40) / 8;
                if words > 0 {
                    let value = match handle {
                        Some(h) if !handles.is_empty() => handles[h % handles.len()],
                        _ => value,
                    };
                    let at = 40 + 8 * (word % words);
                    r[at..at + 8].copy_from_slice(&value.to_le_bytes());
                }
            }
        }
        Mutation::Repeat { record, times } => {
            if let Some(i) = call(record) {
                let copy = parts.records[i].clone();
                for _ in 0..times {
                    parts.records.insert(i + 1, copy.clone());
                }
            }
        }
        Mutation::Threads { threads } => {
            for (k, &i) in calls.iter().enumerate() {
                let thread = (k % threads.max(1) as usize) as u16;
                parts.records[i][10..12].copy_from_slice(&thread.to_le_bytes());
            }
        }
        Mutation::RepeatRun { record, len, times } if n > 0 => {
            let start = record % n;
            let end = (start + len as usize).min(n);
            let run: Vec<Vec<u8>> = parts.records[start..end].to_vec();
            for _ in 0..times {
                for (k, r) in run.iter().enumerate() {
                    parts.records.insert(end + k, r.clone());
                }
            }
        }
        Mutation::Drop { record } => {
            if let Some(i) = call(record) {
                parts.records.remove(i);
            }
        }
        Mutation::SchemaLine { line } => {
            if let Some(r) = parts.text_record(text::SCHEMA) {
                let mut lines: Vec<String> = parts.text(r).lines().map(String::from).collect();
                let bogus = BOGUS_SCHEMA_LINES[line % BOGUS_SCHEMA_LINES.len()];
                // Replace the line of the same id when there is one, so the lie is used.
                let id = bogus.split(' ').next().unwrap_or("");
                match lines.iter().position(|l| l.split(' ').next() == Some(id)) {
                    Some(p) if line % 2 == 0 => lines[p] = bogus.to_string(),
                    _ => {
                        let at = line % (lines.len() + 1);
                        lines.insert(at, bogus.to_string());
                    }
                }
                parts.set_text(r, &(lines.join("\n") + "\n"));
            }
        }
        Mutation::Constant { line } => {
            if let Some(r) = parts.text_record(text::CONSTANTS) {
                let mut content = parts.text(r);
                // Appended: later lines win where the reader keeps the last value, and the
                // first where it looks the first up; replace the first too.
                let bogus = BOGUS_CONSTANTS[line % BOGUS_CONSTANTS.len()];
                if let Some((name, _)) = bogus.split_once('=') {
                    let prefix = format!("{name}=");
                    if let Some(start) = content.find(&prefix) {
                        let end = content[start..]
                            .find('\n')
                            .map_or(content.len(), |e| start + e);
                        content.replace_range(start..end, bogus);
                    }
                }
                content.push_str(bogus);
                content.push('\n');
                parts.set_text(r, &content);
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
struct Case {
    set: usize,
    /// A trace of another set added to the run.
    stranger: Option<(usize, usize)>,
    /// Mutations per trace of the set (and of the stranger, last).
    mutations: Vec<Vec<Mutation>>,
}

fn case(sets: usize) -> impl Strategy<Value = Case> {
    (
        0..sets,
        prop::option::weighted(0.1, (0..sets, 0usize..2)),
        prop::collection::vec(prop::collection::vec(mutation(), 0..6), 3),
    )
        .prop_map(|(set, stranger, mutations)| Case {
            set,
            stranger,
            mutations,
        })
}

fn resolve(_: usize, addr: u64) -> SourceLocation {
    SourceLocation {
        file: Some("fuzz.c".into()),
        line: Some((addr % 1000) as u32),
        ..Default::default()
    }
}

fn run_case(corpus: &[Vec<Vec<u8>>], case: &Case) -> (usize, usize) {
    let mut files: Vec<Vec<u8>> = corpus[case.set].clone();
    if let Some((set, index)) = case.stranger {
        files.push(corpus[set][index % corpus[set].len()].clone());
    }
    for (i, bytes) in files.iter_mut().enumerate() {
        for m in case.mutations.get(i).into_iter().flatten() {
            apply(bytes, m);
        }
    }
    let input: usize = files.iter().map(Vec::len).sum();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut traces = Vec::new();
    for bytes in &files {
        if let Ok(trace) = read_trace_bytes(bytes) {
            traces.push(trace);
        }
    }
    if let Ok(run) = normalize(&traces, &mut resolve) {
        let _ = run_all(&run);
    }
    (input, PEAK.load(Ordering::Relaxed) - base)
}

#[test]
fn mutated_real_traces_never_panic_nor_allocate_without_bound() {
    let corpus = corpus();
    let cases = std::env::var("MPICHECK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let seed: u64 = std::env::var("MPICHECK_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // A fixed seed: CI runs the same cases every time; MPICHECK_FUZZ_SEED explores others.
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let started = std::time::Instant::now();
    let worst = std::cell::Cell::new(0);
    runner
        .run(&case(corpus.len()), |case| {
            let described = format!("{case:?}");
            CASE.store(described.as_ptr() as *mut u8, Ordering::SeqCst);
            CASE_LEN.store(described.len(), Ordering::SeqCst);
            let (input, used) = run_case(&corpus, &case);
            CASE.store(std::ptr::null_mut(), Ordering::SeqCst);
            worst.set(worst.get().max(used / input.max(1)));
            prop_assert!(
                used <= FIXED_MEMORY + MEMORY_PER_INPUT_BYTE * input,
                "{used} bytes of heap to analyze {input} bytes of traces"
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{cases} cases in {:.1?}; at most {} bytes of heap per byte of trace",
        started.elapsed(),
        worst.get()
    );
}
