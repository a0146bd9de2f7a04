//! Requests: their identities, completion, and the waits and tests on them.

use super::*;

impl<'t> RankNormalizer<'t> {
    pub(super) fn new_request(
        &mut self,
        raw: Option<i64>,
        persistent: bool,
        comm: Option<LocalComm>,
        recv_event: Option<usize>,
    ) -> ReqId {
        let id = ReqId(self.next_request);
        self.next_request += 1;
        if let Some(raw) = raw.filter(|&r| Some(r) != self.constants.request_null) {
            let state = &mut *self.state;
            let live = state.requests.entry(raw).or_default();
            // A handle still live handed out again: MPI returned one shared, already
            // complete request object (MPICH, Open MPI do for operations that complete at
            // once); which thread's call used which of them cannot be told apart.
            if let Some(earlier) = live.iter().rev().find(|e| !e.persistent) {
                state.shared_requests.extend([earlier.id, id]);
            }
            live.push(RequestInfo {
                id,
                persistent,
                comm,
                recv_event,
                made_ns: state.call_exit_ns,
            });
        }
        id
    }

    /// Records a completion: fills the matched source of the receive it completes and, when
    /// `retire` (a wait or test, not `MPI_Request_get_status`), retires the handle of a
    /// non-persistent request.
    pub(super) fn complete_request(
        &mut self,
        raw: i64,
        id: Option<ReqId>,
        status: Option<Status>,
        retire: bool,
        receives: &mut Vec<(usize, (Rank, i32))>,
    ) {
        let Some(live) = self.requests.get(&raw) else {
            return;
        };
        let Some(position) = live.iter().position(|info| Some(info.id) == id) else {
            return;
        };
        let info = &live[position];
        if let (Some(index), Some(comm)) = (info.recv_event, info.comm.clone()) {
            if let Some(matched) = self.matched(&comm, status) {
                receives.push((index, matched));
            }
        }
        if retire && !info.persistent {
            self.forget_request(raw, position);
        }
    }

    pub(super) fn forget_request(&mut self, raw: i64, position: usize) {
        let state = &mut *self.state;
        if let Some(live) = state.requests.get_mut(&raw) {
            // An emptied entry stays: MPI hands the handle out again soon, and `retired`
            // keeps the handle anyway (no entry and an empty one are alike to a lookup).
            let info = live.remove(position);
            state.retired.insert(raw, (info.id, state.call_exit_ns));
        }
    }

    pub(super) fn request_id(&mut self, raw: i64) -> Option<ReqId> {
        self.request_of(raw, 1)
    }

    /// The requests an array of handles names. The k-th occurrence of a handle in the array
    /// is the k-th oldest live request with that handle (see [`Self::requests`]).
    pub(super) fn request_ids(&mut self, raws: &[i64]) -> WaitRequests {
        /// Up to this many handles, occurrences are counted by looking back: cheaper than
        /// a hash table for the short arrays of nearly every wait.
        const SHORT: usize = 32;
        let mut seen: FxHashMap<i64, usize> = FxHashMap::default();
        raws.iter()
            .enumerate()
            .map(|(i, &raw)| {
                let occurrence = if raws.len() <= SHORT {
                    raws[..i].iter().filter(|&&r| r == raw).count() + 1
                } else {
                    let n = seen.entry(raw).or_insert(0);
                    *n += 1;
                    *n
                };
                self.request_of(raw, occurrence)
            })
            .collect()
    }

    /// The request the `occurrence`-th (from 1) use of handle `raw` in one call names.
    fn request_of(&mut self, raw: i64, occurrence: usize) -> Option<ReqId> {
        if Some(raw) == self.constants.request_null {
            return None;
        }
        let live = self
            .requests
            .get(&raw)
            .map(|live| live.as_slice())
            .unwrap_or(&[]);
        // Records are in the order calls entered MPI. With several threads, a handle one
        // thread's wait freed can be handed out again to a call of another thread that
        // entered before that wait (it waited inside MPI): its request is then recorded
        // first, though it was made last. A call names only requests made before it
        // entered.
        let enter = self.call_enter_ns;
        let made_before = || live.iter().filter(move |info| info.made_ns <= enter);
        let named = made_before()
            .nth(occurrence - 1)
            .or(made_before().next_back())
            .or(live.get(occurrence - 1))
            .or(live.last());
        Some(match named {
            Some(info) => info.id,
            None if self
                .retired
                .get(&raw)
                .is_some_and(|&(_, exit)| self.call_enter_ns < exit) =>
            {
                self.retired[&raw].0
            }
            // A request the trace did not see being created: give it an identity so waits
            // on it still show up.
            None => self.new_request(Some(raw), false, None, None),
        })
    }

    /// A wait or test of `kind` (`status_only`: `MPI_Request_get_status*`, a test that
    /// leaves the request allocated).
    pub(super) fn wait_op(
        &mut self,
        kind: WaitKind,
        test: bool,
        status_only: bool,
        args: &Args,
        call: &CallRecord,
        receives: &mut Vec<(usize, (Rank, i32))>,
    ) -> Op {
        let p = &args.plan.p2p;
        let one;
        let raws: &[i64] = if kind == WaitKind::One {
            one = args.int_at(p.request);
            one.as_slice()
        } else {
            args.array_at(p.requests).unwrap_or(&[])
        };
        let requests = self.request_ids(raws);
        let completed: Option<Completed> = call.complete.then(|| {
            let non_null = || {
                (0..raws.len() as u32)
                    .filter(|&i| requests[i as usize].is_some())
                    .collect()
            };
            let flag = args.out_int_at(p.flag).map(|f| f != 0);
            match kind {
                WaitKind::One | WaitKind::All => {
                    if !test || flag == Some(true) {
                        non_null()
                    } else {
                        Completed::new()
                    }
                }
                WaitKind::Any => match args.out_int_at(p.index) {
                    Some(i)
                        if i >= 0
                            && Some(i) != self.constants.undefined
                            && (!test || flag == Some(true)) =>
                    {
                        Completed::one(i as u32)
                    }
                    _ => Completed::new(),
                },
                WaitKind::Some => {
                    let n = args
                        .out_int_at(p.outcount)
                        .filter(|&n| n >= 0 && Some(n) != self.constants.undefined)
                        .unwrap_or(0) as usize;
                    args.out_array_at(p.indices)
                        .map(|a| a.iter().take(n).map(|&i| i as u32).collect())
                        .unwrap_or_default()
                }
            }
        });
        if let Some(done) = &completed {
            let statuses = args.statuses();
            for (k, &i) in done.iter().enumerate() {
                let Some(&raw) = raws.get(i as usize) else {
                    continue;
                };
                let status = match kind {
                    WaitKind::One | WaitKind::Any => args.status(),
                    // Waitsome/Testsome report statuses in completion order.
                    WaitKind::Some => statuses.and_then(|s| s.get(k)),
                    WaitKind::All => statuses.and_then(|s| s.get(i as usize)),
                };
                self.complete_request(raw, requests[i as usize], status, !status_only, receives);
            }
        }
        if status_only {
            return Op::RequestStatus {
                requests,
                kind,
                completed,
            };
        }
        Op::Wait {
            requests,
            kind,
            test,
            completed,
        }
    }
}
