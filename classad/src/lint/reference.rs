//! Attribute references as the linter sees them: where `x`, `MY.x` and
//! `TARGET.x` look, and expressions without their parentheses.

use crate::expr::{Expr, Node};
use crate::name::Name;

/// Where an attribute reference looks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// `x`: the expression's ad, then the other.
    Unscoped,
    /// `MY.x`
    My,
    /// `TARGET.x`, `other.x`
    Target,
}

/// `x`, `MY.x`, `TARGET.x` as where it looks and the name.
pub(super) fn reference_of(expr: &Expr) -> Option<(Scope, Name)> {
    reference_of_node(expr.as_node()?)
}

pub(super) fn reference_of_node(node: &Node) -> Option<(Scope, Name)> {
    match node {
        Node::Attr(name) => Some((Scope::Unscoped, *name)),
        Node::Select(base, name) => match base.as_node()? {
            Node::Attr(scope) if scope.is("MY") => Some((Scope::My, *name)),
            Node::Attr(scope) if scope.is("TARGET") || scope.is("other") => Some((Scope::Target, *name)),
            _ => None,
        },
        _ => None,
    }
}

/// `expr` without its parentheses.
pub(super) fn strip(mut expr: &Expr) -> &Expr {
    while let Some(Node::Paren(inner)) = expr.as_node() {
        expr = inner;
    }
    expr
}
