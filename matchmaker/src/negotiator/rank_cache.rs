//! The negotiator's rank expressions (evaluated with a slot as MY and a
//! job as TARGET) remembered per slot, so that ranking a slot for the
//! next request seldom evaluates anything.
//!
//! `NEGOTIATOR_PRE_JOB_RANK` reads the slot's `Rank`, `Cpus`, `Memory`
//! and `RemoteOwner`; most slots of a pool agree on them in a handful of
//! ways (their *shape*), and most jobs define none of the attributes the
//! expression would look up in them. For each shape the cache keeps the
//! names the expression would read from the job and its value against a
//! job without them; for a job that defines none of those names, every
//! slot of the shape has that value, exactly. Otherwise (or for a slot
//! whose referenced attributes are expressions of its own) the expression
//! is evaluated.

use classad::references::{external, internal, trim_all, Side};
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Literal, Name, Value};
use rustc_hash::FxHashMap;
use std::borrow::Borrow;

/// How a value becomes a rank.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Conversion {
    /// A negotiator expression: a number in single precision, anything
    /// else the lowest value.
    Negotiator,
    /// A `Rank`: a number, anything else 0.
    Rank,
}

impl Conversion {
    pub(super) fn apply(self, value: &Value) -> f64 {
        let n = crate::candidates::number(value);
        match self {
            Conversion::Negotiator => n.map_or(-f64::MAX, |v| f64::from(v as f32)),
            Conversion::Rank => n.unwrap_or(0.0),
        }
    }
}

/// What a slot has for one of the names the expression reads directly.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum Part {
    Missing,
    Int(i64),
    Real(u64),
    Bool(bool),
    Str(classad::Text),
    /// An expression reading nothing of the slot, by its text.
    Expr(String),
    /// Anything else: the slot is a shape of its own.
    Own(usize),
}

impl Part {
    /// What slot `index` (whose ad is `slot`) has for `name`.
    pub(super) fn of(opts: &EvalOptions, slot: &ClassAd, index: usize, name: Name) -> Part {
        match slot.lookup(name) {
            None => Part::Missing,
            Some(e) => match e.as_literal() {
                Some(Literal::Int(i)) => Part::Int(*i),
                Some(Literal::Real(r)) => Part::Real(r.to_bits()),
                Some(Literal::Bool(b)) => Part::Bool(*b),
                Some(Literal::Str(s)) => Part::Str(s.clone()),
                // An expression that reads nothing of the slot has the same
                // value on every slot for a given job.
                _ if internal(opts, slot, e).is_ok_and(|names| names.is_empty()) => Part::Expr(e.to_string()),
                _ => Part::Own(index),
            },
        }
    }
}

struct Shape {
    /// The names the expression reads from the job (`None`: it reads the
    /// job as a whole, or the names could not be told).
    reads: Option<Vec<Name>>,
    /// Its value against a job that defines none of them.
    value: f64,
    /// Whether the slots of the shape have one value for any job: every
    /// name the expression reads of them is a literal or an expression
    /// reading nothing of the slot.
    uniform: bool,
}

/// One expression, cached per slot shape.
pub(super) struct RankCache {
    expr: Option<Expr>,
    conversion: Conversion,
    /// The names the expression refers to directly.
    direct: Vec<Name>,
    shape_of: Vec<u32>,
    shapes: Vec<Shape>,
    index: FxHashMap<Vec<Part>, u32>,
    /// Per shape: the request it was last checked for and the answer.
    checked: Vec<(u64, bool)>,
    empty: ClassAd,
}

const UNKNOWN: u32 = u32::MAX;

impl RankCache {
    /// A cache of `expr` (`None`: the expression is not set, its value is
    /// always the lowest) for `slots` slots.
    pub(super) fn new(opts: &EvalOptions, expr: Option<&Expr>, conversion: Conversion, slots: usize) -> RankCache {
        let empty = ClassAd::new();
        let direct = expr
            .and_then(|e| external(opts, &empty, e).ok())
            .map(|names| trim_all(&names, Side::External).iter().map(|n| Name::new(n.as_str())).collect())
            .unwrap_or_default();
        RankCache {
            expr: expr.cloned(),
            conversion,
            direct,
            shape_of: vec![UNKNOWN; slots],
            shapes: Vec::new(),
            index: FxHashMap::default(),
            checked: Vec::new(),
            empty,
        }
    }

    /// Slot shapes by the values of `names` alone (no expression: every
    /// value is the lowest).
    pub(super) fn of_names(names: Vec<Name>, slots: usize) -> RankCache {
        RankCache {
            expr: None,
            conversion: Conversion::Negotiator,
            direct: names,
            shape_of: vec![UNKNOWN; slots],
            shapes: Vec::new(),
            index: FxHashMap::default(),
            checked: Vec::new(),
            empty: ClassAd::new(),
        }
    }

    /// The names the expression refers to directly: the slots of a shape
    /// agree on all of them.
    pub(super) fn direct(&self) -> &[Name] {
        &self.direct
    }

    /// The rank of slot `index` (whose ad is `slot`) for `job`; `request`
    /// numbers the job (a different number for each job ad, so that what
    /// is learnt of one is not used for another).
    pub(super) fn value(
        &mut self,
        opts: &EvalOptions,
        index: usize,
        slot: &ClassAd,
        job: &ClassAd,
        request: u64,
    ) -> f64 {
        let mut shape = self.shape_of[index];
        if shape == UNKNOWN {
            shape = self.shape(opts, index, slot);
            self.shape_of[index] = shape;
        }
        let s = shape as usize;
        let (seen, independent) = self.checked[s];
        let independent = if seen == request {
            independent
        } else {
            let answer =
                self.shapes[s].reads.as_ref().is_some_and(|names| names.iter().all(|n| job.lookup(*n).is_none()));
            self.checked[s] = (request, answer);
            answer
        };
        match &self.expr {
            Some(expr) if !independent => {
                self.conversion.apply(&EvalContext::new(opts).my(slot).target(job).eval(expr))
            }
            _ => self.shapes[s].value,
        }
    }

    /// The shape of slot `index` (made on first sight) and the value of the
    /// expression for the jobs the shape does not depend on.
    pub(super) fn shape_of(&mut self, opts: &EvalOptions, index: usize, slot: &ClassAd) -> (u32, f64) {
        let mut shape = self.shape_of[index];
        if shape == UNKNOWN {
            shape = self.shape(opts, index, slot);
            self.shape_of[index] = shape;
        }
        (shape, self.shapes[shape as usize].value)
    }

    /// For each shape, whether its value is the same for `job` as for a job
    /// without attributes (the job defines none of the names it reads).
    pub(super) fn independence(&self, job: &ClassAd) -> Vec<bool> {
        let mut seen: FxHashMap<&[Name], bool> = FxHashMap::default();
        self.shapes
            .iter()
            .map(|s| match &s.reads {
                Some(names) => *seen.entry(names).or_insert_with(|| names.iter().all(|n| job.lookup(*n).is_none())),
                None => false,
            })
            .collect()
    }

    /// Whether every slot of `shape` has the same value for any job.
    pub(super) fn uniform(&self, shape: u32) -> bool {
        self.shapes.get(shape as usize).is_some_and(|s| s.uniform)
    }

    /// Puts the slots in a new order: slot `i` of the new order is slot
    /// `order[i]` of the old.
    pub(super) fn reorder(&mut self, order: &[u32]) {
        self.shape_of = order.iter().map(|&i| self.shape_of[i as usize]).collect();
    }

    /// The shape of slot `index`, made on first sight.
    fn shape(&mut self, opts: &EvalOptions, index: usize, slot: &ClassAd) -> u32 {
        let key: Vec<Part> = self.direct.iter().map(|name| Part::of(opts, slot, index, *name)).collect();
        self.intern(opts, slot, key)
    }

    /// The shapes of all of `ads` (slot `i` is `ads[i]`), numbered as
    /// [`shape_of`](Self::shape_of) on each in turn would number them. The
    /// slots are read a share per thread, each share telling its distinct
    /// shapes apart; the shares' shapes are then numbered in order.
    pub(super) fn shape_all(&mut self, opts: &EvalOptions, ads: &[impl Borrow<ClassAd> + Sync]) {
        let direct = &self.direct;
        let local = crate::parallel::map_shares(ads, 16, |start, share| {
            let mut seen: FxHashMap<Vec<Part>, u32> = FxHashMap::default();
            let mut first: Vec<(Vec<Part>, usize)> = Vec::new();
            let mut ids: Vec<u32> = Vec::with_capacity(share.len());
            let mut last: Option<u32> = None;
            let mut key: Vec<Part> = Vec::with_capacity(direct.len());
            for (j, ad) in share.iter().enumerate() {
                let i = start + j;
                key.clear();
                key.extend(direct.iter().map(|name| Part::of(opts, ad.borrow(), i, *name)));
                // Neighbours (a machine's slots) often look alike.
                if let Some(id) = last.filter(|&id| first[id as usize].0 == key) {
                    ids.push(id);
                    continue;
                }
                let id = match seen.get(key.as_slice()) {
                    Some(&id) => id,
                    None => {
                        let id = first.len() as u32;
                        first.push((key.clone(), i));
                        seen.insert(key.clone(), id);
                        id
                    }
                };
                ids.push(id);
                last = Some(id);
            }
            (first, ids)
        });
        let mut i = 0;
        for (first, ids) in local {
            let shapes: Vec<u32> = first.into_iter().map(|(key, i)| self.intern(opts, ads[i].borrow(), key)).collect();
            for id in ids {
                if self.shape_of[i] == UNKNOWN {
                    self.shape_of[i] = shapes[id as usize];
                }
                i += 1;
            }
        }
    }

    /// [`shape_all`](Self::shape_all), with the slots' keys numbered in
    /// `table`, which outlives the cycle: `kept[i]` is what the table
    /// numbered slot `i`'s key in an earlier cycle (the same ad has the
    /// same key), so that its attributes need not be read again. Returns
    /// each slot's number, to keep for the next cycle (`None` for a slot
    /// that is a shape of its own).
    pub(super) fn shape_all_kept(
        &mut self,
        opts: &EvalOptions,
        ads: &[impl Borrow<ClassAd> + Sync],
        table: &mut KeyTable,
        kept: &[Option<KeyNumber>],
    ) -> Vec<Option<KeyNumber>> {
        table.start(&self.direct);
        let generation = table.generation;
        let known = |i: usize| kept.get(i).copied().flatten().filter(|k| k.0 == generation).map(|k| k.1);
        if (0..ads.len()).all(|i| known(i).is_none()) {
            // Nothing known (a first cycle): the slots read as usual, then
            // each shape's key numbered.
            self.shape_all(opts, ads);
            let mut numbers: Vec<Option<u32>> = vec![None; self.shapes.len()];
            for (key, &shape) in &self.index {
                if !key.iter().any(|part| matches!(part, Part::Own(_))) {
                    numbers[shape as usize] = Some(table.number(key));
                }
            }
            return self.shape_of.iter().map(|&s| numbers[s as usize].map(|n| (generation, n))).collect();
        }
        // The shape of each number, as the slots meet it.
        let mut local: Vec<u32> = Vec::new();
        let mut key: Vec<Part> = Vec::with_capacity(self.direct.len());
        let mut out = Vec::with_capacity(ads.len());
        for (i, ad) in ads.iter().enumerate() {
            let ad: &ClassAd = ad.borrow();
            let number = match known(i) {
                Some(n) => Some(n),
                None => {
                    key.clear();
                    key.extend(self.direct.iter().map(|name| Part::of(opts, ad, i, *name)));
                    (!key.iter().any(|part| matches!(part, Part::Own(_)))).then(|| table.number(&key))
                }
            };
            let shape = match number {
                Some(n) => {
                    let n = n as usize;
                    if local.len() <= n {
                        local.resize(n + 1, UNKNOWN);
                    }
                    if local[n] == UNKNOWN {
                        local[n] = self.intern(opts, ad, table.keys[n].to_vec());
                    }
                    local[n]
                }
                None => self.intern(opts, ad, key.clone()),
            };
            if self.shape_of[i] == UNKNOWN {
                self.shape_of[i] = shape;
            }
            out.push(number.map(|n| (generation, n)));
        }
        out
    }

    /// The shape of a slot (`slot`) with `key`, made on first sight.
    fn intern(&mut self, opts: &EvalOptions, slot: &ClassAd, key: Vec<Part>) -> u32 {
        if let Some(&shape) = self.index.get(&key) {
            return shape;
        }
        let uniform = !key.iter().any(|part| matches!(part, Part::Own(_)));
        let (reads, value) = match &self.expr {
            Some(expr) => {
                let reserved = ["target", "my", "self", "other", "parent", "root"];
                let reads = external(opts, slot, expr)
                    .ok()
                    .map(|names| trim_all(&names, Side::External))
                    .filter(|names| !names.iter().any(|n| reserved.iter().any(|r| n.eq_ignore_ascii_case(r))));
                (reads, self.conversion.apply(&EvalContext::new(opts).my(slot).target(&self.empty).eval(expr)))
            }
            // Not set: the lowest value, whatever the job.
            None => (Some(Vec::new()), self.conversion.apply(&Value::Undefined)),
        };
        let shape = self.shapes.len() as u32;
        self.shapes.push(Shape {
            reads: reads.map(|names| names.iter().map(|n| Name::new(n.as_str())).collect()),
            value,
            uniform,
        });
        self.checked.push((u64::MAX, false));
        self.index.insert(key, shape);
        shape
    }
}

/// What a [`KeyTable`] numbered a slot's key: the table's generation
/// and the number.
pub(super) type KeyNumber = (u32, u32);

/// What the key tables numbered a slot's three shape keys (its pre-job
/// rank's, its post-job rank's and its requirements'), when known.
pub(super) type ShapeNumbers = [Option<KeyNumber>; 3];

/// Slot keys (what slots have for an expression's direct names), numbered
/// for good: a negotiator keeps the table from cycle to cycle with each
/// slot ad's number, so that an ad seen before is not read again (see
/// [`RankCache::shape_all_kept`]).
#[derive(Default)]
pub(super) struct KeyTable {
    /// The names the keys are made of.
    names: Vec<Name>,
    /// Changes each time the table starts afresh: a number from another
    /// generation is not this one's.
    generation: u32,
    index: FxHashMap<Box<[Part]>, u32>,
    keys: Vec<Box<[Part]>>,
}

/// How many keys a table holds before it starts afresh.
const MAX_KEYS: usize = 1 << 16;

impl KeyTable {
    /// Readies the table for keys of `names`: afresh when it was made for
    /// other names, or is full.
    fn start(&mut self, names: &[Name]) {
        if self.names != names || self.keys.len() >= MAX_KEYS {
            self.names = names.to_vec();
            self.generation = self.generation.wrapping_add(1);
            self.index.clear();
            self.keys.clear();
        }
    }

    /// The number of `key`, given on first sight.
    fn number(&mut self, key: &[Part]) -> u32 {
        if let Some(&n) = self.index.get(key) {
            return n;
        }
        let n = self.keys.len() as u32;
        self.keys.push(key.into());
        self.index.insert(key.into(), n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    /// The cache gives what evaluating gives, for jobs that define what
    /// the expression reads and jobs that do not.
    #[test]
    fn cached_values_are_evaluated_values() {
        let opts = EvalOptions::new().semantics(classad::Semantics::Old);
        let expr: Expr = "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory"
            .parse()
            .expect("expr");
        let slots = [
            ad("[ Rank = 0.0; Cpus = 1; Memory = 2048 ]"),
            ad("[ Rank = 0.0; Cpus = 1; Memory = 2048 ]"),
            ad(r#"[ Rank = (TARGET.Owner =?= "amy") * 10.0; Cpus = 1; Memory = 2048 ]"#),
            ad("[ Rank = 1.0; Cpus = 1; Memory = 2048 ]"),
            ad(r#"[ Rank = 0.0; Cpus = 1; Memory = 2048; RemoteOwner = "bob" ]"#),
        ];
        let jobs = [ad(r#"[ Owner = "amy" ]"#), ad(r#"[ Owner = "bob"; RemoteOwner = "x" ]"#), ad("[ ]")];
        let mut cache = RankCache::new(&opts, Some(&expr), Conversion::Negotiator, slots.len());
        for round in 0..2 {
            for (j, job) in jobs.iter().enumerate() {
                for (i, slot) in slots.iter().enumerate() {
                    let direct =
                        Conversion::Negotiator.apply(&EvalContext::new(&opts).my(slot).target(job).eval(&expr));
                    let cached = cache.value(&opts, i, slot, job, (round * 10 + j) as u64);
                    assert_eq!(cached.to_bits(), direct.to_bits(), "slot {i}, job {j}");
                }
            }
        }
        // Slots 0 and 1 share a shape.
        assert_eq!(cache.shape_of[0], cache.shape_of[1]);
        assert_ne!(cache.shape_of[0], cache.shape_of[3]);
        assert_ne!(cache.shape_of[0], cache.shape_of[4]);
    }

    /// Numbering slots by the keys a table kept from an earlier cycle
    /// shapes them as reading them does: the same shapes, numbered in the
    /// same order, with the same values.
    #[test]
    fn kept_numbers_shape_as_reading_does() {
        let opts = EvalOptions::new().semantics(classad::Semantics::Old);
        let expr: Expr = "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory"
            .parse()
            .expect("expr");
        let slot = |rank: &str, cpus: i64, owner: Option<&str>| {
            let owner = owner.map_or(String::new(), |o| format!("RemoteOwner = \"{o}\";"));
            ad(&format!("[ Rank = {rank}; Cpus = {cpus}; Memory = {}; {owner} ]", cpus * 1024))
        };
        let first: Vec<ClassAd> = vec![
            slot("0.0", 1, None),
            slot("0.0", 8, None),
            slot("Cpus * 2", 4, None),
            slot("0.0", 1, Some("amy")),
            slot("0.0", 1, None),
            slot("1.0", 2, None),
        ];
        let shapes = |cache: &RankCache, n: usize| -> Vec<(u32, u64)> {
            (0..n).map(|i| (cache.shape_of[i], cache.shapes[cache.shape_of[i] as usize].value.to_bits())).collect()
        };
        let read = |ads: &[ClassAd]| {
            let mut cache = RankCache::new(&opts, Some(&expr), Conversion::Negotiator, ads.len());
            cache.shape_all(&opts, ads);
            shapes(&cache, ads.len())
        };
        let mut table = KeyTable::default();
        let mut cache = RankCache::new(&opts, Some(&expr), Conversion::Negotiator, first.len());
        let numbers = cache.shape_all_kept(&opts, &first, &mut table, &[None; 6]);
        assert_eq!(shapes(&cache, first.len()), read(&first));
        assert!(numbers[2].is_none(), "a rank reading the slot: a shape of its own");
        assert_eq!(numbers[0], numbers[4]);
        // The next cycle: some ads again, in another order, and new ones.
        let again = [5, 3, 0, 2, 1];
        let mut second: Vec<ClassAd> = again.iter().map(|&i| first[i].clone()).collect();
        let mut kept: Vec<Option<KeyNumber>> = again.iter().map(|&i| numbers[i]).collect();
        second.insert(1, slot("0.0", 8, None));
        kept.insert(1, None);
        second.push(slot("0.0", 3, None));
        kept.push(None);
        let mut cache = RankCache::new(&opts, Some(&expr), Conversion::Negotiator, second.len());
        let renumbered = cache.shape_all_kept(&opts, &second, &mut table, &kept);
        assert_eq!(shapes(&cache, second.len()), read(&second));
        assert_eq!(renumbered[1], numbers[1], "a new ad with a known key takes its number");
        // A table made for other names starts afresh: old numbers are not read.
        let other: Expr = "Cpus".parse().expect("expr");
        let mut cache = RankCache::new(&opts, Some(&other), Conversion::Negotiator, second.len());
        cache.shape_all_kept(&opts, &second, &mut table, &kept);
        let mut fresh = RankCache::new(&opts, Some(&other), Conversion::Negotiator, second.len());
        fresh.shape_all(&opts, &second);
        assert_eq!(shapes(&cache, second.len()), shapes(&fresh, second.len()));
    }
}
