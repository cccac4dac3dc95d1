//! One linting of one expression: the walk of its tree, the constant
//! conditions and the constant ERROR parts.

use std::collections::HashSet;

use crate::ad::ClassAd;
use crate::builtins::Purity;
use crate::expr::{BinaryOp, Call, Expr, Node};
use crate::value::Value;

use super::reference::{strip, Scope};
use super::{Finding, Kind, Linter};

/// A walked child: whether it refers to anything, and whether it has no
/// finding.
struct Child<'e> {
    expr: &'e Expr,
    refers: bool,
    clean: bool,
}

/// Where a sub-expression sits.
#[derive(Clone, Copy, Default)]
pub(super) struct Context {
    /// The operator directly above, when it is a binary one.
    parent: Option<BinaryOp>,
    /// Names here are looked up in other ads (the first argument of
    /// `evalInEachContext`, a nested ad's attributes): not checked.
    foreign: bool,
}

/// One linting of one expression.
pub(super) struct Pass<'l, 'r, 'm> {
    pub(super) linter: &'l Linter<'r>,
    pub(super) my: Option<&'m ClassAd>,
    /// The symbols of the names the expression tests for UNDEFINED
    /// somewhere: references to them are deliberate.
    pub(super) guarded: HashSet<u32>,
    /// Names already reported unknown (once each), by symbol.
    pub(super) reported_names: HashSet<u32>,
    pub(super) findings: Vec<Finding>,
}

impl Pass<'_, '_, '_> {
    pub(super) fn report(&mut self, kind: Kind, expr: &Expr, message: String, suggestion: Option<String>) {
        self.findings.push(Finding { kind, message, expr: expr.to_string(), suggestion });
    }

    /// The conditions of the top-level `&&`/`||` chain that are constant.
    pub(super) fn conditions(&mut self, expr: &Expr) {
        let Some(Node::Binary(op @ (BinaryOp::And | BinaryOp::Or), ..)) = strip(expr).as_node() else {
            return;
        };
        let mut stack = vec![expr];
        let mut conditions = Vec::new();
        while let Some(e) = stack.pop() {
            match strip(e).as_node() {
                Some(Node::Binary(inner, a, b)) if inner == op => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => conditions.push(e),
            }
        }
        for condition in conditions {
            // ERROR and UNDEFINED conditions are reported by the checks
            // that explain them.
            let Some(value) = constant(condition).filter(|v| !v.is_error() && !v.is_undefined()) else {
                continue;
            };
            let (name, neutral) = if *op == BinaryOp::And { ("&&", true) } else { ("||", false) };
            let truth = match value {
                Value::Bool(b) => Some(b),
                Value::Int(i) => Some(i != 0),
                Value::Real(r) => Some(r != 0.0),
                _ => None,
            };
            let effect = match truth {
                Some(b) if b == neutral => "has no effect".to_owned(),
                Some(_) => format!("decides the whole `{name}` chain"),
                None => continue,
            };
            self.report(
                Kind::ConstantCondition,
                condition,
                format!("this condition is always {value} whatever the ads say, so it {effect}"),
                None,
            );
        }
    }

    /// Walks the tree; returns whether `expr` refers to anything (an
    /// attribute, the clock, chance) rather than being a constant.
    pub(super) fn walk(&mut self, expr: &Expr, context: Context) -> bool {
        let Some(node) = expr.as_node() else {
            return false;
        };
        let inner = Context { parent: None, ..context };
        let refers = match node {
            Node::Binary(op, a, b) => {
                self.binary(expr, *op, a, b, context.parent);
                let child = Context { parent: Some(*op), ..context };
                let children = [self.child(a, child), self.child(b, child)];
                self.constant_children(&children)
            }
            Node::Unary(op, operand) => {
                self.unary(expr, *op, operand);
                self.walk(operand, inner)
            }
            Node::Paren(e) => self.walk(e, inner),
            Node::Cond(c, t, e) => {
                self.condition_operand(c, "the condition of `?:`");
                let children = [self.child(c, inner), self.child(t, inner), self.child(e, inner)];
                self.constant_children(&children)
            }
            Node::Call(call) => self.call(expr, call, context),
            Node::Attr(name) => {
                if !context.foreign {
                    self.attribute(expr, *name, Scope::Unscoped);
                }
                true
            }
            Node::RootAttr(_) => true,
            Node::Select(base, name) => {
                match base.as_node() {
                    Some(Node::Attr(scope)) if scope.is("TARGET") || scope.is("other") => {
                        if !context.foreign {
                            self.attribute(expr, *name, Scope::Target);
                        }
                    }
                    Some(Node::Attr(scope)) if scope.is("MY") => {
                        if !context.foreign {
                            self.attribute(expr, *name, Scope::My);
                        }
                    }
                    _ => {
                        self.walk(base, inner);
                    }
                }
                true
            }
            Node::Record(_) => {
                // A nested ad's attributes are looked up in it first.
                let foreign = Context { parent: None, foreign: true };
                let mut any = false;
                for child in node.children() {
                    any |= self.walk(child, foreign);
                }
                any
            }
            Node::Index(..) | Node::Elvis(..) | Node::List(_) => {
                let children: Vec<Child<'_>> = node.children().map(|child| self.child(child, inner)).collect();
                self.constant_children(&children)
            }
        };
        refers
    }

    fn call(&mut self, expr: &Expr, call: &Call, context: Context) -> bool {
        let name = call.name();
        let args = call.args();
        match call.builtin().map(|id| id.builtin().arity) {
            Some(arity) if !arity.accepts(args.len()) => self.report(
                Kind::Arity,
                expr,
                format!("{name}() takes {arity} arguments, not {}: the call is always ERROR", args.len()),
                None,
            ),
            Some(_) => {}
            None if crate::functions::is_registered(name.as_str()) => {}
            None => self.report(
                Kind::UnknownFunction,
                expr,
                format!("there is no function {name}(): the call is always ERROR"),
                None,
            ),
        }
        if name.is("ifThenElse") {
            if let Some(condition) = args.first() {
                self.condition_operand(condition, "the condition of ifThenElse()");
            }
        }
        // evalInEachContext(expr, ads) and countMatches(expr, ads) evaluate
        // `expr` in the ads of the list.
        let each = name.is("evalInEachContext") || name.is("countMatches");
        let children: Vec<Child<'_>> = args
            .iter()
            .enumerate()
            .map(|(i, arg)| self.child(arg, Context { parent: None, foreign: context.foreign || (each && i == 0) }))
            .collect();
        self.constant_children(&children) || is_impure(call)
    }

    /// Walks a child of a node.
    fn child<'e>(&mut self, expr: &'e Expr, context: Context) -> Child<'e> {
        let before = self.findings.len();
        let refers = self.walk(expr, context);
        Child { expr, refers, clean: self.findings.len() == before }
    }

    /// Whether any of a node's children refers to something; when one
    /// does, each constant child that is not a literal and has no finding
    /// of its own is checked for being ERROR.
    fn constant_children(&mut self, children: &[Child<'_>]) -> bool {
        let refers = children.iter().any(|c| c.refers);
        if refers {
            for child in children {
                if !child.refers && child.clean {
                    self.constant_error(child.expr);
                }
            }
        }
        refers
    }

    /// Reports `expr`, which refers to nothing, when it is ERROR.
    pub(super) fn constant_error(&mut self, expr: &Expr) {
        if strip(expr).as_literal().is_some() {
            return;
        }
        if expr.eval().is_error() {
            self.report(Kind::ConstantError, expr, "this part refers to nothing and is always ERROR".to_owned(), None);
        }
    }
}

/// Functions of the clock, chance, the environment or text: calls that are
/// not constant even on constant arguments.
fn is_impure(call: &Call) -> bool {
    call.builtin().is_some_and(|id| id.builtin().purity == Purity::Varying)
}

/// The value of an expression that refers to nothing (no attribute, no
/// function of the clock or chance): what it always is.
fn constant(expr: &Expr) -> Option<Value> {
    fn refers(expr: &Expr) -> bool {
        match expr.as_node() {
            None => false,
            Some(Node::Attr(_) | Node::RootAttr(_) | Node::Select(..)) => true,
            Some(Node::Call(call)) => is_impure(call) || call.args().iter().any(refers),
            Some(node) => node.children().any(refers),
        }
    }
    // A bare literal is a deliberate constant (`START = true`), not a
    // mistake.
    if strip(expr).as_literal().is_some() || refers(expr) {
        return None;
    }
    Some(expr.eval())
}
