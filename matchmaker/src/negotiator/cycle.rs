//! The cycle itself: accounting, the pie spins, and matching each request.
//!
//! The structure follows HTCondor's `Matchmaker::negotiationTime`,
//! `negotiateWithGroup`, `negotiate` and `matchmakingAlgorithm`, so that
//! the decisions are the same; names of HTCondor's variables are given
//! where it helps to compare.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use classad::eval::PrepareCache;
use classad::{ClassAd, Clock, EvalContext, EvalOptions, Expr, Name, Semantics, Value};
use rustc_hash::{FxHashMap, FxHashSet};

use super::match_list::{best_first, sort_prefix, Budget, Candidate, Diagnostics, MatchList, Run, Runs};
use super::memory::{self, Entry, Keyed, Remembered, RequestEntry};
use super::pslot_preemption::{self, Enlarged, PslotPreemption, Trial};
use super::ranges::{self, RangeRank, RangeTests, ShapeRange, Shapes};
use super::rank_cache::{Conversion, KeyNumber, RankCache};
use super::SubmitterReport;
use super::{CycleOutcome, CycleStats, MatchRecord, Negotiator, NegotiatorError, RejectReason, Rejection, Stopped};
use crate::accountant::Accountant;
use crate::autocluster::{ResourceRequest, SubmitterQueue};
use crate::candidates::{self, number, ClaimKind, Ranks};
use crate::concurrency::ConcurrencyLimits;
use crate::consumption;
use crate::matching::{Pool, PreparedRequest, PreparedSlot};
use crate::parallel;
use crate::pie::{self, GroupLimit, Pie};

mod group_phase;

/// The quota a group negotiates under (HTCondor's `groupQuota` and
/// `groupName` arguments of `negotiateWithGroup`).
pub(super) struct GroupRun<'g> {
    /// The pie is at most this (HTCondor's default: `INT_MAX`).
    pub quota: f64,
    /// The group whose usage is held to `quota`; `None` without groups and
    /// for `<none>` negotiating the whole pool with autoregroup.
    pub name: Option<&'g str>,
}

impl GroupRun<'_> {
    /// The whole pool as one group.
    fn pool() -> GroupRun<'static> {
        GroupRun { quota: f64::from(i32::MAX), name: None }
    }
}

/// What policy expressions are told about the group being negotiated.
#[derive(Default)]
pub(super) struct GroupContext {
    /// The group negotiating (`SubmitterNegotiatingGroup`).
    pub negotiating: String,
    /// `SubmitterAutoregroup`: autoregroup is on and `<none>` negotiates.
    pub autoregroup: bool,
    /// Each group's quota this round, by lower-case name
    /// (`SubmitterGroupQuota`).
    pub quotas: rustc_hash::FxHashMap<String, f64>,
}

/// Pools at least this large are scanned on every core.
#[cfg(feature = "parallel")]
const PARALLEL_FROM: usize = 4096;

/// The fewest and the most slots of a range scanned at once for a request
/// read range by range.
const MIN_SCAN_WINDOW: usize = 8;
const MAX_SCAN_WINDOW: usize = 4096;

/// `MY.Rank > MY.CurrentRank` and `MY.Rank >= MY.CurrentRank`.
struct RankConditions {
    better: Expr,
    not_worse: Expr,
}

impl RankConditions {
    fn new() -> RankConditions {
        // Fixed texts: they parse.
        let parse = |t: &str| t.parse::<Expr>().unwrap_or_else(|_| Expr::from(false));
        RankConditions { better: parse("MY.Rank > MY.CurrentRank"), not_worse: parse("MY.Rank >= MY.CurrentRank") }
    }
}

/// The attribute names the cycle writes and reads, interned once.
struct Names {
    name: Name,
    rank: Name,
    requirements: Name,
    concurrency_limits: Name,
    matched_concurrency_limits: Name,
    remote_user_prio: Name,
    remote_user_resources_in_use: Name,
    remote_group: Name,
    remote_group_resources_in_use: Name,
    current_rank: Name,
    preempting_rank: Name,
    state: Name,
    partitionable_slot: Name,
    retirement_time_remaining: Name,
    machine_resources: Name,
    ghost_multiplier: Name,
    submitter_negotiating_group: Name,
    submitter_autoregroup: Name,
    submittor_prio: Name,
    submitter_user_prio: Name,
    submitter_user_resources_in_use: Name,
    submitter_group: Name,
    submitter_group_resources_in_use: Name,
    running: [Name; 4],
}

impl Names {
    fn new() -> Names {
        Names {
            name: Name::new("Name"),
            rank: Name::new("Rank"),
            requirements: Name::new("Requirements"),
            concurrency_limits: Name::new("ConcurrencyLimits"),
            matched_concurrency_limits: Name::new("MatchedConcurrencyLimits"),
            remote_user_prio: Name::new("RemoteUserPrio"),
            remote_user_resources_in_use: Name::new("RemoteUserResourcesInUse"),
            remote_group: Name::new("RemoteGroup"),
            remote_group_resources_in_use: Name::new("RemoteGroupResourcesInUse"),
            current_rank: Name::new("CurrentRank"),
            preempting_rank: Name::new("PreemptingRank"),
            state: Name::new("State"),
            partitionable_slot: Name::new("PartitionableSlot"),
            retirement_time_remaining: Name::new("RetirementTimeRemaining"),
            machine_resources: Name::new("MachineResources"),
            ghost_multiplier: Name::new("GhostMultiplier"),
            submitter_negotiating_group: Name::new("SubmitterNegotiatingGroup"),
            submitter_autoregroup: Name::new("SubmitterAutoregroup"),
            submittor_prio: Name::new("SubmittorPrio"),
            submitter_user_prio: Name::new("SubmitterUserPrio"),
            submitter_user_resources_in_use: Name::new("SubmitterUserResourcesInUse"),
            submitter_group: Name::new("SubmitterGroup"),
            submitter_group_resources_in_use: Name::new("SubmitterGroupResourcesInUse"),
            running: [
                Name::new("PreemptingAccountingGroup"),
                Name::new("PreemptingUser"),
                Name::new("AccountingGroup"),
                Name::new("RemoteUser"),
            ],
        }
    }

    /// Who runs on a slot: its preempting or current accounting group or
    /// user.
    fn remote_user(&self, slot: &ClassAd) -> Option<String> {
        self.running.iter().find_map(|name| string_attr(slot, *name))
    }
}

/// A slot of the cycle.
struct Slot {
    /// Still in the candidate list (HTCondor's `startdAds`).
    available: bool,
    /// A partitionable slot with a consumption policy: matched through
    /// `current`, which the cycle's matches carve up.
    current: Option<ClassAd>,
    /// Its `Name`.
    name: Arc<str>,
    /// Its accountant record's name (`Name@StartdIpAddr`).
    resource: Arc<str>,
    /// Who runs on it (see [`Names::remote_user`]), looked up once.
    running: Option<Arc<str>>,
}

/// Where a candidate's job rank comes from.
enum JobRank<'p, 'a> {
    /// Evaluated for the slot.
    Evaluate,
    /// The request's `Rank`, prepared.
    Prepared(&'p classad::Prepared<&'a ClassAd>),
    /// All three ranks already known (the same on every slot of its range).
    Range { pre: f64, job: f64, post: f64 },
}

/// How a request ended.
enum Found {
    Slot(Candidate),
    None(RejectReason, Diagnostics),
}

/// What `negotiate` returns (HTCondor's `MM_RESUME` and `MM_DONE`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Negotiated {
    Resume,
    Done,
}

/// A submitter during the cycle.
struct Sub<'q> {
    queue: &'q SubmitterQueue,
    /// Jobs matched this cycle, per request.
    matched: Vec<u32>,
    report: SubmitterReport,
    active: bool,
}

/// The rank expressions, remembered per slot for the cycle.
struct Caches {
    pre_job: RankCache,
    post_job: RankCache,
    /// The slot's own `Rank` of the job (the job's rank of a slot when the
    /// job has no `Rank`).
    slot_rank: RankCache,
}

struct State<'a, 'p> {
    negotiator: &'a Negotiator,
    caches: Caches,
    /// Numbers the requests a list is built for (for `caches`).
    serial: u64,
    names: Names,
    opts: EvalOptions,
    conditions: RankConditions,
    accountant: &'a mut Accountant,
    ads: &'p [Arc<ClassAd>],
    pool: &'a Pool,
    slots: Vec<Slot>,
    weights: Vec<f64>,
    available: usize,
    limits: ConcurrencyLimits,
    match_list: Option<MatchList>,
    now: i64,
    spin: u32,
    outcome: CycleOutcome,
    share_limited: FxHashSet<String>,
    found: Vec<usize>,
    /// The concurrency limits refused (HTCondor's
    /// `rejectedConcurrencyLimits`), named in rejections.
    rejected_limits: BTreeSet<String>,
    /// The slots' ranges (see `ranges`), best pre-job rank first.
    ranges: Vec<ShapeRange>,
    /// The names the ranges are keyed by.
    key_names: Vec<Name>,
    /// Each slot's position in the cycle's input.
    order: Vec<u32>,
    /// Whether some slot is carved by a consumption policy.
    any_carved: bool,
    /// Every submitter's name, by index.
    submitter_names: Vec<String>,
    /// With group quotas: the group negotiating and the quotas.
    groups: Option<GroupContext>,
    /// Skips over taken slots: following `free` from a slot leads to the
    /// first slot from it on that was not taken (see `next_free`).
    free: Vec<u32>,
    /// ALLOW_PSLOT_PREEMPTION's state (`None` when the knob is off).
    pslot: Option<Box<PslotPreemption>>,
    /// What was learnt of the requests' ads, by their keys.
    requests: &'a mut FxHashMap<usize, RequestEntry>,
    /// Every slot ranks every job the same (`ranges::uniform_slot_rank`).
    uniform_slot_rank: bool,
}

fn string_attr(ad: &ClassAd, name: Name) -> Option<String> {
    str_literal(ad, name).map(str::to_string)
}

/// Attribute `name` of `ad` when it is written as a string.
fn str_literal(ad: &ClassAd, name: Name) -> Option<&str> {
    match ad.lookup(name).and_then(Expr::as_literal) {
        Some(classad::Literal::Str(s)) => Some(s.as_str()),
        _ => None,
    }
}

pub(super) fn run<A: SlotAd>(
    negotiator: &Negotiator,
    accountant: &mut Accountant,
    input_slots: Vec<A>,
    queues: &[SubmitterQueue],
    now: i64,
    remember: bool,
) -> Result<CycleOutcome, NegotiatorError> {
    let phase2 = Instant::now();
    // Policy expressions see the cycle's time, never the clock.
    let opts = EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(now));
    let settings = &negotiator.settings;
    let names = Names::new();

    // Phase 1: the slots the collector would give (NEGOTIATOR_SLOT_CONSTRAINT).
    let mut ads = input_slots;
    let keep = parallel::map_indexed(&ads, |_, ad| {
        let ad: &ClassAd = ad.borrow();
        ad.lookup(names.name).is_some()
            && negotiator.slot_constraint.as_ref().is_none_or(|c| EvalContext::new(&opts).my(ad).is_true(c))
    });
    let mut kept = keep.into_iter();
    ads.retain(|_| kept.next().unwrap_or(false));

    // What the last cycle remembered (see `memory`).
    let mut memory = if remember {
        negotiator.memory.take(&memory::fingerprint(&negotiator.match_exprs))
    } else {
        Remembered::default()
    };
    let remembered = |ad: &A| {
        ad.shared().and_then(|arc| memory.entries.get(&memory::key(arc)).filter(|e| Arc::ptr_eq(&e.input, arc)))
    };
    let known: Vec<Option<&Entry>> = ads.iter().map(|ad| remembered(ad).map(|e| &**e)).collect();
    // Each slot's accountant record (its name remembered for an ad seen).
    let resources: Vec<Arc<str>> = ads
        .iter()
        .zip(&known)
        .map(|(ad, known)| match known {
            Some(entry) => entry.resource.clone(),
            None => Arc::from(crate::accountant::resource_name((*ad).borrow())),
        })
        .collect();

    // Phase 2: accounting. When no slot is given the accountant's figures
    // (there is no preemption, or no slot could be preempted), nothing of the
    // slots' preparation below reads what it changes: it is then done
    // alongside, on another core (with the ads as given, shared), while
    // the slots are shaped.
    let figures_read = |ad: &A, known: &Option<&Entry>| {
        let running = match known {
            Some(entry) => entry.running.is_some(),
            None => names.remote_user((*ad).borrow()).is_some(),
        };
        gets_figures(settings, &names, (*ad).borrow(), running)
    };
    let alongside: Option<Vec<Arc<ClassAd>>> = if ads.len() >= ACCOUNT_ALONGSIDE_FROM
        && !(settings.consider_preemption && ads.iter().zip(&known).any(|(ad, known)| figures_read(ad, known)))
    {
        ads.iter().map(|ad| ad.shared().cloned()).collect()
    } else {
        None
    };
    if alongside.is_none() {
        account(accountant, now, &ads, &resources)?;
    }
    let weigher = accountant.weigher();
    let weight_basis = accountant.slot_weight_basis();
    // The accountant's figures, for slots that get them (under preemption).
    let figures: Option<&Accountant> = alongside.is_none().then_some(&*accountant);
    let mut stats = CycleStats { total_slots: ads.len(), ..CycleStats::default() };
    let ghost = |ad: &ClassAd| match ad
        .lookup(names.ghost_multiplier)
        .map(|_| EvalContext::new(&opts).my(ad).eval_attr(names.ghost_multiplier))
    {
        Some(Value::Int(i)) => i as f64,
        _ => 1.0,
    };
    // (Remembered for an ad seen, when read the same way.)
    let same_basis = memory.weight_basis == weight_basis;
    let (weights, ghosts): (Vec<f64>, Vec<f64>) = parallel::map_indexed(&ads, |i, ad| match known[i] {
        Some(entry) if same_basis => entry.weights,
        _ => (weigher.weight(ad.borrow()), ghost(ad.borrow())),
    })
    .into_iter()
    .unzip();
    let mut min_weight = f64::MAX;
    let mut weight_total = 0.0;
    for (w, g) in weights.iter().zip(&ghosts) {
        let w = w * g;
        weight_total += w;
        min_weight = min_weight.min(w);
    }
    let pool_weight = match &negotiator.poolsize_constraint {
        Some(c) => {
            let inside: Vec<usize> =
                (0..ads.len()).filter(|&i| EvalContext::new(&opts).my(ads[i].borrow()).is_true(c)).collect();
            if inside.is_empty() {
                if settings.use_slot_weights {
                    weight_total
                } else {
                    ads.len() as f64
                }
            } else if settings.use_slot_weights {
                inside.iter().map(|&i| weights[i] * ghost(ads[i].borrow())).sum()
            } else {
                inside.len() as f64
            }
        }
        None if settings.use_slot_weights => weight_total,
        None => ads.len() as f64,
    };
    stats.slot_weight_total = pool_weight;
    stats.min_slot_weight = if min_weight == f64::MAX { 0.0 } else { min_weight };

    let mut limits = ConcurrencyLimits::new(negotiator.capacities.clone());
    limits.add_slots(&ads);

    // Trim, then give the slots what policy expressions read of them
    // (remembered from the last cycle for an ad it saw, when nothing of
    // this cycle's is written into it).
    let mut items: Vec<(&mut A, &Arc<str>, Option<&Entry>)> =
        ads.iter_mut().zip(&resources).zip(&known).map(|((ad, resource), known)| (ad, resource, *known)).collect();
    let prepared: Vec<(Slot, Origin)> = parallel::map_mut(&mut items, |item| {
        let (ad, resource, known): (&mut A, &Arc<str>, Option<&Entry>) = (&mut *item.0, item.1, item.2);
        let available = !trimmed(negotiator, &opts, &names, (*ad).borrow());
        let known = known.zip(ad.shared());
        let running: Option<Arc<str>> = match known {
            Some((entry, _)) => entry.running.clone(),
            None => names.remote_user((*ad).borrow()).map(Arc::from),
        };
        // (Not a slot no job can match: it is left out after accounting.)
        let decorated = gets_figures(settings, &names, (*ad).borrow(), running.is_some());
        if let (Some((entry, input)), false) = (known, decorated) {
            let slot = Slot {
                available,
                current: entry.current.clone(),
                name: entry.name.clone(),
                resource: entry.resource.clone(),
                running,
            };
            let key = memory::key(input);
            // The ad the last cycle matched (with the match expressions).
            *ad = A::from_arc(entry.ad.clone());
            return (slot, Origin::Remembered(key));
        }
        let remember = remember && !decorated;
        // The caller's ad, when the cycle writes into a copy it remembers.
        let mut input = None;
        if !negotiator.match_exprs.is_empty() || decorated {
            if remember {
                input = ad.shared().cloned();
            }
            // A copy when the caller shares the ad; in place when it is
            // the cycle's own.
            let ad = ad.make_mut();
            for (name, expr) in &negotiator.match_exprs {
                ad.insert(name.as_str(), expr.clone());
            }
            if decorated {
                // (Decorated only under preemption, when the accountant
                // has been brought up to date first.)
                if let (Some(user), Some(accountant)) = (running.as_deref(), figures) {
                    let prio = f64::from(accountant.effective_priority(user) as f32);
                    ad.insert(names.remote_user_prio, prio);
                    ad.insert(names.remote_user_resources_in_use, accountant.weighted_resources_used(user));
                    let group = accountant.group_of(user).to_string();
                    if group != crate::groups::ROOT {
                        ad.insert(names.remote_group_resources_in_use, accountant.weighted_resources_used(&group));
                        ad.insert(names.remote_group, group.as_str());
                    }
                }
                if let Some(rank) =
                    ad.lookup(names.preempting_rank).and_then(|e| number(&EvalContext::new(&opts).my(ad).eval(e)))
                {
                    ad.insert(names.current_rank, rank);
                }
            }
        }
        let ad: &ClassAd = (*ad).borrow();
        let current =
            (ad.lookup(names.machine_resources).is_some() && consumption::has_policy(ad)).then(|| ClassAd::clone(ad));
        let slot = Slot {
            available,
            current,
            name: Arc::from(str_literal(ad, names.name).unwrap_or_default()),
            resource: resource.clone(),
            running,
        };
        (slot, if remember { Origin::Kept(input) } else { Origin::Fresh })
    });
    drop(items);
    drop(known);
    // What the last cycle prepared, and what this one will remember.
    let mut next = FxHashMap::with_capacity_and_hasher(ads.len(), Default::default());
    let mut sides: Vec<Option<PreparedSlot>> = Vec::with_capacity(ads.len());
    let mut keys: Vec<Option<usize>> = Vec::with_capacity(ads.len());
    // What the memory's key tables numbered each ad's shape keys.
    let mut numbers: Vec<[Option<KeyNumber>; 3]> = Vec::with_capacity(ads.len());
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
    // The entries of ads not seen again, dropped on another core (with
    // the accounting, when that is done alongside).
    let unseen = std::mem::replace(&mut memory.entries, next);
    let unseen = match alongside {
        Some(_) => Some(unseen),
        None => {
            parallel::drop_elsewhere(unseen);
            None
        }
    };
    memory.weight_basis = weight_basis;
    let available = slots.iter().filter(|s| s.available).count();
    stats.trimmed_slots = available;
    stats.candidate_slots = available;
    let any_carved = slots.iter().any(|s| s.current.is_some());

    // The rest of the slots' preparation; with the accounting alongside
    // when it is not done yet.
    let shape = || {
        // Slots no job can match (trimmed ones, and those whose Requirements
        // is `false` itself, as a simulator's stand-ins for claimed slots)
        // have been counted; they take no further part. `kept` maps the
        // remaining ones to their place in the input.
        let (ads, sides, slots, weights, numbers, kept) =
            leave_out_unmatchable(negotiator, &names, ads, sides, slots, weights, numbers);

        // The slots in ranges of slots alike (see `ranges`), best pre-job rank
        // first; `order` remembers where each came from (equal candidates are
        // taken in that order).
        let pre_job = RankCache::new(&opts, negotiator.ranks.pre_job_rank.as_ref(), Conversion::Negotiator, ads.len());
        let post_job =
            RankCache::new(&opts, negotiator.ranks.post_job_rank.as_ref(), Conversion::Negotiator, ads.len());
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
                    compared: ranges::request_compared(&opts, &request.ad),
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
        let (mut shapes, numbers) =
            Shapes::new(&opts, &ads, pre_job, post_job, &compared, &mut memory.key_tables, &numbers);
        let shape_order = shapes.order(&opts, &ads);
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
            shapes.ranges(&opts, &ads, |i| !settings.consider_preemption || slots[i].running.is_none());
        let (pre_job, post_job) = shapes.into_caches();
        // (A cycle that remembers nothing keeps no preparations either.)
        let sides = prepare_missing(&opts, &ads, sides, remember.then_some(&mut memory.prepared));
        let pool = Pool::from_prepared(opts.clone(), ads, sides);
        // The columns of what the requests compare, gathered a name per thread.
        pool.build_columns(&compared);
        (pool, slots, weights, order, kept, numbers, ranges, key_names, pre_job, post_job, requests)
    };
    let (accounted, shaped) = match &alongside {
        Some(slots) => parallel::join(
            || {
                let accounted = account(accountant, now, slots, &resources);
                drop(unseen);
                accounted
            },
            shape,
        ),
        None => (Ok(()), shape()),
    };
    accounted?;
    let (pool, slots, weights, order, kept, numbers, ranges, key_names, pre_job, post_job, mut requests) = shaped;
    let outcome = negotiate_pool(
        negotiator,
        accountant,
        &opts,
        slots,
        weights,
        limits,
        queues,
        now,
        &pool,
        (pre_job, post_job),
        (ranges, key_names),
        order.clone(),
        any_carved,
        stats,
        pool_weight,
        min_weight,
        phase2,
        &mut requests,
    );
    if remember {
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
        negotiator.memory.put(memory);
    } else {
        release(pool);
    }
    outcome
}

/// Below this many slots the accounting is not worth doing on another
/// core.
const ACCOUNT_ALONGSIDE_FROM: usize = 64;

/// Phase 2: the accountant brought up to date with the cycle's slots
/// (`resources`: their records' names).
fn account<S: std::borrow::Borrow<ClassAd>>(
    accountant: &mut Accountant,
    now: i64,
    slots: &[S],
    resources: &[Arc<str>],
) -> Result<(), NegotiatorError> {
    accountant.update_priorities(now)?;
    accountant.check_matches_named(now, slots, resources)?;
    Ok(())
}

/// Where a slot's prepared side comes from.
enum Origin {
    /// The last cycle's memory (the ad's key).
    Remembered(usize),
    /// This cycle, which will remember it; with the caller's ad when the
    /// cycle matches a copy.
    Kept(Option<Arc<ClassAd>>),
    /// This cycle, for this cycle only.
    Fresh,
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

/// A slot ad as a cycle is given it: its own, or shared behind [`Arc`]
/// (then it may be remembered, see [`memory`]).
pub(super) trait SlotAd: std::borrow::Borrow<ClassAd> + Send + Sync + Sized {
    /// The `Arc`, when shared.
    fn shared(&self) -> Option<&Arc<ClassAd>>;
    /// The ad to write into (a copy first when shared with others).
    fn make_mut(&mut self) -> &mut ClassAd;
    /// The ad behind an `Arc`.
    fn into_arc(self) -> Arc<ClassAd>;
    /// The ad of `arc`.
    fn from_arc(arc: Arc<ClassAd>) -> Self;
}

impl SlotAd for ClassAd {
    fn shared(&self) -> Option<&Arc<ClassAd>> {
        None
    }
    fn make_mut(&mut self) -> &mut ClassAd {
        self
    }
    fn into_arc(self) -> Arc<ClassAd> {
        Arc::new(self)
    }
    fn from_arc(arc: Arc<ClassAd>) -> ClassAd {
        Arc::unwrap_or_clone(arc)
    }
}

impl SlotAd for Arc<ClassAd> {
    fn shared(&self) -> Option<&Arc<ClassAd>> {
        Some(self)
    }
    fn make_mut(&mut self) -> &mut ClassAd {
        Arc::make_mut(self)
    }
    fn into_arc(self) -> Arc<ClassAd> {
        self
    }
    fn from_arc(arc: Arc<ClassAd>) -> Arc<ClassAd> {
        arc
    }
}

/// Phase 4 on the prepared slots.
#[allow(clippy::too_many_arguments)]
fn negotiate_pool(
    negotiator: &Negotiator,
    accountant: &mut Accountant,
    opts: &EvalOptions,
    mut slots: Vec<Slot>,
    weights: Vec<f64>,
    limits: ConcurrencyLimits,
    queues: &[SubmitterQueue],
    now: i64,
    pool: &Pool,
    (pre_job, post_job): (RankCache, RankCache),
    (ranges, key_names): (Vec<ShapeRange>, Vec<Name>),
    order: Vec<u32>,
    any_carved: bool,
    stats: CycleStats,
    pool_weight: f64,
    min_weight: f64,
    phase2: Instant,
    requests: &mut FxHashMap<usize, RequestEntry>,
) -> Result<CycleOutcome, NegotiatorError> {
    let opts = opts.clone();
    // (Counting the slots left out as unmatchable but not trimmed.)
    let available = stats.candidate_slots;
    // ALLOW_PSLOT_PREEMPTION: dynamic slots are reached through their
    // parent only (they still count as slots of the pool).
    let pslot = negotiator.settings.allow_pslot_preemption.then(|| {
        for (slot, ad) in slots.iter_mut().zip(pool.ads()) {
            if pslot_preemption::is_rolled_up_dynamic_slot(&opts, ad) {
                slot.available = false;
            }
        }
        Box::new(PslotPreemption::new(&opts, pool.ads(), negotiator.settings.consider_preemption))
    });
    // Slots trimmed, and slots whose own Requirements no job can make
    // true, are skipped from the start.
    let free: Vec<u32> = (0..=slots.len())
        .map(|i| {
            let skip = slots.get(i).is_some_and(|s| !s.available) || (i < slots.len() && pool.accepts_nothing(i));
            (if skip { i + 1 } else { i }) as u32
        })
        .collect();
    let my_rank: Expr = "MY.Rank".parse().unwrap_or_else(|_| Expr::from(0i64));
    let caches =
        Caches { pre_job, post_job, slot_rank: RankCache::new(&opts, Some(&my_rank), Conversion::Rank, pool.len()) };
    let mut state = State {
        negotiator,
        caches,
        serial: 0,
        names: Names::new(),
        opts: opts.clone(),
        conditions: RankConditions::new(),
        accountant,
        ads: pool.ads(),
        pool,
        slots,
        weights,
        available,
        limits,
        match_list: None,
        now,
        spin: 0,
        outcome: CycleOutcome {
            stats,
            // Room for as many matches as there can be (no copies as the
            // list grows).
            matches: Vec::with_capacity(
                (queues.iter().map(|q| q.idle_jobs()).sum::<u64>()).min(available as u64) as usize
            ),
            ..CycleOutcome::default()
        },
        share_limited: FxHashSet::default(),
        found: Vec::new(),
        rejected_limits: BTreeSet::new(),
        ranges,
        key_names,
        order,
        any_carved,
        submitter_names: Vec::new(),
        groups: None,
        free,
        pslot,
        requests,
        uniform_slot_rank: ranges::uniform_slot_rank(pool.ads()),
    };

    // The submitters, with their figures as the cycle starts.
    let mut subs: Vec<Sub<'_>> = queues
        .iter()
        .filter(|q| submitter_allowed(negotiator, &opts, q))
        .map(|q| {
            let name = q.name.as_str();
            Sub {
                queue: q,
                matched: vec![0; q.requests.len()],
                report: SubmitterReport {
                    name: q.name.clone(),
                    eup: state.accountant.effective_priority(name),
                    factor: state.accountant.priority_factor(name),
                    share: 0.0,
                    limit: 0.0,
                    usage_before: state.accountant.weighted_resources_used(name),
                    usage_after: 0.0,
                    idle_jobs: q.idle_jobs(),
                    matches: 0,
                    rejections: 0,
                    stopped: Stopped::NotReached,
                },
                active: false,
            }
        })
        .collect();
    state.submitter_names = subs.iter().map(|s| s.queue.name.clone()).collect();
    state.outcome.stats.phase2_seconds = phase2.elapsed().as_secs_f64();
    let phase4 = Instant::now();

    if negotiator.groups.enabled() {
        // Hierarchical group quotas: each group in turn, round after round.
        let (groups, rounds) = group_phase::run(&mut state, &mut subs, pool_weight, min_weight, now)?;
        state.outcome.groups = groups;
        state.outcome.group_rounds = rounds;
    } else {
        // A floor round for those below their floor, then the real one.
        let everyone: Vec<usize> = (0..subs.len()).collect();
        let mut below_floor = state.below_floor(&subs, &everyone);
        if !below_floor.is_empty() {
            state.negotiate_with_group(
                &mut subs,
                &mut below_floor,
                true,
                pool_weight,
                min_weight,
                &GroupRun::pool(),
            )?;
        }
        let mut everyone = everyone;
        state.negotiate_with_group(&mut subs, &mut everyone, false, pool_weight, min_weight, &GroupRun::pool())?;
    }

    let mut outcome = std::mem::take(&mut state.outcome);
    for sub in &mut subs {
        sub.report.usage_after = state.accountant.weighted_resources_used(&sub.queue.name);
    }
    outcome.stats.active_submitters = subs.iter().filter(|s| s.active).count();
    outcome.submitters = subs.into_iter().map(|s| s.report).collect();
    outcome.stats.phase4_seconds = phase4.elapsed().as_secs_f64();
    Ok(outcome)
}

/// Whether the negotiator leaves `slot` out of matchmaking (HTCondor's
/// `trimStartdAds`).
fn trimmed(negotiator: &Negotiator, opts: &EvalOptions, names: &Names, slot: &ClassAd) -> bool {
    let ctx = EvalContext::new(opts).my(slot);
    // (Literals, as startds write them, are read without evaluating.)
    let evaluated;
    let state: Option<&str> = match slot.lookup(names.state).and_then(Expr::as_literal) {
        Some(classad::Literal::Str(s)) => Some(s.as_str()),
        Some(_) => None,
        None => {
            evaluated = ctx.eval_attr(names.state);
            match &evaluated {
                Value::Str(s) => Some(s.as_str()),
                _ => None,
            }
        }
    };
    let is = |text: &str| state == Some(text);
    let claimed = is("Claimed");
    let partitionable = || match slot.lookup(names.partitionable_slot).map(Expr::as_literal) {
        None => false,
        Some(Some(literal)) => matches!(literal, classad::Literal::Bool(true)),
        Some(None) => matches!(ctx.eval_attr(names.partitionable_slot), Value::Bool(true)),
    };
    if negotiator.settings.consider_preemption {
        if !negotiator.settings.consider_early_preemption
            && slot.lookup(names.retirement_time_remaining).is_some()
            && matches!(ctx.eval_attr(names.retirement_time_remaining), Value::Int(r) if r > 0)
        {
            return true;
        }
    } else if (claimed || is("Preempting")) && !partitionable() {
        return true;
    }
    if claimed && partitionable() {
        let want_matching = !matches!(ctx.eval_attr("WantMatching"), Value::Bool(false));
        let working_cm = matches!(ctx.eval_attr("WorkingCM"), Value::Str(w) if !w.as_str().is_empty());
        if !(want_matching && (negotiator.settings.match_working_cm_slots || !working_cm)) {
            return true;
        }
    }
    false
}

/// Whether a submitter passes NEGOTIATOR_SUBMITTER_CONSTRAINT.
fn submitter_allowed(negotiator: &Negotiator, opts: &EvalOptions, queue: &SubmitterQueue) -> bool {
    let Some(constraint) = &negotiator.submitter_constraint else {
        return true;
    };
    let mut ad = ClassAd::new();
    ad.insert("Name", queue.name.as_str());
    ad.insert("ScheddName", queue.schedd.as_str());
    ad.insert("IdleJobs", queue.idle_jobs() as i64);
    ad.insert("RunningJobs", i64::from(queue.running_jobs));
    EvalContext::new(opts).my(&ad).is_true(constraint)
}

impl State<'_, '_> {
    /// Those of `members` with a floor above their usage (HTCondor's
    /// `findBelowFloorSubmitters`).
    fn below_floor(&self, subs: &[Sub<'_>], members: &[usize]) -> Vec<usize> {
        members
            .iter()
            .copied()
            .filter(|&i| {
                let name = subs[i].queue.name.as_str();
                let floor = self.accountant.floor(name) as f64;
                floor > 0.0 && self.accountant.weighted_resources_used(name) < floor
            })
            .collect()
    }

    /// The pie spins of one group (HTCondor's `negotiateWithGroup`), over
    /// the submitters `members` (indices into `subs`); those served in full
    /// leave `members`. `group` is the quota the group negotiates under.
    fn negotiate_with_group(
        &mut self,
        subs: &mut [Sub<'_>],
        members: &mut Vec<usize>,
        floor_round: bool,
        pool_weight: f64,
        min_weight: f64,
        group: &GroupRun<'_>,
    ) -> Result<(), NegotiatorError> {
        let settings = self.negotiator.settings.clone();
        self.outcome.stats.pies += 1;
        let mut spin = 0u32;
        loop {
            spin += 1;
            self.spin = if floor_round { 0 } else { spin };
            self.outcome.stats.pie_spins += 1;
            let ignore_limit = spin == 1 && settings.consider_preemption;
            let group_usage = group.name.map_or(0.0, |g| self.accountant.weighted_resources_used(g));
            if !ignore_limit && group.name.is_some() && group_usage >= group.quota {
                // The group has its quota.
                break;
            }
            self.match_list = None;
            if !settings.consider_preemption {
                members.retain(|&i| subs[i].queue.idle_jobs() > 0);
            }
            let pie_subs: Vec<pie::Submitter> = members.iter().map(|&i| self.pie_submitter(subs[i].queue)).collect();
            let limit = group.name.map(|_| GroupLimit { quota: group.quota, usage: group_usage });
            let pie = Pie::new(&pie_subs, pool_weight.min(group.quota), limit)
                .consider_preemption(settings.consider_preemption);
            let (mut pie_left, starvation) = self.pie_left(&pie, &pie_subs);
            if !settings.consider_preemption && pie_left <= 0.0 {
                break;
            }
            if spin == 1 {
                let order = pie::negotiation_order(&pie_subs, &starvation);
                // Equal in everything HTCondor compares: by name, so that
                // the order does not depend on the input's.
                let mut ordered: Vec<usize> = order.iter().map(|&k| members[k]).collect();
                stable_name_ties(&mut ordered, &pie_subs, &starvation, &order, subs);
                *members = ordered;
            }
            let pie_left_before = pie_left;
            let count_before = members.len();
            let mut k = 0;
            while k < members.len() {
                if !ignore_limit
                    && group.name.is_some_and(|g| self.accountant.weighted_resources_used(g) >= group.quota)
                {
                    break;
                }
                let i = members[k];
                let name = subs[i].queue.name.clone();
                let idle = self.idle_jobs(&subs[i]);
                let ps = self.pie_submitter(subs[i].queue);
                let mut l = pie.limit(&ps, floor_round);
                if settings.ignore_user_priorities && !floor_round {
                    l.limit = f64::MAX;
                    l.limit_unclaimed = f64::MAX;
                }
                if spin == 1 && !floor_round {
                    subs[i].report.share = l.share;
                    subs[i].report.limit = l.share * pie.slot_weight_total;
                }
                let mut limit = l.limit;
                if limit > pie_left {
                    limit = pie_left;
                }
                let ceiling: i64 = match self.accountant.ceiling(&name) {
                    None => i64::from(i32::MAX),
                    Some(c) => (c - self.accountant.weighted_resources_used(&name) as i64).max(0),
                };
                let result = if idle == 0 {
                    if subs[i].report.stopped == Stopped::NotReached {
                        subs[i].report.stopped = Stopped::NoIdleJobs;
                    }
                    Negotiated::Done
                } else if (limit < min_weight || pie_left < min_weight) && spin > 1 {
                    Negotiated::Resume
                } else if ceiling == 0 || (ceiling as f64) < min_weight {
                    subs[i].report.stopped = Stopped::Ceiling;
                    Negotiated::Done
                } else {
                    if !subs[i].active {
                        self.outcome.stats.idle_jobs += idle;
                    }
                    subs[i].active = true;
                    self.rejected_limits.clear();
                    let budget = Budget { used: 0.0, used_unclaimed: 0.0, limit, limit_unclaimed: l.limit_unclaimed };
                    self.negotiate(subs, i, budget, ceiling, ignore_limit, &mut pie_left)?
                };
                match result {
                    Negotiated::Resume => {
                        if self.share_limited.insert(name.clone()) {
                            self.outcome.stats.submitters_share_limit.push(name);
                        }
                        if subs[i].report.stopped != Stopped::Ceiling {
                            subs[i].report.stopped = Stopped::ShareLimit;
                        }
                        k += 1;
                    }
                    Negotiated::Done => {
                        if matches!(subs[i].report.stopped, Stopped::NotReached | Stopped::ShareLimit) {
                            subs[i].report.stopped = Stopped::GotAll;
                        }
                        members.remove(k);
                    }
                }
            }
            let again = (pie_left < pie_left_before || members.len() < count_before)
                && !members.is_empty()
                && self.available > 0
                && !floor_round;
            if !again {
                break;
            }
        }
        Ok(())
    }

    /// A submitter as the pie sees it now.
    fn pie_submitter(&self, queue: &SubmitterQueue) -> pie::Submitter {
        let name = queue.name.as_str();
        pie::Submitter {
            name: queue.name.clone(),
            eup: self.accountant.effective_priority(name),
            factor: self.accountant.priority_factor(name),
            usage: self.accountant.weighted_resources_used(name),
            floor: self.accountant.floor(name) as f64,
            ceiling: self.accountant.ceiling(name),
            tie_break: queue.tie_break,
        }
    }

    /// The spin's pie (the sum of the limits) and each one's starvation.
    fn pie_left(&self, pie: &Pie, subs: &[pie::Submitter]) -> (f64, Vec<f64>) {
        if self.negotiator.settings.ignore_user_priorities {
            let (_, starvation) = pie.pie_left(subs);
            return (f64::MAX, starvation);
        }
        pie.pie_left(subs)
    }

    /// The idle jobs a submitter still offers.
    fn idle_jobs(&self, sub: &Sub<'_>) -> u64 {
        if self.negotiator.settings.resend_matched_jobs {
            return sub.queue.idle_jobs();
        }
        sub.queue.requests.iter().zip(&sub.matched).map(|(r, m)| u64::from(r.count.saturating_sub(*m))).sum()
    }

    /// Negotiates with one submitter (HTCondor's `negotiate`).
    fn negotiate(
        &mut self,
        subs: &mut [Sub<'_>],
        who: usize,
        mut budget: Budget,
        ceiling: i64,
        ignore_limit: bool,
        pie_left: &mut f64,
    ) -> Result<Negotiated, NegotiatorError> {
        let queue = subs[who].queue;
        let resend = self.negotiator.settings.resend_matched_jobs;
        let mut rejected_acs: FxHashSet<u32> = FxHashSet::default();
        let mut limited_by_submitter_limit = false;
        let mut only_for_startd_rank;
        // The requests in order, each as many times as it has jobs left
        // (HTCondor's getRequest, over the list the schedd sent this spin).
        let mut next = 0usize;
        let mut left: Option<u32> = None;
        loop {
            if budget.used >= budget.limit {
                if ignore_limit {
                    only_for_startd_rank = true;
                } else {
                    return Ok(Negotiated::Resume);
                }
            } else {
                only_for_startd_rank = false;
            }
            if budget.used >= ceiling as f64 {
                subs[who].report.stopped = Stopped::Ceiling;
                return Ok(Negotiated::Resume);
            }
            let request_index = loop {
                let Some(request) = queue.requests.get(next) else {
                    break None;
                };
                let remaining = *left.get_or_insert_with(|| {
                    if resend {
                        request.count
                    } else {
                        request.count.saturating_sub(subs[who].matched[next])
                    }
                });
                if remaining > 0 && !rejected_acs.contains(&request.autocluster) && self.request_passes(request) {
                    left = Some(remaining - 1);
                    break Some(next);
                }
                next += 1;
                left = None;
            };
            let Some(r) = request_index else {
                return Ok(if budget.used >= budget.limit || limited_by_submitter_limit {
                    Negotiated::Resume
                } else {
                    Negotiated::Done
                });
            };
            let request = &queue.requests[r];
            self.outcome.stats.jobs_considered += 1;
            let ad = Arc::new(self.request_ad(request, &queue.name));
            match self.find(&ad, request, who, budget, only_for_startd_rank) {
                Found::None(reason, diagnostics) => {
                    self.outcome.stats.rejections += 1;
                    subs[who].report.rejections += 1;
                    if diagnostics.submitter_limit > 0 {
                        limited_by_submitter_limit = true;
                        if self.share_limited.insert(queue.name.clone()) {
                            self.outcome.stats.submitters_share_limit.push(queue.name.clone());
                        }
                    }
                    self.outcome.rejections.push(Rejection {
                        submitter: queue.name.clone(),
                        job: request.job,
                        autocluster: request.autocluster,
                        reason,
                        spin: self.spin,
                    });
                    rejected_acs.insert(request.autocluster);
                    left = Some(0); // the request's other jobs are not offered again
                    if diagnostics.submitter_limit > 0
                        && !self.negotiator.settings.consider_preemption
                        && !self.negotiator.settings.use_slot_weights
                    {
                        return Ok(Negotiated::Resume);
                    }
                }
                Found::Slot(candidate) => {
                    let cost = self.take(&ad, request, &queue.name, candidate)?;
                    subs[who].matched[r] += 1;
                    subs[who].report.matches += 1;
                    if self.negotiator.settings.depth_first {
                        let skip = self.jobs_in_slot(&ad, candidate.slot).saturating_sub(1);
                        left = left.map(|l| l.saturating_sub(skip));
                    }
                    budget.used += cost;
                    // A partitionable slot taken with its dynamic slots
                    // runs "various_dSlot_users": not an unclaimed match.
                    if self.slots[candidate.slot].running.is_none()
                        && candidate.ranks.claim == ClaimKind::Unclaimed
                        && !self.pslot.as_ref().is_some_and(|p| p.enlarged.contains_key(&candidate.slot))
                    {
                        budget.used_unclaimed += cost;
                    }
                    *pie_left -= cost;
                    self.outcome.stats.matches += 1;
                }
            }
        }
    }

    /// Whether a request passes NEGOTIATOR_JOB_CONSTRAINT.
    fn request_passes(&self, request: &ResourceRequest) -> bool {
        self.negotiator.job_constraint.as_ref().is_none_or(|c| EvalContext::new(&self.opts).my(&request.ad).is_true(c))
    }

    /// The request's ad with what the negotiator tells policy expressions
    /// about its submitter: a small ad of those attributes, chained to the
    /// job's (which it overrides, as HTCondor's assignments do).
    fn request_ad(&self, request: &ResourceRequest, submitter: &str) -> ClassAd {
        let n = &self.names;
        let mut ad = ClassAd::with_capacity(8);
        let eup = self.accountant.effective_priority(submitter);
        match &self.groups {
            Some(g) => {
                ad.insert(n.submitter_negotiating_group, g.negotiating.as_str());
                ad.insert(n.submitter_autoregroup, g.autoregroup);
            }
            None => {
                ad.insert(n.submitter_negotiating_group, crate::groups::ROOT);
                ad.insert(n.submitter_autoregroup, false);
            }
        }
        ad.insert(n.submittor_prio, eup);
        ad.insert(n.submitter_user_prio, eup);
        ad.insert(n.submitter_user_resources_in_use, self.accountant.weighted_resources_used(submitter));
        let group = self.accountant.group_of(submitter);
        match self.groups.as_ref().and_then(|g| g.quotas.get(&group.to_lowercase())) {
            // With group quotas every submitter's group is told, `<none>` too.
            Some(&quota) => {
                ad.insert(n.submitter_group_resources_in_use, self.accountant.weighted_resources_used(group));
                ad.insert(n.submitter_group, group);
                ad.insert("SubmitterGroupQuota", quota);
            }
            None if group != crate::groups::ROOT => {
                ad.insert(n.submitter_group_resources_in_use, self.accountant.weighted_resources_used(group));
                ad.insert(n.submitter_group, group);
            }
            None => {}
        }
        ad.chain_to(Arc::clone(&request.ad));
        ad
    }

    /// How many of the request's jobs fit the partitionable slot just
    /// matched (NEGOTIATOR_DEPTH_FIRST).
    fn jobs_in_slot(&self, request: &ClassAd, slot: usize) -> u32 {
        let ad = self.offer(slot);
        let ctx = EvalContext::new(&self.opts).my(ad);
        let mut fit = u32::MAX;
        for (have, want) in [("Cpus", "RequestCpus"), ("Memory", "RequestMemory")] {
            let have = number(&ctx.eval_attr(have)).unwrap_or(0.0);
            let want = number(&EvalContext::new(&self.opts).my(request).eval_attr(want)).unwrap_or(0.0);
            if want > 0.0 {
                fit = fit.min((have / want).floor().max(0.0) as u32);
            }
        }
        if fit == u32::MAX {
            1
        } else {
            fit.saturating_add(1).max(1)
        }
    }

    /// What the request's range tests and rank read, for the ad `ad` it
    /// is matched as: learnt once per request ad, while the key names and
    /// the attributes written into `ad` stay the same.
    fn keyed(&mut self, request: &ResourceRequest, ad: &ClassAd) -> &mut Keyed {
        let key = memory::key(&request.ad);
        let entry = self.requests.entry(key).or_insert_with(|| RequestEntry {
            unseen: 0,
            ad: request.ad.clone(),
            compared: Vec::new(),
            keyed: Vec::new(),
        });
        let own = ad.len();
        let uniform = self.uniform_slot_rank;
        let at = match entry
            .keyed
            .iter()
            .position(|k| k.own == own && k.key_names == self.key_names && k.uniform_slot_rank == uniform)
        {
            Some(at) => at,
            None => {
                entry.keyed.retain(|k| k.key_names == self.key_names);
                entry.keyed.push(Keyed {
                    own,
                    key_names: self.key_names.clone(),
                    tests: RangeTests::parts(&self.opts, ad, &self.key_names),
                    rank: RangeRank::reads(&self.opts, ad, &self.key_names, uniform),
                    uniform_slot_rank: uniform,
                });
                entry.keyed.len() - 1
            }
        };
        &mut entry.keyed[at]
    }

    /// What taking a slot costs the submitter.
    fn cost(&self, request: &ClassAd, slot: usize) -> f64 {
        if let Some(enlarged) = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot)) {
            return match &self.slots[slot].current {
                Some(_) => consumption::cost(request, &enlarged.ad),
                None => enlarged.weight,
            };
        }
        match &self.slots[slot].current {
            Some(current) => consumption::cost(request, current),
            None => self.weights[slot],
        }
    }

    /// HTCondor's `SubmitterLimitPermits`: within the limit, or the
    /// one round-up a spin allows.
    fn permits(&self, request: &ClassAd, slot: usize, used: f64, allowed: f64) -> bool {
        let cost = self.cost(request, slot);
        used + cost <= allowed || (used <= 0.0 && allowed > 0.0)
    }

    /// Finds the best slot for a request (HTCondor's `matchmakingAlgorithm`).
    fn find(
        &mut self,
        ad: &Arc<ClassAd>,
        request: &ResourceRequest,
        who: usize,
        budget: Budget,
        only_for_startd_rank: bool,
    ) -> Found {
        // Limits the job names are checked before anything else.
        let mut limits_with_match = false;
        if let Some(expr) = ad.lookup(self.names.concurrency_limits) {
            match EvalContext::new(&self.opts).my(ad).eval(expr) {
                Value::Str(list) => {
                    if let Some(name) = self.limits.rejected(list.as_str()) {
                        // HTCondor names every limit it has refused since
                        // the last request that got past this check.
                        self.rejected_limits.insert(name);
                        return Found::None(
                            RejectReason::ConcurrencyLimit(self.rejected_limits.iter().cloned().collect()),
                            Diagnostics { concurrency: true, ..Diagnostics::default() },
                        );
                    }
                }
                _ => limits_with_match = true,
            }
        }
        self.rejected_limits.clear();

        let cached = self.match_list.as_ref().is_some_and(|list| {
            list.submitter == who
                && list.autocluster == request.autocluster
                && list.only_for_startd_rank == only_for_startd_rank
        });
        if cached {
            return self.pop_cached(ad, budget, limits_with_match);
        }
        self.match_list = None;
        self.outcome.stats.match_lists += 1;
        // The p-slots the last list enlarged are themselves again. Lists
        // are made whole (not range by range) where a p-slot may be tried
        // with its dynamic slots.
        let multi_match = match self.pslot.as_mut() {
            Some(p) => {
                p.enlarged.clear();
                p.multi_match && !p.pslots.is_empty()
            }
            None => false,
        };

        let mut list = MatchList {
            submitter: who,
            autocluster: request.autocluster,
            only_for_startd_rank,
            request: ad.clone(),
            budget,
            limits_with_match,
            entries: Vec::new(),
            sorted: 0,
            head: 0,
            next_range: self.ranges.len(),
            dependent: Vec::new(),
            next_dependent: 0,
            pre_independent: Vec::new(),
            post_independent: Vec::new(),
            group: Vec::new(),
            group_sorted: 0,
            group_head: 0,
            runs: Runs::default(),
            rank: None,
            tests: RangeTests::default(),
            prepared: self.pool.prepare(ad).into_owned(),
            diagnostics: Diagnostics::default(),
        };
        let lazy = self.negotiator.settings.matchlist_caching && !self.any_carved && !limits_with_match && !multi_match;
        if lazy {
            let keyed = self.keyed(request, ad);
            if !only_for_startd_rank {
                list.rank = keyed.rank.clone().map(RangeRank::of_reads);
            }
            // Candidates come group by group of equal pre-job rank, best
            // first, as the list is used. Ranges whose pre-job rank this job
            // changes join the group of their value for it, or, when their
            // slots may differ, are examined now.
            list.next_range = 0;
            let (tests, names) = keyed.tests.clone();
            list.tests = RangeTests::of_parts(tests, names);
            list.pre_independent = self.caches.pre_job.independence(ad);
            list.post_independent = self.caches.post_job.independence(ad);
            // What the caches learnt of the last request is not this one's.
            self.serial += 1;
            let serial = self.serial;
            let mut eager: Vec<Range<usize>> = Vec::new();
            // A uniform shape has one value for the job: computed once.
            let mut values: FxHashMap<u32, f64> = FxHashMap::default();
            for (r, range) in self.ranges.iter().enumerate() {
                if list.pre_independent.get(range.shape as usize).copied().unwrap_or(false)
                    || !list.could_hold(range)
                    || !list.tests.viable(&self.opts, ad, range, &self.ads[range.range.start])
                {
                    continue;
                }
                if self.caches.pre_job.uniform(range.shape) {
                    let first = range.range.start;
                    let value = *values
                        .entry(range.shape)
                        .or_insert_with(|| self.caches.pre_job.value(&self.opts, first, &self.ads[first], ad, serial));
                    list.dependent.push((value, r));
                } else {
                    eager.push(range.range.clone());
                }
            }
            list.dependent.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            self.examine(&mut list, &eager);
        } else {
            if only_for_startd_rank && !multi_match {
                // Only a slot running a job can be preempted for its rank
                // (or, with ALLOW_PSLOT_PREEMPTION, a partitionable slot
                // through its dynamic slots: then every range is looked at).
                let ranges: Vec<Range<usize>> =
                    self.ranges.iter().filter(|r| !r.idle).map(|r| r.range.clone()).collect();
                self.examine(&mut list, &ranges);
            } else {
                self.examine(&mut list, std::slice::from_ref(&(0..self.ads.len())));
            }
            let carved: Vec<usize> =
                (0..self.slots.len()).filter(|&i| self.slots[i].available && self.slots[i].current.is_some()).collect();
            let request = Arc::clone(&list.request);
            for slot in carved {
                if let Some(c) = self.candidate(&mut list, &request, JobRank::Evaluate, slot, true) {
                    list.entries.push(c);
                } else if multi_match && !self.carved_matches(&request, slot) {
                    // A p-slot with a consumption policy that has not what
                    // the job consumes: tried with its dynamic slots.
                    if let Some(c) = self.pslot_candidate(&mut list, &request, slot) {
                        list.entries.push(c);
                    }
                }
            }
            if multi_match {
                // The p-slots that did not match as they are, with their
                // dynamic slots' resources.
                let pslots = self.pslot.as_ref().map(|p| p.pslots.clone()).unwrap_or_default();
                for slot in pslots {
                    let s = &self.slots[slot];
                    if s.available && s.current.is_none() && self.found.binary_search(&slot).is_err() {
                        if let Some(c) = self.pslot_candidate(&mut list, &request, slot) {
                            list.entries.push(c);
                        }
                    }
                }
            }
        }

        if !self.negotiator.settings.matchlist_caching {
            // The first best in slot order.
            let best = list.entries.iter().copied().fold(None::<Candidate>, |best, c| match best {
                Some(b) if c.ranks.cmp_best(&b.ranks) != Ordering::Greater => Some(b),
                Some(b) if c.ranks.cmp_best(&b.ranks) == Ordering::Equal && c.order > b.order => Some(b),
                _ => Some(c),
            });
            return match best {
                Some(c) => Found::Slot(c),
                None => Found::None(reason(&list.diagnostics, &self.rejected_limits), list.diagnostics),
            };
        }
        let popped = self.next_candidate(&mut list);
        let diagnostics = list.diagnostics;
        self.match_list = Some(list);
        match popped {
            Some(c) => Found::Slot(c),
            None => Found::None(reason(&diagnostics, &self.rejected_limits), diagnostics),
        }
    }

    /// The static slots of `ranges` still available that match `request`
    /// both ways, in slot order (in a buffer to give back to `self.found`).
    fn matching(&mut self, prepared: &PreparedRequest<'_>, request: &ClassAd, ranges: &[Range<usize>]) -> Vec<usize> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let slots = &self.slots;
        let keep = |i: usize| slots[i].available && slots[i].current.is_none();
        #[cfg(feature = "parallel")]
        if ranges.iter().map(|r| r.len()).sum::<usize>() >= PARALLEL_FROM {
            found = self.pool.par_matching_in_ranges(prepared, request, ranges, keep);
            self.serial += 1;
            return found;
        }
        self.pool.matching_in_ranges(prepared, request, ranges, keep, &mut found);
        self.serial += 1;
        found
    }

    /// Examines the static slots of `range` for the list's request: those
    /// still available that match both ways become candidates.
    fn examine(&mut self, list: &mut MatchList, ranges: &[Range<usize>]) {
        let found = self.matching(&list.prepared, &list.request, ranges);
        // (Shared with the list, which the candidates are written into.)
        let request = Arc::clone(&list.request);
        let opts = self.opts.clone();
        let job_rank = request.lookup(self.names.rank).map(|e| classad::Prepared::new(&opts, &*request, e));
        for &slot in &found {
            let rank = job_rank.as_ref().map_or(JobRank::Evaluate, JobRank::Prepared);
            if let Some(c) = self.candidate(list, &request, rank, slot, false) {
                list.entries.push(c);
            }
        }
        drop(job_rank);
        self.found = found;
    }

    /// Whether slot `slot` (which matched the request, or, `carved`, is a
    /// partitionable slot to try) is a candidate for the list, and its
    /// ranks; counts the reasons it is not. Everything is judged as at the
    /// list's making: its request ad and budget.
    fn candidate(
        &mut self,
        list: &mut MatchList,
        ad: &ClassAd,
        job_rank: JobRank<'_, '_>,
        slot: usize,
        carved: bool,
    ) -> Option<Candidate> {
        let budget = list.budget;
        let consider_preemption = self.negotiator.settings.consider_preemption;
        let slot_ad = match (&self.slots[slot].current, carved) {
            (Some(current), true) => {
                let taken = consumption::of(ad, current);
                if !consumption::sufficient(current, &taken) {
                    return None;
                }
                let view = consumption::job_as_taking(ad, &taken);
                if !classad::matching::MatchAd::new(&self.opts, &view, current).symmetric_match() {
                    return None;
                }
                current
            }
            _ => &self.ads[slot],
        };
        let running = if !consider_preemption {
            None
        } else if carved {
            self.names.remote_user(slot_ad).map(Arc::from)
        } else {
            self.slots[slot].running.clone()
        };
        let on_slot = EvalContext::new(&self.opts).my(slot_ad).target(ad);
        let is_true = |e: &Expr| matches!(on_slot.eval(e), Value::Bool(true));
        let mut claim = ClaimKind::Unclaimed;
        if list.only_for_startd_rank {
            if running.is_none() || !is_true(&self.conditions.better) {
                return None;
            }
            claim = ClaimKind::RankPreemption;
        } else if let Some(user) = &running {
            if is_true(&self.conditions.better) {
                claim = ClaimKind::RankPreemption;
            } else if &**user != self.submitter_name(list.submitter) {
                claim = ClaimKind::PriorityPreemption;
                if let Some(req) = &self.negotiator.preemption_requirements {
                    if !is_true(req) {
                        list.diagnostics.preemption_policy += 1;
                        return None;
                    }
                }
                if !is_true(&self.conditions.not_worse) {
                    list.diagnostics.preemption_rank += 1;
                    return None;
                }
            } else {
                return None;
            }
        }
        match claim {
            ClaimKind::PriorityPreemption if !self.permits(ad, slot, budget.used, budget.limit) => {
                list.diagnostics.submitter_limit += 1;
                return None;
            }
            ClaimKind::Unclaimed if !self.permits(ad, slot, budget.used_unclaimed, budget.limit_unclaimed) => {
                list.diagnostics.submitter_limit += 1;
                return None;
            }
            _ => {}
        }
        if list.limits_with_match {
            if let Some(name) = self.limit_with_match(ad, slot_ad) {
                list.diagnostics.concurrency = true;
                self.rejected_limits.insert(name);
                return None;
            }
        }
        let ranks = if carved {
            self.ranks(ad, slot_ad, claim, candidates::job_rank(&self.opts, ad, slot_ad))
        } else {
            let serial = self.serial;
            if let JobRank::Range { pre, job, post } = job_rank {
                let preemption = self.preemption_rank(ad, slot_ad, claim);
                return Some(Candidate {
                    slot,
                    order: self.order[slot],
                    ranks: Ranks { pre_job: pre, job, post_job: post, claim, preemption },
                });
            }
            let rank = match job_rank {
                JobRank::Range { job, .. } => job,
                JobRank::Prepared(prepared) => prepared.rank(slot_ad),
                JobRank::Evaluate if ad.lookup(self.names.rank).is_some() => {
                    candidates::job_rank(&self.opts, ad, slot_ad)
                }
                JobRank::Evaluate => self.caches.slot_rank.value(&self.opts, slot, slot_ad, ad, serial),
            };
            Ranks {
                pre_job: self.caches.pre_job.value(&self.opts, slot, slot_ad, ad, serial),
                job: rank,
                post_job: self.caches.post_job.value(&self.opts, slot, slot_ad, ad, serial),
                claim,
                preemption: self.preemption_rank(ad, slot_ad, claim),
            }
        };
        Some(Candidate { slot, order: self.order[slot], ranks })
    }

    /// The next candidate of a list in its order (HTCondor's sorted match
    /// list), the next group of slots examined when it is needed.
    fn next_candidate(&mut self, list: &mut MatchList) -> Option<Candidate> {
        let grouped = self.group_head(list);
        list.sort_up_to(list.head + 1);
        let eager = list.entries.get(list.head).copied();
        match (eager, grouped) {
            (Some(e), Some(g)) if best_first(&g, &e) == Ordering::Less => {
                Self::group_advance(list);
                Some(g)
            }
            (Some(e), _) => {
                list.head += 1;
                Some(e)
            }
            (None, Some(g)) => {
                Self::group_advance(list);
                Some(g)
            }
            (None, None) => None,
        }
    }

    /// The best candidate of the list's current group, the next groups
    /// examined while it has none.
    fn group_head(&mut self, list: &mut MatchList) -> Option<Candidate> {
        loop {
            let head = if list.runs.active {
                if list.runs.pending.is_none() {
                    let request = Arc::clone(&list.request);
                    loop {
                        // A run that may hold the next slot is scanned first.
                        while let Some(run) = list.runs.next_to_scan() {
                            self.scan(&list.prepared, &request, list.runs.run_mut(run));
                            list.runs.requeue(run, &self.order);
                        }
                        let Some((slot, ranks, run)) = list.runs.pop() else {
                            break;
                        };
                        list.runs.requeue(run, &self.order);
                        let (pre, job, post) = ranks;
                        if let Some(c) = self.candidate(list, &request, JobRank::Range { pre, job, post }, slot, false)
                        {
                            list.runs.pending = Some(c);
                            break;
                        }
                    }
                }
                list.runs.pending
            } else {
                sort_prefix(&mut list.group, &mut list.group_sorted, list.group_head + 1);
                list.group.get(list.group_head).copied()
            };
            if head.is_some() || (list.next_range >= self.ranges.len() && list.next_dependent >= list.dependent.len()) {
                return head;
            }
            self.examine_group(list);
        }
    }

    /// Moves past the group's best candidate.
    fn group_advance(list: &mut MatchList) {
        if list.runs.active {
            list.runs.pending = None;
        } else {
            list.group_head += 1;
        }
    }

    /// Examines the next group: the ranges of equal pre-job rank this job
    /// cannot change. When every slot of it ranks the same for the job up
    /// to its range, its candidates are read range by range, ranked only
    /// as they are read; otherwise each is ranked now.
    fn examine_group(&mut self, list: &mut MatchList) {
        // The best value left among the cycle's ranges and the job's own.
        let fixed = self.ranges.get(list.next_range).map(|r| r.value);
        let own = list.dependent.get(list.next_dependent).map(|d| d.0);
        let Some(value) = (match (fixed, own) {
            (Some(a), Some(b)) => Some(if b.total_cmp(&a) == Ordering::Greater { b } else { a }),
            (a, b) => a.or(b),
        }) else {
            return;
        };
        let same = |v: f64| v == value || v.to_bits() == value.to_bits();
        let first = list.next_range;
        while list.next_range < self.ranges.len() && same(self.ranges[list.next_range].value) {
            list.next_range += 1;
        }
        let mut group: Vec<usize> = (first..list.next_range)
            .filter(|&r| {
                let range = &self.ranges[r];
                list.pre_independent.get(range.shape as usize).copied().unwrap_or(false)
                    && list.could_hold(range)
                    && list.tests.viable(&self.opts, &list.request, range, &self.ads[range.range.start])
            })
            .collect();
        while let Some(&(v, r)) = list.dependent.get(list.next_dependent) {
            if !same(v) {
                break;
            }
            group.push(r);
            list.next_dependent += 1;
        }
        list.group.clear();
        list.group_head = 0;
        list.group_sorted = 0;
        list.runs.clear();
        let by_range = list.rank.is_some()
            && group.iter().all(|&r| {
                let range = &self.ranges[r];
                range.idle
                    && !range.post_value.is_nan()
                    && list.post_independent.get(range.post as usize).copied().unwrap_or(false)
            });
        let ranges: Vec<Range<usize>> = group.iter().map(|&r| self.ranges[r].range.clone()).collect();
        if !by_range {
            return self.examine_ranked(list, &ranges);
        }
        let Some(rank) = list.rank.as_mut() else {
            return self.examine_ranked(list, &ranges);
        };
        let mut runs = Vec::with_capacity(group.len());
        for &r in &group {
            let range = &self.ranges[r];
            let job = rank.value(&self.opts, &list.request, range, &self.ads[range.range.start]);
            if job.is_nan() {
                // NaN ranks order as the sort makes them: rank them all.
                return self.examine_ranked(list, &ranges);
            }
            runs.push(Run {
                cursor: range.range.start,
                end: range.range.end,
                found: Vec::new(),
                next: 0,
                pre: value,
                job,
                post: range.post_value,
            });
        }
        self.serial += 1;
        list.runs.wait(runs, &self.order);
        list.runs.active = true;
    }

    /// Scans a run from its cursor for its next matching slots: a window
    /// at a time (wider each time one finds nothing), skipping the slots
    /// already taken, until one matches or the run ends.
    fn scan(&mut self, prepared: &PreparedRequest<'_>, request: &ClassAd, run: &mut Run) {
        run.found.clear();
        run.next = 0;
        let mut width = MIN_SCAN_WINDOW;
        while run.found.is_empty() && run.cursor < run.end {
            let start = self.next_free(run.cursor).min(run.end);
            let end = (start + width).min(run.end);
            let slots = &self.slots;
            let keep = |i: usize| slots[i].available && slots[i].current.is_none();
            self.pool.matching_in_ranges(prepared, request, std::slice::from_ref(&(start..end)), keep, &mut run.found);
            run.cursor = end;
            width = (width * 2).min(MAX_SCAN_WINDOW);
        }
    }

    /// The first slot from `index` on that has not been taken (or the
    /// number of slots).
    fn next_free(&mut self, mut index: usize) -> usize {
        while self.free[index] as usize != index {
            let next = self.free[index] as usize;
            self.free[index] = self.free[next];
            index = next;
        }
        index
    }

    /// Examines a group's ranges, ranking every candidate.
    fn examine_ranked(&mut self, list: &mut MatchList, ranges: &[Range<usize>]) {
        let kept = list.entries.len();
        self.examine(list, ranges);
        list.group = list.entries.split_off(kept);
        list.group_sorted = 0;
        list.group_head = 0;
    }

    /// The name of submitter `who`.
    fn submitter_name(&self, who: usize) -> &str {
        self.submitter_names.get(who).map_or("", String::as_str)
    }

    /// The next candidate of the kept list that the limits still allow.
    fn pop_cached(&mut self, ad: &ClassAd, budget: Budget, limits_with_match: bool) -> Found {
        let Some(mut list) = self.match_list.take() else {
            return Found::None(RejectReason::NoMatch, Diagnostics::default());
        };
        let mut chosen = None;
        while let Some(candidate) = self.next_candidate(&mut list) {
            let slot_ad = self.offer(candidate.slot);
            if limits_with_match {
                if let Some(name) = self.limit_with_match(ad, slot_ad) {
                    // Counted in HTCondor's global counter, which the
                    // list's own (from when it was built) then replaces.
                    self.rejected_limits.insert(name);
                    continue;
                }
            }
            let preempting = candidate.ranks.claim != ClaimKind::Unclaimed;
            if (preempting && self.permits(ad, candidate.slot, budget.used, budget.limit))
                || self.permits(ad, candidate.slot, budget.used_unclaimed, budget.limit_unclaimed)
            {
                chosen = Some(candidate);
                break;
            }
            list.diagnostics.submitter_limit += 1;
        }
        let diagnostics = list.diagnostics;
        self.match_list = Some(list);
        match chosen {
            Some(c) => Found::Slot(c),
            None => Found::None(reason(&diagnostics, &self.rejected_limits), diagnostics),
        }
    }

    /// Whether carved p-slot `slot` has what the request consumes and
    /// matches it (HTCondor's `cp_sufficient_assets` and `IsAMatch`).
    fn carved_matches(&self, request: &ClassAd, slot: usize) -> bool {
        let Some(current) = &self.slots[slot].current else {
            return false;
        };
        let taken = consumption::of(request, current);
        consumption::sufficient(current, &taken)
            && classad::matching::MatchAd::new(&self.opts, &consumption::job_as_taking(request, &taken), current)
                .symmetric_match()
    }

    /// The ad a slot is offered as: a p-slot enlarged by its dynamic slots
    /// (ALLOW_PSLOT_PREEMPTION), a carved p-slot as carved so far, or the
    /// slot's ad.
    fn offer(&self, slot: usize) -> &ClassAd {
        if let Some(enlarged) = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot)) {
            return &enlarged.ad;
        }
        self.slots[slot].current.as_ref().unwrap_or(&self.ads[slot])
    }

    /// Whether p-slot `slot`, which does not match the list's request as it
    /// is, does with the resources of some of its dynamic slots, and the
    /// candidate it then is (ALLOW_PSLOT_PREEMPTION; HTCondor's
    /// `pslotMultiMatch` and what `matchmakingAlgorithm` does after it).
    fn pslot_candidate(&mut self, list: &mut MatchList, ad: &ClassAd, slot: usize) -> Option<Candidate> {
        let budget = list.budget;
        let (enlarged, taken, claim) = {
            let State { pslot, ads, slots, opts, negotiator, submitter_names, .. } = self;
            let pslot = pslot.as_mut()?;
            let trial = Trial {
                opts,
                request: ad,
                submitter: submitter_names.get(list.submitter).map_or("", String::as_str),
                only_for_startd_rank: list.only_for_startd_rank,
                preemption_requirements: negotiator.preemption_requirements.as_ref(),
            };
            let base = slots[slot].current.as_ref().unwrap_or(&ads[slot]);
            pslot.try_slot(&trial, slot, base, ads, |i| slots[i].running.as_deref())?
        };
        // With a consumption policy the cost is what the job consumes of it
        // (see `cost`).
        let weight = self.accountant.slot_weight(&enlarged);
        let (children, users) = {
            let slots = &self.slots;
            self.pslot.as_ref()?.describe(&self.ads[slot], &taken, |i| slots[i].running.as_deref())
        };
        if let Some(p) = self.pslot.as_mut() {
            p.enlarged.insert(slot, Enlarged { ad: enlarged, children, users, weight });
        }
        // A rank preemption is not held to the submitter limit.
        if claim == ClaimKind::PriorityPreemption && !self.permits(ad, slot, budget.used, budget.limit) {
            list.diagnostics.submitter_limit += 1;
            return None;
        }
        if list.limits_with_match {
            if let Some(name) = self.limit_with_match(ad, self.offer(slot)) {
                list.diagnostics.concurrency = true;
                self.rejected_limits.insert(name);
                return None;
            }
        }
        let offer = self.offer(slot);
        let ranks = self.ranks(ad, offer, claim, candidates::job_rank(&self.opts, ad, offer));
        Some(Candidate { slot, order: self.order[slot], ranks })
    }

    /// The first concurrency limit a job's `ConcurrencyLimits`, evaluated
    /// against the slot, would exceed.
    fn limit_with_match(&self, ad: &ClassAd, slot: &ClassAd) -> Option<String> {
        match EvalContext::new(&self.opts).my(ad).target(slot).eval_attr(self.names.concurrency_limits) {
            Value::Str(list) => self.limits.rejected(list.as_str()),
            _ => None,
        }
    }

    /// PREEMPTION_RANK of a slot to be preempted (the lowest value for an
    /// unclaimed one).
    fn preemption_rank(&self, request: &ClassAd, slot: &ClassAd, claim: ClaimKind) -> f64 {
        if claim == ClaimKind::Unclaimed {
            return -f64::from(f32::MAX);
        }
        match &self.negotiator.ranks.preemption_rank {
            Some(e) => Conversion::Negotiator.apply(&EvalContext::new(&self.opts).my(slot).target(request).eval(e)),
            None => -f64::MAX,
        }
    }

    /// A candidate's ranks (HTCondor's `calculateRanks`).
    fn ranks(&self, request: &ClassAd, slot: &ClassAd, claim: ClaimKind, job_rank: f64) -> Ranks {
        self.negotiator.ranks.ranks_with(&self.opts, request, slot, claim, job_rank)
    }

    /// Gives the slot to the request (HTCondor's `matchmakingProtocol` and
    /// what `negotiate` does after it); returns the match's cost.
    fn take(
        &mut self,
        ad: &ClassAd,
        request: &ResourceRequest,
        submitter: &str,
        candidate: Candidate,
    ) -> Result<f64, NegotiatorError> {
        let slot = candidate.slot;
        // A p-slot enlarged by its dynamic slots (left in place until the
        // next list: NEGOTIATOR_DEPTH_FIRST reads what it offered, and one
        // with a consumption policy is carved as enlarged). Only the
        // candidate that preempts names them: one put back into the list
        // after a carving takes what is left of the enlarged slot.
        let enlarged = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot));
        let preempts = enlarged.filter(|_| candidate.ranks.claim != ClaimKind::Unclaimed);
        let preempted_dynamic_slots = preempts.map(|e| e.children.clone()).unwrap_or_default();
        let preempting = match (enlarged, &self.slots[slot].current) {
            (Some(_), _) => preempts.and_then(|e| (!e.users.is_empty()).then(|| e.users.join(", "))),
            (None, Some(current)) => self.names.remote_user(current),
            (None, None) => self.slots[slot].running.as_deref().map(String::from),
        };
        // The job's own attribute, evaluated against the slot (a job
        // without one names no limits).
        let limits = match ad
            .lookup(self.names.concurrency_limits)
            .map(|e| EvalContext::new(&self.opts).my(ad).target(self.offer(slot)).eval(e))
        {
            Some(Value::Str(list)) => Some(list.as_str().to_ascii_lowercase()),
            _ => None,
        };
        let cost;
        // What a consumption policy carves: the slot as carved so far, or,
        // enlarged by dynamic slots, the enlarged ad (HTCondor restores the
        // p-slot's resources when the list is dropped, so that carving is
        // undone then).
        let carved = match self.pslot.as_mut().and_then(|p| p.enlarged.get_mut(&slot)) {
            Some(e) if self.slots[slot].current.is_some() => Some(&mut e.ad),
            _ => self.slots[slot].current.as_mut(),
        };
        if let Some(current) = carved {
            let taken = consumption::of(ad, current);
            cost = consumption::deduct(current, &taken);
            let mut charged = current.clone();
            charged.insert(crate::accountant::CP_MATCH_COST, cost);
            if let Some(l) = &limits {
                charged.insert(self.names.matched_concurrency_limits, l.as_str());
            }
            self.accountant.add_match(submitter, &charged, self.now)?;
            // The carved slot goes back into the kept list if the request
            // still fits it.
            let still = {
                let current = self.offer(slot);
                let taken = consumption::of(ad, current);
                consumption::sufficient(current, &taken)
                    && classad::matching::MatchAd::new(&self.opts, &consumption::job_as_taking(ad, &taken), current)
                        .symmetric_match()
            };
            if still {
                let current = self.offer(slot).clone();
                let job_rank = candidates::job_rank(&self.opts, ad, &current);
                let ranks = self.ranks(ad, &current, ClaimKind::Unclaimed, job_rank);
                if let Some(list) = self.match_list.as_mut() {
                    list.reinsert(Candidate { slot, order: self.order[slot], ranks });
                }
            }
        } else {
            // A p-slot taken with its dynamic slots is charged as enlarged.
            let enlarged = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot));
            let offer: &ClassAd = enlarged.map_or(&self.ads[slot], |e| &e.ad);
            cost = enlarged.map_or(self.weights[slot], |e| e.weight);
            let resource = match &self.slots[slot].resource {
                known if !known.is_empty() => known.to_string(),
                _ => crate::accountant::resource_name(&self.ads[slot]),
            };
            match &limits {
                Some(l) => {
                    let mut charged = ClassAd::clone(offer);
                    charged.insert(self.names.matched_concurrency_limits, l.as_str());
                    self.accountant.add_match_named(submitter, &charged, resource, self.now)?;
                }
                None => self.accountant.add_match_named(submitter, offer, resource, self.now)?,
            }
            self.slots[slot].available = false;
            self.free[slot] = slot as u32 + 1;
            self.available -= 1;
        }
        if let Some(l) = &limits {
            self.limits.add(l);
        }
        self.outcome.matches.push(MatchRecord {
            submitter: submitter.to_string(),
            job: request.job,
            autocluster: request.autocluster,
            slot: self.slots[slot].name.to_string(),
            slot_index: self.order[slot] as usize,
            claim: candidate.ranks.claim,
            preempting,
            preempted_dynamic_slots,
            cost,
            spin: self.spin,
        });
        Ok(cost)
    }
}

/// The reason HTCondor gives for a request without a slot.
fn reason(d: &Diagnostics, rejected_limits: &BTreeSet<String>) -> RejectReason {
    if d.concurrency {
        RejectReason::ConcurrencyLimit(rejected_limits.iter().cloned().collect())
    } else if d.preemption_policy > 0 {
        RejectReason::PreemptionRequirements
    } else if d.submitter_limit > 0 {
        RejectReason::SubmitterLimit
    } else {
        RejectReason::NoMatch
    }
}

/// Frees the cycle's pool (its slot ads and their prepared forms): a
/// large one on another thread, so that the caller does not wait for it.
fn release(pool: Pool) {
    #[cfg(feature = "parallel")]
    if pool.len() >= PARALLEL_FROM {
        return parallel::drop_elsewhere(pool);
    }
    drop(pool);
}

/// `items` in `order` (item `i` of the result is `items[order[i]]`).
/// The cycle's slots without those no job can match: trimmed ones, and
/// those whose `Requirements` is the literal `false`; with where the others
/// were (`None` when none is left out). With ALLOW_PSLOT_PREEMPTION all
/// stay (a partitionable slot's preemption reads its dynamic slots).
#[allow(clippy::type_complexity)]
fn leave_out_unmatchable<A: SlotAd>(
    negotiator: &Negotiator,
    names: &Names,
    ads: Vec<A>,
    sides: Vec<Option<PreparedSlot>>,
    slots: Vec<Slot>,
    weights: Vec<f64>,
    numbers: Vec<[Option<KeyNumber>; 3]>,
) -> (Vec<A>, Vec<Option<PreparedSlot>>, Vec<Slot>, Vec<f64>, Vec<[Option<KeyNumber>; 3]>, Option<Vec<u32>>) {
    let unmatchable = |ad: &A, slot: &Slot| !slot.available || requirements_false(names, (*ad).borrow());
    if negotiator.settings.allow_pslot_preemption || !ads.iter().zip(&slots).any(|(a, s)| unmatchable(a, s)) {
        return (ads, sides, slots, weights, numbers, None);
    }
    let keep: Vec<bool> = ads.iter().zip(&slots).map(|(a, s)| !unmatchable(a, s)).collect();
    let kept: Vec<u32> = (0..keep.len() as u32).filter(|&i| keep[i as usize]).collect();
    fn filter<T>(items: Vec<T>, keep: &[bool]) -> Vec<T> {
        items.into_iter().zip(keep).filter(|(_, &k)| k).map(|(x, _)| x).collect()
    }
    (
        filter(ads, &keep),
        filter(sides, &keep),
        filter(slots, &keep),
        filter(weights, &keep),
        filter(numbers, &keep),
        Some(kept),
    )
}

/// Whether `slot` (`running` a job or not) is given the accountant's
/// figures of the cycle (`RemoteUserPrio` and the like) and its
/// `CurrentRank`: under preemption, a slot that can be preempted.
fn gets_figures(settings: &super::Settings, names: &Names, slot: &ClassAd, running: bool) -> bool {
    settings.consider_preemption
        && (running || slot.lookup(names.preempting_rank).is_some())
        && (settings.allow_pslot_preemption || !requirements_false(names, slot))
}

/// Whether a slot's `Requirements` is the literal `false`.
fn requirements_false(names: &Names, ad: &ClassAd) -> bool {
    matches!(ad.lookup(names.requirements).and_then(Expr::as_literal), Some(classad::Literal::Bool(false)))
}

fn reorder<T>(items: Vec<T>, order: &[u32]) -> Vec<T> {
    if order.len() == items.len() && order.iter().enumerate().all(|(at, &i)| at == i as usize) {
        return items;
    }
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(order.len());
    ordered.extend(order.iter().filter_map(|&i| items[i as usize].take()));
    ordered
}

/// Breaks ties HTCondor would leave to its submitters' ads' order by name.
fn stable_name_ties(
    ordered: &mut [usize],
    pie_subs: &[pie::Submitter],
    starvation: &[f64],
    order: &[usize],
    subs: &[Sub<'_>],
) {
    let key = |k: usize| (pie_subs[k].eup, starvation[k], pie_subs[k].tie_break);
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && key(order[end]) == key(order[start]) {
            end += 1;
        }
        ordered[start..end].sort_by(|&a, &b| subs[a].queue.name.cmp(&subs[b].queue.name));
        start = end;
    }
}
