//! Parsing of `/proc/<pid>/maps` text (see `proc_pid_maps(5)`).
//!
//! Each line is `start-end perms offset major:minor inode [path]`, numbers in hex except the
//! inode (decimal). The path is everything after the inode, so it may contain spaces; the
//! kernel appends ` (deleted)` when the mapped file has been unlinked since it was mapped.

/// Access permissions of a mapping (`r-xp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Perms {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
    /// `s` (shared) rather than `p` (private, copy-on-write).
    pub shared: bool,
}

/// What is mapped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MappingPath {
    /// No path: anonymous memory (heap arenas, thread stacks, JIT code).
    Anonymous,
    /// A kernel-named region: `[heap]`, `[stack]`, `[vdso]`, `[vsyscall]`, ...
    Pseudo(String),
    /// A file. `deleted` is set when the kernel reported it as ` (deleted)`: the file that
    /// was mapped no longer exists under that name, so whatever is there now (if anything)
    /// is not what ran.
    File { path: String, deleted: bool },
}

/// One line of `/proc/<pid>/maps`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mapping {
    /// First address of the mapping.
    pub start: u64,
    /// One past the last address of the mapping.
    pub end: u64,
    pub perms: Perms,
    /// Offset in the file of the byte mapped at `start`.
    pub offset: u64,
    /// Device (major, minor) of the mapped file.
    pub dev: (u32, u32),
    /// Inode of the mapped file, 0 for anonymous mappings.
    pub inode: u64,
    pub path: MappingPath,
}

impl Mapping {
    /// Whether `addr` lies inside the mapping.
    pub fn contains(&self, addr: u64) -> bool {
        self.start <= addr && addr < self.end
    }

    /// The path of the mapped file, if it is a file that still existed under that name when
    /// the maps were read.
    pub fn file_path(&self) -> Option<&str> {
        match &self.path {
            MappingPath::File {
                path,
                deleted: false,
            } => Some(path),
            _ => None,
        }
    }
}

/// Parses `/proc/<pid>/maps` text. Lines that do not parse are skipped: a trace written by a
/// crashing process may end in a truncated line, and one bad line should not lose the rest.
pub fn parse_maps(text: &str) -> Vec<Mapping> {
    text.lines().filter_map(parse_line).collect()
}

/// Splits off the next whitespace-separated field, returning it and the rest (unconsumed,
/// so the path, which may contain spaces, can be taken whole at the end).
fn next_field(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    let end = s.find(|c: char| c.is_ascii_whitespace()).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

fn parse_line(line: &str) -> Option<Mapping> {
    let (range, rest) = next_field(line)?;
    let (perms, rest) = next_field(rest)?;
    let (offset, rest) = next_field(rest)?;
    let (dev, rest) = next_field(rest)?;
    let (inode, rest) = next_field(rest)?;

    let (start, end) = range.split_once('-')?;
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    if end < start {
        return None;
    }

    let p = perms.as_bytes();
    if p.len() != 4 {
        return None;
    }
    let perms = Perms {
        read: p[0] == b'r',
        write: p[1] == b'w',
        exec: p[2] == b'x',
        shared: p[3] == b's',
    };

    let offset = u64::from_str_radix(offset, 16).ok()?;
    let (major, minor) = dev.split_once(':')?;
    let dev = (
        u32::from_str_radix(major, 16).ok()?,
        u32::from_str_radix(minor, 16).ok()?,
    );
    let inode = inode.parse().ok()?;

    let path = rest.trim();
    let path = if path.is_empty() {
        MappingPath::Anonymous
    } else if path.starts_with('[') {
        MappingPath::Pseudo(path.to_string())
    } else if let Some(p) = path.strip_suffix(" (deleted)") {
        MappingPath::File {
            path: p.to_string(),
            deleted: true,
        }
    } else {
        MappingPath::File {
            path: path.to_string(),
            deleted: false,
        }
    };

    Some(Mapping {
        start,
        end,
        perms,
        offset,
        dev,
        inode,
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_file_anonymous_pseudo_and_deleted_lines() {
        let text = "\
5615530b3000-5615530b5000 r--p 00000000 fe:00 247030                     /usr/bin/cat
5615530b5000-5615530ba000 r-xp 00002000 fe:00 247030                     /usr/bin/cat
7f0000000000-7f0000021000 rw-p 00000000 00:00 0 
7ffd4a1c2000-7ffd4a1c4000 r-xp 00000000 00:00 0                          [vdso]
7f1000000000-7f1000001000 r-xs 0001f000 103:02 42   /opt/my app/lib x.so (deleted)
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
";
        let maps = parse_maps(text);
        assert_eq!(maps.len(), 6);

        assert_eq!(maps[1].start, 0x5615530b5000);
        assert_eq!(maps[1].end, 0x5615530ba000);
        assert_eq!(maps[1].offset, 0x2000);
        assert_eq!(maps[1].dev, (0xfe, 0));
        assert_eq!(maps[1].inode, 247030);
        assert!(maps[1].perms.exec && maps[1].perms.read && !maps[1].perms.write);
        assert!(!maps[1].perms.shared);
        assert_eq!(maps[1].file_path(), Some("/usr/bin/cat"));
        assert!(!maps[0].perms.exec);

        assert_eq!(maps[2].path, MappingPath::Anonymous);
        assert_eq!(maps[2].file_path(), None);
        assert_eq!(maps[3].path, MappingPath::Pseudo("[vdso]".into()));

        // Spaces inside the path are kept; the deleted marker is split off.
        assert_eq!(
            maps[4].path,
            MappingPath::File {
                path: "/opt/my app/lib x.so".into(),
                deleted: true
            }
        );
        assert_eq!(maps[4].file_path(), None);
        assert_eq!(maps[4].dev, (0x103, 2));
        assert!(maps[4].perms.shared);

        // u64 addresses at the top of the address space.
        assert_eq!(maps[5].start, 0xffffffffff600000);
    }

    #[test]
    fn skips_malformed_lines() {
        let text = "\
garbage
5615530b3000-5615530b5000 r--p 00000000 fe:00
5615530b5000-5615530b3000 r--p 00000000 fe:00 1 /reversed
zz-5615530b5000 r--p 00000000 fe:00 1 /badhex
5615530b3000-5615530b5000 r--p 00000000 fe:00 7 /ok
5615530b3000-5615530b";
        let maps = parse_maps(text);
        assert_eq!(maps.len(), 1);
        assert_eq!(maps[0].file_path(), Some("/ok"));
        assert!(maps[0].contains(0x5615530b3000));
        assert!(maps[0].contains(0x5615530b4fff));
        assert!(!maps[0].contains(0x5615530b5000));
    }
}
