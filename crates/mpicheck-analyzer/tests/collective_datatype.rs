//! Text-trace tests of the collective argument checks (CO002–CO005) and the datatype
//! signature checks (TY001–TY003), including mirrors of their tier-2 programs.

use mpicheck_analyzer::checks::run_all_in_every_order;
use mpicheck_analyzer::text_trace::parse;
use mpicheck_analyzer::Diagnostic;

fn findings(trace: &str) -> Vec<Diagnostic> {
    run_all_in_every_order(&parse(trace).unwrap_or_else(|e| panic!("{e}")))
}

fn codes_at(findings: &[Diagnostic]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = findings
        .iter()
        .flat_map(|f| {
            f.locations
                .iter()
                .filter_map(|l| Some((f.code.to_string(), l.line?)))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[track_caller]
fn expect(trace: &str, expected: &[(&str, u32)]) -> Vec<Diagnostic> {
    let found = findings(trace);
    let want: Vec<(String, u32)> = expected.iter().map(|(c, l)| (c.to_string(), *l)).collect();
    let got = codes_at(&found);
    let dump: Vec<String> = found
        .iter()
        .map(|f| format!("{} {}", f.code, f.message))
        .collect();
    assert_eq!(got, want, "{dump:#?}");
    found
}

#[test]
fn mpe_example_2_bcast_int_vs_byte() {
    let f = expect(
        "ranks 4
         0-2: bcast root=0 count=1 type=int @ ex2.c:16
         3: blocked bcast root=0 count=1 type=byte @ ex2.c:16
         0-2: finalize @ ex2.c:17",
        &[("TY001", 16)],
    );
    assert_eq!(f.len(), 1, "one clear finding");
    assert!(
        f[0].message
            .contains("rank 0 sends 1 × MPI_INT, rank 3 expects 1 × MPI_BYTE"),
        "{}",
        f[0].message
    );
}

#[test]
fn mpe_example_4_bcast_root() {
    let f = expect(
        "ranks 4
         *: bcast root=0 count=4 type=int @ ex4.c:15
         *: finalize @ ex4.c:16",
        &[],
    );
    assert!(f.is_empty());
    let f = expect(
        "ranks 4
         0-2: bcast root=0 count=4 type=int @ ex4.c:15
         3: bcast root=3 count=4 type=int @ ex4.c:15
         *: finalize @ ex4.c:16",
        &[("CO002", 15)],
    );
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].message,
        "root mismatch in MPI_Bcast (collective #1 on MPI_COMM_WORLD): rank 3 passes root 3 while ranks 0-2 pass root 0"
    );
    assert_eq!(f[0].locations[0].ranks, vec![3], "the odd rank comes first");
}

#[test]
fn reordered_rooted_calls_are_an_ordering_problem_not_a_root_mismatch() {
    expect(
        "ranks 2
         0: bcast root=0 @ f.c:37
         0: bcast root=1 @ f.c:38
         1: bcast root=1 @ f.c:41
         1: bcast root=0 @ f.c:42
         *: finalize @ f.c:46",
        &[("DL002", 37), ("DL002", 41)],
    );
}

#[test]
fn ops_and_in_place() {
    let f = expect(
        "ranks 4
         0: allreduce count=4 type=int op=max @ c.c:10
         1-3: allreduce count=4 type=int op=sum @ c.c:10
         *: allreduce count=4 type=int op=sum inplace=1 @ c.c:11
         1: allreduce count=4 type=int op=sum inplace=1 @ c.c:12
         0,2,3: allreduce count=4 type=int op=sum @ c.c:14
         0,1,3: reduce root=0 count=4 type=int op=sum @ c.c:15
         2: reduce root=0 count=4 type=int op=sum inplace=1 @ c.c:15
         *: finalize @ c.c:16",
        &[("CO003", 10), ("CO004", 12), ("CO004", 14), ("CO004", 15)],
    );
    assert!(f[0]
        .message
        .contains("rank 0 passes MPI_MAX while ranks 1-3 pass MPI_SUM"));
}

#[test]
fn gatherv_counts_and_alltoallv_pairs() {
    expect(
        "ranks 3
         0: gatherv root=0 sendcount=1 sendtype=int recvcounts=1,1,2 recvtype=int @ g.c:5
         1-2: gatherv root=0 sendcount=1 sendtype=int @ g.c:5
         0: alltoallv sendcounts=1,1,1 sendtype=int recvcounts=1,1,1 recvtype=int @ g.c:6
         1: alltoallv sendcounts=1,1,2 sendtype=int recvcounts=1,1,1 recvtype=int @ g.c:6
         2: alltoallv sendcounts=1,1,1 sendtype=int recvcounts=1,1,1 recvtype=int @ g.c:6
         *: finalize @ g.c:7",
        &[("TY001", 5), ("TY001", 6)],
    );
    // The same with agreeing counts.
    expect(
        "ranks 3
         0: gatherv root=0 sendcount=1 sendtype=int recvcounts=1,1,2 recvtype=int @ g.c:5
         1: gatherv root=0 sendcount=1 sendtype=int @ g.c:5
         2: gatherv root=0 sendcount=2 sendtype=int @ g.c:5
         *: alltoallw sendcounts=1,1,1 sendtypes=int,int,float recvcounts=1,1,1 recvtypes=int,int,int @ g.c:6
         *: finalize @ g.c:7",
        &[("TY001", 6)],
    );
}

#[test]
fn equal_signatures_built_differently_match() {
    expect(
        "ranks 3
         type contig4 4*int
         type pair 1*int,1*double
         type pair2 1*pair
         0: bcast root=0 count=4 type=int @ b.c:3
         1: bcast root=0 count=1 type=contig4 @ b.c:3
         2: bcast root=0 count=2 type=contig4 @ b.c:4
         *: allgather sendcount=1 sendtype=pair recvcount=1 recvtype=pair2 @ b.c:5
         *: finalize @ b.c:6",
        &[("TY001", 3), ("TY001", 4)],
    );
}

#[test]
fn point_to_point_mismatch_and_truncation() {
    let f = expect(
        "ranks 2
         0: send dest=1 tag=0 count=4 type=int @ p.c:10
         1: recv src=0 tag=0 count=16 type=byte @ p.c:20
         0: send dest=1 tag=1 count=8 type=int @ p.c:11
         1: recv src=0 tag=1 count=8 type=int @ p.c:21
         0: send dest=1 tag=2 count=8 type=int @ p.c:12
         1: blocked recv src=0 tag=2 count=4 type=int @ p.c:22
         0: finalize @ p.c:13",
        &[("TY002", 10), ("TY002", 20), ("TY003", 12), ("TY003", 22)],
    );
    assert!(
        f.iter().any(|d| d
            .message
            .contains("rank 0 sends 4 × MPI_INT (tag 0), rank 1 receives it as 16 × MPI_BYTE")),
        "{f:#?}"
    );
}

#[test]
fn persistent_messages_are_matched_at_each_start() {
    // The first round matches; the second start of the send meets a blocking receive of
    // another type, and the persistent receive takes a blocking send too large for it.
    expect(
        "ranks 2
         0: send_init dest=1 tag=0 count=4 type=int req=0 @ q.c:10
         1: recv_init src=0 tag=0 count=4 type=int req=0 @ q.c:20
         *: start req=0 @ q.c:11
         *: wait req=0 @ q.c:12
         0: start req=0 @ q.c:13
         0: wait req=0 @ q.c:14
         1: recv src=0 tag=0 count=4 type=float @ q.c:21
         1: start req=0 @ q.c:22
         0: send dest=1 tag=0 count=8 type=int @ q.c:15
         1: blocked wait req=0 @ q.c:23",
        &[("TY002", 10), ("TY002", 21), ("TY003", 15), ("TY003", 20)],
    );
    // Every start matched by a receive of the same type: nothing to report.
    expect(
        "ranks 2
         0: send_init dest=1 tag=0 count=4 type=int req=0 @ q.c:10
         1: recv_init src=0 tag=any count=4 type=int req=0 @ q.c:20
         *: start req=0 @ q.c:11
         *: wait req=0 @ q.c:12
         *: start req=0 @ q.c:13
         *: wait req=0 @ q.c:14
         *: request_free req=0 @ q.c:15
         *: finalize @ q.c:16",
        &[],
    );
}

#[test]
fn point_to_point_wildcards_follow_the_status() {
    expect(
        "ranks 3
         0: send dest=2 tag=5 count=2 type=int @ w.c:1
         1: send dest=2 tag=5 count=2 type=double @ w.c:2
         2: recv src=any tag=any count=2 type=double matched=1:5 @ w.c:3
         2: recv src=any tag=any count=2 type=int matched=0:5 @ w.c:4
         *: finalize @ w.c:5",
        // A message race, but each receive's type fits the message it got.
        &[("MR001", 1), ("MR001", 2), ("MR001", 3)],
    );
}

#[test]
fn creation_arguments() {
    expect(
        "ranks 4
         0-2: cart_create agree=ndims:2,dims:2x2 @ t.c:3
         3: cart_create agree=ndims:2,dims:4x1 @ t.c:3
         *: graph_create agree=nnodes:4,index:1-2-3-4,edges:1-0-3-2 @ t.c:4
         0: intercomm_create agree=local_leader:0,tag:7 @ t.c:5
         1-3: intercomm_create agree=local_leader:1,tag:7 @ t.c:5
         *: finalize @ t.c:6",
        &[("CO005", 3), ("CO005", 5)],
    );
}

#[test]
fn file_arguments_and_split_collective_order() {
    let f = expect(
        "ranks 2
         comm 1 members 0 1 name file
         *: file_open agree=amode:0x9 @ io.c:1
         0: file_set_size comm=1 agree=size:128 @ io.c:2
         1: file_set_size comm=1 agree=size:256 @ io.c:2
         *: file_write_all_begin comm=1 @ io.c:3
         *: file_read_all comm=1 @ io.c:4
         *: file_write_all_end comm=1 @ io.c:5
         *: file_read_all_begin comm=1 @ io.c:6
         *: file_write_all_end comm=1 @ io.c:7
         *: file_write_all_begin comm=1 @ io.c:8
         *: file_close comm=1 @ io.c:9
         *: finalize @ io.c:10",
        &[
            ("CO005", 2),
            ("CO006", 3),
            ("CO006", 4),
            ("CO006", 6),
            ("CO006", 7),
            ("CO006", 8),
            ("CO006", 9),
        ],
    );
    let order: Vec<&Diagnostic> = f.iter().filter(|d| d.code == "CO006").collect();
    assert_eq!(
        order[0].locations[0].ranks,
        vec![0, 1],
        "folded across ranks"
    );
}
