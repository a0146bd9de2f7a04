//! The indices a wait or test reported complete, kept in the event without an allocation
//! for the common few.

/// The indices a wait or test reported complete ([`Op::Wait`]), in order. Up to four are kept
/// in the event, without an allocation: most waits complete one or two requests. (Not a
/// small vector: `Option<Completed>` is as large as `Option<Vec<u32>>`, 24 bytes, where an
/// optional small vector would make every event larger.)
#[derive(Clone)]
pub struct Completed(CompletedIndices);

#[derive(Clone)]
enum CompletedIndices {
    Inline {
        len: u8,
        indices: [u32; COMPLETED_INLINE],
    },
    Heap(Box<[u32]>),
}

/// How many indices [`Completed`] keeps without an allocation.
const COMPLETED_INLINE: usize = 4;

impl Completed {
    /// No index.
    pub const fn new() -> Completed {
        Completed(CompletedIndices::Inline {
            len: 0,
            indices: [0; COMPLETED_INLINE],
        })
    }

    /// The single index `i`.
    pub const fn one(i: u32) -> Completed {
        Completed(CompletedIndices::Inline {
            len: 1,
            indices: [i, 0, 0, 0],
        })
    }
}

impl Default for Completed {
    fn default() -> Completed {
        Completed::new()
    }
}

impl std::ops::Deref for Completed {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match &self.0 {
            CompletedIndices::Inline { len, indices } => &indices[..*len as usize],
            CompletedIndices::Heap(indices) => indices,
        }
    }
}

impl FromIterator<u32> for Completed {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Completed {
        let mut iter = iter.into_iter();
        let mut indices = [0; COMPLETED_INLINE];
        for len in 0..COMPLETED_INLINE {
            match iter.next() {
                Some(i) => indices[len] = i,
                None => {
                    return Completed(CompletedIndices::Inline {
                        len: len as u8,
                        indices,
                    })
                }
            }
        }
        match iter.next() {
            None => Completed(CompletedIndices::Inline {
                len: COMPLETED_INLINE as u8,
                indices,
            }),
            Some(next) => {
                let mut all = indices.to_vec();
                all.push(next);
                all.extend(iter);
                Completed(CompletedIndices::Heap(all.into_boxed_slice()))
            }
        }
    }
}

impl From<Vec<u32>> for Completed {
    fn from(indices: Vec<u32>) -> Completed {
        if indices.len() <= COMPLETED_INLINE {
            indices.into_iter().collect()
        } else {
            Completed(CompletedIndices::Heap(indices.into_boxed_slice()))
        }
    }
}

impl<'a> IntoIterator for &'a Completed {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Completed {
    fn eq(&self, other: &Completed) -> bool {
        **self == **other
    }
}

impl Eq for Completed {}

impl std::fmt::Debug for Completed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}
