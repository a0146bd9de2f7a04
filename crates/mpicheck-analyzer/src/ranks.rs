//! Sets of ranks ([`RankSet`]) and their compact text: `rank 3`, `ranks 0-3`,
//! `ranks 0-63 stride 2`, `ranks 0, 5, 9-12`, and the parser that reads that text back (for
//! rank sets people type, such as `--ranks`). The one rank-set formatter: findings hold
//! their ranks as [`RankSet`]s whose `Display` is [`format_ranks`], and every report format
//! writes rank sets with it.
//!
//! Grammar of what [`format_ranks`] writes and [`parse_ranks`] reads:
//!
//! ```text
//! set   := "no ranks" | "rank " N | "ranks " list
//! list  := item (", " item)*
//! item  := N | N "-" N | N "-" N " stride " N
//! ```
//!
//! Items are in ascending order and do not overlap. A range `a-b stride s` stands for
//! `a, a+s, ..., b` (so `b - a` is a multiple of `s`).

use std::fmt;
use std::ops::Deref;

use serde::Serialize;

use crate::model::Rank;

/// A set of ranks, sorted and distinct; displays as [`format_ranks`] writes it (`rank 3`,
/// `ranks 0-3`) and serializes as the array of its ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct RankSet(Vec<Rank>);

impl RankSet {
    /// The set of the given ranks, in any order, duplicates counting once.
    pub fn new(ranks: impl IntoIterator<Item = Rank>) -> RankSet {
        let mut v: Vec<Rank> = ranks.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        RankSet(v)
    }

    pub fn one(rank: Rank) -> RankSet {
        RankSet(vec![rank])
    }

    pub fn insert(&mut self, rank: Rank) {
        if let Err(at) = self.0.binary_search(&rank) {
            self.0.insert(at, rank);
        }
    }

    /// Adds every rank of `other`.
    pub fn union_with(&mut self, other: &RankSet) {
        self.0.extend_from_slice(&other.0);
        self.0.sort_unstable();
        self.0.dedup();
    }

    pub fn as_slice(&self) -> &[Rank] {
        &self.0
    }

    pub fn into_vec(self) -> Vec<Rank> {
        self.0
    }
}

impl Deref for RankSet {
    type Target = [Rank];
    fn deref(&self) -> &[Rank] {
        &self.0
    }
}

impl IntoIterator for RankSet {
    type Item = Rank;
    type IntoIter = std::vec::IntoIter<Rank>;
    /// The ranks in increasing order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl fmt::Display for RankSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ranks(&self.0))
    }
}

impl From<Vec<Rank>> for RankSet {
    fn from(v: Vec<Rank>) -> RankSet {
        RankSet::new(v)
    }
}

impl From<&[Rank]> for RankSet {
    fn from(v: &[Rank]) -> RankSet {
        RankSet::new(v.iter().copied())
    }
}

impl From<&Vec<Rank>> for RankSet {
    fn from(v: &Vec<Rank>) -> RankSet {
        RankSet::new(v.iter().copied())
    }
}

impl From<Rank> for RankSet {
    fn from(r: Rank) -> RankSet {
        RankSet::one(r)
    }
}

impl FromIterator<Rank> for RankSet {
    fn from_iter<I: IntoIterator<Item = Rank>>(iter: I) -> RankSet {
        RankSet::new(iter)
    }
}

impl PartialEq<Vec<Rank>> for RankSet {
    fn eq(&self, other: &Vec<Rank>) -> bool {
        &self.0 == other
    }
}

impl PartialEq<[Rank]> for RankSet {
    fn eq(&self, other: &[Rank]) -> bool {
        self.0 == other
    }
}

impl<const N: usize> PartialEq<[Rank; N]> for RankSet {
    fn eq(&self, other: &[Rank; N]) -> bool {
        self.0 == other
    }
}

impl<const N: usize> PartialEq<&[Rank; N]> for RankSet {
    fn eq(&self, other: &&[Rank; N]) -> bool {
        self.0 == *other
    }
}

/// One item of a rank list: `first..=last` stepping by `stride` (1 for a plain range or a
/// single rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    first: Rank,
    last: Rank,
    stride: Rank,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else if self.stride == 1 {
            write!(f, "{}-{}", self.first, self.last)
        } else {
            write!(f, "{}-{} stride {}", self.first, self.last, self.stride)
        }
    }
}

/// Contiguous runs of at least this many ranks become a range. Two neighbours stay a list
/// (`0, 1`): a range saves nothing there and a list reads more plainly.
const MIN_RUN: usize = 3;
/// Strided runs need one more: `1, 3, 5` reads better than `1-5 stride 2`.
const MIN_STRIDED_RUN: usize = 4;

/// Splits sorted, distinct ranks into runs, greedily from the left: at each position take the
/// longest arithmetic progression that starts there, if it has at least [`MIN_RUN`] members
/// ([`MIN_STRIDED_RUN`] for a stride above 1).
fn runs(ranks: &[Rank]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let first = ranks[i];
        if i + 1 < ranks.len() {
            let stride = ranks[i + 1] - first;
            let mut j = i + 1;
            while j + 1 < ranks.len() && ranks[j + 1] - ranks[j] == stride {
                j += 1;
            }
            let min = if stride == 1 {
                MIN_RUN
            } else {
                MIN_STRIDED_RUN
            };
            if j - i + 1 >= min {
                out.push(Run {
                    first,
                    last: ranks[j],
                    stride,
                });
                i = j + 1;
                continue;
            }
        }
        out.push(Run {
            first,
            last: first,
            stride: 1,
        });
        i += 1;
    }
    out
}

fn normalized(ranks: &[Rank]) -> Vec<Rank> {
    let mut v = ranks.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// The list part without the `rank`/`ranks` word: `0, 5, 9-12`. Input need not be sorted;
/// duplicates count once. Empty input gives an empty string.
pub fn format_rank_list(ranks: &[Rank]) -> String {
    let v = normalized(ranks);
    runs(&v)
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `rank 3`, `ranks 0-3`, `ranks 0-63 stride 2`, `ranks 0, 5, 9-12`, or `no ranks`.
/// Input need not be sorted; duplicates count once.
pub fn format_ranks(ranks: &[Rank]) -> String {
    let v = normalized(ranks);
    match v.len() {
        0 => "no ranks".to_string(),
        1 => format!("rank {}", v[0]),
        _ => format!("ranks {}", format_rank_list(&v)),
    }
}

/// Why a rank set text did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankParseError {
    pub message: String,
}

impl fmt::Display for RankParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid rank set: {}", self.message)
    }
}

impl std::error::Error for RankParseError {}

fn err<T>(message: impl Into<String>) -> Result<T, RankParseError> {
    Err(RankParseError {
        message: message.into(),
    })
}

fn number(s: &str) -> Result<Rank, RankParseError> {
    // `u32::from_str` accepts a leading `+`; the grammar does not.
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return err(format!("expected a rank number, found `{s}`"));
    }
    s.parse()
        .or_else(|_| err(format!("rank number `{s}` is too large")))
}

fn parse_item(item: &str) -> Result<Run, RankParseError> {
    let (range, stride) = match item.split_once(" stride ") {
        Some((range, stride)) => (range, Some(number(stride)?)),
        None => (item, None),
    };
    let run = match range.split_once('-') {
        Some((a, b)) => Run {
            first: number(a)?,
            last: number(b)?,
            stride: stride.unwrap_or(1),
        },
        None if stride.is_some() => return err(format!("`{item}`: stride needs a range")),
        None => {
            let n = number(range)?;
            Run {
                first: n,
                last: n,
                stride: 1,
            }
        }
    };
    if run.stride == 0 {
        return err(format!("`{item}`: stride must be positive"));
    }
    if run.last <= run.first && range.contains('-') {
        return err(format!("`{item}`: range must go upwards"));
    }
    if (run.last - run.first) % run.stride != 0 {
        return err(format!(
            "`{item}`: {} is not reached from {} in steps of {}",
            run.last, run.first, run.stride
        ));
    }
    Ok(run)
}

/// Parses a bare list (`0, 5, 9-12`, as [`format_rank_list`] writes it).
pub fn parse_rank_list(text: &str) -> Result<Vec<Rank>, RankParseError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<Rank> = Vec::new();
    for item in text.split(", ") {
        let run = parse_item(item)?;
        if let Some(&prev) = out.last() {
            if run.first <= prev {
                return err(format!("`{item}` is not above the ranks before it"));
            }
        }
        let mut r = run.first;
        loop {
            out.push(r);
            if r == run.last {
                break;
            }
            r += run.stride;
        }
    }
    Ok(out)
}

/// Parses what [`format_ranks`] writes back into sorted, distinct ranks.
pub fn parse_ranks(text: &str) -> Result<Vec<Rank>, RankParseError> {
    if text == "no ranks" {
        Ok(Vec::new())
    } else if let Some(rest) = text.strip_prefix("ranks ") {
        let v = parse_rank_list(rest)?;
        if v.len() < 2 {
            return err("`ranks` needs at least two ranks");
        }
        Ok(v)
    } else if let Some(rest) = text.strip_prefix("rank ") {
        Ok(vec![number(rest)?])
    } else {
        err(format!(
            "expected `rank`, `ranks` or `no ranks`, found `{text}`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rank_set_normalizes_and_displays_with_the_one_formatter() {
        let mut set = RankSet::new([5, 1, 3, 1]);
        assert_eq!(set, vec![1, 3, 5]);
        set.insert(7);
        set.insert(3);
        assert_eq!(set.to_string(), "ranks 1-7 stride 2");
        set.union_with(&RankSet::new([0, 2]));
        assert_eq!(set.to_string(), "ranks 0-3, 5, 7");
        assert_eq!(RankSet::one(4).to_string(), "rank 4");
        assert_eq!(RankSet::default().to_string(), "no ranks");
    }

    #[test]
    fn examples_from_the_conventions() {
        assert_eq!(format_ranks(&[3]), "rank 3");
        assert_eq!(format_ranks(&[0, 1, 2, 3]), "ranks 0-3");
        let even: Vec<Rank> = (0..64).step_by(2).collect();
        assert_eq!(format_ranks(&even), "ranks 0-62 stride 2");
        let to_64: Vec<Rank> = (0..=64).step_by(2).collect();
        assert_eq!(format_ranks(&to_64), "ranks 0-64 stride 2");
        assert_eq!(format_ranks(&[0, 5, 9, 10, 11, 12]), "ranks 0, 5, 9-12");
    }

    #[test]
    fn small_and_degenerate_sets() {
        assert_eq!(format_ranks(&[]), "no ranks");
        assert_eq!(format_ranks(&[0]), "rank 0");
        assert_eq!(format_ranks(&[0, 1]), "ranks 0, 1");
        assert_eq!(format_ranks(&[4, 9]), "ranks 4, 9");
        assert_eq!(format_ranks(&[0, 1, 2]), "ranks 0-2");
        assert_eq!(format_ranks(&[1, 4, 7]), "ranks 1, 4, 7");
        assert_eq!(format_ranks(&[1, 4, 7, 10]), "ranks 1-10 stride 3");
        assert_eq!(format_ranks(&[u32::MAX]), format!("rank {}", u32::MAX));
        assert_eq!(
            format_ranks(&[u32::MAX - 2, u32::MAX - 1, u32::MAX]),
            format!("ranks {}-{}", u32::MAX - 2, u32::MAX)
        );
    }

    #[test]
    fn unsorted_and_duplicate_input_is_normalized() {
        assert_eq!(format_ranks(&[3, 1, 2, 2, 1]), "ranks 1-3");
        assert_eq!(format_ranks(&[7, 7]), "rank 7");
    }

    #[test]
    fn mixed_runs() {
        // A strided run followed by a contiguous one.
        assert_eq!(
            format_ranks(&[0, 2, 4, 6, 7, 8, 9]),
            "ranks 0-6 stride 2, 7-9"
        );
        // Too short to stride: 0, 2 stay single, 4-7 is contiguous.
        assert_eq!(format_ranks(&[0, 2, 4, 5, 6, 7]), "ranks 0, 2, 4-7");
        // Greedy from the left: 0,1 is too short for a range, 1,3,5,7 is a strided run.
        assert_eq!(format_ranks(&[0, 1, 3, 5, 7]), "ranks 0, 1-7 stride 2");
        assert_eq!(
            format_ranks(&[0, 1, 2, 3, 8, 16, 24, 32, 100]),
            "ranks 0-3, 8-32 stride 8, 100"
        );
        assert_eq!(format_rank_list(&[2, 3]), "2, 3");
        assert_eq!(format_rank_list(&[]), "");
    }

    #[test]
    fn parses_the_examples() {
        assert_eq!(parse_ranks("rank 3").unwrap(), vec![3]);
        assert_eq!(parse_ranks("ranks 0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_ranks("ranks 0-6 stride 2").unwrap(), vec![0, 2, 4, 6]);
        assert_eq!(
            parse_ranks("ranks 0, 5, 9-12").unwrap(),
            vec![0, 5, 9, 10, 11, 12]
        );
        assert_eq!(parse_ranks("no ranks").unwrap(), Vec::<Rank>::new());
        assert_eq!(parse_rank_list("").unwrap(), Vec::<Rank>::new());
    }

    #[test]
    fn rejects_malformed_text() {
        for bad in [
            "",
            "rank",
            "rank ",
            "rank -1",
            "rank +1",
            "rank 1, 2",
            "ranks 1",
            "ranks 3-1",
            "ranks 3-3",
            "ranks 0-5 stride 2",
            "ranks 0-4 stride 0",
            "ranks 4 stride 2, 6",
            "ranks 0, 0",
            "ranks 5, 2",
            "ranks 0-4, 3",
            "ranks 0,1",
            "ranks 0, 1,",
            "ranks 99999999999, 1",
            "Ranks 0, 1",
            "ranks a, b",
        ] {
            assert!(parse_ranks(bad).is_err(), "accepted {bad:?}");
        }
    }

    proptest! {
        #[test]
        fn text_round_trips(mut ranks in proptest::collection::vec(0u32..200, 0..40)) {
            let text = format_ranks(&ranks);
            ranks.sort_unstable();
            ranks.dedup();
            prop_assert_eq!(parse_ranks(&text).unwrap(), ranks);
        }

        // Large, sparse and strided numbers exercise the stride detection and overflow edges.
        #[test]
        fn strided_sets_round_trip(
            start in 0u32..u32::MAX / 2,
            stride in 1u32..1000,
            len in 1usize..50,
            extra in proptest::collection::vec(any::<u32>(), 0..5),
        ) {
            let mut ranks: Vec<Rank> = (0..len as u32).map(|k| start + k * stride).collect();
            ranks.extend(extra);
            let text = format_ranks(&ranks);
            ranks.sort_unstable();
            ranks.dedup();
            prop_assert_eq!(parse_ranks(&text).unwrap(), ranks);
        }

        #[test]
        fn pure_progressions_fold_into_one_item(
            start in 0u32..1000,
            stride in 1u32..50,
            len in 4usize..100,
        ) {
            let ranks: Vec<Rank> = (0..len as u32).map(|k| start + k * stride).collect();
            let text = format_ranks(&ranks);
            prop_assert!(!text.contains(','), "{}", text);
        }
    }
}
