//! Recorder (being written).
