//! Prepared evaluation: one expression of a fixed MY ad, evaluated against
//! many TARGET ads (a job's `Requirements` against every machine).
//!
//! Preparing walks the expression once, in the context of the MY ad:
//!
//! * references to MY's own attributes whose values are literals are folded
//!   (`RequestDisk` becomes `1000000`);
//! * `TARGET.x` (and `other.x`), when MY does not define `TARGET` itself,
//!   becomes a direct lookup of `x` in the target ad;
//! * operators over such parts stay operators;
//! * everything else is kept whole and evaluated by the interpreter, with
//!   MY and the target ad as its match context.
//!
//! Conditions built only of comparisons between target attributes and
//! constants, `!`, `&&` and `||` (most `Requirements`) are also compiled to
//! a truth kernel (`kernel`), which reads literal target values directly.
//!
//! The result is always the value the interpreter gives for the pair
//! (checked by `tests/prepared.rs`), with one exception: the parts folded
//! or compiled here cost no evaluation steps, so an expression that only
//! just exceeds the interpreter's [`EvalLimits`](super::EvalLimits) may
//! still get a value here. Evaluating a slice of targets also
//! prefetches the table slots of the ads a few positions ahead that the
//! target lookups will read.

mod kernel;

use super::ops;
use super::val::Val;
use super::{EvalContext, EvalOptions, Evaluator, Frame, Keep, Side};
use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Node, Repr, UnaryOp};
use crate::name::{reserved, Name};
use crate::value::Value;
use kernel::Kernel;

/// An expression of a fixed MY ad, prepared for evaluation against many
/// TARGET ads.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Prepared, Semantics};
/// let job: ClassAd = "[ RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]".parse()?;
/// let machines: Vec<ClassAd> = [1024, 4096, 2048]
///     .iter()
///     .map(|m| format!("[ Memory = {m} ]").parse())
///     .collect::<Result<_, _>>()?;
/// let opts = EvalOptions::new().semantics(Semantics::Old);
/// let requirements = Prepared::attribute(&opts, &job, "Requirements");
/// assert_eq!(requirements.matching(&machines), vec![1, 2]);
/// assert!(!requirements.is_true(&machines[0]));
/// # Ok::<(), classad::ParseError>(())
/// ```
pub struct Prepared<'p> {
    options: &'p EvalOptions,
    my: &'p ClassAd,
    step: Step<'p>,
    /// `step` as a truth kernel, when it is a condition the kernel handles.
    kernel: Option<Kernel<'p>>,
    /// The target attributes `step` reads directly, for prefetching.
    target_names: Vec<Name>,
}

/// A prepared expression node.
enum Step<'p> {
    /// A literal (written in the expression or folded from MY).
    Literal(&'p Expr),
    /// `TARGET.name`: the attribute looked up in the target ad.
    Target(Name),
    /// `TARGET.name op literal` (or `literal op TARGET.name` when
    /// `target_first` is false): a lookup and an operator, in one step.
    Compare {
        op: BinaryOp,
        name: Name,
        literal: &'p Expr,
        target_first: bool,
    },
    /// `a && b && ...` (`dominant` false) or `a || b || ...` (true), folded
    /// from the left exactly as the nested operators are.
    Chain {
        dominant: bool,
        items: Box<[Step<'p>]>,
    },
    Unary(UnaryOp, Box<Step<'p>>),
    Binary(BinaryOp, Box<Step<'p>>, Box<Step<'p>>),
    Cond(Box<Step<'p>>, Box<Step<'p>>, Box<Step<'p>>),
    Elvis(Box<Step<'p>>, Box<Step<'p>>),
    /// Evaluated by the interpreter in MY's scope.
    Whole(&'p Expr),
}

/// How many targets ahead [`Prepared::matching`] prefetches.
const PREFETCH_AHEAD: usize = 4;

/// The expression UNDEFINED, for a missing attribute.
static UNDEFINED: Expr = Expr(Repr::Lit(crate::expr::Literal::Undefined));

impl<'p> Prepared<'p> {
    /// Prepares `expr`, an expression evaluated with `my` as the MY ad.
    pub fn new(options: &'p EvalOptions, my: &'p ClassAd, expr: &'p Expr) -> Prepared<'p> {
        let mut target_names = Vec::new();
        let step = prepare(expr, my, &mut target_names);
        let kernel = Kernel::compile(&step);
        Prepared { options, my, step, kernel, target_names }
    }

    /// Prepares `my`'s attribute `name` (UNDEFINED if it has none).
    pub fn attribute(options: &'p EvalOptions, my: &'p ClassAd, name: impl Into<Name>) -> Prepared<'p> {
        let expr = my.lookup(name).unwrap_or(&UNDEFINED);
        Prepared::new(options, my, expr)
    }

    /// The value against `target`.
    pub fn eval(&self, target: &ClassAd) -> Value {
        self.run(target, |v| v.into_value())
    }

    /// True when the value against `target` is `true` or a non-zero number.
    pub fn is_true(&self, target: &ClassAd) -> bool {
        self.run(target, |v| v.truth() == Some(true))
    }

    /// The positions in `targets` of the ads for which the expression is
    /// true.
    pub fn matching(&self, targets: &[ClassAd]) -> Vec<usize> {
        let mut found = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            if let Some(ahead) = targets.get(i + PREFETCH_AHEAD) {
                for name in &self.target_names {
                    ahead.prefetch(*name);
                }
            }
            if self.is_true(target) {
                found.push(i);
            }
        }
        found
    }

    fn run<R>(&self, target: &ClassAd, finish: impl for<'a> FnOnce(Val<'a>) -> R) -> R {
        if let Some(truth) = self.kernel.as_ref().and_then(|kernel| kernel.truth(target)) {
            return finish(truth.value());
        }
        let my_frame = Frame { ad: self.my, parent: None, side: Side::My };
        let target_frame = Frame { ad: target, parent: None, side: Side::Target };
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), Some(&target_frame));
        let value = ev.step(&self.step, &my_frame, &target_frame);
        finish(if ev.failed() { Val::Error } else { value })
    }
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("target_names", &self.target_names)
            .field("kernel", &self.kernel.is_some())
            .finish_non_exhaustive()
    }
}

/// Builds the step for `expr`, evaluated in `my`'s scope.
fn prepare<'p>(expr: &'p Expr, my: &'p ClassAd, targets: &mut Vec<Name>) -> Step<'p> {
    let node = match &expr.0 {
        Repr::Lit(_) => return Step::Literal(expr),
        Repr::Node(node) => &node.node,
    };
    let mut sub = |e: &'p Expr| Box::new(prepare(e, my, targets));
    match node {
        Node::Paren(inner) => *sub(inner),
        // An attribute of MY with a literal value is that value, under
        // either semantics (MY's own attributes come first in both).
        Node::Attr(name) if !name.is_reserved() => match my.lookup_name(*name) {
            Some(value @ Expr(Repr::Lit(_))) => Step::Literal(value),
            _ => Step::Whole(expr),
        },
        // TARGET.x: unless MY itself defines TARGET (or other), it names
        // the target ad, where a non-reserved x is a plain lookup.
        Node::Select(base, name) if !name.is_reserved() => match base.as_node() {
            Some(Node::Attr(scope))
                if matches!(scope.symbol(), reserved::TARGET | reserved::OTHER) && !my.may_define(*scope) =>
            {
                if !targets.contains(name) {
                    targets.push(*name);
                }
                Step::Target(*name)
            }
            _ => Step::Whole(expr),
        },
        Node::Unary(op, operand) => Step::Unary(*op, sub(operand)),
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
            let items = operands.into_iter().rev().map(|e| prepare(e, my, targets)).collect();
            Step::Chain { dominant: *op == BinaryOp::Or, items }
        }
        Node::Binary(op, a, b) => {
            let a = sub(a);
            let b = sub(b);
            match (*a, *b) {
                (Step::Target(name), Step::Literal(literal)) if fusable(*op) => {
                    Step::Compare { op: *op, name, literal, target_first: true }
                }
                (Step::Literal(literal), Step::Target(name)) if fusable(*op) => {
                    Step::Compare { op: *op, name, literal, target_first: false }
                }
                (a, b) => Step::Binary(*op, Box::new(a), Box::new(b)),
            }
        }
        Node::Cond(c, a, b) => {
            let c = sub(c);
            let a = sub(a);
            Step::Cond(c, a, sub(b))
        }
        Node::Elvis(a, b) => {
            let a = sub(a);
            Step::Elvis(a, sub(b))
        }
        _ => Step::Whole(expr),
    }
}

/// The operators [`Step::Compare`] evaluates with [`ops::binary`].
fn fusable(op: BinaryOp) -> bool {
    !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Is | BinaryOp::Isnt)
}

impl<'a> Evaluator<'a> {
    /// The value of the target's attribute `name`.
    fn target_attribute(&mut self, name: Name, target: &'a Frame<'a>) -> Val<'a> {
        match target.ad.lookup_name(name) {
            Some(expr) => self.eval_attribute(expr, target),
            None => Val::Undefined,
        }
    }

    /// Evaluates a prepared step with `my` and `target` as the match.
    fn step(&mut self, step: &'a Step<'a>, my: &'a Frame<'a>, target: &'a Frame<'a>) -> Val<'a> {
        match step {
            Step::Literal(expr) => self.eval(expr, my),
            Step::Target(name) => self.target_attribute(*name, target),
            Step::Compare { op, name, literal, target_first } => {
                let value = self.target_attribute(*name, target);
                let literal = self.eval(literal, my);
                if *target_first {
                    ops::binary(*op, value, literal)
                } else {
                    ops::binary(*op, literal, value)
                }
            }
            Step::Chain { dominant, items } => {
                let mut value: Option<Val<'a>> = None;
                for item in items.iter() {
                    value = Some(match value {
                        None => self.step(item, my, target),
                        Some(left) => ops::logical(*dominant, left, || self.step(item, my, target)),
                    });
                }
                value.unwrap_or(Val::Undefined)
            }
            Step::Whole(expr) => self.eval(expr, my),
            Step::Unary(op, operand) => {
                let v = self.step(operand, my, target);
                ops::unary(*op, v)
            }
            Step::Binary(op, a, b) => match op {
                BinaryOp::And | BinaryOp::Or => {
                    let dominant = *op == BinaryOp::Or;
                    let left = self.step(a, my, target);
                    ops::logical(dominant, left, || self.step(b, my, target))
                }
                BinaryOp::Is | BinaryOp::Isnt => {
                    let a = self.step(a, my, target);
                    let b = self.step(b, my, target);
                    match ops::identical(&a, &b) {
                        Val::Bool(same) => Val::Bool(same == (*op == BinaryOp::Is)),
                        other => other,
                    }
                }
                _ => {
                    let a = self.step(a, my, target);
                    let b = self.step(b, my, target);
                    ops::binary(*op, a, b)
                }
            },
            Step::Cond(c, then, otherwise) => {
                let cond = self.step(c, my, target);
                match super::branch(cond) {
                    Ok(true) => self.step(then, my, target),
                    Ok(false) => self.step(otherwise, my, target),
                    Err(value) => value,
                }
            }
            Step::Elvis(a, b) => match self.step(a, my, target) {
                Val::Undefined => self.step(b, my, target),
                v => v,
            },
        }
    }
}

impl EvalContext<'_> {
    /// Prepares `expr` of this context's MY ad for evaluation against many
    /// targets (see [`Prepared`]); `None` without a MY ad.
    pub fn prepare<'p>(&'p self, expr: &'p Expr) -> Option<Prepared<'p>> {
        Some(Prepared::new(self.options, self.my?, expr))
    }
}
