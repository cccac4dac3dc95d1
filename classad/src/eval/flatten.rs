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
use super::val::{List, Val};
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

/// What a flattening keeps across its recursion.
struct Walk<'a> {
    /// Addresses of the attribute expressions being flattened (a cycle
    /// when one is reached again).
    active: Vec<usize>,
    /// The ad flattened in: the root scope (`.x`, `root`) everywhere, in
    /// ads written in the expression too.
    root: &'a Frame<'a>,
    /// The scope of an ad written at this point (`[a = 1].a`): the
    /// innermost ad written around it, or the ad whose attribute is being
    /// flattened; none in the expression itself, which is not in an ad.
    lexical: Option<&'a Frame<'a>>,
    /// Where a reference to an ad left libclassad's "current ad": later
    /// unscoped names start there, until the reference being followed (or
    /// the ad being flattened) is done. A quirk of libclassad's that shows
    /// only after a reference to a whole ad (`[a = 1].self`, `Nested`) in
    /// a scope other than the current one.
    stale: Option<&'a Frame<'a>>,
}

/// Whether `op` gathers constants across a chain (associative and
/// commutative in libclassad's view).
fn associative(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Add | Mul | And | Or | BitAnd | BitOr | BitXor)
}

/// `a op b` on values, as libclassad's flattening computes it.
fn operate<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::And | BinaryOp::Or => strict_logical(op == BinaryOp::Or, a, b),
        BinaryOp::Is | BinaryOp::Isnt => match ops::identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        _ => ops::binary(op, a, b),
    }
}

/// `a || b` (`or`) or `a && b` on two known values, as libclassad's
/// flattening computes it: unlike evaluation, which stops at a deciding
/// left side, both sides must be booleans (numbers count as theirs),
/// UNDEFINED or ERROR, so `false && "abc"` is ERROR here.
fn strict_logical<'a>(or: bool, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    let logical = |v: Val<'a>| match v {
        Val::Undefined | Val::Error | Val::Bool(_) => Some(v),
        v => v.truth().map(Val::Bool),
    };
    let (Some(a), Some(b)) = (logical(a), logical(b)) else {
        return Val::Error;
    };
    match (a, b) {
        (Val::Bool(a), _) if a == or => Val::Bool(or),
        (Val::Error, _) => Val::Error,
        (Val::Bool(_), b) => b,
        (Val::Undefined, Val::Bool(b)) if b == or => Val::Bool(or),
        (Val::Undefined, Val::Bool(_)) => Val::Undefined,
        (Val::Undefined, b) => b,
        // `logical` leaves nothing else.
        (_, b) => b,
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
        let mut walk = Walk { active: Vec::new(), root: frame, lexical: None, stale: None };
        self.flat(expr, frame, false, &mut walk, 0)
    }

    fn flat(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        split: bool,
        walk: &mut Walk<'a>,
        depth: u32,
    ) -> Option<Part<'a>> {
        // Deep enough to need more stack at times (references followed
        // are levels too, up to the depth limit).
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.flat_node(expr, frame, split, walk, depth)
        })
    }

    fn flat_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        split: bool,
        walk: &mut Walk<'a>,
        depth: u32,
    ) -> Option<Part<'a>> {
        let Some(node) = expr.as_node() else {
            return Some(Part::value(self.eval(expr, frame)));
        };
        if depth >= self.options.limits.max_depth || !self.walk_step() {
            return None;
        }
        // Levels count the references followed (see `flat_reference`),
        // not operators, as in libclassad.
        Some(match node {
            Node::Attr(_) | Node::RootAttr(_) | Node::Select(..) => {
                return self.flat_reference(expr, frame, walk, depth)
            }
            Node::Paren(inner) => {
                let part = self.flat(inner, frame, false, walk, depth)?;
                match part.tree {
                    Some(tree) => Part::tree(Expr::node(Node::Paren(tree))),
                    None => Part::value(part.val),
                }
            }
            Node::Unary(op, operand) => {
                let part = self.flat(operand, frame, false, walk, depth)?;
                match part.tree {
                    Some(tree) => Part::tree(Expr::unary(*op, tree)),
                    None => Part::value(ops::unary(*op, part.val)),
                }
            }
            Node::Binary(op, a, b) if associative(*op) => {
                let a = self.flat(a, frame, true, walk, depth)?;
                let b = self.flat(b, frame, true, walk, depth)?;
                let (new_op, val, tree) = combine(*op, a, b);
                match (new_op, tree) {
                    (Some(op), Some(tree)) if !split => Part::tree(with_value(op, val, tree)),
                    (op, Some(tree)) => Part { val, tree: Some(tree), op },
                    (_, None) => Part::value(val),
                }
            }
            Node::Binary(op, a, b) => {
                let a = self.flat(a, frame, false, walk, depth)?;
                let b = self.flat(b, frame, false, walk, depth)?;
                if a.tree.is_none() && b.tree.is_none() {
                    Part::value(operate(*op, a.val, b.val))
                } else {
                    Part::tree(Expr::binary(*op, a.into_expr(), b.into_expr()))
                }
            }
            Node::Cond(c, then, otherwise) => {
                let cond = self.flat(c, frame, false, walk, depth)?;
                if cond.tree.is_none() && !matches!(cond.val, Val::Undefined) {
                    return match branch(cond.val) {
                        Ok(true) => self.flat(then, frame, false, walk, depth),
                        Ok(false) => self.flat(otherwise, frame, false, walk, depth),
                        Err(_) => Some(Part::value(Val::Error)),
                    };
                }
                let then = self.flat(then, frame, false, walk, depth)?.into_expr();
                let otherwise = self.flat(otherwise, frame, false, walk, depth)?.into_expr();
                // A condition that flattened to UNDEFINED is kept as written.
                let cond = cond.tree.unwrap_or_else(|| c.clone());
                Part::tree(Expr::node(Node::Cond(cond, then, otherwise)))
            }
            Node::Elvis(a, b) | Node::Index(a, b) => {
                let pa = self.flat(a, frame, false, walk, depth)?;
                let pb = self.flat(b, frame, false, walk, depth)?;
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
                    let part = self.flat(arg, frame, false, walk, depth)?;
                    known &= part.tree.is_none();
                    args.push(part.into_expr());
                }
                if known {
                    // Every function is taken as pure, as libclassad does,
                    // and called as written (on its arguments' expressions,
                    // which `unparse` reads, not on the values found).
                    Part::value(self.eval(expr, walk.stale.unwrap_or(frame)))
                } else {
                    Part::tree(Expr::call(call.name(), args))
                }
            }
            Node::List(items) => {
                let mut flat_items = Vec::with_capacity(items.len());
                for item in items.iter() {
                    flat_items.push(self.flat(item, frame, false, walk, depth)?.into_expr());
                }
                Part::tree(Expr::list(flat_items))
            }
            Node::Record(ad) => {
                // Each attribute in the nested ad's own scope, which has no
                // enclosing scope when the ad is written in the expression
                // itself (not in an ad), as in libclassad.
                let scope = self.keep_frame(Frame { ad, parent: walk.lexical, side: frame.side });
                let mut flat_ad = crate::ClassAd::with_capacity(ad.len());
                let saved = walk.stale.take();
                let lexical = walk.lexical.replace(scope);
                for (name, value) in ad.iter() {
                    let value = self.flat(value, scope, false, walk, depth)?.into_expr();
                    flat_ad.insert(name, value);
                }
                walk.lexical = lexical;
                walk.stale = saved;
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
        walk: &mut Walk<'a>,
        depth: u32,
    ) -> Option<Part<'a>> {
        let keep = || Some(Part::tree(reference.clone()));
        let current = walk.stale.unwrap_or(frame);
        let (name, scope) = match reference.as_node() {
            Some(Node::Attr(name)) => (*name, current),
            Some(Node::RootAttr(name)) => (*name, walk.root),
            Some(Node::Select(base, name)) => match self.scope_value(base, current, walk) {
                Val::Undefined => return keep(),
                Val::Ad(scope) => (*name, scope),
                // A selection from a list is the list of the selections
                // from its elements, which (as any list) does not flatten
                // to a value; libclassad flattens it all the same, and fails
                // when that fails.
                list @ Val::List(_) => {
                    let projected = self.select(list, *name);
                    self.flat_projected(projected, current, walk, depth + 1)?;
                    return keep();
                }
                _ => return Some(Part::value(Val::Error)),
            },
            _ => return keep(),
        };
        match self.lookup_rooted(name, scope, walk.root) {
            // Unknown here (and `parent` at the top, which has none).
            Found::Missing | Found::Value(Val::Undefined) => keep(),
            // A name for a whole ad is kept, as an attribute holding an ad
            // is; the current ad stays where the name was found.
            Found::Value(Val::Ad(_)) => {
                walk.stale = Some(scope);
                keep()
            }
            Found::Value(value) => Some(Part::value(value)),
            Found::Expr(found, found_in) if matches!(found.as_node(), Some(Node::Record(_))) => {
                walk.stale = Some(found_in);
                keep()
            }
            Found::Expr(found, found_in) => {
                let key = found as *const Expr as usize;
                if walk.active.contains(&key) {
                    return None;
                }
                walk.active.push(key);
                let saved = walk.stale.take();
                let lexical = walk.lexical.replace(found_in);
                let part = self.flat(found, found_in, false, walk, depth + 1);
                walk.lexical = lexical;
                walk.stale = saved;
                walk.active.pop();
                let part = part?;
                match part.tree {
                    Some(_) => keep(),
                    None => Some(Part::value(part.val)),
                }
            }
        }
    }
}

impl<'a> Evaluator<'a> {
    /// The value of the scope part of a selection: an ad written there has
    /// its lexical scope (none in the expression itself); `root` and `toplevel`
    /// (when no ad defines them) name the ad flattened in, from anywhere;
    /// anything else is evaluated.
    fn scope_value(&mut self, base: &'a Expr, frame: &'a Frame<'a>, walk: &Walk<'a>) -> Val<'a> {
        match base.as_node() {
            // An ad written here: its lexical scope (none in the
            // expression itself).
            Some(Node::Record(ad)) => Val::Ad(self.keep_frame(Frame { ad, parent: walk.lexical, side: frame.side })),
            Some(Node::Paren(inner)) => self.scope_value(inner, frame, walk),
            Some(Node::Attr(name)) if name.is_reserved() => match self.lookup_rooted(*name, frame, walk.root) {
                Found::Value(value) => value,
                _ => self.eval(base, frame),
            },
            _ => self.eval(base, frame),
        }
    }

    /// Flattens the values a selection from a list gave, as libclassad
    /// does before it keeps the selection: the attributes of an ad (in its
    /// own scope alone) and the elements of a list; `None` when that fails.
    fn flat_projected(&mut self, value: Val<'a>, frame: &'a Frame<'a>, walk: &mut Walk<'a>, depth: u32) -> Option<()> {
        if depth >= self.options.limits.max_depth {
            return None;
        }
        match value {
            Val::Ad(found) => {
                let scope = self.keep_frame(Frame { ad: found.ad, parent: None, side: found.side });
                let saved = walk.stale.take();
                let lexical = walk.lexical.replace(scope);
                for (_, attr) in found.ad.iter() {
                    self.flat(attr, scope, false, walk, depth + 1)?;
                }
                walk.lexical = lexical;
                walk.stale = saved;
            }
            Val::List(List::Lazy(items, _)) => {
                for item in items {
                    self.flat(item, frame, false, walk, depth + 1)?;
                }
            }
            Val::List(List::Values(values)) => {
                for value in values.iter() {
                    self.flat_projected(value.clone(), frame, walk, depth + 1)?;
                }
            }
            _ => {}
        }
        Some(())
    }
}

/// Combines the two flattened operands of an associative operator `op`, as
/// libclassad's `Operation::combine`: the operator left to apply to the
/// result (if any), the constant gathered so far, and the tree.
fn combine<'a>(op: BinaryOp, mut a: Part<'a>, mut b: Part<'a>) -> (Option<BinaryOp>, Val<'a>, Option<Expr>) {
    let logical = matches!(op, BinaryOp::And | BinaryOp::Or);
    // One side known, under `&&`/`||`.
    if logical && a.tree.is_some() != b.tree.is_some() {
        // libclassad's logical operation turns a number into the boolean
        // it stands for in place, so the known side is kept as one
        // (`x || 0` is `false || x`, and `x && 5` is `x` below).
        for part in [&mut a, &mut b] {
            if part.tree.is_none() {
                if let Some(truth) = part.val.truth() {
                    part.val = Val::Bool(truth);
                }
            }
        }
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
