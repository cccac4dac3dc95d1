//! Control and meta functions.
//!
//! * `ifThenElse(cond, then, else)`: evaluates only the chosen branch;
//!   UNDEFINED condition → UNDEFINED, ERROR or non-boolean, non-number → ERROR.
//! * `unparse(attr)`: the text of the expression of the attribute `attr`
//!   (an unscoped reference, looked up like any name but not evaluated);
//!   `""` if there is none. Any other argument is ERROR.
//! * `eval(text)`: parses the string `text` as an expression and evaluates
//!   it in the calling scope; ERROR if it does not parse. Other values are
//!   first converted as by `string()`; UNDEFINED and ERROR give ERROR.
//! * `unresolved(attr)`: the attributes the expression of `attr` needs
//!   from outside the ad, as a comma-separated string: names no scope
//!   defines, and `base.name` where `base` is UNDEFINED (`other.Memory`),
//!   with a leading `target.` removed (`TARGET.Memory` gives `Memory`).
//!   References the ad resolves are followed. Names are sorted and
//!   deduplicated ignoring case; a cycle gives `""`. UNDEFINED when `attr`
//!   names nothing; ERROR when it is not an attribute reference.
//!   `unresolved(attr, pattern)`: whether the regular expression `pattern`
//!   (case-insensitive) matches a non-empty part of one of those names.
//! * `debug(expr)`: the value of `expr`. When `tracing` events at DEBUG
//!   level for the target `classad::debug` are enabled, it also logs the
//!   expression, its value and how long it took to evaluate.
//!
//! ```
//! use classad::{ClassAd, Expr, Value};
//! let ad: ClassAd = "[ x = 6; f = \"x * 7\" ]".parse().unwrap();
//! let e: Expr = "ifThenElse(x > 5, eval(f), 0)".parse().unwrap();
//! assert_eq!(e.eval_in(&ad), Value::Int(42));
//! ```

use super::Implementations;
use crate::builtins::BuiltinId;
use crate::eval::{Evaluator, Frame, References, Val};
use crate::expr::{Expr, Node};

fn if_then_else<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [cond, then, otherwise] = args else {
        return Val::Error;
    };
    let cond = ev.eval(cond, frame);
    ev.conditional(cond, then, otherwise, frame)
}

fn eval<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [arg] = args else {
        return Val::Error;
    };
    let value = ev.eval(arg, frame);
    let Some(text) = super::conversion::to_text(&value) else {
        return Val::Error;
    };
    match crate::parse_expr(&text) {
        Ok(expr) => {
            let expr = ev.keep_expr(expr);
            ev.eval(expr, frame)
        }
        Err(_) => Val::Error,
    }
}

fn unparse<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [arg] = args else {
        return Val::Error;
    };
    match arg.as_node() {
        // libclassad unparses with its multi-line layout (lists and ads
        // on lines of their own).
        Some(Node::Attr(name)) => match ev.find_attribute(*name, frame) {
            Some((expr, _)) => Val::string(expr.display(crate::Syntax::New).pretty().to_string()),
            None => Val::string(""),
        },
        // Scoped references are not followed (libclassad gives "" too).
        Some(Node::Select(..) | Node::RootAttr(_)) => Val::string(""),
        _ => Val::Error,
    }
}

/// `name` without a leading `target.` (in any case).
fn without_target_prefix(name: &str) -> &str {
    match name.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case("target.") => &name[7..],
        _ => name,
    }
}

fn unresolved<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let (reference, pattern) = match args {
        [reference] => (reference, None),
        [reference, pattern] => (reference, Some(pattern)),
        _ => return Val::Error,
    };
    if !matches!(reference.as_node(), Some(Node::Attr(_) | Node::RootAttr(_) | Node::Select(..))) {
        return Val::Error;
    }
    let Some((expr, scope)) = ev.referenced_expr(reference, frame) else {
        return Val::Undefined;
    };
    if let Some(pattern) = pattern {
        let pattern = match ev.eval(pattern, frame) {
            Val::Str(text) => {
                super::regex::compile(text.as_str(), super::regex::Options::caseless(), ev.options.limits.max_regex)
            }
            // libclassad fails the whole evaluation here (divergence
            // `eval-failure`).
            _ => return Val::Error,
        };
        let Some(pattern) = pattern else {
            return Val::Error;
        };
        let mut refs = References::default();
        let found = ev.external_references(expr, scope, &mut refs)
            && refs.iter().any(|name| pattern.has_nonempty_match(without_target_prefix(name)));
        return Val::Bool(found);
    }
    let mut refs = References::default();
    let mut out = String::new();
    if ev.external_references(expr, scope, &mut refs) {
        for name in refs.iter() {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(without_target_prefix(name));
        }
    }
    Val::string(out)
}

fn debug<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    let [arg] = args else {
        return Val::Error;
    };
    if !tracing::enabled!(target: "classad::debug", tracing::Level::DEBUG) {
        return ev.eval(arg, frame);
    }
    let start = std::time::Instant::now();
    let value = ev.eval(arg, frame);
    let elapsed = start.elapsed();
    tracing::debug!(
        target: "classad::debug",
        expr = %arg,
        value = %value.clone().into_value(),
        micros = elapsed.as_micros() as u64,
        "debug() evaluated"
    );
    value
}

/// The implementations of this group's built-ins.
pub(crate) const IMPLEMENTATIONS: Implementations = &[
    (BuiltinId::IfThenElse, if_then_else),
    (BuiltinId::Eval, eval),
    (BuiltinId::Unparse, unparse),
    (BuiltinId::Unresolved, unresolved),
    (BuiltinId::Debug, debug),
];
