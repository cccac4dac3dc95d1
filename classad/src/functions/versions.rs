//! Version comparison.
//!
//! * `versioncmp(a, b)`: an integer below, equal to or above zero as
//!   `string(a)` sorts before, with or after `string(b)` in natural order:
//!   runs of digits compare as numbers (`"1.10"` after `"1.9"`), and a run
//!   with more leading zeros sorts first, as in a fraction (`"01"` before
//!   `"1"`). The magnitude is HTCondor's: the difference of the first
//!   differing bytes (as signed chars) or of the run lengths.
//! * `versionGT(a, b)`, `versionGE`, `versionLT`, `versionLE`, `versionEQ`:
//!   that comparison as a boolean.
//! * `version_in_range(v, min, max)`: `min <= v <= max` in natural order.
//!
//! An UNDEFINED argument makes the result UNDEFINED (for
//! `version_in_range`, only an UNDEFINED bound: an UNDEFINED version is
//! ERROR); an ERROR argument, ERROR. Other values are compared as their
//! text, as by `string()`.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = r#"versionGT("8.10.2", "8.9.14")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! let e: Expr = r#"version_in_range("23.0.4", "23.0.0", "23.0.99")"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! ```

use std::cmp::Ordering;

use super::conversion::to_text;
use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

/// HTCondor's natural order of two strings (its `natural_cmp`, used by
/// `versioncmp` and by `condor_status` to sort): runs of digits compare as
/// numbers, a run with more leading zeros first; everything else byte by
/// byte (so case matters: `"B"` before `"a"`).
///
/// ```
/// use std::cmp::Ordering;
/// use classad::functions::versions::natural_order;
/// assert_eq!(natural_order("slot2@a", "slot10@a"), Ordering::Less);
/// assert_eq!(natural_order("B", "a"), Ordering::Less);
/// assert_eq!(natural_order("x", "x"), Ordering::Equal);
/// ```
pub fn natural_order(a: &str, b: &str) -> Ordering {
    natural_cmp(a.as_bytes(), b.as_bytes()).cmp(&0)
}

/// Natural ("version") comparison of two byte strings, with the result
/// HTCondor's `natural_cmp` gives. The strings end at their first NUL byte,
/// as C strings do.
pub(crate) fn natural_cmp(a: &[u8], b: &[u8]) -> i32 {
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    // Bytes are C `char`s: signed on the platforms HTCondor runs on.
    let diff = |x: u8, y: u8| i32::from(x as i8) - i32::from(y as i8);
    let digit = |s: &[u8], i: usize| at(s, i).is_ascii_digit();

    let mut i = 0;
    while at(a, i) != 0 && at(a, i) == at(b, i) {
        i += 1;
    }
    let (x, y) = (at(a, i), at(b, i));
    if x == y {
        return 0;
    }
    // The run of digits the mismatch is part of starts at `start` in both
    // strings (they agree up to `i`).
    let mut start = i;
    while start > 0 && a[start - 1].is_ascii_digit() {
        start -= 1;
    }
    if start == i && !(x.is_ascii_digit() && y.is_ascii_digit()) {
        return diff(x, y);
    }
    let zeros = |s: &[u8]| {
        let mut end = start;
        while at(s, end) == b'0' {
            end += 1;
        }
        // A last zero that ends the run is the number zero, not padding.
        if end > start && !digit(s, end) {
            end -= 1;
        }
        end
    };
    let (zeros_a, zeros_b) = (zeros(a), zeros(b));
    if zeros_a != zeros_b {
        // More leading zeros sorts first.
        return (zeros_b - start) as i32 - (zeros_a - start) as i32;
    }
    if zeros_a > start {
        return diff(x, y);
    }
    let run_end = |s: &[u8], mut end: usize| {
        while digit(s, end) {
            end += 1;
        }
        end
    };
    let (end_a, end_b) = (run_end(a, zeros_a), run_end(b, zeros_b));
    if end_a != end_b {
        (end_a - start) as i32 - (end_b - start) as i32
    } else {
        diff(x, y)
    }
}

/// Evaluates two arguments and compares them; `Err` holds the result when
/// they cannot be compared.
fn compare_args<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Result<i32, Val<'a>> {
    let [left, right] = args else {
        return Err(Val::Error);
    };
    let (left, right) = (ev.eval(left, frame), ev.eval(right, frame));
    if matches!(left, Val::Undefined) || matches!(right, Val::Undefined) {
        return Err(Val::Undefined);
    }
    match (to_text(&left), to_text(&right)) {
        (Some(left), Some(right)) => Ok(natural_cmp(left.as_bytes(), right.as_bytes())),
        _ => Err(Val::Error),
    }
}

fn versioncmp<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    compare_args(ev, args, frame).map_or_else(|v| v, |order| Val::Int(order.into()))
}

/// The body of the boolean comparisons: true when the order of the
/// arguments is one of `wanted`.
fn version_test<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, wanted: &[Ordering]) -> Val<'a> {
    compare_args(ev, args, frame).map_or_else(|v| v, |order| Val::Bool(wanted.contains(&order.cmp(&0))))
}

fn version_gt<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    version_test(ev, args, frame, &[Ordering::Greater])
}

fn version_ge<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    version_test(ev, args, frame, &[Ordering::Greater, Ordering::Equal])
}

fn version_lt<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    version_test(ev, args, frame, &[Ordering::Less])
}

fn version_le<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    version_test(ev, args, frame, &[Ordering::Less, Ordering::Equal])
}

fn version_eq<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    version_test(ev, args, frame, &[Ordering::Equal])
}

fn version_in_range<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [version, min, max] = args else {
        return Val::Error;
    };
    let (version, min, max) = (ev.eval(version, frame), ev.eval(min, frame), ev.eval(max, frame));
    if matches!(min, Val::Undefined) || matches!(max, Val::Undefined) {
        return Val::Undefined;
    }
    match (to_text(&version), to_text(&min), to_text(&max)) {
        (Some(version), Some(min), Some(max)) => Val::Bool(
            natural_cmp(min.as_bytes(), version.as_bytes()) <= 0
                && natural_cmp(version.as_bytes(), max.as_bytes()) <= 0,
        ),
        _ => Val::Error,
    }
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Versioncmp, versioncmp),
    (BuiltinId::VersionGT, version_gt),
    (BuiltinId::VersionGE, version_ge),
    (BuiltinId::VersionLT, version_lt),
    (BuiltinId::VersionLE, version_le),
    (BuiltinId::VersionEQ, version_eq),
    (BuiltinId::VersionInRange, version_in_range),
];

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn natural_order() {
        let cmp = |a: &str, b: &str| natural_cmp(a.as_bytes(), b.as_bytes());
        assert!(cmp("1.10", "1.9") > 0);
        assert!(cmp("1.2.3", "1.2.10") < 0);
        assert!(cmp("01", "1") < 0);
        assert!(cmp("000", "00") < 0);
        assert!(cmp("1.0", "1.0a") < 0);
        assert_eq!(cmp("8.9.10", "8.9.10"), 0);
        assert_eq!(cmp("", ""), 0);
        // HTCondor's magnitudes: leading-zero counts, run lengths, bytes.
        assert_eq!(cmp("1.2.3", "001.2"), 2);
        assert_eq!(cmp("10.0", "9.0"), 1);
        assert_eq!(cmp("a", "b"), -1);
        assert_eq!(cmp("a", ""), 97);
        // Bytes above 127 are negative, as C's signed char.
        assert!(cmp("\u{e9}", "e") < 0);
    }
}
