//! Writes traces in memory, in the format the recorder writes: for tests, fixtures and tools
//! that need real-format traces without running MPI (the recorder itself writes through a
//! shared mapping and does not use this).

use crate::reader::Trace;
use crate::{kind, offset, record_state, state, text, FORMAT_VERSION, HEADER_SIZE, MAGIC};

/// One call record to write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallToWrite {
    pub func: u16,
    pub thread: u16,
    pub ret: i32,
    /// Raw clock readings (the builder's traces use `CLOCK_MONOTONIC` nanoseconds).
    pub t_enter: u64,
    pub t_exit: u64,
    pub callsite: u64,
    pub words: Vec<i64>,
    /// `false`: the record stays `ENTERED`, as for a call the process never returned from.
    pub complete: bool,
    pub fortran: bool,
    /// Written with [`crate::flags::INSTANT`]: no exit time (the reader takes the entry).
    pub instant: bool,
    /// Written as a folded poll ([`crate::flags::POLL`]): `(repeats, last_enter)`.
    pub poll: Option<(u64, u64)>,
    /// Written with [`crate::flags::ORIGINAL`]: later repeats may refer to it.
    pub original: bool,
}

/// A trace under construction: header fields, then records in the order they are added.
#[derive(Clone, Debug)]
pub struct TraceBuilder {
    header: Vec<u8>,
    records: Vec<u8>,
    /// The last function table written, which lays out the argument words of later calls.
    schema: Option<crate::Schema>,
}

impl Default for TraceBuilder {
    fn default() -> TraceBuilder {
        TraceBuilder::new()
    }
}

impl TraceBuilder {
    /// An empty trace of pid 1: no rank, not initialized, `CLOCK_MONOTONIC` times.
    pub fn new() -> TraceBuilder {
        let mut b = TraceBuilder {
            header: vec![0; HEADER_SIZE],
            records: Vec::new(),
            schema: None,
        };
        b.header[..8].copy_from_slice(MAGIC);
        b.set_u32(offset::VERSION, FORMAT_VERSION);
        b.set_u32(offset::HEADER_SIZE, HEADER_SIZE as u32);
        b.set_u32(offset::PID, 1);
        b.set_i32(offset::ENV_RANK, -1);
        b.set_i32(offset::RANK, -1);
        b.set_i32(offset::WORLD_SIZE, -1);
        b.set_i32(offset::THREAD_LEVEL, -1);
        b.set_u32(offset::CLOCK, crate::clock::MONOTONIC_NS);
        b
    }

    /// A builder holding `trace`'s header and records, with its function table reduced to
    /// the functions its calls use (a compact copy of a real trace, for fixtures). The
    /// memory map is left out; the end state (exited or not) is kept.
    pub fn from_trace(trace: &Trace) -> TraceBuilder {
        let h = &trace.header;
        let mut b = TraceBuilder::new();
        b.set_u32(offset::PID, h.pid);
        b.set_i32(offset::ENV_RANK, h.env_rank.unwrap_or(-1));
        b.set_i32(offset::RANK, h.rank.unwrap_or(-1));
        b.set_i32(offset::WORLD_SIZE, h.world_size.unwrap_or(-1));
        b.set_u32(offset::STATE, h.state);
        b.set_i32(offset::THREAD_LEVEL, h.thread_level.unwrap_or(-1));
        b.set_u64(offset::DROPPED, h.dropped);
        b.set_u64(offset::START_UNIX_NS, h.start_unix_ns);
        let family = h.family.as_bytes();
        let family = &family[..family.len().min(offset::FAMILY_LEN - 1)];
        b.header[offset::FAMILY..offset::FAMILY + family.len()].copy_from_slice(family);
        b.set_u64(offset::PROCESS_START, h.process_start);
        b.set_u32(offset::PARENT_PID, h.parent_pid);
        if !trace.process.is_empty() {
            let lines: Vec<String> = trace
                .process
                .iter()
                .map(|(k, v)| format!("{k}={v}\n"))
                .collect();
            b.text(text::PROCESS, &lines.concat());
        }
        let mut used: Vec<u16> = trace.calls.iter().map(|c| c.func).collect();
        used.sort_unstable();
        used.dedup();
        let schema: Vec<String> = used
            .iter()
            .filter_map(|&id| trace.schema.function(id))
            .map(|f| f.to_line() + "\n")
            .collect();
        b.text(text::SCHEMA, &schema.concat());
        let constants: Vec<String> = trace
            .constants
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect();
        b.text(text::CONSTANTS, &constants.concat());
        for call in &trace.calls {
            // Times were converted to ns since the start; written back as a ns clock
            // starting at 0, they read the same.
            b.call(&CallToWrite {
                func: call.func,
                thread: call.thread,
                ret: call.ret,
                t_enter: call.t_enter_ns,
                t_exit: call.t_exit_ns,
                callsite: call.callsite,
                words: call.words.clone(),
                complete: call.complete,
                fortran: call.fortran,
                instant: false,
                poll: None,
                original: false,
            });
        }
        b
    }

    pub fn set_u32(&mut self, at: usize, value: u32) -> &mut Self {
        self.header[at..at + 4].copy_from_slice(&value.to_le_bytes());
        self
    }
    pub fn set_i32(&mut self, at: usize, value: i32) -> &mut Self {
        self.set_u32(at, value as u32)
    }
    pub fn set_u64(&mut self, at: usize, value: u64) -> &mut Self {
        self.header[at..at + 8].copy_from_slice(&value.to_le_bytes());
        self
    }

    /// The world rank and size, set as `MPI_Init*` sets them (and the launcher's rank).
    pub fn rank(&mut self, rank: i32, world_size: i32) -> &mut Self {
        self.set_i32(offset::ENV_RANK, rank)
            .set_i32(offset::RANK, rank)
            .set_i32(offset::WORLD_SIZE, world_size);
        self.add_state(state::INITIALIZED)
    }

    pub fn add_state(&mut self, flags: u32) -> &mut Self {
        let current = u32::from_le_bytes(
            self.header[offset::STATE..offset::STATE + 4]
                .try_into()
                .unwrap(),
        );
        self.set_u32(offset::STATE, current | flags)
    }

    /// Appends a text record. A function table ([`text::SCHEMA`]) lays out the argument words
    /// of the calls written after it (format 4: `s4` scalars take 4 bytes).
    pub fn text(&mut self, subkind: u32, content: &str) -> &mut Self {
        if subkind == text::SCHEMA {
            self.schema = crate::Schema::parse(content).ok();
        }
        let len = (16 + content.len()).div_ceil(8) * 8;
        let start = self.records.len();
        self.records.extend_from_slice(&(len as u32).to_le_bytes());
        self.records.extend_from_slice(&kind::TEXT.to_le_bytes());
        self.records.push(record_state::COMPLETE);
        self.records.push(0);
        self.records.extend_from_slice(&subkind.to_le_bytes());
        self.records
            .extend_from_slice(&(content.len() as u32).to_le_bytes());
        self.records.extend_from_slice(content.as_bytes());
        self.records.resize(start + len, 0);
        self
    }

    /// The offset in the file of the next record appended.
    pub fn next_offset(&self) -> u64 {
        (HEADER_SIZE + self.records.len()) as u64
    }

    /// The argument bytes of `call`'s record, padded to a multiple of 8.
    fn call_args(&self, call: &CallToWrite) -> Vec<u8> {
        let mut args = match self.schema.as_ref().and_then(|s| s.function(call.func)) {
            Some(function) => crate::schema::encode_words(function, &call.words),
            None => call.words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        };
        args.resize(args.len().next_multiple_of(8), 0);
        args
    }

    /// Appends the fixed part of a call record of `len` bytes with record `flags`; the
    /// call-site word is `site` (a repeat's is the offset of its original).
    fn call_fixed_part(&mut self, call: &CallToWrite, len: usize, flags: u8, site: u64) {
        let state = if call.complete {
            record_state::COMPLETE
        } else {
            record_state::ENTERED
        };
        self.records.extend_from_slice(&(len as u32).to_le_bytes());
        self.records.extend_from_slice(&kind::CALL.to_le_bytes());
        self.records.push(state);
        self.records.push(flags);
        self.records.extend_from_slice(&call.func.to_le_bytes());
        self.records.extend_from_slice(&call.thread.to_le_bytes());
        self.records.extend_from_slice(&call.ret.to_le_bytes());
        self.records.extend_from_slice(&call.t_enter.to_le_bytes());
        self.records.extend_from_slice(&call.t_exit.to_le_bytes());
        self.records.extend_from_slice(&site.to_le_bytes());
    }

    /// Appends `call` as a repeat ([`crate::flags::REPEAT`]) of the record at `original`:
    /// its argument bytes from `keep` (a multiple of 8) on, as the recorder writes them.
    pub fn repeat(&mut self, call: &CallToWrite, original: u64, keep: usize) -> &mut Self {
        let args = self.call_args(call);
        let keep = keep.min(args.len());
        let len = crate::CALL_FIXED_SIZE + args.len() - keep;
        let instant = if call.instant {
            crate::flags::INSTANT
        } else {
            0
        };
        self.call_fixed_part(call, len, crate::flags::REPEAT | instant, original);
        self.records.extend_from_slice(&args[keep..]);
        self
    }

    /// Appends `call` as a counted repeat ([`crate::flags::COUNTED`]) of the record at
    /// `original`, as [`Self::repeat`], with its count words: `runs` (the pending bit
    /// included) and the raw `last` entry time.
    pub fn counted_repeat(
        &mut self,
        call: &CallToWrite,
        original: u64,
        keep: usize,
        runs: u64,
        last: u64,
    ) -> &mut Self {
        let args = self.call_args(call);
        let keep = keep.min(args.len());
        let len = crate::CALL_FIXED_SIZE + args.len() - keep + 8 * crate::COUNT_WORDS;
        let instant = if call.instant {
            crate::flags::INSTANT
        } else {
            0
        };
        let flags = crate::flags::REPEAT | crate::flags::COUNTED | instant;
        self.call_fixed_part(call, len, flags, original);
        self.records.extend_from_slice(&args[keep..]);
        self.records.extend_from_slice(&runs.to_le_bytes());
        self.records.extend_from_slice(&last.to_le_bytes());
        self
    }

    /// Appends a cycle record ([`kind::CYCLE`]) of `thread` counting `runs` calls (the
    /// pending bit included) of the `period` records before it, which take `span` bytes; the
    /// raw `last` entry time. See "Counted cycles" in the crate docs.
    pub fn cycle(
        &mut self,
        thread: u16,
        period: u16,
        span: u32,
        runs: u64,
        last: u64,
    ) -> &mut Self {
        self.records
            .extend_from_slice(&(crate::CYCLE_LEN as u32).to_le_bytes());
        self.records.extend_from_slice(&kind::CYCLE.to_le_bytes());
        self.records.push(record_state::COMPLETE);
        self.records.push(0);
        self.records.extend_from_slice(&period.to_le_bytes());
        self.records.extend_from_slice(&thread.to_le_bytes());
        self.records.extend_from_slice(&span.to_le_bytes());
        self.records.extend_from_slice(&runs.to_le_bytes());
        self.records.extend_from_slice(&last.to_le_bytes());
        self
    }

    /// Appends a call record.
    pub fn call(&mut self, call: &CallToWrite) -> &mut Self {
        let fold_words = call.poll.map_or(0, |_| crate::POLL_FOLD_WORDS);
        let args = self.call_args(call);
        let len = crate::CALL_FIXED_SIZE + args.len() + 8 * fold_words;
        let flag = |set: bool, flag: u8| if set { flag } else { 0 };
        let flags = flag(call.fortran, crate::flags::FORTRAN)
            | flag(call.instant, crate::flags::INSTANT)
            | flag(call.poll.is_some(), crate::flags::POLL)
            | flag(call.original, crate::flags::ORIGINAL);
        self.call_fixed_part(call, len, flags, call.callsite);
        self.records.extend_from_slice(&args);
        if let Some((repeats, last_enter)) = call.poll {
            self.records.extend_from_slice(&repeats.to_le_bytes());
            self.records.extend_from_slice(&last_enter.to_le_bytes());
        }
        self
    }

    /// The file as a process that ran its exit handlers leaves it: the end of the record
    /// area, in the header and as the end at exit, then a zero end marker.
    pub fn exited(&mut self) -> Vec<u8> {
        self.add_state(state::EXITED);
        let end = (HEADER_SIZE + self.records.len()) as u64;
        self.set_u64(offset::EXIT_RECORDS_END, end);
        self.bytes()
    }

    /// The file as it is now (a process still running or killed: no exit flag is added).
    pub fn bytes(&mut self) -> Vec<u8> {
        let end = (HEADER_SIZE + self.records.len()) as u64;
        self.set_u64(offset::RECORDS_END, end);
        let mut out = Vec::with_capacity(HEADER_SIZE + self.records.len() + 8);
        out.extend_from_slice(&self.header);
        out.extend_from_slice(&self.records);
        out.extend_from_slice(&[0; 8]);
        out
    }
}

/// A trace as the reader returns it, built directly, for tests and benches of what reads
/// traces: an MPICH process (pid 100 + `rank`) of world rank `rank` in a world of
/// `world_size`, with the `state` flags, the function table `schema` (as `Schema::parse`
/// takes it), integer `constants` and `calls`, read to a clean end.
pub fn decoded_trace(
    rank: i32,
    world_size: i32,
    state: u32,
    schema: &str,
    constants: &[(&str, i64)],
    calls: Vec<crate::CallRecord>,
) -> Trace {
    let schema = crate::Schema::parse(schema).expect("a valid function table");
    let mpi_calls = calls
        .iter()
        .filter(|c| {
            !schema
                .function(c.func)
                .is_some_and(|f| f.name.starts_with("MPICHECK_"))
        })
        .count() as u64;
    let mut calls_by_function = Vec::new();
    for c in &calls {
        let func = c.func as usize;
        if calls_by_function.len() <= func {
            calls_by_function.resize(func + 1, 0);
        }
        calls_by_function[func] += 1;
    }
    Trace {
        header: crate::TraceHeader {
            version: FORMAT_VERSION,
            pid: 100 + rank as u32,
            env_rank: Some(rank),
            rank: Some(rank),
            world_size: Some(world_size),
            state,
            thread_level: None,
            records_end: 0,
            dropped: 0,
            start_unix_ns: 0,
            family: "mpich".into(),
            process_start: 0,
            exit_records_end: 0,
            parent_pid: 0,
            abort_thread: 0,
            released: None,
        },
        schema,
        constants: constants
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
        proc_maps: String::new(),
        process: Vec::new(),
        calls,
        mpi_calls,
        calls_by_function,
        partial_records: 0,
        // (Its calls are held: they say.)
        only_thread: None,
        end: crate::EndOfTrace::Clean,
    }
}

/// A call record as the reader returns it, on thread 0 at time 0: function `func` with its
/// argument `words`, called from `callsite`, returned or not (`complete`).
pub fn decoded_call(
    func: u16,
    words: Vec<i64>,
    callsite: u64,
    complete: bool,
) -> crate::CallRecord {
    crate::CallRecord {
        func,
        thread: 0,
        seq: 0,
        t_enter_ns: 0,
        t_exit_ns: 0,
        callsite,
        ret: 0,
        fortran: false,
        complete,
        words,
        repeats: 0,
    }
}
