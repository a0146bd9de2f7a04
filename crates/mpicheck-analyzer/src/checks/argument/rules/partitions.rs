//! Partitioned communication (MPI 4.1 §4): the number of partitions of `MPI_Psend_init` and
//! `MPI_Precv_init` is at least 1, the partitions `MPI_Pready`, `MPI_Pready_range`,
//! `MPI_Pready_list` and `MPI_Parrived` name are in 0..partitions-1 of their request, and a
//! send partition is marked ready only while its request is active (started, not yet
//! completed) and once per epoch; a partitioned receive takes no wildcard source or tag.

use rustc_hash::FxHashSet;

use super::{ArgState, CallArgs};
use crate::model::ArgProblem;

/// A partitioned request as the rank knows it, by raw handle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionedRequest {
    /// Its number of partitions (`None`: not a valid one, nothing to judge ranges by).
    pub partitions: Option<i64>,
    /// Made by `MPI_Psend_init` (else `MPI_Precv_init`).
    pub send: bool,
    /// Started and not yet completed.
    pub active: bool,
    /// The partitions marked ready in the current epoch.
    pub ready: FxHashSet<i64>,
}

/// Whether `short` is one of the calls this module judges.
pub(super) fn judged(short: &str) -> bool {
    matches!(
        short,
        "Psend_init" | "Precv_init" | "Pready" | "Pready_range" | "Pready_list" | "Parrived"
    )
}

/// The partitions a call marks ready, in the order it names them (`None` for other calls).
pub fn marked_ready(
    call_short: &str,
    int: impl Fn(&str) -> Option<i64>,
    list: Option<&[i64]>,
) -> Option<Vec<i64>> {
    Some(match call_short {
        "Pready" => vec![int("partition")?],
        "Pready_range" => {
            let (low, high) = (int("partition_low")?, int("partition_high")?);
            // A range is at most the request's partitions: cap what a wild bound would list.
            (low..=high).take(1 << 20).collect()
        }
        "Pready_list" => list?.to_vec(),
        _ => return None,
    })
}

pub(super) fn partition_issues(
    call: &CallArgs,
    state: &dyn ArgState,
    issue: &mut impl FnMut(&str, ArgProblem),
) {
    if !judged(call.short) {
        return;
    }
    if matches!(call.short, "Psend_init" | "Precv_init") {
        if let Some(value) = call.int("partitions").filter(|&p| p < 1) {
            issue("partitions", ArgProblem::InvalidPartitions { value });
        }
        // Partitioned receives match exactly: no wildcards (MPI 4.1 §4.2.2).
        let c = state.constants();
        if call.short == "Precv_init" {
            for (param, wildcard, name) in [
                ("source", c.any_source, "MPI_ANY_SOURCE"),
                ("tag", c.any_tag, "MPI_ANY_TAG"),
            ] {
                if wildcard.is_some() && call.int(param) == wildcard {
                    issue(param, ArgProblem::PartitionedWildcard { wildcard: name });
                }
            }
        }
        return;
    }
    let Some(request) = call.int("request").and_then(|raw| state.partitioned(raw)) else {
        return; // not a partitioned request the trace saw made
    };
    let in_range = |p: i64| request.partitions.is_none_or(|n| (0..n).contains(&p));
    let mut outside = |name: &str, value: i64| {
        if !in_range(value) {
            let partitions = request.partitions.unwrap_or(0);
            issue(name, ArgProblem::PartitionOutOfRange { value, partitions });
            true
        } else {
            false
        }
    };
    let bad_range = match call.short {
        "Parrived" | "Pready" => call
            .int("partition")
            .is_some_and(|p| outside("partition", p)),
        "Pready_range" => {
            let low = call
                .int("partition_low")
                .is_some_and(|p| outside("partition_low", p));
            let high = call
                .int("partition_high")
                .is_some_and(|p| outside("partition_high", p));
            low || high
        }
        "Pready_list" => call
            .array("array_of_partitions")
            .and_then(|list| list.iter().copied().find(|&p| !in_range(p)))
            .is_some_and(|p| outside("array_of_partitions", p)),
        _ => false,
    };
    if call.short == "Parrived" || !request.send {
        return;
    }
    if !request.active {
        issue("request", ArgProblem::PartitionedInactive);
        return;
    }
    if bad_range {
        return;
    }
    let list = call.array("array_of_partitions");
    let Some(marked) = marked_ready(call.short, |n| call.int(n), list) else {
        return;
    };
    let mut seen = FxHashSet::default();
    if let Some(&again) = marked
        .iter()
        .find(|&&p| request.ready.contains(&p) || !seen.insert(p))
    {
        let param = match call.short {
            "Pready" => "partition",
            "Pready_range" => "partition_low",
            _ => "array_of_partitions",
        };
        issue(param, ArgProblem::PartitionReadyTwice { value: again });
    }
}
