//! Offline analysis of mpicheck traces. Pure Rust, no MPI: traces in, [`Diagnostic`]s out.

pub mod diagnostic;
pub mod model;
pub mod normalize;

pub use diagnostic::{Category, CheckInfo, Diagnostic, Location, Severity};
