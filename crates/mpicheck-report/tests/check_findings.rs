//! What a user sees for each check: the analyzer's own findings on the tier-2 programs
//! (as text traces whose call sites are the programs' lines), folded and rendered for the
//! terminal with the programs' source lines and as `report.json` findings, pinned by
//! snapshots: every check in the catalogue has at least one of each (a meta-test below
//! keeps it so for new checks).
//!
//! Besides the snapshots, each test asserts what makes a finding understandable on its own:
//! a message, a label at every involved call (on its source line), the MPI rule as a note
//! and the fix as help.

use std::path::{Path, PathBuf};

use mpicheck_analyzer::checks::{catalogue, run_all_in_every_order, undeclared_uses};
use mpicheck_analyzer::model::{
    ArgProblem, CallTime, EventFacts, FreedAfterUse, ObjectKind, Op, ParallelRegion, Run, SiteId,
    SourceLocation, SyncEvent, SyncKind, ThreadLevel,
};
use mpicheck_analyzer::text_trace::parse;
use mpicheck_analyzer::Diagnostic;
use mpicheck_report::json::to_json_value;
use mpicheck_report::{fold, render_terminal, ReportInput, RunInfo};
use termcolor::NoColor;

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// Findings, their terminal rendering and their `report.json` `findings` array (pretty
/// printed; the rest of the report is run information, pinned by tests/json.rs).
struct Rendered {
    findings: Vec<Diagnostic>,
    text: String,
    json: String,
}

fn render_run(run: &Run) -> Rendered {
    // Every check's fixture also keeps the registry's declarations true: no check uses a
    // replay or another check's data it did not declare.
    assert_eq!(undeclared_uses(run), Vec::<String>::new());
    // Passes see the ranks' events interleaved when the traces are normalized: they find the
    // same, in the same order, whatever the interleaving.
    let all = run_all_in_every_order(run);
    let findings = fold(all);
    let info = RunInfo::default();
    let base = programs_dir();
    let input = ReportInput {
        run: &info,
        findings: &findings,
        timelines: &[],
        source_base: &base,
        hidden: Default::default(),
    };
    let mut out = NoColor::new(Vec::new());
    render_terminal(&mut out, &input).unwrap();
    let json = serde_json::to_string_pretty(&to_json_value(&input)["findings"]).unwrap();
    Rendered {
        text: String::from_utf8(out.into_inner()).unwrap(),
        json,
        findings,
    }
}

/// Findings and their renderings for a text trace.
fn render_trace(trace: &str) -> Rendered {
    render_run(&parse(trace).unwrap())
}

/// Asserts the findings with `codes` are understandable, that no other check reports
/// anything, and pins both renderings as `NAME` and `NAME_json`.
macro_rules! pin {
    ($name:literal, $rendered:expr, [$($code:literal),+]) => {{
        let r: Rendered = $rendered;
        let expected = [$($code),+];
        for code in expected {
            assert_understandable(&r.findings, &r.text, code);
            assert!(
                r.json.contains(&format!("\"code\": \"{code}\"")),
                "{code} not in the JSON:\n{}",
                r.json
            );
        }
        for d in &r.findings {
            assert!(expected.contains(&d.code), "unexpected {}:\n{}", d.code, r.text);
            assert_ranks_are_slots(d);
        }
        insta::assert_snapshot!($name, r.text);
        insta::assert_snapshot!(concat!($name, "_json"), r.json);
    }};
}

/// A rank expression (`rank 3`, `ranks 0-3`) at the start of `s` or after a non-word
/// character: what a check wrote with `format!` instead of a rank-set slot.
fn rank_expression(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    s.char_indices().find_map(|(i, _)| {
        let at_word_start =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let rest = &s[i..];
        let after = rest
            .strip_prefix("ranks ")
            .or_else(|| rest.strip_prefix("rank "))?;
        (at_word_start && after.starts_with(|c: char| c.is_ascii_digit())).then_some(rest)
    })
}

/// Every rank a finding's texts name is a rank-set slot, so that folding can unite it:
/// none hides in literal text, where it would keep the same finding on two ranks apart.
fn assert_ranks_are_slots(d: &Diagnostic) {
    let texts = std::iter::once(&d.message)
        .chain(d.locations.iter().map(|l| &l.label))
        .chain(&d.notes)
        .chain(&d.help);
    for text in texts {
        for literal in text.literals() {
            assert!(
                rank_expression(literal).is_none(),
                "{}: `{literal}` in `{text}` names a rank in literal text: pass a RankSet to text!",
                d.code
            );
        }
    }
}

#[test]
fn rank_expressions_are_found_in_literal_text() {
    assert!(rank_expression("receives from rank 3").is_some());
    assert!(rank_expression("ranks 0-3 wait").is_some());
    assert!(rank_expression("frank 3, ranks are fine, rank x").is_none());
    assert!(rank_expression("the root (0 in the communicator)").is_none());
}

/// The finding with `code` is complete and every one of its locations is shown on its
/// source line with its label.
fn assert_understandable(findings: &[Diagnostic], text: &str, code: &str) {
    let d = findings
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in:\n{text}"));
    let header = format!(
        "{}[{code}]: {}",
        match d.severity {
            mpicheck_analyzer::Severity::Error => "error",
            mpicheck_analyzer::Severity::Warning => "warning",
        },
        d.message
    );
    assert!(text.contains(&header), "no `{header}` in:\n{text}");
    assert!(!d.message.is_empty() && !d.message.ends_with('.'));
    assert!(!d.notes.is_empty(), "{code}: no note with the MPI rule");
    assert!(
        d.notes.iter().any(|n| n.contains("MPI")),
        "{code}: notes name no MPI rule"
    );
    let help = d.help.as_deref().expect("a help line with the fix");
    assert!(text.contains(&format!("= help: {help}")), "{text}");
    for l in &d.locations {
        let label = mpicheck_report::ranks::format_ranks(&l.ranks) + ": " + &l.label;
        assert!(
            text.contains(&label),
            "{code}: label `{label}` missing:\n{text}"
        );
        let line = l.line.expect("test traces give every call a line");
        // The source line is printed in the gutter as `NN │ <source>`.
        assert!(
            text.contains(&format!("{line} │ ")),
            "{code}: line {line} not shown:\n{text}"
        );
    }
}

#[test]
fn dl001_ssend_ring() {
    let r = render_trace(
        "ranks 4
         0: blocked ssend dest=1 tag=7 @ fig02_ssend_ring4.c:30
         1: blocked ssend dest=2 tag=7 @ fig02_ssend_ring4.c:30
         2: blocked ssend dest=3 tag=7 @ fig02_ssend_ring4.c:30
         3: blocked ssend dest=0 tag=7 @ fig02_ssend_ring4.c:30",
    );
    pin!("dl001_ssend_ring", r, ["DL001"]);
}

#[test]
fn dl001_collective_and_receive() {
    let r = render_trace(
        "ranks 3
         0: blocked bcast root=2 @ fig23_bcast_recv_root2.c:31
         1: blocked bcast root=2 @ fig23_bcast_recv_root2.c:34
         2: blocked recv src=0 tag=1 @ fig23_bcast_recv_root2.c:36",
    );
    pin!("dl001_collective_and_receive", r, ["DL001"]);
}

#[test]
fn dl001_folds_64_ranks_into_strided_sets() {
    // Even ranks synchronously send to their right neighbour, odd ranks to their left: 32
    // two-rank cycles, one finding with rank sets.
    let mut trace = String::from("ranks 64\n");
    for r in 0..64 {
        let (peer, line) = if r % 2 == 0 { (r + 1, 31) } else { (r - 1, 34) };
        trace += &format!("{r}: blocked ssend dest={peer} tag=1 @ fig01_ssend_cycle.c:{line}\n");
    }
    let r = render_trace(&trace);
    assert!(r.text.contains("ranks 0-62 stride 2"), "{}", r.text);
    assert!(r.text.contains("ranks 1-63 stride 2"), "{}", r.text);
    pin!("dl001_folds_64_ranks_into_strided_sets", r, ["DL001"]);
}

#[test]
fn dl002_send_cycle() {
    let r = render_trace(
        "ranks 2
         0: send dest=1 tag=1 @ fig01_send_cycle.c:29
         0: recv src=1 tag=2 @ fig01_send_cycle.c:30
         1: send dest=0 tag=2 @ fig01_send_cycle.c:32
         1: recv src=0 tag=1 @ fig01_send_cycle.c:33
         *: finalize @ fig01_send_cycle.c:36",
    );
    pin!("dl002_send_cycle", r, ["DL002"]);
}

#[test]
fn dl003_and_mr001_wildcard() {
    let r = render_trace(
        "ranks 3
         0: recv src=any tag=0 matched=1 @ std_wildcard_then_specific_recv.c:35
         0: recv src=2 tag=0 @ std_wildcard_then_specific_recv.c:36
         1: send dest=0 tag=0 @ std_wildcard_then_specific_recv.c:40
         2: send dest=0 tag=0 @ std_wildcard_then_specific_recv.c:45
         *: finalize @ std_wildcard_then_specific_recv.c:49",
    );
    pin!("dl003_and_mr001_wildcard", r, ["DL003", "MR001"]);
}

#[test]
fn co001_collective_order() {
    let r = render_trace(
        "ranks 3
         0-1: bcast root=0 @ fig21_bcast_gather_order.c:31
         0-1: gather root=0 @ fig21_bcast_gather_order.c:32
         2: gather root=0 @ fig21_bcast_gather_order.c:34
         2: bcast root=0 @ fig21_bcast_gather_order.c:35
         *: finalize @ fig21_bcast_gather_order.c:38",
    );
    pin!("co001_collective_order", r, ["CO001"]);
}

#[test]
fn co002_root_mismatch() {
    let r = render_trace(
        "ranks 4
         0-2: bcast root=0 count=4 type=int @ mpe_ex4_bcast_root.c:15
         3: bcast root=3 count=4 type=int @ mpe_ex4_bcast_root.c:15
         *: finalize @ mpe_ex4_bcast_root.c:16",
    );
    pin!("co002_root_mismatch", r, ["CO002"]);
}

#[test]
fn co003_op_mismatch() {
    let r = render_trace(
        "ranks 4
         0: allreduce count=4 type=int op=max @ co_root_op_in_place.c:25
         1-3: allreduce count=4 type=int op=sum @ co_root_op_in_place.c:25
         *: finalize @ co_root_op_in_place.c:33",
    );
    pin!("co003_op_mismatch", r, ["CO003"]);
}

#[test]
fn co004_in_place_on_some_ranks() {
    let r = render_trace(
        "ranks 4
         1: allreduce count=4 type=int op=sum inplace=1 @ co_root_op_in_place.c:28
         0,2,3: allreduce count=4 type=int op=sum @ co_root_op_in_place.c:30
         *: finalize @ co_root_op_in_place.c:33",
    );
    pin!("co004_in_place_on_some_ranks", r, ["CO004"]);
}

#[test]
fn co005_creation_arguments() {
    let r = render_trace(
        "ranks 4
         0-2: cart_create agree=ndims:2,dims:2x2 @ co_args_mismatch.c:20
         3: cart_create agree=ndims:2,dims:4x1 @ co_args_mismatch.c:20
         *: finalize @ co_args_mismatch.c:28",
    );
    pin!("co005_creation_arguments", r, ["CO005"]);
}

#[test]
fn co006_split_collective_order() {
    let r = render_trace(
        "ranks 2
         comm 1 members 0 1 name fh
         *: file_open agree=amode:0x9 @ co_file_split_order.c:22
         *: file_write_all_begin comm=1 @ co_file_split_order.c:27
         *: file_read_all comm=1 @ co_file_split_order.c:28
         *: file_write_all_end comm=1 @ co_file_split_order.c:29
         *: file_close comm=1 @ co_file_split_order.c:30
         *: finalize @ co_file_split_order.c:31",
    );
    pin!("co006_split_collective_order", r, ["CO006"]);
}

#[test]
fn ty001_collective_signatures() {
    let r = render_trace(
        "ranks 4
         0-2: bcast root=0 count=1 type=int @ mpe_ex2_bcast_int_vs_byte.c:16
         3: bcast root=0 count=1 type=byte @ mpe_ex2_bcast_int_vs_byte.c:16
         *: finalize @ mpe_ex2_bcast_int_vs_byte.c:17",
    );
    pin!("ty001_collective_signatures", r, ["TY001"]);
}

#[test]
fn ty002_point_to_point_signatures() {
    let r = render_trace(
        "ranks 2
         0: send dest=1 tag=0 count=4 type=int @ ty_p2p_mismatch.c:31
         1: recv src=0 tag=0 count=4 type=float @ ty_p2p_mismatch.c:35
         *: finalize @ ty_p2p_mismatch.c:42",
    );
    pin!("ty002_point_to_point_signatures", r, ["TY002"]);
}

#[test]
fn ty003_truncation() {
    let r = render_trace(
        "ranks 2
         0: send dest=1 tag=0 count=8 type=int @ ty_p2p_truncate.c:15
         1: blocked recv src=0 tag=0 count=4 type=int @ ty_p2p_truncate.c:17
         0: finalize @ ty_p2p_truncate.c:18",
    );
    pin!("ty003_truncation", r, ["TY003"]);
}

#[test]
fn rq001_request_never_completed() {
    let r = render_trace(
        "ranks 2
         *: init @ rq_isend_never_waited.c:15
         0: isend dest=1 tag=0 req=0 @ rq_isend_never_waited.c:18
         1: recv src=0 tag=0 @ rq_isend_never_waited.c:20
         *: barrier @ rq_isend_never_waited.c:22
         *: finalize @ rq_isend_never_waited.c:23",
    );
    pin!("rq001_request_never_completed", r, ["RQ001"]);
}

#[test]
fn rq002_free_active_receive() {
    let r = render_trace(
        "ranks 2
         *: init @ rq_free_active_recv.c:14
         1: irecv src=0 tag=0 req=0 @ rq_free_active_recv.c:17
         1: request_free req=0 @ rq_free_active_recv.c:18
         0: send dest=1 tag=0 @ rq_free_active_recv.c:20
         *: barrier @ rq_free_active_recv.c:22
         *: finalize @ rq_free_active_recv.c:23",
    );
    pin!("rq002_free_active_receive", r, ["RQ002"]);
}

#[test]
fn rq003_wait_on_a_completed_copy() {
    let r = render_trace(
        "ranks 2
         *: init @ rq_wait_completed_copy.c:14
         0: isend dest=1 tag=0 req=0 @ rq_wait_completed_copy.c:17
         0: wait req=0 @ rq_wait_completed_copy.c:19
         0: wait req=0 @ rq_wait_completed_copy.c:20
         1: recv src=0 tag=0 @ rq_wait_completed_copy.c:22
         *: finalize @ rq_wait_completed_copy.c:24",
    );
    pin!("rq003_wait_on_a_completed_copy", r, ["RQ003"]);
}

#[test]
fn rq004_persistent_started_twice() {
    let r = render_trace(
        "ranks 1
         0: init @ rq_persistent_start_twice.c:15
         0: send_init dest=null tag=0 req=0 @ rq_persistent_start_twice.c:16
         0: start req=0 @ rq_persistent_start_twice.c:17
         0: start req=0 @ rq_persistent_start_twice.c:18
         0: wait req=0 @ rq_persistent_start_twice.c:19
         0: request_free req=0 @ rq_persistent_start_twice.c:20
         0: finalize @ rq_persistent_start_twice.c:21",
    );
    pin!("rq004_persistent_started_twice", r, ["RQ004"]);
}

#[test]
fn rq005_message_never_received() {
    let r = render_trace(
        "ranks 2
         *: init @ rq_message_never_received.c:17
         0: send dest=1 tag=4242 @ rq_message_never_received.c:22
         1: send dest=0 tag=4242 @ rq_message_never_received.c:22
         *: barrier @ rq_message_never_received.c:23
         *: finalize @ rq_message_never_received.c:24",
    );
    pin!("rq005_message_never_received", r, ["RQ005"]);
}

#[test]
fn rs001_leaked_objects() {
    let r = render_trace(
        "ranks 2
         *: init @ rs_objects_leaked.c:16
         *: comm_dup new=comm:1 @ rs_objects_leaked.c:18
         *: other MPI_Type_contiguous new=type:4 @ rs_objects_leaked.c:21
         *: finalize @ rs_objects_leaked.c:25",
    );
    pin!("rs001_leaked_objects", r, ["RS001"]);
}

#[test]
fn rs002_buffer_not_detached() {
    let r = render_trace(
        "ranks 2
         *: init @ rs_buffer_not_detached.c:13
         0: buffer_attach bytes=256 @ rs_buffer_not_detached.c:18
         0: bsend dest=1 tag=0 bsend_bytes=112 @ rs_buffer_not_detached.c:19
         1: recv src=0 tag=0 @ rs_buffer_not_detached.c:21
         *: finalize @ rs_buffer_not_detached.c:23",
    );
    pin!("rs002_buffer_not_detached", r, ["RS002"]);
}

#[test]
fn rs003_bsend_without_buffer() {
    let r = render_trace(
        "ranks 2
         *: init @ rs_bsend_without_buffer.c:13
         0: bsend dest=1 tag=0 bsend_bytes=112 @ rs_bsend_without_buffer.c:16
         1: recv src=0 tag=0 @ rs_bsend_without_buffer.c:18
         *: finalize @ rs_bsend_without_buffer.c:20",
    );
    pin!("rs003_bsend_without_buffer", r, ["RS003"]);
}

#[test]
fn rs004_bsend_buffer_too_small() {
    let r = render_trace(
        "ranks 2
         *: init @ rs_bsend_buffer_too_small.c:15
         0: buffer_attach bytes=256 @ rs_bsend_buffer_too_small.c:18
         0: bsend dest=1 tag=0 bsend_bytes=496 @ rs_bsend_buffer_too_small.c:19
         0: buffer_detach @ rs_bsend_buffer_too_small.c:20
         1: recv src=0 tag=0 @ rs_bsend_buffer_too_small.c:22
         *: finalize @ rs_bsend_buffer_too_small.c:24",
    );
    pin!("rs004_bsend_buffer_too_small", r, ["RS004"]);
}

/// `trace` with every argument problem (`bad=`) replaced by `actual`: text traces give
/// fixed values (tag -5, count 1), and the snapshots must show the program's.
fn with_problem(trace: &str, actual: ArgProblem) -> Run {
    let mut run = parse(trace).unwrap();
    let issues = run
        .ranks
        .iter_mut()
        .flat_map(|r| &mut r.events)
        .filter_map(|e| match &mut e.facts {
            EventFacts::Full(facts) => Some(facts),
            _ => None,
        })
        .flat_map(|f| &mut f.arg_issues);
    for issue in issues {
        issue.problem = actual.clone();
    }
    run
}

/// A two-rank run in which rank 0 makes one send with the argument problem `bad` (as
/// `actual`) at `file:line` and rank 1 receives it.
fn bad_send(bad: &str, actual: ArgProblem, file: &str, line: u32) -> Rendered {
    let trace = format!(
        "ranks 2
         *: init @ {file}:12
         0: send dest=1 tag=0 bad={bad} @ {file}:{line}
         1: recv src=0 tag=0
         *: finalize"
    );
    render_run(&with_problem(&trace, actual))
}

#[test]
fn ar001_rank_out_of_range() {
    pin!(
        "ar001_rank_out_of_range",
        bad_send(
            "dest:rank",
            ArgProblem::RankOutOfRange { value: 2, size: 2 },
            "ar_rank_out_of_range.c",
            16
        ),
        ["AR001"]
    );
}

#[test]
fn ar002_invalid_tag() {
    pin!(
        "ar002_invalid_tag",
        bad_send(
            "tag:tag",
            ArgProblem::InvalidTag {
                value: -3,
                tag_ub: None
            },
            "ar_negative_tag.c",
            16
        ),
        ["AR002"]
    );
}

#[test]
fn ar003_negative_count() {
    pin!(
        "ar003_negative_count",
        bad_send(
            "count:count",
            ArgProblem::NegativeCount { value: -1 },
            "ar_negative_count.c",
            17
        ),
        ["AR003"]
    );
}

#[test]
fn ar004_null_communicator() {
    let r = render_trace(
        "ranks 2
         *: init @ ar_null_communicator.c:12
         *: comm_split @ ar_null_communicator.c:16
         1: other MPI_Barrier bad=comm:null-comm @ ar_null_communicator.c:17
         *: finalize @ ar_null_communicator.c:19",
    );
    pin!("ar004_null_communicator", r, ["AR004"]);
}

#[test]
fn ar005_freed_datatype() {
    pin!(
        "ar005_freed_datatype",
        bad_send(
            "datatype:freed-type",
            ArgProblem::FreedHandle {
                kind: ObjectKind::Datatype
            },
            "ar_freed_datatype.c",
            21
        ),
        ["AR005"]
    );
}

#[test]
fn ar006_uncommitted_datatype() {
    pin!(
        "ar006_uncommitted_datatype",
        bad_send(
            "datatype:uncommitted",
            ArgProblem::UncommittedDatatype,
            "ar_uncommitted_datatype.c",
            18
        ),
        ["AR006"]
    );
}

#[test]
fn ar007_null_buffer() {
    let r = render_run(&with_problem(
        "ranks 2
         *: init @ ar_null_buffer.c:12
         0: send dest=1 tag=0 @ ar_null_buffer.c:17
         1: recv src=0 tag=0 bad=buf:nullbuf @ ar_null_buffer.c:19
         *: finalize @ ar_null_buffer.c:21",
        ArgProblem::NullBuffer { count: 4 },
    ));
    pin!("ar007_null_buffer", r, ["AR007"]);
}

#[test]
fn ar008_in_place_in_a_send() {
    pin!(
        "ar008_in_place_in_a_send",
        bad_send(
            "buf:inplace",
            ArgProblem::InPlaceNotAllowed,
            "ar_in_place_send.c",
            16
        ),
        ["AR008"]
    );
}

#[test]
fn ar009_call_before_init() {
    let r = render_trace(
        "ranks 1
         0: other MPI_Initialized @ ar_call_before_init.c:12
         0: other MPI_Comm_rank bad=:before-init @ ar_call_before_init.c:13
         0: init @ ar_call_before_init.c:14
         0: finalize @ ar_call_before_init.c:15",
    );
    pin!("ar009_call_before_init", r, ["AR009"]);
}

#[test]
fn ar010_call_after_finalize() {
    let r = render_trace(
        "ranks 2
         *: init @ ar_call_after_finalize.c:12
         *: finalize @ ar_call_after_finalize.c:13
         *: other MPI_Finalized @ ar_call_after_finalize.c:14
         *: other MPI_Barrier @ ar_call_after_finalize.c:15",
    );
    pin!("ar010_call_after_finalize", r, ["AR010"]);
}

#[test]
fn ar011_invalid_color() {
    let r = with_problem(
        "ranks 2
         *: init @ ar_invalid_color.c:12
         1: other MPI_Comm_split bad=color:color @ ar_invalid_color.c:15",
        ArgProblem::InvalidColor { value: -1 },
    );
    pin!("ar011_invalid_color", render_run(&r), ["AR011"]);
}

#[test]
fn ar012_negative_dimension() {
    let r = with_problem(
        "ranks 2
         *: init @ ar_cart_negative_dim.c:12
         *: other MPI_Cart_create bad=dims:topology @ ar_cart_negative_dim.c:13",
        ArgProblem::InvalidTopology { value: -1 },
    );
    pin!("ar012_negative_dimension", render_run(&r), ["AR012"]);
}

#[test]
fn ar013_cart_query_without_topology() {
    let r = parse(
        "ranks 2
         *: init @ ar_cart_get_no_topology.c:12
         *: other MPI_Cart_create @ ar_cart_get_no_topology.c:14
         *: other MPI_Cart_coords bad=comm:no-topology @ ar_cart_get_no_topology.c:15",
    )
    .unwrap();
    pin!(
        "ar013_cart_query_without_topology",
        render_run(&r),
        ["AR013"]
    );
}

#[test]
fn ar014_overlapping_group_ranges() {
    let r = with_problem(
        "ranks 3
         *: init @ ar_group_range_overlap.c:13
         *: other MPI_Group_range_incl bad=ranges:repeated @ ar_group_range_overlap.c:14",
        ArgProblem::RepeatedRank { value: 1 },
    );
    pin!("ar014_overlapping_group_ranges", render_run(&r), ["AR014"]);
}

#[test]
fn ar015_fence_given_a_start_assertion() {
    let r = with_problem(
        "ranks 2
         *: init @ ar_rma_assert_wrong_call.c:12
         *: other MPI_Win_fence bad=assert:assert @ ar_rma_assert_wrong_call.c:14",
        ArgProblem::InvalidAssert {
            value: 1024,
            not_allowed: vec!["MPI_MODE_NOCHECK"],
        },
    );
    pin!(
        "ar015_fence_given_a_start_assertion",
        render_run(&r),
        ["AR015"]
    );
}

#[test]
fn ar016_partition_out_of_range() {
    let r = with_problem(
        "ranks 2
         *: init @ ar_partition_out_of_range.c:15
         0: other MPI_Pready bad=partition:partition @ ar_partition_out_of_range.c:22",
        ArgProblem::PartitionOutOfRange {
            value: 4,
            partitions: 4,
        },
    );
    pin!("ar016_partition_out_of_range", render_run(&r), ["AR016"]);
}

#[test]
fn bf001_receive_into_a_pending_send() {
    let r = render_trace(
        "ranks 2
         *: init @ bf_recv_into_pending_send.c:14
         0: isend dest=1 tag=0 req=0 mem=buf:4096+16:r @ bf_recv_into_pending_send.c:17
         1: isend dest=0 tag=0 req=0 mem=buf:8192+16:r @ bf_recv_into_pending_send.c:17
         0: recv src=1 tag=0 mem=buf:4104+16:w @ bf_recv_into_pending_send.c:18
         1: recv src=0 tag=0 mem=buf:8224+16:w @ bf_recv_into_pending_send.c:18
         *: wait req=0 @ bf_recv_into_pending_send.c:19
         *: finalize @ bf_recv_into_pending_send.c:20",
    );
    pin!("bf001_receive_into_a_pending_send", r, ["BF001"]);
}

#[test]
fn bf002_overlapping_buffers_of_one_call() {
    let r = render_trace(
        "ranks 2
         *: init @ bf_aliased_buffers.c:14
         0: sendrecv dest=1 sendtag=0 src=1 recvtag=0 mem=sendbuf:4096+32:r,recvbuf:4112+32:w @ bf_aliased_buffers.c:17
         1: sendrecv dest=0 sendtag=0 src=0 recvtag=0 mem=sendbuf:8192+32:r,recvbuf:8224+32:w @ bf_aliased_buffers.c:17
         *: finalize @ bf_aliased_buffers.c:20",
    );
    pin!("bf002_overlapping_buffers_of_one_call", r, ["BF002"]);
}

// ---------------------------------------------------------------------------------------
// Thread checks: text traces carry the thread of each call (`thread=N`) but not call times
// or synchronization, so these runs get them here (as the recorder writes them).

/// Objects of c/threads.c's namespaces: a parallel region's start, a barrier.
const REGION_START: u64 = 1 << 56;
const BARRIER: u64 = 3 << 56;

/// `trace` with rank 0 initialized by MPI_Init_thread at `level`, its calls in record
/// order entering and leaving MPI at `times` (ns, one pair per call of rank 0), thread 1
/// started by thread 0 in a parallel region right after rank 0's first call, and both
/// threads meeting at a barrier before rank 0's last call (the region's end).
fn threaded(trace: &str, level: ThreadLevel, times: &[(u64, u64)]) -> Run {
    let mut run = parse(trace).unwrap();
    let rank = &mut run.ranks[0];
    assert_eq!(
        rank.events.len(),
        times.len(),
        "one time per call of rank 0"
    );
    for (i, (event, &(enter_ns, exit_ns))) in rank.events.iter_mut().zip(times).enumerate() {
        event.time = Some(CallTime {
            order: 10 * (i as u64 + 1),
            enter_ns,
            exit_ns: Some(exit_ns),
        });
        if let Op::Init { thread_level } = &mut event.op {
            *thread_level = Some(level as i32);
            event.call = "MPI_Init_thread";
        }
    }
    rank.threads.provided = Some(level);
    rank.threads.sync_recorded = true;
    let (release, acquire) = (SyncKind::Release, SyncKind::Acquire);
    let start = [(0, release), (0, acquire), (1, acquire)].map(|s| (s, REGION_START, 11));
    let before_last = 10 * times.len() as u64 - 5;
    let end =
        [(0, release), (1, release), (0, acquire), (1, acquire)].map(|s| (s, BARRIER, before_last));
    rank.threads.sync = start
        .into_iter()
        .enumerate()
        .chain(end.into_iter().enumerate())
        .map(|(i, ((thread, kind), object, first))| SyncEvent {
            thread,
            order: first + i as u64,
            kind,
            object,
        })
        .collect();
    run
}

#[test]
fn th001_worker_call_under_funneled() {
    let run = threaded(
        "ranks 1
         0: init @ th_funneled_worker_call.c:13
         0: allreduce thread=1 @ th_funneled_worker_call.c:17
         0: finalize @ th_funneled_worker_call.c:19",
        ThreadLevel::Funneled,
        &[(0, 10), (100, 200), (300, 400)],
    );
    pin!(
        "th001_worker_call_under_funneled",
        render_run(&run),
        ["TH001"]
    );
}

#[test]
fn th002_finalize_on_a_worker_thread() {
    let run = threaded(
        "ranks 1
         0: init @ th_finalize_worker_thread.c:13
         0: finalize thread=1 @ th_finalize_worker_thread.c:17",
        ThreadLevel::Multiple,
        &[(0, 10), (100, 200)],
    );
    pin!(
        "th002_finalize_on_a_worker_thread",
        render_run(&run),
        ["TH002"]
    );
}

#[test]
fn th003_request_completed_by_two_threads() {
    let run = threaded(
        "ranks 2
         0: init @ th_request_wait_test.c:15
         1: init @ th_request_wait_test.c:15
         0: irecv src=1 tag=0 req=0 @ th_request_wait_test.c:18
         0: wait req=0 @ th_request_wait_test.c:23
         0: test req=0 thread=1 flag=1 @ th_request_wait_test.c:28
         1: send dest=0 tag=0 @ th_request_wait_test.c:33
         *: finalize @ th_request_wait_test.c:35",
        ThreadLevel::Multiple,
        &[(0, 10), (50, 60), (100, 500), (200, 210), (900, 950)],
    );
    pin!(
        "th003_request_completed_by_two_threads",
        render_run(&run),
        ["TH003"]
    );
}

#[test]
fn th004_probed_message_received_by_another_thread() {
    let run = threaded(
        "ranks 2
         0: init @ th_probe_stolen.c:15
         1: init @ th_probe_stolen.c:15
         0: probe src=1 tag=0 matched=1:0 @ th_probe_stolen.c:22
         0: recv src=1 tag=0 thread=1 @ th_probe_stolen.c:25
         0: recv src=1 tag=0 @ th_probe_stolen.c:23
         1: send dest=0 tag=0 @ th_probe_stolen.c:30
         1: send dest=0 tag=0 @ th_probe_stolen.c:31
         *: finalize @ th_probe_stolen.c:33",
        ThreadLevel::Multiple,
        &[(0, 10), (100, 300), (150, 350), (500, 600), (900, 950)],
    );
    pin!(
        "th004_probed_message_received_by_another_thread",
        render_run(&run),
        ["TH004"]
    );
}

#[test]
fn th005_collectives_on_one_communicator_from_two_threads() {
    let run = threaded(
        "ranks 1
         0: init @ th_collectives_same_comm.c:12
         0: allreduce @ th_collectives_same_comm.c:16
         0: allreduce thread=1 @ th_collectives_same_comm.c:16
         0: finalize @ th_collectives_same_comm.c:18",
        ThreadLevel::Multiple,
        &[(0, 10), (100, 200), (150, 250), (900, 950)],
    );
    pin!(
        "th005_collectives_on_one_communicator_from_two_threads",
        render_run(&run),
        ["TH005"]
    );
}

#[test]
fn th006_parallel_region_under_thread_single() {
    // Plain MPI_Init on both ranks, then a region of two threads with no MPI call in it.
    let mut run = parse(
        "ranks 2
         *: init @ th_single_region_without_mpi.c:14
         *: allreduce @ th_single_region_without_mpi.c:17
         *: finalize @ th_single_region_without_mpi.c:18",
    )
    .unwrap();
    let region_site = SiteId(run.sites.len() as u32);
    run.sites.push(SourceLocation {
        file: Some("th_single_region_without_mpi.c".into()),
        line: Some(15),
        ..Default::default()
    });
    for rank in &mut run.ranks {
        for (i, event) in rank.events.iter_mut().enumerate() {
            let at = 100 * i as u64;
            event.time = Some(CallTime {
                order: 10 * (i as u64 + 1),
                enter_ns: at,
                exit_ns: Some(at + 10),
            });
        }
        rank.threads.provided = Some(ThreadLevel::Single);
        rank.threads.parallel_regions.push(ParallelRegion {
            thread: 0,
            site: region_site,
            begin_order: 11,
            end_order: 15,
            threads: 2,
        });
    }
    pin!(
        "th006_parallel_region_under_thread_single",
        render_run(&run),
        ["TH006"]
    );
}

#[test]
fn th007_info_freed_by_another_thread() {
    let mut run = threaded(
        "ranks 1
         0: init @ th_freed_by_other_thread.c:20
         0: other MPI_Info_set thread=1 @ th_freed_by_other_thread.c:35
         0: other MPI_Info_free @ th_freed_by_other_thread.c:44
         0: finalize @ th_freed_by_other_thread.c:49",
        ThreadLevel::Multiple,
        &[(0, 10), (100, 200), (300, 400), (900, 950)],
    );
    // What the normalizer notes when thread 0 frees an object thread 1 used.
    run.ranks[0].threads.freed_after_use = vec![FreedAfterUse {
        kind: ObjectKind::Info,
        used: 1,
        freed: 2,
    }];
    pin!(
        "th007_info_freed_by_another_thread",
        render_run(&run),
        ["TH007"]
    );
}

// ---------------------------------------------------------------------------------------
// One-sided communication: windows of 40 bytes (10 ints) unless a program says otherwise.

#[test]
fn rm001_put_outside_any_epoch() {
    let r = render_trace(
        "ranks 2
         *: init @ rma_put_outside_epoch.c:13
         *: win_create win=0 size=4 unit=4 @ rma_put_outside_epoch.c:15
         0: put win=0 target=1 disp=0 count=1 type=int @ rma_put_outside_epoch.c:17
         *: win_fence win=0 @ rma_put_outside_epoch.c:18
         *: win_fence win=0 @ rma_put_outside_epoch.c:19
         *: win_free win=0 @ rma_put_outside_epoch.c:20
         *: finalize @ rma_put_outside_epoch.c:21",
    );
    pin!("rm001_put_outside_any_epoch", r, ["RM001"]);
}

#[test]
fn rm002_unlock_twice() {
    let r = render_trace(
        "ranks 2
         *: init @ rma_unlock_twice.c:13
         *: win_create win=0 size=4 unit=4 @ rma_unlock_twice.c:15
         0: win_lock win=0 target=1 @ rma_unlock_twice.c:17
         0: put win=0 target=1 disp=0 count=1 type=int @ rma_unlock_twice.c:18
         0: win_unlock win=0 target=1 @ rma_unlock_twice.c:19
         0: win_unlock win=0 target=1 @ rma_unlock_twice.c:20
         *: barrier @ rma_unlock_twice.c:22
         *: win_free win=0 @ rma_unlock_twice.c:23
         *: finalize @ rma_unlock_twice.c:24",
    );
    pin!("rm002_unlock_twice", r, ["RM002"]);
}

#[test]
fn rm003_free_with_a_pending_put() {
    let r = render_trace(
        "ranks 2
         *: init @ rma_free_with_pending_put.c:13
         *: win_create win=0 size=4 unit=4 @ rma_free_with_pending_put.c:15
         *: win_fence win=0 @ rma_free_with_pending_put.c:16
         0: put win=0 target=1 disp=0 count=1 type=int @ rma_free_with_pending_put.c:18
         *: win_free win=0 @ rma_free_with_pending_put.c:19
         *: finalize @ rma_free_with_pending_put.c:20",
    );
    pin!("rm003_free_with_a_pending_put", r, ["RM003"]);
}

#[test]
fn rm004_rput_in_a_fence_epoch() {
    let r = render_trace(
        "ranks 2
         *: init @ rma_rput_in_fence.c:15
         *: win_create win=0 size=4 unit=4 @ rma_rput_in_fence.c:17
         *: win_fence win=0 @ rma_rput_in_fence.c:18
         0: rput win=0 target=1 disp=0 count=1 type=int @ rma_rput_in_fence.c:20
         *: win_fence win=0 @ rma_rput_in_fence.c:23
         *: win_free win=0 @ rma_rput_in_fence.c:24
         *: finalize @ rma_rput_in_fence.c:25",
    );
    pin!("rm004_rput_in_a_fence_epoch", r, ["RM004"]);
}

#[test]
fn rm005_target_outside_the_window_group() {
    let r = render_trace(
        "ranks 3
         comm 1 members 0 2 name even
         *: init @ rma_target_out_of_range.c:16
         0,2: win_create win=0 comm=1 size=4 unit=4 @ rma_target_out_of_range.c:21
         0,2: win_fence win=0 comm=1 @ rma_target_out_of_range.c:22
         0: get win=0 target=2 disp=0 count=1 type=int @ rma_target_out_of_range.c:24
         0,2: win_fence win=0 comm=1 @ rma_target_out_of_range.c:25
         0,2: win_free win=0 comm=1 @ rma_target_out_of_range.c:26
         *: finalize @ rma_target_out_of_range.c:29",
    );
    pin!("rm005_target_outside_the_window_group", r, ["RM005"]);
}

#[test]
fn rm006_put_beyond_the_target_window() {
    let r = render_trace(
        "ranks 2
         *: init @ rma_put_beyond_window.c:14
         *: win_create win=0 size=40 unit=4 @ rma_put_beyond_window.c:18
         *: win_fence win=0 @ rma_put_beyond_window.c:19
         0: put win=0 target=1 disp=8 count=4 type=int @ rma_put_beyond_window.c:21
         *: win_fence win=0 @ rma_put_beyond_window.c:22
         *: win_free win=0 @ rma_put_beyond_window.c:23
         *: finalize @ rma_put_beyond_window.c:24",
    );
    pin!("rm006_put_beyond_the_target_window", r, ["RM006"]);
}

#[test]
fn rm007_nocheck_start_not_ordered_after_its_post() {
    let r = render_trace(
        "ranks 2
         *: init @ rm_pscw_nocheck_unordered.c:19
         *: win_create win=0 size=4 unit=4 @ rm_pscw_nocheck_unordered.c:22
         0: win_post win=0 group=1 assert=nocheck @ rm_pscw_nocheck_unordered.c:25
         1: win_post win=0 group=0 assert=nocheck @ rm_pscw_nocheck_unordered.c:25
         0: win_start win=0 group=1 assert=nocheck @ rm_pscw_nocheck_unordered.c:26
         1: win_start win=0 group=0 assert=nocheck @ rm_pscw_nocheck_unordered.c:26
         0: get win=0 target=1 disp=0 count=1 type=int @ rm_pscw_nocheck_unordered.c:27
         1: get win=0 target=0 disp=0 count=1 type=int @ rm_pscw_nocheck_unordered.c:27
         *: win_complete win=0 @ rm_pscw_nocheck_unordered.c:28
         *: win_wait win=0 @ rm_pscw_nocheck_unordered.c:29
         *: win_free win=0 @ rm_pscw_nocheck_unordered.c:32
         *: finalize @ rm_pscw_nocheck_unordered.c:33",
    );
    pin!(
        "rm007_nocheck_start_not_ordered_after_its_post",
        r,
        ["RM007"]
    );
}

#[test]
fn rm008_post_group_names_an_origin_that_never_starts() {
    let r = render_trace(
        "ranks 2
         *: init @ rm_pscw_start_group_lacks_target.c:22
         *: win_create win=0 size=4 unit=4 @ rm_pscw_start_group_lacks_target.c:29
         0: win_post win=0 group=1 @ rm_pscw_start_group_lacks_target.c:34
         1: win_start win=0 group=1 @ rm_pscw_start_group_lacks_target.c:40
         0: blocked win_wait win=0 @ rm_pscw_start_group_lacks_target.c:35
         1: blocked win_complete win=0 @ rm_pscw_start_group_lacks_target.c:41",
    );
    pin!(
        "rm008_post_group_names_an_origin_that_never_starts",
        r,
        ["DL001", "RM008", "RM008"]
    );
}

#[test]
fn rm009_accumulate_operation_undefined_for_the_datatype() {
    let r = render_trace(
        "ranks 2
         *: init @ rm_accumulate_op_undefined.c:18
         *: win_create win=0 size=32 unit=8 @ rm_accumulate_op_undefined.c:20
         *: win_fence win=0 @ rm_accumulate_op_undefined.c:21
         0: accumulate op=band win=0 target=1 disp=0 count=1 type=double @ rm_accumulate_op_undefined.c:23
         *: win_fence win=0 @ rm_accumulate_op_undefined.c:24
         *: win_free win=0 @ rm_accumulate_op_undefined.c:25
         *: finalize @ rm_accumulate_op_undefined.c:26",
    );
    pin!(
        "rm009_accumulate_operation_undefined_for_the_datatype",
        r,
        ["RM009"]
    );
}

#[test]
fn dr001_two_puts_to_one_element() {
    let r = render_trace(
        "ranks 3
         *: init @ dr_puts_same_element.c:14
         *: win_create win=0 size=16 unit=4 @ dr_puts_same_element.c:16
         *: win_fence win=0 @ dr_puts_same_element.c:17
         1-2: put win=0 target=0 disp=0 count=1 type=int @ dr_puts_same_element.c:19
         *: win_fence win=0 @ dr_puts_same_element.c:20
         *: win_free win=0 @ dr_puts_same_element.c:21
         *: finalize @ dr_puts_same_element.c:22",
    );
    pin!("dr001_two_puts_to_one_element", r, ["DR001"]);
}

#[test]
fn dr002_store_into_a_pending_send_buffer() {
    let r = render_trace(
        "ranks 2
         *: init @ dr_isend_store.c:17
         0: isend dest=1 tag=0 count=1024 type=int req=0 mem=buf:4096+4096:r @ dr_isend_store.c:22
         0: access write=1 addr=4096 buf=4096+4096 thread=0 @ dr_isend_store.c:23
         0: wait req=0 @ dr_isend_store.c:24
         1: recv src=0 tag=0 count=1024 type=int @ dr_isend_store.c:26
         *: finalize @ dr_isend_store.c:30",
    );
    pin!("dr002_store_into_a_pending_send_buffer", r, ["DR002"]);
}

#[test]
fn dr003_puts_under_shared_locks_to_one_element() {
    let r = render_trace(
        "ranks 3
         *: init @ rm_shared_lock_race.c:17
         *: win_create win=0 size=16 unit=4 @ rm_shared_lock_race.c:24
         *: barrier @ rm_shared_lock_race.c:26
         1-2: win_lock win=0 target=0 type=shared @ rm_shared_lock_race.c:28
         1-2: put win=0 target=0 disp=0 count=1 type=int @ rm_shared_lock_race.c:29
         1-2: win_unlock win=0 target=0 @ rm_shared_lock_race.c:30
         *: barrier @ rm_shared_lock_race.c:32
         *: win_free win=0 @ rm_shared_lock_race.c:34
         *: finalize @ rm_shared_lock_race.c:35",
    );
    pin!("dr003_puts_under_shared_locks_to_one_element", r, ["DR003"]);
}

#[test]
fn dr004_target_sends_window_memory_a_put_writes() {
    let r = render_trace(
        "ranks 3
         *: init @ dr_fence_send_exposed.c:14
         *: win_create win=0 size=16 unit=4 base=4096 @ dr_fence_send_exposed.c:16
         *: win_fence win=0 @ dr_fence_send_exposed.c:17
         1: put win=0 target=0 disp=0 count=1 type=int @ dr_fence_send_exposed.c:19
         0: send dest=2 tag=0 count=1 type=int mem=buf:4096+4:r @ dr_fence_send_exposed.c:21
         2: recv src=0 tag=0 count=1 type=int @ dr_fence_send_exposed.c:23
         *: win_fence win=0 @ dr_fence_send_exposed.c:24
         *: win_free win=0 @ dr_fence_send_exposed.c:25
         *: finalize @ dr_fence_send_exposed.c:26",
    );
    pin!(
        "dr004_target_sends_window_memory_a_put_writes",
        r,
        ["DR004"]
    );
}

// ---------------------------------------------------------------------------------------

/// Every check in the catalogue has its output pinned: a terminal snapshot showing a
/// finding of the check and a JSON snapshot with one (clippy's and ruff's rule: a new check
/// comes with its fixture).
#[test]
fn every_check_has_a_terminal_and_a_json_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let snapshots: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("check_findings__") && n.ends_with(".snap"))
        })
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    let mut missing = Vec::new();
    for check in catalogue() {
        let terminal = format!("[{}]: ", check.code);
        let json = format!("\"code\": \"{}\"", check.code);
        if !snapshots.iter().any(|(_, s)| s.contains(&terminal)) {
            missing.push(format!("{}: no terminal snapshot", check.code));
        }
        if !snapshots.iter().any(|(_, s)| s.contains(&json)) {
            missing.push(format!("{}: no JSON snapshot", check.code));
        }
    }
    assert!(
        missing.is_empty(),
        "add a positive fixture to tests/check_findings.rs for:\n{}",
        missing.join("\n")
    );
}
