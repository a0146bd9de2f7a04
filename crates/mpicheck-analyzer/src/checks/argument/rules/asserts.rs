//! RMA assertions (MPI 4.1 §12.5.5): each synchronization call accepts only some of the
//! `MPI_MODE_*` bits.

use super::ArgConstants;

/// The modes a synchronization call accepts in its `assert`, `None` for other calls.
fn allowed(short: &str) -> Option<&'static [&'static str]> {
    Some(match short {
        "Win_start" | "Win_lock" | "Win_lock_all" => &["MPI_MODE_NOCHECK"],
        "Win_post" => &["MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT"],
        "Win_fence" => &[
            "MPI_MODE_NOSTORE",
            "MPI_MODE_NOPUT",
            "MPI_MODE_NOPRECEDE",
            "MPI_MODE_NOSUCCEED",
        ],
        _ => return None,
    })
}

/// Whether AR015 judges the assertions of this call.
pub(super) fn judged(short: &str) -> bool {
    allowed(short).is_some()
}

/// The modes of `value` the call does not accept (and "other bits" for bits of no mode);
/// empty when it is valid, or when the trace lacks the modes' values (an older recorder):
/// without them a bit cannot be named.
pub(super) fn not_allowed(short: &str, value: i64, c: &ArgConstants) -> Vec<&'static str> {
    let Some(allowed) = allowed(short) else {
        return Vec::new();
    };
    if c.rma_modes.len() < 5 {
        return Vec::new();
    }
    let mut bad = Vec::new();
    let mut known = 0;
    for &(name, bit) in &c.rma_modes {
        known |= bit;
        if value & bit != 0 && !allowed.contains(&name) {
            bad.push(name);
        }
    }
    if value & !known != 0 {
        bad.push("bits of no MPI_MODE_* value");
    }
    bad
}
