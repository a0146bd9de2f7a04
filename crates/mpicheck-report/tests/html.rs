//! `report.html`: well-formed, self-contained, and showing what the terminal shows.

mod common;

use std::path::Path;

use common::*;
use mpicheck_report::html::render_html;
use mpicheck_report::svg::to_svg;
use mpicheck_report::write_html;

fn page(base: &Path, with_timelines: bool) -> String {
    let (run, findings, timelines) = (run_info(), findings(), timelines());
    let timelines = if with_timelines { &timelines[..] } else { &[] };
    let mut out = Vec::new();
    write_html(&mut out, &input(&run, &findings, timelines, base)).unwrap();
    String::from_utf8(out).unwrap()
}

fn text_of(doc: &roxmltree::Document) -> String {
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

#[test]
fn page_is_well_formed_xml() {
    let html = page(&fixtures(), true);
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("report.html parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "html");
    let svgs = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .count();
    assert_eq!(svgs, 1, "one wait-for graph in the fixtures");
}

#[test]
fn page_is_self_contained() {
    let html = page(&fixtures(), true);
    // Only namespace URIs, which browsers never fetch, may mention http.
    let without_ns = html
        .replace("xmlns=\"http://www.w3.org/1999/xhtml\"", "")
        .replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for needle in [
        "http:",
        "https:",
        "<script src",
        "<link",
        "@import",
        "src=\"",
        "url(http",
    ] {
        assert!(!without_ns.contains(needle), "page refers to {needle}");
    }
}

#[test]
fn page_shows_the_terminal_content() {
    let html = page(&fixtures(), false);
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let text = text_of(&doc);
    for expected in [
        "mpicheck: 2 errors, 1 warning",
        "error[DL001]",
        "ranks 0-3 wait for each other in a cycle of blocking receives",
        "warning[RL001]",
        "ranks 1-3",
        "at ring.c:12",
        "wait for a message from their left neighbour",
        // The source line, with the call marked.
        "MPI_Recv(&buf, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)",
        "note:",
        "a blocking receive returns only once a matching message has arrived",
        "help:",
        "post the receive with MPI_Irecv before the send, or use MPI_Sendrecv",
        // Missing sources still show where.
        "at src/solver.c:42",
        "source not available",
        "call site unknown",
        // Run metadata.
        "./ring --iterations 10",
        "mpich",
        "ranks 0-5: interrupted: killed by the launcher after 10 s without progress",
        // DOT text of the graph.
        "digraph wait_for",
        // The check's docs, folded, and where to find them again.
        "about DL001",
        "docs/checks/DL001.md",
        "## What it does",
    ] {
        assert!(text.contains(expected), "missing {expected:?}");
    }
    let marked: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "mark")
        .filter_map(|n| n.text())
        .collect();
    assert!(marked.contains(&"MPI_Isend(buf, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, req, ierr)"));
    assert!(!text.contains("Last calls of each rank"));
}

#[test]
fn timeline_marks_blocked_calls() {
    let html = page(&fixtures(), true);
    assert!(html.contains("Last calls of each rank"));
    assert_eq!(
        html.matches("<li class=\"blocked\"><code>MPI_Recv</code>")
            .count(),
        4
    );
    assert_eq!(html.matches("<li class=\"returned\">").count(), 12);
    assert!(html.contains("<small class=\"mono\">ring.c:12</small>"));
}

#[test]
fn empty_report() {
    let run = run_info();
    let html = render_html(&input(&run, &[], &[], Path::new("/nonexistent")));
    assert!(html.contains("<p class=\"summary clean\">mpicheck: no findings</p>"));
    assert!(!html.contains("<svg"));
}

#[test]
fn wait_for_graph_drawing() {
    // The layout and drawing of the fixture graph: 4-rank ring, ranks 4-5 waiting outside.
    insta::assert_snapshot!(to_svg(&ring_graph(), "wf1"));
}

#[test]
fn locations_without_source_name_function_object_and_addr2line() {
    let (run, findings) = (run_info(), vec![stripped_binary_finding()]);
    let mut out = Vec::new();
    write_html(&mut out, &input(&run, &findings, &[], &fixtures())).unwrap();
    let html = String::from_utf8(out).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let text = text_of(&doc);
    for expected in [
        "in `HPL_bcast` (libhpl.so.2+0x1a2b)",
        "addr2line -Cfe /usr/lib/x86_64-linux-gnu/libhpl.so.2 0x1a2b",
        "at hpcc+0x4010",
        "call site unknown",
    ] {
        assert!(text.contains(expected), "missing {expected:?}");
    }
}
