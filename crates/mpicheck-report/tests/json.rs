//! `report.json` content and validation against `docs/report.schema.json`.

mod common;

use common::*;
use mpicheck_report::json::to_json_value;
use mpicheck_report::write_json;
use serde_json::{json, Value};

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/report.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn report(findings: &[mpicheck_analyzer::Diagnostic]) -> Value {
    let (run, base) = (run_info(), fixtures());
    let mut out = Vec::new();
    write_json(&mut out, &input(&run, findings, &[], &base)).unwrap();
    assert!(out.ends_with(b"}\n"));
    serde_json::from_slice(&out).unwrap()
}

fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("the schema itself is valid");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn report_validates_against_the_schema() {
    let schema = schema();
    for findings in [findings(), vec![], vec![stripped_binary_finding()]] {
        let report = report(&findings);
        assert_eq!(errors(&schema, &report), Vec::<String>::new());
    }
}

#[test]
fn locations_carry_function_object_and_offset() {
    let report = report(&[stripped_binary_finding()]);
    let locs = &report["findings"][0]["locations"];
    assert_eq!(locs[0]["function"], json!("HPL_bcast"));
    assert_eq!(
        locs[0]["object"],
        json!("/usr/lib/x86_64-linux-gnu/libhpl.so.2")
    );
    assert_eq!(locs[0]["offset"], json!(0x1a2b));
    // file and line keep their types: null, not absent.
    assert_eq!(locs[0]["file"], Value::Null);
    assert_eq!(locs[0]["line"], Value::Null);
    assert_eq!(locs[1]["function"], Value::Null);
    assert_eq!(locs[2]["object"], Value::Null);
}

#[test]
fn schema_rejects_what_readers_must_not_get() {
    // Guards against a schema so loose that the validation above proves nothing.
    let schema = schema();
    let good = report(&findings());
    let mut bad = Vec::new();
    let mut v = good.clone();
    v["findings"][0]["severity"] = json!("fatal");
    bad.push(v);
    let mut v = good.clone();
    v["schema_version"] = json!(2);
    bad.push(v);
    let mut v = good.clone();
    v["findings"][0]["locations"][0]["ranks"] = json!([]);
    bad.push(v);
    let mut v = good.clone();
    v["findings"][0]["wait_for"]["nodes"][0]["semantics"] = json!("xor");
    bad.push(v);
    let mut v = good.clone();
    v["summary"].as_object_mut().unwrap().remove("warnings");
    bad.push(v);
    let mut v = good.clone();
    v["run"]["trace_ends"][0]["state"] = json!("exploded");
    bad.push(v);
    let mut v = good;
    v["findings"][1]["category"] = json!("style");
    bad.push(v);
    for v in bad {
        assert!(!errors(&schema, &v).is_empty(), "accepted {v:#}");
    }
}

#[test]
fn findings_carry_every_field() {
    let report = report(&findings());
    assert_eq!(report["schema_version"], 1);
    assert_eq!(
        report["tool"],
        json!({"name": "mpicheck", "version": env!("CARGO_PKG_VERSION")})
    );
    assert_eq!(report["run"]["mpi_family"], "mpich");
    assert_eq!(report["run"]["ranks"], 6);
    assert_eq!(report["run"]["exit_status"], Value::Null);
    assert_eq!(report["run"]["trace_ends"][5]["state"], "interrupted");
    assert_eq!(
        report["summary"],
        json!({"errors": 2, "warnings": 1, "suppressed": 0, "below_threshold": 0})
    );

    let dl = &report["findings"][0];
    assert_eq!(dl["code"], "DL001");
    assert_eq!(dl["category"], "deadlock");
    assert_eq!(dl["severity"], "error");
    // Typed fields: nobody parses ranks out of the message, and the docs are linked.
    assert_eq!(dl["ranks"], json!([0]));
    assert_eq!(dl["message_ranks"], json!([[0, 1, 2, 3]]));
    assert_eq!(dl["docs"], "docs/checks/DL001.md");
    assert_eq!(
        dl["locations"][1],
        json!({
            "rank": 1, "ranks": [1, 2, 3], "call": "MPI_Recv", "file": "ring.c", "line": 12,
            "function": null, "object": null, "offset": null,
            "label": "wait for a message from their left neighbour"
        })
    );
    assert_eq!(dl["wait_for"]["nodes"][4]["semantics"], "or");
    assert_eq!(
        dl["wait_for"]["edges"][4],
        json!({"from": 4, "to": 0, "label": "reply tag 9"})
    );

    let leak = &report["findings"][1];
    assert_eq!(leak["message_ranks"], json!([]));
    assert_eq!(leak["severity"], "warning");
    assert_eq!(leak["wait_for"], Value::Null);
    assert_eq!(
        leak["help"],
        "call MPI_Wait on the request before MPI_Finalize"
    );

    let cm = &report["findings"][2];
    assert_eq!(cm["help"], Value::Null);
    assert_eq!(cm["locations"][2]["file"], Value::Null);
    assert_eq!(cm["locations"][2]["line"], Value::Null);
}

#[test]
fn value_and_writer_agree() {
    let (run, findings, base) = (run_info(), findings(), fixtures());
    let input = input(&run, &findings, &[], &base);
    let mut out = Vec::new();
    write_json(&mut out, &input).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&out).unwrap(),
        to_json_value(&input)
    );
}

#[test]
fn example_in_the_schema_doc_is_valid() {
    // Keeps docs/report-schema.md honest: its example must pass the schema it describes.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/report-schema.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let start = doc.find("```json\n").expect("an example") + "```json\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let example: Value = serde_json::from_str(&doc[start..end]).unwrap();
    assert_eq!(errors(&schema(), &example), Vec::<String>::new());
}
