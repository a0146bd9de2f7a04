//! The generated argument-rule programs under `tests/programs/generated/` are what
//! `mpicheck_programs_tests::generated::programs` writes (`MPICHECK_BLESS=1` rewrites
//! them), and the table covers every rule of the docs' kind table.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use mpicheck_analyzer::checks::argument::rules::{functions_of, KIND_RULES};
use mpicheck_programs_tests::generated::{programs, CASES};
use mpicheck_programs_tests::{parse_program, Language};

fn generated_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/generated")
}

#[test]
fn committed_programs_are_the_generator_s_output() {
    let dir = generated_dir();
    let want: BTreeMap<String, String> = programs().into_iter().collect();
    if std::env::var_os("MPICHECK_BLESS").is_some() {
        fs::create_dir_all(&dir).unwrap();
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !want.contains_key(&name) {
                fs::remove_file(&path).unwrap();
            }
        }
        for (name, text) in &want {
            fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut have = BTreeMap::new();
    for entry in fs::read_dir(&dir).expect("tests/programs/generated exists") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        have.insert(name, fs::read_to_string(&path).unwrap());
    }
    let stale: Vec<&String> = have
        .iter()
        .filter(|(n, t)| want.get(*n) != Some(*t))
        .map(|(n, _)| n)
        .chain(want.keys().filter(|n| !have.contains_key(*n)))
        .collect();
    assert!(
        stale.is_empty(),
        "tests/programs/generated differs from the generator in {stale:?}: run \
         MPICHECK_BLESS=1 cargo nextest run -p mpicheck-programs-tests --test generated"
    );
}

#[test]
fn every_generated_program_parses_and_has_a_unique_name() {
    let all = programs();
    let names: BTreeSet<&String> = all.iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), all.len(), "two cases make the same file name");
    for (name, text) in &all {
        let exp = parse_program(text, Language::C).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(exp.expected.len(), 1, "{name}");
    }
}

#[test]
fn every_rule_of_the_kind_table_has_three_functions_where_three_exist() {
    for rule in KIND_RULES {
        let functions: BTreeSet<&str> = CASES
            .iter()
            .filter(|c| c.code == rule.code)
            .map(|c| c.function)
            .collect();
        let covered = functions_of(rule.code).unwrap_or_default();
        for f in &functions {
            assert!(
                covered.iter().any(|c| c == f),
                "{}: {f} is not a function the rule covers",
                rule.code
            );
        }
        let want = covered.len().min(3);
        assert!(
            functions.len() >= want,
            "{} ({:?}) has generated programs for {functions:?}, wants {want} functions",
            rule.code,
            rule.kinds
        );
    }
}
