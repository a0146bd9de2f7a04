//! Findings built by hand, shared by the format tests. The sources they point at are in
//! `tests/fixtures` (except `solver.c`, which is missing on purpose).

#![allow(dead_code)] // each test binary uses a different part

use std::path::PathBuf;

use mpicheck_analyzer::diagnostic::{
    Category, Diagnostic, Location, Severity, WaitEdge, WaitForGraph, WaitNode, WaitSemantics,
};
use mpicheck_analyzer::model::Rank;
use mpicheck_report::{RankTimeline, ReportInput, RunInfo, TimelineCall, TraceEnd, TraceEndState};

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn loc(
    ranks: &[Rank],
    call: &str,
    file: Option<&str>,
    line: Option<u32>,
    label: &str,
) -> Location {
    Location {
        ranks: ranks.into(),
        call: call.into(),
        file: file.map(Into::into),
        line,
        function: None,
        object: None,
        offset: None,
        label: label.into(),
    }
}

pub fn node(ranks: &[Rank], label: &str, semantics: WaitSemantics, in_cycle: bool) -> WaitNode {
    WaitNode {
        ranks: ranks.into(),
        label: label.into(),
        semantics,
        in_cycle,
    }
}

pub fn edge(from: usize, to: usize, label: &str) -> WaitEdge {
    WaitEdge {
        from,
        to,
        label: label.into(),
    }
}

/// Ranks 0-3 in a receive ring, ranks 4-5 waiting (any of) on two of them.
pub fn ring_graph() -> WaitForGraph {
    let recv = "MPI_Recv at ring.c:12";
    WaitForGraph {
        nodes: vec![
            node(&[0], recv, WaitSemantics::And, true),
            node(&[1], recv, WaitSemantics::And, true),
            node(&[2], recv, WaitSemantics::And, true),
            node(&[3], recv, WaitSemantics::And, true),
            node(
                &[4, 5],
                "MPI_Waitany at ring.c:20",
                WaitSemantics::Or,
                false,
            ),
        ],
        edges: vec![
            edge(0, 3, "message tag 0"),
            edge(1, 0, "message tag 0"),
            edge(2, 1, "message tag 0"),
            edge(3, 2, "message tag 0"),
            edge(4, 0, "reply tag 9"),
            edge(4, 2, "reply tag 9"),
        ],
    }
}

pub fn ring_deadlock() -> Diagnostic {
    Diagnostic {
        code: "DL001",
        category: Category::Deadlock,
        severity: Severity::Error,
        message: mpicheck_analyzer::text!(
            "{} wait for each other in a cycle of blocking receives",
            mpicheck_analyzer::text::ranks(vec![0, 1, 2, 3])
        ),
        locations: vec![
            loc(
                &[0],
                "MPI_Recv",
                Some("ring.c"),
                Some(12),
                "waits for a message from rank 3",
            ),
            loc(
                &[1, 2, 3],
                "MPI_Recv",
                Some("ring.c"),
                Some(12),
                "wait for a message from their left neighbour",
            ),
            loc(
                &[0, 1, 2, 3],
                "MPI_Send",
                Some("ring.c"),
                Some(13),
                "never reached: would send the message the right neighbour waits for",
            ),
        ],
        notes: vec![
            "a blocking receive returns only once a matching message has arrived (MPI-4.1 §3.4)"
                .into(),
        ],
        help: Some("post the receive with MPI_Irecv before the send, or use MPI_Sendrecv".into()),
        wait_for: Some(ring_graph()),
        communicator: None,
        tag: None,
    }
}

pub fn request_leak() -> Diagnostic {
    Diagnostic {
        code: "RL001",
        category: Category::ResourceLeak,
        severity: Severity::Warning,
        message: "request of MPI_Isend is never completed".into(),
        locations: vec![loc(
            &[0, 2, 4],
            "MPI_Isend",
            Some("leak.f90"),
            Some(7),
            "starts a send whose request is never waited for",
        )],
        notes: vec![
            "every nonblocking request must be completed or freed before MPI_Finalize".into(),
        ],
        help: Some("call MPI_Wait on the request before MPI_Finalize".into()),
        wait_for: None,
        communicator: None,
        tag: None,
    }
}

/// Points at a file that is not in the fixtures and at an unknown call site.
pub fn collective_mismatch() -> Diagnostic {
    Diagnostic {
        code: "CM001",
        category: Category::CollectiveMismatch,
        severity: Severity::Error,
        message: "ranks 0, 1 call MPI_Bcast while ranks 2, 3 call MPI_Reduce on MPI_COMM_WORLD"
            .into(),
        locations: vec![
            loc(
                &[0, 1],
                "MPI_Bcast",
                Some("src/solver.c"),
                Some(42),
                "broadcasts from root 0",
            ),
            loc(
                &[2, 3],
                "MPI_Reduce",
                Some("src/solver.c"),
                Some(57),
                "reduces to root 0",
            ),
            loc(&[5], "MPI_Barrier", None, None, "waits in a barrier"),
        ],
        notes: vec![
            "all members of a communicator must call the same collectives in the same order".into(),
        ],
        help: None,
        wait_for: None,
        communicator: None,
        tag: None,
    }
}

pub fn findings() -> Vec<Diagnostic> {
    vec![ring_deadlock(), request_leak(), collective_mismatch()]
}

pub fn run_info() -> RunInfo {
    RunInfo {
        program: "./ring".into(),
        args: vec!["--iterations".into(), "10".into()],
        mpi_family: Some("mpich".into()),
        ranks: 6,
        exit_status: None,
        trace_ends: (0..6)
            .map(|rank| TraceEnd {
                rank,
                state: TraceEndState::Interrupted,
                reason: Some("killed by the launcher after 10 s without progress".into()),
            })
            .collect(),
    }
}

pub fn timelines() -> Vec<RankTimeline> {
    let call = |call: &str, site: &str, returned| TimelineCall {
        call: call.into(),
        site: Some(site.into()),
        returned,
    };
    (0..4)
        .map(|rank| RankTimeline {
            rank,
            calls: vec![
                call("MPI_Init", "ring.c:7", true),
                call("MPI_Comm_rank", "ring.c:8", true),
                call("MPI_Comm_size", "ring.c:9", true),
                call("MPI_Recv", "ring.c:12", false),
            ],
        })
        .collect()
}

pub fn input<'a>(
    run: &'a RunInfo,
    findings: &'a [Diagnostic],
    timelines: &'a [RankTimeline],
    base: &'a std::path::Path,
) -> ReportInput<'a> {
    ReportInput {
        run,
        findings,
        timelines,
        source_base: base,
        hidden: Default::default(),
    }
}

pub fn checks() -> Vec<mpicheck_analyzer::CheckInfo> {
    use mpicheck_analyzer::CheckInfo;
    vec![
        CheckInfo {
            code: "DL001",
            name: "recv-cycle",
            category: Category::Deadlock,
            severity: Severity::Error,
            summary: "blocking receives wait for each other in a cycle",
            docs: "## What it does\n\nFinds cycles of blocking receives.\n",
        },
        CheckInfo {
            code: "RL001",
            name: "request-never-completed",
            category: Category::ResourceLeak,
            severity: Severity::Warning,
            summary: "a nonblocking request is never completed",
            docs: "## What it does\n\nFinds requests that are neither completed nor freed.\n",
        },
    ]
}

/// A finding in binaries without debug info: one location known by function and object,
/// one by object only, one by nothing.
pub fn stripped_binary_finding() -> Diagnostic {
    let mut known = loc(&[0], "MPI_Send", None, None, "sends to rank 1");
    known.function = Some("HPL_bcast".into());
    known.object = Some("/usr/lib/x86_64-linux-gnu/libhpl.so.2".into());
    known.offset = Some(0x1a2b);
    let mut object_only = loc(&[1], "MPI_Send", None, None, "sends to rank 0");
    object_only.object = Some("/usr/bin/hpcc".into());
    object_only.offset = Some(0x4010);
    let unknown = loc(&[2], "MPI_Recv", None, None, "never reached");
    Diagnostic {
        code: "DL002",
        category: Category::Deadlock,
        severity: Severity::Error,
        message: "ranks 0, 1 each block in a send to the other".into(),
        locations: vec![known, object_only, unknown],
        notes: vec![],
        help: None,
        wait_for: None,
        communicator: None,
        tag: None,
    }
}
