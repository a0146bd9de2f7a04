//! The recorder alone, without MPI or the C wrappers: ns per recorded call of a loop that
//! records an `MPI_Send`-shaped call (6 argument words, 88 bytes) N times through the same
//! entry points the wrappers use (`mpicheck_begin_slot`, `mpicheck_entered`, `mpicheck_end`),
//! against the same loop not recording. Used for BENCHMARKS.md ("Interposition hot path").
//!
//!   MPICHECK_OUT_DIR=/dev/shm/x cargo run --release -p mpicheck-recorder --example record_loop -- 20000000

use std::ffi::CString;
use std::hint::black_box;
use std::time::Instant;

use mpicheck_recorder::{mpicheck_begin_slot, mpicheck_end, mpicheck_entered, mpicheck_prepare};

const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s\n";

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    if std::env::var_os("MPICHECK_OUT_DIR").is_none() {
        eprintln!("record_loop: set MPICHECK_OUT_DIR to a directory for the trace");
        std::process::exit(2);
    }
    let family = CString::new("mpich").unwrap();
    let schema = CString::new(SCHEMA).unwrap();
    let constants = CString::new("").unwrap();
    let mut slot = 0u16;
    // The loop body the wrappers run, minus the MPI call: `record` false times the loop alone.
    let mut run = |calls: u64, record: bool| {
        let t0 = Instant::now();
        for i in 0..calls {
            unsafe {
                let w = if record {
                    mpicheck_begin_slot(0, 6 * 8, 0x1234 as *const _, 0, &mut slot)
                } else {
                    black_box(std::ptr::null_mut())
                };
                if !w.is_null() {
                    for (k, v) in [0x1000, 1, 7, -1, i as i64, 1140850688]
                        .into_iter()
                        .enumerate()
                    {
                        *w.add(k) = v;
                    }
                    mpicheck_entered(w);
                    mpicheck_end(w, 0);
                }
            }
        }
        t0.elapsed().as_nanos() as f64 / calls as f64
    };
    unsafe { mpicheck_prepare(family.as_ptr(), schema.as_ptr(), constants.as_ptr(), None) };
    run(n / 100 + 1, true); // warm up
    let plain = run(n, false);
    let recording = run(n, true);
    println!(
        "record_loop: {n} calls, {plain:.1} ns/call not recording, {recording:.1} ns/call recording, {:.1} ns added",
        recording - plain
    );
}
