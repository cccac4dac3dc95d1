//! Canonical new-syntax printing, exactly as libclassad unparses.
//!
//! * binary operators with single spaces: `a + b`, `a is b`;
//! * unary operators with a leading space: ` -x`, ` !x`;
//! * `c ? a : b`, `a ?: b`, `f(a,b)`, `a.b`, `a[i]`, `(e)`;
//! * lists `{ a,b }` (empty `{  }`), ads `[ a = 1; b = 2 ]` (empty `[  ]`);
//! * reals `%1.15E` (`1.500000000000000E+00`), `0.0`, `-0.0`, `real("INF")`,
//!   `real("-INF")`, `real("NaN")`;
//! * strings with `\a \b \f \n \r \t \v \\ \"` escapes and other control and
//!   non-ASCII bytes as three-digit octal (`"é"` is `"\303\251"`);
//! * names quoted `'...'` when they are not identifiers or are reserved words.

use std::fmt::{self, Write};

use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Literal, Node, Repr};
use crate::lexer::Syntax;
use crate::name::Name;

/// How many levels of nesting are printed before checking the stack.
const STACK_CHECK_INTERVAL: u32 = 32;

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, Syntax::New, 0)
    }
}

/// An expression or ad printed in a given syntax: see [`Expr::display`] and
/// [`ClassAd::display`].
#[derive(Clone, Copy, Debug)]
pub struct Displayed<'a, T> {
    item: &'a T,
    style: Style,
}

impl<T> Displayed<'_, T> {
    /// Prints in libclassad's multi-line layout (its `PrettyPrint`, what
    /// `str()` of a ClassAd gives in HTCondor's Python bindings): every
    /// ad and list starts on a line of its own, an ad's brackets indented
    /// four columns past the line they belong to and its attributes four
    /// more, a list's braces three columns past it and its items three
    /// more; attributes end in `"; "` and items in `","`.
    ///
    /// ```
    /// use classad::{ClassAd, Syntax};
    /// let ad: ClassAd = "[ a = 1; l = {2, 3} ]".parse()?;
    /// assert_eq!(
    ///     ad.display(Syntax::New).pretty().to_string(),
    ///     "\n    [\n        a = 1; \n        l = \n           {\n              2,\n              3\n           }\n    ]",
    /// );
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn pretty(self) -> Self {
        Displayed { style: Style { indent: Some(0), ..self.style }, ..self }
    }
}

/// How to print: the syntax, and for the multi-line layout the column of
/// the line being written (`None` prints on one line).
#[derive(Clone, Copy, Debug)]
struct Style {
    syntax: Syntax,
    indent: Option<u32>,
}

impl Style {
    fn one_line(syntax: Syntax) -> Style {
        Style { syntax, indent: None }
    }

    /// The style of what starts a new line at `column`.
    fn at(self, column: u32) -> Style {
        Style { indent: Some(column), ..self }
    }
}

impl Expr {
    /// The expression printed in `syntax` (`Display` prints new syntax).
    ///
    /// Old syntax differs in reals (`%.16G`: `2.5`, `1E+20`), strings (only
    /// `"` is escaped), and `=?=`/`=!=` for `is`/`isnt`, as libclassad's
    /// old-syntax unparser writes them.
    ///
    /// ```
    /// use classad::{Expr, Syntax};
    /// let e: Expr = r#"x is 2.5 && y == "a\\b""#.parse()?;
    /// assert_eq!(e.to_string(), r#"x is 2.500000000000000E+00 && y == "a\\b""#);
    /// assert_eq!(e.display(Syntax::Old).to_string(), r#"x =?= 2.5 && y == "a\b""#);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn display(&self, syntax: Syntax) -> Displayed<'_, Expr> {
        Displayed { item: self, style: Style::one_line(syntax) }
    }
}

impl ClassAd {
    /// The ad as a record `[ a = 1; b = 2 ]` in `syntax` (`Display` prints
    /// new syntax); [`Displayed::pretty`] prints it over several lines.
    ///
    /// ```
    /// use classad::{ClassAd, Syntax};
    /// let ad: ClassAd = "[ a = 0.5; b = x isnt y ]".parse()?;
    /// assert_eq!(ad.display(Syntax::Old).to_string(), "[ a = 0.5; b = x =!= y ]");
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn display(&self, syntax: Syntax) -> Displayed<'_, ClassAd> {
        Displayed { item: self, style: Style::one_line(syntax) }
    }
}

impl fmt::Display for Displayed<'_, Expr> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_styled(f, self.item, self.style, 0)
    }
}

impl fmt::Display for Displayed<'_, ClassAd> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_styled_ad(f, self.item, self.style, 0)
    }
}

/// Writes `expr` in `syntax`, on one line.
pub(crate) fn write_expr(f: &mut dyn Write, expr: &Expr, syntax: Syntax, level: u32) -> fmt::Result {
    write_styled(f, expr, Style::one_line(syntax), level)
}

fn write_styled(f: &mut dyn Write, expr: &Expr, style: Style, level: u32) -> fmt::Result {
    let node = match &expr.0 {
        Repr::Lit(literal) => return write_literal(f, literal, style.syntax),
        Repr::Node(node) => &node.node,
    };
    if level % STACK_CHECK_INTERVAL == STACK_CHECK_INTERVAL - 1 {
        return stacker::maybe_grow(64 * 1024, 1024 * 1024, || write_node(f, node, style, level + 1));
    }
    write_node(f, node, style, level + 1)
}

fn write_node(f: &mut dyn Write, node: &Node, style: Style, level: u32) -> fmt::Result {
    let syntax = style.syntax;
    match node {
        Node::Attr(name) => write_name(f, *name, syntax),
        Node::RootAttr(name) => {
            f.write_char('.')?;
            write_name(f, *name, syntax)
        }
        Node::Select(scope, name) => {
            write_styled(f, scope, style, level)?;
            // `0 .n` printed as libclassad does, `0.n`, reads back as the
            // malformed real `0.` and a name: a space keeps it one selection.
            if matches!(scope.0, Repr::Lit(Literal::Int(_))) {
                f.write_char(' ')?;
            }
            f.write_char('.')?;
            if crate::name::needs_quotes_after_dot(name.as_str()) {
                write_quoted_name(f, name.as_str(), syntax)
            } else {
                f.write_str(name.as_str())
            }
        }
        Node::Index(base, index) => {
            write_styled(f, base, style, level)?;
            f.write_char('[')?;
            write_styled(f, index, style, level)?;
            f.write_char(']')
        }
        Node::Unary(op, operand) => {
            f.write_char(' ')?;
            f.write_str(op.symbol())?;
            write_styled(f, operand, style, level)
        }
        Node::Binary(op, left, right) => {
            write_styled(f, left, style, level)?;
            let symbol = match (syntax, op) {
                (Syntax::Old, BinaryOp::Is) => "=?=",
                (Syntax::Old, BinaryOp::Isnt) => "=!=",
                _ => op.symbol(),
            };
            f.write_char(' ')?;
            f.write_str(symbol)?;
            f.write_char(' ')?;
            write_styled(f, right, style, level)
        }
        Node::Cond(cond, then, otherwise) => {
            write_styled(f, cond, style, level)?;
            f.write_str(" ? ")?;
            write_styled(f, then, style, level)?;
            f.write_str(" : ")?;
            write_styled(f, otherwise, style, level)
        }
        Node::Elvis(left, right) => {
            write_styled(f, left, style, level)?;
            f.write_str(" ?: ")?;
            write_styled(f, right, style, level)
        }
        Node::Paren(inner) => {
            f.write_char('(')?;
            write_styled(f, inner, style, level)?;
            f.write_char(')')
        }
        Node::Call(call) => {
            f.write_str(call.name.as_str())?;
            f.write_char('(')?;
            for (i, arg) in call.args.iter().enumerate() {
                if i > 0 {
                    f.write_char(',')?;
                }
                write_styled(f, arg, style, level)?;
            }
            f.write_char(')')
        }
        Node::List(items) => write_styled_list(f, items, style, level),
        Node::Record(ad) => write_styled_ad(f, ad, style, level),
    }
}

/// Writes a new line and `column` spaces.
fn new_line(f: &mut dyn Write, column: u32) -> fmt::Result {
    f.write_char('\n')?;
    (0..column).try_for_each(|_| f.write_char(' '))
}

/// Writes a list `{ a,b }` in `syntax`, on one line.
pub(crate) fn write_list(f: &mut dyn Write, items: &[Expr], syntax: Syntax, level: u32) -> fmt::Result {
    write_styled_list(f, items, Style::one_line(syntax), level)
}

fn write_styled_list(f: &mut dyn Write, items: &[Expr], style: Style, level: u32) -> fmt::Result {
    let Some(indent) = style.indent else {
        f.write_str("{ ")?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write_styled(f, item, style, level)?;
        }
        return f.write_str(" }");
    };
    let (braces, entries) = (indent + 3, indent + 6);
    new_line(f, braces)?;
    f.write_char('{')?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        new_line(f, entries)?;
        write_styled(f, item, style.at(entries), level)?;
    }
    new_line(f, braces)?;
    f.write_char('}')
}

/// Writes an ad `[ a = 1; b = 2 ]` in `syntax`, on one line.
pub(crate) fn write_ad(f: &mut dyn Write, ad: &ClassAd, syntax: Syntax, level: u32) -> fmt::Result {
    write_styled_ad(f, ad, Style::one_line(syntax), level)
}

fn write_styled_ad(f: &mut dyn Write, ad: &ClassAd, style: Style, level: u32) -> fmt::Result {
    let attribute = |f: &mut dyn Write, name: Name, value: &Expr, style: Style| {
        write_name(f, name, style.syntax)?;
        f.write_str(" = ")?;
        write_styled(f, value, style, level)
    };
    let Some(indent) = style.indent else {
        f.write_str("[ ")?;
        for (i, (name, value)) in ad.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            attribute(f, name, value, style)?;
        }
        return f.write_str(" ]");
    };
    let (brackets, entries) = (indent + 4, indent + 8);
    new_line(f, brackets)?;
    f.write_char('[')?;
    for (i, (name, value)) in ad.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        new_line(f, entries)?;
        attribute(f, name, value, style.at(entries))?;
    }
    new_line(f, brackets)?;
    f.write_char(']')
}

/// An attribute name, bare or quoted.
pub(crate) fn write_name(f: &mut dyn Write, name: Name, syntax: Syntax) -> fmt::Result {
    if name.needs_quotes() {
        write_quoted_name(f, name.as_str(), syntax)
    } else {
        f.write_str(name.as_str())
    }
}

fn write_quoted_name(f: &mut dyn Write, text: &str, syntax: Syntax) -> fmt::Result {
    match syntax {
        Syntax::New => write_quoted(f, text, '\''),
        Syntax::Old => write_quoted_old(f, text, '\''),
    }
}

/// Writes the ad on one line: `[ a = 1; b = "x" ]`.
///
/// ```
/// use classad::ClassAd;
/// let ad: ClassAd = "[b = 1 + 1; a = \"x\"]".parse().unwrap();
/// assert_eq!(ad.to_string(), "[ b = 1 + 1; a = \"x\" ]");
/// ```
impl fmt::Display for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_ad(f, self, Syntax::New, 0)
    }
}

/// Writes the name as new ClassAd syntax: bare, or quoted when needed.
///
/// ```
/// use classad::Name;
/// assert_eq!(Name::new("Cpus").to_string(), "Cpus");
/// assert_eq!(Name::new("my attr").to_string(), "'my attr'");
/// assert_eq!(Name::new("true").to_string(), "'true'");
/// ```
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.needs_quotes() {
            write_quoted(f, self.as_str(), '\'')
        } else {
            f.write_str(self.as_str())
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_literal(f, self, Syntax::New)
    }
}

/// Writes a literal in `syntax`.
pub(crate) fn write_literal(f: &mut dyn Write, literal: &Literal, syntax: Syntax) -> fmt::Result {
    match literal {
        Literal::Undefined => f.write_str("undefined"),
        Literal::Error => f.write_str("error"),
        Literal::Bool(true) => f.write_str("true"),
        Literal::Bool(false) => f.write_str("false"),
        Literal::Int(i) => write!(f, "{i}"),
        Literal::Real(r) => match syntax {
            Syntax::New => write_real(f, *r),
            Syntax::Old => write_real_old(f, *r),
        },
        Literal::Str(s) => match syntax {
            Syntax::New => write_quoted(f, s, '"'),
            Syntax::Old => write_quoted_old(f, s, '"'),
        },
        Literal::AbsTime(t) => write!(f, "absTime(\"{t}\")"),
        Literal::RelTime(t) => {
            f.write_str("relTime(\"")?;
            t.write_with_fraction(f)?;
            f.write_str("\")")
        }
    }
}

/// Writes a real as libclassad's old-syntax unparser does: C's `%.16G`,
/// with `.0` added when that looks like an integer (`2.0`, `1E+20`).
pub(crate) fn write_real_old(f: &mut dyn Write, r: f64) -> fmt::Result {
    if !r.is_finite() {
        return write_real(f, r);
    }
    f.write_str(real_old_text(r, &mut RealText::new()))
}

/// Room for the old-syntax text of any finite real: a sign, 16 digits, a
/// point, `0.000` before them or `E-308` after.
pub(crate) struct RealText([u8; 32]);

impl RealText {
    pub(crate) fn new() -> RealText {
        RealText([0; 32])
    }
}

/// The old-syntax text of a finite real (`%.16G` and the `.0` rule),
/// written into `buf` without allocating: whole numbers below 10^15 as
/// their digits (most reals of real ads are whole: `TotalCpus`, `0.0`),
/// the rest from Rust's exact `{:.15e}` (16 significant digits, rounded
/// as `%.16G` rounds them), laid out as `%G` lays them out.
pub(crate) fn real_old_text(r: f64, buf: &mut RealText) -> &str {
    debug_assert!(r.is_finite());
    if r.abs() < 1e15 && r.fract() == 0.0 {
        return whole_real_old(r, &mut buf.0);
    }
    // `d.ddddddddddddddde-X`: 16 digits and the exponent %e shows.
    let mut sci = Cursor { buf: [0; 32], len: 0 };
    let _ = write!(sci, "{:.15e}", r.abs());
    let sci = &sci.buf[..sci.len];
    let digits: [u8; 16] = {
        let mut d = [b'0'; 16];
        d[0] = sci[0];
        d[1..].copy_from_slice(&sci[2..17]);
        d
    };
    let exponent = std::str::from_utf8(&sci[18..]).ok().and_then(|e| e.parse::<i32>().ok()).unwrap_or(0);
    let out = &mut buf.0;
    let mut len = 0;
    let mut push = |out: &mut [u8; 32], bytes: &[u8]| {
        out[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    if r.is_sign_negative() {
        push(out, b"-");
    }
    // Without `#`, %G drops the fraction's trailing zeros and a bare point.
    let significant = 16 - digits.iter().rev().take_while(|&&d| d == b'0').count();
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let whole = exponent as usize + 1;
            push(out, &digits[..whole]);
            if significant > whole {
                push(out, b".");
                push(out, &digits[whole..significant]);
            } else {
                // The `.0` rule: text that reads as an integer.
                push(out, b".0");
            }
        } else {
            push(out, b"0.");
            push(out, &b"0000"[..(-exponent - 1) as usize]);
            push(out, &digits[..significant]);
        }
    } else {
        push(out, &digits[..1]);
        if significant > 1 {
            push(out, b".");
            push(out, &digits[1..significant]);
        }
        push(out, if exponent < 0 { b"E-" } else { b"E+" });
        // At least two digits, at most three (10^-324 to 10^308).
        let e = exponent.unsigned_abs();
        if e >= 100 {
            push(out, &[b'0' + (e / 100) as u8]);
        }
        push(out, &[b'0' + (e / 10 % 10) as u8, b'0' + (e % 10) as u8]);
    }
    std::str::from_utf8(&out[..len]).unwrap_or("")
}

/// A `fmt::Write` into a fixed array (the `{:e}` text of a real fits).
struct Cursor {
    buf: [u8; 32],
    len: usize,
}

impl Write for Cursor {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The old-syntax text of a real that is a whole number below 10^15 in
/// magnitude, written into `buf`: its digits and `.0`, which is what
/// `%.16G` (all digits, no exponent below 10^16) and the `.0` rule give,
/// without formatting.
fn whole_real_old(r: f64, buf: &mut [u8; 32]) -> &str {
    // Exact: a whole number below 2^53 converts without loss.
    let whole = r as i64;
    let mut end = buf.len() - 2;
    buf[end..].copy_from_slice(b".0");
    let mut n = whole.unsigned_abs();
    loop {
        end -= 1;
        buf[end] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if r.is_sign_negative() {
        end -= 1;
        buf[end] = b'-';
    }
    std::str::from_utf8(&buf[end..]).unwrap_or("")
}

/// `00` to `99`, two bytes each.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The decimal digits of `i` written at the end of `buf`, two at a time.
fn int_text(i: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut end = buf.len();
    let mut n = i.unsigned_abs();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        end -= 2;
        buf[end..end + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        end -= 2;
        buf[end..end + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        end -= 1;
        buf[end] = b'0' + n as u8;
    }
    if i < 0 {
        end -= 1;
        buf[end] = b'-';
    }
    &buf[end..]
}

/// Whether `bytes` holds a `"`, eight bytes at a time (a word XORed with
/// `"` in every byte has a zero byte where the quote was).
fn has_quote(bytes: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = 0x2222_2222_2222_2222;
    let mut chunks = bytes.chunks_exact(8);
    let mut found = 0u64;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word) ^ QUOTES;
        found |= w.wrapping_sub(LOW) & !w & HIGH;
    }
    found != 0 || chunks.remainder().contains(&b'"')
}

/// A `fmt::Write` appending to a byte buffer.
struct Bytes<'a>(&'a mut Vec<u8>);

impl Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

impl Expr {
    /// Appends the expression to `out` exactly as
    /// [`display(syntax)`](Expr::display) prints it, writing the common
    /// literals (integers, whole reals, booleans, old-syntax strings)
    /// directly: what an encoder putting thousands of attributes into one
    /// buffer wants.
    ///
    /// ```
    /// use classad::Syntax;
    /// let mut out = Vec::new();
    /// for text in ["8", "8.0", "0.25", r#""say \"hi\"""#, "a =?= b"] {
    ///     let e = classad::Parser::default().syntax(Syntax::Old).parse_expr(text)?;
    ///     out.clear();
    ///     e.write_into(Syntax::Old, &mut out);
    ///     assert_eq!(String::from_utf8(out.clone()).unwrap(), e.display(Syntax::Old).to_string());
    /// }
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn write_into(&self, syntax: Syntax, out: &mut Vec<u8>) {
        if let Repr::Lit(literal) = &self.0 {
            match literal {
                Literal::Int(i) => return out.extend_from_slice(int_text(*i, &mut [0; 20])),
                Literal::Bool(true) => return out.extend_from_slice(b"true"),
                Literal::Bool(false) => return out.extend_from_slice(b"false"),
                Literal::Undefined => return out.extend_from_slice(b"undefined"),
                Literal::Real(r) if syntax == Syntax::Old && r.is_finite() => {
                    return out.extend_from_slice(real_old_text(*r, &mut RealText::new()).as_bytes());
                }
                Literal::Str(text) if syntax == Syntax::Old => {
                    out.push(b'"');
                    let mut rest = text.as_bytes();
                    // Most strings are short and hold no quote.
                    if rest.len() <= 64 && !has_quote(rest) {
                        out.extend_from_slice(rest);
                        return out.push(b'"');
                    }
                    while let Some(at) = memchr::memchr(b'"', rest) {
                        out.extend_from_slice(&rest[..at]);
                        out.extend_from_slice(b"\\\"");
                        rest = &rest[at + 1..];
                    }
                    out.extend_from_slice(rest);
                    return out.push(b'"');
                }
                _ => {}
            }
        }
        // Appending to a Vec cannot fail.
        let _ = write_expr(&mut Bytes(out), self, syntax, 0);
    }
}

/// Writes `text` between `quote` characters as old syntax does: only the
/// quote character is escaped.
pub(crate) fn write_quoted_old(f: &mut dyn Write, text: &str, quote: char) -> fmt::Result {
    f.write_char(quote)?;
    let mut rest = text;
    while let Some(at) = rest.find(quote) {
        f.write_str(&rest[..at])?;
        f.write_char('\\')?;
        f.write_char(quote)?;
        rest = &rest[at + quote.len_utf8()..];
    }
    f.write_str(rest)?;
    f.write_char(quote)
}

/// Writes a real as libclassad does in new syntax.
pub(crate) fn write_real(f: &mut dyn Write, r: f64) -> fmt::Result {
    if r.is_nan() {
        f.write_str("real(\"NaN\")")
    } else if r.is_infinite() {
        f.write_str(if r > 0.0 { "real(\"INF\")" } else { "real(\"-INF\")" })
    } else if r == 0.0 {
        f.write_str(if r.is_sign_negative() { "-0.0" } else { "0.0" })
    } else {
        // C's `%.15E`: `1.500000000000000E+00`.
        let spec = crate::printf::Spec::new(crate::printf::Conversion::ExpUpper).with_precision(Some(15));
        f.write_str(&spec.format_f64(r))
    }
}

/// Writes `text` between `quote` characters with libclassad's escapes.
pub(crate) fn write_quoted(f: &mut dyn Write, text: &str, quote: char) -> fmt::Result {
    f.write_char(quote)?;
    write_escaped(f, text, Some(quote))?;
    f.write_char(quote)
}

/// Writes `text` with libclassad's escapes for the inside of a string or
/// quoted name (`quote`, when given, is escaped too).
pub(crate) fn write_escaped(f: &mut dyn Write, text: &str, quote: Option<char>) -> fmt::Result {
    for byte in text.bytes() {
        match byte {
            b'\\' => f.write_str("\\\\")?,
            0x07 => f.write_str("\\a")?,
            0x08 => f.write_str("\\b")?,
            0x0c => f.write_str("\\f")?,
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            b'\t' => f.write_str("\\t")?,
            0x0b => f.write_str("\\v")?,
            // NUL, which libclassad's strings cannot hold, has no escape
            // that reads back (`\000` is refused, as libclassad refuses
            // it); written as itself, it reads back as itself.
            0 => f.write_char('\0')?,
            _ if quote.is_some_and(|q| byte == q as u8) => {
                f.write_char('\\')?;
                f.write_char(byte as char)?;
            }
            0x20..=0x7e => f.write_char(byte as char)?,
            _ => write!(f, "\\{byte:03o}")?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What HTCondor's Python bindings (classad2, htcondor 25.14.1) give
    /// for `str()` of these ads and expressions.
    #[test]
    fn pretty_layout_is_libclassads() {
        let pretty_ad = |text: &str| text.parse::<ClassAd>().unwrap().display(Syntax::New).pretty().to_string();
        let pretty_expr = |text: &str| text.parse::<Expr>().unwrap().display(Syntax::New).pretty().to_string();
        assert_eq!(
            pretty_ad(r#"[a = "x"; b = 1; E = a + b; L = {1, 2, {3}}; N = [p = 1; q = [r = 2]]; S = "with \"quote\""; EL = {}; EN = []; LA = {[x = 1], 2}]"#),
            "\n    [\n        a = \"x\"; \n        b = 1; \n        E = a + b; \n        L = \n           {\n              1,\n              2,\n              \n                 {\n                    3\n                 }\n           }; \n        N = \n            [\n                p = 1; \n                q = \n                    [\n                        r = 2\n                    ]\n            ]; \n        S = \"with \\\"quote\\\"\"; \n        EL = \n           {\n           }; \n        EN = \n            [\n            ]; \n        LA = \n           {\n              \n                  [\n                      x = 1\n                  ],\n              2\n           }\n    ]"
        );
        assert_eq!(pretty_ad("[]"), "\n    [\n    ]");
        assert_eq!(
            pretty_ad("[r = 1.5; x = size({1,2}) + 1; y = [a=1].a]"),
            "\n    [\n        r = 1.500000000000000E+00; \n        x = size(\n           {\n              1,\n              2\n           }) + 1; \n        y = \n            [\n                a = 1\n            ].a\n    ]"
        );
        assert_eq!(pretty_expr("{1,{2}}"), "\n   {\n      1,\n      \n         {\n            2\n         }\n   }");
        assert_eq!(pretty_expr("a + b"), "a + b");
    }

    #[test]
    fn reals() {
        let show = |r: f64| {
            let mut s = String::new();
            write_real(&mut s, r).map(|()| s).unwrap_or_default()
        };
        assert_eq!(show(1.5), "1.500000000000000E+00");
        assert_eq!(show(0.1), "1.000000000000000E-01");
        assert_eq!(show(1e300), "1.000000000000000E+300");
        assert_eq!(show(-2.5e-7), "-2.500000000000000E-07");
        assert_eq!(show(0.0), "0.0");
        assert_eq!(show(-0.0), "-0.0");
        assert_eq!(show(f64::INFINITY), "real(\"INF\")");
        assert_eq!(show(f64::NEG_INFINITY), "real(\"-INF\")");
        assert_eq!(show(f64::NAN), "real(\"NaN\")");
    }

    /// The old-syntax text of reals, without allocating, equals the
    /// general `%.16G` path (checked against C's printf in printf.rs) on
    /// hard cases and on 450,000 doubles (2.4 million once, in a release
    /// build): random bit patterns, short decimals, halves near 10^15
    /// (ties), and the neighbours of every power of ten.
    #[test]
    fn old_real_text_is_percent_16g() {
        let slow = |r: f64| {
            let text = crate::printf::format_g(r, 16).to_ascii_uppercase();
            if text.contains(['.', 'E']) {
                text
            } else {
                text + ".0"
            }
        };
        let fast = |r: f64| real_old_text(r, &mut RealText::new()).to_string();
        for (r, want) in [
            (9.3, "9.300000000000001"),
            ("0.0006769981417236171".parse().unwrap_or(0.0), "0.0006769981417236171"),
            (1e15, "1000000000000000.0"),
            (1e16, "1E+16"),
            (1e20, "1E+20"),
            (-2.5e-7, "-2.5E-07"),
            (1e-5, "1E-05"),
            (1e-4, "0.0001"),
            (0.5, "0.5"),
            (-0.0, "-0.0"),
            (123456789012345.6, "123456789012345.6"),
            (5e-324, "4.940656458412465E-324"),
            (f64::MAX, "1.797693134862316E+308"),
        ] {
            assert_eq!(fast(r), want, "{r:e}");
            assert_eq!(slow(r), want, "{r:e}");
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cases = Vec::new();
        for _ in 0..150_000 {
            cases.push(f64::from_bits(next()));
            let digits = (next() % 10_000_000_000_000_000) as f64;
            cases.push(digits / 10f64.powi((next() % 40) as i32 - 10));
            cases.push((next() % 4_000_000_000_000_000) as f64 + 0.5);
        }
        for e in -320..309 {
            // Below about 10^-308 the power is subnormal or 0 (no neighbour below).
            let p = 10f64.powi(e);
            let bits = p.to_bits();
            cases.extend([p, f64::from_bits(bits + 1), f64::from_bits(bits.saturating_sub(1))]);
        }
        for r in cases.into_iter().filter(|r| r.is_finite()) {
            assert_eq!(fast(r), slow(r), "{r:e} ({:#x})", r.to_bits());
            assert_eq!(fast(-r), slow(-r), "{:e}", -r);
        }
    }

    #[test]
    fn has_quote_finds_every_quote() {
        for len in 0..40 {
            let clean = vec![b'!'; len];
            assert!(!has_quote(&clean));
            for at in 0..len {
                let mut with = clean.clone();
                with[at] = b'"';
                assert!(has_quote(&with), "{len} {at}");
            }
        }
        assert!(!has_quote(b"\x21\x23\xa2\x02\x20\x12\x22\x22"[..6].as_ref()));
    }

    #[test]
    fn write_into_prints_as_display_does() {
        let ints = [0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, 1_780_000_000, -1_780_000_000, i64::MAX, i64::MIN];
        let reals = [0.0, -0.0, 1.0, -8.0, 0.5, 1e14, 999_999_999_999_999.0, 1e15, 1e16, 1e300, -2.5e-7, f64::NAN];
        let mut exprs: Vec<Expr> = ints.iter().map(|&i| Expr::from(i)).collect();
        exprs.extend(reals.iter().map(|&r| Expr::from(r)));
        exprs.extend((-1000..1000).map(|i| Expr::from(i64::from(i) * 7919)));
        for text in ["say \"hi\"", "", "plain", "\"", "a\\b", &"long ".repeat(30), &"q\"".repeat(40)] {
            exprs.push(Expr::from(text));
        }
        for syntax in [Syntax::Old, Syntax::New] {
            for e in &exprs {
                let mut out = Vec::new();
                e.write_into(syntax, &mut out);
                assert_eq!(String::from_utf8(out).unwrap_or_default(), e.display(syntax).to_string(), "{e:?}");
            }
        }
    }

    #[test]
    fn quoting() {
        let quote = |s: &str| {
            let mut out = String::new();
            write_quoted(&mut out, s, '"').map(|()| out).unwrap_or_default()
        };
        assert_eq!(quote("a\"b"), r#""a\"b""#);
        assert_eq!(quote("tab\there\n"), r#""tab\there\n""#);
        assert_eq!(quote("é"), r#""\303\251""#);
        assert_eq!(quote("\u{1}"), r#""\001""#);
        assert_eq!(quote("it's"), r#""it's""#);
    }
}
