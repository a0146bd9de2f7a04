//! Message races on wildcard receives (MR001).

use std::collections::BTreeMap;

use super::check::{Check, Needs, Replaying, Slot};
use super::{call_location, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::Rank;
use crate::ranks::RankSet;
use crate::text;
use crate::text::Text;

pub const MR001: CheckInfo = CheckInfo {
    code: "MR001",
    name: "message-race",
    category: Category::MessageRace,
    severity: Severity::Warning,
    summary: "a wildcard receive can match messages from more than one sender, so the matching depends on timing",
    docs: r#"## What it does

Replays the run holding every `MPI_ANY_SOURCE` receive back until nothing else can
happen, so that every message that could have arrived before it has arrived. When
messages from more than one sender match the receive at that point, which one it gets
depends on timing: a message race. Reported once per receive call site, with the
competing sends. A probe for `MPI_ANY_SOURCE` (blocking, or an `MPI_Iprobe` loop that
ends when it finds a message) races the same way: it is reported at the probe.

## Why is this bad

The program's behaviour (values received, the order of later messages, sometimes whether
it deadlocks) changes from run to run. Bugs that depend on the matching appear rarely
and are hard to reproduce.

## Example

```c
/* rank 0 */ MPI_Bcast(buf1, 4, MPI_INT, 0, comm); MPI_Send(buf2, 4, MPI_INT, 1, 0, comm);
/* rank 1 */ MPI_Recv(buf2, 4, MPI_INT, MPI_ANY_SOURCE, 0, comm, &st);
             MPI_Bcast(buf1, 4, MPI_INT, 0, comm);
             MPI_Recv(buf2, 4, MPI_INT, MPI_ANY_SOURCE, 0, comm, &st);
/* rank 2 */ MPI_Send(buf2, 4, MPI_INT, 1, 0, comm); MPI_Bcast(buf1, 4, MPI_INT, 0, comm);
```

The first receive can take rank 2's message or rank 0's (the broadcast need not
synchronize).

## How to fix

Receive from a specific source, or use distinct tags for messages that must not be
confused; if any order is fine, make the code independent of it (dispatch on
`status.MPI_SOURCE`).

## MPI standard reference

MPI 4.1 §3.5 (order: only messages from the same sender are ordered), §6.14 (the unsafe,
non-deterministic broadcast example).
"#,
};

/// One MR001 per receive call site.
fn check(ctx: &Context, inconclusive: bool) -> Vec<Diagnostic> {
    // (site, call) → (ranks, competing sources, send events by (site, call) → ranks, and
    // the first (rank, event) seen, whose call the location shows)
    type SendGroups = BTreeMap<(u32, &'static str), (Vec<Rank>, (Rank, usize))>;
    type SiteRaces = (Vec<Rank>, Vec<Rank>, SendGroups, (Rank, usize));
    let mut by_site: BTreeMap<(u32, &'static str), SiteRaces> = BTreeMap::new();
    let program = ctx.program();
    for race in &ctx.recorded().races {
        let Some(recv) = program.call(race.rank, race.event) else {
            continue;
        };
        let entry = by_site.entry((recv.site.0, recv.name)).or_insert_with(|| {
            (
                Vec::new(),
                Vec::new(),
                BTreeMap::new(),
                (race.rank, race.event),
            )
        });
        entry.0.push(race.rank);
        for &(source, send_event) in &race.candidates {
            entry.1.push(source);
            if let Some(send) = program.call(source, send_event) {
                let g = entry
                    .2
                    .entry((send.site.0, send.name))
                    .or_insert_with(|| (Vec::new(), (source, send_event)));
                g.0.push(source);
            }
        }
    }
    let mut out = Vec::new();
    for ((_, _), (mut ranks, mut sources, sends, (first_rank, first_event))) in by_site {
        ranks.sort_unstable();
        ranks.dedup();
        sources.sort_unstable();
        sources.dedup();
        let Some(recv) = program.call(first_rank, first_event) else {
            continue;
        };
        // The receive's communicator and tag, for the finding's typed fields.
        let (communicator, tag) = match recv.receive() {
            Some((comm, tag)) => (Some(ctx.run.comm(comm).name.to_string()), tag),
            None => (None, None),
        };
        let mut locations: Vec<_> = call_location(
            ctx,
            ranks.clone(),
            first_rank,
            first_event,
            text!(
                "{} can match messages from {}",
                recv.wildcard_noun(),
                RankSet::from(&sources)
            ),
        )
        .into_iter()
        .collect();
        for ((_, _), (mut senders, (sender, event))) in sends {
            senders.sort_unstable();
            senders.dedup();
            locations.extend(call_location(
                ctx,
                senders,
                sender,
                event,
                text!("sends a message the {} can match", recv.wildcard_noun()),
            ));
        }
        let mut notes = vec![if recv.is_probe() {
            Text::from("a probe with MPI_ANY_SOURCE finds whichever matching message arrives first; only messages from the same sender are ordered (MPI 4.1 §3.5, §3.8)")
        } else {
            Text::from("a receive with MPI_ANY_SOURCE takes whichever matching message arrives first; only messages from the same sender are ordered (MPI 4.1 §3.5)")
        }];
        if inconclusive {
            notes.push(text!(
                "inconclusive: whether another matching deadlocks was explored for only {} alternatives",
                super::deadlock::EXPLORATION_BOUND
            ));
        }
        out.push(Diagnostic {
            code: MR001.code,
            category: MR001.category,
            severity: MR001.severity,
            message: text!(
                "message race: the {} of {} can match messages from {}, depending on timing",
                recv.wildcard_noun(),
                RankSet::from(&ranks),
                RankSet::from(&sources)
            ),
            locations,
            notes,
            help: Some(
                "receive from a specific source or use distinct tags, or make the code independent of the matching order"
                    .into(),
            ),
            wait_for: None,
            communicator,
            tag,
        });
    }
    out
}

/// MR001, saying when DL003's exploration of the races was cut short.
pub(crate) struct MessageRace;

impl Check for MessageRace {
    fn infos(&self) -> &'static [CheckInfo] {
        &[MR001]
    }
    fn needs(&self) -> Needs {
        Needs {
            replays: &[Replaying::Recorded],
            reads: &[Slot::WildcardInconclusive],
            fills: &[],
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        check(ctx, ctx.wildcard_inconclusive())
    }
}
