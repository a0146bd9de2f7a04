//! Collective calls: their operation and the arguments that must agree across ranks.

use super::kind::{AgreeArgs, Form, HandleAction};
use super::*;

impl<'t> RankNormalizer<'t> {
    /// The arguments of a collective call that must agree across ranks.
    pub(super) fn collective_args(&mut self, args: &Args) -> CollectiveArgs {
        let plan = &args.plan.collective;
        let in_place = |at: Option<usize>| {
            self.constants.in_place.is_some() && args.int_at(at) == self.constants.in_place
        };
        let mut out = CollectiveArgs {
            in_place: in_place(plan.sendbuf) || (plan.scatter && in_place(plan.recvbuf)),
            ..Default::default()
        };
        // The v/w variants have no scalar count (per-peer counts are in the arrays).
        let spec =
            |me: &mut Self, count: Option<usize>, datatype: Option<usize>| -> Option<BufSpec> {
                let count = args.int_at(count).unwrap_or(1);
                let raw = args.int_at(datatype)?;
                Some(BufSpec {
                    count,
                    datatype: me.datatype(Some(raw)),
                })
            };
        let counts = |name: &str| -> Option<Vec<i64>> { args.array(name).map(<[i64]>::to_vec) };
        let counts_at =
            |at: Option<usize>| -> Option<Vec<i64>> { args.array_at(at).map(<[i64]>::to_vec) };
        match plan.agree {
            AgreeArgs::Counted => {
                out.send = spec(self, plan.count, plan.datatype);
            }
            AgreeArgs::ReduceScatterBlock => out.send = spec(self, plan.recvcount, plan.datatype),
            AgreeArgs::ReduceScatter => {
                out.recv_counts = counts_at(plan.recvcounts);
                out.send = args.int_at(plan.datatype).map(|raw| BufSpec {
                    count: 1,
                    datatype: self.datatype(Some(raw)),
                });
            }
            AgreeArgs::CartCreate => {
                for name in ["ndims", "reorder"] {
                    if let Some(v) = args.int(name) {
                        out.agree.push((
                            if name == "ndims" { "ndims" } else { "reorder" },
                            v.to_string(),
                        ));
                    }
                }
                if let Some(d) = counts("dims") {
                    out.agree.push(("dims", format!("{d:?}")));
                }
                if let Some(p) = counts("periods") {
                    out.agree.push(("periods", format!("{p:?}")));
                }
            }
            AgreeArgs::GraphCreate => {
                if let Some(v) = args.int("nnodes") {
                    out.agree.push(("nnodes", v.to_string()));
                }
                if let Some(d) = counts("index") {
                    out.agree.push(("index", format!("{d:?}")));
                }
                if let Some(d) = counts("edges") {
                    out.agree.push(("edges", format!("{d:?}")));
                }
                if let Some(v) = args.int("reorder") {
                    out.agree.push(("reorder", v.to_string()));
                }
            }
            AgreeArgs::IntercommCreate => {
                if let Some(v) = args.int("local_leader") {
                    out.agree.push(("local_leader", v.to_string()));
                }
                if let Some(v) = args.int("tag") {
                    out.agree.push(("tag", v.to_string()));
                }
            }
            AgreeArgs::IntercommMerge => {
                if let Some(v) = args.int("high") {
                    out.agree.push(("high", (v != 0).to_string()));
                }
            }
            AgreeArgs::FileOpen => {
                if let Some(v) = args.int("amode") {
                    out.agree.push(("amode", format!("{v:#x}")));
                }
            }
            AgreeArgs::FileSetSize => {
                if let Some(v) = args.int("size") {
                    out.agree.push(("size", v.to_string()));
                }
            }
            AgreeArgs::FileSetAtomicity => {
                if let Some(v) = args.int("flag") {
                    out.agree.push(("flag", (v != 0).to_string()));
                }
            }
            AgreeArgs::FileSeekShared => {
                if let Some(v) = args.int("offset") {
                    out.agree.push(("offset", v.to_string()));
                }
                if let Some(v) = args.int("whence") {
                    out.agree.push(("whence", v.to_string()));
                }
            }
            AgreeArgs::FileSetView => {
                // The etype must have the same signature everywhere; named by its
                // description (handles differ per process).
                if let Some(id) = self.datatype(args.int("etype")) {
                    let name = self.tables.datatypes[id.0 as usize].name.clone();
                    out.agree.push(("etype", name));
                }
            }
            AgreeArgs::WinFence => {
                // MPI 4.1 §12.5.5: NOPRECEDE and NOSUCCEED, if given by any member, must be
                // given by all (the others are local hints).
                if let Some(assert) = args.int("assert") {
                    let mut given = Vec::new();
                    for (name, bit) in [
                        ("MPI_MODE_NOPRECEDE", self.constants.mode_noprecede),
                        ("MPI_MODE_NOSUCCEED", self.constants.mode_nosucceed),
                    ] {
                        match bit {
                            Some(bit) if assert & bit != 0 => given.push(name),
                            Some(_) => {}
                            // Not known for this MPI: nothing to compare.
                            None => return out,
                        }
                    }
                    let given = if given.is_empty() {
                        "neither MPI_MODE_NOPRECEDE nor MPI_MODE_NOSUCCEED".to_string()
                    } else {
                        given.join(" | ")
                    };
                    out.agree.push(("assert", given));
                }
            }
            AgreeArgs::File => {}
            AgreeArgs::Buffers => {
                if !out.in_place || plan.scatter {
                    out.send = spec(self, plan.sendcount, plan.sendtype);
                }
                out.recv = spec(self, plan.recvcount, plan.recvtype);
                out.send_counts = counts_at(plan.sendcounts);
                out.recv_counts = counts_at(plan.recvcounts);
                let types = |me: &mut Self, at: Option<usize>| -> Option<Vec<Option<TypeId>>> {
                    let raw = args.array_at(at)?;
                    Some(raw.iter().map(|&t| me.datatype(Some(t))).collect())
                };
                out.send_types = types(self, plan.sendtypes);
                out.recv_types = types(self, plan.recvtypes);
            }
        }
        if plan.neighbor {
            let comm_raw = args.int_at(plan.comm);
            let local = comm_raw.and_then(|c| self.comms.get(&c));
            let me = local.and_then(|l| l.local.iter().position(|&r| r == self.rank));
            // A cartesian grid (followed for AR012) or a graph topology.
            let lists = me.and_then(|me| {
                let me = me as i64;
                let raw = comm_raw?;
                match self.objects.cart_shapes.get(&raw) {
                    Some(grid) => {
                        let list = cart_neighbors(grid, me);
                        Some((list.clone(), list))
                    }
                    None => Some(self.topologies.get(&raw)?.neighbors(me)),
                }
            });
            if let (Some(local), Some((sources, destinations))) = (local, lists) {
                let world = |list: Vec<Option<i64>>| -> Vec<Option<Rank>> {
                    list.into_iter()
                        .map(|r| r.and_then(|r| local.local.get(usize::try_from(r).ok()?).copied()))
                        .collect()
                };
                out.in_neighbors = Some(world(sources));
                out.out_neighbors = Some(world(destinations));
            }
        }
        if let Some(raw) = args.int_at(plan.op) {
            // A handle of no known op is not compared: raw handles of user ops differ
            // between processes.
            out.op = self
                .constants
                .ops
                .get(&raw)
                .cloned()
                .or_else(|| self.user_ops.get(&raw).cloned().flatten());
        }
        out
    }

    pub(super) fn collective_op(
        &mut self,
        kind: CollectiveKind,
        form: Form,
        args: &Args,
    ) -> Option<Op> {
        let plan = &args.plan.collective;
        let comm_raw = args.int_at(plan.first_comm);
        // A file or window the trace did not see opened or created (or freed already): its
        // communicator is unknown, and none is made up; the call is no collective then.
        let comm = match args.int_at(plan.fh).filter(|_| plan.file_call) {
            Some(fh) if !plan.file_open => self.files.get(&fh)?.clone(),
            _ => match args.int_at(plan.win).filter(|_| comm_raw.is_none()) {
                Some(win) => self.windows.get(&win)?.clone(),
                None => self.comm(comm_raw),
            },
        };
        match plan.handles {
            HandleAction::FileOpen => {
                if let Some(fh) = args.out_int_at(plan.fh) {
                    self.files.insert(fh, comm.clone());
                }
            }
            HandleAction::FileClose => {
                if let Some(fh) = args.int_at(plan.fh) {
                    self.files.remove(&fh);
                }
            }
            HandleAction::WinCreate => {
                if let Some(win) = args.out_int_at(plan.win) {
                    self.windows.insert(win, comm.clone());
                }
            }
            HandleAction::WinFree => {
                if let Some(win) = args.int_at(plan.win) {
                    self.windows.remove(&win);
                }
            }
            HandleAction::None => {}
        }
        if comm.outside {
            // Its other members' calls were not recorded (see `communication_op`).
            return None;
        }
        let blocking = match form {
            Form::Blocking => Blocking::Blocking,
            Form::Nonblocking => {
                Blocking::Nonblocking(self.made_request(args, false, Some(comm.clone()), None))
            }
            Form::Persistent => {
                Blocking::Persistent(self.made_request(args, true, Some(comm.clone()), None))
            }
        };
        let root = args.int_at(plan.root).map(|r| r as i32);
        Some(Op::Collective {
            kind,
            comm: comm.id,
            root,
            blocking,
        })
    }
}
