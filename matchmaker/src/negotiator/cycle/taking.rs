//! Taking a slot (HTCondor's `matchmakingProtocol` and what `negotiate`
//! does after it): the accountant charged, a partitionable slot carved,
//! the slot taken out of the candidates and the match recorded.

use classad::{ClassAd, EvalContext, Value};

use super::State;
use crate::autocluster::ResourceRequest;
use crate::candidates::{self, ClaimKind};
use crate::consumption;
use crate::negotiator::match_list::Candidate;
use crate::negotiator::{MatchRecord, NegotiatorError};

impl State<'_, '_> {
    /// Gives the slot to the request (HTCondor's `matchmakingProtocol` and
    /// what `negotiate` does after it); returns the match's cost.
    pub(super) fn take(
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
        let preempting = match (enlarged, &self.slots.entries[slot].current) {
            (Some(_), _) => preempts.and_then(|e| (!e.users.is_empty()).then(|| e.users.join(", "))),
            (None, Some(current)) => self.cx.names.remote_user(current),
            (None, None) => self.slots.entries[slot].running.as_deref().map(String::from),
        };
        // The job's own attribute, evaluated against the slot (a job
        // without one names no limits).
        let limits = match ad
            .lookup(self.cx.names.concurrency_limits)
            .map(|e| EvalContext::new(&self.cx.opts).my(ad).target(self.offer(slot)).eval(e))
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
            Some(e) if self.slots.entries[slot].current.is_some() => Some(&mut e.ad),
            _ => self.slots.entries[slot].current.as_mut(),
        };
        if let Some(current) = carved {
            let taken = consumption::of(ad, current);
            cost = consumption::deduct(current, &taken);
            let mut charged = current.clone();
            charged.insert(crate::accountant::CP_MATCH_COST, cost);
            if let Some(l) = &limits {
                charged.insert(self.cx.names.matched_concurrency_limits, l.as_str());
            }
            self.accountant.add_match(submitter, &charged, self.cx.now)?;
            // The carved slot goes back into the kept list if the request
            // still fits it.
            let still = {
                let current = self.offer(slot);
                let taken = consumption::of(ad, current);
                consumption::sufficient(current, &taken)
                    && classad::matching::MatchAd::new(&self.cx.opts, &consumption::job_as_taking(ad, &taken), current)
                        .symmetric_match()
            };
            if still {
                let current = self.offer(slot).clone();
                let job_rank = candidates::job_rank(&self.cx.opts, ad, &current);
                let ranks = self.ranks(ad, &current, ClaimKind::Unclaimed, job_rank);
                if let Some(list) = self.matcher.match_list.as_mut() {
                    list.reinsert(Candidate { slot, order: self.slots.order[slot], ranks });
                }
            }
        } else {
            // A p-slot taken with its dynamic slots is charged as enlarged.
            let enlarged = self.pslot.as_ref().and_then(|p| p.enlarged.get(&slot));
            let offer: &ClassAd = enlarged.map_or(&self.slots.ads[slot], |e| &e.ad);
            cost = enlarged.map_or(self.slots.weights[slot], |e| e.weight);
            let resource = match &self.slots.entries[slot].resource {
                known if !known.is_empty() => known.to_string(),
                _ => crate::accountant::resource_name(&self.slots.ads[slot]),
            };
            match &limits {
                Some(l) => {
                    let mut charged = ClassAd::clone(offer);
                    charged.insert(self.cx.names.matched_concurrency_limits, l.as_str());
                    self.accountant.add_match_named(submitter, &charged, resource, self.cx.now)?;
                }
                None => self.accountant.add_match_named(submitter, offer, resource, self.cx.now)?,
            }
            self.slots.entries[slot].available = false;
            self.slots.free[slot] = slot as u32 + 1;
            self.slots.available -= 1;
        }
        if let Some(l) = &limits {
            self.matcher.limits.add(l);
        }
        self.outcome.matches.push(MatchRecord {
            submitter: submitter.to_string(),
            job: request.job,
            autocluster: request.autocluster,
            slot: self.slots.entries[slot].name.to_string(),
            slot_index: self.slots.order[slot] as usize,
            claim: candidate.ranks.claim,
            preempting,
            preempted_dynamic_slots,
            cost,
            spin: self.pie.spin,
        });
        Ok(cost)
    }
}
