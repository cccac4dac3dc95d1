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
//!
//! This file holds the prepared forms ([`Prepared`], [`Unbound`]) and
//! their API; the steps they are made of are `step`'s, built by
//! `preparer` and run by `run`; `kernel` is the truth kernel, `columns`
//! its form over columns of many targets, and `reuse` shares preparations
//! between ads that read the same.

mod columns;
mod kernel;
mod preparer;
mod reuse;
mod run;
mod step;

pub use columns::{ColumnKernel, Columns, BLOCK};
pub use kernel::Truth;
pub use reuse::{Preparation, PrepareCache};

use std::borrow::Borrow;
use std::sync::Arc;

use super::val::Val;
use super::{EvalContext, EvalOptions, Evaluator, Frame, Keep, Side};
use crate::ad::ClassAd;
use crate::expr::{Expr, Repr};
use crate::name::{AttrKey, Name};
use crate::value::Value;
use kernel::Kernel;
use preparer::Preparer;
use reuse::Reads;
use run::Cx;
use step::Step;

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

impl<'c> EvalContext<'c> {
    /// Prepares `expr` of this context's MY ad for evaluation against many
    /// targets (see [`Prepared`]), borrowing the MY ad; `None` without a
    /// MY ad.
    pub fn prepare(&self, expr: &Expr) -> Option<Prepared<&'c ClassAd>> {
        Some(Prepared::new(self.options, self.my?, expr))
    }
}
