//! What mpicheck's tests share across crates.
//!
//! A test that needs a tool this machine may lack (an MPI compiler, python3, chromium, root
//! to mount a tmpfs) skips with [`skip`] on a developer's machine. In CI everything the tests
//! need is installed (`scripts/install-deps`), so a missing tool there is a broken machine,
//! not a reason to pass: [`skip`] fails the test instead.

/// Whether tests run in CI: the `CI` environment variable is set to anything but empty, `0`
/// or `false` (`.ci/run` sets `CI=1`; hosted CI services set `CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Skips the calling test because `why` (what is missing, and how to install it): prints
/// `SKIPPED: why` on stderr and returns, so the caller returns next. In CI it panics instead.
#[track_caller]
pub fn skip(why: &str) {
    if in_ci() {
        panic!("{why}; in CI every test must run (CI is set), so this is a failure, not a skip");
    }
    eprintln!("SKIPPED: {why}");
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the environment is process-wide and tests run on threads.
    #[test]
    fn skips_outside_ci_and_fails_in_ci() {
        let saved = std::env::var_os("CI");
        for (value, ci) in [
            (None, false),
            (Some(""), false),
            (Some("0"), false),
            (Some("false"), false),
            (Some("1"), true),
            (Some("true"), true),
        ] {
            match value {
                Some(v) => std::env::set_var("CI", v),
                None => std::env::remove_var("CI"),
            }
            assert_eq!(in_ci(), ci, "CI={value:?}");
            let skipped = std::panic::catch_unwind(|| skip("tool is not installed")).is_ok();
            assert_eq!(skipped, !ci, "CI={value:?}");
        }
        match saved {
            Some(v) => std::env::set_var("CI", v),
            None => std::env::remove_var("CI"),
        }
    }
}
