//! What `condor_userprio` shows: one row per submitter and group, and the
//! table it prints.

use super::{Accountant, CustomerRecord, MIN_PRIORITY};
use crate::groups::GroupTree;

/// One submitter's or group's figures, as the negotiator reports them to
/// `condor_userprio`.
#[derive(Debug, Clone, PartialEq)]
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
    /// let report = GroupReport {
    ///     name: "group_physics".into(),
    ///     parent: Some("<none>".into()),
    ///     config_quota: 0.5,
    ///     static_quota: false,
    ///     accept_surplus: true,
    ///     autoregroup: false,
    ///     quota: 50.0,
    ///     subtree_quota: 50.0,
    ///     demand: 80.0,
    ///     submitters: 2,
    ///     allocated: 60.0,
    ///     surplus: 10.0,
    ///     usage_before: 0.0,
    ///     usage_after: 60.0,
    ///     matches: 60,
    ///     rounds: Vec::new(),
    ///     explanation: String::new(),
    /// };
    /// let q = GroupQuotas::from_report(&report);
    /// assert_eq!((q.config_quota, q.effective_quota, q.requested), (0.5, 50.0, 80.0));
    /// assert_eq!(q.surplus_policy, "byquota");
    /// ```
    pub fn from_report(report: &crate::negotiator::GroupReport) -> Self {
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
    pub fn priority_rows_after(&self, groups: &[crate::negotiator::GroupReport]) -> Vec<PriorityRow> {
        // A group the cycle negotiated is reported even without usage yet.
        let mut rows = self.rows(|name| groups.iter().any(|g| g.name == name));
        for row in rows.iter_mut().filter(|r| r.is_group) {
            if let Some(report) = groups.iter().find(|g| g.name == row.name) {
                row.quotas = Some(GroupQuotas::from_report(report));
            }
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
            let factor = match c.priority_factor {
                Some(f) if f >= super::MIN_PRIORITY_FACTOR => f,
                _ => self.priority_factor(&c.name),
            };
            let rup = c.priority.unwrap_or(MIN_PRIORITY).max(MIN_PRIORITY);
            rows.push(PriorityRow {
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
            });
        }
        rows
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
        let mut rows = Vec::with_capacity(count);
        for n in 1..=count {
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

fn depth(groups: &GroupTree, mut g: crate::groups::GroupId) -> usize {
    let mut d = 0;
    while let Some(p) = groups.parent(g) {
        d += 1;
        g = p;
    }
    d
}

// Column flags, as condor_userprio numbers them.
const GROUP_ID: u32 = 0x0008;
const PRIORITY: u32 = 0x0002;
const FACTOR: u32 = 0x0004;
const RES_USED: u32 = 0x0010;
const WT_RES_USED: u32 = 0x0020;
const USE_TIME1: u32 = 0x0040;
const USE_TIME2: u32 = 0x0080;
const EFF_QUOTA: u32 = 0x0100;
const CFG_QUOTA: u32 = 0x0200;
const SURPLUS: u32 = 0x0400;
const TREE_QUOTA: u32 = 0x0800;
const REAL_PRIO: u32 = 0x1000;
const SORT_KEY: u32 = 0x2000;
const USE_DELTA_T: u32 = 0x4000;
const ORDER: u32 = 0x8000;
const REQUESTED: u32 = 0x10000;
const CEILING: u32 = 0x20000;
const PRIOS: u32 = PRIORITY | FACTOR | REAL_PRIO;
const USAGE: u32 = RES_USED | WT_RES_USED;
const QUOTAS: u32 = EFF_QUOTA | CFG_QUOTA | TREE_QUOTA | SURPLUS | REQUESTED;
const MOST: u32 = CFG_QUOTA | SURPLUS | PRIORITY | FACTOR | USAGE | USE_DELTA_T | REQUESTED | CEILING;
const ALL: u32 = MOST | QUOTAS | PRIOS | USE_TIME1 | USE_TIME2;

/// The columns, in print order: flag, width, the two heading lines.
const COLUMNS: [(u32, usize, &str, &str); 17] = [
    (GROUP_ID, 5, "Group", "Id"),
    (ORDER, 9, "Group", "Order"),
    (SORT_KEY, 9, "Group", "Sort Key"),
    (EFF_QUOTA, 9, "Effective", "Quota"),
    (CFG_QUOTA, 9, "Config", "Quota"),
    (SURPLUS, 7, "Use", "Surplus"),
    (TREE_QUOTA, 9, "Subtree", "Quota"),
    (PRIORITY, 12, "Effective", "Priority"),
    (REAL_PRIO, 8, "Real", "Priority"),
    (FACTOR, 9, "Priority", "Factor"),
    (RES_USED, 6, "Wghted", "In Use"),
    (WT_RES_USED, 12, "Total Usage", "(wghted-hrs)"),
    (USE_TIME1, 16, "Usage", "Start Time"),
    (USE_TIME2, 16, "Last", "Usage Time"),
    (USE_DELTA_T, 10, "Time Since", "Last Usage"),
    (REQUESTED, 10, "Weighted", "Requested"),
    (CEILING, 9, "Submitter", "Ceiling"),
];

/// Which columns and rows a table shows: `condor_userprio`'s display options.
#[derive(Debug, Clone)]
pub struct UserprioTable {
    detail: u32,
    /// Rows whose last usage is before this are hidden (`-allusers`: none).
    min_last_usage_time: i64,
    /// Seconds east of UTC for the dates printed.
    utc_offset_seconds: i64,
    /// `-flat`.
    flat: bool,
    /// `-grouporder`.
    group_order: bool,
    /// `-quotas` or `-surplus`: quota columns asked for.
    dash_quota: bool,
}

impl UserprioTable {
    /// The default table at time `now`: effective priority, factor, usage,
    /// time since last usage, of the submitters active in the last day.
    pub fn new(now: i64) -> Self {
        UserprioTable {
            detail: 0,
            min_last_usage_time: now - 86_400,
            utc_offset_seconds: 0,
            flat: false,
            group_order: false,
            dash_quota: false,
        }
    }

    /// `-quotas`: the groups' quota columns (effective, configured and
    /// subtree quota, surplus policy, requested). Alone, it lists the
    /// groups only.
    ///
    /// ```
    /// use matchmaker::accountant::{PriorityRow, UserprioTable};
    ///
    /// // A saved `condor_userprio -l` report with one group.
    /// let ad: classad::ClassAd = r#"[ NumSubmittors = 2;
    ///     Name1 = "<none>"; IsAccountingGroup1 = true; Priority1 = 0.0;
    ///     Name2 = "group_a"; IsAccountingGroup2 = true; Priority2 = 0.0;
    ///     AccountingGroup2 = "<none>"; ConfigQuota2 = 10.0; EffectiveQuota2 = 10.0;
    ///     SubtreeQuota2 = 10.0; SurplusPolicy2 = "no"; Requested2 = 25.0 ]"#
    ///     .parse()
    ///     .unwrap();
    /// let (rows, last_update) = PriorityRow::from_userprio_ad(&ad);
    /// let table = UserprioTable::new(0).all_users().quotas().render(&rows, last_update);
    /// let group_a = table.lines().find(|l| l.starts_with("group_a")).unwrap();
    /// assert_eq!(group_a.split_whitespace().collect::<Vec<_>>(), ["group_a", "10.00", "10.00", "no", "10.00", "25"]);
    /// ```
    pub fn quotas(mut self) -> Self {
        self.detail |= QUOTAS;
        self.dash_quota = true;
        self
    }

    /// `-surplus`: the groups' surplus policy column.
    pub fn surplus(mut self) -> Self {
        self.detail |= SURPLUS;
        self.dash_quota = true;
        self
    }

    /// `-sortkey`: the groups' sort key (GROUP_SORT_EXPR) column.
    pub fn sort_key(mut self) -> Self {
        self.detail |= SORT_KEY;
        self
    }

    /// `-all`: every column.
    pub fn all(mut self) -> Self {
        self.detail |= ALL;
        self
    }

    /// `-most`: the default columns, said explicitly.
    pub fn most(mut self) -> Self {
        self.detail |= MOST;
        self
    }

    /// `-usage`: usage columns.
    pub fn usage(mut self) -> Self {
        self.detail |= USAGE | USE_TIME1 | USE_TIME2;
        self
    }

    /// `-priority`: the priority columns.
    pub fn priority(mut self) -> Self {
        self.detail |= PRIOS;
        self
    }

    /// `-allusers`: submitters not active in the last day too.
    pub fn all_users(mut self) -> Self {
        self.min_last_usage_time = -1;
        self
    }

    /// `-activefrom`: only submitters active since `time`.
    pub fn active_from(mut self, time: i64) -> Self {
        self.min_last_usage_time = time;
        self
    }

    /// `-activefrom MONTH DAY YEAR`: only submitters active since that day's
    /// midnight (in the table's time zone). Years below 50 are 20xx, as
    /// `condor_userprio` reads them; a date past year 9999 changes nothing.
    pub fn active_from_date(self, month: i64, day: i64, year: i64) -> Self {
        let year = if year < 50 {
            year + 2000
        } else if year < 1900 {
            year + 1900
        } else {
            year
        };
        let offset = self.utc_offset_seconds;
        match days_from_civil(year, month, day) {
            Some(days) => self.active_from(days * 86_400 - offset),
            None => self,
        }
    }

    /// `-flat`: groups and their members are not shown as a hierarchy.
    pub fn flat(mut self) -> Self {
        self.flat = true;
        self
    }

    /// `-grouporder`: flat, groups first in the negotiator's order.
    pub fn group_order(mut self) -> Self {
        self.flat = true;
        self.group_order = true;
        self
    }

    /// Dates are printed in a zone `offset` seconds east of UTC (default UTC).
    pub fn utc_offset(mut self, offset: i64) -> Self {
        self.utc_offset_seconds = offset;
        self
    }

    /// The table for `rows`, with `last_update` in its first line, exactly as
    /// `condor_userprio` prints it.
    pub fn render(&self, rows: &[PriorityRow], last_update: i64) -> String {
        Render::new(self, rows).print(last_update)
    }
}

#[derive(Debug, Clone)]
struct Line {
    name: String,
    priority: f64,
    factor: f64,
    wt_res: f64,
    acc_usage: f64,
    begin: i64,
    last: i64,
    ceiling: f64,
    acct_group: String,
    is_group: bool,
    group_id: i64,
    display_order: f64,
    has: u32,
    index: usize,
    quotas: GroupQuotas,
    surplus: Surplus,
}

/// condor_userprio's surplus policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surplus {
    Unset,
    No,
    Regroup,
    ByQuota,
    Unknown,
}

impl Surplus {
    fn name(self) -> &'static str {
        match self {
            Surplus::Unset => "",
            Surplus::No => "no",
            Surplus::Regroup => "Regroup",
            Surplus::ByQuota => "ByQuota",
            Surplus::Unknown => "n/a",
        }
    }
}

struct Render<'a> {
    opts: &'a UserprioTable,
    lines: Vec<Line>,
    detail: u32,
    hier: bool,
    hide_groups: bool,
    hide_none_if_possible: bool,
    /// Only group columns are shown: users are left out.
    hide_users: bool,
    global_surplus: Surplus,
}

impl<'a> Render<'a> {
    fn new(opts: &'a UserprioTable, rows: &[PriorityRow]) -> Self {
        let mut detail = if opts.detail == 0 { MOST } else { opts.detail };
        // Showing only priorities: groups are not shown (their priority means nothing).
        let mut hier = !opts.flat;
        let mut hide_groups = false;
        if detail & !PRIOS == 0 {
            hier = false;
            hide_groups = true;
        }
        let n = rows.len();
        let mut avail = 0u32;
        let mut lines: Vec<Line> = Vec::with_capacity(n);
        let mut need_fixup = false;
        let mut global_surplus = Surplus::Unset;
        for (i, r) in rows.iter().enumerate() {
            let mut has = PRIORITY | 0x1;
            has |= FACTOR;
            if r.priority_factor > 0.0 {
                has |= REAL_PRIO;
            }
            has |= USAGE | USE_TIME1 | USE_TIME2 | USE_DELTA_T | WT_RES_USED;
            let mut group_id = 0i64;
            if !r.is_group {
                // Groups' rows carry no ceiling.
                has |= CEILING;
            }
            let mut surplus = Surplus::Unset;
            if r.is_group {
                has |= EFF_QUOTA | CFG_QUOTA | SURPLUS | SORT_KEY | TREE_QUOTA | REQUESTED;
                surplus = Surplus::No;
                if let Some(q) = &r.quotas {
                    surplus = match q.surplus_policy.to_ascii_lowercase().as_str() {
                        "regroup" => Surplus::Regroup,
                        "byquota" => Surplus::ByQuota,
                        "no" => Surplus::No,
                        _ => Surplus::Unknown,
                    };
                    if matches!(surplus, Surplus::Regroup | Surplus::ByQuota) {
                        global_surplus = surplus;
                    }
                }
                group_id = -(i as i64 + 1);
                if r.name == "<none>" || r.name == "." {
                    group_id = 0;
                }
                // A group's priority is not shown.
                has &= !PRIORITY;
            } else if r.accounting_group != "<none>" && r.accounting_group != "." {
                group_id = -(n as i64) * 2;
                need_fixup = true;
            }
            if group_id != 0 {
                has |= GROUP_ID;
            }
            avail |= has;
            lines.push(Line {
                name: r.name.clone(),
                priority: r.effective_priority,
                factor: r.priority_factor,
                wt_res: r.weighted_resources_used,
                acc_usage: r.weighted_accumulated_usage,
                begin: r.begin_usage_time,
                last: if r.last_usage_time == 0 { -1 } else { r.last_usage_time },
                ceiling: r.ceiling as f64,
                acct_group: r.accounting_group.clone(),
                is_group: r.is_group,
                group_id,
                display_order: 0.0,
                has,
                index: i + 1,
                quotas: r.quotas.clone().unwrap_or_else(|| GroupQuotas::none("")),
                surplus,
            });
        }
        if avail & USAGE == 0 {
            detail &= !USAGE;
        }
        if need_fixup {
            // Groups first, by name with <none> last; number them.
            lines.sort_by(group_first_by_name);
            let mut groups = 0i64;
            let mut none_ix = 0;
            #[allow(clippy::needless_range_loop)] // reads lines[none_ix] too
            for i in 0..lines.len() {
                if !lines[i].is_group {
                    break;
                }
                groups += 1;
                if lines[i].group_id < 0 {
                    lines[i].group_id = groups;
                } else {
                    none_ix = i;
                }
                lines[i].display_order = if detail & PRIORITY != 0 {
                    // Groups carry their sort key.
                    lines[i].quotas.sort_key
                } else if detail & USAGE != 0 {
                    lines[i].acc_usage / 3600.0
                } else if lines[i].group_id != 0 {
                    lines[i].group_id as f64
                } else {
                    f32::MAX as f64
                };
                lines[i].has |= ORDER;
            }
            let groups = groups as usize;
            for i in groups..lines.len() {
                if lines[i].group_id >= 0 {
                    lines[i].display_order = lines[none_ix].display_order;
                    continue;
                }
                if let Some(j) = (0..groups).find(|&j| lines[j].name == lines[i].acct_group) {
                    lines[i].group_id = lines[j].group_id;
                    lines[i].display_order = lines[j].display_order;
                }
            }
        }
        let mut render = Render {
            opts,
            lines,
            detail,
            hier,
            hide_groups,
            hide_none_if_possible: true,
            hide_users: false,
            global_surplus,
        };
        render.arrange(avail);
        render
    }

    fn arrange(&mut self, avail: u32) {
        let min = self.opts.min_last_usage_time;
        let all_in_none = !self.lines.iter().any(|l| l.last >= min && l.group_id > 0);
        if !all_in_none {
            self.hide_none_if_possible = false;
        }
        if avail & GROUP_ID == 0 || (self.hide_none_if_possible && all_in_none) {
            self.hier = false;
        }
        // Quota columns only make sense with groups, unless asked for.
        if (self.hide_groups || all_in_none) && !self.opts.dash_quota {
            self.detail &= !QUOTAS;
        }
        // Group columns alone: users have nothing to show.
        if self.detail & QUOTAS != 0 && self.detail & !QUOTAS == 0 {
            self.hide_users = true;
        }
        let detail = self.detail;
        if self.hier {
            let by_display_order = detail & (PRIORITY | USAGE) != 0;
            let none_last = self.global_surplus == Surplus::Regroup;
            self.lines.sort_by(|a, b| {
                if a.group_id != b.group_id {
                    if none_last && a.group_id == 0 {
                        return std::cmp::Ordering::Greater;
                    }
                    if none_last && b.group_id == 0 {
                        return std::cmp::Ordering::Less;
                    }
                    if by_display_order && a.display_order != b.display_order {
                        return a.display_order.total_cmp(&b.display_order);
                    }
                    return a.group_id.cmp(&b.group_id);
                }
                if a.is_group != b.is_group {
                    return b.is_group.cmp(&a.is_group);
                }
                by_column1(a, b, detail)
            });
        } else if self.opts.group_order {
            self.lines.sort_by(
                |a, b| {
                    if a.is_group || b.is_group {
                        a.index.cmp(&b.index)
                    } else {
                        by_column1(a, b, detail)
                    }
                },
            );
        } else {
            self.lines.sort_by(|a, b| by_column1(a, b, detail));
        }
    }

    fn print(mut self, last_update: i64) -> String {
        let min = self.opts.min_last_usage_time;
        let hier = self.hier;
        let mut max_name = 10usize;
        for l in &self.lines {
            if l.last >= min {
                let mut len = l.name.len();
                if hier && !l.is_group {
                    len += 2;
                    if l.group_id != 0 {
                        len -= l.acct_group.len();
                    }
                }
                max_name = max_name.max(len);
            }
        }
        let mut out = String::new();
        out.push_str(&format!("Last Priority Update: {}\n", self.format_date(last_update)));
        let min_name = format!("Number of users: {}", self.lines.len()).len();
        max_name = max_name.min(99).max(min_name);
        if hier {
            max_name += 2;
        }
        let cols: Vec<_> = COLUMNS.iter().filter(|c| c.0 & self.detail != 0).collect();
        // Headings.
        let mut line = pad_right(if hier { "Group" } else { "" }, max_name);
        for c in &cols {
            line.push(' ');
            line.push_str(&pad_center(c.2, c.1));
        }
        out.push_str(&line);
        out.push('\n');
        let title = match (self.hide_users, hier) {
            (false, true) => "  User Name",
            (false, false) => "User Name",
            (true, true) => "Name",
            (true, false) => "Group Name",
        };
        let mut line = pad_right(title, max_name);
        for c in &cols {
            line.push(' ');
            line.push_str(&pad_center(c.3, c.1));
        }
        out.push_str(&line);
        out.push('\n');
        let rule = |cols: &[&(u32, usize, &str, &str)]| {
            let mut line = "-".repeat(max_name);
            for c in cols {
                line.push(' ');
                line.push_str(&"-".repeat(c.1));
            }
            line
        };
        out.push_str(&rule(&cols));
        out.push('\n');
        let mut users = 0;
        let (mut tot_wt_res, mut tot_acc, mut tot_begin) = (0.0f64, 0.0f64, 0i64);
        let lines = std::mem::take(&mut self.lines);
        for l in &lines {
            if l.last < min {
                continue;
            }
            if !l.is_group {
                users += 1;
                if self.hide_users {
                    continue;
                }
            } else {
                if self.hide_groups || (!hier && self.hide_none_if_possible && l.group_id == 0) {
                    continue;
                }
                self.hide_none_if_possible = false;
            }
            let mut line = if !hier || l.is_group {
                pad_right(&l.name, max_name)
            } else {
                let name = if l.group_id > 0 && l.name.len() > l.acct_group.len() {
                    &l.name[l.acct_group.len() + 1..]
                } else {
                    &l.name[..]
                };
                format!("  {}", pad_right(name, max_name - 2))
            };
            for c in &cols {
                line.push(' ');
                let (flag, w) = (c.0, c.1);
                if l.has & flag == 0 {
                    if l.is_group && flag & (QUOTAS | SORT_KEY) != 0 {
                        line.push_str(&pad_left("n/d", w));
                    } else {
                        line.push_str(&" ".repeat(w));
                    }
                    continue;
                }
                let cell = match flag {
                    GROUP_ID => float(w, 0, l.group_id as f64),
                    ORDER => float(w, 2, l.display_order),
                    SURPLUS => pad_right(if l.group_id != 0 { l.surplus.name() } else { "yes" }, w),
                    EFF_QUOTA => float(w, 2, l.quotas.effective_quota),
                    CFG_QUOTA => float(w, 2, l.quotas.config_quota),
                    TREE_QUOTA => float(w, 2, l.quotas.subtree_quota),
                    SORT_KEY if l.quotas.sort_key < 3.40282001e38 => float(w, 2, l.quotas.sort_key),
                    SORT_KEY => pad_left("<last>", w),
                    PRIORITY => float(w, 2, l.priority),
                    REAL_PRIO => float(w, 2, if l.factor > 0.0 { l.priority / l.factor } else { 0.0 }),
                    FACTOR if l.factor > 0.0 => float(w, 2, l.factor),
                    RES_USED => float(w, 0, l.wt_res),
                    REQUESTED => float(w, 0, l.quotas.requested),
                    WT_RES_USED => float(w, 2, l.acc_usage / 3600.0),
                    USE_TIME1 => self.date_cell(w, l.begin),
                    USE_TIME2 => self.date_cell(w, l.last),
                    USE_DELTA_T => delta_cell(w, last_update - l.last),
                    CEILING if l.ceiling > -1.0 => float(w, 2, l.ceiling),
                    _ => " ".repeat(w),
                };
                line.push_str(&cell);
            }
            out.push_str(&line);
            out.push('\n');
            if !l.is_group {
                tot_wt_res += l.wt_res;
                tot_acc += l.acc_usage;
                tot_begin = tot_begin.min(l.begin);
            }
        }
        out.push_str(&rule(&cols));
        out.push('\n');
        let mut line = pad_right(&format!("Number of users: {users}"), max_name);
        for c in &cols {
            line.push(' ');
            let w = c.1;
            let cell = match c.0 {
                SURPLUS => pad_right(self.global_surplus.name(), w),
                RES_USED => float(w, 0, tot_wt_res),
                WT_RES_USED => float(w, 2, tot_acc / 3600.0),
                USE_TIME1 => self.date_cell(w, tot_begin),
                USE_TIME2 => self.date_cell(w, min),
                USE_DELTA_T => {
                    if min <= 0 {
                        " ".repeat(w)
                    } else {
                        delta_cell(w, last_update - min)
                    }
                }
                _ => " ".repeat(w),
            };
            line.push_str(&cell);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }

    /// `%2d/%-2d %02d:%02d` (month/day hour:minute), local time.
    fn format_date(&self, t: i64) -> String {
        if t < 0 {
            return "    ???    ".into();
        }
        match civil(t + self.opts.utc_offset_seconds) {
            Some((_, mo, d, h, mi)) => format!("{mo:2}/{d:<2} {h:02}:{mi:02}"),
            None => "    ???    ".into(),
        }
    }

    /// A date cell: `%2d/%02d/%-4d %02d:%02d`, blank for times ≤ 0.
    fn date_cell(&self, w: usize, t: i64) -> String {
        if t <= 0 {
            return pad_left("", w);
        }
        match civil(t + self.opts.utc_offset_seconds) {
            Some((y, mo, d, h, mi)) => pad_left(&format!("{mo:2}/{d:02}/{y:<4} {h:02}:{mi:02}"), w),
            None => pad_left("", w),
        }
    }
}

fn group_first_by_name(a: &Line, b: &Line) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if a.is_group != b.is_group {
        return b.is_group.cmp(&a.is_group);
    }
    if a.is_group {
        if a.group_id == 0 {
            return Ordering::Greater;
        }
        if b.group_id == 0 {
            return Ordering::Less;
        }
        return a.name.cmp(&b.name);
    }
    a.index.cmp(&b.index)
}

/// Submitters by the first column: priority, else usage, else name.
fn by_column1(a: &Line, b: &Line, detail: u32) -> std::cmp::Ordering {
    if detail & PRIORITY != 0 {
        a.priority.total_cmp(&b.priority).then(a.index.cmp(&b.index))
    } else if detail & USAGE != 0 {
        a.acc_usage.total_cmp(&b.acc_usage).then(a.index.cmp(&b.index))
    } else {
        a.name.cmp(&b.name)
    }
}

/// `%<w>.<d>f`, or `%.<w-6>g` when that is too wide, right-aligned in `w`.
fn float(w: usize, decimals: usize, value: f64) -> String {
    use classad::printf::{Conversion, Spec};
    let mut s = Spec::new(Conversion::Fixed).with_width(w).with_precision(Some(decimals)).format_f64(value);
    if s.len() > w {
        s = match w.checked_sub(6) {
            Some(precision) => format_g(value, precision),
            // condor_userprio's format is then `%.-1g`, which glibc prints as it is.
            None => format!("%.0-{}g", 6 - w),
        };
    }
    pad_left(&s, w)
}

use classad::printf::format_g;

/// `%3d+%02d:%02d` (days+hours:minutes), `<now>` for zero or less.
fn delta_cell(w: usize, delta: i64) -> String {
    if delta <= 0 {
        return pad_left("<now>", w);
    }
    let (d, rest) = (delta / 86_400, delta % 86_400);
    pad_left(&format!("{d:3}+{:02}:{:02}", rest / 3600, rest % 3600 / 60), w)
}

fn pad_right(s: &str, w: usize) -> String {
    let mut out: String = s.chars().take(w).collect();
    while out.len() < w {
        out.push(' ');
    }
    out
}

fn pad_left(s: &str, w: usize) -> String {
    if s.len() >= w {
        return s.chars().take(w).collect();
    }
    format!("{}{s}", " ".repeat(w - s.len()))
}

/// Centred as condor_userprio centres headings: the spare columns split with
/// the smaller half (counting the terminator) on the left.
fn pad_center(s: &str, w: usize) -> String {
    let buf = w + 1;
    let src = s.len() + 1;
    let left = buf.saturating_sub(src) / 2;
    let mut out = " ".repeat(left);
    out.push_str(s);
    pad_right(&out, w)
}

/// Days since 1970-01-01 of a civil date; out-of-range months and days
/// carry over as C's `mktime` carries them (`None` past year 9999).
fn days_from_civil(y: i64, m: i64, d: i64) -> Option<i64> {
    let year = i16::try_from(y).ok()?;
    let span = jiff::Span::new().try_months(m - 1).ok()?.try_days(d - 1).ok()?;
    let date = jiff::civil::Date::new(year, 1, 1).ok()?.checked_add(span).ok()?;
    let midnight = date.to_zoned(jiff::tz::TimeZone::UTC).ok()?;
    Some(midnight.timestamp().as_second().div_euclid(86_400))
}

/// Civil date and time of an epoch second: (year, month, day, hour, minute);
/// `None` past year 9999.
fn civil(t: i64) -> Option<(i64, i64, i64, i64, i64)> {
    let z = jiff::Timestamp::from_second(t).ok()?.to_zoned(jiff::tz::TimeZone::UTC);
    Some((i64::from(z.year()), i64::from(z.month()), i64::from(z.day()), i64::from(z.hour()), i64::from(z.minute())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats_match_printf() {
        assert_eq!(float(12, 2, 500.0), "      500.00");
        assert_eq!(float(9, 2, 1000.0), "  1000.00");
        assert_eq!(float(9, 2, 1e10), "    1e+10");
        assert_eq!(float(6, 0, 3.0), "     3");
        assert_eq!(format_g(123456789.0, 3), "1.23e+08");
        assert_eq!(delta_cell(10, 3 * 86_400 + 3600 + 120), "   3+01:02");
        assert_eq!(delta_cell(10, 0), "     <now>");
        assert_eq!(civil(0), Some((1970, 1, 1, 0, 0)));
        assert_eq!(days_from_civil(2026, 11, 24).map(|d| d * 86_400), Some(1_795_478_400));
        assert_eq!(civil(1_764_051_240), Some((2025, 11, 25, 6, 14)));
    }

    #[test]
    fn numbers_print_as_glibc_prints_them() {
        // condor_userprio 23.9.6 -inputfile (table/inputs/nan-values.ad).
        assert_eq!(float(12, 2, f64::NAN), "         nan");
        assert_eq!(float(12, 2, -f64::NAN), "        -nan");
        assert_eq!(float(12, 2, -999_999_999.5), "      -1e+09");
        // FormatFloat's `%.<w-6>g` is `%.-1g` below width 6: glibc prints
        // that format as it is, cut to the width.
        assert_eq!(float(5, 0, -10000.0), "%.0-1");
    }

    #[test]
    fn headings_center_like_condor_userprio() {
        assert_eq!(pad_center("Effective", 12), " Effective  ");
        assert_eq!(pad_center("Priority", 9), "Priority ");
    }
}
