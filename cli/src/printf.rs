//! `classad query --format FMT EXPR`: a value printed through a
//! printf-style format, as `condor_status -format` does.
//!
//! The format's text is printed with `\n`, `\t`, `\r`, `\\` and `\"`
//! taken as escapes; each conversion (`%[flags][width][.precision]C`,
//! flags `-+ #0`, C in `d i u o x X c e E f F g G s v V %`) prints the
//! value: `d`-style conversions take integers, reals (truncated) and
//! booleans (1 or 0), `f`-style ones numbers and booleans, `s` a string
//! (or, when EXPR is a bare attribute name, any defined value as
//! written), `v` any value (strings bare), `V` any value as written
//! (strings quoted). When the value does not suit a conversion (a string
//! for `%d`, UNDEFINED for `%s`), the whole format prints nothing for
//! that ad, as condor_status does.

use classad::{Expr, Node, Syntax, Value};

/// A parsed `--format` string.
#[derive(Debug)]
pub struct Format {
    pieces: Vec<Piece>,
}

#[derive(Debug)]
enum Piece {
    Text(String),
    Conversion(Spec),
}

#[derive(Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conversion: char,
}

/// A `--format` string that cannot be used.
#[derive(Debug)]
pub struct BadFormat(pub String);

impl Format {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Format, BadFormat> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek() {
                    Some('n') => push_escape(&mut chars, &mut literal, '\n'),
                    Some('t') => push_escape(&mut chars, &mut literal, '\t'),
                    Some('r') => push_escape(&mut chars, &mut literal, '\r'),
                    Some('\\') => push_escape(&mut chars, &mut literal, '\\'),
                    Some('"') => push_escape(&mut chars, &mut literal, '"'),
                    _ => literal.push('\\'),
                },
                '%' => {
                    if chars.peek() == Some(&'%') {
                        chars.next();
                        literal.push('%');
                        continue;
                    }
                    let mut spec = Spec::default();
                    while let Some(&flag) = chars.peek() {
                        match flag {
                            '-' => spec.left = true,
                            '+' => spec.plus = true,
                            ' ' => spec.space = true,
                            '#' => spec.alternate = true,
                            '0' => spec.zero = true,
                            _ => break,
                        }
                        chars.next();
                    }
                    spec.width = digits(&mut chars)?;
                    if chars.peek() == Some(&'.') {
                        chars.next();
                        spec.precision = Some(digits(&mut chars)?);
                    }
                    // Length modifiers mean nothing here.
                    while chars.next_if(|c| matches!(c, 'l' | 'h' | 'L' | 'q' | 'j' | 'z' | 't')).is_some() {}
                    match chars.next() {
                        Some(
                            c @ ('d' | 'i' | 'u' | 'o' | 'x' | 'X' | 'c' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 's'
                            | 'v' | 'V'),
                        ) => spec.conversion = c,
                        Some(other) => {
                            return Err(BadFormat(format!("unknown conversion `%{other}` in {text:?}")));
                        }
                        None => return Err(BadFormat(format!("{text:?} ends inside a conversion"))),
                    }
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Conversion(spec));
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(Format { pieces })
    }

    /// The text for `value`, the value of `expr`; `None` when a
    /// conversion does not suit the value.
    pub fn render(&self, expr: &Expr, value: &Value) -> Option<String> {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Conversion(spec) => out.push_str(&spec.render(expr, value)?),
            }
        }
        Some(out)
    }
}

fn push_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, literal: &mut String, c: char) {
    chars.next();
    literal.push(c);
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<usize, BadFormat> {
    let mut n: usize = 0;
    while let Some(d) = chars.next_if(char::is_ascii_digit) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(d as usize - '0' as usize))
            .filter(|&n| n <= 10_000)
            .ok_or_else(|| BadFormat("a width or precision above 10000".to_owned()))?;
    }
    Ok(n)
}

impl Spec {
    fn render(&self, expr: &Expr, value: &Value) -> Option<String> {
        match self.conversion {
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'c' => {
                let n = match value {
                    Value::Int(i) => *i,
                    // Saturating, as `as` is: a real beyond i64 prints as its bound.
                    Value::Real(r) if r.is_finite() => *r as i64,
                    Value::Bool(b) => i64::from(*b),
                    _ => return None,
                };
                Some(self.integer(n))
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let x = match value {
                    Value::Bool(b) => f64::from(u8::from(*b)),
                    other => other.as_f64()?,
                };
                Some(self.real(x))
            }
            's' => {
                let text = match value {
                    Value::Str(s) => s.as_str().to_owned(),
                    Value::Undefined | Value::Error => return None,
                    other if matches!(expr.as_node(), Some(Node::Attr(_))) => {
                        other.to_expr().display(Syntax::Old).to_string()
                    }
                    _ => return None,
                };
                Some(self.text(&text))
            }
            'v' => Some(self.text(&match value {
                Value::Str(s) => s.as_str().to_owned(),
                other => other.to_expr().display(Syntax::Old).to_string(),
            })),
            _ => Some(self.text(&value.to_expr().display(Syntax::Old).to_string())),
        }
    }

    /// Pads `body` to the width: spaces on the left (right with `-`), or
    /// zeros after the sign and prefix (`sign_len` bytes) with `0`.
    fn pad(&self, body: String, sign_len: usize, zeros_allowed: bool) -> String {
        let len = body.chars().count();
        if len >= self.width {
            return body;
        }
        let fill = self.width - len;
        if self.left {
            format!("{body}{}", " ".repeat(fill))
        } else if self.zero && zeros_allowed {
            format!("{}{}{}", &body[..sign_len], "0".repeat(fill), &body[sign_len..])
        } else {
            format!("{}{body}", " ".repeat(fill))
        }
    }

    fn text(&self, text: &str) -> String {
        let text: String = match self.precision {
            Some(p) => text.chars().take(p).collect(),
            None => text.to_owned(),
        };
        self.pad(text, 0, false)
    }

    fn sign(&self, negative: bool) -> &'static str {
        match (negative, self.plus, self.space) {
            (true, _, _) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        }
    }

    fn integer(&self, n: i64) -> String {
        if self.conversion == 'c' {
            let c = u32::try_from(n).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}');
            return self.pad(c.to_string(), 0, false);
        }
        let (sign, mut digits, prefix) = match self.conversion {
            'd' | 'i' => (self.sign(n < 0), n.unsigned_abs().to_string(), ""),
            // C's unsigned conversions see the two's complement.
            'u' => ("", (n as u64).to_string(), ""),
            'o' => ("", format!("{:o}", n as u64), if self.alternate && n != 0 { "0" } else { "" }),
            'x' => ("", format!("{:x}", n as u64), if self.alternate && n != 0 { "0x" } else { "" }),
            _ => ("", format!("{:X}", n as u64), if self.alternate && n != 0 { "0X" } else { "" }),
        };
        if let Some(p) = self.precision {
            if p == 0 && n == 0 {
                digits.clear();
            } else if digits.len() < p {
                digits = format!("{}{digits}", "0".repeat(p - digits.len()));
            }
        }
        let head = format!("{sign}{prefix}");
        self.pad(format!("{head}{digits}"), head.len(), self.precision.is_none())
    }

    fn real(&self, x: f64) -> String {
        let upper = self.conversion.is_ascii_uppercase();
        let sign = self.sign(x.is_sign_negative());
        let magnitude = x.abs();
        let body = if !magnitude.is_finite() {
            let word = if magnitude.is_nan() { "nan" } else { "inf" };
            return self.pad(
                format!("{sign}{}", if upper { word.to_ascii_uppercase() } else { word.to_owned() }),
                0,
                false,
            );
        } else {
            let precision = self.precision.unwrap_or(6);
            match self.conversion.to_ascii_lowercase() {
                'f' => fixed(magnitude, precision, self.alternate),
                'e' => exponential(magnitude, precision, self.alternate),
                _ => general(magnitude, precision, self.alternate),
            }
        };
        let body = if upper { body.to_ascii_uppercase() } else { body };
        self.pad(format!("{sign}{body}"), sign.len(), true)
    }
}

fn fixed(x: f64, precision: usize, alternate: bool) -> String {
    let mut text = format!("{x:.precision$}");
    if alternate && precision == 0 {
        text.push('.');
    }
    text
}

/// C's `%e`: `d.ddde+XX`.
fn exponential(x: f64, precision: usize, alternate: bool) -> String {
    let text = format!("{x:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut mantissa = mantissa.to_owned();
    if alternate && precision == 0 {
        mantissa.push('.');
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// C's `%g`: `%e` or `%f` by the exponent, trailing zeros removed.
fn general(x: f64, precision: usize, alternate: bool) -> String {
    let p = precision.max(1);
    // The exponent after rounding to p significant digits.
    let rounded = format!("{x:.prec$e}", prec = p - 1);
    let exponent: i64 = rounded.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let text = if exponent < -4 || exponent >= p as i64 {
        exponential(x, p - 1, alternate)
    } else {
        let decimals = usize::try_from(p as i64 - 1 - exponent).unwrap_or(0);
        fixed(x, decimals, alternate)
    };
    if alternate {
        return text;
    }
    match text.split_once('e') {
        Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa)),
        None => trim_zeros(&text).to_owned(),
    }
}

fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(format: &str, expr: &str, value: Value) -> Option<String> {
        let expr = classad::parse_expr(expr).expect("expr");
        Format::parse(format).expect("format").render(&expr, &value)
    }

    #[test]
    fn conversions_as_c() {
        assert_eq!(render("%d|", "x", Value::Int(-42)).as_deref(), Some("-42|"));
        assert_eq!(render("%5d|%-5d|", "x", Value::Int(42)).as_deref(), Some("   42|42   |"));
        assert_eq!(render("%05d %+d %.4d", "x", Value::Int(42)).as_deref(), Some("00042 +42 0042"));
        assert_eq!(render("%x %X %#x %o", "x", Value::Int(255)).as_deref(), Some("ff FF 0xff 377"));
        assert_eq!(render("%d", "x", Value::Real(3072.9)).as_deref(), Some("3072"));
        assert_eq!(render("%f %.1f %e", "x", Value::Int(9216)).as_deref(), Some("9216.000000 9216.0 9.216000e+03"));
        assert_eq!(render("%g %g %g", "x", Value::Real(810.6666666666666)).as_deref(), Some("810.667 810.667 810.667"));
        assert_eq!(render("%g|%g|%G", "x", Value::Real(1e-5)).as_deref(), Some("1e-05|1e-05|1E-05"));
        assert_eq!(render("%g", "x", Value::Real(3072.0)).as_deref(), Some("3072"));
        assert_eq!(render("%g", "x", Value::Real(1e23)).as_deref(), Some("1e+23"));
        assert_eq!(render("%08.2f", "x", Value::Real(-3.5)).as_deref(), Some("-0003.50"));
        assert_eq!(render("%c", "x", Value::Int(65)).as_deref(), Some("A"));
        assert_eq!(render("100%% %s\\n", "x", Value::Str("a".into())).as_deref(), Some("100% a\n"));
        assert_eq!(
            render("[%-6s][%6s][%.3s]", "x", Value::Str("LINUX".into())).as_deref(),
            Some("[LINUX ][ LINUX][LIN]")
        );
    }

    #[test]
    fn values_that_do_not_suit_print_nothing() {
        assert_eq!(render("%d|", "x", Value::Str("a".into())), None);
        assert_eq!(render("%s|", "x", Value::Undefined), None);
        assert_eq!(render("%s|", "x", Value::Error), None);
        assert_eq!(render("%f|", "x", Value::Str("a".into())), None);
        // %s prints other values only for a bare attribute name.
        assert_eq!(render("%s|", "Memory", Value::Int(9216)).as_deref(), Some("9216|"));
        assert_eq!(render("%s|", "Memory * 1", Value::Int(9216)), None);
        assert_eq!(render("no conversion", "x", Value::Undefined).as_deref(), Some("no conversion"));
        // %v and %V print anything.
        assert_eq!(render("%v %V", "x", Value::Str("a".into())).as_deref(), Some("a \"a\""));
        assert_eq!(render("%v %V", "x", Value::Undefined).as_deref(), Some("undefined undefined"));
        assert_eq!(render("%d", "x", Value::Bool(true)).as_deref(), Some("1"));
    }

    #[test]
    fn bad_formats_are_reported() {
        assert!(Format::parse("%q").is_err());
        assert!(Format::parse("abc %").is_err());
        assert!(Format::parse("%99999999999999999999d").is_err());
    }
}
