//! mpicheck's interposition library for MPICH.
//!
//! Preload it into an unmodified MPI program (`LD_PRELOAD=libmpicheck_mpich.so`, with
//! `MPICHECK_OUT_DIR` set) and every MPI call is recorded into a per-process trace (format:
//! crate `mpicheck-trace`). The wrappers are C, generated from the MPI Forum's API description
//! by `crates/mpicheck-interpose/gen/gen_wrappers.py` and compiled by `build.rs` with this
//! family's `mpicc` (override with `MPICHECK_MPICC_MPICH`); only `MPI_*` and `mpi_*` are
//! exported. Without that compiler the library is built empty, with a cargo warning.

// The recorder's `extern "C"` functions are what the C wrappers call: re-exporting the crate
// keeps them in the link.
pub use mpicheck_recorder::*;
