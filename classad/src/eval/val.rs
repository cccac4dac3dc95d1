//! The evaluator's working values.
//!
//! A [`Val`] borrows from the expressions and ads of the evaluation in
//! progress (lifetime `'a`): string literals, list elements and nested ads
//! are never copied or reference-counted on the way through. Only values the
//! evaluation builds (a computed string, a projected list) own their data,
//! in an [`Rc`], since one evaluation runs on one thread. The public
//! [`Value`] is produced once, at the end.

use std::rc::Rc;
use std::sync::Arc;

use crate::ad::ClassAd;
use crate::expr::{Expr, Literal};
use crate::text::Text;
use crate::time::{AbsTime, RelTime};
use crate::value::Value;

/// A value during evaluation.
#[derive(Clone, Debug)]
pub(crate) enum Val<'a> {
    Undefined,
    Error,
    Bool(bool),
    Int(i64),
    Real(f64),
    Str(StrVal<'a>),
    AbsTime(AbsTime),
    RelTime(f64),
    List(List<'a>),
    Ad(&'a Frame<'a>),
}

/// A string, borrowed from an expression or owned by the evaluation.
#[derive(Clone, Debug)]
pub(crate) enum StrVal<'a> {
    Borrowed(&'a str),
    Owned(Rc<str>),
}

impl StrVal<'_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            StrVal::Borrowed(s) => s,
            StrVal::Owned(s) => s,
        }
    }
}

/// A list: element expressions evaluated on demand in the scope the list
/// literal was evaluated in, or values an operation produced.
#[derive(Clone, Debug)]
pub(crate) enum List<'a> {
    Lazy(&'a [Expr], &'a Frame<'a>),
    Values(Rc<[Val<'a>]>),
}

impl List<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            List::Lazy(items, _) => items.len(),
            List::Values(values) => values.len(),
        }
    }
}

/// One level of lexical scope: an ad, the scope it is nested in, and which
/// ad of a match (if any) it belongs to.
#[derive(Debug)]
pub(crate) struct Frame<'a> {
    pub(crate) ad: &'a ClassAd,
    pub(crate) parent: Option<&'a Frame<'a>>,
    pub(crate) side: Side,
}

/// Which ad of a match a scope belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The MY ad (left in a match).
    My,
    /// The TARGET ad (right in a match).
    Target,
    /// An ad outside any match (an ad evaluated on its own, or one made
    /// during evaluation).
    Detached,
}

impl<'a> Frame<'a> {
    /// The outermost scope of this chain.
    pub(crate) fn root(&'a self) -> &'a Frame<'a> {
        let mut frame = self;
        while let Some(parent) = frame.parent {
            frame = parent;
        }
        frame
    }
}

impl<'a> Val<'a> {
    pub(crate) fn from_literal(literal: &'a Literal) -> Val<'a> {
        match literal {
            Literal::Undefined => Val::Undefined,
            Literal::Error => Val::Error,
            Literal::Bool(b) => Val::Bool(*b),
            Literal::Int(i) => Val::Int(*i),
            Literal::Real(r) => Val::Real(*r),
            Literal::Str(s) => Val::Str(StrVal::Borrowed(s)),
            Literal::AbsTime(t) => Val::AbsTime(*t),
            Literal::RelTime(t) => Val::RelTime(t.0),
        }
    }

    pub(crate) fn string(text: impl Into<Rc<str>>) -> Val<'a> {
        Val::Str(StrVal::Owned(text.into()))
    }

    /// Integers and reals (not booleans) as a real.
    pub(crate) fn as_number(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The truth of a value used as a condition: booleans and numbers;
    /// `None` for anything else (including UNDEFINED and ERROR).
    pub(crate) fn truth(&self) -> Option<bool> {
        match self {
            Val::Bool(b) => Some(*b),
            Val::Int(i) => Some(*i != 0),
            Val::Real(r) => Some(*r != 0.0),
            _ => None,
        }
    }

    /// Converts to the public value. Lists become their element
    /// expressions; ads are copied out of the evaluation.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Val::Undefined => Value::Undefined,
            Val::Error => Value::Error,
            Val::Bool(b) => Value::Bool(b),
            Val::Int(i) => Value::Int(i),
            Val::Real(r) => Value::Real(r),
            Val::Str(text) => Value::Str(Text::new(text.as_str())),
            Val::AbsTime(t) => Value::AbsTime(t),
            Val::RelTime(t) => Value::RelTime(RelTime(t)),
            Val::List(List::Lazy(items, _)) => Value::List(items.into()),
            Val::List(List::Values(values)) => stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
                Value::List(values.iter().map(|v| v.clone().into_value().to_expr()).collect())
            }),
            Val::Ad(frame) => Value::ClassAd(Arc::new(frame.ad.clone())),
        }
    }
}
