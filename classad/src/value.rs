//! The result of evaluating an expression.

use std::fmt;
use std::sync::Arc;

use crate::ad::ClassAd;
use crate::expr::{Expr, Literal};
use crate::text::Text;
use crate::time::{AbsTime, RelTime};

/// A ClassAd value.
///
/// Lists hold their elements as expressions, unevaluated, as libclassad's
/// list values do: `{1 + 1, x}` evaluates to the list `{ 1 + 1,x }`.
/// `Display` writes the canonical new-syntax form.
///
/// ```
/// use classad::{Expr, Value};
/// let v = "1.5 * 2".parse::<Expr>().unwrap().eval();
/// assert_eq!(v, Value::Real(3.0));
/// assert_eq!(v.to_string(), "3.000000000000000E+00");
/// ```
///
/// Not `#[non_exhaustive]`, on purpose: these are the value types of the
/// ClassAd language (HTCondor's), which every user of the crate matches
/// on. A new one would be a change of the language, and each `match` over
/// values should then stop compiling rather than send the new type to a
/// wildcard arm unnoticed.
#[derive(Clone, Debug)]
pub enum Value {
    /// The value of a missing attribute, and of most operations on one.
    Undefined,
    /// The value of an ill-typed operation.
    Error,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A double-precision real.
    Real(f64),
    /// A string.
    Str(Text),
    /// A point in time.
    AbsTime(AbsTime),
    /// A duration.
    RelTime(RelTime),
    /// A list of (unevaluated) expressions.
    List(Arc<[Expr]>),
    /// A nested ad.
    ClassAd(Arc<ClassAd>),
}

impl Value {
    /// True for `Undefined`.
    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    /// True for `Error`.
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }

    /// The value as a boolean the way `Requirements` are read: `true`, or a
    /// non-zero number. Everything else (including UNDEFINED) is `false`.
    pub fn is_true(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Real(r) => *r != 0.0,
            _ => false,
        }
    }

    /// The value as a number (booleans count as 0 and 1), if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The string, if the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a literal expression.
    pub fn to_expr(&self) -> Expr {
        match self {
            Value::Undefined => Literal::Undefined.into(),
            Value::Error => Literal::Error.into(),
            Value::Bool(b) => Literal::Bool(*b).into(),
            Value::Int(i) => Literal::Int(*i).into(),
            Value::Real(r) => Literal::Real(*r).into(),
            Value::Str(s) => Literal::Str(s.clone()).into(),
            Value::AbsTime(t) => Literal::AbsTime(*t).into(),
            Value::RelTime(t) => Literal::RelTime(*t).into(),
            Value::List(items) => Expr::list(items.to_vec()),
            Value::ClassAd(ad) => Expr::node(crate::expr::Node::Record(ad.clone())),
        }
    }

    /// The name of the value's type, as HTCondor's tools print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined => "undefined",
            Value::Error => "error",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Real(_) => "real",
            Value::Str(_) => "string",
            Value::AbsTime(_) => "absolute time",
            Value::RelTime(_) => "relative time",
            Value::List(_) => "list",
            Value::ClassAd(_) => "classad",
        }
    }
}

/// Identity, as the `=?=` operator sees it for scalars: same type and same
/// value (strings case-sensitively, reals bitwise); lists and ads compare
/// structurally.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits() || a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::AbsTime(a), Value::AbsTime(b)) => a == b,
            (Value::RelTime(a), Value::RelTime(b)) => a == b,
            (Value::List(a), Value::List(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y)),
            (Value::ClassAd(a), Value::ClassAd(b)) => a.same_as(b),
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undefined => f.write_str("undefined"),
            Value::Error => f.write_str("error"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => crate::print::write_real(f, *r),
            Value::Str(s) => crate::print::write_quoted(f, s, '"'),
            Value::AbsTime(t) => write!(f, "absTime(\"{t}\")"),
            Value::RelTime(t) => write!(f, "relTime(\"{t}\")"),
            Value::List(items) => crate::print::write_list(f, items, crate::lexer::Syntax::New, 0),
            Value::ClassAd(ad) => write!(f, "{ad}"),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(r: f64) -> Value {
        Value::Real(r)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(Text::new(s))
    }
}

/// The value a literal stands for (what evaluating it gives).
///
/// ```
/// use classad::{Literal, Value};
/// assert_eq!(Value::from(&Literal::Int(7)), Value::Int(7));
/// assert!(Value::from(&Literal::Undefined).is_undefined());
/// ```
impl From<&Literal> for Value {
    fn from(literal: &Literal) -> Value {
        match literal {
            Literal::Undefined => Value::Undefined,
            Literal::Error => Value::Error,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(n) => Value::Int(*n),
            Literal::Real(x) => Value::Real(*x),
            Literal::Str(s) => Value::Str(s.clone()),
            Literal::AbsTime(t) => Value::AbsTime(*t),
            Literal::RelTime(t) => Value::RelTime(*t),
        }
    }
}

impl From<ClassAd> for Value {
    fn from(ad: ClassAd) -> Value {
        Value::ClassAd(Arc::new(ad))
    }
}
