//! User maps for `userMap()` and home directories for `userHome()`.
//!
//! HTCondor's `userMap(mapName, input)` function looks `input` up in a
//! named map that the running program loaded from its configuration
//! (`CLASSAD_USER_MAPFILE_<name>` or `CLASSAD_USER_MAPDATA_<name>`). Here
//! the embedding program fills the same kind of process-wide registry
//! itself: parse a map with [`MapFile::parse`] or [`MapFile::load`] and
//! [`register`] it under a name. Names are case-insensitive (ASCII), as in
//! HTCondor. The registry is shared by all threads; evaluation takes a
//! read lock just long enough to find the map.
//!
//! ```
//! use classad::usermap::{self, MapFile};
//! use classad::{Expr, Value};
//!
//! let map = MapFile::parse(
//!     "# user        accounting groups\n\
//!      * alice       physics,cms\n\
//!      * /^(.*)@lab$/ lab_\\1\n",
//! )?;
//! usermap::register("groups", map);
//!
//! let e: Expr = r#"userMap("Groups", "alice")"#.parse()?;
//! assert_eq!(e.eval(), Value::from("physics,cms"));
//! let e: Expr = r#"userMap("groups", "alice", "CMS")"#.parse()?;
//! assert_eq!(e.eval(), Value::from("cms"));
//! let e: Expr = r#"userMap("groups", "bob@lab")"#.parse()?;
//! assert_eq!(e.eval(), Value::from("lab_bob"));
//! let e: Expr = r#"userMap("groups", "carol", "cms", "guests")"#.parse()?;
//! assert_eq!(e.eval(), Value::from("guests"));
//!
//! usermap::remove("groups");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The map file format
//!
//! HTCondor's "classad map file" (the same format as its security
//! `CERTIFICATE_MAPFILE`, read by `MapFile.cpp`). Each line is
//! `METHOD KEY VALUE`, fields separated by spaces or tabs:
//!
//! * METHOD is normally `*`; `userMap("name.method", input)` looks in
//!   the lines of another method (compared case-insensitively), and
//!   `userMap("name", input)` is `userMap("name.*", input)`.
//! * KEY is a literal string, matched exactly (case-sensitively) against
//!   the whole input, or a regular expression between slashes,
//!   `/^(.*)@example\.org$/`, optionally followed (without a space) by `i`
//!   (ignore case) and `U` (swap greedy and lazy repetition). A regular
//!   expression is searched anywhere in the input: anchor it with `^` and
//!   `$` to match the whole input. Inside slashes `\/` is a slash and `\\`
//!   a single backslash; other backslash escapes pass to the pattern.
//! * VALUE is what the input maps to; `userMap` treats it as a comma
//!   separated list of items. In it `\0` is the whole matched text and
//!   `\1`..`\9` the regular expression's groups (a group that did not take
//!   part is empty; a number past the last group that matched, or past the
//!   groups of a literal key, stays as written).
//! * Any field can be quoted with double quotes to hold spaces; `\"` is a
//!   quote and `\\` a backslash inside them. An unterminated quote runs to
//!   the end of the line. Text after the value is ignored.
//! * Lines whose METHOD starts with `#` are comments; blank lines are
//!   ignored. Lines are matched in file order: the first line whose key
//!   matches wins.
//! * `@include PATH` reads another map file (or every file of a
//!   directory, in name order, skipping names that start with `.` or `#`
//!   or end with `~`, `.pl`, `.py`, `.sh`, `.rpmsave`, `.rpmnew`,
//!   `.dpkg-old`, `.dpkg-dist` or `.cfsaved`), only one level deep. A
//!   relative path is relative to the including file's directory.
//!
//! With [`MapOptions::prefix`] (HTCondor's `CLASSAD_USER_MAP_PREFIX_<name>`)
//! keys are never regular expressions but prefixes: a line matches an
//! input that starts with its key; among consecutive such lines the
//! longest matching key wins.
//!
//! HTCondor logs and skips a line it cannot use (a missing field, a bad
//! regular expression, a failed `@include`). [`MapFile::parse`] reports it
//! as an error with its line and column instead;
//! [`MapOptions::lenient`] skips such lines as HTCondor does and keeps
//! the errors in [`MapFile::skipped`].
//!
//! Regular expressions are the [`regex`] crate's (linear time, compiled
//! size bounded), not PCRE: back-references and look-around are not
//! available, `.` and classes match whole Unicode characters, and `$`
//! matches only at the very end. See `docs/divergences.md`
//! (`usermap-regex`).
//!
//! # Home directories
//!
//! `userHome(user)` asks [`home_dir`], which by default reads the passwd
//! database file `/etc/passwd` on Unix (other sources of the system's user
//! database, such as LDAP, are not consulted) and knows no users
//! elsewhere. [`set_home_lookup`] replaces the lookup, for example with a
//! fixed table in tests or with `|_| None` to turn `userHome` off (then it
//! gives its default, like HTCondor with `CLASSAD_ENABLE_USER_HOME =
//! false`).
//!
//! ```
//! use classad::usermap;
//! let passwd = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n";
//! assert_eq!(usermap::passwd_home(passwd, "alice"), Some("/home/alice"));
//! assert_eq!(usermap::passwd_home(passwd, "bob"), None);
//! ```

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;
use regex::{Regex, RegexBuilder};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The compiled size allowed for one key's regular expression.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A parsed map file: for each method, its lines in order.
///
/// ```
/// use classad::usermap::MapFile;
/// let map = MapFile::parse("* alice physics\nkerberos /^(.*)@REALM$/ \\1\n")?;
/// assert_eq!(map.lookup("*", "alice").as_deref(), Some("physics"));
/// assert_eq!(map.lookup("KERBEROS", "bob@REALM").as_deref(), Some("bob"));
/// assert_eq!(map.lookup("*", "bob"), None);
/// # Ok::<(), classad::usermap::MapFileError>(())
/// ```
#[derive(Debug, Default)]
pub struct MapFile {
    methods: Vec<Method>,
    lines: usize,
    skipped: Vec<MapFileError>,
}

#[derive(Debug)]
struct Method {
    name: String,
    entries: Vec<Entry>,
}

/// A run of lines of one kind, as HTCondor groups them: consecutive
/// literal keys share one hash table.
#[derive(Debug)]
enum Entry {
    /// Literal keys; the first line with a key wins.
    Literal(FxHashMap<String, String>),
    /// Prefix keys in file order; the longest matching key wins.
    Prefix(Vec<(String, String)>),
    /// One regular-expression key.
    Regex(Regex, String),
}

/// How to read a map file.
///
/// ```
/// use classad::usermap::{MapFile, MapOptions};
/// let options = MapOptions { prefix: true, ..MapOptions::default() };
/// let map = MapFile::parse_with("* /data/cms cms\n* /data cms_other\n", &options)?;
/// assert_eq!(map.lookup("*", "/data/cms/run1").as_deref(), Some("cms"));
/// assert_eq!(map.lookup("*", "/data/atlas").as_deref(), Some("cms_other"));
/// # Ok::<(), classad::usermap::MapFileError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct MapOptions {
    /// Keys are prefixes, never regular expressions
    /// (`CLASSAD_USER_MAP_PREFIX_<name>`).
    pub prefix: bool,
    /// Skip the lines HTCondor would skip (keeping their errors in
    /// [`MapFile::skipped`]) instead of failing.
    pub lenient: bool,
    /// For [`MapFile::parse_with`]: the directory that relative `@include`
    /// paths start from. Without it, text given as a string may not use
    /// `@include`. [`MapFile::load`] uses the file's own directory.
    pub include_dir: Option<PathBuf>,
}

/// An error reading a map file.
#[derive(Debug, thiserror::Error)]
pub enum MapFileError {
    /// A file (the map or one it includes) could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A file is larger than the [`FileLimits`](crate::bounded_file::FileLimits)
    /// of the process, has too long a line or is not UTF-8.
    #[error(transparent)]
    File(#[from] crate::bounded_file::FileError),
    /// A line that cannot be used.
    #[error("{}line {line}, column {column}: {problem}", origin_prefix(.origin))]
    Line {
        /// The file the line is in (`None` for text given as a string).
        origin: Option<PathBuf>,
        /// The line number, from 1.
        line: usize,
        /// The character column the problem starts at, from 1.
        column: usize,
        /// What is wrong.
        problem: MapProblem,
    },
}

fn origin_prefix(origin: &Option<PathBuf>) -> String {
    match origin {
        Some(path) => format!("{}: ", path.display()),
        None => String::new(),
    }
}

/// What is wrong with a map file line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapProblem {
    /// The line has a method but no key.
    #[error("missing key")]
    MissingKey,
    /// The line has a method and a key but no value.
    #[error("missing value")]
    MissingValue,
    /// The key's regular expression does not compile.
    #[error("invalid regular expression: {0}")]
    BadRegex(String),
    /// `@include` with no path.
    #[error("@include without a path")]
    EmptyInclude,
    /// `@include` in an included file, or in text without an include
    /// directory.
    #[error("@include is not allowed here")]
    IncludeNotAllowed,
}

/// Where the lines being parsed come from.
struct Source<'p> {
    path: Option<&'p Path>,
    /// Where relative `@include` paths start; `None` forbids `@include`.
    include_dir: Option<&'p Path>,
}

impl MapFile {
    /// An empty map (it maps nothing).
    pub fn new() -> MapFile {
        MapFile::default()
    }

    /// Parses map-file text; the first unusable line is an error. `@include`
    /// is not allowed (see [`MapFile::parse_with`]).
    ///
    /// ```
    /// use classad::usermap::{MapFile, MapProblem, MapFileError};
    /// let err = MapFile::parse("* alice physics\n* bob\n").unwrap_err();
    /// assert!(matches!(err, MapFileError::Line { line: 2, column: 6, problem: MapProblem::MissingValue, .. }));
    /// assert_eq!(err.to_string(), "line 2, column 6: missing value");
    /// ```
    pub fn parse(text: &str) -> Result<MapFile, MapFileError> {
        MapFile::parse_with(text, &MapOptions::default())
    }

    /// Parses map-file text with options.
    pub fn parse_with(text: &str, options: &MapOptions) -> Result<MapFile, MapFileError> {
        let mut map = MapFile::new();
        let source = Source { path: None, include_dir: options.include_dir.as_deref() };
        map.read_text(text, &source, options)?;
        Ok(map)
    }

    /// Reads a map file; `@include` paths are relative to its directory.
    ///
    /// ```no_run
    /// use classad::usermap::{self, MapFile};
    /// usermap::register("groups", MapFile::load("/etc/condor/groups.map")?);
    /// # Ok::<(), classad::usermap::MapFileError>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<MapFile, MapFileError> {
        MapFile::load_with(path, &MapOptions::default())
    }

    /// Reads a map file with options ([`MapOptions::include_dir`] is not
    /// used: includes are relative to the file's directory).
    pub fn load_with(path: impl AsRef<Path>, options: &MapOptions) -> Result<MapFile, MapFileError> {
        let path = path.as_ref();
        let text = read_file(path)?;
        let mut map = MapFile::new();
        let dir = path.parent().unwrap_or(Path::new(""));
        map.read_text(&text, &Source { path: Some(path), include_dir: Some(dir) }, options)?;
        Ok(map)
    }

    /// The lines skipped by a lenient parse, with what was wrong.
    pub fn skipped(&self) -> &[MapFileError] {
        &self.skipped
    }

    /// The number of mapping lines kept.
    pub fn len(&self) -> usize {
        self.lines
    }

    /// Whether the map has no mapping lines.
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Maps `input` with the lines of `method` (`"*"` for userMap's
    /// default; compared ignoring ASCII case): the value of the first line
    /// whose key matches, with `\0`..`\9` substituted. `None` when no line
    /// matches.
    pub fn lookup(&self, method: &str, input: &str) -> Option<String> {
        let method = self.methods.iter().find(|m| m.name.eq_ignore_ascii_case(method))?;
        for entry in &method.entries {
            match entry {
                Entry::Literal(keys) => {
                    if let Some((key, value)) = keys.get_key_value(input) {
                        return Some(substitute(value, &[key]));
                    }
                }
                Entry::Prefix(keys) => {
                    let mut best: Option<&(String, String)> = None;
                    for pair in keys {
                        if input.starts_with(pair.0.as_str()) && best.is_none_or(|b| pair.0.len() > b.0.len()) {
                            best = Some(pair);
                        }
                    }
                    if let Some((key, value)) = best {
                        return Some(substitute(value, &[key]));
                    }
                }
                Entry::Regex(regex, value) => {
                    if let Some(caps) = regex.captures(input) {
                        // Like PCRE: the groups up to the last one that took
                        // part; a group before it that did not is empty.
                        let count = (0..caps.len()).rev().find(|&i| caps.get(i).is_some()).map_or(0, |i| i + 1);
                        let groups: SmallVec<[&str; 10]> =
                            (0..count).map(|i| caps.get(i).map_or("", |m| m.as_str())).collect();
                        return Some(substitute(value, &groups));
                    }
                }
            }
        }
        None
    }

    fn read_text(&mut self, text: &str, source: &Source<'_>, options: &MapOptions) -> Result<(), MapFileError> {
        for (index, line) in text.split_inclusive('\n').enumerate() {
            if let Err(err) = self.read_line(line, index + 1, source, options) {
                if !options.lenient {
                    return Err(err);
                }
                self.skipped.push(err);
            }
        }
        Ok(())
    }

    fn read_line(
        &mut self,
        line: &str,
        number: usize,
        source: &Source<'_>,
        options: &MapOptions,
    ) -> Result<(), MapFileError> {
        let chars: Vec<char> = line.chars().collect();
        // A missing field is reported at the end of the line's text.
        let end = chars.len() - usize::from(chars.last() == Some(&'\n'));
        let error = |column: usize, problem: MapProblem| MapFileError::Line {
            origin: source.path.map(Path::to_path_buf),
            line: number,
            column: column.min(end) + 1,
            problem,
        };
        let (method, at) = parse_field(&chars, 0, false);
        if method.text == "@include" {
            let Some(dir) = source.include_dir else {
                return Err(error(method.start, MapProblem::IncludeNotAllowed));
            };
            let (path, _) = parse_field(&chars, at, false);
            if path.text.is_empty() {
                return Err(error(path.start, MapProblem::EmptyInclude));
            }
            return self.include(&dir.join(&path.text), options);
        }
        if method.text.is_empty() || method.text.starts_with('#') {
            return Ok(());
        }
        let (key, at) = parse_field(&chars, at, !options.prefix);
        let (value, _) = parse_field(&chars, at, false);
        if key.text.is_empty() {
            return Err(error(key.start, MapProblem::MissingKey));
        }
        if value.text.is_empty() {
            return Err(error(value.start, MapProblem::MissingValue));
        }
        let entry = match key.regex {
            Some(flags) => {
                let regex = RegexBuilder::new(&key.text)
                    .case_insensitive(flags.ignore_case)
                    .swap_greed(flags.ungreedy)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| error(key.start, MapProblem::BadRegex(e.to_string())))?;
                Some(Entry::Regex(regex, value.text))
            }
            None => {
                let entries = self.method_entries(&method.text);
                match (entries.last_mut(), options.prefix) {
                    (Some(Entry::Literal(keys)), false) => {
                        keys.entry(key.text).or_insert(value.text);
                        None
                    }
                    (Some(Entry::Prefix(keys)), true) => {
                        keys.push((key.text, value.text));
                        None
                    }
                    (_, false) => Some(Entry::Literal(FxHashMap::from_iter([(key.text, value.text)]))),
                    (_, true) => Some(Entry::Prefix(vec![(key.text, value.text)])),
                }
            }
        };
        if let Some(entry) = entry {
            self.method_entries(&method.text).push(entry);
        }
        self.lines += 1;
        Ok(())
    }

    /// The entries of `method`, created empty when new.
    fn method_entries(&mut self, method: &str) -> &mut Vec<Entry> {
        let index = match self.methods.iter().position(|m| m.name.eq_ignore_ascii_case(method)) {
            Some(index) => index,
            None => {
                self.methods.push(Method { name: method.to_string(), entries: Vec::new() });
                self.methods.len() - 1
            }
        };
        &mut self.methods[index].entries
    }

    /// Reads an included file, or each file of an included directory; they
    /// may not include further.
    fn include(&mut self, path: &Path, options: &MapOptions) -> Result<(), MapFileError> {
        let io_error = |source| MapFileError::Io { path: path.to_path_buf(), source };
        let files = if path.is_dir() {
            let mut files = Vec::new();
            for entry in fs::read_dir(path).map_err(io_error)? {
                let entry = entry.map_err(io_error)?;
                let name = entry.file_name();
                let is_dir = entry.file_type().map_err(io_error)?.is_dir();
                if !is_dir && !excluded_from_directory(&name.to_string_lossy()) {
                    files.push(entry.path());
                }
            }
            files.sort();
            files
        } else {
            vec![path.to_path_buf()]
        };
        for file in files {
            let text = read_file(&file)?;
            self.read_text(&text, &Source { path: Some(&file), include_dir: None }, options)?;
        }
        Ok(())
    }
}

fn read_file(path: &Path) -> Result<String, MapFileError> {
    use crate::bounded_file::FileError;
    crate::bounded_file::read_to_string(path).map_err(|e| match e {
        FileError::Io { path, source } => MapFileError::Io { path, source },
        other => MapFileError::File(other),
    })
}

/// HTCondor's default `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`, which also
/// filters the files of an included directory.
fn excluded_from_directory(name: &str) -> bool {
    const SUFFIXES: [&str; 9] =
        ["~", ".pl", ".py", ".sh", ".rpmsave", ".rpmnew", ".dpkg-old", ".dpkg-dist", ".cfsaved"];
    name.starts_with('.') || name.starts_with('#') || SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// The options after a `/regex/` key.
#[derive(Clone, Copy, Debug, Default)]
struct RegexFlags {
    ignore_case: bool,
    ungreedy: bool,
}

/// One field of a line.
struct Field {
    text: String,
    /// The character index where the field starts (after blanks).
    start: usize,
    /// Set when the field was a `/regex/`.
    regex: Option<RegexFlags>,
}

/// Reads the field starting at or after `at` (HTCondor's
/// `MapFile::ParseField`); returns it and where the next one may start.
fn parse_field(line: &[char], mut at: usize, allow_regex: bool) -> (Field, usize) {
    while at < line.len() && matches!(line[at], ' ' | '\t' | '\n') {
        at += 1;
    }
    let start = at;
    let mut text = String::new();
    let mut regex = None;
    let close = match line.get(at) {
        Some('"') => Some('"'),
        Some('/') if allow_regex => {
            regex = Some(RegexFlags::default());
            Some('/')
        }
        _ => None,
    };
    let Some(close) = close else {
        while at < line.len() && !matches!(line[at], ' ' | '\t' | '\n') {
            text.push(line[at]);
            at += 1;
        }
        return (Field { text, start, regex }, at);
    };
    at += 1;
    while at < line.len() {
        let c = line[at];
        at += 1;
        if c == close {
            if let Some(flags) = &mut regex {
                while let Some(option) = line.get(at) {
                    match option {
                        'i' => flags.ignore_case = true,
                        'U' => flags.ungreedy = true,
                        _ => break,
                    }
                    at += 1;
                }
            }
            break;
        }
        if c == '\\' {
            // A backslash ending the line is dropped.
            let Some(&next) = line.get(at) else { break };
            at += 1;
            if next != close && next != '\\' {
                text.push('\\');
            }
            text.push(next);
        } else {
            text.push(c);
        }
    }
    (Field { text, start, regex }, at)
}

/// The value with `\N` replaced by group N when there is one (HTCondor's
/// `MapFile::PerformSubstitution`).
fn substitute(value: &str, groups: &[&str]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(d @ '0'..='9') => match groups.get(d as usize - '0' as usize) {
                Some(group) => out.push_str(group),
                None => {
                    out.push('\\');
                    out.push(d);
                }
            },
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            // HTCondor reads past the end of the value here; a final
            // backslash stays.
            None => out.push('\\'),
        }
    }
    out
}

/// The maps registered by name, in registration order.
static MAPS: RwLock<Vec<(String, Arc<MapFile>)>> = RwLock::new(Vec::new());

/// Registers `map` under `name` (case-insensitive), replacing and
/// returning any map registered under that name before.
///
/// `userMap("name.method", ...)` splits its first argument at the first
/// `.`, so a name containing a dot cannot be reached from `userMap`.
///
/// ```
/// use classad::usermap::{self, MapFile};
/// assert!(usermap::register("cms_users", MapFile::parse("* alice cms")?).is_none());
/// assert_eq!(usermap::lookup("CMS_users", "alice").as_deref(), Some("cms"));
/// assert!(usermap::remove("cms_users").is_some());
/// assert_eq!(usermap::lookup("cms_users", "alice"), None);
/// # Ok::<(), classad::usermap::MapFileError>(())
/// ```
pub fn register(name: &str, map: impl Into<Arc<MapFile>>) -> Option<Arc<MapFile>> {
    let map = map.into();
    let mut maps = MAPS.write();
    match maps.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        Some(slot) => Some(std::mem::replace(&mut slot.1, map)),
        None => {
            maps.push((name.to_string(), map));
            None
        }
    }
}

/// Removes the map registered under `name` and returns it.
pub fn remove(name: &str) -> Option<Arc<MapFile>> {
    let mut maps = MAPS.write();
    let index = maps.iter().position(|(n, _)| n.eq_ignore_ascii_case(name))?;
    Some(maps.remove(index).1)
}

/// Removes every registered map.
pub fn clear() {
    MAPS.write().clear();
}

/// The map registered under `name`.
pub fn get(name: &str) -> Option<Arc<MapFile>> {
    MAPS.read().iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, map)| Arc::clone(map))
}

/// The names of the registered maps, in registration order.
pub fn names() -> Vec<String> {
    MAPS.read().iter().map(|(name, _)| name.clone()).collect()
}

/// What `userMap(name, input)` looks up: `name` is a registered map's
/// name, optionally followed by `.method` (else the method is `*`).
/// `None` when there is no such map or no line matches.
pub fn lookup(name: &str, input: &str) -> Option<String> {
    let (name, method) = name.split_once('.').unwrap_or((name, "*"));
    get(name)?.lookup(method, input)
}

/// A home-directory lookup: the user's home directory, or `None` when
/// the user is unknown.
pub type HomeLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The lookup `userHome` uses; `None` is the default (the system passwd
/// file).
static HOME_LOOKUP: RwLock<Option<Arc<HomeLookup>>> = RwLock::new(None);

/// Replaces the lookup behind `userHome` (and [`home_dir`]).
///
/// ```
/// use classad::{usermap, Expr, Value};
/// usermap::set_home_lookup(|user| (user == "alice").then(|| "/home/alice".to_string()));
/// let e: Expr = r#"userHome("alice")"#.parse().unwrap();
/// assert_eq!(e.eval(), Value::from("/home/alice"));
/// let e: Expr = r#"userHome("bob", "/tmp")"#.parse().unwrap();
/// assert_eq!(e.eval(), Value::from("/tmp"));
/// usermap::reset_home_lookup();
/// ```
pub fn set_home_lookup(lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) {
    *HOME_LOOKUP.write() = Some(Arc::new(lookup));
}

/// Goes back to the default lookup: the system passwd file on Unix, no
/// users elsewhere.
pub fn reset_home_lookup() {
    *HOME_LOOKUP.write() = None;
}

/// The home directory of `user`, from the lookup in force.
pub fn home_dir(user: &str) -> Option<String> {
    let custom = HOME_LOOKUP.read().clone();
    match custom {
        Some(lookup) => lookup(user),
        None => system_home_dir(user),
    }
}

#[cfg(unix)]
fn system_home_dir(user: &str) -> Option<String> {
    let text = fs::read_to_string("/etc/passwd").ok()?;
    passwd_home(&text, user).map(str::to_string)
}

#[cfg(not(unix))]
fn system_home_dir(_user: &str) -> Option<String> {
    None
}

/// The home directory of `user` in the text of a passwd file (lines
/// `name:password:uid:gid:gecos:home:shell`; blank lines, comments and
/// lines without numeric ids are skipped; the first line for a name
/// wins).
pub fn passwd_home<'t>(passwd: &'t str, user: &str) -> Option<&'t str> {
    if user.is_empty() {
        return None;
    }
    passwd.lines().find_map(|line| {
        let line = line.trim_start_matches([' ', '\t']);
        if line.starts_with('#') {
            return None;
        }
        let mut fields = line.split(':');
        let name = fields.next()?;
        if name != user {
            return None;
        }
        let _password = fields.next()?;
        let numeric = |f: &str| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit());
        if !numeric(fields.next()?) || !numeric(fields.next()?) {
            return None;
        }
        let _gecos = fields.next()?;
        fields.next()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> MapFile {
        MapFile::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn fields_quotes_and_escapes() {
        let m = map(
            "* \"quoted key\" \"quoted value\"\n* \"q\\\"k\" \"v\\\"w\\\\x\\y\"\n* unq\"x y\"z v\n\t*  tabbed   tv  extra words\n",
        );
        assert_eq!(m.lookup("*", "quoted key").as_deref(), Some("quoted value"));
        assert_eq!(m.lookup("*", "q\"k").as_deref(), Some("v\"w\\x\\y"));
        assert_eq!(m.lookup("*", "unq\"x").as_deref(), Some("y\"z"));
        assert_eq!(m.lookup("*", "tabbed").as_deref(), Some("tv"));
        assert_eq!(m.len(), 4);
    }

    #[test]
    fn first_line_wins_and_methods_ignore_case() {
        let m = map("* dup first\n* dup second\nKRB k1 kval\nkrb k2 k2val\n# * c x\n\n");
        assert_eq!(m.lookup("*", "dup").as_deref(), Some("first"));
        assert_eq!(m.lookup("krb", "k1").as_deref(), Some("kval"));
        assert_eq!(m.lookup("Krb", "k2").as_deref(), Some("k2val"));
        assert_eq!(m.lookup("*", "k1"), None);
        assert_eq!(m.lookup("*", "#"), None);
    }

    #[test]
    fn regex_keys_and_groups() {
        let m =
            map("* /^c(.*)$/ got\\1|\\0|\\2\n* /^D(x)?(y)$/i d[\\1][\\2][\\3]\n* /^u(.)+$/U [\\1]\n* lit \\0-\\1\n");
        assert_eq!(m.lookup("*", "carl").as_deref(), Some("gotarl|carl|\\2"));
        assert_eq!(m.lookup("*", "DY").as_deref(), Some("d[][Y][\\3]"));
        assert_eq!(m.lookup("*", "dxy").as_deref(), Some("d[x][y][\\3]"));
        assert_eq!(m.lookup("*", "uvwx").as_deref(), Some("[x]"));
        assert_eq!(m.lookup("*", "lit").as_deref(), Some("lit-\\1"));
        assert_eq!(m.lookup("*", "zzdy"), None);
    }

    #[test]
    fn regex_escapes_in_slashes() {
        let m = map("* /^a\\/b\\\\\\\\c\\.d$/ ok\n");
        // In the file: /^a\/b\\\\c\.d$/, the pattern ^a/b\\c\.d$.
        assert_eq!(m.lookup("*", "a/b\\c.d").as_deref(), Some("ok"));
    }

    #[test]
    fn trailing_backslash_is_kept_in_values() {
        let m = map("* a val\\\n");
        assert_eq!(m.lookup("*", "a").as_deref(), Some("val\\"));
    }

    #[test]
    fn errors_have_line_and_column() {
        let err = MapFile::parse("* a b\n* /a(/ bad\n").unwrap_err();
        match err {
            MapFileError::Line { line: 2, column: 3, problem: MapProblem::BadRegex(_), origin: None } => {}
            other => panic!("{other:?}"),
        }
        let err = MapFile::parse("  *\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1, column 4: missing key");
        let err = MapFile::parse("@include other.map\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1, column 1: @include is not allowed here");
    }

    #[test]
    fn lenient_skips_like_htcondor() {
        let options = MapOptions { lenient: true, ..MapOptions::default() };
        let m = MapFile::parse_with("* novalue\n* /a(/ bad\n* ok yes\n", &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.skipped().len(), 2);
        assert_eq!(m.lookup("*", "ok").as_deref(), Some("yes"));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn prefix_keys_longest_first() {
        let options = MapOptions { prefix: true, ..MapOptions::default() };
        let m = MapFile::parse_with("* /a/ x\n* /a/b y\n* /c/ \\0!\n", &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.lookup("*", "/a/bc").as_deref(), Some("y"));
        assert_eq!(m.lookup("*", "/a/c").as_deref(), Some("x"));
        assert_eq!(m.lookup("*", "/c/d").as_deref(), Some("/c/!"));
        assert_eq!(m.lookup("*", "/b"), None);
    }

    #[test]
    fn accounting_group_example() {
        // The map of "Setting Accounting Group automatically per user".
        let m = map("* Alice     group_physics\n* Bob       group_atlas\n* Carol group_physics\n* /^student_.*/     group_students\n");
        assert_eq!(m.lookup("*", "Bob").as_deref(), Some("group_atlas"));
        assert_eq!(m.lookup("*", "student_42").as_deref(), Some("group_students"));
        assert_eq!(m.lookup("*", "alice"), None);
    }

    #[test]
    fn passwd_parsing() {
        let text = "# comment\n\nroot:x:0:0:root:/root:/bin/bash\nbad:x:z:0::/bad:/bin/sh\n  alice:x:1:1::/home/alice\nalice:x:2:2::/other:/bin/sh\nempty:x:3:3:::/bin/sh\n";
        assert_eq!(passwd_home(text, "root"), Some("/root"));
        assert_eq!(passwd_home(text, "alice"), Some("/home/alice"));
        assert_eq!(passwd_home(text, "empty"), Some(""));
        assert_eq!(passwd_home(text, "bad"), None);
        assert_eq!(passwd_home(text, "ROOT"), None);
        assert_eq!(passwd_home(text, ""), None);
        assert_eq!(passwd_home(text, "root:x"), None);
    }
}
