//! List functions.
//!
//! * `size(x)`: the number of elements of a list, attributes of an ad, or
//!   bytes of a string.
//! * `member(x, list)`: true when some element `== x` (strings compare
//!   case-insensitively, numbers by value).
//!
//! ```
//! use classad::{Expr, Value};
//! let e: Expr = "member(\"B\", {\"a\", \"b\"}) && size({1, 2, 3}) == 3".parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! ```

use super::{one_arg, Builtin};
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::{BinaryOp, Expr};

fn size<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(Val::Str(s)) => Val::Int(s.as_str().len() as i64),
        Some(Val::List(list)) => Val::Int(list.len() as i64),
        Some(Val::Ad(frame)) => Val::Int(frame.ad.len() as i64),
        _ => Val::Error,
    }
}

fn member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [item, list] = args else {
        return Val::Error;
    };
    let item = ev.eval(item, frame);
    let list = ev.eval(list, frame);
    let list = match (&item, list) {
        (Val::Error, _) | (_, Val::Error) => return Val::Error,
        (Val::Undefined, _) | (_, Val::Undefined) => return Val::Undefined,
        (Val::List(_) | Val::Ad(_), _) => return Val::Error,
        (_, Val::List(list)) => list,
        _ => return Val::Error,
    };
    for i in 0..list.len() {
        let element = ev.element(&list, i);
        if let Val::Bool(true) = crate::eval::binary_op(BinaryOp::Eq, item.clone(), element) {
            return Val::Bool(true);
        }
    }
    Val::Bool(false)
}

pub(crate) static BUILTINS: &[Builtin] =
    &[Builtin { name: "size", func: size }, Builtin { name: "member", func: member }];
