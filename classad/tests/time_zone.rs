//! The time functions in a zone other than UTC.
//!
//! The local zone here is Chicago's (`TZ=CST6CDT,M3.2.0,M11.1.0`, the
//! POSIX form of America/Chicago's current rules, which needs no zone
//! database). Every expected value is what libclassad (the `htcondor` wheel,
//! old semantics) gives with that `TZ`; America/Chicago gives the same.
//! Every test of this file sets the same zone before evaluating, so they
//! may run in one process.

use classad::parse_expr;

const CHICAGO: &str = "CST6CDT,M3.2.0,M11.1.0";

/// Makes Chicago's the local zone of this process.
fn use_chicago() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::env::set_var("TZ", CHICAGO);
        jiff::tz::reset_system_time_zone_cache();
    });
    // 2020-06-01 is in daylight saving time, 2020-02-06 is not.
    assert_eq!(classad::local_offset(1_591_005_600), -5 * 3600);
    assert_eq!(classad::local_offset(1_581_005_600), -6 * 3600);
}

fn eval(text: &str) -> String {
    parse_expr(text).unwrap_or_else(|e| panic!("{text}: {e}")).eval().to_string()
}

/// An integer is shown in the local zone, an absolute time in its own; `%Z`
/// is always the standard-time name and `%z` always `+0000` (libclassad
/// passes no zone to strftime); `%s` reads the fields as local standard
/// time, so it is an hour off in summer. Around the changes of 2020-03-08
/// and 2020-11-01 too.
#[test]
fn time_functions_in_chicago() {
    use_chicago();
    let cases = [
        (r#"formatTime(0)"#, r#""Wed Dec 31 18:00:00 1969""#),
        (r#"formatTime(1591005600)"#, r#""Mon Jun  1 05:00:00 2020""#),
        (r#"formatTime(1591005600, "%Y-%m-%d %H:%M:%S %Z %z %s")"#, r#""2020-06-01 05:00:00 CST +0000 1591009200""#),
        (r#"formatTime(1581005600, "%Y-%m-%d %H:%M:%S %Z %z %s")"#, r#""2020-02-06 10:13:20 CST +0000 1581005600""#),
        (
            r#"formatTime(absTime("2020-06-01T10:00:00+05:00"), "%c %Z %z %s")"#,
            r#""Mon Jun  1 10:00:00 2020 CST +0000 1591027200""#,
        ),
        (
            r#"formatTime(absTime("2020-01-15T10:00:00+05:00"), "%c %Z %z %s")"#,
            r#""Wed Jan 15 10:00:00 2020 CST +0000 1579104000""#,
        ),
        (r#"formatTime(absTime("2020-06-01T10:00:00+05:00"))"#, r#""Mon Jun  1 10:00:00 2020""#),
        (
            r#"formatTime([Year = 2020; Month = 7; Day = 4; Hours = 12], "%c %Z %s")"#,
            r#""Sat Jul  4 12:00:00 2020 CST 1593885600""#,
        ),
        (
            r#"formatTime([Year = 2020; Month = 1; Day = 4; Hours = 12], "%c %Z %s")"#,
            r#""Sat Jan  4 12:00:00 2020 CST 1578160800""#,
        ),
        (r#"formatTime(1583654400, "%c %s")"#, r#""Sun Mar  8 03:00:00 2020 1583658000""#),
        (r#"formatTime(1583661600, "%c %s")"#, r#""Sun Mar  8 05:00:00 2020 1583665200""#),
        (r#"formatTime(1604214000, "%c %s")"#, r#""Sun Nov  1 01:00:00 2020 1604214000""#),
        (r#"formatTime(1604217600, "%c %s")"#, r#""Sun Nov  1 02:00:00 2020 1604217600""#),
        (
            r#"splitTime(1591005600)"#,
            r#"[ Day = 1; Type = "AbsoluteTime"; Year = 2020; Hours = 5; Month = 6; Offset = -18000; Minutes = 0; Seconds = 0 ]"#,
        ),
        (
            r#"splitTime(1581005600)"#,
            r#"[ Day = 6; Type = "AbsoluteTime"; Year = 2020; Hours = 10; Month = 2; Offset = -21600; Minutes = 13; Seconds = 20 ]"#,
        ),
        (
            r#"splitTime(0)"#,
            r#"[ Day = 31; Type = "AbsoluteTime"; Year = 1969; Hours = 18; Month = 12; Offset = -21600; Minutes = 0; Seconds = 0 ]"#,
        ),
        (
            r#"splitTime(absTime("2020-06-01T10:00:00+05:00"))"#,
            r#"[ Day = 1; Type = "AbsoluteTime"; Year = 2020; Hours = 10; Month = 6; Offset = 18000; Minutes = 0; Seconds = 0 ]"#,
        ),
        (r#"absTime(1591005600)"#, r#"absTime("2020-06-01T05:00:00-05:00")"#),
        (r#"absTime(1581005600)"#, r#"absTime("2020-02-06T10:13:20-06:00")"#),
        (r#"absTime("2020-06-01T10:00:00")"#, r#"absTime("2020-06-01T10:00:00-05:00")"#),
        (r#"absTime("2020-01-15T10:00:00")"#, r#"absTime("2020-01-15T10:00:00-06:00")"#),
        (r#"getHours(absTime("2020-06-01T10:00:00+05:00"))"#, r#"0"#),
        (r#"getHours(absTime("2020-01-15T10:00:00+05:00"))"#, r#"23"#),
        (r#"getDayOfMonth(absTime("2020-06-01T03:00:00Z"))"#, r#"31"#),
        (r#"getDayOfWeek(absTime("2020-06-01T03:00:00Z"))"#, r#"0"#),
        (r#"getDayOfYear(absTime("2020-06-01T03:00:00Z"))"#, r#"151"#),
        (r#"getMonth(absTime("2020-01-01T03:00:00Z"))"#, r#"12"#),
        (r#"getYear(absTime("2020-01-01T03:00:00Z"))"#, r#"2019"#),
        (r#"getMinutes(absTime("2020-01-01T03:00:00Z"))"#, r#"0"#),
        (r#"getDays(relTime(90061))"#, r#"1"#),
        (r#"timeZoneOffset() == relTime(-18000) || timeZoneOffset() == relTime(-21600)"#, r#"true"#),
        (r#"isReltime(dayTime())"#, r#"true"#),
    ];
    for (expr, expected) in cases {
        assert_eq!(eval(expr), expected, "{expr}");
    }
}
