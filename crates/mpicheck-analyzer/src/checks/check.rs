//! The interface every check implements, and what a check declares it needs.
//!
//! A check is a unit type implementing [`Check`]: the codes it reports with their docs
//! ([`Check::infos`]), what it uses besides the run ([`Check::needs`]: replays, and data
//! that other checks compute) and its run over the shared [`Context`]. The registry in
//! [`super`] lists every check once, in the order they run.

use super::pass::{self, EventPass, RunTables};
use super::Context;
use crate::diagnostic::{CheckInfo, Diagnostic};

/// A check: its codes and docs, what it needs and its run.
pub(crate) trait Check: Sync {
    /// The codes this check reports, each with its docs: one, or several when they come
    /// from one pass over the run (the request walk reports RQ001-RQ004 and BF001).
    fn infos(&self) -> &'static [CheckInfo];
    /// What the check uses besides the run itself.
    fn needs(&self) -> Needs {
        Needs::NOTHING
    }
    /// The check's one pass over the events, if that is all it needs ([`super::pass`]):
    /// the registry's runner then feeds it with the other passes, and [`Check::run`] is
    /// not called.
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        None
    }
    /// The check's findings, all with codes of [`Check::infos`]. A check with a
    /// [`Check::pass`] keeps this default, which runs the pass alone.
    fn run(&self, ctx: &Context) -> Vec<Diagnostic> {
        let Some(pass) = self.pass() else {
            return Vec::new();
        };
        let mut pass = pass;
        pass::feed(ctx.run, &mut [pass.as_mut()]);
        let mut filled = pass::Filled::default();
        let found = pass.finish_filling(&RunTables::of(ctx.run), &mut filled);
        filled.into_context(ctx);
        self.with_pass_findings(ctx, found)
    }
    /// The findings of a check with a [`Check::pass`], once the pass found `found`. A check
    /// whose pass finds only some of its codes adds those it finds on the run (none does
    /// today); the default is the pass's.
    fn with_pass_findings(&self, ctx: &Context, found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let _ = ctx;
        found
    }
}

/// What a check uses besides the run: the replays it reads and the data it takes from or
/// gives to other checks. The registry's order must put every filler of a [`Slot`] before
/// its readers (a test checks it); running a check alone runs the fillers of what it reads
/// first ([`super::run_checks`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Needs {
    pub replays: &'static [Replaying],
    pub reads: &'static [Slot],
    pub fills: &'static [Slot],
}

impl Needs {
    /// Only the run: single calls, object lifecycles, collective sequences.
    pub const NOTHING: Needs = Needs {
        replays: &[],
        reads: &[],
        fills: &[],
    };
    /// Everything: for code that uses a [`Context`] outside the registry (unit tests).
    pub(crate) const EVERYTHING: Needs = Needs {
        replays: &[
            Replaying::Recorded,
            Replaying::Strict,
            Replaying::WildcardExploration,
        ],
        reads: &[
            Slot::MismatchedComms,
            Slot::ActualDeadlock,
            Slot::WildcardInconclusive,
        ],
        fills: &[
            Slot::MismatchedComms,
            Slot::ActualDeadlock,
            Slot::WildcardInconclusive,
        ],
    };

    pub fn replays(&self, r: Replaying) -> bool {
        self.replays.contains(&r)
    }
    pub fn reads(&self, s: Slot) -> bool {
        self.reads.contains(&s)
    }
    pub fn fills(&self, s: Slot) -> bool {
        self.fills.contains(&s)
    }
}

/// A replay of the run ([`crate::engine`]) a check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replaying {
    /// What happened: a blocked call stays blocked ([`Context::recorded`]).
    Recorded,
    /// Sends and collectives synchronize ([`Context::strict`]).
    Strict,
    /// Strict replays with another matching of a wildcard receive forced (DL003).
    WildcardExploration,
}

/// Data one check computes for later ones, held by the [`Context`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Communicators with mismatched collectives (CO001, CO002): a deadlock on them is
    /// their consequence, not a second finding (DL002).
    MismatchedComms,
    /// Whether the run deadlocked (DL001): then DL002 and DL003 have nothing to add.
    ActualDeadlock,
    /// Whether the wildcard exploration (DL003) stopped at its bound: MR001 says so.
    WildcardInconclusive,
}
