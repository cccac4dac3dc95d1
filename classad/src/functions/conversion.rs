//! Conversion functions.
//!
//! * `int(x)`: reals truncate toward zero, booleans are 0 or 1, strings are
//!   read as a number.
//! * `real(x)`: numbers and numeric strings (including `"INF"`, `"-inf"`,
//!   `"NaN"`) as a real.
//! * `string(x)`: the value's text (strings unchanged, others unparsed).
//! * `bool(x)`: numbers are true when non-zero; the strings `"true"` and
//!   `"false"` in any case (other strings are UNDEFINED).
//! * `floor(x)`, `ceiling(x)` (also `ceil`), `round(x)`: a number rounded to
//!   an integer; `round` rounds halves to even.
//!
//! ```
//! use classad::{Expr, Value};
//! assert_eq!("int(3.7) + int(\"12\")".parse::<Expr>().unwrap().eval(), Value::Int(15));
//! assert_eq!("round(2.5)".parse::<Expr>().unwrap().eval(), Value::Int(2));
//! assert_eq!("string(42)".parse::<Expr>().unwrap().eval(), Value::from("42"));
//! ```

use std::borrow::Cow;

use super::{one_arg, Implementations};
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

/// The text `string()` gives for a value; `None` for UNDEFINED and ERROR.
pub(crate) fn to_text<'v>(v: &'v Val<'_>) -> Option<Cow<'v, str>> {
    match v {
        Val::Undefined | Val::Error => None,
        Val::Str(s) => Some(Cow::Borrowed(s.as_str())),
        Val::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
        Val::Int(i) => Some(Cow::Owned(i.to_string())),
        Val::AbsTime(t) => Some(Cow::Owned(t.to_string())),
        Val::RelTime(t) => Some(Cow::Owned(crate::time::RelTime(*t).to_string())),
        other => Some(Cow::Owned(other.clone().into_value().to_string())),
    }
}

/// Reads a leading decimal number from `text` as C's `strtod` does: leading
/// white space, optional sign, digits with an optional fraction and
/// exponent, or `inf`/`infinity`/`nan`. Returns the number and how many bytes
/// it took (0 when there is no number).
pub(crate) fn leading_real(text: &str) -> (f64, usize) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    if i < bytes.len() && matches!(bytes[i], b'+' | b'-') {
        i += 1;
    }
    let rest = &text[i..];
    for (word, value) in [("infinity", f64::INFINITY), ("inf", f64::INFINITY), ("nan", f64::NAN)] {
        if rest.as_bytes().get(..word.len()).is_some_and(|prefix| prefix.eq_ignore_ascii_case(word.as_bytes())) {
            let negative = bytes.get(start) == Some(&b'-');
            return (if negative { -value } else { value }, i + word.len());
        }
    }
    if let Some(hex) = leading_hex(&text[i..]) {
        let negative = bytes.get(start) == Some(&b'-');
        return (if negative { -hex.0 } else { hex.0 }, i + hex.1);
    }
    let digits_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    if i < bytes.len() && bytes[i] == b'.' {
        let fraction_start = i + 1;
        let mut j = fraction_start;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - fraction_start;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
            j += 1;
        }
        let exponent_start = j;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j > exponent_start {
            i = j;
        }
    }
    (text[start..i].parse().unwrap_or(0.0), i)
}

/// `0x` followed by hexadecimal digits (an optional fraction and `p`
/// exponent), as `strtod` reads them: the value and the bytes used.
fn leading_hex(text: &str) -> Option<(f64, usize)> {
    let bytes = text.as_bytes();
    if bytes.len() < 3 || bytes[0] != b'0' || !matches!(bytes[1], b'x' | b'X') {
        return None;
    }
    let mut i = 2;
    let mut value = 0.0f64;
    let mut digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
        value = value * 16.0 + f64::from((bytes[i] as char).to_digit(16).unwrap_or(0));
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        let mut scale = 1.0 / 16.0;
        let mut j = i + 1;
        while j < bytes.len() && bytes[j].is_ascii_hexdigit() {
            value += f64::from((bytes[j] as char).to_digit(16).unwrap_or(0)) * scale;
            scale /= 16.0;
            j += 1;
            digits += 1;
        }
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < bytes.len() && matches!(bytes[i], b'p' | b'P') {
        let (exponent, used) = leading_exponent(&text[i + 1..]);
        if used > 0 {
            value *= 2f64.powi(exponent);
            i += 1 + used;
        }
    }
    Some((value, i))
}

/// A signed decimal exponent: its value (saturated) and the bytes used.
fn leading_exponent(text: &str) -> (i32, usize) {
    let bytes = text.as_bytes();
    let (sign, start) = match bytes.first() {
        Some(b'-') => (-1, 1),
        Some(b'+') => (1, 1),
        _ => (1, 0),
    };
    let count = bytes[start..].iter().take_while(|b| b.is_ascii_digit()).count();
    if count == 0 {
        return (0, 0);
    }
    let value = text[start..start + count].parse::<i32>().unwrap_or(i32::MAX);
    (sign * value, start + count)
}

/// Reads a leading integer as C's `strtoll` base 10 (saturating).
fn leading_int(text: &str) -> Option<i64> {
    let trimmed = text.trim_start();
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let count = digits.bytes().take_while(u8::is_ascii_digit).count();
    if count == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for d in digits[..count].bytes() {
        let d = i64::from(d - b'0');
        value = value.saturating_mul(10);
        value = if negative { value.saturating_sub(d) } else { value.saturating_add(d) };
    }
    Some(value)
}

fn real_to_int(r: f64) -> Val<'static> {
    if r.is_nan() {
        Val::Error
    } else {
        // `as` saturates at the ends of the range.
        Val::Int(r as i64)
    }
}

fn int<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(v) => to_int(v),
        None => Val::Error,
    }
}

/// `int()` of a value: an integer, UNDEFINED for UNDEFINED, else ERROR.
pub(crate) fn to_int(v: Val<'_>) -> Val<'_> {
    match v {
        Val::Undefined => Val::Undefined,
        v @ Val::Int(_) => v,
        Val::Bool(b) => Val::Int(i64::from(b)),
        Val::Real(r) => real_to_int(r),
        Val::AbsTime(t) => Val::Int(t.secs),
        Val::RelTime(t) => real_to_int(t),
        Val::Str(s) => {
            let text = s.as_str();
            let (real, used) = leading_real(text);
            if used == 0 {
                return Val::Error;
            }
            // A plain decimal integer keeps full 64-bit precision; anything
            // else is read as a real and truncated.
            let number = &text[..used];
            match leading_int(number) {
                Some(i) if !number.contains(['.', 'e', 'E', 'x', 'X', 'n', 'N']) => Val::Int(i),
                _ => real_to_int(real),
            }
        }
        _ => Val::Error,
    }
}

/// The number `real()` makes of a value; `None` for UNDEFINED, ERROR,
/// lists, ads and strings that do not start with a number.
pub(crate) fn to_real(v: &Val<'_>) -> Option<f64> {
    match v {
        Val::Real(r) => Some(*r),
        Val::Int(i) => Some(*i as f64),
        Val::Bool(b) => Some(f64::from(u8::from(*b))),
        Val::AbsTime(t) => Some(t.secs as f64),
        // libclassad reads a relative time's whole seconds here.
        Val::RelTime(t) => Some(t.trunc()),
        Val::Str(s) => match leading_real(s.as_str()) {
            (_, 0) => None,
            (value, _) => Some(value),
        },
        _ => None,
    }
}

fn real<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(v) => to_real(&v).map_or(Val::Error, Val::Real),
        None => Val::Error,
    }
}

fn string<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(v @ Val::Str(_)) => v,
        Some(v) => match to_text(&v) {
            Some(text) => Val::string(text.as_ref()),
            None => Val::Error,
        },
        None => Val::Error,
    }
}

fn bool<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(v @ Val::Bool(_)) => v,
        Some(Val::Int(i)) => Val::Bool(i != 0),
        Some(Val::Real(r)) => Val::Bool(r != 0.0),
        Some(Val::RelTime(t)) => Val::Bool(t != 0.0),
        Some(Val::Str(s)) => {
            let text = s.as_str();
            if text.eq_ignore_ascii_case("true") {
                Val::Bool(true)
            } else if text.eq_ignore_ascii_case("false") {
                Val::Bool(false)
            } else {
                Val::Undefined
            }
        }
        _ => Val::Error,
    }
}

/// Shared body of `floor`, `ceiling` and `round`.
fn rounding<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, round: fn(f64) -> f64) -> Val<'a> {
    // Unlike int() and real(), UNDEFINED is an error here (as in libclassad).
    match one_arg(ev, args, frame) {
        Some(v @ Val::Int(_)) => v,
        Some(Val::Bool(b)) => Val::Int(i64::from(b)),
        Some(Val::Real(r)) => real_to_int(round(r)),
        Some(Val::AbsTime(t)) => Val::Int(t.secs),
        // A relative time counts its whole seconds (as in libclassad).
        Some(Val::RelTime(t)) => real_to_int(t.trunc()),
        Some(Val::Str(s)) => {
            let (value, used) = leading_real(s.as_str());
            if used == 0 {
                Val::Error
            } else {
                real_to_int(round(value))
            }
        }
        _ => Val::Error,
    }
}

fn floor<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    rounding(ev, args, frame, f64::floor)
}

fn ceiling<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    rounding(ev, args, frame, f64::ceil)
}

fn round<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    rounding(ev, args, frame, f64::round_ties_even)
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Int, int),
    (BuiltinId::Real, real),
    (BuiltinId::String, string),
    (BuiltinId::Bool, bool),
    (BuiltinId::Floor, floor),
    (BuiltinId::Ceiling, ceiling),
    (BuiltinId::Ceil, ceiling),
    (BuiltinId::Round, round),
];
