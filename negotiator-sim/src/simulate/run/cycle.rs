//! The negotiation cycle each interval: the slot ads the negotiator is
//! given (free slots, claimed slots it could preempt, one stand-in ad per
//! submitter for the rest), each submitter's resource requests, the
//! matches taken on the schedd's side, and the rows recorded after.

use std::collections::BTreeMap;
use std::sync::Arc;

use classad::ClassAd;
use matchmaker::autocluster::{JobId, ResourceRequest, SubmitterQueue};
use matchmaker::candidates::ClaimKind;
use matchmaker::negotiator::RejectReason;

use super::{Placeholder, Simulation, State, RECENT_PLACEHOLDERS};
use crate::simulate::execute::Execute;
use crate::simulate::pool::{placeholder, SlotKind};
use crate::simulate::results::CycleRow;
use crate::simulate::SimError;

impl Simulation {
    pub(super) fn idle_jobs(&self) -> u64 {
        self.submitters.iter().map(|s| u64::from(s.idle)).sum()
    }

    /// One negotiation cycle at `now`.
    pub(super) fn on_cycle(&mut self, now: i64) -> Result<bool, SimError> {
        self.release_given_back(now);
        self.cycles += 1;
        let epoch_now = self.epoch0 + now;
        let mut row = CycleRow::default();
        self.pool.sync();
        if self.execute.as_ref().is_some_and(Execute::has_owners) {
            // Owners come and go: a slot refused now may be willing later.
            self.quiet_since_futile_cycle = false;
        }
        let has_idle = self.idle_jobs() > 0;
        let preemptible = self.priority_preemption || self.pool.any_rank_varies;
        let full = has_idle && (self.pool.has_free() || preemptible) && !self.quiet_since_futile_cycle;
        if full {
            self.full_cycles += 1;
            let mut ads = Vec::new();
            let mut index = Vec::new();
            let mut folded: Vec<f64> = self.submitters.iter().map(|s| s.weight).collect();
            if !self.aggregate || preemptible {
                self.pool.ensure_ads();
                for i in 0..self.pool.slots.len() {
                    let s = &self.pool.slots[i];
                    if !s.alive {
                        continue;
                    }
                    match &s.claim {
                        None => {
                            // With ALLOW_PSLOT_PREEMPTION a partitionable
                            // slot stands for its dynamic slots, even when
                            // it has nothing left of its own.
                            let pslot = matches!(s.kind, SlotKind::Partitionable { .. })
                                && self.negotiator.settings.allow_pslot_preemption;
                            if self.pool.is_free(i) || pslot {
                                ads.push(self.offer(i, now));
                                index.push(Some(i));
                            }
                        }
                        Some(c) => {
                            if !self.aggregate || self.priority_preemption || s.rank_varies {
                                let sub = &self.submitters[c.submitter];
                                let job_ad = &self.classes[c.class].ad;
                                let ran = self.ran(c.job, now);
                                let mut ad = self.pool.claimed_ad(i, &sub.name, &sub.user, job_ad, ran);
                                self.decorate(i, &mut ad, now);
                                ads.push(Arc::new(ad));
                                index.push(Some(i));
                                folded[c.submitter] -= s.weight;
                            }
                        }
                    }
                }
            } else {
                for i in self.pool.free() {
                    ads.push(self.offer(i, now));
                    index.push(Some(i));
                }
            }
            let seen = !self.aggregate || preemptible;
            let limits = self.folded_limits(|i| {
                seen && (!self.aggregate || self.priority_preemption || self.pool.slots[i].rank_varies)
            });
            self.push_placeholders(&folded, &limits, &mut ads, &mut index);
            let queues = self.queues();
            let outcome = self.negotiator.cycle_shared(&mut self.accountant, ads, &queues, epoch_now)?;
            row.matches = outcome.stats.matches as i64;
            row.rejections = outcome.stats.rejections as i64;
            row.pie_spins = i64::from(outcome.stats.pie_spins);
            if !outcome.groups.is_empty() {
                self.last_groups = outcome.groups.clone();
            }
            // Without preemption, a cycle that matched nothing because no
            // slot fits would do the same again until a job or a slot
            // comes (with preemption, priorities and retirement times move).
            let futile = !preemptible
                && outcome.matches.is_empty()
                && outcome.rejections.iter().all(|r| r.reason == RejectReason::NoMatch);
            for m in &outcome.matches {
                let Some(Some(slot)) = index.get(m.slot_index).copied() else { continue };
                if m.claim != ClaimKind::Unclaimed {
                    row.preemptions += 1;
                }
                if !m.preempted_dynamic_slots.is_empty() {
                    // ALLOW_PSLOT_PREEMPTION: the partitionable slot is
                    // taken with the dynamic slots it preempts.
                    self.preempt_children(now, slot, &m.preempted_dynamic_slots);
                }
                self.take_match(now, slot, m.autocluster as usize);
            }
            self.quiet_since_futile_cycle = futile;
        } else {
            // The accountant is brought up to date as the negotiator's would be.
            let folded: Vec<f64> = self.submitters.iter().map(|s| s.weight).collect();
            let mut ads = Vec::new();
            let mut index = Vec::new();
            if self.aggregate {
                self.push_placeholders(&folded, &[], &mut ads, &mut index);
            } else {
                self.pool.ensure_ads();
                for i in 0..self.pool.slots.len() {
                    let s = &self.pool.slots[i];
                    if s.alive {
                        ads.push(match &s.claim {
                            Some(c) => {
                                let sub = &self.submitters[c.submitter];
                                let ran = self.ran(c.job, now);
                                Arc::new(self.pool.claimed_ad(i, &sub.name, &sub.user, &self.classes[c.class].ad, ran))
                            }
                            None => s.ad.clone(),
                        });
                    }
                }
            }
            self.accountant.update_priorities(epoch_now)?;
            self.accountant.check_matches(epoch_now, &ads)?;
        }
        self.pool.sync();
        row.idle = self.submitters.iter().map(|s| i64::from(s.idle + s.matched)).sum();
        row.running = self.submitters.iter().map(|s| i64::from(s.running)).sum();
        row.busy = self.pool.busy_weight;
        row.total = self.pool.total_weight;
        if let Some(e) = &mut self.execute {
            row.execute = e.cycle_figures();
        }
        self.recorder.cycle(now, &row);
        let record = match self.last_recorded {
            None => true,
            Some(last) => self.record_every <= 0 || now - last >= self.record_every,
        };
        if record {
            self.last_recorded = Some(now);
            self.record_users(now);
        }
        Ok(full)
    }

    /// Seconds job `j` has run at `now` (0 when not running).
    pub(super) fn ran(&self, j: usize, now: i64) -> i64 {
        match self.jobs.get(j) {
            // (not counting the time suspended, as the startd's retirement)
            Some(job) if job.state == State::Running => {
                now - job.started - self.execute.as_ref().map_or(0, |e| e.paused(job.slot, now))
            }
            _ => 0,
        }
    }

    /// One stand-in ad per submitter holding slots the cycle is not given
    /// (`weights`), with the concurrency limits they use (`limits`, by
    /// submitter; may be empty).
    pub(super) fn push_placeholders(
        &mut self,
        weights: &[f64],
        limits: &[String],
        ads: &mut Vec<Arc<ClassAd>>,
        index: &mut Vec<Option<usize>>,
    ) {
        self.placeholders.resize_with(self.submitters.len(), Vec::new);
        for (k, (s, &w)) in self.submitters.iter().zip(weights).enumerate() {
            if w > 1e-9 {
                let limits = limits.get(k).map_or("", String::as_str);
                // A recent ad for the same weight and limits when there is
                // one (weights go up and down by a slot or two); the
                // negotiator remembers the last cycle's prepared.
                let recent = &mut self.placeholders[k];
                let ad = match recent.iter().position(|p| p.weight == w && p.limits == limits) {
                    Some(at) => {
                        let p = recent.remove(at);
                        let ad = p.ad.clone();
                        recent.push(p);
                        ad
                    }
                    None => {
                        let mut ad = placeholder(&s.name, &s.user, w);
                        if !limits.is_empty() {
                            ad.insert("ConcurrencyLimits", limits);
                        }
                        let ad = Arc::new(ad);
                        if recent.len() >= RECENT_PLACEHOLDERS {
                            recent.remove(0);
                        }
                        recent.push(Placeholder { weight: w, limits: limits.to_string(), ad: ad.clone() });
                        ad
                    }
                };
                ads.push(ad);
                index.push(None);
            }
        }
    }

    /// The schedd's side of a match: the next idle job of the autocluster
    /// takes the slot (preempting whoever held it), and a partitionable
    /// slot is split; with `CLAIM_PARTITIONABLE_LEFTOVERS`, the schedd
    /// keeps carving it for the autocluster's next jobs while they fit.
    pub(super) fn take_match(&mut self, now: i64, slot: usize, class: usize) {
        let Some(&(_, j)) = self.classes.get(class).and_then(|c| c.idle.first()) else { return };
        if let Some(c) = self.pool.slots[slot].claim.clone() {
            if c.given_back.is_some() {
                // A claim given back that the collector still shows.
                self.submitters[c.submitter].weight -= self.pool.slots[slot].weight;
            } else if c.job != usize::MAX {
                self.evict(now, c.job);
            }
            self.pool.slots[slot].claim = None;
            self.pool.busy_weight -= self.pool.slots[slot].weight;
            self.assign(now, j, slot, self.claim_delay);
            return;
        }
        match self.pool.slots[slot].kind {
            SlotKind::Partitionable { .. } => {
                let ad = self.classes[class].ad.clone();
                let Some(d) = self.pool.carve(slot, &ad) else { return };
                self.assign(now, j, d, self.claim_delay);
                while let (true, Some(&(_, next))) = (self.leftovers, self.classes[class].idle.first()) {
                    let Some(d) = self.pool.carve(slot, &ad) else { break };
                    self.assign(now, next, d, self.claim_delay);
                }
            }
            _ => self.assign(now, j, slot, self.claim_delay),
        }
    }

    /// The dynamic slots `names` of partitionable slot `pslot`, preempted
    /// by one match: their jobs go back to idle and their resources back
    /// to the partitionable slot, for the job that preempts them.
    pub(super) fn preempt_children(&mut self, now: i64, pslot: usize, names: &[String]) {
        let children: Vec<usize> = (0..self.pool.slots.len())
            .filter(|&i| {
                let s = &self.pool.slots[i];
                s.alive
                    && matches!(s.kind, SlotKind::Dynamic { parent, .. } if parent == pslot)
                    && names.contains(&s.name)
            })
            .collect();
        for d in children {
            let Some(c) = self.pool.slots[d].claim.clone() else { continue };
            if c.given_back.is_some() {
                // Given back, still shown claimed: still charged.
                self.release(c.submitter, d);
                continue;
            }
            if c.job != usize::MAX {
                // (Its submitter is no longer charged the slot.)
                self.evict(now, c.job);
            }
            self.pool.release(d);
        }
    }

    /// Each submitter's resource requests: one per autocluster with idle
    /// jobs, in the order of their first idle job.
    pub(super) fn queues(&self) -> Vec<SubmitterQueue> {
        let mut by_submitter: Vec<Vec<(JobId, usize)>> = vec![Vec::new(); self.submitters.len()];
        for (c, class) in self.classes.iter().enumerate() {
            if let Some(&(first, _)) = class.idle.first() {
                by_submitter[class.submitter].push((first, c));
            }
        }
        let mut queues: Vec<SubmitterQueue> = Vec::new();
        for (k, mut requests) in by_submitter.into_iter().enumerate() {
            let s = &self.submitters[k];
            if requests.is_empty() {
                continue;
            }
            requests.sort();
            queues.push(SubmitterQueue {
                name: s.name.clone(),
                schedd: "sim".to_string(),
                requests: requests
                    .into_iter()
                    .map(|(first, c)| ResourceRequest {
                        ad: self.classes[c].ad.clone(),
                        count: u32::try_from(self.classes[c].idle.len()).unwrap_or(u32::MAX),
                        job: first,
                        autocluster: u32::try_from(c).unwrap_or(u32::MAX),
                    })
                    .collect(),
                running_jobs: s.running + s.matched,
                tie_break: 0,
            });
        }
        queues.sort_by(|a, b| a.name.cmp(&b.name));
        queues
    }

    pub(super) fn record_users(&mut self, now: i64) {
        let busy = self.pool.busy_weight;
        let by_submitter = self.execute.as_ref().map(|e| e.by_submitter(self.submitters.len()));
        for (k, s) in self.submitters.iter().enumerate() {
            if let Some(figures) = &by_submitter {
                self.recorder.user_execute(figures[k]);
            }
            let c = self.accountant.customer(&s.name);
            self.recorder.user(
                now,
                &s.user,
                &s.group,
                s.weight,
                c.and_then(|c| c.weighted_accumulated_usage.or(c.accumulated_usage)).unwrap_or(0.0),
                self.accountant.real_priority(&s.name),
                self.accountant.effective_priority(&s.name),
                if busy > 0.0 { s.weight / busy } else { 0.0 },
                i64::from(s.idle + s.matched),
                i64::from(s.running),
            );
        }
        for g in &self.last_groups {
            let usage: f64 = self
                .submitters
                .iter()
                .filter(|s| s.accounting_group.eq_ignore_ascii_case(&g.name))
                .map(|s| s.weight)
                .sum();
            self.recorder.group(now, &g.name, g.quota, g.demand, g.allocated, usage);
        }
    }

    /// Adds the owner's activity to the ad of slot `i` as a cycle sees it.
    /// Free slot `i`'s ad for a cycle at `now`: the pool's own (the same
    /// `Arc` from cycle to cycle while the slot does not change, so that
    /// the negotiator remembers it prepared), or chained to it with what
    /// the owner model adds.
    pub(super) fn offer(&self, i: usize, now: i64) -> Arc<ClassAd> {
        let ad = &self.pool.slots[i].ad;
        let mut child = ClassAd::new();
        self.decorate(i, &mut child, now);
        if child.is_empty() {
            return ad.clone();
        }
        child.chain_to(ad.clone());
        Arc::new(child)
    }

    pub(super) fn decorate(&self, i: usize, ad: &mut ClassAd, now: i64) {
        if let Some(e) = &self.execute {
            e.decorate(i, &self.pool.slots[i].name, ad, now);
        }
    }

    /// The concurrency limits in use by each submitter's claimed slots
    /// that the cycle is not given one by one (`individually`), as a
    /// `ConcurrencyLimits` list for its stand-in ad.
    pub(super) fn folded_limits(&self, individually: impl Fn(usize) -> bool) -> Vec<String> {
        let mut used: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new(); self.submitters.len()];
        if !self.any_limits {
            return vec![String::new(); self.submitters.len()];
        }
        for (i, s) in self.pool.slots.iter().enumerate() {
            let Some(c) = &s.claim else { continue };
            if !s.alive || c.job == usize::MAX || individually(i) {
                continue;
            }
            if let Some(classad::Literal::Str(list)) =
                self.classes[c.class].ad.lookup("ConcurrencyLimits").and_then(classad::Expr::as_literal)
            {
                for item in matchmaker::concurrency::items(list.as_str()) {
                    *used[c.submitter].entry(item.name).or_insert(0.0) += item.units;
                }
            }
        }
        used.into_iter()
            .map(|m| m.into_iter().map(|(name, units)| format!("{name}:{units}")).collect::<Vec<_>>().join(", "))
            .collect()
    }
}
