//! ALLOW_PSLOT_PREEMPTION in the cycle (see [`pslot_preemption`] for what
//! the knob does): dynamic slots taken out of the candidates (they are
//! reached through their partitionable slot), and a p-slot that does not
//! match a request as it is tried with the resources of its dynamic slots.

use classad::ClassAd;

use super::{CycleSlot, State};
use crate::candidates::{self, ClaimKind};
use crate::matching::Pool;
use crate::negotiator::match_list::{Candidate, MatchList};
use crate::negotiator::pslot_preemption::{self, Enlarged, PslotPreemption, Trial};

/// With ALLOW_PSLOT_PREEMPTION, the knob's state for the cycle, the
/// dynamic slots of `pool` made unavailable (they still count as slots of
/// the pool); `None` without the knob.
pub(super) fn roll_up(cx: &super::Context<'_>, slots: &mut [CycleSlot], pool: &Pool) -> Option<Box<PslotPreemption>> {
    let (negotiator, opts) = (cx.negotiator, &cx.opts);
    negotiator.settings.allow_pslot_preemption.then(|| {
        for (slot, ad) in slots.iter_mut().zip(pool.ads()) {
            if pslot_preemption::is_rolled_up_dynamic_slot(opts, ad) {
                slot.available = false;
            }
        }
        Box::new(PslotPreemption::new(opts, pool.ads(), negotiator.settings.consider_preemption))
    })
}

impl State<'_, '_> {
    /// Whether p-slot `slot`, which does not match the list's request as it
    /// is, does with the resources of some of its dynamic slots, and the
    /// candidate it then is (ALLOW_PSLOT_PREEMPTION; HTCondor's
    /// `pslotMultiMatch` and what `matchmakingAlgorithm` does after it).
    pub(super) fn pslot_candidate(&mut self, list: &mut MatchList, ad: &ClassAd, slot: usize) -> Option<Candidate> {
        let budget = list.budget;
        let (enlarged, taken, claim) = {
            let State { pslot, slots, cx, pie, .. } = self;
            let pslot = pslot.as_mut()?;
            let trial = Trial {
                opts: &cx.opts,
                request: ad,
                submitter: pie.submitter_names.get(list.submitter).map_or("", String::as_str),
                only_for_startd_rank: list.only_for_startd_rank,
                preemption_requirements: cx.negotiator.preemption_requirements.as_ref(),
            };
            let entries = &slots.entries;
            let base = entries[slot].current.as_ref().unwrap_or(&slots.ads[slot]);
            pslot.try_slot(&trial, slot, base, slots.ads, |i| entries[i].running.as_deref())?
        };
        // With a consumption policy the cost is what the job consumes of it
        // (see `cost`).
        let weight = self.accountant.slot_weight(&enlarged);
        let (children, users) = {
            let slots = &self.slots.entries;
            self.pslot.as_ref()?.describe(&self.slots.ads[slot], &taken, |i| slots[i].running.as_deref())
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
                self.matcher.rejected_limits.insert(name);
                return None;
            }
        }
        let offer = self.offer(slot);
        let ranks = self.ranks(ad, offer, claim, candidates::job_rank(&self.cx.opts, ad, offer));
        Some(Candidate { slot, order: self.slots.order[slot], ranks })
    }
}
