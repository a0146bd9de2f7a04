//! mpicheck's interposition library for the MPI-5 standard ABI (`mpi_abi.h`, `libmpi_abi.so`).
//!
//! Preload it into an unmodified MPI program built against the standard ABI
//! (`LD_PRELOAD=libmpicheck_mpiabi.so`, with `MPICHECK_OUT_DIR` set) and every MPI call is
//! recorded into a per-process trace (format: crate `mpicheck-trace`, family `mpiabi`). One
//! library serves every MPI implementing the ABI: its handles and constants have a fixed layout.
//! The wrappers are the same generated C as for MPICH and Open MPI
//! (`crates/mpicheck-interpose/gen/gen_wrappers.py`), compiled by `build.rs` with the ABI's
//! `mpicc_abi` from `$MPICHECK_MPI_ABI_DIR` (default `/opt/mpich-abi`, where
//! `scripts/install-deps` installs PyPI's `mpich` wheel; override the compiler itself with
//! `MPICHECK_MPICC_MPIABI`). Only `MPI_*` is exported; the ABI has no Fortran bindings. Without
//! the ABI the library is built empty, with a cargo warning.

// The recorder's `extern "C"` functions are what the C wrappers call: re-exporting the crate
// keeps them in the link.
pub use mpicheck_recorder::*;
