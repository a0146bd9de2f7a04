//! The RMA checks fed while the events stream ([`RmaPass`]): each rank's calls on windows
//! in its order, the ranks interleaved in any way.
//!
//! The codes that follow one rank's own epoch state (RM001-RM005, RM009) are judged at
//! each call, with the rank's [`RankEpochs`]; the pass holds only the epochs of the windows
//! each rank has not freed, and the findings folded by call site. RM006 on windows that
//! are not dynamic needs the memory the target exposes, known once the target's
//! constructor call came: an access that comes before waits for it. RM008 pairs each
//! window's posts and starts as they come and holds the calls not paired yet
//! ([`pscw_partner::Partners`]). DR001 puts each access into its scope and compares a
//! scope once no access can join it ([`epoch_scopes::Scopes`]).
//!
//! Windows are named once they are numbered for good, at the end (`window 0 (...)` names
//! the final id): until then a message names its window by a placeholder
//! ([`window_placeholder`]), which [`RmaPass::finish`] replaces by the window's name.

use crate::checks::pass::{EventPass, Filled, RunTables, SiteFindings};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::text::{Piece, Text};

use super::{accumulate_op, beyond_window, cross_rank, epoch_scopes, pscw_partner, target_rank};
use super::{no_epoch, open_at_free, request_outside_passive, unmatched_sync};
use super::{RankEpochs, Walk};

/// Stands for the name of a window in a message until the windows are named.
const WINDOW_MARK: char = '\u{2}';

/// What a message says instead of the name of `win` while the events stream.
fn window_placeholder(win: WinId) -> String {
    format!("{WINDOW_MARK}{}{WINDOW_MARK}", win.0)
}

/// `text` with each window placeholder replaced by the window's name.
fn named(text: Text, tables: &RunTables) -> Text {
    if !text.as_str().contains(WINDOW_MARK) {
        return text;
    }
    Text::from_pieces(text.pieces().iter().map(|piece| {
        match piece {
            Piece::Literal(s) => Piece::Literal(
                s.split(WINDOW_MARK)
                    .enumerate()
                    .map(|(i, part)| {
                        // Odd parts are between two marks: a window id.
                        let win = (i % 2 == 1).then(|| part.parse().ok()).flatten();
                        match win.and_then(|w| tables.window(WinId(w))) {
                            Some(window) => window.name.as_str(),
                            None => part,
                        }
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }))
}

/// One rank's state: its epochs on its live windows.
#[derive(Default)]
struct RankState {
    epochs: RankEpochs,
}

/// The RMA checks as one pass over the events.
#[derive(Default)]
pub(crate) struct RmaPass {
    ranks: Vec<RankState>,
    /// What the walk of the current call found (drained after each call).
    walk: Walk,
    no_epoch: SiteFindings,
    unmatched: SiteFindings,
    open_at_free: SiteFindings,
    request_outside_passive: SiteFindings,
    target_rank: SiteFindings,
    beyond_window: beyond_window::Bounds,
    accumulate_op: SiteFindings,
    pscw_partner: pscw_partner::Partners,
    conflicts: epoch_scopes::Scopes,
    /// What the codes judged once every event came read besides the calls on windows.
    cross_rank: cross_rank::Gatherer,
    /// No trace calls a window constructor (known from their scan): no call is on a window,
    /// no event needs following.
    no_windows: bool,
}

/// What an [`RmaPass`] holds besides its findings (for tests: issue 14 wants it bounded by
/// what is live, not by the calls recorded).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Held {
    /// (rank, window) epoch states.
    pub rank_windows: usize,
    /// Accesses waiting for their target's memory (RM006).
    pub waiting_accesses: usize,
    /// Windows whose posts and starts are followed (RM008).
    pub pscw_windows: usize,
    /// Posts and starts waiting for their partner's call.
    pub unpaired_calls: usize,
    /// Accesses in fence and lock epochs not compared yet (DR001).
    pub epoch_accesses: usize,
    /// Accesses in access epochs of `MPI_Win_start`, and their pairs with posts, held
    /// until the window is freed (DR001).
    pub start_accesses: usize,
}

#[cfg(test)]
impl RmaPass {
    pub fn held(&self) -> Held {
        let (pscw_windows, unpaired_calls) = self.pscw_partner.held();
        let (epoch_accesses, start_accesses) = self.conflicts.held();
        Held {
            epoch_accesses,
            start_accesses,
            rank_windows: self.ranks.iter().map(|r| r.epochs.windows()).sum(),
            waiting_accesses: self.beyond_window.waiting(),
            pscw_windows,
            unpaired_calls,
        }
    }
}

impl EventPass for RmaPass {
    fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
        if self.no_windows {
            return;
        }
        self.cross_rank.event(rank, index, event, tables);
        let call = tables.rma_call(rank, index);
        let window = call.and_then(|c| tables.window(c.win));
        let paired = self.pscw_partner.event(rank, index, event, call, window);
        self.conflicts.event(rank, event);
        let (Some(call), Some(window)) = (call, window) else {
            return;
        };
        let r = rank as usize;
        if self.ranks.len() <= r {
            self.ranks.resize_with(r + 1, RankState::default);
        }
        let state = &mut self.ranks[r];
        let window_name = window_placeholder(call.win);
        // Whether the rank calls MPI from one thread is known at its end: DR001 drops the
        // lock epochs of ranks that turn out to use several ([`epoch_scopes::Scopes`]).
        let single_thread = true;
        state.epochs.call(
            rank,
            index,
            call,
            window,
            &window_name,
            single_thread,
            &mut self.walk,
        );
        let walk = &mut self.walk;
        for (items, found) in [
            (&mut walk.no_epoch, &mut self.no_epoch),
            (&mut walk.unmatched, &mut self.unmatched),
            (&mut walk.open_at_free, &mut self.open_at_free),
            (
                &mut walk.request_outside_passive,
                &mut self.request_outside_passive,
            ),
        ] {
            for (rank, _, message, label) in items.drain(..) {
                found.add(rank, event, message, label);
            }
        }
        self.conflicts.call(
            tables,
            rank,
            call,
            window,
            &self.ranks[r].epochs,
            &mut self.walk,
            &paired,
        );
        if let Some((message, label)) = target_rank::finding(call, window, &window_name) {
            self.target_rank.add(rank, event, message, label);
        }
        self.beyond_window
            .call(rank, index, call, window, &window_name);
        if let RmaKind::Access(access) = &call.kind {
            if let Some((message, label)) = accumulate_op::finding(tables, event.call, access) {
                self.accumulate_op.add(rank, event, message, label);
            }
        }
    }

    // A receive's match pairs it with its message (the happens-before skeleton).
    fn matched(&mut self, rank: Rank, index: usize, matched: (Rank, i32)) {
        self.cross_rank.matched(rank, index, matched);
    }

    fn scanned(&mut self, called: &[&str]) {
        self.cross_rank.scanned(called);
        // (With the large-count constructors, `MPI_Win_create_c`, ...)
        self.no_windows =
            !cross_rank::makes_windows(called.iter().map(|f| f.strip_suffix("_c").unwrap_or(f)));
    }

    fn idle(&self) -> bool {
        self.no_windows && self.cross_rank.idle()
    }

    fn finish_filling(self: Box<Self>, tables: &RunTables, filled: &mut Filled) -> Vec<Diagnostic> {
        let mut pass = *self;
        filled.rma_cross_rank = Some(std::mem::take(&mut pass.cross_rank).finish());
        Box::new(pass).finish(tables)
    }

    fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
        let name = |found: SiteFindings| found.map_texts(|text| named(text, tables));
        let mut out = no_epoch::diagnostics(name(self.no_epoch), tables);
        out.extend(unmatched_sync::diagnostics(name(self.unmatched), tables));
        out.extend(open_at_free::diagnostics(name(self.open_at_free), tables));
        out.extend(request_outside_passive::diagnostics(
            name(self.request_outside_passive),
            tables,
        ));
        out.extend(target_rank::diagnostics(name(self.target_rank), tables));
        out.extend(
            self.beyond_window
                .diagnostics(tables, |text| named(text, tables)),
        );
        out.extend(accumulate_op::diagnostics(self.accumulate_op, tables));
        out.extend(self.pscw_partner.diagnostics(tables));
        out.extend(self.conflicts.diagnostics(tables));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::pass::interleave;
    use crate::model::Run;
    use crate::text_trace::parse;

    #[test]
    fn an_access_before_its_targets_constructor_waits_for_it() {
        // Rank 1 puts past the windows of ranks 0 and 2, from one call site.
        let run = parse(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4              @ w.c:1
             *: win_fence win=0                              @ w.c:2
             1: put win=0 target=0 disp=12 count=1 type=int  @ w.c:3
             1: put win=0 target=2 disp=10 count=1 type=int  @ w.c:3
             *: win_fence win=0                              @ w.c:4
             *: win_free win=0                               @ w.c:5
             *: finalize",
        )
        .unwrap();
        let expected = interleave::same_in_every_order(&run, || Box::<RmaPass>::default());
        assert_eq!(expected.len(), 1, "{expected:#?}");
        assert!(
            expected[0]
                .message
                .starts_with("MPI_Put to rank 0 in window 0")
                && expected[0]
                    .message
                    .ends_with("(and 1 more such calls from here)"),
            "{}",
            expected[0].message
        );
        // Rank 1's events before rank 0's: its first put waits for rank 0's memory, and
        // its second, to rank 2, is judged first.
        assert_eq!(fed_memory_late(&run, &[1, 0, 2], 0), expected);
    }

    /// The findings of the pass fed rank after rank in `ranks`, as while the events stream:
    /// the memory of `late` in every window is known only once its own events come.
    fn fed_memory_late(run: &Run, ranks: &[Rank], late: Rank) -> Vec<Diagnostic> {
        let mut windows = run.windows.clone();
        for window in &mut windows {
            window.memory.remove(&late);
        }
        let early = RunTables::new(
            &run.sites,
            &run.comms,
            &run.datatypes,
            &run.collective_args,
            &windows,
            &run.rma,
            &run.buffer_accesses,
        );
        let all = RunTables::of(run);
        let mut pass = Box::<RmaPass>::default();
        let mut tables = &early;
        for &rank in ranks {
            if rank == late {
                tables = &all;
            }
            for (index, event) in run.ranks[rank as usize].events.iter().enumerate() {
                pass.event(rank, index, event, tables);
            }
        }
        pass.finish(&all)
    }

    #[test]
    fn conflicts_with_a_target_that_has_not_made_the_window_yet_are_found() {
        // Ranks 1 and 2 put into the same int of rank 0 in a fence epoch; rank 1 puts and
        // gets one int of rank 0 in one lock epoch, and of rank 2 in another.
        let run = parse(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4                     @ w.c:1
             *: win_fence win=0                                     @ w.c:2
             1-2: put win=0 target=0 disp=0 count=1 type=int        @ w.c:3
             *: win_fence win=0                                     @ w.c:4
             1: win_lock win=0 target=0 type=exclusive              @ w.c:5
             1: put win=0 target=0 disp=1 count=1 type=int          @ w.c:6
             1: get win=0 target=0 disp=1 count=1 type=int          @ w.c:7
             1: win_unlock win=0 target=0                           @ w.c:8
             1: win_lock win=0 target=2 type=exclusive              @ w.c:5
             1: put win=0 target=2 disp=1 count=1 type=int          @ w.c:6
             1: get win=0 target=2 disp=1 count=1 type=int          @ w.c:7
             1: win_unlock win=0 target=2                           @ w.c:8
             *: win_free win=0                                      @ w.c:9
             *: finalize",
        )
        .unwrap();
        let expected = interleave::same_in_every_order(&run, || Box::<RmaPass>::default());
        let dr001: Vec<_> = expected.iter().filter(|d| d.code == "DR001").collect();
        assert_eq!(dr001.len(), 2, "{expected:#?}");
        assert!(
            dr001[1]
                .message
                .contains("(1 more conflicting pairs of calls"),
            "{}",
            dr001[1].message
        );
        for ranks in [[1, 2, 0], [2, 1, 0], [1, 0, 2]] {
            assert_eq!(fed_memory_late(&run, &ranks, 0), expected, "{ranks:?}");
        }
    }

    /// A run of `epochs` fence epochs, lock epochs, lock_all epochs and PSCW epochs on one
    /// window of 3 ranks, with puts (some past the window) in each, then a second window
    /// made and freed.
    fn long_run(epochs: usize) -> Run {
        let mut text = String::from(
            "ranks 3
             *: init
             *: win_create win=0 size=40 unit=4                     @ w.c:1\n",
        );
        for _ in 0..epochs {
            text.push_str(
                "*: win_fence win=0                                      @ w.c:2
                 1-2: put win=0 target=0 disp=0 count=1 type=int         @ w.c:3
                 0: put win=0 target=1 disp=12 count=1 type=int          @ w.c:4
                 *: win_fence win=0                                      @ w.c:5
                 1-2: win_lock win=0 target=0 type=exclusive             @ w.c:6
                 1-2: put win=0 target=0 disp=1 count=1 type=int         @ w.c:7
                 1-2: win_flush win=0 target=0                           @ w.c:8
                 1-2: win_unlock win=0 target=0                          @ w.c:9
                 0: win_lock_all win=0                                   @ w.c:10
                 0: get win=0 target=2 disp=2 count=1 type=int           @ w.c:11
                 0: win_unlock_all win=0                                 @ w.c:12
                 0: win_post win=0 group=1,2                             @ w.c:13
                 1-2: win_start win=0 group=0                            @ w.c:14
                 1-2: put win=0 target=0 disp=3 count=1 type=int         @ w.c:15
                 1-2: win_complete win=0                                 @ w.c:16
                 0: win_wait win=0                                       @ w.c:17\n",
            );
        }
        text.push_str(
            "*: win_free win=0                                           @ w.c:18
             *: win_create win=1 size=40 unit=4                          @ w.c:19
             *: win_free win=1                                           @ w.c:20
             *: finalize",
        );
        parse(&text).unwrap()
    }

    /// The most `RmaPass` holds at once (each count on its own, looked at every `every`
    /// events) with the events of `run` fed in `order`, and its findings.
    fn most_held(run: &Run, order: &[Rank], every: usize) -> (Held, Vec<Diagnostic>) {
        struct Sampled(RmaPass, Held, usize, usize);
        impl EventPass for Sampled {
            fn event(&mut self, rank: Rank, index: usize, event: &Event, tables: &RunTables) {
                self.0.event(rank, index, event, tables);
                self.2 += 1;
                if !self.2.is_multiple_of(self.3) {
                    return;
                }
                let now = self.0.held();
                let most = &mut self.1;
                most.rank_windows = most.rank_windows.max(now.rank_windows);
                most.waiting_accesses = most.waiting_accesses.max(now.waiting_accesses);
                most.pscw_windows = most.pscw_windows.max(now.pscw_windows);
                most.unpaired_calls = most.unpaired_calls.max(now.unpaired_calls);
                most.epoch_accesses = most.epoch_accesses.max(now.epoch_accesses);
                most.start_accesses = most.start_accesses.max(now.start_accesses);
            }
            fn finish(self: Box<Self>, tables: &RunTables) -> Vec<Diagnostic> {
                Box::new(self.0).finish(tables)
            }
        }
        let mut sampled = Sampled(RmaPass::default(), Held::default(), 0, every);
        crate::checks::pass::feed_in(run, &mut [&mut sampled], order);
        let held = sampled.1;
        let found = Box::new(sampled).finish(&RunTables::of(run));
        (held, found)
    }

    /// The order of [`long_run`]'s events epoch after epoch: each rank's calls of one epoch
    /// (8 of rank 0, 10 of ranks 1 and 2), rank after rank.
    fn by_epoch(epochs: usize) -> Vec<Rank> {
        let calls = |rank: Rank, n: usize| std::iter::repeat_n(rank, n);
        let mut order: Vec<Rank> = (0..3).flat_map(|r| calls(r, 2)).collect();
        for _ in 0..epochs {
            order.extend(calls(0, 8).chain(calls(1, 10)).chain(calls(2, 10)));
        }
        order.extend((0..3).flat_map(|r| calls(r, 4)));
        order
    }

    #[test]
    fn live_state_of_long_runs_of_epochs_is_bounded() {
        let (short, long) = (long_run(10), long_run(2_000));
        // Epoch after epoch, as the ranks' calls come by time: what the pass holds does not
        // grow with the epochs.
        let (held, found) = most_held(&short, &by_epoch(10), 1);
        let (held_long, found_long) = most_held(&long, &by_epoch(2_000), 1);
        // Not yet bounded: DR001 holds the accesses of PSCW epochs, 2 per epoch, and their
        // pairs with posts, 2 per epoch, until the window is freed.
        assert_eq!(
            (held.start_accesses, held_long.start_accesses),
            (4 * 10, 4 * 2_000)
        );
        let held_long = Held {
            start_accesses: held.start_accesses,
            ..held_long
        };
        assert_eq!(held_long, held);
        assert!(
            held.rank_windows <= 3
                && held.waiting_accesses <= 2
                && held.unpaired_calls <= 2
                && held.epoch_accesses <= 4,
            "{held:?}"
        );
        // RM006 at w.c:4, folded: the same findings, the count of calls aside.
        assert_eq!(found.len(), found_long.len(), "{found_long:#?}");
        assert!(found_long[0]
            .message
            .contains("(and 1999 more such calls from here)"));
        // Rank after rank, the posts wait for the starts of ranks 1 and 2 (one per epoch
        // and origin), and the fence epochs of rank 0 for the others' fences: what one
        // rank runs ahead of the others.
        let rank_after_rank = crate::checks::pass::interleavings(&long)[0].clone();
        let (held, _) = most_held(&long, &rank_after_rank, 64);
        // (Looked at every 64 events: a few may be paired already.)
        assert!(
            (2 * 2_000 - 16..=2 * 2_000).contains(&held.unpaired_calls),
            "{held:?}"
        );
        assert_eq!(held.rank_windows, 1, "{held:?}");
    }
}
