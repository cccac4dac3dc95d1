//! Batch matching: one request against many ads, the negotiator's inner
//! loop.
//!
//! (Two ads side by side, and what `Requirements` and `Rank` mean in a
//! match, are the `classad` crate's [`classad::matching`].)
//!
//! A [`Pool`] takes a slice of ads (in the negotiator, the machines) and
//! prepares each one's own `Requirements` and `Rank` once, with the ad as
//! MY (see [`Prepared`]); a `Requirements` that does not depend on the
//! request (`START = true`, or a policy on the machine's own attributes)
//! is decided then. Every request (a job) is then matched against all of
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
//! let pool = Pool::new(&opts, &machines);
//! let found = pool.matches(&job);
//! assert_eq!(found.iter().map(|m| m.index).collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(found[1].left_rank, 8192.0);  // the job's Rank of machine 2
//! assert_eq!(found[1].right_rank, 2.0);    // machine 2's Rank of the job
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::ops::Range;

use classad::eval::{ColumnKernel, Columns, EvalOptions, Prepared, Truth, BLOCK};
#[cfg(doc)]
use classad::matching::MatchAd;
use classad::matching::{rank, requirements};
use classad::ClassAd;

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

/// A slice of ads prepared to be matched against many requests; the ads
/// are the right side of every match.
pub struct Pool<'p> {
    options: &'p EvalOptions,
    ads: &'p [ClassAd],
    /// Each ad's own `Requirements` and `Rank`, prepared with it as MY.
    sides: Box<[Side<'p>]>,
    /// The ads' attributes that requests have compared, as columns.
    columns: Columns<'p>,
}

/// One ad's prepared expressions.
struct Side<'p> {
    requirements: Option<Prepared<'p>>,
    /// The ad's acceptance when it does not depend on the request.
    always: Option<bool>,
    rank: Option<Prepared<'p>>,
}

/// A request prepared for matching against a [`Pool`] (see
/// [`Pool::prepare`]).
pub struct PreparedRequest<'r, 'p>(Request<'r, 'p>);

/// A request's prepared expressions.
struct Request<'r, 'p> {
    requirements: Option<Prepared<'r>>,
    /// `requirements` as a truth kernel over the pool's columns.
    kernel: Option<ColumnKernel<'p>>,
    rank: Option<Prepared<'r>>,
}

impl<'p> Pool<'p> {
    /// Prepares the `Requirements` and `Rank` of every ad of `ads`.
    pub fn new(options: &'p EvalOptions, ads: &'p [ClassAd]) -> Pool<'p> {
        let side = |ad: &'p ClassAd| {
            let requirements = ad.lookup(requirements()).map(|expr| Prepared::new(options, ad, expr));
            Side {
                always: match &requirements {
                    Some(prepared) => prepared.constant_truth(),
                    None => Some(false),
                },
                requirements,
                rank: ad.lookup(rank()).map(|expr| Prepared::new(options, ad, expr)),
            }
        };
        #[cfg(feature = "parallel")]
        let sides: Box<[Side<'p>]> = if ads.len() >= PARALLEL_PREPARE_FROM {
            use rayon::prelude::*;
            ads.par_iter().map(side).collect::<Vec<_>>().into_boxed_slice()
        } else {
            ads.iter().map(side).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let sides: Box<[Side<'p>]> = ads.iter().map(side).collect();
        Pool { options, ads, sides, columns: Columns::new(ads) }
    }

    /// The ads, in the order [`Match::index`] refers to.
    pub fn ads(&self) -> &'p [ClassAd] {
        self.ads
    }

    /// How many ads the pool has.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// Whether the pool has no ads.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
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
        let side = self.request(request);
        self.scan(&side, request, 0..self.ads.len(), |index| found.push(self.ranked(&side, request, index)));
    }

    /// How many ads match `request`, without ranking them.
    pub fn count(&self, request: &ClassAd) -> usize {
        let side = self.request(request);
        let mut n = 0;
        self.scan(&side, request, 0..self.ads.len(), |_| n += 1);
        n
    }

    /// The positions of the ads that match `request` both ways, in pool
    /// order, without ranking them, appended to `found`; only the ads
    /// `keep` says yes to are looked at (a negotiator leaves out the
    /// slots it has given away).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Semantics};
    /// use matchmaker::matching::Pool;
    /// let ads: Vec<ClassAd> = (0..6).map(|i| format!("[ Memory = {}; Requirements = true ]", 1024 * i).parse()).collect::<Result<_, _>>()?;
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
    /// let opts = EvalOptions::new().semantics(Semantics::Old);
    /// let pool = Pool::new(&opts, &ads);
    /// let mut found = Vec::new();
    /// pool.matching_into(&job, |i| i != 3, &mut found);
    /// assert_eq!(found, [2, 4, 5]);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn matching_into(&self, request: &ClassAd, keep: impl Fn(usize) -> bool, found: &mut Vec<usize>) {
        let side = self.request(request);
        self.scan_where(&side, request, 0..self.ads.len(), keep, |index| found.push(index));
    }

    /// As [`matching_into`](Pool::matching_into), for the ads of `range`
    /// only.
    pub fn matching_in(
        &self,
        request: &ClassAd,
        range: Range<usize>,
        keep: impl Fn(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        let side = self.request(request);
        self.scan_ranges(&side, request, std::slice::from_ref(&range), keep, found);
    }

    /// `request` prepared for matching against this pool, for
    /// [`matching_in_ranges`](Pool::matching_in_ranges): its
    /// `Requirements` and `Rank` prepared, its `Requirements` bound to the
    /// pool's columns.
    pub fn prepare<'r>(&self, request: &'r ClassAd) -> PreparedRequest<'r, 'p>
    where
        'p: 'r,
    {
        PreparedRequest(self.request(request))
    }

    /// As [`matching_in`](Pool::matching_in), for several ranges, with the
    /// request prepared once by [`prepare`](Pool::prepare) (`request` is
    /// the ad it was prepared from).
    pub fn matching_in_ranges(
        &self,
        prepared: &PreparedRequest<'_, 'p>,
        request: &ClassAd,
        ranges: &[Range<usize>],
        keep: impl Fn(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        self.scan_ranges(&prepared.0, request, ranges, keep, found);
    }

    fn scan_ranges(
        &self,
        side: &Request<'_, 'p>,
        request: &ClassAd,
        ranges: &[Range<usize>],
        keep: impl Fn(usize) -> bool,
        found: &mut Vec<usize>,
    ) {
        for range in ranges {
            let range = range.start.min(self.ads.len())..range.end.min(self.ads.len());
            self.scan_where(side, request, range, &keep, |index| found.push(index));
        }
    }

    /// As [`matching_into`](Pool::matching_into), with the ads split over
    /// rayon's thread pool. The result is the same, in the same order.
    #[cfg(feature = "parallel")]
    pub fn par_matching(&self, request: &ClassAd, keep: impl Fn(usize) -> bool + Sync) -> Vec<usize> {
        self.par_matching_in(request, 0..self.ads.len(), keep)
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
        let range = range.start.min(self.ads.len())..range.end.min(self.ads.len());
        let side = self.request(request);
        let side = &side;
        let chunk = self.chunk();
        let chunks: Vec<Vec<usize>> = (0..range.len().div_ceil(chunk))
            .into_par_iter()
            .map(|task| {
                let start = range.start + task * chunk;
                let end = (start + chunk).min(range.end);
                let mut found = Vec::new();
                self.scan_where(side, request, start..end, &keep, |index| found.push(index));
                found
            })
            .collect();
        chunks.concat()
    }

    /// How many ads one parallel task scans: a few tasks per thread, whole
    /// blocks for large pools (where the columns do the work) and a few
    /// ads each for small ones (where the ads' own expressions do).
    #[cfg(feature = "parallel")]
    fn chunk(&self) -> usize {
        let tasks = rayon::current_num_threads() * 4;
        let per_task = self.ads.len().div_ceil(tasks);
        if per_task >= BLOCK {
            per_task.div_ceil(BLOCK) * BLOCK
        } else {
            per_task.max(8)
        }
    }

    /// As [`matches`](Pool::matches), with the ads split over rayon's
    /// thread pool. The result is the same, in the same order.
    #[cfg(feature = "parallel")]
    pub fn par_matches(&self, request: &ClassAd) -> Vec<Match> {
        use rayon::prelude::*;
        let side = self.request(request);
        let side = &side;
        let chunk = self.chunk();
        let chunks: Vec<Vec<Match>> = (0..self.ads.len().div_ceil(chunk))
            .into_par_iter()
            .map(|task| {
                let start = task * chunk;
                let end = (start + chunk).min(self.ads.len());
                let mut found = Vec::new();
                self.scan(side, request, start..end, |index| found.push(self.ranked(side, request, index)));
                found
            })
            .collect();
        chunks.concat()
    }

    /// Prepares `request`'s side, binding its `Requirements` to the
    /// pool's columns (built for the attributes it compares, if no earlier
    /// request built them).
    fn request<'r>(&self, request: &'r ClassAd) -> Request<'r, 'p>
    where
        'p: 'r,
    {
        let requirements = request.lookup(requirements()).map(|expr| Prepared::new(self.options, request, expr));
        Request {
            kernel: requirements.as_ref().and_then(|prepared| prepared.bind(&self.columns)),
            requirements,
            rank: request.lookup(rank()).map(|expr| Prepared::new(self.options, request, expr)),
        }
    }

    /// Calls `matched` with the index of every ad of `range` that matches
    /// the request both ways, in order. The request's side is decided a
    /// block of ads at a time over the columns when it has a kernel, and
    /// ad by ad otherwise.
    fn scan(&self, side: &Request<'_, 'p>, request: &ClassAd, range: Range<usize>, matched: impl FnMut(usize)) {
        self.scan_where(side, request, range, |_| true, matched);
    }

    /// As `scan`, looking only at the ads `keep` says yes to.
    fn scan_where(
        &self,
        side: &Request<'_, 'p>,
        request: &ClassAd,
        range: Range<usize>,
        keep: impl Fn(usize) -> bool,
        mut matched: impl FnMut(usize),
    ) {
        let Some(kernel) = &side.kernel else {
            for i in range {
                if let (Some(ahead), Some(req)) = (self.ads.get(i + PREFETCH_AHEAD), &side.requirements) {
                    req.prefetch(ahead);
                }
                if keep(i)
                    && side.requirements.as_ref().is_some_and(|req| req.is_true(&self.ads[i]))
                    && self.accepts(i, request)
                {
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
                if !keep(i) {
                    continue;
                }
                let accepted = if unknown[j] {
                    side.requirements.as_ref().is_some_and(|req| req.is_true(&self.ads[i]))
                } else {
                    truths[j] == Truth::True
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
        let side = &self.sides[i];
        side.always.unwrap_or_else(|| side.requirements.as_ref().is_some_and(|req| req.is_true(request)))
    }

    /// The match with ad `index`, with both ranks.
    fn ranked(&self, side: &Request<'_, 'p>, request: &ClassAd, index: usize) -> Match {
        Match {
            index,
            left_rank: side.rank.as_ref().map_or(0.0, |rank| rank.rank(&self.ads[index])),
            right_rank: self.sides[index].rank.as_ref().map_or(0.0, |rank| rank.rank(request)),
        }
    }
}

impl std::fmt::Debug for Pool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("ads", &self.ads.len()).finish_non_exhaustive()
    }
}
