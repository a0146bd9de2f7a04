//! Repeat records (trace format 5) change what a trace costs, not what it says: a program of
//! varied calls (`benches/analysis/varied.c`: point-to-point under changing tags, wildcard
//! receives, collectives, communicators and datatypes made and freed) run under MPICH and
//! Open MPI with repeats on and off (`MPICHECK_REPEATS=0`) lists the same events, with fewer
//! bytes of records. Loops of identical calls (`tests/programs/identical_loops.c`), counted
//! in one record per run since format 6, list the same events too, in fewer bytes; so do
//! loops of a few different calls (`tests/programs/cycle_loops.c`), counted in cycle records
//! since format 7.

use std::path::Path;

mod support;
use support::*;

fn events_and_bytes(
    family: Family,
    exe: &Path,
    arg: &str,
    out: &Path,
    repeats: &str,
) -> (String, u64) {
    let mut cmd = mpicheck_run_command(family, 2, out, &[exe.to_str().unwrap(), arg], &[]);
    cmd.env("MPICHECK_REPEATS", repeats);
    let (output, _) = run_bounded(cmd, b"");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}: mpicheck run, repeats {repeats}: {}",
        family.name,
        text(&output.stderr)
    );
    let events = mpicheck(&["events", out.to_str().unwrap()]);
    assert!(events.status.success(), "{}", text(&events.stderr));
    let bytes = traces(out)
        .iter()
        .map(|t| t.header.records_end - 4096)
        .sum();
    (text(&events.stdout), bytes)
}

/// `events` with each buffer address (`0x7ffe...+16`) replaced by its order of first
/// appearance in its rank's section: addresses differ from run to run (the stack moves), but
/// which calls share a buffer, and its length, must not.
fn without_addresses(events: &str) -> String {
    let mut out = String::new();
    let mut seen: Vec<String> = Vec::new();
    for line in events.lines() {
        if line.starts_with("rank ") {
            seen.clear();
        }
        let mut rest = line;
        while let Some(at) = rest.find(" 0x") {
            out.push_str(&rest[..at + 1]);
            let address_end = rest[at + 1..]
                .find('+')
                .map_or(rest.len(), |end| at + 1 + end);
            let address = rest[at + 1..address_end].to_string();
            let index = seen.iter().position(|a| *a == address).unwrap_or_else(|| {
                seen.push(address);
                seen.len() - 1
            });
            out.push_str(&format!("buffer#{index}"));
            rest = &rest[address_end..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

#[test]
fn repeats_list_the_same_events_in_fewer_bytes() {
    for family in [MPICH, OPENMPI] {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("varied");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/analysis/varied.c");
        compile_to(family, &source, &exe);
        let (with, with_bytes) = events_and_bytes(family, &exe, "60", &dir.path().join("on"), "1");
        let (without, without_bytes) =
            events_and_bytes(family, &exe, "60", &dir.path().join("off"), "0");
        assert!(with.lines().count() > 1000, "{}: {with}", family.name);
        assert!(with.contains("; buf 0x"), "{}: {with}", family.name);
        assert_eq!(
            without_addresses(&with),
            without_addresses(&without),
            "{}: the same events",
            family.name
        );
        assert!(
            with_bytes < without_bytes,
            "{}: {with_bytes} bytes of records with repeats, {without_bytes} without",
            family.name
        );
    }
}

#[test]
fn counted_runs_list_the_same_events_in_fewer_bytes() {
    for family in [MPICH, OPENMPI] {
        let dir = tempfile::tempdir().unwrap();
        let exe = compile(family, "identical_loops.c", dir.path());
        let (with, with_bytes) = events_and_bytes(family, &exe, "300", &dir.path().join("on"), "1");
        let (without, without_bytes) =
            events_and_bytes(family, &exe, "300", &dir.path().join("off"), "0");
        // 300 turns of 5 loops, up to 3 calls each, on 2 ranks.
        assert!(with.lines().count() > 3000, "{}: {with}", family.name);
        assert_eq!(
            without_addresses(&with),
            without_addresses(&without),
            "{}: the same events",
            family.name
        );
        // The first loop alone (300 identical sends on rank 0, 300 identical receives on
        // rank 1) saves at least 40 bytes per call but two on each rank; the others, whose
        // inputs or outputs change, or which cycle through several calls (the exchange),
        // count less or nothing.
        assert!(
            with_bytes + 2 * 298 * 40 < without_bytes,
            "{}: {with_bytes} bytes of records with counted repeats, {without_bytes} without",
            family.name
        );
    }
}

#[test]
fn counted_cycles_list_the_same_events_in_fewer_bytes() {
    for family in [MPICH, OPENMPI] {
        let dir = tempfile::tempdir().unwrap();
        let exe = compile(family, "cycle_loops.c", dir.path());
        let (with, with_bytes) = events_and_bytes(family, &exe, "300", &dir.path().join("on"), "1");
        let (without, without_bytes) =
            events_and_bytes(family, &exe, "300", &dir.path().join("off"), "0");
        // 300 turns of 4 loops, 2 to 5 calls each, on 2 ranks.
        assert!(
            with.lines().count() > 2 * 300 * 14,
            "{}: {with}",
            family.name
        );
        assert_eq!(
            without_addresses(&with),
            without_addresses(&without),
            "{}: the same events",
            family.name
        );
        // The exchange alone (300 turns of 3 calls, at least 48 bytes each written in
        // full) is counted but for its first two turns on each rank.
        assert!(
            with_bytes + 2 * 298 * 3 * 48 < without_bytes,
            "{}: {with_bytes} bytes of records with counted cycles, {without_bytes} without",
            family.name
        );
        let counted: u64 = std::fs::read_dir(dir.path().join("on"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mpitrace"))
            .flat_map(|p| cycle_calls(&std::fs::read(p).unwrap()))
            .sum();
        assert!(
            counted > 2 * 298 * 3,
            "{}: {counted} calls counted in cycles",
            family.name
        );
    }
}

/// The calls each cycle record of a trace file counts (trace format 7, "Counted cycles").
fn cycle_calls(b: &[u8]) -> Vec<u64> {
    let mut at = 4096;
    let mut calls = Vec::new();
    while at + 8 <= b.len() {
        let len = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        if len == 0 || at + len > b.len() {
            break;
        }
        if let Some((_, _, _, runs, pending, _)) =
            mpicheck_trace::reader::cycle_fields(&b[at..at + len])
        {
            calls.push(runs + pending as u64);
        }
        at += len;
    }
    calls
}
