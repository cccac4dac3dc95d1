//! JSON as HTCondor writes it (`condor_status -json`, `condor_q -json`).
//!
//! Integers, reals, booleans, strings, lists (arrays) and nested ads
//! (objects) are native JSON; UNDEFINED is `null`; everything else (ERROR,
//! absolute and relative times, expressions) is a string
//! `"\/Expr(<new syntax>)\/"` (`"\/Expr(relTime(\"01:30\"))\/"`). Reading
//! accepts one object, an array of objects, or objects one after another
//! (JSON lines), and keeps integers apart from reals with their full 64-bit
//! range.

use std::io::BufRead;
use std::sync::Arc;

use super::{position_after, FormatError, FormatErrorKind, Next, Reader, State};
use crate::ad::ClassAd;
use crate::expr::{Expr, Literal, Node, Repr};
use crate::name::Name;
use crate::parser::{Parser, Syntax};
use crate::print;

/// Reads the next ad of a JSON stream.
pub(super) fn next_ad<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    let mut next = reader.source.skip_space()?;
    match reader.state {
        State::Start => {
            if next == Some(b'[') {
                reader.source.consume(1);
                reader.state = State::List { first: true };
                next = reader.source.skip_space()?;
            } else {
                reader.state = State::Ads;
            }
        }
        State::List { first: false } => match next {
            Some(b',') => {
                reader.source.consume(1);
                next = reader.source.skip_space()?;
            }
            Some(b']') => {}
            None => return Ok(bad_end(reader, "expected `,` or `]` after an ad")),
            _ => return Ok(bad(reader, "expected `,` or `]` after an ad")),
        },
        _ => {}
    }
    if let State::List { .. } = reader.state {
        match next {
            Some(b']') => {
                reader.source.consume(1);
                return Ok(match reader.source.skip_space()? {
                    None => Next::End,
                    Some(_) => bad(reader, "unexpected text after the array of ads"),
                });
            }
            None => return Ok(bad_end(reader, "the input ended inside the array of ads")),
            _ => reader.state = State::List { first: false },
        }
    }
    match next {
        None => Ok(Next::End),
        Some(b'{') => read_object(reader),
        Some(_) => Ok(bad(reader, "expected `{` to start an ad")),
    }
}

/// An error that ends the stream (the framing is lost).
fn bad<R: BufRead>(reader: &Reader<R>, message: &str) -> Next {
    Next::Bad {
        error: reader.error_here(reader.source.column(), FormatErrorKind::Malformed, message),
        recoverable: false,
    }
}

/// An error that ends the stream because the input ended inside the
/// array of ads.
fn bad_end<R: BufRead>(reader: &Reader<R>, message: &str) -> Next {
    Next::Bad {
        error: reader.error_here(reader.source.column(), FormatErrorKind::Truncated, message),
        recoverable: false,
    }
}

/// Reads the object at the current `{` and converts it.
fn read_object<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    let (line, column) = (reader.source.line(), reader.source.column());
    reader.buf.clear();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let step = |b: u8| {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            return true;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                return depth > 0;
            }
            _ => {}
        }
        true
    };
    if let Some(bad) = reader.read_ad_frame(line, column, step)? {
        return Ok(bad);
    }
    let ad = reader.count + 1;
    let text = match reader.ad_text(line, column) {
        Ok(text) => text,
        Err(bad) => return Ok(bad),
    };
    let mut parser = JsonParser::new(text, reader.parser(Syntax::New));
    Ok(match parser.ad() {
        Ok(classad) => Next::Ad(classad),
        Err((at, kind, message)) => {
            let (l, c) = position_after(&text.as_bytes()[..at.min(text.len())], line, column);
            Next::Bad { error: FormatError::new(ad, l, c, kind, message), recoverable: true }
        }
    })
}

/// A value, or where and why it could not be read.
type Parsed<T> = Result<T, (usize, FormatErrorKind, String)>;

/// Parses one JSON object into an ad.
pub(crate) struct JsonParser<'t> {
    text: &'t str,
    at: usize,
    depth: u32,
    expressions: Parser,
}

impl<'t> JsonParser<'t> {
    pub(crate) fn new(text: &'t str, expressions: Parser) -> JsonParser<'t> {
        JsonParser { text, at: 0, depth: 0, expressions }
    }

    fn bytes(&self) -> &'t [u8] {
        self.text.as_bytes()
    }

    fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err((self.at, FormatErrorKind::Malformed, message.into()))
    }

    fn skip_space(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes().get(self.at) {
            if !b.is_ascii_whitespace() {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn expect(&mut self, byte: u8) -> Parsed<()> {
        if self.skip_space() != Some(byte) {
            return self.error(format!("expected `{}`", byte as char));
        }
        self.at += 1;
        Ok(())
    }

    /// The whole text: one object.
    pub(crate) fn ad(&mut self) -> Parsed<ClassAd> {
        let ad = self.object()?;
        if self.skip_space().is_some() {
            return self.error("unexpected text after the ad");
        }
        Ok(ad)
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= self.expressions.limits().max_depth {
            return self.error("values nested too deeply");
        }
        self.depth += 1;
        let result = stacker::maybe_grow(64 * 1024, 1024 * 1024, || f(self));
        self.depth -= 1;
        result
    }

    /// `{ "name": value, ... }`; a trailing comma is allowed, as libclassad
    /// allows it.
    fn object(&mut self) -> Parsed<ClassAd> {
        self.expect(b'{')?;
        let mut attributes = Vec::new();
        loop {
            match self.skip_space() {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(ClassAd::from_attributes(attributes));
                }
                Some(b'"') => {}
                _ => return self.error("expected a name in quotes or `}`"),
            }
            let key_at = self.at;
            let key = self.string()?;
            if key.is_empty() {
                return Err((key_at, FormatErrorKind::Malformed, "empty attribute name".to_string()));
            }
            let name = Name::try_new(&key).map_err(|e| (key_at, FormatErrorKind::TooManyNames, e.to_string()))?;
            self.expect(b':')?;
            let value = self.nested(Self::value)?;
            attributes.push((name, value));
            match self.skip_space() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return self.error("expected `,` or `}`"),
            }
        }
    }

    fn value(&mut self) -> Parsed<Expr> {
        match self.skip_space() {
            Some(b'{') => {
                let ad = self.object()?;
                Ok(Expr::node(Node::Record(Arc::new(ad))))
            }
            Some(b'[') => self.array(),
            Some(b'"') => self.string_value(),
            Some(b'-' | b'.' | b'0'..=b'9') => self.number(),
            Some(b) if b.is_ascii_alphabetic() => self.word(),
            Some(_) => self.error("expected a value"),
            None => self.error("unexpected end of the ad"),
        }
    }

    fn array(&mut self) -> Parsed<Expr> {
        self.at += 1;
        let mut items = Vec::new();
        if self.skip_space() == Some(b']') {
            self.at += 1;
            return Ok(Expr::node(Node::List(items.into())));
        }
        loop {
            items.push(self.nested(Self::value)?);
            match self.skip_space() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Expr::node(Node::List(items.into())));
                }
                _ => return self.error("expected `,` or `]`"),
            }
        }
    }

    /// `true`, `false` and `null`, in any case.
    fn word(&mut self) -> Parsed<Expr> {
        let start = self.at;
        while self.bytes().get(self.at).is_some_and(u8::is_ascii_alphanumeric) {
            self.at += 1;
        }
        let literal = match self.text[start..self.at].to_ascii_lowercase().as_str() {
            "true" => Literal::Bool(true),
            "false" => Literal::Bool(false),
            "null" => Literal::Undefined,
            _ => {
                return Err((
                    start,
                    FormatErrorKind::Malformed,
                    format!("unexpected `{}`", crate::excerpt::quote(&self.text[start..self.at])),
                ))
            }
        };
        Ok(Expr::literal(literal))
    }

    /// A JSON number: an integer unless it has a fraction or an exponent.
    /// As in libclassad, the integer part may be left out (`.5`).
    fn number(&mut self) -> Parsed<Expr> {
        let start = self.at;
        let bytes = self.bytes();
        let mut at = start + usize::from(bytes[start] == b'-');
        let digits = at;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == digits && bytes.get(at) != Some(&b'.') {
            return Err((start, FormatErrorKind::Malformed, "expected digits".to_string()));
        }
        if at - digits > 1 && bytes[digits] == b'0' {
            return Err((start, FormatErrorKind::Malformed, "a number may not have a leading 0".to_string()));
        }
        let mut real = false;
        if bytes.get(at) == Some(&b'.') {
            real = true;
            at += 1;
            let fraction = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == fraction {
                return Err((start, FormatErrorKind::Malformed, "expected digits after the decimal point".to_string()));
            }
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            real = true;
            at += 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            let exponent = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == exponent {
                return Err((start, FormatErrorKind::Malformed, "expected digits in the exponent".to_string()));
            }
        }
        self.at = at;
        let text = &self.text[start..at];
        let literal = if real {
            Literal::Real(
                text.parse().map_err(|_| (start, FormatErrorKind::Malformed, "malformed number".to_string()))?,
            )
        } else {
            Literal::Int(
                text.parse()
                    .map_err(|_| (start, FormatErrorKind::Malformed, "integer does not fit in 64 bits".to_string()))?,
            )
        };
        Ok(Expr::literal(literal))
    }

    /// A string value: a string, or an expression written as
    /// `"\/Expr(...)\/"` (with the slashes escaped, as HTCondor writes it).
    fn string_value(&mut self) -> Parsed<Expr> {
        let start = self.at;
        let text = self.string()?;
        let raw = &self.text[start + 1..self.at - 1];
        let quoted_expr =
            // (`get`: the seventh byte may fall inside a character.)
            raw.len() >= 10
                && raw.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("\\/Expr("))
                && raw.ends_with(")\\/")
                && text.len() >= 8;
        if !quoted_expr {
            return Ok(Expr::literal(Literal::Str(text.into())));
        }
        let inner = &text[6..text.len() - 2];
        self.expressions
            .parse_expr(inner)
            .map_err(|e| (start, FormatErrorKind::Parse(e.kind()), format!("in the expression of this string: {e}")))
    }

    /// At a `"`: the unescaped string.
    fn string(&mut self) -> Parsed<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(stop) = memchr::memchr2(b'"', b'\\', rest.as_bytes()) else {
                return self.error("unterminated string");
            };
            out.push_str(&rest[..stop]);
            self.at += stop + 1;
            if rest.as_bytes()[stop] == b'"' {
                return Ok(out);
            }
            let Some(escape) = self.text[self.at..].chars().next() else {
                return self.error("unterminated string");
            };
            self.at += escape.len_utf8();
            match escape {
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'u' => out.push(self.unicode_escape()?),
                // `\"`, `\\`, `\/`, and (as libclassad reads them) any other
                // character after a backslash stand for themselves.
                other => out.push(other),
            }
        }
    }

    /// After `\u`: four hex digits, and a second escape for a surrogate
    /// pair.
    fn unicode_escape(&mut self) -> Parsed<char> {
        let escape_at = self.at - 2;
        let high = self.hex4().ok_or((
            escape_at,
            FormatErrorKind::Malformed,
            "expected four hex digits after \\u".to_string(),
        ))?;
        let code = if (0xD800..0xDC00).contains(&high) {
            let low = match self.text[self.at..].strip_prefix("\\u") {
                Some(_) => {
                    self.at += 2;
                    self.hex4()
                }
                None => None,
            };
            match low {
                Some(low) if (0xDC00..0xE000).contains(&low) => 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00),
                _ => {
                    return Err((
                        escape_at,
                        FormatErrorKind::Malformed,
                        "unpaired surrogate in a \\u escape".to_string(),
                    ))
                }
            }
        } else {
            high
        };
        char::from_u32(code).ok_or((escape_at, FormatErrorKind::Malformed, "invalid \\u escape".to_string()))
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        let value = u32::from_str_radix(digits, 16).ok()?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        Some(value)
    }
}

/// Appends `ad` as a JSON object whose lines are indented by `indent`
/// spaces (the first line is not).
pub(crate) fn write_ad(out: &mut String, ad: &ClassAd, indent: usize) {
    if ad.is_empty() {
        out.push_str("{\n");
        push_indent(out, indent);
        out.push('}');
        return;
    }
    out.push_str("{\n");
    for (i, (name, value)) in ad.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        push_indent(out, indent + 2);
        write_string(out, name.as_str());
        out.push_str(": ");
        write_value(out, value, indent + 2);
    }
    out.push('\n');
    push_indent(out, indent);
    out.push('}');
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn write_value(out: &mut String, value: &Expr, indent: usize) {
    match &value.0 {
        Repr::Lit(literal) => match literal {
            Literal::Undefined => out.push_str("null"),
            Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Literal::Int(i) => out.push_str(&i.to_string()),
            Literal::Real(r) if r.is_finite() => {
                let _ = print::write_real_old(out, *r);
            }
            // A relative time as libclassad writes a relative-time value:
            // `"\/Expr(relTime(\"1+02:03:04\"))\/"`, which reads back as one.
            Literal::Str(s) => write_string(out, s),
            _ => write_expression(out, value),
        },
        Repr::Node(node) => match &node.node {
            Node::List(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    push_indent(out, indent + 2);
                    write_value(out, item, indent + 2);
                }
                if !items.is_empty() {
                    out.push('\n');
                }
                push_indent(out, indent);
                out.push(']');
            }
            Node::Record(ad) => write_ad(out, ad, indent),
            _ => write_expression(out, value),
        },
    }
}

/// `"\/Expr(<new syntax>)\/"`.
fn write_expression(out: &mut String, value: &Expr) {
    let mut text = String::from("\\/Expr(");
    let mut unparsed = String::new();
    let _ = print::write_expr(&mut unparsed, value, Syntax::New, 0);
    escape_into(&mut text, &unparsed);
    text.push_str(")\\/");
    out.push('"');
    out.push_str(&text);
    out.push('"');
}

/// A JSON string with libclassad's escapes: `\"`, `\\`, `\b \f \n \r \t`,
/// other control characters as `\u00XX`; everything else as it is.
fn write_string(out: &mut String, text: &str) {
    out.push('"');
    escape_into(out, text);
    out.push('"');
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ClassAd, (usize, String)> {
        JsonParser::new(text, Parser::default()).ad().map_err(|(at, _, message)| (at, message))
    }

    fn value(json: &str) -> Result<String, String> {
        parse(&format!("{{\"a\": {json}}}"))
            .map(|ad| ad.get("a").map(ToString::to_string).unwrap_or_default())
            .map_err(|(_, message)| message)
    }

    #[test]
    fn values() {
        assert_eq!(value("1").as_deref(), Ok("1"));
        assert_eq!(value("-0").as_deref(), Ok("0"));
        assert_eq!(value("1.0").as_deref(), Ok("1.000000000000000E+00"));
        assert_eq!(value("1e3").as_deref(), Ok("1.000000000000000E+03"));
        assert_eq!(value("9223372036854775807").as_deref(), Ok("9223372036854775807"));
        assert_eq!(value("-9223372036854775808").as_deref(), Ok("-9223372036854775808"));
        assert!(value("9223372036854775808").is_err());
        assert!(value("01").is_err());
        assert!(value("1.").is_err());
        assert_eq!(value(".5").as_deref(), Ok("5.000000000000000E-01"));
        assert!(value("-").is_err());
        assert_eq!(value("NULL").as_deref(), Ok("undefined"));
        assert_eq!(value("True").as_deref(), Ok("true"));
        assert_eq!(value(r#"[1, "x", {"y": null}]"#).as_deref(), Ok(r#"{ 1,"x",[ y = undefined ] }"#));
        assert_eq!(value(r#""\/Expr(x + 1)\/""#).as_deref(), Ok("x + 1"));
        assert_eq!(value(r#""\/expr(1)\/""#).as_deref(), Ok("1"));
        assert_eq!(value(r#""/Expr(x + 1)/""#).as_deref(), Ok(r#""/Expr(x + 1)/""#));
        assert!(value(r#""\/Expr(bad +)\/""#).is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(value(r#""\u00e9\u0041""#).as_deref(), Ok(r#""\303\251A""#));
        assert_eq!(value(r#""\ud83d\ude00""#).as_deref(), Ok(r#""\360\237\230\200""#));
        assert!(value(r#""\ud83d""#).is_err());
        assert!(value(r#""\u00""#).is_err());
        assert_eq!(value(r#""\x\/""#).as_deref(), Ok(r#""x/""#));
    }

    #[test]
    fn objects() {
        assert_eq!(parse(r#"{"a": 1, "A": 2,}"#).map(|ad| ad.to_string()).ok().as_deref(), Some("[ a = 2 ]"));
        assert!(parse(r#"{"": 1}"#).is_err());
        assert!(parse(r#"{"a" 1}"#).is_err());
        assert!(parse(r#"{"a": [1,]}"#).is_err());
        assert!(parse(r#"{"a": 1} x"#).is_err());
    }

    #[test]
    fn writing() {
        let ad: ClassAd = r#"[ a = 1; b = 2.5; c = "q\"\t\001"; d = undefined; e = error; f = { 1, [ g = x + 1 ] }; h = { }; i = [ ] ]"#
            .parse()
            .expect("ad");
        let mut out = String::new();
        write_ad(&mut out, &ad, 0);
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"b\": 2.5,\n  \"c\": \"q\\\"\\t\\u0001\",\n  \"d\": null,\n  \"e\": \"\\/Expr(error)\\/\",\n  \
             \"f\": [\n    1,\n    {\n      \"g\": \"\\/Expr(x + 1)\\/\"\n    }\n  ],\n  \"h\": [\n  ],\n  \"i\": {\n  }\n}"
        );
    }
}
