//! Offline analysis of mpicheck traces. Pure Rust, no MPI: traces in, [`Diagnostic`]s out.
//!
//! - [`model`]: the normalized run every check reads; [`normalize`] builds it from traces,
//!   [`text_trace`] from a hand-writable text format (tests).
//! - [`engine`]: replays a run with MPI's matching and completion rules.
//! - [`waitfor`]: reduces the wait-for graph of stuck ranks to the deadlock's cycle or knot.
//! - [`threads`]: synchronization records and happens-before between a rank's threads.
//! - [`checks`]: the checks (`run_all`, `catalogue`, `actual_deadlock`).
//! - [`ranks`]: the text of rank sets in messages and reports, and its parser.

pub mod checks;
pub mod diagnostic;
pub mod engine;
pub mod model;
pub mod normalize;
pub mod polling;
pub mod ranks;
pub mod text;
pub mod text_trace;
pub mod threads;
pub mod typesig;
pub mod waitfor;

pub use diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
