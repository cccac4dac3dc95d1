//! The old ("long") format: one `Name = value` per line, values in old
//! ClassAd syntax, ads separated by blank lines.
//!
//! Reading follows HTCondor: the name is everything before the first `=`
//! (trimmed), the value the rest of the line; lines starting with `#` are
//! comments; a blank line, or a banner line starting with `***` (as in
//! `condor_history` output), ends an ad. Writing follows libclassad's
//! `printOld`: old-syntax values (`=?=`, reals as `%.16G`, strings escaping
//! only `"`), names quoted when they are not identifiers.

use std::borrow::Cow;
use std::io::BufRead;

use super::source::Line;
use super::{FormatError, Next, Reader};
use crate::ad::ClassAd;
use crate::expr::Expr;
use crate::name::Name;
use crate::parser::{Parser, Syntax};
use crate::print;

/// What a line of the old format is.
#[derive(Debug, PartialEq, Eq)]
enum Kind<'l> {
    /// Blank, or a `***` banner: the end of an ad.
    Separator,
    /// `# ...`
    Comment,
    /// `Name = value`: the name's text and the value's byte offset.
    Attribute(&'l str, usize),
    /// A line with no `=`.
    NoAssignment,
}

fn classify(line: &str) -> Kind<'_> {
    let trimmed = line.trim_start();
    if trimmed.trim_end().is_empty() || trimmed.starts_with("***") {
        return Kind::Separator;
    }
    if trimmed.starts_with('#') {
        return Kind::Comment;
    }
    match memchr::memchr(b'=', line.as_bytes()) {
        Some(eq) => Kind::Attribute(line[..eq].trim(), eq + 1),
        None => Kind::NoAssignment,
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

/// Parses one attribute line; the error is a byte offset in the line and
/// a message.
pub(crate) fn parse_line(parser: &Parser, line: &str) -> Result<Option<(Name, Expr)>, (usize, String)> {
    match classify(line) {
        Kind::Separator | Kind::Comment => Ok(None),
        Kind::NoAssignment => Err((0, "expected `Name = value`".to_string())),
        Kind::Attribute("", _) => Err((0, "no attribute name before `=`".to_string())),
        Kind::Attribute(name, value_at) => {
            let value = parser.parse_expr(&line[value_at..]).map_err(|e| (value_at + e.offset, e.message))?;
            Ok(Some((Name::new(&attribute_name(name)), value)))
        }
    }
}

/// Reads the next ad of an old-format stream.
pub(super) fn next_ad<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    let parser = reader.parser(Syntax::Old);
    let limit = reader.limits.max_ad_bytes;
    let mut attributes = Vec::new();
    let mut started = false;
    let mut bytes = 0;
    let mut error: Option<FormatError> = None;
    loop {
        let line_number = reader.source.line();
        match reader.source.read_line(&mut reader.buf, limit)? {
            Line::End => break,
            Line::TooLong => {
                started = true;
                error.get_or_insert_with(|| reader.too_large(line_number));
                continue;
            }
            Line::Read => {}
        }
        let line = match std::str::from_utf8(&reader.buf) {
            Ok(line) => line,
            Err(e) => {
                started = true;
                let column = e.valid_up_to() + 1;
                error.get_or_insert_with(|| FormatError::new(reader.count + 1, line_number, column, "invalid UTF-8"));
                continue;
            }
        };
        if classify(line) == Kind::Separator {
            if started {
                break;
            }
            continue;
        }
        if classify(line) == Kind::Comment {
            continue;
        }
        started = true;
        bytes += line.len() + 1;
        if bytes > limit {
            error.get_or_insert_with(|| reader.too_large(line_number));
        }
        if error.is_some() {
            continue;
        }
        match parse_line(&parser, line) {
            Ok(Some(attribute)) => attributes.push(attribute),
            Ok(None) => {}
            Err((offset, message)) => {
                let column = line[..offset.min(line.len())].chars().count() + 1;
                error = Some(FormatError::new(reader.count + 1, line_number, column, message));
            }
        }
    }
    Ok(match (started, error) {
        (false, _) => Next::End,
        (true, Some(error)) => Next::Bad { error, recoverable: true },
        (true, None) => Next::Ad(ClassAd::from_attributes(attributes)),
    })
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
        assert_eq!(classify(""), Kind::Separator);
        assert_eq!(classify("   \t"), Kind::Separator);
        assert_eq!(classify("*** Offset = 0 ClusterId = 1"), Kind::Separator);
        assert_eq!(classify("  # comment = 1"), Kind::Comment);
        assert_eq!(classify("  Cpus = 8"), Kind::Attribute("Cpus", 8));
        assert_eq!(classify("A==1"), Kind::Attribute("A", 2));
        assert_eq!(classify("no assignment"), Kind::NoAssignment);
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
