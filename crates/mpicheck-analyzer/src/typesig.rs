//! Datatype signatures: what sequence of basic types a `(count, datatype)` pair describes,
//! hashed so that two signatures compare in O(1).
//!
//! MPI matches messages by *type signature*, the sequence of basic types with displacements
//! dropped (MPI 4.1 §3.3.1, §5.1): `4 × MPI_INT`, a contiguous type of 4 `MPI_INT` and a
//! vector of 2 blocks of 2 `MPI_INT` all send the same signature.
//!
//! # The hash
//!
//! The scheme of Gropp ("Runtime checking of datatype signatures in MPI", EuroPVM/MPI 2000)
//! as used by the MPE collective and datatype checking library assigns each signature a
//! tuple `(α, n)`, `n` the number of basic elements, and composes
//! `(α, n) ⊕ (β, m) = (α XOR rotl(β, n), n + m)`. Two weaknesses are avoided here:
//!
//! - the rotation is a true rotation of the 64-bit word by `n mod 64` *bits* (an
//!   implementation that rotates by bytes has a period of 8 elements and collides as soon as
//!   two different types trade places 8 elements apart);
//! - even with bit rotation the scheme has the word width as period: swapping two different
//!   types at positions 64 apart leaves the hash unchanged. A second component, a
//!   polynomial hash modulo the Mersenne prime 2^61 − 1 (`Σ vᵢ·Bⁱ`, composed as
//!   `h(a·b) = h(a) + B^|a|·h(b)`), has no such period; `B^|a|` is carried along so
//!   composing stays O(1).
//!
//! Both components are monoid homomorphisms (composition is associative), so `count`
//! repetitions of a signature are computed by repeated doubling in O(log count)
//! ([`Signature::repeat`]). Basic types get random-looking odd 64-bit values derived from
//! their names (consecutive small integers make the rotate-and-xor scheme collide, as the
//! MPE paper notes).
//!
//! # Layouts
//!
//! A [`Layout`] is a derived datatype reduced to what its signature needs: a sequence of
//! `(repetitions, child)` pieces over basic types. Its [`Signature`] is computed once when
//! the layout is built (at the constructor call in the trace; the hash is final when the
//! type is committed) and [`Layout::prefix`] hashes the first `k` elements of `count`
//! copies, which is how a receive that is longer than the message is checked.

use std::fmt;
use std::sync::Arc;

/// The Mersenne prime 2^61 − 1.
const P: u64 = (1 << 61) - 1;
/// Base of the polynomial component.
const BASE: u64 = 0x1d3f_84a5_b7c9_e06b % P;

fn mulmod(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    let folded = (product & P as u128) + (product >> 61);
    let folded = (folded & P as u128) + (folded >> 61);
    let r = folded as u64;
    if r >= P {
        r - P
    } else {
        r
    }
}

fn addmod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

/// The hashed signature of a sequence of basic types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The MPE/Gropp component: XOR of the elements' values, each rotated left by its
    /// position (mod 64) in bits.
    pub rotxor: u64,
    /// Polynomial component: `Σ vᵢ·BASEⁱ mod (2^61 − 1)`.
    pub poly: u64,
    /// Number of basic elements.
    pub elements: u64,
    /// `BASE^elements mod (2^61 − 1)`, to compose in O(1).
    pow: u64,
}

impl Signature {
    /// The empty signature (zero elements): the identity of [`Signature::then`].
    pub const EMPTY: Signature = Signature {
        rotxor: 0,
        poly: 0,
        elements: 0,
        pow: 1,
    };

    /// One basic element with the given value.
    pub fn basic(value: u64) -> Signature {
        Signature {
            rotxor: value,
            poly: value % P,
            elements: 1,
            pow: BASE,
        }
    }

    /// This signature followed by `next`: `(α, n) ⊕ (β, m)`.
    pub fn then(self, next: Signature) -> Signature {
        Signature {
            rotxor: self.rotxor ^ next.rotxor.rotate_left((self.elements % 64) as u32),
            poly: addmod(self.poly, mulmod(self.pow, next.poly)),
            elements: self.elements + next.elements,
            pow: mulmod(self.pow, next.pow),
        }
    }

    /// `count` copies of this signature, by repeated doubling: O(log count).
    pub fn repeat(self, count: u64) -> Signature {
        let mut result = Signature::EMPTY;
        let mut base = self;
        let mut k = count;
        while k > 0 {
            if k & 1 == 1 {
                result = result.then(base);
            }
            k >>= 1;
            if k > 0 {
                base = base.then(base);
            }
        }
        result
    }

    /// Whether the hashes (not only the element counts) agree.
    pub fn same_as(&self, other: &Signature) -> bool {
        self == other
    }
}

/// FNV-1a of a name, then the splitmix64 finalizer; made odd.
fn name_value(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) | 1
}

/// Names that denote the same basic type.
fn canonical(name: &str) -> &str {
    match name {
        "MPI_LONG_LONG_INT" => "MPI_LONG_LONG",
        "MPI_UNSIGNED_LONG_LONG_INT" => "MPI_UNSIGNED_LONG_LONG",
        "MPI_C_COMPLEX" => "MPI_C_FLOAT_COMPLEX",
        _ => name,
    }
}

/// The predefined pair types and what they are made of (MPI 4.1 §6.9.4).
fn pair_parts(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "MPI_FLOAT_INT" => ("MPI_FLOAT", "MPI_INT"),
        "MPI_DOUBLE_INT" => ("MPI_DOUBLE", "MPI_INT"),
        "MPI_LONG_INT" => ("MPI_LONG", "MPI_INT"),
        "MPI_2INT" => ("MPI_INT", "MPI_INT"),
        "MPI_SHORT_INT" => ("MPI_SHORT", "MPI_INT"),
        "MPI_LONG_DOUBLE_INT" => ("MPI_LONG_DOUBLE", "MPI_INT"),
        "MPI_2REAL" => ("MPI_REAL", "MPI_REAL"),
        "MPI_2DOUBLE_PRECISION" => ("MPI_DOUBLE_PRECISION", "MPI_DOUBLE_PRECISION"),
        "MPI_2INTEGER" => ("MPI_INTEGER", "MPI_INTEGER"),
        _ => return None,
    })
}

/// A datatype reduced to its signature structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    kind: LayoutKind,
    /// Human description: `MPI_INT`, `vector(2 × 2 MPI_INT)`.
    pub description: String,
    /// Signature of one element of this type, computed once.
    pub signature: Signature,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum LayoutKind {
    /// A basic predefined type.
    Basic,
    /// `MPI_PACKED`: matches any signature (MPI 4.1 §3.3.1, §5.2).
    Packed,
    /// The pieces in order: `reps` copies of `child`.
    Sequence(Vec<(u64, Arc<Layout>)>),
}

impl Layout {
    /// A predefined datatype by name (`MPI_INT`, `MPI_2INT`, `MPI_PACKED`, ...).
    pub fn predefined(name: &str) -> Arc<Layout> {
        if name == "MPI_PACKED" {
            return Arc::new(Layout {
                kind: LayoutKind::Packed,
                description: name.to_string(),
                signature: Signature::EMPTY,
            });
        }
        if let Some((a, b)) = pair_parts(name) {
            let pieces = vec![(1, Layout::predefined(a)), (1, Layout::predefined(b))];
            let mut layout = Layout::sequence(pieces, name.to_string());
            layout.description = name.to_string();
            return Arc::new(layout);
        }
        Arc::new(Layout {
            kind: LayoutKind::Basic,
            description: name.to_string(),
            signature: Signature::basic(name_value(canonical(name))),
        })
    }

    fn sequence(pieces: Vec<(u64, Arc<Layout>)>, description: String) -> Layout {
        let mut merged: Vec<(u64, Arc<Layout>)> = Vec::with_capacity(pieces.len());
        for (reps, child) in pieces {
            if reps == 0 || child.signature.elements == 0 && !child.is_packed() {
                continue;
            }
            match merged.last_mut() {
                Some((r, c)) if Arc::ptr_eq(c, &child) || **c == *child => *r += reps,
                _ => merged.push((reps, child)),
            }
        }
        let signature = merged.iter().fold(Signature::EMPTY, |s, (reps, child)| {
            s.then(child.signature.repeat(*reps))
        });
        Layout {
            kind: LayoutKind::Sequence(merged),
            description,
            signature,
        }
    }

    /// A derived type made of `pieces` in order (e.g. a struct's blocks), described as
    /// `description`.
    pub fn derived(pieces: Vec<(u64, Arc<Layout>)>, description: String) -> Arc<Layout> {
        Arc::new(Layout::sequence(pieces, description))
    }

    /// `count` copies of `child` (contiguous, vector, subarray: the displacements do not
    /// matter for the signature).
    pub fn repeated(count: u64, child: &Arc<Layout>, description: String) -> Arc<Layout> {
        Layout::derived(vec![(count, child.clone())], description)
    }

    /// Whether this type is or contains `MPI_PACKED`, which matches any signature.
    pub fn is_packed(&self) -> bool {
        match &self.kind {
            LayoutKind::Packed => true,
            LayoutKind::Basic => false,
            LayoutKind::Sequence(pieces) => pieces.iter().any(|(_, c)| c.is_packed()),
        }
    }

    pub fn is_basic(&self) -> bool {
        matches!(self.kind, LayoutKind::Basic) || pair_parts(&self.description).is_some()
    }

    /// The one predefined type every basic element of this type is (`MPI_INT` for a vector
    /// of ints, `MPI_2INT` for a contiguous of `MPI_2INT`), or `None` when there are several
    /// or the type is packed: what MPI calls an accumulate's basic datatype (MPI 4.1 §12.3.4).
    pub fn uniform_basic(&self) -> Option<&str> {
        if self.is_basic() {
            return Some(canonical(&self.description));
        }
        let LayoutKind::Sequence(pieces) = &self.kind else {
            return None;
        };
        let mut names = pieces.iter().map(|(_, child)| child.uniform_basic());
        let first = names.next()??;
        names.all(|name| name == Some(first)).then_some(first)
    }

    /// Signature of `count` elements of this type: O(log count).
    pub fn signature_of(&self, count: u64) -> Signature {
        self.signature.repeat(count)
    }

    /// Signature of the first `k` basic elements of `count` copies of this type (`k` at
    /// most the total). O(depth × pieces × log) — never proportional to `count`.
    pub fn prefix(&self, count: u64, k: u64) -> Signature {
        let per = self.signature.elements;
        if per == 0 {
            return Signature::EMPTY;
        }
        let whole = (k / per).min(count);
        let mut sig = self.signature.repeat(whole);
        let rest = k - whole * per;
        if rest > 0 && whole < count {
            sig = sig.then(self.prefix_one(rest));
        }
        sig
    }

    /// Signature of the first `k` (< elements) basic elements of one copy.
    fn prefix_one(&self, mut k: u64) -> Signature {
        let LayoutKind::Sequence(pieces) = &self.kind else {
            return if k == 0 {
                Signature::EMPTY
            } else {
                self.signature
            };
        };
        let mut sig = Signature::EMPTY;
        for (reps, child) in pieces {
            let total = child.signature.elements.saturating_mul(*reps);
            if k >= total {
                sig = sig.then(child.signature.repeat(*reps));
                k -= total;
            } else {
                sig = sig.then(child.prefix(*reps, k));
                break;
            }
            if k == 0 {
                break;
            }
        }
        sig
    }

    /// The basic type at element position `i` of `count` copies (for messages that say
    /// where two signatures first differ).
    pub fn element(&self, i: u64) -> Option<&str> {
        let per = self.signature.elements;
        if per == 0 {
            return None;
        }
        let mut i = i % per;
        match &self.kind {
            LayoutKind::Basic => Some(&self.description),
            LayoutKind::Packed => None,
            LayoutKind::Sequence(pieces) => {
                for (reps, child) in pieces {
                    let total = child.signature.elements.saturating_mul(*reps);
                    if i < total {
                        return child.element(i);
                    }
                    i -= total;
                }
                None
            }
        }
    }
}

/// `count × type` of one side of a transfer, for comparisons and messages.
#[derive(Clone, Debug)]
pub struct Typed<'a> {
    pub count: u64,
    pub layout: &'a Layout,
}

impl Typed<'_> {
    pub fn signature(&self) -> Signature {
        self.layout.signature_of(self.count)
    }
    pub fn elements(&self) -> u64 {
        self.layout.signature.elements.saturating_mul(self.count)
    }
    pub fn packed(&self) -> bool {
        self.layout.is_packed()
    }
}

impl fmt::Display for Typed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} × {}", self.count, self.layout.description)?;
        if !self.layout.is_basic() && !self.layout.is_packed() {
            write!(f, " ({} basic elements)", self.elements())?;
        }
        Ok(())
    }
}

/// Where two signatures of equal length first differ, by bisection on prefix hashes:
/// O(log n) prefix computations. `None` if they do not differ.
pub fn first_difference(a: &Typed, b: &Typed) -> Option<u64> {
    let n = a.elements().min(b.elements());
    if a.layout.prefix(a.count, n) == b.layout.prefix(b.count, n) {
        return None;
    }
    // Invariant: prefixes of length lo agree, of length hi differ.
    let (mut lo, mut hi) = (0u64, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if a.layout.prefix(a.count, mid) == b.layout.prefix(b.count, mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// Whether `a` and `b` are the same count of the same layout (one datatype of the run),
/// short enough for its length to be counted: then each fits the other ([`mismatch`] is
/// `None`), found without a signature.
pub fn same_typed(a: &Typed, b: &Typed) -> bool {
    std::ptr::eq(a.layout, b.layout)
        && a.count == b.count
        && a.layout.signature.elements.checked_mul(a.count).is_some()
}

/// Why a sender's signature does not fit a receiver's, in words, or `None` if it fits.
/// `exact`: the lengths must be equal (collectives); otherwise the receive may be longer
/// (point-to-point, MPI 4.1 §3.2.4).
pub fn mismatch(send: &Typed, recv: &Typed, exact: bool) -> Option<Mismatch> {
    if send.packed() || recv.packed() {
        return None;
    }
    let (ns, nr) = (send.elements(), recv.elements());
    if ns > nr {
        return Some(Mismatch::TooShort {
            sent: ns,
            received: nr,
        });
    }
    if exact && ns < nr {
        return Some(Mismatch::Length {
            sent: ns,
            received: nr,
        });
    }
    // The same layout, the send not longer (and its length counted, not saturated): its
    // signature is whole copies of the layout's, the receive's prefix of its length.
    if std::ptr::eq(send.layout, recv.layout)
        && send
            .layout
            .signature
            .elements
            .checked_mul(send.count)
            .is_some()
    {
        return None;
    }
    if send.signature() == recv.layout.prefix(recv.count, ns) {
        return None;
    }
    let at = first_difference(send, recv).unwrap_or(0);
    Some(Mismatch::Types {
        at,
        sent: send.layout.element(at).unwrap_or("?").to_string(),
        received: recv.layout.element(at).unwrap_or("?").to_string(),
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// More elements sent than the receive can hold.
    TooShort { sent: u64, received: u64 },
    /// Collectives: the amounts differ.
    Length { sent: u64, received: u64 },
    /// Same length (or a prefix), different basic types, first at element `at`.
    Types {
        at: u64,
        sent: String,
        received: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::TooShort { sent, received } => write!(
                f,
                "{sent} basic elements sent, room for {received}: the message is truncated"
            ),
            Mismatch::Length { sent, received } => {
                write!(f, "{sent} basic elements sent, {received} expected")
            }
            Mismatch::Types { at, sent, received } => write!(
                f,
                "basic element #{} is {sent} on the sending side but {received} on the receiving side",
                at + 1
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> Arc<Layout> {
        Layout::predefined("MPI_INT")
    }

    /// The plain scheme of the MPE paper, for comparison: a rotation by `unit` bits per
    /// element (8 = the byte-wise rotation of a known implementation, 1 = true bit rotation).
    fn plain(values: &[u64], unit: u32) -> u64 {
        values.iter().enumerate().fold(0u64, |h, (i, v)| {
            h ^ v.rotate_left(((i as u64 * unit as u64) % 64) as u32)
        })
    }

    fn seq(names: &[&str]) -> Signature {
        names.iter().fold(Signature::EMPTY, |s, n| {
            s.then(Layout::predefined(n).signature)
        })
    }

    #[test]
    fn equal_signatures_built_differently_hash_alike() {
        let four = int().signature_of(4);
        let contiguous = Layout::repeated(4, &int(), "contiguous".into());
        let vector = Layout::repeated(2 * 2, &int(), "vector".into());
        let nested = Layout::repeated(2, &Layout::repeated(2, &int(), "c2".into()), "v".into());
        assert_eq!(contiguous.signature_of(1), four);
        assert_eq!(vector.signature_of(1), four);
        assert_eq!(nested.signature_of(1), four);
        assert_eq!(seq(&["MPI_INT"; 4]), four);
        assert_eq!(four.elements, 4);
        // MPI_2INT is two MPI_INT.
        assert_eq!(
            Layout::predefined("MPI_2INT").signature_of(2),
            four,
            "2 × MPI_2INT = 4 × MPI_INT"
        );
    }

    #[test]
    fn repetition_matches_the_sequence_and_is_logarithmic() {
        let pair = Layout::derived(
            vec![(1, int()), (2, Layout::predefined("MPI_DOUBLE"))],
            "struct".into(),
        );
        let mut by_hand = Signature::EMPTY;
        for _ in 0..1000 {
            by_hand = by_hand.then(pair.signature);
        }
        assert_eq!(pair.signature_of(1000), by_hand);
        // A billion-element count takes ~30 doublings, not a billion steps.
        let big = pair.signature_of(1_000_000_000);
        assert_eq!(big.elements, 3_000_000_000);
        assert_eq!(
            big,
            pair.signature_of(500_000_000)
                .then(pair.signature_of(500_000_000))
        );
    }

    #[test]
    fn the_byte_wise_rotation_collision_is_avoided() {
        let a = name_value("MPI_INT");
        let b = name_value("MPI_FLOAT");
        let c = name_value("MPI_CHAR");
        // Positions 0 and 8 swapped: a byte-wise rotation rotates element 8 by 64 bits, i.e.
        // not at all, just like element 0.
        let mut x = vec![c; 9];
        let mut y = vec![c; 9];
        (x[0], x[8]) = (a, b);
        (y[0], y[8]) = (b, a);
        assert_eq!(plain(&x, 8), plain(&y, 8), "the byte-wise scheme collides");
        assert_ne!(plain(&x, 1), plain(&y, 1), "a bit rotation does not");
        let names = |v: &[u64]| -> Vec<&str> {
            v.iter()
                .map(|&h| match h {
                    h if h == a => "MPI_INT",
                    h if h == b => "MPI_FLOAT",
                    _ => "MPI_CHAR",
                })
                .collect()
        };
        assert_ne!(seq(&names(&x)), seq(&names(&y)));
        // The rotate-and-xor component is the plain scheme with bit rotation.
        assert_eq!(seq(&names(&x)).rotxor, plain(&x, 1));
    }

    #[test]
    fn swaps_one_word_width_apart_are_distinguished() {
        // Even rotated by bits, the rotate-and-xor scheme has period 64.
        let mut x = vec!["MPI_CHAR"; 65];
        let mut y = vec!["MPI_CHAR"; 65];
        (x[0], x[64]) = ("MPI_INT", "MPI_FLOAT");
        (y[0], y[64]) = ("MPI_FLOAT", "MPI_INT");
        let (hx, hy) = (seq(&x), seq(&y));
        assert_eq!(
            hx.rotxor, hy.rotxor,
            "the plain scheme collides at its period"
        );
        assert_ne!(hx, hy, "the polynomial component tells them apart");
        // Same with repetition: 64 chars between an int and a float, or the reverse.
        let chars = Layout::predefined("MPI_CHAR");
        let f = Layout::predefined("MPI_FLOAT");
        let a = Layout::derived(
            vec![(1, int()), (63, chars.clone()), (1, f.clone())],
            "a".into(),
        );
        let b = Layout::derived(vec![(1, f), (63, chars), (1, int())], "b".into());
        assert_ne!(a.signature_of(3), b.signature_of(3));
    }

    #[test]
    fn prefixes_and_mismatches() {
        let byte = Layout::predefined("MPI_BYTE");
        let vector = Layout::repeated(4, &int(), "vector(2 × 2 MPI_INT)".into());
        // A receive of 3 vectors holds a message of 5 ints.
        let send = Typed {
            count: 5,
            layout: &int(),
        };
        let recv = Typed {
            count: 3,
            layout: &vector,
        };
        assert_eq!(mismatch(&send, &recv, false), None);
        assert!(matches!(
            mismatch(&send, &recv, true),
            Some(Mismatch::Length { .. })
        ));
        // Too small.
        let small = Typed {
            count: 1,
            layout: &vector,
        };
        assert_eq!(
            mismatch(&send, &small, false),
            Some(Mismatch::TooShort {
                sent: 5,
                received: 4
            })
        );
        // 4 × MPI_INT vs 16 × MPI_BYTE: different lengths.
        let bytes = Typed {
            count: 16,
            layout: &byte,
        };
        let four = Typed {
            count: 4,
            layout: &int(),
        };
        assert!(mismatch(&four, &bytes, true).is_some());
        assert_eq!(bytes.to_string(), "16 × MPI_BYTE");
        // Same length, different type at position 2.
        let mixed = Layout::derived(
            vec![(2, int()), (1, Layout::predefined("MPI_FLOAT")), (1, int())],
            "struct".into(),
        );
        let m = Typed {
            count: 1,
            layout: &mixed,
        };
        assert_eq!(
            mismatch(&four, &m, true),
            Some(Mismatch::Types {
                at: 2,
                sent: "MPI_INT".into(),
                received: "MPI_FLOAT".into()
            })
        );
        // MPI_PACKED matches anything.
        let packed = Layout::predefined("MPI_PACKED");
        let p = Typed {
            count: 100,
            layout: &packed,
        };
        assert_eq!(mismatch(&four, &p, true), None);
    }
}
