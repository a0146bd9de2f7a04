//! Unit tests of the reader: call times, cut and damaged traces, holes, impossible headers.

use super::*;
use crate::builder::{CallToWrite, TraceBuilder};
use crate::{offset, state, MAX_WORLD_SIZE};

const SCHEMA: &str = "0 MPI_Barrier comm:COMMUNICATOR:in:s\n";

fn barriers(n: usize) -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SCHEMA);
    for i in 0..n {
        b.call(&CallToWrite {
            func: 0,
            words: vec![0x44000000],
            complete: true,
            t_enter: 10 * i as u64,
            t_exit: 10 * i as u64 + 5,
            ..Default::default()
        });
    }
    b
}

#[test]
fn an_instant_call_leaves_when_it_entered() {
    let mut b = barriers(0);
    for instant in [true, false] {
        b.call(&CallToWrite {
            func: 0,
            words: vec![0x44000000],
            complete: true,
            t_enter: 100,
            t_exit: if instant { 0 } else { 130 },
            instant,
            ..Default::default()
        });
    }
    let trace = read_trace_bytes(&b.exited()).unwrap();
    let times: Vec<_> = trace
        .calls
        .iter()
        .map(|c| (c.t_enter_ns, c.t_exit_ns))
        .collect();
    assert_eq!(times, [(100, 100), (100, 130)]);
}

/// MPICH's `MPI_Send`, `MPI_Recv` and `MPI_Waitall` as a format 4 writer describes them:
/// `int`s and `int` handles (arrays of them too) in 4 bytes, the buffer in 8, statuses
/// packed; and `MPI_Isend` with Open MPI's 8-byte handles.
const SIZED: &str = "0 MPI_Send buf:BUFFER:in:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 dest:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4\n\
                     1 MPI_Recv buf:BUFFER:out:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 source:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4 status:STATUS:out:st3\n\
                     2 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s4 array_of_requests:REQUEST:inout:a4 array_of_statuses:STATUS:out:sa3\n\
                     3 MPI_Isend buf:BUFFER:in:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s8 dest:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s8 request:REQUEST:out:s8\n";

#[test]
fn format_4_words_are_read_by_their_width_and_sign_extended() {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SIZED);
    // MPI_ANY_SOURCE and MPI_ANY_TAG (-1), MPI_PROC_NULL (MPICH: -1; Open MPI: -2),
    // an MPICH handle with its top bit set, and 8-byte values around them.
    let send = vec![
        0x7fff_0000_1000,
        3,
        0x4c00_0405,
        -2,
        7,
        0x8400_0000_u32 as i32 as i64,
    ];
    let recv = vec![
        0x7fff_0000_2000,
        3,
        0x4c00_0405,
        -1,
        -1,
        0x4400_0000,
        0,
        1,
        0,
        12,
    ];
    let waitall = vec![2, 2, 11, 12, 2, -1, -1, 2, 1, 5, 0, 8, -1, -1, -1, -1];
    let isend = vec![
        0x10,
        1,
        0x7f00_0000_0040,
        -2,
        0,
        0x7f00_0000_0080,
        0x7f00_0000_00c0,
    ];
    for (func, words) in [(0, &send), (1, &recv), (2, &waitall), (3, &isend)] {
        b.call(&CallToWrite {
            func,
            words: words.clone(),
            complete: true,
            ..Default::default()
        });
    }
    let bytes = b.exited();
    let trace = read_trace_bytes(&bytes).unwrap();
    let read: Vec<&Vec<i64>> = trace.calls.iter().map(|c| &c.words).collect();
    assert_eq!(read, [&send, &recv, &waitall, &isend]);
    // The bytes as the recorder lays them out: 4-byte scalars packed, an array or a
    // status at the next multiple of 8, the record padded to a multiple of 8.
    let at = barrier_at_schema(SIZED, 0);
    let len = |i: usize| u32_at(&bytes, i) as usize;
    assert_eq!(len(at), 40 + 32, "MPI_Send: 8 + 5 * 4 bytes, padded to 32");
    assert_eq!(&bytes[at + 48..at + 52], &3i32.to_le_bytes());
    assert_eq!(&bytes[at + 56..at + 60], &(-2i32).to_le_bytes(), "dest");
    let at = at + len(at);
    assert_eq!(
        len(at),
        40 + 32 + 24,
        "MPI_Recv: 28 bytes, 4 of padding, a packed status"
    );
    assert_eq!(
        &bytes[at + 72..at + 84],
        &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(&bytes[at + 88..at + 96], &12i64.to_le_bytes());
    let at = at + len(at);
    assert_eq!(
        len(at),
        40 + 8 + 2 * 16 + 8 + 2 * 24,
        "MPI_Waitall: count and padding, the int requests twice, 2 statuses"
    );
    let at = at + len(at);
    assert_eq!(
        len(at),
        40 + 48,
        "MPI_Isend with 8-byte handles: 8+4+8+4+4+8+8 bytes"
    );
}

#[test]
fn a_format_4_record_shorter_than_its_table_reads_as_missing_arguments() {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SIZED);
    b.call(&CallToWrite {
        func: 1,
        words: vec![0x1000, 3, 0x4c00_0405],
        complete: true,
        ..Default::default()
    });
    let trace = read_trace_bytes(&b.exited()).unwrap();
    let recv = trace.schema.function(1).unwrap();
    let args = trace.calls[0].args(recv);
    assert_eq!(args[2].0, ArgValue::Int(0x4c00_0405));
    assert_eq!(args[3].0, ArgValue::Missing);
    assert_eq!(args[6].1, ArgValue::Missing);
}

/// Offset of the first call record after a trace's function table `schema`.
fn barrier_at_schema(schema: &str, i: usize) -> usize {
    assert_eq!(i, 0);
    HEADER_SIZE + (16 + schema.len()).div_ceil(8) * 8
}

#[test]
fn version_2_traces_are_read_and_later_versions_refused() {
    let mut bytes = barriers(2).exited();
    bytes[offset::VERSION..offset::VERSION + 4].copy_from_slice(&2u32.to_le_bytes());
    let trace = read_trace_bytes(&bytes).unwrap();
    assert_eq!(trace.calls.len(), 2);
    assert_eq!(trace.calls[1].t_exit_ns, 15);
    let later = FORMAT_VERSION + 1;
    bytes[offset::VERSION..offset::VERSION + 4].copy_from_slice(&later.to_le_bytes());
    let err = read_trace_bytes(&bytes).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("trace format version {later} is not supported (this mpicheck reads versions 2 to {FORMAT_VERSION})")
    );
}

#[test]
fn an_exited_trace_cut_after_the_fact_is_incomplete() {
    let whole = barriers(10).add_state(state::FINALIZED).exited();
    let trace = read_trace_bytes(&whole).unwrap();
    assert_eq!(trace.end, EndOfTrace::Clean);
    assert_eq!(trace.incomplete(), None);
    assert_eq!(trace.calls.len(), 10);
    assert_eq!(
        trace.calls.capacity(),
        10,
        "records are held without spare room"
    );

    // Cut between records, and inside one: both are cuts, since the process wrote more.
    let written = trace.header.exit_records_end;
    for cut in [whole.len() - 8 - 2 * 48, whole.len() - 8 - 48 - 20] {
        let trace = read_trace_bytes(&whole[..cut]).unwrap();
        assert_eq!(trace.calls.len(), 8, "cut at {cut}");
        let Some(Incomplete::Cut { file_len, .. }) = trace.incomplete() else {
            panic!("cut at {cut}: {:?}", trace.end)
        };
        assert_eq!(file_len, cut as u64);
        assert!(matches!(trace.end, EndOfTrace::Cut { written: w, .. } if w == written));
        let why = trace.incomplete().unwrap().to_string();
        assert_eq!(
            why,
            format!("the file is {cut} bytes, but the process wrote {written}")
        );
    }
}

#[test]
fn records_that_stop_early_in_a_whole_exited_file_are_no_cut() {
    // A thread ended by `exit` between reserving its record and writing it leaves zeros;
    // the file still has its full length.
    let mut whole = barriers(3).exited();
    let last = whole.len() - 8 - 48;
    whole[last..last + 48].fill(0);
    let trace = read_trace_bytes(&whole).unwrap();
    assert_eq!(trace.calls.len(), 2);
    assert_eq!(trace.end, EndOfTrace::Clean);
    assert_eq!(trace.incomplete(), None);
}

/// Offset of the `i`-th barrier record of [`barriers`] (48 bytes each).
fn barrier_at(i: usize) -> usize {
    HEADER_SIZE + (16 + SCHEMA.len()).div_ceil(8) * 8 + 48 * i
}

#[test]
fn records_after_a_hole_are_read() {
    // A thread ended between reserving its record and writing the frame leaves zeros in
    // the middle; the records other threads wrote after it are still read, exited or not.
    for exited in [true, false] {
        let mut b = barriers(5);
        let mut bytes = if exited { b.exited() } else { b.bytes() };
        bytes[barrier_at(1)..barrier_at(3)].fill(0);
        let trace = read_trace_bytes(&bytes).unwrap();
        let times: Vec<_> = trace.calls.iter().map(|c| c.t_enter_ns).collect();
        assert_eq!(times, [0, 30, 40], "exited: {exited}");
        assert_eq!(trace.partial_records, 1);
        assert_eq!(trace.incomplete(), None);
        let end_clean = trace.end == EndOfTrace::Clean;
        assert_eq!(end_clean, exited, "{:?}", trace.end);
    }
}

#[test]
fn a_hole_followed_by_no_record_is_damage() {
    // Only the frame zeroed: the words after it are no record, and reading stops there.
    let mut bytes = barriers(3).exited();
    bytes[barrier_at(1)..barrier_at(1) + 8].fill(0);
    let trace = read_trace_bytes(&bytes).unwrap();
    assert_eq!(trace.calls.len(), 1);
    assert!(
        matches!(trace.incomplete(), Some(Incomplete::Cut { offset, .. }) if offset > barrier_at(1) as u64 && offset < barrier_at(2) as u64),
        "{:?}",
        trace.end
    );
}

#[test]
fn a_damaged_record_before_the_end_at_exit_is_a_cut() {
    let mut whole = barriers(3).exited();
    let second = barrier_at(1);
    whole[second..second + 4].copy_from_slice(&1_000_000u32.to_le_bytes());
    let trace = read_trace_bytes(&whole).unwrap();
    assert_eq!(trace.calls.len(), 1);
    assert!(
        matches!(trace.incomplete(), Some(Incomplete::Cut { offset, .. }) if offset == second as u64)
    );
}

#[test]
fn a_trace_that_ran_out_of_space_is_incomplete() {
    let bytes = barriers(2)
        .add_state(state::NO_SPACE)
        .set_u64(offset::DROPPED, 1234)
        .exited();
    let trace = read_trace_bytes(&bytes).unwrap();
    assert_eq!(
        trace.incomplete(),
        Some(Incomplete::NoSpace {
            dropped: 1234,
            file_closed: false
        })
    );
    assert_eq!(
        trace.incomplete().unwrap().to_string(),
        "1234 calls were not recorded because the trace could not grow (file system full, over quota, or over the file size limit of `ulimit -f`)"
    );
}

#[test]
fn headers_claiming_impossible_worlds_are_refused() {
    for (rank, size) in [
        (0, i32::MAX),
        (i32::MAX, -1),
        (5, 2),
        (MAX_WORLD_SIZE as i32, -1),
    ] {
        let mut b = barriers(1);
        b.set_i32(offset::RANK, rank)
            .set_i32(offset::ENV_RANK, rank)
            .set_i32(offset::WORLD_SIZE, size);
        let err = read_trace_bytes(&b.exited()).unwrap_err();
        assert!(
            matches!(err, TraceError::BadHeader(_)),
            "rank {rank} of {size}: {err}"
        );
        assert!(err
            .to_string()
            .starts_with("trace header is damaged: it claims"));
        if size != 2 {
            assert!(err.to_string().contains("1048576"), "{err}");
        }
    }
    let mut b = barriers(1);
    b.set_i32(offset::WORLD_SIZE, MAX_WORLD_SIZE as i32);
    assert!(read_trace_bytes(&b.exited()).is_ok());
}

#[test]
fn the_scan_says_which_thread_made_every_call_record() {
    let only_thread = |threads: &[u16]| {
        let mut b = barriers(0);
        for &thread in threads {
            b.call(&CallToWrite {
                func: 0,
                thread,
                words: vec![0x44000000],
                complete: true,
                ..Default::default()
            });
        }
        scan_trace(&mut &b.exited()[..]).unwrap().only_thread
    };
    assert_eq!(only_thread(&[3, 3, 3]), Some(3));
    assert_eq!(only_thread(&[0]), Some(0));
    // (Thread 1's bits are thread 3's too.)
    assert_eq!(only_thread(&[3, 1, 3]), None);
    assert_eq!(only_thread(&[0, 0, 2]), None);
    assert_eq!(only_thread(&[]), None);
}
