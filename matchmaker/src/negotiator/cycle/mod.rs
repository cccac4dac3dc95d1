//! The cycle itself, phase by phase.
//!
//! The structure follows HTCondor's `Matchmaker::negotiationTime`,
//! `negotiateWithGroup`, `negotiate` and `matchmakingAlgorithm`, so that
//! the decisions are the same; names of HTCondor's variables are given
//! where it helps to compare. [`run`] calls the phases in turn:
//!
//! 1. [`fetch`]: the slots and submitters the collector would give, the
//!    slots trimmed, and what policy expressions read written into them;
//! 2. [`accounting`]: the accountant brought up to date, the pool's slot
//!    weight summed;
//! 3. [`prepare`]: the slots put in ranges and prepared for matching
//!    (taken up from, and handed back to, the [`memory`]);
//! 4. the negotiation: the pie's spins, group by group ([`pie_spins`],
//!    with group quotas [`group_phase`]); for each request, its match list
//!    ([`request_matching`], filled as it is read by [`examine`], p-slots
//!    tried with their dynamic slots by [`pslot_matching`]) and the slot it
//!    takes ([`taking`]).
//!
//! The negotiation's state, [`State`], is made of the parts each phase
//! owns: the cycle's [`Context`] (read by all), the prepared slots
//! ([`SlotTable`]), the request matching's ([`Matcher`]), the pie's
//! ([`Spins`]), ALLOW_PSLOT_PREEMPTION's, and the outcome being written.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use classad::{ClassAd, Clock, EvalOptions, Expr, Name, Semantics};
use rustc_hash::FxHashMap;

use super::memory::{self, Remembered, RequestEntry};
use super::pslot_preemption::PslotPreemption;
use super::ranges::{self, ShapeRange};
use super::rank_cache::{Conversion, RankCache};
use super::{CycleOutcome, CycleStats, Negotiator, NegotiatorError, Stopped, SubmitterReport};
use crate::accountant::Accountant;
use crate::autocluster::SubmitterQueue;
use crate::concurrency::ConcurrencyLimits;
use crate::matching::Pool;
use crate::parallel;

mod accounting;
mod examine;
mod fetch;
mod group_phase;
mod pie_spins;
mod prepare;
mod pslot_matching;
mod request_matching;
mod taking;

use fetch::CycleSlot;
pub(super) use fetch::SlotAd;
use pie_spins::{GroupRun, Spins, Sub};
use prepare::{Shaped, SlotColumns};
use request_matching::Matcher;

/// Pools at least this large are scanned on every core.
#[cfg(feature = "parallel")]
const PARALLEL_FROM: usize = 4096;

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

/// What every phase of the cycle reads and none changes.
struct Context<'a> {
    /// The negotiator: its knobs and policy expressions.
    negotiator: &'a Negotiator,
    /// The attribute names the cycle writes and reads.
    names: Names,
    /// How policy expressions are evaluated (at the cycle's time).
    opts: EvalOptions,
    /// `MY.Rank > MY.CurrentRank` and `MY.Rank >= MY.CurrentRank`.
    conditions: RankConditions,
    /// The cycle's time.
    now: i64,
}

impl Context<'_> {
    fn new(negotiator: &Negotiator, now: i64) -> Context<'_> {
        Context {
            negotiator,
            names: Names::new(),
            // Policy expressions see the cycle's time, never the clock.
            opts: EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(now)),
            conditions: RankConditions::new(),
            now,
        }
    }
}

/// The rank expressions, remembered per slot for the cycle.
struct Caches {
    pre_job: RankCache,
    post_job: RankCache,
    /// The slot's own `Rank` of the job (the job's rank of a slot when the
    /// job has no `Rank`).
    slot_rank: RankCache,
}

/// The slots the negotiation matches (as [`prepare`] left them, in the
/// cycle's order), and which are still available.
struct SlotTable<'p> {
    /// Their ads.
    ads: &'p [Arc<ClassAd>],
    /// Their ads and prepared sides.
    pool: &'p Pool,
    /// The cycle's own of each.
    entries: Vec<CycleSlot>,
    /// Their weights.
    weights: Vec<f64>,
    /// How many are still available.
    available: usize,
    /// The slots' ranges (see `ranges`), best pre-job rank first.
    ranges: Vec<ShapeRange>,
    /// The names the ranges are keyed by.
    key_names: Vec<Name>,
    /// Each slot's position in the cycle's input.
    order: Vec<u32>,
    /// Whether some slot is carved by a consumption policy.
    any_carved: bool,
    /// Skips over taken slots: following `free` from a slot leads to the
    /// first slot from it on that was not taken (see `next_free`).
    free: Vec<u32>,
    /// Every slot ranks every job the same (`ranges::uniform_slot_rank`).
    uniform_slot_rank: bool,
}

impl SlotTable<'_> {
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
}

/// The negotiation's state: the parts each phase owns.
struct State<'a, 'p> {
    /// What every phase reads.
    cx: Context<'a>,
    /// The accountant the matches are charged to.
    accountant: &'a mut Accountant,
    /// The slots and which are taken.
    slots: SlotTable<'p>,
    /// The request matching's.
    matcher: Matcher<'a>,
    /// ALLOW_PSLOT_PREEMPTION's state (`None` when the knob is off).
    pslot: Option<Box<PslotPreemption>>,
    /// The pie's.
    pie: Spins,
    /// What the cycle has decided so far.
    outcome: CycleOutcome,
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
    let cx = Context::new(negotiator, now);

    // Phase 1: the slots the collector would give (NEGOTIATOR_SLOT_CONSTRAINT).
    let mut ads = fetch::fetch(&cx, input_slots);

    // What the last cycle remembered (see `memory`).
    let mut memory = if remember {
        negotiator.memory.take(&memory::fingerprint(&negotiator.match_exprs))
    } else {
        Remembered::default()
    };
    let known = prepare::recall(&memory, &ads);
    let resources = accounting::resource_names(&ads, &known);

    // Phase 2: accounting (on another core, alongside the slots'
    // preparation, when nothing of that reads what it changes).
    let alongside = accounting::alongside(&cx, &ads, &known);
    if alongside.is_none() {
        accounting::account(accountant, now, &ads, &resources)?;
    }
    let weigher = accountant.weigher();
    let weight_basis = accountant.slot_weight_basis();
    // The accountant's figures, for slots that get them (under preemption).
    let figures: Option<&Accountant> = alongside.is_none().then_some(&*accountant);
    let mut stats = CycleStats { total_slots: ads.len(), ..CycleStats::default() };
    let (weights, ghosts) = accounting::weigh(&cx, &ads, &known, &weigher, memory.weight_basis == weight_basis);
    let (pool_weight, min_weight) = accounting::pool_weight(&cx, &ads, &weights, &ghosts);
    stats.slot_weight_total = pool_weight;
    stats.min_slot_weight = if min_weight == f64::MAX { 0.0 } else { min_weight };

    let mut limits = ConcurrencyLimits::new(negotiator.capacities.clone());
    limits.add_slots(&ads);

    // Trim, then give the slots what policy expressions read of them.
    let decorated = fetch::trim_and_decorate(&cx, &mut ads, &resources, &known, figures, remember);
    drop(known);
    // What the last cycle prepared, and what this one will remember.
    let prepare::TakenUp { sides, keys, numbers, slots, unseen } =
        prepare::take_up(&mut memory, &ads, decorated, &weights, &ghosts);
    // The entries of ads not seen again, dropped on another core (with
    // the accounting, when that is done alongside).
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
    let columns = SlotColumns { ads, sides, slots, weights, numbers };
    let shape = || prepare::shape(&cx, columns, queues, &mut memory, remember);
    let (accounted, shaped) = match &alongside {
        Some(slots) => parallel::join(
            || {
                let accounted = accounting::account(accountant, now, slots, &resources);
                drop(unseen);
                accounted
            },
            shape,
        ),
        None => (Ok(()), shape()),
    };
    accounted?;
    let Shaped { pool, slots, weights, placement, ranges, key_names, pre_job, post_job, mut requests } = shaped;
    let slots = Negotiable {
        pool: &pool,
        slots,
        weights,
        order: placement.order.clone(),
        ranges,
        key_names,
        any_carved,
        pre_job,
        post_job,
    };
    let figures = PoolFigures { stats, pool_weight, min_weight, limits };
    let outcome = negotiate_pool(cx, accountant, queues, slots, figures, &mut requests, phase2);
    if remember {
        prepare::hand_back(&mut memory, pool, requests, &placement, &keys);
        negotiator.memory.put(memory);
    } else {
        release(pool);
    }
    outcome
}

/// The prepared slots the negotiation matches, in the cycle's order.
struct Negotiable<'p> {
    pool: &'p Pool,
    slots: Vec<CycleSlot>,
    weights: Vec<f64>,
    /// Where each slot was in the input.
    order: Vec<u32>,
    ranges: Vec<ShapeRange>,
    key_names: Vec<Name>,
    /// Whether some slot is carved by a consumption policy.
    any_carved: bool,
    pre_job: RankCache,
    post_job: RankCache,
}

/// What the accounting found of the pool.
struct PoolFigures {
    /// The cycle's statistics so far.
    stats: CycleStats,
    /// The pie's size.
    pool_weight: f64,
    /// The smallest slot's weight.
    min_weight: f64,
    /// The concurrency limits' counts of the slots' jobs.
    limits: ConcurrencyLimits,
}

/// Phase 4 on the prepared slots: the pie spins (group by group with
/// group quotas), then each submitter's report.
fn negotiate_pool(
    cx: Context<'_>,
    accountant: &mut Accountant,
    queues: &[SubmitterQueue],
    input: Negotiable<'_>,
    figures: PoolFigures,
    requests: &mut FxHashMap<usize, RequestEntry>,
    phase2: Instant,
) -> Result<CycleOutcome, NegotiatorError> {
    let Negotiable { pool, mut slots, weights, order, ranges, key_names, any_carved, pre_job, post_job } = input;
    let PoolFigures { stats, pool_weight, min_weight, limits } = figures;
    let negotiator = cx.negotiator;
    let opts = &cx.opts;
    let now = cx.now;
    // (Counting the slots left out as unmatchable but not trimmed.)
    let available = stats.candidate_slots;
    // ALLOW_PSLOT_PREEMPTION: dynamic slots are reached through their
    // parent only (they still count as slots of the pool).
    let pslot = pslot_matching::roll_up(&cx, &mut slots, pool);
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
        Caches { pre_job, post_job, slot_rank: RankCache::new(opts, Some(&my_rank), Conversion::Rank, pool.len()) };
    // The submitters, with their figures as the cycle starts.
    let mut subs: Vec<Sub<'_>> = queues
        .iter()
        .filter(|q| fetch::submitter_allowed(negotiator, opts, q))
        .map(|q| {
            let name = q.name.as_str();
            Sub {
                queue: q,
                matched: vec![0; q.requests.len()],
                report: SubmitterReport {
                    name: q.name.clone(),
                    eup: accountant.effective_priority(name),
                    factor: accountant.priority_factor(name),
                    share: 0.0,
                    limit: 0.0,
                    usage_before: accountant.weighted_resources_used(name),
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
    let mut state = State {
        cx,
        accountant,
        slots: SlotTable {
            ads: pool.ads(),
            pool,
            entries: slots,
            weights,
            available,
            ranges,
            key_names,
            order,
            any_carved,
            free,
            uniform_slot_rank: ranges::uniform_slot_rank(pool.ads()),
        },
        matcher: Matcher {
            caches,
            serial: 0,
            match_list: None,
            found: Vec::new(),
            rejected_limits: BTreeSet::new(),
            requests,
            limits,
        },
        pslot,
        pie: Spins::default(),
        outcome: CycleOutcome {
            stats,
            // Room for as many matches as there can be (no copies as the
            // list grows).
            matches: Vec::with_capacity(
                (queues.iter().map(|q| q.idle_jobs()).sum::<u64>()).min(available as u64) as usize
            ),
            ..CycleOutcome::default()
        },
    };
    state.pie.submitter_names = subs.iter().map(|s| s.queue.name.clone()).collect();
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

/// Frees the cycle's pool (its slot ads and their prepared forms): a
/// large one on another thread, so that the caller does not wait for it.
fn release(pool: Pool) {
    #[cfg(feature = "parallel")]
    if pool.len() >= PARALLEL_FROM {
        return parallel::drop_elsewhere(pool);
    }
    drop(pool);
}
