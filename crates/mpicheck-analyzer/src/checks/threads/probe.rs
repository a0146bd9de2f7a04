//! TH004: a probed message can be received by another thread's receive.
//!
//! Followed as the calls come ([`Watch`]): per thread its last receive and its older ones
//! folded by call site and what they accept, with their latest epoch (what a later probe's
//! message may be taken by); per probe that found a message, its *window*: the receives of
//! other threads that may take the message, until the probing thread's receive of it comes
//! and is judged with them, and after it, as long as a later receive may still overlap it
//! or not follow it (a window closes once every thread of known origin has seen that
//! receive). A probe whose thread never receives the message keeps its window, with the
//! other threads' receives that accept it, to the rank's end.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::stream::{Call, Ended};
#[cfg(test)]
use super::{on_thread, RankThreads, Role};
use super::{on_thread_id, severity, Findings, SiteRole, When};
use crate::checks::pass::ByAddress;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::{CommId, Event, Op, RecvSpec, SiteId, Source, TagMatch};
use crate::threads::ThreadClocks;

pub const TH004: CheckInfo = CheckInfo {
    code: "TH004",
    name: "probe-stolen-by-thread",
    category: Category::ThreadSafety,
    severity: Severity::Warning,
    summary: "a message found by MPI_Probe/MPI_Iprobe can be received by another thread's receive",
    docs: r#"## What it does

For every `MPI_Probe` / `MPI_Iprobe` that found a message, takes the probed source, tag and
communicator, and the probing thread's next receive that accepts them (the receive the
probe prepares). Reports a receive of another thread that accepts the same source and tag
on the same communicator and that is not ordered before the probe or after that receive:
it ran at the same time as the probe (the seed's form A), between the probe and the
receive (B), or at the same time as the receive (C), in this run, or can do so in another
run because no synchronization orders it. Both call sites are reported.

## Why is this bad

The probing thread sizes its buffer or chooses its receive from the probed envelope; if
another thread's receive takes that message first, the probing thread receives a different
message (wrong size: truncation error) or blocks forever.

## Example

```c
#pragma omp parallel num_threads(2)
{
    if (omp_get_thread_num() == 0) {
        MPI_Probe(1, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(other, 100, MPI_INT, 1, 0, MPI_COMM_WORLD, &st); /* can steal it */
    }
}
```

## How to fix

Use `MPI_Mprobe` / `MPI_Mrecv` (the matched message is removed from matching), give each
thread its own communicator, or make probe and receive one critical section that the other
threads' receives also take.

## MPI standard reference

MPI 4.1 §3.8.2 and §11.6.2 ("A receive call that uses source and tag values returned by a
preceding call to `MPI_PROBE` or `MPI_IPROBE` will receive the message matched by the probe
call only if there was no other matching receive after the probe and before that receive.
In a multithreaded environment, it is up to the user to enforce this condition").
"#,
};

/// What a receive accepts: its communicator and pattern.
fn recv_spec(op: &Op) -> Option<&RecvSpec> {
    match op {
        Op::Recv { recv, .. } | Op::Sendrecv { recv, .. } => Some(recv),
        _ => None,
    }
}

#[cfg(test)]
fn accepts(recv: &RecvSpec, comm: CommId, source: u32, tag: i32) -> bool {
    recv.comm == comm
        && match recv.source {
            Some(Source::Any) => true,
            Some(Source::Rank(r)) => r == source,
            None => false,
        }
        && match recv.tag {
            TagMatch::Any => true,
            TagMatch::Tag(t) => t == tag,
        }
}

const NOTE: &str = "MPI 4.1 §11.6.2: a receive that uses source and tag values returned by a preceding probe receives the probed message only if there was no other matching receive after the probe and before that receive; in a multithreaded environment the user must enforce this";
const HELP: &str = "use MPI_Mprobe and MPI_Mrecv, give each thread its own communicator, or put probe and receive in one critical section that the other receives also use";

/// What a receive accepts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Accepts {
    comm: CommId,
    source: Option<Source>,
    tag: TagMatch,
}

/// What a probe found.
#[derive(Clone, Copy)]
struct Envelope {
    comm: CommId,
    source: u32,
    tag: i32,
}

impl Accepts {
    fn of(recv: &RecvSpec) -> Accepts {
        Accepts {
            comm: recv.comm,
            source: recv.source,
            tag: recv.tag,
        }
    }

    fn message(&self, m: Envelope) -> bool {
        self.comm == m.comm
            && match self.source {
                Some(Source::Any) => true,
                Some(Source::Rank(r)) => r == m.source,
                None => false,
            }
            && match self.tag {
                TagMatch::Any => true,
                TagMatch::Tag(t) => t == m.tag,
            }
    }
}

/// What TH004 keeps of one rank's calls.
#[derive(Default)]
pub(super) struct Watch {
    /// By thread: the receives a later probe's message may be taken by.
    receives: FxHashMap<u16, Receives>,
    /// The probes whose window may still take a receive of another thread.
    windows: Vec<Window>,
    found: BTreeSet<Found>,
}

/// One thread's receives so far.
struct Receives {
    slot: usize,
    /// The last one: it may still be inside MPI.
    last: (Call, Accepts),
    /// The older ones by site, function and what they accept: the latest epoch.
    older: FxHashMap<(SiteId, ByAddress, Accepts), u32>,
}

/// A probe that found a message, and the receives of other threads that may take it.
struct Window {
    probe: Call,
    envelope: Envelope,
    /// The probing thread's receive of the message, once it came.
    own: Option<Call>,
    /// The receives seen before `own`, judged when it comes.
    waiting: Vec<Candidate>,
}

/// A receive of another thread that accepts a probed message.
#[derive(Clone, Copy)]
struct Candidate {
    recv: Call,
    /// Its time is known (false: older receives folded by site, which ended before the
    /// probe entered).
    timed: bool,
    /// It happens before the probe, or the probe before it.
    before_probe: bool,
    after_probe: bool,
}

/// A finding of one rank, before its end says whether "possible" ones stand.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    when: When,
    form: &'static str,
    /// Thread, site and function of the receive, of the probe, and of the probing thread's
    /// receive.
    recv: (u16, u32, &'static str),
    probe: (u16, u32, &'static str),
    own: Option<(u32, &'static str)>,
    source: u32,
    tag: i32,
}

impl Watch {
    /// Whether [`Watch::call`] has anything to do with a call of `op`: a receive, a probe,
    /// or any call while a probe's window is open.
    #[inline]
    pub fn wants(&self, op: &Op) -> bool {
        matches!(op, Op::Recv { .. } | Op::Sendrecv { .. } | Op::Probe { .. })
            || !self.windows.is_empty()
    }

    /// The next call of the rank.
    pub fn call(&mut self, call: &Call, event: &Event, clocks: &ThreadClocks, latest_enter: u64) {
        let clock = clocks.clock(call.slot);
        if let Some(spec) = recv_spec(&event.op) {
            let accepts = Accepts::of(spec);
            for w in &mut self.windows {
                if w.probe.thread == call.thread {
                    if w.own.is_none() && accepts.message(w.envelope) {
                        w.own = Some(*call);
                        for c in std::mem::take(&mut w.waiting) {
                            judge(&mut self.found, w, &c, false, clocks);
                        }
                    }
                    continue;
                }
                if !accepts.message(w.envelope) {
                    continue;
                }
                let c = Candidate {
                    recv: *call,
                    timed: true,
                    before_probe: false, // recorded later
                    after_probe: w.probe.before(clock),
                };
                match w.own {
                    None => w.waiting.push(c),
                    Some(own) => judge(&mut self.found, w, &c, own.before(clock), clocks),
                }
            }
            match self.receives.get_mut(&call.thread) {
                Some(r) => {
                    let (last, accepts) = std::mem::replace(&mut r.last, (*call, accepts));
                    let epoch = r
                        .older
                        .entry((last.site, ByAddress(last.call), accepts))
                        .or_default();
                    *epoch = (*epoch).max(last.epoch);
                }
                None => {
                    self.receives.insert(
                        call.thread,
                        Receives {
                            slot: call.slot,
                            last: (*call, accepts),
                            older: FxHashMap::default(),
                        },
                    );
                }
            }
        }
        if let Op::Probe {
            comm,
            matched_probe: false,
            found,
            matched: Some((source, tag)),
            ..
        } = event.op
        {
            if found != Some(false) {
                self.probe(call, clock, Envelope { comm, source, tag });
            }
        }
        // A window closes once no later receive can overlap the probing thread's receive
        // or be unordered with it.
        if !self.windows.is_empty() {
            self.windows.retain(|w| {
                w.own.is_none_or(|own| {
                    let inside = own
                        .time
                        .is_none_or(|t| t.exit_ns.is_none_or(|exit| exit > latest_enter));
                    inside || own.epoch > clocks.floor(own.slot)
                })
            });
        }
    }

    /// How many calls (or calls folded by site) it holds.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        let receives: usize = self.receives.values().map(|r| 1 + r.older.len()).sum();
        let windows: usize = self.windows.iter().map(|w| 2 + w.waiting.len()).sum();
        receives + windows + self.found.len()
    }

    /// A probe found a message: its window opens with the receives seen so far.
    fn probe(&mut self, probe: &Call, clock: &[u32], envelope: Envelope) {
        let mut waiting = Vec::new();
        for (&thread, r) in &self.receives {
            if thread == probe.thread {
                continue;
            }
            let (last, accepts) = r.last;
            if accepts.message(envelope) {
                waiting.push(Candidate {
                    recv: last,
                    timed: true,
                    before_probe: last.before(clock),
                    after_probe: false, // recorded earlier
                });
            }
            for (&(site, ByAddress(name), accepts), &epoch) in &r.older {
                if accepts.message(envelope) {
                    let recv = Call {
                        thread,
                        slot: r.slot,
                        site,
                        call: name,
                        time: None,
                        epoch,
                    };
                    waiting.push(Candidate {
                        recv,
                        timed: false,
                        before_probe: recv.before(clock),
                        after_probe: false,
                    });
                }
            }
        }
        self.windows.push(Window {
            probe: *probe,
            envelope,
            own: None,
            waiting,
        });
    }

    /// The findings, once the rank ended.
    pub fn finish(mut self, ended: &Ended, clocks: &ThreadClocks, out: &mut Findings) {
        for w in std::mem::take(&mut self.windows) {
            for c in &w.waiting {
                judge(&mut self.found, &w, c, false, clocks);
            }
        }
        for f in self.found {
            if f.when == When::Possible && !ended.possible {
                continue;
            }
            let (source, tag) = (f.source, f.tag);
            let mut sites = vec![
                SiteRole {
                    site: SiteId(f.recv.1),
                    call: f.recv.2,
                    label: on_thread_id(
                        f.recv.0,
                        format!("{} accepts the probed message", f.recv.2),
                    ),
                },
                SiteRole {
                    site: SiteId(f.probe.1),
                    call: f.probe.2,
                    label: on_thread_id(
                        f.probe.0,
                        crate::text!(
                            "{} found a message from {} with tag {tag}",
                            f.probe.2,
                            crate::text::ranks(source)
                        ),
                    ),
                },
            ];
            if let Some((site, call)) = f.own {
                sites.push(SiteRole {
                    site: SiteId(site),
                    call,
                    label: on_thread_id(f.probe.0, "means to receive the probed message"),
                });
            }
            out.add_at_sites(
                "TH004",
                severity(f.when),
                ended.rank,
                format!(
                    "{} of thread {} {} the message thread {} probed (source {source}, tag {tag})",
                    f.recv.2, f.recv.0, f.form, f.probe.0
                ),
                sites,
                NOTE,
                HELP,
            );
        }
    }
}

/// Judges receive `c` in the window of `w` (as `window_conflict` does on a whole rank); `after_own`: the probing
/// thread's receive happens before it.
fn judge(
    found: &mut BTreeSet<Found>,
    w: &Window,
    c: &Candidate,
    after_own: bool,
    clocks: &ThreadClocks,
) {
    let (p, r) = (&w.probe, &c.recv);
    let Some(pt) = p.time else {
        return;
    };
    let mut when = None;
    if c.timed {
        let Some(rt) = r.time else {
            return;
        };
        let window_end = w
            .own
            .and_then(|o| o.time)
            .map_or(Some(u64::MAX), |ot| ot.exit_ns)
            .unwrap_or(u64::MAX);
        if rt.enter_ns < window_end && rt.exit_ns.unwrap_or(u64::MAX) > pt.enter_ns {
            when = Some(When::Occurred);
        }
    }
    if when.is_none() {
        let unordered =
            clocks.known(p.slot) && clocks.known(r.slot) && !c.after_probe && !c.before_probe;
        let known = unordered || c.after_probe;
        if known && !c.before_probe && !after_own {
            when = Some(When::Possible);
        }
    }
    let Some(when) = when else {
        return;
    };
    let form = match when {
        When::Possible => "can take",
        When::Occurred if p.overlaps(r) => "ran at the same time as the probe and can take",
        When::Occurred if w.own.is_some_and(|o| o.overlaps(r)) => {
            "ran at the same time as the probing thread's receive and can take"
        }
        When::Occurred => "ran between the probe and the probing thread's receive and can take",
    };
    found.insert(Found {
        when,
        form,
        recv: (r.thread, r.site.0, r.call),
        probe: (p.thread, p.site.0, p.call),
        own: w.own.map(|o| (o.site.0, o.call)),
        source: w.envelope.source,
        tag: w.envelope.tag,
    });
}

/// The whole-rank form of the check, the reference the pass ([`Watch`]) is tested against.
#[cfg(test)]
pub(crate) fn check(t: &RankThreads, out: &mut Findings) {
    let events = &t.rank.events;
    let mut receives: std::collections::HashMap<CommId, Vec<usize>> = Default::default();
    for (i, e) in events.iter().enumerate() {
        if let Some(spec) = recv_spec(&e.op) {
            receives.entry(spec.comm).or_default().push(i);
        }
    }
    for (p, pe) in events.iter().enumerate() {
        let Op::Probe {
            comm,
            matched_probe: false,
            found,
            matched: Some((source, tag)),
            ..
        } = pe.op
        else {
            continue;
        };
        if found == Some(false) {
            continue;
        }
        // The probing thread's receive of the probed message.
        let own = events
            .iter()
            .enumerate()
            .skip(p + 1)
            .find(|(_, e)| {
                e.thread == pe.thread
                    && recv_spec(&e.op).is_some_and(|r| accepts(r, comm, source, tag))
            })
            .map(|(i, _)| i);
        for &r in receives.get(&comm).map_or(&[][..], Vec::as_slice) {
            let re = t.event(r);
            if re.thread == pe.thread
                || !recv_spec(&re.op).is_some_and(|spec| accepts(spec, comm, source, tag))
            {
                continue;
            }
            let Some(when) = window_conflict(t, p, own, r) else {
                continue;
            };
            let mut roles = vec![
                Role {
                    event: re,
                    label: on_thread(re, format!("{} accepts the probed message", re.call)),
                },
                Role {
                    event: pe,
                    label: on_thread(
                        pe,
                        crate::text!(
                            "{} found a message from {} with tag {tag}",
                            pe.call,
                            crate::text::ranks(source)
                        ),
                    ),
                },
            ];
            if let Some(o) = own {
                roles.push(Role {
                    event: t.event(o),
                    label: on_thread(t.event(o), "means to receive the probed message"),
                });
            }
            let form = form_text(t, p, own, r, when);
            out.add(
                "TH004",
                severity(when),
                t.rank.rank,
                format!(
                    "{} of thread {} {form} the message thread {} probed (source {source}, tag {tag})",
                    re.call, re.thread, pe.thread
                ),
                roles,
                "MPI 4.1 §11.6.2: a receive that uses source and tag values returned by a preceding probe receives the probed message only if there was no other matching receive after the probe and before that receive; in a multithreaded environment the user must enforce this",
                "use MPI_Mprobe and MPI_Mrecv, give each thread its own communicator, or put probe and receive in one critical section that the other receives also use",
            );
        }
    }
}

/// Whether receive `r` of another thread falls in the window from probe `p` to the probing
/// thread's receive `own`: it ran there in this run, or nothing orders it outside.
#[cfg(test)]
fn window_conflict(t: &RankThreads, p: usize, own: Option<usize>, r: usize) -> Option<When> {
    let (pe, re) = (t.event(p), t.event(r));
    let (Some(pt), Some(rt)) = (pe.time, re.time) else {
        return None;
    };
    let window_end = own
        .and_then(|o| t.event(o).time)
        .map_or(Some(u64::MAX), |ot| ot.exit_ns)
        .unwrap_or(u64::MAX);
    let r_exit = rt.exit_ns.unwrap_or(u64::MAX);
    if rt.enter_ns < window_end && r_exit > pt.enter_ns {
        return Some(When::Occurred);
    }
    let hb = t.hb.as_ref()?;
    let known = hb.unordered(t.rank, p, r) || hb.ordered(t.rank, p, r);
    let before_probe = hb.ordered(t.rank, r, p);
    let after_own = own.is_some_and(|o| hb.ordered(t.rank, o, r));
    (known && !before_probe && !after_own).then_some(When::Possible)
}

#[cfg(test)]
fn form_text(t: &RankThreads, p: usize, own: Option<usize>, r: usize, when: When) -> &'static str {
    let overlaps = |a: usize| crate::threads::overlap(t.event(a), t.event(r));
    match when {
        When::Possible => "can take",
        When::Occurred if overlaps(p) => "ran at the same time as the probe and can take",
        When::Occurred if own.is_some_and(overlaps) => {
            "ran at the same time as the probing thread's receive and can take"
        }
        When::Occurred => "ran between the probe and the probing thread's receive and can take",
    }
}
