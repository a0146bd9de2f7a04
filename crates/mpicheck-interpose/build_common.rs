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
        shared.join("c/buffers_faults.c"),
        shared.join("c/buffers_coll.c"),
        shared.join("c/buffers_maps.c"),
        shared.join("c/buffers_syscalls.c"),
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
                shared.join("c/buffers_internal.h"),
                shared.join("c/pkru.h"),
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
    fs::write(out_dir.join("have.h"), &have).unwrap();

    // The objects come from a cache shared by every build of this target directory (clippy's
    // and the release build's runs of this script, each family's crate): see `compile_cached`.
    let cache = ObjectCache::new(&out_dir);
    // have.h goes into a directory named by its contents, so that the `-I` path (which the
    // preprocessed source, hence the cache key, and the objects' debug info name) is the same
    // in every build that writes the same have.h.
    let have_dir = cache.have_dir(&have);
    let compile_flags: Vec<String> = [
        "-c",
        "-O2",
        "-g",
        "-fPIC",
        "-Wall",
        "-Wno-unused-function",
        "-I",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([have_dir.display().to_string()])
    .chain(["-I".to_string(), shared.join("c").display().to_string()])
    .chain(["-I".to_string(), recorder_include.display().to_string()])
    .collect();
    let compiler_id = compiler_identity(&cc);
    let mut objects = Vec::new();
    for src in &sources {
        let obj = out_dir.join(Path::new(src.file_name().unwrap()).with_extension("o"));
        match cache.compile(&cc, &compiler_id, &compile_flags, src, &obj) {
            Ok(warnings) => {
                for line in warnings.lines().filter(|l| l.contains("warning:")) {
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
    // inside a call), the clock reads of c/clock.c, and the system calls that copy the
    // program's memory (c/buffers_syscalls.c: buffer checking must not make them fail). PMPI_* must stay the MPI library's: exporting them would send the
    // library's own calls into us.
    let script = out_dir.join("exports.map");
    fs::write(
        &script,
        "{\n  global:\n    MPI_*;\n    mpi_*;\n    GOMP_*;\n    omp_set_lock;\n    omp_unset_lock;\n    omp_test_lock;\n    omp_set_nest_lock;\n    omp_unset_nest_lock;\n    omp_test_nest_lock;\n    omp_get_thread_num;\n    pthread_create;\n    pthread_join;\n    pthread_exit;\n    pthread_mutex_lock;\n    pthread_mutex_trylock;\n    pthread_mutex_unlock;\n    pthread_cond_wait;\n    pthread_cond_timedwait;\n    pthread_barrier_wait;\n    pthread_spin_lock;\n    pthread_spin_unlock;\n    sem_post;\n    sem_wait;\n    sem_trywait;\n    sem_timedwait;\n    _exit;\n    _Exit;\n    write;\n    read;\n    __read_chk;\n    pread;\n    pread64;\n    __pread_chk;\n    __pread64_chk;\n    readv;\n    preadv;\n    preadv64;\n    preadv2;\n    preadv64v2;\n    recv;\n    __recv_chk;\n    recvfrom;\n    __recvfrom_chk;\n    recvmsg;\n    pwrite;\n    pwrite64;\n    writev;\n    pwritev;\n    pwritev64;\n    pwritev2;\n    pwritev64v2;\n    send;\n    sendto;\n    sendmsg;\n    clock_gettime;\n    gettimeofday;\n    time;\n  local:\n    *;\n};\n",
    )
    .unwrap();
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
    println!("cargo:rustc-env=MPICHECK_INTERPOSE_BUILT=1");
    println!("cargo:rustc-env=MPICHECK_INTERPOSE_MPICC={cc}");
}

/// What identifies the compiler: its path as given, where that resolves on PATH, its
/// `--version` and (for an MPI wrapper) the `-show` line, which names the underlying compiler
/// and the flags the wrapper adds (and follows MPICH_CC / OMPI_CC and the like).
fn compiler_identity(cc: &str) -> String {
    let mut id = format!("cc={cc}\n");
    let resolved = if cc.contains('/') {
        Some(PathBuf::from(cc))
    } else {
        env::var_os("PATH").and_then(|path| {
            env::split_paths(&path)
                .map(|dir| dir.join(cc))
                .find(|p| p.is_file())
        })
    };
    if let Some(path) = resolved {
        let real = fs::canonicalize(&path).unwrap_or(path);
        id += &format!("resolved={}\n", real.display());
        if let Ok(meta) = fs::metadata(&real) {
            id += &format!("size={}\n", meta.len());
            if let Ok(modified) = meta.modified() {
                id += &format!("modified={modified:?}\n");
            }
        }
    }
    for arg in ["--version", "-show"] {
        let out = Command::new(cc).arg(arg).output();
        id += &format!("{arg}:\n");
        if let Ok(out) = out {
            id += &format!("status={}\n", out.status);
            id += &String::from_utf8_lossy(&out.stdout);
            id += &String::from_utf8_lossy(&out.stderr);
        }
    }
    id
}

/// Compiled objects shared between the builds of one target directory, each stored under a
/// hash of everything that goes into it: the compiler (`compiler_identity`), every flag, the
/// working directory and the preprocessed source (`cc -E` with the same flags, so every
/// header, have.h included, and every path the debug info names is covered). The objects are
/// written to a temporary name and renamed into place, so a build never sees half an object;
/// the object a build links is a hard link (or copy) in its own OUT_DIR, so pruning the cache
/// never takes away an object a build refers to.
struct ObjectCache {
    dir: PathBuf,
}

impl ObjectCache {
    /// Unused entries are removed after this long (an entry is touched whenever it is used).
    const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

    fn new(out_dir: &Path) -> ObjectCache {
        let dir = target_dir(out_dir)
            .unwrap_or_else(|| out_dir.to_path_buf())
            .join("mpicheck-interpose-objects");
        fs::create_dir_all(&dir).unwrap();
        let cache = ObjectCache { dir };
        cache.prune();
        cache
    }

    /// `<cache>/include-<hash>/have.h`, written atomically if not there yet.
    fn have_dir(&self, have: &str) -> PathBuf {
        let dir = self
            .dir
            .join(format!("include-{}", hex(&sha256(have.as_bytes()))));
        let path = dir.join("have.h");
        if fs::read(&path).ok().as_deref() != Some(have.as_bytes()) {
            fs::create_dir_all(&dir).unwrap();
            let tmp = dir.join(format!("have.h.tmp.{}", std::process::id()));
            fs::write(&tmp, have).unwrap();
            fs::rename(&tmp, &path).unwrap();
        } else {
            touch(&path);
        }
        path.parent().unwrap().to_path_buf()
    }

    /// Compiles `src` to `obj` (from the cache when it holds this object); the compiler's
    /// diagnostics (from when it really ran) are returned.
    fn compile(
        &self,
        cc: &str,
        compiler_id: &str,
        flags: &[String],
        src: &Path,
        obj: &Path,
    ) -> Result<String, String> {
        let cwd = env::current_dir().map_err(|e| e.to_string())?;
        // Same flags, with -E instead of -c.
        let pre_flags: Vec<&String> = flags.iter().filter(|f| *f != "-c").collect();
        let pre = run(Command::new(cc).arg("-E").args(&pre_flags).arg(src))?;
        let mut key = Vec::new();
        key.extend_from_slice(b"mpicheck-interpose object cache v1\n");
        key.extend_from_slice(compiler_id.as_bytes());
        for flag in flags {
            key.extend_from_slice(format!("flag={flag}\n").as_bytes());
        }
        key.extend_from_slice(format!("src={}\ncwd={}\n", src.display(), cwd.display()).as_bytes());
        key.extend_from_slice(&sha256(&pre.stdout));
        let name = format!(
            "{}-{}",
            src.file_stem().unwrap().to_string_lossy(),
            hex(&sha256(&key))
        );
        let cached = self.dir.join(format!("{name}.o"));
        let diagnostics = self.dir.join(format!("{name}.stderr"));
        if !cached.exists() {
            static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = self
                .dir
                .join(format!("{name}.tmp.{}.{n}", std::process::id()));
            let result = run(Command::new(cc).args(flags).arg(src).arg("-o").arg(&tmp));
            let out = match result {
                Ok(out) => out,
                Err(e) => {
                    let _ = fs::remove_file(&tmp);
                    return Err(e);
                }
            };
            // Diagnostics first: once the object is in place, they are too.
            let tmp_diag = tmp.with_extension("stderr");
            fs::write(&tmp_diag, &out.stderr).map_err(|e| e.to_string())?;
            fs::rename(&tmp_diag, &diagnostics).map_err(|e| e.to_string())?;
            fs::rename(&tmp, &cached).map_err(|e| e.to_string())?;
        } else {
            touch(&cached);
            touch(&diagnostics);
        }
        let _ = fs::remove_file(obj);
        if fs::hard_link(&cached, obj).is_err() {
            fs::copy(&cached, obj).map_err(|e| format!("copying {}: {e}", cached.display()))?;
        }
        Ok(fs::read_to_string(&diagnostics).unwrap_or_default())
    }

    /// Removes entries unused for `MAX_AGE` (and temporary files as old: a build that died).
    fn prune(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        for entry in entries.flatten() {
            let path = entry.path();
            let file = if path.is_dir() {
                path.join("have.h")
            } else {
                path.clone()
            };
            let old = fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > Self::MAX_AGE);
            if old {
                let _ = if path.is_dir() {
                    fs::remove_dir_all(&path)
                } else {
                    fs::remove_file(&path)
                };
            }
        }
    }
}

/// Cargo's target directory (the one holding CACHEDIR.TAG) among OUT_DIR's ancestors, else
/// CARGO_TARGET_DIR when OUT_DIR is inside it.
fn target_dir(out_dir: &Path) -> Option<PathBuf> {
    if let Some(dir) = out_dir
        .ancestors()
        .skip(1)
        .find(|d| d.join("CACHEDIR.TAG").is_file())
    {
        return Some(dir.to_path_buf());
    }
    let dir = PathBuf::from(env::var_os("CARGO_TARGET_DIR")?);
    (dir.is_absolute() && out_dir.starts_with(&dir)).then_some(dir)
}

fn touch(path: &Path) {
    if let Ok(file) = fs::File::options().append(true).open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `data`.
fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}
