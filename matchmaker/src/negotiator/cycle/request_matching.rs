//! Matching one request (HTCondor's `matchmakingAlgorithm`): its
//! concurrency limits checked, its match list made (or the kept one read
//! on), and the best candidate the submitter's limit allows chosen.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use classad::{ClassAd, EvalContext, Value};
use rustc_hash::FxHashMap;

use super::examine::JobRank;
use super::{Caches, State};
use crate::autocluster::ResourceRequest;
use crate::candidates::{number, ClaimKind, Ranks};
use crate::concurrency::ConcurrencyLimits;
use crate::consumption;
use crate::negotiator::match_list::{Budget, Candidate, Diagnostics, MatchList, Runs};
use crate::negotiator::memory::{self, Keyed, RequestEntry};
use crate::negotiator::ranges::{RangeRank, RangeTests};
use crate::negotiator::rank_cache::Conversion;
use crate::negotiator::RejectReason;

/// The request matching's part of the cycle's state.
pub(super) struct Matcher<'a> {
    /// The rank expressions, remembered per slot for the cycle.
    pub(super) caches: Caches,
    /// Numbers the requests a list is built for (for `caches`).
    pub(super) serial: u64,
    /// The kept list of the last request (NEGOTIATOR_MATCHLIST_CACHING).
    pub(super) match_list: Option<MatchList>,
    /// A buffer for the slots a scan finds.
    pub(super) found: Vec<usize>,
    /// The concurrency limits refused (HTCondor's
    /// `rejectedConcurrencyLimits`), named in rejections.
    pub(super) rejected_limits: BTreeSet<String>,
    /// What was learnt of the requests' ads, by their keys.
    pub(super) requests: &'a mut FxHashMap<usize, RequestEntry>,
    /// The concurrency limits' counts.
    pub(super) limits: ConcurrencyLimits,
}

/// How a request ended.
pub(super) enum Found {
    Slot(Candidate),
    None(RejectReason, Diagnostics),
}

impl State<'_, '_> {
    /// Whether a request passes NEGOTIATOR_JOB_CONSTRAINT.
    pub(super) fn request_passes(&self, request: &ResourceRequest) -> bool {
        self.cx
            .negotiator
            .job_constraint
            .as_ref()
            .is_none_or(|c| EvalContext::new(&self.cx.opts).my(&request.ad).is_true(c))
    }

    /// The request's ad with what the negotiator tells policy expressions
    /// about its submitter: a small ad of those attributes, chained to the
    /// job's (which it overrides, as HTCondor's assignments do).
    pub(super) fn request_ad(&self, request: &ResourceRequest, submitter: &str) -> ClassAd {
        let n = &self.cx.names;
        let mut ad = ClassAd::with_capacity(8);
        let eup = self.accountant.effective_priority(submitter);
        match &self.pie.groups {
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
        match self.pie.groups.as_ref().and_then(|g| g.quotas.get(&group.to_lowercase())) {
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
    pub(super) fn jobs_in_slot(&self, request: &ClassAd, slot: usize) -> u32 {
        let ad = self.offer(slot);
        let ctx = EvalContext::new(&self.cx.opts).my(ad);
        let mut fit = u32::MAX;
        for (have, want) in [("Cpus", "RequestCpus"), ("Memory", "RequestMemory")] {
            let have = number(&ctx.eval_attr(have)).unwrap_or(0.0);
            let want = number(&EvalContext::new(&self.cx.opts).my(request).eval_attr(want)).unwrap_or(0.0);
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
    pub(super) fn keyed(&mut self, request: &ResourceRequest, ad: &ClassAd) -> &mut Keyed {
        let key = memory::key(&request.ad);
        let entry = self.matcher.requests.entry(key).or_insert_with(|| RequestEntry {
            unseen: 0,
            ad: request.ad.clone(),
            compared: Vec::new(),
            keyed: Vec::new(),
        });
        let own = ad.len();
        let uniform = self.slots.uniform_slot_rank;
        let at = match entry
            .keyed
            .iter()
            .position(|k| k.own == own && k.key_names == self.slots.key_names && k.uniform_slot_rank == uniform)
        {
            Some(at) => at,
            None => {
                entry.keyed.retain(|k| k.key_names == self.slots.key_names);
                entry.keyed.push(Keyed {
                    own,
                    key_names: self.slots.key_names.clone(),
                    tests: RangeTests::parts(&self.cx.opts, ad, &self.slots.key_names),
                    rank: RangeRank::reads(&self.cx.opts, ad, &self.slots.key_names, uniform),
                    uniform_slot_rank: uniform,
                });
                entry.keyed.len() - 1
            }
        };
        &mut entry.keyed[at]
    }

    /// What taking a slot costs the submitter.
    pub(super) fn cost(&self, request: &ClassAd, slot: usize) -> f64 {
        if let Some(enlarged) = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot)) {
            return match &self.slots.entries[slot].current {
                Some(_) => consumption::cost(request, &enlarged.ad),
                None => enlarged.weight,
            };
        }
        match &self.slots.entries[slot].current {
            Some(current) => consumption::cost(request, current),
            None => self.slots.weights[slot],
        }
    }

    /// HTCondor's `SubmitterLimitPermits`: within the limit, or the
    /// one round-up a spin allows.
    pub(super) fn permits(&self, request: &ClassAd, slot: usize, used: f64, allowed: f64) -> bool {
        let cost = self.cost(request, slot);
        used + cost <= allowed || (used <= 0.0 && allowed > 0.0)
    }

    /// Finds the best slot for a request (HTCondor's `matchmakingAlgorithm`).
    pub(super) fn find(
        &mut self,
        ad: &Arc<ClassAd>,
        request: &ResourceRequest,
        who: usize,
        budget: Budget,
        only_for_startd_rank: bool,
    ) -> Found {
        // Limits the job names are checked before anything else.
        let mut limits_with_match = false;
        if let Some(expr) = ad.lookup(self.cx.names.concurrency_limits) {
            match EvalContext::new(&self.cx.opts).my(ad).eval(expr) {
                Value::Str(list) => {
                    if let Some(name) = self.matcher.limits.rejected(list.as_str()) {
                        // HTCondor names every limit it has refused since
                        // the last request that got past this check.
                        self.matcher.rejected_limits.insert(name);
                        return Found::None(
                            RejectReason::ConcurrencyLimit(self.matcher.rejected_limits.iter().cloned().collect()),
                            Diagnostics { concurrency: true, ..Diagnostics::default() },
                        );
                    }
                }
                _ => limits_with_match = true,
            }
        }
        self.matcher.rejected_limits.clear();

        let cached = self.matcher.match_list.as_ref().is_some_and(|list| {
            list.submitter == who
                && list.autocluster == request.autocluster
                && list.only_for_startd_rank == only_for_startd_rank
        });
        if cached {
            return self.pop_cached(ad, budget, limits_with_match);
        }
        self.matcher.match_list = None;
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
            next_range: self.slots.ranges.len(),
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
            prepared: self.slots.pool.prepare(ad).into_owned(),
            diagnostics: Diagnostics::default(),
        };
        let lazy = self.cx.negotiator.settings.matchlist_caching
            && !self.slots.any_carved
            && !limits_with_match
            && !multi_match;
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
            list.pre_independent = self.matcher.caches.pre_job.independence(ad);
            list.post_independent = self.matcher.caches.post_job.independence(ad);
            // What the caches learnt of the last request is not this one's.
            self.matcher.serial += 1;
            let serial = self.matcher.serial;
            let mut eager: Vec<Range<usize>> = Vec::new();
            // A uniform shape has one value for the job: computed once.
            let mut values: FxHashMap<u32, f64> = FxHashMap::default();
            for (r, range) in self.slots.ranges.iter().enumerate() {
                if list.pre_independent.get(range.shape as usize).copied().unwrap_or(false)
                    || !list.could_hold(range)
                    || !list.tests.viable(&self.cx.opts, ad, range, &self.slots.ads[range.range.start])
                {
                    continue;
                }
                if self.matcher.caches.pre_job.uniform(range.shape) {
                    let first = range.range.start;
                    let value = *values.entry(range.shape).or_insert_with(|| {
                        self.matcher.caches.pre_job.value(&self.cx.opts, first, &self.slots.ads[first], ad, serial)
                    });
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
                    self.slots.ranges.iter().filter(|r| !r.idle).map(|r| r.range.clone()).collect();
                self.examine(&mut list, &ranges);
            } else {
                self.examine(&mut list, std::slice::from_ref(&(0..self.slots.ads.len())));
            }
            let carved: Vec<usize> = (0..self.slots.entries.len())
                .filter(|&i| self.slots.entries[i].available && self.slots.entries[i].current.is_some())
                .collect();
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
                    let s = &self.slots.entries[slot];
                    if s.available && s.current.is_none() && self.matcher.found.binary_search(&slot).is_err() {
                        if let Some(c) = self.pslot_candidate(&mut list, &request, slot) {
                            list.entries.push(c);
                        }
                    }
                }
            }
        }

        if !self.cx.negotiator.settings.matchlist_caching {
            // The first best in slot order.
            let best = list.entries.iter().copied().fold(None::<Candidate>, |best, c| match best {
                Some(b) if c.ranks.cmp_best(&b.ranks) != Ordering::Greater => Some(b),
                Some(b) if c.ranks.cmp_best(&b.ranks) == Ordering::Equal && c.order > b.order => Some(b),
                _ => Some(c),
            });
            return match best {
                Some(c) => Found::Slot(c),
                None => Found::None(reason(&list.diagnostics, &self.matcher.rejected_limits), list.diagnostics),
            };
        }
        let popped = self.next_candidate(&mut list);
        let diagnostics = list.diagnostics;
        self.matcher.match_list = Some(list);
        match popped {
            Some(c) => Found::Slot(c),
            None => Found::None(reason(&diagnostics, &self.matcher.rejected_limits), diagnostics),
        }
    }

    /// The name of submitter `who`.
    pub(super) fn submitter_name(&self, who: usize) -> &str {
        self.pie.submitter_names.get(who).map_or("", String::as_str)
    }

    /// The next candidate of the kept list that the limits still allow.
    pub(super) fn pop_cached(&mut self, ad: &ClassAd, budget: Budget, limits_with_match: bool) -> Found {
        let Some(mut list) = self.matcher.match_list.take() else {
            return Found::None(RejectReason::NoMatch, Diagnostics::default());
        };
        let mut chosen = None;
        while let Some(candidate) = self.next_candidate(&mut list) {
            let slot_ad = self.offer(candidate.slot);
            if limits_with_match {
                if let Some(name) = self.limit_with_match(ad, slot_ad) {
                    // Counted in HTCondor's global counter, which the
                    // list's own (from when it was built) then replaces.
                    self.matcher.rejected_limits.insert(name);
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
        self.matcher.match_list = Some(list);
        match chosen {
            Some(c) => Found::Slot(c),
            None => Found::None(reason(&diagnostics, &self.matcher.rejected_limits), diagnostics),
        }
    }

    /// Whether carved p-slot `slot` has what the request consumes and
    /// matches it (HTCondor's `cp_sufficient_assets` and `IsAMatch`).
    pub(super) fn carved_matches(&self, request: &ClassAd, slot: usize) -> bool {
        let Some(current) = &self.slots.entries[slot].current else {
            return false;
        };
        let taken = consumption::of(request, current);
        consumption::sufficient(current, &taken)
            && classad::matching::MatchAd::new(&self.cx.opts, &consumption::job_as_taking(request, &taken), current)
                .symmetric_match()
    }

    /// The ad a slot is offered as: a p-slot enlarged by its dynamic slots
    /// (ALLOW_PSLOT_PREEMPTION), a carved p-slot as carved so far, or the
    /// slot's ad.
    pub(super) fn offer(&self, slot: usize) -> &ClassAd {
        if let Some(enlarged) = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot)) {
            return &enlarged.ad;
        }
        self.slots.entries[slot].current.as_ref().unwrap_or(&self.slots.ads[slot])
    }

    /// The first concurrency limit a job's `ConcurrencyLimits`, evaluated
    /// against the slot, would exceed.
    pub(super) fn limit_with_match(&self, ad: &ClassAd, slot: &ClassAd) -> Option<String> {
        match EvalContext::new(&self.cx.opts).my(ad).target(slot).eval_attr(self.cx.names.concurrency_limits) {
            Value::Str(list) => self.matcher.limits.rejected(list.as_str()),
            _ => None,
        }
    }

    /// PREEMPTION_RANK of a slot to be preempted (the lowest value for an
    /// unclaimed one).
    pub(super) fn preemption_rank(&self, request: &ClassAd, slot: &ClassAd, claim: ClaimKind) -> f64 {
        if claim == ClaimKind::Unclaimed {
            return -f64::from(f32::MAX);
        }
        match &self.cx.negotiator.ranks.preemption_rank {
            Some(e) => Conversion::Negotiator.apply(&EvalContext::new(&self.cx.opts).my(slot).target(request).eval(e)),
            None => -f64::MAX,
        }
    }

    /// A candidate's ranks (HTCondor's `calculateRanks`).
    pub(super) fn ranks(&self, request: &ClassAd, slot: &ClassAd, claim: ClaimKind, job_rank: f64) -> Ranks {
        self.cx.negotiator.ranks.ranks_with(&self.cx.opts, request, slot, claim, job_rank)
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
