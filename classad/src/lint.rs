//! A linter for policy expressions: the mistakes that make a
//! `Requirements`, `START` or `Rank` quietly do something other than what
//! its author meant.
//!
//! | kind | what it finds |
//! |---|---|
//! | `undefined-comparison` | `x == UNDEFINED`, `x != UNDEFINED` (and ERROR): always UNDEFINED (or ERROR), never true or false; `=?=` / `=!=` test for it |
//! | `string-arithmetic` | arithmetic on a string literal, always ERROR; when under a comparison (`Owner == "coltrane" * 1000000000000`, the manual's example) it is the precedence trap of writing `a == b * c` for `(a == b) * c` |
//! | `negated-comparison` | `!x == y`, which is `(!x) == y`, not `!(x == y)` |
//! | `string-number-comparison` | a string compared with a number with `==`, `<`, ...: always ERROR. A side counts as a number or a string when it is a literal, or an attribute whose values in the reference ads all are |
//! | `unknown-function` | a call of a function that is neither built in nor registered: always ERROR |
//! | `arity` | a built-in called with a number of arguments it does not take: always ERROR |
//! | `constant-condition` | a condition of a top-level `&&` or `\|\|` that is the same whatever the ads say (`1 == 2`, `x > 3 \|\| true`): dead policy |
//! | `unknown-attribute` | a reference to an attribute that no ad of the reference set defines (only with reference ads): usually a typo |
//!
//! ```
//! use classad::lint::{lint, Kind, LintOptions};
//!
//! let expr = r#"RemoteUserPrio == UNDEFINED || Owner == "coltrane" * 1000000000000"#.parse()?;
//! let findings = lint(&expr, &LintOptions::default());
//! let kinds: Vec<Kind> = findings.iter().map(|f| f.kind).collect();
//! assert_eq!(kinds, [Kind::UndefinedComparison, Kind::StringArithmetic]);
//! assert_eq!(findings[0].suggestion.as_deref(), Some("RemoteUserPrio =?= undefined"));
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::fmt;

use crate::ad::ClassAd;
use crate::eval::{EvalContext, EvalOptions};
use crate::expr::{BinaryOp, Expr, Literal, Node, UnaryOp};
use crate::value::Value;

/// What a finding is about; the names are stable (they are the `kind` of
/// `classad lint --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `x == UNDEFINED` or `x != UNDEFINED` (or ERROR).
    UndefinedComparison,
    /// Arithmetic on a string literal.
    StringArithmetic,
    /// `!x == y`.
    NegatedComparison,
    /// A string compared with a number.
    StringNumberComparison,
    /// A call of a function that does not exist.
    UnknownFunction,
    /// A built-in called with the wrong number of arguments.
    Arity,
    /// A condition of a top-level chain that is constant.
    ConstantCondition,
    /// An attribute no reference ad defines.
    UnknownAttribute,
}

impl Kind {
    /// The stable name: `undefined-comparison`, ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::UndefinedComparison => "undefined-comparison",
            Kind::StringArithmetic => "string-arithmetic",
            Kind::NegatedComparison => "negated-comparison",
            Kind::StringNumberComparison => "string-number-comparison",
            Kind::UnknownFunction => "unknown-function",
            Kind::Arity => "arity",
            Kind::ConstantCondition => "constant-condition",
            Kind::UnknownAttribute => "unknown-attribute",
        }
    }

    /// How bad it is: an error is always wrong (the expression or part of
    /// it can only be ERROR or UNDEFINED); a warning is very likely wrong.
    pub fn severity(self) -> Severity {
        match self {
            Kind::UndefinedComparison
            | Kind::StringArithmetic
            | Kind::StringNumberComparison
            | Kind::UnknownFunction
            | Kind::Arity => Severity::Error,
            Kind::NegatedComparison | Kind::ConstantCondition | Kind::UnknownAttribute => Severity::Warning,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Very likely a mistake.
    Warning,
    /// Always wrong: that part can only be ERROR or UNDEFINED.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem found.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// What kind of problem it is.
    pub kind: Kind,
    /// What is wrong, for a person.
    pub message: String,
    /// The part of the expression concerned, in canonical syntax.
    pub expr: String,
    /// A replacement for [`expr`](Finding::expr), when there is an obvious
    /// one.
    pub suggestion: Option<String>,
}

impl Finding {
    /// The finding's severity (from its kind).
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

/// What the linter knows besides the expression.
#[derive(Clone, Copy, Debug, Default)]
pub struct LintOptions<'r> {
    /// The ad the expression belongs to (its own attributes are known).
    pub my: Option<&'r ClassAd>,
    /// Ads the expression will meet (machines for a job's `Requirements`,
    /// jobs for a `START`): attributes none of them (nor `my`) defines are
    /// reported, and their values' types inform the comparison check.
    /// Empty: no attribute is reported unknown.
    pub reference: &'r [ClassAd],
}

/// The findings for `expr`, in the order their parts are written.
pub fn lint(expr: &Expr, options: &LintOptions<'_>) -> Vec<Finding> {
    let mut linter = Linter { options, findings: Vec::new(), reported_names: Vec::new() };
    linter.conditions(expr);
    linter.walk(expr, None);
    linter.findings
}

struct Linter<'o, 'r> {
    options: &'o LintOptions<'r>,
    findings: Vec<Finding>,
    /// Attribute names already reported unknown (once each).
    reported_names: Vec<String>,
}

/// What type a side of a comparison has for sure, if any.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Type {
    Number,
    String,
}

impl Linter<'_, '_> {
    fn report(&mut self, kind: Kind, expr: &Expr, message: String, suggestion: Option<String>) {
        self.findings.push(Finding { kind, message, expr: expr.to_string(), suggestion });
    }

    /// The conditions of the top-level `&&`/`||` chain that are constant.
    fn conditions(&mut self, expr: &Expr) {
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
            if let Some(value) = constant(condition) {
                let (name, neutral) = if *op == BinaryOp::And { ("&&", true) } else { ("||", false) };
                let effect = match value {
                    Value::Bool(b) if b == neutral => "has no effect".to_owned(),
                    Value::Bool(_) => format!("decides the whole `{name}` chain"),
                    _ => format!("makes the chain {value} or decides it"),
                };
                self.report(
                    Kind::ConstantCondition,
                    condition,
                    format!("this condition is always {value} whatever the ads say, so it {effect}"),
                    None,
                );
            }
        }
    }

    /// Walks the tree; `parent` is the operator directly above.
    fn walk(&mut self, expr: &Expr, parent: Option<BinaryOp>) {
        let Some(node) = expr.as_node() else {
            return;
        };
        match node {
            Node::Binary(op, a, b) => {
                self.binary(expr, *op, a, b, parent);
                self.walk(a, Some(*op));
                self.walk(b, Some(*op));
            }
            Node::Paren(inner) => self.walk(inner, None),
            Node::Call(call) => {
                let name = call.name();
                match crate::functions::arity(name.as_str()) {
                    Some(arity) if !arity.accepts(call.args().len()) => self.report(
                        Kind::Arity,
                        expr,
                        format!(
                            "{}() takes {arity} arguments, not {}: the call is always ERROR",
                            name,
                            call.args().len()
                        ),
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
                for arg in call.args() {
                    self.walk(arg, None);
                }
            }
            Node::Attr(name) => self.attribute(expr, name.as_str(), false),
            Node::Select(base, name) => match base.as_node() {
                Some(Node::Attr(scope)) if is_scope(scope.as_str(), &["TARGET", "other"]) => {
                    self.attribute(expr, name.as_str(), true);
                }
                Some(Node::Attr(scope)) if is_scope(scope.as_str(), &["MY"]) => {
                    self.attribute(expr, name.as_str(), false);
                }
                _ => self.walk(base, None),
            },
            node => {
                for child in node.children() {
                    self.walk(child, None);
                }
            }
        }
    }

    fn binary(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr, parent: Option<BinaryOp>) {
        let comparison =
            matches!(op, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge);
        // x == UNDEFINED
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
            for (side, other) in [(a, b), (b, a)] {
                if let Some(literal @ (Literal::Undefined | Literal::Error)) = strip(side).as_literal() {
                    let meta = if op == BinaryOp::Eq { "=?=" } else { "=!=" };
                    let what = if matches!(literal, Literal::Undefined) { "UNDEFINED" } else { "ERROR" };
                    let suggestion = format!("{a} {meta} {b}");
                    self.report(
                        Kind::UndefinedComparison,
                        expr,
                        format!(
                            "`{}` with {what} is always {what}, never true or false; `{meta}` tests whether {other} is {what}",
                            op.symbol()
                        ),
                        Some(suggestion),
                    );
                    return;
                }
            }
        }
        // "coltrane" * 1000000000000
        if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod)
            && [a, b].iter().any(|side| matches!(strip(side).as_literal(), Some(Literal::Str(_))))
        {
            let trap = parent.is_some_and(|p| {
                matches!(p, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
            });
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
        // !x == y
        if comparison {
            if let Some(Node::Unary(UnaryOp::Not, operand)) = a.as_node() {
                self.report(
                    Kind::NegatedComparison,
                    expr,
                    format!("`!` applies to {operand} alone, not to the comparison"),
                    Some(format!("!({operand} {} {b})", op.symbol())),
                );
            }
        }
        // "x" < 3
        if comparison {
            if let (Some(ta), Some(tb)) = (self.type_of(a), self.type_of(b)) {
                if ta != tb {
                    self.report(
                        Kind::StringNumberComparison,
                        expr,
                        format!("a string compared with a number with `{}` is always ERROR", op.symbol()),
                        None,
                    );
                }
            }
        }
    }

    /// The type a comparison operand surely has: a literal's, or an
    /// attribute's whose values in the reference ads are all of one type.
    fn type_of(&self, expr: &Expr) -> Option<Type> {
        let expr = strip(expr);
        if let Some(literal) = expr.as_literal() {
            return match literal {
                Literal::Int(_) | Literal::Real(_) => Some(Type::Number),
                Literal::Str(_) => Some(Type::String),
                _ => None,
            };
        }
        let name = match expr.as_node()? {
            Node::Attr(name) => name.as_str(),
            Node::Select(base, name) if matches!(base.as_node(), Some(Node::Attr(s)) if is_scope(s.as_str(), &["TARGET", "other", "MY"])) => {
                name.as_str()
            }
            _ => return None,
        };
        let options = EvalOptions::new();
        let mut seen = None;
        for ad in self.options.reference {
            if !ad.contains(name) {
                continue;
            }
            let found = match EvalContext::new(&options).my(ad).eval_attr(name) {
                Value::Int(_) | Value::Real(_) => Type::Number,
                Value::Str(_) => Type::String,
                _ => return None,
            };
            if seen.is_some_and(|t| t != found) {
                return None;
            }
            seen = Some(found);
        }
        seen
    }

    /// A reference to `name` (in the other ad when `target`).
    fn attribute(&mut self, expr: &Expr, name: &str, target: bool) {
        if self.options.reference.is_empty() || crate::Name::new(name).is_reserved() {
            return;
        }
        let mine = !target && self.options.my.is_some_and(|ad| ad.contains(name));
        if mine || self.options.reference.iter().any(|ad| ad.contains(name)) {
            return;
        }
        if self.reported_names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            return;
        }
        self.reported_names.push(name.to_owned());
        let close = self
            .options
            .reference
            .iter()
            .flat_map(|ad| ad.names())
            .map(|n| n.as_str())
            .find(|candidate| near(candidate, name))
            .map(str::to_owned);
        let message = match &close {
            Some(close) => format!("no reference ad defines {name} (did you mean {close}?): it is always UNDEFINED"),
            None => format!("no reference ad defines {name}: it is always UNDEFINED"),
        };
        let suggestion = close.map(|close| expr.to_string().replace(name, &close));
        self.report(Kind::UnknownAttribute, expr, message, suggestion);
    }
}

/// `expr` without its parentheses.
fn strip(mut expr: &Expr) -> &Expr {
    while let Some(Node::Paren(inner)) = expr.as_node() {
        expr = inner;
    }
    expr
}

fn is_scope(name: &str, scopes: &[&str]) -> bool {
    scopes.iter().any(|s| s.eq_ignore_ascii_case(name))
}

/// The value of an expression that refers to nothing (no attribute, no
/// function of the clock or chance): what it always is.
fn constant(expr: &Expr) -> Option<Value> {
    fn refers(expr: &Expr) -> bool {
        match expr.as_node() {
            None => false,
            Some(Node::Attr(_) | Node::RootAttr(_) | Node::Select(..)) => true,
            Some(Node::Call(call)) => {
                let name = call.name();
                ["time", "currentTime", "random", "dayTime", "absTime", "eval", "userHome", "userMap", "debug"]
                    .iter()
                    .any(|f| name.as_str().eq_ignore_ascii_case(f))
                    || call.args().iter().any(refers)
            }
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

/// Whether two names differ by one typo: a character added, dropped or
/// changed, or two neighbours swapped (case aside).
fn near(candidate: &str, name: &str) -> bool {
    if candidate.eq_ignore_ascii_case(name) {
        return false;
    }
    let (a, b) = (candidate.to_ascii_lowercase(), name.to_ascii_lowercase());
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 1 || a.len() < 4 {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let longest = a.len().max(b.len());
    let swapped = a.len() == b.len()
        && prefix + suffix + 2 == longest
        && a.get(prefix) == b.get(prefix + 1)
        && a.get(prefix + 1) == b.get(prefix);
    prefix + suffix + 1 >= longest || swapped
}
