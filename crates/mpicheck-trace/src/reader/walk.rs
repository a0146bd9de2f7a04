//! The walk over a trace's records, shared by the scan and the decoding of its calls
//! ([`super::calls`]): frames, holes, released records, and the originals of repeats and the
//! members of counted cycles, checked as they come.

use rustc_hash::FxHashMap;

use super::header::{u16_at, u32_at, u64_at, TraceHeader};
use super::{EndOfTrace, TraceError};
use crate::{kind, record_state, CALL_FIXED_SIZE, HEADER_SIZE};

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
/// end of the written records or the first hole (no step over holes: see [`super::TraceCalls`] for
/// the walk that reads every record).
pub fn frames(b: &[u8]) -> impl Iterator<Item = Frame> + '_ {
    std::iter::successors(frame_at(b, HEADER_SIZE), move |f| {
        frame_at(b, f.offset + f.len)
    })
}

/// The walk over the records of a trace: where it is and, once it stopped, why. Both passes
/// over a trace (the scan of [`super::scan_trace`] and the decoding of
/// [`super::TraceCalls`]) step with it, so they stop at the same record for the same reason.
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
    pub(super) end: Option<EndOfTrace>,
    /// The last record did not fit the file.
    bad_record: bool,
    /// Format 5 and later: records may be repeats of earlier ones ("Repeated calls").
    pub(super) repeats: bool,
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
    pub(super) cycles: bool,
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
    /// The call site.
    site: u64,
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
    /// Offset and slot of each original, and of some superseded since, in walk order: by
    /// increasing offset, found by a binary search. Those whose slot holds a later offset
    /// now are no originals any more; they are dropped all at once when they outnumber the
    /// slots, so that an original costs a push here, not a hash insertion (and a removal).
    by_offset: Vec<(u64, u32)>,
    /// The slot last taken or found for some ids, by [`hint_index`]: a repeat's original, or
    /// the slot of a new original, is most often there, found without a search.
    hints: [u32; HINTS],
}

/// Places in [`Originals::hints`].
const HINTS: usize = 32;

/// The place in [`Originals::hints`] of the function and thread ids `ids`.
#[inline]
fn hint_index(ids: u32) -> usize {
    (ids ^ (ids >> 16).wrapping_mul(31)) as usize % HINTS
}

impl Originals {
    /// The slot of the original at `offset` (of `ids`), if it is the latest of its site.
    #[inline]
    fn slot(&mut self, ids: u32, offset: u64) -> Option<usize> {
        let hint = &mut self.hints[hint_index(ids)];
        if let Some(original) = self.slots.get(*hint as usize) {
            if original.offset == offset {
                return Some(*hint as usize);
            }
        }
        let found = self.by_offset.binary_search_by_key(&offset, |&(o, _)| o);
        let slot = self.by_offset[found.ok()?].1 as usize;
        (self.slots[slot].offset == offset).then(|| {
            *hint = slot as u32;
            slot
        })
    }

    /// Takes `rec` at `offset` (beyond every original taken so far), of `ids` and call site
    /// `site`, for the latest original of its site, with its bytes if `keep_bytes`.
    fn insert(&mut self, ids: u32, site: u64, offset: u64, rec: &[u8], keep_bytes: bool) {
        let hint = self.hints[hint_index(ids)] as usize;
        // Most often an original of the site of the last one of its ids: found without a
        // lookup.
        let slot = match self.slots.get(hint) {
            Some(original) if original.ids == ids && original.site == site => hint,
            _ => {
                let new_slot = self.slots.len();
                let slot = *self.by_site.entry((ids, site)).or_insert(new_slot);
                if slot == new_slot {
                    self.slots.push(Original {
                        offset,
                        ids,
                        site,
                        len: 0,
                        bytes: Vec::new(),
                    });
                }
                slot
            }
        };
        let original = &mut self.slots[slot];
        original.offset = offset;
        original.len = rec.len();
        if keep_bytes {
            original.bytes.clear();
            original.bytes.extend_from_slice(rec);
        }
        if self.by_offset.len() >= 4 * self.slots.len() + 256 {
            let slots = &self.slots;
            self.by_offset
                .retain(|&(offset, slot)| slots[slot as usize].offset == offset);
        }
        self.by_offset.push((offset, slot as u32));
        self.hints[hint_index(ids)] = slot as u32;
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
pub(super) struct LastFew<T> {
    items: [Option<T>; crate::MAX_CYCLE],
    /// Where the next item goes: the oldest item's place once the ring is full.
    next: usize,
    len: usize,
}

impl<T> LastFew<T> {
    pub(super) fn new() -> LastFew<T> {
        LastFew {
            items: std::array::from_fn(|_| None),
            next: 0,
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds `item` as the newest, dropping the oldest when the ring is full. (Once per
    /// record: `#[inline]` alone left it a call in the decoding.)
    #[inline(always)]
    pub(super) fn push(&mut self, item: T) {
        self.items[self.next] = Some(item);
        self.next = (self.next + 1) % crate::MAX_CYCLE;
        self.len = (self.len + 1).min(crate::MAX_CYCLE);
    }

    pub(super) fn clear(&mut self) {
        self.items.iter_mut().for_each(|item| *item = None);
        self.len = 0;
    }

    /// The index in `items` of the `i`-th of the last `n` items (`n` at most `len`).
    fn index(&self, n: usize, i: usize) -> usize {
        (self.next + crate::MAX_CYCLE - n + i) % crate::MAX_CYCLE
    }

    /// The `i`-th of the last `n` items (`n` at most `len`), oldest first.
    pub(super) fn nth_of_last(&self, n: usize, i: usize) -> Option<&T> {
        self.items[self.index(n, i)].as_ref()
    }

    /// The last `n` items (at most `len`), oldest first, taken out and appended to `out`.
    pub(super) fn take_last_into(&mut self, n: usize, out: &mut Vec<T>) {
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
            return match self.originals.slot(ids, word) {
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

    /// The bytes of the original record at `offset`, which the repeat the walk just passed
    /// refers to, if the walk keeps them ([`Walk::keep_originals`]): found when the walk
    /// checked the repeat (`None` for one whose original was released).
    pub(super) fn original(&self, offset: u64) -> Option<&[u8]> {
        let slot = self
            .last_repeated
            .filter(|&slot| self.originals.slots[slot].offset == offset)?;
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
