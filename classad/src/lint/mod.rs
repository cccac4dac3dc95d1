//! A linter for policy expressions: the mistakes that make a
//! `Requirements`, `START` or `Rank` quietly do something other than what
//! its author meant.
//!
//! | kind | severity | what it finds |
//! |---|---|---|
//! | `undefined-comparison` | error | `x == UNDEFINED`, `x != UNDEFINED` (and ERROR, and `<`, `>`, ...): always UNDEFINED (or ERROR), never true or false; `=?=` / `=!=` test for it |
//! | `string-arithmetic` | error | arithmetic on a string, always ERROR; when under a comparison (`Owner == "coltrane" * 1000000000000`, the manual's example) it is the precedence trap of writing `a == b * c` for `(a == b) * c` |
//! | `negated-comparison` | warning | `!x == y`, which is `(!x) == y`, not `!(x == y)` |
//! | `mixed-and-or` | warning | `&&` and `\|\|` in one chain without parentheses (`Memory > 1024 && OpSys == "LINUX" \|\| Arch == "X86_64"`): `&&` binds tighter, so this is `(a && b) \|\| c`, rarely what was meant; parenthesize either way to say which |
//! | `chained-comparison` | warning | `1 < x < 10`, which is `(1 < x) < 10`: a boolean compared with a number, true whatever `x` is |
//! | `string-number-comparison` | error | a string compared with a number with `==`, `<`, ...: ERROR whenever both are defined |
//! | `string-boolean-comparison` | error | a string compared with a boolean (`HasDocker == "true"`): ERROR whenever both are defined |
//! | `string-condition` | error | a string as an operand of `&&`, `\|\|`, `!` or as the condition of `?:` / `ifThenElse` (`OpSys == "LINUX" \|\| "WINDOWS"`): ERROR |
//! | `bitwise-logic` | error | a boolean operand of `&`, `\|`, `^`, `~` or a shift (`x > 1 & y > 2`): ERROR; `&&` / `\|\|` were meant |
//! | `unknown-function` | error | a call of a function that is neither built in nor registered: always ERROR |
//! | `arity` | error | a built-in called with a number of arguments it does not take: always ERROR |
//! | `constant-error` | error | a part that refers to nothing and is ERROR (`Memory / 0`'s `1 / 0`, `int("abc")`) and no other finding explains |
//! | `constant-condition` | warning | a condition of a top-level `&&` or `\|\|` that is the same whatever the ads say (`1 == 2`, `x > 3 \|\| (2 > 1)`): dead policy; a bare literal (`START = true`) is taken as deliberate |
//! | `unknown-attribute` | warning | a reference to an attribute that no ad defines where it is looked up: `MY.x` in the expression's own ad, `TARGET.x` in the reference ads, `x` in either (only with reference ads); usually a typo, suggested when a defined name is one typo away. References the expression tests for UNDEFINED anywhere (`x =?= undefined`, `isUndefined(x)`, `x ?: 0`, ...) are deliberate and not reported |
//! | `case-sensitive-comparison` | warning | `x =?= "linux"` where the ads have `x` only in another case (`"LINUX"`): `=?=` compares strings case-sensitively |
//! | `cyclic-reference` | warning | ([`Linter::lint_ad`] only) an attribute whose expression refers back to itself through the ad's attributes: the cycle has no value (ERROR here, UNDEFINED in libclassad) |
//!
//! Types come from literals, from operators and built-ins whose result
//! type is known (`size()` is a number, `x > 1` a boolean, `strcat()` a
//! string) and from the values an attribute is written with in the ads it
//! is looked up in, when they are all literals of one type (computed
//! attributes are not evaluated, so a hostile ad costs nothing).
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
//!
//! With reference ads, attributes are checked too; [`Linter`] keeps what
//! it learns about the reference ads across expressions and ads:
//!
//! ```
//! use classad::lint::{Kind, Linter};
//! use classad::ClassAd;
//!
//! let machines: Vec<ClassAd> = vec![r#"[ Memory = 2048; HasDocker = true ]"#.parse()?];
//! let job: ClassAd = r#"[ RequestMemory = 1024;
//!     Requirements = TARGET.Memroy >= RequestMemory && TARGET.HasDocker == "true" ]"#.parse()?;
//! let linter = Linter::new(&machines);
//! let findings = linter.lint_ad(&job);
//! let kinds: Vec<(&str, Kind)> = findings.iter().map(|(name, f)| (name.as_str(), f.kind)).collect();
//! assert_eq!(kinds, [("Requirements", Kind::UnknownAttribute), ("Requirements", Kind::StringBooleanComparison)]);
//! assert_eq!(findings[0].1.suggestion.as_deref(), Some("TARGET.Memory"));
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::ad::ClassAd;
use crate::builtins::{Purity, ResultType};
use crate::expr::{BinaryOp, Call, Expr, Literal, Node, UnaryOp};
use crate::name::Name;
use crate::value::Value;

/// What a finding is about; the names are stable (they are the `kind` of
/// `classad lint --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `x == UNDEFINED` or `x != UNDEFINED` (or ERROR, or `<`, ...).
    UndefinedComparison,
    /// Arithmetic on a string.
    StringArithmetic,
    /// `!x == y`.
    NegatedComparison,
    /// `a && b || c` without parentheses.
    MixedAndOr,
    /// `a < b < c`.
    ChainedComparison,
    /// A string compared with a number.
    StringNumberComparison,
    /// A string compared with a boolean.
    StringBooleanComparison,
    /// A string as a logical operand or condition.
    StringCondition,
    /// A boolean operand of a bitwise operator.
    BitwiseLogic,
    /// A call of a function that does not exist.
    UnknownFunction,
    /// A built-in called with the wrong number of arguments.
    Arity,
    /// A part that refers to nothing and is ERROR.
    ConstantError,
    /// A condition of a top-level chain that is constant.
    ConstantCondition,
    /// An attribute no ad defines where it is looked up.
    UnknownAttribute,
    /// `=?=` with a string the ads have only in another case.
    CaseSensitiveComparison,
    /// An attribute that refers back to itself.
    CyclicReference,
}

impl Kind {
    /// Every kind, in the order of the module's table.
    pub const ALL: [Kind; 16] = [
        Kind::UndefinedComparison,
        Kind::StringArithmetic,
        Kind::NegatedComparison,
        Kind::MixedAndOr,
        Kind::ChainedComparison,
        Kind::StringNumberComparison,
        Kind::StringBooleanComparison,
        Kind::StringCondition,
        Kind::BitwiseLogic,
        Kind::UnknownFunction,
        Kind::Arity,
        Kind::ConstantError,
        Kind::ConstantCondition,
        Kind::UnknownAttribute,
        Kind::CaseSensitiveComparison,
        Kind::CyclicReference,
    ];

    /// The stable name: `undefined-comparison`, ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::UndefinedComparison => "undefined-comparison",
            Kind::StringArithmetic => "string-arithmetic",
            Kind::NegatedComparison => "negated-comparison",
            Kind::MixedAndOr => "mixed-and-or",
            Kind::ChainedComparison => "chained-comparison",
            Kind::StringNumberComparison => "string-number-comparison",
            Kind::StringBooleanComparison => "string-boolean-comparison",
            Kind::StringCondition => "string-condition",
            Kind::BitwiseLogic => "bitwise-logic",
            Kind::UnknownFunction => "unknown-function",
            Kind::Arity => "arity",
            Kind::ConstantError => "constant-error",
            Kind::ConstantCondition => "constant-condition",
            Kind::UnknownAttribute => "unknown-attribute",
            Kind::CaseSensitiveComparison => "case-sensitive-comparison",
            Kind::CyclicReference => "cyclic-reference",
        }
    }

    /// How bad it is: an error is always wrong (the expression or part of
    /// it can only be ERROR or UNDEFINED); a warning is very likely wrong.
    pub fn severity(self) -> Severity {
        match self {
            Kind::UndefinedComparison
            | Kind::StringArithmetic
            | Kind::StringNumberComparison
            | Kind::StringBooleanComparison
            | Kind::StringCondition
            | Kind::BitwiseLogic
            | Kind::UnknownFunction
            | Kind::Arity
            | Kind::ConstantError => Severity::Error,
            Kind::NegatedComparison
            | Kind::MixedAndOr
            | Kind::ChainedComparison
            | Kind::ConstantCondition
            | Kind::UnknownAttribute
            | Kind::CaseSensitiveComparison
            | Kind::CyclicReference => Severity::Warning,
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
    /// The ad the expression belongs to: its own attributes are known, and
    /// `MY.x` is checked against it.
    pub my: Option<&'r ClassAd>,
    /// Ads the expression will meet (machines for a job's `Requirements`,
    /// jobs for a `START`): `TARGET.x` and `x` that none of them (nor `my`)
    /// defines are reported, and their values' types inform the type
    /// checks. Empty: only `MY.x` can be reported unknown.
    pub reference: &'r [ClassAd],
}

/// The findings for `expr`, in the order their parts are written.
///
/// A shorthand for [`Linter::lint`] with a linter made for this one call.
pub fn lint(expr: &Expr, options: &LintOptions<'_>) -> Vec<Finding> {
    Linter::new(options.reference).lint(expr, options.my)
}

/// A linter for a set of reference ads, remembering what it has learned of
/// them (the attribute names they define, the types of their values).
pub struct Linter<'r> {
    reference: &'r [ClassAd],
    /// The symbols of the names the reference ads define.
    names: HashSet<u32>,
    /// One spelling of each (for suggestions).
    spellings: Vec<Name>,
    /// The type an attribute's values have in all reference ads that
    /// define it, by symbol (`None`: mixed, or not a string, number or
    /// boolean).
    types: RefCell<HashMap<u32, Option<Type>>>,
    /// The string values an attribute has in the reference ads, by symbol.
    strings: RefCell<HashMap<u32, HashSet<String>>>,
}

impl<'r> Linter<'r> {
    /// A linter checking attributes against `reference` (which may be
    /// empty).
    pub fn new(reference: &'r [ClassAd]) -> Linter<'r> {
        let mut names = HashSet::new();
        let mut spellings = Vec::new();
        for name in reference.iter().flat_map(|ad| ad.names()) {
            if names.insert(name.symbol()) {
                spellings.push(name);
            }
        }
        Linter { reference, names, spellings, types: RefCell::default(), strings: RefCell::default() }
    }

    /// The findings for `expr`, the expression of an attribute of `my`
    /// (when given), in the order their parts are written.
    pub fn lint(&self, expr: &Expr, my: Option<&ClassAd>) -> Vec<Finding> {
        let mut guarded = HashSet::new();
        collect_guarded(expr, &mut guarded);
        let mut pass = Pass { linter: self, my, guarded, reported_names: HashSet::new(), findings: Vec::new() };
        pass.conditions(expr);
        let before = pass.findings.len();
        if !pass.walk(expr, Context::default()) && pass.findings.len() == before {
            pass.constant_error(expr);
        }
        pass.findings
    }

    /// The findings for every attribute of `ad` (each linted with `ad` as
    /// its own ad), in the ad's order, and the attributes that refer back
    /// to themselves.
    ///
    /// ```
    /// use classad::lint::{Kind, Linter};
    ///
    /// let ad: classad::ClassAd = "[ A = B + 1; B = A * 2; C = B ]".parse()?;
    /// let findings = Linter::new(&[]).lint_ad(&ad);
    /// let cycles: Vec<(&str, &str)> =
    ///     findings.iter().map(|(name, f)| (name.as_str(), f.expr.as_str())).collect();
    /// assert_eq!(cycles, [("A", "B"), ("B", "A")]);
    /// assert_eq!(findings[0].1.kind, Kind::CyclicReference);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn lint_ad(&self, ad: &ClassAd) -> Vec<(Name, Finding)> {
        let cycles = cycles(ad);
        let mut out = Vec::new();
        for (name, expr) in ad.iter() {
            if let Some((reference, path)) = cycles.get(&name.symbol()) {
                out.push((
                    name,
                    Finding {
                        kind: Kind::CyclicReference,
                        message: format!(
                            "{name} refers back to itself ({}): the cycle has no value (ERROR here, UNDEFINED in libclassad)",
                            path.join(" -> ")
                        ),
                        expr: reference.clone(),
                        suggestion: None,
                    },
                ));
            }
            out.extend(self.lint(expr, Some(ad)).into_iter().map(|f| (name, f)));
        }
        out
    }

    /// Whether some reference ad has `name` = `text` exactly, and else one
    /// value equal to `text` but for case.
    fn reference_string(&self, name: Name, text: &str) -> (bool, Option<String>) {
        let mut strings = self.strings.borrow_mut();
        let values = strings.entry(name.symbol()).or_insert_with(|| {
            self.reference
                .iter()
                .filter_map(|ad| match literal_of(ad, name) {
                    Some(Literal::Str(s)) => Some(s.as_str().to_owned()),
                    _ => None,
                })
                .collect()
        });
        if values.contains(text) {
            return (true, None);
        }
        let mut other_case: Vec<&String> = values.iter().filter(|v| v.eq_ignore_ascii_case(text)).collect();
        other_case.sort();
        (false, other_case.first().map(|v| (*v).clone()))
    }

    /// The type `name`'s values have in every reference ad defining it.
    fn reference_type(&self, name: Name) -> Option<Type> {
        if let Some(known) = self.types.borrow().get(&name.symbol()) {
            return *known;
        }
        let mut seen = None;
        for ad in self.reference {
            if !ad.contains(name) {
                continue;
            }
            let found = literal_of(ad, name).and_then(literal_type);
            if found.is_none() || seen.is_some_and(|t| Some(t) != found) {
                seen = None;
                break;
            }
            seen = found;
        }
        self.types.borrow_mut().insert(name.symbol(), seen);
        seen
    }
}

/// What type an expression surely has when it is neither UNDEFINED nor
/// ERROR.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Type {
    Number,
    String,
    Boolean,
}

impl Type {
    fn article(self) -> &'static str {
        match self {
            Type::Number => "a number",
            Type::String => "a string",
            Type::Boolean => "a boolean",
        }
    }
}

fn literal_type(literal: &Literal) -> Option<Type> {
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
fn literal_of(ad: &ClassAd, name: Name) -> Option<&Literal> {
    let mut expr = ad.lookup(name)?;
    while let Some(Node::Paren(inner)) = expr.as_node() {
        expr = inner;
    }
    expr.as_literal()
}

/// A walked child: whether it refers to anything, and whether it has no
/// finding.
struct Child<'e> {
    expr: &'e Expr,
    refers: bool,
    clean: bool,
}

/// Where a sub-expression sits.
#[derive(Clone, Copy, Default)]
struct Context {
    /// The operator directly above, when it is a binary one.
    parent: Option<BinaryOp>,
    /// Names here are looked up in other ads (the first argument of
    /// `evalInEachContext`, a nested ad's attributes): not checked.
    foreign: bool,
}

/// Where an attribute reference looks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// `x`: the expression's ad, then the other.
    Unscoped,
    /// `MY.x`
    My,
    /// `TARGET.x`, `other.x`
    Target,
}

/// One linting of one expression.
struct Pass<'l, 'r, 'm> {
    linter: &'l Linter<'r>,
    my: Option<&'m ClassAd>,
    /// The symbols of the names the expression tests for UNDEFINED
    /// somewhere: references to them are deliberate.
    guarded: HashSet<u32>,
    /// Names already reported unknown (once each), by symbol.
    reported_names: HashSet<u32>,
    findings: Vec<Finding>,
}

impl Pass<'_, '_, '_> {
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
    fn walk(&mut self, expr: &Expr, context: Context) -> bool {
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
    fn constant_error(&mut self, expr: &Expr) {
        if strip(expr).as_literal().is_some() {
            return;
        }
        if expr.eval().is_error() {
            self.report(Kind::ConstantError, expr, "this part refers to nothing and is always ERROR".to_owned(), None);
        }
    }

    fn unary(&mut self, expr: &Expr, op: UnaryOp, operand: &Expr) {
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
    fn condition_operand(&mut self, operand: &Expr, role: &str) {
        if self.type_of(operand) == Some(Type::String) {
            let message = if strip(operand).as_literal().is_some() {
                format!("a string as {role} is always ERROR (was a comparison meant?)")
            } else {
                format!("{role} is a string, which is always ERROR as a condition")
            };
            self.report(Kind::StringCondition, operand, message, None);
        }
    }

    fn binary(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr, parent: Option<BinaryOp>) {
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

    /// `x =?= "linux"` where the ads have x only as `"LINUX"`.
    fn case_sensitive(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr) {
        for (side, other) in [(a, b), (b, a)] {
            let Some(Literal::Str(text)) = strip(side).as_literal() else {
                continue;
            };
            let Some((scope, name)) = reference_of(strip(other)) else {
                return;
            };
            let in_my = match scope {
                Scope::My => true,
                Scope::Target => false,
                Scope::Unscoped => self.my.is_some_and(|my| my.contains(name)),
            };
            let (exact, other_case) = if in_my {
                match self.my.and_then(|my| literal_of(my, name)) {
                    Some(Literal::Str(value)) if value.as_str() != text.as_str() => {
                        (false, value.as_str().eq_ignore_ascii_case(text.as_str()).then(|| value.as_str().to_owned()))
                    }
                    _ => (true, None),
                }
            } else {
                self.linter.reference_string(name, text.as_str())
            };
            if exact {
                return;
            }
            if let Some(seen) = other_case {
                let meta = if op == BinaryOp::Is { "=?=" } else { "=!=" };
                let replaced = Expr::literal(Literal::Str(seen.as_str().into()));
                let suggestion = if std::ptr::eq(side, a) {
                    format!("{replaced} {meta} {b}")
                } else {
                    format!("{a} {meta} {replaced}")
                };
                self.report(
                    Kind::CaseSensitiveComparison,
                    expr,
                    format!(
                        "`{meta}` compares strings case-sensitively, and the ads have {name} = {replaced}, never {side}"
                    ),
                    Some(suggestion),
                );
            }
            return;
        }
    }

    /// The type `expr` surely has when defined.
    fn type_of(&self, expr: &Expr) -> Option<Type> {
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

    /// A reference to `name` looked up as `scope` says.
    fn attribute(&mut self, expr: &Expr, name: Name, scope: Scope) {
        if name.is_reserved() || self.guarded.contains(&name.symbol()) {
            return;
        }
        let in_my = self.my.is_some_and(|ad| ad.contains(name));
        let in_reference = self.linter.names.contains(&name.symbol());
        let (known, mine, theirs) = match scope {
            Scope::My => match self.my {
                Some(my) => (in_my, Some(my), false),
                None => return,
            },
            Scope::Target | Scope::Unscoped if self.linter.reference.is_empty() => return,
            Scope::Target => (in_reference, None, true),
            Scope::Unscoped => (in_my || in_reference, self.my, true),
        };
        if known || !self.reported_names.insert(name.symbol()) {
            return;
        }
        let theirs = if theirs { &self.linter.spellings[..] } else { &[] };
        let close = theirs
            .iter()
            .copied()
            .chain(mine.into_iter().flat_map(|ad| ad.names()))
            .map(|n| n.as_str())
            .find(|candidate| near(candidate, name.as_str()))
            .map(str::to_owned);
        let place = if scope == Scope::My { "the ad does not define" } else { "no reference ad defines" };
        let message = match &close {
            Some(close) => format!("{place} {name} (did you mean {close}?): it is always UNDEFINED"),
            None => format!("{place} {name}: it is always UNDEFINED"),
        };
        let suggestion = close.map(|close| expr.to_string().replace(name.as_str(), &close));
        self.report(Kind::UnknownAttribute, expr, message, suggestion);
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

/// Functions of the clock, chance, the environment or text: calls that are
/// not constant even on constant arguments.
fn is_impure(call: &Call) -> bool {
    call.builtin().is_some_and(|id| id.builtin().purity == Purity::Varying)
}

fn is_comparison(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Eq | BinaryOp::Ne) || is_relational(op)
}

fn is_relational(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
}

/// `x`, `MY.x`, `TARGET.x` as where it looks and the name.
fn reference_of(expr: &Expr) -> Option<(Scope, Name)> {
    reference_of_node(expr.as_node()?)
}

fn reference_of_node(node: &Node) -> Option<(Scope, Name)> {
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

/// The names `expr` tests for UNDEFINED somewhere, each once, in the
/// order met: the operands of `=?=` and `=!=` (and of `==`, `!=`, ... with
/// UNDEFINED, mistaken tests of the same intent), the left side of `?:`
/// and the arguments of the `is*` predicates; plain, `MY.` and `TARGET.`
/// references alike. A reference to one of them is written for ads that
/// may lack it, so a report of missing attributes (the why-not analysis)
/// leaves it out.
///
/// ```
/// use classad::lint::guarded_names;
/// let expr = classad::parse_expr("TARGET.Gpus =?= undefined || isString(MY.Site) && (Memory ?: 0) > 1 && Cpus > 1")?;
/// let names: Vec<String> = guarded_names(&expr).iter().map(|n| n.as_str().to_owned()).collect();
/// assert_eq!(names, ["Gpus", "Site", "Memory"]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn guarded_names(expr: &Expr) -> Vec<Name> {
    let mut names = Vec::new();
    let mut seen = HashSet::new();
    visit_guarded(expr, &mut |name| {
        if seen.insert(name.symbol()) {
            names.push(name);
        }
    });
    names
}

/// The symbols of the names `expr` tests for UNDEFINED: operands of `=?=`
/// and `=!=` (and of `==`, `!=` ... with UNDEFINED, mistaken tests), the
/// left side of `?:`, the argument of the `is*` predicates.
pub(crate) fn collect_guarded(expr: &Expr, out: &mut HashSet<u32>) {
    visit_guarded(expr, &mut |name| {
        out.insert(name.symbol());
    });
}

/// Calls `found` with each name `expr` tests for UNDEFINED (see
/// [`collect_guarded`]), in the order met, repeats included.
fn visit_guarded(expr: &Expr, found: &mut impl FnMut(Name)) {
    let Some(node) = expr.as_node() else {
        return;
    };
    let mut guard = |e: &Expr| {
        if let Some((_, name)) = reference_of(strip(e)) {
            found(name);
        }
    };
    match node {
        Node::Binary(BinaryOp::Is | BinaryOp::Isnt, a, b) => {
            guard(a);
            guard(b);
        }
        // `x == UNDEFINED` is reported for what it is; x is meant to be
        // tested.
        Node::Binary(_, a, b) if [a, b].iter().any(|e| matches!(strip(e).as_literal(), Some(Literal::Undefined))) => {
            guard(a);
            guard(b);
        }
        Node::Elvis(a, _) => guard(a),
        Node::Call(call) if call.name().as_str().get(..2).is_some_and(|p| p.eq_ignore_ascii_case("is")) => {
            call.args().iter().for_each(guard);
        }
        _ => {}
    }
    for child in node.children() {
        visit_guarded(child, found);
    }
}

/// `expr` without its parentheses.
fn strip(mut expr: &Expr) -> &Expr {
    while let Some(Node::Paren(inner)) = expr.as_node() {
        expr = inner;
    }
    expr
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

/// For each attribute of `ad` on a cycle of references through the ad's
/// attributes (`x` or `MY.x`): the reference that starts it and the names
/// along it, by the attribute's symbol.
fn cycles(ad: &ClassAd) -> HashMap<u32, (String, Vec<String>)> {
    // The graph: for each attribute, the attributes of `ad` its expression
    // refers to, with the reference as written.
    let names: Vec<Name> = ad.names().collect();
    let index: HashMap<u32, usize> = names.iter().enumerate().map(|(i, n)| (n.symbol(), i)).collect();
    let mut edges: Vec<Vec<(usize, String)>> = vec![Vec::new(); names.len()];
    for (i, name) in names.iter().enumerate() {
        if let Some(expr) = ad.lookup(*name) {
            let mut seen = HashSet::new();
            let mut stack = vec![expr];
            while let Some(e) = stack.pop() {
                let Some(node) = e.as_node() else {
                    continue;
                };
                if let Some((Scope::Unscoped | Scope::My, target)) = reference_of_node(node) {
                    if let Some(&j) = index.get(&target.symbol()) {
                        if seen.insert(j) {
                            edges[i].push((j, e.to_string()));
                        }
                    }
                    continue;
                }
                match node {
                    // Names in a nested ad or evaluated in other ads are
                    // not this ad's.
                    Node::Record(_) => {}
                    Node::Call(call) if call.name().is("evalInEachContext") || call.name().is("countMatches") => {
                        stack.extend(call.args().iter().skip(1));
                    }
                    node => stack.extend(node.children()),
                }
            }
        }
    }
    // Tarjan's strongly connected components, without recursion.
    let n = names.len();
    let (mut order, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut counter, mut stack, mut components) = (0, Vec::new(), Vec::new());
    for root in 0..n {
        if order[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 {
                order[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some((w, _)) = edges[v].get(*next) {
                let w = *w;
                *next += 1;
                if order[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    // For each component, paths through its first member `root`:
    // `toward[w]`, the next step from w on a shortest way to the root, and
    // `parent[w]`, the step before w on a shortest way from the root.
    let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, out) in edges.iter().enumerate() {
        for (w, _) in out {
            reverse[*w].push(v);
        }
    }
    let forward = forward_of(&edges);
    let (mut component_of, mut toward, mut parent) = (vec![usize::MAX; n], vec![usize::MAX; n], vec![usize::MAX; n]);
    let mut out = HashMap::new();
    for (c, component) in components.iter().enumerate() {
        let root = component[0];
        let self_loop = edges[root].iter().any(|(w, _)| *w == root);
        if component.len() == 1 && !self_loop {
            continue;
        }
        for &v in component {
            component_of[v] = c;
        }
        for (links, adjacency) in [(&mut toward, &reverse), (&mut parent, &forward)] {
            links[root] = root;
            let mut queue = std::collections::VecDeque::from([root]);
            while let Some(at) = queue.pop_front() {
                for &w in &adjacency[at] {
                    if component_of[w] == c && links[w] == usize::MAX {
                        links[w] = at;
                        queue.push_back(w);
                    }
                }
            }
        }
        for &v in component {
            out.insert(names[v].symbol(), cycle_through(v, root, &toward, &parent, &edges, &names));
        }
    }
    out
}

/// The targets of each attribute's references.
fn forward_of(edges: &[Vec<(usize, String)>]) -> Vec<Vec<usize>> {
    edges.iter().map(|out| out.iter().map(|(w, _)| *w).collect()).collect()
}

/// A cycle from `v` back to itself through `root` (or, for the root,
/// through its first reference inside the component): the reference that
/// starts it and the names along it, at most a dozen (`...` for the
/// rest).
fn cycle_through(
    v: usize,
    root: usize,
    toward: &[usize],
    parent: &[usize],
    edges: &[Vec<(usize, String)>],
    names: &[Name],
) -> (String, Vec<String>) {
    const SHOWN: usize = 6;
    // v, then the steps to the root.
    let mut head = vec![v];
    let mut at = v;
    if v == root {
        // The root's first reference that leads back into the component
        // (every member leads back to the root).
        at = edges[v].iter().map(|(w, _)| *w).find(|&w| toward[w] != usize::MAX).unwrap_or(v);
        head.push(at);
    }
    while at != root && head.len() < SHOWN {
        at = toward[at];
        head.push(at);
    }
    // The steps from the root to v, backwards.
    let mut tail = vec![v];
    let mut back = v;
    while back != root && tail.len() < SHOWN {
        back = parent[back];
        tail.push(back);
    }
    let mut path: Vec<usize> = head.clone();
    if at != root || back != root {
        path.push(usize::MAX);
    }
    if path.len() > 1 || v != root {
        // The way back, without repeating the step both halves share.
        let last = path.last().copied();
        path.extend(tail.iter().rev().skip_while(|&&w| Some(w) == last));
    }
    let path =
        path.iter().map(|&w| if w == usize::MAX { "...".to_owned() } else { names[w].as_str().to_owned() }).collect();
    let next = head.get(1).copied().unwrap_or(v);
    let reference = edges[v].iter().find(|(w, _)| *w == next).map(|(_, text)| text.clone()).unwrap_or_default();
    (reference, path)
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
