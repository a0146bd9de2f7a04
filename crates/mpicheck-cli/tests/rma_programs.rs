//! `mpicheck run` on RMA programs whose verdict differs between the MPIs, so that the
//! tier-2 harness (one expectation for both MPIs) cannot hold them.

mod support;

use std::path::Path;

use support::*;

/// `(code, line)` of every location of every finding in `out/report.json`.
fn reported(out: &Path) -> Vec<(String, u64)> {
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let mut found = Vec::new();
    for f in report["findings"].as_array().unwrap() {
        let code = f["code"].as_str().unwrap().to_string();
        for l in f["locations"].as_array().unwrap() {
            if let Some(line) = l["line"].as_u64() {
                found.push((code.clone(), line));
            }
        }
    }
    found
}

/// 1-based lines of `source` with a `/* CODE */` marker comment.
fn marked(source: &Path, code: &str) -> Vec<u64> {
    std::fs::read_to_string(source)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&format!("/* {code} */")))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

/// A ring whose start groups point the wrong way: RM008 at the post and the start under
/// both MPIs, whether the job completes (MPICH) or hangs and is ended (Open MPI).
fn check_ring_wrong_way(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "pscw_ring_wrong_way.c", dir.path());
    let out = dir.path().join("out");
    let (run, _) = mpicheck_run(family, 3, &out, &[exe.to_str().unwrap()], &[], b"");
    let found = reported(&out);
    let lines = marked(&program_source("pscw_ring_wrong_way.c"), "RM008");
    assert_eq!(lines.len(), 2);
    for line in lines {
        assert!(
            found.contains(&("RM008".to_string(), line)),
            "{}: RM008 at line {line}: {found:?}\n{}",
            family.name,
            text(&run.stderr)
        );
    }
    let others: Vec<_> = found
        .iter()
        .filter(|(c, _)| !["RM008", "DL001", "DL002"].contains(&c.as_str()))
        .collect();
    assert!(others.is_empty(), "{}: {others:?}", family.name);
}

#[test]
fn pscw_ring_wrong_way_mpich() {
    check_ring_wrong_way(MPICH);
}

#[test]
fn pscw_ring_wrong_way_openmpi() {
    check_ring_wrong_way(OPENMPI);
}

/// A lock held across a receive from the origin waiting for it: DL001 at the receive where
/// the job hangs (MPICH always), nothing where the MPI grants the second lock (some Open
/// MPI components).
fn check_lock_held_while_receiving(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "lock_held_while_receiving.c", dir.path());
    let out = dir.path().join("out");
    let (run, _) = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"");
    let found = reported(&out);
    let line = marked(&program_source("lock_held_while_receiving.c"), "DL001");
    let hung = found.iter().any(|(c, _)| c == "DL001");
    assert!(
        !hung || found.contains(&("DL001".to_string(), line[0])),
        "{}: {found:?}\n{}",
        family.name,
        text(&run.stderr)
    );
    assert!(
        found.iter().all(|(c, _)| c == "DL001"),
        "{}: {found:?}",
        family.name
    );
    if family.name == "mpich" {
        assert!(hung, "mpich: {found:?}\n{}", text(&run.stderr));
    }
}

#[test]
fn lock_held_while_receiving_mpich() {
    check_lock_held_while_receiving(MPICH);
}

#[test]
fn lock_held_while_receiving_openmpi() {
    check_lock_held_while_receiving(OPENMPI);
}
