//! Resource checks: MPI objects freed before `MPI_Finalize`, attached buffers detached, and
//! buffered sends that have a buffer big enough.

pub mod bsend_buffer;
pub mod buffer_not_detached;
pub mod leak;

pub use bsend_buffer::{RS003, RS004};
pub use buffer_not_detached::RS002;
pub use leak::RS001;
