//! A C MPI program compiled against the standard ABI (`mpicc_abi`) run under the preloaded
//! library: every call recorded once, with its arguments, statuses (also when the program
//! ignores them) and the communicator pseudo-calls. If the ABI was found when the library was
//! built, this test runs and must pass; it is skipped only when the library was built empty
//! (and fails then in CI, where scripts/install-deps installs the ABI).

include!("../../mpicheck-interpose/test_support.rs");
include!("../../mpicheck-interpose/test_c_program.rs");

#[test]
fn c_program_is_recorded_once_per_call_with_its_arguments() {
    let family = support::Family::mpiabi(
        env!("MPICHECK_INTERPOSE_MPICC"),
        env!("MPICHECK_MPI_ABI_MPIEXEC"),
    );
    if env!("MPICHECK_INTERPOSE_BUILT") == "1" {
        // Built against the ABI: a missing compiler or launcher is a failure, not a skip.
        assert!(
            support::have(&family.mpicc),
            "{} (found at build time) cannot be run",
            family.mpicc
        );
        assert!(
            std::path::Path::new(&family.mpiexec).exists(),
            "{} (next to the ABI's mpicc_abi) is missing",
            family.mpiexec
        );
    }
    check_c_program(family);
}
