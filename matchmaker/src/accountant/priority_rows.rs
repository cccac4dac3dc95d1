//! What `condor_userprio` is given: one row per submitter and group, from
//! the accountant's records (with a cycle's group figures), or read back
//! from a `condor_userprio -l` ad.

use super::{Accountant, CustomerRecord, MIN_PRIORITY};
use crate::groups::{GroupReport, GroupTree};

/// One submitter's or group's figures, as the negotiator reports them to
/// `condor_userprio`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PriorityRow {
    /// Submitter or group name.
    pub name: String,
    /// Whether this is a group's row.
    pub is_group: bool,
    /// The group the submitter belongs to (for a group: its parent, or
    /// `<none>` for the root).
    pub accounting_group: String,
    /// Effective priority (EUP = RUP × factor). Groups report their own.
    pub effective_priority: f64,
    /// The priority factor as recorded (0 when none is recorded).
    pub priority_factor: f64,
    /// Ceiling (-1: none).
    pub ceiling: i64,
    /// Floor (0: none).
    pub floor: i64,
    /// Slots in use.
    pub resources_used: i64,
    /// Weighted slots in use.
    pub weighted_resources_used: f64,
    /// Slot-seconds used.
    pub accumulated_usage: f64,
    /// Weighted slot-seconds used.
    pub weighted_accumulated_usage: f64,
    /// For a group: weighted slots in use by it and its subgroups.
    pub hier_weighted_resources_used: f64,
    /// When usage began (0: never).
    pub begin_usage_time: i64,
    /// When usage was last seen (0: never).
    pub last_usage_time: i64,
    /// For a group: its index among groups, breadth first (the root is 1).
    pub group_index: Option<usize>,
    /// For a group, the negotiator's quota figures: `(configured, effective,
    /// subtree)` quotas, its sort key (GROUP_SORT_EXPR), its surplus policy
    /// (`no`, `byquota`, `regroup`) and the weighted jobs its members asked
    /// for. The accountant alone has no quotas: see [`GroupQuotas::none`].
    pub quotas: Option<GroupQuotas>,
}

/// A group's quota figures, as the negotiator reports them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GroupQuotas {
    /// `GROUP_QUOTA_<group>` (or the dynamic fraction), as configured.
    pub config_quota: f64,
    /// The quota the negotiation cycle gave it.
    pub effective_quota: f64,
    /// Its quota plus its subgroups'.
    pub subtree_quota: f64,
    /// GROUP_SORT_EXPR's value: groups negotiate in its ascending order.
    pub sort_key: f64,
    /// `no`, `byquota` (GROUP_ACCEPT_SURPLUS) or `regroup` (GROUP_AUTOREGROUP).
    pub surplus_policy: String,
    /// Weighted jobs requested by its members.
    pub requested: f64,
}

impl GroupQuotas {
    /// What a group has before any negotiation cycle: no quota, and
    /// GROUP_SORT_EXPR's default sort key (3.4e38 for `<none>`, 3.3e38 for
    /// a group without quota); the root accepts surplus.
    pub fn none(group: &str) -> Self {
        let root = group == crate::groups::ROOT;
        GroupQuotas {
            config_quota: 0.0,
            effective_quota: 0.0,
            subtree_quota: 0.0,
            sort_key: if root { 3.4e38 } else { 3.3e38 },
            surplus_policy: if root { "byquota" } else { "no" }.to_string(),
            requested: 0.0,
        }
    }
}

impl GroupQuotas {
    /// A group's figures as the negotiator publishes them once a cycle has
    /// negotiated with groups: the configured quota, the quota of the last
    /// allocation round, the subtree's quota, the last round's sort key, the
    /// demand the cycle began with, and the surplus policy.
    ///
    /// ```
    /// use matchmaker::accountant::GroupQuotas;
    /// use matchmaker::negotiator::GroupReport;
    ///
    /// let mut report = GroupReport::default();
    /// report.name = "group_physics".into();
    /// report.parent = Some("<none>".into());
    /// report.config_quota = 0.5;
    /// report.accept_surplus = true;
    /// report.quota = 50.0;
    /// report.subtree_quota = 50.0;
    /// report.demand = 80.0;
    /// report.submitters = 2;
    /// report.allocated = 60.0;
    /// report.surplus = 10.0;
    /// report.usage_after = 60.0;
    /// report.matches = 60;
    /// let q = GroupQuotas::from_report(&report);
    /// assert_eq!((q.config_quota, q.effective_quota, q.requested), (0.5, 50.0, 80.0));
    /// assert_eq!(q.surplus_policy, "byquota");
    /// ```
    pub fn from_report(report: &GroupReport) -> Self {
        let last = report.rounds.last();
        GroupQuotas {
            config_quota: report.config_quota,
            // With autoregroup, `<none>` ends with the whole pool.
            effective_quota: last.map_or(report.quota, |r| r.quota),
            subtree_quota: report.subtree_quota,
            sort_key: last.map_or_else(|| GroupQuotas::none(&report.name).sort_key, |r| r.sort_key),
            surplus_policy: if report.autoregroup {
                "regroup"
            } else if report.accept_surplus {
                "byquota"
            } else {
                "no"
            }
            .to_string(),
            requested: report.demand,
        }
    }
}

impl Accountant {
    /// The rows of [`priority_rows`](Self::priority_rows), each group's
    /// quota figures taken from a cycle's group reports
    /// ([`CycleOutcome::groups`](crate::negotiator::CycleOutcome::groups)),
    /// as `condor_userprio` shows them after that cycle.
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    ///
    /// let accountant = Accountant::new(AccountantConfig::default());
    /// // No cycle negotiated with groups: the figures stay as they were.
    /// assert_eq!(accountant.priority_rows_after(&[]), accountant.priority_rows());
    /// ```
    pub fn priority_rows_after(&self, groups: &[GroupReport]) -> Vec<PriorityRow> {
        // A group the cycle negotiated is reported even without usage yet.
        let mut rows = self.rows(|name| groups.iter().any(|g| g.name == name));
        for row in rows.iter_mut().filter(|r| r.is_group) {
            if let Some(report) = groups.iter().find(|g| g.name == row.name) {
                row.quotas = Some(GroupQuotas::from_report(report));
            }
        }
        rows
    }

    /// The rows of [`priority_rows_after`](Self::priority_rows_after), and
    /// a row for each of the cycle's `submitters` the accountant has no
    /// record of (one that got no match and had no usage before): the
    /// negotiator reports every submitter it negotiated with, as
    /// `condor_userprio` shows after the cycle, at the lowest priority and
    /// its factor.
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    ///
    /// let accountant = Accountant::new(AccountantConfig::default());
    /// let rows = accountant.priority_rows_after_cycle(&[], &["alice@site"]);
    /// assert_eq!(rows.len(), 1);
    /// assert_eq!((rows[0].name.as_str(), rows[0].effective_priority), ("alice@site", 0.5 * rows[0].priority_factor));
    /// ```
    pub fn priority_rows_after_cycle(&self, groups: &[GroupReport], submitters: &[&str]) -> Vec<PriorityRow> {
        let mut rows = self.priority_rows_after(groups);
        for name in submitters {
            if GroupTree::is_group_name(name) || rows.iter().any(|r| !r.is_group && r.name == *name) {
                continue;
            }
            let blank = CustomerRecord { name: name.to_string(), ..CustomerRecord::default() };
            rows.push(self.submitter_row(&blank));
        }
        rows
    }

    /// The rows `condor_userprio` is given: groups first (breadth first,
    /// `<none>` first), then every submitter in record order. Factors not
    /// yet written are reported with their default, as the negotiator
    /// writes them when it reports.
    pub fn priority_rows(&self) -> Vec<PriorityRow> {
        self.rows(|_| false)
    }

    /// The rows, with those of groups without a record for which
    /// `without_record` says yes.
    fn rows(&self, without_record: impl Fn(&str) -> bool) -> Vec<PriorityRow> {
        let groups = &self.config.groups;
        let mut rows = Vec::new();
        let mut order: Vec<_> = groups.ids().collect();
        // Breadth first: by depth, then configured order.
        order.sort_by_key(|&g| (depth(groups, g), g));
        for (i, g) in order.iter().enumerate() {
            let name = groups.name(*g);
            let blank;
            let c = match self.customer(name) {
                Some(c) => c,
                None if without_record(name) => {
                    blank = CustomerRecord { name: name.to_string(), ..CustomerRecord::default() };
                    &blank
                }
                None => continue,
            };
            let parent = groups.parent(*g).map_or(name, |p| groups.name(p));
            rows.push(PriorityRow {
                name: name.to_string(),
                is_group: true,
                accounting_group: parent.to_string(),
                effective_priority: self.effective_priority(name),
                priority_factor: self.config.group_prio_factors.get(&name.to_lowercase()).copied().unwrap_or(0.0),
                ceiling: self.ceiling(name).unwrap_or(-1),
                floor: self.floor(name),
                resources_used: c.resources_used.unwrap_or(0),
                weighted_resources_used: c.weighted_resources_used.unwrap_or(0.0),
                accumulated_usage: c.accumulated_usage.unwrap_or(0.0),
                weighted_accumulated_usage: c.weighted_accumulated_usage.unwrap_or(0.0),
                hier_weighted_resources_used: c.hier_weighted_resources_used.unwrap_or(0.0),
                begin_usage_time: c.begin_usage_time.unwrap_or(0),
                last_usage_time: c.last_usage_time.unwrap_or(0),
                group_index: Some(i + 1),
                quotas: Some(GroupQuotas::none(name)),
            });
        }
        for c in &self.customers {
            if GroupTree::is_group_name(&c.name) {
                // Groups are reported above; a group record no longer
                // configured is not reported.
                continue;
            }
            rows.push(self.submitter_row(c));
        }
        rows
    }

    /// A submitter's row from its record.
    fn submitter_row(&self, c: &CustomerRecord) -> PriorityRow {
        let factor = match c.priority_factor {
            Some(f) if f >= super::MIN_PRIORITY_FACTOR => f,
            _ => self.priority_factor(&c.name),
        };
        let rup = c.priority.unwrap_or(MIN_PRIORITY).max(MIN_PRIORITY);
        PriorityRow {
            name: c.name.clone(),
            is_group: false,
            accounting_group: self.group_of(&c.name).to_string(),
            effective_priority: rup * factor,
            priority_factor: factor,
            ceiling: c.ceiling.filter(|&v| v >= 0).unwrap_or(-1),
            floor: c.floor.unwrap_or(0).max(0),
            resources_used: c.resources_used.unwrap_or(0),
            weighted_resources_used: c.weighted_resources_used.unwrap_or(0.0),
            accumulated_usage: c.accumulated_usage.unwrap_or(0.0),
            weighted_accumulated_usage: c.weighted_accumulated_usage.unwrap_or(0.0),
            hier_weighted_resources_used: 0.0,
            begin_usage_time: c.begin_usage_time.unwrap_or(0),
            last_usage_time: c.last_usage_time.unwrap_or(0),
            group_index: None,
            quotas: None,
        }
    }
}

impl PriorityRow {
    /// The rows of a userprio ad, the one ad `condor_userprio -l` prints
    /// (`LastUpdate`, `NumSubmittors`, `Name1`, `Priority1`, ...), as
    /// `condor_userprio -inputfile` reads it; returns them with the ad's
    /// `LastUpdate`. Records without a name or a priority are skipped.
    pub fn from_userprio_ad(ad: &classad::ClassAd) -> (Vec<PriorityRow>, i64) {
        let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
        let ctx = classad::EvalContext::new(&opts).my(ad);
        let num = |name: &str| match ctx.eval_attr(name) {
            classad::Value::Int(i) => Some(i as f64),
            classad::Value::Real(r) => Some(r),
            _ => None,
        };
        let text = |name: &str| match ctx.eval_attr(name) {
            classad::Value::Str(s) => Some(s.as_str().to_string()),
            _ => None,
        };
        let count = num("NumSubmittors").unwrap_or(0.0).max(0.0) as usize;
        let indices = row_indices(ad, count);
        let mut rows = Vec::with_capacity(indices.len());
        for n in indices {
            let (Some(name), Some(priority)) = (text(&format!("Name{n}")), num(&format!("Priority{n}"))) else {
                continue;
            };
            let is_group =
                matches!(ctx.eval_attr(format!("IsAccountingGroup{n}").as_str()), classad::Value::Bool(true));
            let get = |attr: &str, default: f64| num(&format!("{attr}{n}")).unwrap_or(default);
            rows.push(PriorityRow {
                is_group,
                accounting_group: text(&format!("AccountingGroup{n}"))
                    .unwrap_or_else(|| crate::groups::ROOT.to_string()),
                effective_priority: priority,
                priority_factor: get("PriorityFactor", 0.0),
                ceiling: get("Ceiling", -1.0) as i64,
                floor: get("Floor", 0.0) as i64,
                resources_used: get("ResourcesUsed", 0.0) as i64,
                weighted_resources_used: get("WeightedResourcesUsed", get("ResourcesUsed", 0.0)),
                accumulated_usage: get("AccumulatedUsage", 0.0),
                weighted_accumulated_usage: get("WeightedAccumulatedUsage", -1.0),
                hier_weighted_resources_used: get("HierWeightedResourcesUsed", 0.0),
                begin_usage_time: get("BeginUsageTime", 0.0) as i64,
                last_usage_time: get("LastUsageTime", 0.0) as i64,
                group_index: is_group.then_some(n),
                quotas: is_group.then(|| GroupQuotas {
                    config_quota: get("ConfigQuota", 0.0),
                    effective_quota: get("EffectiveQuota", 0.0),
                    subtree_quota: get("SubtreeQuota", 0.0),
                    sort_key: get("GroupSortKey", 0.0),
                    surplus_policy: text(&format!("SurplusPolicy{n}")).unwrap_or_default(),
                    requested: get("Requested", 0.0),
                }),
                name,
            });
        }
        (rows, num("LastUpdate").unwrap_or(0.0) as i64)
    }
}

/// The record numbers `1..=count` that have a `NameN` in the ad, in order.
/// condor_userprio walks every number up to `NumSubmittors`; walking only
/// the names present gives the same rows, and a `NumSubmittors` of 10^18
/// costs nothing.
fn row_indices(ad: &classad::ClassAd, count: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = ad
        .names()
        .filter_map(|name| {
            let name = name.as_str();
            let digits = name.get(..4).filter(|p| p.eq_ignore_ascii_case("name")).and(name.get(4..))?;
            // `Name01` is not record 1: only the digits `format!` would write.
            if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse::<usize>().ok().filter(|&n| (1..=count).contains(&n))
        })
        .collect();
    indices.sort_unstable();
    indices.dedup();
    indices
}

fn depth(groups: &GroupTree, mut g: crate::groups::GroupId) -> usize {
    let mut d = 0;
    while let Some(p) = groups.parent(g) {
        d += 1;
        g = p;
    }
    d
}
