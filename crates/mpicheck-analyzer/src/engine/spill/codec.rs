//! How a [`super::SpilledVec`]'s chunks are compressed once the file is large
//! ([`super::COMPRESS_FROM`]): as they are, or as columns of word differences, whichever is
//! smaller; and items read back from their bytes.

use bytemuck::{CheckedBitPattern, NoUninit};

/// zstd's level for the chunks: its fastest positive one (its negative ones made a varied
/// program's chunks twice as large for no time measured).
const LEVEL: i32 = 1;

/// How a written chunk's items are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// As they are in memory, not compressed (before the file holds [`super::COMPRESS_FROM`]).
    Plain,
    /// As they are in memory, compressed.
    Items,
    /// Word `w` of every item in turn, then word `w + 1`..., each word stored as its
    /// difference from the previous item's.
    Columns,
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

/// The thread's buffer for a chunk's bytes as read from the file, taken while they are
/// decoded (which uses the thread's codec too).
pub(super) fn take_read_buffer() -> Vec<u8> {
    CODEC.with_borrow_mut(|codec| std::mem::take(&mut codec.read))
}

/// The buffer [`take_read_buffer`] gave, back for the next chunk.
pub(super) fn give_back_read_buffer(buffer: Vec<u8>) {
    CODEC.with_borrow_mut(|codec| codec.read = buffer);
}

/// A chunk's items compressed in `layout`, or in whichever makes them smaller (`None`).
pub(super) fn compress<T: NoUninit>(items: &[T], layout: Option<Layout>) -> (Vec<u8>, Layout) {
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
pub(super) fn decompress<T: CheckedBitPattern>(
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
pub(super) fn decode_items<T: CheckedBitPattern>(bytes: &[u8], items: &mut Vec<T>) {
    items.clear();
    // Bytes aligned for `T` (a buffer from the allocator is) are checked in place and
    // copied at once: item by item, decoding took most of what reading a chunk costs.
    match bytemuck::checked::try_cast_slice::<u8, T>(bytes) {
        Ok(decoded) => items.extend_from_slice(decoded),
        Err(_) => items.extend(bytes.chunks_exact(size_of::<T>()).map(decode::<T>)),
    }
}

/// An item from the bytes it was written as.
pub(super) fn decode<T: CheckedBitPattern>(bytes: &[u8]) -> T {
    match bytemuck::checked::try_pod_read_unaligned(bytes) {
        Ok(item) => item,
        // Only this module writes the file, from valid items.
        Err(e) => panic!("mpicheck: the analysis's temporary file is corrupt: {e}"),
    }
}
