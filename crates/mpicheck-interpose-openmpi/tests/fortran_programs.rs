//! Fortran programs (mpif.h, `use mpi`, `use mpi_f08`) run under the preloaded library: every
//! call recorded once, as a Fortran call, with handles converted to their C values.

include!("../../mpicheck-interpose/test_support.rs");
include!("../../mpicheck-interpose/test_fortran_programs.rs");

#[test]
fn mpif_h_program_is_recorded_once_per_call() {
    check_fortran_program(support::Family::openmpi(), "mpif");
}

#[test]
fn use_mpi_program_is_recorded_once_per_call() {
    check_fortran_program(support::Family::openmpi(), "usempi");
}

#[test]
fn use_mpi_f08_program_is_recorded_once_per_call() {
    check_fortran_program(support::Family::openmpi(), "f08");
}
