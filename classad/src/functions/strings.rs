//! String functions.
//!
//! * `strcat(a, b, ...)`: the arguments converted as by `string()` and
//!   concatenated; the first argument that is UNDEFINED or ERROR makes the
//!   result UNDEFINED or ERROR.
//!
//! * `toUpper(s)`, `toLower(s)`: ASCII case conversion of `string(s)`.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "strcat(\"slot\", 1, \"@\", \"wn01\")".parse().unwrap();
//! assert_eq!(e.eval(), Value::from("slot1@wn01"));
//! ```

use super::Builtin;
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

fn strcat<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let mut out = String::new();
    for arg in args {
        let v = ev.eval(arg, frame);
        match v {
            Val::Error | Val::Undefined => return v,
            v => match super::conversion::to_text(&v) {
                Some(text) => out.push_str(&text),
                None => return Val::Error,
            },
        }
    }
    Val::string(out)
}

/// Shared body of `toUpper` and `toLower`.
fn convert_case<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, upper: bool) -> Val<'a> {
    match super::one_arg(ev, args, frame) {
        Some(v @ (Val::Undefined | Val::Error)) => v,
        Some(v) => match super::conversion::to_text(&v) {
            Some(text) if upper => Val::string(text.to_ascii_uppercase()),
            Some(text) => Val::string(text.to_ascii_lowercase()),
            None => Val::Error,
        },
        None => Val::Error,
    }
}

fn to_upper<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    convert_case(ev, args, frame, true)
}

fn to_lower<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    convert_case(ev, args, frame, false)
}

pub(crate) static BUILTINS: &[Builtin] = &[
    Builtin { name: "strcat", func: strcat },
    Builtin { name: "toUpper", func: to_upper },
    Builtin { name: "toLower", func: to_lower },
];
