//! Request lifecycle checks: every nonblocking operation is completed, requests are used
//! only while they exist and persistent requests are started only when inactive.
//!
//! One walk over each rank's events follows every request from the call that made it to
//! the completion, free or `MPI_Finalize`; the checks in this family turn what it finds
//! into diagnostics. Completion is what the wait or test reported: a test loop that
//! returns `flag = 0` many times and then `1` completes the request once, at the end.

use std::collections::HashMap;

use super::pass::{RunTables, SiteFindings};
use super::{Check, Context};
use crate::diagnostic::{CheckInfo, Diagnostic};
use crate::model::{Blocking, Event, Op, Rank, ReqId, Run};
use crate::text::Text;

pub mod free_active;
mod freed;
pub mod never_received;
pub(crate) use freed::happens_before;
pub mod pending_buffer_overlap;
pub mod start_active;
pub mod unknown_request;
pub mod unwaited;

pub use free_active::RQ002;
pub use never_received::RQ005;
pub use pending_buffer_overlap::BF001;
pub use start_active::RQ004;
pub use unknown_request::RQ003;
pub use unwaited::RQ001;

/// What the walk found, by rank and event index.
#[derive(Default, Debug)]
pub(crate) struct RequestFindings {
    /// Requests still active at `MPI_Finalize`: (rank, event that started the request,
    /// persistent, cancelled).
    pub unwaited: Vec<(Rank, usize, bool, bool)>,
    /// `MPI_Request_free` of an active request: (rank, free event, start event).
    pub freed_active: Vec<(Rank, usize, usize)>,
    /// A wait, test, start, cancel or free naming no live request: (rank, event).
    pub unknown: Vec<(Rank, usize)>,
    /// `MPI_Start` of a persistent request that is still active: (rank, start event, the
    /// earlier start).
    pub started_active: Vec<(Rank, usize, usize)>,
}

struct Live {
    persistent: bool,
    /// The event that made the request active (the nonblocking call, or `MPI_Start`).
    active_since: Option<usize>,
    cancelled: bool,
    /// `MPI_Request_get_status` reported the operation complete: the request is still
    /// allocated (and a persistent one still active), but its buffers are the program's.
    done: bool,
}

/// Requests an event creates: the nonblocking call's own, or ones the model only knows from
/// the call's facts.
fn created(event: &Event) -> Vec<(ReqId, bool)> {
    let mut out = Vec::new();
    let blocking = match &event.op {
        Op::Send { blocking, .. }
        | Op::Recv { blocking, .. }
        | Op::Sendrecv { blocking, .. }
        | Op::Collective { blocking, .. } => Some(blocking),
        _ => None,
    };
    match blocking {
        Some(Blocking::Nonblocking(r)) => out.push((*r, false)),
        Some(Blocking::Persistent(r)) => out.push((*r, true)),
        _ => {}
    }
    if let Some(facts) = event.facts() {
        let persistent = event.call.contains("_init");
        out.extend(facts.other_requests.iter().map(|&r| (r, persistent)));
    }
    out
}

/// `proofs`: the freed sends the program later knew complete (see [`freed`]).
pub(crate) fn walk(run: &Run, proofs: &freed::Proofs) -> RequestFindings {
    let mut found = RequestFindings::default();
    for trace in &run.ranks {
        let rank = trace.rank;
        let mut live: HashMap<ReqId, Live> = HashMap::new();
        // Requests completed, by the completing event: another thread's call that was
        // already inside MPI when the completion returned still named a live request (the
        // concurrent completion is TH003's).
        let mut retired: HashMap<ReqId, usize> = HashMap::new();
        let overlapped_completion = |r: &ReqId, event: &Event, retired: &HashMap<ReqId, usize>| {
            retired.get(r).is_some_and(|&done| {
                let done = &trace.events[done];
                done.thread != event.thread
                    && match (event.time, done.time.and_then(|t| t.exit_ns)) {
                        (Some(time), Some(exit)) => time.enter_ns < exit,
                        _ => false,
                    }
            })
        };
        for (i, event) in trace.events.iter().enumerate() {
            for (r, persistent) in created(event) {
                live.insert(
                    r,
                    Live {
                        persistent,
                        active_since: (!persistent).then_some(i),
                        cancelled: false,
                        done: false,
                    },
                );
            }
            match &event.op {
                Op::Start { requests } => {
                    for r in requests {
                        match live.get_mut(r) {
                            None => found.unknown.push((rank, i)),
                            Some(l) => match l.active_since {
                                Some(earlier) => found.started_active.push((rank, i, earlier)),
                                None => {
                                    l.active_since = Some(i);
                                    l.cancelled = false;
                                    l.done = false;
                                }
                            },
                        }
                    }
                }
                Op::Wait {
                    requests,
                    completed,
                    ..
                } => {
                    if requests.iter().flatten().any(|r| {
                        !live.contains_key(r) && !overlapped_completion(r, event, &retired)
                    }) {
                        found.unknown.push((rank, i));
                    }
                    for &index in completed.iter().flatten() {
                        let Some(Some(r)) = requests.get(index as usize) else {
                            continue;
                        };
                        match live.get_mut(r) {
                            Some(l) if l.persistent => {
                                l.active_since = None;
                                l.cancelled = false;
                            }
                            Some(_) => {
                                live.remove(r);
                                retired.insert(*r, i);
                            }
                            None => {}
                        }
                    }
                }
                Op::RequestStatus {
                    requests,
                    completed,
                    ..
                } => {
                    if requests.iter().flatten().any(|r| {
                        !live.contains_key(r) && !overlapped_completion(r, event, &retired)
                    }) {
                        found.unknown.push((rank, i));
                    }
                    for &index in completed.iter().flatten() {
                        if let Some(l) = requests
                            .get(index as usize)
                            .copied()
                            .flatten()
                            .and_then(|r| live.get_mut(&r))
                        {
                            l.done = true;
                        }
                    }
                }
                Op::Cancel { request } => match live.get_mut(request) {
                    Some(l) => l.cancelled = true,
                    None => found.unknown.push((rank, i)),
                },
                Op::RequestFree { request } => match live.remove(request) {
                    Some(Live {
                        active_since: Some(start),
                        done: false,
                        ..
                    }) => {
                        // A freed send is fine when a later synchronization shows the
                        // program that it completed (MPI 4.1 Example 3.13).
                        if !proofs.contains_key(&(rank, *request)) {
                            found.freed_active.push((rank, i, start));
                        }
                    }
                    Some(_) => {}
                    None => found.unknown.push((rank, i)),
                },
                Op::Finalize => {
                    let mut pending: Vec<(usize, bool, bool)> = live
                        .values()
                        .filter(|l| !l.done)
                        .filter_map(|l| l.active_since.map(|s| (s, l.persistent, l.cancelled)))
                        .collect();
                    pending.sort_unstable();
                    found
                        .unwaited
                        .extend(pending.into_iter().map(|(s, p, c)| (rank, s, p, c)));
                    live.clear();
                }
                _ => {}
            }
        }
    }
    found
}

/// Folds per-event findings (rank, event index, message, label) into one diagnostic per
/// (call site, message, label): the texts must be the same for every rank in the same role.
/// Texts are [`Text`]s (or strings, taken as literal text).
pub(crate) fn fold_by_site<M: Into<Text>, L: Into<Text>>(
    run: &Run,
    items: impl IntoIterator<Item = (Rank, usize, M, L)>,
    info: &CheckInfo,
    notes: &[&str],
    help: &str,
) -> Vec<Diagnostic> {
    let mut found = SiteFindings::default();
    for (rank, index, message, label) in items {
        if let Some(event) = run
            .ranks
            .get(rank as usize)
            .and_then(|t| t.events.get(index))
        {
            found.add(rank, event, message, label);
        }
    }
    found.diagnostics(&RunTables::of(run), info, notes, help)
}

/// Every request-lifecycle diagnostic, in code order.
fn check(run: &Run) -> Vec<Diagnostic> {
    let proofs = freed::freed_send_proofs(run);
    let found = walk(run, &proofs);
    let mut out = unwaited::diagnostics(run, &found);
    out.extend(free_active::diagnostics(run, &found));
    out.extend(unknown_request::diagnostics(run, &found));
    out.extend(start_active::diagnostics(run, &found));
    out.extend(pending_buffer_overlap::diagnostics(run, &proofs));
    out
}

/// RQ001-RQ004 and BF001, from one walk over each rank's requests.
pub(crate) struct RequestLifecycle;

impl Check for RequestLifecycle {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RQ001, RQ002, RQ003, RQ004, BF001]
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx.run)
    }
}
