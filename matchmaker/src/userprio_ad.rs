//! The userprio ad written: the negotiator's report of user priorities as
//! one ad (`LastUpdate`, `Name1`, `Priority1`, ..., `NumSubmittors`), in
//! either of its two forms ([`Form`]): `condor_userprio -long`'s, as
//! negotiator-sim prints and saves it, and the one condor_negotiator's
//! `Accountant::ReportState` sends for `GET_PRIORITY`
//! (`negotiator::userprio`). One writer, [`write()`], makes both.
//!
//! Its reader is [`PriorityRow::from_userprio_ad`] (what
//! `condor_userprio -inputfile` and a snapshot's priorities read); the
//! two agree, so that a written ad reads back as the rows it was written
//! from.
//!
//! ```
//! use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow};
//!
//! let mut acct = Accountant::new(AccountantConfig::default());
//! acct.set_priority_factor("amy@site", 10.0)?;
//! let text = matchmaker::userprio_ad::long_form(&acct.priority_rows(), 1_700_000_000);
//! assert!(text.contains("= \"amy@site\""));
//! let ad: classad::ClassAd = classad::format::parse_ads(&text, None)?.remove(0);
//! let (rows, last_update) = PriorityRow::from_userprio_ad(&ad);
//! assert_eq!(last_update, 1_700_000_000);
//! let amy = rows.iter().find(|r| r.name == "amy@site").expect("amy's row");
//! assert_eq!(amy.priority_factor, 10.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;

use classad::{ClassAd, Expr};

use crate::accountant::{Accountant, GroupQuotas, PriorityRow};

/// Which of the two userprio ads [`write()`] makes. They hold the same
/// figures and differ in how the records are numbered, the order of a
/// record's attributes, what a group without a cycle's quota figures
/// shows, and two attributes of a submitter's record.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Form<'a> {
    /// `condor_userprio -l` as negotiator-sim prints it (`userprio -l`,
    /// `cycle --userprio-out`, `generate`'s `userprio.ad`): every row,
    /// numbered from 1 in their order, `NumSubmittors` the number of rows;
    /// a submitter's record `Name`, `IsAccountingGroup`, `AccountingGroup`,
    /// `Priority`, `Ceiling`, `Floor`, `PriorityFactor`, `ResourcesUsed`,
    /// `WeightedResourcesUsed`, `AccumulatedUsage`,
    /// `WeightedAccumulatedUsage`, `BeginUsageTime`, `LastUsageTime`; a
    /// group's the same with, in place of `Ceiling` and `Floor`, its quotas
    /// (`ConfigQuota`, `EffectiveQuota`, `GroupSortKey`, `Requested`,
    /// `SubtreeQuota`, `SurplusPolicy`) and `HierWeightedResourcesUsed`; a
    /// group without a
    /// cycle's quota figures shows zeros (sort key included), as a
    /// negotiator that has not negotiated.
    Listing,
    /// What condor_negotiator's `Accountant::ReportState` sends for
    /// `GET_PRIORITY` (and, with `rollup`, `GET_PRIORITY_ROLLUP`):
    ///
    /// * the groups first, numbered by their breadth-first index
    ///   ([`PriorityRow::group_index`]; a group without a record leaves
    ///   its number unused, a row without an index is left out), then the
    ///   submitters numbered after the accountant's configured groups
    ///   (`<none>` included); `NumSubmittors` is the last number;
    /// * a group's record: `Name`, `IsAccountingGroup`, `AccountingGroup`
    ///   (its parent), `Priority`, `PriorityFactor`, the quotas
    ///   (`EffectiveQuota`, `ConfigQuota`, `SubtreeQuota`, `GroupSortKey`,
    ///   `SurplusPolicy`, `Requested`), `ResourcesUsed`,
    ///   `WeightedResourcesUsed`, `AccumulatedUsage`,
    ///   `HierWeightedResourcesUsed`, `WeightedAccumulatedUsage`,
    ///   `BeginUsageTime`, `LastUsageTime`;
    /// * a submitter's: `Name`, `IsAccountingGroup`, `AccountingGroup`,
    ///   `Priority`, `Ceiling`, `Floor`, `PriorityFactor`, `ResourcesUsed`,
    ///   `WeightedResourcesUsed`, `AccumulatedUsage`,
    ///   `WeightedAccumulatedUsage`, `SubmitterShare`, `SubmitterLimit`,
    ///   `BeginUsageTime`, `LastUsageTime`, with `SubmitterShare` and
    ///   `SubmitterLimit` from the submitter's record
    ///   (figures the negotiator keeps in it without the accountant
    ///   knowing them; 0 when absent, as `LookupFloat` leaves them);
    /// * a group without a cycle's quota figures shows
    ///   [`GroupQuotas::none`];
    /// * with `rollup`, a group's `Priority` is 0, its `PriorityFactor`
    ///   its record's, and its usage figures include its subgroups' (sums;
    ///   the earliest begin and the latest last usage time).
    Report {
        /// The accountant whose rows these are (its groups and records).
        accountant: &'a Accountant,
        /// `GET_PRIORITY_ROLLUP`'s figures for groups.
        rollup: bool,
    },
}

/// One attribute of a record (its name followed by the record's number).
#[derive(Debug, Clone, Copy)]
enum Attr {
    Name,
    IsAccountingGroup,
    AccountingGroup,
    Priority,
    ConfigQuota,
    EffectiveQuota,
    GroupSortKey,
    Requested,
    SubtreeQuota,
    SurplusPolicy,
    HierWeightedResourcesUsed,
    PriorityFactor,
    ResourcesUsed,
    WeightedResourcesUsed,
    AccumulatedUsage,
    WeightedAccumulatedUsage,
    BeginUsageTime,
    LastUsageTime,
    Ceiling,
    Floor,
    SubmitterShare,
    SubmitterLimit,
}

use Attr as A;

impl Attr {
    fn name(self) -> &'static str {
        match self {
            A::Name => "Name",
            A::IsAccountingGroup => "IsAccountingGroup",
            A::AccountingGroup => "AccountingGroup",
            A::Priority => "Priority",
            A::ConfigQuota => "ConfigQuota",
            A::EffectiveQuota => "EffectiveQuota",
            A::GroupSortKey => "GroupSortKey",
            A::Requested => "Requested",
            A::SubtreeQuota => "SubtreeQuota",
            A::SurplusPolicy => "SurplusPolicy",
            A::HierWeightedResourcesUsed => "HierWeightedResourcesUsed",
            A::PriorityFactor => "PriorityFactor",
            A::ResourcesUsed => "ResourcesUsed",
            A::WeightedResourcesUsed => "WeightedResourcesUsed",
            A::AccumulatedUsage => "AccumulatedUsage",
            A::WeightedAccumulatedUsage => "WeightedAccumulatedUsage",
            A::BeginUsageTime => "BeginUsageTime",
            A::LastUsageTime => "LastUsageTime",
            A::Ceiling => "Ceiling",
            A::Floor => "Floor",
            A::SubmitterShare => "SubmitterShare",
            A::SubmitterLimit => "SubmitterLimit",
        }
    }
}

/// A group's record in [`Form::Listing`], in order.
const LISTING_GROUP: [Attr; 18] = [
    A::Name,
    A::IsAccountingGroup,
    A::AccountingGroup,
    A::Priority,
    A::ConfigQuota,
    A::EffectiveQuota,
    A::GroupSortKey,
    A::Requested,
    A::SubtreeQuota,
    A::SurplusPolicy,
    A::HierWeightedResourcesUsed,
    A::PriorityFactor,
    A::ResourcesUsed,
    A::WeightedResourcesUsed,
    A::AccumulatedUsage,
    A::WeightedAccumulatedUsage,
    A::BeginUsageTime,
    A::LastUsageTime,
];

/// A submitter's record in [`Form::Listing`], in order.
const LISTING_SUBMITTER: [Attr; 13] = [
    A::Name,
    A::IsAccountingGroup,
    A::AccountingGroup,
    A::Priority,
    A::Ceiling,
    A::Floor,
    A::PriorityFactor,
    A::ResourcesUsed,
    A::WeightedResourcesUsed,
    A::AccumulatedUsage,
    A::WeightedAccumulatedUsage,
    A::BeginUsageTime,
    A::LastUsageTime,
];

/// A group's record in [`Form::Report`], in `ReportGroups`' order.
const REPORT_GROUP: [Attr; 18] = [
    A::Name,
    A::IsAccountingGroup,
    A::AccountingGroup,
    A::Priority,
    A::PriorityFactor,
    A::EffectiveQuota,
    A::ConfigQuota,
    A::SubtreeQuota,
    A::GroupSortKey,
    A::SurplusPolicy,
    A::Requested,
    A::ResourcesUsed,
    A::WeightedResourcesUsed,
    A::AccumulatedUsage,
    A::HierWeightedResourcesUsed,
    A::WeightedAccumulatedUsage,
    A::BeginUsageTime,
    A::LastUsageTime,
];

/// A submitter's record in [`Form::Report`], in `ReportState`'s order.
const REPORT_SUBMITTER: [Attr; 15] = [
    A::Name,
    A::IsAccountingGroup,
    A::AccountingGroup,
    A::Priority,
    A::Ceiling,
    A::Floor,
    A::PriorityFactor,
    A::ResourcesUsed,
    A::WeightedResourcesUsed,
    A::AccumulatedUsage,
    A::WeightedAccumulatedUsage,
    A::SubmitterShare,
    A::SubmitterLimit,
    A::BeginUsageTime,
    A::LastUsageTime,
];

/// The one ad `condor_userprio -l` prints for `rows`, updated at
/// `last_update` (epoch seconds): [`write()`] in [`Form::Listing`].
pub fn ad(rows: &[PriorityRow], last_update: i64) -> ClassAd {
    write(rows, last_update, Form::Listing)
}

/// `condor_userprio -l`'s text for `rows`: [`ad`] in the old format.
pub fn long_form(rows: &[PriorityRow], last_update: i64) -> String {
    classad::format::ad_to_string(&ad(rows, last_update), classad::format::Format::Old)
}

/// The userprio ad of `rows`, updated at `last_update` (epoch seconds),
/// in `form`.
///
/// ```
/// use matchmaker::accountant::{Accountant, AccountantConfig};
/// use matchmaker::userprio_ad::{write, Form};
///
/// let mut acct = Accountant::new(AccountantConfig::default());
/// acct.set_priority("amy@site", 2.0)?;
/// let rows = acct.priority_rows();
/// // negotiator-sim's listing numbers the rows it is given ...
/// let listing = write(&rows, 0, Form::Listing);
/// assert_eq!(listing.lookup_string("Name1").as_deref(), Some("amy@site"));
/// // ... ReportState numbers submitters after the configured groups (`<none>`).
/// let report = write(&rows, 0, Form::Report { accountant: &acct, rollup: false });
/// assert_eq!(report.lookup_string("Name2").as_deref(), Some("amy@site"));
/// assert_eq!(report.lookup_integer("NumSubmittors"), Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write(rows: &[PriorityRow], last_update: i64, form: Form<'_>) -> ClassAd {
    // The records, numbered.
    let numbered: Vec<(usize, Cow<'_, PriorityRow>)> = match form {
        Form::Listing => rows.iter().enumerate().map(|(i, r)| (i + 1, Cow::Borrowed(r))).collect(),
        Form::Report { accountant, rollup } => {
            let mut groups: Vec<(usize, Cow<'_, PriorityRow>)> =
                rows.iter().filter(|r| r.is_group).filter_map(|r| Some((r.group_index?, Cow::Borrowed(r)))).collect();
            if rollup {
                roll_up(accountant, &mut groups);
            }
            let first = accountant.config().groups.len() + 1;
            let submitters = rows.iter().filter(|r| !r.is_group);
            groups.extend(submitters.enumerate().map(|(i, r)| (first + i, Cow::Borrowed(r))));
            groups
        }
    };
    let count = match form {
        Form::Listing => rows.len(),
        Form::Report { accountant, .. } => {
            accountant.config().groups.len() + rows.iter().filter(|r| !r.is_group).count()
        }
    };
    let mut ad = ClassAd::new();
    ad.insert("LastUpdate", last_update);
    for (n, r) in &numbered {
        let order: &[Attr] = match (form, r.is_group) {
            (Form::Listing, true) => &LISTING_GROUP,
            (Form::Listing, false) => &LISTING_SUBMITTER,
            (Form::Report { .. }, true) => &REPORT_GROUP,
            (Form::Report { .. }, false) => &REPORT_SUBMITTER,
        };
        let quotas = r.is_group.then(|| quotas(r, form));
        for attr in order {
            ad.insert(format!("{}{n}", attr.name()).as_str(), value(*attr, r, quotas.as_ref(), form));
        }
    }
    ad.insert("NumSubmittors", count as i64);
    ad
}

/// A group's quota figures as `form` shows them: the cycle's, or, without
/// any, what a negotiator that has not negotiated shows.
fn quotas(r: &PriorityRow, form: Form<'_>) -> GroupQuotas {
    let none = GroupQuotas::none(&r.name);
    match r.quotas.as_ref() {
        Some(q) if *q != none => q.clone(),
        _ => match form {
            Form::Listing => GroupQuotas { sort_key: 0.0, ..none },
            Form::Report { .. } => none,
        },
    }
}

/// The value of `attr` in `r`'s record (`quotas` for a group).
fn value(attr: Attr, r: &PriorityRow, quotas: Option<&GroupQuotas>, form: Form<'_>) -> Expr {
    let quota = |f: fn(&GroupQuotas) -> f64| Expr::from(quotas.map_or(0.0, f));
    match attr {
        A::Name => r.name.as_str().into(),
        A::IsAccountingGroup => r.is_group.into(),
        A::AccountingGroup => r.accounting_group.as_str().into(),
        A::Priority => r.effective_priority.into(),
        A::PriorityFactor => r.priority_factor.into(),
        A::Ceiling => r.ceiling.into(),
        A::Floor => r.floor.into(),
        A::ResourcesUsed => r.resources_used.into(),
        A::WeightedResourcesUsed => r.weighted_resources_used.into(),
        A::AccumulatedUsage => r.accumulated_usage.into(),
        A::WeightedAccumulatedUsage => r.weighted_accumulated_usage.into(),
        A::HierWeightedResourcesUsed => r.hier_weighted_resources_used.into(),
        A::BeginUsageTime => r.begin_usage_time.into(),
        A::LastUsageTime => r.last_usage_time.into(),
        A::ConfigQuota => quota(|q| q.config_quota),
        A::EffectiveQuota => quota(|q| q.effective_quota),
        A::SubtreeQuota => quota(|q| q.subtree_quota),
        A::GroupSortKey => quota(|q| q.sort_key),
        A::Requested => quota(|q| q.requested),
        A::SurplusPolicy => quotas.map_or("", |q| q.surplus_policy.as_str()).into(),
        A::SubmitterShare | A::SubmitterLimit => match form {
            Form::Report { accountant, .. } => recorded(accountant, &r.name, attr.name()).into(),
            Form::Listing => 0.0.into(),
        },
    }
}

/// A figure the negotiator keeps in `name`'s record without the
/// accountant knowing it, 0 when absent (as `LookupFloat` leaves it).
fn recorded(accountant: &Accountant, name: &str, attr: &str) -> f64 {
    accountant
        .customer(name)
        .and_then(|c| c.other.iter().find(|(k, _)| k.eq_ignore_ascii_case(attr)))
        .and_then(|(_, text)| text.parse::<Expr>().ok())
        .and_then(|e| ClassAd::new().eval_expr(&e).as_f64())
        .unwrap_or(0.0)
}

/// Sums each group's figures into its parent's, deepest groups first (as
/// `ReportGroups` does after its recursion), and sets the rollup's
/// priority and factor.
fn roll_up(accountant: &Accountant, groups: &mut [(usize, Cow<'_, PriorityRow>)]) {
    for (_, r) in groups.iter_mut() {
        let r = r.to_mut();
        r.effective_priority = 0.0;
        r.priority_factor = accountant.customer(&r.name).and_then(|c| c.priority_factor).unwrap_or(0.0);
    }
    // Breadth-first numbers: a child's is above its parent's.
    groups.sort_by_key(|(n, _)| *n);
    for i in (0..groups.len()).rev() {
        let child = groups[i].1.clone().into_owned();
        if child.name == crate::groups::ROOT {
            continue;
        }
        let Some(parent) = groups[..i].iter_mut().find(|(_, p)| p.name == child.accounting_group) else {
            continue;
        };
        let p = parent.1.to_mut();
        p.resources_used = p.resources_used.saturating_add(child.resources_used);
        p.weighted_resources_used += child.weighted_resources_used;
        p.accumulated_usage += child.accumulated_usage;
        p.weighted_accumulated_usage += child.weighted_accumulated_usage;
        p.begin_usage_time = p.begin_usage_time.min(child.begin_usage_time);
        p.last_usage_time = p.last_usage_time.max(child.last_usage_time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accountant::{Accountant, AccountantConfig};

    #[test]
    fn rows_read_back_as_written() {
        let mut acct = Accountant::new(AccountantConfig::default());
        acct.set_priority_factor("amy@site", 10.0).expect("a factor");
        acct.set_accumulated_usage("amy@site", 3600.0).expect("a usage");
        let rows = acct.priority_rows();
        let (read, last_update) = PriorityRow::from_userprio_ad(&ad(&rows, 42));
        assert_eq!(last_update, 42);
        assert_eq!(read.len(), rows.len());
        for (written, read) in rows.iter().zip(&read) {
            assert_eq!(written.name, read.name);
            assert_eq!(written.is_group, read.is_group);
            assert_eq!(written.effective_priority, read.effective_priority);
            assert_eq!(written.priority_factor, read.priority_factor);
            assert_eq!(written.accumulated_usage, read.accumulated_usage);
        }
    }

    #[test]
    fn both_forms_read_back_as_the_same_rows() {
        let config = crate::config::Config::parse_str("GROUP_NAMES = group_a, group_b\n", "test").expect("a config");
        let mut acct = Accountant::new(AccountantConfig::from_config(&config).expect("the accountant's"));
        acct.set_priority_factor("amy@site", 10.0).expect("a factor");
        acct.set_accumulated_usage("bob@site", 3600.0).expect("a usage");
        let rows = acct.priority_rows();
        let listing = write(&rows, 42, Form::Listing);
        for rollup in [false, true] {
            let report = write(&rows, 42, Form::Report { accountant: &acct, rollup });
            let (a, _) = PriorityRow::from_userprio_ad(&listing);
            let (b, _) = PriorityRow::from_userprio_ad(&report);
            let names = |rows: &[PriorityRow]| rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&a), names(&b));
            for (a, b) in a.iter().zip(&b).filter(|(a, _)| !a.is_group) {
                assert_eq!((a.effective_priority, a.accumulated_usage), (b.effective_priority, b.accumulated_usage));
            }
        }
        // Submitters are numbered after the three configured groups.
        let report = write(&rows, 42, Form::Report { accountant: &acct, rollup: false });
        assert_eq!(report.lookup_integer("NumSubmittors"), Some(3 + 2));
        assert_eq!(listing.lookup_integer("NumSubmittors"), Some(rows.len() as i64));
    }
}
