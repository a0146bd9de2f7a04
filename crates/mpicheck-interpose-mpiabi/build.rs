// Compiles the generated MPI wrappers against the MPI-5 standard ABI (mpi_abi.h, libmpi_abi.so)
// with the ABI's compiler wrapper; the logic is shared with the other families' interposition
// crates. The ABI is looked for in $MPICHECK_MPI_ABI_DIR, else in /opt/mpich-abi (where
// scripts/install-deps puts PyPI's `mpich` wheel, MPICH >= 4.3, which ships it); without it the
// library is built empty, like the other families' without their MPI.
include!("../mpicheck-interpose/build_common.rs");

/// Default installation prefix of the ABI (bin/mpicc_abi, include/mpi_abi.h, lib/libmpi_abi.so).
const DEFAULT_ABI_DIR: &str = "/opt/mpich-abi";

fn main() {
    println!("cargo:rerun-if-env-changed=MPICHECK_MPI_ABI_DIR");
    let dir = env::var("MPICHECK_MPI_ABI_DIR").unwrap_or_else(|_| DEFAULT_ABI_DIR.to_string());
    let bin = Path::new(&dir).join("bin");
    for file in ["mpicc_abi", "mpiexec"] {
        println!("cargo:rerun-if-changed={}", bin.join(file).display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        Path::new(&dir).join("include/mpi_abi.h").display()
    );
    // The launcher the tests use: the same installation's.
    println!(
        "cargo:rustc-env=MPICHECK_MPI_ABI_MPIEXEC={}",
        bin.join("mpiexec").display()
    );
    let cc: &'static str = Box::leak(bin.join("mpicc_abi").display().to_string().into_boxed_str());
    build_family(Family {
        name: "mpiabi",
        cc_env: "MPICHECK_MPICC_MPIABI",
        default_cc: cc,
        // The ABI covers C only (its Fortran bindings are not part of libmpi_abi).
        fc: None,
        defines: &["MPICHECK_FAMILY_MPIABI"],
    });
}
