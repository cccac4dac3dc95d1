//! The table `condor_userprio` prints of the priority rows.

use super::priority_rows::{GroupQuotas, PriorityRow};

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
