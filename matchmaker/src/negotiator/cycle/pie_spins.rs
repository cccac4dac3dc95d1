//! The pie: each group's spins, and negotiating with one submitter
//! (HTCondor's `negotiateWithGroup` and `negotiate`).
//!
//! A spin shares what is left of the pool among the submitters by the
//! inverse of their effective priority ([`crate::pie`]); each submitter in
//! priority order then negotiates its requests up to its limit, one
//! request at a time (`State::find`, `State::take`). Spins go on while one
//! hands out something and slots are left.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::request_matching::Found;
use super::State;

use crate::autocluster::SubmitterQueue;
use crate::candidates::ClaimKind;
use crate::negotiator::match_list::Budget;
use crate::negotiator::{NegotiatorError, Rejection, Stopped, SubmitterReport};
use crate::pie::{self, GroupLimit, Pie};

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
    pub(super) fn pool() -> GroupRun<'static> {
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

/// The pie phase's part of the cycle's state.
#[derive(Default)]
pub(super) struct Spins {
    /// The spin negotiating (0 in a floor round), as matches and
    /// rejections report it.
    pub(super) spin: u32,
    /// The submitters a limit stopped (for `submitters_share_limit`).
    pub(super) share_limited: FxHashSet<String>,
    /// Every submitter's name, by index.
    pub(super) submitter_names: Vec<String>,
    /// With group quotas: the group negotiating and the quotas.
    pub(super) groups: Option<GroupContext>,
}

/// What `negotiate` returns (HTCondor's `MM_RESUME` and `MM_DONE`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Negotiated {
    Resume,
    Done,
}

/// A submitter during the cycle.
pub(super) struct Sub<'q> {
    pub(super) queue: &'q SubmitterQueue,
    /// Jobs matched this cycle, per request.
    pub(super) matched: Vec<u32>,
    pub(super) report: SubmitterReport,
    pub(super) active: bool,
}

impl State<'_, '_> {
    /// Those of `members` with a floor above their usage (HTCondor's
    /// `findBelowFloorSubmitters`).
    pub(super) fn below_floor(&self, subs: &[Sub<'_>], members: &[usize]) -> Vec<usize> {
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
    pub(super) fn negotiate_with_group(
        &mut self,
        subs: &mut [Sub<'_>],
        members: &mut Vec<usize>,
        floor_round: bool,
        pool_weight: f64,
        min_weight: f64,
        group: &GroupRun<'_>,
    ) -> Result<(), NegotiatorError> {
        let settings = self.cx.negotiator.settings.clone();
        self.outcome.stats.pies += 1;
        let mut spin = 0u32;
        loop {
            spin += 1;
            self.pie.spin = if floor_round { 0 } else { spin };
            self.outcome.stats.pie_spins += 1;
            let ignore_limit = spin == 1 && settings.consider_preemption;
            let group_usage = group.name.map_or(0.0, |g| self.accountant.weighted_resources_used(g));
            if !ignore_limit && group.name.is_some() && group_usage >= group.quota {
                // The group has its quota.
                break;
            }
            self.matcher.match_list = None;
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
                    self.matcher.rejected_limits.clear();
                    let budget = Budget { used: 0.0, used_unclaimed: 0.0, limit, limit_unclaimed: l.limit_unclaimed };
                    self.negotiate(subs, i, budget, ceiling, ignore_limit, &mut pie_left)?
                };
                match result {
                    Negotiated::Resume => {
                        if self.pie.share_limited.insert(name.clone()) {
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
                && self.slots.available > 0
                && !floor_round;
            if !again {
                break;
            }
        }
        Ok(())
    }

    /// A submitter as the pie sees it now.
    pub(super) fn pie_submitter(&self, queue: &SubmitterQueue) -> pie::Submitter {
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
    pub(super) fn pie_left(&self, pie: &Pie, subs: &[pie::Submitter]) -> (f64, Vec<f64>) {
        if self.cx.negotiator.settings.ignore_user_priorities {
            let (_, starvation) = pie.pie_left(subs);
            return (f64::MAX, starvation);
        }
        pie.pie_left(subs)
    }

    /// The idle jobs a submitter still offers.
    pub(super) fn idle_jobs(&self, sub: &Sub<'_>) -> u64 {
        if self.cx.negotiator.settings.resend_matched_jobs {
            return sub.queue.idle_jobs();
        }
        sub.queue.requests.iter().zip(&sub.matched).map(|(r, m)| u64::from(r.count.saturating_sub(*m))).sum()
    }

    /// Negotiates with one submitter (HTCondor's `negotiate`).
    pub(super) fn negotiate(
        &mut self,
        subs: &mut [Sub<'_>],
        who: usize,
        mut budget: Budget,
        ceiling: i64,
        ignore_limit: bool,
        pie_left: &mut f64,
    ) -> Result<Negotiated, NegotiatorError> {
        let queue = subs[who].queue;
        let resend = self.cx.negotiator.settings.resend_matched_jobs;
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
                        if self.pie.share_limited.insert(queue.name.clone()) {
                            self.outcome.stats.submitters_share_limit.push(queue.name.clone());
                        }
                    }
                    self.outcome.rejections.push(Rejection {
                        submitter: queue.name.clone(),
                        job: request.job,
                        autocluster: request.autocluster,
                        reason,
                        spin: self.pie.spin,
                    });
                    rejected_acs.insert(request.autocluster);
                    left = Some(0); // the request's other jobs are not offered again
                    if diagnostics.submitter_limit > 0
                        && !self.cx.negotiator.settings.consider_preemption
                        && !self.cx.negotiator.settings.use_slot_weights
                    {
                        return Ok(Negotiated::Resume);
                    }
                }
                Found::Slot(candidate) => {
                    // A match the schedd will reject (claim id "null")
                    // leaves its job idle, to be offered again next spin.
                    let declined = self.slots.entries[candidate.slot].declines_matches;
                    let cost = self.take(&ad, request, &queue.name, candidate)?;
                    if !declined {
                        subs[who].matched[r] += 1;
                    }
                    subs[who].report.matches += 1;
                    if self.cx.negotiator.settings.depth_first {
                        let skip = self.jobs_in_slot(&ad, candidate.slot).saturating_sub(1);
                        left = left.map(|l| l.saturating_sub(skip));
                    }
                    budget.used += cost;
                    // A partitionable slot taken with its dynamic slots
                    // runs "various_dSlot_users": not an unclaimed match.
                    if self.slots.entries[candidate.slot].running.is_none()
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
