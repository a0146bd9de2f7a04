//! The trace header: who wrote the trace, how its process ended, and how its raw call times
//! convert to nanoseconds.

use super::TraceError;
use crate::{offset, state, FORMAT_VERSION, HEADER_SIZE, MAGIC, MAX_WORLD_SIZE};

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
    /// Index + 1 of the thread inside whose MPI call MPI aborted the job; 0 if none
    /// ([`state::ABORTED_IN_CALL`]).
    pub abort_thread: u32,
    /// The records from the first offset to the second were released once analyzed
    /// ([`offset::RELEASED_FROM`]); `None` if nothing was.
    pub released: Option<(u64, u64)>,
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
    #[inline]
    pub fn to_ns(&self, raw: u64) -> u64 {
        let since = raw.saturating_sub(self.start);
        let ticks = self.ticks.max(1);
        if self.ns == ticks {
            // A clock in nanoseconds (`clock::MONOTONIC_NS`): no product, no division.
            return since;
        }
        // The product in 64 bits when it fits (a 64-bit division, not a call for 128): the
        // same quotient.
        match since.checked_mul(self.ns) {
            Some(product) => product / ticks,
            None => (since as u128 * self.ns as u128 / ticks as u128) as u64,
        }
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
    /// The index of the thread inside whose MPI call MPI aborted the job, if it did and the
    /// exit handlers did not run.
    pub fn aborted_in_call(&self) -> Option<u16> {
        if self.state & state::ABORTED_IN_CALL == 0 || self.exited() {
            return None;
        }
        u16::try_from(self.abort_thread.checked_sub(1)?).ok()
    }
    /// Recording stopped because the trace could not grow; `dropped` calls are missing.
    pub fn no_space(&self) -> bool {
        self.state & state::NO_SPACE != 0
    }
    /// The program closed the trace's file descriptor ([`state::FILE_CLOSED`]).
    pub fn file_closed(&self) -> bool {
        self.state & state::FILE_CLOSED != 0
    }
    /// The best known rank: the world rank, else the launcher's.
    pub fn best_rank(&self) -> Option<i32> {
        self.rank.or(self.env_rank)
    }
}

#[inline]
pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
#[inline]
pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
#[inline]
pub(super) fn i32_at(b: &[u8], at: usize) -> i32 {
    u32_at(b, at) as i32
}
#[inline]
pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn known(v: i32) -> Option<i32> {
    (v >= 0).then_some(v)
}

pub(super) fn parse_header(b: &[u8]) -> Result<TraceHeader, TraceError> {
    if b.len() < HEADER_SIZE {
        return Err(TraceError::TooShort { len: b.len() });
    }
    if &b[..8] != MAGIC {
        return Err(TraceError::BadMagic);
    }
    let version = u32_at(b, offset::VERSION);
    if !(crate::OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(TraceError::Version { found: version });
    }
    let env_rank = known(i32_at(b, offset::ENV_RANK));
    let rank = known(i32_at(b, offset::RANK));
    let world_size = known(i32_at(b, offset::WORLD_SIZE));
    for (what, value) in [("rank", env_rank), ("rank", rank)] {
        if value.is_some_and(|r| r as u32 >= MAX_WORLD_SIZE) {
            return Err(TraceError::BadHeader(format!(
                "it claims {what} {}, beyond the {MAX_WORLD_SIZE} ranks mpicheck supports",
                value.unwrap_or_default()
            )));
        }
    }
    if let Some(size) = world_size.filter(|&s| s as u32 > MAX_WORLD_SIZE) {
        return Err(TraceError::BadHeader(format!(
            "it claims a world of {size} ranks, more than the {MAX_WORLD_SIZE} mpicheck supports"
        )));
    }
    if let (Some(r), Some(size)) = (rank, world_size) {
        if r >= size {
            return Err(TraceError::BadHeader(format!(
                "it claims rank {r} in a world of {size} ranks"
            )));
        }
    }
    let family_bytes = &b[offset::FAMILY..offset::FAMILY + offset::FAMILY_LEN];
    let family_len = family_bytes
        .iter()
        .position(|&c| c == 0)
        .unwrap_or(family_bytes.len());
    Ok(TraceHeader {
        version,
        pid: u32_at(b, offset::PID),
        env_rank,
        rank,
        world_size,
        state: u32_at(b, offset::STATE),
        thread_level: known(i32_at(b, offset::THREAD_LEVEL)),
        records_end: u64_at(b, offset::RECORDS_END),
        dropped: u64_at(b, offset::DROPPED),
        start_unix_ns: u64_at(b, offset::START_UNIX_NS),
        family: String::from_utf8_lossy(&family_bytes[..family_len]).into_owned(),
        process_start: u64_at(b, offset::PROCESS_START),
        exit_records_end: u64_at(b, offset::EXIT_RECORDS_END),
        parent_pid: u32_at(b, offset::PARENT_PID),
        abort_thread: u32_at(b, offset::ABORT_THREAD),
        released: match (
            u64_at(b, offset::RELEASED_FROM),
            u64_at(b, offset::RELEASED_TO),
        ) {
            (from, to) if from >= HEADER_SIZE as u64 && to > from => Some((from, to)),
            _ => None,
        },
    })
}

pub(super) fn key_values(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::ClockConversion;

    #[test]
    fn times_convert_as_a_128_bit_ratio_would() {
        let exact = |c: &ClockConversion, raw: u64| {
            let since = raw.saturating_sub(c.start) as u128;
            (since * c.ns as u128 / c.ticks.max(1) as u128) as u64
        };
        let conversions = [
            (0, 1, 1),
            (1000, 0, 1),
            (77, 1_000_000_000, 2_994_374_000),
            (5, 3, 0),
            (0, u64::MAX, 7),
        ]
        .map(|(start, ns, ticks)| ClockConversion { start, ns, ticks });
        for c in &conversions {
            let huge = u64::MAX / 3_000_000_000;
            for raw in [0, 4, 1000, 123_456_789_012, huge, u64::MAX / 2, u64::MAX] {
                assert_eq!(c.to_ns(raw), exact(c, raw), "{c:?} at {raw}");
            }
        }
    }
}
