//! Batch matching: one request against many ads, the negotiator's inner
//! loop.
//!
//! (Two ads side by side, and what `Requirements` and `Rank` mean in a
//! match, are the `classad` crate's [`classad::matching`].)
//!
//! A [`Pool`] takes ads (in the negotiator, the machines; owned, or shared
//! behind [`Arc`]) and prepares each one's own `Requirements` and `Rank`
//! once, with the ad as MY (see [`Prepared`]); a `Requirements` or `Rank`
//! that does not depend on the request (`START = true`, a policy on the
//! machine's own attributes, `Rank = 0`) is decided then, and kept in a
//! dense array that a scan reads instead of the ad's prepared side. The
//! pool is updated one ad at a time ([`Pool::replace`], [`Pool::push`]).
//! Every request (a job) is then matched against all of
//! them: its `Requirements` and `Rank` are prepared once per request.
//! When its `Requirements` is a condition of comparisons between machine
//! attributes and constants (most are), it is evaluated over *columns* of
//! the machines' values, 256 machines at a time: the first request that
//! compares an attribute gathers that attribute's values from every
//! machine into a column, kept for later requests. Machines whose value is
//! not a literal, and requests of other shapes, are evaluated ad by ad.
//! Nothing is allocated per pair; the only allocations are per request
//! and the result vector, which [`matches_into`](Pool::matches_into) lets
//! the caller reuse.
//!
//! With the `parallel` feature (on by default), [`par_matches`](Pool::par_matches)
//! splits the ads over rayon's thread pool.
//!
//! The answers are exactly those of [`MatchAd`] for every
//! pair (`tests/matching.rs` checks it), apart from the limit caveat of
//! [`Prepared`]: folded parts cost no evaluation steps.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Semantics};
//! use matchmaker::matching::Pool;
//!
//! let machines: Vec<ClassAd> = [(1024, 0.0), (4096, 1.0), (8192, 2.0)]
//!     .iter()
//!     .map(|(memory, rank)| format!("[ Memory = {memory}; Rank = {rank};
//!         Requirements = TARGET.RequestMemory <= Memory ]").parse())
//!     .collect::<Result<_, _>>()?;
//! let job: ClassAd = "[ RequestMemory = 2048;
//!     Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Memory ]".parse()?;
//!
//! let opts = EvalOptions::new().semantics(Semantics::Old);
//! let pool = Pool::new(opts, machines);   // the pool owns the machines
//! let found = pool.matches(&job);
//! assert_eq!(found.iter().map(|m| m.index).collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(found[1].left_rank, 8192.0);  // the job's Rank of machine 2
//! assert_eq!(found[1].right_rank, 2.0);    // machine 2's Rank of the job
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

#[cfg(doc)]
use classad::eval::Prepared;
use classad::eval::{ColumnKernel, Columns, EvalOptions, PrepareCache, Truth, Unbound, BLOCK};
#[cfg(doc)]
use classad::matching::MatchAd;
use classad::matching::{rank, requirements};
use classad::{ClassAd, Expr};

/// Pools at least this large are prepared on every core.
#[cfg(feature = "parallel")]
const PARALLEL_PREPARE_FROM: usize = 4096;

/// How many ads ahead the request's lookups are prefetched.
const PREFETCH_AHEAD: usize = 4;

/// One ad of a [`Pool`] that matches a request, with both ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Match {
    /// The ad's position in the pool's slice.
    pub index: usize,
    /// The request's `Rank` of the ad (as [`rank_value`](classad::matching::rank_value) reads it).
    pub left_rank: f64,
    /// The ad's `Rank` of the request.
    pub right_rank: f64,
}

/// Ads prepared to be matched against many requests; the ads are the
/// right side of every match.
///
/// The pool owns its ads (behind [`Arc`], so that a caller can share them)
/// and can be changed one ad at a time: [`replace`](Pool::replace) and
/// [`push`](Pool::push) prepare that ad's side and update that position of
/// every column requests have built, leaving the rest as it is (a slot
/// claimed or released is a `replace`; a partitionable slot split is a
/// `replace` of the partitionable slot and a `push` of the new dynamic
/// one). A slot taken for the rest of a cycle need not be removed: the
/// `keep` filter of [`matches_into_filtered`](Pool::matches_into_filtered)
/// skips it.
pub struct Pool {
    options: Arc<EvalOptions>,
    /// Each ad's own `Requirements` and `Rank`, prepared with it as MY.
    sides: Vec<Side>,
    /// What is known of each ad's side whatever the request: dense, so
    /// that a scan over the pool reads 16 bytes an ad, and each ad's
    /// side only when its answer depends on the request.
    known: Vec<Known>,
    /// The ads, and their attributes that requests have compared, as
    /// columns.
    columns: Columns,
}

/// One ad's prepared expressions (its ad and the options are the
/// pool's: unbound, they hold and count neither).
struct Side {
    requirements: Option<Arc<Unbound>>,
    rank: Option<Arc<Unbound>>,
}

/// What is known of an ad's side whatever the request.
#[derive(Clone, Copy)]
struct Known {
    /// The ad's `Rank` of any request, when `rank_known`.
    rank: f64,
    rank_known: bool,
    /// Whether the ad accepts any request, when that does not depend on
    /// the request.
    accepts: Option<bool>,
}

impl Side {
    fn new(options: &EvalOptions, ad: &ClassAd) -> (Side, Known) {
        let prepare = |expr| Arc::new(Unbound::new(options, ad, expr));
        Side::of(ad.lookup(requirements()).map(prepare), ad.lookup(rank()).map(prepare))
    }

    /// The side of an ad whose `Requirements` and `Rank` are prepared.
    fn of(requirements: Option<Arc<Unbound>>, rank: Option<Arc<Unbound>>) -> (Side, Known) {
        let side = Side { requirements, rank };
        let rank = match &side.rank {
            Some(prepared) => prepared.constant_rank(),
            None => Some(0.0),
        };
        let known = Known {
            rank: rank.unwrap_or(0.0),
            rank_known: rank.is_some(),
            accepts: match &side.requirements {
                Some(prepared) => prepared.constant_truth(),
                None => Some(false),
            },
        };
        (side, known)
    }
}

/// One ad's side prepared for a [`Pool`], apart from the pool: a
/// negotiator keeps it from one cycle to the next while the ad stays the
/// same (see [`Pool::from_prepared`]).
pub(crate) struct PreparedSlot {
    side: Side,
    known: Known,
}

impl PreparedSlot {
    /// Prepares `ad`'s `Requirements` and `Rank` with it as MY.
    pub(crate) fn new(options: &EvalOptions, ad: &ClassAd) -> PreparedSlot {
        let (side, known) = Side::new(options, ad);
        PreparedSlot { side, known }
    }

    /// Prepares each of `ads` (on every core for many), taking what
    /// `cache` kept of ads that read the same, and keeping the rest there
    /// for later ones. The same as [`new`](Self::new) on each.
    pub(crate) fn all_cached(options: &EvalOptions, ads: &[&ClassAd], cache: &mut PrepareCache) -> Vec<PreparedSlot> {
        let exprs: Vec<[Option<&Expr>; 2]> =
            ads.iter().map(|ad| [ad.lookup(requirements()), ad.lookup(rank())]).collect();
        let mut found: Vec<[Option<Arc<Unbound>>; 2]> = exprs
            .iter()
            .zip(ads)
            .map(|(pair, ad)| pair.map(|expr| expr.and_then(|expr| cache.get(options, ad, expr))))
            .collect();
        // (ad, which expression) of those to prepare
        let missing: Vec<(usize, usize)> = (0..ads.len())
            .flat_map(|i| [(i, 0), (i, 1)])
            .filter(|&(i, which)| exprs[i][which].is_some() && found[i][which].is_none())
            .collect();
        let made = crate::parallel::map_costly(&missing, |_, &(i, which)| {
            exprs[i][which].map(|expr| PrepareCache::prepare(options, ads[i], expr))
        });
        for (&(i, which), made) in missing.iter().zip(made) {
            if let (Some(expr), Some(made)) = (exprs[i][which], made) {
                found[i][which] = Some(cache.keep(options, expr, made));
            }
        }
        found
            .into_iter()
            .map(|[requirements, rank]| {
                let (side, known) = Side::of(requirements, rank);
                PreparedSlot { side, known }
            })
            .collect()
    }
}

/// A request prepared for matching against a [`Pool`] (see
/// [`Pool::prepare`]); it was prepared with the request `'r` borrows
/// from, which is the one to match it as.
pub struct PreparedRequest<'r>(Request, PhantomData<&'r ClassAd>);

/// A request's prepared expressions.
struct Request {
    requirements: Option<Unbound>,
    /// `requirements` as a truth kernel over the pool's columns.
    kernel: Option<ColumnKernel>,
    rank: Option<Unbound>,
    /// The request's `Rank` of any ad, when known while preparing.
    constant_rank: Option<f64>,
}

impl PreparedRequest<'_> {
    /// The prepared request, no longer borrowing the ad it was prepared
    /// from, so that it can be kept next to that ad. It must still only be
    /// used with that ad.
    pub fn into_owned(self) -> PreparedRequest<'static> {
        PreparedRequest(self.0, PhantomData)
    }
}

impl Pool {
    /// Prepares the `Requirements` and `Rank` of every ad of `ads` (a
    /// `Vec<ClassAd>`, a `Vec<Arc<ClassAd>>`, any iterator of either).
    /// `options` may be an `EvalOptions`, a `&EvalOptions` (copied) or an
    /// `Arc<EvalOptions>` (shared).
    pub fn new(options: impl Into<Arc<EvalOptions>>, ads: impl IntoIterator<Item = impl Into<Arc<ClassAd>>>) -> Pool {
        let options = options.into();
        let columns = Columns::new(ads);
        #[cfg(feature = "parallel")]
        let (sides, known) = if columns.ads().len() >= PARALLEL_PREPARE_FROM {
            use rayon::prelude::*;
            columns.ads().par_iter().map(|ad| Side::new(&options, ad)).unzip()
        } else {
            columns.ads().iter().map(|ad| Side::new(&options, ad)).unzip()
        };
        #[cfg(not(feature = "parallel"))]
        let (sides, known) = columns.ads().iter().map(|ad| Side::new(&options, ad)).unzip();
        Pool { options, sides, known, columns }
    }

    /// The pool of `ads`, each already prepared (`prepared[i]` with
    /// `ads[i]` and options like `options`, by [`PreparedSlot::new`]).
    pub(crate) fn from_prepared(
        options: impl Into<Arc<EvalOptions>>,
        ads: Vec<Arc<ClassAd>>,
        prepared: Vec<PreparedSlot>,
    ) -> Pool {
        debug_assert_eq!(ads.len(), prepared.len());
        let (sides, known) = prepared.into_iter().map(|p| (p.side, p.known)).unzip();
        Pool { options: options.into(), sides, known, columns: Columns::new(ads) }
    }

    /// The pool's ads and their prepared sides, in order (the inverse of
    /// [`from_prepared`](Pool::from_prepared)).
    pub(crate) fn into_prepared(self) -> (Vec<Arc<ClassAd>>, Vec<PreparedSlot>) {
        let ads = self.columns.ads().to_vec();
        let prepared =
            self.sides.into_iter().zip(self.known).map(|(side, known)| PreparedSlot { side, known }).collect();
        (ads, prepared)
    }

    /// Gathers the pool's values of `names` now (the attributes requests
    /// will compare), a name per thread with the `parallel` feature,
    /// rather than as the first request reading each one is matched.
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Name, Semantics};
    /// use matchmaker::matching::Pool;
    ///
    /// let slots: Vec<ClassAd> = ["[ Memory = 1024; Requirements = true ]", "[ Memory = 4096; Requirements = true ]"]
    ///     .iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    /// let pool = Pool::new(EvalOptions::new().semantics(Semantics::Old), slots);
    /// pool.build_columns(&[Name::new("Memory")]);
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
    /// assert_eq!(pool.matches(&job).iter().map(|m| m.index).collect::<Vec<_>>(), [1]);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn build_columns(&self, names: &[classad::Name]) {
        #[cfg(feature = "parallel")]
        if self.columns.len() >= PARALLEL_PREPARE_FROM {
            use rayon::prelude::*;
            names.par_iter().for_each(|&name| self.columns.build(name));
            return;
        }
        for &name in names {
            self.columns.build(name);
        }
    }

    /// The ads, in the order [`Match::index`] refers to.
    pub fn ads(&self) -> &[Arc<ClassAd>] {
        self.columns.ads()
    }

    /// The options the pool evaluates with.
    pub fn options(&self) -> &EvalOptions {
        &self.options
    }

    /// How many ads the pool has.
    pub fn len(&self) -> usize {
        self.sides.len()
    }

    /// Whether the pool has no ads.
    pub fn is_empty(&self) -> bool {
        self.sides.is_empty()
    }

    /// Replaces the ad at `index` with `ad` (a slot claimed, released or
    /// changed): prepares its side and updates that position of every
    /// column built so far; the other ads are not touched. Returns the ad
    /// it replaces.
    ///
    /// # Panics
    ///
    /// When `index` is not less than [`len`](Pool::len).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Semantics};
    /// use matchmaker::matching::Pool;
    ///
    /// let machines: Vec<ClassAd> = [1024, 4096]
    ///     .iter()
    ///     .map(|memory| format!("[ Memory = {memory}; Requirements = true ]").parse())
    ///     .collect::<Result<_, _>>()?;
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
    /// let mut pool = Pool::new(EvalOptions::new().semantics(Semantics::Old), machines);
    /// assert_eq!(pool.count(&job), 1);
    /// pool.replace(0, "[ Memory = 8192; Requirements = true ]".parse::<ClassAd>()?);
    /// assert_eq!(pool.count(&job), 2);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn replace(&mut self, index: usize, ad: impl Into<Arc<ClassAd>>) -> Arc<ClassAd> {
        let ad = ad.into();
        let (side, known) = Side::new(&self.options, &ad);
        let old = self.columns.set(index, ad);
        self.sides[index] = side;
        self.known[index] = known;
        old
    }

    /// Adds `ad` after the others, prepared, and returns its index.
    pub fn push(&mut self, ad: impl Into<Arc<ClassAd>>) -> usize {
        let ad = ad.into();
        let (side, known) = Side::new(&self.options, &ad);
        self.sides.push(side);
        self.known.push(known);
        self.columns.push(ad);
        self.sides.len() - 1
    }

    /// The ads that match `request` symmetrically (each side's own
    /// `Requirements` true against the other), in pool order, with both
    /// ranks.
    pub fn matches(&self, request: &ClassAd) -> Vec<Match> {
        let mut found = Vec::new();
        self.matches_into(request, &mut found);
        found
    }

    /// As [`matches`](Pool::matches), appending to `found` (so a caller
    /// matching many requests can reuse one vector).
    pub fn matches_into(&self, request: &ClassAd, found: &mut Vec<Match>) {
        self.matches_into_filtered(request, |_| true, found);
    }

    /// As [`matches_into`](Pool::matches_into), for the ads whose index
    /// `keep` accepts: the others (slots already taken this cycle, say)
    /// are skipped: neither side's `Requirements` or `Rank` is evaluated
    /// against them. `keep` is asked about the ads in order, at most once
    /// each (not about those the request's `Requirements` already
    /// rejected over the columns).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Semantics};
    /// use matchmaker::matching::Pool;
    ///
    /// let machines: Vec<ClassAd> = (0..4).map(|_| "[ Requirements = true ]".parse()).collect::<Result<_, _>>()?;
    /// let job: ClassAd = "[ Requirements = true ]".parse()?;
    /// let pool = Pool::new(EvalOptions::new().semantics(Semantics::Old), machines);
    /// let taken = [false, true, false, true];
    /// let mut found = Vec::new();
    /// pool.matches_into_filtered(&job, |i| !taken[i], &mut found);
    /// assert_eq!(found.iter().map(|m| m.index).collect::<Vec<_>>(), [0, 2]);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn matches_into_filtered(&self, request: &ClassAd, keep: impl FnMut(usize) -> bool, found: &mut Vec<Match>) {
        let side = self.request(request);
        self.scan(&side, request, 0..self.len(), keep, |index| found.push(self.ranked(&side, request, index)));
    }

    /// The positions of the ads that match `request` both ways, in pool
    /// order, without ranking them, appended to `found`; only the ads
    /// `keep` accepts are looked at (see
    /// [`matches_into_filtered`](Pool::matches_into_filtered)).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Semantics};
    /// use matchmaker::matching::Pool;
    /// let ads: Vec<ClassAd> = (0..6).map(|i| format!("[ Memory = {}; Requirements = true ]", 1024 * i).parse()).collect::<Result<_, _>>()?;
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
    /// let pool = Pool::new(EvalOptions::new().semantics(Semantics::Old), ads);
    /// let mut found = Vec::new();
    /// pool.matching_into(&job, |i| i != 3, &mut found);
    /// assert_eq!(found, [2, 4, 5]);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn matching_into(&self, request: &ClassAd, keep: impl FnMut(usize) -> bool, found: &mut Vec<usize>) {
        self.matching_in(request, 0..self.len(), keep, found);
    }

    /// As [`matching_into`](Pool::matching_into), for the ads of `range`
    /// only.
    pub fn matching_in(
        &self,
        request: &ClassAd,
        range: Range<usize>,
        keep: impl FnMut(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        let side = self.request(request);
        self.scan_ranges(&side, request, std::slice::from_ref(&range), keep, found);
    }

    /// `request` prepared for matching against this pool, for
    /// [`matching_in_ranges`](Pool::matching_in_ranges): its
    /// `Requirements` and `Rank` prepared, its `Requirements` bound to the
    /// pool's columns.
    pub fn prepare<'r>(&self, request: &'r ClassAd) -> PreparedRequest<'r> {
        PreparedRequest(self.request(request), PhantomData)
    }

    /// Whether ad `index` accepts no request at all: its `Requirements`
    /// is missing, or is not true whatever the request (known when the pool
    /// was made or the ad replaced).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions};
    /// use matchmaker::matching::Pool;
    ///
    /// let slots: Vec<ClassAd> = vec![
    ///     "[ Requirements = KeyboardIdle > 900; KeyboardIdle = 5 ]".parse()?,
    ///     "[ Requirements = TARGET.RequestCpus <= 4 ]".parse()?,
    /// ];
    /// let pool = Pool::new(EvalOptions::new(), slots);
    /// assert!(pool.accepts_nothing(0));
    /// assert!(!pool.accepts_nothing(1));
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn accepts_nothing(&self, index: usize) -> bool {
        self.known.get(index).is_some_and(|k| k.accepts == Some(false))
    }

    /// As [`matching_in`](Pool::matching_in), for several ranges, with the
    /// request prepared once by [`prepare`](Pool::prepare) (`request` is
    /// the ad it was prepared from).
    pub fn matching_in_ranges(
        &self,
        prepared: &PreparedRequest<'_>,
        request: &ClassAd,
        ranges: &[Range<usize>],
        keep: impl FnMut(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        self.scan_ranges(&prepared.0, request, ranges, keep, found);
    }

    fn scan_ranges(
        &self,
        side: &Request,
        request: &ClassAd,
        ranges: &[Range<usize>],
        mut keep: impl FnMut(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        for range in ranges {
            let range = range.start.min(self.len())..range.end.min(self.len());
            self.scan(side, request, range, &mut keep, |index| found.push(index));
        }
    }

    /// As [`matching_into`](Pool::matching_into), with the ads split over
    /// rayon's thread pool. The result is the same, in the same order.
    #[cfg(feature = "parallel")]
    pub fn par_matching(&self, request: &ClassAd, keep: impl Fn(usize) -> bool + Sync) -> Vec<usize> {
        self.par_matching_in(request, 0..self.len(), keep)
    }

    /// As [`matching_in`](Pool::matching_in), with the ads split over
    /// rayon's thread pool.
    #[cfg(feature = "parallel")]
    pub fn par_matching_in(
        &self,
        request: &ClassAd,
        range: Range<usize>,
        keep: impl Fn(usize) -> bool + Sync,
    ) -> Vec<usize> {
        use rayon::prelude::*;
        let range = range.start.min(self.len())..range.end.min(self.len());
        let keep = &keep;
        let side = self.request(request);
        let side = &side;
        let tasks = rayon::current_num_threads() * 4;
        let per_task = range.len().div_ceil(tasks);
        let chunk = if per_task >= BLOCK { per_task.div_ceil(BLOCK) * BLOCK } else { per_task.max(8) };
        let chunks: Vec<Vec<usize>> = (0..range.len().div_ceil(chunk))
            .into_par_iter()
            .map(|task| {
                let start = range.start + task * chunk;
                let end = (start + chunk).min(range.end);
                let mut found = Vec::new();
                self.scan(side, request, start..end, keep, |index| found.push(index));
                found
            })
            .collect();
        chunks.concat()
    }

    /// As [`matching_in_ranges`](Pool::matching_in_ranges), with the ads
    /// split over rayon's thread pool. The result is the same, in the same
    /// order.
    #[cfg(feature = "parallel")]
    pub fn par_matching_in_ranges(
        &self,
        prepared: &PreparedRequest<'_>,
        request: &ClassAd,
        ranges: &[Range<usize>],
        keep: impl Fn(usize) -> bool + Sync,
    ) -> Vec<usize> {
        use rayon::prelude::*;
        let keep = &keep;
        let side = &prepared.0;
        let ranges: Vec<Range<usize>> =
            ranges.iter().map(|r| r.start.min(self.len())..r.end.min(self.len())).filter(|r| !r.is_empty()).collect();
        let total: usize = ranges.iter().map(|r| r.len()).sum();
        let tasks = rayon::current_num_threads() * 4;
        let chunk = total.div_ceil(tasks).div_ceil(BLOCK).max(1) * BLOCK;
        // Tasks of about `chunk` ads each: long ranges cut, short ones
        // put together, all in order.
        let mut work: Vec<Vec<Range<usize>>> = vec![Vec::new()];
        let mut size = 0;
        for range in ranges {
            let mut start = range.start;
            while start < range.end {
                let end = (start + (chunk - size)).min(range.end);
                if let Some(task) = work.last_mut() {
                    task.push(start..end);
                }
                size += end - start;
                start = end;
                if size >= chunk {
                    work.push(Vec::new());
                    size = 0;
                }
            }
        }
        let chunks: Vec<Vec<usize>> = work
            .into_par_iter()
            .map(|task| {
                let mut found = Vec::new();
                for range in task {
                    self.scan(side, request, range, keep, |index| found.push(index));
                }
                found
            })
            .collect();
        chunks.concat()
    }

    /// How many ads match `request`, without ranking them.
    pub fn count(&self, request: &ClassAd) -> usize {
        let side = self.request(request);
        let mut n = 0;
        self.scan(&side, request, 0..self.len(), |_| true, |_| n += 1);
        n
    }

    /// As [`matches`](Pool::matches), with the ads split over rayon's
    /// thread pool. The result is the same, in the same order.
    #[cfg(feature = "parallel")]
    pub fn par_matches(&self, request: &ClassAd) -> Vec<Match> {
        self.par_matches_filtered(request, |_| true)
    }

    /// As [`par_matches`](Pool::par_matches), for the ads whose index
    /// `keep` accepts (see [`matches_into_filtered`](Pool::matches_into_filtered));
    /// `keep` is called from rayon's threads, in no particular order.
    #[cfg(feature = "parallel")]
    pub fn par_matches_filtered(&self, request: &ClassAd, keep: impl Fn(usize) -> bool + Sync) -> Vec<Match> {
        use rayon::prelude::*;
        let keep = &keep;
        let side = self.request(request);
        let side = &side;
        // A few tasks per thread: whole blocks for large pools, where the
        // columns do the work, and a few ads each for small ones, where
        // the ads' own expressions do.
        let len = self.len();
        let tasks = rayon::current_num_threads() * 4;
        let per_task = len.div_ceil(tasks);
        let chunk = if per_task >= BLOCK { per_task.div_ceil(BLOCK) * BLOCK } else { per_task.max(8) };
        let chunks: Vec<Vec<Match>> = (0..len.div_ceil(chunk))
            .into_par_iter()
            .map(|task| {
                let start = task * chunk;
                let end = (start + chunk).min(len);
                let mut found = Vec::new();
                self.scan(side, request, start..end, keep, |index| found.push(self.ranked(side, request, index)));
                found
            })
            .collect();
        chunks.concat()
    }

    /// Prepares `request`'s side, binding its `Requirements` to the
    /// pool's columns (built for the attributes it compares, if no earlier
    /// request built them).
    fn request(&self, request: &ClassAd) -> Request {
        let prepare = |expr| Unbound::new(&self.options, request, expr);
        let requirements = request.lookup(requirements()).map(prepare);
        let rank = request.lookup(rank()).map(prepare);
        Request {
            kernel: requirements.as_ref().and_then(|prepared| prepared.bind(&self.columns)),
            requirements,
            constant_rank: match &rank {
                Some(prepared) => prepared.constant_rank(),
                None => Some(0.0),
            },
            rank,
        }
    }

    /// Calls `matched` with the index of every ad of `range` that `keep`
    /// accepts and that matches the request both ways, in order. The
    /// request's side is decided a block of ads at a time over the
    /// columns when it has a kernel, and ad by ad otherwise.
    fn scan(
        &self,
        side: &Request,
        request: &ClassAd,
        range: Range<usize>,
        mut keep: impl FnMut(usize) -> bool,
        mut matched: impl FnMut(usize),
    ) {
        let ads = self.columns.ads();
        let Some(kernel) = &side.kernel else {
            let Some(req) = &side.requirements else {
                return;
            };
            for i in range {
                if let Some(ahead) = ads.get(i + PREFETCH_AHEAD) {
                    req.prefetch(ahead);
                }
                if keep(i) && req.is_true(&self.options, request, &ads[i]) && self.accepts(i, request) {
                    matched(i);
                }
            }
            return;
        };
        let mut truths = [Truth::False; BLOCK];
        let mut unknown = [false; BLOCK];
        let mut start = range.start;
        while start < range.end {
            let n = (range.end - start).min(BLOCK);
            unknown[..n].fill(false);
            kernel.eval(start, &mut truths[..n], &mut unknown[..n]);
            for j in 0..n {
                let i = start + j;
                let accepted = if unknown[j] {
                    keep(i)
                        && side.requirements.as_ref().is_some_and(|req| req.is_true(&self.options, request, &ads[i]))
                } else {
                    truths[j] == Truth::True && keep(i)
                };
                if accepted && self.accepts(i, request) {
                    matched(i);
                }
            }
            start += n;
        }
    }

    /// Whether ad `i` accepts the request.
    #[inline]
    fn accepts(&self, i: usize, request: &ClassAd) -> bool {
        self.known[i].accepts.unwrap_or_else(|| {
            let my = &self.columns.ads()[i];
            self.sides[i].requirements.as_ref().is_some_and(|req| req.is_true(&self.options, my, request))
        })
    }

    /// The match with ad `index`, with both ranks.
    #[inline]
    fn ranked(&self, side: &Request, request: &ClassAd, index: usize) -> Match {
        let known = self.known[index];
        Match {
            index,
            left_rank: match side.constant_rank {
                Some(rank) => rank,
                None => {
                    side.rank.as_ref().map_or(0.0, |rank| rank.rank(&self.options, request, &self.columns.ads()[index]))
                }
            },
            right_rank: if known.rank_known {
                known.rank
            } else {
                self.sides[index]
                    .rank
                    .as_ref()
                    .map_or(0.0, |rank| rank.rank(&self.options, &self.columns.ads()[index], request))
            },
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("ads", &self.len()).finish_non_exhaustive()
    }
}
