//! RMA accesses beyond the target's window memory (RM006).

use std::collections::hash_map::{Entry, HashMap};
use std::collections::BTreeMap;

use super::fold_by_site;
use super::{describe_access, site_text_at, Call, CrossRank, Item};
use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text::Text;

pub const RM006: CheckInfo = CheckInfo {
    code: "RM006",
    name: "rma-beyond-window",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an RMA call's target displacement and count reach beyond the memory the target exposes in the window (or the displacement is negative), or, on a dynamic window, outside the memory the target has attached",
    docs: r#"## What it does

Computes the target bytes of each `MPI_Put`, `MPI_Get` and accumulate call: from
`target_disp` × the target's `disp_unit` to that plus `target_count` × the size of
`target_datatype`, and compares them with the `size` the target passed to
`MPI_Win_create`, `MPI_Win_allocate` or `MPI_Win_allocate_shared`. For a derived target
datatype (a vector, a resized type, ...) the bytes run from its true lower bound to the
true upper bound of the last element, `(target_count - 1)` × its extent further
(`MPI_Type_get_true_extent`): the last byte actually touched, not count × size.

On a window made by `MPI_Win_create_dynamic`, `target_disp` is an address at the target
(from `MPI_Get_address` there): the target bytes must lie in one piece of memory the
target attached with `MPI_Win_attach`. Reported: bytes in no memory the target ever
attached (or running past the end of an attached piece), and bytes in memory the target
had detached (`MPI_Win_detach`) before the call, as messages and collectives show.

## Why is this bad

An access outside the target's window is erroneous. MPI may raise an error, or it writes
into (or reads from) whatever memory follows the window on the target: a silent
corruption on another process, found far from its cause.

## Example

```c
int buf[10];
MPI_Win_create(buf, 10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
MPI_Win_fence(0, win);
MPI_Put(src, 4, MPI_INT, 1, 8, 4, MPI_INT, win);   /* elements 8..11 of a 10-element window */
MPI_Win_fence(0, win);
```

## How to fix

Keep `target_disp + target_count` within the target's window (in units of its
`disp_unit`), or create the window large enough. Remember that the displacement is
scaled by the *target's* `disp_unit`.

## MPI standard reference

MPI 4.1 §12.2.1 (window size and displacement unit), §12.2.4 (dynamic windows: attached
memory, addresses as displacements), §12.3 (the target buffer starts at
`window_base + target_disp × disp_unit` and must fit in the target window).
"#,
};

/// What is wrong with the target bytes of `access`, on a window that is not dynamic
/// (named `window_name`), given the memory its target exposes: (message, label), `None`
/// when they lie in it or are not known.
fn beyond(
    call: &str,
    access: &RmaAccess,
    window: &WindowInfo,
    window_name: &str,
    memory: &WinMemory,
) -> Option<(Text, Text)> {
    let what = describe_access(call, access, window_name);
    if access.disp < 0 {
        return Some((
            crate::text!(
                "{} has a negative target displacement ({})",
                &what,
                access.disp
            ),
            format!("target_disp = {} is negative", access.disp).into(),
        ));
    }
    let (start, end) = access.reached_range(window)?;
    (start < 0 || end > memory.size as i64).then(|| {
        (
            crate::text!(
                "{} reaches bytes {start}..{end} of the target's window, which has {} bytes",
                &what,
                memory.size
            ),
            if start < 0 {
                format!(
                    "target_disp = {} × disp_unit {} and the datatype's true lower bound start at byte {start}, before the window",
                    access.disp, memory.disp_unit
                )
            } else {
                format!(
                    "target_disp = {} × disp_unit {} and {} element(s) end at byte {end}, past {}",
                    access.disp, memory.disp_unit, access.count, memory.size
                )
            }
            .into(),
        )
    })
}

/// An access to a window that is not dynamic whose target had not made the window yet
/// when the access came (its memory unknown): judged when the target's constructor comes.
struct Waiting {
    origin: Rank,
    index: usize,
    site: SiteId,
    call: &'static str,
    win: WinId,
    access: RmaAccess,
}

/// The first out-of-window access of a call site and rank: its event, message and label,
/// and how many more the same call made.
struct First {
    index: usize,
    message: Text,
    label: Text,
    more: usize,
}

/// RM006 on windows that are not dynamic, fed each rank's calls on windows in order (the
/// ranks interleaved): the first out-of-window access of each call site and rank, and the
/// accesses whose target's memory is not known yet.
#[derive(Default)]
pub(super) struct Bounds {
    first: HashMap<(Rank, SiteId, &'static str), First>,
    waiting: Vec<Waiting>,
}

impl Bounds {
    /// How many accesses wait for their target's memory (for tests).
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Call `index` of `rank`, on `window` (named `window_name` in messages).
    pub fn call(
        &mut self,
        rank: Rank,
        index: usize,
        call: &RmaCall,
        window: &WindowInfo,
        window_name: &str,
    ) {
        match &call.kind {
            RmaKind::Create => {
                // The constructor gave this rank's memory: judge the accesses to it.
                let (now, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
                    .into_iter()
                    .partition(|w| {
                        w.win == call.win
                            && matches!(w.access.target, RmaTarget::Rank(t) if t == rank)
                    });
                self.waiting = waiting;
                for w in now {
                    let at = (w.origin, w.index, w.site, w.call);
                    self.judge(at, call.win, &w.access, window, window_name);
                }
            }
            RmaKind::Access(access) if window.flavor != WinFlavor::Dynamic => {
                let at = (rank, index, call.event.site, call.event.call);
                self.judge(at, call.win, access, window, window_name);
            }
            _ => {}
        }
    }

    /// The access of call `index` of `origin` (made at `site` by `call`) on window `win`.
    fn judge(
        &mut self,
        (origin, index, site, call): (Rank, usize, SiteId, &'static str),
        win: WinId,
        access: &RmaAccess,
        window: &WindowInfo,
        window_name: &str,
    ) {
        let RmaTarget::Rank(target) = access.target else {
            return;
        };
        let Some(memory) = window.memory.get(&target) else {
            self.waiting.push(Waiting {
                origin,
                index,
                site,
                call,
                win,
                access: access.clone(),
            });
            return;
        };
        let Some((message, label)) = beyond(call, access, window, window_name, memory) else {
            return;
        };
        match self.first.entry((origin, site, call)) {
            Entry::Vacant(slot) => {
                slot.insert(First {
                    index,
                    message,
                    label,
                    more: 0,
                });
            }
            Entry::Occupied(mut slot) => {
                let first = slot.get_mut();
                first.more += 1;
                // An access judged late (its target's memory came after) may be earlier.
                if index < first.index {
                    (first.index, first.message, first.label) = (index, message, label);
                }
            }
        }
    }

    /// The findings, one per call site and rank, with how many more calls it made; their
    /// texts as `name` gives them.
    pub fn diagnostics(self, tables: &RunTables, name: impl Fn(Text) -> Text) -> Vec<Diagnostic> {
        let mut found = SiteFindings::default();
        for ((rank, site, call), first) in self.first {
            let message = match first.more {
                0 => first.message,
                n => crate::text!(
                    "{} (and {} more such calls from here)",
                    &first.message,
                    n.to_string()
                ),
            };
            found.add_at(rank, site, call, name(message), name(first.label));
        }
        found.diagnostics(
            tables,
            &RM006,
            &["the target buffer starts at target_disp × the target's disp_unit in its window and must lie within the window's size (MPI 4.1 §12.3)"],
            "keep target_disp + target_count within the target's window, in units of the target's disp_unit, or make the window larger",
        )
    }
}

/// RM006 on dynamic windows, judged once every call came (a detach of the target may come
/// after the access in the stream and still be ordered before it).
pub(super) fn check_dynamic(run: &Run, calls: &[Call], cross: &CrossRank) -> Vec<Diagnostic> {
    // Accesses to dynamic windows: (origin, event, window, target).
    let mut dynamic: Vec<(Rank, usize, WinId, Rank)> = Vec::new();
    for &(rank, index, call) in calls {
        let (Some(window), RmaKind::Access(access)) =
            (run.windows.get(call.win.0 as usize), &call.kind)
        else {
            continue;
        };
        let RmaTarget::Rank(target) = access.target else {
            continue;
        };
        if window.flavor == WinFlavor::Dynamic {
            dynamic.push((rank, index, call.win, target));
        }
    }
    dynamic_accesses(run, calls, &dynamic, cross)
}

/// One piece of memory a rank attached to a dynamic window.
struct Attached {
    base: u64,
    size: u64,
    /// The `MPI_Win_detach` of it, if any.
    detach: Option<usize>,
}

/// Accesses to dynamic windows whose target bytes are not in memory attached at the
/// target: never attached there, or detached before the call.
fn dynamic_accesses(
    run: &Run,
    calls: &[Call],
    accesses: &[(Rank, usize, WinId, Rank)],
    cross: &CrossRank,
) -> Vec<Diagnostic> {
    if accesses.is_empty() {
        return Vec::new();
    }
    // (window, rank) → what it attached, in call order.
    let mut attached: BTreeMap<(WinId, Rank), Vec<Attached>> = BTreeMap::new();
    {
        for &(rank, index, call) in calls {
            let pieces = attached.entry((call.win, rank)).or_default();
            match call.kind {
                RmaKind::Attach { base, size } => pieces.push(Attached {
                    base,
                    size,
                    detach: None,
                }),
                RmaKind::Detach { base } => {
                    if let Some(p) = pieces
                        .iter_mut()
                        .find(|p| p.base == base && p.detach.is_none())
                    {
                        p.detach = Some(index);
                    }
                }
                _ => {}
            }
        }
    }
    let mut items: Vec<Item> = Vec::new();
    // Accesses whose bytes lie only in detached memory: (item, detach calls to order).
    let mut after_detach: Vec<(Item, Vec<(Rank, usize)>)> = Vec::new();
    for &(origin, index, win, target) in accesses {
        let Some(call) = run.rma.get(&(origin, index as u32)) else {
            continue;
        };
        let event = &call.event;
        let (Some(window), RmaKind::Access(access)) = (run.windows.get(win.0 as usize), &call.kind)
        else {
            continue;
        };
        let Some((start, end)) = access.reached_range(window) else {
            continue;
        };
        if end <= start {
            continue;
        }
        let what = describe_access(event.call, access, &window.name);
        let pieces = attached.get(&(win, target)).map_or(&[][..], Vec::as_slice);
        let holding: Vec<&Attached> = pieces
            .iter()
            .filter(|p| {
                start >= 0
                    && p.base <= start as u64
                    && (end as u64) <= p.base.saturating_add(p.size)
            })
            .collect();
        if holding.is_empty() {
            let partly = pieces
                .iter()
                .find(|p| start < p.base.saturating_add(p.size) as i64 && p.base < end as u64);
            let (message, label) = match partly {
                Some(p) => (
                    crate::text!(
                        "{} reaches addresses {start:#x}..{end:#x} at the target, past the {} bytes it attached at {}",
                        &what,
                        p.size,
                        format!("{:#x}", p.base)
                    ),
                    "the target bytes run past the end of the attached memory",
                ),
                None => (
                    crate::text!(
                        "{} reaches addresses {start:#x}..{end:#x} at the target, where it attached no memory",
                        &what
                    ),
                    "target_disp is an address at the target, in no memory attached there",
                ),
            };
            items.push((origin, index, message, label.into()));
            continue;
        }
        if holding.iter().all(|p| p.detach.is_some()) {
            let detaches = holding
                .iter()
                .filter_map(|p| p.detach.map(|d| (target, d)))
                .collect();
            let d = holding[0].detach.unwrap_or_default();
            let detach = run
                .rma
                .get(&(target, d as u32))
                .map_or(SiteId(0), |c| c.event.site);
            after_detach.push((
                (
                    origin,
                    index,
                    crate::text!(
                        "{} reaches addresses {start:#x}..{end:#x} at the target, in memory it detached before ({})",
                        &what,
                        site_text_at(run, detach)
                    ),
                    "the target detached this memory (MPI_Win_detach) before the call".into(),
                ),
                detaches,
            ));
        }
    }
    // Detached before the call: only where messages or collectives order the detach first.
    let queries: Vec<_> = after_detach
        .iter()
        .flat_map(|((origin, index, ..), detaches)| {
            detaches.iter().map(move |&d| (d, (*origin, *index)))
        })
        .collect();
    let ordered = cross.happens_before(run, &queries);
    let mut at = 0;
    for (item, detaches) in after_detach {
        let all = ordered[at..at + detaches.len()].iter().all(|&o| o);
        at += detaches.len();
        if all {
            items.push(item);
        }
    }
    fold_by_site(
        run,
        first_per_site(run, items),
        &RM006,
        &["on a window made by MPI_Win_create_dynamic, target_disp is an address at the target, and the target bytes must lie in memory the target has attached with MPI_Win_attach and not yet detached (MPI 4.1 §12.2.4)"],
        "attach the memory at the target (MPI_Win_attach) before the access and detach it only after every access to it has completed, and send the address from MPI_Get_address on the target",
    )
}

/// The first out-of-window access of each call site and rank, saying how many more the
/// same call made: a loop of gets past a window is one finding, not one per iteration.
fn first_per_site(run: &Run, items: Vec<Item>) -> Vec<Item> {
    use std::collections::hash_map::{Entry, HashMap};
    let mut first: Vec<(Item, usize)> = Vec::new();
    let mut index_of: HashMap<(Rank, u32, &str), usize> = HashMap::new();
    for item in items {
        let Some(call) = run.rma.get(&(item.0, item.1 as u32)) else {
            continue;
        };
        match index_of.entry((item.0, call.event.site.0, call.event.call)) {
            Entry::Occupied(at) => first[*at.get()].1 += 1,
            Entry::Vacant(slot) => {
                slot.insert(first.len());
                first.push((item, 0));
            }
        }
    }
    first
        .into_iter()
        .map(|((rank, index, message, label), more)| match more {
            0 => (rank, index, message, label),
            n => (
                rank,
                index,
                crate::text!(
                    "{} (and {} more such calls from here)",
                    &message,
                    n.to_string()
                ),
                label,
            ),
        })
        .collect()
}
