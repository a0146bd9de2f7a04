//! A compiled program's operations kept in a temporary file once a rank has many of them,
//! so that the memory the replays' program takes does not grow with the calls (issue 14).
//!
//! A [`SpilledVec`] is an append-only sequence: its items after the last full chunk are in
//! memory, and each full chunk goes to the end of an unnamed temporary file (one per
//! analysis, [`SpillFile`], gone once closed). The replays read a rank's operations in
//! order, a chunk at a time ([`ChunkReader`]); the few operations changed after their chunk
//! was written (a receive's late match, what is settled at the end) are written in place.
//! A rank with fewer items than a chunk never touches the file, so small runs cost nothing.
//!
//! If the file cannot be made or written (a full disk), the items stay in memory: the
//! analysis then takes the memory it took before, it does not fail.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytemuck::{CheckedBitPattern, NoUninit};

/// Items per chunk written to the file: 1024 operations are 24 KiB (and 8 KiB of their
/// calls' information), so a rank holds at most that much of its program while it is
/// compiled, and each replay as much per rank it reads: 32 MiB for 1024 ranks.
pub(crate) const CHUNK: usize = 1024;

/// The unnamed temporary file the chunks of every rank's vectors are appended to.
#[derive(Debug)]
pub(crate) struct SpillFile {
    file: File,
    /// Where the next chunk goes.
    end: AtomicU64,
}

impl SpillFile {
    /// A file in `dir` (the traces' directory: a disk, where the system's temporary
    /// directory may be memory), else in the system's temporary directory; `None` if
    /// neither can hold one.
    pub(crate) fn create(dir: Option<&Path>) -> Option<Arc<SpillFile>> {
        let file = dir
            .and_then(|d| tempfile::tempfile_in(d).ok())
            .or_else(|| tempfile::tempfile().ok())?;
        Some(Arc::new(SpillFile {
            file,
            end: AtomicU64::new(0),
        }))
    }

    fn append(&self, bytes: &[u8]) -> std::io::Result<u64> {
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.file.write_all_at(bytes, at)?;
        Ok(at)
    }

    fn read(&self, at: u64, bytes: &mut [u8]) {
        // The file is ours and was written: failing to read it back is a broken disk.
        if let Err(e) = self.file.read_exact_at(bytes, at) {
            panic!("mpicheck: cannot read back the analysis's temporary file: {e}");
        }
    }

    fn write(&self, at: u64, bytes: &[u8]) {
        if let Err(e) = self.file.write_all_at(bytes, at) {
            panic!("mpicheck: cannot write the analysis's temporary file: {e}");
        }
    }
}

/// An append-only sequence of plain items whose full chunks are kept in a [`SpillFile`].
#[derive(Clone, Debug)]
pub(crate) struct SpilledVec<T> {
    file: Option<Arc<SpillFile>>,
    /// Full chunks still go to the file (false once a write failed).
    spilling: bool,
    chunk: usize,
    /// Where each chunk written starts in the file, in order.
    written: Vec<u64>,
    /// The items after the written chunks.
    tail: Vec<T>,
}

impl<T: NoUninit + CheckedBitPattern> Default for SpilledVec<T> {
    fn default() -> SpilledVec<T> {
        SpilledVec::in_memory()
    }
}

/// The chunk a reader of a [`SpilledVec`] holds.
#[derive(Debug)]
pub(crate) struct ChunkReader<T> {
    /// The index of the chunk in `items` (`usize::MAX`: none).
    chunk: usize,
    items: Vec<T>,
}

impl<T> Default for ChunkReader<T> {
    fn default() -> ChunkReader<T> {
        ChunkReader {
            chunk: usize::MAX,
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
            chunk: CHUNK,
            written: Vec::new(),
            tail: Vec::new(),
        }
    }

    /// A vector whose chunks of `chunk` items go to `file` (in memory without one).
    pub(crate) fn new(file: Option<Arc<SpillFile>>, chunk: usize) -> SpilledVec<T> {
        assert!(chunk > 0);
        SpilledVec {
            spilling: file.is_some(),
            file,
            chunk,
            written: Vec::new(),
            tail: Vec::new(),
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

    /// Room for `n` more items (as many as a chunk holds, when chunks go to the file).
    pub(crate) fn reserve(&mut self, n: usize) {
        let room = if self.spilling { n.min(self.chunk) } else { n };
        self.tail.reserve(room);
    }

    pub(crate) fn push(&mut self, item: T) {
        self.tail.push(item);
        if self.spilling && self.tail.len() == self.chunk {
            let file = self.file.as_ref().expect("spilling has a file");
            match file.append(bytemuck::cast_slice(&self.tail)) {
                Ok(at) => {
                    self.written.push(at);
                    self.tail.clear();
                }
                // A full disk: keep the rest in memory.
                Err(_) => self.spilling = false,
            }
        }
    }

    pub(crate) fn extend_from_slice(&mut self, items: &[T]) {
        for &item in items {
            self.push(item);
        }
    }

    /// Where item `i` of a written chunk is in the file.
    fn file_offset(&self, i: usize) -> u64 {
        self.written[i / self.chunk] + ((i % self.chunk) * size_of::<T>()) as u64
    }

    fn file(&self) -> &SpillFile {
        self.file.as_deref().expect("written chunks have a file")
    }

    /// Item `i` (which must exist), read from the file alone if it was written.
    pub(crate) fn get(&self, i: usize) -> T {
        let base = self.base();
        if i >= base {
            return self.tail[i - base];
        }
        let mut bytes = vec![0u8; size_of::<T>()];
        self.file().read(self.file_offset(i), &mut bytes);
        decode(&bytes)
    }

    /// Item `i`, if it exists.
    pub(crate) fn get_checked(&self, i: usize) -> Option<T> {
        (i < self.len()).then(|| self.get(i))
    }

    /// Replaces item `i` (which must exist), in the file if it was written.
    pub(crate) fn set(&mut self, i: usize, item: T) {
        let base = self.base();
        if i >= base {
            self.tail[i - base] = item;
        } else {
            self.file()
                .write(self.file_offset(i), bytemuck::bytes_of(&item));
        }
    }

    /// Item `i` (which must exist), through `reader`: a written chunk is read whole, once
    /// while the reader goes through it.
    pub(crate) fn read(&self, i: usize, reader: &mut ChunkReader<T>) -> T {
        let c = i / self.chunk;
        if c >= self.written.len() {
            return self.tail[i - self.base()];
        }
        if reader.chunk != c {
            self.load(c, reader);
        }
        reader.items[i % self.chunk]
    }

    fn load(&self, c: usize, reader: &mut ChunkReader<T>) {
        // Read into a buffer of its own: a replay holds a chunk per rank, not two.
        let mut bytes = vec![0u8; self.chunk * size_of::<T>()];
        self.file().read(self.written[c], &mut bytes);
        reader.items.clear();
        reader
            .items
            .extend(bytes.chunks_exact(size_of::<T>()).map(decode::<T>));
        reader.chunk = c;
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
        let file = SpillFile::create(None).expect("a temporary file");
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

    #[test]
    fn without_a_file_everything_stays_in_memory() {
        let mut v = SpilledVec::new(None, 2);
        v.extend_from_slice(&[1u32, 2, 3, 4, 5]);
        assert!(v.written.is_empty());
        assert_eq!(v.to_vec(), vec![1, 2, 3, 4, 5]);
    }
}
