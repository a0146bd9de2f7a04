//! `report.sarif` content, validated against the SARIF 2.1.0 JSON schema
//! (`tests/sarif-schema-2.1.0.json`, see `tests/SARIF-SCHEMA.md`).

mod common;

use std::path::Path;

use common::*;
use mpicheck_report::sarif::to_sarif_value;
use mpicheck_report::write_sarif;
use serde_json::{json, Value};

fn sarif_schema() -> Value {
    let text = include_str!("sarif-schema-2.1.0.json");
    serde_json::from_str(text).unwrap()
}

fn errors(instance: &Value) -> Vec<String> {
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn sarif(base: &Path, findings: &[mpicheck_analyzer::Diagnostic]) -> Value {
    let run = run_info();
    let mut out = Vec::new();
    write_sarif(&mut out, &input(&run, findings, &[], base), &checks()).unwrap();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn log_validates_against_the_sarif_schema() {
    for base in [fixtures(), Path::new("relative/base").to_path_buf()] {
        for findings in [findings(), vec![], vec![stripped_binary_finding()]] {
            let log = sarif(&base, &findings);
            assert_eq!(errors(&log), Vec::<String>::new(), "{log:#}");
        }
    }
}

#[test]
fn schema_catches_broken_logs() {
    // Guards against a validator that accepts anything (the test above would prove nothing).
    let good = sarif(&fixtures(), &findings());
    let mut bad = Vec::new();
    let mut v = good.clone();
    v["runs"][0]["results"][0]["level"] = json!("fatal");
    bad.push(v);
    let mut v = good.clone();
    v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    bad.push(v);
    let mut v = good.clone();
    v["version"] = json!("2.0.0");
    bad.push(v);
    let mut v = good;
    v["runs"][0]["tool"]["driver"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    bad.push(v);
    for v in bad {
        assert!(!errors(&v).is_empty());
    }
}

#[test]
fn rules_results_and_locations() {
    let base = fixtures();
    let log = sarif(&base, &findings());
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"].as_array().unwrap().len(), 1);
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "mpicheck");
    assert_eq!(driver["rules"][0]["id"], "DL001");
    assert_eq!(
        driver["rules"][0]["properties"]["docs"],
        "docs/checks/DL001.md"
    );
    assert_eq!(driver["rules"][0]["name"], "recv-cycle");
    assert_eq!(
        driver["rules"][0]["shortDescription"]["text"],
        "blocking receives wait for each other in a cycle"
    );
    assert!(driver["rules"][1]["help"]["text"]
        .as_str()
        .unwrap()
        .contains("neither completed nor freed"));
    assert_eq!(
        driver["rules"][1]["defaultConfiguration"]["level"],
        "warning"
    );
    assert_eq!(
        run["originalUriBaseIds"]["SRCROOT"]["uri"],
        format!("file://{}/", base.display())
    );

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let dl = &results[0];
    assert_eq!(dl["ruleId"], "DL001");
    assert_eq!(dl["ruleIndex"], 0);
    assert_eq!(dl["level"], "error");
    assert_eq!(
        dl["locations"][0]["physicalLocation"],
        json!({"artifactLocation": {"uri": "ring.c", "uriBaseId": "SRCROOT"}, "region": {"startLine": 12}})
    );
    let related = dl["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 2);
    assert_eq!(related[0]["id"], 1);
    assert_eq!(
        related[0]["message"]["text"],
        "ranks 1-3: MPI_Recv wait for a message from their left neighbour"
    );
    assert_eq!(related[1]["physicalLocation"]["region"]["startLine"], 13);
    let graph = &dl["graphs"][0];
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(graph["edges"][4]["sourceNodeId"], "n4");
    assert_eq!(graph["edges"][4]["targetNodeId"], "n0");
    assert_eq!(
        dl["properties"]["help"],
        "post the receive with MPI_Irecv before the send, or use MPI_Sendrecv"
    );

    assert_eq!(results[1]["level"], "warning");
    assert!(results[1].get("relatedLocations").is_none());
    // CM001 is not in the catalogue passed in: a ruleId without ruleIndex.
    assert_eq!(results[2]["ruleId"], "CM001");
    assert!(results[2].get("ruleIndex").is_none());
    // A location without file has a message but no physical location.
    let unknown = &results[2]["relatedLocations"][1];
    assert!(unknown.get("physicalLocation").is_none());
    assert_eq!(
        unknown["message"]["text"],
        "rank 5: MPI_Barrier waits in a barrier"
    );
}

#[test]
fn relative_base_has_no_base_uri_and_absolute_files_are_file_uris() {
    let mut d = request_leak();
    d.locations[0].file = Some("/abs/dir/leak.f90".into());
    let log = sarif(Path::new("build"), &[d]);
    let run = &log["runs"][0];
    assert!(run.get("originalUriBaseIds").is_none());
    assert_eq!(
        run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "file:///abs/dir/leak.f90"})
    );
}

#[test]
fn value_and_writer_agree() {
    let (run, findings, base) = (run_info(), findings(), fixtures());
    let input = input(&run, &findings, &[], &base);
    let mut out = Vec::new();
    write_sarif(&mut out, &input, &checks()).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&out).unwrap(),
        to_sarif_value(&input, &checks())
    );
}

#[test]
fn binaries_without_debug_info_are_the_artifact_and_functions_logical_locations() {
    let log = sarif(&fixtures(), &[stripped_binary_finding()]);
    let result = &log["runs"][0]["results"][0];
    let loc = &result["locations"][0];
    assert_eq!(
        loc["physicalLocation"]["artifactLocation"]["uri"],
        json!("file:///usr/lib/x86_64-linux-gnu/libhpl.so.2")
    );
    assert_eq!(loc["logicalLocations"][0]["name"], json!("HPL_bcast"));
    assert_eq!(loc["logicalLocations"][0]["kind"], json!("function"));
    assert_eq!(loc["properties"]["offset"], json!(0x1a2b));
}
