//! Folding: the same finding reported by many ranks becomes one diagnostic with merged rank
//! sets, as MUST does (`ranks 0-63 stride 2` instead of 32 copies).
//!
//! Two diagnostics fold when they have the same code, category and severity, the same call
//! sites in the same order (call, file, line of every location), the same wait-for graph,
//! and the same message, labels, notes and help once every rank expression in them
//! (`rank 3`, `ranks 0-3`, anything [`crate::ranks::parse_ranks`] reads) is blanked out.
//! The folded diagnostic keeps the first one's position in the list; each location gets the
//! union of the ranks of that location across the group, and each rank expression in the
//! texts becomes the union of the ranks it named across the group, so
//! `rank 0 waits for rank 1` and `rank 2 waits for rank 3` fold into
//! `ranks 0, 2 waits for ranks 1, 3`.
//!
//! Checks should therefore word their texts so that a rank expression can stand for a set.

use std::collections::HashMap;

use mpicheck_analyzer::diagnostic::Diagnostic;
use mpicheck_analyzer::model::Rank;

use crate::ranks::{format_ranks, parse_rank_list, parse_ranks};

/// A text with its rank expressions cut out: `parts.len() == slots.len() + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Template {
    parts: Vec<String>,
    slots: Vec<Vec<Rank>>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The longest prefix of `s` that is a rank list item sequence, with its ranks. Stops before
/// a `, ` that is not followed by a number, so `ranks 0, 1, and 2` keeps `, and 2`.
fn longest_list_prefix(s: &str) -> Option<(usize, Vec<Rank>)> {
    // Candidate ends: after each run of list characters, cut back to item boundaries.
    let bytes = s.as_bytes();
    let mut end = 0;
    while end < bytes.len()
        && (bytes[end].is_ascii_digit()
            || matches!(bytes[end], b'-' | b',' | b' ')
            || s[end..].starts_with("stride"))
    {
        end += if s[end..].starts_with("stride") { 6 } else { 1 };
    }
    // Try the longest candidate first; shrink to the previous boundary until it parses.
    let mut cut = end;
    while cut > 0 {
        let candidate = &s[..cut];
        let ends_in_digit = candidate.as_bytes()[cut - 1].is_ascii_digit();
        let next_is_digit = bytes.get(cut).is_some_and(|b| b.is_ascii_digit());
        if ends_in_digit && !next_is_digit {
            if let Ok(v) = parse_rank_list(candidate) {
                if !v.is_empty() {
                    return Some((cut, v));
                }
            }
        }
        cut -= 1;
    }
    None
}

fn template(text: &str) -> Template {
    let mut parts = Vec::new();
    let mut slots = Vec::new();
    let mut current = String::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let at_word_start = i == 0 || !is_word_byte(bytes[i - 1]);
        if at_word_start {
            let found = if text[i..].starts_with("ranks ") {
                longest_list_prefix(&text[i + 6..])
                    .filter(|(_, v)| v.len() >= 2)
                    .map(|(len, v)| (6 + len, v))
            } else if text[i..].starts_with("rank ") {
                longest_list_prefix(&text[i + 5..])
                    .filter(|(_, v)| v.len() == 1)
                    .map(|(len, v)| (5 + len, v))
            } else {
                None
            };
            if let Some((len, ranks)) = found {
                // The expression must re-parse as a whole to count (no partial matches).
                debug_assert!(parse_ranks(&text[i..i + len]).is_ok());
                parts.push(std::mem::take(&mut current));
                slots.push(ranks);
                i += len;
                continue;
            }
        }
        let ch = text[i..].chars().next().expect("i is on a char boundary");
        current.push(ch);
        i += ch.len_utf8();
    }
    parts.push(current);
    Template { parts, slots }
}

impl Template {
    fn merge(&mut self, other: &Template) {
        for (mine, theirs) in self.slots.iter_mut().zip(&other.slots) {
            mine.extend_from_slice(theirs);
            mine.sort_unstable();
            mine.dedup();
        }
    }

    fn render(&self) -> String {
        let mut out = self.parts[0].clone();
        for (slot, part) in self.slots.iter().zip(&self.parts[1..]) {
            out.push_str(&format_ranks(slot));
            out.push_str(part);
        }
        out
    }
}

/// A location as folding compares it: call, file, line, object and offset (which tell
/// sites apart when there is no file) and the label with ranks blanked.
type Site = (
    String,
    Option<String>,
    Option<u32>,
    Option<String>,
    Option<u64>,
    Vec<String>,
);

/// Everything that must be equal for two diagnostics to fold.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    code: &'static str,
    category: &'static str,
    severity: mpicheck_analyzer::diagnostic::Severity,
    message: Vec<String>,
    sites: Vec<Site>,
    notes: Vec<Vec<String>>,
    help: Option<Vec<String>>,
    /// The graph in its Debug form: graphs are small and `WaitForGraph` has no `Hash`.
    wait_for: Option<String>,
}

/// Texts of one diagnostic in template form, in a fixed order: message, labels, notes, help.
struct Texts {
    message: Template,
    labels: Vec<Template>,
    notes: Vec<Template>,
    help: Option<Template>,
}

impl Texts {
    fn of(d: &Diagnostic) -> Texts {
        Texts {
            message: template(&d.message),
            labels: d.locations.iter().map(|l| template(&l.label)).collect(),
            notes: d.notes.iter().map(|n| template(n)).collect(),
            help: d.help.as_deref().map(template),
        }
    }

    fn key(&self, d: &Diagnostic) -> Key {
        Key {
            code: d.code,
            category: d.category.as_str(),
            severity: d.severity,
            message: self.message.parts.clone(),
            sites: d
                .locations
                .iter()
                .zip(&self.labels)
                .map(|(l, t)| {
                    (
                        l.call.clone(),
                        l.file.clone(),
                        l.line,
                        l.object.clone(),
                        l.offset,
                        t.parts.clone(),
                    )
                })
                .collect(),
            notes: self.notes.iter().map(|t| t.parts.clone()).collect(),
            help: self.help.as_ref().map(|t| t.parts.clone()),
            wait_for: d.wait_for.as_ref().map(|g| format!("{g:?}")),
        }
    }

    fn merge(&mut self, other: &Texts) {
        self.message.merge(&other.message);
        for (a, b) in self.labels.iter_mut().zip(&other.labels) {
            a.merge(b);
        }
        for (a, b) in self.notes.iter_mut().zip(&other.notes) {
            a.merge(b);
        }
        if let (Some(a), Some(b)) = (&mut self.help, &other.help) {
            a.merge(b);
        }
    }
}

/// Merges diagnostics that are the same finding on different ranks (see the module docs).
/// Order is kept: each folded diagnostic sits where the first of its group was. A group of
/// one comes back unchanged, so folding twice changes nothing more.
pub fn fold(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut groups: Vec<(Diagnostic, Texts, usize)> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    for d in diagnostics {
        let texts = Texts::of(&d);
        let key = texts.key(&d);
        match index.get(&key) {
            Some(&g) => {
                let (first, first_texts, count) = &mut groups[g];
                for (mine, theirs) in first.locations.iter_mut().zip(&d.locations) {
                    mine.ranks.union_with(&theirs.ranks);
                }
                first_texts.merge(&texts);
                *count += 1;
            }
            None => {
                index.insert(key, groups.len());
                groups.push((d, texts, 1));
            }
        }
    }
    groups
        .into_iter()
        .map(|(mut d, texts, count)| {
            // Re-rendering a single diagnostic could rewrite `ranks 0, 1` spelled another way
            // by its check; leave texts of unfolded diagnostics exactly as written.
            if count > 1 {
                d.message = texts.message.render();
                for (l, t) in d.locations.iter_mut().zip(&texts.labels) {
                    l.label = t.render();
                }
                d.notes = texts.notes.iter().map(Template::render).collect();
                d.help = texts.help.as_ref().map(Template::render);
            }
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_analyzer::diagnostic::{Category, Location, Severity, WaitForGraph};

    fn loc(ranks: &[Rank], call: &str, line: u32, label: &str) -> Location {
        Location {
            ranks: ranks.into(),
            call: call.to_string(),
            file: Some("ring.c".to_string()),
            line: Some(line),
            function: None,
            object: None,
            offset: None,
            label: label.to_string(),
        }
    }

    fn unmatched_recv(rank: Rank, from: Rank) -> Diagnostic {
        Diagnostic {
            code: "DL002",
            category: Category::Deadlock,
            severity: Severity::Error,
            message: format!("rank {rank} waits for a message from rank {from} that is never sent"),
            locations: vec![loc(
                &[rank],
                "MPI_Recv",
                14,
                &format!("waits for a message from rank {from}"),
            )],
            notes: vec!["a blocking receive returns only once a matching message arrives".into()],
            help: Some(format!("send the message on rank {from}")),
            wait_for: None,
        }
    }

    #[test]
    fn template_finds_rank_expressions() {
        let t = template("rank 0 waits for ranks 1-3, 7 and rank 9, then stops");
        assert_eq!(t.slots, vec![vec![0], vec![1, 2, 3, 7], vec![9]]);
        assert_eq!(t.parts, vec!["", " waits for ", " and ", ", then stops"]);
        assert_eq!(
            t.render(),
            "rank 0 waits for ranks 1-3, 7 and rank 9, then stops"
        );
    }

    #[test]
    fn template_leaves_other_numbers_alone() {
        let t = template("frank 3 sent tag 5 on comm 2 to rank 1, count 4");
        assert_eq!(t.slots, vec![vec![1]]);
        assert_eq!(
            t.parts,
            vec!["frank 3 sent tag 5 on comm 2 to ", ", count 4"]
        );
        let t = template("ranks are fine, rank x too");
        assert!(t.slots.is_empty());
        let t = template("rank 1-3 is not a single rank");
        assert!(t.slots.is_empty(), "{t:?}");
        let t = template("ranks 0-4 stride 2 wait");
        assert_eq!(t.slots, vec![vec![0, 2, 4]]);
        // Non-ASCII text around expressions survives.
        let t = template("rank 2 → rank 3 ≠ ok");
        assert_eq!(t.render(), "rank 2 → rank 3 ≠ ok");
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
        other_text.message = "rank 6 waits for a message from rank 7 with tag 3".into();
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
            message: format!("ranks {a}, {b} send to each other with synchronous sends"),
            locations: vec![
                loc(&[a], "MPI_Ssend", 10, &format!("sends to rank {b}")),
                loc(&[b], "MPI_Ssend", 20, &format!("sends to rank {a}")),
            ],
            notes: vec![],
            help: None,
            wait_for: None,
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
                let named = template(&d.message).slots[0].clone();
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
