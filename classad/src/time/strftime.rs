//! `strftime` in the C locale, as glibc's: the function libclassad's
//! `formatTime` hands its format to.
//!
//! Every conversion of glibc is supported, with its flags, field width
//! and `E`/`O` modifiers (which change nothing in the C locale); the table
//! is in the docs of [`crate::functions::time`].
//!
//! Between the `%` and the conversion may come flags (`_` pad with spaces,
//! `-` do not pad, `0` pad with zeros, `^` upper case, `#` swap case), a
//! field width and a modifier `E` or `O`. An unknown conversion, or a
//! modifier the conversion does not take, is copied through as written
//! (`%q` stays `%q`), as is a `%` at the end.
//!
//! A field that is out of range prints as it is (hour 25 is `25`); a
//! weekday or month name out of range is `?`.
//!
//! Output is limited to [`MAX_OUTPUT`] bytes, libclassad's buffer:
//! beyond that glibc's `strftime` fails and libclassad returns whatever
//! the buffer held; here the result is `None` (ERROR in `formatTime`),
//! checked before anything is written, so a format of ten thousand `%c`
//! or a width of `%2147483647Y` costs nothing.

use super::{civil_from_days, days_from_civil, Zone};

/// The longest output, in bytes (libclassad formats into a 1024-byte
/// buffer and passes `strftime` a size of 1023, which holds 1022 bytes
/// and the terminating NUL).
pub(crate) const MAX_OUTPUT: usize = 1022;

/// A broken-down time, as C's `struct tm`: the year counts from 1900 and
/// the month from 0; fields may be out of their usual ranges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tm {
    /// Years since 1900.
    pub(crate) year: i64,
    /// Month, 0-11.
    pub(crate) mon: i64,
    /// Day of the month, 1-31.
    pub(crate) mday: i64,
    pub(crate) hour: i64,
    pub(crate) min: i64,
    pub(crate) sec: i64,
    /// Day of the week, 0-6, Sunday is 0.
    pub(crate) wday: i64,
    /// Day of the year, 0-365.
    pub(crate) yday: i64,
}

impl Tm {
    /// The fields of the instant `secs` in UTC, as `gmtime` gives them.
    pub(crate) fn from_seconds(secs: i64) -> Tm {
        let days = secs.div_euclid(86400);
        let secs_of_day = secs.rem_euclid(86400);
        let (year, month, day) = civil_from_days(days);
        let yday = days - days_from_civil(year, 1, 1);
        Tm {
            year: year - 1900,
            mon: i64::from(month) - 1,
            mday: i64::from(day),
            hour: secs_of_day / 3600,
            min: secs_of_day / 60 % 60,
            sec: secs_of_day % 60,
            wday: (days + 4).rem_euclid(7),
            yday,
        }
    }

    /// These fields with the weekday and day of the year computed from the
    /// date by libclassad's formula (as `formatTime` does, since its fields
    /// may be in any zone): C integer arithmetic over the proleptic
    /// Gregorian calendar, which is exact from year 1 on; before that the
    /// weekday can come out negative (and print as `?`).
    pub(crate) fn with_day_numbers(self) -> Tm {
        let (wday, yday) = day_numbers(self.year + 1900, self.mon + 1, self.mday);
        Tm { wday, yday, ..self }
    }

    /// The fields as a wall-clock time in seconds since the epoch (as if
    /// UTC), carrying out-of-range fields over as `mktime` does; `None`
    /// when that is out of range.
    fn wall_seconds(&self) -> Option<i64> {
        let months = self.year.checked_add(1900)?.checked_mul(12)?.checked_add(self.mon)?;
        let year = months.div_euclid(12);
        if year.unsigned_abs() > 1_000_000_000_000 {
            return None;
        }
        let days = days_from_civil(year, months.rem_euclid(12) + 1, 1).checked_add(self.mday)?.checked_sub(1)?;
        days.checked_mul(86400)?
            .checked_add(self.hour.checked_mul(3600)?)?
            .checked_add(self.min.checked_mul(60)?)?
            .checked_add(self.sec)
    }
}

/// libclassad's `day_numbers`: weekday (0 is Sunday) and day of the year
/// (0-based) of a date, with C's truncating division.
fn day_numbers(year: i64, month: i64, day: i64) -> (i64, i64) {
    let fixed = fixed_from_gregorian(year, month, day);
    let jan1 = fixed_from_gregorian(year, 1, 1);
    (fixed % 7, fixed - jan1)
}

/// Days since 0000-12-31 (day 1 is 0001-01-01), as libclassad's
/// `fixed_from_gregorian` computes it.
fn fixed_from_gregorian(year: i64, month: i64, day: i64) -> i64 {
    let adjustment = if month <= 2 {
        0
    } else if is_leap_year_classad(year) {
        -1
    } else {
        -2
    };
    let y = year - 1;
    365 * y + y / 4 - y / 100 + y / 400 + (367 * month - 362) / 12 + adjustment + day
}

/// libclassad's `is_leap_year` (C remainders: year -100 counts as leap).
fn is_leap_year_classad(year: i64) -> bool {
    year % 4 == 0 && !matches!(year % 400, 100 | 200 | 300)
}

/// glibc's `__isleap`.
fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days from the first day of the first ISO week of the year to day
/// `yday` with weekday `wday` (glibc's `iso_week_days`).
fn iso_week_days(yday: i64, wday: i64) -> i64 {
    // Enough to make the left operand of % non-negative for real dates.
    const BIG_ENOUGH_MULTIPLE_OF_7: i64 = (366 / 7 + 2) * 7;
    yday - (yday - wday + 4 + BIG_ENOUGH_MULTIPLE_OF_7) % 7 + 3
}

const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The name at `index`, or `?` out of range.
fn name(names: &[&'static str], index: i64, abbreviated: bool) -> &'static str {
    match usize::try_from(index).ok().and_then(|i| names.get(i)) {
        Some(full) if abbreviated => &full[..3],
        Some(full) => full,
        None => "?",
    }
}

/// The output so far; every write checks [`MAX_OUTPUT`] first.
struct Out {
    buf: Vec<u8>,
}

/// How one conversion is written: padding flag (`0` for none), field width
/// (-1 for none) and case changes.
#[derive(Clone, Copy)]
struct Spec {
    pad: u8,
    width: i64,
    upper: bool,
    lower: bool,
}

impl Out {
    /// Fails unless `n` more bytes fit.
    fn room(&self, n: i64) -> Option<()> {
        let left = MAX_OUTPUT - self.buf.len();
        (usize::try_from(n).ok()? <= left).then_some(())
    }

    fn fill(&mut self, byte: u8, n: i64) {
        let n = usize::try_from(n).unwrap_or(0);
        self.buf.resize(self.buf.len() + n, byte);
    }

    /// glibc's `cpy`: `bytes`, case-changed as `spec` says, right-aligned
    /// in the field width (padded with zeros under the `0` flag, else
    /// spaces).
    fn put(&mut self, spec: Spec, bytes: &[u8]) -> Option<()> {
        let len = bytes.len() as i64;
        let padding = (spec.width - len).max(0);
        self.room(len + padding)?;
        self.fill(if spec.pad == b'0' { b'0' } else { b' ' }, padding);
        let start = self.buf.len();
        self.buf.extend_from_slice(bytes);
        if spec.lower {
            self.buf[start..].make_ascii_lowercase();
        } else if spec.upper {
            self.buf[start..].make_ascii_uppercase();
        }
        Some(())
    }

    /// A number at least `digits` wide (counting a minus sign), padded as
    /// `spec` says (glibc's `do_number_sign_and_padding`).
    fn number(&mut self, mut spec: Spec, digits: i64, value: i64) -> Option<()> {
        let text = value.unsigned_abs().to_string();
        let negative = value < 0;
        let mut sign: &[u8] = if negative { b"-" } else { b"" };
        if spec.pad != b'-' {
            let padding = digits - (text.len() as i64 + i64::from(negative));
            if padding > 0 {
                if spec.pad == b'_' {
                    self.room(padding)?;
                    self.fill(b' ', padding);
                    spec.width = if spec.width > padding { spec.width - padding } else { 0 };
                } else {
                    self.room(digits)?;
                    self.buf.extend_from_slice(sign);
                    sign = b"";
                    self.fill(b'0', padding);
                    spec.width = 0;
                }
            }
        }
        let mut bytes = Vec::with_capacity(sign.len() + text.len());
        bytes.extend_from_slice(sign);
        bytes.extend_from_slice(text.as_bytes());
        self.put(spec, &bytes)
    }
}

/// What a format is applied to: the fields, and the zone that `%Z` names
/// and `%s` reads them in.
struct Context<'z> {
    tm: Tm,
    zone: &'z Zone,
    /// `%Z` and `%s`, worked out on first use.
    zone_name: Option<String>,
    epoch: Option<i64>,
}

/// Formats `tm` as C's `strftime` does in the C locale, with `tm_isdst`
/// 0 and no zone information in `tm` (as libclassad calls it): `%Z` is
/// the standard-time name of `zone`, `%z` is `+0000`, and `%s` reads the
/// fields as standard time in `zone`. `None` when the result would be
/// longer than [`MAX_OUTPUT`] bytes.
pub(crate) fn strftime(format: &str, tm: &Tm, zone: &Zone) -> Option<String> {
    let mut out = Out { buf: Vec::new() };
    let mut context = Context { tm: *tm, zone, zone_name: None, epoch: None };
    format_into(&mut out, format.as_bytes(), &mut context)?;
    // Only ASCII is ever inserted or case-changed, and the format's bytes
    // are copied in order, so the output stays valid UTF-8.
    String::from_utf8(out.buf).ok()
}

/// The C locale's compound formats.
const DATE_TIME: &[u8] = b"%a %b %e %H:%M:%S %Y";
const DATE: &[u8] = b"%m/%d/%y";
const TIME: &[u8] = b"%H:%M:%S";

fn format_into(out: &mut Out, format: &[u8], cx: &mut Context<'_>) -> Option<()> {
    let plain = Spec { pad: 0, width: -1, upper: false, lower: false };
    let tm = cx.tm;
    let mut at = 0;
    while at < format.len() {
        if format[at] != b'%' {
            let end = format[at..].iter().position(|&b| b == b'%').map_or(format.len(), |n| at + n);
            out.put(plain, &format[at..end])?;
            at = end;
            continue;
        }
        let start = at;
        at += 1;
        let mut spec = plain;
        let mut change_case = false;
        while let Some(&flag) = format.get(at) {
            match flag {
                b'_' | b'-' | b'0' => spec.pad = flag,
                b'^' => spec.upper = true,
                b'#' => change_case = true,
                _ => break,
            }
            at += 1;
        }
        if format.get(at).is_some_and(u8::is_ascii_digit) {
            spec.width = 0;
            while let Some(digit) = format.get(at).filter(|b| b.is_ascii_digit()) {
                spec.width = (spec.width * 10 + i64::from(digit - b'0')).min(i64::from(i32::MAX));
                at += 1;
            }
        }
        let modifier = match format.get(at) {
            Some(&m @ (b'E' | b'O')) => {
                at += 1;
                m
            }
            _ => 0,
        };
        let Some(&conversion) = format.get(at) else {
            // A `%` (with flags, width or modifier) at the end is copied.
            out.put(spec, &format[start..])?;
            break;
        };
        at += 1;
        let number =
            |out: &mut Out, spec: Spec, digits: i64, value: i64| out.number(spec, digits.max(spec.width), value);
        let space_padded =
            |spec: Spec| Spec { pad: if matches!(spec.pad, b'0' | b'-') { spec.pad } else { b'_' }, ..spec };
        let names_upper = |spec: Spec| if change_case { Spec { upper: true, lower: false, ..spec } } else { spec };
        let names_lower = |spec: Spec| if change_case { Spec { upper: false, lower: true, ..spec } } else { spec };
        let hour12 = match tm.hour {
            h if h > 12 => h - 12,
            0 => 12,
            h => h,
        };
        let done = match (conversion, modifier) {
            (b'%', 0) => out.put(spec, b"%"),
            (b'a', 0) => out.put(names_upper(spec), name(&WEEKDAYS, tm.wday, true).as_bytes()),
            (b'A', 0) => out.put(names_upper(spec), name(&WEEKDAYS, tm.wday, false).as_bytes()),
            // `%Ob` is the alternative (nominative) month name: the same here.
            (b'b' | b'h', 0 | b'O') => out.put(names_upper(spec), name(&MONTHS, tm.mon, true).as_bytes()),
            (b'B', 0 | b'O') => out.put(names_upper(spec), name(&MONTHS, tm.mon, false).as_bytes()),
            (b'c', 0 | b'E') => subformat(out, spec, DATE_TIME, cx),
            (b'x', 0 | b'E') | (b'D', 0) => subformat(out, spec, DATE, cx),
            (b'X', 0 | b'E') | (b'T', _) => subformat(out, spec, TIME, cx),
            (b'F', 0) => subformat(out, spec, b"%Y-%m-%d", cx),
            (b'R', _) => subformat(out, spec, b"%H:%M", cx),
            (b'r', _) => subformat(out, spec, b"%I:%M:%S %p", cx),
            (b'C', _) => {
                let year = tm.year + 1900;
                number(out, spec, 1, year / 100 - i64::from(year % 100 < 0))
            }
            (b'd', 0 | b'O') => number(out, spec, 2, tm.mday),
            (b'e', 0 | b'O') => number(out, space_padded(spec), 2, tm.mday),
            (b'H', 0 | b'O') => number(out, spec, 2, tm.hour),
            (b'I', 0 | b'O') => number(out, spec, 2, hour12),
            (b'k', 0 | b'O') => number(out, space_padded(spec), 2, tm.hour),
            (b'l', 0 | b'O') => number(out, space_padded(spec), 2, hour12),
            (b'j', 0 | b'O') => number(out, spec, 3, 1 + tm.yday),
            (b'M', 0 | b'O') => number(out, spec, 2, tm.min),
            (b'm', 0 | b'O') => number(out, spec, 2, tm.mon + 1),
            (b'S', 0 | b'O') => number(out, spec, 2, tm.sec),
            (b'u', _) => number(out, spec, 1, (tm.wday - 1 + 7) % 7 + 1),
            (b'U', 0 | b'O') => number(out, spec, 2, (tm.yday - tm.wday + 7) / 7),
            (b'W', 0 | b'O') => number(out, spec, 2, (tm.yday - (tm.wday - 1 + 7) % 7 + 7) / 7),
            (b'w', 0 | b'O') => number(out, spec, 1, tm.wday),
            (b'V' | b'g' | b'G', 0 | b'O') => {
                let (year, days) = iso_week(&tm);
                match conversion {
                    b'g' => number(out, spec, 2, (year % 100 + 100) % 100),
                    b'G' => number(out, spec, 1, year),
                    _ => number(out, spec, 2, days / 7 + 1),
                }
            }
            (b'Y', 0 | b'E') => number(out, spec, 1, tm.year + 1900),
            (b'y', _) => number(out, spec, 2, (tm.year % 100 + 100) % 100),
            (b'n', _) => out.put(spec, b"\n"),
            (b't', _) => out.put(spec, b"\t"),
            (b'p' | b'P', _) => {
                let spec = if conversion == b'P' { Spec { lower: true, ..spec } } else { spec };
                out.put(names_lower(spec), if tm.hour > 11 { b"PM" } else { b"AM" })
            }
            (b'Z', _) => {
                let zone = cx.zone;
                let zone_name = cx.zone_name.get_or_insert_with(|| zone.standard_name());
                out.put(names_lower(spec), zone_name.as_bytes())
            }
            (b'z', _) => {
                // libclassad's fields carry no offset: glibc prints tm_gmtoff, 0.
                out.put(spec, b"+")?;
                number(out, spec, 4, 0)
            }
            (b's', _) => {
                let zone = cx.zone;
                let epoch =
                    *cx.epoch.get_or_insert_with(|| tm.wall_seconds().map_or(-1, |wall| zone.mktime_standard(wall)));
                out.number(spec, 1, epoch)
            }
            _ => {
                // Unknown, or a modifier the conversion does not take:
                // copied from the `%` (just the last `%` of `%E%`).
                let text = if conversion == b'%' { &format[at - 1..at] } else { &format[start..at] };
                out.put(spec, text)
            }
        };
        done?;
    }
    Some(())
}

/// A compound conversion (`%c`, `%D`, ...): the format's expansion as one
/// field; `^` upper-cases it, other case flags do not apply.
fn subformat(out: &mut Out, spec: Spec, format: &[u8], cx: &mut Context<'_>) -> Option<()> {
    let mut inner = Out { buf: Vec::new() };
    format_into(&mut inner, format, cx)?;
    out.put(Spec { lower: false, ..spec }, &inner.buf)
}

/// The ISO 8601 week-based year and the days since the start of its first
/// week (glibc's computation for `%G`, `%g`, `%V`).
fn iso_week(tm: &Tm) -> (i64, i64) {
    let mut year = tm.year + 1900;
    let mut days = iso_week_days(tm.yday, tm.wday);
    if days < 0 {
        // The week belongs to the previous year.
        year -= 1;
        days = iso_week_days(tm.yday + 365 + i64::from(is_leap(year)), tm.wday);
    } else {
        let next = iso_week_days(tm.yday - (365 + i64::from(is_leap(year))), tm.wday);
        if next >= 0 {
            // The week belongs to the next year.
            year += 1;
            days = next;
        }
    }
    (year, days)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc() -> Zone {
        Zone(jiff::tz::TimeZone::UTC)
    }

    fn format(format: &str, secs: i64) -> Option<String> {
        strftime(format, &Tm::from_seconds(secs).with_day_numbers(), &utc())
    }

    #[test]
    fn conversions() {
        let all = "%a|%A|%b|%B|%c|%C|%d|%D|%e|%F|%g|%G|%h|%H|%I|%j|%k|%l|%m|%M|%n|%p|%P|%r|%R|%s|%S|%t|%T|%u|%U|%V|%w|%W|%x|%X|%y|%Y|%z|%Z|%%";
        assert_eq!(
            format(all, 1_700_000_000).as_deref(),
            Some(
                "Tue|Tuesday|Nov|November|Tue Nov 14 22:13:20 2023|20|14|11/14/23|14|2023-11-14|23|2023|Nov|22|10|318|22|10|11|13|\n|PM|pm|10:13:20 PM|22:13|1700000000|20|\t|22:13:20|2|46|46|2|46|11/14/23|22:13:20|23|2023|+0000|UTC|%"
            )
        );
    }

    #[test]
    fn flags_and_widths() {
        for (spec, expected) in [
            ("%_H", "22"),
            ("%05e", "00014"),
            ("%^a", "TUE"),
            ("%#Z", "utc"),
            ("%#p", "pm"),
            ("%-10Y", "      2023"),
            ("%010Y", "0000002023"),
            ("%0_10Y", "      2023"),
            ("%010a", "0000000Tue"),
            ("%5z", "    +00000"),
            ("%_z", "+   0"),
            ("%-z", "+0"),
            ("%030c", "000000Tue Nov 14 22:13:20 2023"),
            ("%^30c", "      TUE NOV 14 22:13:20 2023"),
            ("%10q", "      %10q"),
            ("%E%", "%"),
            ("%Ea", "%Ea"),
            ("%Od", "14"),
            ("abc%", "abc%"),
            ("%^10", "      %^10"),
            ("%012s", "001700000000"),
        ] {
            assert_eq!(format(spec, 1_700_000_000).as_deref(), Some(expected), "{spec}");
        }
        assert_eq!(format("%05s", -5).as_deref(), Some("000-5"));
    }

    #[test]
    fn years_before_one_follow_libclassad() {
        assert_eq!(
            format("%c|%j|%u|%C|%y|%G|%g|%V", -62_167_219_200).as_deref(),
            Some("Sun Jan  1 00:00:00 0|001|7|0|00|-1|99|52")
        );
        assert_eq!(format("%a %C %y", -70_000_000_000).as_deref(), Some("? -3 51"));
    }

    #[test]
    fn output_is_bounded() {
        assert_eq!(format("%1022Y", 0).map(|s| s.len()), Some(1022));
        assert_eq!(format("%1023Y", 0), None);
        assert_eq!(format("%2147483647Y", 0), None);
        assert_eq!(format("%99999999999999999999999a", 0), None);
        assert_eq!(format(&"%c".repeat(10_000), 0), None);
        assert_eq!(format(&"x".repeat(1023), 0), None);
        assert_eq!(format(&"x".repeat(1022), 0).map(|s| s.len()), Some(1022));
    }

    #[test]
    fn unicode_passes_through() {
        assert_eq!(format("héllo %Y %^é", 0).as_deref(), Some("héllo 1970 %^é"));
    }

    #[test]
    fn out_of_range_fields() {
        let tm = Tm { year: 120, mon: 13, mday: 40, hour: 30, min: 99, sec: 99, ..Tm::default() }.with_day_numbers();
        assert_eq!(strftime("%c|%j|%u|%s", &tm, &utc()).as_deref(), Some("Fri ? 40 30:99:99 2020|437|5|1615621239"));
    }
}
