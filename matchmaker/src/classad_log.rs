//! HTCondor's ClassAd transaction log: the file format in which the
//! negotiator's accountant (`Accountantnew.log`) and the schedd's job queue
//! persist their tables of ads.
//!
//! A log is a text file of records, one per line, each starting with its
//! operation number:
//!
//! | record | meaning |
//! |---|---|
//! | `107 <sequence> CreationTimestamp <epoch>` | header: the log's generation and birth time |
//! | `101 <key> <MyType> <TargetType>` | a new, empty ad under `key` |
//! | `102 <key>` | the ad under `key` is destroyed |
//! | `103 <key> <name> <expression>` | `name = expression` in the ad under `key` |
//! | `104 <key> <name>` | `name` is deleted from the ad under `key` |
//! | `105` | a transaction begins |
//! | `106` | the transaction ends: its records take effect together |
//!
//! Records between `105` and `106` take effect only when the `106` is read,
//! so a write cut short by a crash leaves an incomplete transaction at the
//! end of the file, which readers ignore. [`read_log`] replays a log into a
//! [`LogTable`] with HTCondor's rules; [`LogWriter`] appends transactions,
//! each ended by a `106` and (for durable ones) an `fdatasync`, and compacts
//! the log atomically: the current state is written to a new file of a name
//! of its own next to the log (`<log>.tmp-<pid>-<n>`, created exclusively),
//! synced, and renamed over the log.
//!
//! # Concurrent writers
//!
//! A writer holds an exclusive advisory lock ([`LogLock`], `flock(2)` on
//! `<log>.lock`) from before it reads the log until it is done with it (a
//! [`LogWriter`] keeps its lock until it is dropped), so two writers never
//! interleave a read-modify-write: the second waits for the first, up to a
//! timeout ([`DEFAULT_LOCK_TIMEOUT`], 10 s), and then fails with
//! [`LogError::Locked`], naming the log and the lock file. The lock is taken
//! on a file of its own rather than on the log because compaction renames a
//! new file over the log: a lock on the log's inode would be left behind on
//! the old file, and a writer waiting on it would go on with a log that is
//! no longer the one at the path. Readers ([`read_log`]) take no lock: a
//! log only ever grows by whole appends or is replaced by a rename. Writers
//! that do not take the lock (HTCondor's own negotiator) are not kept out;
//! what such a writer appended is read back in before compacting (see
//! [`LogWriter::unseen_tail`]).
//!
//! ```
//! use matchmaker::classad_log::{read_log_str, LogTable};
//! use std::collections::BTreeMap;
//!
//! #[derive(Default)]
//! struct Table(BTreeMap<String, BTreeMap<String, String>>);
//! impl LogTable for Table {
//!     fn new_ad(&mut self, key: &str, _my_type: &str) {
//!         self.0.entry(key.to_string()).or_default();
//!     }
//!     fn destroy_ad(&mut self, key: &str) {
//!         self.0.remove(key);
//!     }
//!     fn set_attribute(&mut self, key: &str, name: &str, value: &str) {
//!         if let Some(ad) = self.0.get_mut(key) {
//!             ad.insert(name.to_string(), value.to_string());
//!         }
//!     }
//!     fn delete_attribute(&mut self, key: &str, name: &str) {
//!         if let Some(ad) = self.0.get_mut(key) {
//!             ad.remove(name);
//!         }
//!     }
//! }
//!
//! let text = "107 1 CreationTimestamp 1700000000\n\
//!             105\n101 Customer.alice@site * *\n103 Customer.alice@site Priority 12.500000\n106\n\
//!             105\n103 Customer.alice@site Priority 99.0";   // torn: never committed
//! let mut table = Table::default();
//! let report = read_log_str(text, &mut table)?;
//! assert_eq!(table.0["Customer.alice@site"]["Priority"], "12.500000");
//! assert_eq!(report.header.map(|h| h.sequence), Some(1));
//! assert_eq!(report.warnings.len(), 1); // the torn tail
//! # Ok::<(), matchmaker::classad_log::LogError>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Operation numbers of the log's records, as HTCondor numbers them.
pub mod op {
    /// `101 <key> <MyType> <TargetType>`: a new ad.
    pub const NEW_AD: u32 = 101;
    /// `102 <key>`: an ad is destroyed.
    pub const DESTROY_AD: u32 = 102;
    /// `103 <key> <name> <expression>`: an attribute is set.
    pub const SET_ATTRIBUTE: u32 = 103;
    /// `104 <key> <name>`: an attribute is deleted.
    pub const DELETE_ATTRIBUTE: u32 = 104;
    /// `105`: a transaction begins.
    pub const BEGIN_TRANSACTION: u32 = 105;
    /// `106`: a transaction ends.
    pub const END_TRANSACTION: u32 = 106;
    /// `107 <sequence> CreationTimestamp <epoch>`: the log's header.
    pub const HEADER: u32 = 107;
}

/// Longest line a log may hold (16 MiB); a longer one is a corrupt record.
/// Writers refuse to write one ([`LogError::Unwritable`]).
pub const MAX_LINE: usize = 16 << 20;

/// Longest key, attribute name or type a writer writes: two of them and
/// any real written with `%f` fit in a line of [`MAX_LINE`] bytes.
pub const MAX_WORD: usize = (MAX_LINE - 1024) / 2;

/// How long a writer waits for another writer's lock before giving up.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// What can go wrong reading or writing a log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The log's path.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The log is larger than the process's
    /// [`FileLimits`](classad::bounded_file::FileLimits) allow.
    #[error(transparent)]
    File(classad::bounded_file::FileError),
    /// A record that does not parse inside a transaction that was committed
    /// later in the file. HTCondor's daemons refuse such a log too; nothing
    /// is written to it.
    #[error("{path}:{line}: corrupt record inside a committed transaction: {reason}")]
    CorruptTransaction {
        /// The log's path (`<string>` when read from text).
        path: PathBuf,
        /// 1-based line number of the corrupt record.
        line: usize,
        /// Why the record is corrupt.
        reason: String,
    },
    /// A key, name or value that the log's format cannot hold (whitespace in a
    /// key or name, a line break in a value, a value that does not parse, a
    /// line longer than [`MAX_LINE`]): what a reader would refuse.
    #[error("cannot write to the log: {0}")]
    Unwritable(String),
    /// Another writer holds the log's lock, and kept it for the whole wait.
    #[error(
        "{}: another writer holds the lock on {} (waited {:.1} s); only one process may write the log at a time",
        log.display(),
        lock.display(),
        waited.as_secs_f64()
    )]
    Locked {
        /// The log.
        log: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// How long this writer waited.
        waited: Duration,
    },
    /// The file's first record does not parse: it is not a ClassAd log (a
    /// wrong path?). Writers refuse to touch it.
    #[error(
        "{}:1: not an accountant log (expected a record such as `107 <sequence> CreationTimestamp <epoch>` or `105`): {reason}; nothing was written",
        path.display()
    )]
    NotALog {
        /// The file.
        path: PathBuf,
        /// What is wrong with its first line.
        reason: String,
    },
    /// The log at the path is no longer the file this writer appends to
    /// (something replaced it without holding the lock); nothing is written.
    #[error("{}: the log was replaced by another process that does not hold its lock; nothing was written", .0.display())]
    Replaced(PathBuf),
}

/// The log's header record (`107`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// How many times the log has been compacted, plus one.
    pub sequence: u64,
    /// When the first generation of the log was created (epoch seconds).
    pub creation_timestamp: i64,
}

/// What [`read_log`] found besides the table.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct LoadReport {
    /// The header, when the log has one.
    pub header: Option<Header>,
    /// Problems that were recovered from (a torn or garbage tail, an
    /// unterminated transaction), each naming its line.
    pub warnings: Vec<String>,
    /// Whether the log's tail must be cleaned before anything is appended:
    /// the last line is cut short, or a transaction was left open. HTCondor
    /// compacts the log in that case; so does [`LogWriter::open`].
    pub needs_compaction: bool,
    /// Records read (lines), including ignored ones.
    pub records: usize,
    /// Set when the file is not empty and its first line is not a record:
    /// the file is not a ClassAd log (why, in words). Writers refuse it
    /// ([`LogError::NotALog`]).
    pub not_a_log: Option<String>,
    /// The size of the file in bytes.
    pub bytes: u64,
}

/// A table that a log is replayed into: the ads of the log, by key.
///
/// Each method is called once the record takes effect, that is after its
/// transaction's end. Values are the expression text exactly as the log
/// holds it; [`read_log`] has already checked that it parses as a ClassAd
/// expression.
pub trait LogTable {
    /// `101`: a new, empty ad under `key` (an existing one is replaced).
    fn new_ad(&mut self, key: &str, my_type: &str);
    /// `102`: the ad under `key` is destroyed.
    fn destroy_ad(&mut self, key: &str);
    /// `103`: `name = value` in the ad under `key` (ignored when there is none).
    fn set_attribute(&mut self, key: &str, name: &str, value: &str);
    /// `104`: `name` is removed from the ad under `key`.
    fn delete_attribute(&mut self, key: &str, name: &str);
}

/// One parsed record, borrowing from the log's text.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Record<'a> {
    Header(Header),
    NewAd { key: &'a str, my_type: &'a str },
    DestroyAd { key: &'a str },
    SetAttribute { key: &'a str, name: &'a str, value: &'a str },
    DeleteAttribute { key: &'a str, name: &'a str },
    Begin,
    End,
}

impl<'a> Record<'a> {
    fn apply(self, table: &mut impl LogTable) {
        match self {
            Record::NewAd { key, my_type } => table.new_ad(key, my_type),
            Record::DestroyAd { key } => table.destroy_ad(key),
            Record::SetAttribute { key, name, value } => table.set_attribute(key, name, value),
            Record::DeleteAttribute { key, name } => table.delete_attribute(key, name),
            Record::Header(_) | Record::Begin | Record::End => {}
        }
    }
}

/// Splits off the next word: leading blanks skipped, up to the next blank.
fn word(rest: &str) -> Option<(&str, &str)> {
    let bytes = rest.as_bytes();
    let start = bytes.iter().position(|&b| b != b' ' && b != b'\t')?;
    let end = memchr::memchr2(b' ', b'\t', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    Some((&rest[start..end], &rest[end..]))
}

/// `word rest` split at a single blank after a non-empty word (`None` for
/// anything else, which the general reader handles).
fn split_blank(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let at = memchr::memchr2(b' ', b'\t', bytes)?;
    if at == 0 || bytes[at] != b' ' || bytes.get(at + 1).is_some_and(|&b| b == b' ' || b == b'\t') {
        return None;
    }
    Some((&text[..at], &text[at + 1..]))
}

/// Parses one line (without its line break) into a record.
fn parse_record(line: &str) -> Result<Record<'_>, String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    // Most lines of a log are `103 key name value` with single blanks: read
    // those with two searches.
    if let Some(rest) = line.strip_prefix("103 ") {
        if let Some((key, after)) = split_blank(rest) {
            if let Some((name, value)) = split_blank(after) {
                check_value(value)?;
                return Ok(Record::SetAttribute { key, name, value });
            }
        }
    }
    let (op_word, rest) = word(line).ok_or("empty line")?;
    // `106` may carry a comment: `106#text`.
    if op_word.starts_with("106#") {
        return Ok(Record::End);
    }
    let number: u32 = op_word.parse().map_err(|_| format!("`{op_word}` is not an operation number"))?;
    let missing = |what: &str| format!("record {number} has no {what}");
    match number {
        op::HEADER => {
            let (sequence, rest) = word(rest).ok_or_else(|| missing("sequence number"))?;
            let (_label, rest) = word(rest).ok_or_else(|| missing("timestamp label"))?;
            let (timestamp, _) = word(rest).ok_or_else(|| missing("timestamp"))?;
            Ok(Record::Header(Header {
                sequence: sequence.parse().map_err(|_| format!("bad sequence number `{sequence}`"))?,
                creation_timestamp: timestamp.parse().map_err(|_| format!("bad timestamp `{timestamp}`"))?,
            }))
        }
        op::NEW_AD => {
            let (key, rest) = word(rest).ok_or_else(|| missing("key"))?;
            let (my_type, _) = word(rest).ok_or_else(|| missing("type"))?;
            // The target type that follows is obsolete and optional.
            let my_type = if my_type == "(empty)" { "" } else { my_type };
            Ok(Record::NewAd { key, my_type })
        }
        op::DESTROY_AD => {
            let (key, _) = word(rest).ok_or_else(|| missing("key"))?;
            Ok(Record::DestroyAd { key })
        }
        op::SET_ATTRIBUTE => {
            let (key, rest) = word(rest).ok_or_else(|| missing("key"))?;
            let (name, rest) = word(rest).ok_or_else(|| missing("attribute name"))?;
            // The value is the rest of the line after the one separating blank.
            let value = rest.get(1..).unwrap_or("");
            check_value(value)?;
            Ok(Record::SetAttribute { key, name, value })
        }
        op::DELETE_ATTRIBUTE => {
            let (key, rest) = word(rest).ok_or_else(|| missing("key"))?;
            let (name, _) = word(rest).ok_or_else(|| missing("attribute name"))?;
            Ok(Record::DeleteAttribute { key, name })
        }
        op::BEGIN_TRANSACTION => {
            if rest.trim().is_empty() {
                Ok(Record::Begin)
            } else {
                Err("text after a transaction begin".into())
            }
        }
        op::END_TRANSACTION => {
            // HTCondor may write a comment: `106 #text`.
            if rest.trim().is_empty() || rest.trim_start().starts_with('#') {
                Ok(Record::End)
            } else {
                Err("text after a transaction end".into())
            }
        }
        other => Err(format!("unknown operation {other}")),
    }
}

/// Checks that a value parses as a ClassAd expression, as HTCondor's reader
/// does (its strict parsing). Plain numbers and simple strings, which is
/// what the accountant writes, are recognised without the parser.
pub fn check_value(value: &str) -> Result<(), String> {
    if is_plain_number(value) || is_simple_string(value) {
        return Ok(());
    }
    match value.parse::<classad::Expr>() {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("value `{}` does not parse: {e}", shorten(value))),
    }
}

fn shorten(text: &str) -> String {
    if text.len() <= 60 {
        text.to_string()
    } else {
        let mut end = 60;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &text[..end])
    }
}

/// `-?digits[.digits]`: what `%d` and `%f` print for finite numbers.
pub(crate) fn is_plain_number(value: &str) -> bool {
    let bytes = value.as_bytes();
    let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
    let mut int_digits = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        i += 1;
        int_digits += 1;
    }
    if int_digits == 0 {
        return false;
    }
    if i == digits.len() {
        return true;
    }
    if digits[i] != b'.' || i + 1 == digits.len() {
        return false;
    }
    digits[i + 1..].iter().all(u8::is_ascii_digit)
}

/// `"..."` with no escapes inside.
fn is_simple_string(value: &str) -> bool {
    value.len() >= 2
        && value.starts_with('"')
        && value.ends_with('"')
        && !value[1..value.len() - 1].contains(['"', '\\'])
}

/// Replays a log's text into `table`.
///
/// `path` only names the log in errors. See [`read_log`].
pub fn read_log_str(text: &str, table: &mut impl LogTable) -> Result<LoadReport, LogError> {
    replay(text, Path::new("<string>"), table)
}

/// Reads the log at `path` and replays it into `table`, as HTCondor's
/// daemons do when they start:
///
/// - records outside a transaction take effect at once; those inside take
///   effect when the transaction's `106` is read;
/// - a transaction still open at the end of the file is ignored, with a
///   warning;
/// - a line that does not parse (or is cut short) is ignored together with
///   everything after it, with a warning, *unless* a `106` follows it: a
///   corrupt record inside a committed transaction is
///   [`LogError::CorruptTransaction`], naming the line.
///
/// A missing file is an empty log.
pub fn read_log(path: &Path, table: &mut impl LogTable) -> Result<LoadReport, LogError> {
    use classad::bounded_file::{self, FileError, FileLimits};
    // Over-long lines are the replay's to judge (a corrupt record), not
    // the reader's.
    let limits = FileLimits { max_line: usize::MAX, ..FileLimits::current() };
    let bytes = match bounded_file::read_bytes_with(path, limits) {
        Ok(bytes) => bytes,
        Err(FileError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            return Ok(LoadReport::default())
        }
        Err(FileError::Io { path, source }) => return Err(LogError::Io { path, source }),
        Err(e) => return Err(LogError::File(e)),
    };
    // Invalid UTF-8 is treated like any other corrupt record: find where it
    // starts and read up to there.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = e.valid_up_to();
            // SAFETY-free: from_utf8 on the valid prefix cannot fail.
            let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            let line_start = prefix.rfind('\n').map_or(0, |i| i + 1);
            let mut report = replay(&prefix[..line_start], path, table)?;
            let line = prefix[..line_start].matches('\n').count() + 1;
            if line == 1 {
                report.warnings.push(format!("{}:1: not an accountant log: invalid UTF-8", path.display()));
                report.needs_compaction = true;
                report.not_a_log = Some("invalid UTF-8".into());
                report.bytes = bytes.len() as u64;
                return Ok(report);
            }
            if contains_end_after(&bytes[line_start..]) {
                return Err(LogError::CorruptTransaction {
                    path: path.to_path_buf(),
                    line,
                    reason: "invalid UTF-8".into(),
                });
            }
            report.warnings.push(format!("{}:{line}: invalid UTF-8; the rest of the log is ignored", path.display()));
            report.needs_compaction = true;
            report.bytes = bytes.len() as u64;
            return Ok(report);
        }
    };
    let mut report = replay(text, path, table)?;
    report.bytes = bytes.len() as u64;
    Ok(report)
}

/// Whether some line of `rest` (bytes, any encoding) is an end-of-transaction record.
fn contains_end_after(rest: &[u8]) -> bool {
    rest.split(|&b| b == b'\n')
        .skip(1)
        .any(|line| line.starts_with(b"106") && line.get(3).is_none_or(|&b| b == b'#' || b == b'\r' || b == b' '))
}

fn replay(text: &str, path: &Path, table: &mut impl LogTable) -> Result<LoadReport, LogError> {
    let mut report = LoadReport { bytes: text.len() as u64, ..LoadReport::default() };
    let mut pending: Vec<Record<'_>> = Vec::new();
    let mut open_since: Option<usize> = None;
    let mut offset = 0;
    let mut line_no = 0;
    while offset < text.len() {
        line_no += 1;
        report.records += 1;
        let rest = &text[offset..];
        let (line, complete, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => (&rest[..i], true, offset + i + 1),
            None => (rest, false, text.len()),
        };
        let parsed = if !complete {
            Err("the last line is cut short (no line break)".to_string())
        } else if line.len() > MAX_LINE {
            Err(format!("line longer than {MAX_LINE} bytes"))
        } else {
            parse_record(line)
        };
        let record = match parsed {
            Ok(record) => record,
            Err(reason) if line_no == 1 => {
                report.warnings.push(format!("{}:1: not an accountant log: {reason}", path.display()));
                report.needs_compaction = true;
                report.not_a_log = Some(reason);
                break;
            }
            Err(reason) => {
                if contains_end_after(&text.as_bytes()[offset..]) {
                    return Err(LogError::CorruptTransaction { path: path.to_path_buf(), line: line_no, reason });
                }
                report.warnings.push(format!(
                    "{}:{line_no}: {reason}; this record and the {} after it are ignored",
                    path.display(),
                    text[next..].lines().count()
                ));
                report.needs_compaction = true;
                open_since = None;
                pending.clear();
                break;
            }
        };
        match record {
            Record::Header(header) => {
                if line_no != 1 {
                    report.warnings.push(format!("{}:{line_no}: a header record after the first line", path.display()));
                }
                report.header = Some(header);
            }
            Record::Begin => {
                if let Some(since) = open_since {
                    report.warnings.push(format!(
                        "{}:{line_no}: a transaction begins inside the one begun on line {since}",
                        path.display()
                    ));
                } else {
                    open_since = Some(line_no);
                }
            }
            Record::End => match open_since.take() {
                Some(_) => {
                    for record in pending.drain(..) {
                        record.apply(table);
                    }
                }
                None => {
                    report.warnings.push(format!("{}:{line_no}: a transaction end without a beginning", path.display()))
                }
            },
            other => {
                if open_since.is_some() {
                    pending.push(other);
                } else {
                    other.apply(table);
                }
            }
        }
        offset = next;
    }
    if let Some(since) = open_since {
        report.warnings.push(format!(
            "{}:{since}: the transaction begun here was never committed; its {} records are ignored",
            path.display(),
            pending.len()
        ));
        report.needs_compaction = true;
    }
    Ok(report)
}

/// Checks that `key` can stand as a key (or an attribute name) in the log.
pub(crate) fn check_key(key: &str) -> Result<(), LogError> {
    check_word("key", key)
}

/// Checks that `word` can stand as a key or attribute name in the log.
fn check_word(what: &str, word: &str) -> Result<(), LogError> {
    check_length(what, word)?;
    // HTCondor's reader splits words on ASCII blanks (isspace).
    if word.is_empty() || word.bytes().any(|b| b.is_ascii_whitespace() || b == 0x0b || b == 0) {
        return Err(LogError::Unwritable(format!("{what} `{}` is empty or holds blanks", word.escape_debug())));
    }
    Ok(())
}

/// Checks that `word` is no longer than a key or name of the log may be
/// ([`MAX_WORD`]).
pub(crate) fn check_length(what: &str, word: &str) -> Result<(), LogError> {
    if word.len() > MAX_WORD {
        return Err(LogError::Unwritable(format!(
            "{what} `{}` is {} bytes long; the log's readers take at most {MAX_WORD}",
            shorten(word),
            word.len()
        )));
    }
    Ok(())
}

/// Builds the records of one transaction (or of a compacted log) as text.
///
/// ```
/// use matchmaker::classad_log::Records;
/// let mut records = Records::default();
/// records.new_ad("Customer.bob@site", "*")?;
/// records.set("Customer.bob@site", "Priority", "0.500000")?;
/// assert_eq!(records.as_str(), "101 Customer.bob@site * *\n103 Customer.bob@site Priority 0.500000\n");
/// # Ok::<(), matchmaker::classad_log::LogError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Records {
    text: String,
    count: usize,
}

impl Records {
    /// `101 key MyType TargetType`; the accountant's ads are of type `*`.
    pub fn new_ad(&mut self, key: &str, my_type: &str) -> Result<(), LogError> {
        check_word("key", key)?;
        let my_type = if my_type.is_empty() { "(empty)" } else { my_type };
        check_word("type", my_type)?;
        // HTCondor writes the obsolete target type as `*` for ads of type `*`.
        let target = if my_type == "*" { "*" } else { "(empty)" };
        self.line(format_args!("{} {key} {my_type} {target}", op::NEW_AD));
        Ok(())
    }

    /// `102 key`.
    pub fn destroy(&mut self, key: &str) -> Result<(), LogError> {
        check_word("key", key)?;
        self.line(format_args!("{} {key}", op::DESTROY_AD));
        Ok(())
    }

    /// `103 key name value`; `value` is ClassAd expression text.
    pub fn set(&mut self, key: &str, name: &str, value: &str) -> Result<(), LogError> {
        check_word("key", key)?;
        check_word("attribute name", name)?;
        if value.contains(['\n', '\r', '\0']) {
            return Err(LogError::Unwritable(format!("the value of {name} holds a line break")));
        }
        // What a reader takes: a line of at most MAX_LINE bytes whose value
        // parses.
        let line = 6 + key.len() + name.len() + value.len();
        if line > MAX_LINE {
            return Err(LogError::Unwritable(format!(
                "the record of {name} in {} would be a line of {line} bytes; the log's readers take at most {MAX_LINE}",
                shorten(key)
            )));
        }
        check_value(value).map_err(|e| LogError::Unwritable(format!("{name} in {}: {e}", shorten(key))))?;
        self.text.reserve(key.len() + name.len() + value.len() + 6);
        self.text.push_str("103 ");
        self.text.push_str(key);
        self.text.push(' ');
        self.text.push_str(name);
        self.text.push(' ');
        self.text.push_str(value);
        self.text.push('\n');
        self.count += 1;
        Ok(())
    }

    /// `103 key name value` for a real, written as C's `%f` writes it;
    /// returns the value the record holds (the real rounded to six
    /// decimals, as a reader gets it back).
    pub fn set_real(&mut self, key: &str, name: &str, value: f64) -> Result<f64, LogError> {
        check_word("key", key)?;
        check_word("attribute name", name)?;
        Ok(self.set_real_checked(key, name, value))
    }

    /// [`Records::set_real`] for a key and name already checked with
    /// [`check_key`].
    pub(crate) fn set_real_checked(&mut self, key: &str, name: &str, value: f64) -> f64 {
        use std::fmt::Write as _;
        let value = finite(value);
        self.text.push_str("103 ");
        self.text.push_str(key);
        self.text.push(' ');
        self.text.push_str(name);
        self.text.push(' ');
        let written = match micros(value) {
            Some(n) => {
                // The common case: the digits of value × 10⁶, exact.
                if value.is_sign_negative() {
                    self.text.push('-');
                }
                let (int, frac) = (n.unsigned_abs() / 1_000_000, n.unsigned_abs() % 1_000_000);
                let _ = write!(self.text, "{int}.{frac:06}");
                from_micros(n, value.is_sign_negative())
            }
            None => {
                let start = self.text.len();
                // Writing to a String cannot fail.
                let _ = write!(self.text, "{value:.6}");
                self.text[start..].parse().unwrap_or(value)
            }
        };
        self.text.push('\n');
        self.count += 1;
        written
    }

    /// Makes room for `bytes` more bytes of records.
    pub fn reserve(&mut self, bytes: usize) {
        self.text.reserve(bytes);
    }

    /// `104 key name`.
    pub fn delete(&mut self, key: &str, name: &str) -> Result<(), LogError> {
        check_word("key", key)?;
        check_word("attribute name", name)?;
        self.line(format_args!("{} {key} {name}", op::DELETE_ATTRIBUTE));
        Ok(())
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        // Writing to a String cannot fail.
        let _ = self.text.write_fmt(args);
        self.text.push('\n');
        self.count += 1;
    }

    /// The records as the log holds them.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How many records there are.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Forgets every record.
    pub fn clear(&mut self) {
        self.text.clear();
        self.count = 0;
    }
}

/// The path of the lock file of the log at `log`: `<log>.lock`.
pub fn lock_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// A writer's exclusive lock on a log: `flock(2)` (`LOCK_EX`) on
/// `<log>.lock`, created if missing (and never through a symbolic link),
/// released when this is dropped or the process ends.
///
/// Every writer takes it before reading the log it will write, and keeps
/// it until it is done ([`LogWriter`] holds it): see the [module's
/// documentation](self#concurrent-writers) for why the lock is on a file of
/// its own.
#[derive(Debug)]
pub struct LogLock {
    file: File,
    path: PathBuf,
    log: PathBuf,
}

impl LogLock {
    /// Takes the lock of the log at `log`, waiting up to `timeout` for
    /// another writer to release it; past that, [`LogError::Locked`].
    pub fn acquire(log: &Path, timeout: Duration) -> Result<Self, LogError> {
        let path = lock_path(log);
        let file = open_lock_file(&path).map_err(|source| LogError::Io { path: path.clone(), source })?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(LogLock { file, path, log: log.to_path_buf() }),
                Err(fs::TryLockError::WouldBlock) => {}
                Err(fs::TryLockError::Error(source)) => return Err(LogError::Io { path, source }),
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(LogError::Locked { log: log.to_path_buf(), lock: path, waited });
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The log it locks.
    pub fn log(&self) -> &Path {
        &self.log
    }
}

impl Drop for LogLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; say it explicitly.
        let _ = self.file.unlock();
    }
}

/// Opens (creating it if need be) a lock file, never through a symbolic link.
fn open_lock_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true);
    no_follow(&mut options);
    match options.open(path) {
        // Someone else's lock file that this user may only read: a shared
        // open is enough for flock.
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            let mut options = OpenOptions::new();
            options.read(true);
            no_follow(&mut options);
            options.open(path)
        }
        other => other,
    }
}

#[cfg(unix)]
fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NOFOLLOW);
}

#[cfg(not(unix))]
fn no_follow(_: &mut OpenOptions) {}

/// Appends transactions to a log file and compacts it, holding the log's
/// [`LogLock`] for as long as it lives.
///
/// A transaction is written with one `write` call as `105 `, its records and
/// `106 ` (with the blank HTCondor writes and its reader needs); a durable commit then syncs the file's data to disk before
/// returning, so a committed transaction survives a crash and a transaction
/// cut short by one is ignored by every reader.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: File,
    size: u64,
    header: Header,
    lock: LogLock,
}

impl LogWriter {
    /// Opens the log at `path` for appending, creating it with a header if it
    /// does not exist. `lock` is the log's lock, taken *before* the log was
    /// read; `report` is what [`read_log`] then said of it. When its tail
    /// needs cleaning, `snapshot` (the table's current state as records, see
    /// [`LogWriter::compact`]) is written as a new generation first, and the
    /// old file, which held more than was read of it, is kept aside as
    /// `<log>.corrupt-<n>` (said in `report`'s warnings).
    ///
    /// A file that is not a log ([`LoadReport::not_a_log`]) is refused:
    /// [`LogError::NotALog`], and the file is left as it is.
    pub fn open(
        lock: LogLock,
        path: &Path,
        report: &mut LoadReport,
        now: i64,
        snapshot: impl FnOnce() -> Result<Records, LogError>,
    ) -> Result<Self, LogError> {
        let io_err = |source| LogError::Io { path: path.to_path_buf(), source };
        if let Some(reason) = &report.not_a_log {
            return Err(LogError::NotALog { path: path.to_path_buf(), reason: reason.clone() });
        }
        let exists = fs::symlink_metadata(path).is_ok();
        let header = report.header.unwrap_or(Header { sequence: 1, creation_timestamp: now });
        if exists && !report.needs_compaction {
            let file = OpenOptions::new().append(true).open(path).map_err(io_err)?;
            let size = file.metadata().map_err(io_err)?.len();
            return Ok(Self { path: path.to_path_buf(), file, size, header, lock });
        }
        if !exists {
            // A new log: just the header, as HTCondor starts one.
            let mut file = OpenOptions::new().create_new(true).append(true).open(path).map_err(io_err)?;
            let text = header_line(header);
            file.write_all(text.as_bytes()).map_err(io_err)?;
            file.sync_data().map_err(io_err)?;
            sync_parent(path).map_err(io_err)?;
            return Ok(Self { path: path.to_path_buf(), file, size: text.len() as u64, header, lock });
        }
        // A torn tail: start a new generation from the committed state,
        // keeping the old file aside.
        let records = snapshot()?;
        let aside = keep_aside(path)?;
        report.warnings.push(format!(
            "{}: the part of the log that could not be read is kept in {}",
            path.display(),
            aside.display()
        ));
        let (file, size, header) = write_generation(path, header, &records)?;
        Ok(Self { path: path.to_path_buf(), file, size, header, lock })
    }

    /// Replaces the file at `path` with a log holding only `state` (as
    /// [`LogWriter::compact`] writes one), under `lock`. A file there that
    /// is not a log is refused ([`LogError::NotALog`]); `now` dates the log
    /// when there was none.
    pub fn replace(lock: LogLock, path: &Path, now: i64, state: &Records) -> Result<Self, LogError> {
        struct Ignore;
        impl LogTable for Ignore {
            fn new_ad(&mut self, _: &str, _: &str) {}
            fn destroy_ad(&mut self, _: &str) {}
            fn set_attribute(&mut self, _: &str, _: &str, _: &str) {}
            fn delete_attribute(&mut self, _: &str, _: &str) {}
        }
        let report = match read_log(path, &mut Ignore) {
            Ok(report) => report,
            // A log with a corrupt transaction is still a log.
            Err(LogError::CorruptTransaction { .. }) => LoadReport::default(),
            Err(e) => return Err(e),
        };
        if let Some(reason) = report.not_a_log {
            return Err(LogError::NotALog { path: path.to_path_buf(), reason });
        }
        let old = report.header.unwrap_or(Header { sequence: 0, creation_timestamp: now });
        let (file, size, header) = write_generation(path, old, state)?;
        Ok(Self { path: path.to_path_buf(), file, size, header, lock })
    }

    /// Appends `records` as one transaction. With `durable`, the data is
    /// synced to disk before this returns (HTCondor's accountant syncs admin
    /// edits and priority updates, and leaves match bookkeeping unsynced).
    pub fn commit(&mut self, records: &Records, durable: bool) -> Result<(), LogError> {
        if records.is_empty() {
            return Ok(());
        }
        let mut text = String::with_capacity(records.as_str().len() + 8);
        // HTCondor's reader needs the blank after `105` and `106`: it reads
        // the operation number as a word, then expects the line break.
        text.push_str("105 \n");
        text.push_str(records.as_str());
        text.push_str("106 \n");
        let io_err = |source| LogError::Io { path: self.path.clone(), source };
        self.file.write_all(text.as_bytes()).map_err(io_err)?;
        if durable {
            self.file.sync_data().map_err(io_err)?;
        }
        self.size += text.len() as u64;
        Ok(())
    }

    /// What the log holds past what this writer wrote: records appended by
    /// a process that does not take the lock (HTCondor's own negotiator,
    /// say), to be replayed into the table before it is compacted so that
    /// compacting does not drop them. `None` when there is nothing;
    /// [`LogError::Replaced`] when the file at the path is no longer the
    /// one written to.
    pub fn unseen_tail(&mut self) -> Result<Option<String>, LogError> {
        let io_err = |source| LogError::Io { path: self.path.clone(), source };
        let ours = self.file.metadata().map_err(io_err)?;
        let at_path = fs::metadata(&self.path).map_err(io_err)?;
        if !same_file(&ours, &at_path) {
            return Err(LogError::Replaced(self.path.clone()));
        }
        if ours.len() <= self.size {
            return Ok(None);
        }
        let mut reader = File::open(&self.path).map_err(io_err)?;
        reader.seek(io::SeekFrom::Start(self.size)).map_err(io_err)?;
        let limit = classad::bounded_file::FileLimits::current().max_file;
        if ours.len() - self.size > limit {
            let path = self.path.clone();
            return Err(LogError::File(classad::bounded_file::FileError::TooLarge { path, limit }));
        }
        let mut tail = Vec::new();
        reader.take(limit.saturating_add(1)).read_to_end(&mut tail).map_err(io_err)?;
        self.size += tail.len() as u64;
        Ok(Some(String::from_utf8_lossy(&tail).into_owned()))
    }

    /// Replaces the log with one holding only `state` (every ad's current
    /// attributes, as records): a new generation with the next sequence
    /// number, written to a new file of its own next to the log, synced,
    /// renamed over the log and the directory synced. A crash at any point
    /// leaves either the old log or the new one. Call
    /// [`LogWriter::unseen_tail`] first (the accountant does).
    pub fn compact(&mut self, state: &Records) -> Result<(), LogError> {
        let (file, size, header) = write_generation(&self.path, self.header, state)?;
        self.file = file;
        self.size = size;
        self.header = header;
        Ok(())
    }

    /// The log's size in bytes, as written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The current header (sequence number and creation time).
    pub fn header(&self) -> Header {
        self.header
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock this writer holds.
    pub fn lock(&self) -> &LogLock {
        &self.lock
    }
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
}

/// Keeps the file at `path` under `<path>.corrupt-<n>` (the first `n`
/// free), by a hard link where the file system has them, else a copy; the
/// file stays where it is.
fn keep_aside(path: &Path) -> Result<PathBuf, LogError> {
    for n in 1..10_000 {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".corrupt-{n}"));
        let aside = PathBuf::from(name);
        match fs::hard_link(path, &aside) {
            Ok(()) => return Ok(aside),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => {}
        }
        // No hard links here: copy into a file created for it.
        let io_err = |source| LogError::Io { path: aside.clone(), source };
        let mut out = match OpenOptions::new().write(true).create_new(true).open(&aside) {
            Ok(out) => out,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(io_err(source)),
        };
        let mut input = File::open(path).map_err(|source| LogError::Io { path: path.to_path_buf(), source })?;
        io::copy(&mut input, &mut out).map_err(io_err)?;
        out.sync_all().map_err(io_err)?;
        return Ok(aside);
    }
    Err(LogError::Io { path: path.to_path_buf(), source: io::Error::other("no free <log>.corrupt-<n> name") })
}

/// `|value| × 10⁶` rounded as C's `%.6f` rounds it (to nearest, ties to
/// even, on the exact binary value), when that is below 2⁵³; `None` for
/// larger values. Reading the six decimals back is then one exact division.
/// The value a real reads back as once a record writes it with `%f`
/// (see [`Records::set_real`]): rounded to six decimals, without writing
/// the text.
pub(crate) fn read_back(value: f64) -> f64 {
    let value = finite(value);
    match micros(value) {
        Some(n) => from_micros(n, value.is_sign_negative()),
        None => format!("{value:.6}").parse().unwrap_or(value),
    }
}

/// `value`, or the real `%f` can write in its place when it has none
/// (infinite: the largest of its sign; NaN: 0).
fn finite(value: f64) -> f64 {
    if value.is_finite() {
        value
    } else if value > 0.0 {
        f64::MAX
    } else if value < 0.0 {
        f64::MIN
    } else {
        0.0
    }
}

/// The real `n` millionths (of `|n|`, negative when `negative`), as read back.
fn from_micros(n: i64, negative: bool) -> f64 {
    let back = n.unsigned_abs() as f64 / 1e6;
    if negative {
        -back
    } else {
        back
    }
}

fn micros(value: f64) -> Option<i64> {
    if value.is_nan() || value.abs() >= 9.0e9 {
        return None;
    }
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, power) = if exponent == 0 { (fraction, -1074) } else { (fraction | (1 << 52), exponent - 1075) };
    // |value| = mantissa × 2^power, and power < 0 below 2^34.
    let scaled = u128::from(mantissa) * 1_000_000;
    let shift = (-power) as u32;
    let n = if shift >= 128 {
        0
    } else {
        let quotient = scaled >> shift;
        let remainder = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if remainder > half || (remainder == half && quotient & 1 == 1) {
            quotient + 1
        } else {
            quotient
        }
    };
    i64::try_from(n).ok()
}

fn header_line(header: Header) -> String {
    format!("{} {} CreationTimestamp {}\n", op::HEADER, header.sequence, header.creation_timestamp)
}

/// Writes `state` as the next generation of the log at `path`: into a new
/// file next to it (created exclusively, so never through a symbolic link
/// nor over another writer's file), synced, then renamed over the log.
/// Returns the new log, open for appending.
fn write_generation(path: &Path, old: Header, state: &Records) -> Result<(File, u64, Header), LogError> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let header = Header { sequence: old.sequence + 1, creation_timestamp: old.creation_timestamp };
    let io_err = |p: &Path| {
        let p = p.to_path_buf();
        move |source| LogError::Io { path: p, source }
    };
    let mut text = header_line(header);
    text.push_str(state.as_str());
    let (mut file, tmp) = loop {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".tmp-{}-{n}", std::process::id()));
        let tmp = PathBuf::from(name);
        match OpenOptions::new().append(true).create_new(true).open(&tmp) {
            Ok(file) => break (file, tmp),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(LogError::Io { path: tmp, source }),
        }
    };
    let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
    if let Err(source) = written {
        let _ = fs::remove_file(&tmp);
        return Err(LogError::Io { path: tmp, source });
    }
    if let Err(source) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(LogError::Io { path: path.to_path_buf(), source });
    }
    sync_parent(path).map_err(io_err(path))?;
    // `file` is the new log now: the rename moved its name, not its inode.
    Ok((file, text.len() as u64, header))
}

/// Syncs the directory holding `path`, so that a rename or a creation in it
/// survives a crash.
fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match File::open(parent) {
        Ok(dir) => dir.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Default, Debug, PartialEq)]
    struct Table(BTreeMap<String, BTreeMap<String, String>>);
    impl LogTable for Table {
        fn new_ad(&mut self, key: &str, _: &str) {
            self.0.insert(key.into(), BTreeMap::new());
        }
        fn destroy_ad(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn set_attribute(&mut self, key: &str, name: &str, value: &str) {
            if let Some(ad) = self.0.get_mut(key) {
                ad.insert(name.into(), value.into());
            }
        }
        fn delete_attribute(&mut self, key: &str, name: &str) {
            if let Some(ad) = self.0.get_mut(key) {
                ad.remove(name);
            }
        }
    }

    fn load(text: &str) -> Result<(Table, LoadReport), LogError> {
        let mut t = Table::default();
        let r = read_log_str(text, &mut t)?;
        Ok((t, r))
    }

    const BASE: &str = "107 3 CreationTimestamp 1700000000\n\
        101 Accountant. * *\n\
        103 Accountant. LastUpdateTime 1700000100\n\
        105\n\
        101 Customer.a@x * *\n\
        103 Customer.a@x Priority 10.000000\n\
        103 Customer.a@x Name \"a b\"\n\
        106\n";

    #[test]
    fn replays_records_and_transactions() {
        let (t, r) = load(BASE).expect("loads");
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(!r.needs_compaction);
        assert_eq!(r.header, Some(Header { sequence: 3, creation_timestamp: 1_700_000_000 }));
        assert_eq!(t.0["Accountant."]["LastUpdateTime"], "1700000100");
        assert_eq!(t.0["Customer.a@x"]["Name"], "\"a b\"");
    }

    #[test]
    fn uncommitted_transaction_is_ignored() {
        let text = format!("{BASE}105\n103 Customer.a@x Priority 99.0\n");
        let (t, r) = load(&text).expect("loads");
        assert_eq!(t.0["Customer.a@x"]["Priority"], "10.000000");
        assert!(r.needs_compaction);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].contains(":9:"), "{}", r.warnings[0]);
    }

    #[test]
    fn torn_tail_at_every_byte_keeps_every_committed_record() {
        let full = format!("{BASE}105\n102 Customer.a@x\n106\n");
        for cut in 0..=full.len() {
            let (t, _) = load(&full[..cut]).expect("a torn tail is never an error");
            let committed_all = full[..cut].ends_with("102 Customer.a@x\n106\n");
            let committed_base = cut >= BASE.len();
            if committed_all {
                assert!(!t.0.contains_key("Customer.a@x"), "cut {cut}");
            } else if committed_base {
                assert_eq!(t.0["Customer.a@x"]["Priority"], "10.000000", "cut {cut}");
            } else {
                assert!(!t.0.contains_key("Customer.a@x"), "cut {cut}: uncommitted ad seen");
            }
        }
    }

    #[test]
    fn garbage_tail_is_ignored_but_corruption_inside_a_commit_is_an_error() {
        let (t, r) = load(&format!("{BASE}\u{1}\u{2}garbage\n")).expect("garbage tail");
        assert_eq!(t.0.len(), 2);
        assert!(r.needs_compaction);
        let bad = format!("{BASE}105\n103 Customer.a@x Priority (((\n106\n");
        match load(&bad) {
            Err(LogError::CorruptTransaction { line, .. }) => assert_eq!(line, 10),
            other => panic!("expected a corrupt transaction, got {other:?}"),
        }
    }

    #[test]
    fn reals_are_written_as_printf_writes_them() {
        let mut values =
            vec![0.0, -0.0, 0.0078125, 0.0234375, 1.0000005, -1e-9, 2.872445, 7413.451, 8.9e9, 9.1e9, 1e300, 5e-324];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let magnitude = 10f64.powi((x % 16) as i32 - 7);
            values.push((x >> 11) as f64 / (1u64 << 53) as f64 * magnitude * if x & 1 == 1 { -1.0 } else { 1.0 });
        }
        for v in values {
            let mut r = Records::default();
            let back = r.set_real("K", "X", v).expect("writes");
            let expected = format!("{v:.6}");
            assert_eq!(r.as_str(), format!("103 K X {expected}\n"), "{v:e}");
            let parsed: f64 = expected.parse().expect("number");
            assert_eq!(back.to_bits(), parsed.to_bits(), "{v:e}");
            // Read back without writing: the same value.
            assert_eq!(read_back(v).to_bits(), parsed.to_bits(), "{v:e}");
        }
        for v in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            let back = Records::default().set_real("K", "X", v).expect("writes");
            assert_eq!(read_back(v).to_bits(), back.to_bits(), "{v}");
        }
    }

    #[test]
    fn records_refuse_what_the_format_cannot_hold() {
        let mut r = Records::default();
        assert!(r.set("Customer.a b", "Priority", "1").is_err());
        assert!(r.set("Customer.a", "Prio rity", "1").is_err());
        assert!(r.set("Customer.a", "Priority", "1\n2").is_err());
        assert!(r.is_empty());
    }

    #[test]
    fn end_with_comment_and_plain_numbers() {
        let (t, _) = load("105\n101 K * *\n103 K X -1.500000\n106#note\n").expect("loads");
        assert_eq!(t.0["K"]["X"], "-1.500000");
        // As HTCondor writes them: a blank after the operation number.
        let (t, r) = load("105 \n101 K * *\n103 K X 2\n106 #note\n105 \n102 K\n106 \n").expect("loads");
        assert!(t.0.is_empty() && r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(is_plain_number("12") && is_plain_number("-0.5") && !is_plain_number("1.") && !is_plain_number("-"));
    }
}
