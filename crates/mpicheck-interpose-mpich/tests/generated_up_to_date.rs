//! The committed wrappers are exactly what the generator makes of the committed API
//! description: regenerate into a temporary directory and compare (needs only python3; the
//! generator reads its own copies of apis.json and pympistandard).

use std::path::Path;
use std::process::Command;

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
            eprintln!(
                "SKIPPED: python3 cannot be run ({e}), the generated wrappers are not checked"
            );
            return;
        }
    };
    assert!(
        out.status.success(),
        "generator failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in ["wrappers.c", "fortran.c"] {
        let fresh = std::fs::read_to_string(dir.path().join(file)).unwrap();
        let committed = std::fs::read_to_string(shared.join("c/generated").join(file)).unwrap();
        assert!(
            fresh == committed,
            "c/generated/{file} is stale: run python3 crates/mpicheck-interpose/gen/gen_wrappers.py"
        );
    }
}
