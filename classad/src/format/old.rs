//! The old ("long") format: one `Name = value` per line, values in old
//! ClassAd syntax, ads separated by blank lines.
//!
//! Reading follows HTCondor: the name is everything before the first `=`
//! (trimmed), the value the rest of the line; lines starting with `#` are
//! comments, and so are lines holding only `//` and `/* */` comments (a
//! `/* */` comment may span lines); a blank line, or a banner line starting
//! with `***` (as in `condor_history` output), ends an ad. Writing follows
//! libclassad's
//! `printOld`: old-syntax values (`=?=`, reals as `%.16G`, strings escaping
//! only `"`), names quoted when they are not identifiers.

use std::borrow::Cow;
use std::io::BufRead;

use super::{FormatError, FormatErrorKind, Next, Reader};
use crate::ad::ClassAd;
use crate::expr::Expr;
use crate::name::{Name, Recent};
use crate::parser::{Memo, Parser, Syntax};
use crate::print;

/// What a line of the old format is.
#[derive(Debug, PartialEq, Eq)]
enum Kind<'l> {
    /// Blank, or a `***` banner: the end of an ad.
    Separator,
    /// `# ...`, or only `//` and `/* */` comments (or the inside of one).
    Comment,
    /// `Name = value`: the name's text and the value's byte offset.
    Attribute(&'l str, usize),
    /// A line with no `=`.
    NoAssignment,
}

/// What `line` is; `in_comment` says whether a `/* */` comment is open at
/// its start, and is left saying whether one is open at its end.
fn classify<'l>(line: &'l str, in_comment: &mut bool) -> Kind<'l> {
    let bytes = line.as_bytes();
    let Some(first) = skip_comments(bytes, in_comment) else {
        return Kind::Comment;
    };
    let Some(first) = bytes[first..].iter().position(|b| !b.is_ascii_whitespace()).map(|at| first + at) else {
        return Kind::Separator;
    };
    match bytes[first] {
        b'#' => return Kind::Comment,
        b'*' if bytes[first..].starts_with(b"***") => return Kind::Separator,
        _ => {}
    }
    match memchr::memchr(b'=', &bytes[first..]) {
        Some(eq) => Kind::Attribute(line[first..first + eq].trim_end(), first + eq + 1),
        None => Kind::NoAssignment,
    }
}

/// Where the text of `line` starts after the comments that begin it (the
/// rest of an open `/* */` comment, then any `/* */` comments); `None`
/// when the line holds nothing but comments. A line with no comment at all
/// gives `Some(0)`, so that blank lines stay blank.
fn skip_comments(line: &[u8], in_comment: &mut bool) -> Option<usize> {
    let mut at = 0;
    let mut seen = false;
    loop {
        if *in_comment {
            seen = true;
            let end = memchr::memmem::find(&line[at..], b"*/")?;
            *in_comment = false;
            at += end + 2;
        }
        let start = at + line[at..].iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(line.len() - at);
        let rest = &line[start..];
        if rest.starts_with(b"//") {
            return None;
        }
        if rest.starts_with(b"/*") {
            *in_comment = true;
            at = start + 2;
            continue;
        }
        return match (seen, rest.is_empty()) {
            (true, true) => None,
            (true, false) => Some(start),
            (false, _) => Some(0),
        };
    }
}

/// An attribute name as written before the `=`: a quoted name (as
/// libclassad writes names that are not identifiers) is unquoted.
fn attribute_name(text: &str) -> Cow<'_, str> {
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) if !inner.is_empty() => Cow::Owned(crate::lexer::unescape_old(inner, b'\'')),
        _ => Cow::Borrowed(text),
    }
}

/// Reads the next ad of an old-format stream.
pub(super) fn next_ad<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    let mut ad = AdInProgress {
        parser: reader.parser(Syntax::Old),
        index: reader.count + 1,
        limit: reader.limits.max_ad_bytes,
        attributes: std::mem::take(&mut reader.attributes),
        names: Recent::take(),
        memo: Memo::take(),
        started: false,
        in_comment: false,
        bytes: 0,
        error: None,
    };
    ad.attributes.clear();
    loop {
        let line_number = reader.source.line();
        match reader.source.with_line(&mut reader.buf, ad.limit, |line| ad.line(line, line_number))? {
            None | Some(Some(true)) => break,
            Some(Some(false)) => {}
            Some(None) => {
                ad.started = true;
                ad.error.get_or_insert_with(|| reader.too_large(line_number));
            }
        }
    }
    let next = match (ad.started, ad.error) {
        (false, _) => Next::End,
        (true, Some(error)) => Next::Bad { error, recoverable: true },
        (true, None) => Next::Ad(ClassAd::from_attributes(ad.attributes.drain(..))),
    };
    reader.attributes = ad.attributes;
    Recent::give_back(ad.names);
    Memo::give_back(ad.memo);
    Ok(next)
}

/// An ad being read, line by line.
struct AdInProgress {
    parser: Parser,
    /// The ad's position in the input, for errors.
    index: usize,
    limit: usize,
    attributes: Vec<(Name, Expr)>,
    /// This thread's name cache, held while the ad is read.
    names: Recent,
    /// This thread's memo of attribute values, held while the ad is read.
    memo: Memo,
    /// True once a line of the ad has been seen.
    started: bool,
    /// True inside a `/* */` comment that spans lines.
    in_comment: bool,
    bytes: usize,
    /// The first error; the rest of the ad is skipped.
    error: Option<FormatError>,
}

impl AdInProgress {
    /// Takes one line; true when it ended the ad.
    fn line(&mut self, line: &[u8], number: usize) -> bool {
        let line = match std::str::from_utf8(line) {
            Ok(line) => line,
            Err(e) => {
                self.started = true;
                let column = e.valid_up_to() + 1;
                let index = self.index;
                self.error.get_or_insert_with(|| {
                    FormatError::new(index, number, column, FormatErrorKind::InvalidUtf8, "invalid UTF-8")
                });
                return false;
            }
        };
        let (name, value_at) = match classify(line, &mut self.in_comment) {
            Kind::Separator => return self.started,
            Kind::Comment => return false,
            Kind::NoAssignment => ("", usize::MAX),
            Kind::Attribute(name, value_at) => (name, value_at),
        };
        self.started = true;
        self.bytes += line.len() + 1;
        if self.bytes > self.limit && self.error.is_none() {
            let message = format!("ad larger than the limit of {} bytes", self.limit);
            self.error = Some(FormatError::new(self.index, number, 0, FormatErrorKind::TooLarge, message));
        }
        if self.error.is_some() {
            return false;
        }
        match attribute(&self.parser, &mut self.names, &mut self.memo, line, name, value_at) {
            Ok(attribute) => self.attributes.push(attribute),
            Err((offset, kind, message)) => {
                let column = line[..offset.min(line.len())].chars().count() + 1;
                self.error = Some(FormatError::new(self.index, number, column, kind, message));
            }
        }
        false
    }
}

/// The attribute of a line that [`classify`] found to be `name = value`
/// (a `value_at` of `usize::MAX` means it had no `=`).
fn attribute(
    parser: &Parser,
    names: &mut Recent,
    memo: &mut Memo,
    line: &str,
    name: &str,
    value_at: usize,
) -> Result<(Name, Expr), (usize, FormatErrorKind, String)> {
    if value_at == usize::MAX {
        return Err((0, FormatErrorKind::Malformed, "expected `Name = value`".to_string()));
    }
    if name.is_empty() {
        return Err((0, FormatErrorKind::Malformed, "no attribute name before `=`".to_string()));
    }
    let name = names.try_name(&attribute_name(name)).map_err(|e| (0, FormatErrorKind::TooManyNames, e.to_string()))?;
    let value = parser
        .parse_value_cached(&line[value_at..], name, names, memo)
        .map_err(|e| (value_at + e.offset, FormatErrorKind::Parse(e.kind()), e.message))?;
    Ok((name, value))
}

/// Appends `ad` in the old format: a line per attribute, then a blank line.
pub(crate) fn write_ad(out: &mut String, ad: &ClassAd) {
    for (name, value) in ad.iter() {
        // Writing to a String cannot fail.
        let _ = print::write_name(out, name, Syntax::Old);
        out.push_str(" = ");
        let _ = print::write_expr(out, value, Syntax::Old, 0);
        out.push('\n');
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_kinds() {
        let kind = |line| classify(line, &mut false);
        assert_eq!(kind(""), Kind::Separator);
        assert_eq!(kind("   \t"), Kind::Separator);
        assert_eq!(kind("*** Offset = 0 ClusterId = 1"), Kind::Separator);
        assert_eq!(kind("  # comment = 1"), Kind::Comment);
        assert_eq!(kind("  Cpus = 8"), Kind::Attribute("Cpus", 8));
        assert_eq!(kind("A==1"), Kind::Attribute("A", 2));
        assert_eq!(kind("no assignment"), Kind::NoAssignment);
        assert_eq!(kind("// A = 1"), Kind::Comment);
        assert_eq!(kind("  /* A = 1 */  "), Kind::Comment);
        assert_eq!(kind("/* c */ Cpus = 8 // d"), Kind::Attribute("Cpus", 14));
    }

    #[test]
    fn comments_spanning_lines() {
        let mut open = false;
        assert_eq!(classify("A = 1", &mut open), Kind::Attribute("A", 3));
        assert_eq!(classify("/* a comment", &mut open), Kind::Comment);
        assert!(open);
        // A blank line inside a comment does not end the ad.
        assert_eq!(classify("", &mut open), Kind::Comment);
        assert_eq!(classify("B = 2", &mut open), Kind::Comment);
        assert_eq!(classify("that ends */ C = 3", &mut open), Kind::Attribute("C", 16));
        assert!(!open);
        assert_eq!(classify("", &mut open), Kind::Separator);
    }

    #[test]
    fn names_as_written() {
        assert_eq!(attribute_name("Cpus"), "Cpus");
        assert_eq!(attribute_name("'A B'"), "A B");
        assert_eq!(attribute_name(r"'it\'s'"), "it's");
        assert_eq!(attribute_name("[A]"), "[A]");
        assert_eq!(attribute_name("''"), "''");
    }
}
