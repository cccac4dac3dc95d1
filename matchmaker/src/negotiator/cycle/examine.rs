//! A request's match list filled as it is read: the slots of each group
//! of equal pre-job rank examined when the list reaches it, those of a
//! range read a window at a time when every slot of it ranks the same,
//! and each slot that matches both ways judged as a candidate.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use classad::{ClassAd, EvalContext, Expr, Value};

use super::State;
#[cfg(feature = "parallel")]
use super::PARALLEL_FROM;
use crate::candidates::{self, ClaimKind, Ranks};
use crate::consumption;
use crate::matching::PreparedRequest;
use crate::negotiator::match_list::{best_first, sort_prefix, Candidate, MatchList, Run};

/// The fewest and the most slots of a range scanned at once for a request
/// read range by range.
pub(super) const MIN_SCAN_WINDOW: usize = 8;
pub(super) const MAX_SCAN_WINDOW: usize = 4096;

/// Where a candidate's job rank comes from.
pub(super) enum JobRank<'p, 'a> {
    /// Evaluated for the slot.
    Evaluate,
    /// The request's `Rank`, prepared.
    Prepared(&'p classad::Prepared<&'a ClassAd>),
    /// All three ranks already known (the same on every slot of its range).
    Range { pre: f64, job: f64, post: f64 },
}

impl State<'_, '_> {
    /// The static slots of `ranges` still available that match `request`
    /// both ways, in slot order (in a buffer to give back to `self.matcher.found`).
    pub(super) fn matching(
        &mut self,
        prepared: &PreparedRequest<'_>,
        request: &ClassAd,
        ranges: &[Range<usize>],
    ) -> Vec<usize> {
        let mut found = std::mem::take(&mut self.matcher.found);
        found.clear();
        let slots = &self.slots.entries;
        let keep = |i: usize| slots[i].available && slots[i].current.is_none();
        #[cfg(feature = "parallel")]
        if ranges.iter().map(|r| r.len()).sum::<usize>() >= PARALLEL_FROM {
            found = self.slots.pool.par_matching_in_ranges(prepared, request, ranges, keep);
            self.matcher.serial += 1;
            return found;
        }
        self.slots.pool.matching_in_ranges(prepared, request, ranges, keep, &mut found);
        self.matcher.serial += 1;
        found
    }

    /// Examines the static slots of `range` for the list's request: those
    /// still available that match both ways become candidates.
    pub(super) fn examine(&mut self, list: &mut MatchList, ranges: &[Range<usize>]) {
        let found = self.matching(&list.prepared, &list.request, ranges);
        // (Shared with the list, which the candidates are written into.)
        let request = Arc::clone(&list.request);
        let opts = self.cx.opts.clone();
        let job_rank = request.lookup(self.cx.names.rank).map(|e| classad::Prepared::new(&opts, &*request, e));
        for &slot in &found {
            let rank = job_rank.as_ref().map_or(JobRank::Evaluate, JobRank::Prepared);
            if let Some(c) = self.candidate(list, &request, rank, slot, false) {
                list.entries.push(c);
            }
        }
        drop(job_rank);
        self.matcher.found = found;
    }

    /// Whether slot `slot` (which matched the request, or, `carved`, is a
    /// partitionable slot to try) is a candidate for the list, and its
    /// ranks; counts the reasons it is not. Everything is judged as at the
    /// list's making: its request ad and budget.
    pub(super) fn candidate(
        &mut self,
        list: &mut MatchList,
        ad: &ClassAd,
        job_rank: JobRank<'_, '_>,
        slot: usize,
        carved: bool,
    ) -> Option<Candidate> {
        let budget = list.budget;
        let consider_preemption = self.cx.negotiator.settings.consider_preemption;
        let slot_ad = match (&self.slots.entries[slot].current, carved) {
            (Some(current), true) => {
                let taken = consumption::of(ad, current);
                if !consumption::sufficient(current, &taken) {
                    return None;
                }
                let view = consumption::job_as_taking(ad, &taken);
                if !classad::matching::MatchAd::new(&self.cx.opts, &view, current).symmetric_match() {
                    return None;
                }
                current
            }
            _ => &self.slots.ads[slot],
        };
        let running = if !consider_preemption {
            None
        } else if carved {
            self.cx.names.remote_user(slot_ad).map(Arc::from)
        } else {
            self.slots.entries[slot].running.clone()
        };
        let on_slot = EvalContext::new(&self.cx.opts).my(slot_ad).target(ad);
        let is_true = |e: &Expr| matches!(on_slot.eval(e), Value::Bool(true));
        let mut claim = ClaimKind::Unclaimed;
        if list.only_for_startd_rank {
            if running.is_none() || !is_true(&self.cx.conditions.better) {
                return None;
            }
            claim = ClaimKind::RankPreemption;
        } else if let Some(user) = &running {
            if is_true(&self.cx.conditions.better) {
                claim = ClaimKind::RankPreemption;
            } else if &**user != self.submitter_name(list.submitter) {
                claim = ClaimKind::PriorityPreemption;
                if let Some(req) = &self.cx.negotiator.preemption_requirements {
                    if !is_true(req) {
                        list.diagnostics.preemption_policy += 1;
                        return None;
                    }
                }
                if !is_true(&self.cx.conditions.not_worse) {
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
                self.matcher.rejected_limits.insert(name);
                return None;
            }
        }
        let ranks = if carved {
            self.ranks(ad, slot_ad, claim, candidates::job_rank(&self.cx.opts, ad, slot_ad))
        } else {
            let serial = self.matcher.serial;
            if let JobRank::Range { pre, job, post } = job_rank {
                let preemption = self.preemption_rank(ad, slot_ad, claim);
                return Some(Candidate {
                    slot,
                    order: self.slots.order[slot],
                    ranks: Ranks { pre_job: pre, job, post_job: post, claim, preemption },
                });
            }
            let rank = match job_rank {
                JobRank::Range { job, .. } => job,
                JobRank::Prepared(prepared) => prepared.rank(slot_ad),
                JobRank::Evaluate if ad.lookup(self.cx.names.rank).is_some() => {
                    candidates::job_rank(&self.cx.opts, ad, slot_ad)
                }
                JobRank::Evaluate => self.matcher.caches.slot_rank.value(&self.cx.opts, slot, slot_ad, ad, serial),
            };
            Ranks {
                pre_job: self.matcher.caches.pre_job.value(&self.cx.opts, slot, slot_ad, ad, serial),
                job: rank,
                post_job: self.matcher.caches.post_job.value(&self.cx.opts, slot, slot_ad, ad, serial),
                claim,
                preemption: self.preemption_rank(ad, slot_ad, claim),
            }
        };
        Some(Candidate { slot, order: self.slots.order[slot], ranks })
    }

    /// The next candidate of a list in its order (HTCondor's sorted match
    /// list), the next group of slots examined when it is needed.
    pub(super) fn next_candidate(&mut self, list: &mut MatchList) -> Option<Candidate> {
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
    pub(super) fn group_head(&mut self, list: &mut MatchList) -> Option<Candidate> {
        loop {
            let head = if list.runs.active {
                if list.runs.pending.is_none() {
                    let request = Arc::clone(&list.request);
                    loop {
                        // A run that may hold the next slot is scanned first.
                        while let Some(run) = list.runs.next_to_scan() {
                            self.scan(&list.prepared, &request, list.runs.run_mut(run));
                            list.runs.requeue(run, &self.slots.order);
                        }
                        let Some((slot, ranks, run)) = list.runs.pop() else {
                            break;
                        };
                        list.runs.requeue(run, &self.slots.order);
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
            if head.is_some()
                || (list.next_range >= self.slots.ranges.len() && list.next_dependent >= list.dependent.len())
            {
                return head;
            }
            self.examine_group(list);
        }
    }

    /// Moves past the group's best candidate.
    pub(super) fn group_advance(list: &mut MatchList) {
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
    pub(super) fn examine_group(&mut self, list: &mut MatchList) {
        // The best value left among the cycle's ranges and the job's own.
        let fixed = self.slots.ranges.get(list.next_range).map(|r| r.value);
        let own = list.dependent.get(list.next_dependent).map(|d| d.0);
        let Some(value) = (match (fixed, own) {
            (Some(a), Some(b)) => Some(if b.total_cmp(&a) == Ordering::Greater { b } else { a }),
            (a, b) => a.or(b),
        }) else {
            return;
        };
        let same = |v: f64| v == value || v.to_bits() == value.to_bits();
        let first = list.next_range;
        while list.next_range < self.slots.ranges.len() && same(self.slots.ranges[list.next_range].value) {
            list.next_range += 1;
        }
        let mut group: Vec<usize> = (first..list.next_range)
            .filter(|&r| {
                let range = &self.slots.ranges[r];
                list.pre_independent.get(range.shape as usize).copied().unwrap_or(false)
                    && list.could_hold(range)
                    && list.tests.viable(&self.cx.opts, &list.request, range, &self.slots.ads[range.range.start])
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
                let range = &self.slots.ranges[r];
                range.idle
                    && !range.post_value.is_nan()
                    && list.post_independent.get(range.post as usize).copied().unwrap_or(false)
            });
        let ranges: Vec<Range<usize>> = group.iter().map(|&r| self.slots.ranges[r].range.clone()).collect();
        if !by_range {
            return self.examine_ranked(list, &ranges);
        }
        let Some(rank) = list.rank.as_mut() else {
            return self.examine_ranked(list, &ranges);
        };
        let mut runs = Vec::with_capacity(group.len());
        for &r in &group {
            let range = &self.slots.ranges[r];
            let job = rank.value(&self.cx.opts, &list.request, range, &self.slots.ads[range.range.start]);
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
        self.matcher.serial += 1;
        list.runs.wait(runs, &self.slots.order);
        list.runs.active = true;
    }

    /// Scans a run from its cursor for its next matching slots: a window
    /// at a time (wider each time one finds nothing), skipping the slots
    /// already taken, until one matches or the run ends.
    pub(super) fn scan(&mut self, prepared: &PreparedRequest<'_>, request: &ClassAd, run: &mut Run) {
        run.found.clear();
        run.next = 0;
        let mut width = MIN_SCAN_WINDOW;
        while run.found.is_empty() && run.cursor < run.end {
            let start = self.slots.next_free(run.cursor).min(run.end);
            let end = (start + width).min(run.end);
            let slots = &self.slots.entries;
            let keep = |i: usize| slots[i].available && slots[i].current.is_none();
            self.slots.pool.matching_in_ranges(
                prepared,
                request,
                std::slice::from_ref(&(start..end)),
                keep,
                &mut run.found,
            );
            run.cursor = end;
            width = (width * 2).min(MAX_SCAN_WINDOW);
        }
    }

    /// Examines a group's ranges, ranking every candidate.
    pub(super) fn examine_ranked(&mut self, list: &mut MatchList, ranges: &[Range<usize>]) {
        let kept = list.entries.len();
        self.examine(list, ranges);
        list.group = list.entries.split_off(kept);
        list.group_sorted = 0;
        list.group_head = 0;
    }
}
