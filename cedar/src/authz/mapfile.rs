//! The unified map file (`CERTIFICATE_MAPFILE`): `METHOD principal
//! canonical` lines that turn an authenticated name into a canonical user.
//!
//! Format, as `MapFile::ParseCanonicalization` (`src/condor_utils/MapFile.cpp`
//! 353–557) reads it:
//!
//! * one rule per line: a method (`FS`, `CLAIMTOBE`, `IDTOKENS`, `SSL`, …,
//!   matched without case), a principal, a canonical name; fields are
//!   separated by spaces or tabs;
//! * a field may be quoted with `"…"` to hold spaces; inside quotes `\"`
//!   is a quote, `\\` a backslash, any other `\x` stays `\x`; an
//!   unterminated quote runs to the end of the line;
//! * a line whose method starts with `#` is a comment; blank lines and
//!   lines with a missing field are skipped (HTCondor logs and skips them);
//! * `@include path` reads a file (or every file of a directory, in name
//!   order, skipping names that end in `~` or start with `.`), relative to
//!   the including file; included files may not include further;
//! * by default (`CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS = false`) **every
//!   principal is a regular expression**, unanchored and case-sensitive —
//!   a leading `/` is just a character of the regex. With
//!   `assume_hash_keys`, a principal written `/regex/` (optionally followed
//!   by `i` for caseless, `U` for ungreedy) is a regex and anything else is
//!   an exact, case-sensitive literal;
//! * the first rule of the method that matches wins; in the canonical name
//!   `\0`…`\9` are the match groups (`\0` the whole match, or the literal
//!   for a literal key); a group the match does not have leaves `\N` as is.
//!
//! **Regex dialect.** HTCondor compiles principals with PCRE2; this crate
//! uses the `regex` crate. The common syntax (classes, `\d \w \s`,
//! anchors, groups, alternation, `{m,n}`, `(?i)`, non-greedy `*?`) is the
//! same. Not supported here: back-references (`\1` inside the pattern),
//! look-around (`(?=` `(?!` `(?<=` `(?<!`), possessive quantifiers and
//! atomic groups, `\Q…\E`, recursion. A rule using them fails to compile
//! and is skipped, as HTCondor skips a rule PCRE2 rejects. `\w`, `\d` and
//! `.` are Unicode-aware here (PCRE2 without UTF works on bytes); for
//! ASCII names the two agree. An optional group that did not take part in
//! the match substitutes as the empty string (undefined in HTCondor).

use std::path::{Path, PathBuf};

use regex::{Regex, RegexBuilder};

use crate::error::Result;
use crate::{Error, ErrorKind};

/// The largest map file (including everything it includes), in bytes.
pub const MAX_MAPFILE_BYTES: usize = 4 * 1024 * 1024;
/// The most lines in a map file (including everything it includes).
pub const MAX_MAPFILE_LINES: usize = 100_000;
/// The longest line, in bytes.
pub const MAX_MAPFILE_LINE_LEN: usize = 16 * 1024;
/// The most files one `@include` of a directory reads.
pub const MAX_INCLUDED_FILES: usize = 256;
/// The compiled size limit of one principal regex, in bytes.
pub const MAX_REGEX_SIZE: usize = 256 * 1024;
/// The longest canonical name a substitution may produce, in bytes.
pub const MAX_CANONICAL_LEN: usize = 4096;

/// How principals are read.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct MapFileOptions {
    /// `CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS`: principals are literals
    /// unless written `/regex/`.
    pub assume_hash_keys: bool,
}

impl MapFileOptions {
    /// Options with `CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS` set to `on`.
    pub fn with_assume_hash_keys(mut self, on: bool) -> Self {
        self.assume_hash_keys = on;
        self
    }
}

#[derive(Debug, Clone)]
enum Principal {
    Literal(String),
    Regex(Regex),
}

#[derive(Debug, Clone)]
struct Rule {
    method: String,
    principal: Principal,
    canonical: String,
}

/// A parsed map file.
///
/// ```
/// use cedar::authz::{MapFile, MapFileOptions};
/// let map = MapFile::parse(r#"
/// # comment
/// CLAIMTOBE ^(.*)@pool\.example$ \1@pool.example
/// FS (.*) \1@fs.example
/// IDTOKENS "^admin (x)$" "root@pool.example"
/// "#, &MapFileOptions::default()).unwrap();
/// assert_eq!(map.canonicalize("fs", "alice").as_deref(), Some("alice@fs.example"));
/// assert_eq!(map.canonicalize("CLAIMTOBE", "bob@pool.example").as_deref(), Some("bob@pool.example"));
/// assert_eq!(map.canonicalize("CLAIMTOBE", "bob"), None);
/// assert_eq!(map.len(), 3);
/// ```
#[derive(Debug, Clone, Default)]
pub struct MapFile {
    rules: Vec<Rule>,
    skipped: Vec<(usize, String)>,
}

impl MapFile {
    /// Parses map-file text. `@include` lines are skipped (and reported in
    /// [`skipped`](Self::skipped)); use [`load`](Self::load) for files.
    pub fn parse(text: &str, opts: &MapFileOptions) -> Result<MapFile> {
        let mut map = MapFile::default();
        let mut budget = Budget::default();
        map.parse_into(text, None, opts, &mut budget)?;
        Ok(map)
    }

    /// Reads and parses the map file at `path`, following `@include`.
    pub fn load(path: &Path, opts: &MapFileOptions) -> Result<MapFile> {
        let mut map = MapFile::default();
        let mut budget = Budget::default();
        let text = read_bounded(path, &mut budget)?;
        map.parse_into(&text, Some(path), opts, &mut budget)?;
        Ok(map)
    }

    /// The number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Lines that were skipped, with the line number (1-based, in the file
    /// that held them) and why.
    pub fn skipped(&self) -> &[(usize, String)] {
        &self.skipped
    }

    /// Maps `name`, authenticated by `method`, to its canonical name:
    /// `None` if no rule of that method matches.
    pub fn canonicalize(&self, method: &str, name: &str) -> Option<String> {
        for rule in self.rules.iter().filter(|r| r.method.eq_ignore_ascii_case(method)) {
            match &rule.principal {
                Principal::Literal(lit) => {
                    if lit == name {
                        return Some(substitute(&rule.canonical, &[Some(lit.as_str())]));
                    }
                }
                Principal::Regex(re) => {
                    // HTCondor passes PCRE2_NOTEMPTY as a marker only and
                    // strips it before compiling, so empty matches count.
                    if let Some(caps) = re.captures(name) {
                        let mut groups: Vec<Option<&str>> = caps.iter().map(|m| m.map(|m| m.as_str())).collect();
                        // PCRE2 reports groups up to the last one that took
                        // part in the match; later ones stay `\N` literally.
                        while groups.len() > 1 && groups.last().is_some_and(Option::is_none) {
                            groups.pop();
                        }
                        return Some(substitute(&rule.canonical, &groups));
                    }
                }
            }
        }
        None
    }

    fn parse_into(
        &mut self,
        text: &str,
        path: Option<&Path>,
        opts: &MapFileOptions,
        budget: &mut Budget,
    ) -> Result<()> {
        let allow_include = budget.depth == 0;
        for (idx, line) in text.lines().enumerate() {
            let lineno = idx + 1;
            budget.lines += 1;
            if budget.lines > MAX_MAPFILE_LINES {
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("map file of more than {MAX_MAPFILE_LINES} lines"),
                ));
            }
            if line.len() > MAX_MAPFILE_LINE_LEN {
                self.skipped.push((lineno, format!("line of {} bytes (limit {MAX_MAPFILE_LINE_LEN})", line.len())));
                continue;
            }
            let (method, rest) = parse_field(line, false);
            if method.text == "@include" {
                let (target, _) = parse_field(rest, false);
                if !allow_include || path.is_none() {
                    self.skipped.push((lineno, "@include not allowed here".into()));
                    continue;
                }
                if target.is_empty() {
                    self.skipped.push((lineno, "empty @include file name".into()));
                    continue;
                }
                let base = path.and_then(Path::parent).unwrap_or(Path::new(""));
                let target = PathBuf::from(&target.text);
                let target = if target.is_absolute() { target } else { base.join(target) };
                self.include(&target, opts, budget, lineno)?;
                continue;
            }
            if method.is_empty() || method.starts_with('#') {
                continue;
            }
            let (principal, rest) = parse_field(rest, opts.assume_hash_keys);
            let (canonical, _) = parse_field(rest, false);
            if principal.text.is_empty() || canonical.is_empty() {
                self.skipped.push((lineno, "missing principal or canonical name".into()));
                continue;
            }
            let principal = if !opts.assume_hash_keys || principal.regex {
                match RegexBuilder::new(&principal.text)
                    .case_insensitive(principal.caseless)
                    .swap_greed(principal.ungreedy)
                    .size_limit(MAX_REGEX_SIZE)
                    .build()
                {
                    Ok(re) => Principal::Regex(re),
                    Err(e) => {
                        self.skipped.push((lineno, format!("bad regular expression: {e}")));
                        continue;
                    }
                }
            } else {
                Principal::Literal(principal.text)
            };
            self.rules.push(Rule { method: method.to_string(), principal, canonical: canonical.to_string() });
        }
        Ok(())
    }

    fn include(&mut self, target: &Path, opts: &MapFileOptions, budget: &mut Budget, lineno: usize) -> Result<()> {
        let files = if target.is_dir() {
            let mut names: Vec<PathBuf> = match std::fs::read_dir(target) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .filter(|p| {
                        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| !n.starts_with('.') && !n.ends_with('~'))
                    })
                    .take(MAX_INCLUDED_FILES + 1)
                    .collect(),
                Err(e) => {
                    self.skipped.push((lineno, format!("cannot include {}: {e}", target.display())));
                    return Ok(());
                }
            };
            if names.len() > MAX_INCLUDED_FILES {
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("@include of a directory of more than {MAX_INCLUDED_FILES} files"),
                ));
            }
            names.sort();
            names
        } else {
            vec![target.to_path_buf()]
        };
        for f in files {
            match read_bounded(&f, budget) {
                Ok(text) => {
                    let text: String = text;
                    budget.depth += 1;
                    let r = self.parse_into(&text, Some(&f), opts, budget);
                    budget.depth -= 1;
                    r?;
                }
                Err(e) if e.kind() == ErrorKind::LimitExceeded => return Err(e),
                Err(e) => self.skipped.push((lineno, format!("cannot include {}: {e}", f.display()))),
            }
        }
        Ok(())
    }
}

#[derive(Default)]
struct Budget {
    bytes: usize,
    lines: usize,
    depth: usize,
}

fn read_bounded(path: &Path, budget: &mut Budget) -> Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let room = MAX_MAPFILE_BYTES.saturating_sub(budget.bytes);
    let mut buf = Vec::new();
    file.take(u64::try_from(room).unwrap_or(u64::MAX).saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() > room {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("map file over {MAX_MAPFILE_BYTES} bytes")));
    }
    budget.bytes += buf.len();
    // HTCondor reads bytes; names that are not UTF-8 cannot match a rule
    // here, so invalid sequences are replaced rather than rejected.
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Field {
    text: String,
    regex: bool,
    caseless: bool,
    ungreedy: bool,
}

impl std::ops::Deref for Field {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// `MapFile::ParseField`: skips leading blanks, then reads a quoted field
/// (or, when `regex_slash`, a `/regex/` field with `i`/`U` flags) or a bare
/// word. Returns the field and the rest of the line.
fn parse_field(line: &str, regex_slash: bool) -> (Field, &str) {
    let s = line.trim_start_matches([' ', '\t', '\n']);
    let mut field = Field::default();
    let bytes = s.as_bytes();
    let end_char = match bytes.first() {
        Some(b'"') => Some('"'),
        Some(b'/') if regex_slash => Some('/'),
        _ => None,
    };
    let Some(end_char) = end_char else {
        let end = s.find([' ', '\t', '\n']).unwrap_or(s.len());
        field.text = s[..end].to_string();
        return (field, &s[end..]);
    };
    field.regex = end_char == '/';
    let mut chars = s[1..].char_indices();
    let mut rest_at = s.len();
    while let Some((i, c)) = chars.next() {
        if c == end_char {
            let mut after = 1 + i + 1;
            if field.regex {
                for f in s[after..].chars() {
                    match f {
                        'i' => field.caseless = true,
                        'U' => field.ungreedy = true,
                        _ => break,
                    }
                    after += 1;
                }
            }
            rest_at = after;
            break;
        }
        if c == '\\' {
            match chars.next() {
                Some((_, n)) if n == end_char => field.text.push(n),
                Some((_, '\\')) => field.text.push('\\'),
                Some((_, n)) => {
                    field.text.push('\\');
                    field.text.push(n);
                }
                // A trailing backslash is kept, as HTCondor keeps it.
                None => field.text.push('\\'),
            }
            continue;
        }
        field.text.push(c);
    }
    (field, &s[rest_at.min(s.len())..])
}

/// `MapFile::PerformSubstitution`: `\N` becomes group N if the match has
/// it; otherwise the backslash and the character stay.
fn substitute(pattern: &str, groups: &[Option<&str>]) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if out.len() > MAX_CANONICAL_LEN {
            break;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(d @ '0'..='9') => {
                let idx = usize::from(d as u8 - b'0');
                match groups.get(idx) {
                    Some(g) => out.push_str(g.unwrap_or("")),
                    None => {
                        out.push('\\');
                        out.push(d);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => {}
        }
    }
    out.truncate(floor_char_boundary(&out, MAX_CANONICAL_LEN));
    out
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_quoting() {
        let (f, rest) = parse_field(r#"  "a \"b\" \\ \x" tail"#, false);
        assert_eq!(f.text, r#"a "b" \ \x"#);
        assert_eq!(rest, " tail");
        let (f, rest) = parse_field("/ab c/iU x", true);
        assert_eq!((f.text.as_str(), f.regex, f.caseless, f.ungreedy), ("ab c", true, true, true));
        assert_eq!(rest, " x");
        // Without regex_slash a leading '/' is an ordinary character.
        let (f, _) = parse_field("/ab/ x", false);
        assert_eq!(f.text, "/ab/");
        // An unterminated quote runs to the end of the line.
        let (f, rest) = parse_field("\"abc def", false);
        assert_eq!((f.text.as_str(), rest), ("abc def", ""));
    }

    #[test]
    fn substitution() {
        assert_eq!(substitute(r"\1@\2 \0 \7 \x \\", &[Some("all"), Some("u"), Some("d")]), r"u@d all \7 \x \\");
        assert_eq!(substitute(r"a\", &[]), "a");
    }
}
