//! XML as `condor_status -xml` writes it:
//!
//! ```text
//! <?xml version="1.0"?>
//! <!DOCTYPE classads SYSTEM "classads.dtd">
//! <classads>
//! <c>
//!     <a n="Cpus"><i>8</i></a>
//!     <a n="Start"><e>KeyboardIdle &gt; 15 * 60</e></a>
//! </c>
//! </classads>
//! ```
//!
//! Values are `<i>` integers, `<r>` reals, `<s>` strings (with new-syntax
//! escapes inside), `<b v="t"/>` booleans, `<un/>` UNDEFINED, `<er/>`
//! ERROR, `<at>` absolute and `<rt>` relative times (`<rt>3+01:14:16</rt>`,
//! the text of `relTime("...")`), `<l>` lists, `<c>` nested ads and `<e>`
//! any other expression in new syntax.

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

use super::source::Frame;
use super::{position_after, FormatError, FormatErrorKind, Next, Reader, State};
use crate::ad::ClassAd;
use crate::expr::{Expr, Literal, Node, Repr};
use crate::name::Name;
use crate::parser::{ParseErrorKind, Parser, Syntax};
use crate::print;
use crate::time::{AbsTime, RelTime};

/// What [`Writer`](super::Writer) writes before the first ad.
pub(crate) const HEADER: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";

/// Reads the next ad of an XML stream.
pub(super) fn next_ad<R: BufRead>(reader: &mut Reader<R>) -> std::io::Result<Next> {
    loop {
        match reader.source.skip_space()? {
            None => return Ok(Next::End),
            Some(b'<') => {}
            Some(_) => return Ok(bad(reader, "expected a tag")),
        }
        let (line, column) = (reader.source.line(), reader.source.column());
        reader.buf.clear();
        let mut tag = TagScan::default();
        match reader.source.read_frame(&mut reader.buf, 4096, |b| tag.step(b))? {
            Frame::Complete => {}
            Frame::End | Frame::TooLong => {
                let error =
                    FormatError::new(reader.count + 1, line, column, FormatErrorKind::Malformed, "unterminated tag");
                return Ok(Next::Bad { error, recoverable: false });
            }
        }
        let text = String::from_utf8_lossy(&reader.buf).into_owned();
        match tag_name(&text) {
            "?" | "!" => continue,
            "classads" => reader.state = State::List { first: true },
            "/classads" => {
                reader.state = State::Done;
                return Ok(Next::End);
            }
            "c" => return read_ad(reader, text, line, column),
            other => {
                let error = FormatError::new(
                    reader.count + 1,
                    line,
                    column,
                    FormatErrorKind::Malformed,
                    format!("unexpected tag <{}>", crate::excerpt::quote(other)),
                );
                return Ok(Next::Bad { error, recoverable: false });
            }
        }
    }
}

/// An error that ends the stream.
fn bad<R: BufRead>(reader: &Reader<R>, message: &str) -> Next {
    Next::Bad {
        error: reader.error_here(reader.source.column(), FormatErrorKind::Malformed, message),
        recoverable: false,
    }
}

/// The name of the tag `text` (`<name ...>`): `?` for `<?...?>`, `!` for
/// comments and declarations, `/name` for closing tags.
fn tag_name(text: &str) -> &str {
    let inner = text.trim_start_matches('<');
    if inner.starts_with('?') || inner.starts_with('!') {
        return &inner[..1];
    }
    let end = inner.find(|c: char| c.is_ascii_whitespace() || c == '>' || (c == '/' && !inner.starts_with('/')));
    &inner[..end.unwrap_or(inner.len())]
}

/// Finds the end of one tag (`>`, quotes respected), or of a
/// `<!-- ... -->` comment.
#[derive(Default)]
struct TagScan {
    head: [u8; 4],
    seen: usize,
    comment: bool,
    /// The two bytes before the current one, in a comment.
    tail: [u8; 2],
    quote: Option<u8>,
}

impl TagScan {
    fn step(&mut self, b: u8) -> bool {
        if self.seen < 4 {
            self.head[self.seen] = b;
        }
        self.seen += 1;
        if self.seen == 4 && self.head == *b"<!--" {
            self.comment = true;
            return true;
        }
        if self.comment {
            let end = b == b'>' && self.tail == *b"--" && self.seen > 6;
            self.tail = [self.tail[1], b];
            return !end;
        }
        match (self.quote, b) {
            (Some(q), _) if q == b => self.quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => self.quote = Some(b),
            (None, b'>') => return false,
            _ => {}
        }
        true
    }
}

/// Finds the `</c>` closing an ad whose `<c>` has been read.
struct AdScan {
    depth: usize,
    /// Bytes of the current tag so far (`<` included); empty in text.
    tag: Vec<u8>,
    comment: bool,
}

impl AdScan {
    fn step(&mut self, b: u8) -> bool {
        if self.tag.is_empty() {
            if b == b'<' {
                self.tag.push(b);
            }
            return true;
        }
        self.tag.push(b);
        if self.tag.len() == 4 && self.tag == b"<!--" {
            self.comment = true;
        }
        if b != b'>' || (self.comment && !self.tag.ends_with(b"-->")) {
            return true;
        }
        let tag = std::mem::take(&mut self.tag);
        self.comment = false;
        let text = String::from_utf8_lossy(&tag);
        match tag_name(&text) {
            "c" if !tag.ends_with(b"/>") => self.depth += 1,
            "/c" => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth > 0;
            }
            _ => {}
        }
        true
    }
}

/// Reads the rest of the ad whose opening tag (`<c>`) is `open`.
fn read_ad<R: BufRead>(reader: &mut Reader<R>, open: String, line: usize, column: usize) -> std::io::Result<Next> {
    reader.buf.clear();
    reader.buf.extend_from_slice(open.as_bytes());
    if !open.ends_with("/>") {
        let mut scan = AdScan { depth: 1, tag: Vec::new(), comment: false };
        if let Some(bad) = reader.read_ad_frame(line, column, |b| scan.step(b))? {
            return Ok(bad);
        }
    }
    let ad = reader.count + 1;
    let text = match reader.ad_text(line, column) {
        Ok(text) => text,
        Err(bad) => return Ok(bad),
    };
    let mut parser = XmlParser { text, at: 0, depth: 0, expressions: reader.parser(Syntax::New) };
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

/// A tag as read: its name, its `v` or `n` attribute, whether it closed
/// itself.
struct Tag<'t> {
    name: &'t str,
    attribute: Option<Cow<'t, str>>,
    empty: bool,
}

/// Parses one `<c>` element into an ad.
struct XmlParser<'t> {
    text: &'t str,
    at: usize,
    depth: u32,
    expressions: Parser,
}

impl<'t> XmlParser<'t> {
    fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err((self.at, FormatErrorKind::Malformed, message.into()))
    }

    /// Skips white space and comments.
    fn skip(&mut self) -> Parsed<()> {
        loop {
            let rest = &self.text[self.at..];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if !trimmed.starts_with("<!--") {
                return Ok(());
            }
            match trimmed.find("-->") {
                Some(end) => self.at += end + 3,
                None => return self.error("unterminated comment"),
            }
        }
    }

    /// Reads a tag at the current position.
    fn tag(&mut self) -> Parsed<Tag<'t>> {
        self.skip()?;
        let rest = &self.text[self.at..];
        if !rest.starts_with('<') {
            return self.error("expected a tag");
        }
        let Some(end) = find_tag_end(rest) else {
            return self.error("unterminated tag");
        };
        let inner = &rest[1..end];
        let (inner, empty) = match inner.strip_suffix('/') {
            Some(inner) => (inner, true),
            None => (inner, false),
        };
        let name_end = inner.find(|c: char| c.is_ascii_whitespace()).unwrap_or(inner.len());
        let name = &inner[..name_end];
        let attribute = match parse_attribute(&inner[name_end..]) {
            Ok(attribute) => attribute,
            Err(message) => return self.error(message),
        };
        self.at += end + 1;
        Ok(Tag { name, attribute, empty })
    }

    /// Reads `</name>`.
    fn close(&mut self, name: &str) -> Parsed<()> {
        let start = self.at;
        let tag = self.tag()?;
        if tag.name.strip_prefix('/') != Some(name) {
            return Err((start, FormatErrorKind::Malformed, format!("expected </{}>", crate::excerpt::quote(name))));
        }
        Ok(())
    }

    /// The text up to the next `<`, with entities decoded.
    fn text(&mut self) -> Parsed<Cow<'t, str>> {
        let rest = &self.text[self.at..];
        let end = rest.find('<').unwrap_or(rest.len());
        let raw = &rest[..end];
        let decoded = decode_entities(raw).map_err(|message| (self.at, FormatErrorKind::Malformed, message))?;
        self.at += end;
        Ok(decoded)
    }

    /// The whole text: one `<c>` element.
    fn ad(&mut self) -> Parsed<ClassAd> {
        let tag = self.tag()?;
        if tag.name != "c" {
            return self.error("expected <c>");
        }
        let ad = if tag.empty { ClassAd::new() } else { self.ad_body()? };
        self.skip()?;
        if self.at < self.text.len() {
            return self.error("unexpected text after the ad");
        }
        Ok(ad)
    }

    /// The attributes of an ad after its `<c>`, and its `</c>`.
    fn ad_body(&mut self) -> Parsed<ClassAd> {
        let mut attributes = Vec::new();
        loop {
            let start = self.at;
            let tag = self.tag()?;
            match tag.name {
                "/c" => return Ok(ClassAd::from_attributes(attributes)),
                "a" if !tag.empty => {
                    let name = match tag.attribute {
                        Some(name) if !name.is_empty() => name,
                        _ => {
                            return Err((
                                start,
                                FormatErrorKind::Malformed,
                                "an attribute needs a non-empty n=\"name\"".to_string(),
                            ))
                        }
                    };
                    let name =
                        Name::try_new(&name).map_err(|e| (start, FormatErrorKind::TooManyNames, e.to_string()))?;
                    let value = self.value()?;
                    self.close("a")?;
                    attributes.push((name, value));
                }
                other => {
                    return Err((
                        start,
                        FormatErrorKind::Malformed,
                        format!("expected <a n=\"...\"> or </c>, found <{other}>"),
                    ))
                }
            }
        }
    }

    fn value(&mut self) -> Parsed<Expr> {
        if self.depth >= self.expressions.limits().max_depth {
            return self.error("values nested too deeply");
        }
        self.depth += 1;
        let value = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value_inner());
        self.depth -= 1;
        value
    }

    fn value_inner(&mut self) -> Parsed<Expr> {
        let start = self.at;
        let tag = self.tag()?;
        let at = |message: String| (start, FormatErrorKind::Malformed, message);
        let literal = |l: Literal| Ok(Expr::literal(l));
        match tag.name {
            "un" => return self.finish(tag, Expr::literal(Literal::Undefined)),
            "er" => return self.finish(tag, Expr::literal(Literal::Error)),
            "b" => {
                let value = match tag.attribute.as_deref() {
                    Some("t" | "true") => true,
                    Some("f" | "false") => false,
                    _ => return Err(at("<b> needs v=\"t\" or v=\"f\"".to_string())),
                };
                return self.finish(tag, Expr::literal(Literal::Bool(value)));
            }
            "l" => {
                let mut items = Vec::new();
                if !tag.empty {
                    loop {
                        self.skip()?;
                        if self.text[self.at..].starts_with("</") {
                            self.close("l")?;
                            break;
                        }
                        items.push(self.value()?);
                    }
                }
                return Ok(Expr::node(Node::List(items.into())));
            }
            "c" => {
                let ad = if tag.empty { ClassAd::new() } else { self.ad_body()? };
                return Ok(Expr::node(Node::Record(Arc::new(ad))));
            }
            "i" | "r" | "s" | "at" | "rt" | "e" => {}
            other => return Err(at(format!("unknown value tag <{}>", crate::excerpt::quote(other)))),
        }
        let content = if tag.empty { Cow::Borrowed("") } else { self.text()? };
        if !tag.empty {
            self.close(tag.name)?;
        }
        match tag.name {
            "i" => literal(Literal::Int(
                content
                    .trim()
                    .parse()
                    .map_err(|_| at(format!("not an integer: `{}`", crate::excerpt::quote(content.trim()))))?,
            )),
            "r" => literal(Literal::Real(
                content
                    .trim()
                    .parse()
                    .map_err(|_| at(format!("not a real: `{}`", crate::excerpt::quote(content.trim()))))?,
            )),
            "s" => {
                let text = crate::lexer::unescape(&content)
                    .map_err(|e| (start, FormatErrorKind::Parse(ParseErrorKind::Lex(e)), e.message().to_string()))?;
                literal(Literal::Str(text.as_ref().into()))
            }
            "at" => literal(Literal::AbsTime(
                AbsTime::parse(content.trim())
                    .ok_or_else(|| at(format!("not a time: `{}`", crate::excerpt::quote(content.trim()))))?,
            )),
            "rt" => literal(Literal::RelTime(
                RelTime::parse(content.trim())
                    .ok_or_else(|| at(format!("not a relative time: `{}`", crate::excerpt::quote(content.trim()))))?,
            )),
            _ => self
                .expressions
                .parse_expr(&content)
                .map_err(|e| (start, FormatErrorKind::Parse(e.kind()), format!("in <e>: {e}"))),
        }
    }

    /// A value tag without content: `<un/>` or `<un></un>`.
    fn finish(&mut self, tag: Tag<'_>, value: Expr) -> Parsed<Expr> {
        if !tag.empty {
            let name = tag.name.to_string();
            self.close(&name)?;
        }
        Ok(value)
    }
}

/// The offset of the `>` that ends the tag at the start of `text`, quotes
/// respected.
fn find_tag_end(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, b) in text.bytes().enumerate() {
        match (quote, b) {
            (Some(q), _) if q == b => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The value of the one attribute (`n="..."` or `v="..."`) of a tag, if any.
fn parse_attribute(text: &str) -> Result<Option<Cow<'_, str>>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let Some((_, value)) = text.split_once('=') else {
        return Err(format!("malformed attribute `{}`", crate::excerpt::quote(text)));
    };
    let value = value.trim();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'');
    let inner = quote
        .and_then(|q| value[1..].strip_suffix(q))
        .ok_or_else(|| format!("malformed attribute `{}`", crate::excerpt::quote(text)))?;
    decode_entities(inner).map(Some)
}

/// Decodes `&lt; &gt; &amp; &quot; &apos;` and numeric character
/// references.
fn decode_entities(text: &str) -> Result<Cow<'_, str>, String> {
    if !text.contains('&') {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let Some(semi) = after.find(';') else {
            return Err("`&` without `;`".to_string());
        };
        let entity = &after[..semi];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => match entity.strip_prefix('#') {
                Some(hex) if hex.starts_with(['x', 'X']) => {
                    u32::from_str_radix(&hex[1..], 16).ok().and_then(char::from_u32)
                }
                Some(decimal) => decimal.parse().ok().and_then(char::from_u32),
                None => None,
            },
        };
        match decoded {
            Some(c) => out.push(c),
            None => return Err(format!("unknown entity `&{};`", crate::excerpt::quote(entity))),
        }
        rest = &after[semi + 1..];
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// Appends `ad` as a `<c>` element whose attributes are indented by
/// `indent + 4` spaces; its closing tag is indented by `indent`.
pub(crate) fn write_ad(out: &mut String, ad: &ClassAd, indent: usize) {
    out.push_str("<c>\n");
    for (name, value) in ad.iter() {
        push_indent(out, indent + 4);
        out.push_str("<a n=\"");
        escape_into(out, name.as_str(), true);
        out.push_str("\">");
        write_value(out, value, indent + 4);
        out.push_str("</a>\n");
    }
    push_indent(out, indent);
    out.push_str("</c>");
    if indent == 0 {
        out.push('\n');
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn write_value(out: &mut String, value: &Expr, indent: usize) {
    match &value.0 {
        Repr::Lit(literal) => match literal {
            Literal::Undefined => out.push_str("<un/>"),
            Literal::Error => out.push_str("<er/>"),
            Literal::Bool(b) => out.push_str(if *b { "<b v=\"t\"/>" } else { "<b v=\"f\"/>" }),
            Literal::Int(i) => {
                out.push_str("<i>");
                out.push_str(&i.to_string());
                out.push_str("</i>");
            }
            Literal::Real(r) => write_real(out, *r, value),
            // As libclassad writes a relative-time value: the text of
            // `relTime("...")`, which `<rt>` reads back.
            Literal::RelTime(t) if t.0.is_finite() => {
                out.push_str("<rt>");
                let _ = t.write_with_fraction(out);
                out.push_str("</rt>");
            }
            Literal::RelTime(_) => write_expression(out, value),
            Literal::Str(s) => {
                out.push_str("<s>");
                // New syntax's escapes, but for the quote, then XML's.
                let mut escaped = String::new();
                let _ = print::write_escaped(&mut escaped, s, None);
                escape_into(out, &escaped, false);
                out.push_str("</s>");
            }
            Literal::AbsTime(t) => {
                out.push_str("<at>");
                out.push_str(&t.to_string());
                out.push_str("</at>");
            }
        },
        Repr::Node(node) => match &node.node {
            Node::List(items) => {
                out.push_str("<l>");
                for item in items.iter() {
                    write_value(out, item, indent);
                }
                out.push_str("</l>");
            }
            Node::Record(ad) => write_ad(out, ad, indent),
            _ => write_expression(out, value),
        },
    }
}

/// `<r>` with new syntax's real notation (zero as `0.0`, as libclassad
/// writes it), or `<e>` for infinities and NaN.
fn write_real(out: &mut String, r: f64, value: &Expr) {
    if !r.is_finite() {
        return write_expression(out, value);
    }
    out.push_str("<r>");
    if r == 0.0 {
        out.push_str("0.0");
    } else {
        let _ = print::write_real(out, r);
    }
    out.push_str("</r>");
}

fn write_expression(out: &mut String, value: &Expr) {
    out.push_str("<e>");
    let mut text = String::new();
    let _ = print::write_expr(&mut text, value, Syntax::New, 0);
    escape_into(out, &text, false);
    out.push_str("</e>");
}

/// XML-escapes `<`, `>`, `&` (and `"` in attribute values).
fn escape_into(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<String, String> {
        let mut parser = XmlParser { text, at: 0, depth: 0, expressions: Parser::default() };
        parser.ad().map(|ad| ad.to_string()).map_err(|(_, _, message)| message)
    }

    #[test]
    fn reading() {
        assert_eq!(
            parse(r#"<c><a n="a"><s>a\tb &lt;&amp;&quot;&#65;</s></a></c>"#).as_deref(),
            Ok(r#"[ a = "a\tb <&\"A" ]"#)
        );
        assert_eq!(parse(r#"<c>  <a n = "a" > <i> 12 </i> </a> <!-- x --> </c>"#).as_deref(), Ok("[ a = 12 ]"));
        assert_eq!(
            parse(r#"<c><a n="a"><b v="t"/></a><a n="b"><un/></a><a n="c"><er/></a><a n="d"><r>2</r></a></c>"#)
                .as_deref(),
            Ok("[ a = true; b = undefined; c = error; d = 2.000000000000000E+00 ]")
        );
        assert_eq!(
            parse(r#"<c><a n="a"><l><i>1</i><l></l><c><a n="b"><s/></a></c></l></a></c>"#).as_deref(),
            Ok(r#"[ a = { 1,{  },[ b = "" ] } ]"#)
        );
        assert_eq!(parse(r#"<c><a n="a"><rt>90</rt></a></c>"#).as_deref(), Ok(r#"[ a = relTime("01:30") ]"#));
        assert_eq!(parse(r#"<c><a n="a"><e>x &gt; 1</e></a></c>"#).as_deref(), Ok("[ a = x > 1 ]"));
        for bad in [
            r#"<c><a n="a"><i>1.5</i></a></c>"#,
            r#"<c><a n=""><i>1</i></a></c>"#,
            r#"<c><a n="a"><x>1</x></a></c>"#,
            r#"<c><a n="a"><i>1</i></c>"#,
            r#"<c><a n="a"></a></c>"#,
            r#"<c><a n="a"><e>bad +</e></a></c>"#,
            r#"<c><a n="a"><s>&bogus;</s></a></c>"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn writing() {
        let ad: ClassAd = r#"[ a = { [ b = 1 ], 3 }; s = "q\"<\\é"; e = x < 1; m = -0.0; n = real("NaN"); t = true ]"#
            .parse()
            .expect("ad");
        let mut out = String::new();
        write_ad(&mut out, &ad, 0);
        assert_eq!(
            out,
            "<c>\n    <a n=\"a\"><l><c>\n        <a n=\"b\"><i>1</i></a>\n    </c><i>3</i></l></a>\n    \
             <a n=\"s\"><s>q\"&lt;\\\\\\303\\251</s></a>\n    <a n=\"e\"><e>x &lt; 1</e></a>\n    \
             <a n=\"m\"><r>0.0</r></a>\n    <a n=\"n\"><e>real(\"NaN\")</e></a>\n    <a n=\"t\"><b v=\"t\"/></a>\n</c>\n"
        );
    }

    #[test]
    fn tag_names() {
        assert_eq!(tag_name("<c>"), "c");
        assert_eq!(tag_name("<c/>"), "c");
        assert_eq!(tag_name("</c>"), "/c");
        assert_eq!(tag_name("<classads>"), "classads");
        assert_eq!(tag_name("<?xml version=\"1.0\"?>"), "?");
        assert_eq!(tag_name("<!-- c -->"), "!");
        assert_eq!(tag_name("<a n=\"x\">"), "a");
    }
}
