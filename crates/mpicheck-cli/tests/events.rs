//! `mpicheck events DIR`, the listing of a saved run's normalized calls, on the real traces of
//! `tests/traces` (no MPI needed).

mod support;

use std::process::{Command, Stdio};

use support::{trace_fixture as fixture, MPICHECK};

#[test]
fn calls_say_which_objects_they_made_and_freed() {
    for set in ["features-mpich", "features-openmpi"] {
        let output = Command::new(MPICHECK)
            .arg("events")
            .arg(fixture(set))
            .output()
            .expect("run mpicheck");
        assert!(output.status.success(), "{set}: {output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        let line = |call: &str, change: &str| {
            text.lines()
                .find(|l| l.contains(call) && l.contains(change))
                .unwrap_or_else(|| panic!("{set}: no {call} line with `{change}` in\n{text}"))
                .to_string()
        };
        // features.c splits, then dups the split: both are freed at the end, last first.
        let split = line("MPI_Comm_split", "; made communicator #");
        let id = split.rsplit('#').next().unwrap();
        line("MPI_Comm_free", &format!("; freed communicator #{id}"));
        line("MPI_Type_vector", "; made datatype #");
        line("MPI_Win_free", "; freed window #");
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    // `mpicheck events DIR | head`: the pipe's reader is gone before mpicheck writes. The
    // read end is closed before the spawn: closed after it, a fast mpicheck could fill the
    // pipe's buffer with its whole output first and end well.
    let (reader, writer) = std::io::pipe().expect("make a pipe");
    drop(reader);
    let child = Command::new(MPICHECK)
        .arg("events")
        .arg(fixture("features-mpich"))
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mpicheck");
    let output = child.wait_with_output().expect("wait for mpicheck");
    assert_eq!(
        output.status.code(),
        Some(141),
        "ends like a tool killed by SIGPIPE"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "no error message"
    );
}
