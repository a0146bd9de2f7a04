//! Requests: their identities, completion, and the waits and tests on them.

use std::num::NonZeroI64;

use super::*;

/// Where the handles of a wait's or a start's requests were in the program's memory: the
/// address of its request variable, or of the first entry of its array and the bytes from
/// one entry to the next. `None` in traces that do not record it.
#[derive(Clone, Copy)]
pub(super) struct RequestAddresses {
    pub(super) first: Option<i64>,
    pub(super) stride: i64,
}

impl RequestAddresses {
    const UNKNOWN: RequestAddresses = RequestAddresses {
        first: None,
        stride: 0,
    };

    /// The request addresses of `call`: of its `request`, or its `array_of_requests`.
    fn of(args: &Args, call: &CallRecord) -> RequestAddresses {
        let p = &args.plan.p2p;
        RequestAddresses {
            first: args
                .int_at(p.request_address)
                .or_else(|| args.int_at(p.requests_address))
                .filter(|&a| a != 0),
            // Fortran handles are INTEGERs (mpi_f08's TYPE(MPI_Request) holds one), of the
            // 4 bytes of MPI_Fint in both MPIs; the record's array holds C handles.
            stride: if call.fortran { 4 } else { p.requests_stride },
        }
    }

    fn at(self, i: usize) -> Option<NonZeroI64> {
        self.first
            .and_then(|a| NonZeroI64::new(a.wrapping_add(self.stride.wrapping_mul(i as i64))))
    }
}

/// Up to this many handles, occurrences in a call's array are counted by looking back:
/// cheaper than a hash table for the short arrays of nearly every wait.
const SHORT: usize = 32;

impl<'t> RankNormalizer<'t> {
    /// The addresses of the requests `call` names, where they may matter: once some handle
    /// was live for two requests at once.
    pub(super) fn request_addresses(&self, args: &Args, call: &CallRecord) -> RequestAddresses {
        if self.handles_shared {
            RequestAddresses::of(args, call)
        } else {
            RequestAddresses::UNKNOWN
        }
    }

    /// The request a call that makes one gets: MPI's handle in its `request` argument,
    /// written to the variable at the address recorded beside it.
    pub(super) fn made_request(
        &mut self,
        args: &Args,
        persistent: bool,
        comm: Option<LocalComm>,
        recv_event: Option<usize>,
    ) -> ReqId {
        let p = &args.plan.p2p;
        let raw = args.out_int_at(p.request);
        let address = args.int_at(p.request_address);
        self.new_request(raw, address, persistent, comm, recv_event)
    }

    /// A request MPI gave handle `raw` (`None`: not known), written to the program's
    /// variable at `address`.
    pub(super) fn new_request(
        &mut self,
        raw: Option<i64>,
        address: Option<i64>,
        persistent: bool,
        comm: Option<LocalComm>,
        recv_event: Option<usize>,
    ) -> ReqId {
        let id = ReqId(self.next_request);
        self.next_request += 1;
        if let Some(raw) = raw.filter(|&r| Some(r) != self.constants.request_null) {
            let address = address.and_then(NonZeroI64::new);
            let state = &mut *self.state;
            let live = state.requests.entry(raw).or_default();
            // A handle still live handed out again: MPI returned one shared, already
            // complete request object (MPICH, Open MPI do for operations that complete at
            // once). Calls name them apart by the program's variables holding them when
            // those are known and differ (`request_of`); else which thread's call used
            // which cannot be told apart.
            if let Some(earlier) = live.iter().rev().find(|e| !e.persistent) {
                if address.is_none() || earlier.address.is_none() || earlier.address == address {
                    state.shared_requests.extend([earlier.id, id]);
                }
            }
            state.handles_shared |= !live.is_empty();
            live.push(RequestInfo {
                id,
                persistent,
                comm,
                recv_event,
                made_ns: state.call_exit_ns,
                address,
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

    /// The request handle `raw` names in a call whose request variable is at `address`.
    pub(super) fn request_id(&mut self, raw: i64, address: RequestAddresses) -> Option<ReqId> {
        if self.handles_shared && address.first.is_some() {
            if let Some(id) = self.request_at(raw, address.at(0), &[]) {
                return Some(id);
            }
            return self.request_of(raw, 1, &[], true);
        }
        self.request_of(raw, 1, &[], false)
    }

    /// The requests an array of handles names, whose entries are at `addresses`. An entry
    /// names the live request with its handle that MPI wrote to that entry's address, when
    /// the trace has the addresses and one was; else the k-th occurrence of a handle among
    /// the entries left is the k-th oldest live request with that handle not named by
    /// address (see [`Self::requests`]).
    pub(super) fn request_ids(
        &mut self,
        raws: &[i64],
        addresses: RequestAddresses,
    ) -> WaitRequests {
        if self.handles_shared && addresses.first.is_some() {
            return self.request_ids_by_address(raws, addresses);
        }
        // No handle was ever live twice, or no addresses: the order of the handles decides.
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
                self.request_of(raw, occurrence, &[], false)
            })
            .collect()
    }

    /// [`Self::request_ids`] where the addresses may tell apart requests sharing a handle.
    #[cold]
    fn request_ids_by_address(
        &mut self,
        raws: &[i64],
        addresses: RequestAddresses,
    ) -> WaitRequests {
        let mut by_address = WaitRequests::new();
        let mut taken = Vec::new();
        for (i, &raw) in raws.iter().enumerate() {
            let id = self.request_at(raw, addresses.at(i), &taken);
            taken.extend(id);
            by_address.push(id);
        }
        let mut seen: FxHashMap<i64, usize> = FxHashMap::default();
        (0..raws.len())
            .map(|i| {
                if by_address[i].is_some() {
                    return by_address[i];
                }
                let raw = raws[i];
                let occurrence = if raws.len() <= SHORT {
                    (0..i)
                        .filter(|&j| raws[j] == raw && by_address[j].is_none())
                        .count()
                        + 1
                } else {
                    let n = seen.entry(raw).or_insert(0);
                    *n += 1;
                    *n
                };
                self.request_of(raw, occurrence, &taken, true)
            })
            .collect()
    }

    /// The live request with handle `raw`, made before the call entered, that MPI wrote to
    /// the variable at `address`, when several live requests have that handle and none of
    /// `taken`: the newest such (an older one whose variable the program reused for
    /// another request is lost to it).
    fn request_at(&self, raw: i64, address: Option<NonZeroI64>, taken: &[ReqId]) -> Option<ReqId> {
        let address = address?;
        let live = self.requests.get(&raw).filter(|live| live.len() > 1)?;
        let enter = self.call_enter_ns;
        live.iter()
            .rev()
            .find(|info| {
                info.made_ns <= enter && info.address == Some(address) && !taken.contains(&info.id)
            })
            .map(|info| info.id)
    }

    /// The request the `occurrence`-th (from 1) use of handle `raw` in one call names, of
    /// those not `taken` (named by address). `addressed`: the call has the addresses of
    /// its requests, which did not tell apart live requests sharing `raw`.
    fn request_of(
        &mut self,
        raw: i64,
        occurrence: usize,
        taken: &[ReqId],
        addressed: bool,
    ) -> Option<ReqId> {
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
        let made_before = || {
            live.iter()
                .filter(move |info| info.made_ns <= enter && !taken.contains(&info.id))
        };
        let named = made_before()
            .nth(occurrence - 1)
            .or_else(|| made_before().next_back())
            .or_else(|| live.get(occurrence - 1))
            .or_else(|| live.last())
            .map(|info| info.id);
        if addressed && live.len() > 1 {
            // Named by the order of the handles though the call's addresses were known
            // (the program moved a handle to another variable): no surer than without them.
            if let Some(id) = named.filter(|id| !self.state.shared_requests.contains(id)) {
                self.state.shared_requests.push(id);
            }
        }
        Some(match named {
            Some(id) => id,
            None if self
                .retired
                .get(&raw)
                .is_some_and(|&(_, exit)| self.call_enter_ns < exit) =>
            {
                self.retired[&raw].0
            }
            // A request the trace did not see being created: give it an identity so waits
            // on it still show up.
            None => self.new_request(Some(raw), None, false, None, None),
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
        let requests = self.request_ids(raws, self.request_addresses(args, call));
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
