//! Which successful tests and nonblocking probes stand for a wait.
//!
//! `MPI_Test*`, `MPI_Request_get_status*`, `MPI_Iprobe` and `MPI_Improbe` never block: a
//! program calls them to poll. A poll that found nothing changes nothing. One that succeeded
//! is a wait only when the program was polling in a loop until it succeeded: then, had the
//! operation not been complete (or the message not there), the program would have gone on
//! polling, exactly as if it had waited. A single poll that happened to succeed (BLACS checks
//! with `MPI_Testall` whether a send buffer is free and takes another one if not) waits for
//! nothing: had it failed, the program would have gone on to other work.
//!
//! The same holds for the receive right after a single `MPI_Iprobe` that found a message,
//! of that message (`if (flag) MPI_Recv(..., status.MPI_SOURCE, status.MPI_TAG, ...)`): the
//! program receives only because the message is there, so the receive waits for nothing
//! either; it takes the message, as `MPI_Improbe` does.
//!
//! The trace shows a loop as polls of the same requests (or the same source, tag and
//! communicator) on one thread that failed before the one that succeeded, with nothing in
//! between but other polls and calls that neither communicate nor complete anything
//! (`MPI_Wtime`, `MPI_Comm_rank`). A send, receive, collective, wait, start, cancel or free on
//! the thread in between means the program did other work between its polls: a poll
//! that succeeds after that is a single poll again.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{Blocking, CommId, Event, Op, Rank, ReqId, Source, TagMatch};

/// What a poll that succeeded stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Poll {
    /// No poll, or one that found nothing (or never returned).
    None,
    /// It ended a polling loop: the program waited for what it found.
    LoopEnd,
    /// A single poll that happened to succeed: the program waited for nothing.
    Once,
    /// A blocking receive of the message a single `MPI_Iprobe` just found.
    ReceivesProbed,
}

/// Whether an event is work between polls that [`PollScanner::scan`] only ends the loop
/// for: no test, request status, nonblocking probe, blocking receive or other call.
#[inline]
fn is_other_work(op: &Op) -> bool {
    match op {
        Op::Wait { test, .. } => !test,
        Op::RequestStatus { .. } | Op::Other | Op::Init { .. } => false,
        Op::Probe { blocking, .. } => *blocking,
        Op::Recv { blocking, .. } => !matches!(blocking, Blocking::Blocking),
        _ => true,
    }
}

#[derive(Default)]
struct ThreadPolls {
    /// Requests a poll of this thread found incomplete since its last other work.
    requests: FxHashSet<ReqId>,
    /// Messages (communicator, source, tag) a nonblocking probe did not find since then.
    probes: FxHashSet<(CommId, Option<Source>, TagMatch)>,
    /// The message a single `MPI_Iprobe` found last (communicator, source, tag), until the
    /// thread's next call that is not a poll.
    found: Option<(CommId, Rank, i32)>,
}

impl ThreadPolls {
    /// Other work than polls: the thread's polling loop, if any, ended. (The sets are
    /// looked at first: clearing one that once held entries writes all its slots.)
    fn end_loop(&mut self) {
        self.found = None;
        if !self.requests.is_empty() {
            self.requests.clear();
        }
        if !self.probes.is_empty() {
            self.probes.clear();
        }
    }
}

/// The role of every event of one rank, by index.
#[cfg(test)]
pub(crate) fn polls(events: &[Event]) -> Vec<Poll> {
    let mut scanner = PollScanner::default();
    events.iter().map(|e| scanner.role(e)).collect()
}

/// Says what each event of one rank stands for, reading the rank's events in order: the
/// role of an event depends only on the events before it (on its thread), so a stream of
/// events needs only the state of each thread's current polling loop. (Looked up for every
/// event the replays compile: thread 0's state is found without hashing, the others' are
/// hashed with Fx, not SipHash.)
#[derive(Default)]
pub(crate) struct PollScanner {
    /// Thread 0's state: nearly every event's.
    first_thread: ThreadPolls,
    other_threads: FxHashMap<u16, ThreadPolls>,
}

impl PollScanner {
    /// The role of the rank's next event.
    #[inline]
    pub(crate) fn role(&mut self, event: &Event) -> Poll {
        // Nearly every event of a run is thread 0's: a call that changes nothing of its
        // loop, or other work between no polls, which only ends the loop. Both are found
        // without the scan below (a call per event).
        if event.thread == 0 {
            if matches!(event.op, Op::Other | Op::Init { .. }) {
                return Poll::None;
            }
            if is_other_work(&event.op) {
                self.first_thread.end_loop();
                return Poll::None;
            }
        }
        self.scan(event)
    }

    /// [`PollScanner::role`] of any event.
    #[inline(never)]
    fn scan(&mut self, event: &Event) -> Poll {
        let state = match event.thread {
            0 => &mut self.first_thread,
            thread => self.other_threads.entry(thread).or_default(),
        };
        let found = state.found.take();
        match &event.op {
            Op::Wait {
                requests,
                completed,
                test: true,
                ..
            }
            | Op::RequestStatus {
                requests,
                completed,
                ..
            } => {
                let Some(done) = completed else {
                    return Poll::None;
                };
                let done: Vec<ReqId> = done
                    .iter()
                    .filter_map(|&i| requests.get(i as usize).copied().flatten())
                    .collect();
                for r in requests.iter().flatten() {
                    if !done.contains(r) {
                        state.requests.insert(*r);
                    }
                }
                if done.is_empty() {
                    return Poll::None;
                }
                let loop_end = done.iter().any(|r| state.requests.contains(r));
                for r in &done {
                    state.requests.remove(r);
                }
                if loop_end {
                    Poll::LoopEnd
                } else {
                    Poll::Once
                }
            }
            Op::Probe {
                source,
                tag,
                comm,
                blocking: false,
                found: result,
                matched_probe,
                matched,
            } => {
                let key = (*comm, *source, *tag);
                match result {
                    Some(true) if state.probes.remove(&key) => Poll::LoopEnd,
                    Some(true) => {
                        if !matched_probe {
                            state.found = matched.map(|(s, t)| (*comm, s, t));
                        }
                        Poll::Once
                    }
                    Some(false) => {
                        state.probes.insert(key);
                        Poll::None
                    }
                    None => Poll::None,
                }
            }
            Op::Recv {
                recv,
                blocking: Blocking::Blocking,
            } if event.returned
                && found.is_some_and(|(comm, source, tag)| {
                    recv.comm == comm
                        && recv
                            .source
                            .is_some_and(|s| s == Source::Any || s == Source::Rank(source))
                        && (recv.tag == TagMatch::Any || recv.tag == TagMatch::Tag(tag))
                }) =>
            {
                state.end_loop();
                Poll::ReceivesProbed
            }
            Op::Other | Op::Init { .. } => {
                state.found = found;
                Poll::None
            }
            _ => {
                // Other work between two polls: they are no loop.
                state.end_loop();
                Poll::None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_trace::parse;

    fn roles(text: &str) -> Vec<Poll> {
        polls(&parse(text).unwrap().ranks[0].events)
    }

    #[test]
    fn a_poll_that_succeeds_after_failed_ones_ends_a_loop() {
        use Poll::*;
        assert_eq!(
            roles(
                "ranks 1
                 0: isend dest=0 tag=0 req=0
                 0: test req=0 flag=1
                 0: isend dest=0 tag=1 req=1
                 0: test req=1 flag=0
                 0: other MPI_Wtime
                 0: test req=1 flag=0
                 0: test req=1 flag=1
                 0: isend dest=0 tag=2 req=2
                 0: testall reqs=2 flag=0
                 0: send dest=0 tag=3
                 0: testall reqs=2 flag=1
                 0: iprobe src=0 tag=5
                 0: iprobe src=0 tag=5 found=1 matched=0:5
                 0: improbe src=0 tag=6 found=1 matched=0:6"
            ),
            vec![
                None, Once, None, None, None, None, LoopEnd, None, None, None, Once, None, LoopEnd,
                Once
            ]
        );
    }

    #[test]
    fn polls_of_other_requests_and_other_threads_are_no_loop() {
        use Poll::*;
        assert_eq!(
            roles(
                "ranks 1
                 0: irecv src=0 tag=0 req=0
                 0: irecv src=0 tag=1 req=1
                 0: test req=0 flag=0
                 0: test req=1 flag=1
                 0: testany reqs=0,1 index=0
                 0: irecv src=0 tag=2 req=2
                 0: irecv src=0 tag=3 req=3
                 0: request_get_status_some reqs=2,3 indices=0
                 0: request_get_status_some reqs=2,3 indices=1
                 0: irecv src=0 tag=4 req=4
                 0: test req=4 flag=0 thread=1
                 0: test req=4 flag=1
                 0: iprobe src=0 tag=5 thread=1
                 0: iprobe src=0 tag=5 found=1 matched=0:5"
            ),
            vec![
                None, None, None, Once, LoopEnd, None, None, Once, LoopEnd, None, None, Once, None,
                Once
            ]
        );
    }

    #[test]
    fn the_receive_of_a_message_a_single_probe_found_waits_for_nothing() {
        use Poll::*;
        assert_eq!(
            roles(
                "ranks 1
                 0: iprobe src=any tag=any found=1 matched=0:5
                 0: other MPI_Get_count
                 0: recv src=0 tag=5
                 0: iprobe src=any tag=any found=1 matched=0:6
                 0: recv src=0 tag=7
                 0: iprobe src=any tag=any found=1 matched=0:8
                 0: barrier
                 0: recv src=0 tag=8
                 0: iprobe src=0 tag=9
                 0: iprobe src=0 tag=9 found=1 matched=0:9
                 0: recv src=0 tag=9"
            ),
            vec![
                Once,
                None,
                ReceivesProbed,
                Once,
                None,
                Once,
                None,
                None,
                None,
                LoopEnd,
                None
            ]
        );
    }
}
