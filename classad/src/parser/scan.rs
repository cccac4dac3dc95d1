//! The fast parser's scanner: tokens as a kind and byte offsets, the text
//! sliced from the input only when it is needed.
//!
//! It recognises the same tokens as the logos lexer of the grammar
//! ([`crate::lexer`]) wherever the input is valid. Whatever it is not sure
//! of (a malformed number, an unterminated literal, a byte that starts no
//! token) is [`Kind::Bad`]: the fast parser then gives up and the grammar,
//! with the logos lexer, reports the error. `tests/parsers.rs` checks that
//! the two paths agree.

use super::Syntax;
use crate::lexer::old_string_end;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `[A-Za-z_][A-Za-z0-9_]*`; keywords are told apart by the parser.
    Ident,
    /// Decimal digits.
    Int,
    /// A real literal.
    Real,
    /// A string literal; `escaped` when its text has escapes to process
    /// (in old syntax: quotes written as backslash-quote).
    Str { escaped: bool },
    /// A quoted name.
    QuotedName { escaped: bool },
    /// An operator or punctuation mark.
    Punct(Punct),
    /// The end of the input.
    End,
    /// Something only the grammar's lexer can explain.
    Bad,
}

/// Operators and punctuation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Punct {
    OrOr,
    AndAnd,
    Pipe,
    Caret,
    Amp,
    EqEq,
    NotEq,
    MetaEq,
    MetaNe,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    UShr,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    Tilde,
    Question,
    Colon,
    Elvis,
    Dot,
    Comma,
    Semi,
    Assign,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
}

/// An attribute `name = value;` (or `... ]`) whose value is one literal or
/// one name, as read by [`Scanner::simple_attribute`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Simple<'s> {
    /// The identifier before `=` (possibly a keyword: the parser checks).
    pub(super) name: &'s str,
    pub(super) value: SimpleValue<'s>,
    /// True when the attribute ended with `]` rather than `;`.
    pub(super) closes: bool,
}

/// The value of a [`Simple`] attribute.
#[derive(Clone, Copy, Debug)]
pub(super) enum SimpleValue<'s> {
    /// Decimal digits, after a `-` written right before them when `negative`.
    Int { digits: &'s str, negative: bool },
    /// `digits.digits`, after a `-` when `negative`.
    Real { text: &'s str, negative: bool },
    /// A string literal without backslashes: the text between the quotes.
    Str(&'s str),
    /// An identifier: a keyword literal or an attribute reference.
    Word(&'s str),
}

/// A token: its kind and where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) struct Scanner<'s> {
    text: &'s str,
    pos: usize,
    /// Strings and quoted names follow old ClassAd syntax's rules.
    old: bool,
}

/// Byte classes, for the loops that skip and scan.
const SPACE: u8 = 1;
const IDENT: u8 = 2;
const DIGIT: u8 = 4;

static CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) {
            k |= SPACE;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            k |= IDENT;
        }
        if c.is_ascii_digit() {
            k |= DIGIT;
        }
        class[b] = k;
        b += 1;
    }
    class
};

/// What a token's first byte says about it (one byte per entry, so the
/// dispatch is a single load).
const START_OTHER: u8 = 0;
const START_IDENT: u8 = 1;
const START_DIGIT: u8 = 2;
const START_DOT: u8 = 3;
const START_DOUBLE_QUOTE: u8 = 4;
const START_SINGLE_QUOTE: u8 = 5;
/// A one-character operator that no longer one starts with ([`SINGLE`]).
const START_SINGLE: u8 = 6;
/// A character that may begin a longer operator.
const START_MULTI: u8 = 7;

static START: [u8; 256] = {
    let mut start = [START_OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        start[b] = if c.is_ascii_alphabetic() || c == b'_' {
            START_IDENT
        } else if c.is_ascii_digit() {
            START_DIGIT
        } else {
            match c {
                b'.' => START_DOT,
                b'"' => START_DOUBLE_QUOTE,
                b'\'' => START_SINGLE_QUOTE,
                b'^' | b'+' | b'-' | b'*' | b'%' | b'~' | b':' | b',' | b';' | b'(' | b')' | b'[' | b']' | b'{'
                | b'}' => START_SINGLE,
                b'|' | b'&' | b'=' | b'!' | b'<' | b'>' | b'?' | b'/' => START_MULTI,
                _ => START_OTHER,
            }
        };
        b += 1;
    }
    start
};

/// The operator of each [`START_SINGLE`] byte.
static SINGLE: [Punct; 256] = {
    let mut single = [Punct::Comma; 256];
    single[b'^' as usize] = Punct::Caret;
    single[b'+' as usize] = Punct::Plus;
    single[b'-' as usize] = Punct::Minus;
    single[b'*' as usize] = Punct::Star;
    single[b'%' as usize] = Punct::Percent;
    single[b'~' as usize] = Punct::Tilde;
    single[b':' as usize] = Punct::Colon;
    single[b';' as usize] = Punct::Semi;
    single[b'(' as usize] = Punct::LParen;
    single[b')' as usize] = Punct::RParen;
    single[b'[' as usize] = Punct::LBracket;
    single[b']' as usize] = Punct::RBracket;
    single[b'{' as usize] = Punct::LBrace;
    single[b'}' as usize] = Punct::RBrace;
    single
};

fn is(byte: Option<&u8>, class: u8) -> bool {
    byte.is_some_and(|&b| CLASS[b as usize] & class != 0)
}

impl<'s> Scanner<'s> {
    pub(super) fn new(text: &'s str, syntax: Syntax) -> Scanner<'s> {
        Scanner { text, pos: 0, old: syntax == Syntax::Old }
    }

    /// The whole input.
    pub(super) fn text(&self) -> &'s str {
        self.text
    }

    /// The text of a token. Tokens begin and end at ASCII bytes (or the
    /// ends of the input), so the range is always on character boundaries.
    pub(super) fn slice(&self, token: Token) -> &'s str {
        &self.text[token.start..token.end]
    }

    pub(super) fn next(&mut self) -> Token {
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        while pos < bytes.len() && CLASS[bytes[pos] as usize] & SPACE != 0 {
            pos += 1;
        }
        if bytes.get(pos) == Some(&b'/') && matches!(bytes.get(pos + 1), Some(b'/' | b'*')) {
            match skip_comments(bytes, pos) {
                Some(after) => pos = after,
                None => {
                    self.pos = bytes.len();
                    return Token { kind: Kind::Bad, start: pos, end: bytes.len() };
                }
            }
        }
        let start = pos;
        let Some(&first) = bytes.get(start) else {
            self.pos = start;
            return Token { kind: Kind::End, start, end: start };
        };
        self.pos = pos;
        let kind = match START[first as usize] {
            START_IDENT => {
                pos += 1;
                while pos < bytes.len() && CLASS[bytes[pos] as usize] & IDENT != 0 {
                    pos += 1;
                }
                self.pos = pos;
                Kind::Ident
            }
            START_SINGLE => {
                self.pos = pos + 1;
                Kind::Punct(SINGLE[first as usize])
            }
            START_DIGIT => self.number(),
            START_DOT if is(bytes.get(start + 1), DIGIT) => {
                self.pos = pos + 1;
                self.fraction_and_exponent()
            }
            START_DOT => {
                self.pos = pos + 1;
                Kind::Punct(Punct::Dot)
            }
            START_DOUBLE_QUOTE => match self.quoted(b'"') {
                Some(escaped) => Kind::Str { escaped },
                None => Kind::Bad,
            },
            START_SINGLE_QUOTE => match self.quoted(b'\'') {
                Some(escaped) => Kind::QuotedName { escaped },
                None => Kind::Bad,
            },
            START_MULTI => self.punct(first),
            _ => {
                self.pos = bytes.len();
                Kind::Bad
            }
        };
        Token { kind, start, end: self.pos }
    }

    /// Where the scanner is: the byte after the last token.
    pub(super) fn position(&self) -> usize {
        self.pos
    }

    /// Moves the scanner back to `pos`, a position it has been at.
    pub(super) fn rewind(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Reads `name = value` and the `;` or `]` after it, straight from the
    /// bytes, when the value is a single literal or name written in the
    /// plainest way (no escapes, exponents, comments or adjacent strings).
    /// Anything else is `None` with the scanner left where it was, and the
    /// tokens take over.
    #[inline]
    pub(super) fn simple_attribute(&mut self) -> Option<Simple<'s>> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut at = skip_space(bytes, self.pos);
        let name_start = at;
        if START[*bytes.get(at)? as usize] != START_IDENT {
            return None;
        }
        at = skip_ident(bytes, at + 1);
        let name = &text[name_start..at];
        at = skip_space(bytes, at);
        // After `==`, `=?=` or `=!=` the "value" would start with `=`, `?`
        // or `!`, which no simple value does.
        if bytes.get(at) != Some(&b'=') {
            return None;
        }
        let (value, end) = simple_value(text, skip_space(bytes, at + 1))?;
        at = end;
        at = skip_space(bytes, at);
        let closes = match bytes.get(at) {
            Some(b';') => false,
            Some(b']') => true,
            _ => return None,
        };
        self.pos = at + 1;
        Some(Simple { name, value, closes })
    }

    /// Digits, then a fraction or an exponent making it a real.
    fn number(&mut self) -> Kind {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        while is(bytes.get(self.pos), DIGIT) {
            self.pos += 1;
        }
        match bytes.get(self.pos) {
            Some(b'.') if is(bytes.get(self.pos + 1), DIGIT) => {
                self.pos += 1;
                self.fraction_and_exponent()
            }
            // `5.`, `1.e5`: the grammar's lexer calls these malformed.
            Some(b'.') => Kind::Bad,
            // `0x1F`: not ClassAd syntax.
            Some(b'x' | b'X') if self.pos == start + 1 && bytes[start] == b'0' => Kind::Bad,
            Some(b'e' | b'E') if self.exponent() => Kind::Real,
            _ => Kind::Int,
        }
    }

    /// After the point: digits and an optional exponent.
    fn fraction_and_exponent(&mut self) -> Kind {
        let bytes = self.text.as_bytes();
        while is(bytes.get(self.pos), DIGIT) {
            self.pos += 1;
        }
        if matches!(bytes.get(self.pos), Some(b'e' | b'E')) {
            self.exponent();
        }
        Kind::Real
    }

    /// At an `e`/`E`: consumes `e[+-]digits` if it is there.
    fn exponent(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        let mut at = self.pos + 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if !is(bytes.get(at), DIGIT) {
            return false;
        }
        while is(bytes.get(at), DIGIT) {
            at += 1;
        }
        self.pos = at;
        true
    }

    /// At an opening quote: moves past the closing one. `Some(escaped)`, or
    /// `None` if the literal is not terminated.
    fn quoted(&mut self, quote: u8) -> Option<bool> {
        let bytes = self.text.as_bytes();
        if self.old {
            let body = self.pos + 1;
            let (end, escaped) = old_string_end(&bytes[body..], quote)?;
            self.pos = body + end + 1;
            return Some(escaped);
        }
        let mut at = self.pos + 1;
        let mut escaped = false;
        loop {
            let offset = memchr::memchr2(quote, b'\\', &bytes[at..])?;
            if bytes[at + offset] == quote {
                self.pos = at + offset + 1;
                return Some(escaped);
            }
            // A backslash: the character after it never closes the literal.
            if at + offset + 1 >= bytes.len() {
                return None;
            }
            escaped = true;
            at += offset + 2;
        }
    }

    /// Operators that may be longer than one character, longest match first.
    fn punct(&mut self, first: u8) -> Kind {
        let bytes = self.text.as_bytes();
        let second = bytes.get(self.pos + 1).copied().unwrap_or(0);
        let third = bytes.get(self.pos + 2).copied().unwrap_or(0);
        use Punct as P;
        let (punct, len) = match first {
            b'|' if second == b'|' => (P::OrOr, 2),
            b'|' => (P::Pipe, 1),
            b'&' if second == b'&' => (P::AndAnd, 2),
            b'&' => (P::Amp, 1),
            b'=' => match (second, third) {
                (b'=', _) => (P::EqEq, 2),
                (b'?', b'=') => (P::MetaEq, 3),
                (b'!', b'=') => (P::MetaNe, 3),
                _ => (P::Assign, 1),
            },
            b'!' if second == b'=' => (P::NotEq, 2),
            b'!' => (P::Bang, 1),
            b'<' => match second {
                b'<' => (P::Shl, 2),
                b'=' => (P::Le, 2),
                _ => (P::Lt, 1),
            },
            b'>' => match (second, third) {
                (b'>', b'>') => (P::UShr, 3),
                (b'>', _) => (P::Shr, 2),
                (b'=', _) => (P::Ge, 2),
                _ => (P::Gt, 1),
            },
            b'?' if second == b':' => (P::Elvis, 2),
            b'?' => (P::Question, 1),
            _ => (P::Slash, 1),
        };
        self.pos += len;
        Kind::Punct(punct)
    }
}

/// The value of a simple attribute starting at `at` (see
/// [`Scanner::simple_attribute`]) and where it ends.
// Forced: once the crate grew, the compiler stopped inlining it into the
// per-attribute loop, which cost 4% of a machine ad's parse (callgrind:
// 29,758 instructions per ad, 28,669 inlined).
#[inline(always)]
fn simple_value(text: &str, mut at: usize) -> Option<(SimpleValue<'_>, usize)> {
    let bytes = text.as_bytes();
    let value_start = at;
    let value = match START[*bytes.get(at)? as usize] {
        START_DOUBLE_QUOTE => {
            let body = at + 1;
            let close = body + memchr::memchr2(b'"', b'\\', &bytes[body..])?;
            if bytes[close] != b'"' {
                return None;
            }
            at = close + 1;
            SimpleValue::Str(&text[body..close])
        }
        START_IDENT => {
            at = skip_ident(bytes, at + 1);
            SimpleValue::Word(&text[value_start..at])
        }
        START_DIGIT => {
            let (end, real) = plain_number(bytes, at)?;
            at = end;
            let number = &text[value_start..at];
            if real {
                SimpleValue::Real { text: number, negative: false }
            } else {
                SimpleValue::Int { digits: number, negative: false }
            }
        }
        _ if bytes[at] == b'-' && is(bytes.get(at + 1), DIGIT) => {
            let (end, real) = plain_number(bytes, at + 1)?;
            at = end;
            let number = &text[value_start + 1..at];
            if real {
                SimpleValue::Real { text: number, negative: true }
            } else {
                SimpleValue::Int { digits: number, negative: true }
            }
        }
        _ => return None,
    };
    Some((value, at))
}

/// The whole of `text` as one simple value (a literal or a name, written
/// plainly; see [`Scanner::simple_attribute`]) with only white space
/// around it.
pub(super) fn whole_simple_value(text: &str) -> Option<SimpleValue<'_>> {
    let bytes = text.as_bytes();
    let (value, end) = simple_value(text, skip_space(bytes, 0))?;
    (skip_space(bytes, end) == bytes.len()).then_some(value)
}

/// The position of the first byte at or after `pos` that is not white
/// space.
#[inline]
fn skip_space(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && CLASS[bytes[pos] as usize] & SPACE != 0 {
        pos += 1;
    }
    pos
}

/// The end of the identifier characters from `pos`.
#[inline]
fn skip_ident(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && CLASS[bytes[pos] as usize] & IDENT != 0 {
        pos += 1;
    }
    pos
}

/// At a digit: the end of `digits` or `digits.digits`, and whether it has
/// the fraction. `None` for the forms left to the tokens: exponents, `5.`,
/// `0x`.
#[inline]
fn plain_number(bytes: &[u8], pos: usize) -> Option<(usize, bool)> {
    let mut at = pos;
    while is(bytes.get(at), DIGIT) {
        at += 1;
    }
    let real = match bytes.get(at) {
        Some(b'.') => {
            at += 1;
            if !is(bytes.get(at), DIGIT) {
                return None;
            }
            while is(bytes.get(at), DIGIT) {
                at += 1;
            }
            true
        }
        _ => false,
    };
    if matches!(bytes.get(at), Some(b'e' | b'E' | b'x' | b'X')) {
        return None;
    }
    Some((at, real))
}

/// At a comment: skips it and any white space and comments after it.
/// `None` for an unterminated `/*`.
#[cold]
#[inline(never)]
fn skip_comments(bytes: &[u8], mut pos: usize) -> Option<usize> {
    loop {
        match (bytes.get(pos), bytes.get(pos + 1)) {
            (Some(b'/'), Some(b'/')) => {
                pos = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |n| pos + n);
            }
            (Some(b'/'), Some(b'*')) => pos += 2 + memchr::memmem::find(&bytes[pos + 2..], b"*/")? + 2,
            _ => return Some(pos),
        }
        while pos < bytes.len() && CLASS[bytes[pos] as usize] & SPACE != 0 {
            pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Kind> {
        let mut scanner = Scanner::new(text, Syntax::New);
        let mut out = Vec::new();
        loop {
            let token = scanner.next();
            out.push(token.kind);
            if matches!(token.kind, Kind::End | Kind::Bad) {
                return out;
            }
        }
    }

    #[test]
    fn tokens() {
        use Kind::*;
        assert_eq!(
            kinds("a1 = 17; // x\n b /* y */ =?= .5e-3"),
            [
                Ident,
                Punct(self::Punct::Assign),
                Int,
                Punct(self::Punct::Semi),
                Ident,
                Punct(self::Punct::MetaEq),
                Real,
                End
            ]
        );
        assert_eq!(kinds("\"a\\\"b\" 'c d'"), [Str { escaped: true }, QuotedName { escaped: false }, End]);
        assert_eq!(kinds("1e5 1.5E+2 7"), [Real, Real, Int, End]);
        assert_eq!(
            kinds("x >>> y ?: z"),
            [Ident, Punct(self::Punct::UShr), Ident, Punct(self::Punct::Elvis), Ident, End]
        );
        assert_eq!(kinds("017isnt 1e"), [Int, Ident, Int, Ident, End]);
        for bad in ["5.", "1.e5", "0x1F", "0X", "\"open", "'open", "/* open", "é", "@"] {
            assert!(kinds(bad).contains(&Bad), "{bad}");
        }
    }
}
