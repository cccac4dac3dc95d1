//! Prepared evaluation: one expression of a fixed MY ad, evaluated against
//! many TARGET ads (a job's `Requirements` against every machine).
//!
//! Preparing walks the expression once, in the context of the MY ad:
//!
//! * references to MY's own attributes whose values are literals are folded
//!   (`RequestDisk` becomes `1000000`);
//! * `TARGET.x` (and `other.x`), when MY does not define `TARGET` itself,
//!   becomes a direct lookup of `x` in the target ad;
//! * operators over such parts stay operators;
//! * everything else is kept whole and evaluated by the interpreter, with
//!   MY and the target ad as its match context.
//!
//! Conditions built only of comparisons between target attributes and
//! constants, `!`, `&&` and `||` (most `Requirements`) are also compiled to
//! a truth kernel (`kernel`), which reads literal target values directly.
//! Where only the truth of the value matters ([`Prepared::is_true`], and so
//! a match), the conditions inside any expression (the `&&` chains, `!`,
//! comparisons, type predicates and conditionals of a machine's `START`)
//! are computed as one-byte truths the same way, and only the other parts
//! as values.
//!
//! The result is always the value the interpreter gives for the pair
//! (checked by `tests/prepared.rs`), with one exception: the parts folded
//! or compiled here cost no evaluation steps, so an expression that only
//! just exceeds the interpreter's [`EvalLimits`](super::EvalLimits) may
//! still get a value here. Evaluating a slice of targets also
//! prefetches the table slots of the ads a few positions ahead that the
//! target lookups will read.

mod columns;
mod kernel;
mod reuse;

pub use columns::{ColumnKernel, Columns, BLOCK};
pub use kernel::Truth;
pub use reuse::{Preparation, PrepareCache};

use std::borrow::Borrow;
use std::sync::Arc;

use super::ops;
use super::val::Val;
use super::{EvalContext, EvalOptions, Evaluator, Frame, Keep, Semantics, Side};
use crate::ad::ClassAd;
use crate::builtins::Purity;
use crate::expr::{BinaryOp, Call, Expr, Literal, Node, Repr, UnaryOp};
use crate::name::{reserved, AttrKey, Name};
use crate::value::Value;
use kernel::Kernel;
use reuse::{Read, Reads, Seen};

/// An expression of a fixed MY ad, prepared for evaluation against many
/// TARGET ads.
///
/// A prepared expression owns what it evaluates: its steps, the parts the
/// interpreter still evaluates (as [`Expr`] clones, which share the tree),
/// the literals it folded and the options (behind an [`Arc`], so that the
/// expressions of a pool share one copy). `M` is how it holds the MY ad:
///
/// * `Arc<ClassAd>` (the default): shared with whoever else holds the ad
///   (a pool's machines, a negotiator's slots). `Prepared` is then
///   `'static`, [`Send`] and [`Sync`], and can be stored, sent to other
///   threads and kept across the ad's other users coming and going.
/// * `ClassAd`: owned outright.
/// * `&ClassAd`: borrowed, for a short-lived preparation (one request
///   matched against a pool) that should not copy or count the ad.
///
/// A caller holding many expressions of the same ads (a pool) can keep
/// the steps alone, as an [`Unbound`], and pass the ad and the options to
/// each evaluation.
///
/// Evaluating allocates nothing of its own: the interpreter's scratch
/// (for the parts it evaluates) is made per call, on the stack, and the
/// prepared form is only read, so one `Prepared` serves many threads at
/// once.
///
/// ```
/// use std::sync::Arc;
/// use classad::{ClassAd, EvalOptions, Prepared, Semantics};
/// let job: ClassAd = "[ RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]".parse()?;
/// let machines: Vec<ClassAd> = [1024, 4096, 2048]
///     .iter()
///     .map(|m| format!("[ Memory = {m} ]").parse())
///     .collect::<Result<_, _>>()?;
/// let opts = Arc::new(EvalOptions::new().semantics(Semantics::Old));
/// let job = Arc::new(job);
/// let requirements: Prepared = Prepared::attribute(Arc::clone(&opts), Arc::clone(&job), "Requirements");
/// assert_eq!(requirements.matching(&machines), vec![1, 2]);
/// assert!(!requirements.is_true(&machines[0]));
///
/// // Owned: it can go to another thread, and outlive this scope's `job`.
/// let worker = std::thread::spawn(move || requirements.is_true(&"[ Memory = 4096 ]".parse::<ClassAd>().unwrap()));
/// assert!(worker.join().unwrap());
///
/// // Borrowed: nothing counted or copied.
/// let borrowed = Prepared::attribute(&*opts, &*job, "Requirements");
/// assert_eq!(borrowed.matching(&machines), vec![1, 2]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub struct Prepared<M = Arc<ClassAd>> {
    form: Unbound,
    /// Shared by every prepared expression of a pool.
    options: Arc<EvalOptions>,
    my: M,
}

/// A prepared expression without the MY ad and the options it was
/// prepared with: the steps alone, for a caller that keeps the ad and the
/// options itself and passes them to every evaluation (a pool of many
/// ads, where a [`Prepared`] per expression would hold and count the same
/// ad and options again and again).
///
/// Evaluating it with another MY ad or other options than those it was
/// prepared with gives answers for neither (never undefined behaviour,
/// never a panic); [`Prepared`] pairs them for you.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Semantics};
/// use classad::eval::Unbound;
///
/// let job: ClassAd = "[ RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]".parse()?;
/// let machine: ClassAd = "[ Memory = 4096 ]".parse()?;
/// let opts = EvalOptions::new().semantics(Semantics::Old);
/// let requirements = Unbound::new(&opts, &job, job.get("Requirements").expect("present"));
/// assert!(requirements.is_true(&opts, &job, &machine));
/// # Ok::<(), classad::ParseError>(())
/// ```
pub struct Unbound {
    /// The whole expression's step.
    step: Step,
    /// Every other step, in one allocation (operands refer to them by
    /// position): a pool's prepared policies stay compact in memory
    /// however fragmented the heap they were built on.
    steps: Box<[Step]>,
    /// `step` as a truth kernel, when it is a condition the kernel handles.
    kernel: Option<Kernel>,
    /// The target attributes `step` reads directly, for prefetching.
    target_names: Vec<Name>,
}

// The owned forms can be shared between threads and stored anywhere.
const _: () = {
    const fn shareable<T: Send + Sync + 'static>() {}
    shareable::<Prepared>();
    shareable::<Prepared<ClassAd>>();
    shareable::<Unbound>();
    shareable::<Columns>();
    shareable::<ColumnKernel>();
};

/// Where a step is in its prepared expression's `steps`.
type StepId = u32;

/// A prepared expression node. Its operands are other steps, named by
/// their position in the prepared expression's `steps`.
enum Step {
    /// A literal: written in the expression, or computed while preparing
    /// from MY's attributes and constants.
    Literal(Literal),
    /// `TARGET.name`: the attribute looked up in the target ad.
    Target(Name),
    /// `TARGET.name op literal` (or `literal op TARGET.name` when
    /// `target_first` is false): a lookup and an operator, in one step.
    Compare {
        op: BinaryOp,
        name: Name,
        literal: Literal,
        target_first: bool,
    },
    /// `a && b && ...` (`dominant` false) or `a || b || ...` (true), folded
    /// from the left exactly as the nested operators are.
    /// The items are the `len` steps from `first`.
    Chain {
        dominant: bool,
        first: StepId,
        len: u32,
    },
    Unary(UnaryOp, StepId),
    Binary(BinaryOp, StepId, StepId),
    Cond(StepId, StepId, StepId),
    Elvis(StepId, StepId),
    /// `isUndefined(x)`, `isString(x)`, ...: whether the value has a type.
    IsType(TypeTest, StepId),
    /// Evaluated by the interpreter in MY's scope.
    Whole(Expr),
    /// The inlined expression of one of MY's attributes (by name), whose
    /// steps may reach back into MY (through the target, or the
    /// interpreter): while they run, the attribute is marked as being
    /// evaluated, as the interpreter marks it (by the address of MY's
    /// expression, found when the step runs, so that the steps serve any
    /// ad that has the same expression), so that a cycle back to it is
    /// ERROR here too.
    Within(Name, StepId),
}

impl Step {
    /// Whether evaluating the step may evaluate one of MY's attributes
    /// other than through inlined steps: by reading a target attribute
    /// (whose expression may refer to MY) or running the interpreter.
    fn may_reenter(&self, steps: &[Step]) -> bool {
        let at = |id: &StepId| steps[*id as usize].may_reenter(steps);
        match self {
            Step::Literal(_) => false,
            Step::Target(_) | Step::Compare { .. } | Step::Whole(_) | Step::Within(..) => true,
            Step::Chain { first, len, .. } => items(steps, *first, *len).iter().any(|item| item.may_reenter(steps)),
            Step::Unary(_, a) | Step::IsType(_, a) => at(a),
            Step::Binary(_, a, b) | Step::Elvis(a, b) => at(a) || at(b),
            Step::Cond(c, a, b) => at(c) || at(a) || at(b),
        }
    }
}

/// The items of a chain: the `len` steps from `first`.
#[inline]
fn items(steps: &[Step], first: StepId, len: u32) -> &[Step] {
    &steps[first as usize..(first + len) as usize]
}

/// The type a type predicate (`isUndefined`, `isString`, ...) tests for.
#[derive(Clone, Copy, Debug)]
enum TypeTest {
    Undefined,
    Error,
    String,
    Integer,
    Real,
    Boolean,
    List,
    ClassAd,
    AbsTime,
    RelTime,
}

impl TypeTest {
    /// The test a built-in's name performs, if it is a type predicate.
    fn of(name: &str) -> Option<TypeTest> {
        const TESTS: &[(&str, TypeTest)] = &[
            ("isUndefined", TypeTest::Undefined),
            ("isError", TypeTest::Error),
            ("isString", TypeTest::String),
            ("isInteger", TypeTest::Integer),
            ("isReal", TypeTest::Real),
            ("isBoolean", TypeTest::Boolean),
            ("isList", TypeTest::List),
            ("isClassAd", TypeTest::ClassAd),
            ("isAbstime", TypeTest::AbsTime),
            ("isReltime", TypeTest::RelTime),
        ];
        TESTS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, test)| *test)
    }

    fn holds(self, value: &Val<'_>) -> bool {
        matches!(
            (self, value),
            (TypeTest::Undefined, Val::Undefined)
                | (TypeTest::Error, Val::Error)
                | (TypeTest::String, Val::Str(_))
                | (TypeTest::Integer, Val::Int(_))
                | (TypeTest::Real, Val::Real(_))
                | (TypeTest::Boolean, Val::Bool(_))
                | (TypeTest::List, Val::List(_))
                | (TypeTest::ClassAd, Val::Ad(_))
                | (TypeTest::AbsTime, Val::AbsTime(_))
                | (TypeTest::RelTime, Val::RelTime(_))
        )
    }
}

/// How many targets ahead [`Prepared::matching`] prefetches.
const PREFETCH_AHEAD: usize = 4;

/// The expression UNDEFINED, for a missing attribute.
static UNDEFINED: Expr = Expr(Repr::Lit(crate::expr::Literal::Undefined));

impl<M: Borrow<ClassAd>> Prepared<M> {
    /// Prepares `expr`, an expression evaluated with `my` as the MY ad.
    ///
    /// `options` is shared: pass an `Arc<EvalOptions>` (cloned) to share
    /// one copy between many prepared expressions, or `&EvalOptions` to
    /// copy it. `expr`'s parts the interpreter still evaluates are kept
    /// as clones (an [`Expr`] is a reference-counted tree: cloning it
    /// copies nothing).
    pub fn new(options: impl Into<Arc<EvalOptions>>, my: M, expr: &Expr) -> Prepared<M> {
        let options = options.into();
        let form = Unbound::new(&options, my.borrow(), expr);
        Prepared { form, options, my }
    }

    /// The prepared steps without the ad and the options, and the ad.
    pub fn into_parts(self) -> (Unbound, Arc<EvalOptions>, M) {
        (self.form, self.options, self.my)
    }

    /// The prepared steps without the ad and the options.
    pub fn unbound(&self) -> &Unbound {
        &self.form
    }

    /// Prepares `my`'s attribute `name` (UNDEFINED if it has none).
    pub fn attribute(options: impl Into<Arc<EvalOptions>>, my: M, name: impl AttrKey) -> Prepared<M> {
        let expr = my.borrow().lookup(name).unwrap_or(&UNDEFINED).clone();
        Prepared::new(options, my, &expr)
    }

    /// The MY ad.
    pub fn my(&self) -> &ClassAd {
        self.my.borrow()
    }

    /// The options the expression is evaluated with.
    pub fn options(&self) -> &EvalOptions {
        &self.options
    }

    /// The value against `target`.
    pub fn eval(&self, target: &ClassAd) -> Value {
        self.form.eval(&self.options, self.my.borrow(), target)
    }

    /// True when the value against `target` is `true` or a non-zero number.
    #[inline]
    pub fn is_true(&self, target: &ClassAd) -> bool {
        self.form.is_true(&self.options, self.my.borrow(), target)
    }

    /// The positions in `targets` of the ads for which the expression is
    /// true.
    pub fn matching(&self, targets: &[ClassAd]) -> Vec<usize> {
        self.form.matching(&self.options, self.my.borrow(), targets)
    }

    /// The value against `target` as a `Rank` counts it: integers and
    /// reals as they are, booleans as 1.0 or 0.0, anything else 0.0 (see
    /// [`rank_value`](crate::matching::rank_value)); nothing is allocated.
    #[inline]
    pub fn rank(&self, target: &ClassAd) -> f64 {
        self.form.rank(&self.options, self.my.borrow(), target)
    }

    /// The truth kernel bound to `columns` (the targets' columns), when
    /// the expression has one (see [`Columns`]).
    pub fn bind(&self, columns: &Columns) -> Option<ColumnKernel> {
        self.form.bind(columns)
    }

    /// Whether the expression is true whatever the target, when that was
    /// known while preparing (`START = true`).
    pub fn constant_truth(&self) -> Option<bool> {
        self.form.constant_truth()
    }

    /// The [`rank`](Prepared::rank) whatever the target, when that was
    /// known while preparing (`Rank = 0`, or MY's attributes folded).
    pub fn constant_rank(&self) -> Option<f64> {
        self.form.constant_rank()
    }

    /// Asks the processor to load the table slots of `target` that
    /// evaluating against it will read first.
    #[inline]
    pub fn prefetch(&self, target: &ClassAd) {
        self.form.prefetch(target);
    }
}

impl Unbound {
    /// Prepares `expr`, an expression evaluated with `my` as the MY ad and
    /// `options` (see [`Prepared::new`]).
    pub fn new(options: &EvalOptions, my: &ClassAd, expr: &Expr) -> Unbound {
        Unbound::build(options, my, expr, false).0
    }

    /// Prepares `expr`; when `reading`, also tells what preparing read of
    /// `my` (see [`Reads`]): the result serves every ad that reads the
    /// same.
    fn build(options: &EvalOptions, my: &ClassAd, expr: &Expr, reading: bool) -> (Unbound, Option<Reads>) {
        let mut preparer = Preparer::new(options, my);
        if reading {
            preparer.reads = Some(Reads::default());
        }
        let step = preparer.prepare(expr);
        let reads = preparer.reads.take();
        let steps = preparer.arena.into_boxed_slice();
        let kernel = Kernel::compile(&step, &steps);
        (Unbound { step, steps, kernel, target_names: preparer.targets }, reads)
    }

    /// The value against `target` (see [`Prepared::eval`]).
    pub fn eval(&self, options: &EvalOptions, my: &ClassAd, target: &ClassAd) -> Value {
        self.run(options, my, target, |v| v.into_value())
    }

    /// See [`Prepared::is_true`].
    pub fn is_true(&self, options: &EvalOptions, my: &ClassAd, target: &ClassAd) -> bool {
        if let Some(truth) = self.kernel.as_ref().and_then(|kernel| kernel.truth(target)) {
            return truth == Truth::True;
        }
        // Only the truth matters: conditions are computed as truths, not
        // values.
        self.evaluate(options, my, target, |ev, step, cx| {
            let truth = ev.step_truth(step, cx);
            !ev.failed() && truth == Truth::True
        })
    }

    /// See [`Prepared::matching`].
    pub fn matching(&self, options: &EvalOptions, my: &ClassAd, targets: &[ClassAd]) -> Vec<usize> {
        let mut found = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            if let Some(ahead) = targets.get(i + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            if self.is_true(options, my, target) {
                found.push(i);
            }
        }
        found
    }

    /// See [`Prepared::rank`].
    pub fn rank(&self, options: &EvalOptions, my: &ClassAd, target: &ClassAd) -> f64 {
        self.run(options, my, target, rank_of)
    }

    /// See [`Prepared::bind`].
    pub fn bind(&self, columns: &Columns) -> Option<ColumnKernel> {
        self.kernel.as_ref().map(|kernel| ColumnKernel::bind(kernel, columns))
    }

    /// See [`Prepared::constant_truth`].
    pub fn constant_truth(&self) -> Option<bool> {
        match &self.step {
            Step::Literal(literal) => Some(Val::from_literal(literal).truth() == Some(true)),
            _ => None,
        }
    }

    /// See [`Prepared::constant_rank`].
    pub fn constant_rank(&self) -> Option<f64> {
        match &self.step {
            Step::Literal(literal) => Some(rank_of(Val::from_literal(literal))),
            _ => None,
        }
    }

    /// See [`Prepared::prefetch`].
    pub fn prefetch(&self, target: &ClassAd) {
        for name in &self.target_names {
            target.prefetch(*name);
        }
    }

    fn run<R>(
        &self,
        options: &EvalOptions,
        my: &ClassAd,
        target: &ClassAd,
        finish: impl for<'a> FnOnce(Val<'a>) -> R,
    ) -> R {
        if let Some(truth) = self.kernel.as_ref().and_then(|kernel| kernel.truth(target)) {
            return finish(truth.value());
        }
        // Known while preparing (`START = true`, or MY's policy folded).
        if let Step::Literal(literal) = &self.step {
            return finish(Val::from_literal(literal));
        }
        self.evaluate(options, my, target, |ev, step, cx| {
            let value = ev.step(step, cx);
            finish(if ev.failed() { Val::Error } else { value })
        })
    }

    /// Runs `f` with an evaluator for the match of `my` and `target`, and
    /// the expression's step.
    fn evaluate<R>(
        &self,
        options: &EvalOptions,
        my: &ClassAd,
        target: &ClassAd,
        f: impl for<'a> FnOnce(&mut Evaluator<'a>, &'a Step, Cx<'a>) -> R,
    ) -> R {
        let my_frame = Frame { ad: my, parent: None, side: Side::My };
        let target_frame = Frame { ad: target, parent: None, side: Side::Target };
        let keep = Keep::new();
        let mut ev = Evaluator::new(options, &keep, Some(&my_frame), Some(&target_frame));
        f(&mut ev, &self.step, Cx { steps: &self.steps, my: &my_frame, target: &target_frame })
    }
}

impl<M> std::fmt::Debug for Prepared<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared").field("form", &self.form).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Unbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unbound")
            .field("target_names", &self.target_names)
            .field("kernel", &self.kernel.is_some())
            .finish_non_exhaustive()
    }
}

/// A value as a `Rank` counts it (see [`Prepared::rank`]).
fn rank_of(value: Val<'_>) -> f64 {
    match value {
        Val::Int(i) => i as f64,
        Val::Real(r) => r,
        Val::Bool(b) => f64::from(u8::from(b)),
        _ => 0.0,
    }
}

/// Bounds on inlining MY's attributes, so that a hostile ad (`A = B + B;
/// B = C + C; ...`) cannot make a prepared expression grow without end:
/// past them, references stay whole and the interpreter follows them.
const MAX_INLINE_DEPTH: usize = 32;
const MAX_STEPS: usize = 4096;

/// Builds prepared steps for expressions of one MY ad.
struct Preparer<'p> {
    options: &'p EvalOptions,
    my: &'p ClassAd,
    /// The target attributes read directly.
    targets: Vec<Name>,
    /// The MY attributes being inlined (their expressions' addresses).
    inlining: Vec<usize>,
    /// Steps built so far.
    steps: usize,
    /// The operands of the steps built so far (see [`Prepared`]'s `steps`).
    arena: Vec<Step>,
    /// What was read of MY, when asked for (see [`Unbound::build`]).
    reads: Option<Reads>,
}

impl<'p> Preparer<'p> {
    fn new(options: &'p EvalOptions, my: &'p ClassAd) -> Preparer<'p> {
        Preparer { options, my, targets: Vec::new(), inlining: Vec::new(), steps: 0, arena: Vec::new(), reads: None }
    }

    /// MY's attribute `name`, noted as read.
    fn lookup(&mut self, name: Name) -> Option<&'p Expr> {
        let found = self.my.lookup_name(name);
        if let Some(reads) = &mut self.reads {
            reads.note(Read::Lookup(name), Seen::of(found));
        }
        found
    }

    /// Whether MY may define the reserved name `scope`, noted as read.
    fn defines(&mut self, scope: Name) -> bool {
        let defined = self.my.may_define(scope);
        if let Some(reads) = &mut self.reads {
            reads.note(Read::Defines(scope), Seen::Defined(defined));
        }
        defined
    }

    /// The step for `expr`, as an operand.
    fn operand(&mut self, expr: &'p Expr) -> StepId {
        let step = self.prepare(expr);
        self.push(step)
    }

    /// Places an operand step.
    fn push(&mut self, step: Step) -> StepId {
        self.arena.push(step);
        // The arena is bounded by `MAX_STEPS` and inlining's bounds.
        u32::try_from(self.arena.len() - 1).unwrap_or(u32::MAX)
    }

    /// The step for `expr`, evaluated in MY's scope.
    fn prepare(&mut self, expr: &'p Expr) -> Step {
        self.steps += 1;
        let node = match &expr.0 {
            Repr::Lit(literal) => return Step::Literal(literal.clone()),
            Repr::Node(node) => &node.node,
        };
        match node {
            Node::Paren(inner) => self.prepare(inner),
            Node::Attr(name) if !name.is_reserved() => match self.lookup(*name) {
                Some(found) => self.my_attribute(expr, *name, found),
                // Old semantics: a name MY lacks is the target's.
                None if self.options.semantics == Semantics::Old => self.target(*name),
                None => Step::Literal(Literal::Undefined),
            },
            Node::Select(base, name) if !name.is_reserved() => match base.as_node() {
                // TARGET.x: unless MY itself defines TARGET (or other), it
                // names the target ad, where a non-reserved x is a plain
                // lookup.
                Some(Node::Attr(scope))
                    if matches!(scope.symbol(), reserved::TARGET | reserved::OTHER) && !self.defines(*scope) =>
                {
                    self.target(*name)
                }
                // MY.x: a lookup in MY, without old semantics' fallback.
                Some(Node::Attr(scope)) if scope.symbol() == reserved::MY && !self.defines(*scope) => {
                    match self.lookup(*name) {
                        Some(found) => self.my_attribute(expr, *name, found),
                        None => Step::Literal(Literal::Undefined),
                    }
                }
                _ => Step::Whole(expr.clone()),
            },
            Node::Unary(op, operand) => match self.prepare(operand) {
                Step::Literal(literal) => {
                    fold(|| ops::unary(*op, Val::from_literal(&literal))).unwrap_or_else(|| Step::Whole(expr.clone()))
                }
                operand => Step::Unary(*op, self.push(operand)),
            },
            Node::Binary(op @ (BinaryOp::And | BinaryOp::Or), ..) => {
                // Left-nested `a && b && c` as one chain.
                let mut operands = Vec::new();
                let mut left = expr;
                while let Some(Node::Binary(inner, a, b)) = left.as_node() {
                    if inner != op {
                        break;
                    }
                    operands.push(b);
                    left = a;
                }
                operands.push(left);
                let items: Vec<Step> = operands.into_iter().rev().map(|e| self.prepare(e)).collect();
                let dominant = *op == BinaryOp::Or;
                match fold_chain(dominant, &items) {
                    Some(folded) => folded,
                    None => {
                        let items = without_neutral(dominant, items);
                        let len = u32::try_from(items.len()).unwrap_or(u32::MAX);
                        let first = u32::try_from(self.arena.len()).unwrap_or(u32::MAX);
                        self.arena.extend(items);
                        Step::Chain { dominant, first, len }
                    }
                }
            }
            Node::Binary(op, a, b) => {
                let a = self.prepare(a);
                let b = self.prepare(b);
                match (a, b) {
                    (Step::Literal(x), Step::Literal(y)) => {
                        fold(|| binary(*op, Val::from_literal(&x), Val::from_literal(&y)))
                            .unwrap_or_else(|| Step::Whole(expr.clone()))
                    }
                    (Step::Target(name), Step::Literal(literal)) if fusable(*op) => {
                        Step::Compare { op: *op, name, literal, target_first: true }
                    }
                    (Step::Literal(literal), Step::Target(name)) if fusable(*op) => {
                        Step::Compare { op: *op, name, literal, target_first: false }
                    }
                    (a, b) => {
                        let a = self.push(a);
                        Step::Binary(*op, a, self.push(b))
                    }
                }
            }
            Node::Cond(c, a, b) => self.conditional(expr, c, a, b),
            Node::Elvis(a, b) => match self.prepare(a) {
                Step::Literal(Literal::Undefined) => self.prepare(b),
                literal @ Step::Literal(_) => literal,
                a => {
                    let a = self.push(a);
                    Step::Elvis(a, self.operand(b))
                }
            },
            // `ifThenElse(c, a, b)` is `c ? a : b` (the built-in evaluates
            // its condition and one branch exactly as the operator does).
            Node::Call(call) if call.name().as_str().eq_ignore_ascii_case("ifThenElse") && call.args().len() == 3 => {
                match call.args() {
                    [c, a, b] => self.conditional(expr, c, a, b),
                    _ => Step::Whole(expr.clone()),
                }
            }
            Node::Call(call) if call.args().len() == 1 && TypeTest::of(call.name().as_str()).is_some() => {
                let Some(test) = TypeTest::of(call.name().as_str()) else {
                    return Step::Whole(expr.clone());
                };
                match self.prepare(&call.args()[0]) {
                    Step::Literal(literal) => Step::Literal(Literal::Bool(test.holds(&Val::from_literal(&literal)))),
                    arg => Step::IsType(test, self.push(arg)),
                }
            }
            Node::Call(call) if is_pure(call) => {
                // A pure function of arguments known now is its value now,
                // unless that value is not a literal (a list, an ad).
                let known = call.args().iter().all(|arg| matches!(self.prepare(arg), Step::Literal(_)));
                if known {
                    if let Some(folded) = self.evaluate_now(expr) {
                        return folded;
                    }
                }
                Step::Whole(expr.clone())
            }
            _ => Step::Whole(expr.clone()),
        }
    }

    /// `c ? a : b` (or `ifThenElse(c, a, b)`): a condition known now picks
    /// its branch now.
    fn conditional(&mut self, expr: &'p Expr, c: &'p Expr, a: &'p Expr, b: &'p Expr) -> Step {
        match self.prepare(c) {
            Step::Literal(literal) => match super::branch(Val::from_literal(&literal)) {
                Ok(true) => self.prepare(a),
                Ok(false) => self.prepare(b),
                Err(value) => fold(|| value).unwrap_or_else(|| Step::Whole(expr.clone())),
            },
            c => {
                let c = self.push(c);
                let a = self.operand(a);
                Step::Cond(c, a, self.operand(b))
            }
        }
    }

    /// A reference (`x` or `MY.x`) to MY's attribute whose expression is
    /// `found`: its literal, or its expression inlined (evaluating it in
    /// MY's scope is what the reference does), or, in a cycle or past the
    /// bounds, the reference left whole.
    fn my_attribute(&mut self, reference: &'p Expr, name: Name, found: &'p Expr) -> Step {
        if let Repr::Lit(literal) = &found.0 {
            return Step::Literal(literal.clone());
        }
        let key = found as *const Expr as usize;
        // A reference back to an attribute being inlined is one the
        // interpreter meets while evaluating that attribute: a cycle.
        if self.inlining.contains(&key) {
            return Step::Literal(Literal::Error);
        }
        if self.inlining.len() >= MAX_INLINE_DEPTH || self.steps >= MAX_STEPS {
            return Step::Whole(reference.clone());
        }
        self.inlining.push(key);
        let step = self.prepare(found);
        self.inlining.pop();
        if step.may_reenter(&self.arena) {
            Step::Within(name, self.push(step))
        } else {
            step
        }
    }

    /// The target's attribute `name`.
    fn target(&mut self, name: Name) -> Step {
        if !self.targets.contains(&name) {
            self.targets.push(name);
        }
        Step::Target(name)
    }

    /// Evaluates `expr` in MY's scope now, as a literal step. Only for
    /// expressions that read nothing of the target.
    fn evaluate_now(&self, expr: &'p Expr) -> Option<Step> {
        let my_frame = Frame { ad: self.my, parent: None, side: Side::My };
        let keep = Keep::new();
        let mut ev = Evaluator::new(self.options, &keep, Some(&my_frame), None);
        // Inside inlined attributes, those are being evaluated.
        ev.active.extend(self.inlining.iter().copied());
        let value = ev.eval(expr, &my_frame);
        if ev.failed() {
            return None;
        }
        fold(|| value)
    }
}

/// A value computed now as a literal step (`None` for lists and ads, which
/// have no literal).
fn fold<'a>(value: impl FnOnce() -> Val<'a>) -> Option<Step> {
    let literal = match value() {
        Val::Undefined => Literal::Undefined,
        Val::Error => Literal::Error,
        Val::Bool(b) => Literal::Bool(b),
        Val::Int(i) => Literal::Int(i),
        Val::Real(r) => Literal::Real(r),
        Val::Str(s) => Literal::Str(s.as_str().into()),
        Val::AbsTime(t) => Literal::AbsTime(t),
        Val::RelTime(r) => Literal::RelTime(crate::time::RelTime(r)),
        Val::List(_) | Val::Ad(_) => return None,
    };
    Some(Step::Literal(literal))
}

/// A chain whose value is known now: its leading operands are literals
/// and either decide it (an ERROR, or the dominant value) or are all there
/// is.
fn fold_chain(dominant: bool, items: &[Step]) -> Option<Step> {
    let mut value: Option<Val<'_>> = None;
    for item in items {
        if let Some(left) = &value {
            let mut needed = false;
            let decided = ops::logical(dominant, left.clone(), || {
                needed = true;
                Val::Undefined
            });
            if !needed {
                return fold(|| decided);
            }
        }
        let Step::Literal(literal) = item else {
            return None;
        };
        let right = Val::from_literal(literal);
        value = Some(match value {
            None => right,
            Some(left) => ops::logical(dominant, left, || right),
        });
    }
    value.and_then(|v| fold(|| v))
}

/// The items of a chain without the constants after its first item that
/// leave the value as it is (`x && true && y` is `x && y`: `&&` with a
/// true right side gives the left side's truth, which is all the next
/// `&&` looks at), as long as two items stay, so that the chain's value
/// is still that of an `&&` (or `||`) and never a lone item's own value.
fn without_neutral(dominant: bool, mut items: Vec<Step>) -> Vec<Step> {
    let neutral = Truth::from_bool(!dominant);
    let is_neutral = |step: &Step| matches!(step, Step::Literal(l) if Truth::of(&Val::from_literal(l)) == neutral);
    let keep = items.iter().skip(1).filter(|step| !is_neutral(step)).count();
    if keep == 0 || keep + 1 == items.len() {
        return items;
    }
    let mut first = true;
    items.retain(|step| std::mem::take(&mut first) || !is_neutral(step));
    items
}

/// `a op b` of two known values, as the interpreter computes it.
fn binary<'a>(op: BinaryOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match op {
        BinaryOp::Is | BinaryOp::Isnt => match ops::identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        _ => ops::binary(op, a, b),
    }
}

/// Whether `call` is of a built-in whose value depends on its arguments
/// alone (not on the clock, chance, the environment, files or other
/// attributes), so that a call on known arguments can be computed once.
fn is_pure(call: &Call) -> bool {
    call.builtin().is_some_and(|id| id.builtin().purity == Purity::Pure)
}

/// The operators [`Step::Compare`] evaluates with [`ops::binary`].
fn fusable(op: BinaryOp) -> bool {
    !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Is | BinaryOp::Isnt)
}

/// What evaluating a prepared step needs besides the step: the other
/// steps of its expression, and the match's two ads.
#[derive(Clone, Copy)]
struct Cx<'a> {
    steps: &'a [Step],
    my: &'a Frame<'a>,
    target: &'a Frame<'a>,
}

impl<'a> Cx<'a> {
    /// The operand step `id`.
    #[inline]
    fn at(self, id: StepId) -> &'a Step {
        &self.steps[id as usize]
    }

    /// The key of MY's attribute `name` in the interpreter's cycle
    /// detection: the address of its expression (as preparing found it).
    fn attribute_key(self, name: Name) -> usize {
        self.my.ad.lookup_name(name).map_or(0, |found| found as *const Expr as usize)
    }

    /// The target's attribute `name` when it is a literal (UNDEFINED when
    /// it is missing).
    #[inline]
    fn target_literal(self, name: Name) -> Option<&'a Literal> {
        kernel::target_literal(name, self.target.ad)
    }
}

impl<'a> Evaluator<'a> {
    /// The value of the target's attribute `name`.
    fn target_attribute(&mut self, name: Name, target: &'a Frame<'a>) -> Val<'a> {
        match target.ad.lookup_name(name) {
            Some(expr) => self.eval_attribute(expr, target),
            None => Val::Undefined,
        }
    }

    /// Evaluates a prepared step with `cx`'s ads as the match.
    fn step(&mut self, step: &'a Step, cx: Cx<'a>) -> Val<'a> {
        match step {
            Step::Literal(literal) => Val::from_literal(literal),
            Step::Target(name) => self.target_attribute(*name, cx.target),
            Step::Compare { op, name, literal, target_first } => {
                let value = self.target_attribute(*name, cx.target);
                let literal = Val::from_literal(literal);
                if *target_first {
                    ops::binary(*op, value, literal)
                } else {
                    ops::binary(*op, literal, value)
                }
            }
            Step::Chain { dominant, first, len } => {
                let mut value: Option<Val<'a>> = None;
                for item in items(cx.steps, *first, *len) {
                    value = Some(match value {
                        None => self.step(item, cx),
                        Some(left) => ops::logical(*dominant, left, || self.step(item, cx)),
                    });
                }
                value.unwrap_or(Val::Undefined)
            }
            Step::Whole(expr) => self.eval(expr, cx.my),
            Step::Unary(op, operand) => {
                let v = self.step(cx.at(*operand), cx);
                ops::unary(*op, v)
            }
            Step::Binary(op, a, b) => match op {
                BinaryOp::And | BinaryOp::Or => {
                    let dominant = *op == BinaryOp::Or;
                    let left = self.step(cx.at(*a), cx);
                    ops::logical(dominant, left, || self.step(cx.at(*b), cx))
                }
                BinaryOp::Is | BinaryOp::Isnt => {
                    let a = self.step(cx.at(*a), cx);
                    let b = self.step(cx.at(*b), cx);
                    match ops::identical(&a, &b) {
                        Val::Bool(same) => Val::Bool(same == (*op == BinaryOp::Is)),
                        other => other,
                    }
                }
                _ => {
                    let a = self.step(cx.at(*a), cx);
                    let b = self.step(cx.at(*b), cx);
                    ops::binary(*op, a, b)
                }
            },
            Step::Cond(c, then, otherwise) => {
                let cond = self.step(cx.at(*c), cx);
                match super::branch(cond) {
                    Ok(true) => self.step(cx.at(*then), cx),
                    Ok(false) => self.step(cx.at(*otherwise), cx),
                    Err(value) => value,
                }
            }
            Step::IsType(test, arg) => {
                let value = self.step(cx.at(*arg), cx);
                Val::Bool(test.holds(&value))
            }
            Step::Elvis(a, b) => match self.step(cx.at(*a), cx) {
                Val::Undefined => self.step(cx.at(*b), cx),
                v => v,
            },
            Step::Within(name, body) => {
                self.active.push(cx.attribute_key(*name));
                let value = self.step(cx.at(*body), cx);
                self.active.pop();
                value
            }
        }
    }

    /// The truth of a prepared step: what `&&`, `||`, `!`, a conditional
    /// and a match see of its value ([`Truth::of`]). Conditions are
    /// computed as truths, reading literal target values in place, and
    /// other steps are evaluated and their values' truth taken, so the
    /// result is always the truth of [`step`](Self::step)'s value.
    fn step_truth(&mut self, step: &'a Step, cx: Cx<'a>) -> Truth {
        match step {
            Step::Literal(literal) => Truth::of(&Val::from_literal(literal)),
            Step::Target(name) => match cx.target_literal(*name) {
                Some(literal) => Truth::of(&Val::from_literal(literal)),
                None => Truth::of(&self.step(step, cx)),
            },
            Step::Compare { op, name, literal, target_first } if kernel::compares(*op) => {
                match cx.target_literal(*name) {
                    Some(value) if *target_first => kernel::test(*op, value, literal),
                    Some(value) => kernel::test(*op, literal, value),
                    None => Truth::of(&self.step(step, cx)),
                }
            }
            Step::Binary(op, a, b) if kernel::compares(*op) => match (cx.at(*a), cx.at(*b)) {
                (Step::Target(name), Step::Literal(literal)) => match cx.target_literal(*name) {
                    Some(value) => kernel::test(*op, value, literal),
                    None => Truth::of(&self.step(step, cx)),
                },
                (Step::Literal(literal), Step::Target(name)) => match cx.target_literal(*name) {
                    Some(value) => kernel::test(*op, literal, value),
                    None => Truth::of(&self.step(step, cx)),
                },
                _ => Truth::of(&self.step(step, cx)),
            },
            // A chain of one operand is that operand's value.
            Step::Chain { dominant, first, len } => match items(cx.steps, *first, *len).split_first() {
                None => Truth::Undefined,
                Some((first, rest)) => {
                    let mut left = self.step_truth(first, cx);
                    for item in rest {
                        if left.decides(*dominant) {
                            break;
                        }
                        left = Truth::combine(*dominant, left, self.step_truth(item, cx));
                    }
                    left
                }
            },
            Step::Unary(UnaryOp::Not, operand) => match self.step_truth(cx.at(*operand), cx) {
                Truth::False => Truth::True,
                Truth::True => Truth::False,
                other => other,
            },
            Step::Cond(c, then, otherwise) => match self.step_truth(cx.at(*c), cx) {
                Truth::True => self.step_truth(cx.at(*then), cx),
                Truth::False => self.step_truth(cx.at(*otherwise), cx),
                other => other,
            },
            // Only an UNDEFINED value has an UNDEFINED truth.
            Step::Elvis(a, b) => match self.step_truth(cx.at(*a), cx) {
                Truth::Undefined => self.step_truth(cx.at(*b), cx),
                truth => truth,
            },
            Step::IsType(test, arg) => {
                let arg = cx.at(*arg);
                let holds = match arg {
                    Step::Target(name) => match cx.target_literal(*name) {
                        Some(literal) => test.holds(&Val::from_literal(literal)),
                        None => test.holds(&self.step(arg, cx)),
                    },
                    arg => test.holds(&self.step(arg, cx)),
                };
                Truth::from_bool(holds)
            }
            Step::Within(name, body) => {
                self.active.push(cx.attribute_key(*name));
                let truth = self.step_truth(cx.at(*body), cx);
                self.active.pop();
                truth
            }
            _ => Truth::of(&self.step(step, cx)),
        }
    }
}

impl<'c> EvalContext<'c> {
    /// Prepares `expr` of this context's MY ad for evaluation against many
    /// targets (see [`Prepared`]), borrowing the MY ad; `None` without a
    /// MY ad.
    pub fn prepare(&self, expr: &Expr) -> Option<Prepared<&'c ClassAd>> {
        Some(Prepared::new(self.options, self.my?, expr))
    }
}
