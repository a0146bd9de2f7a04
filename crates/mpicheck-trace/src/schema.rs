//! The function table that tells how a call record's argument words are laid out.
//!
//! The interposition library is generated from the MPI Forum's API description; it writes its
//! table as a text record (`text::SCHEMA`) at the start of every trace, so a trace explains
//! itself and the reader needs no copy of the generator's output.
//!
//! # Text form
//!
//! One function per line: `<id> <name> <param>...`, each param `<name>:<KIND>:<dir>:<shape>`.
//! `KIND` is the Forum's semantic kind (`RANK`, `TAG`, `COMMUNICATOR`, `BUFFER`, ...), `dir`
//! is `in`, `out` or `inout`. One kind is the recorder's own: `REQUEST_ADDRESS`, a word
//! `<param>_address` (`s8`, `in`) before the request parameter `<param>` passed by pointer
//! (`request`, `array_of_requests`), the address of the program's request variable or of
//! the array's first entry; traces written before it lack these words. The shape says how
//! many words the parameter takes:
//!
//! | shape | words                                                                  |
//! |-------|------------------------------------------------------------------------|
//! | `s4`  | 1 word of 4 bytes: a value whose C type has 4 bytes (`int`, MPICH's handles), sign-extended when read |
//! | `s8`  | 1 word of 8 bytes: the value (handles as their raw bits, pointers as addresses, `MPI_Aint`, `MPI_Count`) |
//! | `s`   | as `s8` (formats 2 and 3, where every scalar took 8 bytes)             |
//! | `a`   | 1 + n: the element count n, then n values; n = -1 means not recorded (NULL, over 2^24 entries, or memory not readable) |
//! | `a4`, `a8` | as `a`: the count in 8 bytes, then n values of 4 (sign-extended when read) or 8 bytes each |
//! | `st`  | 4: a status's `MPI_SOURCE`, `MPI_TAG`, `MPI_ERROR`, received bytes      |
//! | `sa`  | 1 + 4n: the count n, then n statuses                                   |
//! | `st3` | 3: a status packed: `MPI_SOURCE` (first 4 bytes) and `MPI_TAG` (next 4), `MPI_ERROR` (4 bytes, then 4 of zeros), received bytes; read as the 4 words of `st` |
//! | `sa3` | 1 + 3n: the count n, then n packed statuses                           |
//!
//! A parameter with direction `inout` takes its shape twice: the value on entry, then the
//! value on return. An `out` parameter's words are reserved on entry and written on return.
//!
//! Words follow each other without padding, except that an array (its count is an 8-byte
//! word), a status or an array of statuses starts at a multiple of 8 bytes from the first
//! argument word: after an odd number of 4-byte words, 4 bytes of padding come first. The
//! width of a scalar or an array element is the size of its C type in the MPI the writer was
//! built with, so the same function's table differs between MPI families (MPICH's handles
//! are `int`s, Open MPI's pointers); the reader needs no knowledge of families.
//! [`record_words`] turns a record's argument bytes into the 8-byte words of
//! [`decode_args`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How a parameter is laid out in the argument words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamShape {
    Scalar,
    Array,
    Status,
    StatusArray,
}

/// Direction of a parameter as the Forum's description states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSchema {
    pub name: String,
    /// The Forum's semantic kind, e.g. `RANK`, `COMMUNICATOR`.
    pub kind: String,
    pub direction: Direction,
    pub shape: ParamShape,
    /// Bytes of each scalar word or array element (4 or 8), or of each status (32, or 24
    /// packed: `st3`, `sa3`).
    pub width: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSchema {
    pub id: u16,
    pub name: String,
    pub params: Vec<ParamSchema>,
}

impl FunctionSchema {
    /// The function's line in the text form, as [`Schema::parse`] reads it.
    pub fn to_line(&self) -> String {
        let mut line = format!("{} {}", self.id, self.name);
        for p in &self.params {
            let dir = match p.direction {
                Direction::In => "in",
                Direction::Out => "out",
                Direction::InOut => "inout",
            };
            let shape = match (p.shape, p.width) {
                (ParamShape::Scalar, 4) => "s4",
                (ParamShape::Scalar, _) => "s8",
                (ParamShape::Array, 4) => "a4",
                (ParamShape::Array, _) => "a8",
                (ParamShape::Status, PACKED_STATUS) => "st3",
                (ParamShape::Status, _) => "st",
                (ParamShape::StatusArray, PACKED_STATUS) => "sa3",
                (ParamShape::StatusArray, _) => "sa",
            };
            line += &format!(" {}:{}:{dir}:{shape}", p.name, p.kind);
        }
        line
    }
}

/// A status as recorded: the public fields plus the received size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Status {
    pub source: i64,
    pub tag: i64,
    pub error: i64,
    pub bytes: i64,
}

/// One decoded value of a parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// Not available: an output of a call that did not return, or an array not recorded.
    Missing,
    Int(i64),
    Array(Vec<i64>),
    Status(Status),
    Statuses(Vec<Status>),
}

impl ArgValue {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            ArgValue::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[i64]> {
        match self {
            ArgValue::Array(v) => Some(v),
            _ => None,
        }
    }
}

/// The function table of one trace. Cloning it is cheap: clones share one table, which
/// never changes once parsed, as do the tables [`Schema::parse_shared`] gives for the same
/// text.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    table: Arc<Table>,
}

#[derive(Debug, Default)]
struct Table {
    functions: Vec<Option<FunctionSchema>>,
    /// By function id, the layout of its records' argument bytes (empty where
    /// `functions` has none): worked out once per table, read for every record.
    layouts: Vec<Layout>,
    by_name: HashMap<String, u16>,
}

/// How many distinct tables [`Schema::parse_shared`] keeps: the traces of one run come
/// from one MPI build, so their tables are one text (or a few, for a run mixing builds).
const SHARED_TABLES: usize = 8;

/// The tables [`Schema::parse_shared`] parsed, by their text, the latest first.
static SHARED: Mutex<Vec<(Box<[u8]>, Schema)>> = Mutex::new(Vec::new());

#[derive(Debug, thiserror::Error)]
#[error("schema line {line}: {message}")]
pub struct SchemaError {
    pub line: usize,
    pub message: String,
}

impl Schema {
    /// The table of the text of a trace's schema record, `bytes` (UTF-8; bytes that are
    /// not read as U+FFFD, as [`String::from_utf8_lossy`] reads them), as [`Schema::parse`]
    /// parses it: parsed once per distinct text in the process and shared, since every
    /// trace of a run carries the same table (read twice per trace: by the scan and by the
    /// reading of its calls). The last [`SHARED_TABLES`] distinct tables are kept for the
    /// process's life; a text that does not parse is not kept.
    pub fn parse_shared(bytes: &[u8]) -> Result<Schema, SchemaError> {
        let shared = |tables: &mut Vec<(Box<[u8]>, Schema)>| {
            let i = tables.iter().position(|(text, _)| **text == *bytes)?;
            // The latest first: a run's one table is found at the first comparison.
            tables[..=i].rotate_right(1);
            Some(tables[0].1.clone())
        };
        let lock = || {
            SHARED
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        if let Some(schema) = shared(&mut lock()) {
            return Ok(schema);
        }
        // Parsed without the lock: another thread may parse the same text meanwhile, and
        // the first to finish is kept.
        let schema = Schema::parse(&String::from_utf8_lossy(bytes))?;
        let mut tables = lock();
        if let Some(schema) = shared(&mut tables) {
            return Ok(schema);
        }
        tables.truncate(SHARED_TABLES - 1);
        tables.insert(0, (bytes.into(), schema.clone()));
        Ok(schema)
    }

    /// Whether `self` and `other` are one table (clones, or [`Schema::parse_shared`] gave
    /// both), not only equal ones.
    pub fn shares_table(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.table, &other.table)
    }

    pub fn parse(text: &str) -> Result<Schema, SchemaError> {
        let mut schema = Table::default();
        for (index, line) in text.lines().enumerate() {
            let err = |message: String| SchemaError {
                line: index + 1,
                message,
            };
            let mut fields = line.split_whitespace();
            let Some(id) = fields.next() else { continue };
            let id: u16 = id
                .parse()
                .map_err(|_| err(format!("bad function id {id:?}")))?;
            let name = fields
                .next()
                .ok_or_else(|| err("missing function name".into()))?;
            let mut params = Vec::new();
            for field in fields {
                let parts: Vec<&str> = field.split(':').collect();
                let [pname, kind, dir, shape] = parts[..] else {
                    return Err(err(format!("bad parameter {field:?}")));
                };
                let direction = match dir {
                    "in" => Direction::In,
                    "out" => Direction::Out,
                    "inout" => Direction::InOut,
                    _ => return Err(err(format!("bad direction in {field:?}"))),
                };
                let (shape, width) = match shape {
                    "s" | "s8" => (ParamShape::Scalar, 8),
                    "s4" => (ParamShape::Scalar, 4),
                    "a" | "a8" => (ParamShape::Array, 8),
                    "a4" => (ParamShape::Array, 4),
                    "st" => (ParamShape::Status, 32),
                    "sa" => (ParamShape::StatusArray, 32),
                    "st3" => (ParamShape::Status, PACKED_STATUS),
                    "sa3" => (ParamShape::StatusArray, PACKED_STATUS),
                    _ => return Err(err(format!("bad shape in {field:?}"))),
                };
                params.push(ParamSchema {
                    name: pname.into(),
                    kind: kind.into(),
                    direction,
                    shape,
                    width,
                });
            }
            let slot = id as usize;
            if schema.functions.len() <= slot {
                schema.functions.resize(slot + 1, None);
                schema.layouts.resize_with(slot + 1, Layout::default);
            }
            schema.by_name.insert(name.to_string(), id);
            let function = FunctionSchema {
                id,
                name: name.into(),
                params,
            };
            schema.layouts[slot] = layout(&function);
            schema.functions[slot] = Some(function);
        }
        Ok(Schema {
            table: Arc::new(schema),
        })
    }

    pub fn function(&self, id: u16) -> Option<&FunctionSchema> {
        self.table
            .functions
            .get(id as usize)
            .and_then(|f| f.as_ref())
    }

    /// [`record_words`] of a record of function `id`, into `words` (cleared first), whose
    /// room is reused: a reader that decodes record after record into one vector allocates
    /// nothing per record. `false`, with `words` untouched, if the table has no function
    /// `id`.
    pub fn record_words_into(&self, id: u16, bytes: &[u8], words: &mut Vec<i64>) -> bool {
        match self.table.functions.get(id as usize) {
            Some(Some(_)) => {
                read_words(&self.table.layouts[id as usize], bytes, words);
                true
            }
            _ => false,
        }
    }

    pub fn id_of(&self, name: &str) -> Option<u16> {
        self.table.by_name.get(name).copied()
    }

    pub fn len(&self) -> usize {
        self.table.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.by_name.is_empty()
    }
}

/// Decodes argument words into one `(input, output)` pair per parameter. Outputs are
/// `Missing` unless `complete`. Words that run short decode as `Missing`.
pub fn decode_args(
    function: &FunctionSchema,
    words: &[i64],
    complete: bool,
) -> Vec<(ArgValue, ArgValue)> {
    let mut values = Vec::with_capacity(function.params.len());
    decode_args_into(function, words, complete, &mut values);
    values
}

/// As [`decode_args`], into `values` (cleared first): a reader that decodes call after
/// call into one vector allocates nothing for calls of scalars.
pub fn decode_args_into(
    function: &FunctionSchema,
    words: &[i64],
    complete: bool,
    values: &mut Vec<(ArgValue, ArgValue)>,
) {
    let mut cursor = WordCursor { words, at: 0 };
    values.clear();
    values.extend(function.params.iter().map(|param| match param.direction {
        Direction::In => (cursor.take(param.shape), ArgValue::Missing),
        Direction::Out => {
            let value = cursor.take(param.shape);
            (
                ArgValue::Missing,
                if complete { value } else { ArgValue::Missing },
            )
        }
        Direction::InOut => {
            let input = cursor.take(param.shape);
            let output = cursor.take(param.shape);
            (input, if complete { output } else { ArgValue::Missing })
        }
    }));
}

/// Bytes of a packed status (`st3`, `sa3`; trace format 4).
const PACKED_STATUS: u8 = 24;

/// The argument words of a record of `function` from its argument bytes (trace format 4:
/// scalars of 4 or 8 bytes, packed statuses, see the module docs), as 8-byte words with
/// 4-byte values sign-extended: the words [`decode_args`] takes, the same as a format 3
/// record of the call holds. Bytes that run short end the words (the parameters left decode
/// as missing); an array longer than the bytes left is cut to them.
pub fn record_words(function: &FunctionSchema, bytes: &[u8]) -> Vec<i64> {
    let mut words = Vec::new();
    read_words(&layout(function), bytes, &mut words);
    words
}

/// How a function's argument bytes are read into words: its [`Step`]s, and where the words
/// of the steps of a fixed size before its first array lie, which a whole record holds at
/// the same offsets every time.
#[derive(Clone, Debug, Default)]
struct Layout {
    steps: Box<[Step]>,
    /// Byte offset and width (4: sign-extended, or 8) of each word of `steps[..rest]`.
    fixed: Box<[(u32, u8)]>,
    /// Where the bytes of `steps[..rest]` end: the offset `steps[rest]` starts from.
    fixed_end: usize,
    /// The first step of a size that depends on the record (an array), or `steps.len()`.
    rest: usize,
}

/// One step of the layout of a function's argument bytes: its parameters in order, an
/// `inout` parameter twice, each as the words it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// A scalar of 4 bytes (sign-extended).
    Int4,
    /// A scalar of 8 bytes.
    Int8,
    /// From a multiple of 8: an array's 8-byte count n, then n values of this many bytes.
    Array(u8),
    /// From a multiple of 8: a status of this many bytes.
    Status(u8),
    /// From a multiple of 8: an 8-byte count n, then n statuses of this many bytes.
    StatusArray(u8),
}

/// The [`Layout`] of `function`'s argument bytes.
fn layout(function: &FunctionSchema) -> Layout {
    let steps = steps(function);
    let mut fixed = Vec::new();
    let mut at = 0usize;
    let mut rest = 0;
    for &step in steps.iter() {
        // The words `read_steps` reads for the step, at the offsets it reads them from.
        match step {
            Step::Int4 => fixed.push((at, 4)),
            Step::Int8 => fixed.push((at, 8)),
            Step::Status(width) => {
                at = at.next_multiple_of(8);
                fixed.extend(status_words(width).map(|(offset, word)| (at + offset, word)));
            }
            Step::Array(_) | Step::StatusArray(_) => break,
        }
        at += step_bytes(step);
        rest += 1;
    }
    Layout {
        fixed: fixed
            .into_iter()
            .map(|(at, width)| (u32::try_from(at).unwrap_or(u32::MAX), width))
            .collect(),
        fixed_end: at,
        rest,
        steps,
    }
}

/// The bytes a step of a fixed size takes (after the padding before a status).
fn step_bytes(step: Step) -> usize {
    match step {
        Step::Int4 => 4,
        Step::Int8 => 8,
        Step::Status(width) => width as usize,
        Step::Array(_) | Step::StatusArray(_) => 0,
    }
}

/// The steps of `function`'s argument bytes.
fn steps(function: &FunctionSchema) -> Box<[Step]> {
    let step = |param: &ParamSchema| match param.shape {
        ParamShape::Scalar if param.width == 4 => Step::Int4,
        ParamShape::Scalar => Step::Int8,
        ParamShape::Array => Step::Array(param.width),
        ParamShape::Status => Step::Status(param.width),
        ParamShape::StatusArray => Step::StatusArray(param.width),
    };
    let times = |param: &ParamSchema| 1 + usize::from(param.direction == Direction::InOut);
    function
        .params
        .iter()
        .flat_map(|param| std::iter::repeat_n(step(param), times(param)))
        .collect()
}

/// The words of argument bytes laid out as `layout` says, into `words` (cleared first):
/// see [`record_words`].
fn read_words(layout: &Layout, bytes: &[u8], words: &mut Vec<i64>) {
    words.clear();
    // Every word takes 4 bytes or more.
    words.reserve(bytes.len() / 4);
    if bytes.len() < layout.fixed_end {
        // Cut short: step by step, as far as the bytes go.
        read_steps(&layout.steps, bytes, 0, words);
        return;
    }
    // The steps of a fixed size, at their known offsets: what `read_steps` reads of them,
    // without a check per word.
    for &(at, width) in layout.fixed.iter() {
        words.push(word_at(bytes, at as usize, width));
    }
    if layout.rest < layout.steps.len() {
        read_steps(&layout.steps[layout.rest..], bytes, layout.fixed_end, words);
    }
}

/// The word of `width` bytes (4: sign-extended, or 8) at `at` in `bytes`.
#[inline]
fn word_at(bytes: &[u8], at: usize, width: u8) -> i64 {
    if width == 4 {
        i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as i64
    } else {
        i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
    }
}

/// The words of `steps`, read from `at` in `bytes`, appended to `words`: see
/// [`record_words`].
fn read_steps(steps: &[Step], bytes: &[u8], mut at: usize, words: &mut Vec<i64>) {
    for &step in steps {
        let taken = match step {
            Step::Int4 => take(bytes, &mut at, 4, words).map(|_| ()),
            Step::Int8 => take(bytes, &mut at, 8, words).map(|_| ()),
            Step::Status(width) => {
                at = at.next_multiple_of(8);
                take_status(bytes, &mut at, width, words)
            }
            Step::Array(width) => {
                at = at.next_multiple_of(8);
                take(bytes, &mut at, 8, words).map(|n| {
                    let n = usize::try_from(n).unwrap_or(0);
                    let n = n.min(bytes.len().saturating_sub(at) / width as usize);
                    let values = &bytes[at..at + n * width as usize];
                    at += values.len();
                    // The width tested once per array, not per value.
                    if width == 4 {
                        words.extend(
                            values
                                .chunks_exact(4)
                                .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as i64),
                        );
                    } else {
                        words.extend(
                            values
                                .chunks_exact(8)
                                .map(|b| i64::from_le_bytes(b.try_into().unwrap())),
                        );
                    }
                })
            }
            Step::StatusArray(width) => {
                at = at.next_multiple_of(8);
                take(bytes, &mut at, 8, words).and_then(|n| {
                    let n = usize::try_from(n).unwrap_or(0);
                    (0..n).try_for_each(|_| take_status(bytes, &mut at, width, words))
                })
            }
        };
        if taken.is_none() {
            return;
        }
    }
}

/// Reads a word of `width` bytes (4: sign-extended) at `*at` into `words`.
#[inline]
fn take(bytes: &[u8], at: &mut usize, width: u8, words: &mut Vec<i64>) -> Option<i64> {
    bytes.get(*at..*at + width as usize)?;
    let value = word_at(bytes, *at, width);
    *at += width as usize;
    words.push(value);
    Some(value)
}

/// The 4 words of a status of `width` bytes, as (offset from its start, width): 4 words of
/// 8 bytes, or packed ([`PACKED_STATUS`]): source, tag and error in 4 bytes each, 4 bytes
/// of zeros, then the bytes received in 8.
fn status_words(width: u8) -> [(usize, u8); 4] {
    if width == PACKED_STATUS {
        [(0, 4), (4, 4), (8, 4), (16, 8)]
    } else {
        [(0, 8), (8, 8), (16, 8), (24, 8)]
    }
}

/// Reads a status of `width` bytes (32: 4 words; 24: packed) at `*at` as 4 words.
fn take_status(bytes: &[u8], at: &mut usize, width: u8, words: &mut Vec<i64>) -> Option<()> {
    if width == PACKED_STATUS {
        // A packed status is read whole or not at all.
        bytes.get(*at..*at + width as usize)?;
    }
    for (offset, word) in status_words(width) {
        take(bytes, &mut (*at + offset), word, words)?;
    }
    *at += width as usize;
    Some(())
}

/// The argument bytes of a record of `function` holding `words` (8-byte words as
/// [`record_words`] returns them), laid out as a format 4 writer lays them out, without the
/// padding at the end. Words beyond the parameters are appended as 8-byte words.
pub fn encode_words(function: &FunctionSchema, words: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 * words.len());
    let mut rest = words.iter().copied();
    let put = |out: &mut Vec<u8>, value: i64, width: u8| {
        if width == 4 {
            out.extend_from_slice(&(value as i32).to_le_bytes());
        } else {
            out.extend_from_slice(&value.to_le_bytes());
        }
    };
    'params: for param in &function.params {
        let times = if param.direction == Direction::InOut {
            2
        } else {
            1
        };
        for _ in 0..times {
            if param.shape != ParamShape::Scalar {
                out.resize(out.len().next_multiple_of(8), 0);
            }
            let (values, statuses) = match param.shape {
                ParamShape::Status => (0, 1),
                _ => {
                    let Some(first) = rest.next() else {
                        break 'params;
                    };
                    let width = if param.shape == ParamShape::Scalar {
                        param.width
                    } else {
                        8 // an array's count
                    };
                    put(&mut out, first, width);
                    match param.shape {
                        ParamShape::Array => (first.max(0), 0),
                        ParamShape::StatusArray => (0, first.max(0)),
                        _ => (0, 0),
                    }
                }
            };
            for _ in 0..values {
                let Some(value) = rest.next() else {
                    break 'params;
                };
                put(&mut out, value, param.width);
            }
            for _ in 0..statuses {
                let status: Vec<i64> = rest.by_ref().take(4).collect();
                let [source, tag, error, received] = status[..] else {
                    break 'params;
                };
                if param.width == PACKED_STATUS {
                    for (value, width) in [(source, 4), (tag, 4), (error, 4), (0, 4), (received, 8)]
                    {
                        put(&mut out, value, width);
                    }
                } else {
                    status.iter().for_each(|&w| put(&mut out, w, 8));
                }
            }
        }
    }
    for word in rest {
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend_from_slice(&word.to_le_bytes());
    }
    out
}

struct WordCursor<'a> {
    words: &'a [i64],
    at: usize,
}

impl WordCursor<'_> {
    fn next(&mut self) -> Option<i64> {
        let word = self.words.get(self.at).copied();
        self.at += 1;
        word
    }

    fn status(&mut self) -> Option<Status> {
        Some(Status {
            source: self.next()?,
            tag: self.next()?,
            error: self.next()?,
            bytes: self.next()?,
        })
    }

    /// The next value of `shape`: a scalar (most parameters) inline, the rest out of line.
    #[inline]
    fn take(&mut self, shape: ParamShape) -> ArgValue {
        match shape {
            ParamShape::Scalar => self.next().map_or(ArgValue::Missing, ArgValue::Int),
            _ => self.take_composite(shape),
        }
    }

    fn take_composite(&mut self, shape: ParamShape) -> ArgValue {
        match shape {
            ParamShape::Scalar => self.next().map_or(ArgValue::Missing, ArgValue::Int),
            ParamShape::Status => self.status().map_or(ArgValue::Missing, ArgValue::Status),
            ParamShape::Array => match self.next() {
                Some(n) if n >= 0 => {
                    let n = n as usize;
                    let end = self.at.saturating_add(n);
                    if end > self.words.len() {
                        self.at = self.words.len();
                        return ArgValue::Missing;
                    }
                    let values = self.words[self.at..end].to_vec();
                    self.at = end;
                    ArgValue::Array(values)
                }
                _ => ArgValue::Missing,
            },
            ParamShape::StatusArray => match self.next() {
                Some(n) if n >= 0 => {
                    let statuses: Option<Vec<Status>> = (0..n).map(|_| self.status()).collect();
                    statuses.map_or(ArgValue::Missing, ArgValue::Statuses)
                }
                _ => ArgValue::Missing,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = "0 MPI_Send buf:BUFFER:in:s count:POLYXFER_NUM_ELEM_NNI:in:s datatype:DATATYPE:in:s dest:RANK:in:s tag:TAG:in:s comm:COMMUNICATOR:in:s\n\
                          7 MPI_Waitall count:ARRAY_LENGTH_NNI:in:s array_of_requests:REQUEST:inout:a array_of_statuses:STATUS:out:sa\n";

    #[test]
    fn parses_and_decodes_scalars_arrays_and_statuses() {
        let schema = Schema::parse(SCHEMA).unwrap();
        assert_eq!(schema.id_of("MPI_Waitall"), Some(7));
        let waitall = schema.function(7).unwrap();
        let words = [2, 2, 11, 12, 2, 0, 0, 2, 1, 5, 0, 8, 0, 9, 0, 4];
        let args = decode_args(waitall, &words, true);
        assert_eq!(args[0].0, ArgValue::Int(2));
        assert_eq!(args[1].0, ArgValue::Array(vec![11, 12]));
        assert_eq!(args[1].1, ArgValue::Array(vec![0, 0]));
        let ArgValue::Statuses(st) = &args[2].1 else {
            panic!("{:?}", args[2])
        };
        assert_eq!(
            st[1],
            Status {
                source: 0,
                tag: 9,
                error: 0,
                bytes: 4
            }
        );
        let incomplete = decode_args(waitall, &words, false);
        assert_eq!(incomplete[2].1, ArgValue::Missing);
        // Into a vector that held another call's values: the same values.
        let mut reused = incomplete;
        decode_args_into(waitall, &words, true, &mut reused);
        assert_eq!(reused, args);
    }

    #[test]
    fn short_words_decode_as_missing_without_panicking() {
        let schema = Schema::parse(SCHEMA).unwrap();
        let args = decode_args(schema.function(7).unwrap(), &[5, 1000], true);
        assert_eq!(args[1].0, ArgValue::Missing);
    }

    #[test]
    fn lines_read_back_as_written() {
        let schema = Schema::parse(SCHEMA).unwrap();
        for id in [0, 7] {
            let f = schema.function(id).unwrap();
            let again = Schema::parse(&f.to_line()).unwrap();
            assert_eq!(again.function(id), Some(f));
        }
    }

    #[test]
    fn shared_tables_are_parsed_once_per_text() {
        // Texts of this test only: other tests share the process's tables.
        let text = format!("{SCHEMA}9 MPI_Shared_test_a x:INT:in:s\n");
        let other = format!("{SCHEMA}9 MPI_Shared_test_b x:INT:in:s\n");
        let first = Schema::parse_shared(text.as_bytes()).unwrap();
        let second = Schema::parse_shared(text.clone().into_bytes().as_slice()).unwrap();
        assert!(first.shares_table(&second));
        let different = Schema::parse_shared(other.as_bytes()).unwrap();
        assert!(!first.shares_table(&different));
        assert_eq!(different.id_of("MPI_Shared_test_b"), Some(9));
        assert_eq!(first.id_of("MPI_Shared_test_a"), Some(9));
        assert_eq!(first.function(7), Schema::parse(&text).unwrap().function(7));
        assert!(!first.shares_table(&Schema::parse(&text).unwrap()));
        // Tables found again after others were parsed.
        assert!(Schema::parse_shared(text.as_bytes())
            .unwrap()
            .shares_table(&first));
        // Bytes that are not UTF-8 read as `parse` reads them lossily; errors are not kept.
        let mut damaged = format!("{SCHEMA}9 MPI_Shared_test_").into_bytes();
        damaged.extend(b"\xffc x:INT:in:s\n");
        let lossy = Schema::parse_shared(&damaged).unwrap();
        assert_eq!(lossy.id_of("MPI_Shared_test_\u{fffd}c"), Some(9));
        assert!(Schema::parse_shared(b"x MPI_Shared_test_d").is_err());
        assert!(Schema::parse_shared(b"x MPI_Shared_test_d").is_err());
    }

    #[test]
    fn rejects_malformed_lines() {
        assert!(Schema::parse("x MPI_Send").is_err());
        assert!(Schema::parse("1 MPI_Send a:B:sideways:s").is_err());
    }

    #[test]
    fn the_tables_layouts_read_the_words_record_words_reads() {
        let schema = Schema::parse(
            "3 MPI_Every a:INT:in:s4 b:HANDLE:inout:s8 c:INT:in:a4 d:STATUS:out:st3 \
             e:REQUEST:inout:a8 f:STATUS:out:sa3 g:STATUS:out:st h:STATUS:out:sa i:INT:out:s4\n",
        )
        .unwrap();
        let every = schema.function(3).unwrap();
        #[rustfmt::skip]
        let words = [
            -5, // a
            1 << 40, 7, // b in, out
            2, -1, 3, // c
            0, 1, 2, 3, // d
            -9, // e in: not recorded
            2, 11, 12, // e out
            1, 8, 9, 0, 64, // f
            1, 2, 3, 4, // g
            1, 5, 6, 7, 8, // h
            -2, // i
        ];
        let bytes = encode_words(every, &words);
        assert_eq!(record_words(every, &bytes), words);
        // Into a vector that held more words; every cut of the bytes as `record_words`.
        let mut reused = vec![99; 64];
        for end in 0..=bytes.len() {
            assert!(schema.record_words_into(3, &bytes[..end], &mut reused));
            assert_eq!(reused, record_words(every, &bytes[..end]), "{end} bytes");
        }
        // A function the table lacks: the words are left as they were.
        assert!(!schema.record_words_into(4, &bytes, &mut reused));
        assert!(!schema.record_words_into(900, &bytes, &mut reused));
        assert_eq!(reused, words);
    }
}
