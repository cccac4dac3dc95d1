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

mod attributes;
mod cycles;
mod finding;
mod guarded;
mod pass;
mod reference;
mod rules;
mod types;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::ad::ClassAd;
use crate::expr::{Expr, Literal};
use crate::name::Name;

use cycles::cycles;
pub use finding::{Finding, Kind, Severity};
pub(crate) use guarded::collect_guarded;
pub use guarded::guarded_names;
use pass::{Context, Pass};
use types::{literal_of, literal_type, Type};

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
