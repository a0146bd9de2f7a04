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
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytemuck::{CheckedBitPattern, NoUninit};
use rustc_hash::FxHashMap;

/// Items per chunk written to the file: 1024 operations are 24 KiB (and 8 KiB of their
/// calls' information), so a rank holds at most that much of its program while it is
/// compiled, and each replay as much per rank it reads: 32 MiB for 1024 ranks.
pub(crate) const CHUNK: usize = 1024;

/// zstd's level for the chunks: its fastest positive one (its negative ones made a varied
/// program's chunks twice as large for no time measured).
const LEVEL: i32 = 1;

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

/// How a written chunk's items are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// As they are in memory, not compressed (before the file holds [`COMPRESS_FROM`]).
    Plain,
    /// As they are in memory, compressed.
    Items,
    /// Word `w` of every item in turn, then word `w + 1`..., each word stored as its
    /// difference from the previous item's.
    Columns,
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

/// The chunk a reader of a [`SpilledVec`] holds.
#[derive(Debug)]
pub(crate) struct ChunkReader<T> {
    /// The index in the vector of `items[0]` (`items` is empty while the reader holds no
    /// chunk), so that an item of the chunk held is found without a division.
    first: usize,
    items: Vec<T>,
}

impl<T> Default for ChunkReader<T> {
    fn default() -> ChunkReader<T> {
        ChunkReader {
            first: 0,
            items: Vec::new(),
        }
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
        let mut reader = ChunkReader::default();
        self.load(c, &mut reader);
        reader.items[i % self.chunk] = item;
        self.rewrite(c, &reader.items);
    }

    /// Item `i` (which must exist), through `reader`: a written chunk is read whole, once
    /// while the reader goes through it.
    #[inline]
    pub(crate) fn read(&self, i: usize, reader: &mut ChunkReader<T>) -> T {
        // Read in order, nearly every item is in the chunk the reader holds.
        match reader.items.get(i.wrapping_sub(reader.first)) {
            Some(&item) => item,
            None => self.items_from(i, reader)[0],
        }
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
        // An operation's few aux words are nearly always in the chunk held: pushed one by
        // one, which costs less than the call to copy a slice.
        let held = from.wrapping_sub(reader.first);
        if held < reader.items.len() && to - from <= reader.items.len() - held {
            for &item in &reader.items[held..held + (to - from)] {
                out.push(item);
            }
            return;
        }
        self.read_into_from_chunks(from, to, reader, out);
    }

    /// [`SpilledVec::read_into`] through the chunks the items are in.
    #[inline(never)]
    fn read_into_from_chunks(
        &self,
        from: usize,
        to: usize,
        reader: &mut ChunkReader<T>,
        out: &mut Vec<T>,
    ) {
        let mut i = from;
        while i < to {
            let items = self.items_from(i, reader);
            let n = items.len().min(to - i);
            out.extend_from_slice(&items[..n]);
            i += n;
        }
    }

    /// Item `i` (which must exist) and those after it in its chunk (or in memory), through
    /// `reader`.
    #[inline(never)]
    fn items_from<'a>(&'a self, i: usize, reader: &'a mut ChunkReader<T>) -> &'a [T] {
        let in_held = i.wrapping_sub(reader.first);
        if in_held < reader.items.len() {
            return &reader.items[in_held..];
        }
        let c = i / self.chunk;
        if c >= self.written.len() {
            return &self.tail[i - self.base()..];
        }
        self.load(c, reader);
        &reader.items[i % self.chunk..]
    }

    fn load(&self, c: usize, reader: &mut ChunkReader<T>) {
        reader.first = c * self.chunk;
        if let Some(items) = self.moved_to_memory.get(&c) {
            reader.items.clone_from(items);
            return;
        }
        let chunk = self.written[c];
        // Read into the thread's buffer, not the reader's: a replay holds a chunk per rank,
        // not two. (A buffer made for each chunk cost more to zero than reading it.)
        let mut buffer = CODEC.with_borrow_mut(|codec| std::mem::take(&mut codec.read));
        let len = chunk.len as usize;
        if buffer.len() < len {
            buffer.resize(len, 0);
        }
        let bytes = &mut buffer[..len];
        self.file().read(chunk.at, bytes);
        if chunk.layout == Layout::Plain {
            decode_items(bytes, &mut reader.items);
        } else {
            decompress(bytes, chunk.layout, self.chunk, &mut reader.items);
        }
        CODEC.with_borrow_mut(|codec| codec.read = buffer);
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

/// zstd's contexts and the buffers a chunk is laid out in, one per thread: making them per
/// chunk cost more than compressing a loop's chunk.
#[derive(Default)]
struct Codec {
    compressor: Option<zstd::bulk::Compressor<'static>>,
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
    /// A chunk's words as columns of differences, or its bytes as decompressed.
    columns: Vec<u32>,
    bytes: Vec<u8>,
    /// A chunk's words decoded from columns, item after item.
    rows: Vec<u32>,
    /// A chunk's bytes as read from the file.
    read: Vec<u8>,
}

thread_local! {
    static CODEC: std::cell::RefCell<Codec> = std::cell::RefCell::default();
}

/// A chunk's items compressed in `layout`, or in whichever makes them smaller (`None`).
fn compress<T: NoUninit>(items: &[T], layout: Option<Layout>) -> (Vec<u8>, Layout) {
    CODEC.with_borrow_mut(|codec| {
        let bytes: &[u8] = bytemuck::cast_slice(items);
        // Items of whole, aligned words (all of a program's) can be laid out as columns.
        let words: Option<&[u32]> = bytemuck::try_cast_slice(items).ok();
        let Some(words) = words.filter(|_| layout != Some(Layout::Items)) else {
            return (codec.compress(bytes), Layout::Items);
        };
        let width = size_of::<T>() / 4;
        let mut columns = std::mem::take(&mut codec.columns);
        columns.clear();
        for w in 0..width {
            let mut prev = 0u32;
            columns.extend(words.iter().skip(w).step_by(width).map(|&word| {
                let delta = word.wrapping_sub(prev);
                prev = word;
                delta
            }));
        }
        let as_columns = codec.compress(bytemuck::cast_slice(&columns));
        codec.columns = columns;
        if layout == Some(Layout::Columns) {
            return (as_columns, Layout::Columns);
        }
        let as_items = codec.compress(bytes);
        if as_columns.len() < as_items.len() {
            (as_columns, Layout::Columns)
        } else {
            (as_items, Layout::Items)
        }
    })
}

/// The `n` items of a chunk compressed by [`compress`], into `items`.
fn decompress<T: CheckedBitPattern>(
    compressed: &[u8],
    layout: Layout,
    n: usize,
    items: &mut Vec<T>,
) {
    CODEC.with_borrow_mut(|codec| {
        let size = n * size_of::<T>();
        codec.decompress(compressed, size);
        let bytes = &codec.bytes;
        match layout {
            Layout::Plain | Layout::Items => decode_items(bytes, items),
            Layout::Columns => {
                items.clear();
                let width = size_of::<T>() / 4;
                let rows = &mut codec.rows;
                rows.clear();
                rows.resize(n * width, 0);
                for (w, column) in bytes.chunks_exact(4 * n).enumerate() {
                    let mut prev = 0u32;
                    for (i, delta) in column.chunks_exact(4).enumerate() {
                        let delta = u32::from_ne_bytes(delta.try_into().expect("4 bytes"));
                        prev = prev.wrapping_add(delta);
                        rows[i * width + w] = prev;
                    }
                }
                match bytemuck::checked::try_cast_slice::<u32, T>(rows) {
                    Ok(decoded) => items.extend_from_slice(decoded),
                    Err(e) => panic!("mpicheck: the analysis's temporary file is corrupt: {e}"),
                }
            }
        }
    })
}

impl Codec {
    fn compress(&mut self, bytes: &[u8]) -> Vec<u8> {
        let compressor = match &mut self.compressor {
            Some(c) => Ok(c),
            none => zstd::bulk::Compressor::new(LEVEL).map(|c| none.insert(c)),
        };
        match compressor.and_then(|c| c.compress(bytes)) {
            Ok(out) => out,
            // Compressing bytes in memory fails only without memory.
            Err(e) => panic!("mpicheck: cannot compress the analysis's temporary data: {e}"),
        }
    }

    /// Decompresses `compressed` into `self.bytes`, which it must fill with `size` bytes.
    fn decompress(&mut self, compressed: &[u8], size: usize) {
        let decompressor = match &mut self.decompressor {
            Some(d) => Ok(d),
            none => zstd::bulk::Decompressor::new().map(|d| none.insert(d)),
        };
        self.bytes.clear();
        self.bytes.reserve(size);
        match decompressor.and_then(|d| d.decompress_to_buffer(compressed, &mut self.bytes)) {
            Ok(len) if len == size => {}
            // Only this module writes the file, from whole chunks.
            Ok(_) => panic!("mpicheck: the analysis's temporary file is corrupt: a chunk's size"),
            Err(e) => panic!("mpicheck: the analysis's temporary file is corrupt: {e}"),
        }
    }
}

/// The items `bytes` hold as they are in memory, into `items`.
fn decode_items<T: CheckedBitPattern>(bytes: &[u8], items: &mut Vec<T>) {
    items.clear();
    // Bytes aligned for `T` (a buffer from the allocator is) are checked in place and
    // copied at once: item by item, decoding took most of what reading a chunk costs.
    match bytemuck::checked::try_cast_slice::<u8, T>(bytes) {
        Ok(decoded) => items.extend_from_slice(decoded),
        Err(_) => items.extend(bytes.chunks_exact(size_of::<T>()).map(decode::<T>)),
    }
}

/// An item from the bytes it was written as.
fn decode<T: CheckedBitPattern>(bytes: &[u8]) -> T {
    match bytemuck::checked::try_pod_read_unaligned(bytes) {
        Ok(item) => item,
        // Only this module writes the file, from valid items.
        Err(e) => panic!("mpicheck: the analysis's temporary file is corrupt: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{OpKind, ReplayOp};

    fn op(i: u32) -> ReplayOp {
        let mut op = ReplayOp::new(if i.is_multiple_of(3) {
            OpKind::Send
        } else {
            OpKind::Recv
        });
        op.tag = i as i32;
        op.peer = i * 7;
        op
    }

    #[test]
    fn items_come_back_whether_written_or_in_memory() {
        let file = SpillFile::create(None, u64::MAX).expect("a temporary file");
        let mut spilled = SpilledVec::new(Some(file.clone()), 4);
        let mut other = SpilledVec::new(Some(file), 3);
        let mut memory = SpilledVec::in_memory();
        for i in 0..23 {
            spilled.push(op(i));
            other.push(i);
            memory.push(op(i));
        }
        assert_eq!(
            spilled.written.len(),
            5,
            "five full chunks went to the file"
        );
        assert!(spilled.written.iter().all(|c| c.layout == Layout::Plain));
        assert_eq!(spilled.tail.len(), 3);
        assert_eq!(spilled.to_vec(), memory.to_vec());
        assert_eq!(other.to_vec(), (0..23).collect::<Vec<u32>>());
        // Changed in place, in the file and in memory.
        spilled.set(5, op(100));
        spilled.set(21, op(101));
        assert_eq!(spilled.get(5), op(100));
        assert_eq!(spilled.get(21), op(101));
        assert_eq!(spilled.get_checked(23), None);
        let mut reader = ChunkReader::default();
        for i in [0, 5, 6, 20, 21, 22, 1] {
            let expected = match i {
                5 => op(100).tag,
                21 => op(101).tag,
                _ => op(i as u32).tag,
            };
            assert_eq!(spilled.read(i, &mut reader).tag, expected);
        }
    }

    /// A loop's operations: the same calls, with request ids and aux offsets that grow.
    fn loop_op(i: u32) -> ReplayOp {
        let mut op = ReplayOp::new([OpKind::Recv, OpKind::Send, OpKind::Wait][i as usize % 3]);
        op.peer = 1;
        op.tag = 7;
        op.a = i / 3 * 2;
        op
    }

    /// Operations with no pattern to find (a fixed pseudo-random sequence).
    fn scattered_op(i: u32) -> ReplayOp {
        let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = || {
            x ^= x >> 29;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (x >> 32) as u32
        };
        let mut op = ReplayOp::new(OpKind::Send);
        op.flags = next() as u8;
        op.comm = next();
        op.peer = next();
        op.tag = next() as i32;
        op.a = next();
        op.b = next();
        op
    }

    #[test]
    fn a_loops_chunks_take_little_of_the_file_and_come_back_whole() {
        let file = SpillFile::create(None, 0).expect("a temporary file");
        let mut spilled = SpilledVec::new(Some(file.clone()), CHUNK);
        let n = 21 * CHUNK as u32 + 5;
        for i in 0..n {
            spilled.push(loop_op(i));
        }
        assert_eq!(
            spilled.written.len(),
            20,
            "the last full chunk stays in memory"
        );
        assert!(spilled.written.iter().all(|c| c.layout == Layout::Columns));
        let raw = 20 * CHUNK * size_of::<ReplayOp>();
        assert!(
            file.len() * 100 < raw as u64,
            "a loop's chunks compress at least 100 times: {} bytes for {raw}",
            file.len()
        );
        assert_eq!(spilled.to_vec(), (0..n).map(loop_op).collect::<Vec<_>>());
    }

    #[test]
    fn chunks_without_a_pattern_come_back_whole() {
        let file = SpillFile::create(None, 0).expect("a temporary file");
        let mut ops = SpilledVec::new(Some(file.clone()), 64);
        let mut words = SpilledVec::new(Some(file), 64);
        for i in 0..1000 {
            ops.push(scattered_op(i));
            words.push(scattered_op(i).comm);
        }
        assert!(ops.written.iter().any(|c| c.layout == Layout::Items));
        assert_eq!(
            ops.to_vec(),
            (0..1000).map(scattered_op).collect::<Vec<_>>()
        );
        assert_eq!(
            words.to_vec(),
            (0..1000).map(|i| scattered_op(i).comm).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_chunk_changed_to_need_more_room_moves_and_keeps_its_neighbours() {
        let file = SpillFile::create(None, 0).expect("a temporary file");
        let mut spilled = SpilledVec::new(Some(file.clone()), 256);
        for i in 0..1024 {
            spilled.push(loop_op(i));
        }
        let before = spilled.written[1];
        let mut expected: Vec<ReplayOp> = (0..1024).map(loop_op).collect();
        // Items without a pattern make the chunk's compressed bytes larger.
        for (i, op) in expected.iter_mut().enumerate().take(300).skip(256) {
            *op = scattered_op(i as u32);
            spilled.set(i, *op);
        }
        let after = spilled.written[1];
        assert!(after.len > before.len && after.at >= file.len() - after.len as u64);
        assert_eq!(spilled.to_vec(), expected);
        // A change that does not make it larger stays where the chunk is.
        let at = spilled.written[0].at;
        spilled.set(3, loop_op(3));
        assert_eq!(spilled.written[0].at, at);
        assert_eq!(spilled.to_vec(), expected);
    }

    #[test]
    fn chunks_past_the_threshold_are_compressed_and_all_read_and_change_alike() {
        // Two plain chunks of 64 operations (1,536 bytes each) before compression starts.
        let file = SpillFile::create(None, 3000).expect("a temporary file");
        let mut spilled = SpilledVec::new(Some(file), 64);
        for i in 0..640 {
            spilled.push(loop_op(i));
        }
        let layouts: Vec<Layout> = spilled.written.iter().map(|c| c.layout).collect();
        assert_eq!(layouts[..2], [Layout::Plain, Layout::Plain]);
        assert!(
            layouts[2..].iter().all(|&l| l == Layout::Columns),
            "{layouts:?}"
        );
        let mut expected: Vec<ReplayOp> = (0..640).map(loop_op).collect();
        for i in [5, 70, 130, 300, 575, 639] {
            spilled.set(i, scattered_op(i as u32));
            expected[i] = scattered_op(i as u32);
            assert_eq!(spilled.get(i), expected[i]);
        }
        assert_eq!(spilled.to_vec(), expected);
    }

    #[test]
    fn a_chunk_that_grows_on_a_full_disk_stays_in_memory() {
        let file = SpillFile::create(None, 0).expect("a temporary file");
        let mut spilled = SpilledVec::new(Some(file.clone()), 64);
        for i in 0..320 {
            spilled.push(loop_op(i));
        }
        assert_eq!(spilled.written.len(), 4);
        file.full.store(true, Ordering::Relaxed);
        let mut expected: Vec<ReplayOp> = (0..320).map(loop_op).collect();
        for (i, op) in expected.iter_mut().enumerate().take(120).skip(70) {
            *op = scattered_op(i as u32);
            spilled.set(i, *op);
        }
        assert_eq!(spilled.moved_to_memory.keys().collect::<Vec<_>>(), [&1]);
        assert_eq!(spilled.get(100), expected[100]);
        assert_eq!(spilled.to_vec(), expected);
        // New chunks stay in memory too.
        for i in 320..500 {
            spilled.push(loop_op(i));
            expected.push(loop_op(i));
        }
        assert_eq!(spilled.written.len(), 4);
        assert_eq!(spilled.to_vec(), expected);
    }

    #[test]
    fn bytes_written_over_a_file_read_as_last_written() {
        let mut over = BytesOverFile::default();
        let mut expected = vec![0u8; 64];
        let mut write = |over: &mut BytesOverFile, at: usize, bytes: &[u8]| {
            over.write(at as u64, bytes);
            expected[at..at + bytes.len()].copy_from_slice(bytes);
            let mut read = vec![0u8; 64];
            over.lay_over(0, &mut read);
            assert_eq!(read, expected, "after {} bytes at {at}", bytes.len());
        };
        write(&mut over, 8, &[1; 8]);
        write(&mut over, 10, &[2; 2]); // inside a range
        write(&mut over, 4, &[3; 8]); // over a range's start
        write(&mut over, 14, &[4; 10]); // over a range's end
        write(&mut over, 2, &[5; 30]); // over all of them
        write(&mut over, 40, &[6; 4]);
        write(&mut over, 40, &[7; 8]); // the same start, longer
        let mut part = vec![9u8; 6];
        over.lay_over(42, &mut part);
        assert_eq!(part, [7, 7, 7, 7, 7, 7]);
        let mut part = vec![9u8; 4];
        over.lay_over(46, &mut part);
        assert_eq!(part, [7, 7, 9, 9], "bytes never written are the file's");
    }

    #[test]
    fn a_copy_of_the_analysis_leaves_the_file_as_it_was() {
        for compress_from in [u64::MAX, 0] {
            let file = SpillFile::create(None, compress_from).expect("a temporary file");
            let mut spilled = SpilledVec::new(Some(file.clone()), 64);
            let mut expected: Vec<ReplayOp> = (0..320).map(loop_op).collect();
            for op in &expected {
                spilled.push(*op);
            }
            let mut before = Vec::new();
            use std::io::{Read, Seek};
            let mut handle = file.file.try_clone().unwrap();
            handle.rewind().unwrap();
            handle.read_to_end(&mut before).unwrap();
            assert!(!before.is_empty());
            file.keeps_writes.store(true, Ordering::Relaxed);
            // Changed (compressed chunks grow and move), and appended to.
            for (i, op) in expected.iter_mut().enumerate().skip(3).step_by(5) {
                *op = scattered_op(i as u32);
                spilled.set(i, *op);
            }
            for i in 320..700 {
                spilled.push(loop_op(i));
                expected.push(loop_op(i));
            }
            assert_eq!(spilled.to_vec(), expected, "compress from {compress_from}");
            let mut reader = ChunkReader::default();
            for (i, op) in expected.iter().enumerate() {
                assert_eq!(spilled.read(i, &mut reader), *op);
            }
            let mut after = Vec::new();
            handle.rewind().unwrap();
            handle.read_to_end(&mut after).unwrap();
            assert!(before == after, "compress from {compress_from}");
        }
    }

    #[test]
    fn without_a_file_everything_stays_in_memory() {
        let mut v = SpilledVec::new(None, 2);
        v.extend_from_slice(&[1u32, 2, 3, 4, 5]);
        assert!(v.written.is_empty());
        assert_eq!(v.to_vec(), vec![1, 2, 3, 4, 5]);
    }
}
