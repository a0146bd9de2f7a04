//! One call to one event: dispatch by function, pseudo-calls, communicator creation.

use super::kind::CallKind;
use super::plan::TopologyAction;
use super::*;

impl<'t> RankNormalizer<'t> {
    /// The event of `call`, pushed onto `events` (built there: an event is not copied
    /// on its way); false for a call that makes none. Its arguments are located with `slots`,
    /// whose room the rank's next call reuses. `plan` is what depends only on `function`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn event(
        &mut self,
        function: &FunctionSchema,
        plan: &plan::FunctionPlan,
        call: &CallRecord,
        site: SiteId,
        this_index: usize,
        receives: &mut Vec<(usize, (Rank, i32))>,
        slots: &mut Vec<args::Slot>,
        events: &mut Vec<Event>,
    ) -> bool {
        let slots = plan.layout.slots(&call.words, slots);
        let args = &Args {
            function,
            plan,
            values: args::ArgWords::new(&plan.layout, slots, &call.words, call.complete),
        };
        let full_name = plan.name;
        let name = plan.base_name;
        let returned = call.complete;
        self.call_enter_ns = call.t_enter_ns;
        self.call_exit_ns = if returned { call.t_exit_ns } else { u64::MAX };
        let op = match plan.kind {
            CallKind::CommInfo => {
                self.comm_info(args);
                return false;
            }
            CallKind::TypeInfo => {
                if let (Some(raw), Some(size)) = (args.int("datatype"), args.int("size")) {
                    let mut layout = self.layouts.get(&raw).cloned();
                    if let Some(l) = &layout {
                        if l.description.starts_with("darray of ") {
                            // The darray's local part: size / size of one oldtype element.
                            let old = l
                                .description
                                .strip_prefix("darray of ")
                                .filter(|n| self.constants.datatype_sizes.contains_key(*n))
                                .map(Layout::predefined);
                            let old_size = old
                                .as_ref()
                                .and_then(|o| self.constants.datatype_sizes.get(&o.description))
                                .copied()
                                .filter(|&s| s > 0);
                            layout = match (old, old_size) {
                                (Some(o), Some(s)) => Some(Layout::repeated(
                                    size as u64 / s,
                                    &o,
                                    format!("darray({} × {})", size as u64 / s, o.description),
                                )),
                                _ => None,
                            };
                            if let Some(l) = &layout {
                                self.layouts.insert(raw, l.clone());
                            }
                        }
                    }
                    let name = match &layout {
                        Some(l) => l.description.clone(),
                        None => format!(
                            "derived datatype of {size} bytes (rank {} handle {raw:#x})",
                            self.rank
                        ),
                    };
                    let seen = self.state.seen();
                    let id = self.tables.datatype(&name, seen, Some(size as u64), layout);
                    self.state.set_derived_type(raw, Some(id));
                    self.objects
                        .note_layout(raw, size, args.int("extent").unwrap_or(-1));
                    self.note_type_span(raw, args);
                }
                return false;
            }
            CallKind::OpCreate => {
                let user_fn = self.pending_user_fn.take();
                if let Some(raw) = args.out_int("op") {
                    let commute = args.int("commute").unwrap_or(1) != 0;
                    let what = match user_fn {
                        Some(SourceLocation {
                            function: Some(f), ..
                        }) => Some(format!("user-defined op `{f}`")),
                        Some(SourceLocation {
                            file: Some(file),
                            line: Some(line),
                            ..
                        }) => Some(format!("user-defined op at {file}:{line}")),
                        // Creation order is no identity: ranks may create other ops.
                        _ => None,
                    };
                    let what = what.map(|what| {
                        if commute {
                            what
                        } else {
                            format!("{what} (non-commutative)")
                        }
                    });
                    self.user_ops.insert(raw, what.map(Into::into));
                }
                Op::Other
            }
            CallKind::Init => Op::Init { thread_level: None },
            CallKind::InitThread => Op::Init {
                thread_level: args.out_int("provided").map(|v| v as i32),
            },
            CallKind::Finalize => Op::Finalize,
            CallKind::BufferAttach => Op::BufferAttach {
                bytes: args.int("size").unwrap_or(0),
            },
            CallKind::BufferDetach => Op::BufferDetach,
            _ => self
                .communication_op(args, call, this_index, receives)
                .unwrap_or(Op::Other),
        };
        if plan.type_call {
            self.type_constructor(plan.short, args);
        }
        if matches!(op, Op::Collective { .. }) {
            let collective = self.collective_args(args);
            if !collective.is_empty() {
                let shared = self.shared_collective_args(call.func, collective);
                self.tables
                    .collective_args
                    .insert((self.rank, this_index as u32), shared);
            }
        }
        let array =
            |n: &str| -> Vec<i64> { args.array(n).map(<[i64]>::to_vec).unwrap_or_default() };
        match plan.topology {
            TopologyAction::Graph => {
                self.pending_topology = Some(Topology::Graph {
                    index: array("index"),
                    edges: array("edges"),
                })
            }
            TopologyAction::Adjacent => {
                self.pending_topology = Some(Topology::Adjacent {
                    sources: array("sources"),
                    destinations: array("destinations"),
                })
            }
            // A duplicate keeps its parent's graph (MPI 4.1 §7.4.2); grids are followed in
            // `cart_shapes` (facts/grids.rs).
            TopologyAction::Duplicate => {
                self.pending_topology = args
                    .int("comm")
                    .and_then(|parent| self.topologies.get(&parent))
                    .cloned()
            }
            TopologyAction::None if plan.management_collective => self.pending_topology = None,
            TopologyAction::None => {}
        }
        self.rma_call(name, args, this_index);
        let facts = self.call_facts(args, call, &op, this_index);
        if plan.connects_outside {
            self.pending_outside = Some((full_name, site));
        }
        if plan.management_collective {
            let parent_raw = args
                .int("comm")
                .or(args.int("local_comm"))
                .or(args.int("intercomm"))
                .or(args.int("comm_old"));
            // Calls on windows and files name no communicator and create none: none is made
            // up for them.
            self.pending_creation = parent_raw.map(|raw| {
                let parent = self.comm(Some(raw));
                let ordinal = self.creations.entry(parent.id).or_insert(0);
                *ordinal += 1;
                (parent.id, full_name, *ordinal)
            });
            if matches!(name, "MPI_Comm_idup" | "MPI_Comm_idup_with_info") {
                if let Some(parent_raw) = parent_raw {
                    self.comm_duplicated(parent_raw, args);
                }
            }
        }
        events.push(Event {
            call: full_name,
            op,
            site,
            thread: call.thread,
            returned,
            facts,
            time: None,
        });
        true
    }

    /// The run's shared copy of a collective call's `args`. A program's collectives mostly
    /// repeat their function's last arguments: those are compared before the table hashes
    /// them.
    fn shared_collective_args(
        &mut self,
        function: u16,
        args: CollectiveArgs,
    ) -> Arc<CollectiveArgs> {
        let at = usize::from(function);
        if let Some(Some(last)) = self.last_collective_args.get(at) {
            if **last == args {
                return last.clone();
            }
        }
        let shared = self.tables.intern_collective_args(args);
        let last = &mut self.state.last_collective_args;
        if last.len() <= at {
            last.resize(at + 1, None);
        }
        last[at] = Some(shared.clone());
        shared
    }

    pub(super) fn comm_info(&mut self, args: &Args) {
        let Some(raw) = args.int("comm") else { return };
        // MPI gives processes outside MPI_COMM_WORLD (spawned, connected) no world rank.
        let world = 0..self.tables.comms[0].members.len() as i64;
        let member = |&r: &i64| match world.contains(&r) {
            true => r as Rank,
            false => OUTSIDE_JOB,
        };
        let members: Vec<Rank> = args
            .array("members")
            .unwrap_or(&[])
            .iter()
            .map(member)
            .collect();
        let remote: Option<Vec<Rank>> =
            args.array("remote").map(|a| a.iter().map(member).collect());
        self.comm_created(raw, members, remote);
    }

    /// The communicator of `MPI_Comm_idup` (`_with_info`) has its parent's groups. The
    /// recorder writes no `MPICHECK_Comm_info` for it (the handle is not usable before the
    /// request completes), but MPI returns the handle at once, and it is the next
    /// communicator created on the parent on every member.
    fn comm_duplicated(&mut self, parent_raw: i64, args: &Args) {
        let Some(new_raw) = args.out_int("newcomm") else {
            return;
        };
        let Some(parent) = self.comms.get(&parent_raw) else {
            return;
        };
        let (local, remote) = (
            parent.local.to_vec(),
            parent.remote.as_deref().map(<[Rank]>::to_vec),
        );
        self.comm_created(new_raw, local, remote);
    }

    /// Registers the communicator `raw` of this rank, made by the pending creation.
    fn comm_created(&mut self, raw: i64, members: Vec<Rank>, remote: Option<Vec<Rank>>) {
        if Some(raw) == self.constants.comm_null {
            return;
        }
        let (parent, how, ordinal) =
            self.pending_creation
                .take()
                .unwrap_or((CommId(0), "an unrecorded call", 0));
        let key = match &remote {
            Some(remote_group) => {
                let groups = if members <= *remote_group {
                    (members.clone(), remote_group.clone())
                } else {
                    (remote_group.clone(), members.clone())
                };
                let ordinal = self.intercomm_creations.entry(groups.clone()).or_insert(0);
                *ordinal += 1;
                CommKey::Inter {
                    groups,
                    ordinal: *ordinal,
                }
            }
            None => CommKey::Child {
                parent,
                ordinal,
                members: members.clone(),
                remote: None,
            },
        };
        let parent_name = self.tables.comms[parent.0 as usize].name.clone();
        let info_members = match &key {
            CommKey::Inter { groups, .. } => groups.clone(),
            _ => (members.clone(), Vec::new()),
        };
        let seen = self.state.seen();
        let id = self.tables.comm(key, seen, || CommInfo {
            name: format!("communicator from {how} on {parent_name}").into(),
            members: info_members.0.into(),
            remote: remote.as_ref().map(|_| info_members.1.into()),
        });
        if let Some(topology) = self.pending_topology.take() {
            self.topologies.insert(raw, topology);
        } else {
            self.topologies.remove(&raw);
        }
        let rank = self.rank;
        let comm = LocalComm::new(id, members.into(), remote.map(Into::into), rank);
        if let Some((function, site)) = self.pending_outside.take().filter(|_| comm.outside) {
            self.tables.outside_job_call(function, site, rank);
        }
        self.comms.insert(raw, comm);
    }
}
