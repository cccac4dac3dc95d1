//! Arithmetic functions.
//!
//! * `pow(base, exponent)`: an integer when both are integers and the
//!   exponent is not negative (computed in floating point and rounded as
//!   HTCondor does: `pow(-2, 3)` is -7, and results past 2^63 give the
//!   smallest integer), else a real. Other values are converted as by
//!   `real()`; what does not convert (UNDEFINED included) is ERROR.
//! * `quantize(x, step)`: `x` rounded up to a multiple of `step` (an
//!   integer when both are integers; a zero step leaves `x` as it is).
//!   `quantize(x, list)`: the first element not below `x`, or, past the
//!   last element, `x` rounded up to a multiple of the last one. `x` that
//!   does not convert to a number, and non-numeric steps, are ERROR.
//! * `random([max])`: a random integer in `[0, max)` for an integer `max`
//!   (taken as a 32-bit `int`, as HTCondor does), a random real in
//!   `[0, max)` for a real one, a real in `[0, 1)` without an argument.
//!   `max <= 0` and anything else is ERROR. The numbers come from
//!   [`EvalOptions::random`](crate::EvalOptions::random), which can be
//!   seeded.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "pow(2, 10)".parse().unwrap();
//! assert_eq!(e.eval(), Value::Int(1024));
//! let e: Expr = "quantize(1500, 1024)".parse().unwrap();
//! assert_eq!(e.eval(), Value::Int(2048));
//! let e: Expr = "quantize(3, {2, 4, 8})".parse().unwrap();
//! assert_eq!(e.eval(), Value::Int(4));
//! ```

use super::conversion::to_real;
use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

/// C's conversion of a double to `long long` on x86: out of range and NaN
/// give the smallest integer.
pub(crate) fn c_truncate(x: f64) -> i64 {
    // 2^63: the first double past the largest i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

fn pow<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [base, exponent] = args else {
        return Val::Error;
    };
    let (base, exponent) = (ev.eval(base, frame), ev.eval(exponent, frame));
    if let (Val::Int(base), Val::Int(exponent)) = (&base, &exponent) {
        if *exponent >= 0 {
            return Val::Int(c_truncate((*base as f64).powf(*exponent as f64) + 0.5));
        }
    }
    match (to_real(&base), to_real(&exponent)) {
        (Some(base), Some(exponent)) => Val::Real(base.powf(exponent)),
        _ => Val::Error,
    }
}

fn quantize<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [value, step] = args else {
        return Val::Error;
    };
    let (value, step) = (ev.eval(value, frame), ev.eval(step, frame));
    let Some(x) = to_real(&value) else {
        return Val::Error;
    };
    let step = match step {
        Val::List(list) => {
            // The first element at or above x; past them all, multiples of
            // the last one (an empty list leaves x alone).
            let mut last = Val::Real(0.0);
            for i in 0..list.len() {
                let element = ev.element(&list, i);
                match to_real(&element) {
                    Some(bound) if bound >= x => return element,
                    Some(_) => last = element,
                    None => return Val::Error,
                }
            }
            last
        }
        step => step,
    };
    let Some(real_step) = to_real(&step) else {
        return Val::Error;
    };
    match step {
        Val::Int(0) => value,
        Val::Int(step) => match value {
            // C's integer arithmetic: division truncates toward zero.
            Val::Int(i) => Val::Int(
                i.wrapping_add(step.wrapping_sub(1)).checked_div(step).map_or(i64::MIN, |q| q.wrapping_mul(step)),
            ),
            _ => Val::Real((x / step as f64).ceil() * step as f64),
        },
        _ if real_step.abs() <= 1e-8 => value,
        _ => Val::Real((x / real_step).ceil() * real_step),
    }
}

fn random<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let max = match args {
        [] => Val::Real(1.0),
        [max] => ev.eval(max, frame),
        _ => return Val::Error,
    };
    match max {
        Val::Int(max) => {
            // HTCondor reads the bound into a 32-bit int.
            let max = max as i32;
            if max <= 0 {
                return Val::Error;
            }
            let bits = (ev.random_u64() >> 33) as i64;
            Val::Int(bits % i64::from(max))
        }
        Val::Real(max) if max > 0.0 => {
            let unit = (ev.random_u64() >> 11) as f64 / (1u64 << 53) as f64;
            Val::Real(max * unit)
        }
        _ => Val::Error,
    }
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations =
    &[(BuiltinId::Pow, pow), (BuiltinId::Quantize, quantize), (BuiltinId::Random, random)];

#[cfg(test)]
mod tests {
    use crate::{EvalOptions, Expr, RandomSource, Value};

    fn eval_seeded(text: &str, seed: u64) -> Value {
        let e: Expr = text.parse().expect("parses");
        e.eval_with(&EvalOptions::new().random(RandomSource::Seeded(seed)))
    }

    #[test]
    fn random_is_in_range_and_seedable() {
        for seed in 0..200 {
            match eval_seeded("random(10)", seed) {
                Value::Int(i) => assert!((0..10).contains(&i), "{i}"),
                other => panic!("{other:?}"),
            }
            match eval_seeded("random()", seed) {
                Value::Real(r) => assert!((0.0..1.0).contains(&r), "{r}"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(eval_seeded("{random(1000), random(1000)}", 3), eval_seeded("{random(1000), random(1000)}", 3));
        assert_ne!(eval_seeded("random(1000000)", 1), eval_seeded("random(1000000)", 2));
        // Two calls in one evaluation draw different numbers.
        assert_eq!(eval_seeded("random(1000000) == random(1000000)", 5), Value::Bool(false));
        // Every value of a small range turns up.
        let seen: std::collections::HashSet<_> =
            (0..100).map(|seed| format!("{:?}", eval_seeded("random(4)", seed))).collect();
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn random_rejects_bad_bounds() {
        for text in ["random(0)", "random(-1)", "random(0.0)", "random(\"a\")", "random(undefined)", "random(1, 2)"] {
            assert_eq!(eval_seeded(text, 1), Value::Error, "{text}");
        }
        // Only the low 32 bits of an integer bound count, as in HTCondor.
        assert_eq!(eval_seeded("random(4294967297)", 1), Value::Int(0));
    }
}
