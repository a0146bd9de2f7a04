//! Messages sent and never received before the destination finalized MPI (RQ005).

use std::collections::{BTreeMap, BTreeSet};

use super::super::check::{Check, Needs, Replaying};
use super::super::{site_location, Context};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::engine::{CallShape, RankOutcome};
use crate::model::{Rank, SiteId};
use crate::text;
use crate::text::ranks;

pub const RQ005: CheckInfo = CheckInfo {
    code: "RQ005",
    name: "message-never-received",
    category: Category::RequestLifecycle,
    severity: Severity::Error,
    summary: "a message was sent and its destination called MPI_Finalize without ever receiving it",
    docs: r#"## What it does

Replays the recorded matching of every message and reports the sends whose message no
receive took: the sender got past the send (MPI buffered it, or the immediate send
completed), and the destination rank then called `MPI_Finalize` without a receive (or a
matched probe and receive) that accepts it. A cancelled send is not reported, nor (yet)
a persistent one. One finding per call site, with the senders, the destinations, the tags
and the count.

## Why is this bad

Before `MPI_Finalize` a process must complete its part in every communication, including
receiving the messages other processes sent to it. A message nobody receives stays in
MPI's buffers: MPI may hang in `MPI_Finalize` or in `MPI_Comm_free`, warn, or drop it
silently, and the send only completed because MPI happened to buffer it (without
buffering it would have waited forever). It is usually a receive with the wrong tag,
source or communicator, or one that a branch skipped.

## Example

```c
/* every rank tells every other one that it is done, and nobody listens */
for (int i = 0; i < size; i++)
    if (i != rank) MPI_Send(&done, 1, MPI_INT, i, DONE_TAG, MPI_COMM_WORLD);
MPI_Barrier(MPI_COMM_WORLD);
MPI_Finalize();
```

## How to fix

Post the matching receive (check its source, tag and communicator against the send), or
do not send the message. For notifications nobody reads, a collective (`MPI_Barrier`)
says the same without a message.

## MPI standard reference

MPI 4.1 §11.2.2 (`MPI_Finalize`: a process must execute the matching calls needed to
complete communications initiated by other processes), §3.4 (standard-mode sends may wait
for the matching receive).
"#,
};

/// RQ005, from the recorded replay's messages left unreceived.
pub(crate) struct MessageNeverReceived;

impl Check for MessageNeverReceived {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RQ005]
    }
    fn needs(&self) -> Needs {
        Needs {
            replays: &[Replaying::Recorded],
            reads: &[],
            fills: &[],
        }
    }
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        let recorded = ctx.recorded();
        let program = ctx.program();
        // Per call site: senders, destinations, tags, count.
        type Group = (BTreeSet<Rank>, BTreeSet<Rank>, BTreeSet<i32>, usize);
        let mut by_site: BTreeMap<(u32, &'static str), Group> = BTreeMap::new();
        for lost in &recorded.unreceived {
            // Only a destination that finalized never receives it; another may still.
            if recorded.ranks.get(lost.dest as usize) != Some(&RankOutcome::Finalized) {
                continue;
            }
            let Some(call) = program.call(lost.rank, lost.event) else {
                continue;
            };
            // Persistent sends are left out: the replay's view of their starts is not
            // precise enough yet to call one of their messages lost.
            let plain_send = match call.shape {
                CallShape::Send | CallShape::SyncSend => !call.persistent(),
                CallShape::Sendrecv => true,
                _ => false,
            };
            if !plain_send || !call.returned() || call.cancelled() {
                continue;
            }
            let group = by_site.entry((call.site.0, call.name)).or_default();
            group.0.insert(lost.rank);
            group.1.insert(lost.dest);
            group.2.insert(lost.tag);
            group.3 += 1;
        }
        by_site
            .into_iter()
            .map(|((site, call), (senders, dests, tags, count))| {
                let tags = tags
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                let tag_word = if tags.contains(',') { "tags" } else { "tag" };
                let messages = if count == 1 {
                    "1 message".to_string()
                } else {
                    format!("{count} messages")
                };
                Diagnostic {
                    code: RQ005.code,
                    category: RQ005.category,
                    severity: RQ005.severity,
                    message: text!(
                        "{messages} sent by {call} ({tag_word} {tags}) never received: {} called MPI_Finalize without a matching receive",
                        ranks(dests.iter().copied().collect::<Vec<_>>()),
                    ),
                    locations: vec![site_location(
                        ctx.run,
                        SiteId(site),
                        senders.into_iter().collect::<Vec<Rank>>(),
                        call,
                        text!("sends a message no receive takes ({tag_word} {tags})"),
                    )],
                    notes: vec![RQ005_NOTE.into()],
                    help: Some(RQ005_HELP.into()),
                    wait_for: None,
                    communicator: None,
                    tag: None,
                }
            })
            .collect()
    }
}

const RQ005_NOTE: &str = "before MPI_Finalize a process must receive the messages sent to it; the send completed only because MPI buffered it (MPI 4.1 §11.2.2)";
const RQ005_HELP: &str =
    "post the matching receive (check its source, tag and communicator), or do not send the message";
