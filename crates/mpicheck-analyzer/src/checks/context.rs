//! What the checks share: the run, its compiled program and replays (each computed once, on
//! first use) and the [`Slot`]s one check fills for later ones.
//!
//! Every accessor notes a use that the running check did not declare in its [`Needs`]
//! (`undeclared`), so that a test can keep the registry's declarations true.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::BTreeSet;

use super::check::{Needs, Replaying, Slot};
use crate::engine::{self, Alternative, ForcedMatch, Mode, Program, Replay, ReplayOptions};
use crate::model::{CommId, Run};

pub(crate) struct Context<'r> {
    pub run: &'r Run,
    program: OnceCell<Program>,
    recorded: OnceCell<Replay>,
    strict: OnceCell<Replay>,
    mismatched_comms: RefCell<BTreeSet<CommId>>,
    /// What the RMA pass gathered for the RMA checks' codes judged on the run.
    rma_cross_rank: RefCell<Option<crate::checks::rma::CrossRank>>,
    actual_deadlock: Cell<Option<bool>>,
    wildcard_inconclusive: Cell<Option<bool>>,
    /// The running check's first code and what it declared (everything outside the
    /// registry's runner).
    running: Cell<(&'static str, Needs)>,
    /// Uses the running checks did not declare.
    undeclared: RefCell<Vec<String>>,
}

impl<'r> Context<'r> {
    pub fn new(run: &'r Run) -> Context<'r> {
        Context {
            run,
            program: OnceCell::new(),
            recorded: OnceCell::new(),
            strict: OnceCell::new(),
            mismatched_comms: RefCell::default(),
            rma_cross_rank: RefCell::default(),
            actual_deadlock: Cell::new(None),
            wildcard_inconclusive: Cell::new(None),
            running: Cell::new(("", Needs::EVERYTHING)),
            undeclared: RefCell::default(),
        }
    }

    /// The run's compiled program, compiled while its events streamed (else it is compiled
    /// from the run on first use).
    pub fn set_program(&self, program: Program) {
        let _ = self.program.set(program);
    }

    /// Sets what the check about to run declared.
    pub(super) fn set_running(&self, code: &'static str, needs: Needs) {
        self.running.set((code, needs));
    }

    /// Notes a problem of the running check (a use it did not declare).
    pub(super) fn note_undeclared(&self, what: String) {
        self.undeclared
            .borrow_mut()
            .push(format!("{} {what}", self.running.get().0));
    }

    pub(super) fn take_undeclared(&self) -> Vec<String> {
        self.undeclared.take()
    }

    fn assert_declared(&self, ok: impl Fn(&Needs) -> bool, what: &str) {
        if !ok(&self.running.get().1) {
            self.note_undeclared(format!("uses {what} without declaring it in its needs()"));
        }
    }

    /// The run compiled for replay (any replay needs it).
    pub fn program(&self) -> &Program {
        self.assert_declared(|n| !n.replays.is_empty(), "the compiled program");
        self.program.get_or_init(|| Program::from_run(self.run))
    }

    /// The replay of what happened.
    pub fn recorded(&self) -> &Replay {
        self.assert_declared(|n| n.replays(Replaying::Recorded), "the recorded replay");
        let program = self.program();
        self.recorded
            .get_or_init(|| engine::replay_program(program, &ReplayOptions::new(Mode::Recorded)))
    }

    /// The replay in which sends and collectives synchronize (except sends whose message
    /// the recorded replay shows never received: see [`Context::strict_options`]).
    pub fn strict(&self) -> &Replay {
        self.assert_declared(|n| n.replays(Replaying::Strict), "the strict replay");
        let program = self.program();
        self.strict
            .get_or_init(|| engine::replay_program(program, &self.strict_options()))
    }

    /// The options of strict replays: a send no receive took in the recorded replay is lost
    /// (RQ005), and completes as if buffered.
    pub fn strict_options(&self) -> ReplayOptions {
        let never_received = self
            .recorded()
            .unreceived
            .iter()
            .map(|u| (u.rank, u.event as u32))
            .collect();
        ReplayOptions {
            never_received: std::sync::Arc::new(never_received),
            ..ReplayOptions::new(Mode::Strict)
        }
    }

    /// One more replay with the given options (another matching of a wildcard receive).
    pub fn replay_with(&self, options: &ReplayOptions) -> Replay {
        self.assert_declared(
            |n| n.replays(Replaying::WildcardExploration),
            "wildcard exploration",
        );
        engine::replay_program(self.program(), options)
    }

    /// Other matchings of wildcard receives, played out from the strict replay run once
    /// ([`engine::explore_alternatives`]); `None` where a replay from the start must tell.
    pub fn explore(&self, alternatives: &[ForcedMatch]) -> Vec<Option<Alternative>> {
        self.assert_declared(
            |n| n.replays(Replaying::WildcardExploration),
            "wildcard exploration",
        );
        engine::explore_alternatives(self.program(), &self.strict_options(), alternatives)
    }

    /// What the RMA pass gathered, for the RMA checks that judge on the run.
    pub fn set_rma_cross_rank(&self, cross: crate::checks::rma::CrossRank) {
        *self.rma_cross_rank.borrow_mut() = Some(cross);
    }

    /// What [`Context::set_rma_cross_rank`] set, taken.
    pub fn take_rma_cross_rank(&self) -> Option<crate::checks::rma::CrossRank> {
        self.rma_cross_rank.borrow_mut().take()
    }

    /// Adds communicators with mismatched collectives ([`Slot::MismatchedComms`]).
    pub fn add_mismatched_comms(&self, comms: impl IntoIterator<Item = CommId>) {
        self.assert_declared(|n| n.fills(Slot::MismatchedComms), "MismatchedComms");
        self.mismatched_comms.borrow_mut().extend(comms);
    }

    pub fn mismatched_comms(&self) -> std::cell::Ref<'_, BTreeSet<CommId>> {
        self.assert_declared(|n| n.reads(Slot::MismatchedComms), "MismatchedComms");
        self.mismatched_comms.borrow()
    }

    pub fn set_actual_deadlock(&self, found: bool) {
        self.assert_declared(|n| n.fills(Slot::ActualDeadlock), "ActualDeadlock");
        self.actual_deadlock.set(Some(found));
    }

    /// Whether DL001 found a deadlock ([`Slot::ActualDeadlock`]).
    pub fn actual_deadlock(&self) -> bool {
        self.assert_declared(|n| n.reads(Slot::ActualDeadlock), "ActualDeadlock");
        if self.actual_deadlock.get().is_none() {
            self.note_undeclared("reads ActualDeadlock before DL001 filled it".into());
        }
        self.actual_deadlock.get().unwrap_or(false)
    }

    pub fn set_wildcard_inconclusive(&self, inconclusive: bool) {
        self.assert_declared(
            |n| n.fills(Slot::WildcardInconclusive),
            "WildcardInconclusive",
        );
        self.wildcard_inconclusive.set(Some(inconclusive));
    }

    /// Whether DL003's exploration stopped at its bound ([`Slot::WildcardInconclusive`]).
    pub fn wildcard_inconclusive(&self) -> bool {
        self.assert_declared(
            |n| n.reads(Slot::WildcardInconclusive),
            "WildcardInconclusive",
        );
        self.wildcard_inconclusive.get().unwrap_or(false)
    }
}
