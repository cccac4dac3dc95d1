//! List functions.
//!
//! * `size(x)`: the number of elements of a list, attributes of an ad, or
//!   bytes of a string; UNDEFINED for UNDEFINED, else ERROR.
//! * `member(x, list)`: true when some element `== x` (strings compare
//!   case-insensitively, numbers by value). UNDEFINED when `list` or `x` is;
//!   ERROR when `list` is not a list, `x` is a list, an ad or ERROR.
//! * `identicalMember(x, list)`: the same with `=?=`, so UNDEFINED and ERROR
//!   are ordinary values of `x` (`identicalMember(undefined, {undefined})`
//!   is true).
//! * `sum(list)`, `avg(list)`: the sum and mean of the numbers (booleans
//!   count as numbers) of a list, skipping UNDEFINED elements; any other
//!   element is ERROR. `sum({})` and `avg({})` are 0; the mean is a real.
//! * `min(list)`, `max(list)`: the smallest and largest number, by `<` and
//!   `>`, in the common type of the numbers compared (`min({1, 2.5})` is
//!   1.0, `min({true, 2})` is 1); UNDEFINED for an empty list.
//! * `anyCompare(op, list, x)`, `allCompare(op, list, x)`: whether
//!   `element op x` holds for some or for every element, `op` being one of
//!   the strings `"<" "<=" "==" "!=" ">=" ">" "is" "isnt"`. A comparison
//!   that is UNDEFINED ends the search with false; one that is ERROR makes
//!   the result ERROR.
//! * `evalInEachContext(expr, ads)`: the list of the values of `expr` in
//!   the scope of each ad of the list `ads`. When `expr` is a reference to
//!   an attribute, that attribute's expression is evaluated (so the job's
//!   `RequireGPUs` is evaluated inside each GPU ad); otherwise `expr`
//!   itself. An element that is UNDEFINED gives UNDEFINED, one that is not
//!   an ad ERROR; an UNDEFINED `ads` gives UNDEFINED.
//! * `countMatches(expr, ads)`: how many of those values are true (or a
//!   non-zero number); an UNDEFINED `ads` counts 0.
//!
//! ```
//! use classad::{ClassAd, Expr, Value};
//! let e: Expr = "member(\"B\", {\"a\", \"b\"}) && size({1, 2, 3}) == 3".parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//! let e: Expr = "avg({1, 2, undefined, 6})".parse().unwrap();
//! assert_eq!(e.eval(), Value::Real(3.0));
//! let e: Expr = r#"anyCompare(">=", {4, 8, 16}, 10)"#.parse().unwrap();
//! assert_eq!(e.eval(), Value::Bool(true));
//!
//! let slot: ClassAd = r#"[
//!     GPUs = { [ Capability = 7.5 ], [ Capability = 8.6 ], [ Capability = 6.1 ] };
//!     RequireGPUs = Capability >= 7.0;
//!     Good = countMatches(RequireGPUs, GPUs)
//! ]"#.parse().unwrap();
//! assert_eq!(slot.eval_attr("Good"), Value::Int(2));
//! ```

use super::{one_arg, Implementations};
use crate::builtins::BuiltinId;
use crate::eval::{binary_op, identical, Evaluator, Frame, List, Val};
use crate::expr::{BinaryOp, Expr, Node};

fn size<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Val::Undefined,
        Some(Val::Str(s)) => Val::Int(s.as_str().len() as i64),
        Some(Val::List(list)) => Val::Int(list.len() as i64),
        Some(Val::Ad(frame)) => Val::Int(frame.ad.len() as i64),
        _ => Val::Error,
    }
}

/// `a op b` for any comparison, `is` and `isnt` included.
fn compare<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::Is | BinaryOp::Isnt => match identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        op => binary_op(op, a, b),
    }
}

/// Shared body of `member` (`==`) and `identicalMember` (`=?=`).
fn test_member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, identical: bool) -> Val<'a> {
    let [item, list] = args else {
        return Val::Error;
    };
    let item = ev.eval(item, frame);
    let list = ev.eval(list, frame);
    if matches!(list, Val::Undefined) || (!identical && matches!(item, Val::Undefined)) {
        return Val::Undefined;
    }
    let list = match (&item, list) {
        (Val::List(_) | Val::Ad(_), _) => return Val::Error,
        (Val::Error, _) if !identical => return Val::Error,
        (_, Val::List(list)) => list,
        _ => return Val::Error,
    };
    let op = if identical { BinaryOp::Is } else { BinaryOp::Eq };
    for i in 0..list.len() {
        let element = ev.element(&list, i);
        if let Val::Bool(true) = compare(op, element, item.clone()) {
            return Val::Bool(true);
        }
    }
    Val::Bool(false)
}

fn member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    test_member(ev, args, frame, false)
}

fn identical_member<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    test_member(ev, args, frame, true)
}

/// The list argument of `sum`, `avg`, `min` and `max`; `Err` holds the
/// result when it is not a list.
fn list_arg<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Result<List<'a>, Val<'a>> {
    match one_arg(ev, args, frame) {
        Some(Val::Undefined) => Err(Val::Undefined),
        Some(Val::List(list)) => Ok(list),
        _ => Err(Val::Error),
    }
}

/// Whether a list element takes part in arithmetic (HTCondor's
/// `IsNumber` counts booleans).
fn is_number(v: &Val<'_>) -> bool {
    matches!(v, Val::Int(_) | Val::Real(_) | Val::Bool(_))
}

/// Shared body of `sum` and `avg`.
fn sum_avg<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, average: bool) -> Val<'a> {
    let list = match list_arg(ev, args, frame) {
        Ok(list) => list,
        Err(v) => return v,
    };
    let mut total: Option<Val<'a>> = None;
    let mut count = 0usize;
    for i in 0..list.len() {
        match ev.element(&list, i) {
            Val::Undefined => {}
            v if is_number(&v) => {
                count += 1;
                total = Some(match total {
                    None => v,
                    Some(sum) => binary_op(BinaryOp::Add, sum, v),
                });
            }
            _ => return Val::Error,
        }
    }
    match total {
        None => Val::Int(0),
        Some(sum) if average => binary_op(BinaryOp::Div, sum, Val::Real(count as f64)),
        Some(sum) => sum,
    }
}

fn sum<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    sum_avg(ev, args, frame, false)
}

fn avg<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    sum_avg(ev, args, frame, true)
}

/// Two numbers brought to a common type, as arithmetic does: booleans
/// become integers, and both become reals when one is.
fn promote<'a>(a: Val<'a>, b: Val<'a>) -> (Val<'a>, Val<'a>) {
    let int = |v: Val<'a>| match v {
        Val::Bool(b) => Val::Int(i64::from(b)),
        v => v,
    };
    match (int(a), int(b)) {
        (Val::Int(x), Val::Real(y)) => (Val::Real(x as f64), Val::Real(y)),
        (Val::Real(x), Val::Int(y)) => (Val::Real(x), Val::Real(y as f64)),
        pair => pair,
    }
}

/// Shared body of `min` (`<`) and `max` (`>`). From the second number on,
/// the bound takes the common type of the numbers compared (so
/// `min({1, 2.5})` is 1.0), as in libclassad.
fn bound<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, better: BinaryOp) -> Val<'a> {
    let list = match list_arg(ev, args, frame) {
        Ok(list) => list,
        Err(v) => return v,
    };
    let mut best = Val::Undefined;
    for i in 0..list.len() {
        match ev.element(&list, i) {
            Val::Undefined => {}
            v if is_number(&v) => {
                if matches!(best, Val::Undefined) {
                    best = v;
                    continue;
                }
                let (v, current) = promote(v, best);
                best = match binary_op(better, v.clone(), current.clone()) {
                    Val::Bool(true) => v,
                    _ => current,
                };
            }
            _ => return Val::Error,
        }
    }
    best
}

fn min<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    bound(ev, args, frame, BinaryOp::Lt)
}

fn max<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    bound(ev, args, frame, BinaryOp::Gt)
}

/// The comparison an `anyCompare`/`allCompare` operator string names.
fn comparison(op: &str) -> Option<BinaryOp> {
    Some(match op {
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::Le,
        "!=" => BinaryOp::Ne,
        "==" => BinaryOp::Eq,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::Ge,
        "is" => BinaryOp::Is,
        "isnt" => BinaryOp::Isnt,
        _ => return None,
    })
}

/// Shared body of `anyCompare` and `allCompare`.
fn list_compare<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, all: bool) -> Val<'a> {
    let [op, list, value] = args else {
        return Val::Error;
    };
    let op = match ev.eval(op, frame) {
        Val::Undefined => return Val::Undefined,
        Val::Str(s) => match comparison(s.as_str()) {
            Some(op) => op,
            None => return Val::Error,
        },
        _ => return Val::Error,
    };
    let list = match ev.eval(list, frame) {
        Val::Undefined => return Val::Undefined,
        Val::List(list) => list,
        _ => return Val::Error,
    };
    let value = ev.eval(value, frame);
    for i in 0..list.len() {
        let element = ev.element(&list, i);
        match compare(op, element, value.clone()) {
            Val::Bool(holds) if holds != all => return Val::Bool(holds),
            Val::Bool(_) => {}
            // HTCondor stops at the first UNDEFINED comparison, with false
            // for both functions.
            Val::Undefined => return Val::Bool(false),
            _ => return Val::Error,
        }
    }
    Val::Bool(all)
}

fn any_compare<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    list_compare(ev, args, frame, false)
}

fn all_compare<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    list_compare(ev, args, frame, true)
}

/// What `evalInEachContext` and `countMatches` produce for each ad.
enum EachContext {
    Values,
    Count,
}

fn in_each_context<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>, mode: EachContext) -> Val<'a> {
    let [expr, ads] = args else {
        return Val::Error;
    };
    // A reference stands for the expression it names, evaluated in each ad;
    // a reference to nothing is evaluated as it is.
    let expr = match expr.as_node() {
        Some(Node::Attr(_) | Node::Select(..)) => ev.referenced_expr(expr, frame).map_or(expr, |(found, _)| found),
        _ => expr,
    };
    let ads = match ev.eval(ads, frame) {
        Val::List(list) => list,
        Val::Undefined => {
            return match mode {
                EachContext::Values => Val::Undefined,
                EachContext::Count => Val::Int(0),
            }
        }
        _ => return Val::Error,
    };
    let mut values = Vec::new();
    let mut count = 0;
    for i in 0..ads.len() {
        let value = match ev.element(&ads, i) {
            Val::Ad(scope) => ev.eval(expr, scope),
            Val::Undefined => Val::Undefined,
            _ => Val::Error,
        };
        match mode {
            EachContext::Values => values.push(value),
            EachContext::Count => count += i64::from(value.truth() == Some(true)),
        }
    }
    match mode {
        EachContext::Values => Val::List(List::Values(values.into())),
        EachContext::Count => Val::Int(count),
    }
}

fn eval_in_each_context<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    in_each_context(ev, args, frame, EachContext::Values)
}

fn count_matches<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    in_each_context(ev, args, frame, EachContext::Count)
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::Size, size),
    (BuiltinId::Member, member),
    (BuiltinId::IdenticalMember, identical_member),
    (BuiltinId::Sum, sum),
    (BuiltinId::Avg, avg),
    (BuiltinId::Min, min),
    (BuiltinId::Max, max),
    (BuiltinId::AnyCompare, any_compare),
    (BuiltinId::AllCompare, all_compare),
    (BuiltinId::EvalInEachContext, eval_in_each_context),
    (BuiltinId::CountMatches, count_matches),
];
