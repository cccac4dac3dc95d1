//! The fast parser's scanner: tokens as a kind and byte offsets, the text
//! sliced from the input only when it is needed.
//!
//! It recognises the same tokens as the logos lexer of the grammar
//! ([`crate::lexer`]) wherever the input is valid. Whatever it is not sure
//! of (a malformed number, an unterminated literal, a byte that starts no
//! token) is [`Kind::Bad`]: the fast parser then gives up and the grammar,
//! with the logos lexer, reports the error. `tests/parsers.rs` checks that
//! the two paths agree.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `[A-Za-z_][A-Za-z0-9_]*`; keywords are told apart by the parser.
    Ident,
    /// Decimal digits.
    Int,
    /// A real literal.
    Real,
    /// A string literal; `escaped` when its text has backslashes.
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

/// What a token's first byte says about it.
#[derive(Clone, Copy)]
enum Start {
    Ident,
    Digit,
    Dot,
    DoubleQuote,
    SingleQuote,
    /// A one-character operator that no longer one starts with.
    Single(Punct),
    /// A character that may begin a longer operator.
    Multi,
    Other,
}

static START: [Start; 256] = {
    let mut start = [Start::Other; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        start[b] = if c.is_ascii_alphabetic() || c == b'_' {
            Start::Ident
        } else if c.is_ascii_digit() {
            Start::Digit
        } else {
            match c {
                b'.' => Start::Dot,
                b'"' => Start::DoubleQuote,
                b'\'' => Start::SingleQuote,
                b'^' => Start::Single(Punct::Caret),
                b'+' => Start::Single(Punct::Plus),
                b'-' => Start::Single(Punct::Minus),
                b'*' => Start::Single(Punct::Star),
                b'%' => Start::Single(Punct::Percent),
                b'~' => Start::Single(Punct::Tilde),
                b':' => Start::Single(Punct::Colon),
                b',' => Start::Single(Punct::Comma),
                b';' => Start::Single(Punct::Semi),
                b'(' => Start::Single(Punct::LParen),
                b')' => Start::Single(Punct::RParen),
                b'[' => Start::Single(Punct::LBracket),
                b']' => Start::Single(Punct::RBracket),
                b'{' => Start::Single(Punct::LBrace),
                b'}' => Start::Single(Punct::RBrace),
                b'|' | b'&' | b'=' | b'!' | b'<' | b'>' | b'?' | b'/' => Start::Multi,
                _ => Start::Other,
            }
        };
        b += 1;
    }
    start
};

fn is(byte: Option<&u8>, class: u8) -> bool {
    byte.is_some_and(|&b| CLASS[b as usize] & class != 0)
}

impl<'s> Scanner<'s> {
    pub(super) fn new(text: &'s str) -> Scanner<'s> {
        Scanner { text, pos: 0 }
    }

    /// The text of a token. Tokens begin and end at ASCII bytes (or the
    /// ends of the input), so the range is always on character boundaries.
    pub(super) fn slice(&self, token: Token) -> &'s str {
        &self.text[token.start..token.end]
    }

    pub(super) fn next(&mut self) -> Token {
        let bytes = self.text.as_bytes();
        while is(bytes.get(self.pos), SPACE) {
            self.pos += 1;
        }
        if bytes.get(self.pos) == Some(&b'/') && matches!(bytes.get(self.pos + 1), Some(b'/' | b'*')) {
            if !self.skip_space_and_comments() {
                let start = self.pos;
                self.pos = bytes.len();
                return Token { kind: Kind::Bad, start, end: self.pos };
            }
        }
        let start = self.pos;
        let Some(&first) = bytes.get(start) else {
            return Token { kind: Kind::End, start, end: start };
        };
        let kind = match START[first as usize] {
            Start::Ident => {
                self.pos += 1;
                while is(bytes.get(self.pos), IDENT) {
                    self.pos += 1;
                }
                Kind::Ident
            }
            Start::Single(punct) => {
                self.pos += 1;
                Kind::Punct(punct)
            }
            Start::Digit => self.number(),
            Start::Dot if is(bytes.get(start + 1), DIGIT) => {
                self.pos += 1;
                self.fraction_and_exponent()
            }
            Start::Dot => {
                self.pos += 1;
                Kind::Punct(Punct::Dot)
            }
            Start::DoubleQuote => match self.quoted(b'"') {
                Some(escaped) => Kind::Str { escaped },
                None => Kind::Bad,
            },
            Start::SingleQuote => match self.quoted(b'\'') {
                Some(escaped) => Kind::QuotedName { escaped },
                None => Kind::Bad,
            },
            Start::Multi => self.punct(first),
            Start::Other => {
                self.pos = bytes.len();
                Kind::Bad
            }
        };
        Token { kind, start, end: self.pos }
    }

    /// Skips white space and comments; false for an unterminated `/*`.
    fn skip_space_and_comments(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        loop {
            while is(bytes.get(self.pos), SPACE) {
                self.pos += 1;
            }
            match (bytes.get(self.pos), bytes.get(self.pos + 1)) {
                (Some(b'/'), Some(b'/')) => {
                    self.pos = memchr::memchr(b'\n', &bytes[self.pos..]).map_or(bytes.len(), |n| self.pos + n);
                }
                (Some(b'/'), Some(b'*')) => match memchr::memmem::find(&bytes[self.pos + 2..], b"*/") {
                    Some(n) => self.pos += 2 + n + 2,
                    None => return false,
                },
                _ => return true,
            }
        }
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
        let mut at = self.pos + 1;
        let mut escaped = false;
        loop {
            let offset = memchr::memchr2(quote, b'\\', &bytes[at..])?;
            if bytes[at + offset] == quote {
                self.pos = at + offset + 1;
                return Some(escaped);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Kind> {
        let mut scanner = Scanner::new(text);
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
