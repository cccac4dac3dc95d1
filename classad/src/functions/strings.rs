//! String functions.
//!
//! * `strcat(a, b, ...)`: the arguments converted as by `string()` and
//!   concatenated; UNDEFINED or ERROR arguments make the result UNDEFINED or
//!   ERROR.
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
    let mut undefined = false;
    for arg in args {
        let v = ev.eval(arg, frame);
        match v {
            Val::Error => return Val::Error,
            Val::Undefined => undefined = true,
            v => match super::conversion::to_text(&v) {
                Some(text) => out.push_str(&text),
                None => return Val::Error,
            },
        }
    }
    if undefined {
        return Val::Undefined;
    }
    Val::string(out)
}

pub(crate) static BUILTINS: &[Builtin] = &[Builtin {
    name: "strcat",
    func: strcat,
}];
