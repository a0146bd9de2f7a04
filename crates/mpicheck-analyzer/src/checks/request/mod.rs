//! Request lifecycle checks: every nonblocking operation is completed, requests are used
//! only while they exist and persistent requests are started only when inactive.
//!
//! One walk over each rank's events follows every request from the call that made it to
//! the completion, free or `MPI_Finalize`; the checks in this family turn what it finds
//! into diagnostics. Completion is what the wait or test reported: a test loop that
//! returns `flag = 0` many times and then `1` completes the request once, at the end.

use rustc_hash::FxHashMap;

use super::few_map::FewMap;
use super::pass::{EventPass, RunTables, SiteFindings, ThreadMark};
use super::Check;
use crate::diagnostic::{CheckInfo, Diagnostic};
use crate::model::{Blocking, CommId, Completed, Event, Op, Rank, ReqId, SiteId};

pub mod free_active;
mod freed;
pub mod never_received;
pub(crate) use freed::{CallAt, Skeleton};
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

/// A call the walk remembers for a later report: where it was made and its name.
#[derive(Clone, Copy)]
pub(crate) struct Call {
    pub site: SiteId,
    pub name: &'static str,
}

impl Call {
    fn of(event: &Event) -> Call {
        Call {
            site: event.site,
            name: event.call,
        }
    }
}

struct Live {
    persistent: bool,
    /// The call that made the request active (the nonblocking call, or `MPI_Start`).
    active_since: Option<Call>,
    cancelled: bool,
    /// `MPI_Request_get_status` reported the operation complete: the request is still
    /// allocated (and a persistent one still active), but its buffers are the program's.
    done: bool,
}

/// Requests an event creates, with whether each is persistent, given to `out` in order: the
/// nonblocking call's own, or ones the model only knows from the call's facts.
fn created(event: &Event, mut out: impl FnMut(ReqId, bool)) {
    let blocking = match &event.op {
        Op::Send { blocking, .. }
        | Op::Recv { blocking, .. }
        | Op::Sendrecv { blocking, .. }
        | Op::Collective { blocking, .. } => Some(blocking),
        _ => None,
    };
    match blocking {
        Some(Blocking::Nonblocking(r)) => out(*r, false),
        Some(Blocking::Persistent(r)) => out(*r, true),
        _ => {}
    }
    // (Most calls have none: the name is searched only for those that have.)
    if let Some(facts) = event.facts().filter(|f| !f.other_requests.is_empty()) {
        let persistent = event.call.contains("_init");
        for &r in &facts.other_requests {
            out(r, persistent);
        }
    }
}

/// The requests a wait, test or status call reported complete (`completed` indexes
/// `requests`; null entries and indices out of range name none).
pub(crate) fn completed_requests<'e>(
    requests: &'e [Option<ReqId>],
    completed: &'e Option<Completed>,
) -> impl Iterator<Item = ReqId> + 'e {
    completed
        .iter()
        .flatten()
        .filter_map(|&index| requests.get(index as usize).copied().flatten())
}

/// One rank's live requests, as the walk follows them.
#[derive(Default)]
struct RankWalk {
    live: FewMap<ReqId, Live>,
    /// Requests completed, with the completing call's thread and return time: another
    /// thread's call that was already inside MPI when the completion returned still named a
    /// live request (the concurrent completion is TH003's). Only completions with a return
    /// time, and only until calls that entered well after it come ([`RETIRED_FOR_NS`];
    /// [`RETIRED_ALONE_FOR_NS`] while one thread called MPI).
    retired: FxHashMap<ReqId, (u16, u64)>,
    /// The first thread of the rank that called MPI, and whether another one did since.
    first_thread: Option<u16>,
    multithreaded: bool,
    /// The latest entry time of the rank's calls so far.
    latest_enter_ns: u64,
    /// How many retired requests may be held before the old ones are dropped.
    retired_cap: usize,
    /// Every record of the rank came from one thread ([`ThreadMark::OnlyThread`], told when
    /// the traces were scanned whole): no call of another thread overlaps a completion, so
    /// none is retired (nor the threads and times that keep them followed).
    one_thread: bool,
    /// The buffers of its pending operations (BF001).
    buffers: pending_buffer_overlap::BufferWalk,
}

/// How long after its return a completion is kept for calls that entered MPI before it: a
/// process reserves each call's record as the call enters, so a call that entered before a
/// completion returned comes, in record order, before any call that entered after it, but
/// for the few nanoseconds between the clock read and the reservation (a preemption there
/// can last milliseconds under load: one second is far beyond that).
const RETIRED_FOR_NS: u64 = 1_000_000_000;

/// The same while the rank has called MPI from one thread only: another thread's call that
/// overlaps one of its completions would complete the request concurrently, an error TH003
/// reports, so the time kept only decides whether that erroneous call is also reported as
/// naming an unknown request. Kept short so that a single-threaded rank holds few.
const RETIRED_ALONE_FOR_NS: u64 = 10_000_000;

impl RankWalk {
    /// Notes that `thread` called MPI.
    fn note_thread(&mut self, thread: u16) {
        match self.first_thread {
            None => self.first_thread = Some(thread),
            Some(first) => self.multithreaded |= first != thread,
        }
    }

    /// Notes the completion of `r` by `event`, and drops the completions no later call can
    /// overlap.
    fn retire(&mut self, r: ReqId, event: &Event) {
        let Some(exit) = event.time.and_then(|t| t.exit_ns) else {
            return;
        };
        self.retired.insert(r, (event.thread, exit));
        if self.retired.len() > self.retired_cap.max(1024) {
            let latest = self.latest_enter_ns;
            let horizon = if self.multithreaded {
                RETIRED_FOR_NS
            } else {
                RETIRED_ALONE_FOR_NS
            };
            self.retired
                .retain(|_, &mut (_, exit)| exit.saturating_add(horizon) > latest);
            self.retired_cap = 2 * self.retired.len();
        }
    }

    /// Whether `event`, a wait, test or status query, names a request that is not live and
    /// was not completed by another thread while `event` was already inside MPI.
    fn names_unknown(&self, requests: &[Option<ReqId>], event: &Event) -> bool {
        requests
            .iter()
            .flatten()
            .any(|r| !self.live.contains_key(r) && !self.overlapped_completion(r, event))
    }

    fn overlapped_completion(&self, r: &ReqId, event: &Event) -> bool {
        self.retired.get(r).is_some_and(|&(thread, exit)| {
            thread != event.thread && event.time.is_some_and(|time| time.enter_ns < exit)
        })
    }
}

/// `MPI_Request_free` of an active request, reported unless it is a send that the program
/// later knew complete (known only at the end, [`freed`]).
struct FreedActive {
    rank: Rank,
    request: ReqId,
    free: Call,
    start: &'static str,
}

/// The request walk as one pass over each rank's events (RQ001-RQ004, BF001).
#[derive(Default)]
pub(crate) struct RequestPass {
    ranks: Vec<RankWalk>,
    unwaited: SiteFindings,
    freed_active: Vec<FreedActive>,
    unknown: SiteFindings,
    started_active: SiteFindings,
    overlaps: pending_buffer_overlap::Overlaps,
    /// When the program knew its freed sends complete ([`freed`]).
    freed: freed::live::LiveProofs,
    /// The traces never call `MPI_Request_free`: no send is freed, no proof is needed.
    no_request_free: bool,
    /// The traces were scanned whole: [`ThreadMark::OnlyThread`] holds.
    scanned_whole: bool,
}

/// The walk of `rank` in `ranks` (made when it is the first of the rank).
fn walk_of(ranks: &mut Vec<RankWalk>, rank: Rank) -> &mut RankWalk {
    let r = rank as usize;
    if ranks.len() <= r {
        ranks.resize_with(r + 1, RankWalk::default);
    }
    &mut ranks[r]
}

impl EventPass for RequestPass {
    fn event(&mut self, rank: Rank, i: usize, event: &Event, tables: &RunTables) {
        // (Most calls of a single-threaded rank, in a program that frees no request, make,
        // name and share the memory of no request: answered without the walk's register
        // saves.)
        if let (true, Some(walk)) = (self.no_request_free, self.ranks.get(rank as usize)) {
            if walk.one_thread
                && !names_requests(event)
                && (walk.buffers.is_empty() || event.buffers().is_empty())
            {
                return;
            }
        }
        self.follow(rank, i, event, tables);
    }

    // A receive's match pairs it with its message (freed sends' proofs).
    fn matched(&mut self, rank: Rank, index: usize, matched: (Rank, i32)) {
        if !self.no_request_free {
            self.freed.matched(rank, index, matched);
        }
    }

    fn comm_freed(&mut self, comm: CommId, tables: &RunTables) {
        if let (false, Some(info)) = (self.no_request_free, tables.comm(comm)) {
            let remote = info.remote.iter().flat_map(|r| r.iter());
            self.freed
                .comm_freed(comm, info.members.iter().chain(remote).copied());
        }
    }

    fn scanned_whole(&mut self) {
        self.scanned_whole = true;
    }

    fn mark(&mut self, rank: Rank, mark: &ThreadMark) {
        if let (true, ThreadMark::OnlyThread(_)) = (self.scanned_whole, mark) {
            walk_of(&mut self.ranks, rank).one_thread = true;
        }
    }

    fn scanned(&mut self, called: &[&str]) {
        self.no_request_free = !crate::checks::pass::calls_named_with(called, "request_free");
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let proofs = self.freed.finish();
        let mut freed_active = SiteFindings::default();
        for f in &self.freed_active {
            // A freed send is fine when a later synchronization shows the program that it
            // completed (MPI 4.1 Example 3.13).
            if !proofs.contains_key(&(f.rank, f.request)) {
                let (message, label) = free_active::finding(f.start);
                freed_active.add_at(f.rank, f.free.site, f.free.name, message, label);
            }
        }
        let mut out = unwaited::diagnostics(self.unwaited, tables);
        out.extend(free_active::diagnostics(freed_active, tables));
        out.extend(unknown_request::diagnostics(self.unknown, tables));
        out.extend(start_active::diagnostics(self.started_active, tables));
        out.extend(self.overlaps.diagnostics(&proofs, tables));
        out
    }
}

impl RequestPass {
    /// [`EventPass::event`] of a call that may make, name or share the memory of a
    /// request.
    #[inline(never)]
    fn follow(&mut self, rank: Rank, i: usize, event: &Event, tables: &RunTables) {
        let walk = walk_of(&mut self.ranks, rank);
        if !walk.one_thread {
            if let Some(time) = event.time {
                walk.latest_enter_ns = walk.latest_enter_ns.max(time.enter_ns);
            }
            walk.note_thread(event.thread);
        }
        if !self.no_request_free {
            self.freed.event(
                rank,
                i,
                event,
                |comm| tables.comm(comm).is_some_and(|c| c.remote.is_none()),
                &|comm, rank| {
                    tables
                        .comm(comm)
                        .map_or((0, None), |c| (c.members.len(), c.rank_of(rank)))
                },
            );
        }
        walk.buffers
            .event(rank, i, event, tables, &mut self.overlaps);
        created(event, |r, persistent| {
            walk.live.insert(
                r,
                Live {
                    persistent,
                    active_since: (!persistent).then_some(Call::of(event)),
                    cancelled: false,
                    done: false,
                },
            );
        });
        let mut unknown = false;
        match &event.op {
            Op::Start { requests } => {
                for r in requests {
                    match walk.live.get_mut(r) {
                        None => unknown = true,
                        Some(l) => match l.active_since {
                            Some(_) => {
                                let (message, label) = start_active::finding();
                                self.started_active.add(rank, event, message, label);
                            }
                            None => {
                                l.active_since = Some(Call::of(event));
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
                unknown = walk.names_unknown(requests, event);
                for r in completed_requests(requests, completed) {
                    match walk.live.get_mut(&r) {
                        Some(l) if l.persistent => {
                            l.active_since = None;
                            l.cancelled = false;
                        }
                        Some(_) => {
                            walk.live.remove(&r);
                            if !walk.one_thread {
                                walk.retire(r, event);
                            }
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
                unknown = walk.names_unknown(requests, event);
                for r in completed_requests(requests, completed) {
                    if let Some(l) = walk.live.get_mut(&r) {
                        l.done = true;
                    }
                }
            }
            Op::Cancel { request } => match walk.live.get_mut(request) {
                Some(l) => l.cancelled = true,
                None => unknown = true,
            },
            Op::RequestFree { request } => match walk.live.remove(request) {
                Some(Live {
                    active_since: Some(start),
                    done: false,
                    ..
                }) => self.freed_active.push(FreedActive {
                    rank,
                    request: *request,
                    free: Call::of(event),
                    start: start.name,
                }),
                Some(_) => {}
                None => unknown = true,
            },
            Op::Finalize => {
                for l in walk.live.values().filter(|l| !l.done) {
                    if let Some(start) = l.active_since {
                        let (message, label) = unwaited::finding(l.persistent, l.cancelled);
                        self.unwaited
                            .add_at(rank, start.site, start.name, message, label);
                    }
                }
                walk.live.clear();
            }
            _ => {}
        }
        if unknown {
            let (message, label) = unknown_request::finding(event.call);
            self.unknown.add(rank, event, message, label);
        }
    }
}

/// Whether `event` makes or names a request, or ends the rank's requests.
fn names_requests(event: &Event) -> bool {
    let by_op = match &event.op {
        Op::Send { blocking, .. }
        | Op::Recv { blocking, .. }
        | Op::Sendrecv { blocking, .. }
        | Op::Collective { blocking, .. } => !matches!(blocking, Blocking::Blocking),
        Op::Start { .. }
        | Op::Wait { .. }
        | Op::RequestStatus { .. }
        | Op::Cancel { .. }
        | Op::RequestFree { .. }
        | Op::Finalize => true,
        _ => false,
    };
    by_op || event.facts().is_some_and(|f| !f.other_requests.is_empty())
}

/// RQ001-RQ004 and BF001, from one walk over each rank's requests.
pub(crate) struct RequestLifecycle;

impl Check for RequestLifecycle {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RQ001, RQ002, RQ003, RQ004, BF001]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<RequestPass>::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::pass::interleave::same_in_every_order;
    use crate::text_trace::parse;

    /// Issue 14: completions are kept for the calls that may have entered MPI before them,
    /// not for the whole run.
    #[test]
    fn old_completions_are_dropped() {
        let call = |thread: u16, enter_ns: u64, exit_ns: u64| Event {
            call: "MPI_Wait",
            op: Op::Other,
            site: SiteId(0),
            thread,
            returned: true,
            facts: crate::model::EventFacts::None,
            time: Some(crate::model::CallTime {
                order: enter_ns,
                enter_ns,
                exit_ns: Some(exit_ns),
            }),
        };
        let mut walk = RankWalk::default();
        // While one thread calls MPI, about 10 ms' worth of completions are held.
        walk.note_thread(0);
        for i in 0..100_000u64 {
            let at = i * 100_000;
            walk.latest_enter_ns = at;
            walk.retire(ReqId(i as u32), &call(0, at, at + 50));
        }
        assert!(walk.retired.len() <= 2048, "{}", walk.retired.len());
        let mut walk = RankWalk::default();
        walk.note_thread(0);
        walk.note_thread(1);
        for i in 0..100_000u64 {
            let at = i * 100_000;
            walk.latest_enter_ns = at;
            walk.retire(ReqId(i as u32), &call(0, at, at + 50));
        }
        // 10 s of completions, 100 per millisecond: at most about two seconds' worth held.
        assert!(walk.retired.len() < 25_000, "{}", walk.retired.len());
        // The latest are still there for a call of another thread that entered before.
        let late = call(1, 99_999 * 100_000 + 10, 99_999 * 100_000 + 60);
        assert!(walk.overlapped_completion(&ReqId(99_999), &late));
        assert!(!walk.overlapped_completion(&ReqId(0), &late));
    }

    #[test]
    fn findings_do_not_depend_on_how_the_ranks_events_interleave() {
        // Rank 0 frees a send that rank 1's reply (tag 9) proves received: reusing its
        // buffer in that very receive is too early (BF001 at a.c:3), after it is fine.
        // Rank 1 frees a send nothing proves received (RQ002 at b.c:2), so its buffer stays
        // pending (BF001 at b.c:3). Plus a request never completed (RQ001 at c.c:1), a wait
        // on no request (RQ003 at c.c:2) and a persistent request started twice (RQ004 at
        // d.c:3, and RQ001 at d.c:2).
        let run = parse(
            "ranks 2
             *: init
             0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r   @ a.c:1
             0: request_free req=0                          @ a.c:2
             0: recv src=1 tag=9 mem=buf:4096+16:w          @ a.c:3
             0: recv src=1 tag=8 mem=buf:4096+16:w          @ a.c:4
             0: irecv src=1 tag=99 req=2                    @ c.c:1
             0: wait req=42                                 @ c.c:2
             0: send dest=1 tag=7
             1: recv src=0 tag=0
             1: send dest=0 tag=9
             1: send dest=0 tag=8
             1: isend dest=0 tag=5 req=1 mem=buf:8192+16:r  @ b.c:1
             1: request_free req=1                          @ b.c:2
             1: recv src=0 tag=7 mem=buf:8192+16:w          @ b.c:3
             1: send_init dest=0 tag=3 req=3                @ d.c:1
             1: start req=3                                 @ d.c:2
             1: start req=3                                 @ d.c:3
             *: finalize",
        )
        .unwrap();
        let found = same_in_every_order(&run, || Box::<RequestPass>::default());
        let at: Vec<(&str, String)> = found
            .iter()
            .map(|d| {
                let l = &d.locations[0];
                (
                    d.code,
                    format!(
                        "{}:{}",
                        l.file.as_deref().unwrap_or("?"),
                        l.line.unwrap_or(0)
                    ),
                )
            })
            .collect();
        let expected = [
            ("RQ001", "c.c:1"),
            ("RQ001", "d.c:2"),
            ("RQ002", "b.c:2"),
            ("RQ003", "c.c:2"),
            ("RQ004", "d.c:3"),
            ("BF001", "a.c:3"),
            ("BF001", "b.c:3"),
        ];
        assert_eq!(
            at,
            expected
                .iter()
                .map(|&(c, l)| (c, l.to_string()))
                .collect::<Vec<_>>()
        );
        // The registry's runner gives the same.
        assert_eq!(
            crate::checks::run_all(&run)
                .into_iter()
                .filter(|d| d.code.starts_with("RQ") && d.code != "RQ005" || d.code == "BF001")
                .collect::<Vec<_>>(),
            found
        );
    }

    #[test]
    fn a_freed_send_is_proved_by_receives_whose_matches_come_late() {
        // Rank 1 takes rank 0's freed send and replies with wildcard receives and sends;
        // only their waits' statuses pair the messages, which proves the send complete at
        // rank 0's wait (MPI 4.1 Example 3.13). `same_in_every_order` also feeds the
        // matches late, at the waits: without them rank 0's free would be RQ002.
        let text = "ranks 2
             0: isend dest=1 tag=0 req=0                 @ a.c:1
             0: request_free req=0                       @ a.c:2
             0: irecv src=any tag=any req=1              @ a.c:3
             0: wait req=1 matched=1:9                   @ a.c:4
             1: irecv src=any tag=any req=0              @ b.c:1
             1: wait req=0 matched=0:0                   @ b.c:2
             1: send dest=0 tag=9                        @ b.c:3
             *: finalize";
        let run = parse(text).unwrap();
        let found = same_in_every_order(&run, || Box::<RequestPass>::default());
        assert_eq!(found, Vec::<Diagnostic>::new());
        // The same without the statuses: nothing pairs the wildcard receives.
        let run = parse(&text.replace(" matched=1:9", "").replace(" matched=0:0", "")).unwrap();
        let found = same_in_every_order(&run, || Box::<RequestPass>::default());
        assert_eq!(found.iter().map(|d| d.code).collect::<Vec<_>>(), ["RQ002"]);
    }

    #[test]
    fn a_receive_leaves_the_walk_when_its_wait_completes_it() {
        let run = parse(
            "ranks 2
             0: irecv src=any tag=any req=0
             0: irecv src=1 tag=any req=1
             0: wait req=0
             0: send dest=1 tag=0
             1: recv src=0 tag=0
             1: send dest=0 tag=0
             *: finalize",
        )
        .unwrap();
        let mut pass = RequestPass::default();
        let tables = RunTables::of(&run);
        for (i, event) in run.ranks[0].events.iter().enumerate() {
            pass.event(0, i, event, &tables);
        }
        // The request never completed still waits for its match.
        assert_eq!(pass.freed.unmatched(0), 1);
    }

    #[test]
    fn the_proofs_forget_the_collective_counts_of_a_communicator_every_member_freed() {
        let run = parse(
            "ranks 2
             comm 1 members 0 1
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             *: barrier comm=1
             *: barrier comm=0
             *: finalize",
        )
        .unwrap();
        let mut pass = RequestPass::default();
        let tables = RunTables::of(&run);
        for rank in 0..2 {
            for (i, event) in run.ranks[rank].events.iter().enumerate() {
                pass.event(rank as Rank, i, event, &tables);
            }
        }
        // Per rank, its barriers on each communicator.
        assert_eq!(pass.freed.ordinals(), 4);
        pass.comm_freed(CommId(1), &tables);
        assert_eq!(pass.freed.ordinals(), 2);
    }
}
