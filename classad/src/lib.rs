//! # classad
//!
//! The HTCondor ClassAd language: parse, evaluate, print and match
//! ClassAds, with libclassad's semantics and a good deal more speed.
//!
//! ```
//! use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};
//!
//! let job: ClassAd = r#"[
//!     RequestMemory = 2048;
//!     Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64"
//! ]"#.parse()?;
//! let machine: ClassAd = r#"[ Memory = 4096; Arch = "x86_64" ]"#.parse()?;
//!
//! let opts = EvalOptions::new().semantics(Semantics::Old);
//! let ctx = EvalContext::new(&opts).my(&job).target(&machine);
//! assert_eq!(ctx.eval_attr("Requirements"), Value::Bool(true));
//! # Ok::<(), classad::ParseError>(())
//! ```
//!
//! ## Map of the crate
//! * [`parse_expr`], [`parse_ad`], [`Parser`]: text to [`Expr`] and
//!   [`ClassAd`] (new syntax, or old with [`Syntax::Old`]), with errors
//!   that give line, column and what was expected; [`AttributeParser`]:
//!   `Name = value` strings of many ads in a row (CEDAR's wire format),
//!   with caches of names and values shared between the ads.
//! * [`Expr`]: an immutable, cheaply cloned expression tree; `Display`
//!   prints it exactly as libclassad unparses ([`Expr::display`] in old
//!   syntax).
//! * [`ClassAd`]: named expressions, case-insensitive and case-preserving,
//!   in insertion order, optionally chained to a parent ad.
//! * [`EvalContext`], [`EvalOptions`], [`Semantics`]: evaluation against a
//!   MY ad and, in a match, a TARGET ad, with old or new semantics as an
//!   explicit choice.
//! * [`Value`]: what evaluation produces.
//! * [`Prepared`]: one expression evaluated against many ads (a job's
//!   `Requirements` against a pool), folded and compiled once; it owns
//!   what it evaluates (the MY ad shared behind an `Arc`), so it can be
//!   stored and shared between threads ([`eval::Unbound`]: the same
//!   without the ad, for a caller that keeps it). [`eval::Columns`] and
//!   [`eval::ColumnKernel`] evaluate its conditions over many ads' values
//!   at once (what batch matching, in the `matchmaker` crate, runs on).
//! * [`format`](mod@format): streams of ads in HTCondor's old ("long"), new, JSON and
//!   XML formats, read ([`format::Reader`], with detection) and written
//!   ([`format::Writer`]).
//! * [`to_ad`], [`from_ad`] (feature `serde`, on by default): Rust values
//!   to and from ads.
//! * [`functions`]: the built-in function library; [`builtins`]: the
//!   catalog of the built-ins (name, id, arity, purity, result type), which
//!   the parser, the linter and the preparer read without the evaluator.
//! * [`matching`]: two ads side by side as the negotiator sees them
//!   ([`matching::MatchAd`]: each side's `Requirements` and `Rank`).
//!   One request against many ads (batch matching) is the `matchmaker`
//!   crate's `matching::Pool`.
//! * [`flatten`](mod@flatten): partial evaluation, as libclassad's
//!   `Flatten` (`classad simplify`).
//! * [`references`]: the attributes an expression refers to in an ad,
//!   inside and outside it (libclassad's internal and external
//!   references).
//! * [`analysis`]: why a job does not match (`condor_q -analyze`): the
//!   disjoint counts, each condition's machines, missing attributes,
//!   suggestions ([`analysis::analyze`]).
//! * [`lint`]: mistakes in policy expressions (`x == UNDEFINED`,
//!   precedence traps, unknown functions and attributes, ...).
//! * [`printf`]: C's printf conversions (`%d`, `%.3f`, `%g`, ...) parsed
//!   once and formatted as glibc formats them, which HTCondor's tools use
//!   for numbers.
//! * [`usermap`]: the maps behind `userMap()` (HTCondor's classad map
//!   files, registered by name) and the home-directory lookup behind
//!   `userHome()`.
//! * [`AbsTime`], [`RelTime`]: time values.
//! * [`Name`]: interned, case-insensitive attribute names.
//!
//! ## Untrusted input
//! Every input is bounded, with defaults real pools never reach:
//! [`ParseLimits`] (nesting, text size), [`format::ReadLimits`] (bytes per
//! ad in a stream), [`EvalLimits`] (depth, steps, sizes of built strings,
//! lists and regular expressions) and [`NameLimits`] (the process-wide
//! table of interned names). Exceeding one is a [`ParseError`], a
//! [`format::FormatError`] or the value ERROR, never a panic or a hang.
//!
//! The semantics follow HTCondor's libclassad; deliberate differences are
//! listed in `docs/divergences.md` of the repository.

mod ad;
pub mod analysis;
pub mod bounded_file;
pub mod builtins;
pub mod eval;
pub mod excerpt;
mod expr;
pub mod flatten;
pub mod format;
pub mod functions;
pub mod lexer;
pub mod lint;
pub mod matching;
mod name;
mod parser;
mod print;
pub mod printf;
pub mod references;
#[cfg(feature = "serde")]
pub mod serde;
mod text;
mod time;
pub mod usermap;
mod value;

#[cfg(feature = "serde")]
pub use crate::serde::{from_ad, from_ad_with, to_ad};
pub use ad::{prefetch, ClassAd, Iter};
pub use eval::{Clock, EvalContext, EvalLimits, EvalOptions, Prepared, RandomSource, Semantics};
pub use expr::{BinaryOp, Call, Children, Expr, Literal, Node, UnaryOp};
pub use name::{interned_count, AttrKey, Name, NameLimits, TooManyNames};
pub use parser::{
    parse_ad, parse_expr, AttributeError, AttributeParser, ParseError, ParseErrorKind, ParseLimits, Parser, Syntax,
    ValueCacheLimits,
};
pub use print::Displayed;
pub use text::Text;
pub use time::{local_offset, AbsTime, RelTime};
pub use usermap::MapFile;
pub use value::Value;

/// The code in this crate's README, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeExamples;
