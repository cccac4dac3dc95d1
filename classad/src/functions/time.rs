//! Time functions.
//!
//! * `time()`: the current time as integer seconds since the epoch.
//! * `currentTime()`: the current time as an absolute time in the local zone.
//! * `absTime(x[, offset])`: an absolute time from seconds since the epoch,
//!   from text in the `absTime("...")` literal form, or from a relative
//!   time (seconds since the epoch); `offset` (seconds or a relative time)
//!   sets the zone it is shown in, else the local zone. `absTime()` is now.
//!   Infinite or NaN seconds are ERROR.
//! * `relTime(x)`: a relative time from seconds, from text in the
//!   `relTime("...")` literal form, or from an absolute time (its seconds
//!   since the epoch).
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "absTime(\"2020-01-01T00:00:00Z\") + relTime(90)".parse().unwrap();
//! assert_eq!(e.eval().to_string(), "absTime(\"2020-01-01T00:01:30-00:00\")");
//! ```

use super::Builtin;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;
use crate::time::{local_offset, AbsTime, RelTime};

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

pub(crate) static BUILTINS: &[Builtin] = &[
    Builtin { name: "time", func: time },
    Builtin { name: "currentTime", func: current_time },
    Builtin { name: "absTime", func: abs_time },
    Builtin { name: "relTime", func: rel_time },
];
