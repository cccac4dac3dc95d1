//! The slots prepared for matching: what the last cycle remembered of
//! them taken up (see [`memory`]), those no job can match left out, the
//! rest put in ranges of slots alike, best pre-job rank first (see
//! [`ranges`]), and prepared into the cycle's
//! [`Pool`]; after the cycle, what the next one will remember handed back.

use std::sync::Arc;

use classad::eval::PrepareCache;
use classad::{ClassAd, EvalOptions, Name};
use rustc_hash::{FxHashMap, FxHashSet};

use super::fetch::{requirements_false, CycleSlot, Origin, SlotAd};
use super::Context;
use crate::autocluster::SubmitterQueue;
use crate::matching::{Pool, PreparedSlot};
use crate::negotiator::memory::{self, Entry, Remembered, RequestEntry};
use crate::negotiator::ranges::{self, ShapeRange, Shapes};
use crate::negotiator::rank_cache::{Conversion, RankCache, ShapeNumbers};
use crate::parallel;

/// The slots the last cycle remembered (`None` for an ad it did not see, or
/// saw as another `Arc`).
pub(super) fn recall<'m, A: SlotAd>(memory: &'m Remembered, ads: &[A]) -> Vec<Option<&'m Entry>> {
    let remembered = |ad: &A| {
        ad.shared().and_then(|arc| memory.entries.get(&memory::key(arc)).filter(|e| Arc::ptr_eq(&e.input, arc)))
    };
    ads.iter().map(|ad| remembered(ad).map(|e| &**e)).collect()
}

/// The cycle's slots, column by column (item `i` of each is slot `i`'s).
pub(super) struct SlotColumns<A> {
    /// The ads.
    pub(super) ads: Vec<A>,
    /// Each one's prepared side, when remembered.
    pub(super) sides: Vec<Option<PreparedSlot>>,
    /// The cycle's own.
    pub(super) slots: Vec<CycleSlot>,
    /// Their weights.
    pub(super) weights: Vec<f64>,
    /// What the memory's key tables numbered each ad's shape keys.
    pub(super) numbers: Vec<ShapeNumbers>,
}

/// What [`take_up`] gives, slot by slot in the cycle's input order.
pub(super) struct TakenUp {
    /// The prepared sides remembered.
    pub(super) sides: Vec<Option<PreparedSlot>>,
    /// Each slot's key in the memory (`None`: not remembered).
    pub(super) keys: Vec<Option<usize>>,
    /// What the memory's key tables numbered each ad's shape keys.
    pub(super) numbers: Vec<ShapeNumbers>,
    /// The cycle's own of each slot.
    pub(super) slots: Vec<CycleSlot>,
    /// The entries of ads not seen again (to be dropped).
    pub(super) unseen: FxHashMap<usize, Box<Entry>>,
}

/// The slots taken up from the memory (`prepared`: as `trim_and_decorate`
/// left them): their prepared sides, their keys in the memory, their shape
/// numbers, in the cycle's input order. The memory's entries are now this
/// cycle's; those of ads not seen again are returned, to be dropped.
pub(super) fn take_up<A: SlotAd>(
    memory: &mut Remembered,
    ads: &[A],
    prepared: Vec<(CycleSlot, Origin)>,
    weights: &[f64],
    ghosts: &[f64],
) -> TakenUp {
    let mut next = FxHashMap::with_capacity_and_hasher(ads.len(), Default::default());
    let mut sides: Vec<Option<PreparedSlot>> = Vec::with_capacity(ads.len());
    let mut keys: Vec<Option<usize>> = Vec::with_capacity(ads.len());
    // What the memory's key tables numbered each ad's shape keys.
    let mut numbers: Vec<ShapeNumbers> = Vec::with_capacity(ads.len());
    let mut slots = Vec::with_capacity(ads.len());
    for (i, (ad, (slot, origin))) in ads.iter().zip(prepared).enumerate() {
        let no_numbers = [None; 3];
        let (side, key, number) = match origin {
            Origin::Fresh => (None, None, no_numbers),
            Origin::Kept(input) => {
                let matched = ad.shared().cloned();
                let input = input.or_else(|| matched.clone());
                match (input, matched) {
                    (Some(input), Some(matched)) => {
                        let key = memory::key(&input);
                        next.entry(key).or_insert_with(|| {
                            Box::new(Entry {
                                input,
                                ad: matched,
                                prepared: None,
                                name: slot.name.clone(),
                                resource: slot.resource.clone(),
                                running: slot.running.clone(),
                                weights: (weights[i], ghosts[i]),
                                current: slot.current.clone(),
                                shape_numbers: [None; 3],
                            })
                        });
                        (None, Some(key), no_numbers)
                    }
                    _ => (None, None, no_numbers),
                }
            }
            Origin::Remembered(key) => match memory.entries.remove(&key) {
                Some(mut entry) => {
                    let side = entry.prepared.take();
                    entry.weights = (weights[i], ghosts[i]);
                    let number = entry.shape_numbers;
                    next.insert(key, entry);
                    (side, Some(key), number)
                }
                // The same ad given twice in one cycle: the second is
                // prepared again.
                None => (None, None, no_numbers),
            },
        };
        numbers.push(number);
        keys.push(key);
        sides.push(side);
        slots.push(slot);
    }
    let unseen = std::mem::replace(&mut memory.entries, next);
    TakenUp { sides, keys, numbers, slots, unseen }
}

/// The slots of the cycle, prepared for matching (in the order the cycle
/// reads them), and what the requests compare.
pub(super) struct Shaped {
    /// The slots' ads and prepared sides.
    pub(super) pool: Pool,
    /// The cycle's own of each slot.
    pub(super) slots: Vec<CycleSlot>,
    /// Their weights.
    pub(super) weights: Vec<f64>,
    /// Where each came from.
    pub(super) placement: Placement,
    /// The slots' ranges, best pre-job rank first.
    pub(super) ranges: Vec<ShapeRange>,
    /// The names the ranges are keyed by.
    pub(super) key_names: Vec<Name>,
    /// NEGOTIATOR_PRE_JOB_RANK, remembered per slot.
    pub(super) pre_job: RankCache,
    /// NEGOTIATOR_POST_JOB_RANK, remembered per slot.
    pub(super) post_job: RankCache,
    /// What was learnt of the requests' ads, by their keys.
    pub(super) requests: FxHashMap<usize, RequestEntry>,
}

/// Where the prepared slots came from, for what the memory keeps.
pub(super) struct Placement {
    /// Where each slot of the cycle's order was in the input.
    pub(super) order: Vec<u32>,
    /// Where each slot kept was in the input (`None` when none was left out).
    pub(super) kept: Option<Vec<u32>>,
    /// What the memory's key tables numbered each one's shape keys.
    pub(super) numbers: Vec<ShapeNumbers>,
}

/// The rest of the slots' preparation (done alongside the accounting when
/// that is not done yet): slots no job can match (trimmed ones, and those
/// whose Requirements is `false` itself, as a simulator's stand-ins for
/// claimed slots) have been counted; they take no further part.
pub(super) fn shape<A: SlotAd>(
    cx: &Context<'_>,
    columns: SlotColumns<A>,
    queues: &[SubmitterQueue],
    memory: &mut Remembered,
    remember: bool,
) -> Shaped {
    let (negotiator, opts) = (cx.negotiator, &cx.opts);
    let settings = &negotiator.settings;
    // `kept` maps the remaining ones to their place in the input.
    let (SlotColumns { ads, sides, slots, weights, numbers }, kept) = leave_out_unmatchable(cx, columns);

    // The slots in ranges of slots alike (see `ranges`), best pre-job rank
    // first; `order` remembers where each came from (equal candidates are
    // taken in that order).
    let pre_job = RankCache::new(opts, negotiator.ranks.pre_job_rank.as_ref(), Conversion::Negotiator, ads.len());
    let post_job = RankCache::new(opts, negotiator.ranks.post_job_rank.as_ref(), Conversion::Negotiator, ads.len());
    // What the requests compare of a slot (each request's read once while
    // its ad is remembered).
    let mut requests = FxHashMap::with_capacity_and_hasher(memory.requests.len(), Default::default());
    for request in queues.iter().flat_map(|q| &q.requests) {
        let key = memory::key(&request.ad);
        if requests.contains_key(&key) {
            continue;
        }
        let entry = match memory.requests.remove(&key) {
            Some(entry) if Arc::ptr_eq(&entry.ad, &request.ad) => RequestEntry { unseen: 0, ..entry },
            _ => RequestEntry {
                unseen: 0,
                ad: request.ad.clone(),
                compared: ranges::request_compared(opts, &request.ad),
                keyed: Vec::new(),
            },
        };
        requests.insert(key, entry);
    }
    let compared = ranges::compared_names(
        queues
            .iter()
            .flat_map(|q| &q.requests)
            .filter_map(|r| requests.get(&memory::key(&r.ad)))
            .map(|e| e.compared.as_slice()),
    );
    let (mut shapes, numbers) = Shapes::new(opts, &ads, pre_job, post_job, &compared, &mut memory.key_tables, &numbers);
    let shape_order = shapes.order(opts, &ads);
    // Owned ads are put behind `Arc` in the cycle's order, so that a scan
    // over the pool reads them in the order they lie in memory.
    let ads: Vec<Arc<ClassAd>> = reorder(ads, &shape_order).into_iter().map(A::into_arc).collect();
    // (Nothing to move when nothing was remembered.)
    let sides = if sides.iter().any(Option::is_some) { reorder(sides, &shape_order) } else { sides };
    let numbers = reorder(numbers, &shape_order);
    let slots = reorder(slots, &shape_order);
    let weights = reorder(weights, &shape_order);
    // Where each slot of the cycle's order was in the input.
    let order: Vec<u32> = match &kept {
        Some(kept) => shape_order.iter().map(|&i| kept[i as usize]).collect(),
        None => shape_order,
    };
    let (ranges, key_names) =
        shapes.ranges(opts, &ads, |i| !settings.consider_preemption || slots[i].running.is_none());
    let (pre_job, post_job) = shapes.into_caches();
    // (A cycle that remembers nothing keeps no preparations either.)
    let sides = prepare_missing(opts, &ads, sides, remember.then_some(&mut memory.prepared));
    let pool = Pool::from_prepared(opts.clone(), ads, sides);
    // The columns of what the requests compare, gathered a name per thread.
    pool.build_columns(&compared);
    Shaped {
        pool,
        slots,
        weights,
        placement: Placement { order, kept, numbers },
        ranges,
        key_names,
        pre_job,
        post_job,
        requests,
    }
}

/// What the next cycle will remember handed back to `memory`: the
/// requests (those not seen this cycle kept a while), and the slots'
/// prepared sides (`keys`: each input slot's key in the memory), and the
/// preparations no slot used forgotten.
pub(super) fn hand_back(
    memory: &mut Remembered,
    pool: Pool,
    mut requests: FxHashMap<usize, RequestEntry>,
    placement: &Placement,
    keys: &[Option<usize>],
) {
    let Placement { order, kept, numbers } = placement;
    // Requests not seen this cycle are kept a while (see `memory`).
    for (key, mut entry) in memory.requests.drain() {
        entry.unseen += 1;
        if entry.unseen <= memory::REQUEST_UNSEEN_CYCLES && Arc::strong_count(&entry.ad) > 1 {
            requests.entry(key).or_insert(entry);
        }
    }
    memory.requests = requests;
    // The sides go back to the memory, for the next cycle.
    let (ads, sides) = pool.into_prepared();
    for ((position, side), ad) in sides.into_iter().enumerate().zip(ads) {
        let Some(key) = keys[order[position] as usize] else { continue };
        if let Some(entry) = memory.entries.get_mut(&key).filter(|e| Arc::ptr_eq(&e.ad, &ad)) {
            entry.prepared = Some(side);
            entry.shape_numbers = numbers[position];
        }
    }
    // (An ad left out was not prepared; it is remembered all the same.)
    let left_out: FxHashSet<usize> = match &kept {
        Some(kept) => {
            let mut matched = vec![false; keys.len()];
            for &i in kept {
                matched[i as usize] = true;
            }
            keys.iter().zip(matched).filter(|(_, matched)| !matched).filter_map(|(key, _)| *key).collect()
        }
        None => FxHashSet::default(),
    };
    memory.entries.retain(|key, e| e.prepared.is_some() || left_out.contains(key));
    memory.prepared.forget_unused();
}

/// `sides`, with the ones missing prepared (with `ads[i]`, on every core
/// for a large pool), taken from `cache` when an earlier ad read the same.
fn prepare_missing(
    opts: &EvalOptions,
    ads: &[Arc<ClassAd>],
    sides: Vec<Option<PreparedSlot>>,
    cache: Option<&mut PrepareCache>,
) -> Vec<PreparedSlot> {
    let missing: Vec<&ClassAd> =
        sides.iter().zip(ads).filter(|(side, _)| side.is_none()).map(|(_, ad)| &**ad).collect();
    // In order of position, as the missing ones are met below.
    let mut made = match cache {
        Some(cache) => PreparedSlot::all_cached(opts, &missing, cache),
        None => parallel::map_costly(&missing, |_, ad| PreparedSlot::new(opts, ad)),
    }
    .into_iter();
    sides
        .into_iter()
        .zip(ads)
        .map(|(side, ad)| side.or_else(|| made.next()).unwrap_or_else(|| PreparedSlot::new(opts, ad)))
        .collect()
}

/// The cycle's slots without those no job can match: trimmed ones, and
/// those whose `Requirements` is the literal `false`; with where the others
/// were (`None` when none is left out). With ALLOW_PSLOT_PREEMPTION all
/// stay (a partitionable slot's preemption reads its dynamic slots).
fn leave_out_unmatchable<A: SlotAd>(cx: &Context<'_>, columns: SlotColumns<A>) -> (SlotColumns<A>, Option<Vec<u32>>) {
    let SlotColumns { ads, sides, slots, weights, numbers } = columns;
    let names = &cx.names;
    let unmatchable = |ad: &A, slot: &CycleSlot| !slot.available || requirements_false(names, (*ad).borrow());
    if cx.negotiator.settings.allow_pslot_preemption || !ads.iter().zip(&slots).any(|(a, s)| unmatchable(a, s)) {
        return (SlotColumns { ads, sides, slots, weights, numbers }, None);
    }
    let keep: Vec<bool> = ads.iter().zip(&slots).map(|(a, s)| !unmatchable(a, s)).collect();
    let kept: Vec<u32> = (0..keep.len() as u32).filter(|&i| keep[i as usize]).collect();
    fn filter<T>(items: Vec<T>, keep: &[bool]) -> Vec<T> {
        items.into_iter().zip(keep).filter(|(_, &k)| k).map(|(x, _)| x).collect()
    }
    (
        SlotColumns {
            ads: filter(ads, &keep),
            sides: filter(sides, &keep),
            slots: filter(slots, &keep),
            weights: filter(weights, &keep),
            numbers: filter(numbers, &keep),
        },
        Some(kept),
    )
}

/// `items` in `order` (item `i` of the result is `items[order[i]]`).
fn reorder<T>(items: Vec<T>, order: &[u32]) -> Vec<T> {
    if order.len() == items.len() && order.iter().enumerate().all(|(at, &i)| at == i as usize) {
        return items;
    }
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(order.len());
    ordered.extend(order.iter().filter_map(|&i| items[i as usize].take()));
    ordered
}
