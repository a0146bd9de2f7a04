//! One rank's trace normalized call by call ([`RankStream`]) and what normalizing a call
//! yields ([`Normalized`]); the driver in [`super`] feeds the ranks' calls to their streams in
//! its order.

use rustc_hash::FxHashMap;

use mpicheck_trace::{ArgValue, CallRecord, EndOfTrace, Incomplete, Trace};

use super::kind::CallKind;
use super::plan::Pseudo;
use super::rank_state::{RankNormalizer, RankState};
use super::tables::Tables;
use super::{args, plan};
use crate::model::*;

/// What normalizing a call yields, in the rank's order.
pub(super) enum Normalized {
    /// The rank's next event, pushed onto the rank's events (where the passes read it: the
    /// event is not moved again on its way); its index is the number of events before it.
    Event,
    /// Every member freed this communicator (with the last member's `MPI_Comm_free`, after
    /// its event): no event names it any more.
    CommFreed(CommId),
    /// The source and tag an earlier receive event matched, known when the call that
    /// completed its request is normalized (before that call's own event).
    Matched { event: usize, matched: (Rank, i32) },
    /// A synchronization record of the rank's threads, in record order with its events.
    Sync(SyncEvent),
    /// What the rank's trace says of its threads besides synchronization, in record order
    /// with its events (an object's use or free right after the event).
    Mark(crate::checks::pass::ThreadMark),
}

/// One rank's trace normalized call by call: the rank's state between calls, and what
/// decides how the rank ended. Several ranks' streams can advance in any interleaving, each
/// call borrowing the run's shared [`Tables`].
pub(super) struct RankStream<'a> {
    pub(super) rank: Rank,
    /// Index of the rank's trace, for the site resolver.
    pub(super) trace_index: usize,
    pub(super) trace: &'a Trace,
    pub(super) state: RankState,
    threads: crate::threads::ThreadInfoBuilder,
    /// A program has few call sites and calls them many times: each address is resolved
    /// (and the location's strings hashed) once.
    sites_by_address: FxHashMap<u64, SiteId>,
    /// When `MPI_Finalize` returned.
    finalized_at: Option<u64>,
    /// Events yielded so far.
    events: usize,
    /// The last `MPI_Abort` event (index, thread, call), and whether its thread made a call
    /// after it.
    last_abort: Option<(usize, u16, &'static str)>,
    abort_followed: bool,
    /// Each thread's last event that did not return.
    last_unreturned: FxHashMap<u16, (usize, &'static str)>,
    /// Receives matched by the call being normalized.
    matched: Vec<(usize, (Rank, i32))>,
    /// Where the arguments of the call being normalized are in its words, for functions
    /// with arrays (room reused from call to call).
    slots: Vec<args::Slot>,
    /// The plan of each function of the trace called so far.
    plans: plan::FunctionPlans,
}

impl<'a> RankStream<'a> {
    /// Drops the rank's synchronization records made so far
    /// ([`Keep::LastEvents`](super::Keep::LastEvents)).
    pub(super) fn forget_syncs(&mut self) {
        self.threads.forget_syncs();
    }

    pub(super) fn new(
        rank: Rank,
        world_size: u32,
        trace_index: usize,
        trace: &'a Trace,
        tables: &mut Tables,
    ) -> RankStream<'a> {
        RankStream {
            rank,
            trace_index,
            trace,
            state: RankState::new(rank, world_size, trace, tables),
            threads: crate::threads::ThreadInfoBuilder::new(trace),
            sites_by_address: FxHashMap::default(),
            finalized_at: None,
            events: 0,
            last_abort: None,
            abort_followed: false,
            last_unreturned: FxHashMap::default(),
            matched: Vec::new(),
            slots: Vec::new(),
            plans: plan::FunctionPlans::default(),
        }
    }

    /// Normalizes the rank's next call record, appending to `out` what it yields (and to
    /// `events` its event, if any). (A list, not a callback: a call yields one or two
    /// items, each an indirect call through a callback.)
    pub(super) fn call(
        &mut self,
        call: &CallRecord,
        tables: &mut Tables,
        resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
        events: &mut Vec<Event>,
        out: &mut Vec<Normalized>,
    ) {
        let trace = self.trace;
        let Some(function) = trace.schema.function(call.func) else {
            return;
        };
        // What the rank's calls of the function are, worked out at its first call (the
        // pseudo-calls' too: they are told apart by their plan, not by name call after call).
        let plan = self.plans.of(call.func, function);
        let syncs_before = self.threads.sync_len();
        if plan.pseudo == Some(Pseudo::Sync) && self.threads.sync_record(function, call) {
            if self.threads.threads_started() {
                self.state.objects.track_uses();
            }
            // (A block a record ends, or a region it begins or ends, comes before it.)
            for mark in self.threads.take_marks() {
                out.push(Normalized::Mark(mark));
            }
            for sync in self.threads.syncs_from(syncs_before) {
                out.push(Normalized::Sync(*sync));
            }
            return;
        }
        // (The thread level, before the first event.)
        for mark in self.threads.take_marks() {
            out.push(Normalized::Mark(mark));
        }
        let (rank, index) = (self.rank, self.trace_index);
        let site = site_at(
            &mut self.sites_by_address,
            call.callsite,
            tables,
            &mut self.state,
            &mut |a| resolve(index, a),
        );
        match plan.pseudo {
            Some(Pseudo::Access) => {
                let values = call.args(function);
                let int = |name: &str| {
                    let p = function.params.iter().position(|p| p.name == name);
                    p.and_then(|p| values.get(p).and_then(|(v, _)| v.as_int()))
                        .unwrap_or(-1)
                };
                let post_site = match int("post_site") {
                    a if a > 0 => tables.site(resolve(index, a as u64), self.state.seen()),
                    _ => SiteId(0),
                };
                tables.buffer_accesses.push(BufferAccess {
                    rank,
                    site,
                    write: int("write") == 1,
                    address: int("address") as u64,
                    thread: u16::try_from(int("thread")).ok(),
                    tid: u32::try_from(int("tid")).unwrap_or(0),
                    start: int("start") as u64,
                    len: int("len") as u64,
                    recv: int("recv") == 1,
                    post_site,
                    events_before: self.events as u32,
                });
                return;
            }
            Some(Pseudo::Buffers) => {
                let values = call.args(function);
                let count = |i: usize| count_arg(&values, i);
                let total = tables.buffer_watch.get_or_insert_default();
                total.watched += count(0);
                total.unwatched += count(1);
                total.dropped += count(2);
                total.given_up += count(3);
                total.neighbour_faults += count(4);
                return;
            }
            Some(Pseudo::GivenUp) => {
                let values = call.args(function);
                tables.given_up(site, rank, count_arg(&values, 0), count_arg(&values, 1));
                return;
            }
            _ => {}
        }
        // (The name is compared only for the calls of `MPI_Op_create`'s kind.)
        if plan.kind == CallKind::OpCreate && function.name == "MPI_Op_create" {
            // The user function, by where it is defined (addresses differ per process);
            // +1: the resolver expects a return address and looks one byte before it.
            let user_fn = call
                .args(function)
                .first()
                .and_then(|(v, _)| v.as_int())
                .map(|a| resolve(index, a as u64 + 1));
            self.state.pending_user_fn = user_fn;
        }
        let this_index = self.events;
        let mut normalizer = RankNormalizer {
            tables,
            state: &mut self.state,
        };
        let made_event = normalizer.event(
            function,
            plan,
            call,
            site,
            this_index,
            &mut self.matched,
            &mut self.slots,
            events,
        );
        // (Most calls complete no receive, mark no use and free no communicator: the
        // lists are drained only when they hold something.)
        if !self.matched.is_empty() {
            for (event, matched) in self.matched.drain(..) {
                // (A call completing a receive it started itself has no earlier event to
                // fill.)
                if event < this_index {
                    out.push(Normalized::Matched { event, matched });
                }
            }
        }
        if !made_event {
            // (No event for uses to be marked on.)
            self.state.objects.marks.clear();
            if !self.state.freed_comms.is_empty() {
                for comm in self.state.freed_comms.drain(..) {
                    out.push(Normalized::CommFreed(comm));
                }
            }
            return;
        }
        // Completed in the list.
        self.events += 1;
        let event = events.last_mut().expect("the event just pushed");
        let time = crate::threads::call_time(call);
        event.time = Some(time);
        // A call made after MPI_Finalize returned is no MPI operation (MPI may have
        // aborted in it, or not recorded it on every rank): AR010/TH002 report it,
        // matching and replay leave it out.
        if self.finalized_at.is_some_and(|exit| time.enter_ns >= exit) {
            event.op = Op::Other;
        }
        if matches!(event.op, Op::Finalize) && event.returned {
            self.finalized_at = time.exit_ns;
        }
        if plan.abort {
            self.last_abort = Some((this_index, event.thread, event.call));
            self.abort_followed = false;
        } else if self
            .last_abort
            .is_some_and(|(_, thread, _)| thread == event.thread)
        {
            self.abort_followed = true;
        }
        if !event.returned {
            self.last_unreturned
                .insert(event.thread, (this_index, event.call));
        }
        // (Only calls on windows are in the RMA table: `rma_call`.)
        if plan.window_call {
            if let Some(call) = tables.rma.calls.get_mut(&(rank, this_index as u32)) {
                call.event = EventSummary::of(event);
            }
        }
        out.push(Normalized::Event);
        if !self.state.objects.marks.is_empty() {
            for mark in self.state.objects.marks.drain(..) {
                out.push(Normalized::Mark(mark));
            }
        }
        if !self.state.freed_comms.is_empty() {
            for comm in self.state.freed_comms.drain(..) {
                out.push(Normalized::CommFreed(comm));
            }
        }
    }

    /// How the rank ended, and its threads, once every call is normalized.
    /// `as_ended`: the trace as its process left it, when the calls were read while it ran.
    pub(super) fn finish(
        mut self,
        tables: &mut Tables,
        resolve: &mut dyn FnMut(usize, u64) -> SourceLocation,
        as_ended: Option<&Trace>,
    ) -> (RankEnd, ThreadInfo) {
        let trace = as_ended.unwrap_or(self.trace);
        // A trace lacking calls its process made ends like an interrupted one: what the rank
        // did after its last recorded call is unknown, so nothing is concluded from it.
        let end = if let Some(incomplete) = trace.incomplete() {
            RankEnd::Interrupted {
                reason: match incomplete {
                    Incomplete::Cut { .. } => {
                        format!("the trace was cut after the process wrote it: {incomplete}")
                    }
                    Incomplete::NoSpace { .. } => format!("the trace is incomplete: {incomplete}"),
                },
            }
        } else if trace.header.finalized() && trace.header.exited() {
            RankEnd::Finalized
        } else if let Some((event, _, call)) = self.last_abort.filter(|_| !self.abort_followed) {
            // The program aborted the job: MPI ended every process there, whether or not its
            // exit handlers ran (MPICH runs them when the communicator is not MPI_COMM_WORLD).
            RankEnd::AbortedInCall { event, call }
        } else if trace.header.exited() {
            RankEnd::ExitedWithoutFinalize
        } else if let Some(&(event, call)) = trace
            .header
            .aborted_in_call()
            .and_then(|thread| self.last_unreturned.get(&thread))
        {
            RankEnd::AbortedInCall { event, call }
        } else {
            RankEnd::Interrupted {
                reason: match &trace.end {
                    EndOfTrace::Truncated { reason, .. } => reason.clone(),
                    // (A cut is only found in traces of processes that exited.)
                    EndOfTrace::Clean | EndOfTrace::Cut { .. } => {
                        "the process did not exit normally".into()
                    }
                },
            }
        };
        let index = self.trace_index;
        let sites = &mut self.sites_by_address;
        let state = &mut self.state;
        let thread_info = self
            .threads
            .finish(|address| site_at(sites, address, tables, state, &mut |a| resolve(index, a)));
        let mut shared = std::mem::take(&mut self.state.shared_requests);
        shared.sort_unstable();
        shared.dedup();
        let threads = ThreadInfo {
            shared_requests: shared,
            freed_after_use: std::mem::take(&mut self.state.objects.freed_after_use),
            ..thread_info
        };
        (end, threads)
    }
}

/// The id of the call site at `address`, resolved once per address.
fn site_at(
    sites: &mut FxHashMap<u64, SiteId>,
    address: u64,
    tables: &mut Tables,
    rank: &mut RankState,
    resolve: &mut dyn FnMut(u64) -> SourceLocation,
) -> SiteId {
    *sites
        .entry(address)
        .or_insert_with(|| tables.site(resolve(address), rank.seen()))
}

#[cfg(test)]
mod tests;

/// Argument `i` of one of the recorder's own count records, as a count (0 when missing or
/// negative).
fn count_arg(values: &[(ArgValue, ArgValue)], i: usize) -> u64 {
    values
        .get(i)
        .and_then(|(v, _)| v.as_int())
        .map_or(0, |v| v.max(0) as u64)
}
