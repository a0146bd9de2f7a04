//! What the symbolizer needs from an ELF file besides its DWARF: the `PT_LOAD` segments (to
//! turn a runtime address into a link-time one) and the links to separate debug info.
//!
//! Files are read through [`object::ReadCache`], so only the headers and the few small
//! sections asked for are read, not whole (possibly huge) binaries.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSegment, ReadCache, SegmentFlags};

/// A `PT_LOAD` program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub vaddr: u64,
    pub file_offset: u64,
    pub file_size: u64,
    pub exec: bool,
}

/// Facts about one ELF file.
#[derive(Clone, Debug, Default)]
pub(crate) struct ElfInfo {
    pub segments: Vec<Segment>,
    pub build_id: Option<Vec<u8>>,
    /// `.gnu_debuglink`: file name of the separate debug file and the CRC-32 of its bytes.
    pub debuglink: Option<(String, u32)>,
    /// `.gnu_debugaltlink`: file name and build ID of the supplementary (dwz) DWARF file.
    pub debugaltlink: Option<(String, Vec<u8>)>,
    /// Whether the file itself carries DWARF line information. A file made by
    /// `objcopy --only-keep-debug` has it; a stripped binary does not.
    pub has_dwarf: bool,
}

impl ElfInfo {
    /// Reads an ELF (or other object) file; `None` if it cannot be opened or parsed.
    pub fn read(path: &Path) -> Option<ElfInfo> {
        let file = File::open(path).ok()?;
        let cache = ReadCache::new(file);
        let obj = object::File::parse(&cache).ok()?;

        let segments = obj
            .segments()
            .filter_map(|s| {
                let (file_offset, file_size) = s.file_range();
                let exec = match s.flags() {
                    SegmentFlags::Elf { p_flags, .. } => p_flags.0 & object::elf::PF_X.0 != 0,
                    // Not ELF: the mapping-to-segment match below only needs the offsets.
                    _ => false,
                };
                (file_size > 0).then_some(Segment {
                    vaddr: s.address(),
                    file_offset,
                    file_size,
                    exec,
                })
            })
            .collect();

        // DWARF in the file itself: a section with bytes in the file (`SHT_NOBITS`
        // placeholders left by `objcopy --only-keep-debug` in the *stripped* file have none).
        let has_dwarf = [".debug_info", ".zdebug_info", ".debug_line", ".zdebug_line"]
            .iter()
            .any(|name| {
                obj.section_by_name(name)
                    .and_then(|s| s.file_range())
                    .is_some_and(|(_, size)| size > 0)
            });

        Some(ElfInfo {
            segments,
            build_id: obj.build_id().ok().flatten().map(<[u8]>::to_vec),
            debuglink: obj
                .gnu_debuglink()
                .ok()
                .flatten()
                .map(|(name, crc)| (String::from_utf8_lossy(name).into_owned(), crc)),
            debugaltlink: obj
                .gnu_debugaltlink()
                .ok()
                .flatten()
                .map(|(name, id)| (String::from_utf8_lossy(name).into_owned(), id.to_vec())),
            has_dwarf,
        })
    }

    /// The link-time virtual address of the byte at runtime address `addr`, which lies in a
    /// mapping that maps this file from `map_offset` on at `map_start`.
    ///
    /// The byte sits at file offset `addr - map_start + map_offset`; the `PT_LOAD` segment
    /// containing that offset says where the linker placed it. This is the same arithmetic
    /// for PIE executables, shared objects and non-PIE executables (whose segments are
    /// mapped at their link address, so the result is `addr` itself), and it does not depend
    /// on which mapping of the file is the first one. Neighbouring segments may share a
    /// file page, so when two contain the offset the one whose executable bit matches the
    /// mapping's wins.
    pub fn link_address(
        &self,
        map_start: u64,
        map_offset: u64,
        exec: bool,
        addr: u64,
    ) -> Option<u64> {
        let file_offset = addr.checked_sub(map_start)?.checked_add(map_offset)?;
        let mut found: Option<&Segment> = None;
        for seg in &self.segments {
            let inside =
                seg.file_offset <= file_offset && file_offset - seg.file_offset < seg.file_size;
            if inside && (found.is_none() || seg.exec == exec) {
                found = Some(seg);
            }
        }
        let seg = found?;
        Some(seg.vaddr + (file_offset - seg.file_offset))
    }
}

/// Where to look for the separate debug file of `binary`, in GDB's order: by build ID under
/// each debug directory (`<dir>/.build-id/ab/cdef….debug`), then by `.gnu_debuglink` name
/// next to the binary, in its `.debug/` subdirectory, and under each debug directory
/// followed by the binary's own directory (`/usr/lib/debug/usr/bin/foo.debug`).
///
/// A candidate is taken only if it is provably the right file: its build ID equals the
/// binary's, or (without build IDs) its CRC-32 equals the one in the debuglink. A stale
/// debug file from another build would give plausible but wrong lines.
pub(crate) fn find_debug_file(
    binary: &Path,
    info: &ElfInfo,
    debug_dirs: &[PathBuf],
) -> Option<PathBuf> {
    if let Some(id) = info.build_id.as_deref().filter(|id| id.len() >= 2) {
        let hex = to_hex(id);
        for dir in debug_dirs {
            let candidate = dir
                .join(".build-id")
                .join(&hex[..2])
                .join(format!("{}.debug", &hex[2..]));
            if ElfInfo::read(&candidate)
                .is_some_and(|d| d.has_dwarf && d.build_id.as_deref() == Some(id))
            {
                return Some(candidate);
            }
        }
    }

    let (name, crc) = info.debuglink.as_ref()?;
    let dir = binary.parent()?;
    let mut candidates = vec![dir.join(name), dir.join(".debug").join(name)];
    for debug_dir in debug_dirs {
        // `join` with an absolute path would replace `debug_dir`: strip the root first.
        let rel = dir.strip_prefix("/").unwrap_or(dir);
        candidates.push(debug_dir.join(rel).join(name));
    }
    candidates.into_iter().find(|c| {
        c != binary
            && file_crc32(c) == Some(*crc)
            && ElfInfo::read(c).is_some_and(|d| {
                d.has_dwarf
                    && match (&info.build_id, &d.build_id) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            })
    })
}

/// Where the supplementary DWARF file (`dwz -m` output, named by `.gnu_debugaltlink`) of the
/// DWARF file `dwarf_file` is: the path as written (relative paths are relative to the
/// DWARF file's directory), else by its build ID under the debug directories.
pub(crate) fn find_sup_file(
    dwarf_file: &Path,
    info: &ElfInfo,
    debug_dirs: &[PathBuf],
) -> Option<PathBuf> {
    let (name, id) = info.debugaltlink.as_ref()?;
    let named = dwarf_file.parent().map(|d| d.join(name));
    let by_id = (id.len() >= 2).then(|| {
        let hex = to_hex(id);
        debug_dirs
            .iter()
            .map(|d| {
                d.join(".build-id")
                    .join(&hex[..2])
                    .join(format!("{}.debug", &hex[2..]))
            })
            .collect::<Vec<_>>()
    });
    named
        .into_iter()
        .chain(by_id.into_iter().flatten())
        .find(|c| ElfInfo::read(c).is_some_and(|s| s.build_id.as_deref() == Some(&id[..])))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// CRC-32 (IEEE 802.3, the one `.gnu_debuglink` uses) of a whole file, read in chunks.
fn file_crc32(path: &Path) -> Option<u32> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
    let mut crc = Crc32::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf).ok()?;
        if n == 0 {
            return Some(crc.finish());
        }
        crc.update(&buf[..n]);
    }
}

/// Table-driven CRC-32: small enough to keep here rather than add a dependency for it.
struct Crc32 {
    table: [u32; 256],
    value: u32,
}

impl Crc32 {
    fn new() -> Self {
        let mut table = [0u32; 256];
        for (i, entry) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *entry = c;
        }
        Crc32 {
            table,
            value: 0xFFFF_FFFF,
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.value =
                self.table[((self.value ^ u32::from(b)) & 0xFF) as usize] ^ (self.value >> 8);
        }
    }

    fn finish(&self) -> u32 {
        self.value ^ 0xFFFF_FFFF
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        // The published check value of CRC-32/ISO-HDLC for "123456789".
        let mut crc = Crc32::new();
        crc.update(b"1234");
        crc.update(b"56789");
        assert_eq!(crc.finish(), 0xCBF4_3926);
    }

    fn seg(vaddr: u64, file_offset: u64, file_size: u64, exec: bool) -> Segment {
        Segment {
            vaddr,
            file_offset,
            file_size,
            exec,
        }
    }

    #[test]
    fn link_address_uses_the_segment_holding_the_file_offset() {
        // Typical PIE layout: text segment at file offset 0x1000, linked at 0x1000; data
        // segment sharing the file page at 0x2df0 but linked one page higher.
        let info = ElfInfo {
            segments: vec![
                seg(0x0, 0x0, 0x628, false),
                seg(0x1000, 0x1000, 0x1f5, true),
                seg(0x3df0, 0x2df0, 0x230, false),
            ],
            ..Default::default()
        };
        // Text mapped at 0x5555_5555_5000 from file offset 0x1000.
        assert_eq!(
            info.link_address(0x5555_5555_5000, 0x1000, true, 0x5555_5555_5139),
            Some(0x1139)
        );
        // Data page mapped from offset 0x2000: offset 0x2e00 lies in the data segment.
        assert_eq!(
            info.link_address(0x5555_5555_7000, 0x2000, false, 0x5555_5555_7e00),
            Some(0x3e00)
        );
        // Past every segment's file bytes: no answer rather than a wrong one.
        assert_eq!(
            info.link_address(0x5555_5555_5000, 0x1000, true, 0x5555_5555_8000),
            None
        );
        // Below the mapping start.
        assert_eq!(
            info.link_address(0x5555_5555_5000, 0x1000, true, 0x10),
            None
        );
    }

    #[test]
    fn link_address_prefers_the_segment_matching_the_mapping_exec_bit() {
        // Both segments contain file offset 0x1100 (as when a linker packs segments
        // without page alignment); the executable mapping must pick the text segment.
        let info = ElfInfo {
            segments: vec![
                seg(0x400000, 0x0, 0x1200, false),
                seg(0x601000, 0x1000, 0x500, true),
            ],
            ..Default::default()
        };
        assert_eq!(
            info.link_address(0x7000_0000, 0x1000, true, 0x7000_0100),
            Some(0x601100)
        );
        assert_eq!(
            info.link_address(0x7000_0000, 0x1000, false, 0x7000_0100),
            Some(0x401100)
        );
    }
}

/// The dynamic symbols of an ELF file that a filter kept: those it defines (exports) and
/// those it imports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynamicSymbols {
    pub defined: Vec<String>,
    pub imported: Vec<String>,
}

/// The dynamic symbols of the ELF file at `path` whose names `keep` accepts; `None` if it is
/// not a regular file or cannot be parsed.
pub fn dynamic_symbols(path: &Path, keep: impl Fn(&str) -> bool) -> Option<DynamicSymbols> {
    use object::ObjectSymbol;
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let cache = ReadCache::new(File::open(path).ok()?);
    let obj = object::File::parse(&cache).ok()?;
    let mut symbols = DynamicSymbols::default();
    for symbol in obj.dynamic_symbols() {
        let Ok(name) = symbol.name() else { continue };
        if !keep(name) {
            continue;
        }
        match symbol.is_undefined() {
            true => symbols.imported.push(name.to_string()),
            false => symbols.defined.push(name.to_string()),
        }
    }
    Some(symbols)
}

#[cfg(test)]
mod dynamic_symbol_tests {
    use super::*;

    #[test]
    fn a_program_imports_what_it_calls_from_libraries() {
        // This test binary calls into the C library (it imports `malloc` or `free`) and
        // defines none of them.
        let exe = std::env::current_exe().unwrap();
        let symbols = dynamic_symbols(&exe, |name| name == "malloc" || name == "free").unwrap();
        assert!(!symbols.imported.is_empty(), "{symbols:?}");
        assert!(symbols.defined.is_empty(), "{symbols:?}");
        assert!(dynamic_symbols(Path::new("/dev/null"), |_| true).is_none());
    }
}
