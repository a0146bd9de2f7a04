//! Folding: the same finding reported by many ranks becomes one diagnostic with merged rank
//! sets, as MUST does (`ranks 0-63 stride 2` instead of 32 copies).
//!
//! Two diagnostics fold when they have the same code, category and severity, the same call
//! sites in the same order (call, file, line of every location), the same wait-for graph,
//! and texts (message, labels, notes, help) with the same literal pieces: they differ only
//! in the [`RankSet`](mpicheck_analyzer::ranks::RankSet) slots of their
//! [`Text`](mpicheck_analyzer::text::Text)s. The folded diagnostic keeps the first one's
//! position in the list; each location gets the union of the ranks of that location across
//! the group, and each rank slot the union of that slot across the group, so
//! `rank 0 waits for rank 1` and `rank 2 waits for rank 3` fold into
//! `ranks 0, 2 waits for ranks 1, 3`. Nothing is read back out of the rendered English.

use std::collections::HashMap;

use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::text::Text;

/// A location as folding compares it: call, file, line, object and offset (which tell
/// sites apart when there is no file) and the label's shape.
type Site<'d> = (
    &'d str,
    Option<&'d str>,
    Option<u32>,
    Option<&'d str>,
    Option<u64>,
    Vec<Option<&'d str>>,
);

/// Everything that must be equal for two diagnostics to fold.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key<'d> {
    code: &'static str,
    category: &'static str,
    severity: mpicheck_analyzer::diagnostic::Severity,
    message: Vec<Option<&'d str>>,
    sites: Vec<Site<'d>>,
    notes: Vec<Vec<Option<&'d str>>>,
    help: Option<Vec<Option<&'d str>>>,
    /// The graph in its Debug form: graphs are small and `WaitForGraph` has no `Hash`.
    wait_for: Option<String>,
    communicator: Option<&'d str>,
    tag: Option<i32>,
}

fn key(d: &Diagnostic) -> Key<'_> {
    Key {
        code: d.code,
        category: d.category.as_str(),
        severity: d.severity,
        message: d.message.shape(),
        sites: d
            .locations
            .iter()
            .map(|l| {
                (
                    l.call.as_str(),
                    l.file.as_deref(),
                    l.line,
                    l.object.as_deref(),
                    l.offset,
                    l.label.shape(),
                )
            })
            .collect(),
        notes: d.notes.iter().map(Text::shape).collect(),
        help: d.help.as_ref().map(Text::shape),
        wait_for: d.wait_for.as_ref().map(|g| format!("{g:?}")),
        communicator: d.communicator.as_deref(),
        tag: d.tag,
    }
}

/// Unites the ranks of `other`, a diagnostic with the same [`key`], into `d`.
fn unite(d: &mut Diagnostic, other: &Diagnostic) {
    for (mine, theirs) in d.locations.iter_mut().zip(&other.locations) {
        mine.ranks.union_with(&theirs.ranks);
        mine.label.unite_ranks(&theirs.label);
    }
    d.message.unite_ranks(&other.message);
    for (mine, theirs) in d.notes.iter_mut().zip(&other.notes) {
        mine.unite_ranks(theirs);
    }
    if let (Some(mine), Some(theirs)) = (&mut d.help, &other.help) {
        mine.unite_ranks(theirs);
    }
}

/// Merges diagnostics that are the same finding on different ranks (see the module docs).
/// Order is kept: each folded diagnostic sits where the first of its group was. A group of
/// one comes back unchanged, so folding twice changes nothing more.
pub fn fold(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut group_of: Vec<usize> = Vec::with_capacity(diagnostics.len());
    {
        let mut index: HashMap<Key<'_>, usize> = HashMap::new();
        for d in &diagnostics {
            let next = index.len();
            group_of.push(*index.entry(key(d)).or_insert(next));
        }
    }
    let mut groups: Vec<Diagnostic> = Vec::new();
    for (d, g) in diagnostics.into_iter().zip(group_of) {
        if g == groups.len() {
            groups.push(d);
        } else {
            unite(&mut groups[g], &d);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_analyzer::diagnostic::{Category, Location, Severity, WaitForGraph};
    use mpicheck_analyzer::model::Rank;
    use mpicheck_analyzer::text;
    use mpicheck_analyzer::text::ranks;

    fn loc(ranks: &[Rank], call: &str, line: u32, label: Text) -> Location {
        Location {
            ranks: ranks.into(),
            call: call.to_string(),
            file: Some("ring.c".to_string()),
            line: Some(line),
            function: None,
            object: None,
            offset: None,
            label,
        }
    }

    fn unmatched_recv(rank: Rank, from: Rank) -> Diagnostic {
        Diagnostic {
            code: "DL002",
            category: Category::Deadlock,
            severity: Severity::Error,
            message: text!(
                "{} waits for a message from {} that is never sent",
                ranks(rank),
                ranks(from)
            ),
            locations: vec![loc(
                &[rank],
                "MPI_Recv",
                14,
                text!("waits for a message from {}", ranks(from)),
            )],
            notes: vec!["a blocking receive returns only once a matching message arrives".into()],
            help: Some(text!("send the message on {}", ranks(from))),
            wait_for: None,
            communicator: None,
            tag: None,
        }
    }

    #[test]
    fn rank_numbers_in_literal_text_do_not_fold() {
        // Old-style text with ranks formatted into it: no slots, so only identical texts
        // fold (the check_findings fixtures test that no check writes such text).
        let mut a = unmatched_recv(0, 1);
        a.message = format!("rank {} waits", 0).into();
        let mut b = unmatched_recv(2, 3);
        b.message = format!("rank {} waits", 2).into();
        let out = fold(vec![a.clone(), b.clone()]);
        assert_eq!(out, vec![a, b]);
    }

    #[test]
    fn findings_on_other_communicators_or_tags_do_not_fold() {
        let on = |comm: &str, tag: i32, rank: Rank| Diagnostic {
            communicator: Some(comm.into()),
            tag: Some(tag),
            ..unmatched_recv(rank, rank + 1)
        };
        let out = fold(vec![on("MPI_COMM_WORLD", 0, 0), on("MPI_COMM_WORLD", 0, 2)]);
        assert_eq!(out.len(), 1, "same communicator and tag: one finding");
        assert_eq!(out[0].communicator.as_deref(), Some("MPI_COMM_WORLD"));
        assert_eq!(out[0].tag, Some(0));
        let other_comm = vec![on("MPI_COMM_WORLD", 0, 0), on("communicator 3", 0, 2)];
        assert_eq!(fold(other_comm).len(), 2);
        let other_tag = vec![on("MPI_COMM_WORLD", 0, 0), on("MPI_COMM_WORLD", 7, 2)];
        assert_eq!(fold(other_tag).len(), 2);
    }

    #[test]
    fn same_finding_on_many_ranks_folds() {
        let input: Vec<Diagnostic> = (0..64)
            .step_by(2)
            .map(|r| unmatched_recv(r, r + 1))
            .collect();
        let out = fold(input);
        assert_eq!(out.len(), 1);
        let d = &out[0];
        assert_eq!(
            d.message,
            "ranks 0-62 stride 2 waits for a message from ranks 1-63 stride 2 that is never sent"
        );
        assert_eq!(d.locations[0].ranks, (0..64).step_by(2).collect::<Vec<_>>());
        assert_eq!(
            d.locations[0].label,
            "waits for a message from ranks 1-63 stride 2"
        );
        assert_eq!(
            d.help.as_deref(),
            Some("send the message on ranks 1-63 stride 2")
        );
        assert_eq!(d.notes, unmatched_recv(0, 1).notes);
    }

    #[test]
    fn different_call_sites_codes_or_texts_do_not_fold() {
        let a = unmatched_recv(0, 1);
        let mut other_line = unmatched_recv(2, 3);
        other_line.locations[0].line = Some(15);
        let mut other_code = unmatched_recv(4, 5);
        other_code.code = "DL003";
        let mut other_text = unmatched_recv(6, 7);
        other_text.message = text!(
            "{} waits for a message from {} with tag 3",
            ranks(6),
            ranks(7)
        );
        let mut other_severity = unmatched_recv(8, 9);
        other_severity.severity = Severity::Warning;
        let input = vec![
            a.clone(),
            other_line.clone(),
            other_code.clone(),
            other_text.clone(),
            other_severity.clone(),
        ];
        assert_eq!(fold(input.clone()), input);
    }

    #[test]
    fn order_is_kept_and_unfolded_texts_untouched() {
        let mut odd_spelling = unmatched_recv(9, 4);
        odd_spelling.message = "rank 9 waits on ranks 0,1".into();
        let input = vec![
            unmatched_recv(3, 4),
            odd_spelling.clone(),
            unmatched_recv(1, 2),
            unmatched_recv(5, 6),
        ];
        let out = fold(input);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].locations[0].ranks, vec![1, 3, 5]);
        assert_eq!(
            out[0].message,
            "ranks 1, 3, 5 waits for a message from ranks 2, 4, 6 that is never sent"
        );
        assert_eq!(out[1], odd_spelling);
    }

    #[test]
    fn multi_location_findings_merge_per_location() {
        let pair = |a: Rank, b: Rank| Diagnostic {
            code: "DL001",
            category: Category::Deadlock,
            severity: Severity::Error,
            message: text!(
                "{} send to each other with synchronous sends",
                ranks(vec![a, b])
            ),
            locations: vec![
                loc(&[a], "MPI_Ssend", 10, text!("sends to {}", ranks(b))),
                loc(&[b], "MPI_Ssend", 20, text!("sends to {}", ranks(a))),
            ],
            notes: vec![],
            help: None,
            wait_for: None,
            communicator: None,
            tag: None,
        };
        let out = fold(vec![pair(0, 1), pair(2, 3), pair(0, 1)]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].locations[0].ranks, vec![0, 2]);
        assert_eq!(out[0].locations[1].ranks, vec![1, 3]);
        assert_eq!(out[0].locations[0].label, "sends to ranks 1, 3");
        assert_eq!(
            out[0].message,
            "ranks 0-3 send to each other with synchronous sends"
        );
    }

    #[test]
    fn different_wait_for_graphs_do_not_fold() {
        let mut a = unmatched_recv(0, 1);
        a.wait_for = Some(WaitForGraph::default());
        let b = unmatched_recv(2, 3);
        assert_eq!(fold(vec![a.clone(), b.clone()]).len(), 2);
        let mut c = unmatched_recv(4, 5);
        c.wait_for = Some(WaitForGraph::default());
        assert_eq!(fold(vec![a, b, c]).len(), 2);
    }

    proptest::proptest! {
        // Whatever the mix, folding neither loses nor invents a (finding, call site, rank)
        // and merges everything that differs only in its ranks.
        #[test]
        fn fold_keeps_every_rank_of_every_site(
            reports in proptest::collection::vec((0u32..64, 0u32..64, 0usize..3), 0..60)
        ) {
            let input: Vec<Diagnostic> = reports
                .iter()
                .map(|&(rank, from, line)| {
                    let mut d = unmatched_recv(rank, from);
                    d.locations[0].line = Some(14 + line as u32);
                    d
                })
                .collect();
            let out = fold(input.clone());
            let lines: std::collections::BTreeSet<u32> =
                input.iter().map(|d| d.locations[0].line.unwrap()).collect();
            proptest::prop_assert_eq!(out.len(), lines.len());
            for d in &out {
                let line = d.locations[0].line;
                let mut want: Vec<Rank> = input
                    .iter()
                    .filter(|i| i.locations[0].line == line)
                    .map(|i| i.locations[0].ranks[0])
                    .collect();
                want.sort_unstable();
                want.dedup();
                proptest::prop_assert_eq!(&d.locations[0].ranks, &want);
                // The message names the same ranks as the location.
                let named = d.message.rank_slots().next().unwrap().clone();
                proptest::prop_assert_eq!(named, want);
            }
        }
    }

    #[test]
    fn folding_is_idempotent() {
        let input: Vec<Diagnostic> = (0..10).map(|r| unmatched_recv(r, (r + 1) % 10)).collect();
        let once = fold(input);
        let twice = fold(once.clone());
        assert_eq!(once, twice);
    }
}
