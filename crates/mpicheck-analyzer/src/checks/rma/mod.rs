//! One-sided communication (RMA) checks: synchronization epochs (RM001-RM004, RM007, RM008),
//! arguments of RMA calls (RM005, RM006, RM009) and conflicting accesses (DR001, DR003, DR004).
//!
//! [`RankEpochs`] follows one rank's calls on each window in program order with the rank's
//! epoch state (fence epoch, locks, lock_all, PSCW access and exposure epochs) and records
//! what each check reports. It needs no replay: the epochs a rank opens and closes are its
//! own calls, judged from the arguments recorded before MPI acted.
//!
//! RM001-RM006 (RM006 but on dynamic windows), RM008, RM009 and DR001 are one pass fed
//! while the events stream ([`pass`]). RM007, DR003, DR004 and RM006 on dynamic windows
//! judge once every event came ([`check_on_run`]): they ask whether the messages and
//! collectives of the run order two calls. They read the calls on windows ([`Run::rma`])
//! and what the same pass gathered of the other events ([`cross_rank::CrossRank`]: the
//! happens-before skeleton, and the calls DR004 compares), not the run's events.

use super::pass::{EventPass, RunTables};
use super::{Check, Context};
use crate::diagnostic::{CheckInfo, Diagnostic};
use crate::model::*;
use crate::text;
use crate::text::{ranks, Text};

pub mod accumulate_op;
pub mod beyond_window;
pub mod conflict;
mod cross_rank;
mod epoch_scopes;
pub mod exposed_memory;
pub mod no_epoch;
pub mod nocheck;
mod nocheck_lock;
pub mod open_at_free;
mod pass;
mod pscw;
pub mod pscw_partner;
pub mod request_outside_passive;
pub mod shared_lock;
pub mod target_rank;
pub mod unmatched_sync;
mod walk;

pub(crate) use cross_rank::{makes_windows, CrossRank};
pub(crate) use walk::{Epoch, EpochAccess, RankEpochs, Walk};

pub use accumulate_op::RM009;
pub use beyond_window::RM006;
pub use conflict::DR001;
pub use exposed_memory::DR004;
pub use no_epoch::RM001;
pub use nocheck::RM007;
pub use open_at_free::RM003;
pub use pscw_partner::RM008;
pub use request_outside_passive::RM004;
pub use shared_lock::DR003;
pub use target_rank::RM005;
pub use unmatched_sync::RM002;

/// The RMA checks: a pass over the events ([`pass::RmaPass`]), and the codes judged once
/// every event came ([`check_on_run`]).
pub(crate) struct RmaChecks;

impl Check for RmaChecks {
    fn infos(&self) -> &'static [CheckInfo] {
        &[
            RM001, RM002, RM003, RM004, RM005, RM006, RM007, RM008, RM009, DR001, DR003, DR004,
        ]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<pass::RmaPass>::default())
    }
    fn with_pass_findings(&self, ctx: &Context, found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        // In code order, RM006 on dynamic windows (from the run) before the others.
        // What the pass gathered; gathered from the run if the pass was not fed.
        let cross = ctx
            .take_rma_cross_rank()
            .unwrap_or_else(|| CrossRank::of_run(ctx.run));
        let on_run = check_on_run(ctx.run, &cross);
        let order = [
            RM001, RM002, RM003, RM004, RM005, RM006, RM009, RM007, RM008, DR001, DR003, DR004,
        ];
        let mut out = Vec::with_capacity(found.len() + on_run.len());
        for info in order {
            out.extend(on_run.iter().filter(|d| d.code == info.code).cloned());
            out.extend(found.iter().filter(|d| d.code == info.code).cloned());
        }
        out
    }
}

/// The RMA diagnostics judged once every event came (RM006 on dynamic windows, RM007,
/// DR003, DR004), in code order, from the calls on windows and `cross`.
fn check_on_run(run: &Run, cross: &CrossRank) -> Vec<Diagnostic> {
    if run.rma.is_empty() {
        return Vec::new();
    }
    let calls = calls_in_order(run);
    let walk = walk_calls(run, &calls, cross);
    let mut out = beyond_window::check_dynamic(run, &calls, cross);
    let pscw = pscw::pair(&calls);
    out.extend(nocheck::check(run, &pscw, cross));
    out.extend(nocheck_lock::check(run, &calls, cross));
    out.extend(shared_lock::check(run, &calls, cross));
    out.extend(exposed_memory::check(run, &calls, &walk, &pscw, cross));
    out
}

/// A finding of one call: (rank, event index, message, label), as `fold_by_site` takes.
pub(crate) type Item = (Rank, usize, Text, Text);

/// A call on a window: (rank, event index, call).
pub(crate) type Call<'r> = (Rank, usize, &'r RmaCall);

/// Every call on a window ([`Run::rma`]), rank after rank, each rank's in its order: what
/// the RMA checks walk instead of every event of the run.
pub(crate) fn calls_in_order(run: &Run) -> Vec<Call<'_>> {
    let mut calls: Vec<Call> = run
        .rma
        .iter()
        .filter(|(&(rank, _), _)| (rank as usize) < run.ranks.len())
        .map(|(&(rank, index), call)| (rank, index as usize, call))
        .collect();
    calls.sort_unstable_by_key(|&(rank, index, _)| (rank, index));
    calls
}

/// Findings at calls on windows, one per call site, call, message and label (as
/// [`crate::checks::request::fold_by_site`], the site and call from [`Run::rma`]).
pub(crate) fn fold_by_site(
    run: &Run,
    items: impl IntoIterator<Item = Item>,
    info: &CheckInfo,
    notes: &[&str],
    help: &str,
) -> Vec<Diagnostic> {
    let mut found = crate::checks::pass::SiteFindings::default();
    for (rank, index, message, label) in items {
        if let Some(call) = u32::try_from(index)
            .ok()
            .and_then(|i| run.rma.get(&(rank, i)))
        {
            found.add_at(rank, call.event.site, call.event.call, message, label);
        }
    }
    found.diagnostics(&RunTables::of(run), info, notes, help)
}

/// `MPI_Put to rank 1 in window 0 (...)`, the window named `window_name`.
pub(crate) fn describe_access(call: &str, access: &RmaAccess, window_name: &str) -> Text {
    let window = window_name;
    match access.target {
        RmaTarget::Rank(r) => text!("{call} to {} in {window}", ranks(r)),
        RmaTarget::ProcNull => text!("{call} to MPI_PROC_NULL in {window}"),
        RmaTarget::Invalid(v) => text!("{call} to target {v} in {window}"),
    }
}

#[cfg(test)]
pub(crate) fn walk(run: &Run) -> Walk {
    walk_calls(run, &calls_in_order(run), &CrossRank::of_run(run))
}

/// [`walk`] over the run's calls on windows ([`calls_in_order`]), with whether each rank
/// called MPI from one thread from `cross`.
pub(crate) fn walk_calls(run: &Run, calls: &[Call], cross: &CrossRank) -> Walk {
    let mut out = Walk::default();
    for rank_calls in calls.chunk_by(|a, b| a.0 == b.0) {
        let single_thread = cross.single_thread(rank_calls[0].0);
        let mut epochs = RankEpochs::default();
        for &(rank, index, call) in rank_calls {
            let Some(window) = run.windows.get(call.win.0 as usize) else {
                continue;
            };
            epochs.call(
                rank,
                index,
                call,
                window,
                &window.name,
                single_thread,
                &mut out,
            );
        }
    }
    out
}

/// `t.c:12`, or the function or object when the site's line is unknown.
pub(crate) fn site_text_at(run: &Run, site: SiteId) -> String {
    site_text_in(&RunTables::of(run), site)
}

/// [`site_text_at`], from the run's tables.
pub(crate) fn site_text_in(tables: &RunTables, site: SiteId) -> String {
    let loc = tables.site(site);
    match (&loc.file, loc.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        // Without debug info (a library from a package), the binary still says where.
        _ => binary_place(loc.function.as_deref(), loc.object.as_deref(), loc.offset)
            .unwrap_or_else(|| "an unknown location".to_string()),
    }
}
