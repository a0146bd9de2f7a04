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
    report_of_watching(family, ranks, exe, out, args, extra, |_| {})
}

/// [`report_of`], calling `on_stderr_line` with each line mpicheck writes on stderr as it
/// comes.
fn report_of_watching(
    family: Family,
    ranks: u32,
    exe: &Path,
    out: &Path,
    args: &[&str],
    extra: &[&str],
    on_stderr_line: impl FnMut(&[u8]) + Send + 'static,
) -> (String, String) {
    let program: Vec<&str> = std::iter::once(exe.to_str().unwrap())
        .chain(args.iter().copied())
        .collect();
    let mut cmd = mpicheck_run_command(family, ranks, out, &program, extra);
    cmd.env("MPICHECK_DEBUG_ONLINE", "1");
    let (output, _) = run_bounded_watching(cmd, b"", on_stderr_line);
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
    // The ranks' traces were scanned once, by the analysis during the run.
    assert!(
        online
            .1
            .contains("trace files scanned during the run, not again: 2;"),
        "varied.c: {}",
        online.1
    );
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

/// A program that makes an RMA window, then takes its time without using the CPU (the
/// analysis following the job has the time to read the window constructor while the job
/// runs), and never frees a communicator (a finding).
/// Processes that keep every CPU busy at the ordinary priority until dropped: other work on
/// the machine, beside which an idle thread gets next to no CPU.
struct BusyCpus(Vec<std::process::Child>);

impl BusyCpus {
    fn start() -> BusyCpus {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let spin = || {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .expect("cannot start sh")
        };
        BusyCpus((0..cpus).map(|_| spin()).collect())
    }
}

impl Drop for BusyCpus {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// True when the tests run as root.
fn root() -> bool {
    // SAFETY: geteuid(2) has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `mpicheck` run by a user who cannot make a thread leave `SCHED_IDLE` (no `CAP_SYS_NICE`,
/// as most users): this user when the tests do not run as root, else `nobody` (setpriv),
/// running a copy of mpicheck and its libraries made in `dir`, which is opened to everyone.
fn unprivileged_mpicheck(dir: &Path) -> std::process::Command {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    for library in ["libmpicheck_mpich.so", "libmpicheck_openmpi.so"] {
        std::fs::copy(mpicheck_bin().with_file_name(library), bin.join(library)).unwrap();
    }
    std::fs::copy(mpicheck_bin(), bin.join("mpicheck")).unwrap();
    if !root() {
        return std::process::Command::new(bin.join("mpicheck"));
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = std::process::Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
    cmd.arg(bin.join("mpicheck")).env("HOME", dir);
    cmd
}

/// With every CPU kept busy by other work, the report does not wait for that work to end.
/// The analysis that followed the job ran as an idle thread; once the job is over it is made
/// an ordinary one again (as an idle thread it got next to no CPU: the report of a 4 s job
/// came 260 s after it). A user who cannot make it one (no `CAP_SYS_NICE`: the usual user;
/// here `nobody`, when the tests run as root) has it given up once it starves, and the
/// traces analyzed by mpicheck's own thread. Both ways fail by the run's time limit if the
/// report waits for the busy CPUs.
#[test]
fn the_report_does_not_wait_for_other_work() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("varied");
    let varied = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/analysis/varied.c");
    compile_to(MPICH, &varied, &exe);
    let _busy = BusyCpus::start();
    let root = root();
    if root {
        let (report, said) = report_of(MPICH, 2, &exe, &dir.path().join("root"), &["20000"], &[]);
        assert!(said.contains("is used: true"), "as root: {said}");
        assert!(
            !said.contains("the analysis during the run stops"),
            "as root: {said}"
        );
        assert!(report.contains("\"findings\""), "as root: {report}");
    }
    // As a user who cannot leave SCHED_IDLE.
    let out = dir.path().join("user");
    let mut cmd = unprivileged_mpicheck(dir.path());
    let program = [exe.to_str().unwrap(), "20000"];
    add_run_args(&mut cmd, MPICH, 2, &out, &program, &[]);
    cmd.env("MPICHECK_DEBUG_ONLINE", "1");
    let (output, _) = run_bounded(cmd, b"");
    let said = text(&output.stderr);
    assert!(output.status.success(), "as a user: {said}");
    assert!(out.join("report.json").is_file(), "as a user: {said}");
    // Whether the idle analysis starves depends on the load: on a machine already loaded
    // the job runs long enough for even an idle thread to finish (seen in CI). Either way
    // the report came; if it was given up, the traces were analyzed again.
    if root && said.contains("the analysis during the run stops: it gets no CPU beside other work")
    {
        assert!(said.contains("is used: false"), "as nobody: {said}");
    }
}

/// Once the window is made, each rank sleeps until the file named by its argument exists
/// (the test makes it when mpicheck says the analysis stopped; at most 60 s), then 1 s more
/// for the analysis's thread to end: sleeping ranks leave it a CPU even on a loaded machine.
const WINDOW_THEN_WAIT: &str = r#"
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    static int slots[4];
    MPI_Win win;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int i = 0; i < 3000 && argc > 1 && access(argv[1], F_OK) != 0; i++)
        usleep(20000);
    sleep(1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Finalize();
    return 0;
}
"#;

/// The analysis following a program that makes RMA windows stops at the first window
/// constructor (its result would be thrown away), before the job ends when the job lasts;
/// the report is the one of the analysis after the run.
fn window_programs_stop_the_online_analysis(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let waits = dir.path().join("window_then_wait.c");
    std::fs::write(&waits, WINDOW_THEN_WAIT).unwrap();
    let programs = [
        (waits, 2, true),
        (tier2_source("rm_shared_lock_race.c"), 3, false),
    ];
    for (source, ranks, lasts) in programs {
        let name = source.file_name().unwrap().to_str().unwrap().to_string();
        let exe = dir.path().join(source.file_stem().unwrap());
        compile_to(family, &source, &exe);
        let out = |how: &str| dir.path().join(format!("{name}-{how}"));
        // The program waits for this file; it is made once the analysis says it stopped.
        let stopped = dir.path().join(format!("{name}-stopped"));
        let (marker, said_stop) = (stopped.clone(), b"the analysis during the run stops");
        let (online, said) = report_of_watching(
            family,
            ranks,
            &exe,
            &out("online"),
            &[stopped.to_str().unwrap()],
            &[],
            move |line| {
                if line.windows(said_stop.len()).any(|w| w == said_stop) {
                    std::fs::write(&marker, b"").unwrap();
                }
            },
        );
        // (Known from its imports before: its traces are not released.)
        assert!(
            said.contains("the traces are kept whole: "),
            "{name} under {}: {said}",
            family.name
        );
        assert!(
            said.contains("the analysis during the run stops: rank ")
                && said.contains(" makes an RMA window (MPI_Win_create)"),
            "{name} under {}: {said}",
            family.name
        );
        if lasts {
            assert!(
                said.contains("the analysis during the run had ended before the job did"),
                "{name} under {}: {said}",
                family.name
            );
        }
        assert!(
            said.contains("the analysis made during the run is used: false"),
            "{name} under {}: {said}",
            family.name
        );
        let (after, _) = report_of(
            family,
            ranks,
            &exe,
            &out("after"),
            &[stopped.to_str().unwrap()],
            &["--analyze-after"],
        );
        assert!(online.contains("\"code\""), "{name}: no finding: {online}");
        assert_eq!(online, after, "{name} under {}", family.name);
    }
}

#[test]
fn window_programs_stop_the_online_analysis_mpich() {
    window_programs_stop_the_online_analysis(MPICH);
}

#[test]
fn window_programs_stop_the_online_analysis_openmpi() {
    window_programs_stop_the_online_analysis(OPENMPI);
}

/// Rounds of a ring exchange, then a head-to-head blocking receive: every rank hangs in
/// `MPI_Recv`.
const EXCHANGE_THEN_HANG: &str = r#"
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 1, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 2000; i++) {
        MPI_Sendrecv(&v, 1, MPI_INT, right, i % 7, &w, 1, MPI_INT, left, i % 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&w, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Recv(&w, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

/// A job whose ranks all hang is judged by the analysis that followed it, ended at the
/// stall, instead of by reading the traces again: ranks blocked in calls, or a rank polling
/// (its loop modelled as the blocking call it stands for only once the stall shows it).
/// Without that analysis (`--analyze-after`) the traces are read again. Every way, the job
/// is ended as deadlocked, with DL001 reported.
fn stalls_are_judged_by_the_online_analysis(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("exchange_then_hang.c");
    std::fs::write(&source, EXCHANGE_THEN_HANG).unwrap();
    let after: &[&str] = &["--analyze-after"];
    let programs = [
        (source, &[][..], true),
        (tier2_source("hang_test_loop.c"), &[][..], true),
        (tier2_source("hang_test_loop.c"), after, false),
    ];
    for (source, extra, at_stall) in programs {
        let name = source.file_name().unwrap().to_str().unwrap().to_string();
        let exe = dir.path().join(source.file_stem().unwrap());
        compile_to(family, &source, &exe);
        let out = dir.path().join(format!("{name}-{}-out", extra.len()));
        let flags = [extra, &["--deadlock-timeout", "2"]].concat();
        let (report, said) = report_of(family, 2, &exe, &out, &[], &flags);
        assert_eq!(
            said.contains("the analysis during the run ends at the stall"),
            at_stall,
            "{name} {extra:?} under {}: {said}",
            family.name
        );
        assert!(
            said.contains("mpicheck: deadlock: no rank has made progress"),
            "{name} {extra:?} under {}: {said}",
            family.name
        );
        assert!(
            report.contains("\"DL001\""),
            "{name} {extra:?} under {}: {report}",
            family.name
        );
    }
}

/// `mpicheck run --deadlock-timeout 2` of [`EXCHANGE_THEN_HANG`] on 2 ranks by a user who
/// cannot leave `SCHED_IDLE`, with `beside` (what else runs) started once the program is
/// built and kept to the end: the report and what mpicheck said.
fn unprivileged_exchange_then_hang<Beside>(
    family: Family,
    beside: impl FnOnce() -> Beside,
) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("exchange_then_hang.c");
    std::fs::write(&source, EXCHANGE_THEN_HANG).unwrap();
    let exe = dir.path().join("exchange_then_hang");
    compile_to(family, &source, &exe);
    let out = dir.path().join("out");
    let mut cmd = unprivileged_mpicheck(dir.path());
    let flags = ["--deadlock-timeout", "2"];
    add_run_args(&mut cmd, family, 2, &out, &[exe.to_str().unwrap()], &flags);
    cmd.env("MPICHECK_DEBUG_ONLINE", "1");
    let _beside = beside();
    let (output, _) = run_bounded(cmd, b"");
    let said = text(&output.stderr);
    let report = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("no report ({e}): {said}"));
    (report, said)
}

/// A user who cannot make the analysis's idle thread an ordinary one has the stall judged
/// by the analysis that followed the job too: mpicheck, which ends the job after the verdict,
/// stops the stuck ranks meanwhile, and the idle thread gets their CPUs.
fn unprivileged_stalls_are_judged_by_the_online_analysis(family: Family) {
    let (report, said) = unprivileged_exchange_then_hang(family, || ());
    // As nobody the thread cannot be made an ordinary one: the ranks are stopped.
    let ends_at_stall = match root() {
        true => "the analysis during the run ends at the stall, the stuck ranks stopped meanwhile",
        false => "the analysis during the run ends at the stall",
    };
    assert!(
        said.contains(ends_at_stall)
            && !said.contains("cannot be given a CPU at the stall")
            && said.contains("mpicheck: deadlock: no rank has made progress"),
        "under {}: {said}",
        family.name
    );
    assert!(
        report.contains("\"DL001\""),
        "under {}: {report}",
        family.name
    );
}

/// Beside other work on every CPU, the idle analysis gets next to no CPU even with the stuck
/// ranks stopped: its copy is not waited for (it took 89 s in CI), and the stall is judged
/// from the traces by mpicheck's own thread.
#[test]
fn unprivileged_stalls_beside_other_work_are_judged_without_the_idle_analysis() {
    let (report, said) = unprivileged_exchange_then_hang(MPICH, BusyCpus::start);
    assert!(
        said.contains("judged the stall in")
            && said.contains("no verdict: it gets no CPU beside other work")
            && said.contains("mpicheck: deadlock: no rank has made progress"),
        "{said}"
    );
    assert!(report.contains("\"DL001\""), "{report}");
}

#[test]
fn unprivileged_stalls_are_judged_by_the_online_analysis_mpich() {
    unprivileged_stalls_are_judged_by_the_online_analysis(MPICH);
}

#[test]
fn unprivileged_stalls_are_judged_by_the_online_analysis_openmpi() {
    unprivileged_stalls_are_judged_by_the_online_analysis(OPENMPI);
}

#[test]
fn stalls_are_judged_by_the_online_analysis_mpich() {
    stalls_are_judged_by_the_online_analysis(MPICH);
}

#[test]
fn stalls_are_judged_by_the_online_analysis_openmpi() {
    stalls_are_judged_by_the_online_analysis(OPENMPI);
}

/// A stall the recorded calls do not prove to be a deadlock (rank 0 polls for two kinds of
/// message in turn, which no one blocking call stands for; rank 1 waits for it), which ends
/// by itself, then a deadlock. A copy of the analysis that follows the job judges the first
/// stall, and the analysis goes on: with the traces' records released, it judges the
/// deadlock too and mpicheck ends the job (before, the first verdict ended the analysis,
/// the released traces could not be read again, and the job hung until the user stopped
/// it). A long stall is judged again only as it lasts twice as long. A run that finishes
/// after such a stall reports what its finished traces report.
fn a_stall_that_proves_nothing_leaves_the_analysis_going_on(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("stall_then_hang");
    compile_to(family, &program_source("stall_then_hang.c"), &exe);
    let run = |name: &str, args: &[&str], flags: &[&str], stall_after_note: u64| {
        let out = dir.path().join(format!("out-{name}"));
        let go = dir.path().join(format!("go-{name}"));
        let go_later = go.clone();
        // Rank 0 polls until mpicheck said what it made of the stall, and
        // `stall_after_note` seconds more.
        let (report, said) = report_of_watching(
            family,
            2,
            &exe,
            &out,
            &[&[args[0], go.to_str().unwrap()], &args[1..]].concat(),
            flags,
            move |line| {
                if String::from_utf8_lossy(line).contains("do not prove a deadlock") {
                    let go = go_later.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(std::time::Duration::from_secs(stall_after_note));
                        std::fs::write(&go, b"").unwrap();
                    });
                }
            },
        );
        assert!(
            said.contains("do not prove a deadlock")
                && said.contains("it proves nothing, and the analysis goes on")
                && !said.contains("cannot analyze"),
            "{name} under {}: {said}",
            family.name
        );
        (out, report, said)
    };
    let timeout: &[&str] = &["--deadlock-timeout", "2"];
    let released = [timeout, &["--release-traces-after", "1M"]].concat();
    let (out, report, said) = run("released", &["20000"], &released, 0);
    assert!(
        said.contains("mpicheck: deadlock: no rank has made progress"),
        "under {}: {said}",
        family.name
    );
    assert!(
        report.contains("\"DL001\""),
        "under {}: {report}",
        family.name
    );
    // (Nothing but the analysis that followed the job could judge the deadlock.)
    assert!(
        released_traces(&out).next().is_some(),
        "nothing was released: {said}"
    );
    assert_error(
        &mpicheck(&["analyze", out.to_str().unwrap()]),
        "released during the run",
    );
    // A stall that lasts ~16 s with a 1 s timeout: judged after ~2, 4 and 8 s (and maybe
    // 16), the calls being the same until a rank moves, not every 2 s (the timeout and a
    // second to see that rank 0 polls).
    let flags = ["--deadlock-timeout", "1", "--keep-traces"];
    let (out, report, said) = run("finished", &["2000", "finish"], &flags, 14);
    assert!(
        said.contains("is used: true"),
        "under {}: {said}",
        family.name
    );
    let verdicts = said
        .matches("a copy of the analysis during the run judged")
        .count();
    assert!(
        (2..=4).contains(&verdicts),
        "{verdicts} verdicts under {}: {said}",
        family.name
    );
    assert!(
        report.contains("\"TY002\""),
        "under {}: {report}",
        family.name
    );
    let again = mpicheck(&["analyze", out.to_str().unwrap()]);
    let analyzed = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    assert_eq!(
        report,
        analyzed.replace(out.to_str().unwrap(), "OUT"),
        "under {}",
        family.name
    );
}

#[test]
fn a_stall_that_proves_nothing_leaves_the_analysis_going_on_mpich() {
    a_stall_that_proves_nothing_leaves_the_analysis_going_on(MPICH);
}

#[test]
fn a_stall_that_proves_nothing_leaves_the_analysis_going_on_openmpi() {
    a_stall_that_proves_nothing_leaves_the_analysis_going_on(OPENMPI);
}

/// The traces' records the analysis read are released during a long run (here past 1 MiB of
/// a trace): the report is the one of the run whose traces were kept, and the run cannot be
/// analyzed again, which `mpicheck analyze` says in one line.
fn released_traces_report_what_kept_traces_report(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("released_loop");
    compile_to(family, &program_source("released_loop.c"), &exe);
    let released_out = dir.path().join("out-released");
    let go = dir.path().join("released-go");
    // Makes `go` once a trace says records were released (or after 120 s).
    let watcher = {
        let (out, go) = (released_out.clone(), go.clone());
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while start.elapsed() < RUN_TIMEOUT && !go.exists() {
                if released_traces(&out).next().is_some() {
                    std::fs::write(&go, b"").unwrap();
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let (released, said) = report_of(
        family,
        2,
        &exe,
        &released_out,
        &["100000", go.to_str().unwrap()],
        &["--release-traces-after", "1M"],
    );
    watcher.join().unwrap();
    assert!(said.contains("is used: true"), "{said}");
    assert!(
        given_back(&released_out, 1) > 0,
        "nothing was released: {said}"
    );
    // (The same arguments: the report names them.)
    std::fs::write(&go, b"").unwrap();
    let (kept, said) = report_of(
        family,
        2,
        &exe,
        &dir.path().join("out-kept"),
        &["100000", go.to_str().unwrap()],
        &["--keep-traces"],
    );
    assert!(said.contains("is used: true"), "{said}");
    assert!(
        released.contains("\"RS001\"") && released.contains("\"TY002\""),
        "{released}"
    );
    assert_eq!(released, kept, "under {}", family.name);
    let again = mpicheck(&["analyze", released_out.to_str().unwrap()]);
    assert_error(&again, "released during the run");
}

/// How many traces of `out` say records were released (more than 1 MiB each), checking
/// that each takes less than `1 / fraction` of the disk its records took.
fn given_back(out: &Path, fraction: u64) -> usize {
    use std::os::unix::fs::MetadataExt;
    let mut released = 0;
    for (path, header) in released_traces(out) {
        let (from, to) = header.released.unwrap();
        assert!(to > from + (1 << 20), "{path:?}: {from}..{to}");
        let kept = std::fs::metadata(&path).unwrap().blocks() * 512;
        let written = header.records_end;
        assert!(
            kept < written / fraction,
            "{path:?}: {kept} of {written} bytes kept"
        );
        released += 1;
    }
    released
}

/// The traces of `out` whose header says records were released, with their headers.
fn released_traces(
    out: &Path,
) -> impl Iterator<Item = (std::path::PathBuf, mpicheck_trace::TraceHeader)> {
    let entries = std::fs::read_dir(out).into_iter().flatten().flatten();
    entries.filter_map(|entry| {
        let path = entry.path();
        let mut header = vec![0; mpicheck_trace::HEADER_SIZE];
        use std::io::Read;
        std::fs::File::open(&path)
            .ok()?
            .read_exact(&mut header)
            .ok()?;
        let header = mpicheck_trace::reader::read_header(&header).ok()?;
        header.released.map(|_| (path, header))
    })
}

#[test]
fn released_traces_report_what_kept_traces_report_mpich() {
    released_traces_report_what_kept_traces_report(MPICH);
}

#[test]
fn released_traces_report_what_kept_traces_report_openmpi() {
    released_traces_report_what_kept_traces_report(OPENMPI);
}

/// Ctrl-C once records of the traces were released: the analysis that followed the job is
/// not stopped but read to the job's end, and its result is the report (nothing else could
/// read the traces); the run is incomplete (status 3), not a failure of mpicheck.
fn interrupted_released_run_is_reported(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("released_loop");
    compile_to(family, &program_source("released_loop.c"), &exe);
    let out = dir.path().join("out");
    // Far more rounds than the test waits for.
    let mut cmd = mpicheck_run_command(
        family,
        2,
        &out,
        &[exe.to_str().unwrap(), "100000000"],
        &["--release-traces-after", "1M"],
    );
    cmd.env("MPICHECK_DEBUG_ONLINE", "1");
    let job = spawn_collected(cmd);
    let started = std::time::Instant::now();
    while released_traces(&out).next().is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "nothing was released"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: kill(2) of the process group the test started.
    unsafe { libc::kill(-(job.child.id() as i32), libc::SIGINT) };
    let output = job.wait();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the job was interrupted"), "{stderr}");
    assert!(!stderr.contains("cannot analyze"), "{stderr}");
    assert!(
        !stderr.contains("the analysis during the run stops"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the analysis made during the run is used: true"),
        "{stderr}"
    );
    assert!(out.join("report.json").exists(), "{stderr}");
}

#[test]
fn interrupted_released_run_is_reported_mpich() {
    interrupted_released_run_is_reported(MPICH);
}

#[test]
fn interrupted_released_run_is_reported_openmpi() {
    interrupted_released_run_is_reported(OPENMPI);
}

/// A job that writes its traces faster than the analysis reads them (released_loop.c
/// without pauses, until the test says) waits for it once a trace holds more than a bound of
/// records not yet released (2 × 1 MiB + 16 MiB here): the traces stay bounded, the user is
/// told, and the report is the one of the run whose traces were kept.
fn fast_jobs_wait_for_the_analysis(family: Family) {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("released_loop");
    compile_to(family, &program_source("released_loop.c"), &exe);
    let go = dir.path().join("go");
    let args = ["100000000", go.to_str().unwrap(), "until-go"];
    // The loop ends once the job went on after waiting (or after 120 s: the test fails).
    let marker = go.clone();
    let (held, said) = report_of_watching(
        family,
        2,
        &exe,
        &dir.path().join("out-held"),
        &args,
        &["--release-traces-after", "1M"],
        move |line| {
            if line.windows(15).any(|w| w == b"the job goes on") {
                let _ = std::fs::write(&marker, b"");
            }
        },
    );
    assert!(said.contains("mpicheck: note: the job waited "), "{said}");
    assert!(said.contains("is used: true"), "{said}");
    // Records were given back to the disk. (Not half of them, as once asserted: the job
    // goes on once the analysis is within 9 MiB of it and ends soon after, so on a loaded
    // machine the records written since, not yet analyzed, were 13 of 19 MB in one CI run.)
    assert_eq!(given_back(&dir.path().join("out-held"), 1), 2, "{said}");
    // (The same arguments, the file there from the start: the report names them.)
    let (kept, said) = report_of(
        family,
        2,
        &exe,
        &dir.path().join("out-kept"),
        &args,
        &["--keep-traces"],
    );
    assert!(!said.contains("the job waited"), "{said}");
    assert!(
        held.contains("\"RS001\"") && held.contains("\"TY002\""),
        "{held}"
    );
    assert_eq!(held, kept, "under {}", family.name);
}

#[test]
fn fast_jobs_wait_for_the_analysis_mpich() {
    fast_jobs_wait_for_the_analysis(MPICH);
}

#[test]
fn fast_jobs_wait_for_the_analysis_openmpi() {
    fast_jobs_wait_for_the_analysis(OPENMPI);
}
