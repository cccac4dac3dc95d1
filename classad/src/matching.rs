//! Matching two ads, as HTCondor's negotiator does.
//!
//! A match puts two ads side by side: each ad's expressions see itself as
//! `MY` and the other as `TARGET` (also `other`). An ad *accepts* the other
//! when its `Requirements` evaluates to `true` there (anything else,
//! UNDEFINED and ERROR included, rejects; so does an ad with no
//! `Requirements`); the two ads match when each accepts the other. Only an
//! ad's own `Requirements` and `Rank` count: under old semantics a missing
//! one is not borrowed from the other ad. Each ad's `Rank` says how much it likes the other: a
//! number, with anything that is not one (UNDEFINED, ERROR, a string)
//! counting as 0.0 and booleans as 0.0 or 1.0.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Semantics};
//! use classad::matching::MatchAd;
//!
//! let job: ClassAd = r#"[ RequestMemory = 2048;
//!     Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Memory / 1024 ]"#.parse()?;
//! let slot: ClassAd = r#"[ Memory = 4096; Requirements = TARGET.RequestMemory <= Memory ]"#.parse()?;
//! let opts = EvalOptions::new().semantics(Semantics::Old);
//! let pair = MatchAd::new(&opts, &job, &slot);
//! assert!(pair.symmetric_match());
//! assert_eq!(pair.left_rank(), 4.0);
//! assert_eq!(pair.right_rank(), 0.0); // the slot has no Rank
//! # Ok::<(), classad::ParseError>(())
//! ```
//!
//! [`MatchAd`] answers for one pair. Matching one request against many
//! ads at once (the negotiator's loop) is the `matchmaker` crate's
//! `Pool`, built on [`Prepared`](crate::Prepared) and the column kernels
//! of [`eval`](crate::eval).

use std::sync::OnceLock;

use crate::ad::ClassAd;
use crate::eval::{EvalContext, EvalOptions};
use crate::name::Name;
use crate::value::Value;

/// The attribute holding an ad's requirements of the other.
pub const REQUIREMENTS: &str = "Requirements";
/// The attribute holding an ad's preference among others.
pub const RANK: &str = "Rank";

/// Two ads in the match context: `left` (in the negotiator, the job) and
/// `right` (the machine). Nothing is copied; every question evaluates the
/// ads afresh.
#[derive(Clone, Copy, Debug)]
pub struct MatchAd<'c> {
    options: &'c EvalOptions,
    left: &'c ClassAd,
    right: &'c ClassAd,
}

impl<'c> MatchAd<'c> {
    /// Puts `left` and `right` side by side.
    pub fn new(options: &'c EvalOptions, left: &'c ClassAd, right: &'c ClassAd) -> MatchAd<'c> {
        MatchAd { options, left, right }
    }

    /// The left ad.
    pub fn left(&self) -> &'c ClassAd {
        self.left
    }

    /// The right ad.
    pub fn right(&self) -> &'c ClassAd {
        self.right
    }

    /// The evaluation context of the left ad (MY = left, TARGET = right).
    pub fn left_context(&self) -> EvalContext<'c> {
        EvalContext::new(self.options).my(self.left).target(self.right)
    }

    /// The evaluation context of the right ad (MY = right, TARGET = left).
    pub fn right_context(&self) -> EvalContext<'c> {
        EvalContext::new(self.options).my(self.right).target(self.left)
    }

    /// Whether the left ad's `Requirements` is `true` against the right ad.
    pub fn left_matches_right(&self) -> bool {
        accepts(self.left, self.left_context())
    }

    /// Whether the right ad's `Requirements` is `true` against the left ad.
    pub fn right_matches_left(&self) -> bool {
        accepts(self.right, self.right_context())
    }

    /// Whether each ad's `Requirements` is `true` against the other (the
    /// left side is evaluated first, and the right only when it holds).
    pub fn symmetric_match(&self) -> bool {
        self.left_matches_right() && self.right_matches_left()
    }

    /// The left ad's `Rank` of the right ad (see [`rank_value`]).
    pub fn left_rank(&self) -> f64 {
        rank_of(self.left, self.left_context())
    }

    /// The right ad's `Rank` of the left ad.
    pub fn right_rank(&self) -> f64 {
        rank_of(self.right, self.right_context())
    }
}

/// Whether `ad`'s own `Requirements` (never the other ad's, whatever the
/// semantics) is true in `context`; an ad without one accepts nothing.
fn accepts(ad: &ClassAd, context: EvalContext<'_>) -> bool {
    ad.lookup(requirements()).is_some_and(|expr| context.is_true(expr))
}

/// `ad`'s own `Rank` in `context`, as a number; 0.0 without one.
fn rank_of(ad: &ClassAd, context: EvalContext<'_>) -> f64 {
    ad.lookup(rank()).map_or(0.0, |expr| rank_value(&context.eval(expr)))
}

/// A `Rank` value as a number: integers and reals as they are, booleans as
/// 1.0 or 0.0, anything else (UNDEFINED, ERROR, strings, lists) 0.0.
///
/// ```
/// use classad::{matching::rank_value, Value};
/// assert_eq!(rank_value(&Value::Int(3)), 3.0);
/// assert_eq!(rank_value(&Value::Bool(true)), 1.0);
/// assert_eq!(rank_value(&Value::Undefined), 0.0);
/// ```
pub fn rank_value(value: &Value) -> f64 {
    match value {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// The interned `Requirements`, looked up once.
pub fn requirements() -> Name {
    static NAME: OnceLock<Name> = OnceLock::new();
    *NAME.get_or_init(|| Name::new(REQUIREMENTS))
}

/// The interned `Rank`, looked up once.
pub fn rank() -> Name {
    static NAME: OnceLock<Name> = OnceLock::new();
    *NAME.get_or_init(|| Name::new(RANK))
}
