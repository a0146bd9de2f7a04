//! From the trace files of an output directory to findings and reports: read the traces,
//! resolve call sites from DWARF, normalize, run every check, select the findings (severity
//! threshold, suppression file), write `report.json`, `report.sarif` and `report.html`, and
//! print the findings (`--format`: on stderr for the terminal, since stdout belongs to the
//! program; machine formats on stdout).

use std::collections::HashMap;
use std::fs;
use std::io::{BufWriter, IsTerminal, Write};
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

use crate::progress::Progress;
use crate::{ColorArg, Format, ReportArgs, SeverityArg};
use mpicheck_symbols::Symbolizer;
use mpicheck_trace::reader::{read_trace, Trace};
use serde::{Deserialize, Serialize};

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

pub const RUN_META_FILE: &str = "run.json";
const REPORT_FILES: [&str; 3] = ["report.json", "report.sarif", "report.html"];
/// Calls per rank shown in the HTML timeline.
const TIMELINE_CALLS: usize = 12;

/// What `--format`, `--severity`, `--suppressions`, `--max-findings` and `--color` ask for,
/// with the suppression file read.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    pub format: Format,
    pub min_severity: Severity,
    pub suppressions: Suppressions,
    pub max_findings: Option<usize>,
    pub color: ColorArg,
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
        }
    }
}

/// `mpicheck analyze DIR`.
pub fn analyze_saved(dir: &Path, args: &ReportArgs) -> Result<u8> {
    let options = ReportOptions::from_args(args)?;
    if !dir.is_dir() {
        bail!("{} is not a directory; give the output directory of an `mpicheck run` (default ./mpicheck-out)", dir.display());
    }
    let meta = match fs::read(dir.join(RUN_META_FILE)) {
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
    let findings = analyze_and_report(dir, &meta, &options)?;
    Ok(if has_errors(&findings) { 1 } else { 0 })
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
                "  {index:>5} {} at {file}:{line}{state}: {:?}",
                event.call, event.op
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

pub fn has_errors(findings: &[Diagnostic]) -> bool {
    findings.iter().any(|d| d.severity == Severity::Error)
}

/// Reads every trace of `dir` and runs all checks; writes the reports and prints them.
/// Returns the reported findings (not suppressed, at or above the threshold).
pub fn analyze_and_report(
    dir: &Path,
    meta: &RunMeta,
    options: &ReportOptions,
) -> Result<Vec<Diagnostic>> {
    // Shown only if the analysis takes long enough to need it, and only on a terminal.
    let progress = Progress::start();
    let traces = load_traces_with(dir, &progress)?;
    progress.stage("resolving call sites and normalizing");
    let mut run = build_run(&traces)?;
    model_polling(&mut run, &meta.polling);
    progress.stage(&format!(
        "replaying {} calls of {} ranks and running the checks",
        run.ranks.iter().map(|r| r.events.len()).sum::<usize>(),
        run.ranks.len()
    ));
    let findings = mpicheck_report::fold(mpicheck_analyzer::checks::run_all(&run));
    progress.stage("writing the reports");
    let reported = report(dir, meta, &traces, &run, findings, options, Some(&progress))?;
    Ok(reported)
}

/// The traces of `dir` that belong to MPI processes, ordered by rank. Unreadable traces are
/// skipped with a warning, so one damaged file does not hide the others' findings.
pub fn load_traces(dir: &Path) -> Result<Vec<Trace>> {
    load_traces_with(dir, &Progress::disabled())
}

fn load_traces_with(dir: &Path, progress: &Progress) -> Result<Vec<Trace>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_trace_file(p))
        .collect();
    paths.sort();
    let mut traces = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        progress.stage(&format!("reading trace {} of {}", i + 1, paths.len()));
        match read_trace(path) {
            // Processes the preloaded library started in but that never used MPI (a shell
            // or helper the program ran) leave empty traces; they are not ranks.
            Ok(trace) if !trace.header.initialized() && trace.calls.is_empty() => {}
            Ok(trace) => traces.push(trace),
            Err(e) => progress
                .suspend(|| eprintln!("mpicheck: warning: skipping {}: {e}", path.display())),
        }
    }
    if traces.is_empty() {
        bail!(
            "no MPI traces in {}: the program made no MPI call under mpicheck (is it an MPI program, started by `mpicheck run`?)",
            dir.display()
        );
    }
    traces.sort_by_key(|t| (t.header.best_rank().unwrap_or(i32::MAX), t.header.pid));
    Ok(traces)
}

pub fn is_trace_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("trace-") && n.ends_with(mpicheck_trace::TRACE_SUFFIX))
}

/// Normalizes the traces, resolving each rank's call sites against its own memory map.
pub fn build_run(traces: &[Trace]) -> Result<Run> {
    let mut symbolizer = Symbolizer::new("");
    let mut current: Option<usize> = None;
    let mut cache: HashMap<(usize, u64), SourceLocation> = HashMap::new();
    let mut resolve = |trace: usize, addr: u64| -> SourceLocation {
        if let Some(loc) = cache.get(&(trace, addr)) {
            return loc.clone();
        }
        if current != Some(trace) {
            symbolizer.set_maps(&traces[trace].proc_maps);
            current = Some(trace);
        }
        let loc = symbolizer.resolve(addr);
        cache.insert((trace, addr), loc.clone());
        loc
    };
    mpicheck_analyzer::normalize::normalize(traces, &mut resolve)
        .context("cannot analyze the traces")
}

/// Selects the findings (severity threshold, suppression file), writes the three report
/// files, and prints the findings as `--format` asks when `print`. Returns the reported
/// findings. `progress` is cleared before anything is printed.
pub fn report(
    dir: &Path,
    meta: &RunMeta,
    traces: &[Trace],
    run: &Run,
    findings: Vec<Diagnostic>,
    options: &ReportOptions,
    print: Option<&Progress>,
) -> Result<Vec<Diagnostic>> {
    let functions = site_functions(run);
    let function_of = |l: &Location| -> Option<String> {
        functions
            .get(&(l.file.clone()?, l.line?))
            .map(|f| f.to_string())
    };
    let selected = Selection {
        min_severity: options.min_severity,
        suppressions: &options.suppressions,
    }
    .apply(findings, &function_of);
    let run_info = RunInfo {
        program: meta.program.clone(),
        args: meta.args.clone(),
        mpi_family: meta.mpi_family.clone().or_else(|| {
            traces
                .first()
                .map(|t| t.header.family.clone())
                .filter(|f| !f.is_empty())
        }),
        ranks: run.world_size(),
        exit_status: meta.exit_status,
        trace_ends: TraceEnd::from_run(run),
    };
    let timelines = timelines(run);
    let input = ReportInput {
        run: &run_info,
        findings: &selected.findings,
        timelines: &timelines,
        source_base: &meta.working_dir,
        hidden: Hidden {
            suppressed: selected.suppressed,
            below_threshold: selected.below_threshold,
            beyond_cap: Summary::default(),
        },
    };
    let [json, sarif, html] = REPORT_FILES.map(|name| dir.join(name));
    write_file(&json, |w| mpicheck_report::write_json(w, &input))?;
    write_file(&sarif, |w| {
        mpicheck_report::write_sarif(w, &input, mpicheck_analyzer::checks::catalogue())
    })?;
    write_file(&html, |w| mpicheck_report::write_html(w, &input))?;
    if let Some(progress) = print {
        progress.finish();
        print_report(&input, options, &json)?;
    }
    Ok(selected.findings)
}

/// The function of each call site, by `(file, line)`, for suppressions by function.
fn site_functions(run: &Run) -> HashMap<(String, u32), &str> {
    let mut out = HashMap::new();
    for site in &run.sites {
        if let (Some(file), Some(line), Some(function)) = (&site.file, site.line, &site.function) {
            out.entry((file.clone(), line)).or_insert(function.as_str());
        }
    }
    out
}

/// Prints the report in the format asked for: the terminal rendering on stderr, machine
/// formats on stdout; the summary line always goes to stderr.
fn print_report(input: &ReportInput<'_>, options: &ReportOptions, json: &Path) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match options.format {
        Format::Terminal => {
            let (shown, beyond_cap) = mpicheck_report::cap(input.findings, options.max_findings);
            let capped = ReportInput {
                findings: &shown,
                hidden: Hidden {
                    beyond_cap,
                    ..input.hidden
                },
                ..*input
            };
            print_findings(&capped, options.color);
            eprintln!("mpicheck: report written to {}", json.display());
            return Ok(());
        }
        Format::Json => mpicheck_report::write_json(&mut stdout, input)?,
        Format::Sarif => mpicheck_report::write_sarif(
            &mut stdout,
            input,
            mpicheck_analyzer::checks::catalogue(),
        )?,
        Format::Html => mpicheck_report::write_html(&mut stdout, input)?,
        Format::Dot => {
            for graph in input.findings.iter().filter_map(|d| d.wait_for.as_ref()) {
                stdout.write_all(mpicheck_report::to_dot(graph).as_bytes())?;
            }
        }
        Format::None => {}
    }
    stdout.flush().context("cannot print the report")?;
    eprintln!(
        "mpicheck: {}; report written to {}",
        Summary::of_input(input).text(),
        json.display()
    );
    Ok(())
}

/// Prints findings on stderr, in color when `--color` and the terminal say so.
pub fn print_findings(input: &ReportInput<'_>, color: ColorArg) {
    use termcolor::StandardStream;
    let choice = match color {
        ColorArg::Always => ColorChoice::Always,
        ColorArg::Never => ColorChoice::Never,
        ColorArg::Auto
            if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() =>
        {
            ColorChoice::Auto
        }
        ColorArg::Auto => ColorChoice::Never,
    };
    let mut stderr = StandardStream::stderr(choice);
    if let Err(e) = mpicheck_report::render_terminal(&mut stderr, input) {
        eprintln!("mpicheck: warning: cannot print the findings: {e}");
    }
}

fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let file =
        fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut w = BufWriter::new(file);
    write(&mut w)
        .and_then(|()| w.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The last calls of every rank, for the HTML report's timeline.
fn timelines(run: &Run) -> Vec<RankTimeline> {
    run.ranks
        .iter()
        .map(|rank| RankTimeline {
            rank: rank.rank,
            calls: rank.events[rank.events.len().saturating_sub(TIMELINE_CALLS)..]
                .iter()
                .map(|event| {
                    let site = run.site(event.site);
                    TimelineCall {
                        call: event.call.to_string(),
                        site: match (&site.file, site.line) {
                            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
                            (Some(f), None) => Some(f.clone()),
                            _ => None,
                        },
                        returned: event.returned,
                    }
                })
                .collect(),
        })
        .collect()
}
