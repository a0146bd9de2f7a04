//! Reads a per-process trace. A trace cut short (the process was killed, crashed or is still
//! running) is read up to its last whole record, and [`EndOfTrace`] says how far it got.
//! A trace whose process ran to its end but which lacks calls all the same (a copy cut
//! short, a full disk) says so through [`Trace::incomplete`].
//!
//! Nothing in a trace is trusted: every length and count is checked against the bytes
//! there are, and a header claiming more ranks than [`crate::MAX_WORLD_SIZE`] is refused, so a
//! damaged or hostile file costs memory and time bounded by its size.
//!
//! The header and its clock conversion are read in `reader/header.rs`; the walk over the
//! records, shared by the scan and the decoding, in `reader/walk.rs`; the decoding of the
//! calls, which expands repeats, counted runs and cycles into calls, in `reader/calls.rs`.

use std::path::Path;

use crate::schema::{decode_args, decode_args_into, ArgValue, FunctionSchema, Schema, SchemaError};
use crate::{kind, record_state, text, CALL_FIXED_SIZE, FORMAT_VERSION, HEADER_SIZE};

mod calls;
mod header;
mod walk;

pub use calls::{counted_run, folded_poll, TraceCalls};
pub use header::{clock_conversion, read_header, thread_tid, ClockConversion, TraceHeader};
use header::{key_values, parse_header, u16_at, u32_at};
use walk::Walk;
pub use walk::{cycle_fields, frame_at, frames, Cycle, Frame, TraceBytes};

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("not an mpicheck trace (bad magic)")]
    BadMagic,
    #[error("trace format version {found} is not supported (this mpicheck reads versions {} to {FORMAT_VERSION})", crate::OLDEST_READABLE_VERSION)]
    Version { found: u32 },
    #[error("trace is {len} bytes, shorter than its {HEADER_SIZE}-byte header")]
    TooShort { len: usize },
    #[error("trace has a bad function table: {0}")]
    Schema(#[from] SchemaError),
    #[error("{path} is {what}, not a trace file")]
    NotAFile { path: String, what: &'static str },
    #[error("trace header is damaged: {0}")]
    BadHeader(String),
    /// A trace read while its process writes it was no longer wanted
    /// ([`crate::follow::FollowUntil::stop`]).
    #[error("the reading was stopped")]
    Stopped,
    /// The trace's records from byte `from` to `to` were released during the run
    /// ([`crate::offset::RELEASED_FROM`]): it cannot be read from its start any more.
    #[error("its records from byte {from} to {to} were released during the run, once the analysis that followed the job had read them (`mpicheck run --keep-traces` keeps traces whole)")]
    Released { from: u64, to: u64 },
}

/// One MPI call as recorded.
#[derive(Debug, Default, PartialEq, Eq)]
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

impl Clone for CallRecord {
    fn clone(&self) -> CallRecord {
        let mut call = CallRecord {
            words: Vec::new(),
            ..*self
        };
        call.words.clone_from(&self.words);
        call
    }

    /// Into the argument words' buffer of `self` when it has room (the reader's recent
    /// calls are copied into the buffers of older ones, without allocating).
    fn clone_from(&mut self, source: &CallRecord) {
        let mut words = std::mem::take(&mut self.words);
        words.clone_from(&source.words);
        *self = CallRecord { words, ..*source };
    }
}

impl CallRecord {
    /// One `(input, output)` pair per parameter of `function`.
    pub fn args(&self, function: &FunctionSchema) -> Vec<(ArgValue, ArgValue)> {
        decode_args(function, &self.words, self.complete)
    }

    /// As [`CallRecord::args`], into `values` (cleared first), whose room is reused.
    pub fn args_into(&self, function: &FunctionSchema, values: &mut Vec<(ArgValue, ArgValue)>) {
        decode_args_into(function, &self.words, self.complete, values)
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
    /// The process exited normally, but the file lacks records it wrote: it was cut after
    /// the process finished (a truncated copy) or damaged. `offset` is where reading
    /// stopped, `file_len` the file's length and `written` the end of the records the
    /// process left (0 if its recorder did not say).
    Cut {
        offset: u64,
        file_len: u64,
        written: u64,
    },
}

/// Why a trace of a process that ran to its end lacks some of its calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// The file was cut after the process wrote it (see [`EndOfTrace::Cut`]).
    Cut {
        offset: u64,
        file_len: u64,
        written: u64,
    },
    /// The recorder stopped because the trace could not grow (disk full, quota, file size
    /// limit, or `file_closed`: the program closed the trace's descriptor); `dropped` calls
    /// were not recorded.
    NoSpace { dropped: u64, file_closed: bool },
}

impl std::fmt::Display for Incomplete {
    /// Why, as a clause: "the file is 1000 bytes, the process wrote 2000".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Incomplete::Cut {
                file_len, written, ..
            } if written > file_len => write!(
                f,
                "the file is {file_len} bytes, but the process wrote {written}"
            ),
            Incomplete::Cut { offset, .. } => write!(
                f,
                "the record at byte {offset} is damaged or runs past the end of the file"
            ),
            Incomplete::NoSpace {
                dropped,
                file_closed,
            } => {
                match dropped {
                    0 => write!(f, "recording stopped")?,
                    1 => write!(f, "1 call was not recorded")?,
                    n => write!(f, "{n} calls were not recorded")?,
                }
                match file_closed {
                    false => write!(f, " because the trace could not grow (file system full, over quota, or over the file size limit of `ulimit -f`)"),
                    true => write!(f, " because the program closed the trace's file descriptor (a double close?); mpicheck left alone the file that took its number"),
                }
            }
        }
    }
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
    /// The decoded calls: empty when the trace was only scanned ([`scan_trace`]), whose
    /// calls [`TraceCalls`] decodes as they are needed.
    pub calls: Vec<CallRecord>,
    /// Calls of MPI functions (not mpicheck's `MPICHECK_*` pseudo-calls) in the trace,
    /// counted as [`Trace::calls`] would hold them (a folded poll as two), whether or not
    /// it holds them.
    pub mpi_calls: u64,
    /// Calls by function id, counted as [`Trace::mpi_calls`] counts them.
    pub calls_by_function: Vec<u64>,
    /// Records whose writer never finished them (a thread was interrupted mid-write), holes
    /// (records whose frame was never written, see "Holes" in the crate docs) included.
    pub partial_records: u64,
    /// The thread every call record of the trace came from (`MPICHECK_*` pseudo-calls
    /// included), when the scan read them all and they came from one: the process's other
    /// threads, if any, never recorded. `None`: records of several threads, none, or some
    /// stepped over ([`scan_trace_past_released`]).
    pub only_thread: Option<u16>,
    pub end: EndOfTrace,
}

impl Trace {
    pub fn constant(&self, name: &str) -> Option<&str> {
        self.constants
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    /// The names of the functions the trace holds calls of.
    pub fn called_functions(&self) -> impl Iterator<Item = &str> {
        self.calls_by_function
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(id, _)| self.function_name(id as u16))
    }

    /// Sets [`Trace::calls_by_function`], and [`Trace::mpi_calls`] from it.
    pub fn set_calls_by_function(&mut self, calls_by_function: Vec<u64>) {
        self.mpi_calls = calls_by_function
            .iter()
            .enumerate()
            .filter(|&(func, _)| !self.function_name(func as u16).starts_with("MPICHECK_"))
            .map(|(_, &n)| n)
            .sum();
        self.calls_by_function = calls_by_function;
    }

    pub fn function_name(&self, id: u16) -> &str {
        self.schema
            .function(id)
            .map_or("<unknown MPI function>", |f| f.name.as_str())
    }

    /// Whether calls the process made are missing although it ran to its end: the file was
    /// cut after it was written, or the recorder ran out of space. The analysis must not
    /// take such a trace for the whole story of its process.
    pub fn incomplete(&self) -> Option<Incomplete> {
        if let EndOfTrace::Cut {
            offset,
            file_len,
            written,
        } = self.end
        {
            return Some(Incomplete::Cut {
                offset,
                file_len,
                written,
            });
        }
        (self.header.no_space() || self.header.dropped > 0).then_some(Incomplete::NoSpace {
            dropped: self.header.dropped,
            file_closed: self.header.file_closed(),
        })
    }
}

/// Reads the trace file at `path`, opened with [`crate::open::open_trace_file`]: a named
/// pipe, a link or a device in a trace directory is an error, never a hang.
pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    read_trace_bytes(&crate::open::read_trace_file(path)?)
}

/// Reads the header, text records and end of a trace, without decoding its calls:
/// [`Trace::calls`] is empty, [`Trace::mpi_calls`] counts them, and [`TraceCalls`] decodes
/// them afterwards one at a time.
/// A trace some of whose records were released ([`crate::offset::RELEASED_FROM`]) is refused
/// ([`TraceError::Released`]): its calls cannot be read.
pub fn scan_trace(b: &mut impl TraceBytes) -> Result<Trace, TraceError> {
    scan(b, false)
}

/// [`scan_trace`], stepping over the records that were released, if any: the texts and end
/// of the rest, with only the rest's calls counted (for the reader that analyzed the
/// released records as they came, and counted them then).
pub fn scan_trace_past_released(b: &mut impl TraceBytes) -> Result<Trace, TraceError> {
    scan(b, true)
}

fn scan(b: &mut impl TraceBytes, past_released: bool) -> Result<Trace, TraceError> {
    if b.len() < HEADER_SIZE {
        return Err(TraceError::TooShort { len: b.len() });
    }
    let header = parse_header(b.get(0, HEADER_SIZE))?;
    let mut walk = Walk::new(&header);
    let stepped_over_released = past_released && header.released.is_some();
    match header.released {
        Some(_) if past_released => walk.step_over_released(&header),
        Some((from, to)) => return Err(TraceError::Released { from, to }),
        None => {}
    }
    let mut trace = Trace {
        header,
        schema: Schema::default(),
        constants: Vec::new(),
        proc_maps: String::new(),
        process: Vec::new(),
        calls: Vec::new(),
        mpi_calls: 0,
        calls_by_function: Vec::new(),
        partial_records: 0,
        only_thread: None,
        end: EndOfTrace::Clean,
    };
    // Call records by function id: the schema may come after calls in a damaged trace.
    let mut calls_by_function: Vec<u64> = Vec::new();
    // The bits of the call records' threads that some has and that all have: equal when
    // one thread made them all (unequal when there are none).
    let (mut thread_bits_any, mut thread_bits_all) = (0u16, u16::MAX);
    while let Some((_, rec)) = walk.next_record(b) {
        let len = rec.len();
        let record_kind = u16_at(rec, 4);
        let rstate = rec[6];
        match record_kind {
            kind::CALL if len >= CALL_FIXED_SIZE => {
                if rstate == record_state::RESERVED {
                    trace.partial_records += 1;
                } else {
                    let func = u16_at(rec, 8) as usize;
                    // (A cycle's calls are its member records', counted here.)
                    let thread = u16_at(rec, 10);
                    thread_bits_any |= thread;
                    thread_bits_all &= thread;
                    if calls_by_function.len() <= func {
                        calls_by_function.resize(func + 1, 0);
                    }
                    let run = if walk.counted {
                        counted_run(rec).map_or(0, |(runs, pending, _)| runs + pending as u64)
                    } else {
                        0
                    };
                    calls_by_function[func] += 1 + folded_poll(rec).is_some() as u64 + run;
                }
            }
            kind::TEXT if len >= 16 => {
                if rstate == record_state::RESERVED {
                    trace.partial_records += 1;
                } else {
                    let subkind = u32_at(rec, 8);
                    let text_len = (u32_at(rec, 12) as usize).min(len - 16);
                    let bytes = &rec[16..16 + text_len];
                    let content = || String::from_utf8_lossy(bytes);
                    match subkind {
                        text::SCHEMA => trace.schema = Schema::parse_shared(bytes)?,
                        text::CONSTANTS => trace.constants = key_values(&content()),
                        text::PROC_MAPS => trace.proc_maps = content().into_owned(),
                        text::PROCESS => trace.process = key_values(&content()),
                        _ => {}
                    }
                }
            }
            kind::CYCLE => {
                if let Some(cycle) = &walk.cycle {
                    let calls = cycle.runs + cycle.pending as u64;
                    let period = cycle.members().len() as u64;
                    for (i, &(_, func)) in cycle.members().iter().enumerate() {
                        let func = func as usize;
                        if calls_by_function.len() <= func {
                            calls_by_function.resize(func + 1, 0);
                        }
                        calls_by_function[func] +=
                            calls / period + u64::from((i as u64) < calls % period);
                    }
                }
            }
            // Unknown kinds are skipped: newer writers may add records old readers ignore.
            _ => {}
        }
    }
    if let Some(error) = b.take_error() {
        return Err(error);
    }
    trace.set_calls_by_function(calls_by_function);
    trace.only_thread =
        (thread_bits_any == thread_bits_all && !stepped_over_released).then_some(thread_bits_any);
    trace.partial_records += walk.holes;
    trace.end = walk.end_of_trace(&trace.header, b.len());
    Ok(trace)
}

/// Parses a trace held in memory (the whole file, or a prefix of a growing one), with all
/// its calls decoded: [`scan_trace`], then [`TraceCalls`] collected.
pub fn read_trace_bytes(b: &[u8]) -> Result<Trace, TraceError> {
    let mut trace = scan_trace(&mut { b })?;
    let calls: Result<Vec<CallRecord>, TraceError> = TraceCalls::new(b, &trace.header)
        .map(|call| call.map(std::rc::Rc::unwrap_or_clone))
        .collect();
    trace.calls = calls?;
    // Held until the trace is analyzed: not the doubling vector's spare room (up to half).
    trace.calls.shrink_to_fit();
    Ok(trace)
}

#[cfg(test)]
mod tests;
