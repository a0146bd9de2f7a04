//! The committed wrappers are exactly what the generator makes of the pinned API description:
//! regenerate into a temporary directory and compare (needs python3 and the pinned
//! pympistandard package, both installed by scripts/install-deps).

use std::path::Path;
use std::process::Command;

/// gen_wrappers.py's exit status when the pinned pympistandard is not installed.
const EXIT_MISSING_PACKAGE: i32 = 3;

#[test]
fn committed_wrappers_match_the_generator() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mpicheck-interpose");
    let dir = tempfile::tempdir().unwrap();
    let out = match Command::new("python3")
        .arg(shared.join("gen/gen_wrappers.py"))
        .arg(dir.path())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            mpicheck_test_support::skip(&format!(
                "python3 cannot be run ({e}), the generated wrappers are not checked"
            ));
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(EXIT_MISSING_PACKAGE) {
        mpicheck_test_support::skip(&format!(
            "the generated wrappers are not checked: {}",
            stderr.trim()
        ));
        return;
    }
    assert!(out.status.success(), "generator failed:\n{stderr}");
    for file in ["wrappers.c", "fortran.c"] {
        let fresh = std::fs::read_to_string(dir.path().join(file)).unwrap();
        let committed = std::fs::read_to_string(shared.join("c/generated").join(file)).unwrap();
        assert!(
            fresh == committed,
            "c/generated/{file} is stale: run python3 crates/mpicheck-interpose/gen/gen_wrappers.py"
        );
    }
}
