//! Streams of new-syntax ads: `[ ... ]` records one after another (one per
//! line, or spread over lines), or a `{ [ ... ], [ ... ] }` list of them as
//! `condor_status -long:new` writes.

use std::io::BufRead;

use super::{FormatError, FormatErrorKind, Next, Reader, State};
use crate::lexer::Syntax;

/// Where the framing scanner is inside a record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    Code,
    /// After a `/` in code.
    Slash,
    Str,
    StrEscape,
    Name,
    NameEscape,
    LineComment,
    BlockComment,
    BlockCommentStar,
}

/// The byte-by-byte scanner that finds the `]` closing a record: it knows
/// strings, quoted names and comments, where brackets do not count.
struct Framer {
    scan: Scan,
    depth: usize,
}

impl Framer {
    /// Takes the next byte; false after the closing `]`.
    fn step(&mut self, b: u8) -> bool {
        self.scan = match (self.scan, b) {
            (Scan::Slash, b'/') => Scan::LineComment,
            (Scan::Slash, b'*') => Scan::BlockComment,
            (Scan::Code | Scan::Slash, b'[') => {
                self.depth += 1;
                Scan::Code
            }
            (Scan::Code | Scan::Slash, b']') => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    return false;
                }
                Scan::Code
            }
            (Scan::Code | Scan::Slash, b'"') => Scan::Str,
            (Scan::Code | Scan::Slash, b'\'') => Scan::Name,
            (Scan::Code, b'/') => Scan::Slash,
            (Scan::Code | Scan::Slash, _) => Scan::Code,
            (Scan::Str, b'\\') => Scan::StrEscape,
            (Scan::Str, b'"') => Scan::Code,
            (Scan::StrEscape, _) => Scan::Str,
            (Scan::Name, b'\\') => Scan::NameEscape,
            (Scan::Name, b'\'') => Scan::Code,
            (Scan::NameEscape, _) => Scan::Name,
            (Scan::LineComment, b'\n') => Scan::Code,
            (Scan::BlockComment | Scan::BlockCommentStar, b'*') => Scan::BlockCommentStar,
            (Scan::BlockCommentStar, b'/') => Scan::Code,
            (Scan::BlockCommentStar, _) => Scan::BlockComment,
            (scan, _) => scan,
        };
        true
    }
}

/// Reads the next ad of a new-syntax stream.
pub(super) fn next_ad<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    let mut next = reader.source.skip_space_and_comments()?;
    match reader.state {
        State::Start => {
            if next == Some(b'{') {
                reader.source.consume(1);
                reader.state = State::List { first: true };
                next = reader.source.skip_space_and_comments()?;
            } else {
                reader.state = State::Ads;
            }
        }
        State::List { first } => {
            if next == Some(b',') && !first {
                reader.source.consume(1);
                next = reader.source.skip_space_and_comments()?;
            } else if next != Some(b'}') && !first {
                let message = "expected `,` or `}` after an ad";
                return Ok(if next.is_none() { bad_end(reader, message) } else { bad(reader, message) });
            }
        }
        State::Ads | State::Done => {}
    }
    if let State::List { .. } = reader.state {
        if next == Some(b'}') {
            reader.source.consume(1);
            return Ok(match reader.source.skip_space_and_comments()? {
                None => Next::End,
                Some(_) => bad(reader, "unexpected text after the list of ads"),
            });
        }
    }
    match next {
        None if matches!(reader.state, State::List { .. }) => {
            Ok(bad_end(reader, "the input ended inside a list of ads"))
        }
        None => Ok(Next::End),
        Some(b'[') => read_record(reader),
        Some(_) => Ok(bad(reader, "expected `[` to start an ad")),
    }
}

/// An error that ends the stream (the framing is lost).
fn bad<R: BufRead>(reader: &Reader<R>, message: &str) -> Next {
    let column = reader.source.column();
    Next::Bad { error: reader.error_here(column, FormatErrorKind::Malformed, message), recoverable: false }
}

/// An error that ends the stream because the input ended inside a list
/// of ads.
fn bad_end<R: BufRead>(reader: &Reader<R>, message: &str) -> Next {
    let column = reader.source.column();
    Next::Bad { error: reader.error_here(column, FormatErrorKind::Truncated, message), recoverable: false }
}

/// Reads and parses the record starting at the current `[`.
fn read_record<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    if let State::List { .. } = reader.state {
        reader.state = State::List { first: false };
    }
    let (line, column) = (reader.source.line(), reader.source.column());
    reader.buf.clear();
    let mut framer = Framer { scan: Scan::Code, depth: 0 };
    if let Some(bad) = reader.read_ad_frame(line, column, |b| framer.step(b))? {
        return Ok(bad);
    }
    let text = match reader.ad_text(line, column) {
        Ok(text) => text,
        Err(bad) => return Ok(bad),
    };
    Ok(match reader.parser(Syntax::New).parse_ad(text) {
        Ok(ad) => Next::Ad(ad),
        Err(e) => Next::Bad { error: FormatError::from_parse(reader.count + 1, line, column, &e), recoverable: true },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Option<usize> {
        let mut framer = Framer { scan: Scan::Code, depth: 0 };
        text.bytes().position(|b| !framer.step(b)).map(|at| at + 1)
    }

    #[test]
    fn records_end_at_their_bracket() {
        assert_eq!(frame("[ a = 1 ] [ b = 2 ]"), Some(9));
        assert_eq!(frame("[ a = x[1]; b = [ c = 2 ] ]x"), Some(27));
        assert_eq!(frame(r#"[ a = "]\"]"; 'b]' = 1 ]"#), Some(24));
        assert_eq!(frame("[ a = 1 // ]\n /* ] */ ]"), Some(23));
        assert_eq!(frame("[ a = 1 / 2 ]"), Some(13));
        assert_eq!(frame("[ a = 1"), None);
    }
}
