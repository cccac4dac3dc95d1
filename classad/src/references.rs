//! The attributes an expression refers to, in the context of an ad:
//! libclassad's external and internal references.
//!
//! * [`external`]: what the expression needs from *outside* the ad: names
//!   the ad does not define, and `scope.name` where the scope is UNDEFINED
//!   outside a match (`TARGET.Memory`). References the ad resolves are
//!   followed into their expressions, so `Requirements = START` reports
//!   what `START` needs.
//! * [`internal`]: the ad's *own* attributes the expression uses, followed
//!   the same way.
//!
//! Both are what libclassad's `GetExternalReferences` and
//! `GetInternalReferences` give with full names (as HTCondor's Python
//! bindings `externalRefs`/`internalRefs` return them): names as first
//! written, one per name whatever its case, in case-insensitive order.
//! [`trim`] and [`trim_all`] turn them into plain attribute names as
//! HTCondor's daemons do (`TARGET.Memory` becomes `Memory`).
//!
//! These define autoclusters: HTCondor's negotiator takes the trimmed
//! external references of every expression of the machine ads (what the
//! machines' `START`, `Requirements`, `Rank` read from a job), and the
//! schedd groups jobs by the values of those attributes and of the job's
//! own attributes they use (their internal references). Jobs alike in all
//! of them match the same machines.
//!
//! When libclassad cannot determine the references it reports failure
//! rather than a partial list, and so do [`external`] and [`internal`]
//! ([`ReferenceError`]): a cycle (`A = B; B = A`), a selection from a value
//! that is not an ad (`"x".y`, or from a list: `{[a = 1]}.a`), or a search
//! too deep or too long (see `reference-depth` in `docs/divergences.md`).
//! HTCondor's daemons then go on without them.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Expr};
//! use classad::references::{external, internal, trim, Side};
//!
//! let job: ClassAd = "[ RequestMemory = 2048; Slack = RequestMemory / 8;
//!     Requirements = TARGET.Memory >= RequestMemory + Slack && Owner =!= Banned ]".parse()?;
//! let requirements = job.lookup("Requirements").cloned().expect("Requirements");
//! let opts = EvalOptions::new();
//! assert_eq!(external(&opts, &job, &requirements)?, ["Banned", "Owner", "TARGET.Memory"]);
//! assert_eq!(internal(&opts, &job, &requirements)?, ["RequestMemory", "Slack"]);
//! assert_eq!(trim("TARGET.Memory", Side::External), "Memory");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::ad::ClassAd;
use crate::eval::{EvalContext, EvalOptions, References};
use crate::expr::Expr;

/// The references could not be determined, as libclassad reports: the
/// expression refers in a cycle (`A = B; B = A`) or too deeply, or selects
/// an attribute from something that is neither an ad nor UNDEFINED
/// (`"x".y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the attribute references cannot be determined (a cycle, too deep, or a selection from a value that is not an ad)"
)]
pub struct ReferenceError;

/// The attributes `expr`, evaluated in `ad`, needs from outside `ad`.
///
/// `expr` is taken as written outside `ad` (as an expression given to
/// libclassad's `GetExternalReferences` is): an ad written in it has no
/// enclosing scope, though `.x` and `root` still name `ad`.
///
/// ```
/// use classad::{ClassAd, EvalOptions};
/// let ad: ClassAd = "[ A = B; B = A ]".parse()?;
/// let cycle = ad.lookup("A").cloned().expect("A");
/// assert!(classad::references::external(&EvalOptions::new(), &ad, &cycle).is_err());
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn external(options: &EvalOptions, ad: &ClassAd, expr: &Expr) -> Result<Vec<String>, ReferenceError> {
    EvalContext::new(options).my(ad).external_references(expr).ok_or(ReferenceError)
}

/// The attributes of `ad` that `expr`, evaluated in `ad`, uses: those it
/// names and, followed into their expressions, the ones those use.
///
/// ```
/// use classad::{ClassAd, EvalOptions};
/// let ad: ClassAd = "[ Cpus = 4; Memory = Cpus * 2048; Slot = [ Mem = Memory ] ]".parse()?;
/// let expr = "Slot.Mem > TARGET.RequestMemory".parse()?;
/// assert_eq!(classad::references::internal(&EvalOptions::new(), &ad, &expr)?, ["Cpus", "Memory", "Slot"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn internal(options: &EvalOptions, ad: &ClassAd, expr: &Expr) -> Result<Vec<String>, ReferenceError> {
    EvalContext::new(options).my(ad).internal_references(expr).ok_or(ReferenceError)
}

/// Which kind of reference a name is, for [`trim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// From [`external`]: a scope naming the other ad of a match is
    /// dropped.
    External,
    /// From [`internal`].
    Internal,
}

/// A reference as the plain attribute name HTCondor's daemons use:
/// for external references the scope naming the other ad (`TARGET.`,
/// `other.`) is dropped, and a leading `.` in both; then the name stops
/// at the next `.` or `[`.
///
/// ```
/// use classad::references::{trim, Side};
/// assert_eq!(trim("TARGET.Memory", Side::External), "Memory");
/// assert_eq!(trim("other.Disk", Side::External), "Disk");
/// assert_eq!(trim("Catalogs.Size", Side::External), "Catalogs");
/// assert_eq!(trim("TARGET.Memory", Side::Internal), "TARGET");
/// ```
pub fn trim(name: &str, side: Side) -> &str {
    if side == Side::External {
        for prefix in ["target.", "other.", ".left.", ".right."] {
            let bytes = name.as_bytes();
            if bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes()) {
                // The prefix is ASCII, so this is a character boundary.
                return cut(&name[prefix.len()..]);
            }
        }
    }
    cut(name.strip_prefix('.').unwrap_or(name))
}

/// Every name of `names` trimmed with [`trim`], as HTCondor's
/// `TrimReferenceNames` does to a set of references: one per name whatever
/// its case (the first spelling in `names` is kept), in case-insensitive
/// order. This is how a negotiator turns the external references of the
/// machines' expressions into the "significant attributes" of jobs.
///
/// ```
/// use classad::references::{trim_all, Side};
/// let names = [".Disk", ".left.Outer.Inner", "Name", "Parent.Child", "TARGET.Rank", "target.name"];
/// assert_eq!(trim_all(&names, Side::External), ["Disk", "Name", "Outer", "Parent", "Rank"]);
/// assert_eq!(trim_all(&names, Side::Internal), ["Disk", "left", "Name", "Parent", "TARGET"]);
/// ```
pub fn trim_all<S: AsRef<str>>(names: &[S], side: Side) -> Vec<String> {
    let mut set = References::default();
    for name in names {
        set.insert(trim(name.as_ref(), side).to_owned());
    }
    set.iter().map(str::to_owned).collect()
}

/// `name` up to its first `.` or `[`.
fn cut(name: &str) -> &str {
    name.find(['.', '[']).map_or(name, |end| &name[..end])
}
