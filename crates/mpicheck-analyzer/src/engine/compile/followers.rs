//! Which calls follow the source of their rank's latest wildcard receive
//! ([`flags::FOLLOWS_WILDCARD`]): a master that takes results with `MPI_ANY_SOURCE` and
//! replies to `status.MPI_SOURCE` records each reply's destination as a plain rank, and a
//! replay in which the wildcard takes another source must send the reply there.

use super::*;

/// One rank's wildcard receives and, by call site, whether its sends and receives named
/// the latest one's source.
#[derive(Default)]
pub(super) struct WildcardFollowers {
    /// The source the rank's latest completed wildcard receive took in the run, once one
    /// did: a blocking one's at its call, a nonblocking one's at the wait or test that
    /// completed it (a reply to `status.MPI_SOURCE` names the receive the program just
    /// waited for, not the one it posted last).
    latest_source: Option<u32>,
    /// The call site of that receive.
    latest_site: (u32, u16),
    /// The call site of the rank's latest blocking wildcard receive (its source may be
    /// learnt just after it: [`WildcardFollowers::matched`]).
    blocking_site: (u32, u16),
    /// The rank's nonblocking wildcard receives not yet completed, by operation index: the
    /// source each took, `NO_RANK` until its match is known (while the traces are
    /// normalized, it comes just before the call that completes the receive), and its site.
    open: FxHashMap<u32, (u32, (u32, u16))>,
    /// By call site (site, function) of sends and receives made after a wildcard receive:
    /// whether each named that receive's source.
    sites: FxHashMap<(u32, u16), SiteFollows>,
    /// By call site of wildcard receives: whether they took more than one source.
    wildcard_sites: FxHashMap<(u32, u16), WildcardSite>,
}

/// The sources a wildcard receive's call site took: the first, and whether another.
#[derive(Clone, Copy)]
struct WildcardSite {
    first: u32,
    several: bool,
}

impl WildcardFollowers {
    /// Notes operation `at`, about to be appended: marks a send or receive that names the
    /// latest wildcard source, and notes a wildcard receive.
    pub(super) fn note_op(&mut self, at: u32, op: &mut ReplayOp, info: &OpInfo) {
        self.note_peer(op, info);
        if op.kind == OpKind::Recv && op.peer == ANY_SOURCE {
            let site = (info.site, info.call);
            if op.class == class::NONBLOCKING && op.a != NO_REQ {
                self.open.insert(at, (op.b, site));
            } else {
                self.blocking_site = site;
                if op.b != NO_RANK {
                    self.took(op.b, site);
                }
            }
        }
    }

    /// A wildcard receive made at `site` completed, with `source`.
    fn took(&mut self, source: u32, site: (u32, u16)) {
        self.latest_source = Some(source);
        self.latest_site = site;
        self.wildcard_sites
            .entry(site)
            .and_modify(|w| w.several |= w.first != source)
            .or_insert(WildcardSite {
                first: source,
                several: false,
            });
    }

    fn note_peer(&mut self, op: &mut ReplayOp, info: &OpInfo) {
        let Some(source) = self.latest_source else {
            return;
        };
        if !matches!(op.kind, OpKind::Send | OpKind::Recv)
            || op.peer == ANY_SOURCE
            || op.peer == NO_RANK
        {
            return;
        }
        let follows = op.peer == source;
        self.sites
            .entry((info.site, info.call))
            .or_insert_with(SiteFollows::new)
            .note(follows, op.peer, self.latest_site);
        if follows {
            op.flags |= flags::FOLLOWS_WILDCARD;
        }
    }

    /// The wildcard receive of operation `at` took `source`, learnt late.
    pub(super) fn matched(&mut self, at: u32, source: u32) {
        match self.open.get_mut(&at) {
            Some(open) => open.0 = source,
            None => self.took(source, self.blocking_site),
        }
    }

    /// The nonblocking request of operation `at` is no longer live: completed by a wait or
    /// test (`completes`; the latest completed of a call that completes several becomes
    /// the rank's latest), or freed.
    pub(super) fn request_done(&mut self, at: u32, completes: bool) {
        if self.open.is_empty() {
            return;
        }
        if let Some((source, site)) = self.open.remove(&at) {
            if completes && source != NO_RANK {
                self.took(source, site);
            }
        }
    }

    /// The call sites whose every call named the source of the rank's latest wildcard
    /// receive, and how sure that is by design.
    pub(super) fn sites(&self) -> FxHashMap<(u32, u16), Following> {
        (self.sites.iter())
            .filter_map(|(&site, f)| Some((site, f.following(&self.wildcard_sites)?)))
            .collect()
    }
}

/// Whether a call site's sends or receives name the source of the rank's latest wildcard
/// receive: every one so far, how many, and the distinct sources they named.
#[derive(Clone, Copy)]
struct SiteFollows {
    always: bool,
    calls: u32,
    /// The first [`SiteFollows::PEERS`] distinct sources named.
    peers: [u32; SiteFollows::PEERS],
    distinct: u8,
    /// The call site of the wildcard receive each call followed, while the same.
    after: Option<(u32, u16)>,
    /// The calls followed wildcard receives of several sites.
    after_several: bool,
}

impl SiteFollows {
    /// With this many distinct sources, the calls (at least as many) are evidence enough.
    const PEERS: usize = 6;

    fn new() -> SiteFollows {
        SiteFollows {
            always: true,
            calls: 0,
            peers: [NO_RANK; SiteFollows::PEERS],
            distinct: 0,
            after: None,
            after_several: false,
        }
    }

    fn note(&mut self, follows: bool, peer: u32, wildcard_site: (u32, u16)) {
        self.always &= follows;
        if !follows {
            return;
        }
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
    fn following(&self, wildcard_sites: &FxHashMap<(u32, u16), WildcardSite>) -> Option<Following> {
        let distinct = self.distinct as u64;
        if !self.always || distinct == 0 {
            None
        } else if distinct >= 2 && distinct.saturating_pow(self.calls) >= 1000 {
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

    /// The lines of each rank's follower sites, with a `?` where doubtful, the same whether
    /// the program is compiled from the whole run or fed in any order with the matches late.
    fn follower_lines(run: &Run) -> Vec<Vec<String>> {
        let lines = |program: &Program| -> Vec<Vec<String>> {
            let lines = |rank: &RankProgram| {
                let mut lines: Vec<(u32, Following)> = (rank.follower_sites.iter())
                    .map(|(&(site, _), &f)| (run.sites[site as usize].line.unwrap_or(0), f))
                    .collect();
                lines.sort_by_key(|&(line, _)| line);
                (lines.into_iter())
                    .map(|(line, f)| match f {
                        Following::Certain => line.to_string(),
                        Following::Doubtful => format!("{line}?"),
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
        assert_eq!(
            follower_lines(&run),
            [vec!["2"], vec!["4?"], vec![], vec!["41?"]]
        );
        let program = Program::from_run(&run);
        let follows = |rank: Rank, event: usize| {
            program.rank_ops(rank)[event].flags & flags::FOLLOWS_WILDCARD != 0
        };
        assert!(follows(0, 1) && follows(0, 5));
        assert!(follows(0, 2) && !follows(0, 6));
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
}
