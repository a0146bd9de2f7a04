// Build logic shared by the interposition cdylibs (one per MPI family), pulled into each
// crate's build.rs with `include!`. It compiles the generated wrappers and the hand-written
// support with the family's own `mpicc`, so MPI types and constants come out right by
// construction, links the family's libmpi, and exports only the MPI entry points.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One MPI family as the build sees it.
struct Family {
    /// Name written into the trace header ("mpich", "openmpi").
    name: &'static str,
    /// Environment variable that overrides the compiler wrapper.
    cc_env: &'static str,
    /// Default compiler wrapper (Debian's alternatives-independent names).
    default_cc: &'static str,
    /// Environment variable that overrides the Fortran compiler wrapper, and its default; None
    /// for an MPI without Fortran bindings. Its link line names the Fortran libraries whose
    /// exported entry points get wrappers.
    fc: Option<(&'static str, &'static str)>,
    /// Defines written into have.h (e.g. the family, for mpicheck_fortran.h).
    defines: &'static [&'static str],
}

fn run(cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

/// Names `X` such that this MPI declares `PMPI_X(` as a function and defines neither `MPI_X`
/// nor `PMPI_X` as a macro (MPICH's handle conversions, Open MPI's `MPI_Aint_add`): exactly
/// the functions a wrapper can be defined for.
fn available_functions(preprocessed: &str, macros: &str) -> Vec<String> {
    let macro_names: std::collections::HashSet<&str> = macros
        .lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .map(|l| {
            l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
        })
        .collect();
    let mut names = std::collections::BTreeSet::new();
    let bytes = preprocessed.as_bytes();
    let mut at = 0;
    while let Some(pos) = preprocessed[at..].find("PMPI_") {
        let start = at + pos;
        at = start + 5;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let mut end = at;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            end += 1;
        }
        let mut next = end;
        while next < bytes.len() && bytes[next].is_ascii_whitespace() {
            next += 1;
        }
        if next < bytes.len() && bytes[next] == b'(' {
            let name = &preprocessed[start + 1..end]; // MPI_Xxx
            if !macro_names.contains(name) && !macro_names.contains(&preprocessed[start..end]) {
                names.insert(name.to_string());
            }
        }
        at = end;
    }
    names.into_iter().collect()
}

/// The `-L`, `-l` and `-Wl,-rpath` parts of `mpicc -show`.
fn link_flags(cc: &str) -> Vec<String> {
    let Ok(out) = run(Command::new(cc).arg("-show")) else {
        return Vec::new();
    };
    let words: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    // `-Wl,-rpath -Wl,DIR` (MPICH's mpicc_abi) as one `-Wl,-rpath,DIR`.
    let mut flags = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        if word == "-Wl,-rpath" {
            if let Some(dir) = words.next() {
                let dir = dir.strip_prefix("-Wl,").unwrap_or(&dir).to_string();
                flags.push(format!("-Wl,-rpath,{dir}"));
                continue;
            }
        }
        flags.push(word);
    }
    flags
}

/// Fortran entry points (`mpi_*_`) exported by the libraries the family's Fortran compiler
/// wrapper links, or None (with the reason) if there is no such wrapper or they cannot be
/// listed. The generated Fortran wrappers are compiled for exactly these symbols.
fn fortran_symbols(fc: &str, c_flags: &[String]) -> Result<Vec<String>, String> {
    let out = run(Command::new(fc).arg("-show"))?;
    let mut flags: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    // The C wrapper's library directories too (Open MPI's Fortran -L may not exist).
    flags.extend(c_flags.iter().filter(|f| f.starts_with("-L")).cloned());
    let symbols = exported_symbols(&flags)
        .ok_or_else(|| format!("cannot list the libraries of `{fc} -show`"))?;
    let mut names: Vec<String> = symbols
        .into_iter()
        .filter(|s| {
            s.starts_with("mpi_")
                && s.ends_with('_')
                && !s.ends_with("__")
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .collect();
    names.sort();
    Ok(names)
}

/// Dynamic symbols defined by the MPI libraries named in the link flags, or None if they
/// cannot be listed (no nm, library not found).
fn exported_symbols(flags: &[String]) -> Option<std::collections::HashSet<String>> {
    let mut dirs: Vec<PathBuf> = flags
        .iter()
        .filter_map(|f| f.strip_prefix("-L"))
        .map(PathBuf::from)
        .collect();
    dirs.extend(
        [
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
            "/usr/local/lib",
        ]
        .map(PathBuf::from),
    );
    let mut symbols = std::collections::HashSet::new();
    let mut found = false;
    for lib in flags.iter().filter_map(|f| f.strip_prefix("-l")) {
        let Some(path) = dirs
            .iter()
            .map(|d| d.join(format!("lib{lib}.so")))
            .find(|p| p.exists())
        else {
            continue;
        };
        // A lib*.so may be a linker script naming the real library (`INPUT(libmpi_abi.so.1)`,
        // MPICH's wheel) or other libraries (libm.so): list what it names next to it.
        let mut paths = vec![path.clone()];
        if let Ok(text) = fs::read_to_string(&path) {
            paths = text
                .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
                .filter(|w| w.starts_with("lib") && w.contains(".so"))
                .map(|w| path.with_file_name(w))
                .filter(|p| p.exists())
                .collect();
        }
        for path in paths {
            let Ok(out) = run(Command::new("nm").args(["-D", "--defined-only"]).arg(&path)) else {
                continue;
            };
            found = true;
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(name) = line.split_whitespace().last() {
                    symbols.insert(name.to_string());
                }
            }
        }
    }
    found.then_some(symbols)
}

fn build_family(family: Family) {
    println!("cargo:rerun-if-env-changed={}", family.cc_env);
    if let Some((fc_env, _)) = family.fc {
        println!("cargo:rerun-if-env-changed={fc_env}");
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let shared = manifest.join("../mpicheck-interpose");
    let recorder_include = manifest.join("../mpicheck-recorder/include");
    let mut sources = vec![
        shared.join("c/generated/wrappers.c"),
        shared.join("c/support.c"),
        shared.join("c/threads.c"),
        shared.join("c/buffers.c"),
        shared.join("c/buffers_coll.c"),
        shared.join("c/buffers_maps.c"),
        shared.join("c/callbacks.c"),
        shared.join("c/abort.c"),
        shared.join("c/clock.c"),
    ];
    // An MPI without Fortran bindings (the standard ABI's libmpi_abi) needs no Fortran wrappers.
    if family.fc.is_some() {
        sources.push(shared.join("c/generated/fortran.c"));
    }
    for path in sources
        .iter()
        .chain(
            [
                shared.join("c/mpicheck_interpose.h"),
                shared.join("c/mpicheck_fortran.h"),
                shared.join("build_common.rs"),
            ]
            .iter(),
        )
        .chain([recorder_include.join("mpicheck_recorder.h")].iter())
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let cc = env::var(family.cc_env).unwrap_or_else(|_| family.default_cc.to_string());

    // Which functions this MPI has, from its preprocessed mpi.h.
    let probe = out_dir.join("probe.c");
    fs::write(&probe, "#include <mpi.h>\n").unwrap();
    let pre = run(Command::new(&cc).arg("-E").arg(&probe));
    let macros = run(Command::new(&cc).arg("-E").arg("-dM").arg(&probe));
    let (pre, macros) = match (pre, macros) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => {
            // Keep the workspace building on a machine with only the other MPI: this library
            // is then empty and the tests that need it say so.
            println!(
                "cargo:warning={} interposition library not built: {e}",
                family.name
            );
            println!("cargo:rustc-env=MPICHECK_INTERPOSE_BUILT=0");
            println!("cargo:rustc-env=MPICHECK_INTERPOSE_MPICC={cc}");
            return;
        }
    };
    let flags = link_flags(&cc);
    let mut functions = available_functions(
        &String::from_utf8_lossy(&pre.stdout),
        &String::from_utf8_lossy(&macros.stdout),
    );
    // A header may declare what the library lacks (MPICH 4.0.2 declares PMPI_Status_c2f08 but
    // does not define it): keep only functions the library really exports, when nm can tell.
    if let Some(exported) = exported_symbols(&flags) {
        functions.retain(|name| exported.contains(&format!("P{name}")));
    }
    let mut have = String::from("/* Written by build_common.rs from this MPI's mpi.h. */\n");
    have += &format!("#define MPICHECK_FAMILY \"{}\"\n", family.name);
    for define in family.defines {
        have += &format!("#define {define} 1\n");
    }
    for name in &functions {
        have += &format!("#define MPICHECK_HAVE_{name} 1\n");
    }
    // Fortran entry points: only those this MPI's Fortran libraries export (a program can
    // only call those), each wrapped by c/generated/fortran.c.
    if let Some((fc_env, default_fc)) = family.fc {
        let fc = env::var(fc_env).unwrap_or_else(|_| default_fc.to_string());
        match fortran_symbols(&fc, &flags) {
            Ok(symbols) => {
                for sym in &symbols {
                    have += &format!("#define MPICHECK_HAVE_F_{sym} 1\n");
                }
            }
            Err(e) => println!(
                "cargo:warning={} interposition library built without Fortran wrappers: {e}",
                family.name
            ),
        }
    }
    fs::write(out_dir.join("have.h"), have).unwrap();

    let mut objects = Vec::new();
    for src in &sources {
        let obj = out_dir.join(Path::new(src.file_name().unwrap()).with_extension("o"));
        let result = run(Command::new(&cc)
            .args(["-c", "-O2", "-g", "-fPIC", "-Wall", "-Wno-unused-function"])
            .arg("-I")
            .arg(&out_dir)
            .arg("-I")
            .arg(shared.join("c"))
            .arg("-I")
            .arg(&recorder_include)
            .arg(src)
            .arg("-o")
            .arg(&obj));
        match result {
            Ok(out) => {
                for line in String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .filter(|l| l.contains("warning:"))
                {
                    println!("cargo:warning={line}");
                }
            }
            Err(e) => panic!("compiling the {} wrappers failed: {e}", family.name),
        }
        objects.push(obj);
    }
    // Objects, not an archive: the linker would drop archive members nothing refers to, and
    // nothing in Rust refers to MPI_Send.
    for obj in &objects {
        println!("cargo:rustc-cdylib-link-arg={}", obj.display());
    }
    for flag in &flags {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        } else if flag.starts_with("-Wl,-rpath") {
            println!("cargo:rustc-cdylib-link-arg={flag}");
        }
    }
    // Export the MPI entry points, the OpenMP and POSIX threads entry points that
    // c/threads.c observes, `_exit`, `_Exit` and `write` (c/abort.c: how MPI aborts
    // inside a call), and the clock reads of c/clock.c. PMPI_* must stay the MPI library's: exporting them would send the
    // library's own calls into us.
    let script = out_dir.join("exports.map");
    fs::write(
        &script,
        "{\n  global:\n    MPI_*;\n    mpi_*;\n    GOMP_*;\n    omp_set_lock;\n    omp_unset_lock;\n    omp_test_lock;\n    omp_set_nest_lock;\n    omp_unset_nest_lock;\n    omp_test_nest_lock;\n    omp_get_thread_num;\n    pthread_create;\n    pthread_join;\n    pthread_exit;\n    pthread_mutex_lock;\n    pthread_mutex_trylock;\n    pthread_mutex_unlock;\n    pthread_cond_wait;\n    pthread_cond_timedwait;\n    pthread_barrier_wait;\n    pthread_spin_lock;\n    pthread_spin_unlock;\n    sem_post;\n    sem_wait;\n    sem_trywait;\n    sem_timedwait;\n    _exit;\n    _Exit;\n    write;\n    clock_gettime;\n    gettimeofday;\n    time;\n  local:\n    *;\n};\n",
    )
    .unwrap();
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
    println!("cargo:rustc-env=MPICHECK_INTERPOSE_BUILT=1");
    println!("cargo:rustc-env=MPICHECK_INTERPOSE_MPICC={cc}");
}
