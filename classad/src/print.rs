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
use crate::expr::{Expr, Literal, Node, Repr};

/// How many levels of nesting are printed before checking the stack.
const STACK_CHECK_INTERVAL: u32 = 32;

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

fn write_expr(f: &mut fmt::Formatter<'_>, expr: &Expr, level: u32) -> fmt::Result {
    let node = match &expr.0 {
        Repr::Lit(literal) => return fmt::Display::fmt(literal, f),
        Repr::Node(node) => &node.node,
    };
    if level % STACK_CHECK_INTERVAL == STACK_CHECK_INTERVAL - 1 {
        return stacker::maybe_grow(64 * 1024, 1024 * 1024, || write_node(f, node, level + 1));
    }
    write_node(f, node, level + 1)
}

fn write_node(f: &mut fmt::Formatter<'_>, node: &Node, level: u32) -> fmt::Result {
    match node {
        Node::Attr(name) => write!(f, "{name}"),
        Node::RootAttr(name) => write!(f, ".{name}"),
        Node::Select(scope, name) => {
            write_expr(f, scope, level)?;
            f.write_char('.')?;
            if crate::name::needs_quotes_after_dot(name.as_str()) {
                write_quoted(f, name.as_str(), '\'')
            } else {
                f.write_str(name.as_str())
            }
        }
        Node::Index(base, index) => {
            write_expr(f, base, level)?;
            f.write_char('[')?;
            write_expr(f, index, level)?;
            f.write_char(']')
        }
        Node::Unary(op, operand) => {
            write!(f, " {}", op.symbol())?;
            write_expr(f, operand, level)
        }
        Node::Binary(op, left, right) => {
            write_expr(f, left, level)?;
            write!(f, " {} ", op.symbol())?;
            write_expr(f, right, level)
        }
        Node::Cond(cond, then, otherwise) => {
            write_expr(f, cond, level)?;
            f.write_str(" ? ")?;
            write_expr(f, then, level)?;
            f.write_str(" : ")?;
            write_expr(f, otherwise, level)
        }
        Node::Elvis(left, right) => {
            write_expr(f, left, level)?;
            f.write_str(" ?: ")?;
            write_expr(f, right, level)
        }
        Node::Paren(inner) => {
            f.write_char('(')?;
            write_expr(f, inner, level)?;
            f.write_char(')')
        }
        Node::Call(call) => {
            write!(f, "{}(", call.name.as_str())?;
            write_separated(f, &call.args, ",", level)?;
            f.write_char(')')
        }
        Node::List(items) => write_list(f, items, level),
        Node::Record(ad) => write_ad(f, ad, level),
    }
}

fn write_separated(f: &mut fmt::Formatter<'_>, items: &[Expr], sep: &str, level: u32) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write_expr(f, item, level)?;
    }
    Ok(())
}

pub(crate) fn write_list(f: &mut fmt::Formatter<'_>, items: &[Expr], level: u32) -> fmt::Result {
    f.write_str("{ ")?;
    write_separated(f, items, ",", level)?;
    f.write_str(" }")
}

pub(crate) fn write_ad(f: &mut fmt::Formatter<'_>, ad: &ClassAd, level: u32) -> fmt::Result {
    f.write_str("[ ")?;
    for (i, (name, value)) in ad.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{name} = ")?;
        write_expr(f, value, level)?;
    }
    f.write_str(" ]")
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
        write_ad(f, self, 0)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Undefined => f.write_str("undefined"),
            Literal::Error => f.write_str("error"),
            Literal::Bool(true) => f.write_str("true"),
            Literal::Bool(false) => f.write_str("false"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Real(r) => write_real(f, *r),
            Literal::Str(s) => write_quoted(f, s, '"'),
            Literal::AbsTime(t) => write!(f, "absTime(\"{t}\")"),
            Literal::RelTime(t) => {
                f.write_str("relTime(\"")?;
                t.write_with_fraction(f)?;
                f.write_str("\")")
            }
        }
    }
}

/// Writes a real as libclassad does in new syntax.
pub(crate) fn write_real(f: &mut impl Write, r: f64) -> fmt::Result {
    if r.is_nan() {
        f.write_str("real(\"NaN\")")
    } else if r.is_infinite() {
        f.write_str(if r > 0.0 { "real(\"INF\")" } else { "real(\"-INF\")" })
    } else if r == 0.0 {
        f.write_str(if r.is_sign_negative() { "-0.0" } else { "0.0" })
    } else {
        f.write_str(&format_e(r, 15))
    }
}

/// C's `%.{precision}E`: `1.500000000000000E+00`.
pub(crate) fn format_e(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$E}");
    let Some((mantissa, exponent)) = text.split_once('E') else {
        return text;
    };
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(digits) => ('-', digits),
        None => ('+', exponent),
    };
    format!("{mantissa}E{sign}{digits:0>2}")
}

/// C's `%.{precision}g` (`%g` is precision 6): the shorter of fixed and
/// exponent notation, trailing zeros removed.
pub(crate) fn format_g(value: f64, precision: usize) -> String {
    if value == 0.0 {
        return if value.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let precision = precision.max(1);
    // The exponent after rounding to `precision` significant digits.
    let rounded = format!("{value:.prec$e}", prec = precision - 1);
    let exponent: i32 = rounded.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let (mantissa, _) = rounded.split_once('e').unwrap_or((&rounded, ""));
        let mantissa = strip_fraction_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        strip_fraction_zeros(&format!("{value:.decimals$}")).to_string()
    }
}

fn strip_fraction_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// Writes `text` between `quote` characters with libclassad's escapes.
pub(crate) fn write_quoted(f: &mut impl Write, text: &str, quote: char) -> fmt::Result {
    f.write_char(quote)?;
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
            _ if byte == quote as u8 => {
                f.write_char('\\')?;
                f.write_char(quote)?;
            }
            0x20..=0x7e => f.write_char(byte as char)?,
            _ => write!(f, "\\{byte:03o}")?,
        }
    }
    f.write_char(quote)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn g_format() {
        for (value, text) in [
            (0.5, "0.5"),
            (1.25, "1.25"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456789.0, "1.23457e+08"),
            (59.999999, "60"),
        ] {
            assert_eq!(format_g(value, 6), text, "{value}");
        }
        assert_eq!(format_g(0.1, 16), "0.1");
        assert_eq!(format_g(1e100, 16), "1e+100");
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
