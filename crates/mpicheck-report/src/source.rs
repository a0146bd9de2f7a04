//! Reading the source lines that locations point at, for the terminal and HTML reports.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Source files read once per report; a file that cannot be read is remembered as missing.
pub(crate) struct SourceCache<'a> {
    base: &'a Path,
    files: HashMap<String, Option<String>>,
}

impl<'a> SourceCache<'a> {
    pub(crate) fn new(base: &'a Path) -> Self {
        SourceCache {
            base,
            files: HashMap::new(),
        }
    }

    pub(crate) fn resolve(&self, file: &str) -> PathBuf {
        // `join` keeps an absolute `file` as it is.
        self.base.join(file)
    }

    /// The whole text of `file`, if it can be read as UTF-8.
    pub(crate) fn text(&mut self, file: &str) -> Option<&str> {
        if !self.files.contains_key(file) {
            let text = std::fs::read_to_string(self.resolve(file)).ok();
            self.files.insert(file.to_string(), text);
        }
        self.files.get(file).and_then(|t| t.as_deref())
    }

    /// The byte range of (1-based) `line` in `file`, without its line break, and the text.
    pub(crate) fn line(&mut self, file: &str, line: u32) -> Option<(Range<usize>, &str)> {
        let text = self.text(file)?;
        let index = (line as usize).checked_sub(1)?;
        let mut start = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i == index {
                let content = l.trim_end_matches(['\n', '\r']);
                return Some((start..start + content.len(), content));
            }
            start += l.len();
        }
        None
    }
}

/// The part of a source line that is the call: from the function name (matched without
/// regard to case, for Fortran's `call mpi_recv(...)`) to its closing parenthesis on the same
/// line; else the line without its indentation. Relative to the line start.
pub(crate) fn call_span(line: &str, call: &str) -> Range<usize> {
    let lower = line.to_ascii_lowercase();
    let name = call.to_ascii_lowercase();
    if !name.is_empty() {
        if let Some(start) = lower.find(&name) {
            let after = start + name.len();
            let rest = &line[after..];
            let open = rest.len() - rest.trim_start().len();
            if rest[open..].starts_with('(') {
                let mut depth = 0usize;
                for (i, c) in rest[open..].char_indices() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                return start..after + open + i + 1;
                            }
                        }
                        _ => {}
                    }
                }
            }
            return start..after;
        }
    }
    let indent = line.len() - line.trim_start().len();
    let end = line.trim_end().len().max(indent);
    indent..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_covers_the_call_expression() {
        let line = "    MPI_Recv(buf, 1, MPI_INT, f(x), 0, comm, &st); // wait";
        let r = call_span(line, "MPI_Recv");
        assert_eq!(&line[r], "MPI_Recv(buf, 1, MPI_INT, f(x), 0, comm, &st)");
    }

    #[test]
    fn span_for_fortran_and_unclosed_and_absent_calls() {
        let line = "  call MPI_RECV (buf, 1, MPI_INTEGER, 0, 0, comm, st, ierr)";
        let r = call_span(line, "mpi_recv");
        assert_eq!(
            &line[r],
            "MPI_RECV (buf, 1, MPI_INTEGER, 0, 0, comm, st, ierr)"
        );
        let line = "    MPI_Send(buf, count,";
        assert_eq!(&line[call_span(line, "MPI_Send")], "MPI_Send");
        let line = "    rc = do_send(x);  ";
        assert_eq!(&line[call_span(line, "MPI_Send")], "rc = do_send(x);");
        assert_eq!(call_span("", "MPI_Send"), 0..0);
    }

    #[test]
    fn lines_are_found_relative_to_the_base() {
        let dir = std::env::temp_dir().join(format!("mpicheck-report-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.c"), "one\r\ntwo\nthree").unwrap();
        let mut cache = SourceCache::new(&dir);
        let (range, text) = cache.line("a.c", 2).unwrap();
        assert_eq!((range, text), (5..8, "two"));
        assert_eq!(cache.line("a.c", 3).unwrap().1, "three");
        assert!(cache.line("a.c", 4).is_none());
        assert!(cache.line("a.c", 0).is_none());
        assert!(cache.line("missing.c", 1).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
