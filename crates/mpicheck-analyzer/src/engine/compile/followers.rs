//! Which calls follow their rank's latest wildcard receive: its source
//! ([`flags::FOLLOWS_WILDCARD`]), or its tag ([`flags::FOLLOWS_WILDCARD_TAG`]). A master
//! that takes results with `MPI_ANY_SOURCE` and replies to `status.MPI_SOURCE` records
//! each reply's destination as a plain rank, and a replay in which the wildcard takes
//! another source must send the reply there; one that takes them with `MPI_ANY_TAG` and
//! replies with `status.MPI_TAG` records the reply's tag as a plain tag, and the reply must
//! carry the tag of the message the wildcard takes.
//!
//! A wildcard probe counts as a wildcard receive: `MPI_Probe(MPI_ANY_SOURCE, ...)` then
//! `MPI_Recv(..., status.MPI_SOURCE, status.MPI_TAG, ...)` receives what the probe found,
//! and in a replay where the probe finds another message the receive takes that one. A
//! receive made right after a wildcard probe, naming its source (and tag), follows it by
//! design even when seen once ([`SiteFollows::following`]).

use super::event::{source_word, tag_word, taken_tag};
use super::*;

/// One rank's wildcard receives and, by call site, whether its calls named the latest
/// one's source or tag.
#[derive(Default)]
pub(super) struct WildcardFollowers {
    /// Sends and receives that named the source of the latest `MPI_ANY_SOURCE` receive.
    sources: Followed,
    /// Sends that carried the tag of the latest `MPI_ANY_TAG` receive.
    tags: Followed,
    /// The call site of the rank's latest blocking wildcard receive, and for which of
    /// source and tag (its match may be learnt just after it:
    /// [`WildcardFollowers::matched`]).
    blocking: ((u32, u16), Wild),
    /// The rank's nonblocking wildcard receives not yet completed, by operation index: the
    /// source and tag each took, `None` until its match is known (while the traces are
    /// normalized, it comes just before the call that completes the receive), its site,
    /// and for which of source and tag it is a wildcard.
    open: FxHashMap<u32, OpenReceive>,
}

/// A nonblocking wildcard receive not yet completed: the source and tag it took, where
/// known, its call site, and for which of source and tag it is a wildcard.
type OpenReceive = (Option<(u32, i32)>, (u32, u16), Wild);

/// Which of source and tag a receive takes any of.
#[derive(Clone, Copy, Default)]
struct Wild {
    source: bool,
    tag: bool,
}

/// The latest value (source or tag) a rank's wildcard receives took, and by call site
/// whether the calls after them named it.
#[derive(Default)]
struct Followed {
    /// The value the rank's latest completed wildcard receive took in the run, once one
    /// did: a blocking one's at its call, a nonblocking one's at the wait or test that
    /// completed it (a reply to `status.MPI_SOURCE` names the receive the program just
    /// waited for, not the one it posted last).
    latest: Option<u32>,
    /// The call site of that receive.
    latest_site: (u32, u16),
    /// The latest was a probe, and no call was noted since.
    latest_probe: bool,
    /// By call site (site, function) of the calls made after a wildcard receive: whether
    /// each named that receive's value.
    sites: Vec<((u32, u16), SiteFollows)>,
    /// The index in `sites` of each call site.
    site_index: FxHashMap<(u32, u16), u32>,
    /// The index in `sites` of the last site found at each of a few slots chosen by the
    /// site (empty until the first call after a wildcard receive): a loop's sites are
    /// found here with one comparison, before `site_index` is hashed (every send after a
    /// rank's first wildcard receive is noted, and the hash cost ~60 instructions).
    recent: Vec<u32>,
    /// By call site of wildcard receives: whether they took more than one value.
    wildcard_sites: FxHashMap<(u32, u16), WildcardSite>,
}

/// The slots of [`Followed::recent`] (a power of two): more than a loop has call sites
/// after its wildcard receives, so that two of them rarely share a slot.
const RECENT_SITES: usize = 16;

/// The values a wildcard receive's call site took: the first, and whether another.
#[derive(Clone, Copy)]
struct WildcardSite {
    first: u32,
    several: bool,
}

impl Followed {
    /// A wildcard receive (or a `probe`) made at `site` completed, with `value`.
    fn took(&mut self, value: u32, site: (u32, u16), probe: bool) {
        self.latest = Some(value);
        self.latest_site = site;
        self.latest_probe = probe;
        self.wildcard_sites
            .entry(site)
            .and_modify(|w| w.several |= w.first != value)
            .or_insert(WildcardSite {
                first: value,
                several: false,
            });
    }

    /// Notes a call at `site` whose value no wildcard the replays replay gave: the site
    /// never follows one.
    fn never_followed(&mut self, site: (u32, u16)) {
        self.latest_probe = false;
        let follows = self.site_follows(site);
        follows.always = false;
        follows.never = true;
    }

    /// Notes a call at `site` that named `value`: whether it is the latest wildcard
    /// receive's (none before the rank's first wildcard receive).
    fn note(&mut self, value: u32, site: (u32, u16)) -> bool {
        let Some(latest) = self.latest else {
            return false;
        };
        let follows = value == latest;
        let after_probe = std::mem::take(&mut self.latest_probe);
        let latest_site = self.latest_site;
        self.site_follows(site)
            .note(follows, value, latest_site, after_probe);
        follows
    }

    /// The entry of call site `site`, made if it is new.
    #[inline]
    fn site_follows(&mut self, site: (u32, u16)) -> &mut SiteFollows {
        if self.recent.is_empty() {
            self.recent = vec![u32::MAX; RECENT_SITES];
        }
        // The key's high bits after a multiply by a large odd number pick the slot.
        let key = (site.0 as u64) << 16 | site.1 as u64;
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (u64::BITS - RECENT_SITES.ilog2()))
            as usize;
        let index = self.recent[slot] as usize;
        if self.sites.get(index).is_some_and(|s| s.0 == site) {
            return &mut self.sites[index].1;
        }
        self.site_not_recent(site, slot)
    }

    /// [`Followed::site_follows`] of a site not in its recent slot (out of line: rare).
    #[inline(never)]
    fn site_not_recent(&mut self, site: (u32, u16), slot: usize) -> &mut SiteFollows {
        let sites = &mut self.sites;
        let index = *self.site_index.entry(site).or_insert_with(|| {
            sites.push((site, SiteFollows::new()));
            sites.len() as u32 - 1
        });
        self.recent[slot] = index;
        &mut self.sites[index as usize].1
    }

    /// The call sites whose every call named the value of the rank's latest wildcard
    /// receive, and how sure that is by design; with `occasional`, also those some of
    /// whose calls did and some did not ([`SiteFollows::occasional`]).
    fn sites(&self, occasional: bool) -> FxHashMap<(u32, u16), Following> {
        (self.sites.iter())
            .filter_map(|&(site, f)| {
                if occasional && f.occasional() {
                    return Some((site, Following::Occasional));
                }
                Some((site, f.following(&self.wildcard_sites)?))
            })
            .collect()
    }
}

impl WildcardFollowers {
    /// Notes operation `at` of `event`, about to be appended: marks a send or receive that
    /// names the latest wildcard source, a send that carries the latest wildcard tag, and
    /// notes a wildcard receive or probe. A sendrecv is both: its halves may name the
    /// latest wildcard source, and its receive half may be a wildcard receive.
    /// (Inlined: most operations are none of these, and a call only to find that cost ~20
    /// instructions per event.)
    #[inline]
    pub(super) fn note_op(&mut self, at: u32, op: &mut ReplayOp, info: &OpInfo, event: &Event) {
        if matches!(
            op.kind,
            OpKind::Send | OpKind::Recv | OpKind::Probe | OpKind::Sendrecv
        ) {
            self.note_send_or_recv(at, op, info, event);
        }
    }

    /// [`WildcardFollowers::note_op`] of a send, receive, probe or sendrecv.
    #[inline(never)]
    fn note_send_or_recv(&mut self, at: u32, op: &mut ReplayOp, info: &OpInfo, event: &Event) {
        let site = (info.site, info.call);
        if op.kind == OpKind::Send {
            // (Most of these: a send is no wildcard receive, and has no receive half.)
            if op.peer != ANY_SOURCE && op.peer != NO_RANK {
                self.note_send(op, site);
            }
            return;
        }
        // The tag a receive matches (a send's tag: no send is TAG_RECORDED).
        let op_tag = op.recv_tag();
        // The receive half's (source, tag, source taken) of a sendrecv. Its source is
        // noted first: right after a wildcard probe, it is the half that takes the probed
        // message.
        let receive_half = match &event.op {
            Op::Sendrecv { recv, .. } => Some((
                source_word(recv.source),
                tag_word(recv.tag),
                recv.matched.map_or(NO_RANK, |m| m.0),
            )),
            _ => None,
        };
        if let Some((source, _, _)) = receive_half {
            if source != ANY_SOURCE
                && source != NO_RANK
                && self.sources.note(source, (site.0, site.1 | RECEIVE_HALF))
            {
                op.flags |= flags::RECEIVE_FOLLOWS_WILDCARD;
            }
        }
        if op.flags & flags::TAKES_PROBED != 0 {
            // The receive of what a single probe found names that message, whichever it
            // was: it follows no wildcard the replays replay, and neither does its site (a
            // site also reached after polled probes, as MUMPS's, would otherwise follow
            // their tag but not their source, and a replay of another matching received
            // from the run's source with another's tag).
            self.sources.never_followed(site);
            self.tags.never_followed(site);
            // One that names no source (or no tag) is a wildcard receive of its own, and
            // the calls after it name what it took: HyPhy's MPIRecvString probes for any
            // source, receives the length with MPI_ANY_SOURCE, then the characters from
            // status.MPI_SOURCE. Its other rounds poll, and the replays hold that receive
            // back as a wildcard; a round whose single probe found the message must not
            // make the receive of the characters look as if it named another source.
            let wild = Wild {
                source: op.peer == ANY_SOURCE,
                tag: op_tag == ANY_TAG,
            };
            if wild.source || wild.tag {
                if let Some(taken) = (op.b != NO_RANK).then_some(op.b).zip(taken_tag(event)) {
                    self.took(taken, site, wild, false);
                }
            }
            return;
        }
        if op.kind != OpKind::Probe && op.peer != ANY_SOURCE && op.peer != NO_RANK {
            if op.kind == OpKind::Sendrecv {
                self.note_send(op, site);
            } else {
                if self.sources.note(op.peer, site) {
                    op.flags |= flags::FOLLOWS_WILDCARD;
                }
                // A receive carries the tag it names only after a probe for any tag.
                if self.tags.latest_probe && self.tags.note(op_tag as u32, site) {
                    op.flags |= flags::FOLLOWS_WILDCARD_TAG;
                }
            }
        }
        let (source, tag, taken_source) = receive_half.unwrap_or((op.peer, op_tag, op.b));
        // (A probe for one source is not held back: what it finds is what the run found.)
        // A sendrecv's receive half for any tag is no wildcard here: the replay does not
        // know the tag it took in the run ([`flags::TAG_RECORDED`]).
        let wild = Wild {
            source: source == ANY_SOURCE,
            tag: tag == ANY_TAG
                && receive_half.is_none()
                && (op.kind != OpKind::Probe || source == ANY_SOURCE),
        };
        if op.kind == OpKind::Send || !(wild.source || wild.tag) {
            return;
        }
        // (The event read only here: only a wildcard receive needs the tag it took.)
        let taken = (taken_source != NO_RANK)
            .then_some(taken_source)
            .zip(taken_tag(event));
        if op.kind == OpKind::Probe {
            if let Some(taken) = taken {
                self.took(taken, site, wild, true);
            }
            return;
        }
        // A matched probe's receive, nobody waiting for it (a single `MPI_Improbe`'s),
        // took its message at its call: no wait or test completes it.
        let taken_at_call = matches!(event.op, Op::Probe { .. });
        if op.class == class::NONBLOCKING && op.a != NO_REQ && !taken_at_call {
            self.open.insert(at, (taken, site, wild));
        } else {
            self.blocking = (site, wild);
            if let Some(taken) = taken {
                self.took(taken, site, wild, false);
            }
        }
    }

    /// Notes a send (or a sendrecv's send half) to a rank, made at `site`: whether it
    /// names the latest wildcard source, and carries the latest wildcard tag.
    #[inline]
    fn note_send(&mut self, op: &mut ReplayOp, site: (u32, u16)) {
        if self.sources.note(op.peer, site) {
            op.flags |= flags::FOLLOWS_WILDCARD;
        }
        if self.tags.note(op.tag as u32, site) {
            op.flags |= flags::FOLLOWS_WILDCARD_TAG;
        }
    }

    /// A wildcard receive (or a `probe`) made at `site` completed, taking (finding)
    /// `(source, tag)`.
    fn took(&mut self, (source, tag): (u32, i32), site: (u32, u16), wild: Wild, probe: bool) {
        if wild.source {
            self.sources.took(source, site, probe);
        }
        if wild.tag {
            self.tags.took(tag as u32, site, probe);
        }
    }

    /// The wildcard receive of operation `at` took `(source, tag)`, learnt late.
    pub(super) fn matched(&mut self, at: u32, taken: (u32, i32)) {
        match self.open.get_mut(&at) {
            Some(open) => open.0 = Some(taken),
            None => self.took(taken, self.blocking.0, self.blocking.1, false),
        }
    }

    /// The nonblocking request of operation `at` is no longer live: completed by a wait or
    /// test (`completes`; the latest completed of a call that completes several becomes
    /// the rank's latest), or freed.
    pub(super) fn request_done(&mut self, at: u32, completes: bool) {
        if self.open.is_empty() {
            return;
        }
        if let Some((taken, site, wild)) = self.open.remove(&at) {
            if let Some(taken) = taken.filter(|_| completes) {
                self.took(taken, site, wild, false);
            }
        }
    }

    /// The call sites whose every call named the source of the rank's latest wildcard
    /// receive, and how sure that is by design, and those some of whose calls did.
    pub(super) fn source_sites(&self) -> FxHashMap<(u32, u16), Following> {
        self.sources.sites(true)
    }

    /// The send sites whose every call carried the tag of the rank's latest wildcard-tag
    /// receive, and how sure that is by design.
    pub(super) fn tag_sites(&self) -> FxHashMap<(u32, u16), Following> {
        self.tags.sites(false)
    }
}

/// Whether a call site's sends or receives name the source of the rank's latest wildcard
/// receive: every one so far, how many, and the distinct sources they named.
#[derive(Clone, Copy)]
struct SiteFollows {
    always: bool,
    /// Some call named the latest value (whether or not every one did).
    named: bool,
    /// The first value a call named, and whether one named another: a site that always
    /// names one rank sends there, whatever the wildcard took.
    first_value: u32,
    several_values: bool,
    /// A call's value came from no wildcard the replays replay
    /// ([`Followed::never_followed`]).
    never: bool,
    calls: u32,
    /// The first [`SiteFollows::PEERS`] distinct sources named.
    peers: [u32; SiteFollows::PEERS],
    distinct: u8,
    /// The call site of the wildcard receive each call followed, while the same.
    after: Option<(u32, u16)>,
    /// The calls followed wildcard receives of several sites.
    after_several: bool,
    /// Every call came right after a wildcard probe and named what it found.
    after_probe: bool,
}

impl SiteFollows {
    /// With this many distinct sources, the calls (at least as many) are evidence enough.
    const PEERS: usize = 6;

    fn new() -> SiteFollows {
        SiteFollows {
            always: true,
            named: false,
            first_value: NO_RANK,
            several_values: false,
            never: false,
            calls: 0,
            peers: [NO_RANK; SiteFollows::PEERS],
            distinct: 0,
            after: None,
            after_several: false,
            after_probe: true,
        }
    }

    fn note(&mut self, follows: bool, peer: u32, wildcard_site: (u32, u16), after_probe: bool) {
        self.named |= follows;
        if self.first_value == NO_RANK {
            self.first_value = peer;
        }
        self.several_values |= peer != self.first_value;
        // (A site that once did not follow never will: the rest is for one that might.)
        self.always &= follows;
        if !self.always {
            return;
        }
        self.after_probe &= after_probe;
        match self.after {
            None => self.after = Some(wildcard_site),
            Some(site) => self.after_several |= site != wildcard_site,
        }
        self.calls += 1;
        let known = &self.peers[..self.distinct as usize];
        if !known.contains(&peer) && (self.distinct as usize) < SiteFollows::PEERS {
            self.peers[self.distinct as usize] = peer;
            self.distinct += 1;
        }
    }

    /// Whether the site may name the wildcard's source at some calls and not at others
    /// ([`Following::Occasional`]): some named it, some did not, and they named several
    /// ranks, none of them from a probe's message (a site that always sends to one rank,
    /// as `MPI_Send(..., 1, ...)` after a receive from any source, only names the source
    /// when rank 1 sent).
    fn occasional(&self) -> bool {
        self.named && !self.always && self.several_values && !self.never
    }

    /// Whether the site names the wildcard's source by design: every call did, the sources
    /// varied, and the calls were too many to have done so by chance. A site whose calls
    /// go to ranks unrelated to the wildcard (hpcc's RandomAccess sends each bucket to the
    /// rank its updates hash to) may name the latest source a few times in a row; if each
    /// call named one of the `d` sources seen at random, `n` calls would all have done so
    /// with chance `d^-n`: a follower needs it below 1 in 1,000 (a master replying to 2
    /// workers: 10 replies; to 4: 5).
    ///
    /// A site whose every call named the source, too few times or sources to tell, may do
    /// so by design as well (a master replying to whoever sent, for a few rounds, or to the
    /// one worker that sent every time): [`Following::Doubtful`]. Except a site that always
    /// named one rank after a wildcard receive site that took others too: it picks that
    /// rank out (a send to rank 1 after the result of rank 1, another line's to rank 2
    /// after rank 2's), and is taken to send there.
    ///
    /// A site whose every call came right after a wildcard probe, naming what it found, is
    /// the receive of the probed message (`MPI_Recv(..., status.MPI_SOURCE, ...)`): a
    /// program that probes for any source and then receives from a rank fixed in advance
    /// would not name the probed source every time.
    fn following(&self, wildcard_sites: &FxHashMap<(u32, u16), WildcardSite>) -> Option<Following> {
        let distinct = self.distinct as u64;
        if !self.always || distinct == 0 {
            None
        } else if self.after_probe || (distinct >= 2 && distinct.saturating_pow(self.calls) >= 1000)
        {
            Some(Following::Certain)
        } else if distinct == 1
            && (self.after_several
                || self
                    .after
                    .and_then(|site| wildcard_sites.get(&site))
                    .is_none_or(|w| w.several))
        {
            None
        } else {
            Some(Following::Doubtful)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::compiled_in;
    use super::*;
    use crate::checks::pass::interleave;
    use crate::model::Run;
    use crate::text_trace::parse;

    /// The lines of each rank's follower sites (`sites`: of sources or of tags), with a
    /// `<` for the receive half of a sendrecv and a `?` where doubtful, the same whether
    /// the program is compiled from the whole run or fed in any order with the matches late.
    fn lines_of(
        run: &Run,
        sites: fn(&RankProgram) -> &FxHashMap<(u32, u16), Following>,
    ) -> Vec<Vec<String>> {
        let lines = |program: &Program| -> Vec<Vec<String>> {
            let lines = |rank: &RankProgram| {
                let mut lines: Vec<(u32, bool, Following)> = (sites(rank).iter())
                    .map(|(&(site, call), &f)| {
                        let line = run.sites[site as usize].line.unwrap_or(0);
                        (line, call & RECEIVE_HALF != 0, f)
                    })
                    .collect();
                lines.sort_by_key(|&(line, half, _)| (line, half));
                (lines.into_iter())
                    .map(|(line, half, f)| {
                        let half = if half { "<" } else { "" };
                        match f {
                            Following::Certain => format!("{line}{half}"),
                            Following::Doubtful => format!("{line}{half}?"),
                            Following::Occasional => format!("{line}{half}~"),
                        }
                    })
                    .collect()
            };
            program.ranks.iter().map(lines).collect()
        };
        let whole = lines(&Program::from_run(run));
        for order in interleave::orders(run) {
            let fed = compiled_in(run, &order, &[], 0);
            assert_eq!(lines(&fed), whole, "fed in {order:?}");
            for rank in 0..run.ranks.len() as Rank {
                let flags = |p: &Program| -> Vec<u8> {
                    p.rank_ops(rank).iter().map(|op| op.flags).collect()
                };
                assert_eq!(flags(&fed), flags(&Program::from_run(run)));
            }
        }
        whole
    }

    fn follower_lines(run: &Run) -> Vec<Vec<String>> {
        lines_of(run, |r| &r.follower_sites)
    }

    fn tag_follower_lines(run: &Run) -> Vec<Vec<String>> {
        lines_of(run, |r| &r.tag_follower_sites)
    }

    #[test]
    fn call_sites_that_name_the_wildcard_source_every_time_follow_it() {
        // Rank 0's line 2 replies to whoever sent (blocking and nonblocking wildcards), 10
        // times: with two sources, all would by chance once in 1,024. Line 3 sends to rank
        // 1 whatever came (its wildcard took others too). Rank 1's line 4 names the source,
        // which never varied: doubtful. Rank 2's line 31 named two sources, then another
        // rank than the source. Rank 3's line 41 named each of three sources after it came,
        // once: by chance once in 27, doubtful.
        let mut text = String::from("ranks 4\n");
        for _ in 0..5 {
            text.push_str(
                "0: recv src=any tag=0 matched=1 @ m.c:1
                0: send dest=1 tag=1 @ m.c:2
                0: send dest=1 tag=2 @ m.c:3
                0: irecv src=any tag=0 req=0 @ m.c:1
                0: wait req=0 matched=2 @ m.c:5
                0: send dest=2 tag=1 @ m.c:2
                0: send dest=1 tag=2 @ m.c:3
                1: recv src=any tag=0 matched=0 @ m.c:10
                1: send dest=0 tag=1 @ m.c:4\n",
            );
        }
        text.push_str(
            "2: recv src=any tag=0 matched=0 @ m.c:30
            2: send dest=0 tag=1 @ m.c:31
            2: recv src=any tag=0 matched=1 @ m.c:30
            2: send dest=1 tag=1 @ m.c:31
            2: recv src=any tag=0 matched=1 @ m.c:30
            2: send dest=0 tag=1 @ m.c:31
            3: recv src=any tag=0 matched=0 @ m.c:40
            3: send dest=0 tag=1 @ m.c:41
            3: recv src=any tag=0 matched=1 @ m.c:40
            3: send dest=1 tag=1 @ m.c:41
            3: recv src=any tag=0 matched=2 @ m.c:40
            3: send dest=2 tag=1 @ m.c:41",
        );
        let run = parse(&text).unwrap();
        // (Line 31 named the source twice and then another rank: it may reply at some
        // calls, `~`, followed only by DL003's second replay, and there only while every
        // send since the wildcard named its source. Line 3 always sent to rank 1: no.)
        assert_eq!(
            follower_lines(&run),
            [vec!["2"], vec!["4?"], vec!["31~"], vec!["41?"]]
        );
        let program = Program::from_run(&run);
        let follows = |rank: Rank, event: usize| {
            program.rank_ops(rank)[event].flags & flags::FOLLOWS_WILDCARD != 0
        };
        assert!(follows(0, 1) && follows(0, 5));
        assert!(follows(0, 2) && !follows(0, 6));
    }

    #[test]
    fn the_receive_right_after_a_wildcard_probe_follows_it_even_once() {
        // Rank 0 receives at line 2 what its probe at line 1 found (source and tag), once:
        // it follows both; lines 3 and 4 send to that source once each (doubtful), line 3
        // with its tag (doubtful). Rank 1 probes, sends elsewhere, then receives from the
        // probed source at lines 12 and 22: not right after the probe, doubtful. Rank 2
        // never probed nor received for any source: line 21 follows nothing.
        let text = "ranks 3
            1: send dest=0 tag=5 @ m.c:20
            0: probe src=any tag=any matched=1:5 @ m.c:1
            0: recv src=1 tag=5 @ m.c:2
            0: send dest=1 tag=5 @ m.c:3
            0: send dest=1 tag=6 @ m.c:4
            1: probe src=any tag=6 matched=0:6 @ m.c:10
            1: send dest=2 tag=1 @ m.c:11
            1: recv src=0 tag=6 @ m.c:12
            2: recv src=1 tag=1 @ m.c:21
            1: recv src=0 tag=5 @ m.c:22";
        let run = parse(text).unwrap();
        assert_eq!(
            follower_lines(&run),
            [vec!["2", "3?", "4?"], vec!["12?", "22?"], vec![]]
        );
        assert_eq!(tag_follower_lines(&run), [vec!["2", "3?"], vec![], vec![]]);
    }

    #[test]
    fn a_receive_site_reached_after_single_probes_follows_nothing() {
        // Rank 0 takes messages the MUMPS way: a polling loop of wildcard probes (line 1),
        // or a single one that succeeds at once, then the receive of what it found (line 2).
        // After the polled probes, line 2 names what they found; after the single ones
        // (no wildcard the replays replay) the message's source and tag, whichever: the
        // site follows neither the latest source nor the latest tag. Rank 1's line 12 is
        // reached after polled probes only: it follows both.
        let mut text = String::from("ranks 3\n");
        let rounds = [(1, true), (2, false), (1, false), (2, true), (1, false)];
        for (source, polled) in rounds.into_iter().cycle().take(10) {
            let tag = 10 + source;
            if polled {
                text.push_str("0: iprobe src=any tag=any @ m.c:1\n");
            }
            text.push_str(&format!(
                "{source}: send dest=0 tag={tag} @ w.c:10
                0: iprobe src=any tag=any found=1 matched={source}:{tag} @ m.c:1
                0: recv src={source} tag={tag} matched={source} @ m.c:2
                {source}: recv src=0 tag={tag} @ w.c:11
                0: send dest={source} tag={tag} @ m.c:3\n"
            ));
        }
        for (source, tag) in [(0, 5), (2, 6)].into_iter().cycle().take(10) {
            text.push_str(&format!(
                "{source}: send dest=1 tag={tag} @ w.c:20
                1: iprobe src=any tag=any @ m.c:11
                1: iprobe src=any tag=any found=1 matched={source}:{tag} @ m.c:11
                1: recv src={source} tag={tag} matched={source} @ m.c:12\n"
            ));
        }
        let run = parse(&text).unwrap();
        let program = Program::from_run(&run);
        let probed: Vec<bool> = (program.rank_ops(0).iter())
            .filter(|op| op.kind == OpKind::Recv)
            .map(|op| op.flags & flags::TAKES_PROBED != 0)
            .collect();
        assert_eq!(probed, [false, true, true, false, true].repeat(2));
        // (Line 2 takes what a probe found: never a follower. Line 3 replies to the
        // probed source, the latest wildcard's only after a polled probe: `~`.)
        assert_eq!(follower_lines(&run), [vec!["3~"], vec!["12"], vec![]]);
        assert_eq!(tag_follower_lines(&run), [vec![], vec!["12"], vec![]]);
    }

    #[test]
    fn a_nonblocking_wildcard_is_the_latest_once_completed() {
        // Rank 0 posts two wildcard receives, waits for the second, replies to its source
        // at line 2, then does the same for the first: each reply names the receive just
        // completed, not the one posted last.
        let mut text = String::from("ranks 3\n");
        for _ in 0..5 {
            text.push_str(
                "0: irecv src=any tag=0 req=0 @ m.c:1
                0: irecv src=any tag=0 req=1 @ m.c:1
                0: wait req=1 matched=2 @ m.c:5
                0: send dest=2 tag=1 @ m.c:2
                0: wait req=0 matched=1 @ m.c:5
                0: send dest=1 tag=1 @ m.c:2
                1-2: send dest=0 tag=0 @ w.c:10
                1-2: recv src=0 tag=1 @ w.c:11\n",
            );
        }
        let run = parse(&text).unwrap();
        assert_eq!(follower_lines(&run), [vec!["2"], vec![], vec![]]);
    }

    #[test]
    fn send_sites_that_carry_the_wildcard_tag_every_time_follow_it() {
        // Rank 0 takes requests for any tag (blocking from any source at line 1,
        // nonblocking from rank 2 at line 5). Line 2 echoes the request's tag to its source
        // 15 times over several tags: it follows the tag for sure. Line 3 sends tag 5 after
        // each request with tag 5, but line 1 took tags 1 and 7 too: a fixed tag equal by
        // chance. A receive for a given source and any tag counts (line 5); a receive
        // naming the tag is no tag follower (line 6). Rank 1 echoes the tag of the one
        // request it takes (line 11): doubtful. Rank 2's line 21 sends tag 5 after each
        // request of tag 5, but line 20 took tag 7 once too: fixed.
        let mut text = String::from("ranks 3\n");
        for round in 0..5 {
            let tag = if round % 2 == 0 { 5 } else { 7 };
            text.push_str(&format!(
                "0: recv src=any tag=any matched=1:1 @ m.c:1
                0: send dest=1 tag=1 @ m.c:2
                0: recv src=any tag=any matched=2:{tag} @ m.c:1
                0: send dest=2 tag={tag} @ m.c:2\n"
            ));
            if tag == 5 {
                text.push_str("0: send dest=1 tag=5 @ m.c:3\n");
            }
            text.push_str(&format!(
                "0: irecv src=2 tag=any req=0 @ m.c:5
                0: wait req=0 matched=2:{round} @ m.c:7
                0: recv src=1 tag={round} @ m.c:6
                0: send dest=2 tag={round} @ m.c:2\n"
            ));
        }
        text.push_str(
            "1: recv src=0 tag=any matched=0:3 @ m.c:10
            1: send dest=0 tag=3 @ m.c:11
            2: recv src=0 tag=any matched=0:5 @ m.c:20
            2: send dest=0 tag=5 @ m.c:21
            2: recv src=0 tag=any matched=0:7 @ m.c:20
            2: recv src=0 tag=any matched=0:5 @ m.c:20
            2: send dest=0 tag=5 @ m.c:21",
        );
        let run = parse(&text).unwrap();
        assert_eq!(tag_follower_lines(&run), [vec!["2"], vec!["11?"], vec![]]);
        let program = Program::from_run(&run);
        let ops = program.rank_ops(0);
        let follows = |event: usize| ops[event].flags & flags::FOLLOWS_WILDCARD_TAG != 0;
        // Round 0: the echoes (events 1, 3, 8) and the fixed tag 5 (4) carried the latest
        // wildcard tag; the receive naming it (7) is not marked.
        assert!(follows(1) && follows(3) && follows(4) && follows(8));
        assert!(!follows(7));
        // Doubtful tag followers alone call for the replay that follows doubtful sites.
        let rank_1 = parse(
            "ranks 2
            1: recv src=0 tag=any matched=0:3 @ m.c:10
            1: send dest=0 tag=3 @ m.c:11",
        )
        .unwrap();
        let program = Program::from_run(&rank_1);
        assert!(program.ranks.iter().all(|r| r.follower_sites.is_empty()));
        assert!(program.has_doubtful_followers());
    }

    #[test]
    fn a_reply_to_the_source_with_the_tag_follows_both() {
        // The echo server of tests/programs/dl_master_worker_tag_echo_ok.c, five rounds:
        // line 26 follows the source and the tag of the wildcard at line 25.
        let mut text = String::from("ranks 3\n");
        for first in [2, 1, 2, 2, 1] {
            let second = 3 - first;
            text.push_str(&format!(
                "1-2: send dest=0 tag=0 @ w.c:31
                0: recv src=any tag=any matched={first}:{first} @ m.c:25
                0: send dest={first} tag={first} @ m.c:26
                0: recv src=any tag=any matched={second}:{second} @ m.c:25
                0: send dest={second} tag={second} @ m.c:26\n"
            ));
        }
        let run = parse(&text).unwrap();
        assert_eq!(follower_lines(&run), [vec!["26"], vec![], vec![]]);
        assert_eq!(tag_follower_lines(&run), [vec!["26"], vec![], vec![]]);
    }

    #[test]
    fn a_sendrecv_s_halves_follow_the_wildcard_source_each_on_its_own() {
        // Rank 0 takes a result from any source at line 1, then at line 2 replies to its
        // source and takes the acknowledgement from it, 5 rounds of 2 sources: both halves
        // follow. Line 3 replies to the source and receives from rank 3 every time: only
        // its send half follows.
        let mut text = String::from("ranks 4\n");
        for _ in 0..5 {
            for worker in [1, 2] {
                text.push_str(&format!(
                    "{worker}: send dest=0 tag=0 @ w.c:10
                    0: recv src=any tag=0 matched={worker} @ m.c:1
                    0: sendrecv dest={worker} sendtag=1 src={worker} recvtag=2 @ m.c:2
                    0: sendrecv dest={worker} sendtag=1 src=3 recvtag=2 @ m.c:3\n"
                ));
            }
        }
        let run = parse(&text).unwrap();
        assert_eq!(
            follower_lines(&run),
            [vec!["2", "2<", "3"], vec![], vec![], vec![]]
        );
        let program = Program::from_run(&run);
        let ops = program.rank_ops(0);
        assert_ne!(ops[1].flags & flags::RECEIVE_FOLLOWS_WILDCARD, 0);
        assert_eq!(ops[2].flags & flags::RECEIVE_FOLLOWS_WILDCARD, 0);
        assert_ne!(ops[2].flags & flags::FOLLOWS_WILDCARD, 0);
    }

    #[test]
    fn a_sendrecv_for_any_source_is_a_wildcard_its_replies_follow() {
        // Rank 0 sends nothing and takes a result from any source with a sendrecv at line
        // 1, then replies to its source at line 2, 5 rounds of 2 sources (blocking and
        // nonblocking sendrecvs, one matched late as the normalizer gives it).
        let mut text = String::from("ranks 3\n");
        for _ in 0..5 {
            text.push_str(
                "1: send dest=0 tag=0 @ w.c:10
                0: sendrecv dest=null sendtag=3 src=any recvtag=0 matched=1 @ m.c:1
                0: send dest=1 tag=1 @ m.c:2
                2: send dest=0 tag=0 @ w.c:10
                0: isendrecv dest=null sendtag=3 src=any recvtag=0 req=0 @ m.c:1
                0: wait req=0 matched=2 @ m.c:5
                0: send dest=2 tag=1 @ m.c:2\n",
            );
        }
        let run = parse(&text).unwrap();
        assert_eq!(follower_lines(&run), [vec!["2"], vec![], vec![]]);
    }
}
