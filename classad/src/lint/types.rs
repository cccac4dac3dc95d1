//! The types the linter infers: from literals, operators, built-ins whose
//! result type is known and the literal values of attributes in the ads.

use crate::ad::ClassAd;
use crate::builtins::ResultType;
use crate::expr::{BinaryOp, Call, Expr, Literal, Node, UnaryOp};
use crate::name::Name;

use super::pass::Pass;
use super::reference::{reference_of_node, strip, Scope};

/// What type an expression surely has when it is neither UNDEFINED nor
/// ERROR.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Type {
    Number,
    String,
    Boolean,
}

impl Type {
    pub(super) fn article(self) -> &'static str {
        match self {
            Type::Number => "a number",
            Type::String => "a string",
            Type::Boolean => "a boolean",
        }
    }
}

pub(super) fn literal_type(literal: &Literal) -> Option<Type> {
    match literal {
        Literal::Int(_) | Literal::Real(_) => Some(Type::Number),
        Literal::Str(_) => Some(Type::String),
        Literal::Bool(_) => Some(Type::Boolean),
        _ => None,
    }
}

/// The value of `name` in `ad` when it is written as a literal (as
/// machine and job ads write nearly all their values). Attributes
/// computed by expressions are not evaluated: a hostile ad could make
/// that arbitrarily costly.
pub(super) fn literal_of(ad: &ClassAd, name: Name) -> Option<&Literal> {
    let mut expr = ad.lookup(name)?;
    while let Some(Node::Paren(inner)) = expr.as_node() {
        expr = inner;
    }
    expr.as_literal()
}

impl Pass<'_, '_, '_> {
    /// The type `expr` surely has when defined.
    pub(super) fn type_of(&self, expr: &Expr) -> Option<Type> {
        let expr = strip(expr);
        if let Some(literal) = expr.as_literal() {
            return literal_type(literal);
        }
        match expr.as_node()? {
            Node::Binary(op, a, b) => match op {
                BinaryOp::Or
                | BinaryOp::And
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Is
                | BinaryOp::Isnt
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => Some(Type::Boolean),
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => {
                    let numeric = |e: &Expr| matches!(self.type_of(e), Some(Type::Number | Type::Boolean));
                    (numeric(a) && numeric(b)).then_some(Type::Number)
                }
                _ => None,
            },
            Node::Unary(UnaryOp::Not, _) => Some(Type::Boolean),
            Node::Unary(UnaryOp::Neg | UnaryOp::Plus, operand) => {
                (self.type_of(operand) == Some(Type::Number)).then_some(Type::Number)
            }
            Node::Call(call) => builtin_type(call),
            Node::Cond(_, t, e) | Node::Elvis(t, e) => {
                let t = self.type_of(t)?;
                (self.type_of(e) == Some(t)).then_some(t)
            }
            node @ (Node::Attr(_) | Node::Select(..)) => {
                let (scope, name) = reference_of_node(node)?;
                match scope {
                    Scope::My => self.my.and_then(|my| my_type(my, name)),
                    Scope::Unscoped => match self.my {
                        Some(my) if my.contains(name) => my_type(my, name),
                        _ => self.linter.reference_type(name),
                    },
                    Scope::Target => self.linter.reference_type(name),
                }
            }
            _ => None,
        }
    }
}

/// The type of `name`'s value in `ad`.
fn my_type(ad: &ClassAd, name: Name) -> Option<Type> {
    literal_of(ad, name).and_then(literal_type)
}

/// The result type of the built-ins whose result, when defined, always
/// has one type.
fn builtin_type(call: &Call) -> Option<Type> {
    match call.builtin()?.builtin().result? {
        ResultType::String => Some(Type::String),
        ResultType::Number => Some(Type::Number),
        ResultType::Boolean => Some(Type::Boolean),
    }
}
