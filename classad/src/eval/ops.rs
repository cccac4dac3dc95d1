//! The strict operators: arithmetic, comparison, bitwise, unary, and the
//! meta-equality `is`/`isnt`. The lazy ones (`&&`, `||`, `?:`) are in the
//! evaluator, since they decide what to evaluate.

use std::cmp::Ordering;

use super::val::Val;
use crate::expr::{BinaryOp, UnaryOp};
use crate::time::AbsTime;

/// ERROR wins over UNDEFINED; `None` when neither operand is either.
fn strict<'a>(a: &Val<'a>, b: &Val<'a>) -> Option<Val<'a>> {
    match (a, b) {
        (Val::Error, _) | (_, Val::Error) => Some(Val::Error),
        (Val::Undefined, _) | (_, Val::Undefined) => Some(Val::Undefined),
        _ => None,
    }
}

/// Booleans take part in arithmetic and comparison as 0 and 1.
fn promote<'a>(v: Val<'a>) -> Val<'a> {
    match v {
        Val::Bool(b) => Val::Int(i64::from(b)),
        other => other,
    }
}

pub(crate) fn unary<'a>(op: UnaryOp, v: Val<'a>) -> Val<'a> {
    match (op, v) {
        (_, Val::Error) => Val::Error,
        (_, Val::Undefined) => Val::Undefined,
        (UnaryOp::Neg, Val::Int(i)) => Val::Int(i.wrapping_neg()),
        (UnaryOp::Neg, Val::Real(r)) => Val::Real(-r),
        (UnaryOp::Neg, Val::RelTime(t)) => Val::RelTime(-t),
        (UnaryOp::Plus, v @ (Val::Int(_) | Val::Real(_) | Val::RelTime(_))) => v,
        (UnaryOp::Not, v) => match v.truth() {
            Some(b) => Val::Bool(!b),
            None => Val::Error,
        },
        (UnaryOp::BitNot, Val::Int(i)) => Val::Int(!i),
        _ => Val::Error,
    }
}

/// `a && b` (`dominant` false) and `a || b` (`dominant` true), once the
/// left side is known; `right` evaluates the right side if it is needed.
/// The dominant value decides on its own, even against UNDEFINED; ERROR and
/// values that are neither booleans nor numbers are ERROR.
pub(crate) fn logical<'a>(dominant: bool, left: Val<'a>, right: impl FnOnce() -> Val<'a>) -> Val<'a> {
    let left_defined = match left {
        Val::Undefined => false,
        v => match v.truth() {
            Some(t) if t == dominant => return Val::Bool(dominant),
            Some(_) => true,
            None => return Val::Error,
        },
    };
    match right() {
        Val::Undefined => Val::Undefined,
        v => match v.truth() {
            None => Val::Error,
            Some(t) if t == dominant => Val::Bool(dominant),
            Some(t) if left_defined => Val::Bool(t),
            Some(_) => Val::Undefined,
        },
    }
}

/// Any binary operator other than `&&`, `||`, `is` and `isnt`.
#[inline]
pub(crate) fn binary<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    // The cases of typical policies first: integers, and strings compared
    // for equality.
    match (&a, &b) {
        (Val::Int(x), Val::Int(y)) => return integers(op, *x, *y),
        (Val::Str(x), Val::Str(y)) if matches!(op, BinaryOp::Eq | BinaryOp::Ne) => {
            return Val::Bool(strings_equal(x.as_str(), y.as_str()) == (op == BinaryOp::Eq));
        }
        _ => {}
    }
    binary_general(op, a, b)
}

/// String equality as `==` sees it: ASCII case is ignored.
#[inline]
pub(crate) fn strings_equal(x: &str, y: &str) -> bool {
    x.len() == y.len() && (x == y || x.eq_ignore_ascii_case(y))
}

/// Any binary operator on two integers.
#[inline]
pub(crate) fn integers<'a>(op: BinaryOp, x: i64, y: i64) -> Val<'a> {
    use BinaryOp::*;
    match op {
        Lt => Val::Bool(x < y),
        Le => Val::Bool(x <= y),
        Gt => Val::Bool(x > y),
        Ge => Val::Bool(x >= y),
        Eq => Val::Bool(x == y),
        Ne => Val::Bool(x != y),
        _ => binary_general(op, Val::Int(x), Val::Int(y)),
    }
}

#[inline(never)]
fn binary_general<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    use BinaryOp::*;
    if let Some(v) = strict(&a, &b) {
        return v;
    }
    let has_time = matches!(a, Val::AbsTime(_) | Val::RelTime(_)) || matches!(b, Val::AbsTime(_) | Val::RelTime(_));
    match op {
        Add | Sub | Mul | Div | Mod if has_time => arithmetic(op, a, b),
        Add | Sub | Mul | Div | Mod => arithmetic(op, promote(a), promote(b)),
        Eq | Ne | Lt | Le | Gt | Ge => compare(op, promote(a), promote(b)),
        BitAnd | BitOr | BitXor | Shl | Shr | UShr => bitwise(op, a, b),
        And | Or | Is | Isnt => Val::Error,
    }
}

fn arithmetic<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match time_or_number_arithmetic(op, a, b) {
        // A relative time is always finite (libclassad prints garbage instead).
        Val::RelTime(t) if !t.is_finite() => Val::Error,
        v => v,
    }
}

fn time_or_number_arithmetic<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    use BinaryOp::*;
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => match op {
            Add => Val::Int(x.wrapping_add(y)),
            Sub => Val::Int(x.wrapping_sub(y)),
            Mul => Val::Int(x.wrapping_mul(y)),
            Div if y == 0 => Val::Error,
            // The one overflowing quotient saturates (libclassad checks for it).
            Div => Val::Int(x.checked_div(y).unwrap_or(i64::MAX)),
            Mod if y == 0 => Val::Error,
            Mod => Val::Int(x.checked_rem(y).unwrap_or(0)),
            _ => Val::Error,
        },
        (Val::AbsTime(t), Val::RelTime(r)) => match op {
            Add => shift_time(t, r),
            Sub => shift_time(t, -r),
            _ => Val::Error,
        },
        (Val::RelTime(r), Val::AbsTime(t)) if op == Add => shift_time(t, r),
        (Val::AbsTime(x), Val::AbsTime(y)) if op == Sub => Val::RelTime(x.secs.wrapping_sub(y.secs) as f64),
        (Val::RelTime(x), Val::RelTime(y)) => match op {
            Add => Val::RelTime(x + y),
            Sub => Val::RelTime(x - y),
            _ => Val::Error,
        },
        (Val::RelTime(r), n @ (Val::Int(_) | Val::Real(_))) => match (op, n.as_number()) {
            (Mul, Some(k)) => Val::RelTime(r * k),
            (Div, Some(k)) if k != 0.0 => Val::RelTime(r / k),
            _ => Val::Error,
        },
        (n @ (Val::Int(_) | Val::Real(_)), Val::RelTime(r)) if op == Mul => match n.as_number() {
            Some(k) => Val::RelTime(r * k),
            None => Val::Error,
        },
        (a, b) => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => real_arithmetic(op, x, y),
            _ => Val::Error,
        },
    }
}

fn real_arithmetic<'a>(op: BinaryOp, x: f64, y: f64) -> Val<'a> {
    use BinaryOp::*;
    let result = match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div => x / y,
        _ => return Val::Error,
    };
    // libclassad treats a result of +INF (only) as an overflow; -INF and
    // NaN are values. Real division by zero follows from this: 5.0/0 is
    // ERROR, -5.0/0 is -INF, 0/0.0 is NaN.
    if result == f64::INFINITY {
        return Val::Error;
    }
    Val::Real(result)
}

fn shift_time<'a>(t: AbsTime, by: f64) -> Val<'a> {
    Val::AbsTime(AbsTime { secs: t.secs.wrapping_add(by as i64), offset: t.offset })
}

fn compare<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    let ordering = match (&a, &b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Val::Str(x), Val::Str(y)) => Some(compare_ignoring_case(x.as_str(), y.as_str())),
        (Val::AbsTime(x), Val::AbsTime(y)) => Some(x.secs.cmp(&y.secs)),
        (Val::RelTime(x), Val::RelTime(y)) => x.partial_cmp(y),
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => {
                if matches!(a, Val::Str(_)) || matches!(b, Val::Str(_)) {
                    super::reason::note(super::reason::STRINGS_ONLY);
                }
                return Val::Error;
            }
        },
    };
    let Some(ordering) = ordering else {
        // NaN: unordered, so only != holds.
        return Val::Bool(op == BinaryOp::Ne);
    };
    Val::Bool(match op {
        BinaryOp::Eq => ordering == Ordering::Equal,
        BinaryOp::Ne => ordering != Ordering::Equal,
        BinaryOp::Lt => ordering == Ordering::Less,
        BinaryOp::Le => ordering != Ordering::Greater,
        BinaryOp::Gt => ordering == Ordering::Greater,
        BinaryOp::Ge => ordering != Ordering::Less,
        _ => return Val::Error,
    })
}

/// `strcasecmp`: bytes compared after ASCII lower-casing.
pub(crate) fn compare_ignoring_case(a: &str, b: &str) -> Ordering {
    let a = a.bytes().map(|c| c.to_ascii_lowercase());
    let b = b.bytes().map(|c| c.to_ascii_lowercase());
    a.cmp(b)
}

fn bitwise<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    use BinaryOp::*;
    let (Val::Int(x), Val::Int(y)) = (a, b) else {
        return Val::Error;
    };
    // Shift counts are taken mod 64 where C leaves them undefined (what
    // x86 does); shifts of negative numbers follow libclassad's definitions.
    let count = (y & 63) as u32;
    Val::Int(match op {
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Shl => x.wrapping_shl(count),
        Shr | UShr if x >= 0 => x.wrapping_shr(count),
        // libclassad shifts a negative number right one bit at a time,
        // min(count, 64) times: a count <= 0 leaves it unchanged.
        Shr if y <= 0 => x,
        Shr => x >> y.min(63),
        // One shift with the sign bit cleared, then count - 1 more.
        UShr => ((x >> 1) & i64::MAX) >> (y.wrapping_sub(1) & 63),
        _ => return Val::Error,
    })
}

/// `a is b`: same type and same value, never UNDEFINED. Strings compare
/// case-sensitively; an integer is never identical to a real. Two lists or
/// two ads cannot be compared (ERROR, as in libclassad); a list or ad is
/// never identical to anything else.
pub(crate) fn identical(a: &Val<'_>, b: &Val<'_>) -> Val<'static> {
    let same = match (a, b) {
        (Val::List(_), Val::List(_)) | (Val::Ad(_), Val::Ad(_)) => return Val::Error,
        (Val::Undefined, Val::Undefined) | (Val::Error, Val::Error) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Real(x), Val::Real(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x.as_str() == y.as_str(),
        (Val::AbsTime(x), Val::AbsTime(y)) => x == y,
        (Val::RelTime(x), Val::RelTime(y)) => x == y,
        _ => false,
    };
    Val::Bool(same)
}
