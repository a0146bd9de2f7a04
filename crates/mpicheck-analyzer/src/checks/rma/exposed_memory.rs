//! The target's own MPI calls on window memory that other origins access in the same epoch
//! (DR004).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::conflict::{access, scoped, Scope};
use super::pscw::Pscw;
use super::{site_text_at, Call, CrossRank, EpochAccess, Walk};
use crate::checks::site_location;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text;
use crate::text::ranks;

pub const DR004: CheckInfo = CheckInfo {
    code: "DR004",
    name: "rma-exposed-memory-call",
    category: Category::DataRace,
    severity: Severity::Error,
    summary: "a target's own MPI call (a send, receive or collective) reads window memory that another origin's put or accumulate writes in the same fence or exposure epoch, or writes memory another origin reads or writes in it",
    docs: r#"## What it does

For every fence epoch and every exposure epoch (`MPI_Win_post` .. `MPI_Win_wait`) of a
target, takes the target's own MPI calls made during the epoch whose buffers lie in the
memory it exposes in the window (the `base` of `MPI_Win_create`), and reports a call
whose buffer overlaps the target bytes another origin accesses in that epoch: any buffer
(a send's, a collective's send buffer) over bytes a `MPI_Put` or accumulate writes, and a
buffer MPI writes (a receive's) over bytes a `MPI_Get` reads. Both calls are named, with
the bytes. A call that messages or collectives order before the access (the target
tells the origin, after its call, that the memory is ready) is not reported. Not judged:
windows MPI allocated (`MPI_Win_allocate`,
`MPI_Win_allocate_shared`: the trace does not keep the address), dynamic windows, lock
epochs (no epoch of the target delimits them), and buffers whose layout is not contiguous.

## Why is this bad

During an epoch, origins may access the exposed memory at any moment until the epoch
ends. A send of that memory by the target can carry old bytes, new bytes or a mix; a
receive into it races with the put writing the same bytes, or changes what a get reads.
The target's MPI call is an access of its window memory like a load or store, and such
concurrent conflicting accesses are erroneous.

## Example

```c
MPI_Win_fence(0, win);                       /* win exposes buf[] on every rank */
if (rank == 1)
    MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
if (rank == 0)
    MPI_Send(buf, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);   /* buf[0] may be changing */
MPI_Win_fence(0, win);
```

## How to fix

Move the target's call after the epoch ends (after the closing `MPI_Win_fence`, or
`MPI_Win_wait`), before it begins, or let it use memory outside the bytes the origins
access (a copy made before the epoch).

## MPI standard reference

MPI 4.1 §12.7 (a location updated by a put or accumulate must not be accessed by the
target until the update completes; the public and private window copies), §12.5.1
(fence), §12.5.2 (post, start, complete, wait).
"#,
};

/// Accesses of the epoch compared with each buffer of the target's calls: bounds the work
/// on epochs where thousands of calls hit the same bytes.
const COMPARED: usize = 64;

/// Candidates kept per pair of call sites, for the happens-before query.
const PER_SITES: usize = 16;

/// Where one target's epochs on one window begin and end, in its event indices.
#[derive(Default)]
struct TargetEpochs {
    /// Its fences on the window, in order: fence epoch `n` runs from `fences[n - 1]` to
    /// `fences[n]`.
    fences: Vec<usize>,
    /// Each `MPI_Win_post` → the `MPI_Win_wait` or successful `MPI_Win_test` ending it.
    posts: HashMap<usize, usize>,
}

fn target_epochs(calls: &[Call]) -> HashMap<(WinId, Rank), TargetEpochs> {
    let mut out: HashMap<(WinId, Rank), TargetEpochs> = HashMap::new();
    for rank_calls in calls.chunk_by(|a, b| a.0 == b.0) {
        let mut open_post: HashMap<WinId, usize> = HashMap::new();
        for &(rank, index, call) in rank_calls {
            let epochs = out.entry((call.win, rank)).or_default();
            match call.kind {
                RmaKind::Create => *epochs = TargetEpochs::default(),
                RmaKind::Fence { .. } => epochs.fences.push(index),
                RmaKind::Post { .. } => {
                    open_post.insert(call.win, index);
                }
                RmaKind::Wait | RmaKind::Test { done: true } => {
                    if let Some(post) = open_post.remove(&call.win) {
                        epochs.posts.insert(post, index);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// One finding: the target's call and the origin's access, the bytes both touch.
struct Clash {
    win: WinId,
    target: Rank,
    call: usize,
    span: BufferSpan,
    access: EpochAccess,
    fence: bool,
}

/// Candidate clashes, at most [`PER_SITES`] per (window, target's call site, access
/// site), and how many (buffer, access) pairs were compared: at most [`COMPARED`] per
/// buffer of a target's call in one of its epochs.
fn clashes(
    run: &Run,
    calls: &[Call],
    walk: &Walk,
    pscw: &BTreeMap<WinId, Pscw>,
    cross: &CrossRank,
) -> (Vec<Clash>, usize) {
    let epochs = target_epochs(calls);
    let mut compared = 0usize;
    let mut out: Vec<Clash> = Vec::new();
    let mut per_sites: HashMap<(WinId, u32, u32), usize> = HashMap::new();
    for ((win, scope, target), mut group) in scoped(walk, pscw) {
        let Some(base) = run
            .windows
            .get(win.0 as usize)
            .and_then(|w| w.memory.get(&target))
            .and_then(|m| m.base)
        else {
            continue;
        };
        if target as usize >= run.ranks.len() {
            continue;
        }
        let events = cross.events(target);
        let Some(mine) = epochs.get(&(win, target)) else {
            continue;
        };
        let (first, end) = match scope {
            Scope::Fence(n) => {
                let Some(&begin) = mine.fences.get((n as usize).wrapping_sub(1)) else {
                    continue;
                };
                let end = mine.fences.get(n as usize).copied();
                (begin, end.unwrap_or(events))
            }
            Scope::Exposure(post) => (post, mine.posts.get(&post).copied().unwrap_or(events)),
            Scope::Access(..) | Scope::Lock(..) => continue,
        };
        // The target's own accesses to itself are its own business (DR001 for its calls).
        group.retain(|a| a.origin != target);
        group.sort_by_key(|a| (a.start, a.origin, a.event));
        for (index, event) in cross.exposing_calls(target, first + 1, end.min(events)) {
            for span in &event.buffers {
                // The span relative to the window memory, where it lies in it.
                let (Some(rel_start), rel_end) = (
                    span.start.checked_sub(base),
                    span.start.saturating_add(span.len).saturating_sub(base),
                ) else {
                    continue;
                };
                let upto = group.partition_point(|a| a.start < rel_end);
                for a in group[..upto].iter().rev().take(COMPARED) {
                    compared += 1;
                    let Some((ea, aa)) = access(run, a) else {
                        continue;
                    };
                    if a.end <= rel_start || !(aa.writes_target() || span.write) {
                        continue;
                    }
                    let kept = per_sites.entry((win, event.site.0, ea.site.0)).or_default();
                    if *kept < PER_SITES {
                        *kept += 1;
                        out.push(Clash {
                            win,
                            target,
                            call: index,
                            span: span.clone(),
                            access: a.clone(),
                            fence: matches!(scope, Scope::Fence(_)),
                        });
                    }
                    break;
                }
            }
        }
    }
    (out, compared)
}

pub(super) fn check(
    run: &Run,
    calls: &[Call],
    walk: &Walk,
    pscw: &BTreeMap<WinId, Pscw>,
    cross: &CrossRank,
) -> Vec<Diagnostic> {
    let candidates = clashes(run, calls, walk, pscw, cross).0;
    if candidates.is_empty() {
        return Vec::new();
    }
    // A message or collective from the target after its call to the origin before its
    // access orders the two (the other way round, only the epoch's end completes the
    // access at the target).
    let queries: Vec<_> = candidates
        .iter()
        .map(|c| ((c.target, c.call), (c.access.origin, c.access.event)))
        .collect();
    let ordered = cross.happens_before(run, &queries);
    let mut reported: BTreeSet<(WinId, u32, u32)> = BTreeSet::new();
    let mut out = Vec::new();
    for (c, ordered) in candidates.iter().zip(ordered) {
        if ordered {
            continue;
        }
        let (Some(mine), Some((theirs, _))) = (
            cross.exposing_call(c.target, c.call),
            access(run, &c.access),
        ) else {
            continue;
        };
        if reported.insert((c.win, mine.site.0, theirs.site.0)) {
            out.extend(diagnostic(run, c, cross));
        }
    }
    out
}

fn diagnostic(run: &Run, c: &Clash, cross: &CrossRank) -> Option<Diagnostic> {
    let window = run.windows.get(c.win.0 as usize)?;
    let base = window.memory.get(&c.target)?.base?;
    let mine = cross.exposing_call(c.target, c.call)?;
    let (theirs, access) = access(run, &c.access)?;
    let span_start = c.span.start - base;
    let span_end = span_start + c.span.len;
    let (start, end) = (span_start.max(c.access.start), span_end.min(c.access.end));
    let (my_verb, their_verb) = (
        if c.span.write { "writes" } else { "reads" },
        if access.writes_target() {
            "writes"
        } else {
            "reads"
        },
    );
    let epoch = if c.fence {
        "in the same fence epoch"
    } else {
        "in the same exposure epoch"
    };
    let message = text!(
        "{} on {} ({}) {my_verb} bytes {start}..{end} of its memory in {} while {} from {} ({}) {their_verb} them {epoch}",
        mine.call,
        ranks(c.target),
        site_text_at(run, mine.site),
        window.name.as_str(),
        theirs.call,
        ranks(c.access.origin),
        site_text_at(run, theirs.site),
    );
    Some(Diagnostic {
        code: DR004.code,
        category: DR004.category,
        severity: DR004.severity,
        message,
        locations: vec![
            site_location(
                run,
                mine.site,
                vec![c.target],
                mine.call,
                text!(
                    "{my_verb} bytes {span_start}..{span_end} of this rank's memory in the window ({})",
                    c.span.param.name()
                ),
            ),
            site_location(
                run,
                theirs.site,
                vec![c.access.origin],
                theirs.call,
                text!(
                    "{their_verb} bytes {}..{} of {}",
                    c.access.start,
                    c.access.end,
                    ranks(c.target)
                ),
            ),
        ],
        notes: vec![
            "origins may access the memory a target exposes at any moment of the epoch: the target must not read bytes a put or accumulate updates, nor write bytes any access touches, until the epoch ends, and an MPI call that sends or receives them is such an access (MPI 4.1 §12.7)".into(),
        ],
        help: Some(
            "make the call after the epoch ends (after the closing MPI_Win_fence or MPI_Win_wait) or before it begins, or send a copy of the memory made before the epoch".into(),
        ),
        wait_for: None,
        communicator: None,
        tag: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::rma::{pscw, walk};
    use crate::text_trace::parse;

    #[test]
    fn thousands_of_epochs_are_compared_in_linear_work() {
        let epochs = 3000;
        let mut text = String::from(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4 base=4096 @ w.c:1\n",
        );
        for _ in 0..epochs {
            text.push_str(
                "*: win_fence win=0 @ w.c:2
                 1: put win=0 target=0 disp=0 count=1 type=int @ w.c:3
                 0: send dest=2 tag=0 count=1 type=int mem=buf:4096+4:r @ w.c:4
                 2: recv src=0 tag=0 count=1 type=int @ w.c:5\n",
            );
        }
        text.push_str("*: win_fence win=0 @ w.c:6\n*: win_free win=0 @ w.c:7\n*: finalize\n");
        let run = parse(&text).unwrap();
        let calls = crate::checks::rma::calls_in_order(&run);
        let cross = CrossRank::of_run(&run);
        let (walk, pscw) = (walk(&run), pscw::pair(&calls));
        let (candidates, compared) = clashes(&run, &calls, &walk, &pscw, &cross);
        // Each epoch's send is compared with its own epoch's put only, and one pair of
        // call sites asks the happens-before query about PER_SITES pairs at most.
        assert_eq!(compared, epochs);
        assert_eq!(candidates.len(), PER_SITES);
        assert_eq!(check(&run, &calls, &walk, &pscw, &cross).len(), 1);
    }
}
