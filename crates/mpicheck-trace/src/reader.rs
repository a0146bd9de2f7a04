//! Reads a per-process trace. A trace cut short (the process was killed, crashed or is still
//! running) is read up to its last whole record, and [`EndOfTrace`] says how far it got.

use std::path::Path;

use crate::schema::{decode_args, ArgValue, FunctionSchema, Schema, SchemaError};
use crate::{
    kind, offset, record_state, state, text, CALL_FIXED_SIZE, FORMAT_VERSION, HEADER_SIZE, MAGIC,
};

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("not an mpicheck trace (bad magic)")]
    BadMagic,
    #[error("trace format version {found} is not supported (this mpicheck reads version {FORMAT_VERSION})")]
    Version { found: u32 },
    #[error("trace is {len} bytes, shorter than its {HEADER_SIZE}-byte header")]
    TooShort { len: usize },
    #[error("trace has a bad function table: {0}")]
    Schema(#[from] SchemaError),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceHeader {
    pub version: u32,
    pub pid: u32,
    /// Rank announced by the launcher environment, if any.
    pub env_rank: Option<i32>,
    /// World rank, known once `MPI_Init*` returned.
    pub rank: Option<i32>,
    pub world_size: Option<i32>,
    pub state: u32,
    pub thread_level: Option<i32>,
    pub records_end: u64,
    pub dropped: u64,
    pub start_unix_ns: u64,
    pub family: String,
    /// Process start time in clock ticks since boot; 0 if unknown.
    pub process_start: u64,
    /// End of the record area when the exit handlers ran; 0 if they did not run.
    pub exit_records_end: u64,
    /// Parent process id; 0 if unknown.
    pub parent_pid: u32,
}

/// Raw call times (header offsets 96–152) to nanoseconds since the trace start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockConversion {
    /// Clock reading at the trace start.
    pub start: u64,
    /// Nanoseconds per reading as a ratio `ns / ticks`; 1/1 for a nanosecond clock, 0/1 if
    /// the trace holds no usable calibration (then every time reads as 0).
    pub ns: u64,
    pub ticks: u64,
}

impl ClockConversion {
    pub fn to_ns(&self, raw: u64) -> u64 {
        let since = raw.saturating_sub(self.start) as u128;
        (since * self.ns as u128 / self.ticks.max(1) as u128) as u64
    }
}

/// The conversion of a trace's call times, from its header (the first [`HEADER_SIZE`] bytes).
pub fn clock_conversion(b: &[u8]) -> ClockConversion {
    let start = u64_at(b, offset::CLOCK_START);
    if u32_at(b, offset::CLOCK) == crate::clock::MONOTONIC_NS {
        return ClockConversion {
            start,
            ns: 1,
            ticks: 1,
        };
    }
    let slot = (u32_at(b, offset::CALIBRATION_SLOT) & 1) as usize;
    let at = offset::CALIBRATION + 16 * slot;
    let (ticks, ns) = (u64_at(b, at), u64_at(b, at + 8));
    let start_ns = u64_at(b, offset::CLOCK_START_NS);
    match (ticks.checked_sub(start), ns.checked_sub(start_ns)) {
        (Some(dt), Some(dns)) if dt > 0 => ClockConversion {
            start,
            ns: dns,
            ticks: dt,
        },
        _ => ClockConversion {
            start,
            ns: 0,
            ticks: 1,
        },
    }
}

impl TraceHeader {
    pub fn initialized(&self) -> bool {
        self.state & state::INITIALIZED != 0
    }
    pub fn finalized(&self) -> bool {
        self.state & state::FINALIZED != 0
    }
    pub fn exited(&self) -> bool {
        self.state & state::EXITED != 0
    }
    /// Recording stopped because the trace could not grow; `dropped` calls are missing.
    pub fn no_space(&self) -> bool {
        self.state & state::NO_SPACE != 0
    }
    /// The best known rank: the world rank, else the launcher's.
    pub fn best_rank(&self) -> Option<i32> {
        self.rank.or(self.env_rank)
    }
}

/// One MPI call as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    pub func: u16,
    pub thread: u16,
    /// Order key: the record's offset in the trace, increasing in the order calls were
    /// entered, across the threads of the process.
    pub seq: u64,
    /// Nanoseconds since the trace start.
    pub t_enter_ns: u64,
    /// Nanoseconds since the trace start; 0 if the call did not return.
    pub t_exit_ns: u64,
    pub callsite: u64,
    pub ret: i32,
    pub fortran: bool,
    /// `false` if the process was still inside this call when the trace ended.
    pub complete: bool,
    /// Raw argument words; decode with [`CallRecord::args`].
    pub words: Vec<i64>,
    /// For the last call of a folded poll loop: how many identical unsuccessful calls the
    /// record stands for between the first one (the previous record) and this one.
    pub repeats: u64,
}

impl CallRecord {
    /// One `(input, output)` pair per parameter of `function`.
    pub fn args(&self, function: &FunctionSchema) -> Vec<(ArgValue, ArgValue)> {
        decode_args(function, &self.words, self.complete)
    }
}

/// How the record area ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndOfTrace {
    /// The process exited normally and every record is whole.
    Clean,
    /// The records stop early (killed, crashed, or still running); `offset` is where reading
    /// stopped and `reason` why.
    Truncated { offset: u64, reason: String },
}

#[derive(Clone, Debug)]
pub struct Trace {
    pub header: TraceHeader,
    pub schema: Schema,
    /// `NAME=value` pairs of this MPI's constants, in order.
    pub constants: Vec<(String, String)>,
    /// The last copy of `/proc/self/maps` the process wrote.
    pub proc_maps: String,
    /// `key=value` lines about the process.
    pub process: Vec<(String, String)>,
    pub calls: Vec<CallRecord>,
    /// Records whose writer never finished them (a thread was interrupted mid-write).
    pub partial_records: u64,
    pub end: EndOfTrace,
}

impl Trace {
    pub fn constant(&self, name: &str) -> Option<&str> {
        self.constants
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn function_name(&self, id: u16) -> &str {
        self.schema
            .function(id)
            .map_or("<unknown MPI function>", |f| f.name.as_str())
    }
}

pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    let bytes = std::fs::read(path).map_err(|source| TraceError::Io {
        path: path.display().to_string(),
        source,
    })?;
    read_trace_bytes(&bytes)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn i32_at(b: &[u8], at: usize) -> i32 {
    u32_at(b, at) as i32
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn known(v: i32) -> Option<i32> {
    (v >= 0).then_some(v)
}

fn parse_header(b: &[u8]) -> Result<TraceHeader, TraceError> {
    if b.len() < HEADER_SIZE {
        return Err(TraceError::TooShort { len: b.len() });
    }
    if &b[..8] != MAGIC {
        return Err(TraceError::BadMagic);
    }
    let version = u32_at(b, offset::VERSION);
    if version != FORMAT_VERSION {
        return Err(TraceError::Version { found: version });
    }
    let family_bytes = &b[offset::FAMILY..offset::FAMILY + offset::FAMILY_LEN];
    let family_len = family_bytes
        .iter()
        .position(|&c| c == 0)
        .unwrap_or(family_bytes.len());
    Ok(TraceHeader {
        version,
        pid: u32_at(b, offset::PID),
        env_rank: known(i32_at(b, offset::ENV_RANK)),
        rank: known(i32_at(b, offset::RANK)),
        world_size: known(i32_at(b, offset::WORLD_SIZE)),
        state: u32_at(b, offset::STATE),
        thread_level: known(i32_at(b, offset::THREAD_LEVEL)),
        records_end: u64_at(b, offset::RECORDS_END),
        dropped: u64_at(b, offset::DROPPED),
        start_unix_ns: u64_at(b, offset::START_UNIX_NS),
        family: String::from_utf8_lossy(&family_bytes[..family_len]).into_owned(),
        process_start: u64_at(b, offset::PROCESS_START),
        exit_records_end: u64_at(b, offset::EXIT_RECORDS_END),
        parent_pid: u32_at(b, offset::PARENT_PID),
    })
}

fn key_values(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The frame of one record, as a watcher tailing a live trace needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub offset: usize,
    pub len: usize,
    pub kind: u16,
    pub state: u8,
    /// Function id, for call records.
    pub func: u16,
}

/// Reads the frame of the record at `at`; `None` at the end of the written records (a zero
/// length, or a record that does not fit the bytes given).
pub fn frame_at(b: &[u8], at: usize) -> Option<Frame> {
    if at + 8 > b.len() {
        return None;
    }
    let len = u32_at(b, at) as usize;
    if len < 8 || len % 8 != 0 || at + len > b.len() {
        return None;
    }
    let kind = u16_at(b, at + 4);
    let func = if kind == kind::CALL && len >= CALL_FIXED_SIZE {
        u16_at(b, at + 8)
    } else {
        0
    };
    Some(Frame {
        offset: at,
        len,
        kind,
        state: b[at + 6],
        func,
    })
}

/// The kernel thread id of thread index `thread`, from a trace's header bytes (the first
/// [`HEADER_SIZE`] bytes), once that thread recorded something.
pub fn thread_tid(header: &[u8], thread: u16) -> Option<u32> {
    let at = offset::THREAD_TIDS + 4 * thread as usize;
    (at + 4 <= header.len().min(HEADER_SIZE))
        .then(|| u32_at(header, at))
        .filter(|&tid| tid != 0)
}

/// Parses the header of a trace (the first [`HEADER_SIZE`] bytes).
pub fn read_header(b: &[u8]) -> Result<TraceHeader, TraceError> {
    parse_header(b)
}

/// Parses a trace held in memory (the whole file, or a prefix of a growing one).
pub fn read_trace_bytes(b: &[u8]) -> Result<Trace, TraceError> {
    let header = parse_header(b)?;
    let mut trace = Trace {
        header,
        schema: Schema::default(),
        constants: Vec::new(),
        proc_maps: String::new(),
        process: Vec::new(),
        calls: Vec::new(),
        partial_records: 0,
        end: EndOfTrace::Clean,
    };
    let clock = clock_conversion(b);
    let mut at = HEADER_SIZE;
    let truncated = |at: usize, reason: &str| EndOfTrace::Truncated {
        offset: at as u64,
        reason: reason.to_string(),
    };
    loop {
        if at + 8 > b.len() {
            if !trace.header.exited() {
                trace.end = truncated(at, "the file ends without an end marker");
            }
            break;
        }
        let len = u32_at(b, at) as usize;
        if len == 0 {
            if !trace.header.exited() {
                trace.end = truncated(
                    at,
                    "the process did not exit normally (killed, crashed, or still running)",
                );
            }
            break;
        }
        if len < 8 || len % 8 != 0 || at + len > b.len() {
            trace.end = truncated(at, &format!("record of {len} bytes does not fit the file"));
            break;
        }
        let rec = &b[at..at + len];
        let record_kind = u16_at(rec, 4);
        let rstate = rec[6];
        let rflags = rec[7];
        match record_kind {
            kind::CALL if len >= CALL_FIXED_SIZE => {
                if rstate == record_state::RESERVED {
                    trace.partial_records += 1;
                } else {
                    let mut nwords = (len - CALL_FIXED_SIZE) / 8;
                    let complete = rstate == record_state::COMPLETE;
                    // A folded poll: its last call follows as a record of its own.
                    let mut last_of_loop = None;
                    if rflags & crate::flags::POLL != 0 && nwords >= crate::POLL_FOLD_WORDS {
                        nwords -= crate::POLL_FOLD_WORDS;
                        let repeats = u64_at(rec, CALL_FIXED_SIZE + 8 * nwords);
                        let last_enter = u64_at(rec, CALL_FIXED_SIZE + 8 * nwords + 8);
                        if complete && repeats > 0 {
                            last_of_loop = Some((repeats - 1, clock.to_ns(last_enter)));
                        }
                    }
                    let words: Vec<i64> = (0..nwords)
                        .map(|i| u64_at(rec, CALL_FIXED_SIZE + 8 * i) as i64)
                        .collect();
                    trace.calls.push(CallRecord {
                        func: u16_at(rec, 8),
                        thread: u16_at(rec, 10),
                        seq: at as u64,
                        t_enter_ns: clock.to_ns(u64_at(rec, 16)),
                        t_exit_ns: if complete {
                            clock.to_ns(u64_at(rec, 24))
                        } else {
                            0
                        },
                        callsite: u64_at(rec, 32),
                        ret: if complete { i32_at(rec, 12) } else { 0 },
                        fortran: rflags & crate::flags::FORTRAN != 0,
                        complete,
                        words,
                        repeats: 0,
                    });
                    if let Some((repeats, at_ns)) = last_of_loop {
                        let mut last = trace.calls.last().expect("just pushed").clone();
                        // Ordered right after the first call, before any later record.
                        last.seq += 1;
                        last.t_enter_ns = at_ns;
                        last.t_exit_ns = at_ns;
                        last.repeats = repeats;
                        trace.calls.push(last);
                    }
                }
            }
            kind::TEXT if len >= 16 => {
                if rstate == record_state::RESERVED {
                    trace.partial_records += 1;
                } else {
                    let subkind = u32_at(rec, 8);
                    let text_len = (u32_at(rec, 12) as usize).min(len - 16);
                    let content = String::from_utf8_lossy(&rec[16..16 + text_len]);
                    match subkind {
                        text::SCHEMA => trace.schema = Schema::parse(&content)?,
                        text::CONSTANTS => trace.constants = key_values(&content),
                        text::PROC_MAPS => trace.proc_maps = content.into_owned(),
                        text::PROCESS => trace.process = key_values(&content),
                        _ => {}
                    }
                }
            }
            // Unknown kinds are skipped: newer writers may add records old readers ignore.
            _ => {}
        }
        at += len;
    }
    Ok(trace)
}
