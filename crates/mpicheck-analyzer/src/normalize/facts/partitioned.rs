//! The partitioned requests a rank holds, for AR016: each one's partitions, whether it is
//! active (from `MPI_Start`/`MPI_Startall` to the wait or test that completes it) and the
//! partitions marked ready in the current epoch. A freed request is forgotten, so the state
//! is bounded by the requests the program holds.

use super::super::{Args, RankNormalizer};
use crate::checks::argument::rules::{marked_ready, PartitionedRequest};
use crate::model::{Op, WaitKind};

impl RankNormalizer<'_> {
    /// What a call does to the rank's partitioned requests (after its arguments were judged).
    pub(super) fn note_partitioned(&mut self, args: &Args, op: &Op, short: &str, ret: i32) {
        let table = &mut self.objects.partitioned;
        // (The names below, once per function; most programs hold no partitioned request.)
        if !args.plan.partitioned_call && table.is_empty() {
            return;
        }
        match short {
            "Psend_init" | "Precv_init" if ret == 0 => {
                if let Some(raw) = args.out_int("request") {
                    let partitions = args.int("partitions").filter(|&p| p >= 1);
                    table.insert(
                        raw,
                        PartitionedRequest {
                            partitions,
                            send: short == "Psend_init",
                            ..Default::default()
                        },
                    );
                }
            }
            "Pready" | "Pready_range" | "Pready_list" => {
                let list = args.array("array_of_partitions");
                let request = args.int("request").and_then(|raw| table.get_mut(&raw));
                if let (Some(request), Some(marked)) =
                    (request, marked_ready(short, |n| args.int(n), list))
                {
                    request.ready.extend(marked);
                }
            }
            "Request_free" => {
                if let Some(raw) = args.int("request") {
                    table.remove(&raw);
                }
            }
            _ => {}
        }
        if table.is_empty() {
            return;
        }
        let raws = || -> Vec<i64> {
            match args.int("request") {
                Some(raw) => vec![raw],
                None => args
                    .array("array_of_requests")
                    .map(<[i64]>::to_vec)
                    .unwrap_or_default(),
            }
        };
        match op {
            Op::Start { .. } => {
                for raw in raws() {
                    if let Some(request) = table.get_mut(&raw) {
                        request.active = true;
                        request.ready.clear();
                    }
                }
            }
            Op::Wait {
                completed: Some(done),
                kind,
                ..
            } => {
                let raws = raws();
                let single = *kind == WaitKind::One;
                for &i in done {
                    let raw = if single {
                        raws.first()
                    } else {
                        raws.get(i as usize)
                    };
                    if let Some(request) = raw.and_then(|raw| table.get_mut(raw)) {
                        request.active = false;
                    }
                }
            }
            _ => {}
        }
    }
}
