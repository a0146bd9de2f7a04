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
