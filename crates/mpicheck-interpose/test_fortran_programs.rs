// Shared body of each interposition crate's tests/fortran_programs.rs (pulled in with
// `include!`, after test_support.rs): runs testprogs/calls_<binding>.f90 on 2 ranks and checks
// that every call is recorded once, flagged Fortran, with the same (C) values a C program's
// trace would hold.

fn check_fortran_program(family: support::Family, binding: &str) {
    use mpicheck_trace::schema::ArgValue;
    use support::{calls, constant, exactly};

    if env!("MPICHECK_INTERPOSE_BUILT") != "1" || !support::have(&family.mpifort) {
        eprintln!(
            "SKIPPED: {} is not installed ({} library built: {})",
            family.mpifort,
            family.name,
            env!("MPICHECK_INTERPOSE_BUILT")
        );
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

    for (&rank, trace) in &traces {
        let peer = 1 - rank as i64;
        assert!(
            trace.header.initialized() && trace.header.finalized(),
            "{binding} rank {rank}: {:?}",
            trace.header
        );
        let integer = constant(trace, "DATATYPE.MPI_INTEGER");
        let world = constant(trace, "MPI_COMM_WORLD");
        let calls = calls(trace);
        let wrapped = [
            "MPI_Init",
            "MPI_Finalize",
            "MPI_Irecv",
            "MPI_Isend",
            "MPI_Waitall",
            "MPI_Comm_split",
            "MPI_Barrier",
            "MPI_Comm_free",
            "MPI_Type_contiguous",
            "MPI_Type_commit",
            "MPI_Type_free",
        ];
        for name in wrapped {
            let call = exactly(&calls, name, 1)[0];
            assert!(
                call.record.fortran,
                "{binding} rank {rank}: {name} not flagged as a Fortran call"
            );
            assert!(
                call.record.complete && call.ret() == 0,
                "{binding} rank {rank}: {name}"
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
        let info = exactly(&calls, "MPICHECK_Comm_info", 1)[0];
        assert!(info.record.fortran);
        assert_eq!(info.int("comm"), newcomm);
        assert_eq!(info.input("members"), &ArgValue::Array(vec![1, 0]));
        assert_eq!(exactly(&calls, "MPI_Barrier", 1)[0].int("comm"), newcomm);

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
    }
}
