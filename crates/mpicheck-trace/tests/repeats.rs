//! Repeat records (format 5, "Repeated calls" in the crate docs): a repeat reads as the full
//! call it stands for, and a repeat that refers to no suitable original is damage, never
//! garbage.

use mpicheck_trace::builder::{CallToWrite, TraceBuilder};
use mpicheck_trace::{read_trace_bytes, text, CallRecord, EndOfTrace};

const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 dest:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4\n\
                      1 MPI_Recv buf:BUFFER:out:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 source:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4 status:STATUS:out:st3\n";

/// `MPI_Recv`'s input words end at byte 28 of its arguments: a repeat keeps them from 24.
const RECV_KEEP: usize = 24;

fn recv(i: u64, thread: u16, source: i64, original: bool) -> CallToWrite {
    CallToWrite {
        func: 1,
        thread,
        ret: i as i32 % 3,
        t_enter: 100 * i,
        t_exit: 100 * i + 40,
        callsite: 0x4000,
        // buf, count, datatype, source, tag, comm; the status: source, tag, error, bytes.
        words: vec![0x1000, 4, 7, -1, 5, 0x4400_0000, source, 5, 0, 16 * source],
        complete: true,
        original,
        ..Default::default()
    }
}

fn start() -> TraceBuilder {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SCHEMA);
    b
}

/// Everything a reader of calls sees, but the order key (the record's offset).
fn seen(calls: &[CallRecord]) -> Vec<CallRecord> {
    calls
        .iter()
        .map(|c| CallRecord {
            seq: 0,
            ..c.clone()
        })
        .collect()
}

#[test]
fn repeats_read_as_the_calls_they_stand_for() {
    let (mut full, mut short) = (start(), start());
    let mut originals = [0u64; 2];
    for i in 0..20u64 {
        let thread = (i % 2) as u16;
        let call = recv(i, thread, i as i64 % 5, false);
        full.call(&call);
        if i < 2 {
            originals[thread as usize] = short.next_offset();
            short.call(&CallToWrite {
                original: true,
                ..call
            });
        } else {
            short.repeat(&call, originals[thread as usize], RECV_KEEP);
        }
    }
    // A call still blocked when the trace ends, as a repeat: its inputs are the original's.
    let blocked = CallToWrite {
        complete: false,
        ..recv(20, 1, 0, false)
    };
    full.call(&blocked);
    short.repeat(&blocked, originals[1], RECV_KEEP);
    let (full, short) = (full.bytes(), short.bytes());
    assert!(
        short.len() < full.len(),
        "repeats are shorter: {} against {} bytes",
        short.len(),
        full.len()
    );
    let (full, short) = (
        read_trace_bytes(&full).unwrap(),
        read_trace_bytes(&short).unwrap(),
    );
    assert_eq!(short.calls.len(), 21);
    assert_eq!(seen(&short.calls), seen(&full.calls));
    assert_eq!(short.mpi_calls, full.mpi_calls);
    assert!(
        matches!(short.end, EndOfTrace::Truncated { .. }),
        "{:?}",
        short.end
    );
    assert!(short.calls.windows(2).all(|w| w[0].seq < w[1].seq));
    let last = short.calls.last().unwrap();
    assert!(!last.complete);
    assert_eq!(last.words[..6], [0x1000, 4, 7, -1, 5, 0x4400_0000]);
}

/// The trace `damage` builds after an original and one good repeat, read: its calls and how
/// it ended.
fn read_with(damage: impl FnOnce(&mut TraceBuilder, u64)) -> (usize, EndOfTrace) {
    let mut b = start();
    let original = b.next_offset();
    b.call(&recv(0, 0, 1, true));
    b.repeat(&recv(1, 0, 2, false), original, RECV_KEEP);
    damage(&mut b, original);
    b.call(&recv(9, 0, 3, false));
    let trace = read_trace_bytes(&b.bytes()).unwrap();
    (trace.calls.len(), trace.end)
}

/// `before`: the calls before the damaged repeat.
fn assert_damaged(what: &str, before: usize, (calls, end): (usize, EndOfTrace)) {
    assert_eq!(
        calls, before,
        "{what}: the calls before the damage are read"
    );
    match end {
        EndOfTrace::Truncated { reason, .. } => {
            assert!(reason.contains("repeated call"), "{what}: {reason}")
        }
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn a_repeat_of_nothing_is_damage_not_garbage() {
    assert_eq!(read_with(|_, _| {}).0, 3, "the trace reads whole undamaged");
    assert_damaged(
        "an original that is not there",
        2,
        read_with(|b, original| {
            b.repeat(&recv(2, 0, 2, false), original + 8, RECV_KEEP);
        }),
    );
    assert_damaged(
        "an original beyond the file",
        2,
        read_with(|b, _| {
            b.repeat(&recv(2, 0, 2, false), u64::MAX - 7, RECV_KEEP);
        }),
    );
    assert_damaged(
        "another thread's original",
        2,
        read_with(|b, original| {
            b.repeat(&recv(2, 1, 2, false), original, RECV_KEEP);
        }),
    );
    assert_damaged(
        "another function's original",
        2,
        read_with(|b, original| {
            let send = CallToWrite {
                func: 0,
                words: vec![0x1000, 4, 7, 1, 5, 0x4400_0000],
                ..recv(2, 0, 0, false)
            };
            b.repeat(&send, original, 0);
        }),
    );
    assert_damaged(
        "a record written in full but not as an original",
        3,
        read_with(|b, _| {
            let plain = b.next_offset();
            b.call(&recv(2, 0, 2, false));
            b.repeat(&recv(3, 0, 2, false), plain, RECV_KEEP);
        }),
    );
    assert_damaged(
        "an original superseded by a later one",
        3,
        read_with(|b, original| {
            b.call(&recv(2, 0, 2, true));
            b.repeat(&recv(3, 0, 2, false), original, RECV_KEEP);
        }),
    );
    assert_damaged(
        "a repeat longer than its original",
        2,
        read_with(|b, original| {
            let mut longer = recv(2, 0, 2, false);
            longer.words.extend([1, 2]);
            b.repeat(&longer, original, 0);
        }),
    );
}

/// A counted repeat (format 6, "Counted runs") reads as its own call and the identical calls
/// it counts, the last one still inside MPI when the pending bit is set; the folded calls'
/// times lie between the first call's exit and the last entry.
#[test]
fn counted_runs_read_as_every_call_they_count() {
    for pending in [false, true] {
        let (mut full, mut short) = (start(), start());
        let first = recv(0, 0, 1, false);
        let original = short.next_offset();
        full.call(&first);
        short.call(&CallToWrite {
            original: true,
            ..first.clone()
        });
        let same = |i: u64| CallToWrite {
            ret: 0,
            ..recv(i, 0, 1, false)
        };
        // The record's own call, then 9 folded ones (the last maybe still inside MPI).
        for i in 1..=10 {
            let complete = !(pending && i == 10);
            full.call(&CallToWrite {
                complete,
                ret: if complete { 0 } else { same(i).ret },
                ..same(i)
            });
        }
        let runs = if pending {
            8 | mpicheck_trace::COUNT_PENDING
        } else {
            9
        };
        short.counted_repeat(&same(1), original, RECV_KEEP, runs, 1000);
        let after = recv(11, 0, 2, false);
        full.call(&after);
        short.repeat(&after, original, RECV_KEEP);
        let (full, short) = (
            read_trace_bytes(&full.bytes()).unwrap(),
            read_trace_bytes(&short.bytes()).unwrap(),
        );
        assert_eq!(short.calls.len(), 12, "pending {pending}");
        assert_eq!(short.mpi_calls, 12);
        // What the calls say, but their times (not recorded inside a run).
        let what = |calls: &[CallRecord]| -> Vec<_> {
            calls
                .iter()
                .map(|c| {
                    (
                        c.func,
                        c.thread,
                        c.callsite,
                        c.ret,
                        c.complete,
                        c.words.clone(),
                    )
                })
                .collect()
        };
        let mut expected = what(&full.calls);
        if pending {
            // The call inside MPI: an incomplete call's outputs are not read.
            expected[10].5 = short.calls[10].words.clone();
        }
        assert_eq!(what(&short.calls), expected, "pending {pending}");
        assert!(short.calls.windows(2).all(|w| w[0].seq <= w[1].seq));
        let run = &short.calls[1..11];
        assert!(run.windows(2).all(|w| w[0].t_enter_ns <= w[1].t_enter_ns));
        assert_eq!(run[0].t_enter_ns, 100);
        assert_eq!(run[1].t_enter_ns, 140 + (1000 - 140) / 9);
        assert_eq!(run[9].t_enter_ns, 1000);
        assert_eq!(run[9].complete, !pending);
        for c in &run[1..9] {
            assert_eq!(c.t_exit_ns, c.t_enter_ns);
        }
    }
}

fn send(i: u64, dest: i64) -> CallToWrite {
    CallToWrite {
        func: 0,
        ret: 0,
        t_enter: 100 * i,
        t_exit: 100 * i + 40,
        callsite: 0x5000,
        words: vec![0x2000, 4, 7, dest, 5, 0x4400_0000],
        complete: true,
        ..Default::default()
    }
}

/// Writes a turn of the cycle `Send, Recv` (calls `i`, `i + 1`) as full records into both
/// traces, and returns the bytes the two records take.
fn cycle_turn(full: &mut TraceBuilder, short: &mut TraceBuilder, i: u64) -> u32 {
    let before = short.next_offset();
    for call in [send(i, 1), recv(i + 1, 0, 1, false)] {
        full.call(&call);
        short.call(&call);
    }
    (short.next_offset() - before) as u32
}

/// A cycle record (format 7, "Counted cycles") reads as the calls of its members in turn,
/// cut anywhere in a turn, the last one still inside MPI when the pending bit is set; the
/// counted calls' times lie between the last member's exit and `last`.
#[test]
fn cycles_read_as_every_call_they_count() {
    for (runs, pending) in [(5u64, false), (4, true), (0, false), (0, true)] {
        let (mut full, mut short) = (start(), start());
        cycle_turn(&mut full, &mut short, 0);
        let span = cycle_turn(&mut full, &mut short, 2);
        let calls = runs + pending as u64;
        for k in 0..calls {
            let i = 4 + k;
            let mut call = if k % 2 == 0 {
                send(i, 1)
            } else {
                recv(i, 0, 1, false)
            };
            if k % 2 == 1 {
                call.ret = recv(3, 0, 1, false).ret;
            }
            call.complete = !(pending && k + 1 == calls);
            full.call(&call);
        }
        let bits = if pending {
            mpicheck_trace::COUNT_PENDING
        } else {
            0
        };
        short.cycle(0, 2, span, runs | bits, 5000);
        let after = recv(20, 0, 2, false);
        full.call(&after);
        short.call(&after);
        let (full, short) = (
            read_trace_bytes(&full.exited()).unwrap(),
            read_trace_bytes(&short.exited()).unwrap(),
        );
        assert_eq!(short.end, EndOfTrace::Clean);
        assert_eq!(
            short.calls.len() as u64,
            5 + calls,
            "runs {runs} pending {pending}"
        );
        assert_eq!(short.mpi_calls, 5 + calls);
        let what = |calls: &[CallRecord]| -> Vec<_> {
            calls
                .iter()
                .map(|c| (c.func, c.thread, c.callsite, c.complete, c.words.clone()))
                .collect()
        };
        let mut expected = what(&full.calls);
        if pending {
            // The call inside MPI: an incomplete call's outputs are not read.
            let k = 4 + calls as usize - 1;
            expected[k].4 = short.calls[k].words.clone();
        }
        assert_eq!(
            what(&short.calls),
            expected,
            "runs {runs} pending {pending}"
        );
        let rets = |calls: &[CallRecord]| -> Vec<i32> {
            calls.iter().filter(|c| c.complete).map(|c| c.ret).collect()
        };
        assert_eq!(rets(&short.calls), rets(&full.calls));
        assert!(short.calls.windows(2).all(|w| w[0].seq <= w[1].seq));
        let counted = &short.calls[4..4 + calls as usize];
        assert!(counted
            .windows(2)
            .all(|w| w[0].t_enter_ns <= w[1].t_enter_ns));
        if let Some(last) = counted.last() {
            assert_eq!(last.t_enter_ns, 5000);
            assert!(counted[0].t_enter_ns > 340, "after the last member's exit");
        }
    }
}

/// A cycle record whose members are not the records right before it (a wrong span, another
/// thread's record, a poll) is damage: the reader stops there.
#[test]
fn a_cycle_record_that_does_not_fit_its_members_is_damage() {
    let read = |build: &dyn Fn(&mut TraceBuilder, u32)| {
        let mut b = start();
        let mut other = start();
        cycle_turn(&mut b, &mut other, 0);
        let span = cycle_turn(&mut b, &mut other, 2);
        build(&mut b, span);
        read_trace_bytes(&b.exited()).unwrap()
    };
    let good = read(&|b, span| {
        b.cycle(0, 2, span, 3, 900);
    });
    assert_eq!(good.end, EndOfTrace::Clean);
    assert_eq!(good.calls.len(), 7);
    for (what, trace) in [
        (
            "wrong span",
            read(&|b, span| {
                b.cycle(0, 2, span + 8, 3, 900);
            }),
        ),
        (
            "other thread",
            read(&|b, span| {
                b.cycle(1, 2, span, 3, 900);
            }),
        ),
        (
            "period 1",
            read(&|b, _| {
                b.cycle(0, 1, 56, 3, 900);
            }),
        ),
        (
            "period beyond the records",
            read(&|b, _| {
                b.cycle(0, 4, 4096, 3, 900);
            }),
        ),
        (
            "a poll between",
            read(&|b, span| {
                b.call(&CallToWrite {
                    poll: Some((0, 0)),
                    ..send(9, 1)
                });
                b.cycle(0, 2, span, 3, 900);
            }),
        ),
    ] {
        assert_ne!(trace.end, EndOfTrace::Clean, "{what}");
        let before = if what == "a poll between" { 5 } else { 4 };
        assert_eq!(trace.calls.len(), before, "{what}: the calls before it");
    }
}
