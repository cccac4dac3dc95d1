//! Batch matching: one request against many ads, the negotiator's inner
//! loop.
//!
//! A [`Pool`] takes a slice of ads (in the negotiator, the machines) and
//! prepares each one's own `Requirements` and `Rank` once, with the ad as
//! MY (see [`Prepared`]). Every request (a job) is then matched against all
//! of them: the request's `Requirements` and `Rank` are prepared once per
//! request, and each pair costs two prepared evaluations and, when both
//! sides accept, two rank evaluations. Nothing is allocated per pair; the
//! only allocation is the result vector, which
//! [`matches_into`](Pool::matches_into) lets the caller reuse.
//!
//! With the `parallel` feature (on by default), [`par_matches`](Pool::par_matches)
//! splits the ads over rayon's thread pool.
//!
//! The answers are exactly those of [`MatchAd`](super::MatchAd) for every
//! pair (`tests/matching.rs` checks it), apart from the limit caveat of
//! [`Prepared`]: folded parts cost no evaluation steps.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Semantics};
//! use classad::matching::Pool;
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

use super::{rank, requirements};
use crate::ad::ClassAd;
use crate::eval::{EvalOptions, Prepared};

/// How many ads ahead the request's lookups are prefetched.
const PREFETCH_AHEAD: usize = 4;

/// One ad of a [`Pool`] that matches a request, with both ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Match {
    /// The ad's position in the pool's slice.
    pub index: usize,
    /// The request's `Rank` of the ad (as [`rank_value`](super::rank_value) reads it).
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
}

/// One ad's prepared expressions.
struct Side<'p> {
    requirements: Option<Prepared<'p>>,
    rank: Option<Prepared<'p>>,
}

/// A request's prepared expressions.
struct Request<'p> {
    requirements: Option<Prepared<'p>>,
    rank: Option<Prepared<'p>>,
}

impl<'p> Request<'p> {
    fn new(options: &'p EvalOptions, ad: &'p ClassAd) -> Request<'p> {
        Request {
            requirements: ad.lookup(requirements()).map(|expr| Prepared::new(options, ad, expr)),
            rank: ad.lookup(rank()).map(|expr| Prepared::new(options, ad, expr)),
        }
    }
}

impl<'p> Pool<'p> {
    /// Prepares the `Requirements` and `Rank` of every ad of `ads`.
    pub fn new(options: &'p EvalOptions, ads: &'p [ClassAd]) -> Pool<'p> {
        let sides = ads
            .iter()
            .map(|ad| Side {
                requirements: ad.lookup(requirements()).map(|expr| Prepared::new(options, ad, expr)),
                rank: ad.lookup(rank()).map(|expr| Prepared::new(options, ad, expr)),
            })
            .collect();
        Pool { options, ads, sides }
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
        let request_side = Request::new(self.options, request);
        found.extend(self.scan(&request_side, request, 0..self.ads.len()));
    }

    /// How many ads match `request`, without ranking them.
    pub fn count(&self, request: &ClassAd) -> usize {
        let request_side = Request::new(self.options, request);
        (0..self.ads.len()).filter(|&i| self.pair_matches(&request_side, request, i)).count()
    }

    /// As [`matches`](Pool::matches), with the ads split over rayon's
    /// thread pool. The result is the same, in the same order.
    #[cfg(feature = "parallel")]
    pub fn par_matches(&self, request: &ClassAd) -> Vec<Match> {
        use rayon::prelude::*;
        /// Ads per task: enough to amortise a task, few enough to balance.
        const CHUNK: usize = 512;
        let request_side = Request::new(self.options, request);
        let request_side = &request_side;
        let chunks: Vec<Vec<Match>> = (0..self.ads.len().div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| {
                let start = chunk * CHUNK;
                let end = (start + CHUNK).min(self.ads.len());
                self.scan(request_side, request, start..end).collect()
            })
            .collect();
        chunks.concat()
    }

    /// The matches among the ads at `range`.
    fn scan<'s>(
        &'s self,
        request_side: &'s Request<'_>,
        request: &'s ClassAd,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Match> + 's {
        range.filter(|&i| self.pair_matches(request_side, request, i)).map(move |index| Match {
            index,
            left_rank: request_side.rank.as_ref().map_or(0.0, |rank| rank.rank(&self.ads[index])),
            right_rank: self.sides[index].rank.as_ref().map_or(0.0, |rank| rank.rank(request)),
        })
    }

    /// Whether the request and ad `i` accept each other (the request's
    /// side first, as [`MatchAd::symmetric_match`](super::MatchAd::symmetric_match)).
    fn pair_matches(&self, request_side: &Request<'_>, request: &ClassAd, i: usize) -> bool {
        if let (Some(ahead), Some(req)) = (self.ads.get(i + PREFETCH_AHEAD), &request_side.requirements) {
            req.prefetch(ahead);
        }
        let ad = &self.ads[i];
        request_side.requirements.as_ref().is_some_and(|req| req.is_true(ad))
            && self.sides[i].requirements.as_ref().is_some_and(|req| req.is_true(request))
    }
}

impl std::fmt::Debug for Pool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("ads", &self.ads.len()).finish_non_exhaustive()
    }
}
