//! Partial evaluation, as libclassad's `Flatten`: what an expression
//! becomes in an ad's scope when everything the ad determines is computed
//! and everything else is left as written. The public face is
//! [`crate::flatten`].
//!
//! Each node gives a [`Part`]: a value, or an expression that still
//! depends on something unknown. The associative operators (`+ * && || &
//! | ^`) gather the constants of a chain of the same operator into one
//! value, which ends up *first*: `x + 1 + 2` is `3 + x`, as in libclassad.

use super::ops;
use super::val::Val;
use super::{branch, Evaluator, Found, Frame};
use crate::expr::{BinaryOp, Expr, Node};

/// What flattening a node gives: a value (`tree` is `None`), or a tree and,
/// under an associative operator (`op`), the constant part gathered from
/// it, to be combined with the operator's other constants.
pub(crate) struct Part<'a> {
    val: Val<'a>,
    tree: Option<Expr>,
    op: Option<BinaryOp>,
}

impl<'a> Part<'a> {
    fn value(val: Val<'a>) -> Part<'a> {
        Part { val, tree: None, op: None }
    }

    fn tree(tree: Expr) -> Part<'a> {
        Part { val: Val::Undefined, tree: Some(tree), op: None }
    }

    /// The part as an expression: its tree, or its value as a literal.
    fn into_expr(self) -> Expr {
        match self.tree {
            Some(tree) => tree,
            None => self.val.into_value().to_expr(),
        }
    }

    /// The flattened expression, or `None` for a value.
    pub(crate) fn into_result(self) -> Result<crate::Value, Expr> {
        match self.tree {
            Some(tree) => Err(tree),
            None => Ok(self.val.into_value()),
        }
    }
}

/// Whether `op` gathers constants across a chain (associative and
/// commutative in libclassad's view).
fn associative(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Add | Mul | And | Or | BitAnd | BitOr | BitXor)
}

/// `a op b` on values.
fn operate<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::And | BinaryOp::Or => ops::logical(op == BinaryOp::Or, a, || b),
        BinaryOp::Is | BinaryOp::Isnt => match ops::identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        _ => ops::binary(op, a, b),
    }
}

/// `value op tree`.
fn with_value(op: BinaryOp, value: Val<'_>, tree: Expr) -> Expr {
    Expr::binary(op, value.into_value().to_expr(), tree)
}

impl<'a> Evaluator<'a> {
    /// Flattens `expr` in the scope `frame`; `None` when libclassad's
    /// `Flatten` fails (a cycle, or too deep).
    pub(crate) fn flatten(&mut self, expr: &'a Expr, frame: &'a Frame<'a>) -> Option<Part<'a>> {
        let mut active = Vec::new();
        self.flat(expr, frame, false, &mut active, 0)
    }

    fn flat(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        split: bool,
        active: &mut Vec<usize>,
        depth: u32,
    ) -> Option<Part<'a>> {
        // Deep enough to need more stack at times (references followed
        // are levels too, up to the depth limit).
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.flat_node(expr, frame, split, active, depth)
        })
    }

    fn flat_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        split: bool,
        active: &mut Vec<usize>,
        depth: u32,
    ) -> Option<Part<'a>> {
        let Some(node) = expr.as_node() else {
            return Some(Part::value(self.eval(expr, frame)));
        };
        if depth >= self.options.limits.max_depth {
            return None;
        }
        // Levels count the references followed (see `flat_reference`),
        // not operators, as in libclassad.
        Some(match node {
            Node::Attr(_) | Node::RootAttr(_) | Node::Select(..) => {
                return self.flat_reference(expr, frame, active, depth)
            }
            Node::Paren(inner) => {
                let part = self.flat(inner, frame, false, active, depth)?;
                match part.tree {
                    Some(tree) => Part::tree(Expr::node(Node::Paren(tree))),
                    None => Part::value(part.val),
                }
            }
            Node::Unary(op, operand) => {
                let part = self.flat(operand, frame, false, active, depth)?;
                match part.tree {
                    Some(tree) => Part::tree(Expr::unary(*op, tree)),
                    None => Part::value(ops::unary(*op, part.val)),
                }
            }
            Node::Binary(op, a, b) if associative(*op) => {
                let a = self.flat(a, frame, true, active, depth)?;
                let b = self.flat(b, frame, true, active, depth)?;
                let (new_op, val, tree) = combine(*op, a, b);
                match (new_op, tree) {
                    (Some(op), Some(tree)) if !split => Part::tree(with_value(op, val, tree)),
                    (op, Some(tree)) => Part { val, tree: Some(tree), op },
                    (_, None) => Part::value(val),
                }
            }
            Node::Binary(op, a, b) => {
                let a = self.flat(a, frame, false, active, depth)?;
                let b = self.flat(b, frame, false, active, depth)?;
                if a.tree.is_none() && b.tree.is_none() {
                    Part::value(operate(*op, a.val, b.val))
                } else {
                    Part::tree(Expr::binary(*op, a.into_expr(), b.into_expr()))
                }
            }
            Node::Cond(c, then, otherwise) => {
                let cond = self.flat(c, frame, false, active, depth)?;
                if cond.tree.is_none() && !matches!(cond.val, Val::Undefined) {
                    return match branch(cond.val) {
                        Ok(true) => self.flat(then, frame, false, active, depth),
                        Ok(false) => self.flat(otherwise, frame, false, active, depth),
                        Err(_) => Some(Part::value(Val::Error)),
                    };
                }
                let then = self.flat(then, frame, false, active, depth)?.into_expr();
                let otherwise = self.flat(otherwise, frame, false, active, depth)?.into_expr();
                // A condition that flattened to UNDEFINED is kept as written.
                let cond = cond.tree.unwrap_or_else(|| c.clone());
                Part::tree(Expr::node(Node::Cond(cond, then, otherwise)))
            }
            Node::Elvis(a, b) | Node::Index(a, b) => {
                let pa = self.flat(a, frame, false, active, depth)?;
                let pb = self.flat(b, frame, false, active, depth)?;
                let rebuild = |a: Expr, b: Expr| match node {
                    Node::Elvis(..) => Expr::node(Node::Elvis(a, b)),
                    _ => Expr::node(Node::Index(a, b)),
                };
                if pa.tree.is_none() && pb.tree.is_none() {
                    // Both known: evaluate the operator on their literals.
                    let known = rebuild(pa.into_expr(), pb.into_expr());
                    let known = self.keep_expr(known);
                    Part::value(self.eval(known, frame))
                } else {
                    Part::tree(rebuild(pa.into_expr(), pb.into_expr()))
                }
            }
            Node::Call(call) => {
                if call.builtin.is_none() && !crate::functions::is_registered(call.name().as_str()) {
                    return Some(Part::value(Val::Error));
                }
                let mut known = true;
                let mut args = Vec::with_capacity(call.args().len());
                for arg in call.args() {
                    let part = self.flat(arg, frame, false, active, depth)?;
                    known &= part.tree.is_none();
                    args.push(part.into_expr());
                }
                let rebuilt = Expr::call(call.name(), args);
                if known {
                    // Every function is taken as pure, as libclassad does.
                    let rebuilt = self.keep_expr(rebuilt);
                    Part::value(self.eval(rebuilt, frame))
                } else {
                    Part::tree(rebuilt)
                }
            }
            Node::List(items) => {
                let mut flat_items = Vec::with_capacity(items.len());
                for item in items.iter() {
                    flat_items.push(self.flat(item, frame, false, active, depth)?.into_expr());
                }
                Part::tree(Expr::list(flat_items))
            }
            Node::Record(ad) => {
                // Each attribute in the nested ad's own scope, which (the
                // ad being written in the expression, not in an ad) has no
                // enclosing scope, as in libclassad.
                let scope = self.keep_frame(Frame { ad, parent: None, side: frame.side });
                let mut flat_ad = crate::ClassAd::with_capacity(ad.len());
                for (name, value) in ad.iter() {
                    let value = self.flat(value, scope, false, active, depth)?.into_expr();
                    flat_ad.insert(name, value);
                }
                Part::tree(Expr::record(flat_ad))
            }
        })
    }

    /// An attribute reference: the value of what it names when that
    /// flattens to a value, and otherwise the reference as written (the
    /// named expression is not inlined).
    fn flat_reference(
        &mut self,
        reference: &'a Expr,
        frame: &'a Frame<'a>,
        active: &mut Vec<usize>,
        depth: u32,
    ) -> Option<Part<'a>> {
        let keep = || Some(Part::tree(reference.clone()));
        let (name, scope) = match reference.as_node() {
            Some(Node::Attr(name)) => (*name, frame),
            Some(Node::RootAttr(name)) => (*name, frame.root()),
            Some(Node::Select(base, name)) => match self.eval(base, frame) {
                Val::Undefined => return keep(),
                Val::Ad(scope) => (*name, scope),
                _ => return Some(Part::value(Val::Error)),
            },
            _ => return keep(),
        };
        match self.lookup(name, scope) {
            // Unknown here (and `parent` at the top, which has none).
            Found::Missing | Found::Value(Val::Undefined) => keep(),
            // A name for a whole ad is kept, as an attribute holding an ad.
            Found::Value(Val::Ad(_)) => keep(),
            Found::Value(value) => Some(Part::value(value)),
            Found::Expr(found, _) if matches!(found.as_node(), Some(Node::Record(_))) => keep(),
            Found::Expr(found, found_in) => {
                let key = found as *const Expr as usize;
                if active.contains(&key) {
                    return None;
                }
                active.push(key);
                let part = self.flat(found, found_in, false, active, depth + 1);
                active.pop();
                let part = part?;
                match part.tree {
                    Some(_) => keep(),
                    None => Some(Part::value(part.val)),
                }
            }
        }
    }
}

/// Combines the two flattened operands of an associative operator `op`, as
/// libclassad's `Operation::combine`: the operator left to apply to the
/// result (if any), the constant gathered so far, and the tree.
fn combine<'a>(op: BinaryOp, a: Part<'a>, b: Part<'a>) -> (Option<BinaryOp>, Val<'a>, Option<Expr>) {
    let logical = matches!(op, BinaryOp::And | BinaryOp::Or);
    // One side known, under `&&`/`||`.
    if logical && a.tree.is_some() != b.tree.is_some() {
        let known = |part: &Part<'a>| if part.tree.is_none() { part.val.clone() } else { Val::Undefined };
        let decided = operate(op, known(&a), known(&b));
        if matches!(decided, Val::Bool(_)) {
            return (None, decided, None);
        }
        // `true && x` and `x && true` are `x`.
        if op == BinaryOp::And {
            if a.tree.is_none() && matches!(a.val, Val::Bool(true)) {
                return (None, Val::Undefined, b.tree);
            }
            if b.tree.is_none() && matches!(b.val, Val::Bool(true)) {
                return (None, Val::Undefined, a.tree);
            }
        }
    }
    match (a.tree, b.tree) {
        (None, None) => (None, operate(op, a.val, b.val), None),
        (None, Some(tree)) if b.op.is_none() => (Some(op), a.val, Some(tree)),
        (Some(tree), None) if a.op.is_none() => (Some(op), b.val, Some(tree)),
        (Some(ta), Some(tb)) if a.op.is_none() && b.op.is_none() => {
            (None, Val::Undefined, Some(Expr::binary(op, ta, tb)))
        }
        (ta, tb) if a.op != Some(op) && b.op != Some(op) => {
            // A child gathered constants under another operator: close it.
            let side = |child_op: Option<BinaryOp>, val: Val<'a>, tree: Option<Expr>| match (child_op, tree) {
                (Some(child_op), Some(tree)) => with_value(child_op, val, tree),
                (_, Some(tree)) => tree,
                (_, None) => val.into_value().to_expr(),
            };
            let left = side(a.op, a.val, ta);
            let right = side(b.op, b.val, tb);
            (None, Val::Undefined, Some(Expr::binary(op, left, right)))
        }
        (Some(ta), Some(tb)) if a.op == Some(op) && b.op == Some(op) => {
            (Some(op), operate(op, a.val, b.val), Some(Expr::binary(op, ta, tb)))
        }
        (Some(ta), tb) if a.op == Some(op) => match tb {
            None => (Some(op), operate(op, a.val, b.val), Some(ta)),
            Some(tb) => (Some(op), a.val, Some(Expr::binary(op, ta, tb))),
        },
        (ta, Some(tb)) => match ta {
            None => (Some(op), operate(op, a.val, b.val), Some(tb)),
            Some(ta) => (Some(op), b.val, Some(Expr::binary(op, ta, tb))),
        },
        // Unreachable in libclassad's logic; keep what there is.
        (ta, tb) => (None, Val::Undefined, ta.or(tb)),
    }
}
