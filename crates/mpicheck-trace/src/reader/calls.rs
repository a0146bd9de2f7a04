//! The calls of a trace decoded one at a time ([`TraceCalls`]), on the walk over its records
//! ([`super::walk`]): repeats expanded, counted runs and cycles and folded polls turned back
//! into the calls they stand for.

use std::rc::Rc;

use super::header::{
    clock_conversion, i32_at, u16_at, u32_at, u64_at, ClockConversion, TraceHeader,
};
use super::walk::{Cycle, LastFew, TraceBytes, Walk};
use super::{CallRecord, EndOfTrace, TraceError};
use crate::schema::Schema;
use crate::{kind, record_state, text, CALL_FIXED_SIZE, HEADER_SIZE};

/// The call records of a trace, decoded one at a time in record order (the records of a
/// folded poll as two calls, see the crate documentation). `Err` only when the bytes could
/// not be read, as the last item.
///
/// Each call is shared with the reader: once its taker dropped it, the reader decodes a
/// later call into the same record, whose words keep their room. A taker that holds a call
/// or two at a time (the normalizer reads one call ahead per rank) so costs no allocation
/// per call; one that keeps every call gets a new record for each.
pub struct TraceCalls<B> {
    bytes: B,
    walk: Walk,
    clock: ClockConversion,
    /// The last call of a folded poll, returned after its first.
    last_of_loop: Option<Rc<CallRecord>>,
    /// The calls of a counted run still to return after the record's own.
    run: Option<Run>,
    /// The room of the last run's templates, empty, for the next run's: a trace may hold
    /// a counted repeat or cycle record every few calls.
    spare_templates: Vec<Rc<CallRecord>>,
    /// Format 4 and later: the trace's function table, which says each argument word's
    /// width (read from its text record, before the first call).
    layouts: Option<Schema>,
    sized_words: bool,
    /// The last repeat, expanded into its full record.
    expanded: Vec<u8>,
    /// The calls of the last [`crate::MAX_CYCLE`] call records (format 7): what a cycle
    /// record after them counts.
    recent_calls: LastFew<Rc<CallRecord>>,
    /// The records of the calls returned last, to decode later calls into.
    lent: Lent,
    /// The header says records were released ([`crate::offset::RELEASED_FROM`]): the calls
    /// cannot be read, which the first call says.
    released: Option<(u64, u64)>,
}

/// How many records [`Lent`] refills in turn: a record is refilled this many calls after
/// it was returned, when neither [`TraceCalls::recent_calls`] (the last
/// [`crate::MAX_CYCLE`] calls) nor a taker reading one call ahead holds it any more.
const LENT_RECORDS: usize = crate::MAX_CYCLE + 2;

/// The records of the calls a [`TraceCalls`] returned last, refilled in turn.
#[derive(Default)]
struct Lent {
    records: Vec<Rc<CallRecord>>,
    /// The record to refill next (once there are [`LENT_RECORDS`]): the oldest.
    next: usize,
}

impl Lent {
    /// A call that `fill` fills (every field), in the oldest record if nothing else holds
    /// it any more, else in a new record that takes its place.
    fn fill(&mut self, fill: impl FnOnce(&mut CallRecord)) -> Rc<CallRecord> {
        if self.records.len() < LENT_RECORDS {
            let mut call = CallRecord::default();
            fill(&mut call);
            self.records.push(Rc::new(call));
            return self.records[self.records.len() - 1].clone();
        }
        let record = &mut self.records[self.next];
        self.next += 1;
        if self.next == LENT_RECORDS {
            self.next = 0;
        }
        match Rc::get_mut(record) {
            Some(call) => fill(call),
            None => {
                let mut call = CallRecord::default();
                fill(&mut call);
                *record = Rc::new(call);
            }
        }
        record.clone()
    }
}

impl<B: TraceBytes> TraceCalls<B> {
    /// The calls of the trace in `bytes`, whose header is `header` (as [`super::scan_trace`] read
    /// it from the same bytes).
    pub fn new(mut bytes: B, header: &TraceHeader) -> TraceCalls<B> {
        let clock = if bytes.len() >= HEADER_SIZE {
            clock_conversion(bytes.get(0, HEADER_SIZE))
        } else {
            ClockConversion {
                start: 0,
                ns: 0,
                ticks: 1,
            }
        };
        let mut walk = Walk::new(header);
        walk.keep_originals = true;
        TraceCalls {
            released: header.released,
            bytes,
            walk,
            clock,
            last_of_loop: None,
            run: None,
            spare_templates: Vec::new(),
            layouts: None,
            sized_words: header.version >= crate::SIZED_WORDS_VERSION,
            expanded: Vec::new(),
            recent_calls: LastFew::new(),
            lent: Lent::default(),
        }
    }

    /// The calls a checked cycle record at `at` counts, as a run after nothing, with the
    /// recent calls it counts taken as its templates (the recent calls are cleared after
    /// a cycle record).
    fn cycle_run(&mut self, at: usize, cycle: &Cycle) -> Option<Run> {
        let period = cycle.members().len();
        let calls = cycle.runs + cycle.pending as u64;
        if calls == 0 || self.recent_calls.len() < period {
            return None;
        }
        let mut templates = std::mem::take(&mut self.spare_templates);
        self.recent_calls.take_last_into(period, &mut templates);
        // The walk checked the members; their calls were the last returned from records.
        if templates
            .iter()
            .zip(cycle.members())
            .any(|(call, &(member_at, _))| call.seq != member_at)
        {
            templates.clear();
            self.spare_templates = templates;
            return None;
        }
        let from_ns = templates[period - 1].t_exit_ns;
        Some(Run {
            from_ns,
            last_ns: self.clock.to_ns(cycle.last).max(from_ns),
            runs: cycle.runs,
            pending: cycle.pending,
            next: 1,
            first_seq: at as u64 - 1,
            last_seq: (at + crate::CYCLE_LEN - 1) as u64,
            templates,
        })
    }

    /// Ends the run, keeping its templates' room for the next.
    fn end_run(&mut self) {
        if let Some(run) = self.run.take() {
            self.spare_templates = run.templates;
            self.spare_templates.clear();
        }
    }
}

impl<B: TraceBytes> Iterator for TraceCalls<B> {
    type Item = Result<Rc<CallRecord>, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some((from, to)) = self.released.take() {
            // Never the zeros where the records were, taken for holes.
            self.walk.end = Some(EndOfTrace::Clean);
            return Some(Err(TraceError::Released { from, to }));
        }
        if let Some(last) = self.last_of_loop.take() {
            return Some(Ok(last));
        }
        if let Some(run) = &mut self.run {
            if let Some(call) = run.next_call(&mut self.lent) {
                return Some(Ok(call));
            }
            self.end_run();
        }
        loop {
            let Some((at, rec)) = self.walk.next_record(&mut self.bytes) else {
                return self.bytes.take_error().map(Err);
            };
            let len = rec.len();
            if self.sized_words
                && u16_at(rec, 4) == kind::TEXT
                && len >= 16
                && rec[6] != record_state::RESERVED
                && u32_at(rec, 8) == text::SCHEMA
            {
                let text_len = (u32_at(rec, 12) as usize).min(len - 16);
                // A table that does not parse fails the scan of the same trace first.
                self.layouts = Schema::parse_shared(&rec[16..16 + text_len]).ok();
                continue;
            }
            if let Some(cycle) = self.walk.cycle.take() {
                self.run = self.cycle_run(at, &cycle);
                self.recent_calls.clear();
                match self
                    .run
                    .as_mut()
                    .and_then(|run| run.next_call(&mut self.lent))
                {
                    Some(call) => return Some(Ok(call)),
                    None => continue,
                }
            }
            if u16_at(rec, 4) != kind::CALL
                || len < CALL_FIXED_SIZE
                || rec[6] == record_state::RESERVED
            {
                if self.walk.cycles {
                    self.recent_calls.clear();
                }
                continue;
            }
            let mut run = None;
            let rec: &[u8] = if self.walk.repeats && rec[7] & crate::flags::REPEAT != 0 {
                // The walk checked that the original is there.
                let Some(original) = self.walk.original(u64_at(rec, 32)) else {
                    continue;
                };
                let tail = if self.walk.counted && rec[7] & crate::flags::COUNTED != 0 {
                    run = counted_run(rec).map(|(runs, pending, last)| (runs, pending, last, len));
                    &rec[..len - 8 * crate::COUNT_WORDS]
                } else {
                    rec
                };
                expand_repeat(original, tail, &mut self.expanded);
                &self.expanded
            } else {
                rec
            };
            let (clock, layouts) = (&self.clock, self.layouts.as_ref());
            let call = self
                .lent
                .fill(|call| decode_call(rec, at, clock, layouts, call));
            // A folded poll: its last call follows as a record of its own.
            if let Some((repeats, last_enter)) = folded_poll(rec) {
                let at_ns = clock.to_ns(last_enter);
                self.last_of_loop = Some(self.lent.fill(|last| {
                    last.clone_from(&call);
                    // Ordered right after the first call, before any later record.
                    last.seq += 1;
                    last.t_enter_ns = at_ns;
                    last.t_exit_ns = at_ns;
                    last.repeats = repeats - 1;
                }));
            }
            if let Some((runs, pending, last, record_len)) = run {
                if call.complete && runs + pending as u64 > 0 {
                    let mut templates = std::mem::take(&mut self.spare_templates);
                    templates.push(call.clone());
                    self.run = Some(Run {
                        from_ns: call.t_exit_ns,
                        last_ns: clock.to_ns(last).max(call.t_exit_ns),
                        runs,
                        pending,
                        next: 1,
                        first_seq: call.seq,
                        last_seq: call.seq + record_len as u64 - 1,
                        templates,
                    });
                }
            }
            if self.walk.cycles {
                self.recent_calls.push(call.clone());
            }
            return Some(Ok(call));
        }
    }
}

/// Fills `call` (every field; its words keep their room) with the call record `rec` at
/// `at` (whole, a repeat expanded, of at least [`CALL_FIXED_SIZE`] bytes), whose argument
/// words the function table `layouts` lays out (formats 4 and later), or are 8 bytes each.
fn decode_call(
    rec: &[u8],
    at: usize,
    clock: &ClockConversion,
    layouts: Option<&Schema>,
    call: &mut CallRecord,
) {
    let (fixed, args) = rec.split_at(CALL_FIXED_SIZE);
    // The fixed part as an array: its fields are read without a check each.
    let fixed: &[u8; CALL_FIXED_SIZE] = fixed.try_into().unwrap();
    let rflags = fixed[7];
    let mut nwords = args.len() / 8;
    let complete = fixed[6] == record_state::COMPLETE;
    if rflags & crate::flags::POLL != 0 && nwords >= crate::POLL_FOLD_WORDS {
        nwords -= crate::POLL_FOLD_WORDS;
    }
    let func = u16_at(fixed, 8);
    let args = &args[..8 * nwords];
    // Into the words' room of the call decoded there before.
    if !layouts.is_some_and(|table| table.record_words_into(func, args, &mut call.words)) {
        // Formats 2 and 3, and a call the table does not describe: 8-byte words.
        call.words.clear();
        call.words.extend(
            args.chunks_exact(8)
                .map(|word| i64::from_le_bytes(word.try_into().unwrap())),
        );
    }
    call.func = func;
    call.thread = u16_at(fixed, 10);
    call.seq = at as u64;
    call.t_enter_ns = clock.to_ns(u64_at(fixed, 16));
    call.t_exit_ns = if !complete {
        0
    } else if rflags & crate::flags::INSTANT != 0 {
        call.t_enter_ns
    } else {
        clock.to_ns(u64_at(fixed, 24))
    };
    call.callsite = u64_at(fixed, 32);
    call.ret = if complete { i32_at(fixed, 12) } else { 0 };
    call.fortran = rflags & crate::flags::FORTRAN != 0;
    call.complete = complete;
    call.repeats = 0;
}

/// The calls of a counted run after the record's own (see "Counted runs" in the crate docs),
/// or of a counted cycle ("Counted cycles"): copies of the templates in turn.
struct Run {
    templates: Vec<Rc<CallRecord>>,
    /// The first call's exit and the last folded call's entry, ns.
    from_ns: u64,
    last_ns: u64,
    /// Folded calls that returned; whether one more is inside MPI.
    runs: u64,
    pending: bool,
    /// The index in the run of the next call to return (the record's own is 0).
    next: u64,
    /// Order key of call `k` of the run: `first_seq + k`, up to the record's last byte.
    first_seq: u64,
    last_seq: u64,
}

impl Run {
    /// The next call of the run, filled into a record of `lent`.
    fn next_call(&mut self, lent: &mut Lent) -> Option<Rc<CallRecord>> {
        let calls = self.runs + self.pending as u64;
        let k = self.next;
        if k > calls {
            return None;
        }
        self.next += 1;
        let template = &self.templates[(k - 1) as usize % self.templates.len()];
        let seq = (self.first_seq + k).min(self.last_seq);
        // Spread evenly from the first call's exit to the last call's entry.
        let span = self.last_ns - self.from_ns;
        let t_enter_ns = self.from_ns + (span as u128 * k as u128 / calls as u128) as u64;
        let inside = self.pending && k == calls;
        Some(lent.fill(|call| {
            call.clone_from(template);
            call.seq = seq;
            call.t_enter_ns = t_enter_ns;
            if inside {
                call.complete = false;
                call.t_exit_ns = 0;
                call.ret = 0;
            } else {
                call.t_exit_ns = t_enter_ns;
            }
        }))
    }
}

/// The `runs` (without the pending bit), whether a folded call is inside MPI, and the raw
/// `last` time of a counted repeat (whole, of at least [`CALL_FIXED_SIZE`] bytes; see
/// "Counted runs" in the crate docs); `None` for any other record.
#[inline]
pub fn counted_run(rec: &[u8]) -> Option<(u64, bool, u64)> {
    let counted = crate::flags::REPEAT | crate::flags::COUNTED;
    if rec[7] & counted != counted
        || rec.len() < CALL_FIXED_SIZE + 8 * crate::COUNT_WORDS
        || rec[6] != record_state::COMPLETE
    {
        return None;
    }
    let runs = u64_at(rec, rec.len() - 16);
    Some((
        runs & !crate::COUNT_PENDING,
        runs & crate::COUNT_PENDING != 0,
        u64_at(rec, rec.len() - 8),
    ))
}

/// The full record a repeat stands for (see "Repeated calls" in the crate docs), into `out`:
/// `repeat` is no longer than `original` and both hold at least the fixed part.
#[inline]
fn expand_repeat(original: &[u8], repeat: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(original);
    out[6] = repeat[6];
    out[7] = repeat[7] & !(crate::flags::REPEAT | crate::flags::ORIGINAL | crate::flags::COUNTED);
    // Ids and return code, entry and exit times; the call site stays the original's.
    out[8..32].copy_from_slice(&repeat[8..32]);
    let keep_end = original.len() - (repeat.len() - CALL_FIXED_SIZE);
    out[keep_end..].copy_from_slice(&repeat[CALL_FIXED_SIZE..]);
}

/// The repeats (at least 1) and the raw entry time of the last call of a call record (whole,
/// of at least [`CALL_FIXED_SIZE`] bytes) that folds a polling loop.
#[inline]
pub fn folded_poll(rec: &[u8]) -> Option<(u64, u64)> {
    let nwords = (rec.len() - CALL_FIXED_SIZE) / 8;
    if rec[7] & crate::flags::POLL == 0
        || nwords < crate::POLL_FOLD_WORDS
        || rec[6] != record_state::COMPLETE
    {
        return None;
    }
    let fold = CALL_FIXED_SIZE + 8 * (nwords - crate::POLL_FOLD_WORDS);
    let repeats = u64_at(rec, fold);
    (repeats > 0).then(|| (repeats, u64_at(rec, fold + 8)))
}
