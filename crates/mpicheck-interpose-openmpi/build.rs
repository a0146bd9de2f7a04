// Compiles the generated MPI wrappers with Open MPI's mpicc; the logic is shared with the other
// families' interposition crates.
include!("../mpicheck-interpose/build_common.rs");

fn main() {
    build_family(Family {
        name: "openmpi",
        cc_env: "MPICHECK_MPICC_OPENMPI",
        default_cc: "mpicc.openmpi",
        fc: Some(("MPICHECK_MPIFORT_OPENMPI", "mpifort.openmpi")),
        defines: &["MPICHECK_FAMILY_OPENMPI"],
    });
}
