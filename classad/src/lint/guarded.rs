//! The names an expression tests for UNDEFINED: references to them are
//! deliberate.

use std::collections::HashSet;

use crate::expr::{BinaryOp, Expr, Literal, Node};
use crate::name::Name;

use super::reference::{reference_of, strip};

/// The names `expr` tests for UNDEFINED somewhere, each once, in the
/// order met: the operands of `=?=` and `=!=` (and of `==`, `!=`, ... with
/// UNDEFINED, mistaken tests of the same intent), the left side of `?:`
/// and the arguments of the `is*` predicates; plain, `MY.` and `TARGET.`
/// references alike. A reference to one of them is written for ads that
/// may lack it, so a report of missing attributes (the why-not analysis)
/// leaves it out.
///
/// ```
/// use classad::lint::guarded_names;
/// let expr = classad::parse_expr("TARGET.Gpus =?= undefined || isString(MY.Site) && (Memory ?: 0) > 1 && Cpus > 1")?;
/// let names: Vec<String> = guarded_names(&expr).iter().map(|n| n.as_str().to_owned()).collect();
/// assert_eq!(names, ["Gpus", "Site", "Memory"]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn guarded_names(expr: &Expr) -> Vec<Name> {
    let mut names = Vec::new();
    let mut seen = HashSet::new();
    visit_guarded(expr, &mut |name| {
        if seen.insert(name.symbol()) {
            names.push(name);
        }
    });
    names
}

/// The symbols of the names `expr` tests for UNDEFINED: operands of `=?=`
/// and `=!=` (and of `==`, `!=` ... with UNDEFINED, mistaken tests), the
/// left side of `?:`, the argument of the `is*` predicates.
pub(crate) fn collect_guarded(expr: &Expr, out: &mut HashSet<u32>) {
    visit_guarded(expr, &mut |name| {
        out.insert(name.symbol());
    });
}

/// Calls `found` with each name `expr` tests for UNDEFINED (see
/// [`collect_guarded`]), in the order met, repeats included.
fn visit_guarded(expr: &Expr, found: &mut impl FnMut(Name)) {
    let Some(node) = expr.as_node() else {
        return;
    };
    let mut guard = |e: &Expr| {
        if let Some((_, name)) = reference_of(strip(e)) {
            found(name);
        }
    };
    match node {
        Node::Binary(BinaryOp::Is | BinaryOp::Isnt, a, b) => {
            guard(a);
            guard(b);
        }
        // `x == UNDEFINED` is reported for what it is; x is meant to be
        // tested.
        Node::Binary(_, a, b) if [a, b].iter().any(|e| matches!(strip(e).as_literal(), Some(Literal::Undefined))) => {
            guard(a);
            guard(b);
        }
        Node::Elvis(a, _) => guard(a),
        Node::Call(call) if call.name().as_str().get(..2).is_some_and(|p| p.eq_ignore_ascii_case("is")) => {
            call.args().iter().for_each(guard);
        }
        _ => {}
    }
    for child in node.children() {
        visit_guarded(child, found);
    }
}
