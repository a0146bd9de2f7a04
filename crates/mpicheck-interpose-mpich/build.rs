// Compiles the generated MPI wrappers with MPICH's mpicc; the logic is shared with the other
// families' interposition crates.
include!("../mpicheck-interpose/build_common.rs");

fn main() {
    build_family(Family {
        name: "mpich",
        cc_env: "MPICHECK_MPICC_MPICH",
        default_cc: "mpicc.mpich",
        fortran_defines: &[
            "MPICHECK_FAMILY_MPICH",
            "MPICHECK_FORTRAN_F77",
            "MPICHECK_FORTRAN_F08",
            "MPICHECK_FORTRAN_F08TS",
            "MPICHECK_FORTRAN_F08_DESC_BUFFERS",
        ],
    });
}
