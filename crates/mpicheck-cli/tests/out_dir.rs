//! `mpicheck run --out DIR` under MPICH and Open MPI: the directory is the user's. mpicheck
//! removes or replaces only files it wrote itself (its run marker lists them), never
//! follows a link planted in the directory, analyzes only the traces of the run, and
//! refuses a directory of another user, each with a one-line error.

mod support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use support::*;

/// The files of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn traces_in(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.starts_with("trace-") && n.ends_with(".mpitrace"))
        .collect()
}

/// `--out .` in a thesis folder: the user's `report.tex`, notes and a trace of another run
/// survive two runs; the second run removes the first run's traces and reports (and only
/// those), and analyzes its own traces only, not the foreign one.
fn check_users_files_survive(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "fail.c", dir.path());
    let thesis = dir.path().join("thesis");
    fs::create_dir(&thesis).unwrap();
    fs::write(thesis.join("report.tex"), b"\\chapter{Results}").unwrap();
    fs::write(thesis.join("report.pdf"), b"%PDF").unwrap();
    // A whole trace of another program's run, as a colleague might send one.
    let elsewhere = dir.path().join("elsewhere");
    let first = mpicheck_run(family, 2, &elsewhere, &[exe.to_str().unwrap()], &[], b"").0;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let foreign = traces_in(&elsewhere)[0].clone();
    let foreign_bytes = fs::read(elsewhere.join(&foreign)).unwrap();
    fs::write(thesis.join(&foreign), &foreign_bytes).unwrap();

    let run = || {
        let output = mpicheck_run(family, 2, &thesis, &[exe.to_str().unwrap()], &[], b"").0;
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let stderr = text(&output.stderr);
        assert!(!stderr.contains("claim"), "{stderr}");
        traces_in(&thesis)
    };
    let after_first = run();
    assert_eq!(after_first.len(), 3, "{after_first:?}");
    let after_second = run();
    assert_eq!(after_second.len(), 3, "{after_second:?}");
    // The first run's own traces are gone, the foreign one is kept as it was.
    let kept: Vec<&String> = after_second
        .iter()
        .filter(|n| after_first.contains(n))
        .collect();
    assert_eq!(kept, [&foreign], "{after_first:?} then {after_second:?}");
    assert_eq!(fs::read(thesis.join(&foreign)).unwrap(), foreign_bytes);
    assert_eq!(
        fs::read(thesis.join("report.tex")).unwrap(),
        b"\\chapter{Results}"
    );
    assert_eq!(fs::read(thesis.join("report.pdf")).unwrap(), b"%PDF");
    // The report is about this run's two ranks.
    let report: serde_json::Value =
        serde_json::from_slice(&fs::read(thesis.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["run"]["ranks"], 2, "{report}");
    // `mpicheck analyze` reads the same traces and replaces its own reports.
    let again = mpicheck(&["analyze", thesis.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(
        fs::read(thesis.join("report.tex")).unwrap(),
        b"\\chapter{Results}"
    );
}

#[test]
fn users_files_survive_runs_mpich() {
    check_users_files_survive(MPICH);
}
#[test]
fn users_files_survive_runs_openmpi() {
    check_users_files_survive(OPENMPI);
}

/// Links named like the reports, planted in the directory while the job runs, are not
/// written through: the run stops with a one-line error and the file they point at is
/// unchanged. A report of the user's is not replaced either.
fn check_links_not_followed(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "plant_links.c", dir.path());
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, b"precious").unwrap();
    let out = dir.path().join("out");
    let output = mpicheck_run(
        family,
        2,
        &out,
        &[exe.to_str().unwrap(), victim.to_str().unwrap()],
        &[],
        b"",
    )
    .0;
    assert_error(&output, "was not written by mpicheck");
    assert_eq!(fs::read(&victim).unwrap(), b"precious");

    // Planted before the run: refused before the program starts.
    let out = dir.path().join("out2");
    fs::create_dir(&out).unwrap();
    symlink(&victim, out.join("report.html")).unwrap();
    let fail = compile(family, "fail.c", dir.path());
    let output = mpicheck_run(family, 2, &out, &[fail.to_str().unwrap()], &[], b"").0;
    assert_error(
        &output,
        "report.html exists and was not written by mpicheck",
    );
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
    assert!(traces_in(&out).is_empty(), "the program ran");
}

#[test]
fn links_in_the_output_directory_are_not_followed_mpich() {
    check_links_not_followed(MPICH);
}
#[test]
fn links_in_the_output_directory_are_not_followed_openmpi() {
    check_links_not_followed(OPENMPI);
}

/// A directory of another user is refused before anything runs.
fn check_other_users_directory(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(family, "fail.c", dir.path());
    let out = dir.path().join("theirs");
    fs::create_dir(&out).unwrap();
    let c_path = std::ffi::CString::new(out.to_str().unwrap()).unwrap();
    // SAFETY: chown on a path we created. CI runs as root; anyone else cannot give a
    // directory away, so the test cannot be set up there.
    let changed = unsafe { libc::chown(c_path.as_ptr(), 65534, 65534) };
    assert_eq!(
        changed,
        0,
        "this test gives a directory to user 65534 and needs root: {}",
        std::io::Error::last_os_error()
    );
    let output = mpicheck_run(family, 2, &out, &[exe.to_str().unwrap()], &[], b"").0;
    assert_error(&output, "belongs to another user");
    assert!(names(&out).is_empty(), "{:?}", names(&out));
}

#[test]
fn another_users_directory_is_refused_mpich() {
    check_other_users_directory(MPICH);
}
#[test]
fn another_users_directory_is_refused_openmpi() {
    check_other_users_directory(OPENMPI);
}
