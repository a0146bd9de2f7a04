//! `mpicheck explain` of the argument checks lists the functions each one covers.

mod support;

use std::process::Command;

use support::MPICHECK;

fn explain(code: &str) -> String {
    let output = Command::new(MPICHECK)
        .args(["explain", code])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn argument_checks_list_the_functions_they_cover() {
    let topology = explain("AR013");
    assert!(topology.contains("## Functions covered"), "{topology}");
    for function in [
        "MPI_Cart_coords",
        "MPI_Graph_neighbors",
        "MPI_Ineighbor_alltoallv",
    ] {
        assert!(topology.contains(function), "{function} in {topology}");
    }
    assert!(!topology.contains("MPI_Send,"), "{topology}");
    let counts = explain("AR003");
    for function in [
        "MPI_Gather",
        "MPI_Reduce_scatter",
        "MPI_Type_vector",
        "MPI_Send_c",
    ] {
        assert!(
            counts.contains(&format!("{function},")),
            "{function} in {counts}"
        );
    }
    // Checks that are not parameter-kind rules have no such section.
    assert!(!explain("DL001").contains("## Functions covered"));
}
