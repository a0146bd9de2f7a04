//! Resolves return addresses taken in a real program (built here with the system C compiler,
//! position-independent, loaded at an ASLR address) against its own `/proc/self/maps`.

use std::process::Command;

use mpicheck_symbols::Symbolizer;

const PROGRAM: &str = r#"#include <stdio.h>
__attribute__((noinline)) void *where(void) { return __builtin_return_address(0); }
int main(void) {
    void *first = where();
    void *second = where();
    printf("%p %p\n", first, second);
    FILE *maps = fopen("/proc/self/maps", "r");
    int c;
    while ((c = fgetc(maps)) != EOF) putchar(c);
    return 0;
}
"#;

#[test]
fn return_addresses_resolve_to_the_calling_lines() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("calls.c");
    let exe = dir.path().join("calls");
    std::fs::write(&source, PROGRAM).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args(["-g", "-O0", "-fPIE", "-pie", "-o"])
        .arg(&exe)
        .arg(&source)
        .status();
    match built {
        Ok(s) if s.success() => {}
        other => panic!("cannot build the test program with {cc}: {other:?}"),
    }
    let output = Command::new(&exe).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let (first_line, maps) = text.split_once('\n').unwrap();
    let addrs: Vec<u64> = first_line
        .split_whitespace()
        .map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap())
        .collect();

    let mut symbolizer = Symbolizer::new(maps);
    for (addr, line) in addrs.into_iter().zip([4, 5]) {
        let loc = symbolizer.resolve(addr);
        assert_eq!(loc.line, Some(line), "{addr:#x} resolved to {loc:?}");
        assert!(
            loc.file.as_deref().is_some_and(|f| f.ends_with("calls.c")),
            "{loc:?}"
        );
        assert_eq!(loc.function.as_deref(), Some("main"));
    }
}

const STRIPPED_LIB: &str = r#"
__attribute__((noinline)) void *lib_where(void) { return __builtin_return_address(0); }
void *lib_caller(void) { return lib_where(); }
"#;

const STRIPPED_PROGRAM: &str = r#"#include <stdio.h>
void *lib_caller(void);
__attribute__((noinline)) void *where(void) { return __builtin_return_address(0); }
int main(void) {
    void *in_main = where();
    void *in_lib = lib_caller();
    printf("%p %p\n", in_main, in_lib);
    FILE *maps = fopen("/proc/self/maps", "r");
    int c;
    while ((c = fgetc(maps)) != EOF) putchar(c);
    return 0;
}
"#;

fn run(cmd: &mut Command) {
    let status = cmd.status();
    assert!(
        matches!(&status, Ok(s) if s.success()),
        "{cmd:?} failed: {status:?}"
    );
}

/// `[start, end)` of the defined function `name` in the symbol table of `file`, from `nm`.
fn symbol_range(file: &std::path::Path, name: &str) -> (u64, u64) {
    let out = Command::new("nm")
        .args(["-S", "--defined-only"])
        .arg(file)
        .output()
        .expect("nm");
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [addr, size, _, sym] = fields[..] {
            if sym == name {
                let start = u64::from_str_radix(addr, 16).unwrap();
                return (start, start + u64::from_str_radix(size, 16).unwrap());
            }
        }
    }
    panic!("{name} not in nm output of {}:\n{text}", file.display());
}

/// Runs `exe` and resolves the two return addresses it prints.
fn resolve_printed(exe: &std::path::Path) -> Vec<mpicheck_symbols::SourceLocation> {
    let output = Command::new(exe).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let (first_line, maps) = text.split_once('\n').unwrap();
    let mut symbolizer = Symbolizer::new(maps);
    first_line
        .split_whitespace()
        .map(|a| symbolizer.resolve(u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap()))
        .collect()
}

/// Without DWARF a call site still names its object and the call's address in it (inside
/// the calling function as `nm` of the unstripped file places it), and its function when a
/// symbol table has it: `.symtab` of a file built without `-g`, `.dynsym` of a stripped
/// shared object.
#[test]
fn stripped_binaries_give_function_object_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    std::fs::write(d.join("site.c"), STRIPPED_LIB).unwrap();
    std::fs::write(d.join("calls.c"), STRIPPED_PROGRAM).unwrap();
    run(Command::new(&cc)
        .args(["-O0", "-fPIC", "-shared", "-o"])
        .arg(d.join("libsite.so"))
        .arg(d.join("site.c")));
    std::fs::copy(d.join("libsite.so"), d.join("libsite.full.so")).unwrap();
    run(Command::new("strip").arg(d.join("libsite.so")));
    run(Command::new(&cc)
        .args(["-O0", "-fPIE", "-pie", "-o"])
        .arg(d.join("calls.full"))
        .arg(d.join("calls.c"))
        .arg(format!("-L{}", d.display()))
        .arg("-lsite")
        .arg(format!("-Wl,-rpath,{}", d.display())));
    std::fs::copy(d.join("calls.full"), d.join("calls")).unwrap();
    run(Command::new("strip").arg(d.join("calls")));

    let lib = d.join("libsite.so");
    let (lib_start, lib_end) = symbol_range(&d.join("libsite.full.so"), "lib_caller");
    let (main_start, main_end) = symbol_range(&d.join("calls.full"), "main");

    // Unstripped, no DWARF: `main` from `.symtab`.
    let full = resolve_printed(&d.join("calls.full"));
    assert_eq!(full[0].function.as_deref(), Some("main"), "{full:?}");
    assert_eq!(full[0].file, None);
    assert_eq!(full[0].line, None);
    assert_eq!(
        full[0].object.as_deref(),
        Some(d.join("calls.full").to_str().unwrap())
    );
    let offset = full[0].offset.expect("offset");
    assert!((main_start..main_end).contains(&offset), "{offset:#x}");

    // Stripped executable: no symbol names `main` any more, the object and offset remain.
    let stripped = resolve_printed(&d.join("calls"));
    assert_eq!(
        stripped[0].object.as_deref(),
        Some(d.join("calls").to_str().unwrap()),
        "{stripped:?}"
    );
    let offset = stripped[0].offset.expect("offset");
    assert!((main_start..main_end).contains(&offset), "{offset:#x}");
    assert_eq!((&stripped[0].file, stripped[0].line), (&None, None));

    // Stripped shared object: the exported function from `.dynsym`.
    for loc in [&full[1], &stripped[1]] {
        assert_eq!(loc.function.as_deref(), Some("lib_caller"), "{loc:?}");
        assert_eq!(loc.object.as_deref(), Some(lib.to_str().unwrap()));
        let offset = loc.offset.expect("offset");
        assert!((lib_start..lib_end).contains(&offset), "{offset:#x}");
        assert_eq!((&loc.file, loc.line), (&None, None));
    }
}
