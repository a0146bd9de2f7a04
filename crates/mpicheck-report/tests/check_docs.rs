//! `docs/checks/CODE.md`, the page every finding links to (`docs` in `report.json`, the
//! HTML report, SARIF rules), is generated from the check catalogue: one page per check,
//! no page without a check. `MPICHECK_BLESS=1 cargo test -p mpicheck-report --test
//! check_docs` rewrites the pages after a check's docs change.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mpicheck_analyzer::checks::catalogue;
use mpicheck_report::{docs_path, render_docs_page};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_check_has_its_generated_docs_page_and_no_page_is_stale() {
    let root = repo_root();
    let bless = std::env::var_os("MPICHECK_BLESS").is_some();
    let mut wanted = BTreeSet::new();
    let mut stale = Vec::new();
    for check in catalogue() {
        let path = root.join(docs_path(check.code));
        wanted.insert(path.file_name().unwrap().to_owned());
        let page = render_docs_page(check);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &page).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(page.as_str()) {
            stale.push(docs_path(check.code));
        }
    }
    assert!(
        stale.is_empty(),
        "docs pages missing or out of date: {stale:?}; regenerate them with \
         MPICHECK_BLESS=1 cargo test -p mpicheck-report --test check_docs"
    );
    let dir = root.join("docs/checks");
    let extra: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| !wanted.contains(name))
        .collect();
    assert!(
        extra.is_empty(),
        "pages of no check in {}: {extra:?}",
        dir.display()
    );
}

#[test]
fn a_page_starts_with_the_code_and_name_and_holds_the_docs() {
    let check = &catalogue()[0];
    let page = render_docs_page(check);
    assert!(page.starts_with(&format!("# {} {}\n", check.code, check.name)));
    assert!(page.contains(check.summary));
    assert!(page.contains(check.docs.trim()));
}
