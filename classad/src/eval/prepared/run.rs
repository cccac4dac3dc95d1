//! Running prepared steps: a step's value, and its truth where only
//! the truth matters, with a match's two ads.

use super::kernel::{self, Truth};
use super::step::{items, Step, StepId};
use crate::eval::ops;
use crate::eval::val::Val;
use crate::eval::{Evaluator, Frame};
use crate::expr::{BinaryOp, Expr, Literal, UnaryOp};
use crate::name::Name;

/// What evaluating a prepared step needs besides the step: the other
/// steps of its expression, and the match's two ads.
#[derive(Clone, Copy)]
pub(super) struct Cx<'a> {
    pub(super) steps: &'a [Step],
    pub(super) my: &'a Frame<'a>,
    pub(super) target: &'a Frame<'a>,
}

impl<'a> Cx<'a> {
    /// The operand step `id`.
    #[inline]
    fn at(self, id: StepId) -> &'a Step {
        &self.steps[id as usize]
    }

    /// The key of MY's attribute `name` in the interpreter's cycle
    /// detection: the address of its expression (as preparing found it).
    fn attribute_key(self, name: Name) -> usize {
        self.my.ad.lookup_name(name).map_or(0, |found| found as *const Expr as usize)
    }

    /// The target's attribute `name` when it is a literal (UNDEFINED when
    /// it is missing).
    #[inline]
    fn target_literal(self, name: Name) -> Option<&'a Literal> {
        kernel::target_literal(name, self.target.ad)
    }
}

impl<'a> Evaluator<'a> {
    /// The value of the target's attribute `name`.
    fn target_attribute(&mut self, name: Name, target: &'a Frame<'a>) -> Val<'a> {
        match target.ad.lookup_name(name) {
            Some(expr) => self.eval_attribute(expr, target),
            None => Val::Undefined,
        }
    }

    /// Evaluates a prepared step with `cx`'s ads as the match.
    pub(super) fn step(&mut self, step: &'a Step, cx: Cx<'a>) -> Val<'a> {
        match step {
            Step::Literal(literal) => Val::from_literal(literal),
            Step::Target(name) => self.target_attribute(*name, cx.target),
            Step::Compare { op, name, literal, target_first } => {
                let value = self.target_attribute(*name, cx.target);
                let literal = Val::from_literal(literal);
                if *target_first {
                    ops::binary(*op, value, literal)
                } else {
                    ops::binary(*op, literal, value)
                }
            }
            Step::Chain { dominant, first, len } => {
                let mut value: Option<Val<'a>> = None;
                for item in items(cx.steps, *first, *len) {
                    value = Some(match value {
                        None => self.step(item, cx),
                        Some(left) => ops::logical(*dominant, left, || self.step(item, cx)),
                    });
                }
                value.unwrap_or(Val::Undefined)
            }
            Step::Whole(expr) => self.eval(expr, cx.my),
            Step::Unary(op, operand) => {
                let v = self.step(cx.at(*operand), cx);
                ops::unary(*op, v)
            }
            Step::Binary(op, a, b) => match op {
                BinaryOp::And | BinaryOp::Or => {
                    let dominant = *op == BinaryOp::Or;
                    let left = self.step(cx.at(*a), cx);
                    ops::logical(dominant, left, || self.step(cx.at(*b), cx))
                }
                BinaryOp::Is | BinaryOp::Isnt => {
                    let a = self.step(cx.at(*a), cx);
                    let b = self.step(cx.at(*b), cx);
                    match ops::identical(&a, &b) {
                        Val::Bool(same) => Val::Bool(same == (*op == BinaryOp::Is)),
                        other => other,
                    }
                }
                _ => {
                    let a = self.step(cx.at(*a), cx);
                    let b = self.step(cx.at(*b), cx);
                    ops::binary(*op, a, b)
                }
            },
            Step::Cond(c, then, otherwise) => {
                let cond = self.step(cx.at(*c), cx);
                match crate::eval::branch(cond) {
                    Ok(true) => self.step(cx.at(*then), cx),
                    Ok(false) => self.step(cx.at(*otherwise), cx),
                    Err(value) => value,
                }
            }
            Step::IsType(test, arg) => {
                let value = self.step(cx.at(*arg), cx);
                Val::Bool(test.holds(&value))
            }
            Step::Elvis(a, b) => match self.step(cx.at(*a), cx) {
                Val::Undefined => self.step(cx.at(*b), cx),
                v => v,
            },
            Step::Within(name, body) => {
                self.active.push(cx.attribute_key(*name));
                let value = self.step(cx.at(*body), cx);
                self.active.pop();
                value
            }
        }
    }

    /// The truth of a prepared step: what `&&`, `||`, `!`, a conditional
    /// and a match see of its value ([`Truth::of`]). Conditions are
    /// computed as truths, reading literal target values in place, and
    /// other steps are evaluated and their values' truth taken, so the
    /// result is always the truth of [`step`](Self::step)'s value.
    pub(super) fn step_truth(&mut self, step: &'a Step, cx: Cx<'a>) -> Truth {
        match step {
            Step::Literal(literal) => Truth::of(&Val::from_literal(literal)),
            Step::Target(name) => match cx.target_literal(*name) {
                Some(literal) => Truth::of(&Val::from_literal(literal)),
                None => Truth::of(&self.step(step, cx)),
            },
            Step::Compare { op, name, literal, target_first } if kernel::compares(*op) => {
                match cx.target_literal(*name) {
                    Some(value) if *target_first => kernel::test(*op, value, literal),
                    Some(value) => kernel::test(*op, literal, value),
                    None => Truth::of(&self.step(step, cx)),
                }
            }
            Step::Binary(op, a, b) if kernel::compares(*op) => match (cx.at(*a), cx.at(*b)) {
                (Step::Target(name), Step::Literal(literal)) => match cx.target_literal(*name) {
                    Some(value) => kernel::test(*op, value, literal),
                    None => Truth::of(&self.step(step, cx)),
                },
                (Step::Literal(literal), Step::Target(name)) => match cx.target_literal(*name) {
                    Some(value) => kernel::test(*op, literal, value),
                    None => Truth::of(&self.step(step, cx)),
                },
                _ => Truth::of(&self.step(step, cx)),
            },
            // A chain of one operand is that operand's value.
            Step::Chain { dominant, first, len } => match items(cx.steps, *first, *len).split_first() {
                None => Truth::Undefined,
                Some((first, rest)) => {
                    let mut left = self.step_truth(first, cx);
                    for item in rest {
                        if left.decides(*dominant) {
                            break;
                        }
                        left = Truth::combine(*dominant, left, self.step_truth(item, cx));
                    }
                    left
                }
            },
            Step::Unary(UnaryOp::Not, operand) => match self.step_truth(cx.at(*operand), cx) {
                Truth::False => Truth::True,
                Truth::True => Truth::False,
                other => other,
            },
            Step::Cond(c, then, otherwise) => match self.step_truth(cx.at(*c), cx) {
                Truth::True => self.step_truth(cx.at(*then), cx),
                Truth::False => self.step_truth(cx.at(*otherwise), cx),
                other => other,
            },
            // Only an UNDEFINED value has an UNDEFINED truth.
            Step::Elvis(a, b) => match self.step_truth(cx.at(*a), cx) {
                Truth::Undefined => self.step_truth(cx.at(*b), cx),
                truth => truth,
            },
            Step::IsType(test, arg) => {
                let arg = cx.at(*arg);
                let holds = match arg {
                    Step::Target(name) => match cx.target_literal(*name) {
                        Some(literal) => test.holds(&Val::from_literal(literal)),
                        None => test.holds(&self.step(arg, cx)),
                    },
                    arg => test.holds(&self.step(arg, cx)),
                };
                Truth::from_bool(holds)
            }
            Step::Within(name, body) => {
                self.active.push(cx.attribute_key(*name));
                let truth = self.step_truth(cx.at(*body), cx);
                self.active.pop();
                truth
            }
            _ => Truth::of(&self.step(step, cx)),
        }
    }
}
