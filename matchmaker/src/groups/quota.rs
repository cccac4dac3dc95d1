//! Hierarchical group quotas: how the negotiator divides the pool among
//! accounting groups each cycle, as HTCondor 23.9.6's negotiator does.
//!
//! **Assignment** ([`Quotas::assign`]), top-down from `<none>`, which
//! receives the whole pool (its slot weight, or its slot count without
//! slot weights). At each group, children with a static quota
//! (`GROUP_QUOTA_<g>`, in slot-weight units) are served first; if their sum
//! exceeds what the group received they are scaled down in proportion,
//! unless `NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION` (true by default) lets
//! them keep it. Children with a dynamic quota (`GROUP_QUOTA_DYNAMIC_<g>`,
//! a fraction) share what is left, their fractions scaled down when they
//! sum above 1. Without oversubscription a group keeps what its children
//! did not take; with it, a group keeps everything it received (its
//! children's quotas are then counted twice, which the strict enforcement
//! below makes good). `<none>` always keeps only the remainder.
//!
//! **Fair share** ([`Quotas::fairshare`]), bottom-up: each group is
//! allocated `min(demand, quota)`; unused quota (surplus) flows up. At each
//! group the surplus is shared among the group itself and those children
//! that accept surplus (`GROUP_ACCEPT_SURPLUS`, per group
//! `GROUP_ACCEPT_SURPLUS_<g>`): all of their outstanding demand if the
//! surplus covers it, otherwise in proportion to their subtree quotas
//! (then equally among zero-quota groups). Whatever is not used goes on up.
//! Without slot weights, fractional allocations are then cut to whole
//! slots and the fractions handed out again one slot at a time, round-robin
//! ([`Quotas::recover_remainders`]), least recently served first.
//!
//! **Negotiation** ([`Quotas::negotiate`]): up to
//! `GROUP_QUOTA_MAX_ALLOCATION_ROUNDS` rounds of fair share, each
//! negotiating every group with an allocation in `GROUP_SORT_EXPR` order
//! (by default the least used fraction of its quota first, `<none>` last),
//! up to its allocation (in steps of `GROUP_QUOTA_ROUND_ROBIN_RATE`). A
//! group that does not accept surplus caps what its subtree may use
//! (`NEGOTIATOR_STRICT_ENFORCE_QUOTA`). Another round runs only if some
//! group used less than it was allocated; such a group's demand is then
//! taken to be what it got, so that others may have the rest. With
//! `GROUP_AUTOREGROUP`, `<none>` negotiates last for the whole pool, and
//! the submitters of autoregroup groups negotiate in it again.
//!
//! The manual's example: 20 and 10 slots for physics and chemistry become
//! 10 and 5 when the pool halves (without oversubscription).
//!
//! ```
//! use matchmaker::config::Config;
//! use matchmaker::groups::{GroupQuotaConfig, Quotas};
//!
//! let config = Config::parse_str(
//!     "GROUP_NAMES = group_physics, group_chemistry\n\
//!      GROUP_QUOTA_group_physics = 20\n\
//!      GROUP_QUOTA_group_chemistry = 10\n\
//!      NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false\n",
//!     "groups.conf",
//! )?;
//! let groups = GroupQuotaConfig::from_config(&config)?;
//! let mut quotas = Quotas::new(&groups);
//! quotas.assign(15.0);
//! let physics = groups.tree.find("group_physics").expect("configured");
//! let chemistry = groups.tree.find("group_chemistry").expect("configured");
//! assert_eq!((quotas.state(physics).quota, quotas.state(chemistry).quota), (10.0, 5.0));
//! # Ok::<(), matchmaker::config::ConfigError>(())
//! ```

use classad::{ClassAd, EvalContext, EvalOptions, Semantics};

pub use super::policy::{GroupPolicy, GroupQuotaConfig, DEFAULT_SORT_EXPR};
pub use super::round_robin::RoundRobinTimes;
use super::tree::GroupId;

/// A group's working figures in a cycle (HTCondor's `GroupEntry`), all in
/// slot-weight units (slots without slot weights).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupState {
    /// The quota assigned this cycle.
    pub quota: f64,
    /// Demand not yet allocated.
    pub requested: f64,
    /// Allocated this round.
    pub allocated: f64,
    /// The quota its subtree received.
    pub subtree_quota: f64,
    /// Outstanding demand of it and its surplus-accepting subtree.
    pub subtree_requested: f64,
    /// Usage of it and its subgroups (strict enforcement).
    pub subtree_usage: f64,
    /// Its own usage as the round began.
    pub usage: f64,
    /// Whether round-robin gave it a slot this round.
    pub rr: bool,
    /// When round-robin last served it (0: never).
    pub rr_time: f64,
    /// The earliest `rr_time` in its subtree with demand.
    pub subtree_rr_time: f64,
    /// GROUP_SORT_EXPR's value this round.
    pub sort_key: f64,
}

/// One group's figures in one allocation round, as the negotiator logs
/// them (`group quotas: group= ... quota= ... requested= ... allocated= ...`).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRound {
    /// The group.
    pub group: GroupId,
    /// Its quota.
    pub quota: f64,
    /// Its demand (allocated plus unallocated).
    pub requested: f64,
    /// Its allocation.
    pub allocated: f64,
    /// Demand left unallocated.
    pub unallocated: f64,
    /// GROUP_SORT_EXPR's value.
    pub sort_key: f64,
    /// The limits it negotiated with, in order (empty: skipped).
    pub limits: Vec<f64>,
    /// Why it was not negotiated, if it was not.
    pub skipped: Option<String>,
    /// The group (itself or an ancestor) that does not accept surplus and
    /// held its last limit below its allocation, if one did.
    pub capped_by: Option<GroupId>,
    /// Its usage when the round ended.
    pub usage_after: f64,
}

/// One allocation round.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundReport {
    /// 1 for the first.
    pub round: u32,
    /// Each group, breadth first.
    pub groups: Vec<GroupRound>,
    /// Σ allocated.
    pub allocated_total: f64,
    /// Surplus left unallocated after fair share.
    pub surplus: f64,
    /// The largest allocation (quota without surplus) still to be used.
    pub max_delta: f64,
    /// Σ min(usage, allocated) when the round ended.
    pub usage_total: f64,
    /// The order groups negotiated in.
    pub order: Vec<GroupId>,
}

/// What the quota algorithm needs of the negotiator.
pub trait GroupNegotiation {
    /// What negotiating a group can fail with.
    type Error;
    /// A group's own weighted usage now (its accountant record).
    fn usage(&self, group: GroupId) -> f64;
    /// Whether the group still has submitters to negotiate with.
    fn has_submitters(&self, group: GroupId) -> bool;
    /// Negotiates the group's submitters up to `limit` (a whole number, as
    /// HTCondor passes it).
    fn negotiate(&mut self, group: GroupId, limit: f64) -> Result<(), Self::Error>;
}

/// The quota state of one cycle.
#[derive(Debug, Clone)]
pub struct Quotas<'c> {
    config: &'c GroupQuotaConfig,
    states: Vec<GroupState>,
    /// Breadth-first order.
    order: Vec<GroupId>,
    children: Vec<Vec<GroupId>>,
    /// Warnings from assignment (rescaled quotas).
    pub warnings: Vec<String>,
}

impl<'c> Quotas<'c> {
    /// Every group with zero figures.
    pub fn new(config: &'c GroupQuotaConfig) -> Quotas<'c> {
        let tree = &config.tree;
        Quotas {
            config,
            states: vec![GroupState::default(); tree.len()],
            order: tree.breadth_first(),
            children: tree.ids().map(|g| tree.children(g)).collect(),
            warnings: Vec::new(),
        }
    }

    /// Each group's round-robin time, by group index.
    pub fn rr_times(&self) -> Vec<f64> {
        self.states.iter().map(|s| s.rr_time).collect()
    }

    /// Sets the groups' round-robin times (from an earlier cycle's
    /// [`rr_times`](Self::rr_times)); ignored unless there is one per group.
    pub fn set_rr_times(&mut self, times: &[f64]) {
        if times.len() == self.states.len() {
            for (s, &t) in self.states.iter_mut().zip(times) {
                s.rr_time = t;
            }
        }
    }

    /// A group's figures.
    pub fn state(&self, g: GroupId) -> &GroupState {
        &self.states[g.0]
    }

    /// A group's figures, to change (its demand, usage, `rr_time`).
    pub fn state_mut(&mut self, g: GroupId) -> &mut GroupState {
        &mut self.states[g.0]
    }

    /// The groups breadth first from `<none>`.
    pub fn breadth_first(&self) -> &[GroupId] {
        &self.order
    }

    /// Sets each group's demand and usage for the cycle, clearing the rest
    /// (HTCondor's `hgq_prepare_for_matchmaking`), then assigns quotas.
    pub fn prepare(&mut self, total: f64, demand: &[f64], usage: &[f64]) {
        for (g, s) in self.states.iter_mut().enumerate() {
            let rr_time = s.rr_time;
            *s = GroupState {
                requested: demand.get(g).copied().unwrap_or(0.0),
                usage: usage.get(g).copied().unwrap_or(0.0),
                rr_time,
                ..GroupState::default()
            };
        }
        self.assign(total);
    }

    /// Assigns quotas top-down from `total` at `<none>`.
    pub fn assign(&mut self, total: f64) {
        let root = self.config.tree.root();
        self.assign_subtree(root, total);
    }

    fn assign_subtree(&mut self, g: GroupId, quota: f64) {
        let oversub = self.config.allow_oversubscription;
        if quota <= 0.0 {
            return;
        }
        self.states[g.0].subtree_quota = quota;
        let children = self.children[g.0].clone();
        let (mut static_sum, mut dynamic_sum) = (0.0, 0.0);
        for &c in &children {
            let p = self.config.policy(c);
            if p.static_quota {
                static_sum += p.config_quota;
            } else {
                dynamic_sum += p.config_quota;
            }
        }
        let static_assignable = if oversub { static_sum } else { f64::min(static_sum, quota) };
        let dynamic_assignable = f64::max(0.0, quota - static_assignable);
        let zs = if static_sum > 0.0 { static_sum } else { 1.0 };
        let zd = f64::max(dynamic_sum, 1.0);
        let mut to_children = 0.0;
        for &c in &children {
            let p = self.config.policy(c);
            let q = if p.static_quota {
                p.config_quota * (static_assignable / zs)
            } else {
                p.config_quota * (dynamic_assignable / zd)
            }
            .max(0.0);
            let name = self.config.tree.name(c);
            if p.static_quota && q < p.config_quota {
                self.warnings.push(format!("static quota of `{name}` rescaled from {} to {q}", p.config_quota));
            } else if !p.static_quota && zd - 1.0 > 0.0001 {
                self.warnings.push(format!(
                    "dynamic quota of `{name}` rescaled from {} to {}",
                    p.config_quota,
                    p.config_quota / zd
                ));
            }
            self.assign_subtree(c, q);
            to_children += q;
        }
        let own = if oversub && g != self.config.tree.root() { quota } else { quota - to_children };
        self.states[g.0].quota = own.max(0.0);
    }

    /// Allocates `min(demand, quota)` to every group and shares the surplus
    /// bottom-up; returns the surplus left at `<none>`.
    pub fn fairshare(&mut self) -> f64 {
        let root = self.config.tree.root();
        self.fairshare_subtree(root)
    }

    fn fairshare_subtree(&mut self, g: GroupId) -> f64 {
        let s = &mut self.states[g.0];
        s.allocated = f64::min(s.requested, s.quota);
        s.requested -= s.allocated;
        s.subtree_requested = s.requested;
        let mut surplus = s.quota - s.allocated;
        let children = self.children[g.0].clone();
        if children.is_empty() {
            return surplus;
        }
        for &c in &children {
            surplus += self.fairshare_subtree(c);
            if self.config.policy(c).accept_surplus {
                self.states[g.0].subtree_requested += self.states[c.0].subtree_requested;
            }
        }
        self.allocate_surplus(g, surplus)
    }

    /// The group and its children on equal footing: the children, then the
    /// group itself acting as a child that accepts surplus with its own
    /// quota, demand and round-robin time.
    fn siblings(&self, g: GroupId) -> Vec<Sibling> {
        let mut out: Vec<Sibling> = self.children[g.0]
            .iter()
            .map(|&c| {
                let s = &self.states[c.0];
                Sibling {
                    group: c,
                    accept: self.config.policy(c).accept_surplus,
                    subtree_quota: s.subtree_quota,
                    subtree_requested: s.subtree_requested,
                    subtree_rr_time: s.subtree_rr_time,
                }
            })
            .collect();
        let s = &self.states[g.0];
        out.push(Sibling {
            group: g,
            accept: true,
            subtree_quota: s.quota,
            subtree_requested: s.requested,
            subtree_rr_time: s.rr_time,
        });
        out
    }

    fn allocate_surplus(&mut self, g: GroupId, mut surplus: f64) -> f64 {
        if surplus <= 0.0 {
            return 0.0;
        }
        if self.states[g.0].subtree_requested <= 0.0 {
            return surplus;
        }
        let siblings = self.siblings(g);
        let mut allocated = vec![0.0; siblings.len()];
        let mut requested = self.states[g.0].subtree_requested;
        if surplus >= requested {
            for (j, s) in siblings.iter().enumerate() {
                if s.accept && s.subtree_requested > 0.0 {
                    allocated[j] = s.subtree_requested;
                }
            }
            surplus -= requested;
            requested = 0.0;
        } else {
            let mut outstanding: Vec<f64> = siblings
                .iter()
                .map(|s| if s.accept && s.subtree_requested > 0.0 { s.subtree_requested } else { 0.0 })
                .collect();
            for by_quota in [true, false] {
                surplus_loop(by_quota, &siblings, &mut allocated, &mut outstanding, &mut surplus, &mut requested);
            }
        }
        let last = siblings.len() - 1;
        for (j, s) in siblings[..last].iter().enumerate() {
            if allocated[j] > 0.0 {
                self.allocate_surplus(s.group, allocated[j]);
            }
        }
        let st = &mut self.states[g.0];
        st.allocated += allocated[last];
        st.requested -= allocated[last];
        st.subtree_requested = requested;
        surplus
    }

    /// Cuts every allocation to whole slots and hands the fractions out
    /// again, a slot at a time, round-robin; returns what is left at
    /// `<none>` (for pools without slot weights).
    pub fn recover_remainders(&mut self) -> f64 {
        let root = self.config.tree.root();
        self.recover_subtree(root)
    }

    fn recover_subtree(&mut self, g: GroupId) -> f64 {
        let s = &mut self.states[g.0];
        let mut surplus = s.allocated - s.allocated.floor();
        s.allocated -= surplus;
        s.requested += surplus;
        s.allocated = (0.5 + s.allocated).floor();
        s.requested = (0.5 + s.requested).floor();
        s.subtree_requested = s.requested;
        s.subtree_rr_time = if s.requested > 0.0 { s.rr_time } else { f64::MAX };
        let children = self.children[g.0].clone();
        if children.is_empty() {
            return surplus;
        }
        for &c in &children {
            surplus += self.recover_subtree(c);
            if self.config.policy(c).accept_surplus {
                let (requested, rr_time) = (self.states[c.0].subtree_requested, self.states[c.0].subtree_rr_time);
                let s = &mut self.states[g.0];
                s.subtree_requested += requested;
                if requested > 0.0 {
                    s.subtree_rr_time = s.subtree_rr_time.min(rr_time);
                }
            }
        }
        self.round_robin(g, surplus)
    }

    fn round_robin(&mut self, g: GroupId, mut surplus: f64) -> f64 {
        {
            let s = &mut self.states[g.0];
            s.subtree_requested = s.subtree_requested.floor();
            if s.subtree_requested <= 0.0 || surplus < 1.0 {
                return surplus;
            }
        }
        let siblings = self.siblings(g);
        let mut allocated = vec![0.0; siblings.len()];
        let mut requested = self.states[g.0].subtree_requested;
        let mut left: Vec<f64> = siblings
            .iter()
            .map(|s| if s.accept && s.subtree_requested > 0.0 { s.subtree_requested } else { 0.0 })
            .collect();
        let mut outstanding = left.iter().filter(|&&l| l > 0.0).count() as f64;
        // Least recently served first, then the larger subtree quota, then
        // the larger demand.
        let mut idx: Vec<usize> = (0..siblings.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&siblings[a], &siblings[b]);
            x.subtree_rr_time
                .total_cmp(&y.subtree_rr_time)
                .then(y.subtree_quota.total_cmp(&x.subtree_quota))
                .then(y.subtree_requested.total_cmp(&x.subtree_requested))
        });
        while surplus >= 1.0 && requested > 0.0 {
            let amax = f64::max(1.0, (surplus / outstanding).floor());
            outstanding = 0.0;
            let mut sum = 0.0;
            for &j in &idx {
                if left[j] > 0.0 {
                    let a = f64::min(left[j], amax);
                    allocated[j] += a;
                    left[j] -= a;
                    sum += a;
                    surplus -= a;
                    requested -= a;
                    self.states[siblings[j].group.0].rr = true;
                    if left[j] > 0.0 {
                        outstanding += 1.0;
                    }
                    if surplus < amax {
                        break;
                    }
                }
            }
            if sum < 1.0 {
                break;
            }
        }
        let last = siblings.len() - 1;
        for (j, s) in siblings[..last].iter().enumerate() {
            if allocated[j] > 0.0 {
                self.round_robin(s.group, allocated[j]);
            }
        }
        let st = &mut self.states[g.0];
        st.allocated += allocated[last];
        st.requested -= allocated[last];
        st.subtree_requested = requested;
        surplus
    }

    /// The limit a group negotiates with once groups that do not accept
    /// surplus cap their subtrees: `slots` less whatever would take an
    /// ancestor (or the group) past its quota, and the group whose cap
    /// counted last. `subtree_usage` is each group's usage with its
    /// subgroups'.
    pub fn strict_limit(&self, g: GroupId, slots: f64, subtree_usage: &[f64]) -> (f64, Option<GroupId>) {
        if !self.config.strict_enforce {
            return (slots, None);
        }
        let mut capped_by = None;
        let usage = self.states[g.0].usage;
        let mut new_allocation = slots - usage;
        let mut at = Some(g);
        while let Some(l) = at {
            let p = self.config.policy(l);
            if !p.accept_surplus {
                let cap = if p.static_quota { p.config_quota } else { self.states[l.0].subtree_quota };
                let available = f64::max(0.0, cap - subtree_usage[l.0]);
                if new_allocation > available {
                    new_allocation = available;
                    capped_by = Some(l);
                }
            }
            at = self.config.tree.parent(l);
        }
        (new_allocation + usage, capped_by)
    }

    /// Each group's usage with its subgroups', from each group's own.
    pub fn subtree_usage(&self, own: impl Fn(GroupId) -> f64) -> Vec<f64> {
        let mut out: Vec<f64> = (0..self.states.len()).map(|g| own(GroupId(g))).collect();
        for &g in self.order.iter().rev() {
            if let Some(p) = self.config.tree.parent(g) {
                out[p.0] += out[g.0];
            }
        }
        out
    }

    /// GROUP_SORT_EXPR for a group now (f32::MAX if it is not a number).
    pub fn sort_key(&self, g: GroupId, in_use: f64) -> f64 {
        let s = &self.states[g.0];
        let mut ad = ClassAd::with_capacity(4);
        ad.insert("AccountingGroup", self.config.tree.name(g));
        ad.insert("GroupQuota", s.quota);
        ad.insert("GroupResourcesAllocated", s.allocated);
        ad.insert("GroupResourcesInUse", in_use);
        let opts = EvalOptions::new().semantics(Semantics::Old);
        crate::candidates::number(&EvalContext::new(&opts).my(&ad).eval(&self.config.sort_expr))
            .unwrap_or(f64::from(f32::MAX))
    }

    /// The allocation rounds (HTCondor's `hgq_negotiate_with_all_groups`):
    /// fair share, then each group negotiated in GROUP_SORT_EXPR order, until
    /// every allocation is used or the rounds run out. `total` is what
    /// `<none>` received; `now` is recorded as the round-robin time of the
    /// groups served. Call [`prepare`](Quotas::prepare) first.
    pub fn negotiate<N: GroupNegotiation>(
        &mut self,
        total: f64,
        now: f64,
        negotiator: &mut N,
    ) -> Result<Vec<RoundReport>, N::Error> {
        let config = self.config;
        let root = config.tree.root();
        let autoregroup = config.autoregroup();
        let mut reports = Vec::new();
        for round in 1..=config.max_allocation_rounds {
            for s in &mut self.states {
                s.allocated = 0.0;
                s.subtree_requested = 0.0;
                s.rr = false;
            }
            let mut surplus = self.fairshare();
            if !config.weighted_slots {
                surplus += self.recover_remainders();
            }
            if autoregroup {
                let r = &mut self.states[root.0];
                r.quota = total;
                r.allocated = total;
            }
            let mut max_delta: f64 = 0.0;
            let mut allocated_total = 0.0;
            let mut rows = Vec::with_capacity(self.order.len());
            for &g in &self.order {
                let s = &self.states[g.0];
                allocated_total += s.allocated;
                let target = if config.any_accept_surplus { s.allocated } else { s.quota };
                max_delta = max_delta.max(f64::max(0.0, target - s.usage));
                rows.push(GroupRound {
                    group: g,
                    quota: s.quota,
                    requested: s.requested + s.allocated,
                    allocated: s.allocated,
                    unallocated: s.requested,
                    sort_key: 0.0,
                    limits: Vec::new(),
                    skipped: None,
                    capped_by: None,
                    usage_after: 0.0,
                });
            }
            for (k, &g) in self.order.clone().iter().enumerate() {
                let key = self.sort_key(g, negotiator.usage(g));
                self.states[g.0].sort_key = key;
                rows[k].sort_key = key;
            }
            // Equal keys keep breadth-first order (HTCondor's sort of a few
            // groups does too).
            let mut order = self.order.clone();
            order.sort_by(|&a, &b| {
                if autoregroup && (a == root || b == root) {
                    return (a == root).cmp(&(b == root));
                }
                self.states[a.0].sort_key.total_cmp(&self.states[b.0].sort_key)
            });
            let row_of = |g: GroupId, order: &[GroupId]| order.iter().position(|&x| x == g).unwrap_or(0);
            let mut n: f64 = 0.0;
            loop {
                n = f64::min(n + config.round_robin_rate, max_delta);
                for &g in &order {
                    let k = row_of(g, &self.order);
                    let s = &self.states[g.0];
                    if s.allocated <= 0.0 {
                        rows[k].skipped = Some("zero slots allocated".into());
                        continue;
                    }
                    if s.usage >= s.allocated && !config.consider_preemption {
                        rows[k].skipped = Some("at or over its allocation".into());
                        continue;
                    }
                    if !negotiator.has_submitters(g) {
                        rows[k].skipped = Some("no submitters".into());
                        continue;
                    }
                    let target = f64::max(s.allocated, s.quota);
                    let delta = f64::max(0.0, target - s.usage);
                    // When a group's allocation exceeds its usage while no
                    // allocation is left to use (max_delta 0), this is 0/0:
                    // HTCondor computes NaN and carries it through (`std::min`
                    // keeps a NaN first argument).
                    let mut slots = if delta > 0.0 { s.usage + delta * (n / max_delta) } else { target };
                    if target < slots {
                        slots = target;
                    }
                    if !config.weighted_slots {
                        slots = slots.floor();
                    }
                    let subtree = self.subtree_usage(|x| negotiator.usage(x));
                    for (x, u) in subtree.iter().enumerate() {
                        self.states[x].subtree_usage = *u;
                    }
                    let (slots, capped_by) = self.strict_limit(g, slots, &subtree);
                    rows[k].capped_by = capped_by;
                    let limit = as_int(slots);
                    rows[k].skipped = None;
                    rows[k].limits.push(limit);
                    negotiator.negotiate(g, limit)?;
                }
                if n >= max_delta {
                    break;
                }
            }
            let mut usage_total = 0.0;
            for (k, &g) in self.order.clone().iter().enumerate() {
                let usage = negotiator.usage(g);
                let s = &mut self.states[g.0];
                s.usage = usage;
                rows[k].usage_after = usage;
                usage_total += f64::min(s.usage, s.allocated);
                if s.usage < s.allocated {
                    s.requested = s.usage;
                } else {
                    s.requested += s.allocated;
                }
            }
            reports.push(RoundReport {
                round,
                groups: rows,
                allocated_total,
                surplus,
                max_delta,
                usage_total,
                order: order.clone(),
            });
            if usage_total >= allocated_total {
                break;
            }
        }
        for s in &mut self.states {
            if s.rr || s.requested <= 0.0 {
                s.rr_time = now;
            }
        }
        Ok(reports)
    }
}

/// The limit as HTCondor hands it on, converted to an `int`: truncated,
/// and what does not fit (a NaN, too large a value) becomes `INT_MIN`, as
/// the conversion gives on x86-64.
fn as_int(x: f64) -> f64 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        f64::from(i32::MIN)
    } else {
        x.trunc()
    }
}

/// A group as its parent's surplus sees it.
struct Sibling {
    group: GroupId,
    accept: bool,
    subtree_quota: f64,
    subtree_requested: f64,
    subtree_rr_time: f64,
}

/// Shares `surplus` among the siblings with outstanding demand, in
/// proportion to their subtree quotas (`by_quota`) or equally, until the
/// surplus or the demand runs out.
fn surplus_loop(
    by_quota: bool,
    siblings: &[Sibling],
    allocated: &mut [f64],
    outstanding: &mut [f64],
    surplus: &mut f64,
    requested: &mut f64,
) {
    while *surplus > 0.0 {
        let weight = |j: usize| if by_quota { siblings[j].subtree_quota } else { 1.0 };
        let z: f64 = (0..siblings.len()).filter(|&j| outstanding[j] > 0.0).map(weight).sum();
        if z <= 0.0 {
            break;
        }
        let mut never_capped = true;
        let mut sum = 0.0;
        for j in 0..siblings.len() {
            if outstanding[j] > 0.0 {
                let mut a = *surplus * (weight(j) / z);
                if a > outstanding[j] {
                    a = outstanding[j];
                    never_capped = false;
                }
                allocated[j] += a;
                outstanding[j] -= a;
                sum += a;
            }
        }
        *surplus -= sum;
        *requested -= sum;
        if never_capped || *surplus < 0.0 {
            *surplus = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn config(text: &str) -> GroupQuotaConfig {
        let c = Config::parse_str(text, "test.conf").expect("parses");
        GroupQuotaConfig::from_config(&c).expect("group config")
    }

    fn id(c: &GroupQuotaConfig, name: &str) -> GroupId {
        c.tree.find(name).expect("configured")
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    const PHYSICS: &str = "GROUP_NAMES = group_physics, group_chemistry\n\
        GROUP_QUOTA_group_physics = 20\nGROUP_QUOTA_group_chemistry = 10\n";

    #[test]
    fn static_quotas_scale_down_with_the_pool_unless_oversubscribed() {
        let c = config(&format!("{PHYSICS}NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false\n"));
        let (p, ch) = (id(&c, "group_physics"), id(&c, "group_chemistry"));
        let mut q = Quotas::new(&c);
        for (pool, want) in [(30.0, (20.0, 10.0, 0.0)), (15.0, (10.0, 5.0, 0.0)), (60.0, (20.0, 10.0, 30.0))] {
            q.prepare(pool, &[], &[]);
            let got = (q.state(p).quota, q.state(ch).quota, q.state(c.tree.root()).quota);
            assert_eq!(got, want, "pool {pool}");
        }
        assert!(q.warnings.iter().any(|w| w.contains("rescaled from 20 to 10")));
        // HTCondor's default lets them keep their quotas.
        let c = config(PHYSICS);
        let mut q = Quotas::new(&c);
        q.prepare(15.0, &[], &[]);
        assert_eq!((q.state(p).quota, q.state(ch).quota, q.state(c.tree.root()).quota), (20.0, 10.0, 0.0));
    }

    #[test]
    fn dynamic_subgroups_leave_the_rest_to_their_parent() {
        let c = config(
            "GROUP_NAMES = group_econ, group_econ.project1, group_econ.project2, group_econ.project3\n\
             GROUP_QUOTA_DYNAMIC_group_econ = .6\nGROUP_QUOTA_DYNAMIC_group_econ.project1 = .2\n\
             GROUP_QUOTA_DYNAMIC_group_econ.project2 = .15\nGROUP_QUOTA_DYNAMIC_group_econ.project3 = .2\n\
             NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false\n",
        );
        let mut q = Quotas::new(&c);
        q.prepare(100.0, &[], &[]);
        let quota = |n: &str| q.state(id(&c, n)).quota;
        assert!(close(quota("group_econ.project1"), 12.0));
        assert!(close(quota("group_econ.project2"), 9.0));
        assert!(close(quota("group_econ.project3"), 12.0));
        assert!(close(quota("group_econ"), 27.0));
        assert!(close(quota("<none>"), 40.0));
        assert!(close(q.state(id(&c, "group_econ")).subtree_quota, 60.0));
    }

    #[test]
    fn dynamic_fractions_above_one_are_normalised_and_remainders_recovered() {
        let c = config(
            "GROUP_NAMES = group_stat, group_stat.project1, group_stat.project2, group_stat.project3\n\
             GROUP_QUOTA_DYNAMIC_group_stat = .5\nGROUP_QUOTA_DYNAMIC_group_stat.project1 = .4\n\
             GROUP_QUOTA_DYNAMIC_group_stat.project2 = .3\nGROUP_QUOTA_DYNAMIC_group_stat.project3 = .4\n\
             NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false\nNEGOTIATOR_USE_SLOT_WEIGHTS = false\n",
        );
        let names = ["group_stat", "group_stat.project1", "group_stat.project2", "group_stat.project3"];
        let mut demand = vec![0.0; c.tree.len()];
        for n in names {
            demand[id(&c, n).0] = 100.0;
        }
        let mut q = Quotas::new(&c);
        q.prepare(100.0, &demand, &[]);
        assert!(close(q.state(id(&c, "group_stat.project1")).quota, 50.0 * 0.4 / 1.1));
        assert!(close(q.state(id(&c, "group_stat.project2")).quota, 50.0 * 0.3 / 1.1));
        assert!(q.warnings.iter().any(|w| w.contains("dynamic quota of `group_stat.project2` rescaled")));
        q.fairshare();
        q.recover_remainders();
        let allocated: Vec<f64> = names.iter().map(|n| q.state(id(&c, n)).allocated).collect();
        // 18.18, 13.64 and 18.18 cut to whole slots; the remaining slot
        // goes to the parent, the only one of them that takes surplus.
        assert_eq!(allocated, [1.0, 18.0, 13.0, 18.0]);
    }

    const HEP: &str = "GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry\n\
        GROUP_QUOTA_group_physics = 20\nGROUP_QUOTA_group_physics.hep = 15\n\
        GROUP_QUOTA_group_physics.lep = 5\nGROUP_QUOTA_group_chemistry = 10\n\
        GROUP_ACCEPT_SURPLUS = false\nGROUP_ACCEPT_SURPLUS_group_physics.lep = true\n\
        GROUP_ACCEPT_SURPLUS_group_physics.hep = true\nNEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false\n";

    fn hep_allocation(text: &str) -> (f64, f64) {
        let c = config(text);
        let mut demand = vec![0.0; c.tree.len()];
        demand[id(&c, "group_physics.hep").0] = 100.0;
        demand[id(&c, "group_chemistry").0] = 100.0;
        let mut q = Quotas::new(&c);
        q.prepare(100.0, &demand, &[]);
        let surplus = q.fairshare();
        (q.state(id(&c, "group_physics.hep")).allocated, surplus)
    }

    #[test]
    fn surplus_stays_under_a_parent_that_does_not_accept_it() {
        // lep's unused 5 go to hep, but physics caps the two at 20; the
        // pool's other 70 stay unallocated.
        assert_eq!(hep_allocation(HEP), (20.0, 70.0));
        // With physics accepting surplus, hep gets the pool's rest too.
        let open = format!("{HEP}GROUP_ACCEPT_SURPLUS_group_physics = true\n");
        assert_eq!(hep_allocation(&open), (90.0, 0.0));
    }

    #[test]
    fn surplus_is_shared_by_subtree_quota_then_equally() {
        let c = config(
            "GROUP_NAMES = a, b, z\nGROUP_QUOTA_a = 30\nGROUP_QUOTA_b = 10\nGROUP_QUOTA_z = 0\n\
             GROUP_ACCEPT_SURPLUS = true\n",
        );
        let (a, b, z) = (id(&c, "a"), id(&c, "b"), id(&c, "z"));
        let mut demand = vec![0.0; c.tree.len()];
        demand[a.0] = 100.0;
        demand[b.0] = 100.0;
        demand[z.0] = 5.0;
        let mut q = Quotas::new(&c);
        // 100 slots: root keeps 60, unused; a and b share it 3:1.
        q.prepare(100.0, &demand, &[]);
        assert_eq!(q.fairshare(), 0.0);
        assert_eq!((q.state(a).allocated, q.state(b).allocated, q.state(z).allocated), (75.0, 25.0, 0.0));
        // Enough surplus for everyone: z, with no quota, gets its 5 too.
        q.prepare(300.0, &demand, &[]);
        let left = q.fairshare();
        assert_eq!((q.state(a).allocated, q.state(b).allocated, q.state(z).allocated), (100.0, 100.0, 5.0));
        assert_eq!(left, 95.0);
    }

    /// A pool where every group gets what it is allowed, up to its demand.
    struct Greedy {
        demand: Vec<f64>,
        usage: Vec<f64>,
        calls: Vec<(GroupId, f64)>,
    }

    impl GroupNegotiation for Greedy {
        type Error = ();
        fn usage(&self, g: GroupId) -> f64 {
            self.usage[g.0]
        }
        fn has_submitters(&self, g: GroupId) -> bool {
            self.demand[g.0] > 0.0
        }
        fn negotiate(&mut self, g: GroupId, limit: f64) -> Result<(), ()> {
            self.calls.push((g, limit));
            self.usage[g.0] = self.usage[g.0].max(limit.min(self.demand[g.0]));
            Ok(())
        }
    }

    #[test]
    fn rounds_follow_the_negotiators_log() {
        // The pool of snap-groups: 100 slots, a 40 (accepts surplus), b 0.3
        // with b.sub1 0.5, c 10; demands <none> 30, a 60, b 20, b.sub1 30, c 25.
        let c = config(
            "GROUP_NAMES = group_a, group_b, group_b.sub1, group_c\nGROUP_QUOTA_group_a = 40\n\
             GROUP_ACCEPT_SURPLUS_group_a = True\nGROUP_QUOTA_DYNAMIC_group_b = 0.3\n\
             GROUP_QUOTA_DYNAMIC_group_b.sub1 = 0.5\nGROUP_QUOTA_group_c = 10\n",
        );
        let names = ["<none>", "group_a", "group_b", "group_c", "group_b.sub1"];
        let mut demand = vec![0.0; c.tree.len()];
        for (n, d) in names.iter().zip([30.0, 60.0, 20.0, 25.0, 30.0]) {
            demand[id(&c, n).0] = d;
        }
        let mut q = Quotas::new(&c);
        q.prepare(100.0, &demand, &[]);
        let quotas: Vec<f64> = names.iter().map(|n| q.state(id(&c, n)).quota).collect();
        assert_eq!(quotas, [35.0, 40.0, 15.0, 10.0, 7.5]);
        let mut pool = Greedy { demand: demand.clone(), usage: vec![0.0; c.tree.len()], calls: Vec::new() };
        let rounds = q.negotiate(100.0, 0.0, &mut pool).expect("negotiates");
        let first: Vec<(f64, f64)> = rounds[0].groups.iter().map(|r| (r.allocated, r.unallocated)).collect();
        assert_eq!(first, [(30.0, 0.0), (45.0, 15.0), (15.0, 5.0), (10.0, 15.0), (7.5, 22.5)]);
        // b does not accept surplus: b.sub1 may not add to b's 15.
        let order: Vec<&str> = rounds[0].order.iter().map(|&g| c.tree.name(g)).collect();
        assert_eq!(order, ["group_a", "group_b", "group_c", "group_b.sub1", "<none>"]);
        assert_eq!(rounds[0].groups[4].limits, [0.0]);
        // This pool never runs out of slots: b.sub1's unused 7.5 go to a in
        // round 2, cut to 47 when handed on as a whole number.
        assert_eq!(rounds[1].groups[1].allocated, 47.5);
        assert_eq!(pool.usage[id(&c, "group_a").0], 47.0);
        assert_eq!(rounds.len(), 3);
    }

    #[test]
    fn round_robin_rate_negotiates_in_steps() {
        // Two groups of quota 4 and 2 with demand 10 each, 6 slots: with a
        // rate of 1, each negotiates up to usage + n/maxdelta of its delta,
        // n = 1, 2, 3, 4.
        // (Surplus accepted, so that no group's cap applies.)
        let c = config(
            "GROUP_NAMES = x, y\nGROUP_QUOTA_x = 4\nGROUP_QUOTA_y = 2\nGROUP_QUOTA_ROUND_ROBIN_RATE = 1\n\
             GROUP_ACCEPT_SURPLUS = True\n",
        );
        let (x, y) = (id(&c, "x"), id(&c, "y"));
        let mut demand = vec![0.0; c.tree.len()];
        demand[x.0] = 10.0;
        demand[y.0] = 10.0;
        let mut q = Quotas::new(&c);
        q.prepare(6.0, &demand, &[]);
        let mut pool = Greedy { demand, usage: vec![0.0; c.tree.len()], calls: Vec::new() };
        let rounds = q.negotiate(6.0, 0.0, &mut pool).expect("negotiates");
        assert_eq!(rounds.len(), 1);
        let calls: Vec<(&str, f64)> = pool.calls.iter().map(|&(g, l)| (c.tree.name(g), l)).collect();
        // Both sort keys are 0 at the round's start: breadth first.
        assert_eq!(
            calls,
            [("x", 1.0), ("y", 0.0), ("x", 2.0), ("y", 1.0), ("x", 3.0), ("y", 1.0), ("x", 4.0), ("y", 2.0)]
        );
    }

    #[test]
    fn autoregroup_puts_the_root_last_with_the_whole_pool() {
        let c = config(
            "GROUP_NAMES = x\nGROUP_QUOTA_x = 2\nGROUP_AUTOREGROUP = True\n\
             GROUP_SORT_EXPR = ifThenElse(AccountingGroup =?= \"<none>\", 0, 1)\n",
        );
        assert!(c.autoregroup());
        let x = id(&c, "x");
        let mut demand = vec![0.0; c.tree.len()];
        demand[0] = 1.0;
        demand[x.0] = 10.0;
        let mut q = Quotas::new(&c);
        q.prepare(10.0, &demand, &[]);
        let mut pool = Greedy { demand, usage: vec![0.0; c.tree.len()], calls: Vec::new() };
        let rounds = q.negotiate(10.0, 0.0, &mut pool).expect("negotiates");
        // <none> sorts first by its key, but autoregroup keeps it last, and
        // it negotiates for the whole pool.
        assert_eq!(rounds[0].order, [x, c.tree.root()]);
        assert_eq!(pool.calls[..2], [(x, 2.0), (c.tree.root(), 10.0)]);
    }
}
