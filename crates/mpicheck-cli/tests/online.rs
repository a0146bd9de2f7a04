//! The analysis made while the job runs (`mpicheck run`'s default) reports what the analysis
//! of the finished traces (`--analyze-after`) reports, and is the one used when it can be.

use std::path::Path;

mod support;
use support::*;

/// Tier-2 programs with findings of several checks (types, requests, resources, wildcard
/// races, collective arguments, a freed active receive, OpenMP threads) and their ranks.
const PROGRAMS: [(&str, u32, &[&str]); 7] = [
    ("ty_p2p_mismatch.c", 2, &[]),
    ("rq_isend_never_waited.c", 2, &[]),
    ("rs_objects_leaked.c", 2, &[]),
    ("std_wildcard_bcast_race.c", 3, &[]),
    ("co_args_mismatch.c", 4, &[]),
    ("rq_free_active_recv.c", 2, &[]),
    ("th_probe_stolen.c", 2, &["-fopenmp"]),
];

fn tier2_source(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/programs")
        .join(name)
}

/// Runs `exe args` under `mpicheck run` with `extra` flags; returns its report and stderr.
fn report_of(
    family: Family,
    ranks: u32,
    exe: &Path,
    out: &Path,
    args: &[&str],
    extra: &[&str],
) -> (String, String) {
    let program: Vec<&str> = std::iter::once(exe.to_str().unwrap())
        .chain(args.iter().copied())
        .collect();
    let mut cmd = mpicheck_run_command(family, ranks, out, &program, extra);
    cmd.env("MPICHECK_DEBUG_ONLINE", "1");
    let (output, _) = run_bounded(cmd, b"");
    let stderr = text(&output.stderr);
    let report = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("no report ({e}): {stderr}"));
    // The output directory is named in the report.
    (report.replace(out.to_str().unwrap(), "OUT"), stderr)
}

fn same_report_both_ways(family: Family) {
    // A job long enough (~388,000 calls of point-to-point, collectives and communicators
    // made and freed) for the analysis to follow it while it runs.
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("varied");
    let varied = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/analysis/varied.c");
    compile_to(family, &varied, &exe);
    let online = report_of(family, 2, &exe, &dir.path().join("online"), &["20000"], &[]);
    let after = report_of(
        family,
        2,
        &exe,
        &dir.path().join("after"),
        &["20000"],
        &["--analyze-after"],
    );
    assert!(online.1.contains("is used: true"), "varied.c: {}", online.1);
    assert_eq!(online.0, after.0, "varied.c under {}", family.name);
    for (name, ranks, cflags) in PROGRAMS {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join(Path::new(name).file_stem().unwrap());
        let compiled = std::process::Command::new(format!("mpicc.{}", family.name))
            .args(["-g", "-O0"])
            .args(cflags)
            .arg("-o")
            .arg(&exe)
            .arg(tier2_source(name))
            .output()
            .unwrap();
        assert!(
            compiled.status.success(),
            "{name}: {}",
            text(&compiled.stderr)
        );
        let (online, said) = report_of(family, ranks, &exe, &dir.path().join("online"), &[], &[]);
        assert!(
            said.contains("the analysis made during the run is used: true"),
            "{name} under {}: {said}",
            family.name
        );
        let (after, said) = report_of(
            family,
            ranks,
            &exe,
            &dir.path().join("after"),
            &[],
            &["--analyze-after"],
        );
        assert!(
            said.contains("the analysis made during the run is used: false"),
            "{name}: {said}"
        );
        assert!(online.contains("\"code\""), "{name}: no finding: {online}");
        assert_eq!(online, after, "{name} under {}", family.name);
    }
}

#[test]
fn online_reports_are_the_after_run_reports_mpich() {
    same_report_both_ways(MPICH);
}

#[test]
fn online_reports_are_the_after_run_reports_openmpi() {
    same_report_both_ways(OPENMPI);
}
