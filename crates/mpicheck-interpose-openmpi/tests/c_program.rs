//! A C MPI program run under the preloaded library: every call recorded once, with its
//! arguments, statuses (also when the program ignores them) and the communicator pseudo-calls.

include!("../../mpicheck-interpose/test_support.rs");
include!("../../mpicheck-interpose/test_c_program.rs");

#[test]
fn c_program_is_recorded_once_per_call_with_its_arguments() {
    check_c_program(support::Family::openmpi());
}
