//! Resource checks: MPI objects freed before `MPI_Finalize`, attached buffers detached, and
//! buffered sends that have a buffer big enough.

pub mod bsend_buffer;
pub mod buffer_not_detached;
pub mod leak;

pub use bsend_buffer::{RS003, RS004};
pub use buffer_not_detached::RS002;
pub use leak::RS001;

use crate::diagnostic::Diagnostic;
use crate::model::Run;

/// Every resource diagnostic, in code order.
pub(crate) fn check(run: &Run) -> Vec<Diagnostic> {
    let mut out = leak::check(run);
    out.extend(buffer_not_detached::check(run));
    out.extend(bsend_buffer::check(run));
    out
}
