//! Time functions.
//!
//! "Local" below is the zone named by the `TZ` environment variable (the
//! system's zone when it is unset), as for HTCondor. Times are 64-bit
//! throughout: where libclassad truncates seconds to 32 bits (`absTime(n)`,
//! a real's seconds, relative-time fields, `interval`), the full value is
//! used here (see `docs/divergences.md`, `time-range`).
//!
//! * `time()`: the current time as integer seconds since the epoch.
//!
//! * `currentTime()`: the current time as an absolute time in the local zone.
//!
//! * `absTime(x[, offset])`: an absolute time from seconds since the epoch,
//!   from text in the `absTime("...")` literal form, or from a relative
//!   time (seconds since the epoch); `offset` (seconds or a relative time)
//!   sets the zone it is shown in, else the local zone. `absTime()` is now.
//!   Infinite or NaN seconds are ERROR.
//!
//! * `relTime(x)`: a relative time from seconds, from text in the
//!   `relTime("...")` literal form, or from an absolute time (its seconds
//!   since the epoch).
//!
//! * `timeZoneOffset()`: the local zone's current UTC offset, a relative
//!   time (`relTime(-18000)` in Chicago in summer).
//!
//! * `dayTime()`: the time of day now, local: a relative time since
//!   midnight.
//!
//! * `splitTime(t)`: the parts of a time as an ad. An absolute time gives
//!   `[ Day; Type = "AbsoluteTime"; Year; Hours; Month; Offset; Minutes;
//!   Seconds ]`, its fields in its own zone (month 1-12, `Offset` in
//!   seconds east of UTC); an integer or real is seconds since the epoch
//!   shown in the local zone (a real's fraction is dropped). A relative time
//!   gives `[ Days; Type = "RelativeTime"; Hours; Minutes; Seconds ]`: the
//!   leading non-zero field carries the sign (`relTime(-90061.5)` is
//!   `Days = -1; Hours = 1; Minutes = 1; Seconds = 1.5`) and `Seconds` is a
//!   real holding the fraction. UNDEFINED gives UNDEFINED; anything else
//!   (strings, booleans, lists, ads) ERROR. The attributes are in the order
//!   libclassad prints them.
//!
//! * `formatTime([t][, format])`: `t` formatted by C's `strftime` in the C
//!   locale (glibc's conversions, flags and widths, below); the format
//!   defaults to `"%c"`
//!   (`"Tue Nov 14 22:13:20 2023"`) and `t` to now. `t` is an absolute time
//!   (formatted in its own zone), an integer or real (seconds since the
//!   epoch, in the local zone), or an ad of fields as `splitTime` gives
//!   (`Year`, `Month`, `Day`, `Hours`, `Minutes`, `Seconds`; a field
//!   that is missing or not an integer counts as 0, a missing `Year` as
//!   1900; no range checks). The weekday and day of the year come from the
//!   date by libclassad's formula. There is no zone in the fields, as in
//!   libclassad: `%z` is `+0000`, `%Z` the local zone's standard-time name
//!   and `%s` the fields read as local standard time. A relative time,
//!   UNDEFINED, ERROR or any other type of `t`, a format that is not a
//!   string, more than two arguments, or a result longer than 1022 bytes
//!   (libclassad's buffer) is ERROR.
//!
//! * `interval(secs)`: `secs` (converted as by `int()`) as
//!   `[days+]hh:mm:ss` with leading zero units dropped and the first unit
//!   unpadded: `0` → `"0"`, `67` → `"1:07"`, `3661` → `"1:01:01"`, `90061`
//!   → `"1+01:01:01"`, `-61` → `"-1:01"`. UNDEFINED and anything `int()`
//!   cannot convert are ERROR.
//!
//! * `getYear(t)`, `getMonth(t)` (1-12), `getDayOfMonth(t)` (1-31),
//!   `getDayOfWeek(t)` (0-6, Sunday is 0), `getDayOfYear(t)` (0-365, 1
//!   January is 0): fields of the absolute time `t` in the local zone (not
//!   `t`'s own). `getHours(t)`, `getMinutes(t)`, `getSeconds(t)`: the same
//!   for an absolute time; for a relative time, its whole seconds split
//!   into days, hours, minutes and seconds, each with the sign of the
//!   whole. `getDays(t)`: days of a relative time. Any other argument
//!   (UNDEFINED too, numbers, an absolute time to `getDays`, a relative time
//!   to the date getters) is ERROR.
//!
//! In all of them a wrong number of arguments is ERROR.
//!
//! `formatTime`'s conversions (C locale, as glibc's `strftime`):
//!
//! | conversion | gives |
//! |---|---|
//! | `%a` `%A` | weekday name, abbreviated (`Tue`) or full (`Tuesday`) |
//! | `%b` `%h` `%B` | month name, abbreviated (`Nov`) or full (`November`) |
//! | `%c` | `%a %b %e %H:%M:%S %Y` |
//! | `%C` | century (the year divided by 100, rounded down) |
//! | `%d` `%e` | day of the month, `01`-`31` (`%e`: space-padded) |
//! | `%D` `%x` | `%m/%d/%y` |
//! | `%F` | `%Y-%m-%d` |
//! | `%g` `%G` `%V` | ISO 8601 week-based year (two digits, full) and week number |
//! | `%H` `%k` | hour `00`-`23` (`%k`: space-padded) |
//! | `%I` `%l` | hour `01`-`12` (`%l`: space-padded) |
//! | `%j` | day of the year `001`-`366` |
//! | `%m` | month `01`-`12` |
//! | `%M` | minute `00`-`59` |
//! | `%n` `%t` | newline, tab |
//! | `%p` `%P` | `AM`/`PM`, `am`/`pm` |
//! | `%r` | `%I:%M:%S %p` |
//! | `%R` | `%H:%M` |
//! | `%s` | seconds since the epoch of the fields read as local standard time |
//! | `%S` | second `00`-`60` |
//! | `%T` `%X` | `%H:%M:%S` |
//! | `%u` | weekday `1`-`7`, Monday is 1 |
//! | `%U` `%W` | week of the year, weeks starting on Sunday (`%U`) or Monday (`%W`) |
//! | `%w` | weekday `0`-`6`, Sunday is 0 |
//! | `%y` `%Y` | year, two digits or full |
//! | `%z` | UTC offset: always `+0000` (see above) |
//! | `%Z` | the local zone's standard-time name (`UTC`, `CST`) |
//! | `%%` | `%` |
//!
//! Between the `%` and the conversion may come flags (`_` pad with spaces,
//! `-` do not pad, `0` pad with zeros, `^` upper case, `#` swap the case of
//! names), a field width (`%10Y` is `0000002023`) and a modifier `E` or `O`
//! (no effect in the C locale, where the conversion takes one). Anything
//! else is copied through as written: an unknown conversion (`%q`), a
//! modifier the conversion does not take (`%Ea`) or a `%` at the end.
//! Fields out of their range print as they are (hour 25 is `25`); a
//! weekday or month out of range has the name `?`.
//!
//! ```
//! use classad::{Expr, Value};
//! let eval = |text: &str| text.parse::<Expr>().unwrap().eval();
//! let t = r#"absTime("2020-02-29T13:14:15+05:30")"#;
//! assert_eq!(eval(&format!("{t} + relTime(90)")).to_string(), r#"absTime("2020-02-29T13:15:45+05:30")"#);
//! assert_eq!(eval(&format!("splitTime({t}).Hours")), Value::Int(13));
//! assert_eq!(eval(&format!(r#"formatTime({t}, "%A %d %B %Y, %I:%M %p")"#)), Value::from("Saturday 29 February 2020, 01:14 PM"));
//! assert_eq!(eval(&format!("formatTime({t})")), Value::from("Sat Feb 29 13:14:15 2020"));
//! assert_eq!(eval(&format!("getYear({t})")), Value::Int(2020));
//! assert_eq!(eval("interval(90061)"), Value::from("1+01:01:01"));
//! assert_eq!(eval("getHours(relTime(90061))"), Value::Int(1));
//! assert_eq!(eval("splitTime(relTime(-61)).Minutes"), Value::Int(-1));
//! ```

use super::Implementations;
use crate::ad::ClassAd;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;
use crate::name::Name;
use crate::time::strftime::{strftime, Tm};
use crate::time::{local_offset, AbsTime, RelTime, Zone};

fn time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], _frame: &'a Frame<'a>) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    Val::Int(ev.now())
}

fn current_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], _frame: &'a Frame<'a>) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    let now = ev.now();
    Val::AbsTime(AbsTime { secs: now, offset: local_offset(now) })
}

fn abs_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (value, offset) = match args {
        [] => return current_time(ev, args, frame),
        [value] => (ev.eval(value, frame), None),
        [value, offset] => (ev.eval(value, frame), Some(ev.eval(offset, frame))),
        _ => return Val::Error,
    };
    let offset = match offset {
        None => None,
        Some(Val::Int(secs)) => Some(secs),
        Some(Val::Real(secs) | Val::RelTime(secs)) => Some(secs as i64),
        Some(_) => return Val::Error,
    };
    let time = match &value {
        Val::Undefined => return Val::Undefined,
        Val::Int(secs) => AbsTime::at_local(*secs),
        Val::Real(secs) | Val::RelTime(secs) if secs.is_finite() => AbsTime::at_local(*secs as i64),
        Val::AbsTime(t) => *t,
        Val::Str(text) => match AbsTime::parse(text.as_str()) {
            Some(t) => t,
            None => return Val::Error,
        },
        _ => return Val::Error,
    };
    if let Val::AbsTime(_) = value {
        // An absolute time keeps its own zone (libclassad ignores `offset`).
        return Val::AbsTime(time);
    }
    match offset.map(i32::try_from) {
        None => Val::AbsTime(time),
        Some(Ok(offset)) => Val::AbsTime(AbsTime { secs: time.secs, offset }),
        Some(Err(_)) => Val::Error,
    }
}

fn rel_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [value] = args else {
        return Val::Error;
    };
    match ev.eval(value, frame) {
        Val::Undefined => Val::Undefined,
        Val::Int(secs) => Val::RelTime(secs as f64),
        Val::Real(secs) | Val::RelTime(secs) if secs.is_finite() => Val::RelTime(secs),
        Val::AbsTime(t) => Val::RelTime(t.secs as f64),
        Val::Str(text) => match RelTime::parse(text.as_str()) {
            Some(t) => Val::RelTime(t.0),
            None => Val::Error,
        },
        _ => Val::Error,
    }
}

fn time_zone_offset<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], _frame: &'a Frame<'a>) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    Val::RelTime(f64::from(local_offset(ev.now())))
}

fn day_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], _frame: &'a Frame<'a>) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    let now = ev.now();
    let local = now.saturating_add(i64::from(local_offset(now)));
    Val::RelTime(local.rem_euclid(86400) as f64)
}

/// The absolute time a `splitTime`/`formatTime` argument stands for: an
/// absolute time itself, or an integer or (finite) real number of seconds
/// since the epoch shown in `zone`.
fn instant(v: &Val<'_>, zone: &Zone) -> Option<AbsTime> {
    let secs = match *v {
        Val::AbsTime(t) => return Some(t),
        Val::Int(secs) => secs,
        Val::Real(secs) if secs.is_finite() => secs as i64,
        _ => return None,
    };
    Some(AbsTime { secs, offset: zone.offset_at(secs) })
}

/// The fields of `t` in its own zone (`None` if they overflow).
fn fields_of(t: AbsTime) -> Option<Tm> {
    Some(Tm::from_seconds(t.secs.checked_add(i64::from(t.offset))?))
}

/// An ad of attributes in the order given.
fn ad_of(attrs: &[(&str, Expr)]) -> ClassAd {
    ClassAd::from_attributes(attrs.iter().map(|(name, expr)| (Name::new(name), expr.clone())))
}

/// `splitTime`'s ad of an absolute time.
fn split_absolute(t: AbsTime) -> Option<ClassAd> {
    let tm = fields_of(t)?;
    Some(ad_of(&[
        ("Day", tm.mday.into()),
        ("Type", "AbsoluteTime".into()),
        ("Year", (tm.year + 1900).into()),
        ("Hours", tm.hour.into()),
        ("Month", (tm.mon + 1).into()),
        ("Offset", t.offset.into()),
        ("Minutes", tm.min.into()),
        ("Seconds", tm.sec.into()),
    ]))
}

/// `splitTime`'s ad of a relative time.
fn split_relative(secs: f64) -> Option<ClassAd> {
    if !secs.is_finite() {
        return None;
    }
    let magnitude = secs.abs();
    let whole = magnitude as i64; // saturating, for absurd values
    let mut days = whole / 86400;
    let mut hours = whole % 86400 / 3600;
    let mut minutes = whole % 3600 / 60;
    let mut seconds = (whole % 60) as f64 + (magnitude - magnitude.floor());
    if secs < 0.0 {
        // The sign goes on the leading non-zero field.
        if days > 0 {
            days = -days;
        } else if hours > 0 {
            hours = -hours;
        } else if minutes > 0 {
            minutes = -minutes;
        } else {
            seconds = -seconds;
        }
    }
    Some(ad_of(&[
        ("Days", days.into()),
        ("Type", "RelativeTime".into()),
        ("Hours", hours.into()),
        ("Minutes", minutes.into()),
        ("Seconds", seconds.into()),
    ]))
}

fn split_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let Some(v) = super::one_arg(ev, args, frame) else {
        return Val::Error;
    };
    let ad = match v {
        Val::Undefined => return Val::Undefined,
        Val::RelTime(secs) => split_relative(secs),
        v => instant(&v, &Zone::local()).and_then(split_absolute),
    };
    match ad {
        Some(ad) => ev.new_ad(ad),
        None => Val::Error,
    }
}

/// The fields `formatTime` reads from an ad: each attribute that evaluates
/// to an integer (as a C `int`, libclassad's type), else 0.
fn fields_of_ad<'a>(ev: &mut Evaluator<'a>, frame: &'a Frame<'a>) -> Tm {
    let mut field = |name: &str| match ev.attr(Name::new(name), frame) {
        // Truncated to 32 bits as libclassad's EvaluateAttrInt(int&) does.
        Val::Int(i) => Some(i64::from(i as i32)),
        _ => None,
    };
    Tm {
        sec: field("Seconds").unwrap_or(0),
        min: field("Minutes").unwrap_or(0),
        hour: field("Hours").unwrap_or(0),
        mday: field("Day").unwrap_or(0),
        mon: field("Month").map_or(0, |m| m - 1),
        year: field("Year").map_or(0, |y| y - 1900),
        ..Tm::default()
    }
}

fn format_time<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    if args.len() > 2 {
        return Val::Error;
    }
    let zone = Zone::local();
    let tm = match args.first() {
        None => {
            let now = ev.now();
            fields_of(AbsTime { secs: now, offset: zone.offset_at(now) })
        }
        Some(t) => match ev.eval(t, frame) {
            Val::Ad(ad) => Some(fields_of_ad(ev, ad)),
            v => instant(&v, &zone).and_then(fields_of),
        },
    };
    let Some(tm) = tm else {
        return Val::Error;
    };
    // libclassad computes the weekday and day of the year itself.
    let tm = tm.with_day_numbers();
    let text = match args.get(1).map(|f| ev.eval(f, frame)) {
        None => strftime("%c", &tm, &zone),
        Some(Val::Str(format)) => strftime(format.as_str(), &tm, &zone),
        Some(_) => return Val::Error,
    };
    text.map_or(Val::Error, Val::string)
}

fn interval<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let Some(v) = super::one_arg(ev, args, frame) else {
        return Val::Error;
    };
    let Val::Int(total) = super::conversion::to_int(v) else {
        return Val::Error;
    };
    let days = total / 86400;
    let hours = total % 86400 / 3600;
    let minutes = total % 3600 / 60;
    let seconds = total % 60;
    // Only the leading unit carries the sign (the rest share it).
    let (h, m, s) = (hours.abs(), minutes.abs(), seconds.abs());
    Val::string(if days != 0 {
        format!("{days}+{h:02}:{m:02}:{s:02}")
    } else if hours != 0 {
        format!("{hours}:{m:02}:{s:02}")
    } else if minutes != 0 {
        format!("{minutes}:{s:02}")
    } else {
        format!("{seconds}")
    })
}

/// Which part `get_field` extracts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

/// Shared body of the `get*` functions.
fn get_field<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, field: Field) -> Val<'a> {
    let value = match super::one_arg(ev, args, frame) {
        Some(Val::AbsTime(t)) => {
            // In the local zone, whatever zone `t` is shown in.
            let Some(tm) = fields_of(AbsTime { secs: t.secs, offset: Zone::local().offset_at(t.secs) }) else {
                return Val::Error;
            };
            match field {
                Field::Year => tm.year + 1900,
                Field::Month => tm.mon + 1,
                Field::DayOfYear => tm.yday,
                Field::DayOfMonth => tm.mday,
                Field::DayOfWeek => tm.wday,
                Field::Hours => tm.hour,
                Field::Minutes => tm.min,
                Field::Seconds => tm.sec,
                Field::Days => return Val::Error,
            }
        }
        Some(Val::RelTime(secs)) if secs.is_finite() => {
            let whole = secs as i64; // toward zero; saturating for absurd values
            match field {
                Field::Days => whole / 86400,
                Field::Hours => whole % 86400 / 3600,
                Field::Minutes => whole % 3600 / 60,
                Field::Seconds => whole % 60,
                _ => return Val::Error,
            }
        }
        _ => return Val::Error,
    };
    Val::Int(value)
}

macro_rules! getters {
    ($($func:ident => $field:ident),* $(,)?) => {
        $(
            fn $func<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
                get_field(ev, args, frame, Field::$field)
            }
        )*
    };
}

getters! {
    get_year => Year,
    get_month => Month,
    get_day_of_year => DayOfYear,
    get_day_of_month => DayOfMonth,
    get_day_of_week => DayOfWeek,
    get_days => Days,
    get_hours => Hours,
    get_minutes => Minutes,
    get_seconds => Seconds,
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Time, time),
    (BuiltinId::CurrentTime, current_time),
    (BuiltinId::AbsTime, abs_time),
    (BuiltinId::RelTime, rel_time),
    (BuiltinId::TimeZoneOffset, time_zone_offset),
    (BuiltinId::DayTime, day_time),
    (BuiltinId::SplitTime, split_time),
    (BuiltinId::FormatTime, format_time),
    (BuiltinId::Interval, interval),
    (BuiltinId::GetYear, get_year),
    (BuiltinId::GetMonth, get_month),
    (BuiltinId::GetDayOfYear, get_day_of_year),
    (BuiltinId::GetDayOfMonth, get_day_of_month),
    (BuiltinId::GetDayOfWeek, get_day_of_week),
    (BuiltinId::GetDays, get_days),
    (BuiltinId::GetHours, get_hours),
    (BuiltinId::GetMinutes, get_minutes),
    (BuiltinId::GetSeconds, get_seconds),
];

#[cfg(test)]
mod tests {
    use crate::{parse_expr, Value};

    fn eval(text: &str) -> Value {
        parse_expr(text).unwrap_or_else(|e| panic!("{text}: {e}")).eval()
    }

    #[test]
    fn format_time_output_is_bounded() {
        let t = r#"absTime("2020-02-29T13:14:15+05:30")"#;
        assert_eq!(eval(&format!(r#"size(formatTime({t}, "%1022Y"))"#)), Value::Int(1022));
        for format in ["%1023Y", "%2147483647Y", "%99999999999999999999a", &"%c".repeat(10_000)] {
            assert_eq!(eval(&format!(r#"formatTime({t}, "{format}")"#)), Value::Error, "{format}");
        }
    }

    #[test]
    fn extreme_arguments_do_not_panic() {
        let times = [
            "9223372036854775807",
            "-9223372036854775808",
            "1e300",
            "-1e300",
            r#"real("NaN")"#,
            "absTime(9223372036854775807, 50400)",
            "absTime(-9223372036854775808, -50400)",
            "relTime(1e300)",
            "relTime(-1e300)",
            "relTime(-9223372036854775808)",
            "[ Year = 9223372036854775807; Month = -9223372036854775808; Day = 2147483647; Hours = -2147483648; Minutes = 2147483647; Seconds = -2147483648 ]",
        ];
        let calls = [
            "splitTime(@)",
            r#"formatTime(@, "%a%A%b%B%c%C%d%D%e%F%g%G%h%H%I%j%k%l%m%M%p%r%R%s%S%T%u%U%V%w%W%x%X%y%Y%z%Z")"#,
            "interval(@)",
        ];
        for t in times {
            for call in calls {
                let _ = eval(&call.replace('@', t));
            }
            for getter in ["getYear", "getMonth", "getDayOfYear", "getDayOfWeek", "getDays", "getHours", "getSeconds"] {
                let _ = eval(&format!("{getter}({t})"));
            }
        }
        assert_eq!(eval("formatTime(absTime(9223372036854775807, 50400))"), Value::Error);
    }

    #[test]
    fn split_relative_time() {
        assert_eq!(
            eval("splitTime(relTime(-90061.5))").to_string(),
            r#"[ Days = -1; Type = "RelativeTime"; Hours = 1; Minutes = 1; Seconds = 1.500000000000000E+00 ]"#
        );
        assert_eq!(eval("splitTime(relTime(-5.5)).Seconds"), Value::Real(-5.5));
    }

    #[test]
    fn interval_text() {
        for (secs, text) in [
            (0, "0"),
            (67, "1:07"),
            (3661, "1:01:01"),
            (90061, "1+01:01:01"),
            (1_472_523, "17+01:02:03"),
            (-61, "-1:01"),
            (-86401, "-1+00:00:01"),
        ] {
            assert_eq!(eval(&format!("interval({secs})")), Value::from(text), "{secs}");
        }
    }
}
