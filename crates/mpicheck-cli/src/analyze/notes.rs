//! The notes on what the traces lack, one line each on stderr and a part of the summary line:
//! cut or unreadable traces, ranks without one, child processes' traces, processes outside
//! the job, buffers `--check-buffers` gave up watching.

use super::*;

/// At most this many processes are named in one note.
const NAMED_PROCESSES: usize = 8;

/// "ignored the traces of 2 child processes ...", when traces of child processes claimed a
/// rank (see [`assign_ranks`]).
pub(super) fn child_process_note(traces: &[Trace], assignment: &RankAssignment) -> Option<String> {
    if assignment.ignored.is_empty() {
        return None;
    }
    let mut named: Vec<String> = assignment
        .ignored
        .iter()
        .take(NAMED_PROCESSES)
        .map(|t| {
            format!(
                "pid {} claims rank {}, which is pid {}",
                traces[t.trace].header.pid, t.rank, traces[t.rank_trace].header.pid
            )
        })
        .collect();
    if assignment.ignored.len() > NAMED_PROCESSES {
        named.push(format!(
            "and {} more",
            assignment.ignored.len() - NAMED_PROCESSES
        ));
    }
    let n = assignment.ignored.len();
    Some(format!(
        "ignored the trace{} of {n} child process{} started by ranks, which inherited their rank's environment ({})",
        if n == 1 { "" } else { "s" },
        if n == 1 { "" } else { "es" },
        named.join("; ")
    ))
}

/// Each rank's incomplete trace (and what cannot be trusted because of it), one line each,
/// and one line for the ranks without a trace.
pub(super) fn incomplete_notes(
    traces: &[Trace],
    run: &Run,
    assignment: &RankAssignment,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for rank in &run.ranks {
        let Some(&index) = assignment.by_rank.get(&(rank.rank as i32)) else {
            missing.push(rank.rank);
            continue;
        };
        let Some(incomplete) = traces[index].incomplete() else {
            continue;
        };
        let r = rank.rank;
        let what = match incomplete {
            Incomplete::Cut { .. } => {
                format!("trace of rank {r} was cut after the process wrote it: {incomplete}")
            }
            Incomplete::NoSpace { .. } => format!("trace of rank {r} is incomplete: {incomplete}"),
        };
        let checked = match rank.events.last() {
            Some(last) => format!(
                "rank {r} is checked only up to its last recorded call ({}{})",
                last.call,
                at_site(run, last.site)
            ),
            None => format!("no call of rank {r} was recorded"),
        };
        out.push(format!(
            "{what}; {checked}: nothing after it, nor its leaks, unwaited requests or deadlocks at the end of the run"
        ));
    }
    if !missing.is_empty() {
        out.push(format!(
            "{} left no trace: nothing {} did is checked, and findings of other ranks that involve {} cannot be trusted",
            mpicheck_report::ranks::format_ranks(&missing),
            if missing.len() == 1 { "it" } else { "they" },
            if missing.len() == 1 { "it" } else { "them" },
        ));
    }
    out
}

/// A line for each call site where ranks started processes outside the job or connected to
/// some (`MPI_Comm_spawn`, `MPI_Comm_accept`, ...): mpicheck launched and recorded only the
/// job's own processes.
pub(super) fn outside_job_notes(run: &Run) -> Vec<String> {
    let unchecked = "what those processes do is not checked, nor what the job exchanges with them (mpicheck records only the processes it launched)";
    // (In call-site order: which rank's call came first depends on how the ranks were read.)
    let mut calls: Vec<_> = run.outside_job.iter().collect();
    calls.sort_by_key(|call| (call.site.0, call.function));
    (calls.into_iter())
        .map(|call| {
            let ranks = mpicheck_report::ranks::format_ranks(&call.ranks);
            let (function, at) = (call.function, at_site(run, call.site));
            match function.trim_start_matches("MPI_Comm_") {
                "spawn" | "spawn_multiple" => {
                    format!("{ranks} started processes with {function}{at}: {unchecked}")
                }
                "get_parent" => format!(
                    "{ranks} {} started by processes outside the job ({function}{at}): {unchecked}",
                    if call.ranks.len() == 1 { "was" } else { "were" }
                ),
                _ => format!(
                    "{ranks} connected to processes outside the job with {function}{at}: {unchecked}"
                ),
            }
        })
        .collect()
}

/// The buffers `--check-buffers` stopped watching because the program accessed other data on
/// their pages too often, by the call site that posted them.
pub(super) fn given_up_note(run: &Run) -> Option<String> {
    let counts = run.buffer_watch.filter(|c| c.given_up > 0)?;
    let sites: Vec<String> = (run.buffers_given_up.iter())
        .map(|given_up| {
            // The sites beyond the library's table share one budget, and no site.
            let at = run.site(given_up.site).place();
            let at = at.as_deref().unwrap_or("at call sites not told apart");
            format!(
                "{} posted by {} {at} after {} such accesses",
                given_up.buffers,
                mpicheck_report::ranks::format_ranks(&given_up.ranks),
                given_up.faults
            )
        })
        .collect();
    Some(format!(
        "--check-buffers left {} buffers unwatched because of too many accesses to their neighbours (other data on their memory pages, each let through by a fault and a single step): {}; accesses to these buffers were not checked",
        counts.given_up,
        sites.join(", ")
    ))
}

/// " at file:line", " in `foo` (libfoo.so+0x1234)" ... ([`SourceLocation::place`]), or
/// nothing, for a call site in a line of text.
///
/// [`SourceLocation::place`]: mpicheck_analyzer::model::SourceLocation::place
fn at_site(run: &Run, site: mpicheck_analyzer::model::SiteId) -> String {
    (run.site(site).place()).map_or_else(String::new, |place| format!(" {place}"))
}

/// "the trace of rank 0 was cut", "1 trace file could not be read", for the summary line.
pub(super) fn incomplete_summary(
    traces: &[Trace],
    assignment: &RankAssignment,
    run: &Run,
    unreadable: &[String],
) -> Vec<String> {
    let (mut cut, mut no_space, mut closed, mut missing) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for rank in &run.ranks {
        match assignment.by_rank.get(&(rank.rank as i32)) {
            None => missing.push(rank.rank),
            Some(&i) => match traces[i].incomplete() {
                Some(Incomplete::Cut { .. }) => cut.push(rank.rank),
                Some(Incomplete::NoSpace {
                    file_closed: false, ..
                }) => no_space.push(rank.rank),
                Some(Incomplete::NoSpace {
                    file_closed: true, ..
                }) => closed.push(rank.rank),
                None => {}
            },
        }
    }
    let ranks = mpicheck_report::ranks::format_ranks;
    let mut parts = Vec::new();
    if !cut.is_empty() {
        parts.push(format!("the trace of {} was cut", ranks(&cut)));
    }
    if !no_space.is_empty() {
        parts.push(format!(
            "{} ran out of space while recording",
            ranks(&no_space)
        ));
    }
    if !closed.is_empty() {
        parts.push(format!(
            "{} closed mpicheck's trace file while recording",
            ranks(&closed)
        ));
    }
    if !missing.is_empty() {
        parts.push(format!("{} left no trace", ranks(&missing)));
    }
    if !unreadable.is_empty() {
        let n = unreadable.len();
        parts.push(format!(
            "{n} trace file{} could not be read",
            if n == 1 { "" } else { "s" }
        ));
    }
    parts
}
