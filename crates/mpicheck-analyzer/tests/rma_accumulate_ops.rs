//! Operations and datatypes of accumulate calls (RM009), on hand-written traces.

use mpicheck_analyzer::checks::{run_all_in_every_order, run_checks};
use mpicheck_analyzer::model::{RmaKind, Run};
use mpicheck_analyzer::text_trace::parse;

fn window(body: &str) -> String {
    format!(
        "ranks 2
         *: init
         type pairs 2*int
         type mixed 1*int,1*double
         *: win_create win=0 size=64 unit=8        @ w.c:1
         *: win_fence win=0                        @ w.c:2
         {body}
         *: win_fence win=0                        @ w.c:20
         *: win_free win=0                         @ w.c:21
         *: finalize"
    )
}

fn rm009(run: &Run) -> Vec<(Option<u32>, String)> {
    run_all_in_every_order(run);
    run_checks(run, &["RM009"])
        .unwrap()
        .into_iter()
        .map(|d| (d.locations[0].line, d.message.to_string()))
        .collect()
}

fn rm009_of(body: &str) -> Vec<(Option<u32>, String)> {
    rm009(&parse(&window(body)).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn predefined_operations_on_their_types_are_fine() {
    let body = "1: accumulate op=sum win=0 target=0 disp=0 count=1 type=double          @ w.c:3
                1: accumulate op=band win=0 target=0 disp=1 count=1 type=int            @ w.c:4
                1: accumulate op=replace win=0 target=0 disp=2 count=1 type=char        @ w.c:5
                1: accumulate op=sum win=0 target=0 disp=3 count=1 type=pairs           @ w.c:6
                1: get_accumulate op=no_op win=0 target=0 disp=4 count=1 type=pairs     @ w.c:7
                1: fetch_and_op op=max win=0 target=0 disp=5 count=1 type=int64_t       @ w.c:8
                1: compare_and_swap win=0 target=0 disp=6 count=1 type=long             @ w.c:9
                1: put win=0 target=0 disp=7 count=1 type=mixed                         @ w.c:10";
    assert_eq!(rm009_of(body), vec![]);
}

#[test]
fn operations_mpi_does_not_define_for_the_type_are_rm009() {
    let body = "1: accumulate op=band win=0 target=0 disp=0 count=1 type=double         @ w.c:3
                1: fetch_and_op op=sum win=0 target=0 disp=1 count=1 type=byte          @ w.c:4
                1: accumulate op=sum win=0 target=0 disp=2 count=1 type=mixed           @ w.c:5
                1: compare_and_swap win=0 target=0 disp=3 count=1 type=double           @ w.c:6
                1: accumulate op=maxloc win=0 target=0 disp=4 count=1 type=int          @ w.c:7";
    let found = rm009_of(body);
    let lines: Vec<Option<u32>> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(
        lines,
        [Some(3), Some(4), Some(5), Some(6), Some(7)],
        "{found:?}"
    );
    assert_eq!(
        found[0].1,
        "MPI_Accumulate applies MPI_BAND to MPI_DOUBLE, for which MPI does not define it"
    );
    assert!(
        found[2].1.contains("mixes predefined types"),
        "{}",
        found[2].1
    );
    assert!(
        found[3].1.contains("compare-and-swap does not take"),
        "{}",
        found[3].1
    );
}

#[test]
fn a_user_defined_operation_is_rm009() {
    let mut run = parse(&window(
        "1: accumulate op=sum win=0 target=0 disp=0 count=1 type=int @ w.c:3",
    ))
    .unwrap();
    for call in run.rma.values_mut() {
        if let RmaKind::Access(access) = &mut call.kind {
            access.op = Some("user-defined op `add_mod_7`".into());
        }
    }
    assert_eq!(
        rm009(&run),
        vec![(
            Some(3),
            "MPI_Accumulate is given a user-defined op `add_mod_7`; accumulate calls take predefined operations only".to_string()
        )]
    );
}
