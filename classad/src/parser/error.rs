//! What a failed parse reports: where, what was expected, and what kind
//! of mistake it is.

use std::ops::Range;

use crate::lexer::LexErrorKind;

/// A parse failure, with the 1-based line and column of the offending
/// token, what the parser expected there, and what kind of mistake it is
/// ([`kind`](ParseError::kind), [`span`](ParseError::span)).
///
/// ```
/// use classad::ParseErrorKind;
/// let err = classad::parse_expr("1 +\n (2 * ]").unwrap_err();
/// assert_eq!((err.line, err.column), (2, 7));
/// assert!(err.to_string().starts_with("line 2, column 7: unexpected `]`"));
/// assert_eq!(err.kind(), ParseErrorKind::UnexpectedToken);
/// assert_eq!(err.span(), 10..11);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column (in characters) of the error.
    pub column: usize,
    /// Byte offset of the error in the input.
    pub offset: usize,
    /// What went wrong, including what was expected.
    pub message: String,
    /// The tokens that would have been accepted at that point.
    pub expected: Vec<String>,
    /// What kind of mistake it is.
    kind: ParseErrorKind,
    /// Byte offset just past the offending token (`offset` at a point).
    end: usize,
}

/// What kind of mistake a [`ParseError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A token the grammar does not allow where it stands (`1 + ]`).
    UnexpectedToken,
    /// The input ended before the expression or ad did (`(1 + 2`).
    UnexpectedEnd,
    /// A token after a complete expression or ad.
    TrailingToken,
    /// Text that is no token.
    InvalidToken,
    /// A token that could not be read: an unterminated string, a bad
    /// escape, an integer out of range, ...
    Lex(LexErrorKind),
    /// An expression nested deeper than
    /// [`ParseLimits::max_depth`](crate::ParseLimits::max_depth).
    TooDeep,
    /// An `absTime("...")` or `relTime("...")` literal whose text is not a
    /// time.
    BadTime,
    /// Separators without any attribute (`[;]`).
    EmptyAd,
    /// An empty attribute name.
    EmptyName,
    /// A new name while the process-wide table of names is at its
    /// [`NameLimits`](crate::NameLimits).
    TooManyNames,
    /// An input larger than
    /// [`ParseLimits::max_input`](crate::ParseLimits::max_input).
    TooLarge,
    /// Parsing an ad, a text that does not start one.
    NotAnAd,
}

impl ParseError {
    /// An error at a point of `source` (no token to span).
    pub(crate) fn at(source: &str, offset: usize, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError::spanning(source, offset..offset, kind, message.into(), Vec::new())
    }

    /// An error about the bytes `span` of `source`.
    pub(crate) fn spanning(
        source: &str,
        span: Range<usize>,
        kind: ParseErrorKind,
        message: String,
        expected: Vec<String>,
    ) -> ParseError {
        let (line, column) = line_column(source, span.start);
        ParseError { line, column, offset: span.start, message, expected, kind, end: span.end.max(span.start) }
    }

    /// What kind of mistake it is.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The bytes of the input the error is about: the offending token, or
    /// an empty range at [`offset`](ParseError::offset) for an error at a
    /// point (the end of the input, a limit).
    pub fn span(&self) -> Range<usize> {
        self.offset..self.end
    }
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}
