//! Partial evaluation: an expression with everything an ad determines
//! computed, as libclassad's `ClassAd::Flatten` (and HTCondor's Python
//! bindings' `ClassAd.flatten`) gives it.
//!
//! * Literals, operators on known values and calls with known arguments
//!   are computed (every function is taken as pure, as libclassad does).
//! * A reference to an attribute of the ad whose expression flattens to a
//!   value becomes that value; one whose expression does not, or that the
//!   ad does not define (`TARGET.Memory`), stays as written: expressions
//!   are not inlined.
//! * `true && x` and `x && true` are `x`; `false && x` is `false`, and so
//!   is `x && false`; `true || x` and `x || true` are `true`.
//! * A condition known to be true or false picks its branch.
//! * Chains of the associative operators (`+ * && || & | ^`) gather their
//!   constants into one value, written first: `x + 1 + 2` is `3 + x`.
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
/// a cycle (`A = B; B = A`) or nests too deeply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the expression cannot be flattened (a circular reference, or nested too deeply)")]
pub struct FlattenError;

/// `expr` flattened in the scope of `ad`, outside any match.
pub fn flatten(options: &EvalOptions, ad: &ClassAd, expr: &Expr) -> Result<Flattened, FlattenError> {
    match EvalContext::new(options).my(ad).flatten(expr) {
        Some(Ok(value)) => Ok(Flattened::Value(value)),
        Some(Err(expr)) => Ok(Flattened::Expr(expr)),
        None => Err(FlattenError),
    }
}
