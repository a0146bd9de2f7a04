// Shared body of each interposition crate's tests/fortran_programs.rs (pulled in with
// `include!`, after test_support.rs): runs testprogs/calls_<binding>.f90 on 2 ranks and checks
// that every call is recorded once, flagged Fortran, with the same (C) values a C program's
// trace would hold.

fn check_fortran_program(family: support::Family, binding: &str) {
    use mpicheck_trace::schema::ArgValue;
    use support::{calls, constant, exactly};

    if env!("MPICHECK_INTERPOSE_BUILT") != "1" || !support::have(&family.mpifort) {
        mpicheck_test_support::skip(&format!(
            "{} is not installed ({} library built: {}; scripts/install-deps installs it)",
            family.mpifort,
            family.name,
            env!("MPICHECK_INTERPOSE_BUILT")
        ));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../mpicheck-interpose/testprogs/calls_{binding}.f90"
    ));
    let exe = dir.path().join(format!("calls_{binding}"));
    family.compile(&family.mpifort, &source, &exe);
    let out = dir.path().join("traces");
    std::fs::create_dir(&out).unwrap();
    let traces = family.run(&exe, 2, &out);
    let exe_path = std::fs::canonicalize(&exe)
        .unwrap()
        .to_string_lossy()
        .into_owned();

    for (&rank, trace) in &traces {
        let peer = 1 - rank as i64;
        assert!(
            trace.header.initialized() && trace.header.finalized(),
            "{binding} rank {rank}: {:?}",
            trace.header
        );
        let integer = constant(trace, "DATATYPE.MPI_INTEGER");
        let world = constant(trace, "MPI_COMM_WORLD");
        // Synchronization records (thread tracking, c/threads.c) are not calls of the
        // program: one says tracking is on, a single-threaded program writes no other.
        let (sync, calls): (Vec<_>, Vec<_>) = calls(trace)
            .into_iter()
            .partition(|c| c.name == "MPICHECK_Sync");
        assert_eq!(sync.len(), 1, "{binding} rank {rank}: thread tracking records");

        // Every call of the program, and nothing else (no call the MPI library makes
        // internally, no call recorded twice through both the Fortran and the C wrapper).
        let mut expected: std::collections::BTreeMap<&str, usize> = [
            ("MPI_Init", 1),
            ("MPI_Comm_rank", 1),
            ("MPI_Comm_size", 1),
            (if rank == 0 { "MPI_Recv" } else { "MPI_Send" }, 1),
            ("MPI_Irecv", 1),
            ("MPI_Isend", 1),
            ("MPI_Waitall", 1),
            ("MPI_Comm_split", 1),
            ("MPI_Barrier", 1),
            ("MPI_Comm_free", 2),
            ("MPI_Type_contiguous", 1),
            ("MPI_Type_commit", 1),
            ("MPI_Type_free", 2),
            ("MPI_Recv_init", 1),
            ("MPI_Send_init", 1),
            ("MPI_Startall", 1),
            ("MPI_Wait", 4),
            ("MPI_Get_count", 1),
            ("MPI_Request_free", 2),
            ("MPI_Iallreduce", 1),
            ("MPI_Comm_group", 1),
            ("MPI_Group_incl", 1),
            ("MPI_Group_size", 1),
            ("MPI_Group_translate_ranks", 1),
            ("MPI_Group_free", 2),
            ("MPI_Type_create_darray", 1),
            ("MPI_Type_size", 1),
            ("MPI_Type_get_extent", 1),
            ("MPI_Comm_set_name", 1),
            ("MPI_Comm_get_name", 1),
            ("MPI_Dist_graph_create_adjacent", 1),
            ("MPI_Ineighbor_allgather", 1),
            ("MPI_Finalize", 1),
            // Pseudo-calls: after MPI_Comm_split and MPI_Dist_graph_create_adjacent, and
            // after MPI_Type_commit.
            ("MPICHECK_Comm_info", 2),
            ("MPICHECK_Type_info", 1),
        ]
        .into_iter()
        .collect();
        if binding != "f08" {
            // A Fortran function (returns a value, no IERROR).
            expected.insert("MPI_Wtime", 1);
        }
        let mut recorded = std::collections::BTreeMap::new();
        for call in &calls {
            *recorded.entry(call.name.as_str()).or_insert(0usize) += 1;
        }
        assert_eq!(recorded, expected, "{binding} rank {rank}: calls recorded");

        // Each flagged Fortran, complete, successful, and with a call site in the program
        // itself (the caller's return address, not a frame inside the MPI library).
        for call in &calls {
            assert!(
                call.record.fortran,
                "{binding} rank {rank}: {} not flagged as a Fortran call",
                call.name
            );
            assert!(
                call.record.complete && call.ret() == 0,
                "{binding} rank {rank}: {}",
                call.name
            );
            let module = module_of(&trace.proc_maps, call.record.callsite);
            assert_eq!(
                module.as_deref(),
                Some(exe_path.as_str()),
                "{binding} rank {rank}: call site {:#x} of {} is not in the program",
                call.record.callsite,
                call.name
            );
        }

        if rank == 0 {
            exactly(&calls, "MPI_Send", 0);
            let recv = exactly(&calls, "MPI_Recv", 1)[0];
            assert!(recv.record.fortran);
            assert_eq!(recv.int("source"), constant(trace, "MPI_ANY_SOURCE"));
            assert_eq!(
                (recv.int("count"), recv.int("datatype"), recv.int("comm")),
                (4, integer, world)
            );
            // Fortran's MPI_STATUS_IGNORE was passed, yet the match is recorded.
            let ArgValue::Status(status) = recv.output("status") else {
                panic!("{:?}", recv.output("status"))
            };
            assert_eq!(
                (status.source, status.tag, status.bytes),
                (1, 42, 4),
                "{binding}"
            );
        } else {
            exactly(&calls, "MPI_Recv", 0);
            let send = exactly(&calls, "MPI_Send", 1)[0];
            assert!(send.record.fortran);
            assert_eq!(
                (send.int("dest"), send.int("tag"), send.int("count")),
                (0, 42, 1)
            );
            assert_eq!((send.int("datatype"), send.int("comm")), (integer, world));
        }
        let isend = exactly(&calls, "MPI_Isend", 1)[0];
        assert_eq!(
            (isend.int("dest"), isend.int("tag")),
            (peer, 7 + rank as i64)
        );
        let irecv = exactly(&calls, "MPI_Irecv", 1)[0];
        let requests = vec![
            irecv.output("request").as_int().unwrap(),
            isend.output("request").as_int().unwrap(),
        ];
        let waitall = exactly(&calls, "MPI_Waitall", 1)[0];
        assert_eq!(
            waitall.input("array_of_requests"),
            &ArgValue::Array(requests)
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
            (peer, 7 + peer, 4),
            "{binding}"
        );

        let split = exactly(&calls, "MPI_Comm_split", 1)[0];
        assert_eq!(split.int("comm"), world);
        let newcomm = split.output("newcomm").as_int().unwrap();
        let info = support::next_after(&calls, split, "MPICHECK_Comm_info");
        assert_eq!(info.int("comm"), newcomm);
        assert_eq!(info.input("members"), &ArgValue::Array(vec![1, 0]));
        assert_eq!(exactly(&calls, "MPI_Barrier", 1)[0].int("comm"), newcomm);
        let freed: Vec<i64> = calls
            .iter()
            .filter(|c| c.name == "MPI_Comm_free")
            .map(|c| c.int("comm"))
            .collect();
        assert_eq!(freed[0], newcomm);

        let contiguous = exactly(&calls, "MPI_Type_contiguous", 1)[0];
        assert_eq!(contiguous.int("oldtype"), integer);
        let committed = exactly(&calls, "MPI_Type_commit", 1)[0]
            .output("datatype")
            .as_int()
            .unwrap();
        let info = exactly(&calls, "MPICHECK_Type_info", 1)[0];
        assert_eq!(
            (info.int("datatype"), info.int("size"), info.int("extent")),
            (committed, 12, 12)
        );

        // Newly wrapped calls, with their C values.
        assert_eq!(
            exactly(&calls, "MPI_Comm_rank", 1)[0].output("rank"),
            &ArgValue::Int(rank as i64)
        );
        let size = exactly(&calls, "MPI_Comm_size", 1)[0];
        assert_eq!(
            (size.int("comm"), size.output("size")),
            (world, &ArgValue::Int(2))
        );

        // Persistent requests: the requests the inits returned are the ones started.
        let recv_init = exactly(&calls, "MPI_Recv_init", 1)[0];
        assert_eq!(
            (
                recv_init.int("source"),
                recv_init.int("tag"),
                recv_init.int("count")
            ),
            (peer, 11, 4)
        );
        let send_init = exactly(&calls, "MPI_Send_init", 1)[0];
        assert_eq!((send_init.int("dest"), send_init.int("tag")), (peer, 11));
        let persistent = vec![
            recv_init.output("request").as_int().unwrap(),
            send_init.output("request").as_int().unwrap(),
        ];
        let startall = exactly(&calls, "MPI_Startall", 1)[0];
        assert_eq!(startall.int("count"), 2);
        assert_eq!(
            startall.input("array_of_requests"),
            &ArgValue::Array(persistent.clone())
        );
        let freed: Vec<i64> = calls
            .iter()
            .filter(|c| c.name == "MPI_Request_free")
            .map(|c| c.int("request"))
            .collect();
        assert_eq!(freed, persistent);
        // An input status (Fortran status converted to C before the call).
        let get_count = exactly(&calls, "MPI_Get_count", 1)[0];
        let ArgValue::Status(status) = get_count.input("status") else {
            panic!("{:?}", get_count.input("status"))
        };
        assert_eq!((status.source, status.tag, status.bytes), (peer, 11, 4));
        assert_eq!(
            (get_count.int("datatype"), get_count.output("count")),
            (integer, &ArgValue::Int(1))
        );

        // A nonblocking collective: Fortran's MPI_IN_PLACE recorded as C's.
        let iallreduce = exactly(&calls, "MPI_Iallreduce", 1)[0];
        assert_eq!(iallreduce.int("sendbuf"), constant(trace, "MPI_IN_PLACE"));
        assert_eq!(
            (iallreduce.int("op"), iallreduce.int("comm")),
            (constant(trace, "OP.MPI_SUM"), world)
        );

        // Groups.
        let world_group = exactly(&calls, "MPI_Comm_group", 1)[0]
            .output("group")
            .as_int()
            .unwrap();
        let incl = exactly(&calls, "MPI_Group_incl", 1)[0];
        assert_eq!(incl.int("group"), world_group);
        assert_eq!(incl.input("ranks"), &ArgValue::Array(vec![peer]));
        let pair = incl.output("newgroup").as_int().unwrap();
        assert_eq!(
            exactly(&calls, "MPI_Group_size", 1)[0].output("size"),
            &ArgValue::Int(1)
        );
        let translate = exactly(&calls, "MPI_Group_translate_ranks", 1)[0];
        assert_eq!(
            (translate.int("group1"), translate.int("group2")),
            (pair, world_group)
        );
        assert_eq!(translate.output("ranks2"), &ArgValue::Array(vec![peer]));

        // A derived datatype constructor and queries.
        let darray = exactly(&calls, "MPI_Type_create_darray", 1)[0];
        assert_eq!(
            (darray.int("size"), darray.int("rank"), darray.int("ndims")),
            (2, rank as i64, 1)
        );
        assert_eq!(darray.input("array_of_gsizes"), &ArgValue::Array(vec![4]));
        assert_eq!(darray.input("array_of_psizes"), &ArgValue::Array(vec![2]));
        assert_eq!(darray.int("oldtype"), integer);
        let newtype = darray.output("newtype").as_int().unwrap();
        let type_size = exactly(&calls, "MPI_Type_size", 1)[0];
        assert_eq!(
            (type_size.int("datatype"), type_size.output("size")),
            (newtype, &ArgValue::Int(8))
        );
        let extent = exactly(&calls, "MPI_Type_get_extent", 1)[0];
        assert_eq!(extent.output("extent"), &ArgValue::Int(16));

        // Strings: the hidden length arguments were forwarded (the program checks the name
        // came back), the string recorded by address.
        assert_eq!(
            exactly(&calls, "MPI_Comm_set_name", 1)[0].int("comm"),
            world
        );

        // Fortran's MPI_UNWEIGHTED is recognized: the weights are not read.
        let graph = exactly(&calls, "MPI_Dist_graph_create_adjacent", 1)[0];
        assert_eq!(graph.input("sources"), &ArgValue::Array(vec![peer]));
        assert_eq!(graph.input("destinations"), &ArgValue::Array(vec![peer]));
        assert_eq!(graph.input("sourceweights"), &ArgValue::Missing);
        assert_eq!(graph.input("destweights"), &ArgValue::Missing);
        let graph_comm = graph.output("comm_dist_graph").as_int().unwrap();
        let neighbor = exactly(&calls, "MPI_Ineighbor_allgather", 1)[0];
        assert_eq!(
            (neighbor.int("comm"), neighbor.int("sendcount")),
            (graph_comm, 1)
        );
    }
}

/// The file mapped at `addr` according to a `/proc/<pid>/maps` text.
fn module_of(maps: &str, addr: u64) -> Option<String> {
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (lo, hi) = fields.next()?.split_once('-')?;
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).ok()?,
            u64::from_str_radix(hi, 16).ok()?,
        );
        let path = fields.nth(4)?;
        (lo <= addr && addr < hi).then(|| path.to_string())
    })
}
