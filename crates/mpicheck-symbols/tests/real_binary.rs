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
