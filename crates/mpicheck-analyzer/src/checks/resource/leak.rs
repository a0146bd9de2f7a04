//! MPI objects created and never freed before `MPI_Finalize` (RS001).

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use crate::checks::pass::{EventPass, RunTables};
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::{Blocking, CallTime, Event, ObjectKind, ObjectRef, Op, Rank, SiteId};

pub const RS001: CheckInfo = CheckInfo {
    code: "RS001",
    name: "object-never-freed",
    category: Category::ResourceLeak,
    severity: Severity::Warning,
    summary: "communicators, groups, datatypes, ops, windows, error handlers, keyvals, info objects or persistent requests were created and never freed before MPI_Finalize",
    docs: r#"## What it does

Follows every MPI object a rank creates (`MPI_Comm_dup`/`split`/`create`..., `MPI_Comm_group`
and the group constructors, derived datatypes, `MPI_Op_create`, windows, error handlers,
attribute keys, info objects, files, persistent requests) to the call that frees it
(`MPI_Comm_free`, `MPI_Group_free`, `MPI_Type_free`, ...). Objects still alive when the
rank calls `MPI_Finalize` are reported: one finding per kind of object and creation call
site, with how many were leaked ("3 communicators created here were never freed").
Objects freed by the program's attribute delete functions that `MPI_Finalize` runs (the
attributes of `MPI_COMM_SELF`, the standard's way for a library to clean up at the end) are
freed, not leaked.

Only live objects are tracked, so a long-running program that creates and frees objects
in a loop costs the checker a bounded amount of memory and produces no finding.

## Why is this bad

MPI objects hold memory and often scarce resources (context ids for communicators, of
which an MPI has a few thousand; registered memory for windows). A leak inside a loop
exhausts them and the program fails far from the cause; libraries that leak make every
program that uses them leak.

## Example

```c
for (int i = 0; i < 3; i++) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);   /* 3 communicators, never freed */
    MPI_Barrier(dup);
}
MPI_Finalize();
```

## How to fix

Free every object when it is no longer needed: `MPI_Comm_free`, `MPI_Group_free`,
`MPI_Type_free`, `MPI_Op_free`, `MPI_Win_free`, `MPI_Errhandler_free`,
`MPI_Comm_free_keyval`, `MPI_Info_free`, `MPI_File_close`, `MPI_Request_free` (persistent
requests).

## MPI standard reference

MPI 4.1 §11.2.2 (`MPI_Finalize` does not free objects; the user should free them), §6.4.3
(`MPI_Comm_free`), §6.3.3 (`MPI_Group_free`), §5.1.10 (`MPI_Type_free`), §6.9.5
(`MPI_Op_free`).
"#,
};

/// One rank's live objects: (kind, id) → (creation site, call).
#[derive(Default)]
struct RankObjects {
    live: FxHashMap<ObjectRef, (SiteId, &'static str)>,
    /// The `MPI_Finalize` (thread, time) whose leaks are counted once the calls it ran
    /// (attribute delete functions, which may free objects: MPI 4.1 §11.2.2) are done.
    finalizing: Option<(u16, Option<CallTime>)>,
}

/// The objects each rank still held at `MPI_Finalize`, counted by (kind, creation site).
/// Ranks that never reached `MPI_Finalize` are not judged.
#[derive(Default)]
struct Leaks {
    /// By rank, once it had an event.
    ranks: Vec<Option<RankObjects>>,
    /// (kind, site, call, count per rank) → ranks: one finding per kind and creation site.
    groups: Groups,
}

type Groups = BTreeMap<(ObjectKind, u32, &'static str, usize), BTreeSet<Rank>>;

/// Counts what `rank` still holds into `groups`.
fn report(
    groups: &mut Groups,
    rank: Rank,
    live: &mut FxHashMap<ObjectRef, (SiteId, &'static str)>,
) {
    let mut counts: BTreeMap<(ObjectKind, u32, &'static str), usize> = BTreeMap::new();
    for (object, (site, call)) in live.drain() {
        *counts.entry((object.kind, site.0, call)).or_default() += 1;
    }
    for ((kind, site, call), n) in counts {
        groups
            .entry((kind, site, call, n))
            .or_default()
            .insert(rank);
    }
}

impl EventPass for Leaks {
    fn event(&mut self, rank: Rank, _index: usize, event: &Event, _tables: &RunTables) {
        // (Most events make, free and end nothing, on a rank not finalizing: answered
        // without the rest's register saves.)
        let finalizing = match self.ranks.get(rank as usize) {
            Some(Some(state)) => state.finalizing.is_some(),
            _ => true,
        };
        if !finalizing
            && event.facts().is_none()
            && persistent_request(&event.op).is_none()
            && !matches!(event.op, Op::RequestFree { .. } | Op::Finalize)
        {
            return;
        }
        self.follow(rank, event);
    }

    fn finish(mut self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        for (rank, state) in std::mem::take(&mut self.ranks).into_iter().enumerate() {
            if let Some(mut state) = state.filter(|s| s.finalizing.is_some()) {
                report(&mut self.groups, rank as Rank, &mut state.live);
            }
        }
        let mut groups: Vec<_> = std::mem::take(&mut self.groups).into_iter().collect();
        // By kind, then call site in the run's final order (stable: then call and count).
        groups.sort_by_key(|((kind, site, ..), _)| (*kind, tables.site_order(SiteId(*site))));
        groups
            .into_iter()
            .map(|((kind, site, call, n), ranks)| {
                let ranks: Vec<Rank> = ranks.into_iter().collect();
                let loc = tables.site(SiteId(site));
                let what = if n == 1 {
                    format!("1 {} created by {call}", kind.noun())
                } else {
                    format!("{n} {} created by {call}", kind.plural())
                };
                let place = match (&loc.file, loc.line) {
                    (Some(f), Some(l)) => format!(" at {f}:{l}"),
                    _ => String::new(),
                };
                let verb = if n == 1 { "was" } else { "were" };
                // The count is per rank: each of these ranks leaked `n` objects here.
                let per_rank = if ranks.len() > 1 {
                    crate::text!(" on each of {}", crate::text::ranks(&ranks))
                } else {
                    crate::text::Text::default()
                };
                Diagnostic {
                    code: RS001.code,
                    category: RS001.category,
                    severity: RS001.severity,
                    message: crate::text!("{what}{place} {verb} never freed{}", per_rank),
                    locations: vec![tables.location(
                        SiteId(site),
                        ranks,
                        call,
                        format!("creates the {} that {verb} never freed", if n == 1 { kind.noun().to_string() } else { kind.plural() }),
                    )],
                    notes: vec!["MPI_Finalize does not free MPI objects; each must be freed by its free call (MPI 4.1 §11.2.2)".into()],
                    help: Some(format!("free it when it is no longer needed ({})", free_call(kind)).into()),
                    wait_for: None,
                    communicator: None,
                    tag: None,
                }
            })
            .collect()
    }
}

/// The persistent request `op` makes, if it makes one.
fn persistent_request(op: &Op) -> Option<crate::model::ReqId> {
    match op {
        Op::Send { blocking, .. }
        | Op::Recv { blocking, .. }
        | Op::Sendrecv { blocking, .. }
        | Op::Collective { blocking, .. } => match blocking {
            Blocking::Persistent(r) => Some(*r),
            _ => None,
        },
        _ => None,
    }
}

impl Leaks {
    /// [`EventPass::event`] for an event that may make, free or end something (or the
    /// first of its rank, or one after its `MPI_Finalize`).
    #[inline(never)]
    fn follow(&mut self, rank: Rank, event: &Event) {
        let r = rank as usize;
        if self.ranks.len() <= r {
            self.ranks.resize_with(r + 1, || None);
        }
        let state = self.ranks[r].get_or_insert_with(RankObjects::default);
        if let Some((thread, time)) = state.finalizing {
            if !event.ran_inside_call(thread, time) {
                state.finalizing = None;
                report(&mut self.groups, rank, &mut state.live);
            }
        }
        if let Some(facts) = event.facts() {
            for object in &facts.freed {
                state.live.remove(object);
            }
            for &object in &facts.created {
                state.live.insert(object, (event.site, event.call));
            }
        }
        let persistent = persistent_request(&event.op);
        let request = |r: crate::model::ReqId| ObjectRef {
            kind: ObjectKind::Request,
            id: crate::model::ObjectId(r.0),
        };
        if let Some(r) = persistent {
            state.live.insert(request(r), (event.site, event.call));
        }
        match &event.op {
            Op::RequestFree { request: r } => {
                state.live.remove(&request(*r));
            }
            Op::Finalize => state.finalizing = Some((event.thread, event.time)),
            _ => {}
        }
    }
}

fn free_call(kind: ObjectKind) -> &'static str {
    match kind {
        ObjectKind::Communicator => "MPI_Comm_free",
        ObjectKind::Group => "MPI_Group_free",
        ObjectKind::Datatype => "MPI_Type_free",
        ObjectKind::Op => "MPI_Op_free",
        ObjectKind::Window => "MPI_Win_free",
        ObjectKind::Errhandler => "MPI_Errhandler_free",
        ObjectKind::Keyval => "MPI_Comm_free_keyval, MPI_Type_free_keyval or MPI_Win_free_keyval",
        ObjectKind::Info => "MPI_Info_free",
        ObjectKind::File => "MPI_File_close",
        ObjectKind::Session => "MPI_Session_finalize",
        ObjectKind::Request => "MPI_Request_free",
    }
}

/// RS001.
pub(crate) struct ObjectNeverFreed;

impl Check for ObjectNeverFreed {
    fn infos(&self) -> &'static [CheckInfo] {
        &[RS001]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(Box::<Leaks>::default())
    }
}
