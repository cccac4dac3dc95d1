//! C `printf` formats with one conversion, for `$INT(X, fmt)`,
//! `$REAL(X, fmt)` and `$STRING(X, fmt)`.

/// A value to format.
pub(crate) enum Arg<'a> {
    Int(i64),
    Real(f64),
    Str(&'a str),
}

/// One `%[flags][width][.precision]conversion`.
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
    conv: u8,
}

/// Longest width or precision accepted.
const MAX_WIDTH: usize = 1000;

/// Formats `arg` with `format`, which must hold exactly one conversion of
/// the argument's kind (`d i u x X o` for integers, `f F e E g G` for
/// reals, `s` for strings) and any text and `%%` around it.
pub(crate) fn format(format: &str, arg: &Arg<'_>) -> Result<String, String> {
    let bad = || format!("'{format}' is not a valid format specifier");
    let mut out = String::new();
    let mut rest = format;
    let mut converted = false;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let spec_text = &rest[at + 1..];
        if let Some(after) = spec_text.strip_prefix('%') {
            out.push('%');
            rest = after;
            continue;
        }
        if converted {
            return Err(bad());
        }
        let (spec, len) = parse_spec(spec_text).ok_or_else(bad)?;
        let body = match (spec.conv, arg) {
            (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', Arg::Int(i)) => int(&spec, *i),
            (b'f' | b'F' | b'e' | b'E' | b'g' | b'G', Arg::Real(r)) => real(&spec, *r),
            (b's', Arg::Str(s)) => {
                let s: String = match spec.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => (*s).to_string(),
                };
                pad(&spec, String::new(), s, false)
            }
            _ => return Err(bad()),
        };
        out.push_str(&body);
        converted = true;
        rest = &spec_text[len..];
    }
    out.push_str(rest);
    if !converted {
        return Err(bad());
    }
    Ok(out)
}

fn parse_spec(text: &str) -> Option<(Spec, usize)> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut spec =
        Spec { left: false, plus: false, space: false, zero: false, alt: false, width: 0, precision: None, conv: 0 };
    while let Some(&c) = b.get(i) {
        match c {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'0' => spec.zero = true,
            b'#' => spec.alt = true,
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        text[start..*i].parse::<usize>().ok().filter(|&n| n <= MAX_WIDTH)
    };
    if b.get(i).is_some_and(u8::is_ascii_digit) {
        spec.width = digits(&mut i)?;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(if b.get(i).is_some_and(u8::is_ascii_digit) { digits(&mut i)? } else { 0 });
    }
    // Length modifiers are read and ignored (`%lld`).
    while matches!(b.get(i), Some(b'l' | b'h' | b'q' | b'j' | b'z' | b't' | b'L')) {
        i += 1;
    }
    spec.conv = *b.get(i)?;
    Some((spec, i + 1))
}

fn sign(spec: &Spec, negative: bool) -> String {
    if negative {
        "-".into()
    } else if spec.plus {
        "+".into()
    } else if spec.space {
        " ".into()
    } else {
        String::new()
    }
}

/// Pads `sign` + `digits` to the width; `numeric` allows zero padding.
fn pad(spec: &Spec, sign: String, digits: String, numeric: bool) -> String {
    let len = sign.chars().count() + digits.chars().count();
    if len >= spec.width {
        return sign + &digits;
    }
    let fill = spec.width - len;
    if spec.left {
        format!("{sign}{digits}{}", " ".repeat(fill))
    } else if spec.zero && numeric {
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{sign}{digits}", " ".repeat(fill))
    }
}

fn int(spec: &Spec, i: i64) -> String {
    let (negative, magnitude) = (i < 0, i.unsigned_abs());
    let mut digits = match spec.conv {
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        b'o' => format!("{magnitude:o}"),
        _ => magnitude.to_string(),
    };
    if let Some(p) = spec.precision {
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    if spec.alt && i != 0 {
        match spec.conv {
            b'x' => digits.insert_str(0, "0x"),
            b'X' => digits.insert_str(0, "0X"),
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            _ => {}
        }
    }
    let signed = matches!(spec.conv, b'd' | b'i');
    let zero_ok = spec.precision.is_none();
    pad(spec, if signed { sign(spec, negative) } else { String::new() }, digits, zero_ok)
}

/// `x` in C's `%e` form with `p` decimals: `d.ddde+XX`.
fn exp_form(x: f64, p: usize, upper: bool) -> String {
    let s = format!("{x:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let e_char = if upper { 'E' } else { 'e' };
    format!("{m}{e_char}{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn real(spec: &Spec, r: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    if !r.is_finite() {
        let t = if r.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_ascii_uppercase() } else { t.to_string() };
        return pad(spec, sign(spec, r.is_sign_negative() && !r.is_nan()), t, false);
    }
    let negative = r.is_sign_negative() && r != 0.0;
    let x = r.abs();
    let body = match spec.conv {
        b'f' | b'F' => {
            let p = spec.precision.unwrap_or(6);
            format!("{x:.p$}")
        }
        b'e' | b'E' => exp_form(x, spec.precision.unwrap_or(6), upper),
        _ => {
            let p = spec.precision.unwrap_or(6).max(1);
            let e_text = format!("{x:.prec$e}", prec = p - 1);
            let exp: i64 = e_text.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
            let mut body = if x != 0.0 && (exp < -4 || exp >= p as i64) {
                exp_form(x, p - 1, upper)
            } else {
                let decimals = usize::try_from(p as i64 - 1 - exp).unwrap_or(0);
                format!("{x:.decimals$}")
            };
            if !spec.alt {
                body = strip_fraction_zeros(&body);
            }
            body
        }
    };
    pad(spec, sign(spec, negative), body, true)
}

/// `1.2500e+00` to `1.25e+00`, `2.000` to `2`.
fn strip_fraction_zeros(s: &str) -> String {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mantissa = if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { mantissa };
    format!("{mantissa}{exp}")
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
    fn wrong_or_missing_conversions_are_errors() {
        assert!(format("%s", &Arg::Int(1)).is_err());
        assert!(format("%d", &Arg::Real(1.0)).is_err());
        assert!(format("no conversion", &Arg::Int(1)).is_err());
        assert!(format("%d %d", &Arg::Int(1)).is_err());
        assert!(format("%99999d", &Arg::Int(1)).is_err());
        assert!(format("%", &Arg::Int(1)).is_err());
    }
}
