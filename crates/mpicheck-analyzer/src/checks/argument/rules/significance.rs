//! Which arguments matter on this rank in this call ([`significant`], MPI 4.1 §6) and where
//! `MPI_IN_PLACE` is valid ([`in_place_allowed_in`]), both mostly decided by the blocking
//! collective a call is a form of ([`collective_base`]).

use super::inputs::{ArgState, CallArgs, CommView};

/// Collectives, by the name of their blocking form.
const COLLECTIVES: &[&str] = &[
    "Barrier",
    "Bcast",
    "Gather",
    "Gatherv",
    "Scatter",
    "Scatterv",
    "Allgather",
    "Allgatherv",
    "Alltoall",
    "Alltoallv",
    "Alltoallw",
    "Reduce",
    "Allreduce",
    "Reduce_scatter",
    "Reduce_scatter_block",
    "Scan",
    "Exscan",
    "Neighbor_allgather",
    "Neighbor_allgatherv",
    "Neighbor_alltoall",
    "Neighbor_alltoallv",
    "Neighbor_alltoallw",
];

/// The blocking collective a call is a form of (`Igatherv_c`, `Gather_init` → `Gatherv`,
/// `Gather`), if it is one.
pub fn collective_base(short: &str) -> Option<&'static str> {
    let s = short.strip_suffix("_c").unwrap_or(short);
    let s = s.strip_suffix("_init").unwrap_or(s);
    let find = |s: &str| COLLECTIVES.iter().copied().find(|c| *c == s);
    // Nonblocking forms: `Igather` → `Gather`, `Ineighbor_alltoallv` → `Neighbor_alltoallv`.
    let nonblocking = |s: &str| {
        COLLECTIVES
            .iter()
            .copied()
            .find(|c| c.eq_ignore_ascii_case(s))
    };
    find(s).or_else(|| s.strip_prefix('I').and_then(nonblocking))
}

/// Which side of a rooted collective a parameter belongs to: `Some(true)` significant only
/// at the root, `Some(false)` only at the other processes (and at an intracommunicator's
/// root too), `None` everywhere or not rooted.
fn root_side(base: &str, param: &str) -> Option<bool> {
    let recv = matches!(
        param,
        "recvbuf" | "recvcount" | "recvcounts" | "recvtype" | "displs"
    );
    let send = matches!(param, "sendbuf" | "sendcount" | "sendcounts" | "sendtype");
    match base {
        "Gather" | "Gatherv" => (recv || send).then_some(recv),
        "Scatter" | "Scatterv" => {
            (recv || send || param == "displs").then_some(send || param == "displs")
        }
        "Reduce" => match param {
            "recvbuf" => Some(true),
            "sendbuf" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a parameter's value matters on this rank in this call (MPI 4.1 §6: arguments of
/// rooted collectives significant only at the root or only at the others, intercommunicator
/// roots; `MPI_IN_PLACE` making the send or receive count and type ignored; `MPI_NO_OP`
/// making the origin buffer of `MPI_Get_accumulate` ignored; the `peer_comm`,
/// `remote_leader` and `tag` of `MPI_Intercomm_create` significant only at the local
/// leader).
pub(super) fn significant(call: &CallArgs, state: &dyn ArgState, param: &str) -> bool {
    let base = call.plan.base;
    Significance::of(call, state, base).of_role(&ParamRole::of(param, base))
}

pub(super) const GET_ACCUMULATE: &str = "Get_accumulate";

/// What decides which parameters of one call are significant (see [`significant`]), looked
/// up once per call: [`judge`](super::judge) asks it for every parameter.
pub(super) struct Significance {
    sendbuf_in_place: bool,
    recvbuf_in_place: bool,
    /// `MPI_Get_accumulate` with `MPI_NO_OP`: the origin buffer is ignored.
    no_op_get_accumulate: bool,
    /// `MPI_Intercomm_create*`: whether this rank is the local leader.
    intercomm_leader: Option<bool>,
    /// A rooted collective: its root, and the rank's view of its communicator (`None`: not
    /// known).
    rooted: Option<(i64, Option<CommView>)>,
    proc_null: Option<i64>,
    mpi_root: Option<i64>,
}

impl Significance {
    /// `base`: the call's [`collective_base`].
    pub(super) fn of(
        call: &CallArgs,
        state: &dyn ArgState,
        base: Option<&'static str>,
    ) -> Significance {
        let c = state.constants();
        let plan = call.plan;
        let in_place = |at: Option<usize>| c.in_place.is_some() && call.int_at(at) == c.in_place;
        let intercomm_leader = plan.intercomm_create.then(|| {
            // Significant only at the local leader.
            let me = call.comm().and_then(|raw| state.comm(raw)?.my_rank);
            me.is_some_and(|me| call.int_at(plan.local_leader) == Some(i64::from(me)))
        });
        let rooted = base.and_then(|_| {
            let root = call.int_at(plan.root)?;
            Some((root, call.int_at(plan.comm).and_then(|raw| state.comm(raw))))
        });
        Significance {
            sendbuf_in_place: in_place(plan.sendbuf),
            recvbuf_in_place: in_place(plan.recvbuf),
            no_op_get_accumulate: plan.get_accumulate
                && c.no_op.is_some()
                && call.int_at(plan.op) == c.no_op,
            intercomm_leader,
            rooted,
            proc_null: c.proc_null,
            mpi_root: c.mpi_root,
        }
    }

    /// Whether a parameter in `role` is significant.
    pub(super) fn of_role(&self, role: &ParamRole) -> bool {
        if self.sendbuf_in_place && role.send_count_or_type {
            return false;
        }
        if self.recvbuf_in_place && role.recv_count_or_type {
            return false;
        }
        if role.origin && self.no_op_get_accumulate {
            return false;
        }
        if let Some(leader) = self.intercomm_leader {
            if role.leader_only {
                return leader;
            }
        }
        if role.peer_comm {
            return false;
        }
        let Some((root, comm)) = &self.rooted else {
            return true;
        };
        if role.comm {
            return true;
        }
        let Some(comm) = comm else {
            return false; // the rank's role is not known
        };
        if comm.remote_size.is_some() {
            // Intercommunicator: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL
            // (nothing is significant there), the other group the root's rank.
            if Some(*root) == self.proc_null {
                return role.root || role.comm;
            }
            let at_root = Some(*root) == self.mpi_root;
            return match role.root_side {
                Some(root_only) => root_only == at_root,
                None => true,
            };
        }
        match role.root_side {
            Some(true) => comm.my_rank.is_some_and(|me| i64::from(me) == *root),
            _ => true,
        }
    }
}

/// What [`Significance::of_role`] asks of a parameter, from its name and its call's
/// [`collective_base`]: worked out once per parameter of a function (`RulePlan`).
#[derive(Clone, Copy)]
pub(super) struct ParamRole {
    /// `sendcount`, `sendtype`, `sendcounts`, `sendtypes`, `sdispls`: ignored with an
    /// in-place send buffer.
    send_count_or_type: bool,
    /// `recvcount`, `recvtype`: ignored with an in-place receive buffer.
    recv_count_or_type: bool,
    /// `origin_*`: ignored by `MPI_Get_accumulate` with `MPI_NO_OP`.
    origin: bool,
    /// `peer_comm`, `remote_leader`, `tag`: significant only at the local leader of
    /// `MPI_Intercomm_create`.
    leader_only: bool,
    peer_comm: bool,
    comm: bool,
    root: bool,
    /// Its side of a rooted collective ([`root_side`]).
    root_side: Option<bool>,
}

impl ParamRole {
    pub(super) fn of(param: &str, base: Option<&str>) -> ParamRole {
        ParamRole {
            send_count_or_type: matches!(
                param,
                "sendcount" | "sendtype" | "sendcounts" | "sendtypes" | "sdispls"
            ),
            recv_count_or_type: matches!(param, "recvcount" | "recvtype"),
            origin: param.starts_with("origin_"),
            leader_only: matches!(param, "peer_comm" | "remote_leader" | "tag"),
            peer_comm: param == "peer_comm",
            comm: param == "comm",
            root: param == "root",
            root_side: base.and_then(|base| root_side(base, param)),
        }
    }
}

/// Which of the conditions that make a parameter insignificant ([`Significance::of_role`])
/// a function's calls can meet, from the function alone (`RulePlan`).
pub(super) struct RoleConditions {
    /// It has a `sendbuf`, which may be `MPI_IN_PLACE`.
    pub(super) sendbuf_in_place: bool,
    /// It has a `recvbuf`, which may be `MPI_IN_PLACE`.
    pub(super) recvbuf_in_place: bool,
    /// `MPI_Get_accumulate` (and its kin), whose `op` may be `MPI_NO_OP`.
    pub(super) no_op: bool,
    /// `MPI_Intercomm_create*`.
    pub(super) intercomm_create: bool,
    /// A rooted collective: a form of a collective with a `root` parameter.
    pub(super) rooted: bool,
}

impl ParamRole {
    /// Whether [`Significance::of_role`] may say no for this role in some call of a
    /// function that can meet `conditions`: `false` when it says yes in every call, so the
    /// call's [`Significance`] need not be asked (each case below is one of its `false`s).
    pub(super) fn conditional(&self, conditions: &RoleConditions) -> bool {
        (conditions.sendbuf_in_place && self.send_count_or_type)
            || (conditions.recvbuf_in_place && self.recv_count_or_type)
            || (conditions.no_op && self.origin)
            || (conditions.intercomm_create && self.leader_only)
            || self.peer_comm
            || (conditions.rooted && !self.comm)
    }
}

/// Whether `MPI_IN_PLACE` is a valid value of buffer parameter `param` in a call whose
/// [`collective_base`] is `base` (worked out per parameter in the plan).
pub(super) fn in_place_allowed_in(base: Option<&str>, param: &str) -> bool {
    let Some(base) = base else {
        return false;
    };
    if base.starts_with("Neighbor_") || base == "Bcast" || base == "Barrier" {
        return false;
    }
    // The send buffer of the collectives that have one, at the root of rooted ones (elsewhere
    // CO004 reports it, as a mismatch with the root); the
    // receive buffer of a scatter at the root.
    match root_side(base, param) {
        Some(false) => true,
        Some(true) => base.starts_with("Scatter"),
        None => param == "sendbuf",
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::recorded_functions;
    use super::super::RulePlan;
    use super::*;

    /// Every state of a call's [`Significance`] that a function's calls can be in.
    fn states(plan: &RulePlan) -> Vec<Significance> {
        let comms = [
            None,
            Some(CommView {
                size: 4,
                remote_size: None,
                my_rank: Some(0),
            }),
            Some(CommView {
                size: 4,
                remote_size: None,
                my_rank: None,
            }),
            Some(CommView {
                size: 2,
                remote_size: Some(3),
                my_rank: Some(1),
            }),
        ];
        let (proc_null, mpi_root) = (-3, -4);
        let mut rooted = vec![None];
        if plan.base.is_some() && plan.root.is_some() {
            for root in [0, 1, proc_null, mpi_root] {
                rooted.extend(comms.iter().map(|&comm| Some((root, comm))));
            }
        }
        let mut states = Vec::new();
        for sendbuf_in_place in [false, plan.sendbuf.is_some()] {
            for recvbuf_in_place in [false, plan.recvbuf.is_some()] {
                for no_op_get_accumulate in [false, plan.get_accumulate] {
                    let leaders: &[Option<bool>] = if plan.intercomm_create {
                        &[Some(true), Some(false)]
                    } else {
                        &[None]
                    };
                    for &intercomm_leader in leaders {
                        for &rooted in &rooted {
                            states.push(Significance {
                                sendbuf_in_place,
                                recvbuf_in_place,
                                no_op_get_accumulate,
                                intercomm_leader,
                                rooted,
                                proc_null: Some(proc_null),
                                mpi_root: Some(mpi_root),
                            });
                        }
                    }
                }
            }
        }
        states
    }

    /// A parameter the plan does not mark `conditional` is significant in every call: the
    /// judge does not ask its role.
    #[test]
    fn parameters_not_conditional_are_always_significant() {
        let functions = recorded_functions();
        assert!(functions.len() > 400);
        let mut conditional = 0;
        for function in &functions {
            let name = function.name.strip_prefix("MPI_").unwrap();
            let short = name.strip_suffix("_c").unwrap_or(name);
            let plan = RulePlan::of(function, short);
            let states = states(&plan);
            for param in &plan.params {
                if param.conditional {
                    conditional += 1;
                    continue;
                }
                for state in &states {
                    assert!(
                        state.of_role(&param.role),
                        "{} {}",
                        function.name,
                        function.params[param.at].name
                    );
                }
            }
            assert_eq!(
                plan.significance_needed,
                plan.params.iter().any(|p| p.conditional)
            );
        }
        assert!(conditional > 50, "{conditional}");
    }
}
