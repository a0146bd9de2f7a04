//! Tests of the live proofs against the whole skeleton's, and of the state they hold.

use super::super::{proofs_of, RankOps};
use super::*;
use crate::checks::pass::{interleavings, LateMatches};
use crate::model::Run;
use crate::text_trace::parse;

/// Feeds `run`'s events in `order` (each entry names the rank whose next event comes),
/// with the matches of nonblocking receives known at their events or, `late`, coming
/// just before the wait or test that completed them (after the rank's last event if
/// none did), as while the traces are normalized.
fn feed(
    run: &Run,
    order: &[Rank],
    late: bool,
    mut event: impl FnMut(Rank, usize, &Event),
    mut matched: impl FnMut(Rank, usize, (Rank, i32)),
) {
    let mut next = vec![0; run.ranks.len()];
    let mut held = LateMatches::new(run.ranks.len());
    for &rank in order {
        let r = rank as usize;
        let index = next[r];
        next[r] += 1;
        let e = &run.ranks[r].events[index];
        if late {
            let e = held.event(rank, index, e, |at, m| matched(rank, at, m));
            event(rank, index, &e);
        } else {
            event(rank, index, e);
        }
        if next[r] == run.ranks[r].events.len() {
            held.rest(rank, |at, m| matched(rank, at, m));
        }
    }
}

fn intra(run: &Run) -> impl Fn(CommId) -> bool + '_ {
    |comm| run.comms.get(comm).is_some_and(|c| c.remote.is_none())
}

/// The proofs [`LiveProofs`] finds fed in `order`, and the most entries it held.
fn live(run: &Run, order: &[Rank], late: bool) -> (Proofs, usize) {
    let proofs = std::cell::RefCell::new(LiveProofs::default());
    let mut most = 0;
    let members = |comm: CommId, rank: Rank| {
        run.comms
            .get(comm)
            .map_or((0, None), |c| (c.members.len(), c.rank_of(rank)))
    };
    feed(
        run,
        order,
        late,
        |rank, i, e| {
            let mut p = proofs.borrow_mut();
            p.event(rank, i, e, intra(run), &members);
            most = most.max(p.held());
        },
        |rank, i, m| proofs.borrow_mut().matched(rank, i, m),
    );
    (proofs.into_inner().finish(), most)
}

/// The proofs of the whole skeleton ([`proofs_of`]) fed in `order`: the walk's
/// computation before issue 14.
fn whole(run: &Run, order: &[Rank], late: bool) -> Proofs {
    let n = run.ranks.len();
    let ranks = std::cell::RefCell::new(
        (0..n)
            .map(|_| (RankOpsBuilder::default(), RankOps::default()))
            .collect::<Vec<_>>(),
    );
    feed(
        run,
        order,
        late,
        |rank, i, e| {
            let (b, o) = &mut ranks.borrow_mut()[rank as usize];
            b.event(i, e, intra(run), o);
        },
        |rank, i, m| {
            let (b, o) = &mut ranks.borrow_mut()[rank as usize];
            b.matched(i, m, o);
        },
    );
    let ops: Vec<RankOps> = ranks.into_inner().into_iter().map(|(_, o)| o).collect();
    proofs_of(&ops, &|comm| run.comm(comm).members.to_vec())
}

/// Proofs as (sender, request, event), sorted.
type Sorted = Vec<(Rank, u32, usize)>;

fn sorted(proofs: &Proofs) -> Sorted {
    let mut out: Vec<_> = proofs.iter().map(|(&(r, q), &at)| (r, q.0, at)).collect();
    out.sort_unstable();
    out
}

/// Orders of the ranks' events besides [`interleavings`]: random ones.
fn random_orders(run: &Run, seed: u64, count: usize) -> Vec<Vec<Rank>> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let mut left: Vec<usize> = run.ranks.iter().map(|t| t.events.len()).collect();
            let mut order = Vec::new();
            while left.iter().any(|&l| l > 0) {
                let ranks: Vec<usize> = (0..left.len()).filter(|&r| left[r] > 0).collect();
                let r = ranks[rng.below(ranks.len())];
                // Runs of a rank's events, as when one rank runs ahead.
                for _ in 0..1 + rng.below(4) {
                    if left[r] > 0 {
                        left[r] -= 1;
                        order.push(r as Rank);
                    }
                }
            }
            order
        })
        .collect()
}

/// Requires the live proofs of `run` to equal the whole skeleton's in every order, the
/// matches known at their events and coming late; returns them.
fn same_as_whole(run: &Run, seed: u64) -> Vec<(Rank, u32, usize)> {
    let reference = sorted(&whole(run, &interleavings(run)[0], false));
    let mut orders: Vec<Vec<Rank>> = interleavings(run).into_iter().collect();
    orders.extend(random_orders(run, seed, 3));
    for order in &orders {
        for late in [false, true] {
            let expected = sorted(&whole(run, order, late));
            let (found, _) = live(run, order, late);
            assert_eq!(
                sorted(&found),
                expected,
                "fed in the order {order:?}, matches late: {late}"
            );
        }
    }
    reference
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn proofs_equal_the_whole_skeletons_on_fixtures() {
    type Fixture<'a> = (&'a str, &'a [(Rank, u32, usize)]);
    let fixtures: &[Fixture] = &[
        // MPI 4.1 Example 3.13: a reply after the receive.
        (
            "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: irecv src=1 tag=0 req=1
             0: wait req=1
             1: irecv src=0 tag=0 req=0
             1: wait req=0
             1: isend dest=0 tag=0 req=1
             1: wait req=1",
            &[(0, 0, 3)],
        ),
        // Barriers: the one before the receive does not prove it, the allreduce does;
        // the broadcast does not (rank 0 depends on the root only).
        (
            "ranks 3
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: barrier
             0: bcast root=2
             0: allreduce
             1: barrier
             1: recv src=0 tag=0
             1: bcast root=2
             1: allreduce
             2: barrier
             2: bcast root=2
             2: allreduce",
            &[(0, 0, 4)],
        ),
        // A chain through a third rank.
        (
            "ranks 3
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: recv src=2 tag=5
             1: recv src=0 tag=0
             1: send dest=2 tag=5
             2: recv src=1 tag=5
             2: send dest=0 tag=5",
            &[(0, 0, 2)],
        ),
        // Wildcard receives paired by their statuses only, which come late.
        (
            "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: irecv src=any tag=any req=1
             0: wait req=1 matched=1:9
             1: irecv src=any tag=any req=0
             1: wait req=0 matched=0:0
             1: send dest=0 tag=9",
            &[(0, 0, 3)],
        ),
        // The free comes long after the receive completed (and after the proof).
        (
            "ranks 2
             0: isend dest=1 tag=3 req=0
             0: recv src=1 tag=4
             0: barrier
             0: request_free req=0
             1: recv src=0 tag=3
             1: send dest=0 tag=4
             1: barrier",
            &[(0, 0, 1)],
        ),
        // Two freed sends to one receiver, proved by different replies; one of rank 1
        // proved by a scan (rank 1 learns of rank 0 there, not the other way round).
        (
            "ranks 2
             0: isend dest=1 tag=1 req=0
             0: request_free req=0
             0: isend dest=1 tag=2 req=1
             0: request_free req=1
             0: recv src=1 tag=7
             0: scan
             0: recv src=1 tag=8
             1: recv src=0 tag=1
             1: send dest=0 tag=7
             1: recv src=0 tag=2
             1: scan
             1: send dest=0 tag=8
             1: isend dest=0 tag=9 req=5
             1: request_free req=5
             1: scan
             0: recv src=1 tag=9
             0: scan",
            &[(0, 0, 4), (0, 1, 6), (1, 5, 7)],
        ),
        // Persistent sends (the last start is freed), MPI_PROC_NULL, a receive never
        // completed, a send nobody receives.
        (
            "ranks 2
             0: send_init dest=1 tag=0 req=0
             0: start req=0
             0: wait req=0
             0: start req=0
             0: request_free req=0
             0: isend dest=null tag=0 req=1
             0: request_free req=1
             0: isend dest=1 tag=6 req=2
             0: request_free req=2
             0: isend dest=1 tag=5 req=3
             0: request_free req=3
             0: barrier
             1: recv src=0 tag=0
             1: recv src=0 tag=0
             1: irecv src=0 tag=6 req=0
             1: barrier",
            &[(0, 0, 11), (0, 1, 5)],
        ),
        // A nonblocking barrier completed by a wait; a send freed after its reply was
        // tested; get_status before the free (no goal: the program knows).
        (
            "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: ibarrier req=1
             0: wait req=1
             0: isend dest=1 tag=1 req=2
             0: request_get_status req=2 flag=1
             0: request_free req=2
             1: recv src=0 tag=0
             1: ibarrier req=0
             1: test req=0 flag=1
             1: recv src=0 tag=1",
            &[(0, 0, 3)],
        ),
        // Sendrecv replies and a matched probe taking a message.
        (
            "ranks 2
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: send dest=1 tag=1
             0: sendrecv dest=1 sendtag=2 src=1 recvtag=3
             1: mprobe src=0 tag=any matched=0:0
             1: mrecv
             1: recv src=0 tag=1
             1: sendrecv dest=0 sendtag=3 src=0 recvtag=2",
            &[],
        ),
        // A rank missing from a barrier: the others are stuck there at the end and go on
        // without it, the lowest first, which then skips the reply it waits for too
        // (knowing less only proves less).
        (
            "ranks 3
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: barrier
             0: recv src=1 tag=1
             1: recv src=0 tag=0
             1: barrier
             1: send dest=0 tag=1
             2: other MPI_Comm_rank",
            &[],
        ),
        // Messages paired against the order of the calls (a cycle): stuck, rank 0 skips
        // its first receive, and rank 1's later send proves the freed one.
        (
            "ranks 2
             0: recv src=1 tag=0
             0: isend dest=1 tag=0 req=0
             0: request_free req=0
             0: recv src=1 tag=1
             1: recv src=0 tag=0
             1: send dest=0 tag=0
             1: send dest=0 tag=1",
            &[(0, 0, 3)],
        ),
    ];
    for (i, (text, expected)) in fixtures.iter().enumerate() {
        let run = parse(text).unwrap();
        assert_eq!(&same_as_whole(&run, i as u64 + 1), expected, "fixture {i}");
    }
}

/// A random program of `ranks` ranks: sends, receives (wildcards with statuses the way
/// MPI gives them), frees, waits, collectives, in no consistent order (pairings the
/// run could not have made end stuck).
fn random_program(rng: &mut Rng, ranks: usize, calls: usize) -> String {
    let mut text = format!("ranks {ranks}\n");
    for me in 0..ranks {
        let mut next_req = 0;
        // (request, kind, source, tag): kind 0 send, 1 receive, 2 collective.
        let mut active: Vec<(u32, u8, Option<usize>, Option<u32>)> = Vec::new();
        let mut persistent: Vec<u32> = Vec::new();
        let peer = |rng: &mut Rng| (me + 1 + rng.below(ranks - 1)) % ranks;
        for _ in 0..calls {
            let tag = rng.below(3) as u32;
            let line = match rng.below(16) {
                0 | 1 => {
                    let (q, to) = (next_req, peer(rng));
                    next_req += 1;
                    active.push((q, 0, None, None));
                    let dest = if rng.below(12) == 0 {
                        "null".to_string()
                    } else {
                        to.to_string()
                    };
                    format!("isend dest={dest} tag={tag} req={q}")
                }
                2 => format!("send dest={} tag={tag}", peer(rng)),
                3 | 4 => {
                    let q = next_req;
                    next_req += 1;
                    let source = (rng.below(3) > 0).then(|| peer(rng));
                    let tag = (rng.below(3) > 0).then_some(tag);
                    active.push((q, 1, source, tag));
                    let src = source.map_or("any".to_string(), |s| s.to_string());
                    let tg = tag.map_or("any".to_string(), |t| t.to_string());
                    format!("irecv src={src} tag={tg} req={q}")
                }
                5 => {
                    let source = (rng.below(3) > 0).then(|| peer(rng));
                    let src = source.map_or("any".to_string(), |s| s.to_string());
                    let m = source.unwrap_or_else(|| peer(rng));
                    format!("recv src={src} tag={tag} matched={m}:{tag}")
                }
                6..=8 if !active.is_empty() => {
                    let (q, kind, source, t) = active.swap_remove(rng.below(active.len()));
                    let status = if kind == 1 && rng.below(4) > 0 {
                        let s = source.unwrap_or_else(|| peer(rng));
                        let t = t.unwrap_or(tag);
                        format!(" matched={s}:{t}")
                    } else {
                        String::new()
                    };
                    match rng.below(4) {
                        0 => format!("test req={q} flag=1{status}"),
                        1 if kind == 0 => {
                            active.push((q, kind, source, t));
                            format!("request_get_status req={q} flag=1")
                        }
                        _ => format!("wait req={q}{status}"),
                    }
                }
                9 | 10 if !active.is_empty() => {
                    let i = rng.below(active.len());
                    if active[i].1 == 2 {
                        continue;
                    }
                    let (q, ..) = active.swap_remove(i);
                    format!("request_free req={q}")
                }
                11 => "barrier".to_string(),
                12 => match rng.below(4) {
                    0 => format!("bcast root={}", rng.below(ranks)),
                    1 => format!("reduce root={}", rng.below(ranks)),
                    2 => "scan".to_string(),
                    _ => "allreduce".to_string(),
                },
                13 => {
                    let q = next_req;
                    next_req += 1;
                    active.push((q, 2, None, None));
                    format!("ibarrier req={q}")
                }
                14 => {
                    if persistent.is_empty() || rng.below(3) == 0 {
                        let q = next_req;
                        next_req += 1;
                        persistent.push(q);
                        format!("send_init dest={} tag={tag} req={q}", peer(rng))
                    } else {
                        let q = persistent[rng.below(persistent.len())];
                        active.retain(|a| a.0 != q);
                        active.push((q, 0, None, None));
                        format!("start req={q}")
                    }
                }
                _ => {
                    let p = peer(rng);
                    format!("sendrecv dest={p} sendtag={tag} src={p} recvtag={tag}")
                }
            };
            text.push_str(&format!("{me}: {line}\n"));
        }
    }
    text
}

#[test]
fn proofs_equal_the_whole_skeletons_on_random_programs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut proved = 0;
    for case in 0..200 {
        let ranks = 2 + rng.below(3);
        let calls = 10 + rng.below(30);
        let text = random_program(&mut rng, ranks, calls);
        let run = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let found = std::panic::catch_unwind(|| same_as_whole(&run, case));
        match found {
            Ok(found) => proved += found.len(),
            Err(e) => {
                eprintln!("case {case}:\n{text}");
                std::panic::resume_unwind(e);
            }
        }
    }
    // The programs do free sends that something proves.
    assert!(proved > 100, "{proved}");
}

/// A long run of `rounds` exchanges between two ranks: each sends, receives a reply
/// (by a wildcard receive whose status comes at its wait), and meets the other in a
/// barrier every tenth round; with `free`, rank 0 frees its send, which the reply
/// proves.
fn exchanges(rounds: usize, free: bool) -> Run {
    let mut text = String::from("ranks 2\n");
    for i in 0..rounds {
        let (a, b) = (2 * i, 2 * i + 1);
        text.push_str(&format!("0: isend dest=1 tag=1 req={a}\n"));
        if free {
            text.push_str(&format!("0: request_free req={a}\n"));
        } else {
            text.push_str("0: other MPI_Comm_rank\n");
        }
        text.push_str(&format!("0: irecv src=any tag=any req={b}\n"));
        if !free {
            text.push_str(&format!("0: wait req={a}\n"));
        } else {
            text.push_str("0: other MPI_Comm_rank\n");
        }
        text.push_str(&format!("0: wait req={b} matched=1:2\n"));
        text.push_str(&format!("1: irecv src=0 tag=any req={a}\n"));
        text.push_str(&format!("1: wait req={a} matched=0:1\n"));
        text.push_str(&format!("1: isend dest=0 tag=2 req={b}\n"));
        text.push_str("1: other MPI_Comm_rank\n");
        text.push_str(&format!("1: wait req={b}\n"));
        if i % 10 == 9 {
            text.push_str("0-1: barrier\n");
        }
    }
    parse(&text).unwrap()
}

#[test]
fn the_proofs_hold_only_live_state_on_long_runs() {
    let rounds = 5_000;
    for free in [false, true] {
        let run = exchanges(rounds, free);
        // The ranks' calls alternating, as by entry time when they run in step.
        let order = &interleavings(&run)[1];
        for late in [false, true] {
            let (proofs, most) = live(&run, order, late);
            assert_eq!(proofs.len(), if free { rounds } else { 0 });
            assert!(most < 20, "free: {free}, late: {late}: {most} held");
        }
    }
    // Rank after rank, what one rank runs ahead is held (the order, not the calls).
    let run = exchanges(200, true);
    let (_, most) = live(&run, &interleavings(&run)[0], true);
    assert!(most > 1_000, "{most}");
}
