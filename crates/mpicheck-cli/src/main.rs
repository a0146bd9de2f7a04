//! `mpicheck`: run an MPI program under the checker, re-analyze a saved run, list and explain
//! the checks.
//!
//! Exit status: see `status.rs` (and the README): 0 clean, 1 error findings, 2 mpicheck
//! could not do its job, 3 no error finding but the program failed or the analysis is
//! incomplete; never the program's own status.
//!
//! A reported finding is one the suppression file does not match and that is at or above
//! the severity threshold (`--severity`); `--max-findings` limits what is printed, never
//! what counts.

mod analyze;
mod hold_back;
mod launch;
mod memory;
mod online;
mod open_files;
mod out_dir;
mod progress;
mod relay;
mod run;
mod stall_copy;
mod status;
mod watch;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use launch::MpiFamily;

#[derive(Parser)]
#[command(
    name = "mpicheck",
    version,
    about = "A correctness checker for MPI programs: deadlocks, collective and datatype mismatches, request and resource misuse, MPI + threads rules",
    after_help = "Exit status of run and analyze: 0 clean; 1 a finding of severity error; 2 mpicheck could not do its job; 3 no error finding, but the program failed or the analysis is incomplete (see the README)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an MPI program under mpicheck, then analyze and report.
    Run(RunArgs),
    /// Analyze the traces of a saved run again.
    Analyze {
        /// The output directory of an earlier `mpicheck run`.
        dir: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Print every rank's recorded MPI calls as the analyzer reads them: call, call site,
    /// whether it returned, and its normalized operation (world ranks, communicator ids).
    Events {
        /// The output directory of an earlier `mpicheck run`.
        dir: PathBuf,
    },
    /// List every check with its code, category and default severity.
    Checks,
    /// Explain one check: what it detects, why it is wrong, an example and the fix.
    Explain {
        /// A check code such as DL001.
        code: String,
    },
    /// Internal: what the launcher starts as each rank of `mpicheck run`; sets the rank's
    /// environment and becomes the program.
    #[command(name = launch::EXEC_RANK, hide = true)]
    ExecRank {
        #[arg(long)]
        library: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        threads: Option<OsString>,
        #[arg(long)]
        check_buffers: bool,
        #[arg(required = true, last = true)]
        command: Vec<OsString>,
    },
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// Number of MPI processes to start (of the first program, in a job of several:
    /// `PROGRAM ARGS : -n M PROGRAM2 ARGS`, as with mpiexec).
    #[arg(short = 'n', long = "np", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub ranks: u32,
    /// The MPI the program is linked against (detected from the program when not given).
    #[arg(long, value_enum)]
    pub mpi: Option<MpiFamily>,
    /// Directory for traces and reports (report.json, report.sarif, report.html, run.json).
    /// mpicheck replaces only the files its earlier run there wrote (listed in
    /// .mpicheck-run.json) and refuses to touch anyone else's.
    #[arg(long, value_name = "DIR", default_value = "mpicheck-out")]
    pub out: PathBuf,
    /// Seconds without progress, with every rank blocked in MPI, before a deadlock is reported
    /// (at most 86400, one day).
    #[arg(long, value_name = "SECS", default_value_t = 5.0, allow_negative_numbers = true,
          value_parser = parse_timeout)]
    pub deadlock_timeout: f64,
    /// On an actual deadlock: end the job (abort) or report it and let the job wait (report).
    #[arg(long, value_enum, default_value_t = OnDeadlock::Abort)]
    pub on_deadlock: OnDeadlock,
    /// Also find loads and stores of the program into the buffers of pending nonblocking
    /// sends and receives (DR002), by protecting their memory pages while the program runs
    /// outside MPI. Slows programs that make many nonblocking calls (docs/buffer-checking.md).
    #[arg(long)]
    pub check_buffers: bool,
    /// Analyze the traces only once the job has ended. By default the analysis follows the
    /// job while it runs, so that the report is ready about when the job ends.
    #[arg(long)]
    pub analyze_after: bool,
    /// Keep every trace whole. By default, once the analysis that follows the job has read
    /// more than --release-traces-after of a rank's trace, it gives back the disk space of
    /// what it read, so that a long run uses bounded disk (`mpicheck analyze` cannot read
    /// such a run again).
    #[arg(long)]
    pub keep_traces: bool,
    /// How much of a rank's trace the analysis that follows the job reads before it releases
    /// what it read (`512M`, `4G`).
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size, default_value = "1G",
          conflicts_with_all = ["keep_traces", "analyze_after"])]
    pub release_traces_after: u64,
    /// Start the program with this command instead of the MPI's mpiexec, e.g. "srun" or
    /// "mpiexec -f hosts"; mpicheck appends `-n N`.
    #[arg(long, value_name = "CMD")]
    pub launcher: Option<String>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// The program and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        value_name = "PROGRAM [ARGS]"
    )]
    pub command: Vec<String>,
}

/// How findings are reported; shared by `run` and `analyze`.
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "Reporting")]
pub struct ReportArgs {
    /// What mpicheck prints: `terminal`, the findings in rustc style on stderr; `json`,
    /// `sarif` or `html`, that report on stdout (after the program's own output); `dot`, the
    /// wait-for graph of each deadlock on stdout; `none`, only the summary line. The report
    /// files in the output directory are written in every case.
    #[arg(long, value_enum, default_value_t = Format::Terminal)]
    pub format: Format,
    /// Report only findings of at least this severity (printed and in the report files).
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = SeverityArg::Warning)]
    pub severity: SeverityArg,
    /// Suppression file (TOML, `[[suppress]]` entries by code, file, function, ranks).
    /// Default: ./mpicheck-suppressions.toml when it exists; `--suppressions /dev/null`
    /// ignores it.
    #[arg(long, value_name = "FILE")]
    pub suppressions: Option<PathBuf>,
    /// Print at most N findings on the terminal, the most severe first. The summary line
    /// still counts them all and the report files keep them all.
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Colors in the terminal output: `auto` (when stderr is a terminal and NO_COLOR is not
    /// set), `always` or `never`.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Refuse to analyze when the recorded calls need more memory than SIZE (`512M`, `4G`)
    /// instead of the memory available to mpicheck (including its cgroup's limit); the
    /// traces are kept either way.
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    pub max_memory: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Terminal,
    Json,
    Sarif,
    Html,
    Dot,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SeverityArg {
    Warning,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnDeadlock {
    Abort,
    Report,
}

/// Longest `--deadlock-timeout`: a job stuck for a day is stuck.
const MAX_DEADLOCK_TIMEOUT_SECS: f64 = 86_400.0;

fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs <= MAX_DEADLOCK_TIMEOUT_SECS => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds above 0 and at most {MAX_DEADLOCK_TIMEOUT_SECS} (one day)"
        )),
    }
}

fn main() -> ExitCode {
    memory::keep_large_blocks_mapped();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Analyze { dir, report } => analyze::analyze_saved(&dir, &report),
        Command::Events { dir } => analyze::print_events(&dir),
        Command::Checks => {
            print!(
                "{}",
                mpicheck_report::render_check_list(mpicheck_analyzer::checks::catalogue())
            );
            Ok(0)
        }
        Command::Explain { code } => explain(&code),
        Command::ExecRank {
            library,
            out,
            threads,
            check_buffers,
            command,
        } => launch::exec_rank(&library, &out, threads.as_ref(), check_buffers, &command),
    };
    match result {
        Ok(status) => ExitCode::from(status),
        // The reader of our output went away (`mpicheck events DIR | head`): end quietly,
        // with the status a tool killed by SIGPIPE has, as the shell expects.
        Err(error) if is_broken_pipe(&error) => ExitCode::from(128 + 13),
        Err(error) => {
            eprintln!("mpicheck: error: {}", one_line(&error));
            ExitCode::from(status::EXIT_MPICHECK_FAILED)
        }
    }
}

/// One line: what went wrong and what to do, its causes joined by ": ", each cause once
/// (errors that name their cause in their own message, as `cannot read FILE: CAUSE` does,
/// would otherwise repeat it).
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn explain(code: &str) -> anyhow::Result<u8> {
    let catalogue = mpicheck_analyzer::checks::catalogue();
    match catalogue.iter().find(|c| c.code.eq_ignore_ascii_case(code)) {
        Some(check) => {
            print!("{}", mpicheck_report::render_explain(check));
            if let Some(functions) =
                mpicheck_analyzer::checks::argument::rules::functions_of(check.code)
            {
                // Generated from the argument rules and the recorder's function table.
                println!(
                    "\n## Functions covered\n\nThe {} recorded MPI functions with a parameter this check judges:\n\n{}",
                    functions.len(),
                    functions.join(", ")
                );
            }
            Ok(0)
        }
        None => anyhow::bail!("no check has the code `{code}`; `mpicheck checks` lists them"),
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use anyhow::Context;

    #[test]
    fn an_error_line_names_each_cause_once() {
        let io = std::io::Error::from_raw_os_error(libc::EMFILE);
        let named = format!("cannot read t.mpitrace: {io}");
        let error = Err::<(), _>(io)
            .context(named)
            .context("cannot analyze the traces")
            .unwrap_err();
        assert_eq!(
            one_line(&error),
            "cannot analyze the traces: cannot read t.mpitrace: Too many open files (os error 24)"
        );
        let plain = Err::<(), _>(std::io::Error::from_raw_os_error(libc::ENOENT))
            .context("cannot open out")
            .unwrap_err();
        assert_eq!(
            one_line(&plain),
            "cannot open out: No such file or directory (os error 2)"
        );
    }
}
