//! The walk over a trace's records, shared by the scan and the decoding of its calls, and the
//! expansion of repeats, counted runs and counted cycles into the calls they stand for.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::header::{
    clock_conversion, i32_at, u16_at, u32_at, u64_at, ClockConversion, TraceHeader,
};
use super::{CallRecord, EndOfTrace, TraceError};
use crate::schema::Schema;
use crate::{kind, record_state, text, CALL_FIXED_SIZE, HEADER_SIZE};

/// Where the bytes of a trace come from while its records are walked: memory (a slice), or
/// a file read through a window ([`crate::open::FileWindow`]), so that a trace is decoded one
/// record at a time without being held whole.
pub trait TraceBytes {
    /// Length of the trace in bytes.
    fn len(&self) -> usize;
    /// Whether the trace has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes `at..at + n`, which lie within [`TraceBytes::len`]. A source that fails to
    /// read returns zeros (which end the walk) and reports why from [`TraceBytes::take_error`].
    fn get(&mut self, at: usize, n: usize) -> &[u8];
    /// Why reading failed, once.
    fn take_error(&mut self) -> Option<TraceError> {
        None
    }
}

impl TraceBytes for &[u8] {
    #[inline]
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    #[inline]
    fn get(&mut self, at: usize, n: usize) -> &[u8] {
        &self[at..at + n]
    }
}

/// The frame of one record, as a watcher tailing a live trace (or a test counting record
/// bytes) needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub offset: usize,
    pub len: usize,
    pub kind: u16,
    pub state: u8,
    /// The record's flags ([`crate::flags`]).
    pub flags: u8,
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
    if len < 8 || len & 7 != 0 || at + len > b.len() {
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
        flags: b[at + 7],
        func,
    })
}

/// The frames of the records of a whole trace `b` (header included), in order, up to the
/// end of the written records or the first hole (no step over holes: see [`TraceCalls`] for
/// the walk that reads every record).
pub fn frames(b: &[u8]) -> impl Iterator<Item = Frame> + '_ {
    std::iter::successors(frame_at(b, HEADER_SIZE), move |f| {
        frame_at(b, f.offset + f.len)
    })
}

/// The walk over the records of a trace: where it is and, once it stopped, why. Both passes
/// over a trace (the scan of [`scan_trace`] and the decoding of [`TraceCalls`]) step with it,
/// so they stop at the same record for the same reason.
#[derive(Clone, Debug)]
pub(super) struct Walk {
    at: usize,
    exited: bool,
    /// The end of the reserved record area (header offset 40): a zero frame below it with
    /// records after it is a hole.
    records_end: u64,
    /// Holes stepped over (records whose writer was ended before it wrote their frame).
    pub(super) holes: u64,
    /// The last step went over a hole: the next record must be a valid one.
    after_a_hole: bool,
    /// How the records stopped, once they did (before the check for a cut).
    end: Option<EndOfTrace>,
    /// The last record did not fit the file.
    bad_record: bool,
    /// Format 5 and later: records may be repeats of earlier ones ("Repeated calls").
    repeats: bool,
    /// Format 6 and later: repeats may count a run of identical calls ("Counted runs").
    pub(super) counted: bool,
    /// The latest `ORIGINAL` record of each thread, function and call site: what a repeat
    /// may refer to.
    originals: Originals,
    /// The slot in `originals` of the original of the last repeat walked.
    last_repeated: Option<usize>,
    /// Whether `originals` keep their records' bytes, which the decoding of calls expands
    /// repeats with ([`Walk::original`]).
    pub(super) keep_originals: bool,
    /// Format 7 and later: cycle records may count the calls of the records before them
    /// ("Counted cycles").
    cycles: bool,
    /// The last [`crate::MAX_CYCLE`] records walked, oldest first: what a cycle record may
    /// count.
    recent: LastFew<Recent>,
    /// The cycle record the last step returned, checked against the records before it.
    pub(super) cycle: Option<Cycle>,
    /// The records released from and to ([`crate::offset::RELEASED_FROM`]), when the walk
    /// steps over them ([`Walk::step_over_released`]): repeats and cycles after them may
    /// refer to records it never saw.
    released: Option<(usize, usize)>,
}

/// An `ORIGINAL` record a repeat may refer to.
#[derive(Clone, Debug)]
struct Original {
    offset: u64,
    /// Function and thread ids (the `u32` at offset 8).
    ids: u32,
    len: usize,
    /// The record, if the walk keeps originals' bytes (else empty).
    bytes: Vec<u8>,
}

/// The latest `ORIGINAL` record of each thread, function and call site (the `u32` of
/// function and thread ids at offset 8, the call site), found by its offset. Bounded by the
/// distinct call sites of each thread.
#[derive(Clone, Debug, Default)]
struct Originals {
    /// One slot per thread, function and call site, which each later original of theirs
    /// takes over (its bytes' room reused).
    slots: Vec<Original>,
    by_site: FxHashMap<(u32, u64), usize>,
    /// The slot of each original by offset, and of some superseded since: those whose slot
    /// holds a later offset now are no originals any more. They are dropped all at once when
    /// they outnumber the slots (the map is built again from the slots), so that an
    /// original costs one insertion here, not a removal too.
    by_offset: FxHashMap<u64, usize>,
}

impl Originals {
    /// The slot of the original at `offset`, if it is the latest of its site.
    fn slot(&self, offset: u64) -> Option<usize> {
        let slot = *self.by_offset.get(&offset)?;
        (self.slots[slot].offset == offset).then_some(slot)
    }

    /// Takes `rec` at `offset`, of `ids` and call site `site`, for the latest original of
    /// its site, with its bytes if `keep_bytes`.
    fn insert(&mut self, ids: u32, site: u64, offset: u64, rec: &[u8], keep_bytes: bool) {
        let new_slot = self.slots.len();
        let slot = *self.by_site.entry((ids, site)).or_insert(new_slot);
        if slot == new_slot {
            self.slots.push(Original {
                offset,
                ids,
                len: 0,
                bytes: Vec::new(),
            });
        }
        let original = &mut self.slots[slot];
        original.offset = offset;
        original.len = rec.len();
        if keep_bytes {
            original.bytes.clear();
            original.bytes.extend_from_slice(rec);
        }
        if self.by_offset.len() >= 4 * self.slots.len() + 256 {
            self.by_offset.clear();
            let live = self.slots.iter().enumerate();
            self.by_offset
                .extend(live.map(|(slot, original)| (original.offset, slot)));
        }
        self.by_offset.insert(offset, slot);
    }
}

/// Why a call record does not follow as a repeat must ([`Walk::follow_repeats`]); the
/// message is written only for the record the walk stops at.
#[derive(Clone, Copy, Debug)]
enum RepeatDamage {
    NoRoomForCount,
    /// The repeat refers to byte `word`.
    NoOriginal {
        word: u64,
    },
}

impl RepeatDamage {
    /// Why the walk stops at the record at `at`.
    #[cold]
    fn reason(self, at: usize) -> String {
        match self {
            RepeatDamage::NoRoomForCount => {
                format!("the counted call at byte {at} has no room for its count")
            }
            RepeatDamage::NoOriginal { word } => format!(
                "the repeated call at byte {at} refers to byte {word}, which holds no earlier call of its thread, function and call site"
            ),
        }
    }
}

/// The last [`crate::MAX_CYCLE`] items pushed, oldest first, in a ring: what a cycle record
/// may count. (A `VecDeque` would push out of line, checking whether to grow, at every
/// record.)
#[derive(Clone, Debug)]
struct LastFew<T> {
    items: [Option<T>; crate::MAX_CYCLE],
    /// Where the next item goes: the oldest item's place once the ring is full.
    next: usize,
    len: usize,
}

impl<T> LastFew<T> {
    fn new() -> LastFew<T> {
        LastFew {
            items: std::array::from_fn(|_| None),
            next: 0,
            len: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Adds `item` as the newest, dropping the oldest when the ring is full. (Once per
    /// record: `#[inline]` alone left it a call in the decoding.)
    #[inline(always)]
    fn push(&mut self, item: T) {
        self.items[self.next] = Some(item);
        self.next = (self.next + 1) % crate::MAX_CYCLE;
        self.len = (self.len + 1).min(crate::MAX_CYCLE);
    }

    fn clear(&mut self) {
        self.items.iter_mut().for_each(|item| *item = None);
        self.len = 0;
    }

    /// The index in `items` of the `i`-th of the last `n` items (`n` at most `len`).
    fn index(&self, n: usize, i: usize) -> usize {
        (self.next + crate::MAX_CYCLE - n + i) % crate::MAX_CYCLE
    }

    /// The `i`-th of the last `n` items (`n` at most `len`), oldest first.
    fn nth_of_last(&self, n: usize, i: usize) -> Option<&T> {
        self.items[self.index(n, i)].as_ref()
    }

    /// The last `n` items (at most `len`), oldest first, taken out and appended to `out`.
    fn take_last_into(&mut self, n: usize, out: &mut Vec<T>) {
        out.extend((0..n).filter_map(|i| self.items[self.index(n, i)].take()));
        self.next = self.index(n, 0);
        self.len -= n;
    }
}

/// A record the walk passed, as a cycle record after it may count it.
#[derive(Clone, Copy, Debug)]
struct Recent {
    at: usize,
    len: usize,
    func: u16,
    thread: u16,
    /// A complete call record that is neither a poll nor a counted repeat.
    member: bool,
}

/// A cycle record ("Counted cycles" in the crate docs), read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// Offsets and function ids of its members, in cycle order, in the first `period`
    /// places ([`Cycle::members`]; the rest zeros): a cycle record is checked without
    /// allocating.
    members: [(u64, u16); crate::MAX_CYCLE],
    period: usize,
    pub thread: u16,
    /// Counted calls that returned, whether one more is inside MPI, the raw `last` time.
    pub runs: u64,
    pub pending: bool,
    pub last: u64,
}

impl Cycle {
    /// Offsets and function ids of its members, in cycle order.
    pub fn members(&self) -> &[(u64, u16)] {
        &self.members[..self.period]
    }
}

/// The fields of a cycle record (whole, [`crate::CYCLE_LEN`] bytes, `COMPLETE`): period,
/// thread, span, runs (without the pending bit), pending, raw `last`; `None` for any other
/// record.
pub fn cycle_fields(rec: &[u8]) -> Option<(usize, u16, usize, u64, bool, u64)> {
    if rec.len() != crate::CYCLE_LEN
        || u16_at(rec, 4) != kind::CYCLE
        || rec[6] != record_state::COMPLETE
    {
        return None;
    }
    let runs = u64_at(rec, 16);
    Some((
        u16_at(rec, 8) as usize,
        u16_at(rec, 10),
        u32_at(rec, 12) as usize,
        runs & !crate::COUNT_PENDING,
        runs & crate::COUNT_PENDING != 0,
        u64_at(rec, 24),
    ))
}

impl Walk {
    pub(super) fn new(header: &TraceHeader) -> Walk {
        Walk {
            at: HEADER_SIZE,
            exited: header.exited(),
            records_end: header.records_end,
            holes: 0,
            after_a_hole: false,
            end: None,
            bad_record: false,
            repeats: header.version >= crate::REPEATS_VERSION,
            counted: header.version >= crate::COUNTED_VERSION,
            originals: Originals::default(),
            last_repeated: None,
            keep_originals: false,
            cycles: header.version >= crate::CYCLES_VERSION,
            recent: LastFew::new(),
            cycle: None,
            released: None,
        }
    }

    /// Makes the walk step over the records `header` says were released, as if they were
    /// not there: what it then finds (the texts, how the trace ends) is the rest's.
    pub(super) fn step_over_released(&mut self, header: &TraceHeader) {
        self.released = header.released.map(|(from, to)| {
            let offset = |o: u64| usize::try_from(o).unwrap_or(usize::MAX);
            (offset(from), offset(to))
        });
    }

    /// Whether the record at `offset` was released and stepped over.
    fn was_released(&self, offset: u64) -> bool {
        self.released
            .is_some_and(|(from, to)| (from as u64..to as u64).contains(&offset))
    }

    /// The offset and bytes of the next record, or `None` at the end of the records. The
    /// record is read once, for the walk's checks and its caller alike.
    #[inline]
    pub(super) fn next_record<'b, B: TraceBytes>(
        &mut self,
        b: &'b mut B,
    ) -> Option<(usize, &'b [u8])> {
        if self.end.is_some() {
            return None;
        }
        loop {
            let at = self.at;
            if let Some((from, to)) = self.released {
                if (from..to).contains(&at) {
                    self.at = to;
                    self.recent.clear();
                    continue;
                }
            }
            let truncated = |reason: &str| EndOfTrace::Truncated {
                offset: at as u64,
                reason: reason.to_string(),
            };
            if at + 8 > b.len() {
                self.end = Some(if self.exited {
                    EndOfTrace::Clean
                } else {
                    truncated("the file ends without an end marker")
                });
                return None;
            }
            let frame = b.get(at, 8);
            let len = u32_at(frame, 0) as usize;
            let (record_kind, state) = (u16_at(frame, 4), frame[6]);
            if len == 0 {
                if let Some(next) = self.after_hole(b, at) {
                    // A record whose writer was ended before it wrote the frame: it never got
                    // to call MPI, so no call is missing; counted, and the walk goes on.
                    self.holes += 1;
                    self.at = next;
                    self.after_a_hole = true;
                    continue;
                }
                self.end = Some(if self.exited {
                    EndOfTrace::Clean
                } else {
                    truncated(
                        "the process did not exit normally (killed, crashed, or still running)",
                    )
                });
                return None;
            }
            if len < 8 || len & 7 != 0 || at + len > b.len() {
                self.end = Some(truncated(&format!(
                    "record of {len} bytes does not fit the file"
                )));
                self.bad_record = true;
                return None;
            }
            // What follows a hole must be a record, not a stray word: unknown kinds are
            // refused there, not skipped.
            if std::mem::take(&mut self.after_a_hole)
                && (!matches!(
                    record_kind,
                    kind::CALL | kind::TEXT | kind::SKIP | kind::CYCLE
                ) || state > record_state::COMPLETE)
            {
                self.end = Some(truncated(
                    "a record left unwritten is followed by damaged bytes",
                ));
                self.bad_record = true;
                return None;
            }
            let rec = b.get(at, len);
            if self.repeats && record_kind == kind::CALL && len >= CALL_FIXED_SIZE {
                if let Err(damage) = self.follow_repeats(rec, at) {
                    self.end = Some(truncated(&damage.reason(at)));
                    self.bad_record = true;
                    return None;
                }
            }
            self.cycle = None;
            if self.cycles && record_kind == kind::CYCLE && state != record_state::RESERVED {
                match self.check_cycle(rec, at) {
                    Ok(cycle) => self.cycle = Some(cycle),
                    // Its members may be among the records released.
                    Err(_)
                        if cycle_fields(rec).is_some_and(|(_, _, span, ..)| {
                            self.was_released(at.saturating_sub(span) as u64)
                        }) => {}
                    Err(reason) => {
                        self.end = Some(truncated(&reason));
                        self.bad_record = true;
                        return None;
                    }
                }
            }
            if self.cycles {
                let head = &rec[..CALL_FIXED_SIZE.min(len)];
                let call = record_kind == kind::CALL && len >= CALL_FIXED_SIZE;
                let no_member = crate::flags::POLL | crate::flags::COUNTED;
                self.recent.push(Recent {
                    at,
                    len,
                    func: if call { u16_at(head, 8) } else { 0 },
                    thread: if call { u16_at(head, 10) } else { 0 },
                    member: call && state == record_state::COMPLETE && head[7] & no_member == 0,
                });
            }
            self.at += len;
            return Some((at, rec));
        }
    }

    /// Checks the cycle record `rec` at `at` (whole, not `RESERVED`) against the records
    /// before it: its members must be the last `period` records walked, call records of
    /// its thread that follow each other up to it (see "Counted cycles").
    fn check_cycle(&self, rec: &[u8], at: usize) -> Result<Cycle, String> {
        let damaged =
            || format!("the cycle record at byte {at} does not follow the calls it counts");
        let (period, thread, span, runs, pending, last) = cycle_fields(rec).ok_or_else(damaged)?;
        if !(2..=crate::MAX_CYCLE).contains(&period) || period > self.recent.len() {
            return Err(damaged());
        }
        let mut members = [(0, 0); crate::MAX_CYCLE];
        let mut end = at;
        for i in (0..period).rev() {
            // (Every one of the last `len` items is there.)
            let Some(m) = self.recent.nth_of_last(period, i) else {
                return Err(damaged());
            };
            if !m.member || m.thread != thread || m.at + m.len != end {
                return Err(damaged());
            }
            members[i] = (m.at as u64, m.func);
            end = m.at;
        }
        if at - end != span {
            return Err(damaged());
        }
        Ok(Cycle {
            members,
            period,
            thread,
            runs,
            pending,
            last,
        })
    }

    /// Keeps track of the records repeats may refer to, and checks that the call record
    /// `rec` at `at` (whole, of at least [`CALL_FIXED_SIZE`] bytes), if it is a repeat,
    /// refers to one.
    fn follow_repeats(&mut self, rec: &[u8], at: usize) -> Result<(), RepeatDamage> {
        let len = rec.len();
        let fixed = &rec[..CALL_FIXED_SIZE];
        let (state, rflags) = (fixed[6], fixed[7]);
        let (ids, word) = (u32_at(fixed, 8), u64_at(fixed, 32));
        if state == record_state::RESERVED {
            return Ok(()); // unwritten: skipped as a partial record
        }
        if rflags & crate::flags::REPEAT != 0 {
            let len = if self.counted && rflags & crate::flags::COUNTED != 0 {
                match len.checked_sub(8 * crate::COUNT_WORDS) {
                    Some(tail) if tail >= CALL_FIXED_SIZE => tail,
                    _ => return Err(RepeatDamage::NoRoomForCount),
                }
            } else {
                len
            };
            return match self.originals.slot(word) {
                Some(slot)
                    if self.originals.slots[slot].ids == ids
                        && len <= self.originals.slots[slot].len =>
                {
                    self.last_repeated = Some(slot);
                    Ok(())
                }
                None if self.was_released(word) => Ok(()),
                _ => Err(RepeatDamage::NoOriginal { word }),
            };
        }
        if rflags & crate::flags::ORIGINAL != 0 {
            self.originals
                .insert(ids, word, at as u64, rec, self.keep_originals);
        }
        Ok(())
    }

    /// The bytes of the original record at `offset`, which a repeat the walk passed refers
    /// to, if the walk keeps them ([`Walk::keep_originals`]).
    pub(super) fn original(&self, offset: u64) -> Option<&[u8]> {
        // Most often the original of the repeat just walked: found without a lookup.
        let slot = self
            .last_repeated
            .filter(|&slot| self.originals.slots[slot].offset == offset)
            .or_else(|| self.originals.slot(offset))?;
        Some(&self.originals.slots[slot].bytes)
    }

    /// Where the walk goes on after the zero frame at `at`, when records follow it: a hole
    /// left by a thread ended (by `exit` or a kill) between reserving a record and writing
    /// its frame. The recorder writes nothing into a record before its frame and leaves
    /// space it gives back zeroed, so a hole is all zeros and the next nonzero word below
    /// the reserved end is the next record's frame: `None` when only zeros follow (the end
    /// of the records). A nonzero word that is no frame is returned too, and the walk stops
    /// there at a damaged record.
    fn after_hole(&self, b: &mut impl TraceBytes, at: usize) -> Option<usize> {
        let end = usize::try_from(self.records_end)
            .unwrap_or(usize::MAX)
            .min(b.len());
        let mut word = at + 8;
        while word + 8 <= end {
            if b.get(word, 8) != [0; 8] {
                return Some(word);
            }
            word += 8;
        }
        None
    }

    /// How the trace ended, once the walk stopped: a trace of an exited process whose
    /// records stop before the end it wrote was cut.
    pub(super) fn end_of_trace(&self, header: &TraceHeader, file_len: usize) -> EndOfTrace {
        if !header.exited() {
            return self.end.clone().unwrap_or(EndOfTrace::Clean);
        }
        // The recorder never shrinks the file of a process that ran its exit handlers, so a
        // file shorter than the records it had then was cut afterwards. Records may still
        // stop early in a whole file (`exit` ends threads between reserving a record and
        // writing it): only the file length, or a record that does not fit before that
        // end, proves a cut. Records after that end come from calls made during `exit`.
        let file_len = file_len as u64;
        let written = header.exit_records_end;
        let cut_record = self.bad_record && (written == 0 || (self.at as u64) < written);
        if written > file_len || cut_record {
            EndOfTrace::Cut {
                offset: self.at as u64,
                file_len,
                written,
            }
        } else {
            EndOfTrace::Clean
        }
    }
}

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
        let period = cycle.period;
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
