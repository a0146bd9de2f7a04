// Compiles the generated MPI wrappers with Open MPI's mpicc; the logic is shared with the other
// families' interposition crates.
include!("../mpicheck-interpose/build_common.rs");

fn main() {
    build_family(Family {
        name: "openmpi",
        cc_env: "MPICHECK_MPICC_OPENMPI",
        default_cc: "mpicc.openmpi",
        fortran_defines: &[
            "MPICHECK_FAMILY_OPENMPI",
            "MPICHECK_FORTRAN_F77",
            "MPICHECK_FORTRAN_F08",
        ],
    });
}
