//! Datatype signature checks: what a sender sends must match what its receiver expects, as
//! type signatures ([`crate::typesig`]), in collectives (TY001) and point-to-point (TY002,
//! TY003).

use std::collections::BTreeMap;

use crate::model::Rank;
use crate::typesig::{self, Mismatch, Typed};

pub mod collective;
pub mod point_to_point;

/// One sender→receiver pair of a transfer whose signatures do not fit.
pub(crate) struct BadPair {
    pub sender: Rank,
    pub receiver: Rank,
    pub sent: String,
    pub expected: String,
    pub why: Mismatch,
}

/// Compares a transfer; `None` when it fits or cannot be judged.
pub(crate) fn compare(
    sender: Rank,
    send: &Typed,
    receiver: Rank,
    recv: &Typed,
    exact: bool,
) -> Option<BadPair> {
    let why = typesig::mismatch(send, recv, exact)?;
    Some(BadPair {
        sender,
        receiver,
        sent: send.to_string(),
        expected: recv.to_string(),
        why,
    })
}

/// One folded mismatch: what was sent, what was expected, why they differ, the senders and
/// the receivers.
pub(crate) type FoldedPairs = (String, String, Mismatch, Vec<Rank>, Vec<Rank>);

/// Bad pairs folded by what was sent and expected.
pub(crate) fn fold(pairs: Vec<BadPair>) -> Vec<FoldedPairs> {
    type Key = (String, String, String);
    let mut groups: BTreeMap<Key, (Mismatch, Vec<Rank>, Vec<Rank>)> = BTreeMap::new();
    for p in pairs {
        let g = groups
            .entry((p.sent, p.expected, p.why.to_string()))
            .or_insert((p.why, Vec::new(), Vec::new()));
        if !g.1.contains(&p.sender) {
            g.1.push(p.sender);
        }
        if !g.2.contains(&p.receiver) {
            g.2.push(p.receiver);
        }
    }
    groups
        .into_iter()
        .map(|((sent, expected, _), (why, s, r))| (sent, expected, why, s, r))
        .collect()
}
