//! C `printf` formats with one conversion, for `$INT(X, fmt)`,
//! `$REAL(X, fmt)` and `$STRING(X, fmt)`, as HTCondor hands them to
//! glibc's `snprintf` with a 56-byte buffer.

use classad::printf::{Argument, Length, Spec, SpecErrorKind};

/// A value to format.
pub(crate) enum Arg<'a> {
    Int(i64),
    Real(f64),
    Str(&'a str),
}

/// Longest width or precision accepted.
const MAX_WIDTH: usize = 1000;

/// What HTCondor keeps of a formatted number: its 56-byte buffer less the
/// terminating NUL.
const MAX_OUTPUT: usize = 55;

/// The conversions `classad::printf` does not write, which glibc does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extra {
    /// `%a`, `%A`: a real in hexadecimal.
    HexFloat { upper: bool },
    /// `%p`: the integer as a pointer.
    Pointer,
}

/// The specification at the start of `text`, with the conversion
/// `classad::printf` does not know when it is one of `a A p`.
fn parse(text: &str) -> Option<(Spec, Option<Extra>, usize)> {
    match Spec::parse_prefix(text) {
        Ok((spec, len)) => Some((spec, None, len)),
        Err(e) => {
            let extra = match e.kind() {
                SpecErrorKind::UnknownConversion('a') => Extra::HexFloat { upper: false },
                SpecErrorKind::UnknownConversion('A') => Extra::HexFloat { upper: true },
                SpecErrorKind::UnknownConversion('p') => Extra::Pointer,
                _ => return None,
            };
            // The same flags, width and precision on a conversion it knows.
            let stand_in = format!("{}{}", &text[..e.offset()], if extra == Extra::Pointer { 'x' } else { 'f' });
            let (spec, _) = Spec::parse_prefix(&stand_in).ok()?;
            Some((spec, Some(extra), e.offset() + 1))
        }
    }
}

/// Formats `arg` with `format`, which must hold exactly one conversion of
/// the argument's kind (`d i u x X o c p` for integers, `f F e E g G a A`
/// for reals, `s` for strings), as HTCondor accepts them, and any text and
/// `%%` around it. The conversion is C's (`classad::printf`, and here `%a`
/// and `%p`); an integer is given to it as HTCondor gives it, a `long
/// long` (`%d` sees its low 32 bits, `%lld` all). The result is cut as
/// HTCondor's buffer cuts it: at a NUL (`%c` of 0) and, for a number, at
/// 55 bytes.
pub(crate) fn format(format: &str, arg: &Arg<'_>) -> Result<String, String> {
    let bad = || format!("'{format}' is not a valid format specifier");
    let mut out = String::new();
    let mut rest = format;
    let mut converted = false;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        if let Some(after) = rest[at + 1..].strip_prefix('%') {
            out.push('%');
            rest = after;
            continue;
        }
        // Two conversions would read an argument that is not there.
        if converted {
            return Err(bad());
        }
        let (spec, extra, len) = parse(&rest[at..]).ok_or_else(bad)?;
        if spec.width() > MAX_WIDTH || spec.precision().is_some_and(|p| p > MAX_WIDTH) {
            return Err(bad());
        }
        // `%Lf` reads a long double, which HTCondor does not pass.
        if matches!(arg, Arg::Real(_)) && spec.length() == Length::LongDouble {
            return Err(bad());
        }
        let body = match (extra, spec.conversion().argument(), arg) {
            (Some(Extra::HexFloat { upper }), _, Arg::Real(r)) => hex_float(&spec, *r, upper),
            (Some(Extra::Pointer), _, Arg::Int(i)) => pointer(&spec, *i),
            (Some(_), _, _) => return Err(bad()),
            (None, Argument::Int | Argument::Char, Arg::Int(i)) => spec.format_long_long(*i),
            (None, Argument::Real, Arg::Real(r)) => spec.format_f64(*r),
            (None, Argument::Str, Arg::Str(s)) => spec.format_str(s),
            _ => return Err(bad()),
        };
        if let Some(nul) = body.find('\0') {
            // A NUL (`%c` of 0, padded or not) ends the C string.
            out.push_str(&body[..nul]);
            return Ok(cut(out, arg));
        }
        out.push_str(&body);
        converted = true;
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    if !converted {
        return Err(bad());
    }
    Ok(cut(out, arg))
}

/// `text` cut to what HTCondor's buffer holds for a number (on a
/// character boundary); `$STRING`'s buffer is made to fit.
fn cut(mut text: String, arg: &Arg<'_>) -> String {
    if !matches!(arg, Arg::Str(_)) && text.len() > MAX_OUTPUT {
        let mut at = MAX_OUTPUT;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

/// `sign`, `prefix` and `digits` in the width: spaces on the left (on the
/// right with `-`), or zeros after the prefix with `0` when `zeros`.
fn padded(spec: &Spec, sign: &str, prefix: &str, digits: &str, zeros: bool) -> String {
    let len = sign.len() + prefix.len() + digits.len();
    let fill = spec.width().saturating_sub(len);
    let mut out = String::with_capacity(len + fill);
    if spec.left() {
        out.push_str(sign);
        out.push_str(prefix);
        out.push_str(digits);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if zeros && spec.zero() {
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(sign);
        out.push_str(prefix);
        out.push_str(digits);
    }
    out
}

/// The sign glibc writes before a number.
fn sign(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus() {
        "+"
    } else if spec.space() {
        " "
    } else {
        ""
    }
}

/// `%p` of the integer HTCondor passes: `0x` and its hexadecimal digits,
/// `(nil)` for 0.
fn pointer(spec: &Spec, value: i64) -> String {
    if value == 0 {
        return padded(spec, "", "", "(nil)", false);
    }
    let digits = format!("{:x}", value as u64);
    let digits = match spec.precision() {
        Some(p) if p > digits.len() => format!("{digits:0>p$}"),
        _ => digits,
    };
    padded(spec, sign(spec, false), "0x", &digits, spec.precision().is_none())
}

/// `%a` (`%A` with `upper`) as glibc writes a double: `0x1.8p+1`, the
/// fraction's hexadecimal digits (as many as it needs, or the precision's,
/// rounded to nearest, ties to even), a binary exponent; subnormals as
/// `0x0.…p-1022`.
fn hex_float(spec: &Spec, x: f64, upper: bool) -> String {
    let negative = x.is_sign_negative();
    let text = if x.is_nan() {
        return padded(spec, sign(spec, negative), "", if upper { "NAN" } else { "nan" }, false);
    } else if x.is_infinite() {
        return padded(spec, sign(spec, negative), "", if upper { "INF" } else { "inf" }, false);
    } else {
        let bits = x.abs().to_bits();
        let biased = (bits >> 52) & 0x7ff;
        let fraction = bits & ((1 << 52) - 1);
        let (lead, exponent): (u64, i64) = match (biased, fraction) {
            (0, 0) => (0, 0),
            (0, _) => (0, -1022),
            _ => (1, biased as i64 - 1023),
        };
        let (lead, digits) = match spec.precision() {
            None => {
                let mut d = format!("{fraction:013x}");
                while d.ends_with('0') {
                    d.pop();
                }
                (lead, d)
            }
            Some(p) if p >= 13 => (lead, format!("{fraction:013x}{}", "0".repeat(p - 13))),
            Some(p) => {
                // Round lead.fraction to p hexadecimal digits.
                let drop = 52 - 4 * p as u32;
                let whole = (lead << 52) | fraction;
                let (kept, rest, half) = (whole >> drop, whole & ((1 << drop) - 1), 1u64 << (drop - 1));
                let kept = if rest > half || (rest == half && kept & 1 == 1) { kept + 1 } else { kept };
                let mask = (1u64 << (4 * p)) - 1;
                let d = if p == 0 { String::new() } else { format!("{:0p$x}", kept & mask) };
                (kept >> (4 * p), d)
            }
        };
        let point = if digits.is_empty() && !spec.alternate() { "" } else { "." };
        format!("{lead}{point}{digits}p{}{}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs())
    };
    let (prefix, text) = if upper { ("0X", text.to_uppercase()) } else { ("0x", text) };
    padded(spec, sign(spec, negative), prefix, &text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_htcondor_formats_them() {
        // What condor_transform_ads 23.9.6 printed for these.
        assert_eq!(format("%05d", &Arg::Int(42)).unwrap(), "00042");
        assert_eq!(format("%x", &Arg::Int(42)).unwrap(), "2a");
        assert_eq!(format("[%-6d]", &Arg::Int(42)).unwrap(), "[42    ]");
        assert_eq!(format("%+d", &Arg::Int(42)).unwrap(), "+42");
        assert_eq!(format("%o", &Arg::Int(42)).unwrap(), "52");
        assert_eq!(format("%.3f", &Arg::Real(2.5)).unwrap(), "2.500");
        assert_eq!(format("%e", &Arg::Real(2.5)).unwrap(), "2.500000e+00");
        assert_eq!(format("%g", &Arg::Real(42.0)).unwrap(), "42");
        assert_eq!(format("%8.2f", &Arg::Real(2.5)).unwrap(), "    2.50");
        assert_eq!(format("%G", &Arg::Real(2.5)).unwrap(), "2.5");
        assert_eq!(format("<%s>", &Arg::Str("hello")).unwrap(), "<hello>");
        assert_eq!(format("%10s", &Arg::Str("hello")).unwrap(), "     hello");
        // C's %g choices.
        assert_eq!(format("%g", &Arg::Real(0.0001)).unwrap(), "0.0001");
        assert_eq!(format("%g", &Arg::Real(0.00001)).unwrap(), "1e-05");
        assert_eq!(format("%g", &Arg::Real(1234567.0)).unwrap(), "1.23457e+06");
        assert_eq!(format("100%% %d", &Arg::Int(-3)).unwrap(), "100% -3");
    }

    #[test]
    fn as_glibc_formats_what_htcondor_passes() {
        // What condor_transform_ads 23.9.6 printed (rules/22_c_formats.xform):
        // an integer is passed as a `long long`, whatever the length modifier.
        assert_eq!(format("%d", &Arg::Int(5_000_000_000)).unwrap(), "705032704");
        assert_eq!(format("%lld", &Arg::Int(5_000_000_000)).unwrap(), "5000000000");
        assert_eq!(format("%x", &Arg::Int(-1)).unwrap(), "ffffffff");
        assert_eq!(format("%u", &Arg::Int(-1)).unwrap(), "4294967295");
        assert_eq!(format("%o", &Arg::Int(-1)).unwrap(), "37777777777");
        assert_eq!(format("%llx", &Arg::Int(-1)).unwrap(), "ffffffffffffffff");
        assert_eq!(format("[%.0d]", &Arg::Int(0)).unwrap(), "[]");
        assert_eq!(format("%hhd", &Arg::Int(300)).unwrap(), "44");
        assert_eq!(format("%f", &Arg::Real(-0.0)).unwrap(), "-0.000000");
        assert_eq!(format("%#.0f", &Arg::Real(2.5)).unwrap(), "2.");
        assert_eq!(format("%#g", &Arg::Real(999999.5)).unwrap(), "1.e+06");
        assert_eq!(format("%f", &Arg::Real(-f64::NAN)).unwrap(), "-nan");
        assert_eq!(format("[%5s]", &Arg::Str("\u{e9}")).unwrap(), "[   \u{e9}]");
    }

    #[test]
    fn chars_pointers_and_hexadecimal_reals_as_glibc_writes_them() {
        // What condor_transform_ads 23.9.6 printed for these.
        assert_eq!(format(" %c", &Arg::Int(65)).unwrap(), " A");
        assert_eq!(format(" %p", &Arg::Int(65)).unwrap(), " 0x41");
        assert_eq!(format("%p", &Arg::Int(0)).unwrap(), "(nil)");
        assert_eq!(format(" %a", &Arg::Real(3.75)).unwrap(), " 0x1.ep+1");
        assert_eq!(format(" %A", &Arg::Real(3.75)).unwrap(), " 0X1.EP+1");
        // glibc's own answers.
        assert_eq!(format("%a", &Arg::Real(1.0)).unwrap(), "0x1p+0");
        assert_eq!(format("%a", &Arg::Real(0.0)).unwrap(), "0x0p+0");
        assert_eq!(format("%a", &Arg::Real(-0.1)).unwrap(), "-0x1.999999999999ap-4");
        assert_eq!(format("%.0a", &Arg::Real(1.5)).unwrap(), "0x2p+0");
        assert_eq!(format("%.1a", &Arg::Real(1.97)).unwrap(), "0x2.0p+0");
        assert_eq!(format("%#a", &Arg::Real(1.0)).unwrap(), "0x1.p+0");
        assert_eq!(format("%012a", &Arg::Real(3.75)).unwrap(), "0x00001.ep+1");
        assert_eq!(
            format("%010p|%.5p|%+p", &Arg::Int(65)).unwrap_err(),
            "'%010p|%.5p|%+p' is not a valid format specifier"
        );
        assert_eq!(format("%a", &Arg::Real(f64::from_bits(1))).unwrap(), "0x0.0000000000001p-1022");
        assert_eq!(format("x%cy", &Arg::Int(0)).unwrap(), "x");
        assert_eq!(format("x%cy", &Arg::Int(5_000_000_000)).unwrap(), "x");
        assert_eq!(format("x%3cy", &Arg::Int(0)).unwrap(), "x  ");
        assert_eq!(format("%60s", &Arg::Str("a")).unwrap().len(), 60);
        assert_eq!(format("%60d", &Arg::Int(1)).unwrap().len(), 55);
    }

    #[test]
    fn wrong_or_missing_conversions_are_errors() {
        assert!(format("%p", &Arg::Real(1.0)).is_err());
        assert!(format("%a", &Arg::Int(1)).is_err());
        assert!(format("%n", &Arg::Int(1)).is_err());
        assert!(format("%Lf", &Arg::Real(1.0)).is_err());
        assert!(format("%s", &Arg::Int(1)).is_err());
        assert!(format("%d", &Arg::Real(1.0)).is_err());
        assert!(format("no conversion", &Arg::Int(1)).is_err());
        assert!(format("%d %d", &Arg::Int(1)).is_err());
        assert!(format("%99999d", &Arg::Int(1)).is_err());
        assert!(format("%", &Arg::Int(1)).is_err());
    }
}
