//! Prepared expressions kept for the next ad that reads the same.
//!
//! Preparing an expression folds what it reads of the MY ad: the literal
//! values of the attributes it names, whether MY defines `TARGET`, the
//! expressions of MY's attributes it inlines. Many ads share one
//! expression (the `Requirements` of every slot of a machine type is the
//! same [`Expr`], shared) and differ only in a few values (a
//! partitionable slot's `Cpus` and `Memory` as jobs come and go), so a
//! preparation can serve every later ad that reads the same: the same
//! value for every attribute it looked up (the same expression, by
//! address, for an attribute that is not a literal), the same answer for
//! every `TARGET` it asked MY about. Preparing then follows the same path
//! and builds the same steps. A [`PrepareCache`] keeps preparations by
//! their expression and what they read.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;

use super::Unbound;
use crate::ad::ClassAd;
use crate::eval::{EvalLimits, EvalOptions, Semantics};
use crate::expr::{Expr, Literal, Repr};
use crate::name::Name;

/// How many sets of values one expression keeps preparations for (past
/// it, they are forgotten and kept afresh): an expression reading a value
/// that is new every time (a clock, a load average) keeps no more.
const MAX_VARIANTS: usize = 256;

/// How many different lists of reads one expression keeps (a read may
/// decide which others follow: `x ? A : B`).
const MAX_READ_LISTS: usize = 16;

/// What preparing looked at in MY.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Read {
    /// The attribute of that name.
    Lookup(Name),
    /// Whether MY defines that reserved name (`TARGET`, `MY`, ...).
    Defines(Name),
}

/// What a [`Read`] found.
#[derive(Clone, Debug)]
pub(super) enum Seen {
    Absent,
    Defined(bool),
    Literal(Literal),
    /// An expression, by the address of its tree (the [`Expr`] held keeps
    /// the address its own).
    Expr(Expr),
}

impl Seen {
    /// What looking up an attribute found.
    pub(super) fn of(found: Option<&Expr>) -> Seen {
        match found {
            None => Seen::Absent,
            Some(expr) => match &expr.0 {
                Repr::Lit(literal) => Seen::Literal(literal.clone()),
                Repr::Node(_) => Seen::Expr(expr.clone()),
            },
        }
    }

    fn view(&self) -> View<'_> {
        match self {
            Seen::Absent => View::Absent,
            Seen::Defined(b) => View::Defined(*b),
            Seen::Literal(literal) => View::Literal(literal),
            Seen::Expr(expr) => View::Expr(address(expr).unwrap_or(0)),
        }
    }
}

/// What a read finds, borrowed from the ad (or a [`Seen`]): compared and
/// hashed without copying anything.
#[derive(Clone, Copy)]
enum View<'a> {
    Absent,
    Defined(bool),
    Literal(&'a Literal),
    Expr(usize),
}

impl<'a> View<'a> {
    /// What `read` finds in `my`.
    fn read(read: Read, my: &'a ClassAd) -> View<'a> {
        match read {
            Read::Lookup(name) => match my.lookup_name(name) {
                None => View::Absent,
                Some(expr) => match &expr.0 {
                    Repr::Lit(literal) => View::Literal(literal),
                    Repr::Node(_) => View::Expr(address(expr).unwrap_or(0)),
                },
            },
            Read::Defines(name) => View::Defined(my.may_define(name)),
        }
    }

    /// The same value: reals bit for bit (`0.0` and `-0.0` differ in what
    /// `1 / x` gives), strings byte for byte, expressions by address.
    fn same(self, other: View<'_>) -> bool {
        match (self, other) {
            (View::Absent, View::Absent) => true,
            (View::Defined(a), View::Defined(b)) => a == b,
            (View::Literal(a), View::Literal(b)) => same_literal(a, b),
            (View::Expr(a), View::Expr(b)) => a == b,
            _ => false,
        }
    }

    fn hash<H: Hasher>(self, state: &mut H) {
        match self {
            View::Absent => state.write_u8(0),
            View::Defined(b) => state.write_u8(1 + u8::from(b)),
            View::Literal(literal) => match literal {
                Literal::Undefined => state.write_u8(3),
                Literal::Error => state.write_u8(4),
                Literal::Bool(b) => state.write_u8(5 + u8::from(*b)),
                Literal::Int(i) => state.write_i64(*i),
                Literal::Real(r) => state.write_u64(r.to_bits()),
                Literal::Str(s) => s.as_str().hash(state),
                Literal::AbsTime(t) => t.hash(state),
                Literal::RelTime(r) => state.write_u64(r.0.to_bits()),
            },
            View::Expr(address) => state.write_usize(address),
        }
    }
}

/// The hash of what a list of reads found.
fn hash_views<'a>(views: impl Iterator<Item = View<'a>>) -> u64 {
    let mut state = FxHasher::default();
    for view in views {
        view.hash(&mut state);
    }
    state.finish()
}

/// Whether two literals are the same value, as [`View::same`] says.
fn same_literal(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Undefined, Literal::Undefined) | (Literal::Error, Literal::Error) => true,
        (Literal::Bool(x), Literal::Bool(y)) => x == y,
        (Literal::Int(x), Literal::Int(y)) => x == y,
        (Literal::Real(x), Literal::Real(y)) => x.to_bits() == y.to_bits(),
        (Literal::Str(x), Literal::Str(y)) => x.as_str() == y.as_str(),
        (Literal::AbsTime(x), Literal::AbsTime(y)) => x == y,
        (Literal::RelTime(x), Literal::RelTime(y)) => x.0.to_bits() == y.0.to_bits(),
        _ => false,
    }
}

/// The address of an expression's tree (`None` for a literal, which has
/// none).
fn address(expr: &Expr) -> Option<usize> {
    match &expr.0 {
        Repr::Node(node) => Some(Arc::as_ptr(node) as *const u8 as usize),
        Repr::Lit(_) => None,
    }
}

/// The reads of one preparation, in the order made, each once.
#[derive(Default, Debug)]
pub(super) struct Reads(Vec<(Read, Seen)>);

impl Reads {
    /// Notes that `read` found `seen` (a read made again finds the same).
    pub(super) fn note(&mut self, read: Read, seen: Seen) {
        if !self.0.iter().any(|(r, _)| *r == read) {
            self.0.push((read, seen));
        }
    }
}

/// One expression prepared, ready to be kept in a [`PrepareCache`]: made
/// by [`PrepareCache::prepare`], which needs no cache (so that many can
/// be made at once on other threads), and kept by
/// [`PrepareCache::keep`].
pub struct Preparation {
    unbound: Arc<Unbound>,
    reads: Option<Reads>,
}

impl Preparation {
    /// The prepared expression.
    pub fn unbound(&self) -> &Arc<Unbound> {
        &self.unbound
    }
}

/// The preparations of one expression (the one [`Entry::expr`] holds).
struct Entry {
    /// The expression: held, so that its address stays its own.
    expr: Expr,
    /// By the list of reads made, the preparations by what they found.
    lists: Vec<(Box<[Read]>, Variants)>,
}

/// A preparation, and what its reads found.
type Variant = (Box<[Seen]>, Arc<Unbound>);

/// The preparations of one expression that made one list of reads, by
/// the hash of what the reads found.
#[derive(Default)]
struct Variants {
    by_hash: FxHashMap<u64, Vec<Variant>>,
    len: usize,
}

impl Variants {
    /// The preparation for an ad whose reads find `views`.
    fn find(&self, views: &[View<'_>]) -> Option<&Arc<Unbound>> {
        let same = self.by_hash.get(&hash_views(views.iter().copied()))?;
        same.iter()
            .find(|(seen, _)| seen.iter().zip(views).all(|(seen, view)| seen.view().same(*view)))
            .map(|(_, unbound)| unbound)
    }

    fn insert(&mut self, seen: Box<[Seen]>, unbound: Arc<Unbound>) {
        if self.len >= MAX_VARIANTS {
            self.by_hash.clear();
            self.len = 0;
        }
        let hash = hash_views(seen.iter().map(Seen::view));
        self.by_hash.entry(hash).or_default().push((seen, unbound));
        self.len += 1;
    }
}

/// Prepared expressions, kept by expression and by what preparing read of
/// the MY ad, so that an expression shared by many ads alike is prepared
/// once per distinct set of values it reads.
///
/// What [`get`](PrepareCache::get) gives is what
/// [`Unbound::new`] would make for that ad: the same steps, evaluating
/// to the same values. One cache serves one set of options (their clock
/// and random source aside, which preparing never reads); with other
/// options it starts afresh. Each expression keeps a bounded number of
/// preparations, and [`forget_unused`](PrepareCache::forget_unused) drops
/// those of expressions no one else holds.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Semantics};
/// use classad::eval::PrepareCache;
///
/// let opts = EvalOptions::new().semantics(Semantics::Old);
/// let requirements: classad::Expr = "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus".parse()?;
/// let mut slot = ClassAd::new();
/// slot.insert("Requirements", requirements.clone());
/// slot.insert("Cpus", 8);
///
/// let mut cache = PrepareCache::new();
/// let first = cache.get_or_prepare(&opts, &slot, &requirements);
/// // Another slot with the same Cpus: the same preparation.
/// let again = cache.get(&opts, &slot.clone(), &requirements).expect("kept");
/// assert!(std::sync::Arc::ptr_eq(&first, &again));
/// // Other Cpus: prepared anew.
/// slot.insert("Cpus", 1);
/// assert!(cache.get(&opts, &slot, &requirements).is_none());
/// let job: ClassAd = "[ RequestCpus = 2 ]".parse()?;
/// assert!(first.is_true(&opts, &slot, &job) && !cache.get_or_prepare(&opts, &slot, &requirements).is_true(&opts, &slot, &job));
/// # Ok::<(), classad::ParseError>(())
/// ```
#[derive(Default)]
pub struct PrepareCache {
    /// What the preparations were made with.
    made_with: Option<(Semantics, EvalLimits)>,
    /// By the expression's address.
    entries: FxHashMap<usize, Entry>,
}

impl PrepareCache {
    /// An empty cache.
    pub fn new() -> PrepareCache {
        PrepareCache::default()
    }

    /// How many expressions have preparations kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A kept preparation of `expr` that serves `my` with `options`.
    pub fn get(&self, options: &EvalOptions, my: &ClassAd, expr: &Expr) -> Option<Arc<Unbound>> {
        if self.made_with != Some((options.semantics, options.limits)) {
            return None;
        }
        let entry = self.entries.get(&address(expr)?)?;
        entry.lists.iter().find_map(|(reads, variants)| {
            let views: SmallVec<[View<'_>; 8]> = reads.iter().map(|read| View::read(*read, my)).collect();
            variants.find(&views).cloned()
        })
    }

    /// Prepares `expr` with `my` as the MY ad, noting what it reads so
    /// that [`keep`](PrepareCache::keep) can keep it.
    pub fn prepare(options: &EvalOptions, my: &ClassAd, expr: &Expr) -> Preparation {
        let (unbound, reads) = Unbound::build(options, my, expr, true);
        Preparation { unbound: Arc::new(unbound), reads }
    }

    /// Keeps `preparation`, of `expr` with `options`, for later ads;
    /// returns its prepared expression.
    pub fn keep(&mut self, options: &EvalOptions, expr: &Expr, preparation: Preparation) -> Arc<Unbound> {
        let Preparation { unbound, reads } = preparation;
        let (Some(key), Some(Reads(reads))) = (address(expr), reads) else { return unbound };
        let made_with = Some((options.semantics, options.limits));
        if self.made_with != made_with {
            self.entries.clear();
            self.made_with = made_with;
        }
        let entry = self.entries.entry(key).or_insert_with(|| Entry { expr: expr.clone(), lists: Vec::new() });
        let (names, seen): (Vec<Read>, Vec<Seen>) = reads.into_iter().unzip();
        let list = match entry.lists.iter().position(|(r, _)| **r == *names) {
            Some(i) => i,
            None if entry.lists.len() < MAX_READ_LISTS => {
                entry.lists.push((names.into_boxed_slice(), Variants::default()));
                entry.lists.len() - 1
            }
            None => return unbound,
        };
        entry.lists[list].1.insert(seen.into_boxed_slice(), unbound.clone());
        unbound
    }

    /// `expr` prepared with `my` as the MY ad: a kept preparation, or one
    /// made now and kept.
    pub fn get_or_prepare(&mut self, options: &EvalOptions, my: &ClassAd, expr: &Expr) -> Arc<Unbound> {
        match self.get(options, my, expr) {
            Some(kept) => kept,
            None => {
                let made = PrepareCache::prepare(options, my, expr);
                self.keep(options, expr, made)
            }
        }
    }

    /// Drops the preparations of expressions that only the cache holds
    /// (no ad has them any more).
    pub fn forget_unused(&mut self) {
        self.entries.retain(|_, entry| match &entry.expr.0 {
            Repr::Node(node) => Arc::strong_count(node) > 1,
            Repr::Lit(_) => false,
        });
    }
}

impl std::fmt::Debug for PrepareCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrepareCache").field("expressions", &self.entries.len()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    fn old() -> EvalOptions {
        EvalOptions::new().semantics(Semantics::Old)
    }

    /// Every MY ad below gets from the cache what preparing it gives: the
    /// same value against every target.
    #[test]
    fn kept_preparations_evaluate_as_fresh_ones() {
        let opts = old();
        let exprs: Vec<Expr> = [
            "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= Memory",
            "Start && (TARGET.RequestCpus <= Cpus)",
            "ifThenElse(Busy, TARGET.Owner == \"amy\", Memory * 2 > TARGET.RequestMemory)",
            "strcat(Name, \"@\", Domain) == TARGET.Host || Missing =?= undefined",
            "TARGET.RequestDisk <= Disk / (1 / Scale)",
        ]
        .iter()
        .map(|t| t.parse().expect("expr"))
        .collect();
        let start: Expr = "TARGET.Owner =!= \"bob\"".parse().expect("expr");
        let mut mys = Vec::new();
        for cpus in [0, 1, 8] {
            for memory in ["1024", "4096", "1024.0"] {
                for busy in ["true", "false", "undefined"] {
                    for scale in ["1.0", "-0.0", "0.0"] {
                        let mut my = ad(&format!(
                            "[ Cpus = {cpus}; Memory = {memory}; Busy = {busy}; Name = \"slot1\"; Domain = \"d\"; Disk = 100; Scale = {scale} ]"
                        ));
                        my.insert("Start", start.clone());
                        mys.push(my);
                    }
                }
            }
        }
        // One defining TARGET itself, and one chained to a parent.
        mys.push(ad("[ Cpus = 8; Memory = 4096; TARGET = [ RequestCpus = 99 ]; Busy = false; Disk = 1; Scale = 1 ]"));
        let mut chained = ad("[ Busy = true ]");
        chained
            .chain_to(Arc::new(ad("[ Cpus = 8; Memory = 4096; Name = \"p\"; Domain = \"d\"; Disk = 5; Scale = 2 ]")));
        mys.push(chained);
        let targets: Vec<ClassAd> = [
            "[ RequestCpus = 1; RequestMemory = 2048; Owner = \"amy\"; Host = \"slot1@d\"; RequestDisk = 50 ]",
            "[ RequestCpus = 8; RequestMemory = 512; Owner = \"bob\"; RequestDisk = 500 ]",
            "[ ]",
        ]
        .iter()
        .map(|t| ad(t))
        .collect();
        let mut cache = PrepareCache::new();
        let mut hits = 0;
        for round in 0..2 {
            for my in &mys {
                for expr in &exprs {
                    let kept = cache.get(&opts, my, expr);
                    hits += usize::from(kept.is_some());
                    let cached = kept.unwrap_or_else(|| cache.get_or_prepare(&opts, my, expr));
                    let fresh = Unbound::new(&opts, my, expr);
                    for target in &targets {
                        let (a, b) = (cached.eval(&opts, my, target), fresh.eval(&opts, my, target));
                        assert_eq!(
                            format!("{a:?}"),
                            format!("{b:?}"),
                            "round {round}: {expr} with {my} against {target}"
                        );
                        assert_eq!(cached.is_true(&opts, my, target), fresh.is_true(&opts, my, target));
                    }
                }
            }
        }
        // The second round finds every one it kept in the first.
        assert!(hits >= mys.len() * exprs.len(), "{hits} hits");
    }

    /// An ad differing only in what the expression does not read shares
    /// its preparation; a different value, or a different expression for
    /// an inlined attribute, does not.
    #[test]
    fn a_preparation_serves_ads_that_read_the_same() {
        let opts = old();
        let expr: Expr = "Start && TARGET.RequestMemory <= Memory".parse().expect("expr");
        let start: Expr = "TARGET.Owner =!= \"bob\"".parse().expect("expr");
        let mut a = ad("[ Memory = 4096; Unread = 1 ]");
        a.insert("Start", start.clone());
        let mut cache = PrepareCache::new();
        let first = cache.get_or_prepare(&opts, &a, &expr);
        let mut b = a.clone();
        b.insert("Unread", 2);
        assert!(cache.get(&opts, &b, &expr).is_some_and(|u| Arc::ptr_eq(&u, &first)));
        let mut c = a.clone();
        c.insert("Memory", 4096.0);
        assert!(cache.get(&opts, &c, &expr).is_none(), "4096.0 is not 4096");
        let mut d = a.clone();
        d.insert("Start", "TARGET.Owner =!= \"bob\"".parse::<Expr>().expect("expr"));
        assert!(cache.get(&opts, &d, &expr).is_none(), "the same text, another expression");
        let mut e = a.clone();
        e.remove("Memory");
        assert!(cache.get(&opts, &e, &expr).is_none());
        // Another expression of the same text is another entry.
        let other: Expr = "Start && TARGET.RequestMemory <= Memory".parse().expect("expr");
        assert!(cache.get(&opts, &a, &other).is_none());
        // New semantics: prepared afresh.
        assert!(cache.get(&EvalOptions::new(), &a, &expr).is_none());
        assert!(cache.get(&old().clock(crate::eval::Clock::Fixed(5)), &a, &expr).is_some(), "the clock is not read");
    }

    /// An inlined attribute whose steps reach the target is marked as
    /// being evaluated in whichever ad the steps serve: a cycle back to it
    /// through the target is ERROR there, as the interpreter has it.
    #[test]
    fn cycles_through_inlined_attributes_are_found_in_every_ad_served() {
        let opts = old();
        let expr: Expr = "A > 1".parse().expect("expr");
        let a: Expr = "TARGET.X + B".parse().expect("expr");
        let mut cache = PrepareCache::new();
        let looping = ad("[ X = TARGET.A ]");
        let plain = ad("[ X = 5 ]");
        for copy in 0..3 {
            let mut my = ad(&format!("[ B = 1; Copy = {copy} ]"));
            my.insert("A", a.clone());
            let made = cache.get_or_prepare(&opts, &my, &expr);
            if copy > 0 {
                assert!(cache.get(&opts, &my, &expr).is_some_and(|kept| Arc::ptr_eq(&kept, &made)));
            }
            let fresh = Unbound::new(&opts, &my, &expr);
            for target in [&looping, &plain] {
                let (a, b) = (made.eval(&opts, &my, target), fresh.eval(&opts, &my, target));
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
                let direct = crate::eval::EvalContext::new(&opts).my(&my).target(target).eval(&expr);
                assert_eq!(format!("{a:?}"), format!("{direct:?}"));
            }
            assert!(matches!(made.eval(&opts, &my, &looping), Value::Error));
            assert!(matches!(made.eval(&opts, &my, &plain), Value::Bool(true)));
        }
    }

    /// Past the bound, an expression's preparations start afresh; those no
    /// ad holds are dropped.
    #[test]
    fn the_cache_stays_bounded() {
        let opts = old();
        let expr: Expr = "TARGET.RequestCpus <= Cpus".parse().expect("expr");
        let mut cache = PrepareCache::new();
        for cpus in 0..(MAX_VARIANTS as i64 * 2 + 7) {
            cache.get_or_prepare(&opts, &ad(&format!("[ Cpus = {cpus} ]")), &expr);
        }
        let kept: usize = cache.entries.values().flat_map(|e| &e.lists).map(|(_, v)| v.len).sum();
        assert!(kept <= MAX_VARIANTS && kept > 0, "{kept}");
        assert_eq!(cache.len(), 1);
        cache.forget_unused();
        assert_eq!(cache.len(), 1, "still held here");
        drop(expr);
        cache.forget_unused();
        assert!(cache.is_empty());
    }
}
