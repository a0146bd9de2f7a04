//! Message and location helpers shared by the checks: what a stuck rank waits for, the
//! locations of blocked calls folded by call site and role, and what kinds of calls a
//! deadlock involves (for its notes and help).

use super::Context;
use crate::diagnostic::Location;
use crate::engine::{self, CallShape, Replay, WaitCond, WaitOn};
use crate::model::{Rank, Run, SiteId};
use crate::ranks::RankSet;
use crate::text;
use crate::text::{ranks, Text};
use crate::waitfor::collective_call_name;

fn tag_text(tag: Option<i32>) -> String {
    match tag {
        Some(t) => format!("tag {t}"),
        None => "any tag".into(),
    }
}

/// What a stuck rank waits for. `precise`: name the peers; otherwise a description that is
/// the same for every rank in the same role (for folding).
pub(crate) fn describe_wait(cond: &WaitCond, replay: &Replay, precise: bool) -> Text {
    let gone = |r: Rank| match replay.ranks.get(r as usize) {
        Some(engine::RankOutcome::Finalized) => ", which has already called MPI_Finalize",
        Some(engine::RankOutcome::Exited) => ", which has exited",
        _ => "",
    };
    match cond {
        WaitCond::Rank { rank, on } => match on {
            WaitOn::Message { tag, .. } if precise => text!(
                "waits for a message from {} ({}){}",
                ranks(*rank),
                tag_text(*tag),
                gone(*rank)
            ),
            WaitOn::Message { tag, .. } => text!("waits for a message ({})", tag_text(*tag)),
            WaitOn::Receive { tag, .. } if precise => text!(
                "waits for {} to post the matching receive (tag {tag}){}",
                ranks(*rank),
                gone(*rank)
            ),
            WaitOn::Receive { tag, .. } => {
                text!("waits for the matching receive to be posted (tag {tag})")
            }
            WaitOn::Collective { kind, .. } if precise => text!(
                "waits for {} to call {}{}",
                ranks(*rank),
                collective_call_name(*kind),
                gone(*rank)
            ),
            WaitOn::Collective { kind, .. } => {
                text!(
                    "waits for the other ranks to call {}",
                    collective_call_name(*kind)
                )
            }
            WaitOn::Epoch { win, call } if precise => text!(
                "waits for {} to call {call} on window {}{}",
                ranks(*rank),
                win.0.to_string(),
                gone(*rank)
            ),
            WaitOn::Epoch { win, call } => {
                text!(
                    "waits for its partner to call {call} on window {}",
                    win.0.to_string()
                )
            }
        },
        WaitCond::Ranks { ranks, on } => {
            let what = match on {
                WaitOn::Collective { kind, .. } => collective_call_name(*kind).to_string(),
                WaitOn::Epoch { win, call } => format!("{call} on window {}", win.0),
                _ => "the matching call".into(),
            };
            if precise && !ranks.is_empty() {
                let gone_all = ranks
                    .iter()
                    .all(|&r| replay.ranks.get(r as usize).is_some_and(|o| o.terminated()));
                text!(
                    "waits for {} to call {what}{}",
                    RankSet::new(ranks.iter().copied()),
                    if gone_all {
                        ", which have already finished"
                    } else {
                        ""
                    }
                )
            } else {
                text!("waits for the other ranks to call {what}")
            }
        }
        WaitCond::AnySource { on, .. } => match on {
            WaitOn::Message { tag, .. } => {
                text!("waits for a message from any rank ({})", tag_text(*tag))
            }
            _ => Text::from("waits for any rank"),
        },
        WaitCond::AllOf(parts) => Text::join(
            parts.iter().map(|p| describe_wait(p, replay, precise)),
            ", and ",
        ),
        WaitCond::AnyOf(parts) => Text::join(
            parts.iter().map(|p| describe_wait(p, replay, precise)),
            ", or ",
        ),
    }
}

/// One location per call site and role: the blocked calls of the given stuck ranks
/// (indices into `replay.stuck`), in the given order.
pub(crate) fn stuck_locations(ctx: &Context, replay: &Replay, stuck: &[usize]) -> Vec<Location> {
    // (site, call, generic label) → (ranks, precise label of the first)
    type Key = (u32, &'static str, Text);
    let mut groups: Vec<(Key, Vec<Rank>, Text)> = Vec::new();
    let mut index: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    let program = ctx.program();
    for &i in stuck {
        let s = &replay.stuck[i];
        let Some(call) = program.call(s.rank, s.event) else {
            continue;
        };
        let key = (
            call.site.0,
            call.name,
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
            let label = if ranks.len() == 1 { precise } else { generic };
            site_location(ctx.run, SiteId(site), ranks, call, label)
        })
        .collect()
}

/// A location for the call that event `event` of `rank` was, made by `ranks` (the call
/// as the compiled program keeps it: no event needed), or `None` if it is not known.
pub(crate) fn call_location(
    ctx: &Context,
    ranks: impl Into<RankSet>,
    rank: Rank,
    event: usize,
    label: impl Into<Text>,
) -> Option<Location> {
    let call = ctx.program().call(rank, event)?;
    Some(site_location(ctx.run, call.site, ranks, call.name, label))
}

/// A location at a call site of one or more ranks: where the call `call` was made.
pub(crate) fn site_location(
    run: &Run,
    site: SiteId,
    ranks: impl Into<RankSet>,
    call: &str,
    label: impl Into<Text>,
) -> Location {
    super::pass::RunTables::of(run).location(site, ranks, call, label)
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
    /// A rank waits for a partner's call of an active-target epoch (post, start, complete,
    /// wait on a window).
    pub epoch: bool,
    /// A rank waits for a lock another origin holds (`MPI_Win_unlock` it never calls).
    pub lock: bool,
}

impl Involved {
    pub fn of(ctx: &Context, replay: &Replay, stuck: &[usize]) -> Involved {
        let mut inv = Involved::default();
        let program = ctx.program();
        for &i in stuck {
            let s = &replay.stuck[i];
            let Some(call) = program.call(s.rank, s.event) else {
                continue;
            };
            match call.shape {
                CallShape::SyncSend => inv.synchronous_send = true,
                CallShape::Send => inv.standard_send = true,
                CallShape::Sendrecv => {
                    inv.standard_send = true;
                    inv.receive = true;
                }
                // A polling loop the run's watcher saw spin was modelled as the blocking
                // call it stands for (`polling::block_trailing_polls`); the call's name
                // still says what the program called.
                CallShape::Probe | CallShape::Wait if crate::polling::is_poll_call(call.name) => {
                    inv.polling_loop = true;
                    inv.receive |= call.shape == CallShape::Probe;
                }
                CallShape::Recv | CallShape::Probe => inv.receive = true,
                CallShape::Collective => inv.collective = true,
                CallShape::Wait => inv.wait = true,
                CallShape::Other => {}
            }
            s.cond.for_each_rank(program, s.rank, &mut |t, on| {
                if replay.ranks.get(t as usize).is_some_and(|o| o.terminated()) {
                    inv.gone_peer = true;
                }
                match on {
                    WaitOn::Collective { .. } => inv.collective = true,
                    WaitOn::Epoch {
                        call: "MPI_Win_unlock",
                        ..
                    } => inv.lock = true,
                    WaitOn::Epoch { .. } => inv.epoch = true,
                    WaitOn::Receive { .. } if call.shape == CallShape::Wait => {
                        inv.standard_send = true
                    }
                    _ => {}
                }
            });
        }
        inv
    }
}
