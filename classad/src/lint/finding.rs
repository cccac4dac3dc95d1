//! What the linter reports: a [`Finding`], its [`Kind`] and [`Severity`].

use std::fmt;

/// What a finding is about; the names are stable (they are the `kind` of
/// `classad lint --json`).
///
/// `#[non_exhaustive]`: new checks bring new kinds, and code outside the
/// crate reports or filters findings by kind rather than handling each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
