//! Collective calls: their operation and the arguments that must agree across ranks.

use super::*;

impl<'t> RankNormalizer<'t> {
    /// The arguments of a collective call that must agree across ranks.
    pub(super) fn collective_args(&mut self, short: &str, args: &Args) -> CollectiveArgs {
        let base = short.strip_suffix("_init").unwrap_or(short);
        let base = collective_kind(base)
            .map(|_| base.to_string())
            .or_else(|| nonblocking_base(base).filter(|b| collective_kind(b).is_some()))
            .unwrap_or_else(|| base.to_string());
        let in_place = |name: &str| {
            self.constants.in_place.is_some() && args.int(name) == self.constants.in_place
        };
        let mut out = CollectiveArgs {
            in_place: in_place("sendbuf")
                || (matches!(base.as_str(), "Scatter" | "Scatterv") && in_place("recvbuf")),
            ..Default::default()
        };
        // The v/w variants have no scalar count (per-peer counts are in the arrays).
        let spec = |me: &mut Self, count: &str, datatype: &str| -> Option<BufSpec> {
            let count = args.int(count).unwrap_or(1);
            let raw = args.int(datatype)?;
            Some(BufSpec {
                count,
                datatype: me.datatype(Some(raw)),
            })
        };
        let counts = |name: &str| -> Option<Vec<i64>> { args.array(name).map(<[i64]>::to_vec) };
        match base.as_str() {
            "Bcast" | "Reduce" | "Allreduce" | "Scan" | "Exscan" => {
                out.send = spec(self, "count", "datatype");
            }
            "Reduce_scatter_block" => out.send = spec(self, "recvcount", "datatype"),
            "Reduce_scatter" => {
                out.recv_counts = counts("recvcounts");
                out.send = args.int("datatype").map(|raw| BufSpec {
                    count: 1,
                    datatype: self.datatype(Some(raw)),
                });
            }
            "Cart_create" | "Cart_map" => {
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
            "Graph_create" | "Graph_map" => {
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
            "Intercomm_create" => {
                if let Some(v) = args.int("local_leader") {
                    out.agree.push(("local_leader", v.to_string()));
                }
                if let Some(v) = args.int("tag") {
                    out.agree.push(("tag", v.to_string()));
                }
            }
            "Intercomm_merge" => {
                if let Some(v) = args.int("high") {
                    out.agree.push(("high", (v != 0).to_string()));
                }
            }
            "File_open" => {
                if let Some(v) = args.int("amode") {
                    out.agree.push(("amode", format!("{v:#x}")));
                }
            }
            "File_set_size" | "File_preallocate" => {
                if let Some(v) = args.int("size") {
                    out.agree.push(("size", v.to_string()));
                }
            }
            "File_set_atomicity" => {
                if let Some(v) = args.int("flag") {
                    out.agree.push(("flag", (v != 0).to_string()));
                }
            }
            "File_seek_shared" => {
                if let Some(v) = args.int("offset") {
                    out.agree.push(("offset", v.to_string()));
                }
                if let Some(v) = args.int("whence") {
                    out.agree.push(("whence", v.to_string()));
                }
            }
            "File_set_view" => {
                // The etype must have the same signature everywhere; named by its
                // description (handles differ per process).
                if let Some(id) = self.datatype(args.int("etype")) {
                    let name = self.tables.datatypes[id.0 as usize].name.clone();
                    out.agree.push(("etype", name));
                }
            }
            "Win_fence" => {
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
            s if s.starts_with("File_") => {}
            _ => {
                if !out.in_place || matches!(base.as_str(), "Scatter" | "Scatterv") {
                    out.send = spec(self, "sendcount", "sendtype");
                }
                out.recv = spec(self, "recvcount", "recvtype");
                out.send_counts = counts("sendcounts");
                out.recv_counts = counts("recvcounts");
                let types = |me: &mut Self, name: &str| -> Option<Vec<Option<TypeId>>> {
                    let raw = counts(name)?;
                    Some(raw.into_iter().map(|t| me.datatype(Some(t))).collect())
                };
                out.send_types = types(self, "sendtypes");
                out.recv_types = types(self, "recvtypes");
            }
        }
        if base.starts_with("Neighbor_") {
            let comm_raw = args.int("comm");
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
        if let Some(raw) = args.int("op") {
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

    pub(super) fn collective_op(&mut self, short: &str, args: &Args) -> Option<Op> {
        let (kind, blocking_kind) = if let Some(base) = short.strip_suffix("_init") {
            (collective_kind(base)?, 2)
        } else if let Some(kind) = collective_kind(short) {
            (kind, 0)
        } else if let Some(kind) = nonblocking_base(short).as_deref().and_then(collective_kind) {
            (kind, 1)
        } else if MANAGEMENT_COLLECTIVES.contains(&format!("MPI_{short}").as_str())
            || FILE_COLLECTIVES.contains(&short)
        {
            (
                CollectiveKind::Management,
                if short.starts_with("Comm_i") { 1 } else { 0 },
            )
        } else {
            return None;
        };
        let comm_raw = args.first_of_kind("COMMUNICATOR");
        // A file or window the trace did not see opened or created (or freed already): its
        // communicator is unknown, and none is made up; the call is no collective then.
        let comm = match args.int("fh").filter(|_| short.starts_with("File_")) {
            Some(fh) if short != "File_open" => self.files.get(&fh)?.clone(),
            _ => match args.int("win").filter(|_| comm_raw.is_none()) {
                Some(win) => self.windows.get(&win)?.clone(),
                None => self.comm(comm_raw),
            },
        };
        match short {
            "File_open" => {
                if let Some(fh) = args.out_int("fh") {
                    self.files.insert(fh, comm.clone());
                }
            }
            "File_close" => {
                if let Some(fh) = args.int("fh") {
                    self.files.remove(&fh);
                }
            }
            "Win_create" | "Win_allocate" | "Win_allocate_shared" | "Win_create_dynamic" => {
                if let Some(win) = args.out_int("win") {
                    self.windows.insert(win, comm.clone());
                }
            }
            "Win_free" => {
                if let Some(win) = args.int("win") {
                    self.windows.remove(&win);
                }
            }
            _ => {}
        }
        let request_out = args.out_int("request");
        let blocking = match blocking_kind {
            0 => Blocking::Blocking,
            1 => Blocking::Nonblocking(self.new_request(
                request_out,
                false,
                Some(comm.clone()),
                None,
            )),
            _ => {
                Blocking::Persistent(self.new_request(request_out, true, Some(comm.clone()), None))
            }
        };
        let root = args.int("root").map(|r| r as i32);
        Some(Op::Collective {
            kind,
            comm: comm.id,
            root,
            blocking,
        })
    }
}
