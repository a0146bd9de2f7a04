//! Deadlock checks: actual (DL001), potential through buffering or non-synchronizing
//! collectives (DL002), potential under another wildcard matching (DL003).

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::check::{Check, Needs, Replaying, Slot};
use super::{call_location, stuck_locations, Context, Involved};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::engine::{self, Alternative, ForcedMatch, Replay, ReplayOptions, WaitOn, WildcardRace};
use crate::model::CommId;
use crate::ranks::RankSet;
use crate::text;
use crate::text::{ranks, Text};
use crate::waitfor::{self, DeadlockSet};

pub const DL001: CheckInfo = CheckInfo {
    code: "DL001",
    name: "actual-deadlock",
    category: Category::Deadlock,
    severity: Severity::Error,
    summary: "ranks are blocked forever: the run hung in a cycle of waits or waiting for a rank that finished",
    docs: r#"## What it does

Finds ranks that were blocked in an MPI call when their trace ended (the launcher ended a
hung job, or the job was killed) and proves, by replaying the run with MPI's matching and
completion rules, that those calls can never complete: the ranks wait for each other in a
cycle (AND semantics: a blocking call, `MPI_Waitall`, a collective, an active-target
epoch: `MPI_Win_wait` waits for its origins' `MPI_Win_complete`, a blocked
`MPI_Win_start` or `MPI_Win_complete` for its targets' `MPI_Win_post`) or a knot (OR
semantics: `MPI_ANY_SOURCE`, `MPI_Waitany`), or they wait for a rank that has already
called `MPI_Finalize` or exited. Ranks that only wait on the cycle are shown folded.

## Why is this bad

The program hangs. It burns its allocation until the batch system kills it, and no MPI
implementation can make it finish: the dependency is in the program.

## Example

```c
if (rank == 0) {
    MPI_Ssend(a, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* waits for rank 1's receive */
    MPI_Recv(b, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
} else {
    MPI_Ssend(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* waits for rank 0's receive */
    MPI_Recv(a, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
```

## How to fix

Break the cycle: exchange with `MPI_Sendrecv`, let one rank receive first, or post
`MPI_Irecv`/`MPI_Isend` and complete them with one `MPI_Waitall`. Call collectives in the
same order on every rank of a communicator, and make sure every message and collective a
rank waits for is issued before the peer calls `MPI_Finalize`.

## MPI standard reference

MPI 4.1 §3.4 (communication modes: a synchronous send completes only after the matching
receive started), §3.5 (semantics of point-to-point communication: order, progress,
fairness, and the unsafe send/receive cycle), §3.7.4 (progress of nonblocking operations),
§6.14 (correctness of collective calls).
"#,
};

pub const DL002: CheckInfo = CheckInfo {
    code: "DL002",
    name: "potential-deadlock",
    category: Category::PotentialDeadlock,
    severity: Severity::Warning,
    summary: "the run completed only because MPI buffered standard-mode sends or a collective did not synchronize",
    docs: r#"## What it does

Replays a run that completed under the rules MPI guarantees to a portable program:
standard-mode (and ready-mode) sends complete only when the matching receive is posted,
buffered sends only while the attached buffer has room, every collective synchronizes, and
`MPI_Win_start` waits for the matching `MPI_Win_post` of every target in its group.
If that replay gets stuck in a cycle, the run only completed because the MPI library
buffered a message (the eager protocol) or let a rank leave a collective early.

A rank whose single `MPI_Test` (or `MPI_Testany`, ...) found complete an operation this
replay had not completed, and never completes, leaves the cycle unreported: unbuffered,
that test would have failed and the program would have done something else (polled on,
received), which its trace does not show. A real cycle after such a test on that rank is
then not reported either.

## Why is this bad

Buffering is an implementation choice that depends on message size, MPI library,
configuration and load. The same program hangs with larger messages, another MPI, or
another network: the classic "works on my laptop, hangs at scale" bug.

## Example

```c
MPI_Send(out, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD); /* every rank sends first */
MPI_Recv(in, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
```

```c
/* rank 0 */ MPI_Bcast(buf, 4, MPI_INT, 0, comm); MPI_Send(buf2, 4, MPI_INT, 1, 0, comm);
/* rank 1 */ MPI_Recv(buf2, 4, MPI_INT, 0, 0, comm, &st); MPI_Bcast(buf, 4, MPI_INT, 0, comm);
```

## How to fix

Do not rely on buffering: use `MPI_Sendrecv`, alternate the order of sends and receives
(even ranks send first, odd ranks receive first), or use nonblocking calls completed by
one `MPI_Waitall`. Order point-to-point calls and collectives so that nothing would
deadlock even if every collective synchronized; nonblocking collectives help.

## MPI standard reference

MPI 4.1 §3.5 ("a program is unsafe if it relies on system buffering"), §3.6 (buffer
allocation for buffered mode), §6.14 ("a correct, portable program must invoke collective
communications so that deadlock will not occur, whether collective communications are
synchronizing or not"), §12.5.2 (`MPI_Win_start` may block until the matching
`MPI_Win_post`).
"#,
};

pub const DL003: CheckInfo = CheckInfo {
    code: "DL003",
    name: "wildcard-deadlock",
    category: Category::PotentialDeadlock,
    severity: Severity::Warning,
    summary: "a wildcard receive could match another message, and with that matching the program deadlocks",
    docs: r#"## What it does

For each `MPI_ANY_SOURCE` receive that had matching messages from more than one sender
pending, replays the run (with MPI's strict rules) letting the receive take each other
message in turn. If an alternative matching is possible and leads to a deadlock, reports
the receive and the competing sends. The search is bounded (64 alternatives per run);
when the bound stops it, the finding says the result is inconclusive. A call that named
the source of the rank's latest completed wildcard receive every time it was made in the
run, while that source changed (a reply to `status.MPI_SOURCE`, as a master does to its
workers), names the other source in the other matching, if it was made often enough not
to have done so by chance (10 calls with two sources, 5 with four). Likewise a send whose
tag was the tag of the rank's latest completed `MPI_ANY_TAG` receive every time, while
that tag changed (a reply or forward with `status.MPI_TAG`), carries the tag of the
message the receive takes in the other matching, under the same rule. Made fewer times,
or always to the one rank (with the one tag) the wildcard took, it may be such a reply or
name that rank (tag) for another reason: the alternative is reported only if it deadlocks
both ways. A send with a fixed tag that only the wildcard's tag happened to equal, while
the wildcard took other tags too, keeps its tag. A rank whose
`MPI_ANY_TAG` receive takes a message with another tag than in the run (a worker that gets
a task where its trace has the master's stop tag) is replayed no further in that
alternative: what it does next is not in its trace, and it may still release the others.

A blocking `MPI_Probe` for `MPI_ANY_SOURCE` (or an `MPI_Iprobe` loop that ends when it
finds a message) is explored as a wildcard receive is: which message it finds depends on
timing, and the receive the rank makes right after it, naming the source (and tag) it
found, takes the message the probe finds in the other matching, even when made once.

## Why is this bad

Which message a wildcard receive gets depends on timing. The run that was traced was
lucky; another run, with other timing, takes the other message and hangs.

## Example

```c
/* rank 0 */ MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &st);
             MPI_Recv(&y, 1, MPI_INT, 2, 0, comm, &st);
/* rank 1 */ MPI_Send(&x, 1, MPI_INT, 0, 0, comm);
/* rank 2 */ MPI_Send(&y, 1, MPI_INT, 0, 0, comm);
```

If the first receive takes rank 2's message, the second receive waits forever.

## How to fix

Receive from a specific source, give the messages distinct tags, or restructure the
receives so that every matching order completes (e.g. receive all wildcard messages in
one loop and dispatch on `status.MPI_SOURCE`).

## MPI standard reference

MPI 4.1 §3.5 (order: messages from different senders are not ordered), §3.8 (probe and
cancel, `MPI_ANY_SOURCE`).
"#,
};

/// Which stuck ranks of a replay the trace shows blocked in the same call.
fn blocked_in_trace(ctx: &Context, replay: &Replay, indices: &[usize]) -> Vec<usize> {
    indices
        .iter()
        .copied()
        .filter(|&i| {
            let s = &replay.stuck[i];
            ctx.program()
                .call(s.rank, s.event)
                .is_some_and(|c| !c.returned())
        })
        .collect()
}

fn cycle_ranks(replay: &Replay, indices: &[usize]) -> RankSet {
    indices.iter().map(|&i| replay.stuck[i].rank).collect()
}

fn notes_for(inv: &Involved, strict: bool) -> Vec<Text> {
    let mut notes = Vec::new();
    if inv.synchronous_send {
        notes.push(
            "a synchronous send (MPI_Ssend, MPI_Issend) completes only after the matching receive has started (MPI 4.1 §3.4)"
                .to_string(),
        );
    }
    if inv.standard_send && strict {
        notes.push(
            "a standard-mode send may wait until the matching receive is posted; a program that relies on MPI buffering it is unsafe (MPI 4.1 §3.5)"
                .to_string(),
        );
    }
    if inv.receive {
        notes.push(
            "a blocking receive or probe returns only once a matching message has been sent (MPI 4.1 §3.5, §3.8)"
                .to_string(),
        );
    }
    if inv.wait {
        notes.push(
            "MPI_Wait returns only when the operation it waits for completes, so the deadlock shows at the wait, not where the operation started (MPI 4.1 §3.7.3)"
                .to_string(),
        );
    }
    if inv.polling_loop {
        notes.push(
            "a loop that polls (MPI_Test*, MPI_Iprobe, MPI_Request_get_status) until the operation completes or the message arrives waits like the blocking call it stands for, so the deadlock shows at the poll, not where the operation started (MPI 4.1 §3.7.3)"
                .to_string(),
        );
    }
    if inv.collective {
        notes.push(
            "collective operations may synchronize: a correct, portable program must invoke them so that deadlock will not occur whether they synchronize or not (MPI 4.1 §6.14)"
                .to_string(),
        );
    }
    if inv.epoch {
        notes.push(
            "MPI_Win_wait returns only after every origin in its post group has called MPI_Win_complete, and MPI_Win_start or MPI_Win_complete may wait until every target in its start group has called MPI_Win_post (MPI 4.1 §12.5.2)"
                .to_string(),
        );
    }
    if inv.lock {
        notes.push(
            "MPI_Win_lock may return before the lock is granted, but MPI_Win_unlock, MPI_Win_flush and the RMA calls of the epoch wait until it is; a lock another origin holds in a conflicting mode (an exclusive lock on either side) is granted only after that origin's MPI_Win_unlock (MPI 4.1 §12.5.3)"
                .to_string(),
        );
    }
    if inv.gone_peer {
        notes.push(
            "a rank that has called MPI_Finalize or exited can no longer send, receive or take part in a collective (MPI 4.1 §11.2)"
                .to_string(),
        );
    }
    notes.into_iter().map(Text::from).collect()
}

fn help_for(inv: &Involved) -> Text {
    let mut help = Vec::new();
    if inv.synchronous_send || inv.standard_send || inv.receive || inv.wait || inv.polling_loop {
        help.push(
            "use MPI_Sendrecv, or reorder so one rank receives first, or MPI_Isend/MPI_Irecv + MPI_Waitall",
        );
    }
    if inv.collective {
        help.push(
            "call collectives in the same order on every rank of a communicator and never make a collective wait for a point-to-point message issued after it (nonblocking collectives can break such cycles)",
        );
    }
    if inv.epoch {
        help.push("make every origin named in a target's MPI_Win_post group call MPI_Win_start with a group that includes the target, then MPI_Win_complete, and call MPI_Win_post before the MPI_Win_start it matches can block on it");
    }
    if inv.lock {
        help.push("unlock (MPI_Win_unlock) before waiting for a message or collective another origin of the window sends after its own epoch, or lock with MPI_LOCK_SHARED where no epoch writes");
    }
    if inv.gone_peer {
        help.push("make sure every message and collective a rank waits for is issued before its peer calls MPI_Finalize");
    }
    if help.is_empty() {
        help.push("break the cycle of waits by reordering the calls");
    }
    help.join("; ").into()
}

/// DL001 from the recorded replay.
pub(super) fn actual(ctx: &Context) -> Option<Diagnostic> {
    let replay = ctx.recorded();
    let set = waitfor::deadlocked(ctx.program(), replay);
    let blocked = blocked_in_trace(ctx, replay, &set.deadlocked);
    if blocked.is_empty() {
        return None;
    }
    // Core first, then the ranks waiting on it; only calls the trace shows blocked.
    let core: BTreeSet<usize> = set.core.iter().copied().collect();
    let mut ordered: Vec<usize> = blocked
        .iter()
        .copied()
        .filter(|i| core.contains(i))
        .collect();
    ordered.extend(blocked.iter().copied().filter(|i| !core.contains(i)));
    let inv = Involved::of(ctx, replay, &ordered);
    let core_ranks = cycle_ranks(replay, &set.core);
    let waits_only_on_gone = {
        let mut all_gone = true;
        for &i in &set.core {
            let s = &replay.stuck[i];
            s.cond.for_each_rank(ctx.program(), s.rank, &mut |t, _| {
                if !replay.ranks.get(t as usize).is_some_and(|o| o.terminated()) {
                    all_gone = false;
                }
            });
        }
        all_gone
    };
    let others = set.deadlocked.len() - set.core.len();
    let mut message = if waits_only_on_gone {
        let mut gone = BTreeSet::new();
        for &i in &set.core {
            let s = &replay.stuck[i];
            s.cond.for_each_rank(ctx.program(), s.rank, &mut |t, _| {
                gone.insert(t);
            });
        }
        text!(
            "deadlock: {} {} blocked forever waiting for {}, which already finished",
            &core_ranks,
            if core_ranks.len() == 1 { "is" } else { "are" },
            RankSet::new(gone)
        )
    } else if core_ranks.len() == 1 {
        text!(
            "deadlock: {} is blocked forever waiting for itself",
            &core_ranks
        )
    } else {
        text!(
            "deadlock: {} are blocked forever waiting for each other",
            &core_ranks
        )
    };
    if others > 0 {
        message = text!(
            "{} ({others} more {} waiting on {})",
            message,
            if others == 1 { "rank is" } else { "ranks are" },
            if core_ranks.len() == 1 { "it" } else { "them" }
        );
    }
    Some(Diagnostic {
        code: DL001.code,
        category: DL001.category,
        severity: DL001.severity,
        message,
        locations: stuck_locations(ctx, replay, &ordered),
        notes: notes_for(&inv, false),
        help: Some(help_for(&inv)),
        wait_for: Some(waitfor::graph(ctx.run, ctx.program(), replay, &set)),
        communicator: None,
        tag: None,
    })
}

/// Whether a stuck rank of a strict replay is blocked in (or on) a collective on one of
/// these communicators.
fn involves_comms(
    ctx: &Context,
    replay: &Replay,
    indices: &[usize],
    comms: &BTreeSet<CommId>,
) -> bool {
    if comms.is_empty() {
        return false;
    }
    indices.iter().any(|&i| {
        let s = &replay.stuck[i];
        let comm = ctx
            .program()
            .call(s.rank, s.event)
            .and_then(|c| c.collective_comm());
        if comm.is_some_and(|c| comms.contains(&c)) {
            return true;
        }
        let mut hit = false;
        s.cond.for_each_rank(ctx.program(), s.rank, &mut |_, on| {
            if let WaitOn::Collective { comm, .. } = on {
                hit |= comms.contains(comm);
            }
        });
        hit
    })
}

/// DL002 from the strict replay of a run that did not (actually) deadlock.
fn potential(ctx: &Context, mismatched_comms: &BTreeSet<CommId>) -> Option<Diagnostic> {
    let strict = ctx.strict();
    if strict.completed() {
        return None;
    }
    let set = waitfor::deadlocked(ctx.program(), strict);
    // A rank of the cycle that went past a test which found complete what the unbuffered
    // replay never completes took a path the unbuffered program does not (its test would
    // fail, and it would poll on): the cycle shows nothing about that program.
    if set.core.iter().any(|&i| {
        strict
            .passed_unseen
            .binary_search(&strict.stuck[i].rank)
            .is_ok()
    }) {
        return None;
    }
    // Only calls the run got past: a strict rank stuck where the recorded replay is stuck
    // too is a replay the trace cannot explain, not a potential deadlock.
    let passed: Vec<usize> = set
        .deadlocked
        .iter()
        .copied()
        .filter(|&i| {
            let s = &strict.stuck[i];
            let returned = ctx
                .program()
                .call(s.rank, s.event)
                .is_some_and(|c| c.returned());
            let recorded_past = match ctx.recorded().ranks[s.rank as usize] {
                engine::RankOutcome::Stuck { event } => event > s.event,
                _ => true,
            };
            returned && recorded_past
        })
        .collect();
    if passed.is_empty() {
        return None;
    }
    // A mismatched collective is reported as CO001; its consequence is not a second finding.
    if involves_comms(ctx, strict, &set.deadlocked, mismatched_comms) {
        return None;
    }
    let core: BTreeSet<usize> = set.core.iter().copied().collect();
    let mut ordered: Vec<usize> = set.core.clone();
    ordered.extend(set.deadlocked.iter().copied().filter(|i| !core.contains(i)));
    let inv = Involved::of(ctx, strict, &ordered);
    let core_ranks = cycle_ranks(strict, &set.core);
    let because = match (inv.standard_send, inv.collective) {
        (true, true) => "MPI buffered standard-mode sends and collectives did not synchronize",
        (false, true) => "collective operations did not synchronize",
        (false, false) if inv.epoch => "MPI_Win_start and MPI_Win_complete return without waiting for the matching MPI_Win_post",
        _ => "MPI buffered standard-mode sends",
    };
    Some(Diagnostic {
        code: DL002.code,
        category: DL002.category,
        severity: DL002.severity,
        message: if core_ranks.len() == 1 {
            text!(
                "potential deadlock: {} waits for itself unless {because}",
                &core_ranks
            )
        } else {
            text!(
                "potential deadlock: {} wait for each other unless {because}",
                &core_ranks
            )
        },
        locations: stuck_locations(ctx, strict, &ordered),
        notes: notes_for(&inv, true),
        help: Some(help_for(&inv)),
        wait_for: Some(waitfor::graph(ctx.run, ctx.program(), strict, &set)),
        communicator: None,
        tag: None,
    })
}

/// Alternatives explored per run, at most.
pub const EXPLORATION_BOUND: usize = 64;

/// The other sources a racing wildcard receive could have taken: the receive forced to
/// each, with the event of that source's competing send.
fn other_matchings(race: &WildcardRace) -> impl Iterator<Item = (ForcedMatch, usize)> + '_ {
    race.candidates
        .iter()
        .filter(|&&(source, _)| source != race.matched)
        .map(|&(source, send_event)| {
            let forced = ForcedMatch {
                rank: race.rank,
                event: race.event,
                source,
            };
            (forced, send_event)
        })
}

/// DL003: replays each other possible matching of the racing wildcard receives (strict
/// rules). Returns the findings and whether the bound stopped the search.
fn wildcard_alternatives(ctx: &Context) -> (Vec<Diagnostic>, bool) {
    let races = &ctx.recorded().races;
    if races.is_empty() || !ctx.recorded().completed() || !ctx.strict().completed() {
        return (Vec::new(), false);
    }
    // The alternatives explored unless a receive's site is reported (its other races are
    // then skipped, and later ones explored): played out together from one strict replay.
    let first: Vec<ForcedMatch> = races
        .iter()
        .filter(|race| ctx.program().call(race.rank, race.event).is_some())
        .flat_map(other_matchings)
        .map(|(forced, _)| forced)
        .take(EXPLORATION_BOUND)
        .collect();
    let mut played_out: FxHashMap<ForcedMatch, Alternative> = first
        .iter()
        .zip(ctx.explore(&first))
        .filter_map(|(&forced, alt)| Some((forced, alt?)))
        .collect();
    let mut budget = EXPLORATION_BOUND;
    let mut inconclusive = false;
    let mut out = Vec::new();
    let mut reported_sites = BTreeSet::new();
    let strict_options = ctx.strict_options();
    'races: for race in races {
        let Some(recv_call) = ctx.program().call(race.rank, race.event) else {
            continue;
        };
        let recv_site = (recv_call.site.0, recv_call.name);
        if reported_sites.contains(&recv_site) {
            continue;
        }
        for (forced, send_event) in other_matchings(race) {
            let source = forced.source;
            if budget == 0 {
                inconclusive = true;
                break 'races;
            }
            budget -= 1;
            let alt = match played_out.remove(&forced) {
                Some(Alternative::Completes) => continue,
                Some(Alternative::Replay(alt)) => alt,
                None => ctx.replay_with(&ReplayOptions {
                    forced: Some(forced),
                    ..strict_options.clone()
                }),
            };
            let set = alternative_deadlock(ctx, &alt);
            if set.is_empty() || !deadlocks_if_doubtful_sites_follow(ctx, forced, &strict_options) {
                continue;
            }
            reported_sites.insert(recv_site);
            let mut locations: Vec<_> = call_location(
                ctx,
                vec![race.rank],
                race.rank,
                race.event,
                text!(
                    "{} matched {} in this run, but can match {}",
                    recv_call.wildcard_noun(),
                    ranks(race.matched),
                    ranks(source)
                ),
            )
            .into_iter()
            .collect();
            locations.extend(call_location(
                ctx,
                vec![source],
                source,
                send_event,
                "competing send",
            ));
            let core: BTreeSet<usize> = set.core.iter().copied().collect();
            let mut ordered: Vec<usize> = set.core.clone();
            ordered.extend(set.deadlocked.iter().copied().filter(|i| !core.contains(i)));
            locations.extend(stuck_locations(ctx, &alt, &ordered));
            let inv = Involved::of(ctx, &alt, &ordered);
            let mut notes = vec![text!(
                "messages from different senders are not ordered: which one a MPI_ANY_SOURCE {} depends on timing (MPI 4.1 §3.5)",
                if recv_call.is_probe() { "probe finds" } else { "receive takes" }
            )];
            notes.extend(notes_for(&inv, true));
            out.push(Diagnostic {
                code: DL003.code,
                category: DL003.category,
                severity: DL003.severity,
                message: text!(
                    "potential deadlock: if the {} of {} matches {} instead of {}, {} would be blocked forever",
                    recv_call.wildcard_noun(),
                    ranks(race.rank),
                    ranks(source),
                    ranks(race.matched),
                    cycle_ranks(&alt, &set.core)
                ),
                locations,
                notes,
                help: Some(
                    "receive from a specific source or use distinct tags, so that every matching order completes"
                        .into(),
                ),
                wait_for: Some(waitfor::graph(ctx.run, ctx.program(), &alt, &set)),
                communicator: None,
                tag: None,
            });
            continue 'races;
        }
    }
    if inconclusive {
        for d in &mut out {
            d.notes.push(text!(
                "inconclusive: the exploration stopped after {EXPLORATION_BOUND} alternative matchings; other wildcard receives were not explored"
            ));
        }
    }
    (out, inconclusive)
}

/// Whether alternative `forced`, which deadlocks, also deadlocks when the call sites that
/// named their rank's latest wildcard source (or tag) every time, too few times to tell
/// whether by design, name the source (carry the tag) the wildcard takes: a master that
/// replied to `status.MPI_SOURCE` (with `status.MPI_TAG`) for a few rounds would send its
/// replies to the recorded workers (with the recorded tags) otherwise, and deadlock in a
/// way the program cannot.
fn deadlocks_if_doubtful_sites_follow(
    ctx: &Context,
    forced: ForcedMatch,
    strict_options: &ReplayOptions,
) -> bool {
    if !ctx.program().has_doubtful_followers() {
        return true;
    }
    let alt = ctx.replay_with(&ReplayOptions {
        forced: Some(forced),
        follow_doubtful: true,
        ..strict_options.clone()
    });
    !alternative_deadlock(ctx, &alt).is_empty()
}

/// The ranks a replay of another matching leaves deadlocked: none where it completes, or
/// where the strict rules never make the forced matching possible (no finding then).
fn alternative_deadlock(ctx: &Context, alt: &Replay) -> DeadlockSet {
    if alt.forced_matched != Some(true) || alt.completed() {
        return DeadlockSet::default();
    }
    waitfor::deadlocked(ctx.program(), alt)
}

/// DL001; whether it found a deadlock goes to DL002 and DL003.
pub(crate) struct ActualDeadlock;

impl Check for ActualDeadlock {
    fn infos(&self) -> &'static [CheckInfo] {
        &[DL001]
    }
    fn needs(&self) -> Needs {
        Needs {
            replays: &[Replaying::Recorded],
            reads: &[],
            fills: &[Slot::ActualDeadlock],
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        let found = actual(ctx);
        ctx.set_actual_deadlock(found.is_some());
        found.into_iter().collect()
    }
}

/// DL002, when the run did not deadlock, leaving out the consequences of mismatched
/// collectives (CO001, CO002).
pub(crate) struct PotentialDeadlock;

impl Check for PotentialDeadlock {
    fn infos(&self) -> &'static [CheckInfo] {
        &[DL002]
    }
    fn needs(&self) -> Needs {
        Needs {
            replays: &[Replaying::Recorded, Replaying::Strict],
            reads: &[Slot::ActualDeadlock, Slot::MismatchedComms],
            fills: &[],
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        if ctx.actual_deadlock() {
            return Vec::new();
        }
        potential(ctx, &ctx.mismatched_comms())
            .into_iter()
            .collect()
    }
}

/// DL003, when the run did not deadlock; whether the exploration stopped at its bound goes
/// to MR001.
pub(crate) struct WildcardDeadlock;

impl Check for WildcardDeadlock {
    fn infos(&self) -> &'static [CheckInfo] {
        &[DL003]
    }
    fn needs(&self) -> Needs {
        Needs {
            replays: &[
                Replaying::Recorded,
                Replaying::Strict,
                Replaying::WildcardExploration,
            ],
            reads: &[Slot::ActualDeadlock],
            fills: &[Slot::WildcardInconclusive],
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        let (found, inconclusive) = if ctx.actual_deadlock() {
            (Vec::new(), false)
        } else {
            wildcard_alternatives(ctx)
        };
        ctx.set_wildcard_inconclusive(inconclusive);
        found
    }
}
