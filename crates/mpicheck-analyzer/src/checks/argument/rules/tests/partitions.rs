//! Partitioned communication (AR016, and the generic rules on its calls).

use super::*;

/// Partitioned requests: a send of 4 partitions (active, partition 1 ready), the same
/// not started, and a receive of 4.
const PSEND: i64 = 600;
const PSEND_IDLE: i64 = 601;
const PRECV: i64 = 602;

fn with_partitioned() -> State {
    let mut state = State::rank(0);
    let request = |send, active, ready: &[i64]| PartitionedRequest {
        partitions: Some(4),
        send,
        active,
        ready: ready.iter().copied().collect(),
    };
    state.partitioned.insert(PSEND, request(true, true, &[1]));
    state
        .partitioned
        .insert(PSEND_IDLE, request(true, false, &[]));
    state.partitioned.insert(PRECV, request(false, true, &[]));
    state
}

#[test]
fn partitioned_requests_have_partitions_and_no_wildcards() {
    let state = State::rank(0);
    let init = |func, partitions, count, peer, tag| {
        judge_with(
            &state,
            func,
            &[
                I(0x1000),
                I(partitions),
                I(count),
                I(INT),
                I(peer),
                I(tag),
                I(WORLD),
                I(INFO_NULL),
                I(0),
            ],
        )
    };
    assert_eq!(init(36, 4, 2, 1, 0), vec![]);
    assert_eq!(init(37, 1, 0, 3, 5), vec![]);
    assert_eq!(
        init(36, 0, 2, 1, 0),
        vec![("partitions", ArgProblem::InvalidPartitions { value: 0 })]
    );
    // The generic rules judge the rest: count, rank, tag; no wildcards in a receive.
    assert_eq!(
        init(36, 2, -1, 4, 0),
        vec![
            ("count", ArgProblem::NegativeCount { value: -1 }),
            ("dest", ArgProblem::RankOutOfRange { value: 4, size: 4 }),
        ]
    );
    let wildcard = |wildcard| ArgProblem::PartitionedWildcard { wildcard };
    assert_eq!(
        init(37, 2, 1, -2, -1),
        vec![
            ("source", wildcard("MPI_ANY_SOURCE")),
            ("tag", wildcard("MPI_ANY_TAG")),
        ]
    );
    // A send has no wildcard to give: -1 is a negative tag there.
    assert_eq!(
        init(36, 2, 1, 1, -1),
        vec![(
            "tag",
            ArgProblem::InvalidTag {
                value: -1,
                tag_ub: Some(32767)
            }
        )]
    );
}

#[test]
fn partitions_are_in_range_and_marked_ready_once_per_epoch() {
    let state = with_partitioned();
    let pready = |p, req| judge_with(&state, 38, &[I(p), I(req)]);
    let range = |low, high| judge_with(&state, 39, &[I(low), I(high), I(PSEND)]);
    let list = |parts: &'static [i64]| {
        judge_with(&state, 40, &[I(parts.len() as i64), A(parts), I(PSEND)])
    };
    let parrived = |req, p| judge_with(&state, 41, &[I(req), I(p), I(0)]);
    let outside = |value| ArgProblem::PartitionOutOfRange {
        value,
        partitions: 4,
    };
    let twice = |value| ArgProblem::PartitionReadyTwice { value };
    assert_eq!(pready(0, PSEND), vec![]);
    assert_eq!(pready(4, PSEND), vec![("partition", outside(4))]);
    assert_eq!(pready(-1, PSEND), vec![("partition", outside(-1))]);
    assert_eq!(pready(1, PSEND), vec![("partition", twice(1))]);
    assert_eq!(
        pready(0, PSEND_IDLE),
        vec![("request", ArgProblem::PartitionedInactive)]
    );
    // A request the trace did not see made is not judged.
    assert_eq!(pready(9, 777), vec![]);
    assert_eq!(range(2, 3), vec![]);
    assert_eq!(range(0, 2), vec![("partition_low", twice(1))]);
    assert_eq!(range(2, 4), vec![("partition_high", outside(4))]);
    assert_eq!(list(&[0, 2, 3]), vec![]);
    assert_eq!(list(&[0, 2, 0]), vec![("array_of_partitions", twice(0))]);
    assert_eq!(list(&[3, 5]), vec![("array_of_partitions", outside(5))]);
    assert_eq!(parrived(PRECV, 3), vec![]);
    assert_eq!(parrived(PRECV, 4), vec![("partition", outside(4))]);
    assert_eq!(
        judge_with(&state, 38, &[I(0), I(0)]),
        vec![(
            "request",
            ArgProblem::NullHandle {
                kind: ObjectKind::Request
            }
        )]
    );
}
