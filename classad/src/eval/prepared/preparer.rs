//! Preparing: the walk over an expression, in the context of its MY ad,
//! that folds what MY and constants decide, inlines MY's attributes,
//! turns target references into direct lookups and leaves the rest whole
//! for the interpreter (see [the module](super)).

use super::kernel::Truth;
use super::reuse::{Read, Reads, Seen};
use super::step::{Step, StepId, TypeTest};
use crate::ad::ClassAd;
use crate::builtins::Purity;
use crate::eval::ops;
use crate::eval::val::Val;
use crate::eval::{EvalOptions, Evaluator, Frame, Keep, Semantics, Side};
use crate::expr::{BinaryOp, Call, Expr, Literal, Node, Repr};
use crate::name::{reserved, Name};

/// Bounds on inlining MY's attributes, so that a hostile ad (`A = B + B;
/// B = C + C; ...`) cannot make a prepared expression grow without end:
/// past them, references stay whole and the interpreter follows them.
const MAX_INLINE_DEPTH: usize = 32;
const MAX_STEPS: usize = 4096;

/// Builds prepared steps for expressions of one MY ad.
pub(super) struct Preparer<'p> {
    options: &'p EvalOptions,
    my: &'p ClassAd,
    /// The target attributes read directly.
    pub(super) targets: Vec<Name>,
    /// The MY attributes being inlined (their expressions' addresses).
    inlining: Vec<usize>,
    /// Steps built so far.
    steps: usize,
    /// The operands of the steps built so far (see [`Unbound`](super::Unbound)'s `steps`).
    pub(super) arena: Vec<Step>,
    /// What was read of MY, when asked for (see [`Unbound::build`]).
    pub(super) reads: Option<Reads>,
}

impl<'p> Preparer<'p> {
    pub(super) fn new(options: &'p EvalOptions, my: &'p ClassAd) -> Preparer<'p> {
        Preparer { options, my, targets: Vec::new(), inlining: Vec::new(), steps: 0, arena: Vec::new(), reads: None }
    }

    /// MY's attribute `name`, noted as read.
    fn lookup(&mut self, name: Name) -> Option<&'p Expr> {
        let found = self.my.lookup_name(name);
        if let Some(reads) = &mut self.reads {
            reads.note(Read::Lookup(name), Seen::of(found));
        }
        found
    }

    /// Whether MY may define the reserved name `scope`, noted as read.
    fn defines(&mut self, scope: Name) -> bool {
        let defined = self.my.may_define(scope);
        if let Some(reads) = &mut self.reads {
            reads.note(Read::Defines(scope), Seen::Defined(defined));
        }
        defined
    }

    /// The step for `expr`, as an operand.
    fn operand(&mut self, expr: &'p Expr) -> StepId {
        let step = self.prepare(expr);
        self.push(step)
    }

    /// Places an operand step.
    fn push(&mut self, step: Step) -> StepId {
        self.arena.push(step);
        // The arena is bounded by `MAX_STEPS` and inlining's bounds.
        u32::try_from(self.arena.len() - 1).unwrap_or(u32::MAX)
    }

    /// The step for `expr`, evaluated in MY's scope.
    pub(super) fn prepare(&mut self, expr: &'p Expr) -> Step {
        self.steps += 1;
        let node = match &expr.0 {
            Repr::Lit(literal) => return Step::Literal(literal.clone()),
            Repr::Node(node) => &node.node,
        };
        match node {
            Node::Paren(inner) => self.prepare(inner),
            Node::Attr(name) if !name.is_reserved() => match self.lookup(*name) {
                Some(found) => self.my_attribute(expr, *name, found),
                // Old semantics: a name MY lacks is the target's.
                None if self.options.semantics == Semantics::Old => self.target(*name),
                None => Step::Literal(Literal::Undefined),
            },
            Node::Select(base, name) if !name.is_reserved() => match base.as_node() {
                // TARGET.x: unless MY itself defines TARGET (or other), it
                // names the target ad, where a non-reserved x is a plain
                // lookup.
                Some(Node::Attr(scope))
                    if matches!(scope.symbol(), reserved::TARGET | reserved::OTHER) && !self.defines(*scope) =>
                {
                    self.target(*name)
                }
                // MY.x: a lookup in MY, without old semantics' fallback.
                Some(Node::Attr(scope)) if scope.symbol() == reserved::MY && !self.defines(*scope) => {
                    match self.lookup(*name) {
                        Some(found) => self.my_attribute(expr, *name, found),
                        None => Step::Literal(Literal::Undefined),
                    }
                }
                _ => Step::Whole(expr.clone()),
            },
            Node::Unary(op, operand) => match self.prepare(operand) {
                Step::Literal(literal) => {
                    fold(|| ops::unary(*op, Val::from_literal(&literal))).unwrap_or_else(|| Step::Whole(expr.clone()))
                }
                operand => Step::Unary(*op, self.push(operand)),
            },
            Node::Binary(op @ (BinaryOp::And | BinaryOp::Or), ..) => {
                // Left-nested `a && b && c` as one chain.
                let mut operands = Vec::new();
                let mut left = expr;
                while let Some(Node::Binary(inner, a, b)) = left.as_node() {
                    if inner != op {
                        break;
                    }
                    operands.push(b);
                    left = a;
                }
                operands.push(left);
                let items: Vec<Step> = operands.into_iter().rev().map(|e| self.prepare(e)).collect();
                let dominant = *op == BinaryOp::Or;
                match fold_chain(dominant, &items) {
                    Some(folded) => folded,
                    None => {
                        let items = without_neutral(dominant, items);
                        let len = u32::try_from(items.len()).unwrap_or(u32::MAX);
                        let first = u32::try_from(self.arena.len()).unwrap_or(u32::MAX);
                        self.arena.extend(items);
                        Step::Chain { dominant, first, len }
                    }
                }
            }
            Node::Binary(op, a, b) => {
                let a = self.prepare(a);
                let b = self.prepare(b);
                match (a, b) {
                    (Step::Literal(x), Step::Literal(y)) => {
                        fold(|| binary(*op, Val::from_literal(&x), Val::from_literal(&y)))
                            .unwrap_or_else(|| Step::Whole(expr.clone()))
                    }
                    (Step::Target(name), Step::Literal(literal)) if fusable(*op) => {
                        Step::Compare { op: *op, name, literal, target_first: true }
                    }
                    (Step::Literal(literal), Step::Target(name)) if fusable(*op) => {
                        Step::Compare { op: *op, name, literal, target_first: false }
                    }
                    (a, b) => {
                        let a = self.push(a);
                        Step::Binary(*op, a, self.push(b))
                    }
                }
            }
            Node::Cond(c, a, b) => self.conditional(expr, c, a, b),
            Node::Elvis(a, b) => match self.prepare(a) {
                Step::Literal(Literal::Undefined) => self.prepare(b),
                literal @ Step::Literal(_) => literal,
                a => {
                    let a = self.push(a);
                    Step::Elvis(a, self.operand(b))
                }
            },
            // `ifThenElse(c, a, b)` is `c ? a : b` (the built-in evaluates
            // its condition and one branch exactly as the operator does).
            Node::Call(call) if call.name().as_str().eq_ignore_ascii_case("ifThenElse") && call.args().len() == 3 => {
                match call.args() {
                    [c, a, b] => self.conditional(expr, c, a, b),
                    _ => Step::Whole(expr.clone()),
                }
            }
            Node::Call(call) if call.args().len() == 1 && TypeTest::of(call.name().as_str()).is_some() => {
                let Some(test) = TypeTest::of(call.name().as_str()) else {
                    return Step::Whole(expr.clone());
                };
                match self.prepare(&call.args()[0]) {
                    Step::Literal(literal) => Step::Literal(Literal::Bool(test.holds(&Val::from_literal(&literal)))),
                    arg => Step::IsType(test, self.push(arg)),
                }
            }
            Node::Call(call) if is_pure(call) => {
                // A pure function of arguments known now is its value now,
                // unless that value is not a literal (a list, an ad).
                let known = call.args().iter().all(|arg| matches!(self.prepare(arg), Step::Literal(_)));
                if known {
                    if let Some(folded) = self.evaluate_now(expr) {
                        return folded;
                    }
                }
                Step::Whole(expr.clone())
            }
            _ => Step::Whole(expr.clone()),
        }
    }

    /// `c ? a : b` (or `ifThenElse(c, a, b)`): a condition known now picks
    /// its branch now.
    fn conditional(&mut self, expr: &'p Expr, c: &'p Expr, a: &'p Expr, b: &'p Expr) -> Step {
        match self.prepare(c) {
            Step::Literal(literal) => match crate::eval::branch(Val::from_literal(&literal)) {
                Ok(true) => self.prepare(a),
                Ok(false) => self.prepare(b),
                Err(value) => fold(|| value).unwrap_or_else(|| Step::Whole(expr.clone())),
            },
            c => {
                let c = self.push(c);
                let a = self.operand(a);
                Step::Cond(c, a, self.operand(b))
            }
        }
    }

    /// A reference (`x` or `MY.x`) to MY's attribute whose expression is
    /// `found`: its literal, or its expression inlined (evaluating it in
    /// MY's scope is what the reference does), or, in a cycle or past the
    /// bounds, the reference left whole.
    fn my_attribute(&mut self, reference: &'p Expr, name: Name, found: &'p Expr) -> Step {
        if let Repr::Lit(literal) = &found.0 {
            return Step::Literal(literal.clone());
        }
        let key = found as *const Expr as usize;
        // A reference back to an attribute being inlined is one the
        // interpreter meets while evaluating that attribute: a cycle.
        if self.inlining.contains(&key) {
            return Step::Literal(Literal::Error);
        }
        if self.inlining.len() >= MAX_INLINE_DEPTH || self.steps >= MAX_STEPS {
            return Step::Whole(reference.clone());
        }
        self.inlining.push(key);
        let step = self.prepare(found);
        self.inlining.pop();
        if step.may_reenter(&self.arena) {
            Step::Within(name, self.push(step))
        } else {
            step
        }
    }

    /// The target's attribute `name`.
    fn target(&mut self, name: Name) -> Step {
        if !self.targets.contains(&name) {
            self.targets.push(name);
        }
        Step::Target(name)
    }

    /// Evaluates `expr` in MY's scope now, as a literal step. Only for
    /// expressions that read nothing of the target.
    fn evaluate_now(&self, expr: &'p Expr) -> Option<Step> {
        let my_frame = Frame { ad: self.my, parent: None, side: Side::My };
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), None);
        // Inside inlined attributes, those are being evaluated.
        ev.active.extend(self.inlining.iter().copied());
        let value = ev.eval(expr, &my_frame);
        if ev.failed() {
            return None;
        }
        fold(|| value)
    }
}

/// A value computed now as a literal step (`None` for lists and ads, which
/// have no literal).
fn fold<'a>(value: impl FnOnce() -> Val<'a>) -> Option<Step> {
    let literal = match value() {
        Val::Undefined => Literal::Undefined,
        Val::Error => Literal::Error,
        Val::Bool(b) => Literal::Bool(b),
        Val::Int(i) => Literal::Int(i),
        Val::Real(r) => Literal::Real(r),
        Val::Str(s) => Literal::Str(s.as_str().into()),
        Val::AbsTime(t) => Literal::AbsTime(t),
        Val::RelTime(r) => Literal::RelTime(crate::time::RelTime(r)),
        Val::List(_) | Val::Ad(_) => return None,
    };
    Some(Step::Literal(literal))
}

/// A chain whose value is known now: its leading operands are literals
/// and either decide it (an ERROR, or the dominant value) or are all there
/// is.
fn fold_chain(dominant: bool, items: &[Step]) -> Option<Step> {
    let mut value: Option<Val<'_>> = None;
    for item in items {
        if let Some(left) = &value {
            let mut needed = false;
            let decided = ops::logical(dominant, left.clone(), || {
                needed = true;
                Val::Undefined
            });
            if !needed {
                return fold(|| decided);
            }
        }
        let Step::Literal(literal) = item else {
            return None;
        };
        let right = Val::from_literal(literal);
        value = Some(match value {
            None => right,
            Some(left) => ops::logical(dominant, left, || right),
        });
    }
    value.and_then(|v| fold(|| v))
}

/// The items of a chain without the constants after its first item that
/// leave the value as it is (`x && true && y` is `x && y`: `&&` with a
/// true right side gives the left side's truth, which is all the next
/// `&&` looks at), as long as two items stay, so that the chain's value
/// is still that of an `&&` (or `||`) and never a lone item's own value.
fn without_neutral(dominant: bool, mut items: Vec<Step>) -> Vec<Step> {
    let neutral = Truth::from_bool(!dominant);
    let is_neutral = |step: &Step| matches!(step, Step::Literal(l) if Truth::of(&Val::from_literal(l)) == neutral);
    let keep = items.iter().skip(1).filter(|step| !is_neutral(step)).count();
    if keep == 0 || keep + 1 == items.len() {
        return items;
    }
    let mut first = true;
    items.retain(|step| std::mem::take(&mut first) || !is_neutral(step));
    items
}

/// `a op b` of two known values, as the interpreter computes it.
fn binary<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::Is | BinaryOp::Isnt => match ops::identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        _ => ops::binary(op, a, b),
    }
}

/// Whether `call` is of a built-in whose value depends on its arguments
/// alone (not on the clock, chance, the environment, files or other
/// attributes), so that a call on known arguments can be computed once.
fn is_pure(call: &Call) -> bool {
    call.builtin().is_some_and(|id| id.builtin().purity == Purity::Pure)
}

/// The operators [`Step::Compare`] evaluates with [`ops::binary`].
fn fusable(op: BinaryOp) -> bool {
    !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Is | BinaryOp::Isnt)
}
