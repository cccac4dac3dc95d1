//! Partial evaluation: an expression with everything an ad determines
//! computed, as libclassad's `ClassAd::Flatten` (and HTCondor's Python
//! bindings' `ClassAd.flatten`) gives it.
//!
//! * Literals, operators on known values and calls with known arguments
//!   are computed. Every function is taken as pure, as libclassad does
//!   (`time()` and `random()` are called), and called on its arguments as
//!   written, so `unparse(Memory)` gives the text of `Memory`'s expression.
//! * A reference to an attribute of the ad whose expression flattens to a
//!   value becomes that value; one whose expression does not, or that the
//!   ad does not define (`TARGET.Memory`), stays as written: expressions
//!   are not inlined. So does a reference to an ad, or a selection from a
//!   list (`Slots.Memory`).
//! * `true && x` and `x && true` are `x`; `false && x` is `false`, and so
//!   is `x && false`; `true || x` and `x || true` are `true`. A number
//!   next to an unknown under `&&` or `||` counts as its truth
//!   (`x && 5` is `x`, `x || 0` is `false || x`), and two known operands
//!   must both be logical values (`false && "abc"` is ERROR here, though
//!   evaluating it gives `false`).
//! * A condition known to be true or false picks its branch.
//! * Chains of the associative operators (`+ * && || & | ^`) gather their
//!   constants into one value, written first: `x + 1 + 2` is `3 + x`.
//! * `expr` is taken as written outside the ad (as an expression given to
//!   libclassad's `Flatten` is): an ad written in it has no enclosing
//!   scope, though `.x` and `root` still name the ad.
//!
//! `classad simplify` prints it on the command line.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Expr};
//! use classad::flatten::{flatten, Flattened};
//!
//! let job: ClassAd = "[ RequestMemory = 2 * 1024; Slack = TARGET.Swap ]".parse()?;
//! let requirements: Expr = "TARGET.Memory >= RequestMemory && true && (Slack > 0 || false)".parse()?;
//! let flat = flatten(&EvalOptions::new(), &job, &requirements)?;
//! // `x || false` keeps both, with the constant first.
//! assert_eq!(flat.to_string(), "TARGET.Memory >= 2048 && (false || Slack > 0)");
//! assert_eq!(flatten(&EvalOptions::new(), &job, &"RequestMemory / 1024".parse()?)?, Flattened::Value(2.into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use crate::ad::ClassAd;
use crate::eval::{EvalContext, EvalOptions};
use crate::expr::Expr;
use crate::value::Value;

/// What an expression flattens to.
#[derive(Clone, Debug, PartialEq)]
pub enum Flattened {
    /// Everything was known: the value.
    Value(Value),
    /// What is left to evaluate.
    Expr(Expr),
}

impl Flattened {
    /// As an expression (a literal for a value).
    pub fn into_expr(self) -> Expr {
        match self {
            Flattened::Value(value) => value.to_expr(),
            Flattened::Expr(expr) => expr,
        }
    }
}

impl fmt::Display for Flattened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Flattened::Value(value) => value.fmt(f),
            Flattened::Expr(expr) => expr.fmt(f),
        }
    }
}

/// Flattening failed, as it does in libclassad: the expression refers in
/// a cycle (`A = B; B = A`), follows references too deeply, or (here) takes
/// more steps than the evaluation's step limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the expression cannot be flattened (a circular reference, or nested too deeply)")]
pub struct FlattenError;

/// `expr` flattened in the scope of `ad`, outside any match.
///
/// ```
/// use classad::{ClassAd, EvalOptions};
/// use classad::flatten::flatten;
/// let machine: ClassAd = "[ Memory = 8192; Slots = { [ Memory = 4096 ] }; Code = Memory / 1024 ]".parse()?;
/// let opts = EvalOptions::new();
/// let show = |text: &str| -> Result<String, Box<dyn std::error::Error>> {
///     Ok(flatten(&opts, &machine, &text.parse()?)?.to_string())
/// };
/// assert_eq!(show("TARGET.RequestMemory <= Memory && x || 0")?, "false || TARGET.RequestMemory <= 8192 && x");
/// assert_eq!(show("unparse(Code)")?, "\"Memory / 1024\"");
/// assert_eq!(show("Slots.Memory")?, "Slots.Memory");
/// assert_eq!(show("[ a = Memory ].a")?, "[ a = Memory ].a");
/// assert_eq!(show("[ a = .Memory ].a")?, "8192");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn flatten(options: &EvalOptions, ad: &ClassAd, expr: &Expr) -> Result<Flattened, FlattenError> {
    match EvalContext::new(options).my(ad).flatten(expr) {
        Some(Ok(value)) => Ok(Flattened::Value(value)),
        Some(Err(expr)) => Ok(Flattened::Expr(expr)),
        None => Err(FlattenError),
    }
}
