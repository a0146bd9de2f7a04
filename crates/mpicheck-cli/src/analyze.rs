//! From the trace files of an output directory to findings and reports: read the traces,
//! resolve call sites from DWARF, normalize, run every check, select the findings (severity
//! threshold, suppression file), write `report.json`, `report.sarif` and `report.html`, and
//! print the findings (`--format`: on stderr for the terminal, since stdout belongs to the
//! program; machine formats on stdout).
//!
//! When the traces do not show the whole run (a trace cut after its process wrote it, one
//! that ran out of space, an unreadable trace file, a rank without a trace), stderr says so,
//! one line each, and [`Analysis::incomplete`] is not empty: "no findings" cannot be claimed.

use std::collections::HashMap;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use mpicheck_analyzer::diagnostic::{Diagnostic, Location, Severity};
use mpicheck_analyzer::model::{Run, SourceLocation};
use mpicheck_report::filter::DEFAULT_SUPPRESSIONS_FILE;
use mpicheck_report::{
    Hidden, RankTimeline, ReportInput, RunInfo, Selection, Summary, Suppressions, TimelineCall,
    TraceEnd,
};
use termcolor::ColorChoice;

use crate::out_dir;
use crate::progress::Progress;
use crate::status::{self, ProgramEnd};
use crate::{ColorArg, Format, ReportArgs, SeverityArg};
use mpicheck_analyzer::normalize::{assign_ranks, is_rank_trace, RankAssignment};
use mpicheck_symbols::{parse_maps, Mapping, Symbolizer};
use mpicheck_trace::reader::{read_trace, Trace, TraceError};
use mpicheck_trace::Incomplete;
use serde::{Deserialize, Serialize};

mod notes;
mod output;

use notes::{
    child_process_note, given_up_note, incomplete_notes, incomplete_summary, outside_job_notes,
};
pub use output::report;

/// What `mpicheck run` saves as `run.json` so that `mpicheck analyze` reports the same run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunMeta {
    pub program: String,
    pub args: Vec<String>,
    pub mpi_family: Option<String>,
    pub ranks: u32,
    /// Exit status of the launcher; `None` when it was killed by a signal or mpicheck ended
    /// the job.
    pub exit_status: Option<i32>,
    /// The directory the program ran in: relative source paths are resolved against it.
    pub working_dir: PathBuf,
    /// Threads that only polled (`MPI_Test*`, `MPI_Iprobe`) when mpicheck ended the job as
    /// deadlocked: the analysis models their loops as the blocking calls they stand for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub polling: Vec<PollingThread>,
    /// How the job ended (absent in the run.json of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<ProgramEnd>,
}

/// A thread of a rank that was polling without success when the job was ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PollingThread {
    pub rank: i32,
    pub thread: u16,
}

/// Models each polling thread's loop as the blocking call it stands for
/// (`mpicheck_analyzer::polling`); false if one cannot be.
pub fn model_polling(run: &mut Run, polling: &[PollingThread]) -> bool {
    polling.iter().all(|p| {
        usize::try_from(p.rank)
            .ok()
            .and_then(|rank| run.ranks.get_mut(rank))
            .is_some_and(|trace| mpicheck_analyzer::polling::block_trailing_polls(trace, p.thread))
    })
}

/// The polling threads as (rank, thread), for the analysis's compiled program.
pub(crate) fn polling_threads(polling: &[PollingThread]) -> Vec<(u32, u16)> {
    polling
        .iter()
        .filter_map(|p| Some((u32::try_from(p.rank).ok()?, p.thread)))
        .collect()
}

pub const RUN_META_FILE: &str = "run.json";
const REPORT_FILES: [&str; 3] = ["report.json", "report.sarif", "report.html"];
/// Every file mpicheck writes into the output directory besides traces and its marker.
pub const OUTPUT_FILES: [&str; 4] = ["report.json", "report.sarif", "report.html", RUN_META_FILE];
/// Largest run.json read.
const RUN_META_MAX_BYTES: u64 = 16 << 20;
/// Calls per rank shown in the HTML timeline: the analysis keeps at least these.
const TIMELINE_CALLS: usize = 12;
const _: () = assert!(TIMELINE_CALLS <= mpicheck_analyzer::checks::LAST_EVENTS_KEPT);

/// What `--format`, `--severity`, `--suppressions`, `--max-findings` and `--color` ask for,
/// with the suppression file read.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    pub format: Format,
    pub min_severity: Severity,
    pub suppressions: Suppressions,
    pub max_findings: Option<usize>,
    pub color: ColorArg,
    /// `--max-memory`: the memory the analysis may take, instead of what is available.
    pub max_memory: Option<u64>,
}

impl ReportOptions {
    /// Reads the suppression file: the one given, else `./mpicheck-suppressions.toml` when it
    /// exists.
    pub fn from_args(args: &ReportArgs) -> Result<ReportOptions> {
        let known: Vec<&str> = mpicheck_analyzer::checks::catalogue()
            .iter()
            .map(|c| c.code)
            .collect();
        let path = match &args.suppressions {
            Some(path) => Some(path.clone()),
            None => {
                let default = PathBuf::from(DEFAULT_SUPPRESSIONS_FILE);
                // Said once, so that findings never disappear without a word.
                default.is_file().then(|| {
                    eprintln!(
                        "mpicheck: note: using suppressions from ./{DEFAULT_SUPPRESSIONS_FILE} (--suppressions FILE to use another)"
                    );
                    default
                })
            }
        };
        let suppressions = match &path {
            Some(path) => {
                let text = fs::read_to_string(path).with_context(|| {
                    format!("cannot read the suppression file {}", path.display())
                })?;
                Suppressions::parse(&text, &known)
                    .with_context(|| format!("suppression file {} is not valid", path.display()))?
            }
            None => Suppressions::default(),
        };
        Ok(ReportOptions {
            format: args.format,
            min_severity: match args.severity {
                SeverityArg::Warning => Severity::Warning,
                SeverityArg::Error => Severity::Error,
            },
            suppressions,
            max_findings: args.max_findings,
            color: args.color,
            max_memory: args.max_memory,
        })
    }
}

impl Default for ReportOptions {
    fn default() -> ReportOptions {
        ReportOptions {
            format: Format::Terminal,
            min_severity: Severity::Warning,
            suppressions: Suppressions::default(),
            max_findings: None,
            color: ColorArg::Auto,
            max_memory: None,
        }
    }
}

/// `mpicheck analyze DIR`.
pub fn analyze_saved(dir: &Path, args: &ReportArgs) -> Result<u8> {
    let options = ReportOptions::from_args(args)?;
    if !dir.is_dir() {
        bail!("{} is not a directory; give the output directory of an `mpicheck run` (default ./mpicheck-out)", dir.display());
    }
    // Held until the reports are written: no run writes into the directory meanwhile.
    let _lock = out_dir::open_for_analysis(dir)?;
    let meta: RunMeta = match out_dir::read_small(dir, RUN_META_FILE, RUN_META_MAX_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{} is damaged; delete it to analyze the traces alone",
                dir.join(RUN_META_FILE).display()
            )
        })?,
        Err(_) => RunMeta {
            working_dir: std::env::current_dir().unwrap_or_default(),
            ..RunMeta::default()
        },
    };
    if let Some(failure) = meta.end.as_ref().and_then(ProgramEnd::failure) {
        eprintln!("mpicheck: {failure} (as saved in {RUN_META_FILE})");
    }
    let analysis = analyze_and_report(dir, &meta, &options, None)?;
    Ok(status::conclude(&analysis, meta.end.as_ref()))
}

/// `mpicheck events DIR`: what the checks see, for debugging a verdict or a bug report.
pub fn print_events(dir: &Path) -> Result<u8> {
    let traces = load_traces(dir)?;
    let run = build_run(&traces)?;
    let mut out = std::io::stdout().lock();
    for rank in &run.ranks {
        writeln!(out, "rank {}", rank.rank)?;
        for (index, event) in rank.events.iter().enumerate() {
            let site = run.site(event.site);
            let file = site.file.as_deref().unwrap_or("?");
            let line = site.line.map(|l| l.to_string()).unwrap_or("?".into());
            let state = if event.returned {
                ""
            } else {
                " (did not return)"
            };
            writeln!(
                out,
                "  {index:>5} {} at {file}:{line}{state}: {:?}{}{}",
                event.call,
                event.op,
                buffer_spans(event),
                object_changes(event)
            )?;
        }
    }
    for (id, comm) in run.comms.iter().enumerate() {
        writeln!(
            out,
            "communicator {id}: {} members {:?}",
            comm.name, comm.members
        )?;
    }
    Ok(0)
}

/// The memory the call's buffers cover, as `; recvbuf 0x7f..+64 (written)`, so that a
/// buffer finding (BF001, BF002) can be followed to the calls whose bytes overlap.
fn buffer_spans(event: &mpicheck_analyzer::model::Event) -> String {
    event
        .buffers()
        .iter()
        .map(|span| {
            let param = format!("{:?}", span.param).to_lowercase();
            let written = if span.write { " (written)" } else { "" };
            format!("; {param} {:#x}+{}{written}", span.start, span.len)
        })
        .collect()
}

/// The objects a call made and freed, as `; made communicator #3; freed datatype #2` (the
/// rank's own object numbers), so that a leak (RS001) can be followed from the call that
/// made the object to the frees that did not come.
fn object_changes(event: &mpicheck_analyzer::model::Event) -> String {
    let Some(facts) = event.facts() else {
        return String::new();
    };
    let mut text = String::new();
    for (verb, objects) in [("made", &facts.created), ("freed", &facts.freed)] {
        for object in objects {
            let kind = format!("{:?}", object.kind).to_lowercase();
            text.push_str(&format!("; {verb} {kind} #{}", object.id.0));
        }
    }
    text
}

pub fn has_errors(findings: &[Diagnostic]) -> bool {
    findings.iter().any(|d| d.severity == Severity::Error)
}

/// What an analysis reported, and whether the traces showed the whole run.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The reported findings (not suppressed, at or above the threshold).
    pub findings: Vec<Diagnostic>,
    /// Why the traces do not show the whole run, one line each (already printed on stderr):
    /// a trace cut after its process wrote it, a trace that ran out of space, an unreadable
    /// trace file, a rank without a trace. Empty when they do: only then may "no findings"
    /// be claimed.
    pub incomplete: Vec<String>,
}

/// Reads every trace of `dir` and runs all checks (unless `followed`, the analysis made
/// while the job ran, stands for it); writes the reports and prints them, followed on
/// stderr by what the traces lack, if anything.
pub fn analyze_and_report(
    dir: &Path,
    meta: &RunMeta,
    options: &ReportOptions,
    followed: Option<crate::online::Followed>,
) -> Result<Analysis> {
    // Shown only if the analysis takes long enough to need it, and only on a terminal.
    let progress = Progress::start();
    // The traces the analysis during the run scanned when their processes had left them
    // are not scanned again (unless their files changed since).
    let mut followed = followed;
    let mut ended = followed
        .as_mut()
        .map(|f| std::mem::take(&mut f.ended))
        .unwrap_or_default();
    let (mut kept, mut scanned) = (0, 0);
    let loaded = scan_traces(dir, options, &progress, &mut |path| {
        if let Some(trace) = ended.remove(path).and_then(|e| e.of_unchanged(path)) {
            kept += 1;
            return Ok(trace);
        }
        scanned += 1;
        // (Records a trace's follower released are stepped over for its texts and end: what
        // else could read them is refused below.)
        match followed.is_some() {
            true => mpicheck_trace::scan_trace_file_past_released(path),
            false => mpicheck_trace::scan_trace_file(path),
        }
    })?;
    if followed.is_some() {
        crate::online::debug(&format!(
            "trace files scanned during the run, not again: {kept}; scanned now: {scanned}"
        ));
    }
    let traces = &loaded.traces;
    // Cannot fail where normalizing does not: it assigns the same ranks.
    let assignment = assign_ranks(traces).unwrap_or_default();
    let followed = followed.filter(|f| f.stands_for(traces, &loaded.paths));
    if followed
        .as_ref()
        .is_some_and(|f| f.released && f.site_outside_maps)
    {
        eprintln!("mpicheck: note: calls made from libraries the program loaded after MPI_Init are shown without their source lines: the traces' analyzed records were released during the run (--keep-traces keeps them)");
    }
    crate::online::debug(&format!(
        "the analysis made during the run is used: {}",
        followed.is_some()
    ));
    let mut incomplete_run = None;
    let (run, findings) = match followed {
        Some(followed) => {
            incomplete_run = followed.incomplete;
            (followed.run, followed.findings)
        }
        None => {
            let released = traces.iter().zip(&loaded.paths).find_map(|(t, p)| {
                let (from, to) = t.header.released?;
                Some((p, TraceError::Released { from, to }))
            });
            if let Some((path, e)) = released {
                bail!("cannot analyze {}: {}: {e}", dir.display(), path.display());
            }
            analyze_scanned(dir, meta, &loaded, &progress)?
        }
    };
    progress.stage("writing the reports");
    let reported = report(dir, meta, traces, &run, findings, options, Some(&progress))?;
    if let Some(note) = child_process_note(traces, &assignment) {
        eprintln!("mpicheck: note: {note}");
    }
    if let Some(counts) = run
        .buffer_watch
        .filter(|c| c.unwatched > 0 || c.dropped > 0 || c.neighbour_faults > 0)
    {
        eprintln!(
            "mpicheck: note: --check-buffers watched {} buffers of nonblocking calls{}{}{}",
            counts.watched,
            match counts.unwatched {
                0 => String::new(),
                n => format!(" and left {n} unwatched (stack, shared or read-only memory, next to an RMA window, unknown or non-contiguous layout, RMA results without protection keys, over 1 GiB, or too many pending)"),
            },
            match counts.dropped {
                0 => String::new(),
                n => format!("; {n} accesses found were not recorded"),
            },
            match counts.neighbour_faults {
                0 => String::new(),
                n => format!("; {n} accesses to other data on their pages were let through, a fault each"),
            }
        );
    }
    if let Some(note) = given_up_note(&run) {
        eprintln!("mpicheck: note: {note}");
    }
    let mut notes = incomplete_notes(traces, &run, &assignment);
    notes.extend(outside_job_notes(&run));
    for line in &notes {
        eprintln!("mpicheck: warning: {line}");
    }
    let mut incomplete = loaded.unreadable.clone();
    incomplete.extend(notes);
    let ended_at_a_stall = incomplete_run.is_some();
    if let Some(lack) = incomplete_run {
        eprintln!("mpicheck: warning: {lack}");
        incomplete.push(lack);
    }
    if !incomplete.is_empty() {
        let mut summary = incomplete_summary(traces, &assignment, &run, &loaded.unreadable);
        if ended_at_a_stall {
            summary.push("the calls after the job stalled were not analyzed".into());
        }
        if !run.outside_job.is_empty() {
            summary.push("processes outside the job were not recorded".into());
        }
        eprintln!(
            "mpicheck: the analysis is incomplete ({}): problems in what was not recorded cannot be found",
            summary.join(", ")
        );
    }
    Ok(Analysis {
        findings: reported,
        incomplete,
    })
}

/// The run and findings of the scanned traces `loaded` of `dir`.
fn analyze_scanned(
    dir: &Path,
    meta: &RunMeta,
    loaded: &LoadedTraces,
    progress: &Progress,
) -> Result<(Run, Vec<Diagnostic>)> {
    let traces = &loaded.traces;
    progress.stage("resolving call sites, normalizing and checking the calls");
    let maps: Vec<&str> = traces.iter().map(|t| t.proc_maps.as_str()).collect();
    let mut resolve = site_resolver(&maps);
    let (run, findings) = mpicheck_analyzer::checks::analyze_streaming(
        traces,
        &mut |i| {
            let window = mpicheck_trace::window_for(traces.len());
            mpicheck_trace::trace_file_calls(&loaded.paths[i], &traces[i].header, window)
        },
        &mut resolve,
        &polling_threads(&meta.polling),
        Some(dir),
        |run| {
            model_polling(run, &meta.polling);
            progress.stage(&format!(
                "replaying {} calls of {} ranks and running the checks",
                traces.iter().map(|t| t.mpi_calls).sum::<u64>(),
                run.ranks.len()
            ));
        },
    )
    .context("cannot analyze the traces")?;
    Ok((run, mpicheck_report::fold(findings)))
}

/// What explains the stall of a job whose ranks are all blocked, from the traces of `dir`
/// so far ([`mpicheck_analyzer::checks::stall_streaming`]: a deadlock, else mismatches),
/// with the run for the report. Streamed as the final analysis is, after the same check
/// that it fits in memory: a job that hangs after billions of calls is judged holding what
/// is live, not every call. `None` also when a polling thread cannot be modelled as the
/// blocking call its loop stands for (nothing is concluded then).
pub fn explain_stall(
    dir: &Path,
    options: &ReportOptions,
    polling: &[PollingThread],
) -> Result<(LoadedTraces, Run, Option<Vec<Diagnostic>>)> {
    let progress = Progress::disabled();
    let loaded = scan_traces(
        dir,
        options,
        &progress,
        &mut mpicheck_trace::scan_trace_file,
    )?;
    let mut modelled = false;
    let (run, explained) = {
        let traces = &loaded.traces;
        let maps: Vec<&str> = traces.iter().map(|t| t.proc_maps.as_str()).collect();
        let mut resolve = site_resolver(&maps);
        mpicheck_analyzer::checks::stall_streaming(
            traces,
            &mut |i| {
                let window = mpicheck_trace::window_for(traces.len());
                mpicheck_trace::trace_file_calls(&loaded.paths[i], &traces[i].header, window)
            },
            &mut resolve,
            &polling_threads(polling),
            Some(dir),
            |run| modelled = model_polling(run, polling),
        )
        .context("cannot analyze the traces")?
    };
    Ok((loaded, run, explained.filter(|_| modelled)))
}

/// The traces of `dir`, scanned by `scan` (their calls are decoded later, one at a time),
/// once it is checked that their analysis fits in memory.
fn scan_traces(
    dir: &Path,
    options: &ReportOptions,
    progress: &Progress,
    scan: &mut dyn FnMut(&Path) -> Result<Trace, TraceError>,
) -> Result<LoadedTraces> {
    let loaded = load_traces_with(dir, progress, scan)?;
    let calls = loaded.traces.iter().map(|t| t.mpi_calls).sum();
    let cost = if mpicheck_analyzer::checks::holds_call_skeleton(&loaded.traces) {
        crate::memory::CALL_SKELETON
    } else {
        crate::memory::STREAMING
    };
    let limit = options.max_memory.or_else(crate::memory::available);
    let given = options.max_memory.is_some();
    progress.suspend(|| crate::memory::check_fits(calls, cost, limit, given, dir))?;
    // The ranks' calls are read interleaved: every trace file is open at once.
    crate::open_files::allow(loaded.traces.len())?;
    Ok(loaded)
}

/// The traces of an output directory, and the trace files that could not be read.
pub struct LoadedTraces {
    pub traces: Vec<Trace>,
    /// The file of each trace.
    paths: Vec<PathBuf>,
    /// The warnings printed for trace files skipped as unreadable.
    unreadable: Vec<String>,
}

/// The traces of `dir` that belong to MPI processes, ordered by rank. Unreadable traces are
/// skipped with a warning, so one damaged file does not hide the others' findings.
pub fn load_traces(dir: &Path) -> Result<Vec<Trace>> {
    Ok(load_traces_with(dir, &Progress::disabled(), &mut read_trace)?.traces)
}

/// As [`load_traces`], each trace read by `read` (whole, or only scanned), with its path.
fn load_traces_with(
    dir: &Path,
    progress: &Progress,
    read: &mut dyn FnMut(&Path) -> Result<Trace, TraceError>,
) -> Result<LoadedTraces> {
    // Only this run's traces: never stray or older trace files in the directory.
    let mut paths: Vec<PathBuf> = out_dir::run_traces(dir)?;
    paths.sort();
    let mut traces = Vec::new();
    let mut unreadable = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        progress.stage(&format!("reading trace {} of {}", i + 1, paths.len()));
        match read(path) {
            // Processes the preloaded library started in that made no MPI call (a shell or
            // helper the program ran) are not ranks.
            Ok(trace) if !is_rank_trace(&trace) => {}
            Ok(trace) => traces.push((trace, path.clone())),
            // Not a damaged trace: without its records any analysis would be wrong.
            Err(e @ TraceError::Released { .. }) => {
                bail!("cannot analyze {}: {}: {e}", dir.display(), path.display())
            }
            Err(e) => {
                // Named pipes, links and devices are refused by the reader without
                // blocking; their message names the path already.
                let why = match &e {
                    TraceError::NotAFile { what, .. } => format!("it is {what}, not a trace file"),
                    e => e.to_string(),
                };
                let warning = format!("skipping {}: {why}", path.display());
                progress.suspend(|| eprintln!("mpicheck: warning: {warning}"));
                unreadable.push(warning);
            }
        }
    }
    if traces.is_empty() {
        bail!(
            "no MPI traces in {}: the program made no MPI call under mpicheck (is it an MPI program, started by `mpicheck run`?)",
            dir.display()
        );
    }
    traces.sort_by_key(|(t, _)| (t.header.best_rank().unwrap_or(i32::MAX), t.header.pid));
    let (traces, paths) = traces.into_iter().unzip();
    Ok(LoadedTraces {
        traces,
        paths,
        unreadable,
    })
}

pub fn is_trace_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("trace-") && n.ends_with(mpicheck_trace::TRACE_SUFFIX))
}

/// Normalizes the traces, resolving each rank's call sites against its own memory map.
pub fn build_run(traces: &[Trace]) -> Result<Run> {
    let maps: Vec<&str> = traces.iter().map(|t| t.proc_maps.as_str()).collect();
    let mut resolve = site_resolver(&maps);
    let run = mpicheck_analyzer::normalize::normalize(traces, &mut resolve);
    run.context("cannot analyze the traces")
}

/// How many processes' parsed memory maps [`site_resolver`] keeps besides the one in use.
const PARSED_MAPS_KEPT: usize = 64;

/// Resolves call sites of the process whose memory map is `maps[i]`, caching each answer.
pub(crate) fn site_resolver<'m>(
    maps: &'m [&'m str],
) -> impl FnMut(usize, u64) -> SourceLocation + 'm {
    let mut symbolizer = Symbolizer::new("");
    let mut current: Option<usize> = None;
    let mut cache: HashMap<(usize, u64), SourceLocation> = HashMap::new();
    // New sites come from the ranks in turn: parsing a map (~1 M instructions for a program
    // with LAMMPS's libraries) at every turn took 8% of a short LAMMPS run's analysis.
    let mut parsed: HashMap<usize, Vec<Mapping>> = HashMap::new();
    move |trace: usize, addr: u64| -> SourceLocation {
        if let Some(loc) = cache.get(&(trace, addr)) {
            return loc.clone();
        }
        if current != Some(trace) {
            let next = parsed
                .remove(&trace)
                .unwrap_or_else(|| parse_maps(maps[trace]));
            let previous = symbolizer.swap_maps(next);
            if let Some(previous_trace) = current {
                if parsed.len() >= PARSED_MAPS_KEPT {
                    parsed.clear();
                }
                parsed.insert(previous_trace, previous);
            }
            current = Some(trace);
        }
        let loc = symbolizer.resolve(addr);
        cache.insert((trace, addr), loc.clone());
        loc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sites asked for rank after rank, over more ranks than the parsed maps kept: each is
    /// resolved against its own rank's map, as a symbolizer made for that rank alone does.
    #[test]
    fn sites_of_ranks_in_turn_resolve_against_their_own_maps() {
        for ranks in [2, PARSED_MAPS_KEPT + 6] {
            let texts: Vec<String> = (0..ranks)
                .map(|rank| {
                    format!("7f1000000000-7f1000001000 r-xp 00000000 fe:00 {rank} /nonexistent/mpicheck/rank{rank}.so\n")
                })
                .collect();
            let maps: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut resolve = site_resolver(&maps);
            for turn in 0..3u64 {
                for (rank, text) in maps.iter().enumerate() {
                    let addr = 0x7f1000000010 + turn;
                    let location = resolve(rank, addr);
                    assert_eq!(location, Symbolizer::new(text).resolve(addr));
                    assert_eq!(
                        location.object.as_deref(),
                        Some(format!("/nonexistent/mpicheck/rank{rank}.so").as_str())
                    );
                }
            }
        }
    }
}
