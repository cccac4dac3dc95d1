//! The tokenizer for new ClassAd syntax.
//!
//! `RawToken` is the logos state machine. [`Lexer`] wraps it to do the two
//! things a regular grammar cannot: a `-` directly in front of a number lexes
//! as part of the literal when no operand precedes it (`-5` is a literal,
//! `3 -2` a subtraction), and numbers are converted with overflow checks.

use std::borrow::Cow;

use logos::Logos;

/// The syntax of a ClassAd text.
///
/// The two differ only in how a few tokens are written: in `Old` syntax (the
/// `Name = value` lines of `condor_status -l`), a backslash in a string is an
/// ordinary character except before a quote that does not end the line
/// (`"a\"b"` is `a"b`, `"C:\dir\"` ends in a backslash), adjacent strings
/// are not joined, and an integer may not start with `0`.
///
/// ```
/// use classad::{Parser, Syntax};
/// let old = Parser::default().syntax(Syntax::Old);
/// // A quote after a backslash is part of the string...
/// assert_eq!(old.parse_expr(r#""say \"hi\"""#)?.to_string(), r#""say \"hi\"""#);
/// // ...unless it ends the line; other backslashes are plain characters.
/// assert_eq!(old.parse_expr(r#""C:\temp\""#)?.to_string(), r#""C:\\temp\\""#);
/// assert!(old.parse_expr("017").is_err());
/// # Ok::<(), classad::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// New ClassAd syntax (libclassad's native syntax; string escapes like C).
    #[default]
    New,
    /// Old ClassAd syntax, as in HTCondor's long format.
    Old,
}

/// What went wrong while tokenizing.
///
/// `#[non_exhaustive]`, as the crate's other error kinds: a new check of
/// the input is a new kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LexErrorKind {
    /// A character that starts no token.
    #[default]
    UnexpectedChar,
    /// A string without its closing quote.
    UnterminatedString,
    /// A quoted name without its closing quote.
    UnterminatedName,
    /// A `/*` comment without `*/`.
    UnterminatedComment,
    /// An escape sequence that yields a NUL character.
    NulEscape,
    /// Escapes that produce bytes that are not UTF-8.
    InvalidUtf8,
    /// An integer literal outside the 64-bit range.
    IntegerOverflow,
    /// `0x...`: hexadecimal literals are not ClassAd syntax.
    HexLiteral,
    /// `5.` or `1.e5`: a real needs digits after the point.
    MalformedReal,
    /// `08`: after a leading 0 only the digits 0-7 may follow.
    LeadingZero,
    /// `017` in old ClassAd syntax, where integers are decimal.
    LeadingZeroOld,
    /// `"a" "b"` in old ClassAd syntax, which does not join strings.
    AdjacentStrings,
}

impl LexErrorKind {
    pub(crate) fn message(&self) -> &'static str {
        match self {
            LexErrorKind::UnexpectedChar => "unexpected character",
            LexErrorKind::UnterminatedString => "unterminated string literal",
            LexErrorKind::UnterminatedName => "unterminated quoted name",
            LexErrorKind::UnterminatedComment => "unterminated /* comment",
            LexErrorKind::NulEscape => "escape sequence yields a NUL character",
            LexErrorKind::InvalidUtf8 => "escape sequences yield text that is not UTF-8",
            LexErrorKind::IntegerOverflow => "integer literal does not fit in 64 bits",
            LexErrorKind::HexLiteral => "hexadecimal literals are not supported",
            LexErrorKind::MalformedReal => "malformed real literal (digits must follow the point)",
            LexErrorKind::LeadingZero => "an integer with a leading 0 may only contain the digits 0-7",
            LexErrorKind::LeadingZeroOld => "an integer may not have a leading 0 in old ClassAd syntax",
            LexErrorKind::AdjacentStrings => "adjacent strings or quoted names are not joined in old ClassAd syntax",
        }
    }
}

/// A tokenizing error and where it happened (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// What went wrong.
    pub kind: LexErrorKind,
    /// Byte offset where the bad token starts.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

/// Tokens as the state machine sees them.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexErrorKind)]
#[logos(extras = Syntax)]
#[logos(skip r"[ \t\r\n\x0B\x0C]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub(crate) enum RawToken<'s> {
    #[regex(r"/\*([^*]|\*+[^*/])*\**", unterminated_comment)]
    BadComment,
    #[regex("[0-9]+", |lex| lex.slice())]
    Digits(&'s str),
    #[regex(r"([0-9]+\.[0-9]+|\.[0-9]+)([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice())]
    RealText(&'s str),
    #[regex(r"[0-9]+\.", malformed_real)]
    BadReal,
    #[regex("0[xX][0-9A-Za-z_]*", hex_literal)]
    Hex,
    #[token("\"", |lex| quoted(lex, b'"', LexErrorKind::UnterminatedString))]
    Str(Cow<'s, str>),
    #[token("'", |lex| quoted(lex, b'\'', LexErrorKind::UnterminatedName))]
    QuotedName(Cow<'s, str>),
    #[regex("[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
    Ident(&'s str),
    // The keywords are read as identifiers by the state machine (which keeps
    // it small and fast) and told apart by `next_token`.
    True,
    False,
    Undefined,
    Error,
    Is,
    Isnt,
    #[token("||")]
    OrOr,
    #[token("&&")]
    AndAnd,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("=?=")]
    MetaEq,
    #[token("=!=")]
    MetaNe,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token(">>>")]
    UShr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
    #[token("?:")]
    Elvis,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("=")]
    Assign,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
}

/// The next token of `lex`, with keywords (any case) told apart from names.
pub(crate) fn next_token<'s>(lex: &mut logos::Lexer<'s, RawToken<'s>>) -> Option<Result<RawToken<'s>, LexErrorKind>> {
    match lex.next()? {
        Ok(RawToken::Ident(text)) => Some(Ok(match keyword(text) {
            Some(Keyword::True) => RawToken::True,
            Some(Keyword::False) => RawToken::False,
            Some(Keyword::Undefined) => RawToken::Undefined,
            Some(Keyword::Error) => RawToken::Error,
            Some(Keyword::Is) => RawToken::Is,
            Some(Keyword::Isnt) => RawToken::Isnt,
            None => RawToken::Ident(text),
        })),
        other => Some(other),
    }
}

/// The words that are keywords in any case: never attribute names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keyword {
    True,
    False,
    Undefined,
    Error,
    Is,
    Isnt,
}

/// The keyword `text` spells (in any case), if any.
pub(crate) fn keyword(text: &str) -> Option<Keyword> {
    let first = text.as_bytes().first()?.to_ascii_lowercase();
    let (word, keyword) = match (text.len(), first) {
        (2, _) => ("is", Keyword::Is),
        (4, b't') => ("true", Keyword::True),
        (4, _) => ("isnt", Keyword::Isnt),
        (5, b'f') => ("false", Keyword::False),
        (5, _) => ("error", Keyword::Error),
        (9, _) => ("undefined", Keyword::Undefined),
        _ => return None,
    };
    text.eq_ignore_ascii_case(word).then_some(keyword)
}

// Callbacks of the patterns that only exist to give a precise error.
fn unterminated_comment<'s>(_: &mut logos::Lexer<'s, RawToken<'s>>) -> Result<(), LexErrorKind> {
    Err(LexErrorKind::UnterminatedComment)
}

fn malformed_real<'s>(_: &mut logos::Lexer<'s, RawToken<'s>>) -> Result<(), LexErrorKind> {
    Err(LexErrorKind::MalformedReal)
}

fn hex_literal<'s>(_: &mut logos::Lexer<'s, RawToken<'s>>) -> Result<(), LexErrorKind> {
    Err(LexErrorKind::HexLiteral)
}

/// Tokens as the grammar sees them.
#[derive(Clone, Debug, PartialEq)]
pub enum Token<'s> {
    /// An integer literal (sign included when it was lexed with one).
    Int(i64),
    /// A real literal.
    Real(f64),
    /// A string literal, unescaped.
    Str(Cow<'s, str>),
    /// A `'quoted name'`, unescaped.
    QuotedName(Cow<'s, str>),
    /// An identifier.
    Ident(&'s str),
    /// `true`
    True,
    /// `false`
    False,
    /// `undefined`
    Undefined,
    /// `error`
    Error,
    /// `is` or `=?=`
    Is,
    /// `isnt` or `=!=`
    Isnt,
    /// Any other operator or punctuation, by its text.
    Punct(&'static str),
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Int(i) => write!(f, "integer {i}"),
            Token::Real(_) => f.write_str("real literal"),
            Token::Str(_) => f.write_str("string literal"),
            Token::QuotedName(n) => write!(f, "name '{}'", crate::excerpt::quote(n)),
            Token::Ident(n) => write!(f, "name `{}`", crate::excerpt::quote(n)),
            Token::True => f.write_str("`true`"),
            Token::False => f.write_str("`false`"),
            Token::Undefined => f.write_str("`undefined`"),
            Token::Error => f.write_str("`error`"),
            Token::Is => f.write_str("`is`"),
            Token::Isnt => f.write_str("`isnt`"),
            Token::Punct(p) => write!(f, "`{p}`"),
        }
    }
}

/// The token stream handed to the parser: `(start, token, end)` triples.
pub struct Lexer<'s> {
    raw: logos::Lexer<'s, RawToken<'s>>,
    peeked: Option<Spanned<'s>>,
    /// True when the last token ended an operand, so a `-` after it is binary.
    after_operand: bool,
    /// True when the last token was a string or quoted name (old syntax
    /// does not join adjacent ones).
    after_string: bool,
}

type Spanned<'s> = (Result<RawToken<'s>, LexErrorKind>, logos::Span);

impl<'s> Lexer<'s> {
    /// Tokenizes `source`, in new ClassAd syntax.
    pub fn new(source: &'s str) -> Lexer<'s> {
        Lexer::with_syntax(source, Syntax::New)
    }

    /// Tokenizes `source`, in the given syntax.
    pub fn with_syntax(source: &'s str, syntax: Syntax) -> Lexer<'s> {
        Lexer {
            raw: RawToken::lexer_with_extras(source, syntax),
            peeked: None,
            after_operand: false,
            after_string: false,
        }
    }

    fn old(&self) -> bool {
        self.raw.extras == Syntax::Old
    }

    /// Decimal digits to an integer, with old syntax's rule on leading zeros.
    fn int(&self, digits: &str, negative: bool) -> Result<i64, LexErrorKind> {
        if self.old() && digits.len() > 1 && digits.starts_with('0') {
            return Err(LexErrorKind::LeadingZeroOld);
        }
        parse_int(digits, negative)
    }

    fn next_raw(&mut self) -> Option<Spanned<'s>> {
        if let Some(peeked) = self.peeked.take() {
            return Some(peeked);
        }
        let token = next_token(&mut self.raw)?;
        Some((token, self.raw.span()))
    }

    /// Converts one raw token; returns the token and its end offset.
    fn convert(&mut self, raw: RawToken<'s>, span: &logos::Span) -> Result<(Token<'s>, usize), LexErrorKind> {
        use RawToken as R;
        let token = match raw {
            R::Digits(text) => Token::Int(self.int(text, false)?),
            R::RealText(text) => Token::Real(parse_real(text)),
            R::Str(_) | R::QuotedName(_) if self.after_string && self.old() => {
                return Err(LexErrorKind::AdjacentStrings);
            }
            R::Str(s) => Token::Str(s),
            R::QuotedName(s) => Token::QuotedName(s),
            R::Ident(s) => Token::Ident(s),
            R::True => Token::True,
            R::False => Token::False,
            R::Undefined => Token::Undefined,
            R::Error => Token::Error,
            R::Is | R::MetaEq => Token::Is,
            R::Isnt | R::MetaNe => Token::Isnt,
            R::Minus if !self.after_operand => return self.maybe_negative(span),
            R::BadComment | R::BadReal | R::Hex => {
                // Their callbacks always fail, so logos never yields these.
                return Err(LexErrorKind::UnexpectedChar);
            }
            other => Token::Punct(punct_text(&other)),
        };
        Ok((token, span.end))
    }

    /// A `-` where no operand precedes: a negative literal if a number
    /// follows immediately, else unary minus.
    fn maybe_negative(&mut self, minus: &logos::Span) -> Result<(Token<'s>, usize), LexErrorKind> {
        let next = self.next_raw();
        if let Some((Ok(raw), span)) = &next {
            if span.start == minus.end {
                match raw {
                    RawToken::Digits(text) => return Ok((Token::Int(self.int(text, true)?), span.end)),
                    RawToken::RealText(text) => return Ok((Token::Real(-parse_real(text)), span.end)),
                    _ => {}
                }
            }
        }
        self.peeked = next;
        Ok((Token::Punct("-"), minus.end))
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<(usize, Token<'s>, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (raw, span) = self.next_raw()?;
        let result = raw.and_then(|raw| self.convert(raw, &span));
        Some(match result {
            Ok((token, end)) => {
                self.after_operand = ends_operand(&token);
                self.after_string = matches!(token, Token::Str(_) | Token::QuotedName(_));
                Ok((span.start, token, end))
            }
            Err(kind) => Err(LexError { kind, start: span.start, end: span.end }),
        })
    }
}

/// Tokens after which a `-` is the binary operator.
fn ends_operand(token: &Token<'_>) -> bool {
    match token {
        Token::Int(_)
        | Token::Real(_)
        | Token::Str(_)
        | Token::QuotedName(_)
        | Token::Ident(_)
        | Token::True
        | Token::False
        | Token::Undefined
        | Token::Error => true,
        Token::Punct(p) => matches!(*p, ")" | "]" | "}"),
        Token::Is | Token::Isnt => false,
    }
}

fn punct_text(raw: &RawToken<'_>) -> &'static str {
    use RawToken as R;
    match raw {
        R::OrOr => "||",
        R::AndAnd => "&&",
        R::Pipe => "|",
        R::Caret => "^",
        R::Amp => "&",
        R::EqEq => "==",
        R::NotEq => "!=",
        R::Lt => "<",
        R::Le => "<=",
        R::Gt => ">",
        R::Ge => ">=",
        R::Shl => "<<",
        R::Shr => ">>",
        R::UShr => ">>>",
        R::Plus => "+",
        R::Minus => "-",
        R::Star => "*",
        R::Slash => "/",
        R::Percent => "%",
        R::Bang => "!",
        R::Tilde => "~",
        R::Question => "?",
        R::Colon => ":",
        R::Elvis => "?:",
        R::Dot => ".",
        R::Comma => ",",
        R::Semi => ";",
        R::Assign => "=",
        R::LParen => "(",
        R::RParen => ")",
        R::LBracket => "[",
        R::RBracket => "]",
        R::LBrace => "{",
        R::RBrace => "}",
        // Tokens with data are converted before this is called.
        _ => "?",
    }
}

/// Decimal digits to an integer; `negative` applies the sign first so that
/// `-9223372036854775808` fits. As in libclassad, digits after a leading 0
/// must be octal digits (`017` is 17, but `08` is an error).
pub(crate) fn parse_int(digits: &str, negative: bool) -> Result<i64, LexErrorKind> {
    if digits.starts_with('0') && digits.bytes().any(|b| b > b'7') {
        return Err(LexErrorKind::LeadingZero);
    }
    let mut value: i64 = 0;
    for digit in digits.bytes() {
        let d = i64::from(digit - b'0');
        value = value.checked_mul(10).ok_or(LexErrorKind::IntegerOverflow)?;
        value =
            if negative { value.checked_sub(d) } else { value.checked_add(d) }.ok_or(LexErrorKind::IntegerOverflow)?;
    }
    Ok(value)
}

pub(crate) fn parse_real(text: &str) -> f64 {
    // The regex admits only forms that Rust's parser accepts.
    text.parse().unwrap_or(f64::NAN)
}

/// After an opening `quote`: finds the closing one (skipping escaped
/// characters), makes it part of the token, and returns the unescaped
/// contents.
fn quoted<'s>(
    lex: &mut logos::Lexer<'s, RawToken<'s>>,
    quote: u8,
    unterminated: LexErrorKind,
) -> Result<Cow<'s, str>, LexErrorKind> {
    if lex.extras == Syntax::Old {
        return quoted_old(lex, quote, unterminated);
    }
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut at = 0;
    let mut escaped = false;
    loop {
        match memchr::memchr2(quote, b'\\', &bytes[at..]) {
            Some(offset) if bytes[at + offset] == quote => {
                let end = at + offset;
                lex.bump(end + 1);
                let body = &rest[..end];
                return if escaped { unescape(body) } else { Ok(Cow::Borrowed(body)) };
            }
            // A backslash: the character after it never closes the literal.
            Some(offset) if at + offset + 1 < bytes.len() => {
                escaped = true;
                at += offset + 2;
            }
            _ => {
                lex.bump(rest.len());
                return Err(unterminated);
            }
        }
    }
}

/// [`quoted`] in old ClassAd syntax: a backslash is an ordinary character,
/// except that a quote right after one is part of the text (and the
/// backslash dropped) unless it is the last character of its line.
fn quoted_old<'s>(
    lex: &mut logos::Lexer<'s, RawToken<'s>>,
    quote: u8,
    unterminated: LexErrorKind,
) -> Result<Cow<'s, str>, LexErrorKind> {
    let rest = lex.remainder();
    match old_string_end(rest.as_bytes(), quote) {
        Some((end, escaped)) => {
            lex.bump(end + 1);
            let body = &rest[..end];
            Ok(if escaped { Cow::Owned(unescape_old(body, quote)) } else { Cow::Borrowed(body) })
        }
        None => {
            lex.bump(rest.len());
            Err(unterminated)
        }
    }
}

/// In the text after the opening `quote` of an old-syntax string or quoted
/// name: the offset of the closing quote, and whether the text before it
/// holds quotes written as backslash-quote. `None` if there is no closing
/// quote.
pub(crate) fn old_string_end(bytes: &[u8], quote: u8) -> Option<(usize, bool)> {
    let mut at = 0;
    let mut escaped = false;
    loop {
        let end = at + memchr::memchr(quote, &bytes[at..])?;
        let after_backslash = end > 0 && bytes[end - 1] == b'\\';
        let ends_line = matches!(bytes.get(end + 1), None | Some(b'\n'));
        if !after_backslash || ends_line {
            return Some((end, escaped));
        }
        escaped = true;
        at = end + 1;
    }
}

/// The text of an old-syntax string or quoted name whose backslash-quote
/// pairs stand for quotes.
pub(crate) fn unescape_old(body: &str, quote: u8) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), &[b'\\', quote]) {
        // Keep the text before the backslash and the quote after it.
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

/// Processes the escapes of the contents of a string or quoted name:
/// `\a \b \f \n \r \t \v`, octal `\ooo` (the third digit only while the value
/// is below 0x20), and `\c` = `c` for anything else.
pub(crate) fn unescape(body: &str) -> Result<Cow<'_, str>, LexErrorKind> {
    let bytes = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        // The regex guarantees a character after every backslash.
        let c = bytes[i];
        i += 1;
        let decoded = match c {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                if i < bytes.len() && matches!(bytes[i], b'0'..=b'7') {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    if value < 0x20 && i < bytes.len() && matches!(bytes[i], b'0'..=b'7') {
                        value = value * 8 + u32::from(bytes[i] - b'0');
                        i += 1;
                    }
                }
                // At most three octal digits with the rule above: below 0x100.
                value as u8
            }
            // Anything else stands for itself (a multi-byte character is
            // copied byte by byte by the loop).
            other => other,
        };
        if decoded == 0 {
            return Err(LexErrorKind::NulEscape);
        }
        out.push(decoded);
    }
    String::from_utf8(out).map(Cow::Owned).map_err(|_| LexErrorKind::InvalidUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(source: &str) -> Vec<Token<'_>> {
        Lexer::new(source).map(|t| t.map(|(_, tok, _)| tok).expect("lexes")).collect()
    }

    fn error(source: &str) -> LexErrorKind {
        Lexer::new(source).find_map(Result::err).map(|e| e.kind).expect("an error")
    }

    #[test]
    fn negative_literals() {
        assert_eq!(tokens("-5"), [Token::Int(-5)]);
        assert_eq!(tokens("3 -2"), [Token::Int(3), Token::Punct("-"), Token::Int(2)]);
        assert_eq!(tokens("- 5"), [Token::Punct("-"), Token::Int(5)]);
        assert_eq!(tokens("a*-5"), [Token::Ident("a"), Token::Punct("*"), Token::Int(-5)]);
        assert_eq!(
            tokens("(1)-1"),
            [Token::Punct("("), Token::Int(1), Token::Punct(")"), Token::Punct("-"), Token::Int(1)]
        );
        assert_eq!(tokens("--5"), [Token::Punct("-"), Token::Int(-5)]);
        assert_eq!(tokens("-9223372036854775808"), [Token::Int(i64::MIN)]);
        assert_eq!(tokens("-.5"), [Token::Real(-0.5)]);
    }

    #[test]
    fn numbers() {
        assert_eq!(
            tokens("017 1e3 .5 1.5E-3"),
            [Token::Int(17), Token::Real(1000.0), Token::Real(0.5), Token::Real(0.0015)]
        );
        assert_eq!(error("9223372036854775808"), LexErrorKind::IntegerOverflow);
        assert_eq!(error("0x1F"), LexErrorKind::HexLiteral);
        assert_eq!(error("5."), LexErrorKind::MalformedReal);
        assert_eq!(error("1.e5"), LexErrorKind::MalformedReal);
        assert_eq!(error("08"), LexErrorKind::LeadingZero);
        assert_eq!(tokens("0017 00"), [Token::Int(17), Token::Int(0)]);
    }

    #[test]
    fn strings() {
        assert_eq!(tokens(r#""a\"b""#), [Token::Str("a\"b".into())]);
        assert_eq!(tokens(r#""\101\777\400""#), [Token::Str("A?7 0".into())]);
        assert_eq!(tokens(r#""\x41\q""#), [Token::Str("x41q".into())]);
        assert_eq!(tokens(r#""\303\251""#), [Token::Str("é".into())]);
        assert_eq!(tokens(r"'a b'"), [Token::QuotedName("a b".into())]);
        assert_eq!(error(r#""\0""#), LexErrorKind::NulEscape);
        assert_eq!(error(r#""\377""#), LexErrorKind::InvalidUtf8);
        assert_eq!(error(r#""abc"#), LexErrorKind::UnterminatedString);
        assert_eq!(error("'abc"), LexErrorKind::UnterminatedName);
    }

    #[test]
    fn keywords_and_comments() {
        assert_eq!(
            tokens("TRUE /* c */ isNT // rest\n Undefined =?= x"),
            [Token::True, Token::Isnt, Token::Undefined, Token::Is, Token::Ident("x")]
        );
        assert_eq!(error("1 /* open"), LexErrorKind::UnterminatedComment);
    }
}
