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

use super::{one_arg, Implementations};
use crate::builtins::BuiltinId;
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

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::IsUndefined, is_undefined),
    (BuiltinId::IsError, is_error),
    (BuiltinId::IsString, is_string),
    (BuiltinId::IsInteger, is_integer),
    (BuiltinId::IsReal, is_real),
    (BuiltinId::IsBoolean, is_boolean),
    (BuiltinId::IsList, is_list),
    (BuiltinId::IsClassAd, is_classad),
    (BuiltinId::IsAbstime, is_abstime),
    (BuiltinId::IsReltime, is_reltime),
];
