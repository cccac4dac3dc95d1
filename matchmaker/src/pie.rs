//! The pie: each submitter's share of the pool and the slot weight it may
//! take in one spin, and the order submitters negotiate in.
//!
//! For the submitters of one group (or of the whole pool without groups),
//! with EUP the effective priority and each name counted once:
//!
//! ```text
//! share_i = max_j EUP_j / (EUP_i · Σ_j (max_k EUP_k / EUP_j))     (shares sum to 1)
//! limit_i = max(0, share_i · pool − weighted usage_i)
//! ```
//!
//! `pool` is the pool's slot weight (claimed slots included), at most the
//! group's quota. The limit on unclaimed slots is also at most what is left
//! of the group's quota; without preemption that is the limit. In the floor
//! round a submitter gets at most its floor. The spin's pie is the sum of
//! the limits; submitters negotiate by ascending EUP, then by how starved
//! they are (`usage / (usage + limit)`), then in a pseudo-random order
//! (`LastHeardFrom % 1009`) that the caller gives.
//!
//! ```
//! use matchmaker::pie::{Pie, Submitter};
//!
//! // Two users, EUPs 500 and 1000, on a pool of 90 slots, nothing running:
//! // the better one gets two thirds.
//! let subs = [Submitter::new("a@x", 500.0, 1000.0, 0.0), Submitter::new("b@x", 1000.0, 1000.0, 0.0)];
//! let pie = Pie::new(&subs, 90.0, None);
//! let limits: Vec<f64> = subs.iter().map(|s| pie.limit(s, false).limit).collect();
//! assert!((limits[0] - 60.0).abs() < 1e-9 && (limits[1] - 30.0).abs() < 1e-9);
//! ```

use std::cmp::Ordering;

/// What the pie needs of a submitter.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitter {
    /// The submitter's name (`user@domain`).
    pub name: String,
    /// Effective user priority (RUP × factor).
    pub eup: f64,
    /// Priority factor.
    pub factor: f64,
    /// Weighted slots in use.
    pub usage: f64,
    /// Floor (weighted slots served first; 0: none).
    pub floor: f64,
    /// Ceiling (most weighted slots; `None`: none).
    pub ceiling: Option<i64>,
    /// `LastHeardFrom % 1009` of its submitter ad: the last tie-break.
    pub tie_break: i64,
}

impl Submitter {
    /// A submitter with no floor, no ceiling and tie-break 0.
    pub fn new(name: &str, eup: f64, factor: f64, usage: f64) -> Self {
        Submitter { name: name.to_string(), eup, factor, usage, floor: 0.0, ceiling: None, tie_break: 0 }
    }
}

/// A group's quota and usage, for the pie of its submitters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupLimit {
    /// The group's quota (slot weight).
    pub quota: f64,
    /// The group's weighted usage.
    pub usage: f64,
}

/// One spin's normalisation: the pool's size and the priorities' scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Pie {
    /// The largest EUP.
    pub max_eup: f64,
    /// Σ max_eup / EUP over unique names.
    pub normal_factor: f64,
    /// The largest priority factor.
    pub max_factor: f64,
    /// Σ max_factor / factor over unique names.
    pub normal_abs_factor: f64,
    /// The slot weight shared: the pool's, at most the group's quota.
    pub slot_weight_total: f64,
    /// The group being negotiated, if any.
    pub group: Option<GroupLimit>,
    /// NEGOTIATOR_CONSIDER_PREEMPTION (true unless set otherwise).
    pub consider_preemption: bool,
}

/// A submitter's limits in one spin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// Its share of the pie (the shares sum to 1).
    pub share: f64,
    /// Its share counted by priority factors alone (for concurrency limits'
    /// network shares).
    pub abs_share: f64,
    /// Slot weight it may take, preemptions included.
    pub limit: f64,
    /// Slot weight it may take in unclaimed slots.
    pub limit_unclaimed: f64,
}

impl Pie {
    /// The pie of `submitters` (preemption considered) over a pool of
    /// `pool_weight`, within `group` if the submitters form one.
    pub fn new(submitters: &[Submitter], pool_weight: f64, group: Option<GroupLimit>) -> Self {
        // HTCondor starts its maxima at DBL_MIN (the smallest positive double).
        let mut max_eup = f64::MIN_POSITIVE;
        let mut max_factor = f64::MIN_POSITIVE;
        for s in submitters {
            max_eup = max_eup.max(s.eup);
            max_factor = max_factor.max(s.factor);
        }
        let mut seen = std::collections::HashSet::new();
        let (mut normal_factor, mut normal_abs_factor) = (0.0, 0.0);
        for s in submitters {
            if seen.insert(s.name.as_str()) {
                normal_factor += max_eup / s.eup;
                normal_abs_factor += max_factor / s.factor;
            }
        }
        let slot_weight_total = match group {
            Some(g) if pool_weight > g.quota => g.quota,
            _ => pool_weight,
        };
        Pie {
            max_eup,
            normal_factor,
            max_factor,
            normal_abs_factor,
            slot_weight_total,
            group,
            consider_preemption: true,
        }
    }

    /// The same pie with preemption on or off.
    pub fn consider_preemption(mut self, on: bool) -> Self {
        self.consider_preemption = on;
        self
    }

    /// A submitter's share and limits; in the floor round the limit is at
    /// most its floor. What is left of a group's quota is computed in single
    /// precision, as HTCondor does.
    pub fn limit(&self, s: &Submitter, floor_round: bool) -> Limit {
        let share = self.max_eup / (s.eup * self.normal_factor);
        let mut limit = (share * self.slot_weight_total - s.usage).max(0.0);
        let mut limit_unclaimed = limit;
        if let Some(g) = self.group {
            // `float maxAllowed = groupQuota - groupusage;` with float arguments.
            let allowed = ((g.quota as f32) - (g.usage as f32)).max(0.0);
            limit_unclaimed = limit_unclaimed.min(f64::from(allowed));
        }
        if !self.consider_preemption {
            limit = limit_unclaimed;
        }
        if floor_round {
            limit = limit.min(s.floor);
        }
        Limit { share, abs_share: self.max_factor / (s.factor * self.normal_abs_factor), limit, limit_unclaimed }
    }

    /// The spin's pie: the sum of every submitter's limit (outside the floor
    /// round), and each one's starvation, `usage / (usage + limit)`.
    pub fn pie_left(&self, submitters: &[Submitter]) -> (f64, Vec<f64>) {
        let mut pie_left = 0.0;
        let mut starvation = Vec::with_capacity(submitters.len());
        for s in submitters {
            let limit = self.limit(s, false).limit;
            starvation.push(starvation_ratio(s.usage, s.usage + limit));
            pie_left += limit;
        }
        (pie_left, starvation)
    }
}

/// `usage / allocated`, or `f32::MAX` when nothing is allocated.
pub fn starvation_ratio(usage: f64, allocated: f64) -> f64 {
    if allocated > 0.0 {
        usage / allocated
    } else {
        f64::from(f32::MAX)
    }
}

/// The order submitters negotiate in (sorted once, on the first spin):
/// ascending EUP, then ascending starvation, then ascending tie-break.
/// `starvation[i]` is submitter `i`'s; returns the indices in order.
pub fn negotiation_order(submitters: &[Submitter], starvation: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..submitters.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&submitters[a], &submitters[b]);
        x.eup
            .partial_cmp(&y.eup)
            .unwrap_or(Ordering::Equal)
            .then(starvation[a].partial_cmp(&starvation[b]).unwrap_or(Ordering::Equal))
            .then(x.tie_break.cmp(&y.tie_break))
    });
    order
}

/// What is left under a submitter's ceiling: its ceiling less its usage
/// (truncated to whole units, as HTCondor does), `None` without a ceiling.
pub fn ceiling_left(s: &Submitter) -> Option<i64> {
    s.ceiling.map(|c| (c - s.usage as i64).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_one_and_names_count_once() {
        let subs = [
            Submitter::new("a@x", 500.0, 1000.0, 0.0),
            Submitter::new("b@x", 1000.0, 1000.0, 0.0),
            Submitter::new("b@x", 1000.0, 1000.0, 0.0), // the same user from a second schedd
            Submitter::new("c@x", 2000.0, 2000.0, 0.0),
        ];
        let pie = Pie::new(&subs, 70.0, None);
        let unique: f64 = [0, 1, 3].iter().map(|&i| pie.limit(&subs[i], false).share).sum();
        assert!((unique - 1.0).abs() < 1e-12);
        // 1/500 : 1/1000 : 1/2000 = 4 : 2 : 1 of 70.
        assert!((pie.limit(&subs[0], false).limit - 40.0).abs() < 1e-9);
        assert!((pie.limit(&subs[3], false).limit - 10.0).abs() < 1e-9);
    }

    #[test]
    fn usage_floors_groups_and_preemption() {
        let mut a = Submitter::new("a@x", 500.0, 1000.0, 50.0);
        let b = Submitter::new("b@x", 500.0, 1000.0, 0.0);
        let pie = Pie::new(&[a.clone(), b.clone()], 80.0, None);
        assert_eq!(pie.limit(&a, false).limit, 0.0); // 40 - 50, floored at 0
        assert_eq!(pie.limit(&b, false).limit, 40.0);
        a.floor = 60.0;
        a.usage = 10.0;
        assert_eq!(pie.limit(&a, true).limit, 30.0); // min(floor 60, 40 - 10)
        let b2 = Submitter { floor: 5.0, ..b.clone() };
        assert_eq!(pie.limit(&b2, true).limit, 5.0);
        // A group of quota 30 with 25 in use: the pie is 30, unclaimed limit 5.
        let g = Pie::new(std::slice::from_ref(&b), 80.0, Some(GroupLimit { quota: 30.0, usage: 25.0 }));
        let l = g.limit(&b, false);
        assert_eq!((g.slot_weight_total, l.limit, l.limit_unclaimed), (30.0, 30.0, 5.0));
        let l = g.clone().consider_preemption(false).limit(&b, false);
        assert_eq!(l.limit, 5.0);
    }

    #[test]
    fn order_is_eup_then_starvation_then_tie_break() {
        let mut subs = vec![
            Submitter::new("c@x", 900.0, 1000.0, 0.0),
            Submitter::new("a@x", 500.0, 1000.0, 30.0),
            Submitter::new("b@x", 500.0, 1000.0, 0.0),
            Submitter::new("d@x", 900.0, 1000.0, 0.0),
        ];
        subs[0].tie_break = 7;
        subs[3].tie_break = 3;
        let pie = Pie::new(&subs, 100.0, None);
        let (left, starvation) = pie.pie_left(&subs);
        assert!(left > 0.0);
        let order = negotiation_order(&subs, &starvation);
        let names: Vec<&str> = order.iter().map(|&i| subs[i].name.as_str()).collect();
        // b is less starved than a (nothing running), d breaks the tie with c.
        assert_eq!(names, ["b@x", "a@x", "d@x", "c@x"]);
        assert_eq!(ceiling_left(&Submitter { ceiling: Some(4), usage: 2.5, ..subs[0].clone() }), Some(2));
        assert_eq!(starvation_ratio(1.0, 0.0), f64::from(f32::MAX));
    }
}
