// Shared body of each interposition crate's tests/c_program.rs (pulled in with `include!`,
// after test_support.rs): runs testprogs/calls.c on 2 ranks and checks its trace.

fn check_c_program(family: support::Family) {
    use mpicheck_trace::schema::ArgValue;
    use support::{calls, constant, exactly, next_after, one};

    if env!("MPICHECK_INTERPOSE_BUILT") != "1" || !support::have(&family.mpicc) {
        mpicheck_test_support::skip(&format!(
            "{} is not installed ({} library built: {}; scripts/install-deps installs it)",
            family.mpicc,
            family.name,
            env!("MPICHECK_INTERPOSE_BUILT")
        ));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mpicheck-interpose/testprogs/calls.c");
    let exe = dir.path().join("calls");
    family.compile(&family.mpicc, &source, &exe);
    let out = dir.path().join("traces");
    std::fs::create_dir(&out).unwrap();
    let traces = family.run(&exe, 2, &out);

    for (&rank, trace) in &traces {
        let peer = 1 - rank as i64;
        assert_eq!(trace.header.family, family.name);
        assert_eq!(trace.header.world_size, Some(2));
        assert!(
            trace.header.initialized() && trace.header.finalized(),
            "rank {rank}: {:?}",
            trace.header
        );
        let mpi_int = constant(trace, "DATATYPE.MPI_INT");
        let world = constant(trace, "MPI_COMM_WORLD");
        let any_source = constant(trace, "MPI_ANY_SOURCE");
        assert_eq!(constant(trace, "DATATYPE_SIZE.MPI_INT"), 4);
        assert!(trace.constant("OP.MPI_SUM").is_some());
        assert!(
            trace.proc_maps.contains("libmpicheck_"),
            "the memory map is recorded"
        );

        let calls = calls(trace);
        // Every call once: the wrappers' depth guard keeps the MPI library's internal MPI
        // calls out of the trace.
        for name in [
            "MPI_Init",
            "MPI_Finalize",
            "MPI_Waitall",
            "MPI_Sendrecv",
            "MPI_Gatherv",
            "MPI_Intercomm_create",
        ] {
            exactly(&calls, name, 1);
        }
        for call in &calls {
            assert!(
                call.record.complete,
                "rank {rank}: {} incomplete",
                call.name
            );
            assert!(!call.record.fortran);
            assert_ne!(call.record.callsite, 0);
            // The wrappers write the exit time inline: it follows the entry, within the run.
            assert!(
                call.record.t_exit_ns >= call.record.t_enter_ns
                    && call.record.t_exit_ns < 600_000_000_000,
                "rank {rank}: {} entered at {} ns, left at {} ns",
                call.name,
                call.record.t_enter_ns,
                call.record.t_exit_ns
            );
            // A single-threaded program's calls that cannot block read no exit time (trace
            // format: flags::INSTANT); calls that can block keep it.
            let instant = matches!(
                call.name.as_str(),
                "MPI_Isend" | "MPI_Irecv" | "MPI_Type_contiguous" | "MPI_Type_commit"
            );
            let blocking = matches!(
                call.name.as_str(),
                "MPI_Barrier" | "MPI_Send" | "MPI_Ssend" | "MPI_Recv" | "MPI_Waitall" | "MPI_Bcast"
            );
            if instant {
                assert_eq!(
                    call.record.t_exit_ns, call.record.t_enter_ns,
                    "rank {rank}: {} read an exit time",
                    call.name
                );
            } else if blocking {
                assert!(
                    call.record.t_exit_ns > call.record.t_enter_ns,
                    "rank {rank}: {} has no exit time",
                    call.name
                );
            }
        }

        if rank == 0 {
            exactly(&calls, "MPI_Send", 0);
            let recv = exactly(&calls, "MPI_Recv", 1)[0];
            assert_eq!(recv.int("source"), any_source);
            assert_eq!(recv.int("count"), 4);
            assert_eq!(recv.int("datatype"), mpi_int);
            assert_eq!(recv.int("comm"), world);
            // MPI_STATUS_IGNORE was passed, yet the match is recorded.
            let ArgValue::Status(status) = recv.output("status") else {
                panic!("{:?}", recv.output("status"))
            };
            assert_eq!((status.source, status.tag, status.bytes), (1, 42, 4));
        } else {
            exactly(&calls, "MPI_Recv", 0);
            let send = exactly(&calls, "MPI_Send", 1)[0];
            assert_eq!(
                (send.int("dest"), send.int("tag"), send.int("count")),
                (0, 42, 1)
            );
            assert_eq!(send.int("datatype"), mpi_int);
            assert_eq!(send.ret(), 0);
        }

        let isend = one(&calls, "MPI_Isend", |c| c.int("tag") == 7 + rank as i64);
        assert_eq!(
            (isend.int("dest"), isend.int("tag")),
            (peer, 7 + rank as i64)
        );
        let irecv = one(&calls, "MPI_Irecv", |c| c.int("tag") == 7 + peer);
        let recv_request = irecv.output("request").as_int().unwrap();
        let send_request = isend.output("request").as_int().unwrap();
        let waitall = exactly(&calls, "MPI_Waitall", 1)[0];
        assert_eq!(
            waitall.input("array_of_requests"),
            &ArgValue::Array(vec![recv_request, send_request])
        );
        let null = constant(trace, "MPI_REQUEST_NULL");
        assert_eq!(
            waitall.output("array_of_requests"),
            &ArgValue::Array(vec![null, null])
        );
        let ArgValue::Statuses(statuses) = waitall.output("array_of_statuses") else {
            panic!("{:?}", waitall.output("array_of_statuses"))
        };
        assert_eq!(
            (statuses[0].source, statuses[0].tag, statuses[0].bytes),
            (peer, 7 + peer, 4)
        );

        let sendrecv = exactly(&calls, "MPI_Sendrecv", 1)[0];
        let ArgValue::Status(status) = sendrecv.output("status") else {
            panic!()
        };
        assert_eq!((status.source, status.tag, status.bytes), (peer, 9, 4));

        let alltoallv = exactly(&calls, "MPI_Alltoallv", 1)[0];
        assert_eq!(alltoallv.input("sendcounts"), &ArgValue::Array(vec![1, 2]));
        assert_eq!(alltoallv.input("sdispls"), &ArgValue::Array(vec![0, 1]));
        let expected = if rank == 0 { vec![1, 1] } else { vec![2, 2] };
        assert_eq!(alltoallv.input("recvcounts"), &ArgValue::Array(expected));

        // The split communicator, then its members in its own rank order: world 1, world 0.
        let split = exactly(&calls, "MPI_Comm_split", 2)[0]; // the first one
        let newcomm = split.output("newcomm").as_int().unwrap();
        let info = next_after(&calls, split, "MPICHECK_Comm_info");
        assert_eq!(info.int("comm"), newcomm);
        assert_eq!(info.input("members"), &ArgValue::Array(vec![1, 0]));
        assert_eq!(info.input("remote"), &ArgValue::Missing);
        assert_eq!(info.record.callsite, split.record.callsite);
        exactly(&calls, "MPICHECK_Comm_info", 3);
        // An intercommunicator: the local group is this rank, the remote group the peer.
        let inter = exactly(&calls, "MPI_Intercomm_create", 1)[0];
        let info = next_after(&calls, inter, "MPICHECK_Comm_info");
        assert_eq!(
            info.int("comm"),
            inter.output("newintercomm").as_int().unwrap()
        );
        assert_eq!(info.input("members"), &ArgValue::Array(vec![rank as i64]));
        assert_eq!(info.input("remote"), &ArgValue::Array(vec![peer]));

        let bcast = exactly(&calls, "MPI_Bcast", 1)[0];
        assert_eq!(bcast.int("comm"), newcomm);

        let commit = exactly(&calls, "MPI_Type_commit", 1)[0];
        let committed = commit.output("datatype").as_int().unwrap();
        let info = exactly(&calls, "MPICHECK_Type_info", 1)[0];
        assert_eq!(
            (info.int("datatype"), info.int("size"), info.int("extent")),
            (committed, 12, 12)
        );
        // Its true bounds, for RMA target bytes (RM006).
        assert_eq!((info.int("true_lb"), info.int("true_extent")), (0, 12));

        // Gatherv: counts recorded at the root only, where they are significant.
        let gatherv = exactly(&calls, "MPI_Gatherv", 1)[0];
        if rank == 0 {
            assert_eq!(gatherv.input("recvcounts"), &ArgValue::Array(vec![1, 1]));
            assert_eq!(gatherv.input("displs"), &ArgValue::Array(vec![0, 1]));
        } else {
            assert_eq!(gatherv.input("recvcounts"), &ArgValue::Missing);
        }

        // A test that did not complete: flag false, status not filled.
        if rank == 0 {
            let test = exactly(&calls, "MPI_Test", 1)[0];
            assert_eq!(test.output("flag"), &ArgValue::Int(0));
            let ArgValue::Status(status) = test.output("status") else {
                panic!("{:?}", test.output("status"))
            };
            assert_eq!((status.source, status.tag, status.bytes), (-1, -1, -1));
        }

        // Waitsome: indices and statuses past outcount are -1, the completed receive has its
        // matched source and tag although the program ignored the statuses.
        let mut completed = 0;
        let mut received = false;
        for call in calls.iter().filter(|c| c.name == "MPI_Waitsome") {
            let outcount = call.output("outcount").as_int().unwrap();
            let indices = call.output("array_of_indices").as_array().unwrap().to_vec();
            let ArgValue::Statuses(statuses) = call.output("array_of_statuses") else {
                panic!()
            };
            assert_eq!((indices.len(), statuses.len()), (2, 2));
            for i in 0..2 {
                if (i as i64) < outcount {
                    if indices[i] == 0 {
                        assert_eq!(
                            (statuses[i].source, statuses[i].tag, statuses[i].bytes),
                            (peer, 88, 4)
                        );
                        received = true;
                    }
                } else {
                    assert_eq!((indices[i], statuses[i].source), (-1, -1));
                }
            }
            completed += outcount;
        }
        assert_eq!(completed, 2);
        assert!(received);

        // Trace format 4: each scalar word has the size of its C type in this MPI, as the
        // table says, and statuses are packed; the values above read back right through it. MPICH's handles are ints,
        // except MPI_File (a pointer); Open MPI's are all pointers.
        let handle = if family.name == "mpich" { 4 } else { 8 };
        for (function, widths) in [
            ("MPI_Send", [("buf", 8), ("count", 4), ("datatype", handle), ("dest", 4), ("tag", 4), ("comm", handle)].as_slice()),
            ("MPI_Send_c", &[("count", 8)]),
            ("MPI_Type_get_extent", &[("lb", 8), ("extent", 8), ("datatype", handle)]),
            ("MPI_Isend", &[("request", handle)]),
            ("MPI_File_open", &[("amode", 4), ("fh", 8)]),
            ("MPI_File_read_at", &[("offset", 8)]),
            // Statuses packed into 24 bytes (`st3`, `sa3`).
            ("MPI_Recv", &[("status", 24)]),
            ("MPI_Waitall", &[("array_of_requests", handle), ("array_of_statuses", 24)]),
            // Array elements sized by their C type too.
            ("MPI_Gatherv", &[("recvcounts", 4)]),
            ("MPI_Neighbor_alltoallw", &[("sdispls", 8), ("sendtypes", handle)]),
        ] {
            let f = trace.schema.function(trace.schema.id_of(function).unwrap()).unwrap();
            for &(param, width) in widths {
                let p = f.params.iter().find(|p| p.name == param).unwrap();
                assert_eq!(p.width, width, "{}: {function}.{param}", family.name);
            }
        }
    }
}
