//! A compiled program's operations kept in a temporary file once a rank has many of them,
//! so that the memory the replays' program takes does not grow with the calls (issue 14).
//!
//! A [`SpilledVec`] is an append-only sequence: its items after the last full chunk are in
//! memory, and each full chunk goes to the end of an unnamed temporary file (one per
//! analysis, [`SpillFile`], gone once closed). The replays read a rank's operations in
//! order, a chunk at a time ([`ChunkReader`]); the few operations changed after their chunk
//! was written (a receive's late match, what is settled at the end) are written again. A
//! rank with fewer items than a chunk never touches the file, so small runs cost nothing.
//!
//! Once the file holds [`COMPRESS_FROM`] bytes (a long run: ~2 M operations), chunks are
//! compressed with zstd (level 1), as they are or as columns of words each stored as its
//! difference from the word above, whichever is smaller: operations of a loop differ in
//! little but counters (request ids, offsets) that grow by the same step, which the columns
//! make runs of equal bytes. A loop's chunk then takes ~100 bytes, a varied program's ~1/12
//! of its size, so the disk a long run's analysis takes grows ~12 to ~200 times slower
//! (issue 14), for ~12% more time past that point (BENCHMARKS.md). A compressed chunk is
//! written once the next one is full too, so that a late change nearly always finds it
//! still in memory: changing a written one costs a decompression and a compression.
//!
//! If the file cannot be made or written (a full disk), the items stay in memory: the
//! analysis then takes the memory it took before, it does not fail.
//!
//! A copy of a running analysis made by `fork` (`mpicheck run` judges a stall in one while
//! the original reads on) shares the file with the original: once
//! [`keep_temporary_files_unchanged`] is called, what the copy writes stays in its memory,
//! laid over the file's bytes when read ([`BytesOverFile`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytemuck::{CheckedBitPattern, NoUninit};
use rustc_hash::FxHashMap;

mod codec;
use codec::{compress, decode, decompress, Layout};

/// Items per chunk written to the file: 1024 operations are 24 KiB (and 8 KiB of their
/// calls' information), so a rank holds at most that much of its program while it is
/// compiled, and each replay as much per rank it reads: 32 MiB for 1024 ranks.
pub(crate) const CHUNK: usize = 1024;

/// The bytes the file holds before chunks are compressed: analyses shorter than that
/// take no time compressing.
pub(crate) const COMPRESS_FROM: u64 = 64 << 20;

/// Set in a copy of a running analysis ([`keep_temporary_files_unchanged`]).
static WRITES_STAY_IN_MEMORY: AtomicBool = AtomicBool::new(false);

/// For a copy of a running analysis made by `fork` (`mpicheck run` judges a stall in one
/// while the original reads on): the temporary files are the original's too, which goes on
/// with them, so from now on what this process writes to them stays in its memory, and
/// nothing of them is given back.
pub fn keep_temporary_files_unchanged() {
    WRITES_STAY_IN_MEMORY.store(true, Ordering::Release);
}

/// The unnamed temporary file the chunks of every rank's vectors are appended to.
#[derive(Debug)]
pub(crate) struct SpillFile {
    file: File,
    /// Where the next chunk goes.
    end: AtomicU64,
    /// Chunks appended from this offset on are compressed.
    compress_from: u64,
    /// What was written since writes stay in memory.
    written_in_memory: Mutex<BytesOverFile>,
    /// Appends fail as on a full disk (tests).
    #[cfg(test)]
    full: AtomicBool,
    /// Writes stay in memory, as in a copy of the analysis (tests).
    #[cfg(test)]
    keeps_writes: AtomicBool,
}

impl SpillFile {
    /// A file in `dir` (the traces' directory: a disk, where the system's temporary
    /// directory may be memory), else in the system's temporary directory; `None` if
    /// neither can hold one.
    /// Chunks are compressed once it holds `compress_from` bytes.
    pub(crate) fn create(dir: Option<&Path>, compress_from: u64) -> Option<Arc<SpillFile>> {
        let file = dir
            .and_then(|d| tempfile::tempfile_in(d).ok())
            .or_else(|| tempfile::tempfile().ok())?;
        Some(Arc::new(SpillFile {
            file,
            end: AtomicU64::new(0),
            compress_from,
            written_in_memory: Default::default(),
            #[cfg(test)]
            full: Default::default(),
            #[cfg(test)]
            keeps_writes: Default::default(),
        }))
    }

    /// Whether writes stay in memory ([`keep_temporary_files_unchanged`]).
    fn writes_stay_in_memory(&self) -> bool {
        let copy = WRITES_STAY_IN_MEMORY.load(Ordering::Acquire);
        #[cfg(test)]
        let copy = copy || self.keeps_writes.load(Ordering::Relaxed);
        copy
    }

    fn in_memory(&self) -> std::sync::MutexGuard<'_, BytesOverFile> {
        self.written_in_memory
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the next chunks are compressed.
    fn compresses(&self) -> bool {
        self.end.load(Ordering::Relaxed) >= self.compress_from
    }

    fn append(&self, bytes: &[u8]) -> std::io::Result<u64> {
        #[cfg(test)]
        if self.full.load(Ordering::Relaxed) {
            return Err(std::io::ErrorKind::StorageFull.into());
        }
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        match self.writes_stay_in_memory() {
            true => self.in_memory().write(at, bytes),
            false => self.file.write_all_at(bytes, at)?,
        }
        Ok(at)
    }

    fn read(&self, at: u64, bytes: &mut [u8]) {
        if self.writes_stay_in_memory() {
            // (What was appended since is not in the file: past its end.)
            let mut read = 0;
            while read < bytes.len() {
                match self.file.read_at(&mut bytes[read..], at + read as u64) {
                    Ok(0) => break,
                    Ok(n) => read += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        panic!("mpicheck: cannot read back the analysis's temporary file: {e}")
                    }
                }
            }
            bytes[read..].fill(0);
            self.in_memory().lay_over(at, bytes);
            return;
        }
        // The file is ours and was written: failing to read it back is a broken disk.
        if let Err(e) = self.file.read_exact_at(bytes, at) {
            panic!("mpicheck: cannot read back the analysis's temporary file: {e}");
        }
    }

    fn write(&self, at: u64, bytes: &[u8]) {
        if self.writes_stay_in_memory() {
            return self.in_memory().write(at, bytes);
        }
        if let Err(e) = self.file.write_all_at(bytes, at) {
            panic!("mpicheck: cannot write the analysis's temporary file: {e}");
        }
    }

    /// Gives back the disk of bytes no chunk uses any more (where the file system can).
    fn give_back(&self, at: u64, len: u64) {
        if self.writes_stay_in_memory() {
            // (Another process may still read them.)
            return;
        }
        // SAFETY: fallocate on a descriptor we own; a failure only keeps the blocks.
        unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                at as libc::off_t,
                len as libc::off_t,
            );
        }
    }

    /// Bytes of the file, holes included (tests).
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }
}

/// Bytes written over a file without changing it, by offset: every range that covers a
/// byte holds the byte's last value (a write changes each range it overlaps), so a read
/// lays them over the file's bytes in any order.
#[derive(Debug, Default)]
struct BytesOverFile {
    ranges: BTreeMap<u64, Vec<u8>>,
    /// The longest range's length: no range that starts further before an offset reaches it.
    longest: u64,
}

impl BytesOverFile {
    /// The ranges that overlap `at..at + len`, by their start.
    fn overlapping(&mut self, at: u64, len: u64) -> impl Iterator<Item = (u64, &mut Vec<u8>)> {
        let from = at.saturating_sub(self.longest);
        self.ranges
            .range_mut(from..at + len)
            .filter(move |(start, range)| **start + range.len() as u64 > at)
            .map(|(start, range)| (*start, range))
    }

    fn write(&mut self, at: u64, bytes: &[u8]) {
        let len = bytes.len() as u64;
        let mut covered = false;
        for (start, range) in self.overlapping(at, len) {
            let (in_range, in_bytes) = overlap(start, range.len(), at, bytes.len());
            range[in_range].copy_from_slice(&bytes[in_bytes.clone()]);
            covered |= in_bytes == (0..bytes.len());
        }
        if !covered {
            // (A range that starts here is shorter, else it covers: it is all written over.)
            self.ranges.insert(at, bytes.to_vec());
            self.longest = self.longest.max(len);
        }
    }

    /// Lays what was written of `at..at + bytes.len()` over `bytes`, that range's bytes in
    /// the file.
    fn lay_over(&mut self, at: u64, bytes: &mut [u8]) {
        let len = bytes.len();
        for (start, range) in self.overlapping(at, len as u64) {
            let (in_range, in_bytes) = overlap(start, range.len(), at, len);
            bytes[in_bytes].copy_from_slice(&range[in_range]);
        }
    }
}

/// Where the `range_len` bytes at `start` and the `len` bytes at `at` overlap (they do):
/// the indices of the common bytes in each.
fn overlap(
    start: u64,
    range_len: usize,
    at: u64,
    len: usize,
) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let from = start.max(at);
    let to = (start + range_len as u64).min(at + len as u64);
    (
        (from - start) as usize..(to - start) as usize,
        (from - at) as usize..(to - at) as usize,
    )
}

/// Where a chunk is in the file, and how to read it back.
#[derive(Clone, Copy, Debug)]
struct WrittenChunk {
    at: u64,
    len: u32,
    layout: Layout,
}

/// An append-only sequence of plain items whose full chunks are kept in a [`SpillFile`].
/// Not `Clone`: a copy would read chunks the original may have moved.
#[derive(Debug)]
pub(crate) struct SpilledVec<T> {
    file: Option<Arc<SpillFile>>,
    /// Full chunks still go to the file (false once a write failed).
    spilling: bool,
    chunk: usize,
    /// The length of `tail` at which a push looks at writing its first chunk to the file:
    /// one chunk, two once the file compresses (it holds a chunk back), never when not
    /// spilling.
    write_at: usize,
    /// The chunks written, in order.
    written: Vec<WrittenChunk>,
    /// Written chunks that grew when changed and found no room at the end of the file (a
    /// full disk), by index: they stay in memory.
    moved_to_memory: FxHashMap<usize, Vec<T>>,
    /// The items after the written chunks.
    tail: Vec<T>,
    /// The layout the chunks are written in between trials of both.
    layout: LayoutChoice,
}

/// Which [`Layout`] a vector's next chunk is compressed in: both are tried on one chunk in
/// [`LayoutChoice::TRIAL_EVERY`], and the smaller one is kept for the next ones, so that a
/// chunk is compressed about once, not twice.
#[derive(Clone, Copy, Debug, Default)]
struct LayoutChoice {
    /// The layout of the last trial's winner (`None`: no trial yet).
    chosen: Option<Layout>,
    /// Chunks written since the last trial.
    since_trial: u32,
}

impl LayoutChoice {
    const TRIAL_EVERY: u32 = 16;

    /// The layouts to compress the next chunk in.
    fn next(&mut self) -> Option<Layout> {
        match self.chosen {
            Some(layout) if self.since_trial + 1 < Self::TRIAL_EVERY => {
                self.since_trial += 1;
                Some(layout)
            }
            _ => {
                self.since_trial = 0;
                None
            }
        }
    }
}

impl<T: NoUninit + CheckedBitPattern> Default for SpilledVec<T> {
    fn default() -> SpilledVec<T> {
        SpilledVec::in_memory()
    }
}

/// The chunk a reader of a [`SpilledVec`] holds, as the bytes it was written as: each item
/// is decoded as it is read. (Decoding the whole chunk into items when it was loaded
/// copied it once more: ~24 instructions per operation under callgrind, which counts the
/// `rep movsb` of a large copy byte by byte.)
#[derive(Debug)]
pub(crate) struct ChunkReader<T> {
    /// The index in the vector of the first item held (none while `len` is 0), so that an
    /// item of the chunk held is found without a division.
    first: usize,
    /// How many items it holds.
    len: usize,
    bytes: Vec<u8>,
    items: PhantomData<T>,
}

impl<T> Default for ChunkReader<T> {
    fn default() -> ChunkReader<T> {
        ChunkReader {
            first: 0,
            len: 0,
            bytes: Vec::new(),
            items: PhantomData,
        }
    }
}

impl<T: CheckedBitPattern> ChunkReader<T> {
    /// Item `i` of the vector, if the chunk held has it.
    #[inline]
    fn get(&self, i: usize) -> Option<T> {
        let k = i.wrapping_sub(self.first);
        if k >= self.len {
            return None;
        }
        let size = size_of::<T>();
        Some(decode(&self.bytes[k * size..(k + 1) * size]))
    }

    /// Holds the items of chunk `first..`: `items`, as bytes.
    fn hold_items(&mut self, first: usize, items: &[T])
    where
        T: NoUninit,
    {
        self.first = first;
        self.len = items.len();
        self.bytes.clear();
        self.bytes.extend_from_slice(bytemuck::cast_slice(items));
    }
}

impl<T: NoUninit + CheckedBitPattern> SpilledVec<T> {
    /// A vector that stays in memory.
    pub(crate) fn in_memory() -> SpilledVec<T> {
        SpilledVec {
            file: None,
            spilling: false,
            write_at: usize::MAX,
            chunk: CHUNK,
            written: Vec::new(),
            moved_to_memory: FxHashMap::default(),
            tail: Vec::new(),
            layout: LayoutChoice::default(),
        }
    }

    /// A vector whose chunks of `chunk` items go to `file` (in memory without one).
    pub(crate) fn new(file: Option<Arc<SpillFile>>, chunk: usize) -> SpilledVec<T> {
        assert!(chunk > 0);
        SpilledVec {
            spilling: file.is_some(),
            write_at: if file.is_some() { chunk } else { usize::MAX },
            file,
            chunk,
            written: Vec::new(),
            moved_to_memory: FxHashMap::default(),
            tail: Vec::new(),
            layout: LayoutChoice::default(),
        }
    }

    /// The index of the first item in memory.
    fn base(&self) -> usize {
        self.written.len() * self.chunk
    }

    /// How many items are in memory.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.tail.len()
    }

    pub(crate) fn len(&self) -> usize {
        self.base() + self.tail.len()
    }

    /// Room for `n` more items (as many as two chunks hold, when chunks go to the file).
    pub(crate) fn reserve(&mut self, n: usize) {
        let room = if self.spilling {
            n.min(2 * self.chunk)
        } else {
            n
        };
        self.tail.reserve(room);
    }

    /// Appends an item (inlined: the compiler pushes two items per event, and a call to
    /// push cost more than the push).
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        self.tail.push(item);
        if self.tail.len() < self.write_at {
            return;
        }
        self.write_front();
    }

    /// Writes the first chunk in memory to the file, once the memory holds enough.
    #[inline(never)]
    fn write_front(&mut self) {
        if !self.spilling {
            self.write_at = usize::MAX;
            return;
        }
        let file = self.file.as_deref().expect("spilling has a file");
        let compresses = file.compresses();
        // (Once the file compresses it always does: the next look is at two chunks.)
        self.write_at = if compresses {
            2 * self.chunk
        } else {
            self.chunk
        };
        if compresses && self.tail.len() < 2 * self.chunk {
            return;
        }
        let first = &self.tail[..self.chunk];
        let written = if compresses {
            let (bytes, layout) = compress(first, self.layout.next());
            self.layout.chosen = Some(layout);
            file.append(&bytes).map(|at| (at, bytes.len(), layout))
        } else {
            let bytes: &[u8] = bytemuck::cast_slice(first);
            file.append(bytes)
                .map(|at| (at, bytes.len(), Layout::Plain))
        };
        match written {
            Ok((at, len, layout)) => {
                self.written.push(WrittenChunk {
                    at,
                    len: len as u32,
                    layout,
                });
                self.tail.drain(..self.chunk);
            }
            // A full disk: keep the rest in memory.
            Err(_) => {
                self.spilling = false;
                self.write_at = usize::MAX;
            }
        }
    }

    pub(crate) fn extend_from_slice(&mut self, items: &[T]) {
        for &item in items {
            self.push(item);
        }
    }

    fn file(&self) -> &SpillFile {
        self.file.as_deref().expect("written chunks have a file")
    }

    /// Item `i` (which must exist); a compressed one is read with its whole chunk, so the
    /// replays read through a [`ChunkReader`] instead.
    pub(crate) fn get(&self, i: usize) -> T {
        let base = self.base();
        if i >= base {
            return self.tail[i - base];
        }
        if let Some(at) = self.plain_offset(i) {
            let mut bytes = vec![0u8; size_of::<T>()];
            self.file().read(at, &mut bytes);
            return decode(&bytes);
        }
        let mut reader = ChunkReader::default();
        self.read(i, &mut reader)
    }

    /// Where written item `i` is in the file, if its chunk is not compressed.
    fn plain_offset(&self, i: usize) -> Option<u64> {
        let chunk = self.written[i / self.chunk];
        (chunk.layout == Layout::Plain)
            .then(|| chunk.at + ((i % self.chunk) * size_of::<T>()) as u64)
    }

    /// Item `i`, if it exists.
    pub(crate) fn get_checked(&self, i: usize) -> Option<T> {
        (i < self.len()).then(|| self.get(i))
    }

    /// Replaces item `i` (which must exist); a compressed one's chunk is written again.
    pub(crate) fn set(&mut self, i: usize, item: T) {
        let base = self.base();
        if i >= base {
            self.tail[i - base] = item;
            return;
        }
        if let Some(at) = self.plain_offset(i) {
            self.file().write(at, bytemuck::bytes_of(&item));
            return;
        }
        let c = i / self.chunk;
        if let Some(items) = self.moved_to_memory.get_mut(&c) {
            items[i % self.chunk] = item;
            return;
        }
        let mut items = self.chunk_items(c);
        items[i % self.chunk] = item;
        self.rewrite(c, &items);
    }

    /// Item `i` (which must exist), through `reader`: a written chunk is read whole, once
    /// while the reader goes through it.
    #[inline]
    pub(crate) fn read(&self, i: usize, reader: &mut ChunkReader<T>) -> T {
        // Read in order, nearly every item is in the chunk the reader holds.
        match reader.get(i) {
            Some(item) => item,
            None => self.read_not_held(i, reader),
        }
    }

    /// [`SpilledVec::read`] of an item the reader does not hold: in memory, or in the
    /// chunk it loads.
    #[inline(never)]
    fn read_not_held(&self, i: usize, reader: &mut ChunkReader<T>) -> T {
        let c = i / self.chunk;
        if c >= self.written.len() {
            return self.tail[i - self.base()];
        }
        self.load(c, reader);
        reader.get(i).expect("a written chunk holds its items")
    }

    /// Items `from..to` (which must exist) appended to `out`, through `reader`.
    #[inline]
    pub(crate) fn read_into(
        &self,
        from: usize,
        to: usize,
        reader: &mut ChunkReader<T>,
        out: &mut Vec<T>,
    ) {
        // An operation's few aux words are nearly always in the chunk held.
        let held = from.wrapping_sub(reader.first);
        if held < reader.len && to - from <= reader.len - held {
            for i in from..to {
                out.push(reader.get(i).expect("held"));
            }
            return;
        }
        self.read_into_not_held(from, to, reader, out);
    }

    /// [`SpilledVec::read_into`] of items the reader does not hold all of.
    #[inline(never)]
    fn read_into_not_held(
        &self,
        from: usize,
        to: usize,
        reader: &mut ChunkReader<T>,
        out: &mut Vec<T>,
    ) {
        for i in from..to {
            out.push(self.read(i, reader));
        }
    }

    /// Makes `reader` hold written chunk `c`.
    fn load(&self, c: usize, reader: &mut ChunkReader<T>) {
        if let Some(items) = self.moved_to_memory.get(&c) {
            reader.hold_items(c * self.chunk, items);
            return;
        }
        let chunk = self.written[c];
        let len = chunk.len as usize;
        if chunk.layout == Layout::Plain {
            // Read into the reader's bytes, which stay the size of a chunk.
            reader.bytes.resize(len, 0);
            self.file().read(chunk.at, &mut reader.bytes);
            reader.first = c * self.chunk;
            reader.len = len / size_of::<T>();
            return;
        }
        // Read into the thread's buffer, not the reader's: a replay holds a chunk per rank,
        // not two. (A buffer made for each chunk cost more to zero than reading it.)
        let mut buffer = codec::take_read_buffer();
        if buffer.len() < len {
            buffer.resize(len, 0);
        }
        let bytes = &mut buffer[..len];
        self.file().read(chunk.at, bytes);
        let mut items = Vec::new();
        decompress(bytes, chunk.layout, self.chunk, &mut items);
        codec::give_back_read_buffer(buffer);
        reader.hold_items(c * self.chunk, &items);
    }

    /// The items of written chunk `c`.
    fn chunk_items(&self, c: usize) -> Vec<T> {
        let mut reader = ChunkReader::default();
        self.load(c, &mut reader);
        (0..reader.len)
            .map(|k| reader.get(reader.first + k).expect("held"))
            .collect()
    }

    /// Writes compressed chunk `c` again as `items`: where it was if it fits, else at the
    /// end of the file, giving back where it was, else (a full disk) into memory.
    fn rewrite(&mut self, c: usize, items: &[T]) {
        let old = self.written[c];
        // One item changed: the chunk's layout is still the better one.
        let (bytes, layout) = compress(items, Some(old.layout));
        let file = self.file.as_deref().expect("written chunks have a file");
        let at = if bytes.len() <= old.len as usize {
            file.write(old.at, &bytes);
            old.at
        } else {
            let moved = file.append(&bytes);
            file.give_back(old.at, old.len as u64);
            match moved {
                Ok(at) => at,
                Err(_) => {
                    self.moved_to_memory.insert(c, items.to_vec());
                    return;
                }
            }
        };
        self.written[c] = WrittenChunk {
            at,
            len: bytes.len() as u32,
            layout,
        };
    }

    /// Frees the memory the tail does not use (the vectors grew by doubling).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.tail.shrink_to_fit();
    }

    /// Every item, in order (tests and small programs).
    pub(crate) fn to_vec(&self) -> Vec<T> {
        let mut reader = ChunkReader::default();
        (0..self.len()).map(|i| self.read(i, &mut reader)).collect()
    }
}

#[cfg(test)]
mod tests;
