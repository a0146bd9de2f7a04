//! The texts of a finding (message, labels, notes, help): literal pieces and typed rank-set
//! slots, rendered once with the one rank-set formatter. The report folds the same finding
//! across ranks by comparing the literal pieces and uniting the slots, never by reading
//! numbers back out of English.
//!
//! A check builds a text with [`text!`](crate::text!), which takes a `format!` template:
//! every positional `{}` is filled by an argument, a [`RankSet`] argument becomes a slot and
//! anything else (strings, numbers, other [`Text`]s) literal text; names captured inline
//! (`{call}`) are literal text too. So a rank belongs in a [`RankSet`] argument, never in a
//! captured or formatted number:
//!
//! ```
//! use mpicheck_analyzer::{ranks::RankSet, text};
//! let call = "MPI_Recv";
//! let t = text!("{} waits in {call} for {}", RankSet::one(0), RankSet::new([1, 2, 3]));
//! assert_eq!(t, "rank 0 waits in MPI_Recv for ranks 1-3");
//! assert_eq!(t.rank_slots().count(), 2);
//! ```

use std::fmt;
use std::ops::Deref;

use serde::{Serialize, Serializer};

use crate::ranks::RankSet;

/// One piece of a [`Text`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Piece {
    Literal(String),
    /// A set of ranks, written `rank 3` / `ranks 0-3`; folding unites these.
    Ranks(RankSet),
}

/// A finding's text: its pieces and their rendering. Dereferences to the rendered `str`;
/// ordered by its rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Text {
    /// No two literals in a row, no empty literal: equal texts have equal pieces.
    pieces: Vec<Piece>,
    rendered: String,
}

/// Stands for a positional argument in the template [`text!`] passes to `format!`.
#[doc(hidden)]
pub const MARK: &str = "\u{1}";

impl Text {
    /// A text from its pieces (adjacent literals are joined, empty ones dropped).
    pub fn from_pieces(pieces: impl IntoIterator<Item = Piece>) -> Text {
        let mut out: Vec<Piece> = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Literal(s) if s.is_empty() => {}
                Piece::Literal(s) => match out.last_mut() {
                    Some(Piece::Literal(prev)) => prev.push_str(&s),
                    _ => out.push(Piece::Literal(s)),
                },
                slot => out.push(slot),
            }
        }
        let rendered = render(&out);
        Text {
            pieces: out,
            rendered,
        }
    }

    /// What [`text!`] expands to: `marked` is the template formatted with [`MARK`] for each
    /// argument, `args` the arguments' pieces in order.
    #[doc(hidden)]
    pub fn from_marked(marked: &str, args: Vec<Vec<Piece>>) -> Text {
        let mut parts = marked.split(MARK);
        debug_assert_eq!(
            marked.matches(MARK).count(),
            args.len(),
            "text!: each argument must be used once, by a plain `{{}}`: {marked:?}"
        );
        let mut pieces = vec![Piece::Literal(parts.next().unwrap_or_default().to_string())];
        for (arg, part) in args.into_iter().zip(parts) {
            pieces.extend(arg);
            pieces.push(Piece::Literal(part.to_string()));
        }
        Text::from_pieces(pieces)
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    pub fn as_str(&self) -> &str {
        &self.rendered
    }

    /// The rank sets the text names, in order.
    pub fn rank_slots(&self) -> impl Iterator<Item = &RankSet> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Ranks(r) => Some(r),
            Piece::Literal(_) => None,
        })
    }

    /// The literal pieces, in order.
    pub fn literals(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Literal(s) => Some(s.as_str()),
            Piece::Ranks(_) => None,
        })
    }

    /// The text with its rank slots left open: equal for texts that differ only in ranks.
    pub fn shape(&self) -> Vec<Option<&str>> {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Literal(s) => Some(s.as_str()),
                Piece::Ranks(_) => None,
            })
            .collect()
    }

    /// Unites each rank slot with the same slot of `other`, which must have the same
    /// [`Text::shape`] (slots beyond the shorter text's are left alone).
    pub fn unite_ranks(&mut self, other: &Text) {
        let theirs = other.rank_slots();
        let mine = self.pieces.iter_mut().filter_map(|p| match p {
            Piece::Ranks(r) => Some(r),
            Piece::Literal(_) => None,
        });
        for (a, b) in mine.zip(theirs) {
            a.union_with(b);
        }
        self.rendered = render(&self.pieces);
    }

    /// Texts joined with a literal separator, slots kept.
    pub fn join(texts: impl IntoIterator<Item = Text>, separator: &str) -> Text {
        let mut pieces = Vec::new();
        for (i, t) in texts.into_iter().enumerate() {
            if i > 0 {
                pieces.push(Piece::Literal(separator.to_string()));
            }
            pieces.extend(t.pieces);
        }
        Text::from_pieces(pieces)
    }
}

fn render(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Literal(s) => out.push_str(s),
            Piece::Ranks(r) => out.push_str(&r.to_string()),
        }
    }
    out
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        (&self.rendered, &self.pieces).cmp(&(&other.rendered, &other.pieces))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.rendered
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.rendered
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

/// Serialized as the rendered text.
impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.rendered)
    }
}

/// A text that is one literal: no rank slots, so it folds only with identical texts.
impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::from_pieces([Piece::Literal(s)])
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::from(s.to_string())
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::from(s.clone())
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.rendered == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.rendered == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        &self.rendered == other
    }
}

/// What a [`text!`] argument contributes: a [`RankSet`] a slot, a [`Text`] its pieces,
/// anything else literal text.
pub trait IntoPieces {
    fn into_pieces(self) -> Vec<Piece>;
}

impl IntoPieces for RankSet {
    fn into_pieces(self) -> Vec<Piece> {
        vec![Piece::Ranks(self)]
    }
}

impl IntoPieces for &RankSet {
    fn into_pieces(self) -> Vec<Piece> {
        vec![Piece::Ranks(self.clone())]
    }
}

impl IntoPieces for Text {
    fn into_pieces(self) -> Vec<Piece> {
        self.pieces
    }
}

impl IntoPieces for &Text {
    fn into_pieces(self) -> Vec<Piece> {
        self.pieces.clone()
    }
}

// Not `u32`: a world rank is a `u32` and must go in a `RankSet`; format other `u32`s first.
macro_rules! literal_pieces {
    ($($t:ty),*) => {$(
        impl IntoPieces for $t {
            fn into_pieces(self) -> Vec<Piece> {
                vec![Piece::Literal(self.to_string())]
            }
        }
    )*};
}
literal_pieces!(String, &str, &String, &&str, char, i32, i64, u64, usize, u8, u16);

/// The ranks as a rank-set slot for [`text!`]: `ranks(r)`, `ranks(vec)`, `ranks(&slice[..])`.
pub fn ranks(r: impl Into<RankSet>) -> RankSet {
    r.into()
}

/// A [`Text`] from a `format!` template: positional `{}` arguments that are [`RankSet`]s
/// become rank slots (see the [module docs](crate::text)).
#[macro_export]
macro_rules! text {
    ($template:literal $(, $arg:expr)* $(,)?) => {
        $crate::text::Text::from_marked(
            &format!($template $(, { let _ = stringify!($arg); $crate::text::MARK })*),
            vec![$($crate::text::IntoPieces::into_pieces($arg)),*],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_become_slots_or_literals() {
        let tag = 5;
        let t = text!(
            "{} sends tag {tag} to {} ({})",
            ranks(vec![2, 0]),
            ranks(7),
            "twice"
        );
        assert_eq!(t, "ranks 0, 2 sends tag 5 to rank 7 (twice)");
        assert_eq!(
            t.shape(),
            vec![None, Some(" sends tag 5 to "), None, Some(" (twice)")]
        );
        assert_eq!(
            t.rank_slots().cloned().collect::<Vec<_>>(),
            vec![RankSet::new([0, 2]), RankSet::one(7)]
        );
    }

    #[test]
    fn nested_texts_keep_their_slots_and_literals_join() {
        let inner = text!("waits for {}", ranks(3));
        let t = text!("{} {} and {}", ranks(1), inner, "more");
        assert_eq!(t, "rank 1 waits for rank 3 and more");
        assert_eq!(
            t.shape(),
            vec![None, Some(" waits for "), None, Some(" and more")]
        );
        let joined = Text::join([text!("a {}", ranks(1)), Text::from("b")], ", or ");
        assert_eq!(joined, "a rank 1, or b");
        assert_eq!(joined.rank_slots().count(), 1);
    }

    #[test]
    fn uniting_ranks_rerenders() {
        let mut a = text!("{} waits for {}", ranks(0), ranks(1));
        let b = text!("{} waits for {}", ranks(2), ranks(3));
        assert_eq!(a.shape(), b.shape());
        a.unite_ranks(&b);
        assert_eq!(a, "ranks 0, 2 waits for ranks 1, 3");
    }

    #[test]
    fn plain_strings_are_one_literal() {
        let t = Text::from("rank 3 says hello".to_string());
        assert_eq!(t.rank_slots().count(), 0);
        assert_eq!(t.literals().collect::<Vec<_>>(), vec!["rank 3 says hello"]);
        assert_eq!(Text::from(""), Text::from_pieces([]));
    }
}
