//! The rules on operators: comparisons with UNDEFINED, arithmetic on
//! strings, `!x == y`, `a && b || c`, `a < b < c`, mismatched types,
//! strings as conditions and booleans in bitwise operations.

use crate::expr::{BinaryOp, Expr, Literal, Node, UnaryOp};

use super::pass::Pass;
use super::reference::strip;
use super::types::Type;
use super::Kind;

impl Pass<'_, '_, '_> {
    pub(super) fn unary(&mut self, expr: &Expr, op: UnaryOp, operand: &Expr) {
        match op {
            UnaryOp::Not => self.condition_operand(operand, "the operand of `!`"),
            UnaryOp::BitNot if self.type_of(operand) == Some(Type::Boolean) => self.report(
                Kind::BitwiseLogic,
                expr,
                "`~` on a boolean is always ERROR; `!` negates a condition".to_owned(),
                Some(format!("!{operand}")),
            ),
            _ => {}
        }
    }

    /// A string where a condition is expected.
    pub(super) fn condition_operand(&mut self, operand: &Expr, role: &str) {
        if self.type_of(operand) == Some(Type::String) {
            let message = if strip(operand).as_literal().is_some() {
                format!("a string as {role} is always ERROR (was a comparison meant?)")
            } else {
                format!("{role} is a string, which is always ERROR as a condition")
            };
            self.report(Kind::StringCondition, operand, message, None);
        }
    }

    pub(super) fn binary(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr, parent: Option<BinaryOp>) {
        use BinaryOp::*;
        // x == UNDEFINED
        if is_comparison(op) {
            for (side, other) in [(a, b), (b, a)] {
                if let Some(literal @ (Literal::Undefined | Literal::Error)) = strip(side).as_literal() {
                    let what = if matches!(literal, Literal::Undefined) { "UNDEFINED" } else { "ERROR" };
                    let (message, suggestion) = if matches!(op, Eq | Ne) {
                        let meta = if op == Eq { "=?=" } else { "=!=" };
                        (
                            format!(
                                "`{}` with {what} is always {what}, never true or false; `{meta}` tests whether {other} is {what}",
                                op.symbol()
                            ),
                            Some(format!("{a} {meta} {b}")),
                        )
                    } else {
                        (format!("`{}` with {what} is always {what}, never true or false", op.symbol()), None)
                    };
                    self.report(Kind::UndefinedComparison, expr, message, suggestion);
                    return;
                }
            }
        }
        match op {
            And | Or => {
                let role = format!("an operand of `{}`", op.symbol());
                self.condition_operand(a, &role);
                self.condition_operand(b, &role);
                if op == Or && parent != Some(Or) {
                    self.mixed_and_or(expr);
                }
            }
            Add | Sub | Mul | Div | Mod if [a, b].iter().any(|side| self.type_of(side) == Some(Type::String)) => {
                let trap = parent.is_some_and(is_comparison);
                let message = if trap {
                    format!(
                        "`{}` binds tighter than the comparison above it, so this is arithmetic on a string, always ERROR; parenthesize the comparison if it was meant to be scaled",
                        op.symbol()
                    )
                } else {
                    "arithmetic on a string is always ERROR".to_owned()
                };
                self.report(Kind::StringArithmetic, expr, message, None);
            }
            BitAnd | BitOr | BitXor | Shl | Shr | UShr
                if [a, b].iter().any(|side| self.type_of(side) == Some(Type::Boolean)) =>
            {
                let logical = match op {
                    BitAnd => Some("&&"),
                    BitOr => Some("||"),
                    _ => None,
                };
                let message = match logical {
                    Some(logical) => {
                        format!("`{}` on a boolean is always ERROR; `{logical}` combines conditions", op.symbol())
                    }
                    None => format!("`{}` on a boolean is always ERROR", op.symbol()),
                };
                let suggestion = logical.map(|logical| format!("{a} {logical} {b}"));
                self.report(Kind::BitwiseLogic, expr, message, suggestion);
            }
            _ => {}
        }
        if !is_comparison(op) {
            if matches!(op, Is | Isnt) {
                self.case_sensitive(expr, op, a, b);
            }
            return;
        }
        // !x == y
        if let Some(Node::Unary(UnaryOp::Not, operand)) = a.as_node() {
            self.report(
                Kind::NegatedComparison,
                expr,
                format!("`!` applies to {operand} alone, not to the comparison"),
                Some(format!("!({operand} {} {b})", op.symbol())),
            );
            return;
        }
        // 1 < x < 10
        if let Some(Node::Binary(inner, x, y)) = a.as_node() {
            if is_relational(op) && is_relational(*inner) {
                self.report(
                    Kind::ChainedComparison,
                    expr,
                    format!(
                        "this is ({a}) {} {b}: the boolean {a} (0 or 1) compared with {b}, not a range test",
                        op.symbol()
                    ),
                    Some(format!("{x} {} {y} && {y} {} {b}", inner.symbol(), op.symbol())),
                );
                return;
            }
        }
        // "x" < 3
        if let (Some(ta), Some(tb)) = (self.type_of(a), self.type_of(b)) {
            let kind = match (ta, tb) {
                (Type::String, Type::Number) | (Type::Number, Type::String) => Kind::StringNumberComparison,
                (Type::String, Type::Boolean) | (Type::Boolean, Type::String) => Kind::StringBooleanComparison,
                _ => return,
            };
            self.report(
                kind,
                expr,
                format!(
                    "{} compared with {} with `{}` is ERROR whenever both are defined",
                    ta.article(),
                    tb.article(),
                    op.symbol()
                ),
                None,
            );
        }
    }

    /// `a && b || c`: an `||` chain (`expr`, the top of it) with an
    /// unparenthesized `&&` operand.
    fn mixed_and_or(&mut self, expr: &Expr) {
        let mut operands = Vec::new();
        let mut stack = vec![expr];
        while let Some(e) = stack.pop() {
            match e.as_node() {
                Some(Node::Binary(BinaryOp::Or, a, b)) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => operands.push(e),
            }
        }
        let is_and = |e: &Expr| matches!(e.as_node(), Some(Node::Binary(BinaryOp::And, ..)));
        if !operands.iter().any(|e| is_and(e)) {
            return;
        }
        let explicit: Vec<String> =
            operands.iter().map(|e| if is_and(e) { format!("({e})") } else { e.to_string() }).collect();
        let explicit = explicit.join(" || ");
        self.report(
            Kind::MixedAndOr,
            expr,
            format!("`&&` binds tighter than `||`, so this is {explicit}; parenthesize to say which grouping is meant"),
            Some(explicit),
        );
    }
}

fn is_comparison(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Eq | BinaryOp::Ne) || is_relational(op)
}

fn is_relational(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
}
