//! Type predicates: `isUndefined(x)`, `isError(x)`, `isString(x)`,
//! `isInteger(x)`, `isReal(x)`, `isBoolean(x)`, `isList(x)`, `isClassAd(x)`,
//! `isAbstime(x)`, `isReltime(x)`.
//!
//! Each takes one argument, evaluates it, and is `true` when the value has
//! that type; they never propagate UNDEFINED or ERROR.
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "isUndefined(NoSuchAttribute) && isInteger(3) && !isReal(3)".parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! ```

use super::{one_arg, Builtin};
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;

macro_rules! predicate {
    ($fn_name:ident, $pattern:pat) => {
        fn $fn_name<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
            match one_arg(ev, args, frame) {
                Some(v) => Val::Bool(matches!(v, $pattern)),
                None => Val::Error,
            }
        }
    };
}

predicate!(is_undefined, Val::Undefined);
predicate!(is_error, Val::Error);
predicate!(is_string, Val::Str(_));
predicate!(is_integer, Val::Int(_));
predicate!(is_real, Val::Real(_));
predicate!(is_boolean, Val::Bool(_));
predicate!(is_list, Val::List(_));
predicate!(is_classad, Val::Ad(_));
predicate!(is_abstime, Val::AbsTime(_));
predicate!(is_reltime, Val::RelTime(_));

pub(crate) static BUILTINS: &[Builtin] = &[
    Builtin { name: "isUndefined", func: is_undefined },
    Builtin { name: "isError", func: is_error },
    Builtin { name: "isString", func: is_string },
    Builtin { name: "isInteger", func: is_integer },
    Builtin { name: "isReal", func: is_real },
    Builtin { name: "isBoolean", func: is_boolean },
    Builtin { name: "isList", func: is_list },
    Builtin { name: "isClassAd", func: is_classad },
    Builtin { name: "isAbstime", func: is_abstime },
    Builtin { name: "isReltime", func: is_reltime },
];
