//! The small, bounded JSON that JWT headers and payloads need, read and
//! written the way HTCondor's jwt-cpp (with picojson) does.
//!
//! Writing follows picojson's `serialize`: object keys in byte order (a
//! `std::map`), no whitespace, integers as decimal `int64`, and strings
//! escaped as picojson escapes them, which includes `/` as `\/`. Reading
//! accepts what picojson accepts for the values a token carries, with three
//! deliberate differences: input must be UTF-8, trailing bytes after the
//! value are refused, and a key that appears twice in one object is refused
//! (picojson keeps the last one silently).

use crate::error::Result;
use crate::{Error, ErrorKind};

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 16;
/// Most members in one object, and most elements in one array.
pub const MAX_MEMBERS: usize = 64;

/// A JSON value. Numbers are split as picojson (built with
/// `PICOJSON_USE_INT64`) splits them: a literal that reads as a whole
/// `int64` is [`Json::Int`], any other number is [`Json::Number`].
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number written without fraction or exponent that fits in `i64`.
    Int(i64),
    /// Any other number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in the order read (or to be sorted on writing).
    Object(Vec<(String, Json)>),
}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Claims may be identities; keep the shape, not the text.
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Int(i) => write!(f, "{i}"),
            Json::Number(n) => write!(f, "{n}"),
            Json::String(s) => write!(f, "<string of {} bytes>", s.len()),
            Json::Array(a) => write!(f, "<array of {}>", a.len()),
            Json::Object(o) => write!(f, "<object of {}>", o.len()),
        }
    }
}

fn malformed(what: &str) -> Error {
    Error::new(ErrorKind::Malformed, format!("JSON: {what}"))
}

/// Parses one JSON value from `text` (surrounding whitespace allowed).
pub fn parse(text: &[u8]) -> Result<Json> {
    let mut p = Parser { s: text, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(malformed("bytes after the value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &[u8], v: Json) -> Result<Json> {
        if self.s.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(malformed("unknown literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        self.ws();
        match self.peek() {
            None => Err(malformed("unexpected end")),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'"') => {
                self.i += 1;
                Ok(Json::String(self.string()?))
            }
            Some(b'[') => {
                self.i += 1;
                self.array(depth + 1)
            }
            Some(b'{') => {
                self.i += 1;
                self.object(depth + 1)
            }
            Some(c) if c.is_ascii_digit() || c == b'-' => self.number(),
            Some(_) => Err(malformed("unexpected character")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("JSON nested deeper than {MAX_DEPTH}")));
        }
        let mut items = Vec::new();
        if self.expect(b']') {
            return Ok(Json::Array(items));
        }
        loop {
            if items.len() == MAX_MEMBERS {
                return Err(Error::new(ErrorKind::LimitExceeded, format!("JSON array over {MAX_MEMBERS} elements")));
            }
            items.push(self.value(depth)?);
            if !self.expect(b',') {
                break;
            }
        }
        if !self.expect(b']') {
            return Err(malformed("array without its ']'"));
        }
        Ok(Json::Array(items))
    }

    fn object(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("JSON nested deeper than {MAX_DEPTH}")));
        }
        let mut members: Vec<(String, Json)> = Vec::new();
        if self.expect(b'}') {
            return Ok(Json::Object(members));
        }
        loop {
            if members.len() == MAX_MEMBERS {
                return Err(Error::new(ErrorKind::LimitExceeded, format!("JSON object over {MAX_MEMBERS} members")));
            }
            if !self.expect(b'"') {
                return Err(malformed("object key is not a string"));
            }
            let key = self.string()?;
            if !self.expect(b':') {
                return Err(malformed("object key without ':'"));
            }
            let v = self.value(depth)?;
            if members.iter().any(|(k, _)| *k == key) {
                return Err(malformed("duplicate object key"));
            }
            members.push((key, v));
            if !self.expect(b',') {
                break;
            }
        }
        if !self.expect(b'}') {
            return Err(malformed("object without its '}'"));
        }
        Ok(Json::Object(members))
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self.s.get(self.i..self.i + 4).ok_or_else(|| malformed("short \\u escape"))?;
        let mut v = 0u32;
        for &d in digits {
            let n = (d as char).to_digit(16).ok_or_else(|| malformed("bad \\u escape"))?;
            v = v * 16 + n;
        }
        self.i += 4;
        Ok(v)
    }

    /// The rest of a string whose opening quote has been read.
    fn string(&mut self) -> Result<String> {
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek().ok_or_else(|| malformed("string without its closing quote"))?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or_else(|| malformed("string ends in an escape"))?;
                    self.i += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(0x08),
                        b'f' => Some(0x0c),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => return Err(malformed("unknown escape")),
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let mut cp = self.hex4()?;
                    if (0xd800..0xdc00).contains(&cp) {
                        if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                            return Err(malformed("lone high surrogate"));
                        }
                        self.i += 2;
                        let lo = self.hex4()?;
                        if !(0xdc00..0xe000).contains(&lo) {
                            return Err(malformed("bad low surrogate"));
                        }
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    }
                    let ch = char::from_u32(cp).ok_or_else(|| malformed("bad code point"))?;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                // picojson, like JSON, refuses raw control characters.
                c if c < 0x20 => return Err(malformed("control character in string")),
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| malformed("string is not UTF-8"))
    }

    fn number(&mut self) -> Result<Json> {
        // picojson gathers these characters, then tries strtoimax, then strtod.
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'+' | b'-' | b'e' | b'E' | b'.')) {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| malformed("number"))?;
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Json::Int(i));
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Json::Number(f)),
            _ => Err(malformed("bad number")),
        }
    }
}

/// Appends `s` as a JSON string, escaped exactly as picojson escapes it.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Json {
    /// Serialises the value as picojson does: object members sorted by key
    /// bytes, no whitespace. Numbers other than integers are written with
    /// Rust's shortest round-trip form, which can differ from picojson's
    /// `%.17g`; tokens HTCondor mints carry none.
    pub fn serialize(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Number(n) => out.push_str(&n.to_string()),
            Json::String(s) => write_string(out, s),
            Json::Array(items) => {
                out.push('[');
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                let mut sorted: Vec<&(String, Json)> = members.iter().collect();
                sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                out.push('{');
                for (n, (k, v)) in sorted.into_iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The member `key` of an object (`None` for other values).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picojson_escapes_slash_and_sorts_keys() {
        let v = Json::Object(vec![
            ("sub".into(), Json::String("a@b".into())),
            ("scope".into(), Json::String("condor:/READ".into())),
            ("iat".into(), Json::Int(1)),
        ]);
        assert_eq!(v.serialize(), r#"{"iat":1,"scope":"condor:\/READ","sub":"a@b"}"#);
    }

    #[test]
    fn round_trips_escapes() {
        let v = parse(br#"{"a":"x\/y\u00e9\ud83d\ude00\n","b":[1,2.5,true,null]}"#).unwrap();
        assert_eq!(v.get("a"), Some(&Json::String("x/y\u{e9}\u{1f600}\n".into())));
        assert_eq!(v.get("b"), Some(&Json::Array(vec![Json::Int(1), Json::Number(2.5), Json::Bool(true), Json::Null])));
        assert_eq!(v.serialize(), "{\"a\":\"x\\/y\u{e9}\u{1f600}\\n\",\"b\":[1,2.5,true,null]}");
    }

    #[test]
    fn refuses_duplicates_depth_and_trailing_bytes() {
        assert_eq!(parse(br#"{"a":1,"a":2}"#).unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(parse(br#"{"a":1} x"#).unwrap_err().kind(), ErrorKind::Malformed);
        let deep = "[".repeat(40) + &"]".repeat(40);
        assert_eq!(parse(deep.as_bytes()).unwrap_err().kind(), ErrorKind::LimitExceeded);
        assert_eq!(parse(b"1e999").unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(parse(b"\"\\ud800\"").unwrap_err().kind(), ErrorKind::Malformed);
    }

    #[test]
    fn integers_and_numbers_split_like_picojson() {
        assert_eq!(parse(b"1796186947").unwrap(), Json::Int(1796186947));
        assert_eq!(parse(b"-3").unwrap(), Json::Int(-3));
        assert_eq!(parse(b"1.0").unwrap(), Json::Number(1.0));
        assert_eq!(parse(b"1e3").unwrap(), Json::Number(1000.0));
        assert_eq!(parse(b"99999999999999999999").unwrap(), Json::Number(1e20));
    }
}
