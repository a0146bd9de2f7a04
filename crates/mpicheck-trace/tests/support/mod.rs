//! What the tests of followed traces share: a schema, calls of it, a finished trace with
//! every kind of record a writer changes after writing it, and how a job is followed.

#![allow(dead_code)] // (Each test file uses its part.)

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use mpicheck_trace::builder::{CallToWrite, TraceBuilder};
use mpicheck_trace::follow::FollowUntil;
use mpicheck_trace::{offset, state, text};

pub const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 dest:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4\n\
                      1 MPI_Recv buf:BUFFER:out:s8 count:POLYXFER_NUM_ELEM_NNI:in:s4 datatype:DATATYPE:in:s4 source:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4 status:STATUS:out:st3\n\
                      2 MPI_Iprobe source:RANK:in:s4 tag:TAG:in:s4 comm:COMMUNICATOR:in:s4 flag:INT:out:s4 status:STATUS:out:st3\n";

/// `MPI_Recv`'s input words end at byte 28 of its arguments: a repeat keeps them from 24.
pub const RECV_KEEP: usize = 24;

pub fn send(i: u64, thread: u16) -> CallToWrite {
    CallToWrite {
        func: 0,
        thread,
        t_enter: 100 * i,
        t_exit: 100 * i + 40,
        callsite: 0x3000,
        words: vec![0x2000, 4, 7, 1, 5, 0x4400_0000],
        complete: true,
        ..Default::default()
    }
}

pub fn recv(i: u64, thread: u16) -> CallToWrite {
    CallToWrite {
        func: 1,
        thread,
        t_enter: 100 * i,
        t_exit: 100 * i + 40,
        callsite: 0x4000,
        words: vec![0x1000, 4, 7, -1, 5, 0x4400_0000, 1, 5, 0, 16],
        complete: true,
        ..Default::default()
    }
}

pub fn probe(i: u64, thread: u16, repeats: u64) -> CallToWrite {
    CallToWrite {
        func: 2,
        thread,
        t_enter: 100 * i,
        t_exit: 100 * i + 10,
        callsite: 0x5000,
        words: vec![-1, 5, 0x4400_0000, 0, 0, 0, 0, 0],
        complete: true,
        poll: Some((repeats, 100 * i + 90)),
        ..Default::default()
    }
}

/// A finished trace of two threads with every kind of record a writer changes after
/// writing it: calls that return later, folded polls, a counted run and a cycle, and a last
/// call that never returns.
pub fn finished_trace() -> Vec<u8> {
    finished_trace_of(40)
}

/// [`finished_trace`] with `rounds` rounds of sends, polls and receives before its end.
pub fn finished_trace_of(rounds: u64) -> Vec<u8> {
    let mut b = TraceBuilder::new();
    b.rank(0, 2).text(text::SCHEMA, SCHEMA);
    for i in 0..rounds {
        b.call(&send(10 * i, (i % 2) as u16));
        b.call(&probe(10 * i + 1, (i % 2) as u16, i % 4));
        b.call(&recv(10 * i + 2, 1 - (i % 2) as u16));
    }
    // Thread 0 alone from here: a counted run, then a cycle.
    let original = b.next_offset();
    b.call(&CallToWrite {
        original: true,
        ..recv(500, 0)
    });
    b.counted_repeat(&recv(501, 0), original, RECV_KEEP, 7, 600);
    let before = b.next_offset();
    b.call(&send(700, 0)).call(&recv(701, 0));
    let span = (b.next_offset() - before) as u32;
    b.call(&send(702, 0)).call(&recv(703, 0));
    b.cycle(0, 2, span, 5, 900);
    b.call(&send(1000, 1));
    b.call(&CallToWrite {
        complete: false,
        ..recv(1001, 0)
    });
    b.exited()
}

/// Following a job that is not over (and not stopped), on another host.
pub fn job_running() -> FollowUntil {
    FollowUntil {
        job_over: Arc::new(AtomicBool::new(false)),
        local_pid: None,
        stop: Arc::new(AtomicBool::new(false)),
        waiting: None,
    }
}

/// `trace` as its process left it while still running: the exit flag cleared.
pub fn still_running(mut trace: Vec<u8>) -> Vec<u8> {
    let at = offset::STATE..offset::STATE + 4;
    let flags = u32::from_le_bytes(trace[at.clone()].try_into().unwrap());
    trace[at].copy_from_slice(&(flags & !state::EXITED).to_le_bytes());
    trace
}

/// A fresh directory of this test process.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mpicheck-follow-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
