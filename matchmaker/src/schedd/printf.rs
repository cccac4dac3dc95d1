//! C `printf` formats with one conversion, for `$INT(X, fmt)`,
//! `$REAL(X, fmt)` and `$STRING(X, fmt)`.

/// A value to format.
pub(crate) enum Arg<'a> {
    Int(i64),
    Real(f64),
    Str(&'a str),
}

/// Longest width or precision accepted.
const MAX_WIDTH: usize = 1000;

/// Formats `arg` with `format`, which must hold exactly one conversion of
/// the argument's kind (`d i u x X o` for integers, `f F e E g G` for
/// reals, `s` for strings) and any text and `%%` around it. The
/// conversion is C's (`classad::printf`); an integer is given to it as
/// HTCondor gives it, a `long long` (`%d` sees its low 32 bits, `%lld` all).
pub(crate) fn format(format: &str, arg: &Arg<'_>) -> Result<String, String> {
    use classad::printf::{Argument, Spec};
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
        if converted {
            return Err(bad());
        }
        let (spec, len) = Spec::parse_prefix(&rest[at..]).map_err(|_| bad())?;
        if spec.width() > MAX_WIDTH || spec.precision().is_some_and(|p| p > MAX_WIDTH) {
            return Err(bad());
        }
        let body = match (spec.conversion().argument(), arg) {
            (Argument::Int, Arg::Int(i)) => spec.format_long_long(*i),
            (Argument::Real, Arg::Real(r)) => spec.format_f64(*r),
            (Argument::Str, Arg::Str(s)) => spec.format_str(s),
            _ => return Err(bad()),
        };
        out.push_str(&body);
        converted = true;
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    if !converted {
        return Err(bad());
    }
    Ok(out)
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
    fn wrong_or_missing_conversions_are_errors() {
        assert!(format("%s", &Arg::Int(1)).is_err());
        assert!(format("%d", &Arg::Real(1.0)).is_err());
        assert!(format("no conversion", &Arg::Int(1)).is_err());
        assert!(format("%d %d", &Arg::Int(1)).is_err());
        assert!(format("%99999d", &Arg::Int(1)).is_err());
        assert!(format("%", &Arg::Int(1)).is_err());
    }
}
