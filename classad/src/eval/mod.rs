//! Evaluation: expressions to values, in the context of a MY ad and,
//! in a match, a TARGET ad.
//!
//! Evaluation is a pure function of the expression, the ads and the
//! [`EvalOptions`]. The options carry the semantics (old or new), the clock
//! and the limits; there is no global state, so two threads may evaluate
//! with different semantics at once. (The one exception is diagnostic:
//! [`take_error_reason`] gives libclassad's message for an ERROR that has
//! one; values never depend on it.)
//!
//! ## Scoping
//! An unscoped name is looked up in the ad the expression belongs to, then
//! in the ads it is lexically nested in. Where a level lacks the name, the
//! special names resolve there: `self` (that ad), `parent` (the ad it is
//! nested in), `root`/`toplevel` (the outermost ad) and, in old semantics,
//! `MY` (that ad) and `CurrentTime`. In a match, the outermost level also
//! knows `MY`/`ad` (this side's ad) and `TARGET`/`other` (the other ad).
//! With old semantics, a name that is still missing and was referenced from
//! a top-level ad of a match is looked up in the other ad.
//!
//! A reference to an attribute that is already being evaluated (a cycle)
//! is ERROR. Evaluation depth and the number of steps are bounded by
//! [`EvalLimits`]; exceeding either makes the whole result ERROR.

mod flatten;
mod ops;
mod prepared;
mod reason;
mod references;
pub(crate) mod val;

use std::cell::OnceCell;
use std::sync::OnceLock;

use smallvec::SmallVec;
use typed_arena::Arena;

use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Node, Repr};
use crate::name::{reserved, AttrKey, Name};
use crate::value::Value;

pub(crate) use ops::binary as binary_op;
pub(crate) use ops::identical;
pub use prepared::{ColumnKernel, Columns, Truth, BLOCK};
pub use prepared::{Preparation, PrepareCache, Prepared, Unbound};
pub use reason::take_error_reason;
pub(crate) use references::References;
pub(crate) use val::{Frame, List, Side, StrVal, Val};

/// Which of the two ClassAd semantics to evaluate with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// New ClassAds (libclassad's default, `STRICT_CLASSAD_EVALUATION = true`):
    /// unscoped names are looked up only in the ad and its lexical parents.
    #[default]
    New,
    /// Old ClassAds, as HTCondor's daemons and tools evaluate: an unscoped
    /// name missing from MY is looked up in TARGET, `MY` names the current
    /// ad, and `CurrentTime` is the current time.
    Old,
}

/// Where `time()` and `CurrentTime` get the time from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// The system clock, read once per evaluation (all the `time()` and
    /// `CurrentTime` of one expression's evaluation see the same second;
    /// libclassad reads it at each call: `clock-per-evaluation` in
    /// `docs/divergences.md`).
    #[default]
    System,
    /// A fixed instant (seconds since the epoch), for tests and simulation.
    Fixed(i64),
}

impl Clock {
    /// The current time in seconds since the epoch.
    pub fn now(self) -> i64 {
        match self {
            Clock::System => jiff::Timestamp::now().as_second(),
            Clock::Fixed(secs) => secs,
        }
    }
}

/// Where `random()` gets its numbers from.
///
/// ```
/// use classad::{EvalOptions, RandomSource};
/// let opts = EvalOptions::new().random(RandomSource::Seeded(7));
/// let e = classad::parse_expr("random(1000)").unwrap();
/// // A seeded source starts over in every evaluation.
/// assert_eq!(e.eval_with(&opts), e.eval_with(&opts));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RandomSource {
    /// A generator per thread, seeded once from the process's random
    /// hashing keys.
    #[default]
    Entropy,
    /// A generator started from this seed at the beginning of every
    /// evaluation, for tests and simulations.
    Seeded(u64),
}

/// One step of SplitMix64: advances `state` and gives the next number.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Bounds on one evaluation. Exceeding any of them makes the whole
/// evaluation ERROR (it stops there), so that hostile expressions cost
/// bounded time and memory.
///
/// ```
/// use classad::{ClassAd, EvalLimits, EvalOptions, Value};
/// let ad: ClassAd = r#"[ s = "0123456789"; t = strcat(s, s, s) ]"#.parse()?;
/// let tight = EvalOptions::new().limits(EvalLimits { max_string: 20, ..EvalLimits::default() });
/// assert_eq!(ad.eval_attr_with("t", &tight), Value::Error);
/// assert_eq!(ad.eval_attr("t").as_str().map(str::len), Some(30));
/// # Ok::<(), classad::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalLimits {
    /// Maximum nesting of evaluation (sub-expressions plus attribute
    /// references followed).
    pub max_depth: u32,
    /// Maximum number of steps: expression nodes evaluated, plus one per
    /// 64 bytes of the strings and one per item of the lists that
    /// functions build.
    pub max_steps: u64,
    /// The longest string a function may build, in bytes.
    pub max_string: usize,
    /// The most items of a list a function may build (list literals are
    /// bounded by the parser's input size instead).
    pub max_list: usize,
    /// The longest regular-expression pattern, in bytes (a compiled
    /// pattern is also held under 1 MiB); a longer one is invalid.
    pub max_regex: usize,
}

impl Default for EvalLimits {
    /// 2,000 levels, 10 million steps, strings of 16 MiB, lists of 1 Mi
    /// items, patterns of 64 KiB.
    fn default() -> EvalLimits {
        EvalLimits {
            max_depth: 2000,
            max_steps: 10_000_000,
            max_string: 16 << 20,
            max_list: 1 << 20,
            max_regex: 64 << 10,
        }
    }
}

/// How to evaluate: semantics, clock, limits and the source of `random()`.
///
/// ```
/// use classad::{Clock, EvalOptions, Semantics};
/// let opts = EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(1_700_000_000));
/// let v = classad::parse_expr("CurrentTime").unwrap().eval_with(&opts);
/// assert_eq!(v, classad::Value::Int(1_700_000_000));
/// ```
#[derive(Clone, Debug, Default)]
pub struct EvalOptions {
    /// Old or new semantics.
    pub semantics: Semantics,
    /// The time source.
    pub clock: Clock,
    /// Depth and step bounds.
    pub limits: EvalLimits,
    /// Where `random()` gets its numbers from.
    pub random: RandomSource,
}

/// A shared copy of the options, as [`Prepared`] holds them (so that
/// `Prepared::new(&options, ...)` works as well as with an
/// `Arc<EvalOptions>`).
impl From<&EvalOptions> for std::sync::Arc<EvalOptions> {
    fn from(options: &EvalOptions) -> std::sync::Arc<EvalOptions> {
        std::sync::Arc::new(options.clone())
    }
}

impl EvalOptions {
    /// New semantics, the system clock, default limits.
    pub fn new() -> EvalOptions {
        EvalOptions::default()
    }

    /// Sets the semantics.
    pub fn semantics(mut self, semantics: Semantics) -> EvalOptions {
        self.semantics = semantics;
        self
    }

    /// Sets the clock.
    pub fn clock(mut self, clock: Clock) -> EvalOptions {
        self.clock = clock;
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: EvalLimits) -> EvalOptions {
        self.limits = limits;
        self
    }

    /// Sets the source of `random()`.
    pub fn random(mut self, random: RandomSource) -> EvalOptions {
        self.random = random;
        self
    }
}

fn default_options() -> &'static EvalOptions {
    static DEFAULT: OnceLock<EvalOptions> = OnceLock::new();
    DEFAULT.get_or_init(EvalOptions::default)
}

/// The ads an expression is evaluated against, and the options.
///
/// ```
/// use classad::{ClassAd, EvalContext, EvalOptions, Value};
/// let job: ClassAd = "[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]".parse().unwrap();
/// let machine: ClassAd = "[ Memory = 2048 ]".parse().unwrap();
/// let opts = EvalOptions::new();
/// let ctx = EvalContext::new(&opts).my(&job).target(&machine);
/// assert_eq!(ctx.eval_attr("Requirements"), Value::Bool(true));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EvalContext<'c> {
    options: &'c EvalOptions,
    my: Option<&'c ClassAd>,
    target: Option<&'c ClassAd>,
}

impl<'c> EvalContext<'c> {
    /// A context with no ads.
    pub fn new(options: &'c EvalOptions) -> EvalContext<'c> {
        EvalContext { options, my: None, target: None }
    }

    /// Sets the MY ad: the ad the expression belongs to.
    pub fn my(mut self, ad: &'c ClassAd) -> EvalContext<'c> {
        self.my = Some(ad);
        self
    }

    /// Sets the TARGET ad: the other ad of a match.
    pub fn target(mut self, ad: &'c ClassAd) -> EvalContext<'c> {
        self.target = Some(ad);
        self
    }

    /// Evaluates `expr`.
    pub fn eval(&self, expr: &Expr) -> Value {
        self.run(Subject::Expr(expr), |v| v.into_value())
    }

    /// Evaluates the attribute `name` of the MY ad (UNDEFINED if missing).
    pub fn eval_attr(&self, name: impl AttrKey) -> Value {
        // A name nothing has interned is in no ad.
        match name.find_name() {
            Some(name) => self.run(Subject::Attr(name), |v| v.into_value()),
            None => Value::Undefined,
        }
    }

    /// Evaluates `expr` and reads it as a condition: true for `true` and
    /// non-zero numbers, false for everything else. Allocates nothing for
    /// the usual Requirements-style expressions.
    pub fn is_true(&self, expr: &Expr) -> bool {
        self.run(Subject::Expr(expr), |v| v.truth() == Some(true))
    }

    /// The attributes `expr` needs from outside this context's MY ad, as
    /// `unresolved()` finds them (`None` when the search fails); see
    /// [`crate::references`].
    pub(crate) fn external_references(&self, expr: &Expr) -> Option<Vec<String>> {
        self.references(expr, false)
    }

    /// The attributes of this context's MY ad that `expr` uses (`None`
    /// when the search fails); see [`crate::references`].
    pub(crate) fn internal_references(&self, expr: &Expr) -> Option<Vec<String>> {
        self.references(expr, true)
    }

    /// `expr` flattened in the MY ad's scope, outside any match (see
    /// [`crate::flatten`]): its value, or what is left of it; `None` when
    /// flattening fails (a cycle, or too deep).
    pub(crate) fn flatten(&self, expr: &Expr) -> Option<Result<Value, Expr>> {
        let empty = ClassAd::new();
        let my_frame = Frame { ad: self.my.unwrap_or(&empty), parent: None, side: Side::Detached };
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), None);
        let part = ev.flatten(expr, &my_frame)?;
        if ev.failed() {
            return None;
        }
        Some(part.into_result())
    }

    /// The internal or external references of `expr` in the MY ad's
    /// scope, outside any match.
    fn references(&self, expr: &Expr, internal: bool) -> Option<Vec<String>> {
        let empty = ClassAd::new();
        let my_frame = Frame { ad: self.my.unwrap_or(&empty), parent: None, side: Side::Detached };
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), None);
        let mut refs = References::default();
        let complete = if internal {
            ev.internal_references(expr, &my_frame, &mut refs)
        } else {
            ev.external_references(expr, &my_frame, &mut refs)
        };
        (complete && !ev.failed()).then(|| refs.iter().map(str::to_owned).collect())
    }

    /// Evaluates the attribute `name` of the MY ad as a condition, like
    /// [`is_true`](Self::is_true).
    pub fn attr_is_true(&self, name: impl AttrKey) -> bool {
        name.find_name().is_some_and(|name| self.run(Subject::Attr(name), |v| v.truth() == Some(true)))
    }

    /// Sets up the scopes of the MY and TARGET ads, evaluates `subject`
    /// and hands the value (ERROR if a limit was exceeded) to `finish`.
    fn run<R>(&self, subject: Subject<'_>, finish: impl for<'a> FnOnce(Val<'a>) -> R) -> R {
        // Without a MY ad, an empty ad is the root scope (as libclassad's
        // holder ad is): `[a = root.x].a` is then UNDEFINED.
        let empty = ClassAd::new();
        let my_ad = self.my.unwrap_or(&empty);
        let side = if self.target.is_some() { Side::My } else { Side::Detached };
        let my_frame = Frame { ad: my_ad, parent: None, side };
        let target_frame = self.target.map(|ad| Frame { ad, parent: None, side: Side::Target });
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), target_frame.as_ref());
        let value = match subject {
            Subject::Expr(expr) => ev.eval(expr, &my_frame),
            Subject::Attr(name) => ev.attr(name, &my_frame),
        };
        finish(if ev.failed() { Val::Error } else { value })
    }
}

/// What [`EvalContext::run`] evaluates.
enum Subject<'s> {
    Expr(&'s Expr),
    Attr(Name),
}

impl Expr {
    /// Evaluates with new semantics, no ads and default options.
    ///
    /// ```
    /// use classad::{Expr, Value};
    /// let e: Expr = "strcat(\"a\", 1 + 1)".parse().unwrap();
    /// assert_eq!(e.eval(), Value::from("a2"));
    /// ```
    pub fn eval(&self) -> Value {
        EvalContext::new(default_options()).eval(self)
    }

    /// Evaluates with the given options and no ads.
    pub fn eval_with(&self, options: &EvalOptions) -> Value {
        EvalContext::new(options).eval(self)
    }

    /// Evaluates in the scope of `my` with default options.
    ///
    /// ```
    /// use classad::{ClassAd, Expr, Value};
    /// let ad: ClassAd = "[ Cpus = 4 ]".parse().unwrap();
    /// let e: Expr = "Cpus * 2".parse().unwrap();
    /// assert_eq!(e.eval_in(&ad), Value::Int(8));
    /// ```
    pub fn eval_in(&self, my: &ClassAd) -> Value {
        EvalContext::new(default_options()).my(my).eval(self)
    }
}

impl ClassAd {
    /// Evaluates the attribute `name` with default options (UNDEFINED if
    /// the ad lacks it).
    pub fn eval_attr(&self, name: impl AttrKey) -> Value {
        EvalContext::new(default_options()).my(self).eval_attr(name)
    }

    /// Evaluates the attribute `name` with the given options.
    pub fn eval_attr_with(&self, name: impl AttrKey, options: &EvalOptions) -> Value {
        EvalContext::new(options).my(self).eval_attr(name)
    }

    /// Evaluates `expr` in the scope of this ad with default options.
    pub fn eval_expr(&self, expr: &Expr) -> Value {
        EvalContext::new(default_options()).my(self).eval(expr)
    }

    /// The attribute evaluated to a string, as HTCondor's
    /// `ClassAd::LookupString` gives it (`None` if absent or not a string).
    ///
    /// ```
    /// let ad: classad::ClassAd = r#"[ Name = "slot1@node"; Owner = Name ]"#.parse().unwrap();
    /// assert_eq!(ad.lookup_string("Owner").as_deref(), Some("slot1@node"));
    /// assert_eq!(ad.lookup_string("Missing"), None);
    /// ```
    pub fn lookup_string(&self, name: impl AttrKey) -> Option<String> {
        match self.eval_attr(name) {
            Value::Str(s) => Some(s.as_str().to_owned()),
            _ => None,
        }
    }

    /// The attribute evaluated to an integer, as `ClassAd::LookupInteger`
    /// gives it: a boolean counts as 0 or 1 and a real is truncated.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[ Cpus = 4; Half = Cpus / 2.0; On = true ]".parse().unwrap();
    /// assert_eq!(ad.lookup_integer("Half"), Some(2));
    /// assert_eq!(ad.lookup_integer("On"), Some(1));
    /// ```
    pub fn lookup_integer(&self, name: impl AttrKey) -> Option<i64> {
        match self.eval_attr(name) {
            Value::Int(i) => Some(i),
            Value::Bool(b) => Some(i64::from(b)),
            Value::Real(r) if r.is_finite() => Some(r as i64),
            _ => None,
        }
    }

    /// The attribute evaluated to a number, as `ClassAd::LookupFloat`
    /// gives it (a boolean counts as 0 or 1).
    pub fn lookup_float(&self, name: impl AttrKey) -> Option<f64> {
        self.eval_attr(name).as_f64()
    }

    /// The attribute evaluated to a boolean, as `ClassAd::LookupBool`
    /// gives it: a number counts as true when it is not zero.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[ WantClaiming = false; N = 2 ]".parse().unwrap();
    /// assert_eq!(ad.lookup_bool("WantClaiming"), Some(false));
    /// assert_eq!(ad.lookup_bool("N"), Some(true));
    /// ```
    pub fn lookup_bool(&self, name: impl AttrKey) -> Option<bool> {
        match self.eval_attr(name) {
            Value::Bool(b) => Some(b),
            Value::Int(i) => Some(i != 0),
            Value::Real(r) => Some(r != 0.0),
            _ => None,
        }
    }
}

/// Storage for what an evaluation creates and must keep until it ends:
/// scopes of nested ads, expressions parsed by `eval()` and ads built by
/// functions (`splitTime`). Each arena is
/// created on first use, so most evaluations allocate nothing.
pub(crate) struct Keep<'a> {
    frames: OnceCell<Arena<Frame<'a>>>,
    exprs: OnceCell<Arena<Expr>>,
    ads: OnceCell<Arena<ClassAd>>,
}

impl<'a> Keep<'a> {
    fn new() -> Keep<'a> {
        Keep { frames: OnceCell::new(), exprs: OnceCell::new(), ads: OnceCell::new() }
    }
}

/// Which branch a condition selects: an UNDEFINED condition gives
/// UNDEFINED, and anything that is not a boolean or number ERROR.
pub(crate) fn branch(cond: Val<'_>) -> Result<bool, Val<'static>> {
    match cond {
        Val::Undefined => Err(Val::Undefined),
        c => c.truth().ok_or(Val::Error),
    }
}

/// How often (in levels of nesting) the evaluator checks that enough stack
/// is left, growing it on the heap when not, and how much it wants left
/// (generous, for unoptimised builds) and allocates.
const STACK_CHECK_INTERVAL: u32 = 8;
pub(crate) const STACK_RED_ZONE: usize = 256 * 1024;
pub(crate) const STACK_GROWTH: usize = 4 * 1024 * 1024;

/// The result of looking a name up in a scope chain.
enum Found<'a> {
    /// An attribute's expression and the scope it is to be evaluated in.
    Expr(&'a Expr, &'a Frame<'a>),
    /// A special name's value.
    Value(Val<'a>),
    /// Not defined anywhere in the chain.
    Missing,
}

/// The state of one evaluation.
pub(crate) struct Evaluator<'a> {
    pub(crate) options: &'a EvalOptions,
    keep: &'a Keep<'a>,
    my: Option<&'a Frame<'a>>,
    target: Option<&'a Frame<'a>>,
    /// Addresses of the attribute expressions being evaluated, to detect cycles.
    active: SmallVec<[usize; 16]>,
    depth: u32,
    steps: u64,
    /// The step limit; set to zero when any limit is exceeded, which fails
    /// the rest of the evaluation (its result is then ERROR).
    max_steps: u64,
    /// The state of a seeded `random()` generator, from its first use.
    seeded_random: Option<u64>,
    /// The clock's reading, from the first time the evaluation asked.
    now: std::cell::Cell<Option<i64>>,
}

impl<'a> Evaluator<'a> {
    fn new(
        options: &'a EvalOptions,
        keep: &'a Keep<'a>,
        my: Option<&'a Frame<'a>>,
        target: Option<&'a Frame<'a>>,
    ) -> Evaluator<'a> {
        Evaluator {
            options,
            keep,
            my,
            target,
            active: SmallVec::new(),
            depth: 0,
            steps: 0,
            max_steps: options.limits.max_steps,
            seeded_random: None,
            now: std::cell::Cell::new(None),
        }
    }

    fn in_match(&self) -> bool {
        self.target.is_some()
    }

    /// Keeps a scope alive until the evaluation ends.
    pub(crate) fn keep_frame(&self, frame: Frame<'a>) -> &'a Frame<'a> {
        self.keep.frames.get_or_init(Arena::new).alloc(frame)
    }

    /// An ad built during evaluation, as a value (kept until the evaluation
    /// ends; it has no enclosing scope).
    pub(crate) fn new_ad(&self, ad: ClassAd) -> Val<'a> {
        let ad = self.keep.ads.get_or_init(Arena::new).alloc(ad);
        Val::Ad(self.keep_frame(Frame { ad, parent: None, side: Side::Detached }))
    }

    /// Keeps an expression alive until the evaluation ends.
    pub(crate) fn keep_expr(&self, expr: Expr) -> &'a Expr {
        self.keep.exprs.get_or_init(Arena::new).alloc(expr)
    }

    /// A value for a nested ad whose lexical parent is `parent`.
    pub(crate) fn nested_ad(&self, ad: &'a ClassAd, parent: &'a Frame<'a>) -> Val<'a> {
        Val::Ad(self.keep_frame(Frame { ad, parent: Some(parent), side: parent.side }))
    }

    /// Counts what building `value` cost, when a function built a string
    /// or a list (a step per 64 bytes, a step per item), and fails the
    /// evaluation when it is larger than the limits allow.
    #[inline]
    fn charge(&mut self, value: Val<'a>) -> Val<'a> {
        match &value {
            Val::Str(StrVal::Owned(_)) | Val::List(List::Values(_)) => self.charge_built(value),
            _ => value,
        }
    }

    #[cold]
    fn charge_built(&mut self, value: Val<'a>) -> Val<'a> {
        let limits = &self.options.limits;
        let (cost, within) = match &value {
            Val::Str(StrVal::Owned(text)) => (text.len() / 64, text.len() <= limits.max_string),
            Val::List(List::Values(items)) => (items.len(), items.len() <= limits.max_list),
            _ => return value,
        };
        self.steps = self.steps.saturating_add(cost as u64);
        if !within || self.steps > self.max_steps {
            return self.fail();
        }
        value
    }

    /// Appends `piece` to `out`, a string a function is building, unless
    /// that would make it longer than the limit: then fails the evaluation
    /// and gives false.
    pub(crate) fn append(&mut self, out: &mut String, piece: &str) -> bool {
        if out.len() + piece.len() > self.options.limits.max_string {
            self.fail();
            return false;
        }
        out.push_str(piece);
        true
    }

    /// Gives up on the whole evaluation.
    fn fail(&mut self) -> Val<'a> {
        self.max_steps = 0;
        Val::Error
    }

    /// True once a limit has been exceeded.
    fn failed(&self) -> bool {
        self.max_steps == 0
    }

    /// The next 64 random bits per the options' random source.
    pub(crate) fn random_u64(&mut self) -> u64 {
        match self.options.random {
            RandomSource::Seeded(seed) => splitmix64(self.seeded_random.get_or_insert(seed)),
            RandomSource::Entropy => {
                thread_local! {
                    static STATE: std::cell::Cell<u64> = std::cell::Cell::new({
                        use std::hash::{BuildHasher, Hasher};
                        std::collections::hash_map::RandomState::new().build_hasher().finish()
                    });
                }
                STATE.with(|state| {
                    let mut s = state.get();
                    let value = splitmix64(&mut s);
                    state.set(s);
                    value
                })
            }
        }
    }

    /// The current time per the options' clock, read once per evaluation:
    /// every `time()` and `CurrentTime` of one evaluation sees the same
    /// second (and a policy with several pays for one clock reading).
    pub(crate) fn now(&self) -> i64 {
        match self.now.get() {
            Some(now) => now,
            None => {
                let now = self.options.clock.now();
                self.now.set(Some(now));
                now
            }
        }
    }

    /// Evaluates `expr` in the scope `frame`.
    pub(crate) fn eval(&mut self, expr: &'a Expr, frame: &'a Frame<'a>) -> Val<'a> {
        match &expr.0 {
            Repr::Lit(literal) => Val::from_literal(literal),
            // A reference takes no level of its own: the expression it finds
            // is evaluated one level deeper.
            Repr::Node(node) => match &node.node {
                Node::Attr(name) => self.attr(*name, frame),
                node => self.nested(|ev| ev.eval_node(node, frame)),
            },
        }
    }

    /// Runs `f` one level deeper: counts a step, enforces the depth and
    /// step limits, and makes sure enough stack is left.
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Val<'a>) -> Val<'a> {
        self.steps += 1;
        if self.steps > self.max_steps || self.depth >= self.options.limits.max_depth {
            return self.fail();
        }
        self.depth += 1;
        let value = if self.depth.is_multiple_of(STACK_CHECK_INTERVAL) {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || f(self))
        } else {
            f(self)
        };
        self.depth -= 1;
        value
    }

    /// The nodes of typical policy expressions; everything else is in
    /// [`eval_other`](Self::eval_other), which keeps this function's frame
    /// small.
    fn eval_node(&mut self, node: &'a Node, frame: &'a Frame<'a>) -> Val<'a> {
        match node {
            Node::Attr(name) => self.attr(*name, frame),
            Node::Select(base, name) => {
                // `TARGET.x`, `MY.x`: resolve the scope name directly.
                let base = match base.as_node() {
                    Some(Node::Attr(scope)) if scope.is_reserved() => self.attr(*scope, frame),
                    _ => self.eval(base, frame),
                };
                self.select(base, *name)
            }
            Node::Binary(op, a, b) => self.binary(*op, a, b, frame),
            // Parentheses nested directly in each other are skipped in a
            // loop, not a recursion, so that no depth of them can exhaust
            // the stack (every other node is a level of `nested`).
            Node::Paren(inner) => {
                let mut inner = inner;
                while let Some(Node::Paren(next)) = inner.as_node() {
                    inner = next;
                }
                match &inner.0 {
                    Repr::Node(node) => self.eval_node(&node.node, frame),
                    Repr::Lit(literal) => Val::from_literal(literal),
                }
            }
            _ => self.eval_other(node, frame),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: &'a Expr, b: &'a Expr, frame: &'a Frame<'a>) -> Val<'a> {
        match op {
            BinaryOp::And => self.logical(false, a, b, frame),
            BinaryOp::Or => self.logical(true, a, b, frame),
            BinaryOp::Is | BinaryOp::Isnt => {
                let a = self.eval(a, frame);
                let b = self.eval(b, frame);
                match ops::identical(&a, &b) {
                    Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
                    other => other,
                }
            }
            _ => {
                let a = self.eval(a, frame);
                let b = self.eval(b, frame);
                ops::binary(op, a, b)
            }
        }
    }

    #[inline(never)]
    fn eval_other(&mut self, node: &'a Node, frame: &'a Frame<'a>) -> Val<'a> {
        match node {
            Node::RootAttr(name) => {
                let root = frame.root();
                self.resolve(self.lookup(*name, root))
            }
            Node::Index(base, index) => {
                let base = self.eval(base, frame);
                let index = self.eval(index, frame);
                self.index(base, index)
            }
            Node::Unary(op, operand) => {
                let v = self.eval(operand, frame);
                ops::unary(*op, v)
            }
            Node::Cond(cond, then, otherwise) => {
                let cond = self.eval(cond, frame);
                self.conditional(cond, then, otherwise, frame)
            }
            Node::Elvis(a, b) => match self.eval(a, frame) {
                Val::Undefined => self.eval(b, frame),
                v => v,
            },
            Node::Call(call) => {
                let value = crate::functions::call(self, call, frame);
                self.charge(value)
            }
            Node::List(items) => Val::List(List::Lazy(items, frame)),
            Node::Record(ad) => self.nested_ad(ad, frame),
            Node::Attr(_) | Node::Select(..) | Node::Binary(..) | Node::Paren(_) => self.eval_node(node, frame),
        }
    }

    /// `a && b` (`dominant` false) and `a || b` (`dominant` true); see
    /// [`ops::logical`].
    fn logical(&mut self, dominant: bool, a: &'a Expr, b: &'a Expr, frame: &'a Frame<'a>) -> Val<'a> {
        let left = self.eval(a, frame);
        ops::logical(dominant, left, || self.eval(b, frame))
    }

    /// `cond ? then : otherwise` and `ifThenElse`: only the chosen branch is
    /// evaluated.
    pub(crate) fn conditional(
        &mut self,
        cond: Val<'a>,
        then: &'a Expr,
        otherwise: &'a Expr,
        frame: &'a Frame<'a>,
    ) -> Val<'a> {
        match branch(cond) {
            Ok(true) => self.eval(then, frame),
            Ok(false) => self.eval(otherwise, frame),
            Err(value) => value,
        }
    }

    /// An unscoped reference to `name` from the scope `frame`.
    pub(crate) fn attr(&mut self, name: Name, frame: &'a Frame<'a>) -> Val<'a> {
        match self.lookup(name, frame) {
            Found::Missing => {
                // Old semantics: a top-level ad of a match falls back to the other ad.
                if self.options.semantics == Semantics::Old && frame.parent.is_none() {
                    let other = match frame.side {
                        Side::My => self.target,
                        Side::Target => self.my,
                        Side::Detached => None,
                    };
                    if let Some(other) = other {
                        return self.resolve(self.lookup(name, other));
                    }
                }
                Val::Undefined
            }
            found => self.resolve(found),
        }
    }

    /// Evaluates what a lookup found.
    fn resolve(&mut self, found: Found<'a>) -> Val<'a> {
        match found {
            Found::Expr(expr, scope) => self.eval_attribute(expr, scope),
            Found::Value(v) => v,
            Found::Missing => Val::Undefined,
        }
    }

    /// Evaluates an attribute's expression in its scope, detecting cycles.
    fn eval_attribute(&mut self, expr: &'a Expr, scope: &'a Frame<'a>) -> Val<'a> {
        if let Repr::Lit(literal) = &expr.0 {
            return Val::from_literal(literal);
        }
        let key = expr as *const Expr as usize;
        if self.active.contains(&key) {
            return Val::Error;
        }
        self.active.push(key);
        let value = self.eval(expr, scope);
        self.active.pop();
        value
    }

    /// Looks `name` up from `start` outwards.
    #[inline]
    fn lookup(&self, name: Name, start: &'a Frame<'a>) -> Found<'a> {
        if name.is_reserved() {
            return self.lookup_reserved(name, start);
        }
        match self.find_attribute(name, start) {
            Some((expr, frame)) => Found::Expr(expr, frame),
            None => Found::Missing,
        }
    }

    /// The expression bound to `name` in `frame` or the ads around it, and
    /// the scope it belongs to (reserved meanings are not considered).
    #[inline]
    pub(crate) fn find_attribute(&self, name: Name, frame: &'a Frame<'a>) -> Option<(&'a Expr, &'a Frame<'a>)> {
        let mut frame = frame;
        loop {
            if let Some(expr) = frame.ad.lookup_name(name) {
                return Some((expr, frame));
            }
            frame = frame.parent?;
        }
    }

    /// The expression an attribute reference (`x`, `.x`, `MY.x`, `a.b`) names and
    /// the scope it belongs to, found as evaluating the reference would find
    /// it but without evaluating it. `None` when `reference` is not a
    /// reference or names nothing.
    pub(crate) fn referenced_expr(
        &mut self,
        reference: &'a Expr,
        frame: &'a Frame<'a>,
    ) -> Option<(&'a Expr, &'a Frame<'a>)> {
        let (name, scope) = match reference.as_node()? {
            Node::Attr(name) => (*name, frame),
            Node::RootAttr(name) => (*name, frame.root()),
            Node::Select(base, name) => {
                let base = match base.as_node() {
                    Some(Node::Attr(scope)) if scope.is_reserved() => self.attr(*scope, frame),
                    _ => self.eval(base, frame),
                };
                match base {
                    Val::Ad(scope) => (*name, scope),
                    _ => return None,
                }
            }
            _ => return None,
        };
        match self.lookup(name, scope) {
            Found::Expr(expr, scope) => Some((expr, scope)),
            Found::Value(_) | Found::Missing => None,
        }
    }

    /// [`lookup`](Self::lookup) for the names with a meaning of their own:
    /// an ad that defines one shadows the meaning at its level.
    fn lookup_reserved(&self, name: Name, start: &'a Frame<'a>) -> Found<'a> {
        let mut frame = start;
        loop {
            if frame.ad.may_define(name) {
                if let Some(expr) = frame.ad.lookup_name(name) {
                    return Found::Expr(expr, frame);
                }
            }
            if let Some(value) = self.special(name, frame) {
                return Found::Value(value);
            }
            match frame.parent {
                Some(parent) => frame = parent,
                None => break,
            }
        }
        // The outermost level of a match: the names of the two ads.
        if self.in_match() {
            let (mine, theirs) = match frame.side {
                Side::My => (self.my, self.target),
                Side::Target => (self.target, self.my),
                Side::Detached => (None, None),
            };
            let ad = match name.symbol() {
                reserved::MY | reserved::AD => mine,
                reserved::TARGET | reserved::OTHER => theirs,
                _ => None,
            };
            if let Some(ad) = ad {
                return Found::Value(Val::Ad(ad));
            }
        }
        Found::Missing
    }

    /// The value of a reserved name at the scope level `frame`, if it has one
    /// there.
    fn special(&self, name: Name, frame: &'a Frame<'a>) -> Option<Val<'a>> {
        let old = self.options.semantics == Semantics::Old;
        match name.symbol() {
            reserved::SELF => Some(Val::Ad(frame)),
            reserved::PARENT => Some(frame.parent.map_or(Val::Undefined, Val::Ad)),
            reserved::ROOT | reserved::TOPLEVEL => Some(Val::Ad(frame.root())),
            reserved::MY if old => Some(Val::Ad(frame)),
            reserved::CURRENT_TIME if old => Some(Val::Int(self.now())),
            _ => None,
        }
    }

    /// `base.name`: lookup in an ad (and the scopes around it), projection
    /// over a list.
    fn select(&mut self, base: Val<'a>, name: Name) -> Val<'a> {
        match base {
            Val::Undefined => Val::Undefined,
            Val::Ad(frame) => {
                let found = self.lookup(name, frame);
                self.resolve(found)
            }
            Val::List(list) => {
                let projected: Vec<Val<'a>> = (0..list.len())
                    .map(|i| {
                        // Nested lists are projected too, one level deeper each.
                        let element = self.element(&list, i);
                        self.nested(|ev| ev.select(element, name))
                    })
                    .collect();
                Val::List(List::Values(projected.into()))
            }
            _ => Val::Error,
        }
    }

    /// Element `i` of a list, evaluated.
    pub(crate) fn element(&mut self, list: &List<'a>, i: usize) -> Val<'a> {
        match list {
            List::Lazy(items, frame) => self.eval(&items[i], frame),
            List::Values(values) => values[i].clone(),
        }
    }

    /// `base[index]`: list element by position, ad attribute by name.
    fn index(&mut self, base: Val<'a>, index: Val<'a>) -> Val<'a> {
        match (base, index) {
            (Val::Error, _) | (_, Val::Error) => Val::Error,
            (Val::Undefined, _) | (_, Val::Undefined) => Val::Undefined,
            (Val::List(list), Val::Int(i)) => match usize::try_from(i) {
                Ok(i) if i < list.len() => self.element(&list, i),
                _ => Val::Error,
            },
            // A name nothing has interned is in no ad; looking it up
            // interns nothing.
            (Val::Ad(frame), Val::Str(name)) => match Name::find(name.as_str()).and_then(|n| frame.ad.lookup_name(n)) {
                Some(expr) => self.eval_attribute(expr, frame),
                None => Val::Undefined,
            },
            _ => Val::Error,
        }
    }
}

#[cfg(test)]
mod tests;
