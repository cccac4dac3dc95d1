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

use classad::printf::{self, Argument, Spec, SpecErrorKind};
use classad::{Expr, Node, Syntax, Value};

/// A parsed `--format` string.
#[derive(Debug)]
pub struct Format {
    pieces: Vec<Piece>,
}

#[derive(Debug)]
enum Piece {
    Text(String),
    Conversion(Conversion),
}

/// One conversion: C's, or `%v` / `%V` (a `%s` of the value's text).
#[derive(Debug)]
struct Conversion {
    spec: Spec,
    shown: Shown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// The C conversion of the spec.
    C,
    /// `%v`: strings bare, other values as written.
    Value,
    /// `%V`: every value as written.
    Written,
}

/// A `--format` string that cannot be used.
#[derive(Debug)]
pub struct BadFormat(pub String);

impl Format {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Format, BadFormat> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let mut len = c.len_utf8();
            match c {
                '\\' => match rest[1..].chars().next() {
                    Some(e @ ('n' | 't' | 'r' | '\\' | '"')) => {
                        literal.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            e => e,
                        });
                        len = 2;
                    }
                    _ => literal.push('\\'),
                },
                '%' if rest[1..].starts_with('%') => {
                    literal.push('%');
                    len = 2;
                }
                '%' => {
                    let conversion;
                    (conversion, len) = Conversion::parse(rest, text)?;
                    if !literal.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Conversion(conversion));
                }
                c => literal.push(c),
            }
            rest = &rest[len..];
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
                Piece::Conversion(conversion) => out.push_str(&conversion.render(expr, value)?),
            }
        }
        Some(out)
    }
}

impl Conversion {
    /// The conversion at the start of `at` (a `%` in the format `text`)
    /// and its length in bytes.
    fn parse(at: &str, text: &str) -> Result<(Conversion, usize), BadFormat> {
        let unknown = |c: char| BadFormat(format!("unknown conversion `%{c}` in {text:?}"));
        let error = match Spec::parse_prefix(at) {
            // `%-%` and the like are not conversions here.
            Ok((spec, _)) if spec.conversion() == printf::Conversion::Percent => return Err(unknown('%')),
            Ok((spec, len)) => return Ok((Conversion { spec, shown: Shown::C }, len)),
            Err(error) => error,
        };
        match error.kind() {
            SpecErrorKind::UnknownConversion(c @ ('v' | 'V')) => {
                // HTCondor prints these with `%s` in their place.
                let (spec, _) = Spec::parse_prefix(&format!("{}s", &at[..error.offset()]))
                    .map_err(|e| BadFormat(format!("{e} in {text:?}")))?;
                let shown = if c == 'v' { Shown::Value } else { Shown::Written };
                Ok((Conversion { spec, shown }, error.offset() + 1))
            }
            SpecErrorKind::UnknownConversion(c) => Err(unknown(c)),
            SpecErrorKind::Star => Err(unknown('*')),
            SpecErrorKind::TooLarge => Err(BadFormat(format!("a width or precision above {}", printf::MAX_COUNT))),
            _ => Err(BadFormat(format!("{text:?} ends inside a conversion"))),
        }
    }

    fn render(&self, expr: &Expr, value: &Value) -> Option<String> {
        let spec = &self.spec;
        let written = || value.to_expr().display(Syntax::Old).to_string();
        match self.shown {
            Shown::Value => {
                return Some(spec.format_str(&match value {
                    Value::Str(s) => s.as_str().to_owned(),
                    _ => written(),
                }))
            }
            Shown::Written => return Some(spec.format_str(&written())),
            Shown::C => {}
        }
        match spec.conversion().argument() {
            Argument::Int | Argument::Char => {
                let n = match value {
                    Value::Int(i) => *i,
                    // Saturating, as `as` is: a real beyond i64 prints as its bound.
                    Value::Real(r) if r.is_finite() => *r as i64,
                    Value::Bool(b) => i64::from(*b),
                    _ => return None,
                };
                match spec.conversion().argument() {
                    // The whole 64-bit integer, whatever the length
                    // modifier: condor_status reads only the bits the
                    // conversion names (`%d` of 2^32 + 5 is 5), a
                    // deliberate difference (docs/divergences.md,
                    // query-format-integers).
                    Argument::Int => Some(spec.format_i64(n)),
                    // `%c`: the low byte, as C prints it.
                    _ => Some(spec.format_long_long(n)),
                }
            }
            Argument::Real => {
                let x = match value {
                    Value::Bool(b) => f64::from(u8::from(*b)),
                    other => other.as_f64()?,
                };
                Some(spec.format_f64(x))
            }
            _ => {
                let text = match value {
                    Value::Str(s) => s.as_str().to_owned(),
                    Value::Undefined | Value::Error => return None,
                    _ if matches!(expr.as_node(), Some(Node::Attr(_))) => written(),
                    _ => return None,
                };
                Some(spec.format_str(&text))
            }
        }
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
    fn as_condor_status_prints_them() {
        // What condor_status 23.9.6 -ads FILE printed, each conversion in
        // a -format of its own (but integers, below).
        assert_eq!(render("[%.0d]", "x", Value::Int(0)).as_deref(), Some("[]"));
        assert_eq!(render("[%c]", "x", Value::Int(300)).as_deref(), Some("[,]"));
        assert_eq!(render("[%f][%#g]", "x", Value::Real(-0.0)).as_deref(), Some("[-0.000000][-0.00000]"));
        assert_eq!(render("[%#g]", "x", Value::Real(999999.5)).as_deref(), Some("[1.e+06]"));
        assert_eq!(render("[%f]", "x", Value::Real(-f64::NAN)).as_deref(), Some("[-nan]"));
        // Widths count bytes.
        assert_eq!(render("[%5s][%5v]", "x", Value::Str("\u{e9}".into())).as_deref(), Some("[   \u{e9}][   \u{e9}]"));
    }

    #[test]
    fn integers_print_whole() {
        // condor_status passes a `long long` that the conversion reads as
        // the type it names (%d of 5000000000 is 705032704, %x of -1 is
        // ffffffff, %hhd of 300 is 44): we print the whole value instead
        // (docs/divergences.md, query-format-integers).
        let big = Value::Int(5_000_000_000);
        assert_eq!(render("[%d][%i][%lld]", "x", big).as_deref(), Some("[5000000000][5000000000][5000000000]"));
        let neg = Value::Int(-1);
        assert_eq!(
            render("[%x][%u][%o][%llx]", "x", neg).as_deref(),
            Some("[ffffffffffffffff][18446744073709551615][1777777777777777777777][ffffffffffffffff]")
        );
        assert_eq!(render("[%hhd][%hd]", "x", Value::Int(300)).as_deref(), Some("[300][300]"));
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
