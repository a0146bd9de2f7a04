//! Offline resolution of recorded MPI call sites to `file:line`.
//!
//! The interposition library records, per MPI call, the return address of the outermost MPI
//! entry point (a raw virtual address of the application process) and, once per process, a
//! copy of `/proc/self/maps`. This crate turns such an address into a [`SourceLocation`]
//! after the run, from the DWARF of the mapped files:
//!
//! 1. find the mapping that holds the call instruction (return address − 1, so that the line
//!    is the call's and not the next statement's);
//! 2. turn the runtime address into the file's link-time address with the mapping's file
//!    offset and the ELF `PT_LOAD` headers (PIE executables, shared objects and non-PIE
//!    executables alike);
//! 3. look the address up with `addr2line`, following inlined frames, demangling C++, Rust
//!    and gfortran module names, and falling back to the symbol table (`.symtab`, else
//!    `.dynsym`) for stripped files. The mapped file's path and the call's link-time address
//!    in it are always given with the location (`libfoo.so+0x1234`), so a call in a
//!    stripped binary can still be found with `addr2line -e` or GDB later.
//!
//! Separate debug files are found by build ID or `.gnu_debuglink` (and their dwz
//! supplementary files by `.gnu_debugaltlink`) under `/usr/lib/debug` or the directories given
//! to [`Symbolizer::with_debug_dirs`]. A file that is gone, was deleted while the process ran
//! (` (deleted)` in the maps) or was replaced by another file since (different inode) yields
//! only its path (not for deleted ones), never a wrong line and never a panic.
//!
//! ```no_run
//! # let maps_text = std::fs::read_to_string("/proc/self/maps").unwrap();
//! let mut symbolizer = mpicheck_symbols::Symbolizer::new(&maps_text);
//! let site = symbolizer.resolve(0x5555_5555_5139);
//! if let (Some(file), Some(line)) = (&site.file, site.line) {
//!     println!("{file}:{line}");
//! }
//! ```

mod elf;
mod maps;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use addr2line::Loader;

pub use elf::{dynamic_symbols, DynamicSymbols};
pub use maps::{parse_maps, Mapping, MappingPath, Perms};
pub use mpicheck_analyzer::model::SourceLocation;

use elf::ElfInfo;

/// The system-wide directory of separate debug files (Debian's `-dbgsym` packages, GDB's
/// default `debug-file-directory`).
pub const DEFAULT_DEBUG_DIR: &str = "/usr/lib/debug";

/// Resolves raw return addresses of one process (described by its maps text) to source
/// locations.
///
/// Loaded DWARF is cached per file and resolved sites per address. The DWARF cache survives
/// [`Symbolizer::set_maps`], so the ranks of one job, which map the same files at different
/// (ASLR) addresses, are resolved with one symbolizer and each file is loaded once.
pub struct Symbolizer {
    maps: Vec<Mapping>,
    debug_dirs: Vec<PathBuf>,
    modules: HashMap<ModuleKey, Option<Module>>,
    sites: HashMap<u64, Vec<SourceLocation>>,
}

/// A mapped file as the process saw it: the same path may name another file later.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ModuleKey {
    path: String,
    dev: (u32, u32),
    inode: u64,
}

/// One loaded file: the headers of the file that was mapped and the DWARF and symbols that
/// describe it (from the file itself or from its separate debug file).
struct Module {
    info: ElfInfo,
    loader: Loader,
}

impl Symbolizer {
    /// A symbolizer for the process whose `/proc/self/maps` text is `maps_text`, looking for
    /// separate debug files under [`DEFAULT_DEBUG_DIR`].
    pub fn new(maps_text: &str) -> Self {
        Self::with_debug_dirs(maps_text, vec![PathBuf::from(DEFAULT_DEBUG_DIR)])
    }

    /// Like [`Symbolizer::new`], with the directories searched for separate debug files
    /// (`<dir>/.build-id/…` and `<dir>/<binary dir>/<debuglink name>`), in order.
    pub fn with_debug_dirs(maps_text: &str, debug_dirs: Vec<PathBuf>) -> Self {
        Symbolizer {
            maps: parse_maps(maps_text),
            debug_dirs,
            modules: HashMap::new(),
            sites: HashMap::new(),
        }
    }

    /// Switches to another process's maps (e.g. the next rank), keeping loaded DWARF.
    pub fn set_maps(&mut self, maps_text: &str) {
        self.swap_maps(parse_maps(maps_text));
    }

    /// Switches to another process's maps, already parsed ([`parse_maps`]), and returns the
    /// ones it used: a caller that alternates between processes parses each text once.
    pub fn swap_maps(&mut self, maps: Vec<Mapping>) -> Vec<Mapping> {
        // Addresses mean something else in another address space.
        self.sites.clear();
        std::mem::replace(&mut self.maps, maps)
    }

    /// The mappings of the current process.
    pub fn maps(&self) -> &[Mapping] {
        &self.maps
    }

    /// The source location of the call whose return address is `return_addr`: the innermost
    /// frame, i.e. the call statement itself (if it was inlined, the line inside the inlined
    /// function and that function's name; [`Symbolizer::resolve_frames`] gives the callers).
    ///
    /// Every field is `None` when the address lies outside any file mapping. Otherwise
    /// `object` names the mapped file; `offset` (the call's link-time address in it) is
    /// known unless the file is missing, deleted or replaced; with a stripped file `function`
    /// comes from the symbol table and `file`/`line` stay `None`.
    pub fn resolve(&mut self, return_addr: u64) -> SourceLocation {
        self.resolve_frames(return_addr)
            .first()
            .cloned()
            .unwrap_or_default()
    }

    /// All frames at the call whose return address is `return_addr`, innermost first: the
    /// call statement, then for each enclosing inlined function the line where it was
    /// inlined, ending with the real (not inlined) function. Empty when nothing is known.
    pub fn resolve_frames(&mut self, return_addr: u64) -> &[SourceLocation] {
        if !self.sites.contains_key(&return_addr) {
            let frames = self.lookup(return_addr);
            self.sites.insert(return_addr, frames);
        }
        &self.sites[&return_addr]
    }

    fn lookup(&mut self, return_addr: u64) -> Vec<SourceLocation> {
        // The call instruction ends at the return address; any byte of it gives its line.
        // Address 0 (no caller recorded) has no call before it.
        let Some(pc) = return_addr.checked_sub(1) else {
            return Vec::new();
        };
        let Some(mapping) = self.maps.iter().find(|m| m.contains(pc)).cloned() else {
            return Vec::new();
        };
        let Some(path) = mapping.file_path() else {
            return Vec::new();
        };
        // The mapped file is known even when nothing else is: the user can look there.
        let object_only = vec![SourceLocation {
            object: Some(path.to_string()),
            ..Default::default()
        }];
        let key = ModuleKey {
            path: path.to_string(),
            dev: mapping.dev,
            inode: mapping.inode,
        };
        let debug_dirs = &self.debug_dirs;
        let module = self
            .modules
            .entry(key)
            .or_insert_with_key(|key| Module::load(key, debug_dirs));
        let Some(module) = module else {
            return object_only;
        };
        let Some(vaddr) =
            module
                .info
                .link_address(mapping.start, mapping.offset, mapping.perms.exec, pc)
        else {
            return object_only;
        };
        let mut frames = module.frames(vaddr);
        if frames.is_empty() {
            frames.push(SourceLocation::default());
        }
        // Inlined frames share the one call instruction.
        for frame in &mut frames {
            frame.object = Some(path.to_string());
            frame.offset = Some(vaddr);
        }
        frames
    }
}

impl Module {
    /// Loads the file named by `key` if it is still the file that was mapped. `None` when
    /// it is missing, not an object file, or replaced.
    fn load(key: &ModuleKey, debug_dirs: &[PathBuf]) -> Option<Module> {
        let path = Path::new(&key.path);
        let meta = std::fs::metadata(path).ok()?;
        if !same_file(key, &meta) {
            return None;
        }
        let info = ElfInfo::read(path)?;

        // DWARF from the file itself, else from its separate debug file if one is found.
        let debug_file = if info.has_dwarf {
            None
        } else {
            elf::find_debug_file(path, &info, debug_dirs)
        };
        let dwarf_path = debug_file.as_deref().unwrap_or(path);
        let sup =
            ElfInfo::read(dwarf_path).and_then(|d| elf::find_sup_file(dwarf_path, &d, debug_dirs));
        let loader = Loader::new_with_sup(dwarf_path, sup.as_deref())
            .ok()
            // A debug file that does not load still leaves the binary's own symbols.
            .or_else(|| Loader::new(path).ok())?;
        Some(Module { info, loader })
    }

    /// The frames at link-time address `vaddr`, innermost first.
    fn frames(&self, vaddr: u64) -> Vec<SourceLocation> {
        let mut out = Vec::new();
        if let Ok(mut frames) = self.loader.find_frames(vaddr) {
            // A DWARF error part-way leaves the frames read so far, which are still right.
            while let Ok(Some(frame)) = frames.next() {
                let function = frame.function.as_ref().and_then(|f| {
                    let raw = f.raw_name().ok()?;
                    Some(demangle(raw, f.language))
                });
                let (file, line) = match frame.location {
                    Some(loc) => (loc.file.map(clean_path), loc.line),
                    None => (None, None),
                };
                out.push(SourceLocation {
                    file,
                    line,
                    function,
                    ..Default::default()
                });
            }
        }
        if out.is_empty() {
            // No function DIE covers the address (e.g. a unit built without -g next to ones
            // with it); the line table alone may still know the line.
            if let Ok(Some(loc)) = self.loader.find_location(vaddr) {
                out.push(SourceLocation {
                    file: loc.file.map(clean_path),
                    line: loc.line,
                    ..Default::default()
                });
            }
        }
        if out.first().is_none_or(|f| f.function.is_none()) {
            // Stripped or partly described file: the symbol table (`.symtab`, else
            // `.dynsym`) still names the function.
            if let Some(name) = self.loader.find_symbol(vaddr) {
                let name = demangle(Cow::Borrowed(name), None);
                match out.first_mut() {
                    Some(first) => first.function = Some(name),
                    None => out.push(SourceLocation {
                        function: Some(name),
                        ..Default::default()
                    }),
                }
            }
        }
        out.retain(|f| f.file.is_some() || f.line.is_some() || f.function.is_some());
        out
    }
}

/// Whether the file now at `key.path` (described by `meta`) is the one that was mapped.
///
/// Building a program again usually creates a new file (the linker unlinks the old one), so
/// a different inode on the same device means the binary was replaced and its DWARF would
/// describe other code. A different device cannot be compared (overlay filesystems report
/// the underlying device in the maps; a trace may be read on another machine), so only the
/// inode test on the same device rejects a file.
#[cfg(unix)]
fn same_file(key: &ModuleKey, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    if key.inode == 0 {
        return true;
    }
    // glibc's `major()`/`minor()` split of a Linux `dev_t`.
    let dev = meta.dev();
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    if (major, minor) != (u64::from(key.dev.0), u64::from(key.dev.1)) {
        return true;
    }
    meta.ino() == key.inode
}

#[cfg(not(unix))]
fn same_file(_key: &ModuleKey, _meta: &std::fs::Metadata) -> bool {
    true
}

/// Demangles a function name: by the unit's language when DWARF says it (C++, Rust), by
/// trying both otherwise; gfortran module procedures (`__mod_MOD_proc`, which no language
/// demangler knows) become `mod::proc`, as GDB shows them.
fn demangle(raw: Cow<'_, str>, language: Option<addr2line::gimli::DwLang>) -> String {
    use addr2line::gimli;
    let fortran = matches!(
        language,
        None | Some(
            gimli::DW_LANG_Fortran77
                | gimli::DW_LANG_Fortran90
                | gimli::DW_LANG_Fortran95
                | gimli::DW_LANG_Fortran03
                | gimli::DW_LANG_Fortran08
                | gimli::DW_LANG_Fortran18
        )
    );
    if fortran {
        if let Some((module, proc)) = raw
            .strip_prefix("__")
            .and_then(|rest| rest.split_once("_MOD_"))
            .filter(|(m, p)| !m.is_empty() && !p.is_empty())
        {
            return format!("{module}::{proc}");
        }
    }
    addr2line::demangle_auto(raw, language).into_owned()
}

/// Drops `.` components (`/src/./a.c` → `/src/a.c`) that joining the compilation directory
/// with a `./`-relative file name leaves. `..` is kept: with symbolic links, removing it
/// lexically can name another file.
fn clean_path(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_path_drops_dot_and_empty_components() {
        assert_eq!(clean_path("/tmp/x/./a.c"), "/tmp/x/a.c");
        assert_eq!(clean_path("/tmp//x/a.c"), "/tmp/x/a.c");
        assert_eq!(clean_path("/tmp/x/../a.c"), "/tmp/x/../a.c");
        assert_eq!(clean_path("./a.c"), "a.c");
        assert_eq!(clean_path("a.c"), "a.c");
        assert_eq!(clean_path("/"), "/");
    }

    #[test]
    fn demangles_fortran_module_procedures_and_cpp() {
        use addr2line::gimli;
        assert_eq!(
            demangle("__physics_MOD_step".into(), Some(gimli::DW_LANG_Fortran95)),
            "physics::step"
        );
        // Not a module procedure, and C names stay as they are.
        assert_eq!(
            demangle("exchange_".into(), Some(gimli::DW_LANG_Fortran95)),
            "exchange_"
        );
        assert_eq!(
            demangle("__x_MOD_y".into(), Some(gimli::DW_LANG_C11)),
            "__x_MOD_y"
        );
        assert_eq!(
            demangle("_ZN2ns6Widget2goEi".into(), None),
            "ns::Widget::go(int)"
        );
    }

    #[test]
    fn unknown_addresses_give_empty_locations() {
        let maps = "\
7f0000000000-7f0000021000 rw-p 00000000 00:00 0 
7ffd4a1c2000-7ffd4a1c4000 r-xp 00000000 00:00 0                          [vdso]
7f1000000000-7f1000001000 r-xp 00000000 fe:00 42   /nonexistent/mpicheck/lib.so
";
        let mut s = Symbolizer::new(maps);
        for addr in [0, 1, 0x7f0000000010, 0x7ffd4a1c2010, 0x10] {
            assert_eq!(s.resolve(addr), SourceLocation::default(), "{addr:#x}");
        }
        // A file that is gone still names where the call was, but no offset can be computed
        // without its headers.
        assert_eq!(
            s.resolve(0x7f1000000010),
            SourceLocation {
                object: Some("/nonexistent/mpicheck/lib.so".into()),
                ..Default::default()
            }
        );
    }
}
