// Compiles the generated MPI wrappers with MPICH's mpicc; the logic is shared with the other
// families' interposition crates.
include!("../mpicheck-interpose/build_common.rs");

fn main() {
    build_family(Family {
        name: "mpich",
        cc_env: "MPICHECK_MPICC_MPICH",
        default_cc: "mpicc.mpich",
        fc: Some(("MPICHECK_MPIFORT_MPICH", "mpifort.mpich")),
        defines: &["MPICHECK_FAMILY_MPICH"],
    });
}
