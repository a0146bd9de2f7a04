//! Extracts the recorder's function table (the `mpicheck_schema_text` the generator writes
//! into `wrappers.c` from the MPI Forum's API description) for the argument rules' coverage
//! (`checks::argument::rules::recorded_functions`, `mpicheck explain`).

use std::path::Path;

fn main() {
    let wrappers = Path::new("../mpicheck-interpose/c/generated/wrappers.c");
    println!("cargo:rerun-if-changed={}", wrappers.display());
    let text = std::fs::read_to_string(wrappers).expect("the generated wrappers.c");
    let start = text
        .find("mpicheck_schema_text[] =")
        .expect("wrappers.c has the function table");
    let table: String = text[start..]
        .lines()
        .skip(1)
        .map_while(|l| l.trim().strip_prefix('"'))
        .map(|l| {
            l.trim_end_matches(';')
                .trim_end_matches('"')
                .replace("\\n", "\n")
        })
        .collect();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("recorded_functions.txt");
    std::fs::write(out, table).unwrap();
}
