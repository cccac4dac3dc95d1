//! The `condor_userprio -long` form written: the negotiator's report of
//! user priorities as one ad (`LastUpdate`, `Name1`, `Priority1`, ...,
//! `NumSubmittors`), in the old ClassAd format.
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

use classad::ClassAd;

use crate::accountant::{GroupQuotas, PriorityRow};

/// The one ad `condor_userprio -l` prints for `rows`, updated at
/// `last_update` (epoch seconds).
pub fn ad(rows: &[PriorityRow], last_update: i64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("LastUpdate", last_update);
    for (i, r) in rows.iter().enumerate() {
        let n = i + 1;
        ad.insert(format!("Name{n}").as_str(), r.name.as_str());
        ad.insert(format!("IsAccountingGroup{n}").as_str(), r.is_group);
        ad.insert(format!("AccountingGroup{n}").as_str(), r.accounting_group.as_str());
        ad.insert(format!("Priority{n}").as_str(), r.effective_priority);
        if r.is_group {
            // Quotas come from a negotiation cycle; the accountant alone has
            // none, and shows zeros as a negotiator that has not negotiated.
            match r.quotas.as_ref().filter(|q| **q != GroupQuotas::none(&r.name)) {
                Some(q) => {
                    for (quota, value) in [
                        ("ConfigQuota", q.config_quota),
                        ("EffectiveQuota", q.effective_quota),
                        ("GroupSortKey", q.sort_key),
                        ("Requested", q.requested),
                        ("SubtreeQuota", q.subtree_quota),
                    ] {
                        ad.insert(format!("{quota}{n}").as_str(), value);
                    }
                    ad.insert(format!("SurplusPolicy{n}").as_str(), q.surplus_policy.as_str());
                }
                None => {
                    for quota in ["ConfigQuota", "EffectiveQuota", "GroupSortKey", "Requested", "SubtreeQuota"] {
                        ad.insert(format!("{quota}{n}").as_str(), 0.0);
                    }
                    let policy = if r.name == crate::groups::ROOT { "byquota" } else { "no" };
                    ad.insert(format!("SurplusPolicy{n}").as_str(), policy);
                }
            }
            ad.insert(format!("HierWeightedResourcesUsed{n}").as_str(), r.hier_weighted_resources_used);
        } else {
            ad.insert(format!("Ceiling{n}").as_str(), r.ceiling);
            ad.insert(format!("Floor{n}").as_str(), r.floor);
        }
        ad.insert(format!("PriorityFactor{n}").as_str(), r.priority_factor);
        ad.insert(format!("ResourcesUsed{n}").as_str(), r.resources_used);
        ad.insert(format!("WeightedResourcesUsed{n}").as_str(), r.weighted_resources_used);
        ad.insert(format!("AccumulatedUsage{n}").as_str(), r.accumulated_usage);
        ad.insert(format!("WeightedAccumulatedUsage{n}").as_str(), r.weighted_accumulated_usage);
        ad.insert(format!("BeginUsageTime{n}").as_str(), r.begin_usage_time);
        ad.insert(format!("LastUsageTime{n}").as_str(), r.last_usage_time);
    }
    ad.insert("NumSubmittors", rows.len() as i64);
    ad
}

/// `condor_userprio -l`'s text for `rows`: [`ad`] in the old format.
pub fn long_form(rows: &[PriorityRow], last_update: i64) -> String {
    classad::format::ad_to_string(&ad(rows, last_update), classad::format::Format::Old)
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
}
