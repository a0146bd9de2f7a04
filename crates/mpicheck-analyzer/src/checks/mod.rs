//! The checks: each family in its own module, each check with a stable code and docs.
//!
//! | code | family | what |
//! |------|--------|------|
//! | `DL001` | [`deadlock`] | actual deadlock: ranks blocked forever in the trace |
//! | `DL002` | [`deadlock`] | potential deadlock: completes only thanks to buffering or non-synchronizing collectives |
//! | `DL003` | [`deadlock`] | potential deadlock under another matching of a wildcard receive |
//! | `MR001` | [`message_race`] | message race on a wildcard receive |
//! | `CO001` | [`collective_call`] | collective call mismatch |
//! | `CO002` | [`collective::root`] | root mismatch |
//! | `CO003` | [`collective::op`] | reduction operation mismatch |
//! | `CO004` | [`collective::in_place`] | `MPI_IN_PLACE` on some ranks only |
//! | `CO005` | [`collective::arguments`] | intercomm leader/tag, merge high, cart dims, graph, file amode mismatch |
//! | `CO006` | [`collective::file_order`] | split collective file operations out of order |
//! | `TY001` | [`datatype::collective`] | collective type signature mismatch |
//! | `TY002` | [`datatype::point_to_point`] | message type signature mismatch |
//! | `TY003` | [`datatype::point_to_point`] | receive too small for the message |
//! | `RQ001`-`RQ004` | [`request`] | request lifecycle: never completed, freed while active, unknown request, persistent request started twice |
//! | `RS001`-`RS004` | [`resource`] | objects never freed, buffer never detached, buffered send without or with a too small buffer |
//! | `BF001` `BF002` | [`request`], [`argument`] | buffers of pending nonblocking operations that overlap; send and receive buffers of one call that overlap |
//! | `AR001`-`AR010` | [`argument`] | invalid arguments: ranks, tags, counts, null/freed handles, uncommitted types, NULL buffers, MPI_IN_PLACE, calls before init/after finalize |
//! | `TH001` | [`threads`] | MPI called beyond the thread level provided |
//! | `TH002` | [`threads`] | `MPI_Finalize` on the wrong thread, during or before other threads' calls |
//! | `TH003` | [`threads`] | two threads complete the same request at the same time |
//! | `TH004` | [`threads`] | a probed message can be received by another thread |
//! | `TH005` | [`threads`] | concurrent collectives on one communicator in one process |
//! | `RM001`-`RM004` | [`rma`] | RMA epochs: calls outside an epoch, unmatched lock/unlock, start/complete, post/wait, window freed in an epoch, request-based RMA in active target |
//! | `RM005` `RM006` | [`rma`] | RMA arguments: target rank outside the window, target bytes beyond the target's window |
//! | `DR001` | [`rma`] | conflicting RMA accesses to the same target bytes in one fence epoch |
//!
//! The CLI calls [`run_all`], [`catalogue`] and (live, on a hung job) [`actual_deadlock`].

use std::cell::OnceCell;

use crate::diagnostic::{CheckInfo, Diagnostic, Location};
use crate::engine::{self, Mode, Program, Replay, ReplayOptions, WaitCond, WaitOn};
use crate::model::{Event, Op, Rank, Run, SendMode};
use crate::ranks::format_ranks;
use crate::waitfor::collective_call_name;

pub mod argument;
pub mod collective;
pub mod collective_call;
pub mod datatype;
pub mod deadlock;
pub mod message_race;
pub mod request;
pub mod resource;
pub mod rma;
pub mod threads;

/// Everything the checks share: the compiled run and its replays, computed once.
pub(crate) struct Context<'r> {
    pub run: &'r Run,
    pub program: Program,
    pub recorded: Replay,
    strict: OnceCell<Replay>,
}

impl<'r> Context<'r> {
    pub fn new(run: &'r Run) -> Context<'r> {
        let program = Program::from_run(run);
        let recorded = engine::replay_program(&program, &ReplayOptions::new(Mode::Recorded));
        Context {
            run,
            program,
            recorded,
            strict: OnceCell::new(),
        }
    }
    pub fn strict(&self) -> &Replay {
        self.strict.get_or_init(|| {
            engine::replay_program(&self.program, &ReplayOptions::new(Mode::Strict))
        })
    }
    pub fn event(&self, rank: Rank, event: usize) -> Option<&'r Event> {
        self.run.ranks.get(rank as usize)?.events.get(event)
    }
}

/// Runs every check, in a fixed order: AR*, RQ*, RS*, then CO001-CO006, TY001-TY003,
/// DL001, DL002, DL003, MR001, TH001-TH005.
pub fn run_all(run: &Run) -> Vec<Diagnostic> {
    if run.ranks.is_empty() {
        return Vec::new();
    }
    // Checks of single calls and object lifecycles need no replay: first, so their
    // findings are there even when the run was cut short by the bad call itself.
    let mut out = argument::check(run);
    out.extend(request::check(run));
    out.extend(resource::check(run));
    out.extend(rma::check(run));
    let ctx = Context::new(run);
    let (collective, mut mismatched_comms) = collective_call::check(&ctx);
    out.extend(collective);
    let (roots, root_comms) = collective::root::check(&ctx);
    out.extend(roots);
    mismatched_comms.extend(root_comms);
    out.extend(collective::op::check(&ctx));
    out.extend(collective::in_place::check(&ctx));
    out.extend(collective::arguments::check(&ctx));
    out.extend(collective::file_order::check(&ctx));
    out.extend(datatype::collective::check(&ctx));
    out.extend(datatype::point_to_point::check(&ctx));
    let actual = deadlock::actual(&ctx);
    let had_actual = actual.is_some();
    out.extend(actual);
    if !had_actual {
        out.extend(deadlock::potential(&ctx, &mismatched_comms));
    }
    let (alternatives, inconclusive) = if had_actual {
        (Vec::new(), false)
    } else {
        deadlock::wildcard_alternatives(&ctx)
    };
    out.extend(alternatives);
    out.extend(message_race::check(&ctx, inconclusive));
    out.extend(threads::check(&ctx));
    out
}

/// DL001 alone, for the launcher watching a job whose ranks are all blocked.
pub fn actual_deadlock(run: &Run) -> Option<Diagnostic> {
    if run.ranks.is_empty() {
        return None;
    }
    deadlock::actual(&Context::new(run))
}

/// For the launcher watching a job whose ranks are all blocked although the recorded calls
/// do not deadlock: the collective or datatype mismatches that explain the stall (an MPI
/// often hangs inside mismatched collectives), or `None`.
pub fn mismatch_stall(run: &Run) -> Option<Vec<Diagnostic>> {
    if run.ranks.is_empty() {
        return None;
    }
    let some_blocked = run
        .ranks
        .iter()
        .any(|t| t.events.last().is_some_and(|e| !e.returned));
    if !some_blocked {
        return None;
    }
    let found: Vec<Diagnostic> = run_all(run)
        .into_iter()
        .filter(|d| {
            matches!(
                d.category,
                crate::diagnostic::Category::CollectiveMismatch
                    | crate::diagnostic::Category::TypeMismatch
            )
        })
        .collect();
    (!found.is_empty()).then_some(found)
}

/// Every check's code, name, category, severity and docs.
pub fn catalogue() -> &'static [CheckInfo] {
    static CATALOGUE: [CheckInfo; 45] = [
        deadlock::DL001,
        deadlock::DL002,
        deadlock::DL003,
        message_race::MR001,
        collective_call::CO001,
        collective::root::CO002,
        collective::op::CO003,
        collective::in_place::CO004,
        collective::arguments::CO005,
        collective::file_order::CO006,
        datatype::collective::TY001,
        datatype::point_to_point::TY002,
        datatype::point_to_point::TY003,
        request::RQ001,
        request::RQ002,
        request::RQ003,
        request::RQ004,
        resource::RS001,
        resource::RS002,
        resource::RS003,
        resource::RS004,
        argument::AR001,
        argument::AR002,
        argument::AR003,
        argument::AR004,
        argument::AR005,
        argument::AR006,
        argument::AR007,
        argument::AR008,
        argument::AR009,
        argument::AR010,
        request::BF001,
        argument::BF002,
        threads::TH001,
        threads::TH002,
        threads::TH003,
        threads::TH004,
        threads::TH005,
        rma::RM001,
        rma::RM002,
        rma::RM003,
        rma::RM004,
        rma::RM005,
        rma::RM006,
        rma::DR001,
    ];
    &CATALOGUE
}

// ---------------------------------------------------------------------------------------
// Shared helpers for messages and locations.

fn tag_text(tag: Option<i32>) -> String {
    match tag {
        Some(t) => format!("tag {t}"),
        None => "any tag".into(),
    }
}

/// What a stuck rank waits for. `precise`: name the peers; otherwise a description that is
/// the same for every rank in the same role (for folding).
pub(crate) fn describe_wait(cond: &WaitCond, replay: &Replay, precise: bool) -> String {
    let gone = |r: Rank| match replay.ranks.get(r as usize) {
        Some(engine::RankOutcome::Finalized) => ", which has already called MPI_Finalize",
        Some(engine::RankOutcome::Exited) => ", which has exited",
        _ => "",
    };
    match cond {
        WaitCond::Rank { rank, on } => match on {
            WaitOn::Message { tag, .. } if precise => format!(
                "waits for a message from rank {rank} ({}){}",
                tag_text(*tag),
                gone(*rank)
            ),
            WaitOn::Message { tag, .. } => format!("waits for a message ({})", tag_text(*tag)),
            WaitOn::Receive { tag, .. } if precise => format!(
                "waits for rank {rank} to post the matching receive (tag {tag}){}",
                gone(*rank)
            ),
            WaitOn::Receive { tag, .. } => {
                format!("waits for the matching receive to be posted (tag {tag})")
            }
            WaitOn::Collective { kind, .. } if precise => format!(
                "waits for rank {rank} to call {}{}",
                collective_call_name(*kind),
                gone(*rank)
            ),
            WaitOn::Collective { kind, .. } => {
                format!(
                    "waits for the other ranks to call {}",
                    collective_call_name(*kind)
                )
            }
        },
        WaitCond::Ranks { ranks, on } => {
            let what = match on {
                WaitOn::Collective { kind, .. } => collective_call_name(*kind).to_string(),
                _ => "the matching call".into(),
            };
            if precise && !ranks.is_empty() {
                let gone_all = ranks
                    .iter()
                    .all(|&r| replay.ranks.get(r as usize).is_some_and(|o| o.terminated()));
                format!(
                    "waits for {} to call {what}{}",
                    format_ranks(ranks),
                    if gone_all {
                        ", which have already finished"
                    } else {
                        ""
                    }
                )
            } else {
                format!("waits for the other ranks to call {what}")
            }
        }
        WaitCond::AnySource { on, .. } => match on {
            WaitOn::Message { tag, .. } => {
                format!("waits for a message from any rank ({})", tag_text(*tag))
            }
            _ => "waits for any rank".into(),
        },
        WaitCond::AllOf(parts) => parts
            .iter()
            .map(|p| describe_wait(p, replay, precise))
            .collect::<Vec<_>>()
            .join(", and "),
        WaitCond::AnyOf(parts) => parts
            .iter()
            .map(|p| describe_wait(p, replay, precise))
            .collect::<Vec<_>>()
            .join(", or "),
    }
}

/// One location per call site and role: the blocked calls of the given stuck ranks
/// (indices into `replay.stuck`), in the given order.
pub(crate) fn stuck_locations(ctx: &Context, replay: &Replay, stuck: &[usize]) -> Vec<Location> {
    // (site, call, generic label) → (ranks, precise label of the first)
    type Key = (u32, &'static str, String);
    let mut groups: Vec<(Key, Vec<Rank>, String)> = Vec::new();
    let mut index: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    for &i in stuck {
        let s = &replay.stuck[i];
        let Some(event) = ctx.event(s.rank, s.event) else {
            continue;
        };
        let key = (
            event.site.0,
            event.call,
            describe_wait(&s.cond, replay, false),
        );
        match index.get(&key) {
            Some(&g) => groups[g].1.push(s.rank),
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, vec![s.rank], describe_wait(&s.cond, replay, true)));
            }
        }
    }
    groups
        .into_iter()
        .map(|((site, call, generic), mut ranks, precise)| {
            ranks.sort_unstable();
            let loc = ctx.run.site(crate::model::SiteId(site));
            Location {
                label: if ranks.len() == 1 { precise } else { generic },
                ranks,
                call: call.to_string(),
                file: loc.file.clone(),
                line: loc.line,
                function: loc.function.clone(),
                object: loc.object.clone(),
                offset: loc.offset,
            }
        })
        .collect()
}

/// A location for one event of one or more ranks.
pub(crate) fn event_location(
    ctx: &Context,
    ranks: Vec<Rank>,
    event: &Event,
    label: String,
) -> Location {
    let loc = ctx.run.site(event.site);
    Location {
        ranks,
        call: event.call.to_string(),
        file: loc.file.clone(),
        line: loc.line,
        function: loc.function.clone(),
        object: loc.object.clone(),
        offset: loc.offset,
        label,
    }
}

/// What kinds of calls a set of blocked events are, for notes and help.
#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Involved {
    pub synchronous_send: bool,
    pub standard_send: bool,
    pub receive: bool,
    pub collective: bool,
    pub wait: bool,
    /// A rank is stuck in a loop of tests or nonblocking probes, which stands for a wait.
    pub polling_loop: bool,
    pub gone_peer: bool,
}

impl Involved {
    pub fn of(ctx: &Context, replay: &Replay, stuck: &[usize]) -> Involved {
        let mut inv = Involved::default();
        for &i in stuck {
            let s = &replay.stuck[i];
            let Some(event) = ctx.event(s.rank, s.event) else {
                continue;
            };
            match &event.op {
                Op::Send { send, .. } => match send.mode {
                    SendMode::Synchronous => inv.synchronous_send = true,
                    _ => inv.standard_send = true,
                },
                Op::Sendrecv { .. } => {
                    inv.standard_send = true;
                    inv.receive = true;
                }
                // A polling loop the run's watcher saw spin was modelled as the blocking
                // call it stands for (`polling::block_trailing_polls`); the call's name
                // still says what the program called.
                Op::Probe { .. } | Op::Wait { .. } | Op::RequestStatus { .. }
                    if crate::polling::is_poll_call(event.call) =>
                {
                    inv.polling_loop = true;
                    inv.receive |= matches!(event.op, Op::Probe { .. });
                }
                Op::Recv { .. } | Op::Probe { .. } => inv.receive = true,
                Op::Collective { .. } => inv.collective = true,
                Op::Wait { .. } | Op::RequestStatus { .. } => inv.wait = true,
                _ => {}
            }
            s.cond.for_each_rank(&ctx.program, s.rank, &mut |t, on| {
                if replay.ranks.get(t as usize).is_some_and(|o| o.terminated()) {
                    inv.gone_peer = true;
                }
                match on {
                    WaitOn::Collective { .. } => inv.collective = true,
                    WaitOn::Receive { .. }
                        if matches!(event.op, Op::Wait { .. } | Op::RequestStatus { .. }) =>
                    {
                        inv.standard_send = true
                    }
                    _ => {}
                }
            });
        }
        inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_docs_have_the_fixed_headings() {
        for info in catalogue() {
            for heading in [
                "## What it does",
                "## Why is this bad",
                "## Example",
                "## How to fix",
                "## MPI standard reference",
            ] {
                assert!(
                    info.docs.contains(heading),
                    "{}: missing {heading}",
                    info.code
                );
            }
            assert!(!info.summary.ends_with('.'), "{}", info.code);
        }
        let mut codes: Vec<&str> = catalogue().iter().map(|c| c.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), catalogue().len(), "codes are unique");
    }
}
