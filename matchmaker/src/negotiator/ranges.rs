//! The cycle's slots cut into ranges of slots that look alike to the
//! negotiator, so that a match list can skip, order and read them a range
//! at a time instead of a slot at a time.
//!
//! Slots are put in order of their pre-job rank for jobs that cannot change
//! it (HTCondor's first sort key), then by the shapes (see
//! [`RankCache`]) of three sets of names: those `NEGOTIATOR_PRE_JOB_RANK`
//! reads, those `NEGOTIATOR_POST_JOB_RANK` reads, and the slot attributes
//! the requests' `Requirements` compare (when they take few values), and
//! equal ones in input order. A range is a run of slots of one shape for
//! all three: they have the same value for every one of those names, so
//!
//! * a conjunct of a request's `Requirements` that reads nothing else of a
//!   slot ([`RangeTests`]) has one value on the whole range: when it is not
//!   true on its first slot, no slot of the range matches;
//! * both ranks, and a job `Rank` that reads nothing else, have one value
//!   on the whole range.

use std::borrow::Borrow;
use std::ops::Range;

use classad::eval::Unbound;
use classad::references::{external, trim_all, Side};
use classad::{BinaryOp, ClassAd, EvalOptions, Expr, Name, Node, Value};
use rustc_hash::{FxHashMap, FxHashSet};

use super::rank_cache::{KeyTable, Part, RankCache, ShapeNumbers};

/// A requirement attribute with more values than this among the slots is
/// not used to cut ranges (ranges of a slot or two cost more than they
/// save).
const MAX_VALUES_PER_NAME: usize = 32;

/// Names that are scopes, not attributes.
const RESERVED: [&str; 8] = ["target", "my", "self", "other", "parent", "root", "toplevel", "ad"];

/// Slots of one shape for the pre-job rank, the post-job rank and the
/// requirement attributes, next to each other in the cycle's order (and
/// among them in input order).
pub(super) struct ShapeRange {
    /// The pre-job-rank shape and its value for jobs that cannot change it.
    pub(super) shape: u32,
    pub(super) value: f64,
    /// The same for the post-job rank.
    pub(super) post: u32,
    pub(super) post_value: f64,
    pub(super) range: Range<usize>,
    /// No slot of the range has a job that could be preempted.
    pub(super) idle: bool,
    /// The requirement-attribute shape.
    requirements: u32,
    /// For each of the cycle's key names: a number for what the range's
    /// slots have for it (equal numbers, equal values).
    key: Box<[u32]>,
}

/// The slot shapes the ranges are made by.
pub(super) struct Shapes {
    pub(super) pre_job: RankCache,
    pub(super) post_job: RankCache,
    requirements: RankCache,
}

impl Shapes {
    /// The shapes of `ads`: `pre_job` and `post_job` caches (empty), and
    /// of the attributes the requests compare (`compared`, see
    /// [`compared_names`]) those with few values. The slots' keys are
    /// numbered in `tables`, which outlive the cycle (`kept[i]`: slot
    /// `i`'s numbers from an earlier cycle, if it was seen; see
    /// [`RankCache::shape_all_kept`]); also returns each slot's numbers.
    pub(super) fn new(
        opts: &EvalOptions,
        ads: &[impl Borrow<ClassAd> + Sync],
        mut pre_job: RankCache,
        mut post_job: RankCache,
        compared: &[Name],
        tables: &mut [KeyTable; 3],
        kept: &[ShapeNumbers],
    ) -> (Shapes, Vec<ShapeNumbers>) {
        let [pre_table, post_table, requirements_table] = tables;
        let column = |c: usize| kept.iter().map(|k| k[c]).collect::<Vec<_>>();
        let pre = pre_job.shape_all_kept(opts, ads, pre_table, &column(0));
        let post = post_job.shape_all_kept(opts, ads, post_table, &column(1));
        let mut known: Vec<Name> = pre_job.direct().to_vec();
        known.extend_from_slice(post_job.direct());
        let names = requirement_names(opts, ads, compared, &known);
        let mut requirements = RankCache::of_names(names, ads.len());
        let req = requirements.shape_all_kept(opts, ads, requirements_table, &column(2));
        let numbers = pre.into_iter().zip(post).zip(req).map(|((a, b), c)| [a, b, c]).collect();
        (Shapes { pre_job, post_job, requirements }, numbers)
    }

    /// The order of the slots: slot `i` of the new order is slot
    /// `order[i]` of the old. The caches are put in that order.
    pub(super) fn order(&mut self, opts: &EvalOptions, ads: &[impl Borrow<ClassAd> + Sync]) -> Vec<u32> {
        let key = |i: usize, ad: &ClassAd, shapes: &mut Shapes| {
            let (pre, value) = shapes.pre_job.shape_of(opts, i, ad);
            (value, pre, shapes.post_job.shape_of(opts, i, ad).0, shapes.requirements.shape_of(opts, i, ad).0)
        };
        let keys: Vec<(f64, u32, u32, u32)> = ads.iter().enumerate().map(|(i, ad)| key(i, ad.borrow(), self)).collect();
        let mut order: Vec<u32> = (0..ads.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (keys[a as usize], keys[b as usize]);
            y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)).then(x.3.cmp(&y.3)).then(a.cmp(&b))
        });
        self.pre_job.reorder(&order);
        self.post_job.reorder(&order);
        self.requirements.reorder(&order);
        order
    }

    /// The ranges of `ads` (in the order made by [`order`](Self::order));
    /// `idle(i)` tells whether slot `i` has no job that could be
    /// preempted. Also returns the key names the ranges record.
    pub(super) fn ranges(
        &mut self,
        opts: &EvalOptions,
        ads: &[impl Borrow<ClassAd> + Sync],
        idle: impl Fn(usize) -> bool,
    ) -> (Vec<ShapeRange>, Vec<Name>) {
        let mut names: Vec<Name> = Vec::new();
        for name in self.pre_job.direct().iter().chain(self.post_job.direct()).chain(self.requirements.direct()) {
            if !names.contains(name) {
                names.push(*name);
            }
        }
        let mut ids: FxHashMap<Part, u32> = FxHashMap::default();
        let mut ranges: Vec<ShapeRange> = Vec::new();
        for (i, ad) in ads.iter().enumerate() {
            let ad: &ClassAd = ad.borrow();
            let (shape, value) = self.pre_job.shape_of(opts, i, ad);
            let (post, post_value) = self.post_job.shape_of(opts, i, ad);
            let requirements = self.requirements.shape_of(opts, i, ad).0;
            match ranges.last_mut() {
                Some(last) if last.shape == shape && last.post == post && last.requirements == requirements => {
                    last.range.end = i + 1;
                    last.idle &= idle(i);
                }
                _ => {
                    let key = names
                        .iter()
                        .map(|name| {
                            let next = ids.len() as u32;
                            *ids.entry(Part::of(opts, ad, i, *name)).or_insert(next)
                        })
                        .collect();
                    ranges.push(ShapeRange {
                        shape,
                        value,
                        post,
                        post_value,
                        range: i..i + 1,
                        idle: idle(i),
                        requirements,
                        key,
                    });
                }
            }
        }
        (ranges, names)
    }

    /// The pre- and post-job-rank caches, for the cycle.
    pub(super) fn into_caches(self) -> (RankCache, RankCache) {
        (self.pre_job, self.post_job)
    }
}

/// The slot attributes the `Requirements` of the request `ad` reads, in
/// the order met, each with its text in lower case (what
/// [`compared_names`] gathers of one request).
pub(super) fn request_compared(opts: &EvalOptions, ad: &ClassAd) -> Vec<(String, Name)> {
    let Some(expr) = ad.lookup(Name::new("Requirements")) else {
        return Vec::new();
    };
    let Ok(refs) = external(opts, ad, expr) else {
        return Vec::new();
    };
    trim_all(&refs, Side::External)
        .into_iter()
        .filter(|text| !RESERVED.iter().any(|r| text.eq_ignore_ascii_case(r)))
        .map(|text| (text.to_ascii_lowercase(), Name::new(text.as_str())))
        .collect()
}

/// The slot attributes the requests' `Requirements` read (each request's
/// [`request_compared`]), each once, in the order first met.
pub(super) fn compared_names<'r>(requests: impl IntoIterator<Item = &'r [(String, Name)]>) -> Vec<Name> {
    let mut texts: FxHashSet<&str> = FxHashSet::default();
    let mut names: Vec<Name> = Vec::new();
    for (text, name) in requests.into_iter().flatten() {
        if !texts.insert(text.as_str()) {
            continue;
        }
        if !names.contains(name) {
            names.push(*name);
        }
    }
    names
}

/// The slot attributes of `compared` (those the requests compare), other than `known`,
/// that take at most
/// [`MAX_VALUES_PER_NAME`] values among `ads`.
fn requirement_names(
    opts: &EvalOptions,
    ads: &[impl Borrow<ClassAd> + Sync],
    compared: &[Name],
    known: &[Name],
) -> Vec<Name> {
    let mut names = compared.to_vec();
    names.retain(|name| !known.contains(name));
    // A name's values, counted on a share of the slots per thread (each
    // share stops as soon as it alone has too many).
    let few_values = |name: Name| {
        let sets: Vec<Option<FxHashSet<Part>>> = crate::parallel::map_shares(ads, 8, |offset, share| {
            let mut values: FxHashSet<Part> = FxHashSet::default();
            for (i, ad) in share.iter().enumerate() {
                values.insert(Part::of(opts, ad.borrow(), offset + i, name));
                if values.len() > MAX_VALUES_PER_NAME {
                    return None;
                }
            }
            Some(values)
        });
        let mut all: FxHashSet<Part> = FxHashSet::default();
        for set in sets {
            let Some(set) = set else { return false };
            all.extend(set);
            if all.len() > MAX_VALUES_PER_NAME {
                return false;
            }
        }
        true
    };
    names.retain(|name| few_values(*name));
    names
}

/// Values remembered by what a range has for some of the key names.
#[derive(Default)]
struct ByKey<T> {
    /// The key names (indices into the key).
    names: Vec<usize>,
    seen: FxHashMap<Box<[u32]>, T>,
    scratch: Vec<u32>,
}

impl<T: Copy> ByKey<T> {
    fn new(names: Vec<usize>) -> ByKey<T> {
        ByKey { names, seen: FxHashMap::default(), scratch: Vec::new() }
    }

    /// The value for `range`: remembered for a range with the same values
    /// of the names, or made by `make`.
    fn get(&mut self, range: &ShapeRange, make: impl FnOnce() -> T) -> T {
        self.scratch.clear();
        self.scratch.extend(self.names.iter().map(|&k| range.key[k]));
        if let Some(&known) = self.seen.get(self.scratch.as_slice()) {
            return known;
        }
        let value = make();
        self.seen.insert(self.scratch.clone().into_boxed_slice(), value);
        value
    }
}

/// The key names (indices into `key_names`) an expression evaluated with
/// the request `ad` as MY reads of a slot; `None` when it reads anything
/// else, or cannot be told.
fn key_reads(opts: &EvalOptions, ad: &ClassAd, expr: &Expr, key_names: &[Name]) -> Option<Vec<usize>> {
    let refs = external(opts, ad, expr).ok()?;
    if expr.to_string().to_ascii_lowercase().contains("random") {
        return None;
    }
    let mut read = Vec::new();
    for text in trim_all(&refs, Side::External) {
        if RESERVED.iter().any(|r| text.eq_ignore_ascii_case(r)) {
            return None;
        }
        let name = Name::new(text.as_str());
        let k = key_names.iter().position(|k| *k == name)?;
        if !read.contains(&k) {
            read.push(k);
        }
    }
    Some(read)
}

/// A request's `Rank` when it reads nothing of a slot but the key names:
/// one value on all slots of a range, remembered by the range's values.
pub(super) struct RangeRank {
    by_key: ByKey<f64>,
}

impl RangeRank {
    /// The key names the request `ad`'s `Rank` reads, if it has one value
    /// per range (a literal, or an expression reading only key names of a
    /// slot). Without a `Rank` of its own the slot's is used, which may
    /// differ on every slot: unless `uniform_slot_rank`, every slot's
    /// being the same number (see [`uniform_slot_rank`]).
    pub(super) fn reads(
        opts: &EvalOptions,
        ad: &ClassAd,
        key_names: &[Name],
        uniform_slot_rank: bool,
    ) -> Option<Vec<usize>> {
        let Some(rank) = ad.lookup("Rank") else {
            return uniform_slot_rank.then(Vec::new);
        };
        if rank.as_literal().is_some() {
            Some(Vec::new())
        } else {
            key_reads(opts, ad, rank, key_names)
        }
    }

    /// The rank of a request whose `Rank` reads `names` (see [`reads`](Self::reads)).
    pub(super) fn of_reads(names: Vec<usize>) -> RangeRank {
        RangeRank { by_key: ByKey::new(names) }
    }

    /// The request's rank of the slots of `range`, whose first slot is `slot`.
    pub(super) fn value(&mut self, opts: &EvalOptions, ad: &ClassAd, range: &ShapeRange, slot: &ClassAd) -> f64 {
        self.by_key.get(range, || crate::candidates::job_rank(opts, ad, slot))
    }
}

/// Whether every slot of `ads` ranks every job alike: its `Rank` is a
/// literal number (or it has none: 0), the same for all. A job without a
/// `Rank` of its own then ranks every slot the same.
pub(super) fn uniform_slot_rank(ads: &[impl Borrow<ClassAd>]) -> bool {
    let rank = Name::new("Rank");
    let value = |ad: &ClassAd| match ad.lookup(rank) {
        None => Some(0.0),
        Some(e) => crate::candidates::number(&Value::from(e.as_literal()?)),
    };
    let mut values = ads.iter().map(|ad| value(ad.borrow()).map(f64::to_bits));
    match values.next() {
        None => true,
        Some(None) => false,
        Some(Some(first)) => values.all(|v| v == Some(first)),
    }
}

/// The conjuncts of a request's `Requirements` that read nothing of a slot
/// but the cycle's key names, each with one value on all slots of a range,
/// and what they gave on the ranges seen so far.
#[derive(Default)]
pub(super) struct RangeTests {
    tests: Vec<Expr>,
    /// `tests` prepared with the request's ad as MY (when first needed).
    prepared: Vec<Unbound>,
    /// Whether a range may match, by what it has for the names the tests read.
    by_key: ByKey<bool>,
}

impl RangeTests {
    /// The tests made of `tests`, which read the key names `names`.
    pub(super) fn of_parts(tests: Vec<Expr>, names: Vec<usize>) -> RangeTests {
        RangeTests { tests, prepared: Vec::new(), by_key: ByKey::new(names) }
    }

    /// The tests of the request `ad` for ranges keyed by `key_names`, and
    /// the key names they read.
    pub(super) fn parts(opts: &EvalOptions, ad: &ClassAd, key_names: &[Name]) -> (Vec<Expr>, Vec<usize>) {
        fn conjuncts<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>) {
            match expr.as_node() {
                Some(Node::Binary(BinaryOp::And, left, right)) => {
                    conjuncts(left, out);
                    conjuncts(right, out);
                }
                Some(Node::Paren(inner)) => conjuncts(inner, out),
                _ => out.push(expr),
            }
        }
        let Some(requirements) = ad.lookup("Requirements") else {
            return (Vec::new(), Vec::new());
        };
        let mut all = Vec::new();
        conjuncts(requirements, &mut all);
        let mut tests = Vec::new();
        let mut names: Vec<usize> = Vec::new();
        for conjunct in all {
            if let Some(read) = key_reads(opts, ad, conjunct, key_names) {
                tests.push(conjunct.clone());
                for k in read {
                    if !names.contains(&k) {
                        names.push(k);
                    }
                }
            }
        }
        (tests, names)
    }

    /// Whether the slots of `range` may match the request `ad`: a test that
    /// is false, undefined or an error on its first slot `slot` is so on
    /// all, and then `Requirements` is true on none.
    pub(super) fn viable(&mut self, opts: &EvalOptions, ad: &ClassAd, range: &ShapeRange, slot: &ClassAd) -> bool {
        if self.tests.is_empty() {
            return true;
        }
        let (tests, prepared) = (&self.tests, &mut self.prepared);
        self.by_key.get(range, || {
            // Prepared once per request, as most are tried on many ranges.
            if prepared.is_empty() {
                prepared.extend(tests.iter().map(|test| Unbound::new(opts, ad, test)));
            }
            prepared
                .iter()
                .all(|test| !matches!(test.eval(opts, ad, slot), Value::Bool(false) | Value::Undefined | Value::Error))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    #[test]
    fn slot_ranks_are_uniform_when_every_slot_has_the_same_number() {
        let zero = [ad("[ Rank = 0 ]"), ad("[ Rank = 0.0 ]"), ad("[ Name = \"no rank\" ]"), ad("[ Rank = false ]")];
        assert!(uniform_slot_rank(&zero), "0, 0.0, none and false all rank 0");
        assert!(uniform_slot_rank(&[ad("[ Rank = 2 ]"), ad("[ Rank = 2.0 ]")]));
        assert!(uniform_slot_rank(&[] as &[ClassAd]));
        assert!(!uniform_slot_rank(&[ad("[ Rank = 0 ]"), ad("[ Rank = 1 ]")]), "two numbers");
        assert!(!uniform_slot_rank(&[ad("[ Rank = TARGET.Owner == \"amy\" ]")]), "an expression of the job");
        assert!(!uniform_slot_rank(&[ad("[ Rank = \"high\" ]")]), "a string is not known to be a number");
    }

    #[test]
    fn a_request_without_rank_ranks_by_range_only_on_uniform_slots() {
        let opts = EvalOptions::new();
        let job = ad("[ Requirements = TARGET.Cpus >= 1 ]");
        assert_eq!(RangeRank::reads(&opts, &job, &[], true), Some(Vec::new()));
        assert_eq!(RangeRank::reads(&opts, &job, &[], false), None);
        let ranked = ad("[ Rank = 3 ]");
        assert_eq!(RangeRank::reads(&opts, &ranked, &[], false), Some(Vec::new()), "its own literal rank");
    }
}
