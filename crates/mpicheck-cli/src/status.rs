//! The exit status of `mpicheck run` and `mpicheck analyze`, never the program's own (the
//! README documents it):
//!
//! - 0: the analysis is complete, no reported finding has severity error, and the program
//!   succeeded;
//! - 1: a reported finding has severity error (a deadlock mpicheck ended counts, even a
//!   suppressed one: the program did not finish);
//! - 2: mpicheck could not do its job (usage error, missing MPI, program not found, nothing
//!   recorded, unusable output directory); the one-line message says why;
//! - 3: no error finding, but "no findings" cannot be claimed: the program failed (its exit
//!   status or signal is printed and saved in run.json) or the analysis is incomplete.

use serde::{Deserialize, Serialize};

use crate::analyze::{has_errors, Analysis};

pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_ERRORS: u8 = 1;
/// mpicheck could not do its job; clap uses the same for usage errors.
pub const EXIT_MPICHECK_FAILED: u8 = 2;
pub const EXIT_NOT_CLEAN: u8 = 3;

/// How the program's job ended, as saved in `run.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum ProgramEnd {
    /// The launcher exited with status 0.
    Succeeded,
    /// The launcher exited with this non-zero status (MPI launchers pass on a failed
    /// rank's exit status).
    Exited { status: i32 },
    /// The launcher said that a rank was killed by this signal.
    RankKilled { rank: Option<i32>, signal: i32 },
    /// A rank exited without calling MPI_Finalize and the launcher killed the others: MPICH
    /// then reports one of those as killed by SIGKILL, and its exit status is lost.
    RankExitedEarly { rank: i32 },
    /// The launcher itself was killed by a signal.
    LauncherKilled { signal: i32 },
    /// mpicheck ended the job: on an actual deadlock, after a rank died while the others
    /// waited, or because mpicheck was interrupted.
    EndedByMpicheck { reason: EndReason },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Deadlock,
    Interrupted,
    /// A rank died and the others waited for it, in a job its launcher did not end.
    RankDied,
}

impl ProgramEnd {
    /// What went wrong, as printed after `mpicheck: `; `None` when the program succeeded.
    pub fn failure(&self) -> Option<String> {
        Some(match self {
            ProgramEnd::Succeeded => return None,
            ProgramEnd::Exited { status } => format!("the program exited with status {status}"),
            ProgramEnd::RankKilled {
                rank: Some(rank),
                signal,
            } => format!("rank {rank} was killed by {}", signal_text(*signal)),
            ProgramEnd::RankKilled { rank: None, signal } => {
                format!("a rank was killed by {}", signal_text(*signal))
            }
            ProgramEnd::RankExitedEarly { rank } => format!(
                "rank {rank} exited without calling MPI_Finalize, and the launcher killed the other ranks"
            ),
            ProgramEnd::LauncherKilled { signal } => {
                format!("the launcher was killed by {}", signal_text(*signal))
            }
            ProgramEnd::EndedByMpicheck {
                reason: EndReason::Deadlock,
            } => "mpicheck ended the deadlocked job".to_string(),
            ProgramEnd::EndedByMpicheck {
                reason: EndReason::Interrupted,
            } => "the job was interrupted".to_string(),
            ProgramEnd::EndedByMpicheck {
                reason: EndReason::RankDied,
            } => "a rank died, and mpicheck ended the job its launcher left waiting".to_string(),
        })
    }
}

/// The exit status for a finished analysis.
pub fn exit_code(errors: bool, end: Option<&ProgramEnd>, incomplete: bool) -> u8 {
    if errors || ended_as_deadlock(end) {
        EXIT_ERRORS
    } else if incomplete || end.is_some_and(|e| e.failure().is_some()) {
        EXIT_NOT_CLEAN
    } else {
        EXIT_CLEAN
    }
}

/// The exit status of a finished analysis of a run that ended as `end` (`None`: unknown, a
/// saved run without run.json); prints why when it is 3.
pub fn conclude(analysis: &Analysis, end: Option<&ProgramEnd>) -> u8 {
    let errors = has_errors(&analysis.findings);
    let code = exit_code(errors, end, !analysis.incomplete.is_empty());
    if code == EXIT_NOT_CLEAN {
        eprintln!("{}", not_clean_reason(end, &analysis.incomplete));
    }
    if let Some(why) = unexplained_deadlock(errors, end) {
        eprintln!("{why}");
    }
    code
}

/// The last line on stderr when mpicheck ended the job as deadlocked but no finding of
/// severity error says why (exit status 1 after "no findings" would read as a contradiction).
pub fn unexplained_deadlock(errors: bool, end: Option<&ProgramEnd>) -> Option<String> {
    (ended_as_deadlock(end) && !errors).then(|| {
        format!(
            "mpicheck: exit status {EXIT_ERRORS}: the job made no progress and mpicheck ended it, but its traces show no deadlock among the ranks' MPI calls: a rank may wait outside MPI (a lock, a file, a spin on shared memory), or mpicheck missed the cause"
        )
    })
}

/// mpicheck ended the job as deadlocked.
fn ended_as_deadlock(end: Option<&ProgramEnd>) -> bool {
    matches!(
        end,
        Some(ProgramEnd::EndedByMpicheck {
            reason: EndReason::Deadlock
        })
    )
}

/// The last line on stderr when the exit status is 3: why "no findings" cannot be claimed.
pub fn not_clean_reason(end: Option<&ProgramEnd>, incomplete: &[String]) -> String {
    let mut reasons: Vec<String> = end.and_then(ProgramEnd::failure).into_iter().collect();
    if !incomplete.is_empty() {
        reasons.push("the analysis is incomplete (see above)".to_string());
    }
    format!(
        "mpicheck: not clean (exit status {EXIT_NOT_CLEAN}): no error found, but {}",
        reasons.join(", and ")
    )
}

/// `signal 11 (SIGSEGV)`.
pub fn signal_text(signal: i32) -> String {
    match signal_name(signal) {
        Some(name) => format!("signal {signal} ({name})"),
        None => format!("signal {signal}"),
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(signal)
        .ok()
        .and_then(|s| s.checked_sub(1))
        .and_then(|i| NAMES.get(i).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_exit_statuses() {
        let exited = ProgramEnd::Exited { status: 2 };
        let deadlock = ProgramEnd::EndedByMpicheck {
            reason: EndReason::Deadlock,
        };
        let interrupted = ProgramEnd::EndedByMpicheck {
            reason: EndReason::Interrupted,
        };
        assert_eq!(exit_code(false, Some(&ProgramEnd::Succeeded), false), 0);
        assert_eq!(exit_code(false, None, false), 0);
        assert_eq!(exit_code(true, Some(&exited), false), 1);
        assert_eq!(exit_code(false, Some(&deadlock), false), 1);
        assert_eq!(exit_code(false, Some(&exited), false), 3);
        assert_eq!(exit_code(false, Some(&interrupted), false), 3);
        assert_eq!(exit_code(false, Some(&ProgramEnd::Succeeded), true), 3);
        assert_eq!(exit_code(true, Some(&ProgramEnd::Succeeded), true), 1);
    }

    #[test]
    fn a_deadlock_ended_without_an_error_finding_is_said_so() {
        let deadlock = ProgramEnd::EndedByMpicheck {
            reason: EndReason::Deadlock,
        };
        let why = unexplained_deadlock(false, Some(&deadlock)).unwrap();
        assert!(
            why.contains("exit status 1") && why.contains("no deadlock"),
            "{why}"
        );
        assert_eq!(unexplained_deadlock(true, Some(&deadlock)), None);
        assert_eq!(
            unexplained_deadlock(false, Some(&ProgramEnd::Succeeded)),
            None
        );
        assert_eq!(unexplained_deadlock(false, None), None);
    }

    #[test]
    fn failures_name_the_status_or_signal() {
        let killed = ProgramEnd::RankKilled {
            rank: Some(1),
            signal: 11,
        };
        assert_eq!(
            killed.failure().unwrap(),
            "rank 1 was killed by signal 11 (SIGSEGV)"
        );
        assert_eq!(
            ProgramEnd::Exited { status: 2 }.failure().unwrap(),
            "the program exited with status 2"
        );
        assert_eq!(ProgramEnd::Succeeded.failure(), None);
        assert_eq!(signal_text(9), "signal 9 (SIGKILL)");
        assert_eq!(signal_text(64), "signal 64");
        assert_eq!(signal_text(0), "signal 0");
        let json = serde_json::to_string(&killed).unwrap();
        assert_eq!(json, r#"{"how":"rank_killed","rank":1,"signal":11}"#);
        assert_eq!(serde_json::from_str::<ProgramEnd>(&json).unwrap(), killed);
    }
}
