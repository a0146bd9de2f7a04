//! The reports written and printed: the findings selected, `report.json`, `report.sarif`
//! and `report.html` written, and the findings printed as `--format` asks.

use super::*;

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
fn print_findings(input: &ReportInput<'_>, color: ColorArg) {
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

/// Writes a report file as the output directory's rules say (`out_dir::write_owned`: only
/// over mpicheck's own earlier file, never through a link).
fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        bail!("cannot write {}", path.display());
    };
    out_dir::write_owned(dir, name, write)
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
